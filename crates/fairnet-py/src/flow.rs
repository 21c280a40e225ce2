//! Bindings of the flow-level (fluid) engine and of the flow generators it is fed with.

use crate::workload::{build_topology, value_error};
use fairnet::engine::flow::{self, FlowSimConfig, FluidFlow, WeightChange};
use fairnet::engine::Progress;
use fairnet::ids::{LinkId, NodeId};
use fairnet::systems::soze::policy::JobSumPreserving;
use fairnet::units::{Bytes, Rate, Time};
use fairnet::workload::{poisson_flows, window_arrivals, Arrivals, FlowSpec, SizeCdf};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::Path;

/// Flows from `src` to `dst` in `[start_ps, end_ps)` at `rate` a second, exponential sizes of
/// mean `mean_size` (`fairnet::workload::window_arrivals`); `period_ps` 0 for Poisson arrivals,
/// else that many flows per period at uniformly random times: arrays size, start_ps.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn window_arrival_flows<'py>(
    py: Python<'py>,
    src: u32,
    dst: u32,
    tag: u32,
    rate: f64,
    mean_size: u64,
    start_ps: u64,
    end_ps: u64,
    period_ps: u64,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let arrivals = if period_ps == 0 {
        Arrivals::Poisson
    } else {
        Arrivals::PerPeriod {
            period: Time(period_ps),
        }
    };
    let flows = window_arrivals(
        NodeId(src),
        NodeId(dst),
        tag,
        rate,
        Bytes(mean_size),
        Time(start_ps),
        Time(end_ps),
        arrivals,
        seed,
    )
    .map_err(value_error)?;
    let d = PyDict::new(py);
    let col = |f: &dyn Fn(&FlowSpec) -> i64| flows.iter().map(f).collect::<Vec<i64>>();
    d.set_item("size", col(&|f| f.size.0 as i64).into_pyarray(py))?;
    d.set_item("start_ps", col(&|f| f.start.0 as i64).into_pyarray(py))?;
    Ok(d)
}

/// Poisson flows at `load` on the hosts of a topology, sizes from a CDF file: arrays
/// src, dst, size, start_ps.
#[pyfunction]
fn poisson_workload<'py>(
    py: Python<'py>,
    topology_json: &str,
    cdf_path: &str,
    load: f64,
    n_flows: usize,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let topo = build_topology(topology_json)?;
    let cdf = SizeCdf::from_file(Path::new(cdf_path)).map_err(value_error)?;
    // Load is relative to the hosts' access links; use the first host's uplink rate.
    let host = *topo
        .hosts()
        .first()
        .ok_or_else(|| value_error("topology: has no hosts"))?;
    let rate: Rate = topo.link(topo.out_links(host)[0]).capacity;
    let flows =
        poisson_flows(topo.hosts(), rate, load, &cdf, n_flows, seed).map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item(
        "src",
        flows
            .iter()
            .map(|f| f.src.0 as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "dst",
        flows
            .iter()
            .map(|f| f.dst.0 as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "size",
        flows
            .iter()
            .map(|f| f.size.0 as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "start_ps",
        flows
            .iter()
            .map(|f| f.start.0 as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    Ok(d)
}

fn check_len(name: &str, len: usize, n: usize) -> PyResult<()> {
    if len != n {
        return Err(value_error(format!(
            "flows.{name}: has {len} entries, flows.src has {n}"
        )));
    }
    Ok(())
}

/// Rows of a CSR pair with one row per flow; entries must be non-negative u32.
fn csr_rows(name: &str, ptr: &[i64], values: &[i64], n: usize) -> PyResult<Vec<Vec<u32>>> {
    if ptr.len() != n + 1 || ptr[0] != 0 || ptr[n] as usize != values.len() {
        return Err(value_error(format!(
            "flows.{name}: CSR row pointers must have {} entries from 0 to {}",
            n + 1,
            values.len()
        )));
    }
    let mut rows = Vec::with_capacity(n);
    for i in 0..n {
        let (a, b) = (ptr[i], ptr[i + 1]);
        if a > b || b as usize > values.len() {
            return Err(value_error(format!(
                "flows[{i}]: {name} row pointers decrease"
            )));
        }
        let row = values[a as usize..b as usize]
            .iter()
            .map(|&x| {
                u32::try_from(x)
                    .map_err(|_| value_error(format!("flows[{i}]: {name} has invalid entry {x}")))
            })
            .collect::<PyResult<Vec<u32>>>()?;
        rows.push(row);
    }
    Ok(rows)
}

fn non_negative(name: &str, i: usize, x: i64) -> PyResult<u64> {
    u64::try_from(x)
        .map_err(|_| value_error(format!("flows[{i}]: {name} must not be negative, got {x}")))
}

/// Runs the fluid engine. Flows are parallel arrays; `config_json` is a `FlowSimConfig`;
/// `policy` (`"job_sum_preserving"`) changes weights as flows come and go, with `weight` as
/// each flow's base weight and `tag` as its job.
#[pyfunction]
#[pyo3(signature = (topology_json, src, dst, size, start_ps, weight, tag, config_json, change_time_ps=None, change_flow=None, change_weight=None, demand=None, guarantee=None, path_ptr=None, path_links=None, deps_ptr=None, deps=None, policy=None))]
#[allow(clippy::too_many_arguments)]
fn flow_run<'py>(
    py: Python<'py>,
    topology_json: &str,
    src: PyReadonlyArray1<'_, i64>,
    dst: PyReadonlyArray1<'_, i64>,
    size: PyReadonlyArray1<'_, i64>,
    start_ps: PyReadonlyArray1<'_, i64>,
    weight: PyReadonlyArray1<'_, f64>,
    tag: PyReadonlyArray1<'_, i64>,
    config_json: &str,
    change_time_ps: Option<PyReadonlyArray1<'_, i64>>,
    change_flow: Option<PyReadonlyArray1<'_, i64>>,
    change_weight: Option<PyReadonlyArray1<'_, f64>>,
    demand: Option<PyReadonlyArray1<'_, f64>>,
    guarantee: Option<PyReadonlyArray1<'_, f64>>,
    path_ptr: Option<PyReadonlyArray1<'_, i64>>,
    path_links: Option<PyReadonlyArray1<'_, i64>>,
    deps_ptr: Option<PyReadonlyArray1<'_, i64>>,
    deps: Option<PyReadonlyArray1<'_, i64>>,
    policy: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let topo = build_topology(topology_json)?;
    let cfg: FlowSimConfig = serde_json::from_str(config_json).map_err(|e| {
        value_error(format!(
            "config: {}",
            fairnet::scenario::json_error_message(&e)
        ))
    })?;
    let (src, dst, size, start, weight, tag) = (
        src.as_slice()?,
        dst.as_slice()?,
        size.as_slice()?,
        start_ps.as_slice()?,
        weight.as_slice()?,
        tag.as_slice()?,
    );
    let n = src.len();
    for (name, len) in [
        ("dst", dst.len()),
        ("size", size.len()),
        ("start", start.len()),
        ("weight", weight.len()),
        ("tag", tag.len()),
    ] {
        if len != n {
            return Err(value_error(format!(
                "flows.{name}: has {len} entries, flows.src has {n}"
            )));
        }
    }
    let mut flows = Vec::with_capacity(n);
    for i in 0..n {
        let node = |name: &str, x: i64| -> PyResult<NodeId> {
            let v = non_negative(name, i, x)?;
            if v as usize >= topo.num_nodes() {
                return Err(value_error(format!(
                    "flows[{i}]: {name} is unknown node {v}"
                )));
            }
            Ok(NodeId(v as u32))
        };
        let mut spec = FlowSpec::new(
            node("src", src[i])?,
            node("dst", dst[i])?,
            Bytes(non_negative("size", i, size[i])?),
            Time(non_negative("start", i, start[i])?),
        );
        spec.weight = weight[i];
        spec.tag = u32::try_from(tag[i])
            .map_err(|_| value_error(format!("flows[{i}]: bad tag {}", tag[i])))?;
        flows.push(FluidFlow::new(spec));
    }
    if let Some(d) = demand {
        let d = d.as_slice()?;
        check_len("demand", d.len(), n)?;
        for (f, &x) in flows.iter_mut().zip(d) {
            f.demand = (x != f64::INFINITY).then_some(x); // NaN is kept, to be rejected by name
        }
    }
    if let Some(g) = guarantee {
        let g = g.as_slice()?;
        check_len("guarantee", g.len(), n)?;
        for (f, &x) in flows.iter_mut().zip(g) {
            f.guarantee = (x != 0.0).then_some(x);
        }
    }
    if let (Some(ptr), Some(links)) = (path_ptr, path_links) {
        let rows = csr_rows("path", ptr.as_slice()?, links.as_slice()?, n)?;
        for (i, row) in rows.into_iter().enumerate() {
            if !row.is_empty() {
                flows[i].path = Some(row.into_iter().map(LinkId).collect());
            }
        }
    }
    if let (Some(ptr), Some(d)) = (deps_ptr, deps) {
        for (i, row) in csr_rows("deps", ptr.as_slice()?, d.as_slice()?, n)?
            .into_iter()
            .enumerate()
        {
            flows[i].deps = row;
        }
    }
    let mut changes = Vec::new();
    if let (Some(t), Some(f), Some(w)) = (change_time_ps, change_flow, change_weight) {
        let (t, f, w) = (t.as_slice()?, f.as_slice()?, w.as_slice()?);
        for i in 0..t.len().min(f.len()).min(w.len()) {
            let at = |m: String| value_error(format!("weight_changes[{i}]: {m}"));
            changes.push(WeightChange {
                time: Time(u64::try_from(t[i]).map_err(|_| at(format!("negative time {}", t[i])))?),
                flow: u32::try_from(f[i]).map_err(|_| at(format!("bad flow {}", f[i])))?,
                weight: w[i],
            });
        }
    }
    // Weight policies (Söze §5.1): the flows' weights are the policy's base weights.
    let mut policy = match policy {
        None => None,
        Some("job_sum_preserving") => Some(JobSumPreserving::new(
            flows.iter().map(|f| f.spec.weight).collect(),
            flows.iter().map(|f| f.spec.tag).collect(),
        )),
        Some(other) => {
            return Err(value_error(format!(
                "policy: expected \"job_sum_preserving\", got {other:?}"
            )))
        }
    };
    let t0 = std::time::Instant::now();
    let r = py
        .detach(|| {
            flow::run_with(
                &topo,
                &flows,
                &changes,
                &cfg,
                &Progress::default(),
                policy.as_mut().map(|p| p as &mut dyn flow::WeightPolicy),
            )
        })
        .map_err(value_error)?;
    let wall = t0.elapsed().as_secs_f64();
    results_dict(py, &r, wall)
}

/// The flow engine's results as the dict `flow_run` returns (arrays of flows, groups and rate
/// samples; counters; `wall_seconds`).
pub(crate) fn results_dict<'py>(
    py: Python<'py>,
    r: &flow::FlowSimResults,
    wall: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let end: Vec<i64> = r
        .flows
        .iter()
        .map(|f| f.end.map_or(-1, |e| e.0 as i64))
        .collect();
    d.set_item(
        "start_ps",
        r.flows
            .iter()
            .map(|f| f.start.0 as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item("end_ps", end.into_pyarray(py))?;
    d.set_item(
        "ideal_fct_ps",
        r.flows
            .iter()
            .map(|f| f.ideal_fct.0 as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "slowdown",
        r.flows
            .iter()
            .map(|f| f.slowdown().unwrap_or(f64::NAN))
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "group_tag",
        r.groups
            .iter()
            .map(|g| g.tag as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "group_flows",
        r.groups
            .iter()
            .map(|g| g.flows as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "group_start_ps",
        r.groups
            .iter()
            .map(|g| g.start.0 as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "group_end_ps",
        r.groups
            .iter()
            .map(|g| g.end.map_or(-1, |e| e.0 as i64))
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "rate_time_ps",
        r.rates
            .iter()
            .map(|s| s.time.0 as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "rate_flow",
        r.rates
            .iter()
            .map(|s| s.flow as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "rate_bps",
        r.rates
            .iter()
            .map(|s| s.rate)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item("events", r.events)?;
    d.set_item("rate_updates", r.rate_updates)?;
    d.set_item("end_time_ps", r.end_time.0)?;
    d.set_item("complete", r.complete)?;
    d.set_item("wall_seconds", wall)?;
    Ok(d)
}

/// Per-event seconds of the incremental allocator and of a full recompute, with `active`
/// concurrently active flows on a k-ary fat-tree.
#[pyfunction]
fn flow_incremental_bench<'py>(
    py: Python<'py>,
    k: u32,
    active: usize,
    events: usize,
    recomputes: usize,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let c = py
        .detach(|| {
            flow::bench::incremental_vs_recompute(k, active, events, recomputes, (0.1, 10.0), seed)
        })
        .map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("incremental_seconds", c.incremental_seconds)?;
    d.set_item("recompute_seconds", c.recompute_seconds)?;
    d.set_item("changed_flows", c.changed_flows)?;
    d.set_item("link_updates", c.link_updates)?;
    Ok(d)
}

/// One run of scenario `m3_parking_lot` (m3's two-layer parking lot, web search from the CDF
/// file `cdf`, `n_flows` flows at `load`, seed `seed`) with the allocator `allocator`
/// (`"incremental"` or `"recompute"`) and classes on or off: CPU and wall seconds, events,
/// the time-average number of active flows and the end-time hash.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn flow_parking_lot_bench<'py>(
    py: Python<'py>,
    n_flows: usize,
    load: f64,
    seed: u64,
    cdf: &str,
    allocator: &str,
    classes: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let kind = match allocator {
        "incremental" => flow::AllocatorKind::Incremental,
        "recompute" => flow::AllocatorKind::Recompute,
        other => {
            return Err(value_error(fairnet::Error::invalid(
                "allocator",
                format!("expected \"incremental\" or \"recompute\", got {other:?}"),
            )))
        }
    };
    let f = py
        .detach(|| {
            let (topo, flows, mut cfg) =
                flow::bench::m3_workload(n_flows, load, seed, std::path::Path::new(cdf))?;
            cfg.classes = classes;
            flow::bench::parking_lot_run(&topo, &flows, &cfg, kind).map(|r| r.1)
        })
        .map_err(value_error)?;
    load_run_dict(py, &f)
}

/// The figures of a measured run ([`flow::bench::LoadRun`]) as a dict.
fn load_run_dict<'py>(py: Python<'py>, f: &flow::bench::LoadRun) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("cpu_seconds", f.cpu_seconds)?;
    d.set_item("wall_seconds", f.wall_seconds)?;
    d.set_item("events", f.events)?;
    d.set_item("mean_active", f.mean_active)?;
    d.set_item("end_hash", format!("{:016x}", f.end_hash))?;
    d.set_item("mean_entries", f.mean_entries)?;
    d.set_item("visits_per_update", f.visits_per_update())?;
    let u = f.rate_updates.max(1) as f64;
    d.set_item("links_per_update", f.allocator.link_updates as f64 / u)?;
    d.set_item(
        "rates_changed_per_update",
        f.allocator.rates_changed as f64 / u,
    )?;
    Ok(d)
}

/// One run of issue 5's fluid workload (web search from the CDF file `cdf`, `n_flows` flows at
/// `load` between random host pairs of a k-ary fat-tree, seed `seed`), measured as
/// [`flow_parking_lot_bench`] measures the parking lot, plus the finished flows and their
/// median slowdown.
#[pyfunction]
fn flow_fat_tree_bench<'py>(
    py: Python<'py>,
    k: u32,
    n_flows: usize,
    load: f64,
    seed: u64,
    cdf: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let (r, f) = py
        .detach(|| {
            let (topo, flows, cfg) =
                flow::bench::fat_tree_workload(k, n_flows, load, seed, std::path::Path::new(cdf))?;
            flow::bench::parking_lot_run(&topo, &flows, &cfg, flow::AllocatorKind::Incremental)
        })
        .map_err(value_error)?;
    let d = load_run_dict(py, &f)?;
    let mut sd: Vec<f64> = r.flows.iter().filter_map(|x| x.slowdown()).collect();
    sd.sort_by(f64::total_cmp);
    d.set_item("finished", sd.len())?;
    d.set_item(
        "median_slowdown",
        sd.get(sd.len() / 2).copied().unwrap_or(f64::NAN),
    )?;
    d.set_item("simulated_seconds", r.end_time.as_secs_f64())?;
    Ok(d)
}

/// Registers this module's functions on `fairnet._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(poisson_workload, m)?)?;
    m.add_function(wrap_pyfunction!(window_arrival_flows, m)?)?;
    m.add_function(wrap_pyfunction!(flow_run, m)?)?;
    m.add_function(wrap_pyfunction!(flow_incremental_bench, m)?)?;
    m.add_function(wrap_pyfunction!(flow_parking_lot_bench, m)?)?;
    m.add_function(wrap_pyfunction!(flow_fat_tree_bench, m)?)?;
    Ok(())
}
