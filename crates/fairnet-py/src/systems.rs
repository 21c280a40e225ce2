//! Bindings of the systems' experiments that run in Rust (Söze §5.1's application cases).

use crate::workload::value_error;
use fairnet::systems::soze::apps::{self, AppCase};
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

/// Registers this module's functions on `fairnet._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(soze_app_cases, m)?)?;
    Ok(())
}
