//! LAS, least attained service: I. A. Rai, E. W. Biersack and G. Urvoy-Keller, "Size-based
//! scheduling to improve the performance of short TCP flows", IEEE Network 2005 (MAY's
//! reference [19], its stateful baseline for short-flow completion times).
//!
//! The router keeps, for every flow, the bytes it has sent of it (its attained service) and
//! always sends next the head packet of the backlogged flow with the least attained service,
//! so a new flow preempts every flow that has been served more. When the buffer is full, the
//! packet dropped is one of the flow with the most attained service: the arriving packet if its
//! flow has attained at least as much as every backlogged flow, otherwise the last queued
//! packet of the most-served backlogged flow (pushed out until the arrival fits).
//!
//! Choices: attained service counts wire bytes at dequeue (what the link has actually given the
//! flow); ties between flows of equal service go to the lower flow id; counters are kept for the
//! whole run (LAS is the stateful scheme MAY is compared against); every packet at the port
//! (data and ACKs, which carry their flow's id) is scheduled the same way.

use crate::engine::packet::pkt::{PacketId, PacketPool};
use crate::engine::packet::qdisc::{Enqueued, Qdisc};
use crate::units::{Bytes, Time};
use std::collections::{BTreeSet, HashMap, VecDeque};

/// One flow's queue and attained service.
#[derive(Debug, Default)]
struct FlowQueue {
    packets: VecDeque<(PacketId, u32)>,
    /// Wire bytes sent so far.
    served: u64,
}

/// Least-attained-service scheduling over a shared byte buffer (see the module doc).
#[derive(Debug)]
pub struct Las {
    flows: HashMap<u32, FlowQueue>,
    /// Backlogged flows by (attained service, flow id): the first is served next.
    backlog: BTreeSet<(u64, u32)>,
    bytes: u64,
    packets: usize,
    buffer: u64,
    evicted: Vec<PacketId>,
}

impl Las {
    /// A LAS queue of `buffer` bytes.
    pub fn new(buffer: Bytes) -> Las {
        Las {
            flows: HashMap::new(),
            backlog: BTreeSet::new(),
            bytes: 0,
            packets: 0,
            buffer: buffer.0,
            evicted: Vec::new(),
        }
    }

    /// Queues packet `id` (`wire` bytes) of `flow`.
    fn push(&mut self, id: PacketId, flow: u32, wire: u32) -> Enqueued {
        let q = self.flows.entry(flow).or_default();
        if q.packets.is_empty() {
            self.backlog.insert((q.served, flow));
        }
        q.packets.push_back((id, wire));
        self.bytes += wire as u64;
        self.packets += 1;
        Enqueued::Queued
    }

    /// The attained service (wire bytes sent) of flow `flow`.
    pub fn attained(&self, flow: u32) -> u64 {
        self.flows.get(&flow).map_or(0, |f| f.served)
    }
}

impl Qdisc for Las {
    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, _now: Time) -> Enqueued {
        let (flow, wire) = {
            let p = pool.get(id);
            (p.flow.0, p.wire)
        };
        let mine = (self.flows.get(&flow).map_or(0, |f| f.served), flow);
        let need = (self.bytes + wire as u64).saturating_sub(self.buffer);
        if need == 0 {
            return self.push(id, flow, wire);
        }
        // Can the flows served more than the arrival's free enough? If not, the arrival is
        // (one of) the most served: it is dropped and nothing is pushed out.
        let mut free = 0;
        for &(served, f) in self.backlog.iter().rev() {
            if (served, f) <= mine || free >= need {
                break;
            }
            free += self.flows[&f]
                .packets
                .iter()
                .map(|&(_, w)| w as u64)
                .sum::<u64>();
        }
        if free < need {
            return Enqueued::Dropped;
        }
        while self.bytes + wire as u64 > self.buffer {
            let (served, victim) = *self.backlog.last().expect("enough to free");
            let q = self.flows.get_mut(&victim).expect("backlogged flow");
            let (pid, w) = q.packets.pop_back().expect("backlogged flow has a packet");
            if q.packets.is_empty() {
                self.backlog.remove(&(served, victim));
            }
            self.bytes -= w as u64;
            self.packets -= 1;
            self.evicted.push(pid);
        }
        self.push(id, flow, wire);
        Enqueued::Evicting
    }

    fn dequeue(&mut self, _pool: &mut PacketPool, _now: Time) -> Option<PacketId> {
        let (served, flow) = self.backlog.pop_first()?;
        let q = self.flows.get_mut(&flow).expect("backlogged flow");
        let (id, wire) = q.packets.pop_front().expect("backlogged flow has a packet");
        q.served += wire as u64;
        if !q.packets.is_empty() {
            self.backlog.insert((served + wire as u64, flow));
        }
        self.bytes -= wire as u64;
        self.packets -= 1;
        Some(id)
    }

    fn take_evicted(&mut self) -> Option<PacketId> {
        self.evicted.pop()
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn packets(&self) -> usize {
        self.packets
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::packet::pkt::Packet;
    use crate::ids::FlowId;

    fn pkt(pool: &mut PacketPool, flow: u32) -> PacketId {
        pool.alloc(Packet {
            flow: FlowId(flow),
            wire: 1000,
            ..Packet::default()
        })
    }

    #[test]
    fn the_flow_with_the_least_attained_service_is_served_first() {
        // Flow 0 has been served 3 packets; then flow 0 and flow 1 (new) each queue 2. LAS
        // serves flow 1 first (0 < 3000 bytes), then, with flow 1 at 2000 bytes and flow 0 at
        // 3000, flow 1 is empty, so flow 0.
        let mut q = Las::new(Bytes(100_000));
        let mut pool = PacketPool::new();
        let t = Time::ZERO;
        for _ in 0..3 {
            let a = pkt(&mut pool, 0);
            q.enqueue(a, &mut pool, t);
            assert_eq!(q.dequeue(&mut pool, t), Some(a));
        }
        assert_eq!(q.attained(0), 3000);
        let a: Vec<_> = (0..2).map(|_| pkt(&mut pool, 0)).collect();
        let b: Vec<_> = (0..2).map(|_| pkt(&mut pool, 1)).collect();
        for &id in a.iter().chain(&b) {
            assert_eq!(q.enqueue(id, &mut pool, t), Enqueued::Queued);
        }
        let order: Vec<_> = (0..4).map(|_| q.dequeue(&mut pool, t).unwrap()).collect();
        assert_eq!(order, vec![b[0], b[1], a[0], a[1]]);
        assert_eq!(q.dequeue(&mut pool, t), None);
        assert_eq!((q.bytes(), q.packets()), (0, 0));
    }

    #[test]
    fn equal_service_alternates_packet_by_packet() {
        // Two new flows with 3 packets each: after each packet the served flow has attained
        // more, so the service alternates (ties to the lower id): 0, 1, 0, 1, 0, 1.
        let mut q = Las::new(Bytes(100_000));
        let mut pool = PacketPool::new();
        let t = Time::ZERO;
        for _ in 0..3 {
            for f in 0..2 {
                let id = pkt(&mut pool, f);
                q.enqueue(id, &mut pool, t);
            }
        }
        let flows: Vec<u32> = (0..6)
            .map(|_| {
                let id = q.dequeue(&mut pool, t).unwrap();
                pool.get(id).flow.0
            })
            .collect();
        assert_eq!(flows, vec![0, 1, 0, 1, 0, 1]);
    }

    #[test]
    fn overflow_drops_from_the_most_served_flow() {
        // A 3-packet buffer. Flow 0 was served 5 packets, flow 1 one; both then queue (flow 0
        // two packets, flow 1 one): full. A packet of new flow 2 pushes out flow 0's last
        // packet; a packet of flow 0 (the most served) is itself dropped.
        let mut q = Las::new(Bytes(3000));
        let mut pool = PacketPool::new();
        let t = Time::ZERO;
        for (f, n) in [(0, 5), (1, 1)] {
            for _ in 0..n {
                let id = pkt(&mut pool, f);
                q.enqueue(id, &mut pool, t);
                q.dequeue(&mut pool, t);
            }
        }
        let a0 = pkt(&mut pool, 0);
        let a1 = pkt(&mut pool, 0);
        let b = pkt(&mut pool, 1);
        for id in [a0, a1, b] {
            assert_eq!(q.enqueue(id, &mut pool, t), Enqueued::Queued);
        }
        let c = pkt(&mut pool, 2);
        assert_eq!(q.enqueue(c, &mut pool, t), Enqueued::Evicting);
        assert_eq!(q.take_evicted(), Some(a1));
        assert_eq!(q.take_evicted(), None);
        let late = pkt(&mut pool, 0);
        assert_eq!(q.enqueue(late, &mut pool, t), Enqueued::Dropped);
        let order: Vec<_> = (0..3).map(|_| q.dequeue(&mut pool, t).unwrap()).collect();
        assert_eq!(order, vec![c, b, a0]);
    }

    #[test]
    fn a_short_flow_overtakes_long_ones_on_the_packet_engine() {
        // Two long TCP flows fill a 1 Gb/s dumbbell; at 5 ms a 20-packet flow starts. Under LAS
        // its packets (attained service ~0) go ahead of the long flows' (megabytes each), so it
        // finishes within a few RTTs of its ideal; under drop-tail it waits behind the long
        // flows' standing queue. Expected: its FCT under LAS below half its FCT under
        // drop-tail.
        use crate::ids::NodeId;
        use crate::registry::{PacketConfig, PacketSim, QdiscConfig, TransportKind};
        use crate::topo::{dumbbell, LinkSpec};
        use crate::units::Rate;
        use crate::workload::FlowSpec;
        let l = LinkSpec::new(Rate::gbps(1), Time::from_us(10), Bytes(300_000));
        let topo = dumbbell(3, l, l).unwrap();
        let mut flows: Vec<FlowSpec> = (0..2)
            .map(|i| FlowSpec::new(NodeId(i), NodeId(3 + i), Bytes(1 << 40), Time::ZERO))
            .collect();
        flows.push(FlowSpec::new(
            NodeId(2),
            NodeId(5),
            Bytes(20_000),
            Time::from_ms(5),
        ));
        let fct = |qdisc| {
            let cfg = PacketConfig {
                transport: TransportKind::Reno,
                qdisc,
                ..PacketConfig::default()
            };
            let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
            let r = sim.run_until(Time::from_ms(30)).unwrap();
            assert!(r.conservation.holds());
            r.flows[2].fct.expect("the short flow finished")
        };
        let (las, tail) = (fct(QdiscConfig::Las), fct(QdiscConfig::DropTail));
        assert!(las.0 * 2 < tail.0, "LAS {las} vs drop-tail {tail}");
    }
}
