//! Binding of the scenario layer: parse, validate, build and run a scenario in one call.

use crate::workload::value_error;
use fairnet::scenario;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::Path;

/// Runs the scenario given as JSON (files resolved against `base_dir`): the flow table as
/// arrays, the run's counters, and the resolved scenario (with every default) as JSON.
#[pyfunction]
fn run_scenario<'py>(
    py: Python<'py>,
    scenario_json: &str,
    base_dir: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let s = scenario::from_json(scenario_json).map_err(value_error)?;
    let out = py
        .detach(|| scenario::run_built(&s, Path::new(base_dir)))
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
        "weight",
        out.rows
            .iter()
            .map(|r| r.weight)
            .collect::<Vec<f64>>()
            .into_pyarray(py),
    )?;
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
    d.set_item("engine", out.engine)?;
    d.set_item("events", out.events)?;
    d.set_item("end_time_ps", out.end_time.0)?;
    d.set_item("complete", out.complete)?;
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

/// Registers this module's functions on `fairnet._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_scenario, m)?)?;
    Ok(())
}
