//! Hosts: the hypervisor-shim extension point and the host's NIC scheduling state.
//!
//! A host has one NIC: the egress port of its one out-link. The NIC *pulls* data: whenever its
//! queue is empty and its serializer idle, it asks the host's active flows, round robin, for
//! the next packet a flow may send (its window allows it, its pacing time and its shim's
//! release time have come). ACKs do not wait for the pull: the receiver puts them straight into
//! the NIC queue. So a host never builds an unbounded local queue of data, and flows sharing a
//! NIC share it packet by packet.
//!
//! A flow that must wait (pacing, or its shim's release time) leaves the round robin and
//! *sleeps* until that time, or until its transport acts (an ACK, a timeout, a control packet),
//! then rejoins at the tail — deficit round robin's rule for a queue that becomes
//! backlogged. So a pull costs the flows that may send, not every flow of the host (on the
//! s-PERC WAN runs, 100 paced flows per host, scanning them all was 55% of the time).

use super::pkt::Packet;
use crate::ids::FlowId;
use crate::units::Time;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A layer between a host's transports and its NIC (a hypervisor virtual switch).
///
/// Default: no shim (nothing is called). Used by: WVCC and AC/DC (rewrite the receive window
/// of ACKs on the way in or out, to impose a congestion window on an unmodified guest
/// transport); eBA (per-VM rate limiting via [`HostShim::earliest_send`]).
pub trait HostShim {
    /// A packet leaves this host (data from a sender, or an ACK from a receiver), just before
    /// it enters the NIC queue.
    fn on_egress(&mut self, _pkt: &mut Packet, _now: Time) {}
    /// A packet arrived at this host, before the transport sees it.
    fn on_ingress(&mut self, _pkt: &mut Packet, _now: Time) {}
    /// The earliest time `flow` may send its next data packet of `wire` bytes (a rate limiter
    /// returns a future time; the host tries again then, or earlier when the flow's transport
    /// acts: a shim whose release times can move earlier on its own must not rely on being
    /// asked in between). Default: now.
    fn earliest_send(&mut self, _flow: FlowId, _wire: u32, now: Time) -> Time {
        now
    }
}

/// One host (engine-internal).
pub(crate) struct Host {
    /// Its NIC: the port of its one out-link (`u32::MAX` for a host without links).
    pub nic: u32,
    /// Flows that may have something to send, round robin.
    pub active: VecDeque<u32>,
    /// Flows out of the round robin until a time (their pacing or shim release time), by that
    /// time. An entry is stale when the flow was woken early (its `sleep_until` differs).
    pub sleeping: BinaryHeap<Reverse<(u64, u32)>>,
    /// Time of the pending `HostWake` event (`u64::MAX`: none).
    pub wake_at: u64,
    pub shim: Option<Box<dyn HostShim>>,
    /// [`super::config::HostNic::Queue`]: data packets handed over by the flows, waiting for
    /// the NIC (FIFO), and their wire bytes.
    pub fifo: VecDeque<super::pkt::PacketId>,
    pub fifo_bytes: u64,
    /// [`super::config::HostNic::Weighted`]: the start tag of the last packet sent (the
    /// scheduler's virtual time, wire bytes per unit weight).
    pub vtime: f64,
}
