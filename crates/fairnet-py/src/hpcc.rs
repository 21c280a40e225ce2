//! Binding of the HPCC ns-3 simulator's file formats ([`fairnet::workload::hpcc`]): flow lists
//! and `fct.txt`, as column arrays.

use crate::workload::value_error;
use fairnet::ids::NodeId;
use fairnet::units::{Bytes, Time};
use fairnet::workload::{hpcc, FlowSpec};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn read(path: &str) -> PyResult<String> {
    std::fs::read_to_string(path).map_err(|e| value_error(format!("{path}: {e}")))
}

fn node(v: i64, what: &str, i: usize) -> PyResult<NodeId> {
    u32::try_from(v)
        .map(NodeId)
        .map_err(|_| value_error(format!("flows[{i}].{what}: {v} is not a node id")))
}

fn time(ps: i64, what: &str, i: usize) -> PyResult<Time> {
    u64::try_from(ps)
        .map(Time)
        .map_err(|_| value_error(format!("flows[{i}].{what}: negative time {ps} ps")))
}

/// Reads a flow list: columns `src`, `dst`, `size`, `start_ps`.
#[pyfunction]
fn hpcc_read_flow_file<'py>(py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyDict>> {
    let flows = hpcc::parse_flow_file(&read(path)?, path).map_err(value_error)?;
    let d = PyDict::new(py);
    let col = |f: &dyn Fn(&FlowSpec) -> i64| flows.iter().map(f).collect::<Vec<i64>>();
    d.set_item("src", col(&|f| f.src.0 as i64).into_pyarray(py))?;
    d.set_item("dst", col(&|f| f.dst.0 as i64).into_pyarray(py))?;
    d.set_item("size", col(&|f| f.size.0 as i64).into_pyarray(py))?;
    d.set_item("start_ps", col(&|f| f.start.0 as i64).into_pyarray(py))?;
    Ok(d)
}

/// Flow `i` of the columns (`start` in picoseconds); a bad value names the flow and column.
fn flow_spec(
    i: usize,
    src: &[i64],
    dst: &[i64],
    size: &[i64],
    start: &[i64],
) -> PyResult<FlowSpec> {
    let bytes = u64::try_from(size[i])
        .map_err(|_| value_error(format!("flows[{i}].size: negative size")))?;
    Ok(FlowSpec::new(
        node(src[i], "src", i)?,
        node(dst[i], "dst", i)?,
        Bytes(bytes),
        time(start[i], "start", i)?,
    ))
}

/// Formats a flow list from columns (`start_ps` in picoseconds).
#[pyfunction]
fn hpcc_flow_file_text(
    src: PyReadonlyArray1<'_, i64>,
    dst: PyReadonlyArray1<'_, i64>,
    size: PyReadonlyArray1<'_, i64>,
    start_ps: PyReadonlyArray1<'_, i64>,
) -> PyResult<String> {
    let (src, dst, size, start) = (
        src.as_slice()?,
        dst.as_slice()?,
        size.as_slice()?,
        start_ps.as_slice()?,
    );
    let n = src.len();
    if dst.len() != n || size.len() != n || start.len() != n {
        return Err(value_error("flow columns have different lengths"));
    }
    let flows = (0..n)
        .map(|i| flow_spec(i, src, dst, size, start))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(hpcc::write_flow_file(&flows))
}

/// Formats `fct.txt` from a run's flow columns (times in picoseconds; `end_ps < 0` marks an
/// unfinished flow, which gets no line).
#[pyfunction]
fn hpcc_fct_text(
    src: PyReadonlyArray1<'_, i64>,
    dst: PyReadonlyArray1<'_, i64>,
    size: PyReadonlyArray1<'_, i64>,
    start_ps: PyReadonlyArray1<'_, i64>,
    end_ps: PyReadonlyArray1<'_, i64>,
    ideal_fct_ps: PyReadonlyArray1<'_, i64>,
) -> PyResult<String> {
    let (src, dst, size, start, end, ideal) = (
        src.as_slice()?,
        dst.as_slice()?,
        size.as_slice()?,
        start_ps.as_slice()?,
        end_ps.as_slice()?,
        ideal_fct_ps.as_slice()?,
    );
    let n = src.len();
    if [dst.len(), size.len(), start.len(), end.len(), ideal.len()]
        .iter()
        .any(|&l| l != n)
    {
        return Err(value_error("flow columns have different lengths"));
    }
    let mut lines = Vec::with_capacity(n);
    for i in 0..n {
        if end[i] < 0 {
            continue;
        }
        let f = flow_spec(i, src, dst, size, start)?;
        lines.push(
            hpcc::fct_line(
                i,
                &f,
                time(end[i], "end", i)?,
                time(ideal[i], "ideal_fct", i)?,
            )
            .map_err(value_error)?,
        );
    }
    Ok(hpcc::write_fct(lines))
}

/// Reads `fct.txt`: columns `src`, `dst`, `sport`, `dport`, `size`, `start_ps`, `fct_ps`,
/// `standalone_fct_ps`.
#[pyfunction]
fn hpcc_read_fct<'py>(py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyDict>> {
    let lines = hpcc::parse_fct(&read(path)?, path).map_err(value_error)?;
    let d = PyDict::new(py);
    let col = |f: &dyn Fn(&hpcc::FctLine) -> i64| lines.iter().map(f).collect::<Vec<i64>>();
    d.set_item("src", col(&|l| l.src.0 as i64).into_pyarray(py))?;
    d.set_item("dst", col(&|l| l.dst.0 as i64).into_pyarray(py))?;
    d.set_item("sport", col(&|l| l.sport as i64).into_pyarray(py))?;
    d.set_item("dport", col(&|l| l.dport as i64).into_pyarray(py))?;
    d.set_item("size", col(&|l| l.size as i64).into_pyarray(py))?;
    d.set_item("start_ps", col(&|l| l.start.0 as i64).into_pyarray(py))?;
    d.set_item("fct_ps", col(&|l| l.fct.0 as i64).into_pyarray(py))?;
    d.set_item(
        "standalone_fct_ps",
        col(&|l| l.standalone_fct.0 as i64).into_pyarray(py),
    )?;
    Ok(d)
}

/// Registers this module's functions on `fairnet._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hpcc_read_flow_file, m)?)?;
    m.add_function(wrap_pyfunction!(hpcc_flow_file_text, m)?)?;
    m.add_function(wrap_pyfunction!(hpcc_fct_text, m)?)?;
    m.add_function(wrap_pyfunction!(hpcc_read_fct, m)?)?;
    Ok(())
}
