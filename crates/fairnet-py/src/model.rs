//! Binding of the model registry (`fairnet model list`) and of a model run's outputs.

use fairnet::engine::model::{ModelRun, ParamUnit};
use fairnet::scenario::MODELS;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Every registered model: `name`, `paper`, `equation`, and `params` (a list of dicts with
/// `name`, `unit` (duration, rate, size, count, number), `default` in base units (seconds,
/// bit/s, bytes; None if required) and `doc`).
#[pyfunction]
fn model_list(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for m in MODELS {
        let d = PyDict::new(py);
        d.set_item("name", m.name)?;
        d.set_item("paper", m.paper)?;
        d.set_item("equation", m.equation)?;
        let params = PyList::empty(py);
        for p in m.params {
            let pd = PyDict::new(py);
            pd.set_item("name", p.name)?;
            pd.set_item("unit", p.unit.name())?;
            pd.set_item("seconds", p.unit == ParamUnit::Seconds)?;
            pd.set_item("default", p.default)?;
            pd.set_item("doc", p.doc)?;
            params.append(pd)?;
        }
        d.set_item("params", params)?;
        out.append(d)?;
    }
    Ok(out)
}

/// A model run's outputs: `time_s`, `names` and `units` (lists, in column order), and
/// `values` (a dict from name to a float array over the output times).
pub fn model_table<'py>(py: Python<'py>, run: &ModelRun) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("time_s", run.times.clone().into_pyarray(py))?;
    let width = run.outputs.len();
    let names: Vec<&str> = run.outputs.iter().map(|o| o.name.as_str()).collect();
    let units: Vec<&str> = run.outputs.iter().map(|o| o.unit).collect();
    d.set_item("names", names)?;
    d.set_item("units", units)?;
    let values = PyDict::new(py);
    for (j, o) in run.outputs.iter().enumerate() {
        let col: Vec<f64> = run.values.iter().skip(j).step_by(width).copied().collect();
        values.set_item(&o.name, col.into_pyarray(py))?;
    }
    d.set_item("values", values)?;
    Ok(d)
}

/// Registers this module's functions on `fairnet._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(model_list, m)?)?;
    Ok(())
}
