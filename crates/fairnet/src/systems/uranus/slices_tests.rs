//! The slice scheduler on hand-worked examples (each states the arithmetic before asserting
//! it), the Eq. (3) invariant over many random slots, and bad input.

use super::*;
use crate::test_support::uniform_fat_tree;
use crate::topo::LinkSpec;
use crate::units::{Bytes, Rate};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const X: NodeId = NodeId(100);
const Y: NodeId = NodeId(101);
const Z: NodeId = NodeId(102);
const MB: f64 = 1e6;

fn slice(name: &str, objective: Objective, weight: f64, tags: &[u32]) -> SliceSpec {
    SliceSpec {
        name: name.into(),
        objective,
        weight,
        tags: tags.to_vec(),
    }
}

fn cs_flow(flow: u32, tag: u32, src: NodeId, dst: NodeId, remaining: f64) -> FlowState {
    FlowState {
        flow,
        tag,
        src: NodeId(0),
        dst: NodeId(1),
        src_rack: src,
        dst_rack: dst,
        remaining,
        deadline: None,
        throughput: None,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

fn weights(d: &SlotDecision) -> Vec<f64> {
    d.flow_weights.iter().map(|&(_, w)| w).collect()
}

fn assert_all_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(close(*g, *w), "got {got:?}, want {want:?}");
    }
}

/// PS-N on three racks (Eqs. 2, 3, 5). A CS slice with `W_S = 2` has four flows of equal size
/// (so equal `r`): f0, f1 X→Y, f2 Z→Y, f3 X→Z. Flow ends per rack: X 3 (f0, f1, f3), Y 3
/// (f0, f1, f2), Z 2 (f2, f3), of 8, so Eq. (5) gives Wr_X = Wr_Y = 2·3/8 = 0.75 and
/// Wr_Z = 2·2/8 = 0.5. Every rack is in two rack-flows (Nr = 2), so Eq. (2) gives
/// Wr_{X→Y} = 0.375 + 0.375 = 0.75, Wr_{Z→Y} = 0.25 + 0.375 = 0.625 and
/// Wr_{X→Z} = 0.375 + 0.25 = 0.625, summing to W_S = 2 (Eq. 3). f0 and f1 split X→Y equally
/// (0.375 each); f2 and f3 are alone in theirs.
#[test]
fn ps_n_on_three_racks() {
    let set = SliceSet::new(vec![slice("cs", Objective::Cs, 2.0, &[7])]).unwrap();
    let flows = [
        cs_flow(0, 7, X, Y, MB),
        cs_flow(1, 7, X, Y, MB),
        cs_flow(2, 7, Z, Y, MB),
        cs_flow(3, 7, X, Z, MB),
    ];
    let d = Scheduler::new(set).decide(Time::ZERO, &flows).unwrap();
    let rack: BTreeMap<NodeId, f64> = d.rack_weights.iter().map(|&(_, r, w)| (r, w)).collect();
    assert_all_close(&[rack[&X], rack[&Y], rack[&Z]], &[0.75, 0.75, 0.5]);
    let rf: BTreeMap<(NodeId, NodeId), f64> = d
        .rack_flow_weights
        .iter()
        .map(|&(_, x, y, w)| ((x, y), w))
        .collect();
    assert_all_close(
        &[rf[&(X, Y)], rf[&(Z, Y)], rf[&(X, Z)]],
        &[0.75, 0.625, 0.625],
    );
    assert_all_close(&weights(&d), &[0.375, 0.375, 0.625, 0.625]);
}

/// Algorithm 2 over two slots on one rack-flow X→Y of a CS slice with W_S = 1. Each rack has
/// one rack-flow, so Eq. (2) gives the rack-flow all of W_S. Slot 1: remaining 1 MB and 3 MB,
/// r ∝ 1 and 1/3, both new (W_prev equal), so W = 3/4 and 1/4 (shortest first). Slot 2:
/// remaining 0.5 MB and 2.5 MB, r ∝ 2 and 0.4, W* = 2·3/4 = 1.5 and 0.4·1/4 = 0.1, so
/// W = 1.5/1.6 = 0.9375 and 0.1/1.6 = 0.0625: the weights compound (line 5 scales the
/// previous weight).
#[test]
fn algorithm_2_compounds_shortest_first() {
    let set = SliceSet::new(vec![slice("cs", Objective::Cs, 1.0, &[0])]).unwrap();
    let mut s = Scheduler::new(set);
    let d1 = s
        .decide(
            Time::ZERO,
            &[cs_flow(0, 0, X, Y, MB), cs_flow(1, 0, X, Y, 3.0 * MB)],
        )
        .unwrap();
    assert_all_close(&weights(&d1), &[0.75, 0.25]);
    let d2 = s
        .decide(
            Time::from_ms(1),
            &[cs_flow(0, 0, X, Y, 0.5 * MB), cs_flow(1, 0, X, Y, 2.5 * MB)],
        )
        .unwrap();
    assert_all_close(&weights(&d2), &[0.9375, 0.0625]);
}

/// Algorithm 1 and Eq. (4) on a DS slice with W_S = 1, flows A: X→Y and B: X→Z, 1 MB
/// (8 Mb) left each. Slot 1 (no throughput measured yet): d = 1 for both. Slot 2 at t = 0:
/// A runs at 8 Mb/s (T_c = 1 s) with 2 s to its deadline, d_A = 0.5; B runs at 4 Mb/s
/// (T_c = 2 s) with 1 s left, d_B = 2. Flow ends: X 2.5, Y 0.5, Z 2 of 5, so Eq. (4) gives
/// Wr_X = 0.5, Wr_Y = 0.1, Wr_Z = 0.4; Nr_X = 2, Nr_Y = Nr_Z = 1, so Eq. (2) gives
/// Wr_{X→Y} = 0.25 + 0.1 = 0.35 and Wr_{X→Z} = 0.25 + 0.4 = 0.65: the urgent flow's
/// rack-flow gets more. Each flow is alone in its rack-flow, so it gets the rack-flow's weight.
#[test]
fn algorithm_1_favours_the_likely_to_fail() {
    let set = SliceSet::new(vec![slice("ds", Objective::Ds, 1.0, &[1])]).unwrap();
    let mut s = Scheduler::new(set);
    let flow = |id, dst, deadline_s: u64, b: Option<f64>| FlowState {
        deadline: Some(Time::from_ms(1000 * deadline_s)),
        throughput: b,
        ..cs_flow(id, 1, X, dst, MB)
    };
    let d1 = s
        .decide(Time::ZERO, &[flow(0, Y, 2, None), flow(1, Z, 1, None)])
        .unwrap();
    // d = 1 for both: ends X 2, Y 1, Z 1 of 4 → Wr 0.5, 0.25, 0.25; each rack-flow 0.5.
    assert_all_close(&weights(&d1), &[0.5, 0.5]);
    let d2 = s
        .decide(
            Time::ZERO,
            &[flow(0, Y, 2, Some(8e6)), flow(1, Z, 1, Some(4e6))],
        )
        .unwrap();
    assert_all_close(&weights(&d2), &[0.35, 0.65]);
}

/// Algorithm 1 lines 5–9 inside one rack-flow (X→Y, so W_rf = W_S = 1): A and B start equal
/// (slot 1, unmeasured, W = 0.5 each); then d_A = 0.5 and d_B = 2 as above give
/// W* = 0.25 and 1.0, λ = 1.25, W = 0.2 and 0.8.
#[test]
fn algorithm_1_inside_a_rack_flow() {
    let set = SliceSet::new(vec![slice("ds", Objective::Ds, 1.0, &[1])]).unwrap();
    let mut s = Scheduler::new(set);
    let flow = |id, deadline_s: u64, b: Option<f64>| FlowState {
        deadline: Some(Time::from_ms(1000 * deadline_s)),
        throughput: b,
        ..cs_flow(id, 1, X, Y, MB)
    };
    let d1 = s
        .decide(Time::ZERO, &[flow(0, 2, None), flow(1, 1, None)])
        .unwrap();
    assert_all_close(&weights(&d1), &[0.5, 0.5]);
    let d2 = s
        .decide(Time::ZERO, &[flow(0, 2, Some(8e6)), flow(1, 1, Some(4e6))])
        .unwrap();
    assert_all_close(&weights(&d2), &[0.2, 0.8]);
}

/// The urgency's edges: unmeasured → 1; stalled → the upper bound (most likely to fail); past
/// the deadline → the lower bound (failed, whatever its rate); otherwise T_c/D (1 MB at 1 Mb/s
/// is 8 s, with 4 s left: 2).
#[test]
fn urgency_edges() {
    let t = Time::from_ms(1000 * 10);
    assert_eq!(urgency(t, MB, Time::from_ms(1000 * 14), None), 1.0);
    assert_eq!(
        urgency(t, MB, Time::from_ms(1000 * 9), Some(1e6)),
        1.0 / D_BOUND
    );
    assert_eq!(
        urgency(t, MB, Time::from_ms(1000 * 9), Some(0.0)),
        1.0 / D_BOUND
    );
    assert_eq!(urgency(t, MB, Time::from_ms(1000 * 14), Some(0.0)), D_BOUND);
    assert!(close(
        urgency(t, MB, Time::from_ms(1000 * 14), Some(1e6)),
        2.0
    ));
}

/// Eq. (3) after every slot: two DS and CS slices (W_S = 3 and 0.25, a weight below 1) on the
/// racks of a k = 4 fat-tree, 40 slots of random arrivals, departures, progress and
/// throughputs (seed 5), intra-rack flows included. Each step of the composition preserves
/// the total, so every slice with active flows sums to its W_S (to rounding), and every
/// weight is positive and finite.
#[test]
fn every_slice_sums_to_its_weight_after_every_slot() {
    let link = LinkSpec::new(Rate::gbps(1), Time::from_us(1), Bytes(100_000));
    let topo = uniform_fat_tree(4, link);
    let big = BigSwitch::new(&topo).unwrap();
    let hosts = topo.hosts().to_vec();
    let set = SliceSet::new(vec![
        slice("ds", Objective::Ds, 3.0, &[0, 1]),
        slice("cs", Objective::Cs, 0.25, &[2]),
    ])
    .unwrap();
    let mut s = Scheduler::new(set.clone());
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut active: Vec<FlowState> = Vec::new();
    let mut next_id = 0;
    for slot in 0..40u64 {
        let now = Time::from_ms(slot);
        active.retain(|_| rng.gen_bool(0.85));
        for f in &mut active {
            f.remaining *= rng.gen_range(0.3..1.0);
            f.throughput = Some(rng.gen_range(0.0..1e9));
        }
        for _ in 0..rng.gen_range(0..8) {
            let src = hosts[rng.gen_range(0..hosts.len())];
            let dst = hosts[rng.gen_range(0..hosts.len())];
            active.push(FlowState {
                flow: next_id,
                tag: rng.gen_range(0..3),
                src,
                dst,
                src_rack: big.rack_of(src).unwrap(),
                dst_rack: big.rack_of(dst).unwrap(),
                remaining: rng.gen_range(1e3..1e8),
                deadline: Some(now + Time::from_ms(rng.gen_range(0..30))),
                throughput: None,
            });
            next_id += 1;
        }
        let d = s.decide(now, &active).unwrap();
        assert!(d
            .flow_weights
            .iter()
            .all(|&(_, w)| w > 0.0 && w.is_finite()));
        let sums = d.slice_sums(&set, &active);
        for (i, spec) in set.specs().iter().enumerate() {
            let has = active.iter().any(|f| set.slice_of_tag(f.tag) == Some(i));
            let want = if has { spec.weight } else { 0.0 };
            assert!(
                (sums[i] - want).abs() <= 1e-9 * spec.weight,
                "slot {slot}: slice {} sums to {}, want {want}",
                spec.name,
                sums[i]
            );
        }
    }
}

/// The big switch: on a k = 4 fat-tree every host's rack is a switch, two hosts per rack
/// (k/2), and a switch is not a host.
#[test]
fn big_switch_racks_of_a_fat_tree() {
    let link = LinkSpec::new(Rate::gbps(1), Time::from_us(1), Bytes(100_000));
    let topo = uniform_fat_tree(4, link);
    let big = BigSwitch::new(&topo).unwrap();
    let mut per_rack: BTreeMap<NodeId, u32> = BTreeMap::new();
    for &h in topo.hosts() {
        let r = big.rack_of(h).unwrap();
        assert!(!topo.is_host(r));
        *per_rack.entry(r).or_insert(0) += 1;
    }
    assert_eq!(per_rack.len(), 8);
    assert!(per_rack.values().all(|&n| n == 2));
    let sw = *per_rack.keys().next().unwrap();
    let e = big.rack_of(sw).unwrap_err().to_string();
    assert_eq!(e, format!("node {}: is not a host", sw.0));
}

/// Bad input: each error is one line and names the slice or flow.
#[test]
fn bad_input_names_the_slice_or_flow() {
    let e = SliceSet::new(vec![slice("a", Objective::Cs, 0.0, &[1])])
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "slices[0] (\"a\").weight: W_S must be > 0 and finite, got 0"
    );
    let e = SliceSet::new(vec![slice("a", Objective::Cs, -1.0, &[1])])
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"a\"") && e.contains("got -1"), "{e}");
    let e = SliceSet::new(vec![
        slice("a", Objective::Cs, 1.0, &[1]),
        slice("b", Objective::Ds, 1.0, &[2, 1]),
    ])
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "slices[1] (\"b\").tags: tag 1 is already in slice \"a\": a flow in two slices"
    );
    let e = Objective::parse("xs", "slices[0].objective")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "slices[0].objective: unknown objective \"xs\" (expected \"ds\" or \"cs\")"
    );
    // The same through serde, as a scenario would declare it.
    let e = serde_json::from_str::<SliceSpec>(
        r#"{"name": "a", "objective": "xs", "weight": 1, "tags": [1]}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("xs") && e.contains("ds") && e.contains("cs"),
        "{e}"
    );

    let set = SliceSet::new(vec![
        slice("web", Objective::Ds, 1.0, &[1]),
        slice("bulk", Objective::Cs, 1.0, &[2]),
    ])
    .unwrap();
    let mut s = Scheduler::new(set);
    let e = s
        .decide(Time::ZERO, &[cs_flow(4, 9, X, Y, MB)])
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "flow 4: tag 9 is in no slice: every flow must belong to one slice"
    );
    let e = s
        .decide(Time::ZERO, &[cs_flow(5, 1, X, Y, MB)])
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "flow 5: in deadline-sensitive slice \"web\" but has no deadline"
    );
    let e = s
        .decide(
            Time::ZERO,
            &[cs_flow(6, 2, X, Y, MB), cs_flow(6, 2, X, Y, MB)],
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("flow 6: listed twice") && !e.contains('\n'),
        "{e}"
    );
}
