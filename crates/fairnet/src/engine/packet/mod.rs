//! The packet-level discrete-event engine: mechanism only.
//!
//! Integer picosecond time, a `(time, sequence)` calendar event queue ([`event`]), pooled
//! fixed-size packets referenced by `u32` ([`pkt`]), output-queued switches whose egress ports
//! each have a byte buffer and a queueing discipline ([`qdisc`], [`port`]), hosts whose NIC
//! pulls data from their flows ([`host`]), a reliable TCP-like transport ([`tcp`]) with SACK
//! loss recovery ([`sack`]), an unreliable constant-rate one ([`udp`]), and records with a
//! byte conservation check ([`records`]). [`PacketSim`] runs it all.
//!
//! The engine knows no scheme by name. Four extension points let schemes plug in:
//! [`CongestionControl`] (sender), [`Qdisc`] (egress queue), [`PortAgent`] (egress header
//! logic) and [`HostShim`] (hypervisor layer). A [`SchemeSet`] names the first three types
//! and builds them; [`PacketSim`] is generic over it, so the registry's set of enums
//! (`crate::registry`) is dispatched statically on the per-packet path. The baselines live in
//! `crate::schemes`, the papers' parts in `crate::systems`. See `docs/packet-engine.md` and
//! `docs/architecture.md`.

pub mod cc;
pub mod config;
pub mod event;
pub mod host;
pub mod pkt;
pub mod port;
pub mod qdisc;
pub mod records;
pub mod sack;
pub mod scheme;
pub mod sim;
pub mod tcp;
pub mod udp;

pub use cc::{AckInfo, CcContext, CongestionControl};
pub use config::{
    ControlConfig, EngineConfig, HostNic, PfcConfig, QdelaySignal, QueueRecord, RecordConfig,
    RoutingMode, SharedBufferConfig, DEFAULT_HEADER, DEFAULT_MTU, FLOWCELL_BYTES, FLOWCELL_HOLD,
};
pub use host::{HostShim, ShimControl};
pub use pkt::{
    CtrlArea, CtrlHop, Ecn, IntHop, Packet, PacketKind, SackBlock, MAX_CTRL_HOPS, MAX_INT_HOPS,
    MAX_SACK_BLOCKS,
};
pub use port::{PortAgent, PortView};
pub use qdisc::{Enqueued, Fifo, Qdisc, QdiscParams};
pub use records::{
    Conservation, FlowRecord, FlowSample, LinkRecord, PacketResults, PfcFrame, QdiscGaugeSample,
    QueueSample,
};
pub use scheme::{FlowPaths, PortInfo, SchemeSet, Transport};
pub use sim::PacketSim;
