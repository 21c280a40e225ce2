use super::*;
use crate::units::Bytes;

fn ack(flow: u32, cum: u64, ece: bool) -> Packet {
    Packet {
        kind: PacketKind::Ack,
        flow: FlowId(flow),
        seq: cum,
        ece,
        ..Packet::default()
    }
}

fn data(flow: u32, seq: u64) -> Packet {
    Packet {
        kind: PacketKind::Data,
        flow: FlowId(flow),
        seq,
        payload: 1000,
        ..Packet::default()
    }
}

/// A shim at host 0 (MSS 1000 B, initial window 10 packets) with flows `(tag, dst, weight)`,
/// tags 0 and 1 in group 0, tag 2 in group 1, each flow with 10 packets sent.
fn shim(flows: &[(u32, u32, f64)]) -> SccShim {
    let cfg = SccConfig {
        tunnel_groups: vec![(0, 0), (1, 0), (2, 1)],
        ..SccConfig::default()
    };
    let mut s = cfg.build(1000, 10_000);
    for (i, &(tag, dst, w)) in flows.iter().enumerate() {
        let mut spec = FlowSpec::new(NodeId(0), NodeId(dst), Bytes(1 << 40), Time::ZERO);
        spec.tag = tag;
        spec.weight = w;
        s.on_flow_start(FlowId(i as u32), &spec, Time::ZERO);
        for k in 0..10 {
            s.on_egress(&mut data(i as u32, k * 1000), Time::ZERO);
        }
    }
    s
}

#[test]
fn a_tunnel_is_a_group_and_a_destination() {
    // Flows 0 (tag 0) and 1 (tag 1) are in group 0 to host 1: one tunnel of weight 1 + 3.
    // Flow 2 (tag 2, group 1) to host 1 and flow 3 (tag 0) to host 2 are tunnels of their own;
    // flow 4 (tag 7, in no group) is alone too.
    let s = shim(&[
        (0, 1, 1.0),
        (1, 1, 3.0),
        (2, 1, 1.0),
        (0, 2, 1.0),
        (7, 1, 1.0),
    ]);
    let t = s.tunnel_of(FlowId(0)).unwrap();
    assert_eq!(t.members, vec![FlowId(0), FlowId(1)]);
    assert_eq!(t.weight, 4.0);
    assert_eq!(t.sent, 20_000, "the tunnel counts both flows' bytes");
    for f in [2, 3, 4] {
        assert_eq!(s.tunnel_of(FlowId(f)).unwrap().members, vec![FlowId(f)]);
    }
}

#[test]
fn the_tunnel_window_is_divided_by_weight() {
    // One tunnel, weights 1 and 3, window 10,000 bytes after slow start's first ACK of
    // nothing new... precisely: an ACK of 1,000 new bytes in slow start grows cwnd_T to
    // 11,000; flow 0's receive window becomes 11,000 · 1/4 = 2,750, flow 1's · 3/4 = 8,250.
    let mut s = shim(&[(0, 1, 1.0), (1, 1, 3.0)]);
    let mut a = ack(0, 1000, false);
    s.on_ingress(&mut a, Time::ZERO);
    assert_eq!(s.tunnel_of(FlowId(0)).unwrap().window.cwnd, 11_000.0);
    assert_eq!(a.window, 2750);
    let mut b = ack(1, 1000, false);
    s.on_ingress(&mut b, Time::ZERO);
    assert_eq!(b.window, 9000);
    assert_eq!(s.tunnel_of(FlowId(0)).unwrap().window.cwnd, 12_000.0);
    // A weight change moves the division at once: flow 1 to weight 1, now half of 12,000.
    s.on_weight(FlowId(1), 1.0);
    let mut b = ack(1, 1000, false);
    s.on_ingress(&mut b, Time::ZERO);
    assert_eq!(b.window, 6000);
}

#[test]
fn one_members_marks_cut_the_whole_tunnel() {
    // §2.4, Fig. 3(c): flows 0 and 1 in one tunnel; only flow 0's ACK echoes CE. With α = 1
    // (its initial value) the tunnel's window halves, 10,000 → 5,000, and flow 1 — whose own
    // feedback is clean — gets its half of the halved window on its next ACK, where a flow on
    // its own congestion control would have grown. The echo never reaches the guest.
    let mut s = shim(&[(0, 1, 1.0), (0, 1, 1.0)]);
    let mut a = ack(0, 1000, true);
    s.on_ingress(&mut a, Time::ZERO);
    assert!(!a.ece);
    let t = s.tunnel_of(FlowId(1)).unwrap();
    assert_eq!((t.window.cwnd, t.window.cuts), (5000.0, 1));
    let mut b = ack(1, 1000, false);
    s.on_ingress(&mut b, Time::ZERO);
    // Congestion avoidance now (ssthresh = 5,000): + W_T·MSS·acked/cwnd_T = 2·1000·1000/5000.
    assert_eq!(s.tunnel_of(FlowId(1)).unwrap().window.cwnd, 5400.0);
    assert_eq!(b.window, 2700);
    // A second echo within the same window of tunnel data does not cut again.
    s.on_ingress(&mut ack(1, 2000, true), Time::ZERO);
    assert_eq!(s.tunnel_of(FlowId(1)).unwrap().window.cuts, 1);
}

#[test]
fn alpha_counts_the_aggregated_feedback() {
    // The tunnel's α window is its first 20,000 bytes (both flows' 10 packets). Flow 0's 10
    // ACKs echo CE, flow 1's do not: when the tunnel's cumulative count reaches 20,000, F =
    // 10,000 / 20,000 = 1/2 and α = (1 − g)·1 + g·1/2 = 1 − 1/32 with g = 1/16.
    let mut s = shim(&[(0, 1, 1.0), (0, 1, 1.0)]);
    for k in 1..=10 {
        s.on_ingress(&mut ack(0, k * 1000, true), Time::ZERO);
        s.on_ingress(&mut ack(1, k * 1000, false), Time::ZERO);
    }
    let t = s.tunnel_of(FlowId(0)).unwrap();
    assert_eq!(t.acked, 20_000);
    assert!((t.alpha - (1.0 - 1.0 / 32.0)).abs() < 1e-12, "{}", t.alpha);
}

#[test]
fn a_finished_flow_leaves_its_tunnel() {
    // Flow 0 of 2,000 bytes and flow 1 share a tunnel (weights 1 and 1); once flow 0's last
    // byte is acknowledged, W_T = 1 and flow 1 may use the whole window.
    let cfg = SccConfig::default();
    let mut s = cfg.build(1000, 10_000);
    let mut short = FlowSpec::new(NodeId(0), NodeId(1), Bytes(2000), Time::ZERO);
    short.tag = 3;
    let mut long = short.clone();
    long.size = Bytes(1 << 30);
    s.on_flow_start(FlowId(0), &short, Time::ZERO);
    s.on_flow_start(FlowId(1), &long, Time::ZERO);
    for k in 0..2 {
        s.on_egress(&mut data(0, k * 1000), Time::ZERO);
        s.on_egress(&mut data(1, k * 1000), Time::ZERO);
    }
    assert_eq!(s.tunnel_of(FlowId(1)).unwrap().weight, 2.0);
    s.on_ingress(&mut ack(0, 2000, false), Time::ZERO);
    let t = s.tunnel_of(FlowId(1)).unwrap();
    assert_eq!((t.weight, t.members.clone()), (1.0, vec![FlowId(1)]));
    let mut b = ack(1, 1000, false);
    s.on_ingress(&mut b, Time::ZERO);
    assert_eq!(
        b.window, 13_000,
        "slow start: 10,000 + 2,000 + 1,000, all of it flow 1's"
    );
}

#[test]
fn a_bad_gain_is_a_one_line_error() {
    let e = SccConfig {
        g: 0.0,
        ..SccConfig::default()
    }
    .validate("packet config.scc")
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "packet config.scc.g: must be in (0, 1), got 0"
    );
}

/// A packet run of two DCTCP guests under SCC's shim on a dumbbell (hosts 0, 1 → 2, 3; 10 Gb/s
/// access links, a 1 Gb/s bottleneck, 25 µs a link: a 150 µs round trip, as Fig. 3(b)'s
/// packet run; DCTCP's marking at K = 20 packets): flows `(src, dst, tag, weight)`, each tag
/// its own tunnel group. Returns each flow's wire throughput over [50, 250] ms and the
/// oracle's weighted max-min rates (the same weights, wire capacities).
fn scc_packet_run(flows: &[(u32, u32, u32, f64)]) -> (Vec<f64>, Vec<f64>) {
    use crate::registry::{HostShimKind, PacketConfig, PacketSim, QdiscConfig, TransportKind};
    use crate::schemes::fifo::EcnThreshold;
    use crate::test_support::{oracle_rates, wire_throughput};
    use crate::topo::{dumbbell, LinkSpec};
    use crate::units::Rate;
    let delay = Time::from_us(25);
    let access = LinkSpec::new(Rate::gbps(10), delay, Bytes(1 << 20));
    let bottleneck = LinkSpec::new(Rate::gbps(1), delay, Bytes(1 << 20));
    let topo = dumbbell(2, access, bottleneck).unwrap();
    let specs: Vec<FlowSpec> = flows
        .iter()
        .map(|&(src, dst, tag, w)| {
            let mut f = FlowSpec::new(NodeId(src), NodeId(dst), Bytes(1 << 40), Time::ZERO);
            f.tag = tag;
            f.weight = w;
            f
        })
        .collect();
    let cfg = PacketConfig {
        transport: TransportKind::Dctcp,
        host_shim: HostShimKind::Scc,
        qdisc: QdiscConfig::Ecn {
            k: EcnThreshold::Packets(20),
        },
        ..PacketConfig::default()
    };
    let (mtu, header) = (cfg.mtu, cfg.header);
    let mut sim = PacketSim::from_config(&topo, &specs, cfg).unwrap();
    let a = sim.run_until(Time::from_ms(50)).unwrap();
    let b = sim.run_until(Time::from_ms(250)).unwrap();
    (
        wire_throughput(&a, &b, mtu, header),
        oracle_rates(&topo, &specs),
    )
}

#[test]
fn weights_below_1_share_the_bottleneck_as_the_oracle_says_across_and_inside_tunnels() {
    // Weights 0.25 and 0.75 (below 1: WVCC's law adds w·MSS·acked/cwnd_T, a quarter or three
    // quarters of a packet per window, and the cut does not depend on w). The oracle gives
    // 0.25 and 0.75 Gb/s on the 1 Gb/s bottleneck.
    // - Two tunnels (hosts 0 → 2 and 1 → 3): each tunnel's weighted increase against the
    //   same marks settles at rates in the ratio of the weights (Uranus §4.3, Eq. 7: the
    //   weighted DCTCP's equilibrium), as Fig. 3(b)'s tunnel weights 0.1 and 0.9 do.
    // - One tunnel (both flows 0 → 2, one tag): the tunnel's window is split by weight,
    //   cwnd_T·w_f/W_T with W_T = 1, so the two keep 1/4 and 3/4 of it in flight over the same
    //   round trip: rates 1 : 3 whatever the window.
    // Each flow within 15% of its oracle rate, the tolerance of Fig. 3(b)'s SCC packet test
    // (`scc_tests.rs`): DCTCP's sawtooth over a 200 ms window, and the window's split in
    // whole packets (the lighter flow's quarter of a ~38-packet window, BDP 18 + K 20, is
    // ~9.5 packets: one packet is ~10% of it).
    for (case, flows) in [
        ("two tunnels", [(0, 2, 0, 0.25), (1, 3, 1, 0.75)]),
        ("one tunnel", [(0, 2, 0, 0.25), (0, 2, 0, 0.75)]),
    ] {
        let (rates, oracle) = scc_packet_run(&flows);
        assert!(
            (oracle[0] - 0.25e9).abs() < 1.0 && (oracle[1] - 0.75e9).abs() < 1.0,
            "{case}: {oracle:?}"
        );
        for i in 0..2 {
            let rel = (rates[i] - oracle[i]).abs() / oracle[i];
            assert!(rel < 0.15, "{case}: flow {i}: {rates:?} vs {oracle:?}");
        }
    }
}
