//! Uranus's slices on the packet engine: Fig. 3(b) measured against the exact flow-level
//! rates, Algorithm 2's weights reaching WVCC, bad input.

use super::*;
use crate::registry::{HostShimKind, PacketConfig, PacketSim, QdiscConfig};
use crate::schemes::fifo::EcnThreshold;
use crate::systems::uranus::fig3::{fig3b, fig3b_packet, BOTTLENECK};
use crate::systems::uranus::slices::{Objective, SliceSpec};
use crate::topo::{explicit_path, LinkSpec};
use crate::units::{Bytes, Rate};

/// Racks X and Y joined by a 1 Gb/s link, hosts 0, 1 in X and 2, 3 in Y on 10 Gb/s links,
/// 25 µs per link; flows 0→2 of `small` bytes and 1→3 of `large`, both tagged 0.
fn two_racks(small: u64, large: u64) -> (Topology, Vec<FlowSpec>, Vec<Vec<LinkId>>) {
    let mut t = Topology::new();
    let hosts: Vec<_> = (0..4).map(|i| t.add_host(format!("h{i}"))).collect();
    let (x, y) = (t.add_switch("X"), t.add_switch("Y"));
    let link = |gbps| LinkSpec::new(Rate::gbps(gbps), Time::from_us(25), Bytes(1_000_000));
    for (i, &h) in hosts.iter().enumerate() {
        t.add_duplex(h, if i < 2 { x } else { y }, link(10))
            .unwrap();
    }
    t.add_duplex(x, y, link(1)).unwrap();
    let flows = vec![
        FlowSpec::new(hosts[0], hosts[2], Bytes(small), Time::ZERO),
        FlowSpec::new(hosts[1], hosts[3], Bytes(large), Time::ZERO),
    ];
    let paths = vec![
        explicit_path(&t, &[hosts[0], x, y, hosts[2]]).unwrap(),
        explicit_path(&t, &[hosts[1], x, y, hosts[3]]).unwrap(),
    ];
    (t, flows, paths)
}

fn wvcc() -> PacketConfig {
    PacketConfig {
        host_shim: HostShimKind::Wvcc,
        qdisc: QdiscConfig::Ecn {
            k: EcnThreshold::Packets(20),
        },
        ..PacketConfig::default()
    }
}

fn cs(weight: f64) -> SliceSet {
    SliceSet::new(vec![SliceSpec {
        name: "cs".into(),
        objective: Objective::Cs,
        weight,
        tags: vec![0],
    }])
    .unwrap()
}

/// Algorithm 2 reaching WVCC. One CS slice, one rack-flow X→Y holding a 1 MB and a 4 MB flow
/// on a 1 Gb/s link. After the first slot the weights are ∝ 1/S (≈ 0.8 : 0.2) and line 5
/// compounds them every 1 ms slot (0.94, 0.98, …), so the small flow soon has nearly the whole
/// link: it ends near 1 MB at line rate (8.4 ms of wire time) plus its first slot at about
/// half rate. With equal weights (no slices) it shares the link until it ends, at about
/// 2 × 8.4 ms. Asserted: with Uranus it ends before 12 ms and before three quarters of its
/// end without; the large flow, on a work-conserving link, ends at about the same time in both
/// (within 10%).
#[test]
fn completion_sensitive_weights_reach_wvcc_and_finish_the_small_flow_first() {
    let (topo, flows, paths) = two_racks(1_000_000, 4_000_000);
    let cfg = wvcc();
    let mut plain = PacketSim::from_config(&topo, &flows, cfg.clone()).unwrap();
    let base = plain.run_to_completion(Time::from_ms(200)).unwrap();
    let mut sim = PacketSim::from_config(&topo, &flows, cfg.clone()).unwrap();
    let mut driver = PacketSlices::new(
        &topo,
        &flows,
        &[None, None],
        &paths,
        cs(1.0),
        Time::from_ms(1),
        cfg.mtu.0,
        cfg.header.0,
    )
    .unwrap();
    let r = driver
        .run(&mut sim, Time::from_ms(200), &Progress::default())
        .unwrap();
    assert!(r.complete && base.complete);
    let ms = |t: Option<Time>| t.unwrap().as_secs_f64() * 1e3;
    let (small, small_plain) = (ms(r.flows[0].end), ms(base.flows[0].end));
    assert!(
        small < 12.0 && small < 0.75 * small_plain,
        "small flow: {small:.2} ms with Uranus, {small_plain:.2} ms without"
    );
    let (large, large_plain) = (ms(r.flows[1].end), ms(base.flows[1].end));
    assert!(
        (large / large_plain - 1.0).abs() < 0.1,
        "{large:.2} vs {large_plain:.2} ms"
    );
    assert!(driver.report().max_sum_error < 1e-12);
}

/// Bad input is refused before anything runs, naming the flow or the slot.
#[test]
fn bad_packet_slice_input_names_the_flow() {
    let (topo, mut flows, paths) = two_racks(1_000, 1_000);
    flows[1].tag = 7;
    let cfg = wvcc();
    let new = |flows: &[FlowSpec], slot| {
        PacketSlices::new(
            &topo,
            flows,
            &[None, None],
            &paths,
            cs(1.0),
            slot,
            cfg.mtu.0,
            cfg.header.0,
        )
        .err()
        .map(|e| e.to_string())
    };
    assert_eq!(
        new(&flows, Time::from_ms(1)).unwrap(),
        "flow 1: tag 7 is in no slice: every flow must belong to one slice"
    );
    flows[1].tag = 0;
    assert!(new(&flows, Time::ZERO)
        .unwrap()
        .contains("decision slot must be positive"));
}

/// Fig. 3(b) at packet level. Uranus's scheduler gives A₁ 0.1, A₂ 0.9, B₁ = B₂ = 0.5 (exact at
/// flow level), whose weighted max-min rates are A₁ = 1/6 and A₂ = 9/14 of their bottlenecks,
/// A₁ : A₂ = 7 : 27, A : B = 17 : 25 (the paper's numbers for SCC; Uranus gives the same here,
/// see docs/systems/uranus.md). WVCC's own tests hold flows within 10% of their oracle rates
/// for weight ratios up to 3; here the ratios are 5 (B₁ : A₁) and 1.8, and the light flows
/// fall short: measured (deterministic, default seed) A₁ −12.3%, B₂ −12.5%, A₂ +7.0%, B₁
/// +2.5%, A₁ : A₂ 0.213 (−18%), A : B 0.714 (+5%). Asserted, as measured margins: every flow
/// within 15% of its target, both ratios within 20% of 7/27 and 17/25, the light flow of each
/// bottleneck below the heavy one, and the per-slot Jain index against the target above 0.9
/// (0.979). Every slot keeps each slice's weights summing to 1.
#[test]
fn fig3b_at_packet_level_lands_near_the_exact_ratios() {
    let exact = fig3b().unwrap();
    let uranus = exact.iter().find(|c| c.scheme == "uranus").unwrap();
    let r = fig3b_packet(Time::from_ms(1), Time::from_ms(50), Time::from_ms(250)).unwrap();
    // The weights drift by the bytes delivered (a few MB of 10¹¹): within 10⁻³.
    for i in 0..4 {
        assert!(
            (r.weights[i] - uranus.weights[i]).abs() < 1e-3,
            "weights {:?} vs {:?}",
            r.weights,
            uranus.weights
        );
        let rel = (r.rates[i] - r.target[i]).abs() / r.target[i];
        assert!(
            rel < 0.15,
            "flow {i}: {:.4} Gb/s vs target {:.4}",
            r.rates[i] / 1e9,
            r.target[i] / 1e9
        );
    }
    // The target is the flow-level allocation in payload bits: A₁ = 1/6 of L₁'s goodput (up
    // to the weights' drift).
    let goodput = BOTTLENECK.bps() * 1000.0 / 1048.0;
    assert!((r.target[0] / goodput - 1.0 / 6.0).abs() < 1e-3);
    assert!(
        (r.a1_to_a2() / (7.0 / 27.0) - 1.0).abs() < 0.2,
        "{}",
        r.a1_to_a2()
    );
    assert!(
        (r.a_to_b() / (17.0 / 25.0) - 1.0).abs() < 0.2,
        "{}",
        r.a_to_b()
    );
    assert!(r.rates[0] < r.rates[2] && r.rates[3] < r.rates[1]);
    assert!(r.report.slots == 250 && r.report.max_sum_error < 1e-12);
    assert!(r.report.measured_slots == 249);
    assert!(r.report.target_jain_mean.unwrap() > 0.9);
}
