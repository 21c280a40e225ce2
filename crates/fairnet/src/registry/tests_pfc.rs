//! Lossless switches with PFC (`lossless = true`, [`crate::engine::packet::PfcConfig`]):
//! incast without drops, pause propagation and head-of-line blocking, deadlock detection, and
//! the configuration errors.

use super::{PacketConfig, PacketSim};
use crate::engine::packet::records::PacketResults;
use crate::ids::{LinkId, NodeId};
use crate::topo::{star, LinkSpec, Topology};
use crate::units::{Bytes, Rate, Time};
use crate::workload::FlowSpec;

/// UDP at line rate over a 1 MB shared switch memory (link buffers as large); `lossless`
/// adds PFC with the default (dynamic) thresholds.
fn udp_config(lossless: bool) -> PacketConfig {
    udp_config_with(lossless, "")
}

/// [`udp_config`] with more shared-buffer fields (`alpha = 1`: the lossy memory's dynamic
/// threshold, so one congested port cannot take all of it).
fn udp_config_with(lossless: bool, shared: &str) -> PacketConfig {
    let mut text = format!("transport = \"udp\"\nshared_buffer = {{ size = \"1MB\"{shared} }}\n");
    if lossless {
        text.push_str("lossless = true\n");
    }
    PacketConfig::from_toml_str(&text).unwrap()
}

const LINK: LinkSpec = LinkSpec::new(Rate::gbps(100), Time::from_us(1), Bytes(1_000_000));

fn drops(r: &PacketResults) -> u64 {
    r.links.iter().map(|l| l.drops).sum()
}

#[test]
fn incast_that_drops_without_pfc_drops_nothing_with_it() {
    // Seven hosts of a 100 Gb/s star send 500 KB each at line rate to the eighth: 700 Gb/s
    // into one 100 Gb/s port, 3.5 MB against 1 MB of switch memory. Without PFC the memory
    // overflows and packets are dropped (UDP does not retransmit: flows end incomplete).
    // With PFC the switch pauses the senders' links before its memory is full (each ingress'
    // headroom, 3 × 100 Gb/s × 1 µs = 37.5 KB, absorbs what is in flight), so nothing is
    // dropped, every byte arrives, and the receiver's link is the only limit: the last byte
    // arrives no earlier than 3.5 MB at 100 Gb/s (280 µs) after the start.
    let topo = star(8, LINK).unwrap();
    let flows: Vec<FlowSpec> = (0..7)
        .map(|i| FlowSpec::new(NodeId(i), NodeId(7), Bytes(500_000), Time::ZERO))
        .collect();
    let lossy = PacketSim::from_config(&topo, &flows, udp_config(false))
        .unwrap()
        .run_to_completion(Time::from_ms(5))
        .unwrap();
    assert!(drops(&lossy) > 0, "the lossy incast drops");
    assert!(!lossy.complete);
    let lossless = PacketSim::from_config(&topo, &flows, udp_config(true))
        .unwrap()
        .run_to_completion(Time::from_ms(5))
        .unwrap();
    assert_eq!(drops(&lossless), 0, "no drop with PFC");
    assert!(lossless.complete, "every byte arrives");
    let sent: u64 = lossless.links.iter().map(|l| l.pfc_pauses_sent).sum();
    let received: u64 = lossless.links.iter().map(|l| l.pfc_pauses_received).sum();
    assert!(
        sent > 0 && sent == received,
        "pauses sent {sent}, received {received}"
    );
    // Only the senders' links into the switch (link 2i, i < 7) are paused.
    for (i, l) in lossless.links.iter().enumerate() {
        let sender_uplink = i % 2 == 0 && i < 14;
        assert_eq!(l.pfc_pauses_received > 0, sender_uplink, "link {i}");
    }
    let end = lossless.flows.iter().filter_map(|f| f.end).max().unwrap();
    assert!(end >= Time::from_us(280), "{end}");
    println!(
        "incast: lossy drops {}, lossless pauses {sent}, last byte at {end}",
        drops(&lossy)
    );
}

/// Two switches joined by 400 Gb/s links; on `s0` hosts a0, a1 and the victim v; on `s1` the
/// incast receiver r, the victim's receiver w and senders b0, b1. Returns the topology and
/// the nodes (a0, a1, v, r, w, b0, b1) and the link s0 → s1.
fn two_switches() -> (Topology, [NodeId; 7], LinkId) {
    let mut t = Topology::new();
    let s0 = t.add_switch("s0");
    let s1 = t.add_switch("s1");
    let trunk = LinkSpec::new(Rate::gbps(400), Time::from_us(1), Bytes(1_000_000));
    let (s01, _) = t.add_duplex(s0, s1, trunk).unwrap();
    let mut host = |name: &str, sw| {
        let h = t.add_host(name);
        t.add_duplex(h, sw, LINK).unwrap();
        h
    };
    let nodes = [
        host("a0", s0),
        host("a1", s0),
        host("v", s0),
        host("r", s1),
        host("w", s1),
        host("b0", s1),
        host("b1", s1),
    ];
    (t, nodes, s01)
}

#[test]
fn pauses_propagate_hop_by_hop_and_slow_a_victim_sharing_no_bottleneck() {
    // a0, a1 (behind s0) and b0, b1 (on s1) send to r at line rate: r's 100 Gb/s link is the
    // bottleneck. The victim v → w crosses s0 → s1 with a0 and a1: 300 Gb/s on a 400 Gb/s
    // trunk, and w's link carries v alone, so v shares no bottleneck and, without PFC, keeps
    // its line rate (the lossy memory has Choudhury & Hahne's dynamic threshold, α = 1, so
    // r's queue cannot take all of it: with first-come sharing w's packets would be dropped
    // instead). With PFC (the MMU's admission in its place), s1 pauses the trunk (its ingress from s0 holds the packets
    // waiting for r); s0's queue to s1 then grows and s0 pauses its own senders — a0, a1 and
    // v alike (head-of-line blocking): v's throughput over 1–3 ms falls well below its line
    // rate (measured: see the printout; asserted: below 70 Gb/s), and the first pause of the
    // trunk comes before the first pause of v's link (hop by hop).
    let (topo, [a0, a1, v, r, w, b0, b1], trunk) = two_switches();
    let big = Bytes(1 << 40);
    let flows: Vec<FlowSpec> = [(a0, r), (a1, r), (b0, r), (b1, r), (v, w)]
        .iter()
        .map(|&(s, d)| FlowSpec::new(s, d, big, Time::ZERO))
        .collect();
    let victim_rate = |lossless: bool| -> (f64, PacketResults) {
        let cfg = udp_config_with(lossless, ", alpha = 1.0");
        let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
        let a = sim.run_until(Time::from_ms(1)).unwrap();
        let b = sim.run_until(Time::from_ms(3)).unwrap();
        let bytes = b.flows[4].delivered - a.flows[4].delivered;
        (bytes as f64 * 8.0 / 2e-3, b)
    };
    let (lossy, _) = victim_rate(false);
    let (paused, r) = victim_rate(true);
    println!(
        "victim v -> w over 1-3 ms: {:.1} Gb/s without PFC, {:.1} Gb/s with PFC",
        lossy / 1e9,
        paused / 1e9
    );
    // Line rate in payload: 100 Gb/s × 1000 / 1048 (48-byte headers) = 95.42 Gb/s.
    let line = 100e9 * 1000.0 / 1048.0;
    assert!(
        lossy > 0.99 * line,
        "without PFC the victim keeps its line rate: {lossy}"
    );
    assert!(paused < 70e9, "with PFC the victim is blocked: {paused}");
    assert_eq!(drops(&r), 0);
    let v_up = topo.out_links(v)[0];
    let first = |l: LinkId| {
        r.pfc_frames
            .iter()
            .find(|f| f.link == l && f.pause)
            .map(|f| f.time)
    };
    let (t_trunk, t_v) = (first(trunk).unwrap(), first(v_up).unwrap());
    assert!(
        t_trunk < t_v,
        "trunk paused at {t_trunk}, the victim's link at {t_v}"
    );
    assert!(r.links[v_up.idx()].pfc_paused_time > Time::ZERO);
}

#[test]
fn a_cyclic_buffer_dependency_is_reported_as_a_deadlock_naming_the_ports() {
    // Five switches in a ring, one host each; host i sends to host i + 2 at line rate over
    // the unique shortest path s_i → s_{i+1} → s_{i+2}. Every ring link carries two flows
    // (200 Gb/s into 100 Gb/s), so every switch pauses the ring link into it, whose packets
    // wait at the paused ring link out of it: a cycle of paused ports that can never resume.
    // Expected: the run stops with an error naming the ring links, well before its 50 ms
    // horizon (never a hang).
    let mut t = Topology::new();
    let sw: Vec<NodeId> = (0..5).map(|i| t.add_switch(format!("s{i}"))).collect();
    let hosts: Vec<NodeId> = (0..5)
        .map(|i| {
            let h = t.add_host(format!("h{i}"));
            t.add_duplex(h, sw[i], LINK).unwrap();
            h
        })
        .collect();
    let ring: Vec<LinkId> = (0..5)
        .map(|i| t.add_duplex(sw[i], sw[(i + 1) % 5], LINK).unwrap().0)
        .collect();
    let flows: Vec<FlowSpec> = (0..5)
        .map(|i| FlowSpec::new(hosts[i], hosts[(i + 2) % 5], Bytes(1 << 40), Time::ZERO))
        .collect();
    let mut sim = PacketSim::from_config(&t, &flows, udp_config(true)).unwrap();
    let e = sim
        .run_to_completion(Time::from_ms(50))
        .unwrap_err()
        .to_string();
    println!("{e}");
    assert!(e.contains("PFC deadlock"), "{e}");
    assert!(!e.contains('\n'));
    for l in &ring {
        assert!(e.contains(&format!("{l} (")), "{l} named: {e}");
    }
    assert!(sim.now() < Time::from_ms(50));
}

#[test]
fn bad_lossless_input_is_a_one_line_error_naming_the_field() {
    // Each mistake names its field: lossless without a switch memory, a static threshold
    // above the memory, xon above xoff, a scheme that needs drops, spraying.
    let cases = [
        ("lossless = true", "packet config.lossless"),
        (
            "lossless = true\nshared_buffer = { size = \"1MB\" }\npfc = { xoff = \"2MB\" }",
            "packet config.pfc.xoff",
        ),
        (
            "lossless = true\nshared_buffer = { size = \"1MB\" }\npfc = { xoff = \"100KB\", xon = \"200KB\" }",
            "packet config.pfc.xon",
        ),
        (
            "lossless = true\nshared_buffer = { size = \"1MB\" }\nqdisc = { kind = \"pfabric\" }\ntransport = \"pfabric\"",
            "packet config.lossless",
        ),
        (
            "lossless = true\nshared_buffer = { size = \"1MB\" }\nrouting = \"spray\"",
            "packet config.lossless",
        ),
    ];
    for (text, field) in cases {
        let e = PacketConfig::from_toml_str(text).unwrap_err().to_string();
        assert!(e.starts_with(field), "{text}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    // A switch link smaller than the switch memory would drop before the MMU decides.
    let small = star(
        2,
        LinkSpec::new(Rate::gbps(100), Time::from_us(1), Bytes(100_000)),
    )
    .unwrap();
    let flows = [FlowSpec::new(NodeId(0), NodeId(1), Bytes(1000), Time::ZERO)];
    let e = PacketSim::from_config(&small, &flows, udp_config(true))
        .err()
        .unwrap()
        .to_string();
    assert!(e.starts_with("link 1: buffer"), "{e}");
}
