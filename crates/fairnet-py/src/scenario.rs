//! Binding of the scenario layer: parse, validate, build and run a scenario in one call.

use crate::workload::value_error;
use fairnet::engine::flow::RateSample;
use fairnet::engine::Progress;
use fairnet::scenario;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::Path;
use std::sync::Arc;

/// Progress of a running scenario, read from another Python thread while `run_scenario` runs
/// (it releases the GIL), and the way to stop it early ([`fairnet::engine::Progress`]).
#[pyclass(frozen)]
#[derive(Default)]
pub struct RunProgress(Arc<Progress>);

#[pymethods]
impl RunProgress {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// `(simulated seconds, events, flows finished, cancelled, horizon seconds or None)` at
    /// the latest update; the horizon is the simulated time the run stops at the latest.
    fn snapshot(&self) -> (f64, u64, u64, bool, Option<f64>) {
        let s = self.0.snapshot();
        (
            s.sim_time.as_secs_f64(),
            s.events,
            s.flows_finished,
            s.cancelled,
            s.horizon.map(|h| h.as_secs_f64()),
        )
    }

    /// Asks the run to stop; it returns what finished, marked incomplete.
    fn cancel(&self) {
        self.0.cancel();
    }
}

/// Rate samples as columns `time_ps`, `flow`, `rate_bps`, and `send_rate_bps` (NaN where a
/// sample has none) when any sample has a sending rate (the packet engine's).
fn rate_samples<'py>(py: Python<'py>, samples: &[RateSample]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let col_i = |f: &dyn Fn(&RateSample) -> i64| samples.iter().map(f).collect::<Vec<i64>>();
    let col_f = |f: &dyn Fn(&RateSample) -> f64| samples.iter().map(f).collect::<Vec<f64>>();
    d.set_item("time_ps", col_i(&|r| r.time.0 as i64).into_pyarray(py))?;
    d.set_item("flow", col_i(&|r| r.flow as i64).into_pyarray(py))?;
    d.set_item("rate_bps", col_f(&|r| r.rate).into_pyarray(py))?;
    if samples.iter().any(|r| r.send_rate.is_some()) {
        let send = col_f(&|r| r.send_rate.unwrap_or(f64::NAN));
        d.set_item("send_rate_bps", send.into_pyarray(py))?;
    }
    Ok(d)
}

/// Runs the scenario given as JSON (files resolved against `base_dir`): the flow table as
/// arrays, the run's counters, and the resolved scenario (with every default) as JSON.
/// `progress` (a `RunProgress`) is updated as the run goes and can cancel it.
#[pyfunction]
#[pyo3(signature = (scenario_json, base_dir, progress=None))]
fn run_scenario<'py>(
    py: Python<'py>,
    scenario_json: &str,
    base_dir: &str,
    progress: Option<&RunProgress>,
) -> PyResult<Bound<'py, PyDict>> {
    let s = scenario::from_json(scenario_json).map_err(value_error)?;
    let progress = progress.map_or_else(Arc::default, |p| p.0.clone());
    let out = py
        .detach(|| scenario::run_built(&s, Path::new(base_dir), &progress))
        .map_err(value_error)?;
    let d = PyDict::new(py);
    let col_i = |f: &dyn Fn(&scenario::RunRow) -> i64| out.rows.iter().map(f).collect::<Vec<i64>>();
    d.set_item("src", col_i(&|r| r.src.0 as i64).into_pyarray(py))?;
    d.set_item("dst", col_i(&|r| r.dst.0 as i64).into_pyarray(py))?;
    d.set_item("size", col_i(&|r| r.size as i64).into_pyarray(py))?;
    d.set_item("tag", col_i(&|r| r.tag as i64).into_pyarray(py))?;
    d.set_item("start_ps", col_i(&|r| r.start.0 as i64).into_pyarray(py))?;
    d.set_item(
        "end_ps",
        col_i(&|r| r.end.map_or(-1, |e| e.0 as i64)).into_pyarray(py),
    )?;
    d.set_item(
        "ideal_fct_ps",
        col_i(&|r| r.ideal_fct.0 as i64).into_pyarray(py),
    )?;
    d.set_item(
        "acked_end_ps",
        col_i(&|r| r.acked_end.map_or(-1, |e| e.0 as i64)).into_pyarray(py),
    )?;
    d.set_item(
        "ideal_fct_ref_ps",
        col_i(&|r| r.ideal_fct_ref.0 as i64).into_pyarray(py),
    )?;
    d.set_item(
        "maxmin_end_ps",
        out.maxmin_end
            .iter()
            .map(|e| e.map_or(-1, |t| t.0 as i64))
            .collect::<Vec<i64>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "deadline_ps",
        col_i(&|r| r.deadline.map_or(-1, |t| t.0 as i64)).into_pyarray(py),
    )?;
    // Packet engine: payload bytes sent more than once; -1 for the other engines.
    d.set_item(
        "retransmitted_bytes",
        col_i(&|r| r.retransmitted.map_or(-1, |b| b as i64)).into_pyarray(py),
    )?;
    // 1 missed, 0 met, -1 no deadline or undecided (fairnet::metrics::deadline_missed).
    d.set_item(
        "deadline_missed",
        col_i(&|r| r.deadline_missed(out.end_time).map_or(-1, i64::from)).into_pyarray(py),
    )?;
    d.set_item(
        "weight",
        out.rows
            .iter()
            .map(|r| r.weight)
            .collect::<Vec<f64>>()
            .into_pyarray(py),
    )?;
    d.set_item("rates", rate_samples(py, &out.rates)?)?;
    let links = PyDict::new(py);
    let l = &out.links;
    let col_u = |f: &dyn Fn(&scenario::LinkRow) -> i64| l.iter().map(f).collect::<Vec<i64>>();
    let col_x = |f: &dyn Fn(&scenario::LinkRow) -> f64| l.iter().map(f).collect::<Vec<f64>>();
    links.set_item("link", col_u(&|r| r.link.0 as i64).into_pyarray(py))?;
    links.set_item("src", col_u(&|r| r.src.0 as i64).into_pyarray(py))?;
    links.set_item("dst", col_u(&|r| r.dst.0 as i64).into_pyarray(py))?;
    links.set_item("capacity_bps", col_x(&|r| r.capacity_bps).into_pyarray(py))?;
    links.set_item("tx_bytes", col_u(&|r| r.tx_bytes as i64).into_pyarray(py))?;
    links.set_item("utilization", col_x(&|r| r.utilization).into_pyarray(py))?;
    links.set_item("drops", col_u(&|r| r.drops as i64).into_pyarray(py))?;
    links.set_item("marks", col_u(&|r| r.marks as i64).into_pyarray(py))?;
    links.set_item(
        "max_queue_bytes",
        col_u(&|r| r.max_queue_bytes as i64).into_pyarray(py),
    )?;
    links.set_item(
        "mean_queue_bytes",
        col_x(&|r| r.mean_queue_bytes).into_pyarray(py),
    )?;
    links.set_item(
        "pfc_pauses_sent",
        col_u(&|r| r.pfc_pauses_sent as i64).into_pyarray(py),
    )?;
    links.set_item(
        "pfc_pauses_received",
        col_u(&|r| r.pfc_pauses_received as i64).into_pyarray(py),
    )?;
    links.set_item("pfc_paused_s", col_x(&|r| r.pfc_paused_s).into_pyarray(py))?;
    d.set_item("pfc_txt", out.pfc_txt.as_deref())?;
    d.set_item("links", links)?;
    d.set_item("maxmin_rates", rate_samples(py, &out.maxmin_rates)?)?;
    // Rounds engine only: final and oracle rates (NaN for the other engines).
    let col_f = |f: &dyn Fn(&scenario::RunRow) -> Option<f64>| {
        out.rows
            .iter()
            .map(|r| f(r).unwrap_or(f64::NAN))
            .collect::<Vec<f64>>()
    };
    d.set_item("rate_bps", col_f(&|r| r.rate).into_pyarray(py))?;
    d.set_item(
        "oracle_rate_bps",
        col_f(&|r| r.oracle_rate).into_pyarray(py),
    )?;
    let queues = PyDict::new(py);
    let q_i = |f: &dyn Fn(&fairnet::engine::packet::QueueSample) -> i64| {
        out.queues.iter().map(f).collect::<Vec<i64>>()
    };
    queues.set_item("time_ps", q_i(&|q| q.time.0 as i64).into_pyarray(py))?;
    queues.set_item("link", q_i(&|q| q.link.0 as i64).into_pyarray(py))?;
    queues.set_item("bytes", q_i(&|q| q.bytes as i64).into_pyarray(py))?;
    queues.set_item("delay_ps", q_i(&|q| q.delay.0 as i64).into_pyarray(py))?;
    d.set_item("queues", queues)?;
    let gauges = PyDict::new(py);
    let g = &out.qdisc_gauges;
    gauges.set_item(
        "time_ps",
        g.iter()
            .map(|x| x.time.0 as i64)
            .collect::<Vec<i64>>()
            .into_pyarray(py),
    )?;
    gauges.set_item(
        "link",
        g.iter()
            .map(|x| x.link.0 as i64)
            .collect::<Vec<i64>>()
            .into_pyarray(py),
    )?;
    gauges.set_item("gauge", g.iter().map(|x| x.name).collect::<Vec<&str>>())?;
    gauges.set_item(
        "value",
        g.iter()
            .map(|x| x.value)
            .collect::<Vec<f64>>()
            .into_pyarray(py),
    )?;
    d.set_item("qdisc_gauges", gauges)?;
    if let Some(run) = &out.model {
        d.set_item("model", crate::model::model_table(py, run)?)?;
    }
    d.set_item("engine", out.engine)?;
    d.set_item("events", out.events)?;
    d.set_item("end_time_ps", out.end_time.0)?;
    d.set_item("complete", out.complete)?;
    d.set_item("failure", out.failure.clone())?;
    d.set_item("cancelled", progress.is_cancelled())?;
    d.set_item("wall_seconds", out.wall_seconds)?;
    let counters = PyDict::new(py);
    for (k, v) in &out.counters {
        counters.set_item(k, v)?;
    }
    d.set_item("counters", counters)?;
    d.set_item("resolved", serde_json::to_string(&s).map_err(value_error)?)?;
    Ok(d)
}

/// Validates a scenario given as JSON and returns it with every default filled in (as JSON),
/// without building or running anything.
#[pyfunction]
fn resolve_scenario(scenario_json: &str) -> PyResult<String> {
    let s = scenario::from_json(scenario_json).map_err(value_error)?;
    serde_json::to_string(&s).map_err(value_error)
}

/// The memory a run of the scenario (JSON, files relative to `base_dir`) is expected to need,
/// without generating its flows: `{"flows", "flow_bytes", "record_samples", "record_bytes",
/// "total_bytes"}` ([`fairnet::scenario::estimate_memory`]).
#[pyfunction]
fn estimate_memory<'py>(
    py: Python<'py>,
    scenario_json: &str,
    base_dir: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let s = scenario::from_json(scenario_json).map_err(value_error)?;
    let e = scenario::estimate_memory(&s, Path::new(base_dir)).map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("flows", e.flows)?;
    d.set_item("flow_bytes", e.flow_bytes)?;
    d.set_item("record_samples", e.record_samples)?;
    d.set_item("record_bytes", e.record_bytes)?;
    d.set_item("total_bytes", e.total_bytes())?;
    Ok(d)
}

/// The scenario's JSON Schema (generated from the Rust definition), as JSON text.
#[pyfunction]
fn scenario_json_schema() -> PyResult<String> {
    serde_json::to_string_pretty(&scenario::json_schema()).map_err(value_error)
}

/// Registers this module's functions on `fairnet._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RunProgress>()?;
    m.add_function(wrap_pyfunction!(run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_memory, m)?)?;
    Ok(())
}
