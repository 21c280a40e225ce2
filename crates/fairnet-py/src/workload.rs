//! Bindings for generated workloads and unit parsing.

use fairnet::units::Rate;
use fairnet::workload;
use numpy::IntoPyArray;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Parses a rate such as "100Gbps" into bits per second.
#[pyfunction]
fn parse_rate(text: &str) -> PyResult<u64> {
    text.parse::<Rate>()
        .map(|r| r.0)
        .map_err(|e| PyValueError::new_err(e.0))
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
        .map_err(|e: fairnet::units::UnitError| PyValueError::new_err(e.0))?;
    let input = py
        .detach(|| workload::fat_tree_problem(k, n_flows, seed, (weight_min, weight_max), rate))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
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

/// Registers this module's functions on `fairnet._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_rate, m)?)?;
    m.add_function(wrap_pyfunction!(fat_tree_problem, m)?)?;
    Ok(())
}
