//! Bindings of the packet engine: the speed benchmarks (htsim yardstick, web search).

use fairnet::registry::bench::{run_yardstick, timed_run, websearch_scenario, BenchReport};
use fairnet::units::Time;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::Path;

fn simulated(ms: f64) -> PyResult<Time> {
    if !(ms.is_finite() && ms > 0.0) {
        return Err(PyValueError::new_err(format!(
            "simulated_ms must be positive and finite, got {ms}"
        )));
    }
    Ok(Time::from_secs_f64(ms * 1e-3))
}

fn report<'py>(py: Python<'py>, r: BenchReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("hosts", r.hosts)?;
    d.set_item("wall_seconds", r.wall_seconds)?;
    d.set_item("cpu_seconds", r.cpu_seconds)?;
    d.set_item("simulated_seconds", r.simulated_seconds)?;
    d.set_item("events", r.events)?;
    d.set_item("data_packet_hops", r.data_packet_hops)?;
    d.set_item("all_packet_hops", r.all_packet_hops)?;
    d.set_item("peak_live_packets", r.peak_live_packets)?;
    d.set_item("drops", r.drops)?;
    d.set_item("marks", r.marks)?;
    d.set_item("mean_goodput", r.mean_goodput)?;
    d.set_item("flows_started", r.flows_started)?;
    d.set_item("flows_finished", r.flows_finished)?;
    Ok(d)
}

/// Runs the htsim yardstick (k-ary fat-tree, 100 Gb/s, 1 µs links, DCTCP K = 15 packets,
/// 100-packet buffers, 1500 B packets, permutation traffic) for `simulated_ms` and returns
/// its figures: wall_seconds, simulated_seconds, events, data_packet_hops, all_packet_hops,
/// peak_live_packets, drops, marks, flows started / finished (and cpu_seconds, None off
/// Linux).
#[pyfunction]
fn packet_bench<'py>(
    py: Python<'py>,
    simulated_ms: f64,
    k: u32,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let t = simulated(simulated_ms)?;
    let r = py
        .detach(|| run_yardstick(t, k, seed))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    report(py, r)
}

/// The yardstick's fabric and transport with Poisson web-search flows (sizes from the CDF
/// file `cdf`) at `load` of the host links, run for `simulated_ms`; the same figures.
#[pyfunction]
fn packet_bench_websearch<'py>(
    py: Python<'py>,
    simulated_ms: f64,
    k: u32,
    load: f64,
    cdf: &str,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let t = simulated(simulated_ms)?;
    let r = py
        .detach(|| {
            let (topo, flows, cfg) = websearch_scenario(k, load, t, Path::new(cdf), seed)?;
            timed_run(&topo, &flows, cfg, t)
        })
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    report(py, r)
}

/// Adds the packet-engine functions to `fairnet._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(packet_bench, m)?)?;
    m.add_function(wrap_pyfunction!(packet_bench_websearch, m)?)?;
    Ok(())
}
