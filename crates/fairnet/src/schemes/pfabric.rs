//! pFabric (Alizadeh et al., "pFabric: Minimal Near-optimal Datacenter Transport", SIGCOMM
//! 2013): switches schedule and drop by a priority number each packet carries, and the host
//! transport is minimal. The paper is not in `papers/`; sections are cited from our memory
//! of it, and the defaults come from s-PERC §8.2, Table 6 (which is in `papers/s-perc.txt`).
//!
//! **Switch** ([`PfabricQueue`], `qdisc = { kind = "pfabric" }`; §4.2): one queue per port
//! over the link's byte buffer (Table 6: 360 KB). Every packet carries its priority,
//! the data packet's header word ([`Packet::word`], written by [`Pfabric::header_word`]): the flow's remaining size in bytes, smaller is more urgent. *Dequeue*: find
//! the most urgent packet, then send the *earliest* queued packet of that packet's flow (so a
//! flow's packets never overtake each other and a flow is not starved by its own later, more
//! urgent packets, §4.2). *Enqueue* into a full buffer: drop the least urgent packets
//! (largest rank; among ties the latest arrived) while the arrival is more urgent than them
//! and they free enough room; otherwise drop the arrival. The paper's hardware does this
//! with small buffers (about two BDPs); here it is a linear scan of at most a buffer's worth of
//! packets.
//!
//! **Host** ([`Pfabric`], `transport = "pfabric"`, `[pfabric]` table; §4.3): flows start at
//! line rate with a large fixed initial window (Table 6: 120 packets), grow it as TCP does, and
//! do not reduce it on fast retransmit (pFabric leaves congestion to the switches' priority
//! dropping and reacts only to timeouts; the reliable sender still repairs holes early with
//! SACK when `tcp.sack` is on, our choice). Losses are detected by a small fixed retransmission
//! timeout (Table 6: 45 µs, about 3 RTTs in the paper's fabric), without backoff. A timeout
//! cuts the window to one segment (TCP's loss window). After `probe_after` consecutive
//! timeouts (§4.3: "several", we use 5) the flow enters *probe mode*: the paper sends
//! header-only probes until one is acknowledged, so a starved flow costs no bandwidth; here the
//! probe is the one-segment window (it carries data: the engine sends no payload-less data
//! packets), and the flow stays at one segment, without growth, until an ACK of new data ends
//! probe mode.
//!
//! The priority is stamped by the engine on every data packet of every transport (the
//! remaining flow size, `size − cumulative ACK`, saturating at `u32::MAX`, 4 GiB); ACKs carry
//! rank 0 (most urgent: 48-byte packets that unblock their senders; the paper is silent).

use super::dctcp::AimdWindow;
use crate::engine::packet::cc::{AckInfo, CongestionControl};
use crate::engine::packet::pkt::{Packet, PacketId, PacketKind, PacketPool};
use crate::engine::packet::qdisc::{Enqueued, Qdisc};
use crate::error::{Error, Result};
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

/// Parameters of the pFabric host transport (`[pfabric]` table of the packet config).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PfabricConfig {
    /// Initial window in packets (default 120, s-PERC Table 6's "initial cwnd=120").
    pub init_cwnd: u32,
    /// Fixed retransmission timeout (default 45 µs, s-PERC Table 6's "rto=45µs").
    pub rto: Time,
    /// Consecutive timeouts before probe mode (default 5; pFabric §4.3 says "several").
    pub probe_after: u32,
}

impl Default for PfabricConfig {
    fn default() -> PfabricConfig {
        PfabricConfig {
            init_cwnd: 120,
            rto: Time::from_us(45),
            probe_after: 5,
        }
    }
}

impl PfabricConfig {
    /// Checks value ranges; `at` is the table's path (`packet config.pfabric`).
    pub fn validate(&self, at: &str) -> Result<()> {
        if self.init_cwnd == 0 {
            return Err(Error::invalid(
                format!("{at}.init_cwnd"),
                "must be at least 1 packet",
            ));
        }
        if self.rto.0 == 0 {
            return Err(Error::invalid(format!("{at}.rto"), "must be positive"));
        }
        if self.probe_after == 0 {
            return Err(Error::invalid(
                format!("{at}.probe_after"),
                "must be at least 1 timeout",
            ));
        }
        Ok(())
    }
}

/// The priority a pFabric sender writes into a data packet's header word
/// ([`Packet::word`]): the flow's remaining bytes, saturating at `u32::MAX`.
#[inline]
pub fn rank_of(remaining: u64) -> u32 {
    remaining.min(u32::MAX as u64) as u32
}

/// A queued packet's priority (smaller is more urgent): a data packet's header word, 0 for an
/// ACK or a control packet (an ACK echoes its data packet's word, but ACKs go first, §4.1).
#[inline]
fn rank(p: &Packet) -> u32 {
    if p.kind == PacketKind::Data {
        p.word
    } else {
        0
    }
}

/// pFabric's switch queue (see the module doc).
#[derive(Debug)]
pub struct PfabricQueue {
    /// Queued packets in arrival order.
    q: Vec<PacketId>,
    bytes: u64,
    buffer: u64,
    /// Packets dropped from the queue by the last enqueue (taken by the engine).
    evicted: Vec<PacketId>,
}

impl PfabricQueue {
    /// A pFabric queue over `buffer` bytes.
    pub fn new(buffer: Bytes) -> PfabricQueue {
        PfabricQueue {
            q: Vec::new(),
            bytes: 0,
            buffer: buffer.0,
            evicted: Vec::new(),
        }
    }

    /// Index of the least urgent queued packet (largest rank, the latest among ties).
    fn worst(&self, pool: &PacketPool) -> Option<usize> {
        let mut best: Option<(usize, u32)> = None;
        for (i, &id) in self.q.iter().enumerate() {
            let r = rank(pool.get(id));
            if best.is_none_or(|(_, b)| r >= b) {
                best = Some((i, r));
            }
        }
        best.map(|(i, _)| i)
    }
}

impl Qdisc for PfabricQueue {
    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, _now: Time) -> Enqueued {
        let p = pool.get(id);
        let (wire, rank) = (p.wire as u64, rank(p));
        let mut out = Enqueued::Queued;
        if self.bytes + wire > self.buffer {
            // Evict only if the less urgent packets free enough room; else drop the arrival.
            let need = self.bytes + wire - self.buffer;
            let freeable: u64 = self
                .q
                .iter()
                .map(|&q| pool.get(q))
                .filter(|q| self::rank(q) > rank)
                .map(|q| q.wire as u64)
                .sum();
            if freeable < need {
                return Enqueued::Dropped;
            }
            while self.bytes + wire > self.buffer {
                let i = self.worst(pool).expect("freeable bytes are queued");
                let v = self.q.remove(i);
                self.bytes -= pool.get(v).wire as u64;
                self.evicted.push(v);
            }
            out = Enqueued::Evicting;
        }
        self.q.push(id);
        self.bytes += wire;
        out
    }

    fn dequeue(&mut self, pool: &mut PacketPool, _now: Time) -> Option<PacketId> {
        // The most urgent packet (the first among ties)...
        let mut best: Option<(usize, u32)> = None;
        for (i, &id) in self.q.iter().enumerate() {
            let r = rank(pool.get(id));
            if best.is_none_or(|(_, b)| r < b) {
                best = Some((i, r));
            }
        }
        let (i, _) = best?;
        // ...then the earliest queued packet of its flow (same flow, same kind).
        let key = |p: &Packet| (p.flow, p.kind);
        let k = key(pool.get(self.q[i]));
        let j = self.q[..=i]
            .iter()
            .position(|&id| key(pool.get(id)) == k)
            .expect("i itself matches");
        let id = self.q.remove(j);
        self.bytes -= pool.get(id).wire as u64;
        Some(id)
    }

    fn take_evicted(&mut self) -> Option<PacketId> {
        self.evicted.pop()
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn packets(&self) -> usize {
        self.q.len()
    }
}

/// pFabric's host rate control (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Pfabric {
    w: AimdWindow,
    mss: u64,
    timeouts_in_row: u32,
    probe_after: u32,
}

impl Pfabric {
    /// A flow with MSS `mss` and the configured initial window.
    pub fn new(mss: u64, cfg: &PfabricConfig) -> Pfabric {
        Pfabric {
            w: AimdWindow::new(mss, cfg.init_cwnd as u64 * mss),
            mss,
            timeouts_in_row: 0,
            probe_after: cfg.probe_after,
        }
    }

    /// Whether the flow is in probe mode (`probe_after` timeouts in a row, no new ACK since).
    pub fn probing(&self) -> bool {
        self.timeouts_in_row >= self.probe_after
    }
}

impl CongestionControl for Pfabric {
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        if a.acked > 0 {
            self.timeouts_in_row = 0;
        }
        // TCP growth outside recovery (no ECN in pFabric).
        self.w.on_ack_ecn(a, false, 1.0);
    }
    fn on_loss(&mut self, _now: Time, _in_flight: u64) {
        // §4.3: no window reduction on fast retransmit; priorities at the switches decide.
    }
    fn on_timeout(&mut self, _now: Time, in_flight: u64) {
        self.timeouts_in_row = self.timeouts_in_row.saturating_add(1);
        self.w.on_timeout(in_flight);
    }
    fn header_word(&self, remaining: u64) -> u32 {
        rank_of(remaining)
    }
    fn cwnd(&self) -> u64 {
        if self.probing() {
            self.mss
        } else {
            self.w.cwnd()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;

    fn pkt(pool: &mut PacketPool, flow: u32, rank: u32) -> PacketId {
        pool.alloc(Packet {
            flow: FlowId(flow),
            word: rank,
            wire: 1000,
            kind: PacketKind::Data,
            ..Packet::default()
        })
    }

    #[test]
    fn overflow_drops_the_least_urgent_and_dequeue_serves_the_most_urgent_flow_in_order() {
        // A 3-packet buffer holding ranks 5 (flow 0), 9 (flow 1), 7 (flow 2). An arrival of
        // rank 3 (flow 3) evicts the rank-9 packet; an arrival of rank 8 is less urgent than
        // everything queued and is dropped itself. Dequeue order: 3, 5, 7.
        let mut pool = PacketPool::new();
        let mut q = PfabricQueue::new(Bytes(3000));
        let t = Time::ZERO;
        let a = pkt(&mut pool, 0, 5);
        let b = pkt(&mut pool, 1, 9);
        let c = pkt(&mut pool, 2, 7);
        for id in [a, b, c] {
            assert_eq!(q.enqueue(id, &mut pool, t), Enqueued::Queued);
        }
        let d = pkt(&mut pool, 3, 3);
        assert_eq!(q.enqueue(d, &mut pool, t), Enqueued::Evicting);
        assert_eq!(q.take_evicted(), Some(b));
        assert_eq!(q.take_evicted(), None);
        let e = pkt(&mut pool, 4, 8);
        assert_eq!(q.enqueue(e, &mut pool, t), Enqueued::Dropped);
        assert_eq!((q.packets(), q.bytes()), (3, 3000));
        assert_eq!(q.dequeue(&mut pool, t), Some(d));
        assert_eq!(q.dequeue(&mut pool, t), Some(a));
        assert_eq!(q.dequeue(&mut pool, t), Some(c));
        assert_eq!(q.dequeue(&mut pool, t), None);
    }

    #[test]
    fn a_flow_is_served_in_arrival_order() {
        // Flow 0's packets arrive with ranks 4000, 3000 (its remaining size falls); flow 1
        // has rank 3500. The most urgent packet is flow 0's second, so flow 0 is served,
        // starting with its earliest packet (§4.2: no reordering within a flow).
        let mut pool = PacketPool::new();
        let mut q = PfabricQueue::new(Bytes(10_000));
        let t = Time::ZERO;
        let a0 = pkt(&mut pool, 0, 4000);
        let b = pkt(&mut pool, 1, 3500);
        let a1 = pkt(&mut pool, 0, 3000);
        for id in [a0, b, a1] {
            q.enqueue(id, &mut pool, t);
        }
        assert_eq!(q.dequeue(&mut pool, t), Some(a0));
        assert_eq!(q.dequeue(&mut pool, t), Some(a1));
        assert_eq!(q.dequeue(&mut pool, t), Some(b));
    }

    #[test]
    fn probe_mode_after_consecutive_timeouts() {
        let cfg = PfabricConfig::default();
        let mut c = Pfabric::new(1000, &cfg);
        assert_eq!(c.cwnd(), 120_000, "s-PERC Table 6: initial cwnd 120");
        for _ in 0..5 {
            c.on_timeout(Time::ZERO, 10_000);
        }
        assert!(c.probing());
        assert_eq!(c.cwnd(), 1000);
        c.on_loss(Time::ZERO, 10_000);
        assert_eq!(c.cwnd(), 1000);
        assert!(cfg.validate("p").is_ok());
        let bad = PfabricConfig {
            rto: Time::ZERO,
            ..cfg
        };
        assert_eq!(
            bad.validate("packet config.pfabric")
                .unwrap_err()
                .to_string(),
            "packet config.pfabric.rto: must be positive"
        );
    }
}
