//! Simulation engines. Each consumes the same [`crate::topo::Topology`] and
//! [`crate::workload::FlowSpec`] list.
//!
//! - [`flow`]: the flow-level (fluid) engine.

pub mod flow;
