//! Bindings for topologies and generated workloads (filled in with the topology module).

use pyo3::prelude::*;

pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
