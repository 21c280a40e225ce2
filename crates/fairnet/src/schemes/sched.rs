//! Multi-queue schedulers: strict priority, deficit round robin and weighted round robin over
//! `N` physical queues sharing the port's byte buffer.
//!
//! A [`Classifier`] picks the queue of an arriving packet: its priority class
//! ([`crate::engine::packet::Packet::priority`], 0 = first queue; classes beyond the last
//! queue go to the last one) or a hash of its flow id. The port's buffer is split equally
//! among the queues (static partitioning; each queue holds at least one full packet): a
//! packet that does not fit in its queue's share is dropped (no push-out). With one shared
//! pool, admission rather than the scheduler would set the shares — two backlogged classes
//! arriving at equal rates would each get half the slots and half the link whatever the
//! weights. An optional ECN step threshold `k` applies to each
//! queue's own length (DCTCP §3.1 marking, per queue as in multi-queue switches).
//!
//! DRR can instead share the whole buffer and, when it is full, drop from the longest queue
//! ([`DrrOverflow::DropLongest`]): Shreedhar and Varghese's "buffer stealing" (§4 of the DRR
//! paper: on overflow, drop from the longest queue, so a flow that stays within its share
//! keeps its packets), as ns-2's DRR queue does and the MAY paper's baselines use (MAY §IV:
//! "No_buckets_ = 100, blimit_ = 100Kbytes, quantum_ = 1000bytes"). ns-2 queues the arrival and
//! then drops head packets of the longest queue (in bytes) until the buffer fits; so do we,
//! with two details of our own: ties go to the queue with the lowest index other than the
//! arrival's, and the arrival itself is dropped (rather than queued) only when its queue held
//! nothing else and is the longest before any other packet was dropped (otherwise the heads
//! of the longest other queues go), so no packet is evicted for an arrival that is then
//! dropped.
//!
//! - **Strict priority**: IEEE 802.1Q-2018 §8.6.8.1 (strict priority transmission selection):
//!   the first non-empty queue in class order always sends.
//! - **DRR**: Shreedhar and Varghese, "Efficient Fair Queuing Using Deficit Round Robin",
//!   SIGCOMM 1995, Fig. 3: a queue visited in round-robin order adds its quantum
//!   (`weight_i · quantum` bytes) to its deficit counter and sends head packets while they fit
//!   in the deficit; an emptied queue's deficit resets to zero.
//! - **WRR**: weighted round robin (Katevenis et al., IEEE JSAC 1991, "Weighted round-robin
//!   cell multiplexing"): queue `i` sends up to `weight_i` packets per round (weights are
//!   whole numbers of packets), so shares are in packets, not bytes.

use super::fifo::EcnThreshold;
use crate::engine::packet::pkt::{Ecn, PacketId, PacketPool};
use crate::engine::packet::qdisc::{Enqueued, Fifo, Qdisc};
use crate::error::{Error, Result};
use crate::ids::FlowId;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// How an arriving packet picks its queue.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Classifier {
    /// The packet's priority class (clamped to the last queue).
    #[default]
    Priority,
    /// A hash of the packet's flow id, modulo the number of queues.
    FlowHash,
}

/// What DRR does when a packet does not fit (`qdisc = { kind = "drr", overflow = ... }`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DrrOverflow {
    /// Each queue owns an equal share of the buffer; an arrival that does not fit in its
    /// queue's share is dropped (the other disciplines' rule).
    #[default]
    OwnShare,
    /// One shared buffer; on overflow, head packets of the longest queue are dropped
    /// (Shreedhar and Varghese's buffer stealing, ns-2's DRR; module doc).
    DropLongest,
}

/// `N` FIFOs over one shared byte buffer, with the classifier and per-queue ECN marking.
#[derive(Debug)]
struct Queues {
    q: Vec<Fifo>,
    bytes: u64,
    packets: usize,
    buffer: u64,
    /// Each queue's share of the buffer.
    limit: u64,
    classify: Classifier,
    k: Option<EcnThreshold>,
}

impl Queues {
    fn new(
        n: usize,
        buffer: Bytes,
        mtu_wire: Bytes,
        classify: Classifier,
        k: Option<EcnThreshold>,
    ) -> Queues {
        Queues {
            q: (0..n).map(|_| Fifo::default()).collect(),
            bytes: 0,
            packets: 0,
            buffer: buffer.0,
            limit: (buffer.0 / n as u64).max(mtu_wire.0).min(buffer.0),
            classify,
            k,
        }
    }

    /// The queue of a packet of `flow` with priority class `priority`.
    #[inline]
    fn class(&self, flow: FlowId, priority: u8) -> usize {
        let n = self.q.len();
        match self.classify {
            Classifier::Priority => (priority as usize).min(n - 1),
            Classifier::FlowHash => {
                (mix64(flow.0 as u64 ^ 0x5851_F42D_4C95_7F2D) % n as u64) as usize
            }
        }
    }

    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool) -> Enqueued {
        let p = pool.get_mut(id);
        let i = self.class(p.flow, p.priority);
        let q = &mut self.q[i];
        let wire = p.wire as u64;
        if self.bytes + wire > self.buffer || q.bytes + wire > self.limit {
            return Enqueued::Dropped;
        }
        let mut out = Enqueued::Queued;
        if let Some(k) = self.k {
            let above = match k {
                EcnThreshold::Bytes(b) => q.bytes >= b.0,
                EcnThreshold::Packets(m) => q.len() >= m as usize,
            };
            if above && p.ecn == Ecn::Ect {
                p.ecn = Ecn::Ce;
                out = Enqueued::Marked;
            }
        }
        let wire = p.wire;
        q.push(id, wire, pool);
        self.bytes += wire as u64;
        self.packets += 1;
        out
    }

    /// [`DrrOverflow::DropLongest`]'s enqueue: the whole buffer is shared; to make room, head
    /// packets of the longest queue (in bytes, the arrival's counting the arrival) are pushed
    /// into `evicted` (module doc for the two tie rules).
    fn enqueue_drop_longest(
        &mut self,
        id: PacketId,
        pool: &mut PacketPool,
        evicted: &mut Vec<PacketId>,
    ) -> Enqueued {
        let (i, wire) = {
            let p = pool.get(id);
            (self.class(p.flow, p.priority), p.wire as u64)
        };
        if wire > self.buffer {
            return Enqueued::Dropped; // would not fit in an empty buffer
        }
        while self.bytes + wire > self.buffer {
            let mut victim = None;
            let mut most = 0;
            for (j, q) in self.q.iter().enumerate() {
                let b = q.bytes + if j == i { wire } else { 0 };
                // Strictly longer wins; on a tie a queue other than the arrival's.
                if victim.is_none() || b > most || (b == most && victim == Some(i)) {
                    victim = Some(j);
                    most = b;
                }
            }
            let j = victim.expect("at least one queue");
            if j == i && self.q[i].is_empty() && evicted.is_empty() {
                return Enqueued::Dropped;
            }
            let j = if j == i && self.q[i].is_empty() {
                // Packets were evicted already: take the longest other queue instead.
                (0..self.q.len())
                    .filter(|&k| k != i)
                    .max_by_key(|&k| (self.q[k].bytes, std::cmp::Reverse(k)))
                    .expect("another queue holds packets")
            } else {
                j
            };
            let head = self.pop(j, pool).expect("the longest queue holds packets");
            evicted.push(head);
        }
        match self.enqueue(id, pool) {
            Enqueued::Dropped => unreachable!("room was made"),
            out if evicted.is_empty() => out,
            _ => Enqueued::Evicting,
        }
    }

    fn pop(&mut self, i: usize, pool: &mut PacketPool) -> Option<PacketId> {
        let id = self.q[i].pop(pool)?;
        self.bytes -= pool.get(id).wire as u64;
        self.packets -= 1;
        Some(id)
    }
}

/// Strict priority over `N` queues (see the module doc).
#[derive(Debug)]
pub struct StrictPriority {
    qs: Queues,
}

impl StrictPriority {
    /// `classes` queues sharing `buffer`.
    pub fn new(
        classes: usize,
        buffer: Bytes,
        mtu_wire: Bytes,
        classify: Classifier,
        k: Option<EcnThreshold>,
    ) -> StrictPriority {
        StrictPriority {
            qs: Queues::new(classes.max(1), buffer, mtu_wire, classify, k),
        }
    }
}

impl Qdisc for StrictPriority {
    fn enqueue(
        &mut self,
        id: PacketId,
        pool: &mut PacketPool,
        _now: crate::units::Time,
    ) -> Enqueued {
        self.qs.enqueue(id, pool)
    }
    fn dequeue(&mut self, pool: &mut PacketPool, _now: crate::units::Time) -> Option<PacketId> {
        let i = self.qs.q.iter().position(|q| !q.is_empty())?;
        self.qs.pop(i, pool)
    }
    fn bytes(&self) -> u64 {
        self.qs.bytes
    }
    fn packets(&self) -> usize {
        self.qs.packets
    }
}

/// Deficit round robin over `N` queues (see the module doc).
#[derive(Debug)]
pub struct Drr {
    qs: Queues,
    quantum: Vec<u64>,
    deficit: Vec<u64>,
    /// The queue being served.
    cur: usize,
    /// Whether `cur` already received its quantum in this visit.
    credited: bool,
    overflow: DrrOverflow,
    /// Packets dropped to make room, for [`Qdisc::take_evicted`].
    evicted: Vec<PacketId>,
}

impl Drr {
    /// Queues with quanta `quantum[i]` bytes (at least one full packet each, so every visit to
    /// a backlogged queue sends).
    pub fn new(
        quantum: Vec<u64>,
        buffer: Bytes,
        mtu_wire: Bytes,
        classify: Classifier,
        k: Option<EcnThreshold>,
    ) -> Drr {
        let n = quantum.len().max(1);
        Drr {
            qs: Queues::new(n, buffer, mtu_wire, classify, k),
            deficit: vec![0; n],
            quantum,
            cur: 0,
            credited: false,
            overflow: DrrOverflow::OwnShare,
            evicted: Vec::new(),
        }
    }

    /// The same queues with overflow rule `overflow` ([`DrrOverflow::DropLongest`]: the whole
    /// buffer shared by every queue).
    pub fn with_overflow(mut self, overflow: DrrOverflow) -> Drr {
        self.overflow = overflow;
        if overflow == DrrOverflow::DropLongest {
            self.qs.limit = self.qs.buffer;
        }
        self
    }
}

impl Qdisc for Drr {
    fn enqueue(
        &mut self,
        id: PacketId,
        pool: &mut PacketPool,
        _now: crate::units::Time,
    ) -> Enqueued {
        match self.overflow {
            DrrOverflow::OwnShare => self.qs.enqueue(id, pool),
            DrrOverflow::DropLongest => self.qs.enqueue_drop_longest(id, pool, &mut self.evicted),
        }
    }
    fn take_evicted(&mut self) -> Option<PacketId> {
        self.evicted.pop()
    }
    fn dequeue(&mut self, pool: &mut PacketPool, _now: crate::units::Time) -> Option<PacketId> {
        if self.qs.packets == 0 {
            return None;
        }
        let n = self.qs.q.len();
        loop {
            let i = self.cur;
            match self.qs.q[i].front() {
                None => {
                    self.deficit[i] = 0;
                }
                Some(head) => {
                    if !self.credited {
                        self.deficit[i] += self.quantum[i];
                        self.credited = true;
                    }
                    let wire = pool.get(head).wire as u64;
                    if wire <= self.deficit[i] {
                        self.deficit[i] -= wire;
                        let id = self.qs.pop(i, pool);
                        if self.qs.q[i].is_empty() {
                            self.deficit[i] = 0;
                            self.cur = (i + 1) % n;
                            self.credited = false;
                        }
                        return id;
                    }
                }
            }
            self.cur = (i + 1) % n;
            self.credited = false;
        }
    }
    fn bytes(&self) -> u64 {
        self.qs.bytes
    }
    fn packets(&self) -> usize {
        self.qs.packets
    }
}

/// Weighted round robin over `N` queues, in packets (see the module doc).
#[derive(Debug)]
pub struct Wrr {
    qs: Queues,
    weights: Vec<u32>,
    cur: usize,
    /// Packets `cur` has sent in this visit.
    sent: u32,
}

impl Wrr {
    /// Queues with whole-packet weights (each at least 1).
    pub fn new(
        weights: Vec<u32>,
        buffer: Bytes,
        mtu_wire: Bytes,
        classify: Classifier,
        k: Option<EcnThreshold>,
    ) -> Wrr {
        let n = weights.len().max(1);
        Wrr {
            qs: Queues::new(n, buffer, mtu_wire, classify, k),
            weights,
            cur: 0,
            sent: 0,
        }
    }
}

impl Qdisc for Wrr {
    fn enqueue(
        &mut self,
        id: PacketId,
        pool: &mut PacketPool,
        _now: crate::units::Time,
    ) -> Enqueued {
        self.qs.enqueue(id, pool)
    }
    fn dequeue(&mut self, pool: &mut PacketPool, _now: crate::units::Time) -> Option<PacketId> {
        if self.qs.packets == 0 {
            return None;
        }
        let n = self.qs.q.len();
        loop {
            let i = self.cur;
            if self.sent < self.weights[i] && !self.qs.q[i].is_empty() {
                self.sent += 1;
                return self.qs.pop(i, pool);
            }
            self.cur = (i + 1) % n;
            self.sent = 0;
        }
    }
    fn bytes(&self) -> u64 {
        self.qs.bytes
    }
    fn packets(&self) -> usize {
        self.qs.packets
    }
    /// The flow's queue gets the new weight, rounded to whole packets per round (at least 1):
    /// a switch operator reconfiguring the WRR weight of the flow's class (Söze Fig. 17(c)).
    /// The round in progress finishes with the old weight.
    fn on_flow_weight(&mut self, flow: FlowId, priority: u8, weight: f64) {
        let i = self.qs.class(flow, priority);
        self.weights[i] = (weight.round() as u32).max(1);
    }
}

/// The SplitMix64 finalizer (Steele et al., OOPSLA 2014).
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Checks the number of queues of a multi-queue discipline at field path `at`.
pub(crate) fn check_queues(at: &str, n: usize) -> Result<()> {
    if n == 0 || n > 256 {
        return Err(Error::invalid(
            at,
            format!("needs between 1 and 256 queues, got {n}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::packet::pkt::Packet;
    use crate::ids::FlowId;
    use crate::units::Time;

    fn pkt(pool: &mut PacketPool, prio: u8, wire: u32) -> PacketId {
        pool.alloc(Packet {
            wire,
            priority: prio,
            ..Packet::default()
        })
    }

    #[test]
    fn strict_priority_serves_the_first_class_first() {
        let mut pool = PacketPool::new();
        let mut q = StrictPriority::new(3, Bytes(100_000), Bytes(100), Classifier::Priority, None);
        let t = Time::ZERO;
        let low = pkt(&mut pool, 2, 100);
        let high = pkt(&mut pool, 0, 100);
        let beyond = pkt(&mut pool, 9, 100);
        let mid = pkt(&mut pool, 1, 100);
        for id in [low, high, beyond, mid] {
            assert_eq!(q.enqueue(id, &mut pool, t), Enqueued::Queued);
        }
        let order: Vec<_> = std::iter::from_fn(|| q.dequeue(&mut pool, t)).collect();
        assert_eq!(
            order,
            vec![high, mid, low, beyond],
            "class 9 clamps to the last queue"
        );
        assert_eq!((q.bytes(), q.packets()), (0, 0));
    }

    #[test]
    fn drr_shares_bytes_by_quantum_with_unequal_packet_sizes() {
        // Quanta 1500 : 4500 B; queue 0 has 1500 B packets, queue 1 has 500 B packets. Per
        // round queue 0 sends 1500 B and queue 1 sends 4500 B: bytes 1 : 3 although queue 1
        // sends 9 packets per round to queue 0's one.
        let mut pool = PacketPool::new();
        let mut q = Drr::new(
            vec![1500, 4500],
            Bytes(10_000_000),
            Bytes(1500),
            Classifier::Priority,
            None,
        );
        let t = Time::ZERO;
        for _ in 0..400 {
            let a = pkt(&mut pool, 0, 1500);
            q.enqueue(a, &mut pool, t);
        }
        for _ in 0..4000 {
            let b = pkt(&mut pool, 1, 500);
            q.enqueue(b, &mut pool, t);
        }
        let mut bytes = [0u64; 2];
        for _ in 0..1000 {
            let id = q.dequeue(&mut pool, t).unwrap();
            let p = pool.get(id);
            bytes[p.priority as usize] += p.wire as u64;
        }
        assert_eq!(bytes, [100 * 1500, 900 * 500]);
    }

    #[test]
    fn drr_drop_longest_shares_the_buffer_and_steals_from_the_longest_queue() {
        // Three queues, a 1000-byte buffer of 100-byte packets. Own shares would give each
        // queue 333 bytes (3 packets); with drop_longest queue 0 may take 9 packets while the
        // others are empty. Then one packet each for queues 1 and 2 (the buffer is full): each
        // arrival is queued and the head of queue 0, the longest, dropped — first its oldest
        // packet, then the next; a second arrival for queue 1 again costs queue 0 its head.
        let mut pool = PacketPool::new();
        let mut q = Drr::new(
            vec![100; 3],
            Bytes(1000),
            Bytes(100),
            Classifier::Priority,
            None,
        )
        .with_overflow(DrrOverflow::DropLongest);
        let t = Time::ZERO;
        let first: Vec<_> = (0..10).map(|_| pkt(&mut pool, 0, 100)).collect();
        for &id in &first {
            assert_eq!(q.enqueue(id, &mut pool, t), Enqueued::Queued);
        }
        assert_eq!(
            (q.bytes(), q.packets()),
            (1000, 10),
            "one queue took it all"
        );
        let b = pkt(&mut pool, 1, 100);
        assert_eq!(q.enqueue(b, &mut pool, t), Enqueued::Evicting);
        assert_eq!(q.take_evicted(), Some(first[0]), "the longest queue's head");
        assert_eq!(q.take_evicted(), None);
        let c = pkt(&mut pool, 2, 100);
        assert_eq!(q.enqueue(c, &mut pool, t), Enqueued::Evicting);
        assert_eq!(q.take_evicted(), Some(first[1]));
        assert_eq!((q.bytes(), q.packets()), (1000, 10));
        // An arrival for queue 1, now one packet long, against queue 0's eight: queue 0 loses.
        let d = pkt(&mut pool, 1, 100);
        assert_eq!(q.enqueue(d, &mut pool, t), Enqueued::Evicting);
        assert_eq!(q.take_evicted(), Some(first[2]));
        // Own shares (the default) drop the arrival once its queue's third of the buffer is full.
        let mut own = Drr::new(
            vec![100; 3],
            Bytes(1000),
            Bytes(100),
            Classifier::Priority,
            None,
        );
        let out: Vec<_> = (0..4)
            .map(|_| {
                let id = pkt(&mut pool, 0, 100);
                own.enqueue(id, &mut pool, t)
            })
            .collect();
        assert_eq!(out[3], Enqueued::Dropped, "{out:?}");
    }

    #[test]
    fn drr_drop_longest_counts_the_arrival_in_its_queue() {
        // Three queues sharing 300 bytes. Queue 0 holds one 100-byte packet, queue 2 two: full.
        // A 250-byte arrival for the empty queue 1 makes it the longest (250 > 200) while it
        // holds nothing else: the arrival itself is dropped and nothing is evicted.
        let mut pool = PacketPool::new();
        let mut q = Drr::new(
            vec![100; 3],
            Bytes(300),
            Bytes(100),
            Classifier::Priority,
            None,
        )
        .with_overflow(DrrOverflow::DropLongest);
        let t = Time::ZERO;
        let a = pkt(&mut pool, 0, 100);
        assert_eq!(q.enqueue(a, &mut pool, t), Enqueued::Queued);
        let c: Vec<_> = (0..2).map(|_| pkt(&mut pool, 2, 100)).collect();
        for &id in &c {
            assert_eq!(q.enqueue(id, &mut pool, t), Enqueued::Queued);
        }
        let big = pkt(&mut pool, 1, 250);
        assert_eq!(q.enqueue(big, &mut pool, t), Enqueued::Dropped);
        assert_eq!(q.take_evicted(), None);
        assert_eq!((q.bytes(), q.packets()), (300, 3));
        // A 150-byte arrival for queue 1 (150 < 200): queue 2 is longer and loses its head,
        // then queue 1 (150) is longest but empty with a packet already evicted, so the longest
        // other queue (queue 0 and queue 2 tie at 100: the lower index) loses its head.
        let mid = pkt(&mut pool, 1, 150);
        assert_eq!(q.enqueue(mid, &mut pool, t), Enqueued::Evicting);
        let mut gone: Vec<_> = std::iter::from_fn(|| q.take_evicted()).collect();
        gone.sort_by_key(|id| id.0);
        let mut want = vec![c[0], a];
        want.sort_by_key(|id| id.0);
        assert_eq!(gone, want);
        assert_eq!((q.bytes(), q.packets()), (250, 2));
    }

    #[test]
    fn wrr_sends_weight_packets_per_round_and_flow_hash_spreads_flows() {
        let mut pool = PacketPool::new();
        let mut q = Wrr::new(
            vec![1, 3],
            Bytes(1_000_000),
            Bytes(100),
            Classifier::Priority,
            None,
        );
        let t = Time::ZERO;
        for i in 0..8 {
            let id = pkt(&mut pool, (i % 2) as u8, 100);
            q.enqueue(id, &mut pool, t);
        }
        let ids: Vec<_> = std::iter::from_fn(|| q.dequeue(&mut pool, t)).collect();
        let classes: Vec<u8> = ids.iter().map(|&id| pool.get(id).priority).collect();
        assert_eq!(classes, vec![0, 1, 1, 1, 0, 1, 0, 0]);

        let mut q = Wrr::new(
            vec![1; 4],
            Bytes(1_000_000),
            Bytes(100),
            Classifier::FlowHash,
            None,
        );
        for f in 0..64 {
            let id = pool.alloc(Packet {
                wire: 100,
                flow: FlowId(f),
                ..Packet::default()
            });
            q.enqueue(id, &mut pool, t);
        }
        let used = q.qs.q.iter().filter(|x| !x.is_empty()).count();
        assert_eq!(used, 4, "64 flows hash onto all 4 queues");
        assert_eq!(q.packets(), 64);
    }

    #[test]
    fn wrr_follows_a_flow_weight_change() {
        // Equal weights, then the class-1 flow's weight becomes 3 (2.6 rounds to 3): the order
        // becomes that of weights [1, 3]; a weight below 1 still sends one packet per round.
        let mut pool = PacketPool::new();
        let mut q = Wrr::new(
            vec![1, 1],
            Bytes(1_000_000),
            Bytes(100),
            Classifier::Priority,
            None,
        );
        q.on_flow_weight(FlowId(7), 1, 2.6);
        assert_eq!(q.weights, vec![1, 3]);
        let t = Time::ZERO;
        for i in 0..8 {
            let id = pkt(&mut pool, (i % 2) as u8, 100);
            q.enqueue(id, &mut pool, t);
        }
        let ids: Vec<_> = std::iter::from_fn(|| q.dequeue(&mut pool, t)).collect();
        let classes: Vec<u8> = ids.iter().map(|&id| pool.get(id).priority).collect();
        assert_eq!(classes, vec![0, 1, 1, 1, 0, 1, 0, 0]);
        q.on_flow_weight(FlowId(7), 1, 0.2);
        assert_eq!(q.weights, vec![1, 1]);
    }

    #[test]
    fn shared_buffer_drops_and_per_queue_marking() {
        let mut pool = PacketPool::new();
        // 400 B over 2 queues: 200 B per queue.
        let mut q = StrictPriority::new(
            2,
            Bytes(400),
            Bytes(100),
            Classifier::Priority,
            Some(EcnThreshold::Packets(1)),
        );
        let t = Time::ZERO;
        let mk = |pool: &mut PacketPool, prio| {
            pool.alloc(Packet {
                wire: 100,
                priority: prio,
                ecn: Ecn::Ect,
                ..Packet::default()
            })
        };
        let [a, b, c, d, e] = [0, 1, 0, 1, 0].map(|p| mk(&mut pool, p));
        assert_eq!(q.enqueue(a, &mut pool, t), Enqueued::Queued);
        assert_eq!(
            q.enqueue(b, &mut pool, t),
            Enqueued::Queued,
            "own queue empty"
        );
        assert_eq!(
            q.enqueue(c, &mut pool, t),
            Enqueued::Marked,
            "queue 0 holds 1"
        );
        assert_eq!(
            q.enqueue(d, &mut pool, t),
            Enqueued::Marked,
            "queue 1 holds 1"
        );
        assert_eq!(
            q.enqueue(e, &mut pool, t),
            Enqueued::Dropped,
            "queue 0's 200 B full"
        );
        assert_eq!(q.bytes(), 400);
    }
}
