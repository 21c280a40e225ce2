//! Simulation engines. Each consumes the same [`crate::topo::Topology`] and
//! [`crate::workload::FlowSpec`] list.
//!
//! - [`flow`]: the flow-level (fluid) engine.
//! - [`packet`]: the packet-level discrete-event engine.
//! - [`model`]: solvers for ODE, delay-differential and discrete-map models.
//! - [`rounds`]: the control-message engine for distributed rate algorithms (s-PERC §8.1).
//! - [`progress`]: progress reporting and cancellation shared by the engines.
//! - [`queue`]: the calendar event queue of the packet and rounds engines.

pub mod flow;
pub mod model;
pub mod packet;
pub mod progress;
pub mod queue;
pub mod rounds;

pub use progress::{Progress, ProgressSnapshot};
