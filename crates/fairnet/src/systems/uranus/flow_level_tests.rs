//! Uranus's slices on the flow engine: a hand-worked run, Eq. (3) over a random workload, bad
//! input.

use super::*;
use crate::systems::uranus::slices::Objective;
use crate::test_support::uniform_fat_tree;
use crate::topo::LinkSpec;
use crate::units::{Bytes, Rate};
use crate::workload::FlowSpec;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn slice(name: &str, objective: Objective, weight: f64, tags: &[u32]) -> SliceSpec {
    SliceSpec {
        name: name.into(),
        objective,
        weight,
        tags: tags.to_vec(),
    }
}

/// Two racks X and Y joined by one 10 Gb/s link (hosts 0, 1 in X; 2, 3 in Y; host links
/// 100 Gb/s, 1 µs each). Slice A (CS, W_S = 1) has one 10 MB flow 0→2, slice B (CS, W_S = 3)
/// one 10 MB flow 1→3. Each slice has one rack-flow X→Y holding its one flow, so Eqs. (5),
/// (2) and Algorithm 2 give each flow its slice's weight: 2.5 and 7.5 Gb/s. B ends after
/// 10 MB·8/7.5 Gb/s = 10.667 ms; A has sent 3.333 MB and ends its 6.667 MB alone at 10 Gb/s
/// 5.333 ms later: 16 ms (each + 3 µs of propagation). Slots every 1 ms.
#[test]
fn two_slices_split_a_rack_link_by_their_weights() {
    let mut t = Topology::new();
    let hosts: Vec<_> = (0..4).map(|i| t.add_host(format!("h{i}"))).collect();
    let (x, y) = (t.add_switch("X"), t.add_switch("Y"));
    let fast = LinkSpec::new(Rate::gbps(100), Time::from_us(1), Bytes(1_000_000));
    for (i, &h) in hosts.iter().enumerate() {
        t.add_duplex(h, if i < 2 { x } else { y }, fast).unwrap();
    }
    t.add_duplex(
        x,
        y,
        LinkSpec::new(Rate::gbps(10), Time::from_us(1), Bytes(1_000_000)),
    )
    .unwrap();
    let flow = |src: usize, dst: usize, tag| {
        let mut s = FlowSpec::new(hosts[src], hosts[dst], Bytes(10_000_000), Time::ZERO);
        s.tag = tag;
        FluidFlow::new(s)
    };
    let flows = vec![flow(0, 2, 0), flow(1, 3, 1)];
    let r = run_slices(
        &t,
        &flows,
        &[None, None],
        vec![
            slice("A", Objective::Cs, 1.0, &[0]),
            slice("B", Objective::Cs, 3.0, &[1]),
        ],
        Time::from_ms(1),
        &FlowSimConfig::default(),
    )
    .unwrap();
    let end = |i: usize| r.sim.flows[i].end.unwrap().as_secs_f64() * 1e3 - 0.003;
    assert!(
        (end(1) - 80.0 / 7.5).abs() < 1e-6,
        "B ends at {} ms",
        end(1)
    );
    assert!((end(0) - 16.0).abs() < 1e-6, "A ends at {} ms", end(0));
    assert!(r.slots >= 16 && r.max_sum_error < 1e-12);
}

/// Eq. (3) on the flow engine: a DS slice (W_S = 2) and a CS slice (W_S = 0.5) on a k = 4
/// fat-tree, 300 flows of 10 kB–2 MB between random hosts (intra-rack included) arriving over
/// 20 ms, deadlines 1–40 ms after their start (seed 11), slots every 0.5 ms. Every flow
/// finishes, and after every slot each slice's weights sum to its W_S to rounding.
#[test]
fn every_slice_sums_to_its_weight_on_the_flow_engine() {
    let link = LinkSpec::new(Rate::gbps(10), Time::from_us(1), Bytes(1_000_000));
    let topo = uniform_fat_tree(4, link);
    let hosts = topo.hosts().to_vec();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut flows = Vec::new();
    let mut deadlines = Vec::new();
    while flows.len() < 300 {
        let (a, b) = (rng.gen_range(0..hosts.len()), rng.gen_range(0..hosts.len()));
        if a == b {
            continue;
        }
        let start = Time::from_us(rng.gen_range(0..20_000));
        let mut s = FlowSpec::new(
            hosts[a],
            hosts[b],
            Bytes(rng.gen_range(10_000..2_000_000)),
            start,
        );
        s.tag = rng.gen_range(0..2);
        deadlines.push(Some(start + Time::from_us(rng.gen_range(1_000..40_000))));
        flows.push(FluidFlow::new(s));
    }
    let r = run_slices(
        &topo,
        &flows,
        &deadlines,
        vec![
            slice("ds", Objective::Ds, 2.0, &[0]),
            slice("cs", Objective::Cs, 0.5, &[1]),
        ],
        Time::from_us(500),
        &FlowSimConfig::default(),
    )
    .unwrap();
    assert!(r.sim.complete);
    assert!(r.slots > 40, "{} slots", r.slots);
    assert!(r.max_sum_error < 1e-9, "{}", r.max_sum_error);
}

/// Bad input is refused before the run, naming the flow or field.
#[test]
fn bad_input_is_refused_before_the_run() {
    let link = LinkSpec::new(Rate::gbps(10), Time::from_us(1), Bytes(1_000_000));
    let topo = uniform_fat_tree(4, link);
    let h = topo.hosts();
    let mut s = FlowSpec::new(h[0], h[5], Bytes(1000), Time::ZERO);
    s.tag = 9;
    let flows = vec![FluidFlow::new(s)];
    let cs = || vec![slice("cs", Objective::Cs, 1.0, &[0])];
    let cfg = FlowSimConfig::default();
    let e = run_slices(&topo, &flows, &[None], cs(), Time::from_ms(1), &cfg)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "flow 0: tag 9 is in no slice: every flow must belong to one slice"
    );
    let ds = vec![slice("web", Objective::Ds, 1.0, &[9])];
    let e = run_slices(&topo, &flows, &[None], ds, Time::from_ms(1), &cfg)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "flow 0: in deadline-sensitive slice \"web\" but has no deadline"
    );
    let e = run_slices(&topo, &flows, &[None], cs(), Time::ZERO, &cfg)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "slot: the decision slot must be positive");
}
