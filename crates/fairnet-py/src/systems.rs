//! Bindings of the systems' experiments that run in Rust (Söze §5.1's application cases).

use crate::workload::value_error;
use fairnet::systems::soze::apps::{self, AppCase};
use fairnet::systems::sperc::fig7::{self, Fig7Spec, Scheme};
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn case<'py>(py: Python<'py>, c: &AppCase) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("figure", c.figure)?;
    d.set_item("what", c.what)?;
    d.set_item("fair_s", c.fair_s)?;
    d.set_item("policy_s", c.policy_s)?;
    d.set_item("ratio", c.ratio())?;
    d.set_item("paper_fair_s", c.paper_fair_s)?;
    d.set_item("paper_policy_s", c.paper_policy_s)?;
    Ok(d)
}

/// Söze §5.1's application cases on the flow-level engine (`fairnet::systems::soze::apps`):
/// Fig. 6 (critical path), Fig. 9 (altruistic; with `f3_s`), Fig. 10 (shortest-flow first,
/// `rpcs` requests per sender, seeded; with `sooner`: the fraction of RPCs that finish sooner).
#[pyfunction]
fn soze_app_cases<'py>(
    py: Python<'py>,
    rpcs: usize,
    seed: u64,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let fig6 = apps::fig6_critical_path().map_err(value_error)?;
    let (fig9, f3) = apps::fig9_altruistic().map_err(value_error)?;
    let (fig10, sooner) = apps::fig10_shortest_first(rpcs, seed).map_err(value_error)?;
    let d9 = case(py, &fig9)?;
    d9.set_item("f3_s", f3)?;
    let d10 = case(py, &fig10)?;
    d10.set_item("sooner", sooner)?;
    Ok(vec![case(py, &fig6)?, d9, d10])
}

/// s-PERC §8.2.1, Fig. 7 on the packet engine (`fairnet::systems::sperc::fig7`): one scheme
/// (`"sperc"` or `"rcp"`) at scale `"smoke"` or `"full"`, with optional overrides. Returns the
/// RTT (µs), flows, events, drops (data/ACK and control) and timeouts, and per change the
/// convergence times in RTTs (None: not within the epoch). Runs without the GIL, so two schemes can run on two threads.
#[pyfunction]
#[pyo3(signature = (scheme, scale, seed, changes=None, flows_per_server=None, epoch_rtts=None))]
fn sperc_fig7<'py>(
    py: Python<'py>,
    scheme: &str,
    scale: &str,
    seed: u64,
    changes: Option<u32>,
    flows_per_server: Option<f64>,
    epoch_rtts: Option<u32>,
) -> PyResult<Bound<'py, PyDict>> {
    let scheme = match scheme {
        "sperc" => Scheme::SPercStar,
        "rcp" => Scheme::Rcp,
        s => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "sperc_fig7.scheme: unknown scheme {s:?}; expected \"sperc\" or \"rcp\""
            )))
        }
    };
    let mut spec = match scale {
        "smoke" => Fig7Spec::smoke(seed),
        "full" => Fig7Spec::full(seed),
        s => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "sperc_fig7.scale: unknown scale {s:?}; expected \"smoke\" or \"full\""
            )))
        }
    };
    if let Some(c) = changes {
        spec.changes = c;
    }
    if let Some(n) = flows_per_server {
        spec.flows_per_server = n;
    }
    if let Some(e) = epoch_rtts {
        spec.epoch_rtts = e;
    }
    let r = py
        .detach(|| fig7::run(&spec, scheme))
        .map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("scheme", scheme.name())?;
    d.set_item("servers", fig7::servers(&spec))?;
    d.set_item("rtt_us", r.rtt.0 as f64 * 1e-6)?;
    d.set_item("active_flows", r.active_flows)?;
    d.set_item("t95_20", r.t95_20)?;
    d.set_item("t99_10", r.t99_10)?;
    d.set_item("final_within_10", r.final_within_10)?;
    d.set_item("epoch_rtts", spec.epoch_rtts)?;
    d.set_item("events", r.events)?;
    d.set_item("drops", r.drops)?;
    d.set_item("ctrl_drops", r.ctrl_drops)?;
    d.set_item("timeouts", r.timeouts)?;
    Ok(d)
}

/// Registers this module's functions on `fairnet._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(soze_app_cases, m)?)?;
    m.add_function(wrap_pyfunction!(sperc_fig7, m)?)?;
    Ok(())
}
