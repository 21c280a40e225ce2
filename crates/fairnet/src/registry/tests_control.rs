//! Control packets in the shared engine: strict priority over data at every port, the
//! per-port rate limit, reflection by the receiver, and conservation.

use super::{PacketConfig, PacketSim};
use crate::engine::packet::cc::{AckInfo, CongestionControl};
use crate::engine::packet::pkt::{CtrlArea, Packet};
use crate::ids::{FlowId, LinkId, NodeId};
use crate::topo::{dumbbell, LinkSpec};
use crate::units::{Bytes, Rate, Time};
use crate::workload::FlowSpec;
use std::cell::RefCell;
use std::rc::Rc;

/// A window-limited sender (a fixed window far above the BDP, so it fills the bottleneck
/// queue) that also sends a control packet every `every` and logs each one's RTT.
struct Pinger {
    cwnd: u64,
    every: u64,
    next: u64,
    rtts: Rc<RefCell<Vec<u64>>>,
}

impl CongestionControl for Pinger {
    fn on_ack(&mut self, _a: &AckInfo<'_>) {}
    fn on_loss(&mut self, _now: Time, _in_flight: u64) {}
    fn on_timeout(&mut self, _now: Time, _in_flight: u64) {}
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn control_at(&self) -> Option<Time> {
        (self.every > 0).then_some(Time(self.next))
    }
    fn make_control(&mut self, now: Time, _unsent: u64, area: &mut CtrlArea) -> bool {
        self.next = now.0 + self.every;
        area.seq = self.next;
        true
    }
    fn on_control(&mut self, pkt: &Packet, area: &CtrlArea, now: Time) {
        assert!(area.reflected, "the receiver reflected it");
        assert_eq!(
            area.seq,
            pkt.ts.0 + self.every,
            "the control area came back intact"
        );
        self.rtts.borrow_mut().push(now.0 - pkt.ts.0);
    }
}

#[test]
fn control_packets_bypass_a_full_data_queue() {
    // Two senders with 1000-packet windows into one 10 Gb/s bottleneck with a 128 KB buffer:
    // the data queue there stays nearly full (~105 µs of queueing). Flow 1 also sends a
    // control packet every 20 µs. With strict priority a control packet waits at most for the
    // data packet in service at each port, so its RTT stays within a few µs of the empty-
    // network RTT (four links each way, 1 µs each: ~8.2 µs), while data waits ~100 µs.
    let link = LinkSpec::new(Rate::gbps(10), Time::from_us(1), Bytes(128 * 1024));
    let topo = dumbbell(2, link, link).unwrap();
    let flows: Vec<FlowSpec> = (0..2)
        .map(|i| FlowSpec::new(NodeId(i), NodeId(2 + i), Bytes(50_000_000), Time::ZERO))
        .collect();
    let cfg = PacketConfig {
        control: crate::engine::packet::config::ControlConfig {
            rate: 1.0,
            ..Default::default()
        },
        ..PacketConfig::default()
    };
    let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
    let rtts = Rc::new(RefCell::new(Vec::new()));
    for (f, every) in [(0, 0), (1, Time::from_us(20).0)] {
        let cc = Pinger {
            cwnd: 1000 * 1000,
            every,
            next: 0,
            rtts: rtts.clone(),
        };
        sim.set_congestion_control(FlowId(f), Box::new(cc)).unwrap();
    }
    let r = sim.run_until(Time::from_us(2000)).unwrap();
    // The bottleneck (link 0: swA -> swB) queue is nearly full.
    let bottleneck = &r.links[0];
    assert!(
        bottleneck.max_queue_bytes > 100 * 1024,
        "{}",
        bottleneck.max_queue_bytes
    );
    assert!(bottleneck.ctrl_tx_bytes > 0);
    let rtts = rtts.borrow();
    assert!(rtts.len() > 80, "{} control packets came back", rtts.len());
    let worst = *rtts.iter().max().unwrap();
    assert!(
        worst < Time::from_us(14).0,
        "control RTT {} ps with a full data queue",
        worst
    );
}

#[test]
fn control_rate_limit_spaces_a_burst() {
    // 40 control packets of 64 B sent at once by 40 flows of one host through a 10 Gb/s NIC
    // limited to 1% (100 Mb/s: 5.12 µs per packet) with a 4-packet bucket: the NIC's control
    // bytes over the run stay within rate·T + burst.
    let link = LinkSpec::new(Rate::gbps(10), Time::from_us(1), Bytes(128 * 1024));
    let topo = dumbbell(1, link, link).unwrap();
    let flows: Vec<FlowSpec> = (0..40)
        .map(|_| FlowSpec::new(NodeId(0), NodeId(1), Bytes(1_000_000_000), Time::ZERO))
        .collect();
    let cfg = PacketConfig {
        control: crate::engine::packet::config::ControlConfig {
            rate: 0.01,
            burst: Bytes(256),
            ..Default::default()
        },
        ..PacketConfig::default()
    };
    let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
    let rtts = Rc::new(RefCell::new(Vec::new()));
    for f in 0..40 {
        let cc = Pinger {
            cwnd: 0,
            every: Time::from_ms(10).0,
            next: 0,
            rtts: rtts.clone(),
        };
        sim.set_congestion_control(FlowId(f), Box::new(cc)).unwrap();
    }
    for t in [50u64, 100, 150, 300] {
        let r = sim.run_until(Time::from_us(t)).unwrap();
        // Link 2 is host 0's NIC (dumbbell: bottleneck pair first, then access links).
        let nic = r.links.iter().find(|l| l.link == LinkId(2)).unwrap();
        let cap = 0.01 * 10e9 / 8.0 * (t as f64 * 1e-6) + 256.0;
        assert!(
            nic.ctrl_tx_bytes as f64 <= cap,
            "{} control bytes by {t} us, cap {cap}",
            nic.ctrl_tx_bytes
        );
    }
    assert_eq!(rtts.borrow().len(), 40, "all came back");
}

/// Logs, for every flow's first control packet, each port it leaves (`0` out, `1` reflected)
/// and each `on_reverse` call (`2`), as `(flow, link, what)`.
struct PathLog {
    log: Rc<RefCell<Vec<(u32, u32, u8)>>>,
}

impl crate::engine::packet::port::PortAgent for PathLog {
    fn on_dequeue(
        &mut self,
        id: crate::engine::packet::pkt::PacketId,
        pool: &mut crate::engine::packet::pkt::PacketPool,
        port: &crate::engine::packet::port::PortView,
    ) {
        let p = pool.get(id);
        if p.kind == crate::engine::packet::pkt::PacketKind::Control && pool.ctrl(id).seq == 1 {
            let what = u8::from(pool.ctrl(id).reflected);
            self.log.borrow_mut().push((p.flow.0, port.link.0, what));
        }
    }

    fn on_reverse(
        &mut self,
        id: crate::engine::packet::pkt::PacketId,
        pool: &mut crate::engine::packet::pkt::PacketPool,
        port: &crate::engine::packet::port::PortView,
    ) {
        let p = pool.get(id);
        assert!(pool.ctrl(id).reflected, "only reflected packets come back");
        if pool.ctrl(id).seq == 1 {
            self.log.borrow_mut().push((p.flow.0, port.link.0, 2));
        }
    }
}

/// Runs 8 s-PERC* flows from leaf 0's hosts to leaf 1's on a leaf–spine with 4 spines (ECMP),
/// every port's agent replaced by a [`PathLog`]; per flow: the links its first control packet
/// left on the way out, on the way back, and the links `on_reverse` was called for.
#[allow(clippy::type_complexity)]
fn control_paths(two_way: bool) -> (crate::topo::Topology, Vec<[Vec<u32>; 3]>) {
    use crate::topo::{leaf_spine, LeafSpineSpec};
    let link = LinkSpec::new(Rate::gbps(10), Time::from_us(1), Bytes(128 * 1024));
    let topo = leaf_spine(LeafSpineSpec {
        hosts_per_leaf: 8,
        leaves: 2,
        spines: 4,
        host_link: link,
        fabric_link: link,
    })
    .unwrap();
    let flows: Vec<FlowSpec> = (0..8)
        .map(|i| FlowSpec::new(NodeId(i), NodeId(8 + i), Bytes(1_000_000), Time::ZERO))
        .collect();
    let mut cfg = PacketConfig {
        transport: super::TransportKind::Sperc,
        port_agent: super::PortAgentConfig::Sperc,
        ..PacketConfig::default()
    };
    cfg.sperc.two_way = two_way;
    assert_eq!(cfg.two_way_control(), two_way);
    let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
    let log = Rc::new(RefCell::new(Vec::new()));
    for l in 0..topo.num_links() {
        let agent = PathLog { log: log.clone() };
        sim.set_port_agent(LinkId(l as u32), Box::new(agent))
            .unwrap();
    }
    sim.run_until(Time::from_us(100)).unwrap();
    let mut per_flow = vec![[Vec::new(), Vec::new(), Vec::new()]; flows.len()];
    for &(f, l, what) in log.borrow().iter() {
        per_flow[f as usize][what as usize].push(l);
    }
    (topo, per_flow)
}

#[test]
fn reflected_control_packets_retrace_the_data_path_with_two_way_updates() {
    // s-PERC §2 assumption 6: the control packet goes "back and forth between the sender and
    // receiver across the same set of links". With two-way updates, each flow's first control
    // packet leaves host -> leaf0 -> spine -> leaf1 -> host (4 links) and comes back on the
    // reverse-direction links of those four, last first; at each node on the way back the
    // agent of the forward link leaving that node is called, in reverse path order.
    let (topo, paths) = control_paths(true);
    let rev = topo.reverse_links();
    for (f, [out, back, reverse]) in paths.iter().enumerate() {
        assert_eq!(out.len(), 4, "flow {f}: {out:?}");
        let want: Vec<u32> = out
            .iter()
            .rev()
            .map(|&l| rev[l as usize].unwrap().0)
            .collect();
        assert_eq!(back, &want, "flow {f}: the way back retraces {out:?}");
        let want: Vec<u32> = out.iter().rev().copied().collect();
        assert_eq!(
            reverse, &want,
            "flow {f}: on_reverse for the forward links, last first"
        );
    }
}

#[test]
fn without_two_way_updates_the_way_back_is_hashed_and_agents_are_not_called() {
    // The ACK route of an ECMP flow hashes independently of its data path: over 8 flows and 4
    // spines some flow comes back through another spine (this is what the two-way test above
    // would catch if the reverse route were not set), and no agent gets `on_reverse`.
    let (topo, paths) = control_paths(false);
    let rev = topo.reverse_links();
    let mut differs = 0;
    for [out, back, reverse] in &paths {
        assert!(reverse.is_empty());
        let mirrored: Vec<u32> = out
            .iter()
            .rev()
            .map(|&l| rev[l as usize].unwrap().0)
            .collect();
        differs += usize::from(back != &mirrored);
    }
    assert!(
        differs > 0,
        "all 8 flows hashed back through their own spine"
    );
}
