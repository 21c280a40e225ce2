//! Queueing disciplines: what an egress port queues, drops, marks and sends next.
//!
//! Built-ins: [`DropTail`] and [`EcnStep`] (DCTCP's step marking), both a FIFO over a byte
//! buffer (a packet is accepted when the queued bytes plus its wire size fit in the buffer,
//! the link's `buffer`, and dropped otherwise); RED / gentle RED / Adaptive RED with
//! per-link-rate thresholds ([`super::red`]); strict priority, DRR and WRR over `N` queues
//! ([`super::sched`]); pFabric's priority queue ([`super::pfabric`]), which may drop queued
//! packets ([`Enqueued::Evicting`]). Later disciplines (MAY's drop-counter AQM) implement
//! [`Qdisc`] and plug in through [`QdiscImpl::Custom`] or a new built-in variant.

use super::pfabric::PfabricQueue;
use super::pkt::{Ecn, PacketId, PacketPool, NO_PACKET};
use super::red::{Red, RedConfig};
use super::sched::{check_queues, Classifier, Drr, StrictPriority, Wrr};
use crate::error::{Error, Result};
use crate::ids::{FlowId, LinkId};
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

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
    /// After [`Enqueued::Evicting`]: the next packet dropped from the queue, until `None`.
    fn take_evicted(&mut self) -> Option<PacketId> {
        None
    }
    /// Bytes (wire) queued now.
    fn bytes(&self) -> u64;
    /// Packets queued now.
    fn packets(&self) -> usize;
    /// Flow `flow` (priority class `priority`) changed its weight at run time
    /// ([`super::PacketSim::set_weight`]); a weighted scheduler may follow it. Default: ignored.
    fn on_flow_weight(&mut self, _flow: FlowId, _priority: u8, _weight: f64) {}
}

/// A byte-counting FIFO, the storage of the built-in disciplines: a list through the queued
/// packets' [`super::pkt::Packet::next`] field (a packet waits in one queue or crosses one
/// link at a time, never both), so a queue has no buffer of its own to miss in the cache.
#[derive(Debug)]
pub(crate) struct Fifo {
    head: u32,
    tail: u32,
    len: usize,
    pub(crate) bytes: u64,
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
    pub(crate) fn push(&mut self, id: PacketId, wire: u32, pool: &mut PacketPool) {
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
    pub(crate) fn pop(&mut self, pool: &mut PacketPool) -> Option<PacketId> {
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
    pub(crate) fn front(&self) -> Option<PacketId> {
        (self.head != NO_PACKET).then_some(PacketId(self.head))
    }
    /// Packets queued.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
    /// Whether nothing is queued.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
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
        self.fifo.push(id, wire, pool);
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
        self.fifo.len()
    }
}

/// The marking threshold `K` of [`EcnStep`], in bytes or in packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
            EcnThreshold::Packets(n) => self.fifo.len() >= n as usize,
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
        self.fifo.push(id, wire, pool);
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
        self.fifo.len()
    }
}

/// The built-in disciplines (static dispatch) plus a boxed one for schemes outside the engine.
pub enum QdiscImpl {
    /// [`DropTail`].
    DropTail(DropTail),
    /// [`EcnStep`].
    Ecn(EcnStep),
    /// [`Red`].
    Red(Box<Red>),
    /// [`StrictPriority`]. (The multi-queue and pFabric variants are boxed, as RED is: inline
    /// they made every port, whatever its discipline, ~100 bytes larger on the data path.)
    Priority(Box<StrictPriority>),
    /// [`Drr`].
    Drr(Box<Drr>),
    /// [`Wrr`].
    Wrr(Box<Wrr>),
    /// [`PfabricQueue`].
    Pfabric(Box<PfabricQueue>),
    /// Any other [`Qdisc`].
    Custom(Box<dyn Qdisc>),
}

impl std::fmt::Debug for QdiscImpl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QdiscImpl::DropTail(q) => q.fmt(f),
            QdiscImpl::Ecn(q) => q.fmt(f),
            QdiscImpl::Red(q) => q.fmt(f),
            QdiscImpl::Priority(q) => q.fmt(f),
            QdiscImpl::Drr(q) => q.fmt(f),
            QdiscImpl::Wrr(q) => q.fmt(f),
            QdiscImpl::Pfabric(q) => q.fmt(f),
            QdiscImpl::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            QdiscImpl::DropTail($q) => $e,
            QdiscImpl::Ecn($q) => $e,
            QdiscImpl::Red($q) => $e,
            QdiscImpl::Priority($q) => $e,
            QdiscImpl::Drr($q) => $e,
            QdiscImpl::Wrr($q) => $e,
            QdiscImpl::Pfabric($q) => $e,
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
    fn take_evicted(&mut self) -> Option<PacketId> {
        dispatch!(self, q => q.take_evicted())
    }
    #[inline]
    fn bytes(&self) -> u64 {
        dispatch!(self, q => q.bytes())
    }
    #[inline]
    fn packets(&self) -> usize {
        dispatch!(self, q => q.packets())
    }
    fn on_flow_weight(&mut self, flow: FlowId, priority: u8, weight: f64) {
        dispatch!(self, q => q.on_flow_weight(flow, priority, weight))
    }
}

/// Which built-in discipline every port uses (`qdisc = { kind = "ecn", k = { packets = 15 } }`).
///
/// ```toml
/// qdisc = { kind = "drop_tail" }
/// qdisc = { kind = "ecn", k = { packets = 15 } }
/// qdisc = { kind = "red", gentle = true, thresholds = [
///   { rate = "100Gbps", kmin = "100KB", kmax = "400KB", pmax = 0.2 },
///   { rate = "25Gbps", kmin = "25KB", kmax = "100KB", pmax = 0.2 } ] }
/// qdisc = { kind = "priority", classes = 8 }
/// qdisc = { kind = "drr", weights = [1, 3], classify = "priority" }
/// qdisc = { kind = "wrr", weights = [1, 3], classify = "flow_hash", k = { packets = 20 } }
/// qdisc = { kind = "pfabric" }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// [`Red`]: RED / gentle RED / Adaptive RED with a per-link-rate threshold table.
    Red(RedConfig),
    /// [`StrictPriority`] over `classes` queues.
    Priority {
        /// Number of queues (packet priority 0 → queue 0, the highest).
        classes: u32,
        /// Queue selection (default: by priority class).
        #[serde(default)]
        classify: Classifier,
        /// Optional per-queue ECN step threshold.
        #[serde(default)]
        k: Option<EcnThreshold>,
    },
    /// [`Drr`]: one queue per weight; queue `i`'s quantum is `weights[i] · quantum`.
    Drr {
        /// Relative weights (positive).
        weights: Vec<f64>,
        /// Bytes per unit of weight per round (default: one full packet on the wire).
        #[serde(default)]
        quantum: Option<Bytes>,
        /// Queue selection (default: by priority class).
        #[serde(default)]
        classify: Classifier,
        /// Optional per-queue ECN step threshold.
        #[serde(default)]
        k: Option<EcnThreshold>,
    },
    /// [`Wrr`]: one queue per weight, `weights[i]` packets per round.
    Wrr {
        /// Packets per round (at least 1).
        weights: Vec<u32>,
        /// Queue selection (default: by priority class).
        #[serde(default)]
        classify: Classifier,
        /// Optional per-queue ECN step threshold.
        #[serde(default)]
        k: Option<EcnThreshold>,
    },
    /// [`PfabricQueue`]: dequeue the most urgent flow (smallest remaining size), drop the
    /// least urgent packet on overflow (pFabric §4.2).
    Pfabric,
}

impl QdiscConfig {
    /// Checks value ranges; errors name the field (`packet config.qdisc.weights[1]`).
    pub fn validate(&self) -> Result<()> {
        let at = "packet config.qdisc";
        let check_k = |k: &Option<EcnThreshold>| -> Result<()> {
            if let Some(k) = k {
                let zero = match k {
                    EcnThreshold::Bytes(b) => b.0 == 0,
                    EcnThreshold::Packets(n) => *n == 0,
                };
                if zero {
                    return Err(Error::invalid(
                        format!("{at}.k"),
                        "must be positive (K = 0 marks every packet; use a tiny K if meant)",
                    ));
                }
            }
            Ok(())
        };
        match self {
            QdiscConfig::DropTail | QdiscConfig::Pfabric => Ok(()),
            QdiscConfig::Ecn { k } => check_k(&Some(*k)),
            QdiscConfig::Red(r) => r.validate(at),
            QdiscConfig::Priority { classes, k, .. } => {
                check_queues(&format!("{at}.classes"), *classes as usize)?;
                check_k(k)
            }
            QdiscConfig::Drr {
                weights,
                quantum,
                k,
                ..
            } => {
                check_queues(&format!("{at}.weights"), weights.len())?;
                for (i, w) in weights.iter().enumerate() {
                    if !(w.is_finite() && *w > 0.0) {
                        return Err(Error::invalid(
                            format!("{at}.weights[{i}]"),
                            format!("must be positive and finite, got {w}"),
                        ));
                    }
                }
                if *quantum == Some(Bytes(0)) {
                    return Err(Error::invalid(format!("{at}.quantum"), "must be positive"));
                }
                check_k(k)
            }
            QdiscConfig::Wrr { weights, k, .. } => {
                check_queues(&format!("{at}.weights"), weights.len())?;
                if let Some(i) = weights.iter().position(|&w| w == 0) {
                    return Err(Error::invalid(
                        format!("{at}.weights[{i}]"),
                        "must be at least 1 packet",
                    ));
                }
                check_k(k)
            }
        }
    }

    /// Builds the discipline for one port; errors name the link (a RED table without a row
    /// for the link's rate).
    pub fn build(&self, p: &QdiscParams) -> Result<QdiscImpl> {
        Ok(match self {
            QdiscConfig::DropTail => QdiscImpl::DropTail(DropTail::new(p.buffer)),
            QdiscConfig::Pfabric => QdiscImpl::Pfabric(Box::new(PfabricQueue::new(p.buffer))),
            QdiscConfig::Ecn { k } => QdiscImpl::Ecn(EcnStep::new(p.buffer, *k)),
            QdiscConfig::Red(r) => QdiscImpl::Red(Box::new(r.build(p)?)),
            QdiscConfig::Priority {
                classes,
                classify,
                k,
            } => QdiscImpl::Priority(Box::new(StrictPriority::new(
                *classes as usize,
                p.buffer,
                p.mtu_wire,
                *classify,
                *k,
            ))),
            QdiscConfig::Drr {
                weights,
                quantum,
                classify,
                k,
            } => {
                let unit = quantum.unwrap_or(p.mtu_wire).0 as f64;
                let quanta = weights
                    .iter()
                    .map(|w| ((w * unit).round() as u64).max(1))
                    .collect();
                QdiscImpl::Drr(Box::new(Drr::new(
                    quanta, p.buffer, p.mtu_wire, *classify, *k,
                )))
            }
            QdiscConfig::Wrr {
                weights,
                classify,
                k,
            } => QdiscImpl::Wrr(Box::new(Wrr::new(
                weights.clone(),
                p.buffer,
                p.mtu_wire,
                *classify,
                *k,
            ))),
        })
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
        let err = toml::from_str::<QdiscConfig>("kind = \"wfq\"").unwrap_err();
        assert!(err.to_string().contains("unknown variant `wfq`"), "{err}");
    }
}
