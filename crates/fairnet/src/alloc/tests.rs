//! Tests of the oracle, k-Water-filling and the checker.
//!
//! Each documented case states in prose the share it expects before asserting it; the property
//! tests compare the oracle with a brute-force reference that shares none of its code.

use super::*;
use proptest::prelude::*;

const GBPS: f64 = 1e9;

fn problem(caps: &[f64], paths: &[Vec<u32>], weights: Option<Vec<f64>>) -> Problem {
    let mut i = ProblemInput::from_paths(caps.to_vec(), paths);
    i.weights = weights;
    Problem::new(i).unwrap()
}

fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-9 * w.abs().max(1.0),
            "flow {i}: got {g}, want {w} (all: {got:?})"
        );
    }
}

/// Brute force: every round, find by bisection the level at which each link would saturate if
/// every unfrozen flow followed `clamp(w·t, g, d)`, take the lowest, and freeze what it fixes.
fn reference(p: &Problem) -> Vec<f64> {
    let n = p.num_flows();
    let mut frozen = vec![false; n];
    let mut rate = vec![0.0; n];
    let on = |f: usize, l: usize| p.path(f).contains(&(l as u32));
    let r_at = |f: usize, t: f64| (p.weights()[f] * t).clamp(p.guarantee(f), p.demand(f));
    loop {
        if frozen.iter().all(|&x| x) {
            return rate;
        }
        let load = |l: usize, t: f64, frozen: &[bool], rate: &[f64]| -> f64 {
            (0..n)
                .filter(|&f| on(f, l))
                .map(|f| if frozen[f] { rate[f] } else { r_at(f, t) })
                .sum()
        };
        let mut best = f64::INFINITY;
        let mut levels = vec![f64::INFINITY; p.num_links()];
        for (l, level) in levels.iter_mut().enumerate() {
            if !(0..n).any(|f| on(f, l) && !frozen[f]) {
                continue;
            }
            let c = p.capacities()[l];
            if load(l, 0.0, &frozen, &rate) >= c * (1.0 - 1e-12) {
                *level = 0.0;
            } else {
                let (mut lo, mut hi) = (0.0, 1.0);
                while load(l, hi, &frozen, &rate) < c && hi < 1e30 {
                    hi *= 2.0;
                }
                if hi >= 1e30 {
                    continue; // demand-limited everywhere: never saturates
                }
                for _ in 0..200 {
                    let mid = 0.5 * (lo + hi);
                    if load(l, mid, &frozen, &rate) < c {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                *level = hi;
            }
            best = best.min(*level);
        }
        for f in 0..n {
            if !frozen[f] && p.demand(f) / p.weights()[f] <= best * (1.0 + 1e-12) {
                best = best.min(p.demand(f) / p.weights()[f]);
            }
        }
        for f in 0..n {
            if frozen[f] {
                continue;
            }
            let capped = p.demand(f) / p.weights()[f] <= best * (1.0 + 1e-12);
            let on_bottleneck = p
                .path(f)
                .iter()
                .any(|&l| levels[l as usize] <= best * (1.0 + 1e-12));
            if capped || on_bottleneck {
                frozen[f] = true;
                rate[f] = r_at(f, best);
            }
        }
    }
}

#[test]
fn twice_the_weight_gets_twice_the_share() {
    // One 30 Gb/s link, weights 1 and 2: shares 10 and 20 Gb/s.
    let p = problem(&[30.0 * GBPS], &[vec![0], vec![0]], Some(vec![1.0, 2.0]));
    let a = solve(&p);
    assert_close(&a.rates, &[10.0 * GBPS, 20.0 * GBPS]);
    assert_eq!(a.bottleneck, vec![Some(0), Some(0)]);
}

#[test]
fn sperc_running_example() {
    // s-PERC §2.1, Fig. 2: links of 20, 30 and 12 Gb/s; flow 1 crosses l20 and l30, flow 2 crosses
    // l30 and l12. Flow 2 is held to 12 Gb/s by l12; flow 1 takes the rest of l30: 18 Gb/s.
    let p = problem(
        &[20.0 * GBPS, 30.0 * GBPS, 12.0 * GBPS],
        &[vec![0, 1], vec![1, 2]],
        None,
    );
    let a = solve(&p);
    assert_close(&a.rates, &[18.0 * GBPS, 12.0 * GBPS]);
    assert_eq!(a.bottleneck, vec![Some(1), Some(2)]);
    assert_eq!(a.link_level[0], None, "l20 has spare capacity");
    assert!(check(&p, &a.rates).ok);
}

#[test]
fn soze_fig17_bottleneck_moves_when_weight_passes_two() {
    // Söze §5.3.3, Fig. 17: 100 Gb/s links; switch 1's bottleneck (link 0) carries flows 1-4,
    // switch 2's (link 1) carries flows 2-6. With flow 1's weight w and all others 1, link 1 offers
    // 100/5 = 20 to each of its flows. Link 0 offers level 100/(w+3); while that is ≥ 20 (w ≤ 2)
    // flows 2-4 are held to 20 by link 1 and flow 1 takes 100 - 60 = 40. Above w = 2 link 0 is the
    // bottleneck of flows 1-4 at level 100/(w+3), and flows 5-6 split what flows 2-4 leave on link 1.
    for w in 1..=5 {
        let w = w as f64;
        let paths = vec![
            vec![0],
            vec![0, 1],
            vec![0, 1],
            vec![0, 1],
            vec![1],
            vec![1],
        ];
        let p = problem(
            &[100.0 * GBPS; 2],
            &paths,
            Some(vec![w, 1.0, 1.0, 1.0, 1.0, 1.0]),
        );
        let want: Vec<f64> = if w <= 2.0 {
            vec![40.0, 20.0, 20.0, 20.0, 20.0, 20.0]
        } else {
            let t = 100.0 / (w + 3.0);
            let rest = (100.0 - 3.0 * t) / 2.0;
            vec![w * t, t, t, t, rest, rest]
        };
        let want: Vec<f64> = want.iter().map(|x| x * GBPS).collect();
        let a = solve(&p);
        assert_close(&a.rates, &want);
        let flow2_bottleneck = if w < 2.0 { 1 } else { 0 };
        if w != 2.0 {
            assert_eq!(a.bottleneck[1], Some(flow2_bottleneck), "w = {w}");
        }
        assert!(check(&p, &a.rates).ok);
    }
}

#[test]
fn caps_leave_room_for_others() {
    // One 10 Gb/s link, three equal flows, one capped at 1 Gb/s: the others split 9 Gb/s.
    let mut i = ProblemInput::from_paths(vec![10.0 * GBPS], &[vec![0], vec![0], vec![0]]);
    i.demands = Some(vec![1.0 * GBPS, f64::INFINITY, f64::INFINITY]);
    let p = Problem::new(i).unwrap();
    let a = solve(&p);
    assert_close(&a.rates, &[1.0 * GBPS, 4.5 * GBPS, 4.5 * GBPS]);
    assert_eq!(a.bottleneck, vec![None, Some(0), Some(0)]);
}

#[test]
fn guarantees_are_max_of_guarantee_and_weighted_share() {
    // eBA Eq. 16: rate = max(guarantee, weighted share). One 10 Gb/s link, three weight-1 flows,
    // flow 0 guaranteed 6 Gb/s: it keeps 6, the other two split the remaining 4 (2 each), and
    // 2 < 6 so flow 0 never leaves its guarantee.
    let mut i = ProblemInput::from_paths(vec![10.0 * GBPS], &[vec![0], vec![0], vec![0]]);
    i.guarantees = Some(vec![6.0 * GBPS, 0.0, 0.0]);
    let p = Problem::new(i).unwrap();
    let a = solve(&p);
    assert_close(&a.rates, &[6.0 * GBPS, 2.0 * GBPS, 2.0 * GBPS]);
    assert!(check(&p, &a.rates).ok);
    // With a guarantee of 2 Gb/s the weighted share (10/3) is larger, so all get 10/3.
    let mut i = ProblemInput::from_paths(vec![10.0 * GBPS], &[vec![0], vec![0], vec![0]]);
    i.guarantees = Some(vec![2.0 * GBPS, 0.0, 0.0]);
    let p = Problem::new(i).unwrap();
    assert_close(&solve(&p).rates, &[10.0 / 3.0 * GBPS; 3]);
}

#[test]
fn guarantee_filled_link_freezes_its_flows() {
    // Link 0 (10) is filled by two 5 Gb/s guarantees; flow 1 also crosses the roomy link 1 (100)
    // shared with flow 2. Flows 0 and 1 stay at 5; flow 2 takes the other 95 of link 1.
    let mut i = ProblemInput::from_paths(vec![10.0, 100.0], &[vec![0], vec![0, 1], vec![1]]);
    i.guarantees = Some(vec![5.0, 5.0, 0.0]);
    let p = Problem::new(i).unwrap();
    let a = solve(&p);
    assert_close(&a.rates, &[5.0, 5.0, 95.0]);
    assert!(check(&p, &a.rates).ok);
}

#[test]
fn tied_links_are_removed_in_one_iteration() {
    // Two disjoint links with the same fair share (10/2 = 15/3 = 5): one iteration, both removed.
    let p = problem(
        &[10.0, 15.0],
        &[vec![0], vec![0], vec![1], vec![1], vec![1]],
        None,
    );
    let a = solve(&p);
    assert_eq!(a.iterations, 1);
    assert_eq!(a.link_iteration, vec![Some(1), Some(1)]);
}

#[test]
fn sperc_fig3_style_chain_iterations() {
    // A chain a-[0]-b-[1]-c-[2]-d: flows a on [0], b on [0,1], c on [1,2], d on [2];
    // capacities 2, 10, 4, so the shares are 1, 5 and 2. 1-water-filling removes link 0 and
    // link 2 together (each is the lowest among its adjacent links) and is done in one iteration.
    // For 2-water-filling link 0 (share 1) is within two hops of link 2, so link 2 waits a round;
    // standard water-filling also takes two. Link 1 is never a bottleneck.
    let p = problem(
        &[2.0, 10.0, 4.0],
        &[vec![0], vec![0, 1], vec![1, 2], vec![2]],
        None,
    );
    let k1 = k_waterfilling(&p, Radius::One);
    let k2 = k_waterfilling(&p, Radius::Two);
    let kinf = solve(&p);
    assert_close(&kinf.rates, &[1.0, 1.0, 2.0, 2.0]);
    assert_eq!(k1.iterations, 1);
    assert_eq!(k1.link_iteration, vec![Some(1), None, Some(1)]);
    // Link 2's second-degree neighbor is link 0 with a lower share: k=2 waits one iteration.
    assert_eq!(k2.iterations, 2);
    assert_eq!(k2.link_iteration, vec![Some(1), None, Some(2)]);
    assert_eq!(kinf.iterations, 2);
    for r in [&k1.rates, &k2.rates] {
        assert_close(r, &kinf.rates);
    }
}

#[test]
fn checker_flags_unfair_and_infeasible_rates() {
    let p = problem(&[30.0], &[vec![0], vec![0]], Some(vec![1.0, 2.0]));
    assert!(check(&p, &[10.0, 20.0]).ok);
    let over = check(&p, &[11.0, 20.0]);
    assert!(
        !over.ok && over.message.contains("links[0] is overloaded"),
        "{}",
        over.message
    );
    let unfair = check(&p, &[15.0, 15.0]);
    assert!(
        !unfair.ok && unfair.worst_flow.unwrap().0 == 1,
        "{:?}",
        unfair
    );
    let idle = check(&p, &[5.0, 10.0]);
    assert!(!idle.ok && idle.message.contains("no link on its path is saturated"));
}

#[test]
fn flows_far_apart_in_the_index_get_their_closed_form_shares() {
    // 100,000 flows of weight 1 on link 0 (capacity 1e6); the three flows 7, 40,007 and 80,007
    // also cross link 1 (capacity 3), where they are 40,000 indices apart (gaps of two units in
    // the compressed index). Link 1 saturates first at 1 each; the other 99,997 share what is
    // left of link 0: (1e6 − 3) / 99,997 each. The compact layout (packed rows, compressed
    // index) and the plain one must give the same bits, on one thread and on three.
    let paths: Vec<Vec<u32>> = (0..100_000)
        .map(|f| if f % 40_000 == 7 { vec![0, 1] } else { vec![0] })
        .collect();
    let p = problem(&[1e6, 3.0], &paths, None);
    let a = super::waterfill::solve_compact(&p, 1, true);
    let rest = (1e6 - 3.0) / 99_997.0;
    let want: Vec<f64> = (0..100_000)
        .map(|f| if f % 40_000 == 7 { 1.0 } else { rest })
        .collect();
    assert_close(&a.rates, &want);
    assert_eq!(a.bottleneck[40_007], Some(1));
    assert_eq!(a.bottleneck[40_008], Some(0));
    assert!(check(&p, &a.rates).ok);
    let bits = |a: &Allocation| a.rates.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for other in [solve(&p), super::waterfill::solve_compact(&p, 3, true)] {
        assert_eq!(bits(&a), bits(&other));
        assert_eq!(a.bottleneck, other.bottleneck);
    }
}

fn arb_problem() -> impl Strategy<Value = Problem> {
    (1usize..6, 1usize..9).prop_flat_map(|(n_links, n_flows)| {
        let caps = prop::collection::vec(1.0f64..100.0, n_links);
        let flows = prop::collection::vec(
            (
                prop::collection::btree_set(0u32..n_links as u32, 1..=n_links.min(4)),
                0.1f64..10.0,
                prop::option::of(0.5f64..60.0),
                prop::option::weighted(0.3, 0.0f64..1.0),
            ),
            n_flows,
        );
        (caps, flows).prop_map(|(caps, flows)| {
            let paths: Vec<Vec<u32>> = flows
                .iter()
                .map(|f| f.0.iter().copied().collect())
                .collect();
            let mut i = ProblemInput::from_paths(caps.clone(), &paths);
            i.weights = Some(flows.iter().map(|f| f.1).collect());
            if flows.iter().any(|f| f.2.is_some()) {
                i.demands = Some(flows.iter().map(|f| f.2.unwrap_or(f64::INFINITY)).collect());
            }
            if flows.iter().any(|f| f.3.is_some()) {
                // Scale guarantees so that no link is over-committed: each flow gets a fraction of
                // (smallest capacity on its path / number of flows), and at most its demand.
                let n = flows.len() as f64;
                i.guarantees = Some(
                    flows
                        .iter()
                        .zip(&paths)
                        .map(|(f, path)| {
                            let room = path
                                .iter()
                                .map(|&l| caps[l as usize])
                                .fold(f64::INFINITY, f64::min);
                            (f.3.unwrap_or(0.0) * room / n).min(f.2.unwrap_or(f64::INFINITY))
                        })
                        .collect(),
                );
            }
            Problem::new(i).unwrap()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn oracle_matches_brute_force_and_checker(p in arb_problem()) {
        let a = solve(&p);
        let want = reference(&p);
        for (f, (g, w)) in a.rates.iter().zip(&want).enumerate() {
            prop_assert!((g - w).abs() <= 1e-7 * w.abs().max(1.0), "flow {}: oracle {} reference {}", f, g, w);
        }
        let report = check(&p, &a.rates);
        prop_assert!(report.ok, "{}", report.message);
    }

    #[test]
    fn any_thread_count_gives_the_same_bits(p in arb_problem(), threads in 2usize..5) {
        // The index is built by several threads, one part each, but every link's list is the
        // same flows in the same order, and the event loop is sequential: every output must be
        // identical to the one-thread solve.
        let (one, many) = (solve(&p), solve_with_threads(&p, threads));
        let bits = |r: &[f64]| r.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&one.rates), bits(&many.rates));
        prop_assert_eq!(&one.bottleneck, &many.bottleneck);
        prop_assert_eq!(&one.link_iteration, &many.link_iteration);
        prop_assert_eq!(one.iterations, many.iterations);
    }

    #[test]
    fn the_compact_layout_gives_the_same_bits(p in arb_problem(), threads in 1usize..4) {
        // The packed rows hold the same links in the same order as the problem's CSR paths, and
        // the compressed lists the same flows in the same order as the plain ones, so every sum
        // is taken in the same order: the two layouts must agree to the bit, for any number of
        // index threads. (Problems whose longest path is more than twice the mean keep the CSR
        // paths in the compact layout.)
        let (packed, csr) = (
            super::waterfill::solve_compact(&p, threads, true),
            super::waterfill::solve_compact(&p, 1, false),
        );
        let bits = |r: &[f64]| r.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&packed.rates), bits(&csr.rates));
        prop_assert_eq!(&packed.bottleneck, &csr.bottleneck);
        prop_assert_eq!(&packed.link_iteration, &csr.link_iteration);
        prop_assert_eq!(packed.iterations, csr.iterations);
    }

    #[test]
    fn every_k_gives_the_same_rates_and_n1_le_n2_le_ninf(p in arb_problem()) {
        let a = solve(&p);
        let k1 = k_waterfilling(&p, Radius::One);
        let k2 = k_waterfilling(&p, Radius::Two);
        let kinf = k_waterfilling(&p, Radius::Infinite);
        for k in [&k1, &k2, &kinf] {
            for (g, w) in k.rates.iter().zip(&a.rates) {
                prop_assert!((g - w).abs() <= 1e-7 * w.abs().max(1.0), "k-water-filling {:?} vs oracle {:?}", k.rates, a.rates);
            }
        }
        prop_assert!(k1.iterations <= k2.iterations && k2.iterations <= kinf.iterations,
            "N1 {} N2 {} Ninf {}", k1.iterations, k2.iterations, kinf.iterations);
        if !p.has_guarantees() {
            prop_assert_eq!(kinf.iterations, a.iterations);
            prop_assert_eq!(&kinf.link_iteration, &a.link_iteration);
        }
    }

    #[test]
    fn checker_rejects_a_lowered_rate(p in arb_problem(), pick in 0usize..8) {
        // Lowering a flow's rate by 10% leaves every link on its path below capacity, so it has no
        // bottleneck any more (or it falls below its guarantee): the checker must object.
        let a = solve(&p);
        let f = pick % p.num_flows();
        prop_assume!(a.rates[f] > 1e-6);
        let mut r = a.rates.clone();
        r[f] *= 0.9;
        prop_assert!(!check(&p, &r).ok);
    }
}
