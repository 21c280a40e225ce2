//! The queueing-discipline extension point: what an egress port queues, drops, marks and
//! sends next.
//!
//! The engine calls [`Qdisc::enqueue`] when a packet reaches a port and [`Qdisc::dequeue`] when
//! the link is free; it knows no discipline by name. Implementations live in `crate::schemes`
//! (the baselines) and `crate::systems` (the papers' own), and are chosen by the registry
//! (`crate::registry`). [`Fifo`] is the byte-counting packet list they share.

use super::pkt::{PacketId, PacketPool, NO_PACKET};
use crate::ids::{FlowId, LinkId};
use crate::units::{Bytes, Rate, Time};

/// The outcome of [`Qdisc::enqueue`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    /// Queued unchanged.
    Queued,
    /// Queued and marked CE.
    Marked,
    /// Not queued: the engine frees the packet and counts a drop at this link.
    Dropped,
    /// Queued, and queued packets were dropped to make room (pFabric): the engine takes them
    /// with [`Qdisc::take_evicted`], frees them and counts a drop for each.
    Evicting,
}

/// What a queueing discipline knows about its port when it is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QdiscParams {
    /// The link this queue feeds.
    pub link: LinkId,
    /// Buffer size (the link's `buffer`); the queue must never hold more.
    pub buffer: Bytes,
    /// The link's line rate.
    pub rate: Rate,
    /// Wire size of a full data packet (MTU payload + header).
    pub mtu_wire: Bytes,
    /// The run's seed (for randomized disciplines; combine with `link` per port).
    pub seed: u64,
}

/// An egress port's queueing discipline.
///
/// Used by: drop-tail, ECN marking, RED, strict priority / DRR / WRR, pFabric (`crate::schemes`);
/// MAY's drop-counter AQM. The engine calls `enqueue` when a
/// packet reaches the port and `dequeue` when the link is free; it checks after every enqueue
/// that [`Qdisc::bytes`] does not exceed the buffer (a violation fails the run).
pub trait Qdisc {
    /// Offers packet `id` at time `now`. The qdisc may rewrite its header (e.g. set CE) via
    /// `pool`. On [`Enqueued::Dropped`] the engine frees the packet; the qdisc must not keep it.
    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, now: Time) -> Enqueued;
    /// The next packet to transmit, if any.
    fn dequeue(&mut self, pool: &mut PacketPool, now: Time) -> Option<PacketId>;
    /// After [`Enqueued::Evicting`]: the next packet dropped from the queue, until `None`.
    fn take_evicted(&mut self) -> Option<PacketId> {
        None
    }
    /// Packets the discipline marked CE as they left ([`Qdisc::dequeue`]) since the last
    /// call; the engine adds them to the port's mark count after each dequeue (marks at
    /// arrival are reported by [`Enqueued::Marked`]). Default: none.
    fn take_dequeue_marks(&mut self) -> u64 {
        0
    }
    /// Bytes (wire) queued now.
    fn bytes(&self) -> u64;
    /// Packets queued now.
    fn packets(&self) -> usize;
    /// Flow `flow` (priority class `priority`) changed its weight at run time
    /// ([`super::PacketSim::set_weight`]); a weighted scheduler may follow it. Default: ignored.
    fn on_flow_weight(&mut self, _flow: FlowId, _priority: u8, _weight: f64) {}
    /// The discipline's own state worth a time series (a control variable, a table's size),
    /// appended to `out` as `(name, value)` pairs. The engine asks every port at each sample
    /// of the run's records (`record`; [`super::QdiscGaugeSample`]), off the data path.
    /// Default: none.
    fn gauges(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// A byte-counting FIFO, the storage of the built-in disciplines: a list through the queued
/// packets' [`super::pkt::Packet::next`] field (a packet waits in one queue or crosses one
/// link at a time, never both), so a queue has no buffer of its own to miss in the cache.
#[derive(Debug)]
pub struct Fifo {
    head: u32,
    tail: u32,
    len: usize,
    /// Wire bytes queued.
    pub bytes: u64,
}

impl Default for Fifo {
    fn default() -> Fifo {
        Fifo {
            head: NO_PACKET,
            tail: NO_PACKET,
            len: 0,
            bytes: 0,
        }
    }
}

impl Fifo {
    /// Appends packet `id` of `wire` bytes.
    #[inline]
    pub fn push(&mut self, id: PacketId, wire: u32, pool: &mut PacketPool) {
        debug_assert_eq!(
            pool.get(id).next,
            NO_PACKET,
            "a packet is in one list at a time"
        );
        if self.head == NO_PACKET {
            self.head = id.0;
        } else {
            pool.get_mut(PacketId(self.tail)).next = id.0;
        }
        self.tail = id.0;
        self.len += 1;
        self.bytes += wire as u64;
    }
    /// Removes the oldest packet.
    #[inline]
    pub fn pop(&mut self, pool: &mut PacketPool) -> Option<PacketId> {
        if self.head == NO_PACKET {
            return None;
        }
        let id = PacketId(self.head);
        let pkt = pool.get_mut(id);
        self.head = pkt.next;
        pkt.next = NO_PACKET;
        self.len -= 1;
        self.bytes -= pkt.wire as u64;
        Some(id)
    }
    /// The oldest packet, if any.
    #[inline]
    pub fn front(&self) -> Option<PacketId> {
        (self.head != NO_PACKET).then_some(PacketId(self.head))
    }
    /// Packets queued.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether nothing is queued.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
