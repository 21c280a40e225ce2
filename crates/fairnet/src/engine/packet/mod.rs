//! The packet-level discrete-event engine.
//!
//! Integer picosecond time, a `(time, sequence)` calendar event queue ([`event`]), pooled fixed-size
//! packets referenced by `u32` ([`pkt`]), output-queued switches whose egress ports each
//! have a byte buffer and a queueing discipline ([`qdisc`], [`port`]), hosts whose NIC pulls
//! data from their flows ([`host`]), a reliable TCP-like transport ([`tcp`]) with SACK loss
//! recovery ([`sack`]), DCTCP and NewReno windows ([`dctcp`]) and CUBIC ([`cubic`]), pFabric
//! ([`pfabric`]), RCP ([`rcp`]), TIMELY ([`timely`]), UDP at a constant bit rate ([`udp`]), and
//! records with a byte conservation check ([`records`]). [`PacketSim`] runs it all.
//!
//! Four extension points let later systems plug in without editing the engine:
//! [`CongestionControl`] (sender), [`Qdisc`] (egress queue), [`PortAgent`] (egress header
//! logic) and [`HostShim`] (hypervisor layer). Built-ins are dispatched statically through
//! enums; each enum has a `Custom(Box<dyn …>)` variant. See `docs/packet-engine.md`.

pub mod bench;
pub mod cc;
pub mod config;
pub mod cubic;
pub mod dcqcn;
pub mod dctcp;
pub mod delay_aimd;
pub mod event;
pub mod host;
pub mod hpcc;
pub mod pfabric;
pub mod pkt;
pub mod port;
pub mod qdisc;
pub mod rcp;
pub mod records;
pub mod red;
pub mod sack;
pub mod sched;
pub mod sim;
pub mod tcp;
pub mod timely;
pub mod udp;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_control;

pub use cc::CcContext;
pub use cc::{AckInfo, CcImpl, CongestionControl};
pub use config::{
    ControlConfig, HostNic, PacketConfig, QdelaySignal, QueueRecord, RecordConfig, RoutingMode,
    SharedBufferConfig, TcpConfig, TransportKind,
};
pub use cubic::Cubic;
pub use dcqcn::{Dcqcn, DcqcnConfig};
pub use dctcp::{Dctcp, Reno};
pub use delay_aimd::{DelayAimd, DelayAimdConfig};
pub use host::HostShim;
pub use hpcc::{Hpcc, HpccConfig};
pub use pfabric::{Pfabric, PfabricConfig, PfabricQueue};
pub use pkt::{
    CtrlArea, CtrlHop, Ecn, IntHop, Packet, PacketKind, SackBlock, MAX_CTRL_HOPS, MAX_INT_HOPS,
    MAX_SACK_BLOCKS,
};
pub use port::{IntStamp, PortAgent, PortAgentConfig, PortView};
pub use qdisc::{EcnThreshold, Enqueued, Qdisc, QdiscConfig};
pub use rcp::{Rcp, RcpAgent, RcpConfig};
pub use records::{Conservation, FlowRecord, FlowSample, LinkRecord, PacketResults, QueueSample};
pub use red::{RedConfig, RedThreshold};
pub use sched::Classifier;
pub use sim::PacketSim;
pub use timely::{Timely, TimelyConfig};
