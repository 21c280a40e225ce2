//! fairnet core: weighted bandwidth allocation in datacenter networks.
//!
//! The layers (see `DESIGN.md` in the shared folder and `docs/` in the repository):
//! - [`units`], [`ids`]: typed units (integer picosecond [`units::Time`], [`units::Bytes`],
//!   [`units::Rate`]) and dense ids.
//! - [`topo`]: nodes, directed links, topology builders, routing, file formats.
//! - [`alloc`]: the exact weighted max-min oracle, k-water-filling, an independent checker.
//! - [`workload`]: flow lists and generators (size CDFs, Poisson load, permutation, incast).
//! - [`engine`]: the simulation engines (flow-level fluid, packet-level).
//! - [`metrics`]: FCT, slowdown and fairness definitions shared by the engines.
//! - [`systems`]: the five papers' systems (s-PERC, Söze, ...), one folder each.

#![warn(missing_docs)]
// Numeric kernels walk several parallel arrays by index; an iterator chain over one of them
// would hide that symmetry.
#![allow(clippy::needless_range_loop)]

pub mod alloc;
pub mod engine;
pub mod error;
pub mod ids;
pub mod metrics;
pub mod registry;
pub mod scenario;
pub mod schemes;
pub mod systems;
#[cfg(test)]
mod test_support;
pub mod topo;
pub mod units;
pub mod workload;

pub use error::{Error, Result};
