//! Queueing disciplines: what an egress port queues, drops, marks and sends next.
//!
//! Built-ins: [`DropTail`] and [`EcnStep`] (DCTCP's step marking). Both are a FIFO over a byte
//! buffer: a packet is accepted when the queued bytes plus its wire size fit in the buffer
//! (the link's `buffer`), and dropped otherwise. Later disciplines (RED, strict priority,
//! DRR/WRR, MAY's drop-counter AQM, pFabric) implement [`Qdisc`] and plug in through
//! [`QdiscImpl::Custom`] or a new built-in variant.

use super::pkt::{Ecn, PacketId, PacketPool};
use crate::ids::LinkId;
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The outcome of [`Qdisc::enqueue`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    /// Queued unchanged.
    Queued,
    /// Queued and marked CE.
    Marked,
    /// Not queued: the engine frees the packet and counts a drop at this link.
    Dropped,
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
}

/// An egress port's queueing discipline.
///
/// Used by: drop-tail and ECN marking here; MAY (its drop-counter AQM is a qdisc); strict
/// priority / DRR / WRR for the baselines of Uranus and eBA. The engine calls `enqueue` when a
/// packet reaches the port and `dequeue` when the link is free; it checks after every enqueue
/// that [`Qdisc::bytes`] does not exceed the buffer (a violation fails the run).
pub trait Qdisc {
    /// Offers packet `id` at time `now`. The qdisc may rewrite its header (e.g. set CE) via
    /// `pool`. On [`Enqueued::Dropped`] the engine frees the packet; the qdisc must not keep it.
    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, now: Time) -> Enqueued;
    /// The next packet to transmit, if any.
    fn dequeue(&mut self, pool: &mut PacketPool, now: Time) -> Option<PacketId>;
    /// Bytes (wire) queued now.
    fn bytes(&self) -> u64;
    /// Packets queued now.
    fn packets(&self) -> usize;
}

/// A byte-counting FIFO, the storage of the built-in disciplines.
#[derive(Debug, Default)]
struct Fifo {
    q: VecDeque<PacketId>,
    bytes: u64,
}

impl Fifo {
    #[inline]
    fn push(&mut self, id: PacketId, wire: u32) {
        self.q.push_back(id);
        self.bytes += wire as u64;
    }
    #[inline]
    fn pop(&mut self, pool: &PacketPool) -> Option<PacketId> {
        let id = self.q.pop_front()?;
        self.bytes -= pool.get(id).wire as u64;
        Some(id)
    }
}

/// First in, first out; a packet that does not fit in the buffer is dropped.
#[derive(Debug)]
pub struct DropTail {
    fifo: Fifo,
    buffer: u64,
}

impl DropTail {
    /// A drop-tail queue of `buffer` bytes.
    pub fn new(buffer: Bytes) -> DropTail {
        DropTail {
            fifo: Fifo::default(),
            buffer: buffer.0,
        }
    }
}

impl Qdisc for DropTail {
    #[inline]
    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, _now: Time) -> Enqueued {
        let wire = pool.get(id).wire;
        if self.fifo.bytes + wire as u64 > self.buffer {
            return Enqueued::Dropped;
        }
        self.fifo.push(id, wire);
        Enqueued::Queued
    }
    #[inline]
    fn dequeue(&mut self, pool: &mut PacketPool, _now: Time) -> Option<PacketId> {
        self.fifo.pop(pool)
    }
    fn bytes(&self) -> u64 {
        self.fifo.bytes
    }
    fn packets(&self) -> usize {
        self.fifo.q.len()
    }
}

/// The marking threshold `K` of [`EcnStep`], in bytes or in packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnThreshold {
    /// Mark when at least this many bytes are queued.
    Bytes(Bytes),
    /// Mark when at least this many packets are queued.
    Packets(u32),
}

/// DCTCP's step marking (Alizadeh et al., SIGCOMM 2010, §3.1 "Simple Marking at the Switch"):
/// an arriving ECN-capable packet is marked CE if the queue it joins already holds at least `K`
/// (bytes or packets). The paper says "greater than K"; we mark at `>= K`, the form the
/// brief and most simulators (ns-3 `RedQueueDisc` with `MinTh = MaxTh = K`) use — the two
/// differ by one packet of threshold.
///
/// A packet that is not ECN-capable is neither marked nor dropped by the threshold (only the
/// buffer limit drops it), so UDP and ACKs pass the marking point unchanged.
#[derive(Debug)]
pub struct EcnStep {
    fifo: Fifo,
    buffer: u64,
    k: EcnThreshold,
}

impl EcnStep {
    /// A step-marking FIFO of `buffer` bytes with threshold `k`.
    pub fn new(buffer: Bytes, k: EcnThreshold) -> EcnStep {
        EcnStep {
            fifo: Fifo::default(),
            buffer: buffer.0,
            k,
        }
    }

    #[inline]
    fn above_k(&self) -> bool {
        match self.k {
            EcnThreshold::Bytes(b) => self.fifo.bytes >= b.0,
            EcnThreshold::Packets(n) => self.fifo.q.len() >= n as usize,
        }
    }
}

impl Qdisc for EcnStep {
    #[inline]
    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, _now: Time) -> Enqueued {
        let p = pool.get_mut(id);
        if self.fifo.bytes + p.wire as u64 > self.buffer {
            return Enqueued::Dropped;
        }
        let mut out = Enqueued::Queued;
        if p.ecn == Ecn::Ect && self.above_k() {
            p.ecn = Ecn::Ce;
            out = Enqueued::Marked;
        }
        let wire = p.wire;
        self.fifo.push(id, wire);
        out
    }
    #[inline]
    fn dequeue(&mut self, pool: &mut PacketPool, _now: Time) -> Option<PacketId> {
        self.fifo.pop(pool)
    }
    fn bytes(&self) -> u64 {
        self.fifo.bytes
    }
    fn packets(&self) -> usize {
        self.fifo.q.len()
    }
}

/// The built-in disciplines (static dispatch) plus a boxed one for schemes outside the engine.
pub enum QdiscImpl {
    /// [`DropTail`].
    DropTail(DropTail),
    /// [`EcnStep`].
    Ecn(EcnStep),
    /// Any other [`Qdisc`].
    Custom(Box<dyn Qdisc>),
}

impl std::fmt::Debug for QdiscImpl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QdiscImpl::DropTail(q) => q.fmt(f),
            QdiscImpl::Ecn(q) => q.fmt(f),
            QdiscImpl::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            QdiscImpl::DropTail($q) => $e,
            QdiscImpl::Ecn($q) => $e,
            QdiscImpl::Custom($q) => $e,
        }
    };
}

impl Qdisc for QdiscImpl {
    #[inline]
    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, now: Time) -> Enqueued {
        dispatch!(self, q => q.enqueue(id, pool, now))
    }
    #[inline]
    fn dequeue(&mut self, pool: &mut PacketPool, now: Time) -> Option<PacketId> {
        dispatch!(self, q => q.dequeue(pool, now))
    }
    #[inline]
    fn bytes(&self) -> u64 {
        dispatch!(self, q => q.bytes())
    }
    #[inline]
    fn packets(&self) -> usize {
        dispatch!(self, q => q.packets())
    }
}

/// Which built-in discipline every port uses (`qdisc = { kind = "ecn", k = { packets = 15 } }`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QdiscConfig {
    /// [`DropTail`].
    #[default]
    DropTail,
    /// [`EcnStep`] with threshold `k`.
    Ecn {
        /// Marking threshold.
        k: EcnThreshold,
    },
}

impl QdiscConfig {
    /// Builds the discipline for one port.
    pub fn build(&self, p: &QdiscParams) -> QdiscImpl {
        match *self {
            QdiscConfig::DropTail => QdiscImpl::DropTail(DropTail::new(p.buffer)),
            QdiscConfig::Ecn { k } => QdiscImpl::Ecn(EcnStep::new(p.buffer, k)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::pkt::Packet;
    use super::*;

    fn pkt(pool: &mut PacketPool, wire: u32, ecn: Ecn) -> PacketId {
        pool.alloc(Packet {
            wire,
            ecn,
            ..Packet::default()
        })
    }

    #[test]
    fn drop_tail_drops_what_does_not_fit() {
        let mut pool = PacketPool::new();
        let mut q = DropTail::new(Bytes(2500));
        let t = Time::ZERO;
        let a = pkt(&mut pool, 1000, Ecn::NotEct);
        let b = pkt(&mut pool, 1000, Ecn::NotEct);
        let c = pkt(&mut pool, 1000, Ecn::NotEct);
        let d = pkt(&mut pool, 500, Ecn::NotEct);
        assert_eq!(q.enqueue(a, &mut pool, t), Enqueued::Queued);
        assert_eq!(q.enqueue(b, &mut pool, t), Enqueued::Queued);
        assert_eq!(q.enqueue(c, &mut pool, t), Enqueued::Dropped);
        assert_eq!(
            q.enqueue(d, &mut pool, t),
            Enqueued::Queued,
            "exactly fills"
        );
        assert_eq!((q.bytes(), q.packets()), (2500, 3));
        assert_eq!(q.dequeue(&mut pool, t), Some(a));
        assert_eq!(q.dequeue(&mut pool, t), Some(b));
        assert_eq!(q.dequeue(&mut pool, t), Some(d));
        assert_eq!(q.dequeue(&mut pool, t), None);
        assert_eq!(q.bytes(), 0);
    }

    #[test]
    fn ecn_marks_at_k_packets_only_ect() {
        let mut pool = PacketPool::new();
        let mut q = EcnStep::new(Bytes(100_000), EcnThreshold::Packets(2));
        let t = Time::ZERO;
        let ids: Vec<_> = (0..4).map(|_| pkt(&mut pool, 100, Ecn::Ect)).collect();
        let plain = pkt(&mut pool, 100, Ecn::NotEct);
        assert_eq!(q.enqueue(ids[0], &mut pool, t), Enqueued::Queued);
        assert_eq!(q.enqueue(ids[1], &mut pool, t), Enqueued::Queued);
        // Two queued: the third arrival sees queue >= K = 2.
        assert_eq!(q.enqueue(ids[2], &mut pool, t), Enqueued::Marked);
        assert_eq!(pool.get(ids[2]).ecn, Ecn::Ce);
        assert_eq!(q.enqueue(plain, &mut pool, t), Enqueued::Queued);
        assert_eq!(pool.get(plain).ecn, Ecn::NotEct);
        q.dequeue(&mut pool, t);
        q.dequeue(&mut pool, t);
        q.dequeue(&mut pool, t);
        // One queued now: below K.
        assert_eq!(q.enqueue(ids[3], &mut pool, t), Enqueued::Queued);
        assert_eq!(pool.get(ids[3]).ecn, Ecn::Ect);
    }

    #[test]
    fn ecn_threshold_in_bytes_and_config_parsing() {
        let mut pool = PacketPool::new();
        let mut q = EcnStep::new(Bytes(10_000), EcnThreshold::Bytes(Bytes(1500)));
        let t = Time::ZERO;
        let a = pkt(&mut pool, 1000, Ecn::Ect);
        let b = pkt(&mut pool, 1000, Ecn::Ect);
        let c = pkt(&mut pool, 1000, Ecn::Ect);
        assert_eq!(q.enqueue(a, &mut pool, t), Enqueued::Queued);
        assert_eq!(q.enqueue(b, &mut pool, t), Enqueued::Queued, "1000 < 1500");
        assert_eq!(q.enqueue(c, &mut pool, t), Enqueued::Marked, "2000 >= 1500");

        let cfg: QdiscConfig = toml::from_str("kind = \"ecn\"\nk = { packets = 15 }").unwrap();
        assert_eq!(
            cfg,
            QdiscConfig::Ecn {
                k: EcnThreshold::Packets(15)
            }
        );
        let cfg: QdiscConfig = toml::from_str("kind = \"ecn\"\nk = { bytes = \"30KB\" }").unwrap();
        assert_eq!(
            cfg,
            QdiscConfig::Ecn {
                k: EcnThreshold::Bytes(Bytes(30_000))
            }
        );
        let err = toml::from_str::<QdiscConfig>("kind = \"red\"").unwrap_err();
        assert!(err.to_string().contains("unknown variant `red`"), "{err}");
    }
}
