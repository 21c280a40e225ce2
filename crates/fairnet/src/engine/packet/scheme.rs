//! The scheme set: the one door through which schemes enter the engine.
//!
//! A [`SchemeSet`] names the three per-packet extension types a simulation runs — the
//! congestion control of its reliable flows, the queueing discipline of its ports and their
//! port agents — and builds them. The engine is generic over it, so a set of enums gives
//! static dispatch on the per-packet path (the registry's built-in set, `crate::registry`),
//! and a set of boxed trait objects serves anything else. The engine never names a scheme.

use super::cc::{CcContext, CongestionControl};
use super::host::HostShim;
use super::port::PortAgent;
use super::qdisc::{Qdisc, QdiscParams};
use crate::error::Result;
use crate::ids::{LinkId, NodeId};
use crate::topo::Topology;
use crate::units::Rate;
use crate::workload::FlowSpec;

/// How a flow sends.
pub enum Transport<C> {
    /// The engine's reliable sender (TCP-like: sequence numbers, SACK or NewReno recovery,
    /// RTO) with congestion control `C` owning the window and the pacing rate.
    Reliable(C),
    /// Unreliable, at a constant bit rate (UDP-like); the flow ends when its bytes are
    /// delivered.
    ConstantRate(Rate),
}

/// What a scheme set may know about a port when building its discipline and agent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PortInfo {
    /// Queue parameters (link, buffer, rate, packet size, seed).
    pub queue: QdiscParams,
    /// The port is a host's NIC, not a switch port.
    pub host_nic: bool,
}

/// The flows of a simulation with their routed data paths, shown to
/// [`SchemeSet::prepare`] before any transport is built.
pub struct FlowPaths<'a> {
    /// The topology.
    pub topo: &'a Topology,
    /// The flows, in id order.
    pub flows: &'a [FlowSpec],
    pub(crate) paths: &'a [u32],
    pub(crate) data: &'a [(usize, usize)],
}

impl FlowPaths<'_> {
    /// The links of flow `i`'s data path (its first path when packets are sprayed).
    pub fn data_path(&self, i: usize) -> impl Iterator<Item = LinkId> + '_ {
        let (start, len) = self.data[i];
        self.paths[start..start + len].iter().map(|&l| LinkId(l))
    }
}

/// The schemes a simulation runs, and how to build them.
pub trait SchemeSet {
    /// Congestion control of a reliable flow; a boxed one converts in
    /// ([`super::PacketSim::set_congestion_control`]).
    type Cc: CongestionControl + From<Box<dyn CongestionControl>>;
    /// Queueing discipline of a port ([`super::PacketSim::set_qdisc`] converts a boxed one).
    type Qdisc: Qdisc + From<Box<dyn Qdisc>>;
    /// Port agent ([`super::PacketSim::set_port_agent`] converts a boxed one).
    type Agent: PortAgent + From<Box<dyn PortAgent>>;

    /// Called once, after every flow is routed and before any port or transport is built: a
    /// scheme whose flows or ports share a parameter derived from the whole flow set (a range
    /// every flow uses, the flows' weights at every port) computes it here. Default: nothing.
    fn prepare(&mut self, _flows: &FlowPaths<'_>) -> Result<()> {
        Ok(())
    }
    /// The transport of flow `index` (`flow`; `ctx` says what the engine knows of its path).
    fn transport(
        &self,
        index: usize,
        flow: &FlowSpec,
        ctx: &CcContext,
    ) -> Result<Transport<Self::Cc>>;
    /// The queueing discipline of a port; errors name the link.
    fn qdisc(&self, port: &PortInfo) -> Result<Self::Qdisc>;
    /// The port agent of a port, if any; errors name the link.
    fn port_agent(&self, port: &PortInfo) -> Result<Option<Self::Agent>>;
    /// The hypervisor shim of host `node`, if any (boxed: a shim acts per packet at the
    /// host only); errors name the node. Default: none.
    fn host_shim(&self, _node: NodeId) -> Result<Option<Box<dyn HostShim>>> {
        Ok(None)
    }
}
