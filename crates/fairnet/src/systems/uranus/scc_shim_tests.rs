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
    assert_eq!(s.tunnel_of(FlowId(0)).unwrap().cwnd, 11_000.0);
    assert_eq!(a.window, 2750);
    let mut b = ack(1, 1000, false);
    s.on_ingress(&mut b, Time::ZERO);
    assert_eq!(b.window, 9000);
    assert_eq!(s.tunnel_of(FlowId(0)).unwrap().cwnd, 12_000.0);
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
    assert_eq!((t.cwnd, t.cuts), (5000.0, 1));
    let mut b = ack(1, 1000, false);
    s.on_ingress(&mut b, Time::ZERO);
    // Congestion avoidance now (ssthresh = 5,000): + W_T·MSS·acked/cwnd_T = 2·1000·1000/5000.
    assert_eq!(s.tunnel_of(FlowId(1)).unwrap().cwnd, 5400.0);
    assert_eq!(b.window, 2700);
    // A second echo within the same window of tunnel data does not cut again.
    s.on_ingress(&mut ack(1, 2000, true), Time::ZERO);
    assert_eq!(s.tunnel_of(FlowId(1)).unwrap().cuts, 1);
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
