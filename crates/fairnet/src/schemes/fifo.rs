//! The FIFO disciplines: drop-tail and DCTCP's step ECN marking, both a FIFO over a byte
//! buffer (a packet is accepted when the queued bytes plus its wire size fit in the buffer,
//! the link's `buffer`, and dropped otherwise).

use crate::engine::packet::pkt::{Ecn, PacketId, PacketPool};
use crate::engine::packet::qdisc::{Enqueued, Fifo, Qdisc};
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::packet::pkt::Packet;

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

        let k: EcnThreshold = toml::from_str("bytes = \"30KB\"").unwrap();
        assert_eq!(k, EcnThreshold::Bytes(Bytes(30_000)));
    }
}
