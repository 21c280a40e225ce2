//! Bindings of eBA at flow level (`fairnet::systems::eba::flow_level`): VM-to-VM transfers on
//! the fluid engine under LRC, reservation or best effort.

use crate::flow::results_dict;
use crate::workload::{build_topology, value_error};
use fairnet::engine::flow::FlowSimConfig;
use fairnet::engine::Progress;
use fairnet::systems::eba::config::LrcConfig;
use fairnet::systems::eba::flow_level::{self, Control, FlowLevelConfig, VmTransfer};
use fairnet::systems::eba::guarantee::{Placement, Vm};
use fairnet::systems::eba::oracle::OracleDistance;
use fairnet::units::{Bytes, Time};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Runs transfers between VMs. VMs are parallel arrays (host node id, guarantee b/s, weight;
/// named `vm{i}`); transfers are parallel arrays (sending and receiving VM index, bytes,
/// start ps, tag, demand b/s with `inf` for none); `control` is `"lrc"`, `"reservation"` or
/// `"best_effort"`; `lrc_json` an `LrcConfig` (`{}` for the paper's defaults); `config_json`
/// a `FlowSimConfig`; `feedback_delay` makes each update read the rate factors one round trip
/// old. Returns `flow_run`'s dict plus the controller's update counts, every
/// VM-flow's last weight and guarantee (Eqs. 1–2) and `oracle_distance`: the VM-flows'
/// distance from the oracle's allocation with guarantees over the run's last settled stretch
/// (`fairnet::systems::eba::oracle`, as a scenario's `summary.json` reports it: `vm_flows`,
/// `jain_vs_oracle`, `max_rel_error`, `window_s`, and per VM-flow `vm_flow_src`,
/// `vm_flow_dst`, `rate_bps`, `oracle_bps`), or `None` when no VM-flow was open over a
/// sampled window.
#[pyfunction]
#[pyo3(signature = (topology_json, vm_host, vm_guarantee, vm_weight, src_vm, dst_vm, size, start_ps, tag, demand, control, lrc_json, config_json, initial_rate=1e6, ecmp_seed=0, feedback_delay=false))]
#[allow(clippy::too_many_arguments)]
fn eba_flow_run<'py>(
    py: Python<'py>,
    topology_json: &str,
    vm_host: PyReadonlyArray1<'_, i64>,
    vm_guarantee: PyReadonlyArray1<'_, f64>,
    vm_weight: PyReadonlyArray1<'_, f64>,
    src_vm: PyReadonlyArray1<'_, i64>,
    dst_vm: PyReadonlyArray1<'_, i64>,
    size: PyReadonlyArray1<'_, i64>,
    start_ps: PyReadonlyArray1<'_, i64>,
    tag: PyReadonlyArray1<'_, i64>,
    demand: PyReadonlyArray1<'_, f64>,
    control: &str,
    lrc_json: &str,
    config_json: &str,
    initial_rate: f64,
    ecmp_seed: u64,
    feedback_delay: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let topo = build_topology(topology_json)?;
    let json = |what: &str, e: serde_json::Error| {
        value_error(format!(
            "{what}: {}",
            fairnet::scenario::json_error_message(&e)
        ))
    };
    let sim: FlowSimConfig = serde_json::from_str(config_json).map_err(|e| json("config", e))?;
    let lrc: LrcConfig = serde_json::from_str(lrc_json).map_err(|e| json("eba", e))?;
    let control = match control {
        "lrc" => Control::Lrc,
        "reservation" => Control::Reservation,
        "best_effort" => Control::BestEffort,
        other => {
            return Err(value_error(format!(
                "control: expected \"lrc\", \"reservation\" or \"best_effort\", got {other:?}"
            )))
        }
    };
    let (host, guarantee, weight) = (
        vm_host.as_slice()?,
        vm_guarantee.as_slice()?,
        vm_weight.as_slice()?,
    );
    if guarantee.len() != host.len() || weight.len() != host.len() {
        return Err(value_error(format!(
            "vms: {} hosts, {} guarantees and {} weights",
            host.len(),
            guarantee.len(),
            weight.len()
        )));
    }
    let mut vms = Vec::with_capacity(host.len());
    for (i, ((&h, &g), &w)) in host.iter().zip(guarantee).zip(weight).enumerate() {
        let h = u32::try_from(h)
            .map_err(|_| value_error(format!("vm \"vm{i}\".host: bad node id {h}")))?;
        vms.push(Vm {
            name: format!("vm{i}"),
            tenant: String::new(),
            host: h,
            guarantee: g,
            weight: w,
        });
    }
    let placement = Placement::new(vms, |h| {
        let node = topo.hosts().iter().copied().find(|n| n.0 == h)?;
        Some(topo.link(*topo.out_links(node).first()?).capacity.bps())
    })
    .map_err(value_error)?;
    let (src, dst, size, start, tag, demand) = (
        src_vm.as_slice()?,
        dst_vm.as_slice()?,
        size.as_slice()?,
        start_ps.as_slice()?,
        tag.as_slice()?,
        demand.as_slice()?,
    );
    let n = src.len();
    for (name, len) in [
        ("dst_vm", dst.len()),
        ("size", size.len()),
        ("start", start.len()),
        ("tag", tag.len()),
        ("demand", demand.len()),
    ] {
        if len != n {
            return Err(value_error(format!(
                "transfers.{name}: has {len} entries, transfers.src_vm has {n}"
            )));
        }
    }
    let mut transfers = Vec::with_capacity(n);
    for i in 0..n {
        let nn = |name: &str, x: i64| {
            u64::try_from(x).map_err(|_| {
                value_error(format!(
                    "transfers[{i}]: {name} must not be negative, got {x}"
                ))
            })
        };
        transfers.push(VmTransfer {
            src_vm: nn("src_vm", src[i])? as usize,
            dst_vm: nn("dst_vm", dst[i])? as usize,
            size: Bytes(nn("size", size[i])?),
            start: Time(nn("start", start[i])?),
            tag: u32::try_from(tag[i])
                .map_err(|_| value_error(format!("transfers[{i}]: bad tag {}", tag[i])))?,
            demand: (demand[i] != f64::INFINITY).then_some(demand[i]),
        });
    }
    let cfg = FlowLevelConfig {
        control,
        lrc,
        initial_rate,
        ecmp_seed,
        feedback_delay,
    };
    let t0 = std::time::Instant::now();
    let r = py
        .detach(|| {
            flow_level::run(
                &topo,
                &placement,
                &transfers,
                &cfg,
                &sim,
                &Progress::default(),
            )
        })
        .map_err(value_error)?;
    let d = results_dict(py, &r.sim, t0.elapsed().as_secs_f64())?;
    d.set_item("vm_updates", r.vm_updates)?;
    d.set_item("link_updates", r.link_updates)?;
    let pairs: Vec<_> = r.vm_flows.values().collect();
    let col = |f: &dyn Fn(&fairnet::systems::eba::guarantee::VmFlow) -> f64| {
        pairs.iter().map(|p| f(p)).collect::<Vec<f64>>()
    };
    d.set_item(
        "vm_flow_src",
        pairs
            .iter()
            .map(|p| p.src as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "vm_flow_dst",
        pairs
            .iter()
            .map(|p| p.dst as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item("vm_flow_weight", col(&|p| p.weight).into_pyarray(py))?;
    d.set_item("vm_flow_guarantee", col(&|p| p.guarantee).into_pyarray(py))?;
    d.set_item("oracle_distance", oracle_dict(py, r.oracle.as_ref())?)?;
    Ok(d)
}

/// A flow-level run's distance from the oracle as a dict (`None` without one), with the
/// names of `summary.json`'s `eba.oracle_distance`.
fn oracle_dict<'py>(
    py: Python<'py>,
    d: Option<&OracleDistance>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let Some(d) = d else {
        return Ok(None);
    };
    let out = PyDict::new(py);
    out.set_item("vm_flows", d.vm_flows.len())?;
    out.set_item("jain_vs_oracle", d.jain)?;
    out.set_item("max_rel_error", d.max_rel_error)?;
    out.set_item(
        "window_s",
        (d.window.0.as_secs_f64(), d.window.1.as_secs_f64()),
    )?;
    let (src, dst): (Vec<i64>, Vec<i64>) = d
        .vm_flows
        .iter()
        .map(|&(x, y)| (x as i64, y as i64))
        .unzip();
    out.set_item("vm_flow_src", src.into_pyarray(py))?;
    out.set_item("vm_flow_dst", dst.into_pyarray(py))?;
    out.set_item("rate_bps", d.rates.clone().into_pyarray(py))?;
    out.set_item("oracle_bps", d.oracle.clone().into_pyarray(py))?;
    Ok(Some(out))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(eba_flow_run, m)?)?;
    Ok(())
}
