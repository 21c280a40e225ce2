//! Simulation engines. Each consumes the same [`crate::topo::Topology`] and
//! [`crate::workload::FlowSpec`] list.
//!
//! - [`flow`]: the flow-level (fluid) engine.
//! - [`packet`]: the packet-level discrete-event engine.

pub mod flow;
pub mod packet;
