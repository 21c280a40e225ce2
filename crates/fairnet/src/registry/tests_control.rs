//! Control packets in the shared engine: strict priority over data at every port, the
//! per-port rate limit, reflection by the receiver, conservation, and control packets sent by
//! a host shim on its own timer.

use super::{PacketConfig, PacketSim};
use crate::engine::packet::cc::{AckInfo, CongestionControl};
use crate::engine::packet::host::{HostShim, ShimControl};
use crate::engine::packet::pkt::{CtrlArea, Packet, PacketId, PacketKind, PacketPool};
use crate::engine::packet::port::{PortAgent, PortView};
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

#[test]
fn a_lossy_network_drops_control_packets_at_each_port_with_the_given_probability() {
    // `control.loss = p`: every port drops each control packet reaching it with probability p,
    // independently. One flow across a dumbbell (host 0 → swA → swB → host 1) pings for
    // 20 ms (~860 pings: its congestion control asks for the next 10 µs after the last), each
    // crossing three links out and three back, so a ping returns with probability (1 − p)^6
    // (p = 0.1: 0.531). Binomial counts, held within 5 standard deviations of their means:
    // the returns, out of the pings host 0's NIC received (every one reaches it); and each
    // link's drops out of the control packets that reached it. No data packet is sent, so
    // every drop is a control packet's. The draws are seeded by the run's seed: the same seed
    // gives the same run, another a different one. p = 0 loses nothing (every ping comes
    // back but the last, which may be on its way); p outside [0, 1) is refused naming the
    // field.
    let link = LinkSpec::new(Rate::gbps(10), Time::from_us(1), Bytes(128 * 1024));
    let topo = dumbbell(1, link, link).unwrap();
    let flows = vec![FlowSpec::new(
        NodeId(0),
        NodeId(1),
        Bytes(1_000_000),
        Time::ZERO,
    )];
    let run = |loss: f64, seed: u64| {
        let mut cfg = PacketConfig {
            seed,
            ..PacketConfig::default()
        };
        cfg.control.loss = loss;
        let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
        let rtts = Rc::new(RefCell::new(Vec::new()));
        let cc = Pinger {
            cwnd: 0,
            every: Time::from_us(10).0,
            next: 0,
            rtts: rtts.clone(),
        };
        sim.set_congestion_control(FlowId(0), Box::new(cc)).unwrap();
        // Pings leave at 0, 10, …, 19,990 µs; the last is back long before 20.1 ms.
        let r = sim.run_until(Time::from_us(20_100)).unwrap();
        let returned = rtts.borrow().len();
        (returned, r.links)
    };
    let p = 0.1;
    let (returned, links) = run(p, 7);
    // Link 2 is host 0's NIC (dumbbell: bottleneck pair first, then access links).
    let reached =
        |l: &crate::engine::packet::records::LinkRecord| l.ctrl_tx_bytes / 64 + l.ctrl_drops;
    let nic = links.iter().find(|l| l.link == LinkId(2)).unwrap();
    let sent = reached(nic) as f64;
    assert!(sent > 500.0, "{sent} pings");
    let within = |count: f64, n: f64, q: f64, what: &str| {
        let (mean, sd) = (n * q, (n * q * (1.0 - q)).sqrt());
        assert!(
            (count - mean).abs() <= 5.0 * sd,
            "{what}: {count} against {mean} ± 5·{sd:.1}"
        );
    };
    within(returned as f64, sent, (1.0 - p).powi(6), "pings returned");
    let mut crossed = 0;
    for l in &links {
        assert_eq!(
            l.drops, l.ctrl_drops,
            "link {:?}: only control packets",
            l.link
        );
        if reached(l) > 0 {
            crossed += 1;
            let n = reached(l) as f64;
            within(l.ctrl_drops as f64, n, p, &format!("link {:?}", l.link));
        }
    }
    assert_eq!(crossed, 6, "three links out, three back");
    let drops = |links: &[crate::engine::packet::records::LinkRecord]| {
        links.iter().map(|l| l.ctrl_drops).collect::<Vec<_>>()
    };
    let (again, links_again) = run(p, 7);
    assert_eq!((again, drops(&links_again)), (returned, drops(&links)));
    let (_, other) = run(p, 8);
    assert_ne!(drops(&other), drops(&links), "another seed, other draws");
    let (lossless, links0) = run(0.0, 7);
    let nic0 = links0.iter().find(|l| l.link == LinkId(2)).unwrap();
    let out = reached(nic0);
    assert!(
        out - lossless as u64 <= 1,
        "{lossless} of {out} pings came back (the last may be on its way)"
    );
    assert!(links0.iter().all(|l| l.drops == 0));
    for bad in [1.0, -0.1] {
        let mut cfg = PacketConfig::default();
        cfg.control.loss = bad;
        let err = PacketSim::from_config(&topo, &flows, cfg).err().unwrap();
        assert_eq!(
            err.to_string(),
            format!("packet config.control.loss: must be in [0, 1), got {bad}")
        );
    }
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

/// What [`TickShim`] saw: the times of its timer calls, and each control packet that came
/// back (its `seq`, the time it was sent, the time it came back, its header word, its control
/// area).
#[derive(Default)]
struct ShimLog {
    ticks: Vec<u64>,
    back: Vec<(u64, u64, u64, u32, CtrlArea)>,
}

/// A host shim with a timer of its own: it ticks every `every` up to `last` and, at each
/// tick, lists a control packet on flow 0 (its `seq` is the tick time, its word 1000), one on
/// flow 1 (sent from another host) and one on flow 99 (no such flow). When the packet of tick `last`
/// comes back it asks for one more tick 3 µs later.
struct TickShim {
    every: u64,
    last: u64,
    next: Option<u64>,
    log: Rc<RefCell<ShimLog>>,
}

impl HostShim for TickShim {
    fn next_timer(&self) -> Option<Time> {
        self.next.map(Time)
    }
    fn on_timer(&mut self, now: Time, out: &mut Vec<ShimControl>) {
        assert_eq!(Some(now.0), self.next, "called at the time it asked for");
        self.log.borrow_mut().ticks.push(now.0);
        for (f, seq) in [(0, now.0), (1, now.0 + 1), (99, now.0 + 2)] {
            let area = CtrlArea {
                seq,
                ..CtrlArea::default()
            };
            out.push(ShimControl {
                flow: FlowId(f),
                word: 1000,
                area,
            });
        }
        let after = now.0 + self.every;
        self.next = (now.0 < self.last && after <= self.last).then_some(after);
    }
    fn on_control(&mut self, pkt: &Packet, area: &CtrlArea, now: Time) {
        self.log
            .borrow_mut()
            .back
            .push((area.seq, pkt.ts.0, now.0, pkt.word, *area));
        if area.seq == self.last {
            self.next = Some(now.0 + Time::from_us(3).0);
        }
    }
}

/// Stamps the link it sits on into the next hop record of control packets on their way out,
/// and lowers their header word to at most 500 (as an explicit-rate router would).
struct LinkStamp;

impl PortAgent for LinkStamp {
    fn on_dequeue(&mut self, id: PacketId, pool: &mut PacketPool, port: &PortView) {
        if pool.get(id).kind != PacketKind::Control || pool.ctrl(id).reflected {
            return;
        }
        let p = pool.get_mut(id);
        p.word = p.word.min(500);
        let a = pool.ctrl_mut(id);
        let i = a.next as usize;
        a.hops[i].round = port.link.0 as u64;
        a.hops[i].flags = 1;
        a.next += 1;
        a.len = a.next;
    }
}

#[test]
fn a_host_shim_sends_its_own_control_packets_on_its_timer() {
    // A shim on host 0 ticks every 20 µs from 0 to 200 µs; host 0's flow 0 starts at 25 µs,
    // host 1's flow 1 at 0. The engine calls the shim at exactly the times it asks for (0, 20,
    // …, 200 µs) and sends what it lists only for a started flow of its own host: the packets
    // of ticks 0 and 20 µs (flow 0 not started), every packet on flow 1 (host 1's) and on flow
    // 99 (none) are skipped, so ticks 40…200 µs send one packet each on flow 0. Each crosses
    // the bottleneck (link 0, whose agent stamps it), is reflected by the receiver and comes
    // back to the shim — never to flow 0's congestion control, which logs any control packet
    // it gets — with its area intact and marked as the shim's, its word lowered from 1000 to
    // the agent's 500, one RTT later (a few µs; the
    // run goes on to 400 µs). The engine asks the shim for its timer again after a packet
    // comes back: the return of tick 200 µs asks for one more tick 3 µs later, and it comes.
    let link = LinkSpec::new(Rate::gbps(10), Time::from_us(1), Bytes(128 * 1024));
    let topo = dumbbell(2, link, link).unwrap();
    let us = |t: u64| Time::from_us(t).0;
    let flows = vec![
        FlowSpec::new(NodeId(0), NodeId(2), Bytes(50_000_000), Time::from_us(25)),
        FlowSpec::new(NodeId(1), NodeId(3), Bytes(50_000_000), Time::ZERO),
    ];
    let mut sim = PacketSim::from_config(&topo, &flows, PacketConfig::default()).unwrap();
    let cc_got = Rc::new(RefCell::new(Vec::new()));
    for f in 0..2 {
        let cc = Pinger {
            cwnd: 20 * 1000,
            every: 0,
            next: 0,
            rtts: cc_got.clone(),
        };
        sim.set_congestion_control(FlowId(f), Box::new(cc)).unwrap();
    }
    let log = Rc::new(RefCell::new(ShimLog::default()));
    let shim = TickShim {
        every: us(20),
        last: us(200),
        next: Some(0),
        log: log.clone(),
    };
    sim.set_host_shim(NodeId(0), Box::new(shim)).unwrap();
    sim.set_port_agent(LinkId(0), Box::new(LinkStamp)).unwrap();
    sim.run_until(Time::from_us(400)).unwrap();

    let log = log.borrow();
    assert!(cc_got.borrow().is_empty(), "no shim packet reached a cc");
    let (last_seq, _, last_back, _, _) = *log.back.iter().find(|b| b.0 == us(200)).unwrap();
    let echo = last_back + us(3);
    let mut want_ticks: Vec<u64> = (0..=10).map(|k| us(20 * k)).collect();
    want_ticks.push(echo);
    assert_eq!(log.ticks, want_ticks);
    assert_eq!(last_seq, us(200));
    let mut want_back: Vec<u64> = (2..=10).map(|k| us(20 * k)).collect();
    want_back.push(echo);
    let seqs: Vec<u64> = log.back.iter().map(|b| b.0).collect();
    assert_eq!(seqs, want_back, "one packet per tick once flow 0 started");
    for &(seq, sent, back, word, area) in &log.back {
        assert_eq!(word, 500, "the word as the bottleneck's agent left it");
        assert_eq!(sent, seq, "sent at its tick");
        // Three links each way of 1 µs: at least 6 µs; an almost empty network: under 20 µs.
        assert!(
            back - sent >= us(6) && back - sent < us(20),
            "RTT {}",
            back - sent
        );
        assert!(area.reflected && area.shim && !area.fin);
        assert_eq!(area.len, 1, "stamped once, at the bottleneck");
        assert_eq!((area.hops[0].round, area.hops[0].flags), (0, 1));
    }
}

/// A host shim that lists one control packet on flow 0 every `every`, from 0 on: control
/// traffic of its own, whatever the port's control cap lets through.
struct ChattyShim {
    every: u64,
    next: u64,
}

impl HostShim for ChattyShim {
    fn next_timer(&self) -> Option<Time> {
        Some(Time(self.next))
    }
    fn on_timer(&mut self, now: Time, out: &mut Vec<ShimControl>) {
        self.next = now.0 + self.every;
        out.push(ShimControl {
            flow: FlowId(0),
            word: 0,
            area: CtrlArea::default(),
        });
    }
}

#[test]
fn a_control_packet_held_by_the_cap_does_not_stop_the_hosts_data() {
    // Host 0 sends one flow (a 1 MB window: never window-limited here) to host 1 over 10 Gb/s
    // links, and its shim asks for a 64 B control packet every 1 µs: 512 Mb/s, more than the
    // 2% cap (200 Mb/s, 1 KB bucket) lets through, so a control packet always waits for its
    // tokens at host 0's NIC (and the 16 KB control FIFO overflows). A control packet held by
    // the cap may not go yet; the NIC must send data meanwhile and the control packet at the
    // first packet boundary after its tokens come. Over 2 ms, at the NIC (link 2): control
    // takes the cap's share, at most 0.02·C·T + 1 KB = 51,000 B and, being always backlogged
    // with strict priority, at least 90% of 0.02·C·T; data takes the rest of the line, at
    // least 95% of C·T = 2.5 MB (98% less the start and packet boundaries). Whatever the
    // NIC's mode: pull, weighted (start-time fair queueing) or queue (a FIFO in front).
    // Before the fix the NIC pulled no data while a control packet waited, so it sent none
    // once the control FIFO was never empty.
    use crate::engine::packet::config::HostNic;
    let link = LinkSpec::new(Rate::gbps(10), Time::from_us(1), Bytes(128 * 1024));
    let topo = dumbbell(1, link, link).unwrap();
    let flows = vec![FlowSpec::new(
        NodeId(0),
        NodeId(1),
        Bytes(1_000_000_000),
        Time::ZERO,
    )];
    let t = Time::from_ms(2);
    let line_bytes = 10e9 / 8.0 * t.as_secs_f64();
    let cap_bytes = 0.02 * line_bytes;
    for mode in [HostNic::Pull, HostNic::Weighted, HostNic::Queue] {
        let cfg = PacketConfig {
            host_nic: mode,
            ..PacketConfig::default()
        };
        assert_eq!(cfg.control.rate, 0.02, "the default cap");
        let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
        let cc = Pinger {
            cwnd: 1000 * 1000,
            every: 0,
            next: 0,
            rtts: Rc::new(RefCell::new(Vec::new())),
        };
        sim.set_congestion_control(FlowId(0), Box::new(cc)).unwrap();
        let shim = ChattyShim {
            every: Time::from_us(1).0,
            next: 0,
        };
        sim.set_host_shim(NodeId(0), Box::new(shim)).unwrap();
        let r = sim.run_until(t).unwrap();
        // Link 2 is host 0's NIC (dumbbell: bottleneck pair first, then access links).
        let nic = r.links.iter().find(|l| l.link == LinkId(2)).unwrap();
        let ctrl = nic.ctrl_tx_bytes as f64;
        let data = (nic.tx_bytes - nic.ctrl_tx_bytes) as f64;
        assert!(nic.ctrl_drops > 0, "{mode:?}: the control FIFO overflowed");
        assert!(
            ctrl <= cap_bytes + 1024.0 && ctrl >= 0.9 * cap_bytes,
            "{mode:?}: {ctrl} control bytes, cap {cap_bytes}"
        );
        assert!(
            data >= 0.95 * line_bytes,
            "{mode:?}: {data} data bytes of {line_bytes} on the line"
        );
    }
}
