//! Python bindings of the fairnet core, imported as `fairnet._core`.
//!
//! Thin on purpose: arrays in, arrays out, errors as `ValueError`. The Python package
//! (`python/fairnet`) adds argument handling (lists of paths, optional arrays), the CLI and the
//! reports.

use fairnet::alloc::{self, Allocation, IterationCounts, Problem, ProblemInput, Radius};
use fairnet::registry::bench::thread_cpu_seconds;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

mod eba_flow;
mod flow;
mod hpcc;
mod model;
mod packet;
mod scenario;
mod systems;
mod workload;

fn value_error(e: fairnet::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn opt_vec(a: Option<PyReadonlyArray1<'_, f64>>) -> PyResult<Option<Vec<f64>>> {
    a.map(|a| Ok(a.as_slice()?.to_vec())).transpose()
}

/// Converts the CSR pair from Python (int64) into the core's types, naming bad entries.
fn csr(ptr: &[i64], links: &[i64]) -> PyResult<(Vec<usize>, Vec<u32>)> {
    let mut p = Vec::with_capacity(ptr.len());
    for (i, &x) in ptr.iter().enumerate() {
        if x < 0 || (i > 0 && x < ptr[i - 1]) {
            return Err(PyValueError::new_err(format!(
                "paths: CSR row pointers must be non-decreasing and non-negative (entry {i} is {x})"
            )));
        }
        p.push(x as usize);
    }
    let mut l = Vec::with_capacity(links.len());
    for (i, &x) in links.iter().enumerate() {
        if !(0..u32::MAX as i64).contains(&x) {
            let flow = p.partition_point(|&s| s <= i).saturating_sub(1);
            return Err(PyValueError::new_err(format!(
                "flows[{flow}]: path has invalid link index {x}"
            )));
        }
        l.push(x as u32);
    }
    Ok((p, l))
}

#[allow(clippy::too_many_arguments)]
fn build_problem(
    capacities: PyReadonlyArray1<'_, f64>,
    path_ptr: PyReadonlyArray1<'_, i64>,
    path_links: PyReadonlyArray1<'_, i64>,
    weights: Option<PyReadonlyArray1<'_, f64>>,
    demands: Option<PyReadonlyArray1<'_, f64>>,
    guarantees: Option<PyReadonlyArray1<'_, f64>>,
    flow_names: Option<Vec<String>>,
    link_names: Option<Vec<String>>,
) -> PyResult<Problem> {
    let (path_ptr, path_links) = csr(path_ptr.as_slice()?, path_links.as_slice()?)?;
    Problem::new(ProblemInput {
        capacities: capacities.as_slice()?.to_vec(),
        path_ptr,
        path_links,
        weights: opt_vec(weights)?,
        demands: opt_vec(demands)?,
        guarantees: opt_vec(guarantees)?,
        flow_names,
        link_names,
    })
    .map_err(value_error)
}

/// A computed allocation; k-Water-filling counts are computed on first request.
#[pyclass(name = "_Allocation", module = "fairnet._core")]
struct PyAllocation {
    problem: Problem,
    solution: Allocation,
    counts: Option<IterationCounts>,
    removal: [Option<Vec<Option<u32>>>; 2],
    solve_seconds: f64,
    solve_cpu_seconds: Option<f64>,
}

fn option_index_array<'py>(py: Python<'py>, v: &[Option<u32>]) -> Bound<'py, PyArray1<i64>> {
    v.iter()
        .map(|x| x.map_or(-1, |i| i as i64))
        .collect::<Vec<_>>()
        .into_pyarray(py)
}

#[pymethods]
impl PyAllocation {
    /// Rates in bits per second, one per flow.
    #[getter]
    fn rates<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.solution.rates.clone().into_pyarray(py)
    }

    /// Bottleneck link index per flow, -1 if demand-limited.
    #[getter]
    fn bottleneck<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        option_index_array(py, &self.solution.bottleneck)
    }

    /// Level (bits/s per unit weight) at which each link saturated; NaN if it never did.
    #[getter]
    fn link_level<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.solution
            .link_level
            .iter()
            .map(|x| x.unwrap_or(f64::NAN))
            .collect::<Vec<_>>()
            .into_pyarray(py)
    }

    /// Wall time of the solve, seconds.
    #[getter]
    fn solve_seconds(&self) -> f64 {
        self.solve_seconds
    }

    /// CPU time of the solving thread, seconds (`None` where the OS does not report it).
    #[getter]
    fn solve_cpu_seconds(&self) -> Option<f64> {
        self.solve_cpu_seconds
    }

    /// `N_inf` (free with the solve).
    #[getter]
    fn kinf(&self) -> u32 {
        self.solution.iterations
    }

    /// `{"k1": N_1, "k2": N_2, "kinf": N_inf}`.
    #[getter]
    fn iterations<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let counts = match self.counts {
            Some(c) => c,
            None => {
                let (p, s) = (&self.problem, &self.solution);
                let c = py.detach(|| alloc::iteration_counts(p, s));
                self.counts = Some(c);
                c
            }
        };
        let d = PyDict::new(py);
        d.set_item("k1", counts.k1)?;
        d.set_item("k2", counts.k2)?;
        d.set_item("kinf", counts.kinf)?;
        Ok(d)
    }

    /// The k-Water-filling iteration (1-based) in which each link is removed, -1 if never;
    /// `k` is 1, 2 or 0 for infinity.
    fn removal_iteration<'py>(
        &mut self,
        py: Python<'py>,
        k: u32,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let radius = match k {
            0 => return Ok(option_index_array(py, &self.solution.link_iteration)),
            1 => Radius::One,
            2 => Radius::Two,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "k must be 1, 2 or 0 (infinity), got {k}"
                )))
            }
        };
        let slot = k as usize - 1;
        if self.removal[slot].is_none() {
            let p = &self.problem;
            self.removal[slot] =
                Some(py.detach(|| alloc::k_waterfilling(p, radius).link_iteration));
        }
        Ok(option_index_array(py, self.removal[slot].as_ref().unwrap()))
    }
}

/// Solves the weighted max-min problem. Paths are given as a CSR pair of int64 arrays.
#[pyfunction]
#[pyo3(signature = (capacities, path_ptr, path_links, weights=None, demands=None, guarantees=None, flow_names=None, link_names=None))]
#[allow(clippy::too_many_arguments)]
fn allocate(
    py: Python<'_>,
    capacities: PyReadonlyArray1<'_, f64>,
    path_ptr: PyReadonlyArray1<'_, i64>,
    path_links: PyReadonlyArray1<'_, i64>,
    weights: Option<PyReadonlyArray1<'_, f64>>,
    demands: Option<PyReadonlyArray1<'_, f64>>,
    guarantees: Option<PyReadonlyArray1<'_, f64>>,
    flow_names: Option<Vec<String>>,
    link_names: Option<Vec<String>>,
) -> PyResult<PyAllocation> {
    let problem = build_problem(
        capacities, path_ptr, path_links, weights, demands, guarantees, flow_names, link_names,
    )?;
    let (solution, solve_seconds, solve_cpu_seconds) = py.detach(|| {
        let cpu0 = thread_cpu_seconds();
        let t0 = std::time::Instant::now();
        let s = alloc::solve(&problem);
        let wall = t0.elapsed().as_secs_f64();
        let cpu = cpu0.zip(thread_cpu_seconds()).map(|(a, b)| b - a);
        (s, wall, cpu)
    });
    Ok(PyAllocation {
        problem,
        solution,
        counts: None,
        removal: [None, None],
        solve_seconds,
        solve_cpu_seconds,
    })
}

/// Checks a rate vector; returns a dict describing the worst violation.
#[pyfunction]
#[pyo3(signature = (capacities, path_ptr, path_links, rates, weights=None, demands=None, guarantees=None, tolerance=None, flow_names=None, link_names=None))]
#[allow(clippy::too_many_arguments)]
fn check_allocation<'py>(
    py: Python<'py>,
    capacities: PyReadonlyArray1<'_, f64>,
    path_ptr: PyReadonlyArray1<'_, i64>,
    path_links: PyReadonlyArray1<'_, i64>,
    rates: PyReadonlyArray1<'_, f64>,
    weights: Option<PyReadonlyArray1<'_, f64>>,
    demands: Option<PyReadonlyArray1<'_, f64>>,
    guarantees: Option<PyReadonlyArray1<'_, f64>>,
    tolerance: Option<f64>,
    flow_names: Option<Vec<String>>,
    link_names: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyDict>> {
    let problem = build_problem(
        capacities, path_ptr, path_links, weights, demands, guarantees, flow_names, link_names,
    )?;
    let rates = rates.as_slice()?;
    if rates.len() != problem.num_flows() {
        return Err(PyValueError::new_err(format!(
            "rates: has {} entries but there are {} flows",
            rates.len(),
            problem.num_flows()
        )));
    }
    let r = match tolerance {
        Some(t) => alloc::check_with_tolerance(&problem, rates, t),
        None => alloc::check(&problem, rates),
    };
    let d = PyDict::new(py);
    d.set_item("ok", r.ok)?;
    d.set_item("max_overload", r.max_overload)?;
    d.set_item("worst_link", r.worst_link)?;
    d.set_item("max_bound_violation", r.max_bound_violation)?;
    d.set_item("unfair_flows", r.unfair_flows)?;
    d.set_item("worst_flow", r.worst_flow.map(|x| x.0))?;
    d.set_item("worst_unfairness", r.worst_flow.map(|x| x.1))?;
    d.set_item("message", r.message)?;
    Ok(d)
}

/// Jain's index of `x`, or of `x / target` ([`fairnet::metrics::jain_index`]).
#[pyfunction]
#[pyo3(signature = (x, target=None))]
fn jain_index(
    x: PyReadonlyArray1<'_, f64>,
    target: Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<f64> {
    let x = x.as_slice()?;
    let t = match &target {
        Some(t) => Some(t.as_slice()?),
        None => None,
    };
    if t.is_some_and(|t| t.len() != x.len()) {
        return Err(PyValueError::new_err(
            "jain_index: x and target differ in length",
        ));
    }
    Ok(fairnet::metrics::jain_index(x, t))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The `rustc --version` that built this extension (recorded by build.rs).
    m.add("RUSTC_VERSION", env!("FAIRNET_RUSTC_VERSION"))?;
    m.add_class::<PyAllocation>()?;
    m.add_function(wrap_pyfunction!(allocate, m)?)?;
    m.add_function(wrap_pyfunction!(check_allocation, m)?)?;
    m.add_function(wrap_pyfunction!(jain_index, m)?)?;
    workload::register(m)?;
    flow::register(m)?;
    packet::register(m)?;
    scenario::register(m)?;
    hpcc::register(m)?;
    systems::register(m)?;
    model::register(m)?;
    eba_flow::register(m)?;
    Ok(())
}
