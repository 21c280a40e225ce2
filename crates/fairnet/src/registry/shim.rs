//! The host shims a scenario can name (`host_shim = "wvcc"`): hypervisor layers between the
//! guests' transports and the NIC, built per host by [`super::Builtin`].

use serde::{Deserialize, Serialize};

/// Which shim every host runs.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HostShimKind {
    /// No shim (the guests' transports reach the NIC directly).
    #[default]
    None,
    /// Uranus's weighted virtual congestion control
    /// ([`crate::systems::uranus::wvcc::Wvcc`], [`super::PacketConfig::wvcc`]): each flow's
    /// weight sets its share. Use with ECN marking at the switches.
    Wvcc,
    /// AC/DC TCP with per-flow priorities β = the flows' weights, in (0, 1]
    /// ([`crate::schemes::acdc::Acdc`], [`super::PacketConfig::acdc`]). Use with ECN marking
    /// at the switches.
    Acdc,
    /// SCC's virtual tunnels ([`crate::systems::uranus::scc_shim::SccShim`],
    /// [`super::PacketConfig::scc`]): one weighted congestion control per (slice, host pair)
    /// on its flows' aggregated ECN feedback, its window divided among them by weight (the
    /// baseline of Uranus §2.4). Use with ECN marking at the switches.
    Scc,
    /// eBA's host part ([`crate::systems::eba::shim::EbaShim`], [`super::PacketConfig::eba`]):
    /// per-VM-flow rate limits, by LRC (with `port_agent = "eba"`), static reservation or
    /// none (best effort).
    Eba,
}
