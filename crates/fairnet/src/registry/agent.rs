//! The port agents a scenario can name (`port_agent = "int"`) and their static dispatch.

use crate::engine::packet::pkt::{PacketId, PacketPool};
use crate::engine::packet::port::{PortAgent, PortView};
use serde::{Deserialize, Serialize};

/// The registered port agents (static dispatch) plus a boxed one for any other.
pub enum AgentImpl {
    /// [`crate::schemes::int::IntStamp`].
    Int(crate::schemes::int::IntStamp),
    /// [`crate::schemes::rcp::RcpAgent`].
    Rcp(crate::schemes::rcp::RcpAgent),
    /// [`crate::systems::sperc::packet::SPercAgent`].
    Sperc(crate::systems::sperc::packet::SPercAgent),
    /// [`crate::systems::eba::agent::RateFactorAgent`].
    Eba(crate::systems::eba::agent::RateFactorAgent),
    /// Any other [`PortAgent`].
    Custom(Box<dyn PortAgent>),
}

impl PortAgent for AgentImpl {
    #[inline]
    fn on_dequeue(&mut self, id: PacketId, pool: &mut PacketPool, port: &PortView) {
        match self {
            AgentImpl::Int(a) => a.on_dequeue(id, pool, port),
            AgentImpl::Rcp(a) => a.on_dequeue(id, pool, port),
            AgentImpl::Sperc(a) => a.on_dequeue(id, pool, port),
            AgentImpl::Eba(a) => a.on_dequeue(id, pool, port),
            AgentImpl::Custom(a) => a.on_dequeue(id, pool, port),
        }
    }

    #[inline]
    fn on_reverse(&mut self, id: PacketId, pool: &mut PacketPool, port: &PortView) {
        match self {
            AgentImpl::Int(a) => a.on_reverse(id, pool, port),
            AgentImpl::Rcp(a) => a.on_reverse(id, pool, port),
            AgentImpl::Sperc(a) => a.on_reverse(id, pool, port),
            AgentImpl::Eba(a) => a.on_reverse(id, pool, port),
            AgentImpl::Custom(a) => a.on_reverse(id, pool, port),
        }
    }
}

/// Which built-in agent every switch port runs (`port_agent = "int"`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PortAgentConfig {
    /// No agent.
    #[default]
    None,
    /// [`crate::schemes::int::IntStamp`] on every switch port: switches push INT records, hosts do not (HPCC's ns-3;
    /// with only 5 records, an inter-pod fat-tree path has exactly 5 switch egress ports).
    Int,
    /// [`crate::schemes::rcp::RcpAgent`] on every port (`[rcp]` parameters), host NICs included.
    Rcp,
    /// [`crate::systems::sperc::packet::SPercAgent`] on every port (`[sperc]` parameters), host
    /// NICs included: s-PERC*'s link algorithm on control packets.
    Sperc,
    /// [`crate::systems::eba::agent::RateFactorAgent`] on every port (`[eba.lrc]` parameters),
    /// host NICs included: eBA's per-port rate factor (Algorithm 2 lines 15–26).
    Eba,
}

impl From<Box<dyn PortAgent>> for AgentImpl {
    fn from(a: Box<dyn PortAgent>) -> AgentImpl {
        AgentImpl::Custom(a)
    }
}
