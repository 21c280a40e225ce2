//! Bindings for topologies, generated workloads and unit parsing.
//!
//! Topologies cross the boundary as a `TopologySpec` in JSON (`{"kind": "fat_tree", "k": 8}`,
//! `{"kind": "file", "path": "topology.txt"}`), so Python never re-implements a builder.

use fairnet::alloc::ProblemInput;
use fairnet::engine::packet::RoutingMode;
use fairnet::ids::NodeId;
use fairnet::metrics::rack_core_links;
use fairnet::topo::routing::Routing;
use fairnet::topo::{FileFormat, NodeKind, Topology, TopologySpec};
use fairnet::units::Rate;
use fairnet::workload;
use numpy::IntoPyArray;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::Path;

pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Parses a rate such as "100Gbps" into bits per second.
#[pyfunction]
fn parse_rate(text: &str) -> PyResult<u64> {
    text.parse::<Rate>()
        .map(|r| r.0)
        .map_err(|e| PyValueError::new_err(e.0))
}

pub(crate) fn build_topology(spec_json: &str) -> PyResult<Topology> {
    let spec: TopologySpec = serde_json::from_str(spec_json).map_err(|e| {
        value_error(format!(
            "topology: {}",
            fairnet::scenario::json_error_message(&e)
        ))
    })?;
    spec.build().map_err(value_error)
}

fn problem_dict<'py>(py: Python<'py>, input: ProblemInput) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("capacities", input.capacities.into_pyarray(py))?;
    let ptr: Vec<i64> = input.path_ptr.iter().map(|&x| x as i64).collect();
    let links: Vec<i64> = input.path_links.iter().map(|&x| x as i64).collect();
    d.set_item("path_ptr", ptr.into_pyarray(py))?;
    d.set_item("path_links", links.into_pyarray(py))?;
    d.set_item(
        "weights",
        input.weights.unwrap_or_default().into_pyarray(py),
    )?;
    Ok(d)
}

/// Arrays of the fat-tree benchmark problem: capacities, path_ptr, path_links, weights.
#[pyfunction]
fn fat_tree_problem<'py>(
    py: Python<'py>,
    k: u32,
    n_flows: usize,
    seed: u64,
    weight_min: f64,
    weight_max: f64,
    link_rate: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let rate: Rate = link_rate
        .parse()
        .map_err(|e: fairnet::units::UnitError| value_error(e.0))?;
    let input = py
        .detach(|| workload::fat_tree_problem(k, n_flows, seed, (weight_min, weight_max), rate))
        .map_err(value_error)?;
    problem_dict(py, input)
}

/// Random host pairs with ECMP paths on the topology described by `spec_json`.
#[pyfunction]
fn topology_problem<'py>(
    py: Python<'py>,
    spec_json: &str,
    n_flows: usize,
    seed: u64,
    weight_min: f64,
    weight_max: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let topo = build_topology(spec_json)?;
    let input = py
        .detach(|| workload::random_pairs_problem(&topo, n_flows, seed, (weight_min, weight_max)))
        .map_err(value_error)?;
    problem_dict(py, input)
}

/// Counts of a topology: nodes, hosts, switches, links, and the distinct link rates.
#[pyfunction]
fn topology_info<'py>(py: Python<'py>, spec_json: &str) -> PyResult<Bound<'py, PyDict>> {
    let topo = build_topology(spec_json)?;
    let d = PyDict::new(py);
    let switches = topo
        .nodes()
        .iter()
        .filter(|n| n.kind == NodeKind::Switch)
        .count();
    let mut rates: Vec<u64> = topo.links().iter().map(|l| l.capacity.0).collect();
    rates.sort_unstable();
    rates.dedup();
    d.set_item("nodes", topo.num_nodes())?;
    d.set_item("hosts", topo.num_hosts())?;
    d.set_item("switches", switches)?;
    d.set_item("links", topo.num_links())?;
    d.set_item(
        "link_rates",
        rates
            .iter()
            .map(|&r| Rate(r).to_string())
            .collect::<Vec<_>>(),
    )?;
    Ok(d)
}

/// Which links each flow of a packet run crosses, and with what share of its data: flow `i`
/// from `src[i]` to `dst[i]` routed as the packet engine routes it under `routing` (the
/// `engine.routing` name) and `seed` (`engine.seed`; flow `i` hashes with key `i`), by
/// [`fairnet::topo::Routing::link_shares`] (per-packet modes: the expected share under
/// uniform hop-by-hop choice). Columns `flow`, `link`, `share` (one row per flow and link),
/// and `rack_core`: per link of the topology, whether it joins a rack switch to the rest of
/// the fabric ([`fairnet::metrics::rack_core_links`]).
#[pyfunction]
fn flow_link_shares<'py>(
    py: Python<'py>,
    spec_json: &str,
    src: Vec<u32>,
    dst: Vec<u32>,
    routing: &str,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let topo = build_topology(spec_json)?;
    let mode: RoutingMode = serde_json::from_value(serde_json::Value::String(routing.into()))
        .map_err(|_| {
            value_error(format!(
                "routing: unknown mode {routing:?} (expected ecmp, host_pair, spray, flowcell or first)"
            ))
        })?;
    if src.len() != dst.len() {
        return Err(value_error(format!(
            "flows: {} sources for {} destinations",
            src.len(),
            dst.len()
        )));
    }
    let r = Routing::new(&topo);
    let (mut flow, mut link, mut share) = (Vec::new(), Vec::new(), Vec::new());
    for (i, (&s, &d)) in src.iter().zip(&dst).enumerate() {
        let sel = mode.data_selector(seed, i as u64);
        let shares = r
            .link_shares(NodeId(s), NodeId(d), sel)
            .map_err(|e| value_error(format!("flows[{i}]: {e}")))?;
        for (l, x) in shares {
            flow.push(i as i64);
            link.push(l.0 as i64);
            share.push(x);
        }
    }
    let d = PyDict::new(py);
    d.set_item("flow", flow.into_pyarray(py))?;
    d.set_item("link", link.into_pyarray(py))?;
    d.set_item("share", share.into_pyarray(py))?;
    d.set_item("rack_core", rack_core_links(&topo).into_pyarray(py))?;
    Ok(d)
}

/// Builds the topology of `spec_json` and writes it to `path` ("hpcc", "toml" or "json";
/// `None` = from the extension).
#[pyfunction]
#[pyo3(signature = (spec_json, path, format=None))]
fn write_topology(spec_json: &str, path: &str, format: Option<&str>) -> PyResult<()> {
    let topo = build_topology(spec_json)?;
    let path = Path::new(path);
    let format = match format {
        Some(f) => serde_json::from_value::<FileFormat>(serde_json::Value::String(f.into()))
            .map_err(|_| value_error(format!("format: expected hpcc, toml or json, got {f:?}")))?,
        None => FileFormat::from_path(path).ok_or_else(|| {
            value_error(format!(
                "{}: cannot tell the format from the extension (use .txt for HPCC, .toml or .json)",
                path.display()
            ))
        })?,
    };
    fairnet::topo::write_topology_file(&topo, path, format).map_err(value_error)
}

/// Registers this module's functions on `fairnet._core`.
/// The TPC-H job DAGs ([`fairnet::workload::tpch`]) placed on the topology's hosts
/// (`placement`: `"distinct"` or `"uniform"`): flow
/// columns `src`, `dst`, `size`, `start_ps`, `tag` (query number), `deps` as CSR
/// (`deps_ptr`, `deps`), and `longest_path` (flows from each flow to the end of its DAG,
/// itself included: Söze §5.1.6's weight).
#[pyfunction]
fn tpch_jobs<'py>(
    py: Python<'py>,
    spec_json: &str,
    queries: Vec<u32>,
    scale_factor: f64,
    placement: &str,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    use fairnet::workload::{dag, tpch};
    let topo = build_topology(spec_json)?;
    let placement = match placement {
        "distinct" => tpch::Placement::Distinct,
        "uniform" => tpch::Placement::Uniform,
        other => {
            return Err(value_error(format!(
                "placement: expected \"distinct\" or \"uniform\", got {other:?}"
            )))
        }
    };
    let jobs = tpch::tpch_jobs(topo.hosts(), &queries, scale_factor, placement, seed)
        .map_err(value_error)?;
    let depth = dag::longest_path_to_sink(&jobs.deps).map_err(value_error)?;
    let f = &jobs.flows;
    let d = PyDict::new(py);
    let col = |g: &dyn Fn(usize) -> i64| (0..f.len()).map(g).collect::<Vec<i64>>();
    d.set_item("src", col(&|i| f[i].src.0 as i64).into_pyarray(py))?;
    d.set_item("dst", col(&|i| f[i].dst.0 as i64).into_pyarray(py))?;
    d.set_item("size", col(&|i| f[i].size.0 as i64).into_pyarray(py))?;
    d.set_item("start_ps", col(&|i| f[i].start.0 as i64).into_pyarray(py))?;
    d.set_item("tag", col(&|i| f[i].tag as i64).into_pyarray(py))?;
    d.set_item("longest_path", col(&|i| depth[i] as i64).into_pyarray(py))?;
    let mut ptr = vec![0i64];
    let mut deps = Vec::new();
    for ds in &jobs.deps {
        deps.extend(ds.iter().map(|&x| x as i64));
        ptr.push(deps.len() as i64);
    }
    d.set_item("deps_ptr", ptr.into_pyarray(py))?;
    d.set_item("deps", deps.into_pyarray(py))?;
    Ok(d)
}

/// MapReduce shuffles (`fairnet::workload::shuffle`): `knots` as (bytes, cumulative fraction)
/// pairs, `vm_host` the host of every VM. Returns arrays per job (`job_size`, `job_start_ps`,
/// `job_tasks`) and per transfer (`src_vm`, `dst_vm`, `bytes`, `start_ps`, `job`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn shuffle_workload<'py>(
    py: Python<'py>,
    knots: Vec<(f64, f64)>,
    jobs: usize,
    mean_interarrival_ps: u64,
    bytes_per_task: u64,
    max_tasks: u32,
    seed: u64,
    vm_host: Vec<u32>,
) -> PyResult<Bound<'py, PyDict>> {
    use workload::shuffle::{shuffle_jobs, ShuffleSpec};
    let spec = ShuffleSpec {
        size_knots: knots,
        jobs,
        mean_interarrival: fairnet::units::Time(mean_interarrival_ps),
        bytes_per_task,
        max_tasks,
        seed,
    };
    let (jobs, transfers) = shuffle_jobs(&spec, &vm_host).map_err(value_error)?;
    let d = PyDict::new(py);
    let ints = |v: Vec<i64>| v.into_pyarray(py);
    d.set_item(
        "job_size",
        ints(jobs.iter().map(|j| j.size as i64).collect()),
    )?;
    d.set_item(
        "job_start_ps",
        ints(jobs.iter().map(|j| j.start.0 as i64).collect()),
    )?;
    d.set_item(
        "job_tasks",
        ints(jobs.iter().map(|j| j.mappers.len() as i64).collect()),
    )?;
    d.set_item(
        "src_vm",
        ints(transfers.iter().map(|t| t.src_vm as i64).collect()),
    )?;
    d.set_item(
        "dst_vm",
        ints(transfers.iter().map(|t| t.dst_vm as i64).collect()),
    )?;
    d.set_item(
        "bytes",
        ints(transfers.iter().map(|t| t.bytes as i64).collect()),
    )?;
    d.set_item(
        "start_ps",
        ints(transfers.iter().map(|t| t.start.0 as i64).collect()),
    )?;
    d.set_item(
        "job",
        ints(transfers.iter().map(|t| t.job as i64).collect()),
    )?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(shuffle_workload, m)?)?;
    m.add_function(wrap_pyfunction!(tpch_jobs, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(fat_tree_problem, m)?)?;
    m.add_function(wrap_pyfunction!(topology_problem, m)?)?;
    m.add_function(wrap_pyfunction!(topology_info, m)?)?;
    m.add_function(wrap_pyfunction!(write_topology, m)?)?;
    m.add_function(wrap_pyfunction!(flow_link_shares, m)?)?;
    Ok(())
}
