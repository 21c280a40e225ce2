//! The rounds engine driven by s-PERC's link algorithms: determinism, the delay models,
//! options and errors (moved here so that the engine names no algorithm). The algorithms' own
//! tests are in `tests.rs`.

use super::{Divider, NPerc, SPerc, SPercStar};
use crate::alloc::{Problem, ProblemInput};
use crate::engine::rounds::*;
use crate::units::Time;

fn sparse(seed: u64) -> Problem {
    random_matrix(&RandomMatrix::new(100, 300, 5), seed).unwrap()
}

#[test]
fn same_seed_same_output_different_seed_different_order() {
    let p = sparse(3);
    let cfg = RoundsConfig {
        trace: true,
        ..RoundsConfig::default()
    };
    let alg = SPerc {
        div: Divider::Exact,
    };
    let a = simulate(&p, &alg, &cfg).unwrap();
    let b = simulate(&p, &alg, &cfg).unwrap();
    assert_eq!(a, b);
    assert!(!a.trace.is_empty());
    let c = simulate(
        &p,
        &alg,
        &RoundsConfig {
            seed: 2,
            ..cfg.clone()
        },
    )
    .unwrap();
    assert_ne!(
        a.trace, c.trace,
        "another seed orders the packets differently"
    );
    // Both reach the same (oracle) rates.
    assert!(a.converged && c.converged);
}

#[test]
fn same_matrix_for_same_seed() {
    let a = sparse(7);
    let b = sparse(7);
    assert_eq!(a.path_links(), b.path_links());
    assert_ne!(a.path_links(), sparse(8).path_links());
    for f in 0..a.num_flows() {
        let mut p = a.path(f).to_vec();
        assert_eq!(p.len(), 5);
        p.sort();
        p.dedup();
        assert_eq!(p.len(), 5, "links of a flow are distinct");
    }
}

#[test]
fn one_round_is_one_rtt_and_every_flow_is_updated_once_per_round() {
    // FixedRtt: each link sees each flow exactly once per round and pass (out and back), so
    // after R rounds with no early stop there were 2R · Σ path lengths updates (± the
    // traversals in flight at the horizon); forward-only, R · Σ path lengths.
    let p = sparse(1);
    let cfg = RoundsConfig {
        max_rounds: 10,
        stable_rounds: 0,
        delay: DelayModel::FixedRtt {
            rtt: Time::from_us(10),
        },
        ..RoundsConfig::default()
    };
    let o = simulate(
        &p,
        &NPerc {
            div: Divider::Exact,
        },
        &cfg,
    )
    .unwrap();
    assert_eq!(o.round, Time::from_us(10));
    let nnz = 2 * p.path_links().len() as u64;
    assert!(
        o.updates >= 10 * nnz - nnz && o.updates <= 10 * nnz,
        "{} updates",
        o.updates
    );
    let one_way = simulate(
        &p,
        &NPerc {
            div: Divider::Exact,
        },
        &RoundsConfig {
            two_way: false,
            ..cfg
        },
    )
    .unwrap();
    let nnz = nnz / 2;
    assert!(
        one_way.updates >= 10 * nnz - nnz && one_way.updates <= 10 * nnz,
        "{} updates",
        one_way.updates
    );
}

#[test]
fn uniform_delays_converge_and_bound_the_round() {
    let p = sparse(2);
    let cfg = RoundsConfig {
        delay: DelayModel::Uniform {
            min: Time::from_us(1),
            max: Time::from_us(2),
        },
        ..RoundsConfig::default()
    };
    for o in [
        simulate(
            &p,
            &SPerc {
                div: Divider::Exact,
            },
            &cfg,
        )
        .unwrap(),
        simulate(
            &p,
            &SPercStar {
                div: Divider::Exact,
            },
            &cfg,
        )
        .unwrap(),
    ] {
        assert_eq!(
            o.round,
            Time::from_us(22),
            "(5 hops out + 5 back + return) · 2 µs"
        );
        assert!(o.converged && !o.exceeds_6n2, "{:?}", o.convergence_rounds);
    }
}

#[test]
fn per_link_delays_converge_within_a_round_of_the_largest_rtt() {
    let p = sparse(3);
    let (min, max) = (Time::from_us(1), Time::from_us(2));
    let cfg = RoundsConfig {
        delay: DelayModel::PerLink { min, max },
        ..RoundsConfig::default()
    };
    let o = simulate(
        &p,
        &SPerc {
            div: Divider::Exact,
        },
        &cfg,
    )
    .unwrap();
    // The round is one flow's RTT: 10 link visits of 1–2 µs each (the return adds nothing).
    assert!(
        o.round >= Time::from_us(10) && o.round <= Time::from_us(20),
        "{:?}",
        o.round
    );
    assert!(o.converged && !o.exceeds_6n2, "{:?}", o.convergence_rounds);
    assert!(o.max_rel_error < 1e-6);
}

#[test]
fn a_visit_order_fixed_every_round_slows_n_perc_down() {
    // The reason `uniform` is the default (module docs): with the same link visit order every
    // round, n-PERC cycles for much longer than with fresh random delays.
    let p = random_matrix(&RandomMatrix::new(100, 1000, 10), 1).unwrap();
    let alg = NPerc {
        div: Divider::Exact,
    };
    let run = |delay| {
        let cfg = RoundsConfig {
            delay,
            max_rounds: 200,
            ..RoundsConfig::default()
        };
        simulate(&p, &alg, &cfg)
            .unwrap()
            .convergence_rounds
            .unwrap()
    };
    let random = run(DelayModel::default());
    let fixed = run(DelayModel::FixedRtt {
        rtt: Time::from_us(10),
    });
    assert!(fixed > 3.0 * random, "fixed order {fixed}, random {random}");
}

#[test]
fn bad_options_name_the_field() {
    let p = sparse(1);
    let alg = SPerc {
        div: Divider::Exact,
    };
    let cases: Vec<(RoundsConfig, &str)> = vec![
        (
            RoundsConfig {
                drop_probability: 1.5,
                ..Default::default()
            },
            "engine.drop_probability",
        ),
        (
            RoundsConfig {
                max_rounds: 0,
                ..Default::default()
            },
            "engine.max_rounds",
        ),
        (
            RoundsConfig {
                drop_probability: 0.01,
                drop_rounds: 200.0,
                ..Default::default()
            },
            "engine.drop_rounds",
        ),
        (
            RoundsConfig {
                tolerance: 0.0,
                ..Default::default()
            },
            "engine.tolerance",
        ),
        (
            RoundsConfig {
                delay: DelayModel::Uniform {
                    min: Time::from_us(2),
                    max: Time::from_us(1),
                },
                ..Default::default()
            },
            "engine.delay",
        ),
        (
            RoundsConfig {
                departures: vec![Departure {
                    flow: 300,
                    round: 1.0,
                }],
                ..Default::default()
            },
            "engine.departures[0].flow",
        ),
    ];
    for (cfg, field) in cases {
        let e = simulate(&p, &alg, &cfg).unwrap_err().to_string();
        assert!(
            e.starts_with(field),
            "expected an error at {field}, got {e}"
        );
    }
    let weighted = Problem::new(ProblemInput {
        weights: Some(vec![2.0, 1.0]),
        ..ProblemInput::from_paths(vec![10.0], &[vec![0], vec![0]])
    })
    .unwrap();
    let e = simulate(&weighted, &alg, &RoundsConfig::default())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("flows[0].weight"), "{e}");
}

#[test]
fn bad_matrix_names_the_field() {
    let e = random_matrix(&RandomMatrix::new(10, 5, 11), 1)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("matrix.links_per_flow"), "{e}");
    let e = random_matrix(&RandomMatrix::new(0, 5, 1), 1)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("matrix.links"), "{e}");
}

#[test]
fn sperc_without_shadow_counters_does_not_recover_from_drops_but_sperc_star_does() {
    // §7.1: lost control packets leave stale contributions in SumE/NumB; s-PERC* fades them out
    // within a round (Algorithm 7), plain s-PERC keeps them.
    let p = sparse(5);
    let cfg = RoundsConfig {
        drop_probability: 0.01,
        ..RoundsConfig::default()
    };
    let star = simulate(
        &p,
        &SPercStar {
            div: Divider::Exact,
        },
        &cfg,
    )
    .unwrap();
    assert!(star.drops > 0 && star.converged);
    let plain = simulate(
        &p,
        &SPerc {
            div: Divider::Exact,
        },
        &cfg,
    )
    .unwrap();
    assert!(plain.drops > 0);
    assert!(
        !plain.converged,
        "stale state should persist without shadow counters"
    );
}

#[test]
fn the_mean_rtt_is_half_a_round_under_default_delays_and_a_round_when_all_rtts_are_equal() {
    // Every path has P = 5 links, two-way: V = 10 visits + the return = 11 hops per RTT. The
    // round is 11 · max; the mean RTT 11 · (min + max) / 2: half a round for [0, 1 µs], the
    // round itself (within the 100 ps jitter) for [10 µs, 10 µs + 100 ps].
    let p = sparse(1);
    let alg = SPerc {
        div: Divider::Exact,
    };
    let o = simulate(&p, &alg, &RoundsConfig::default()).unwrap();
    assert_eq!(o.round, Time::from_us(11));
    assert_eq!(o.mean_rtt, Time(5_500_000));
    let equal = RoundsConfig {
        delay: DelayModel::Uniform {
            min: Time::from_us(10),
            max: Time(10_000_100),
        },
        ..RoundsConfig::default()
    };
    let o = simulate(&p, &alg, &equal).unwrap();
    assert_eq!(o.round, Time(11 * 10_000_100));
    assert_eq!(o.mean_rtt, Time(11 * 10_000_050));
    // Fixed RTTs: the mean is the RTT.
    let fixed = RoundsConfig {
        delay: DelayModel::FixedRtt {
            rtt: Time::from_us(10),
        },
        ..RoundsConfig::default()
    };
    assert_eq!(
        simulate(&p, &alg, &fixed).unwrap().mean_rtt,
        Time::from_us(10)
    );
}

#[test]
fn the_rate_criterion_is_met_no_later_than_the_strict_one_and_sooner_when_looser() {
    // A traversal correct to 1e-6 on every link has a sending rate (its minimum allocation)
    // correct to 1e-6 too, so the rate criterion, at any tolerance ≥ 1e-6, is met no later than
    // the strict one; a looser rate tolerance is met no later than a tighter one. At 1% (the
    // authors' criterion) it is met strictly sooner on some of these matrices.
    let alg = SPerc {
        div: Divider::Exact,
    };
    let mut sooner = 0;
    for seed in 1..=6 {
        let p = sparse(seed);
        let at = |rate_tolerance: f64| {
            let cfg = RoundsConfig {
                rate_tolerance,
                seed,
                ..RoundsConfig::default()
            };
            simulate(&p, &alg, &cfg).unwrap()
        };
        let (tight, loose) = (at(1e-6), at(0.01));
        let strict = tight.convergence_rounds.expect("converges");
        assert_eq!(
            loose.convergence_rounds,
            Some(strict),
            "same run, same strict time"
        );
        let r6 = tight.rate_convergence_rounds.expect("rate converges");
        let r2 = loose.rate_convergence_rounds.expect("rate converges");
        assert!(
            r6 <= strict && r2 <= r6,
            "seed {seed}: {r2} <= {r6} <= {strict}"
        );
        sooner += usize::from(r2 < strict);
    }
    assert!(sooner > 0, "1% was never met before the strict criterion");
}

#[test]
fn a_rate_tolerance_outside_0_1_is_an_error_naming_the_field() {
    let cfg = RoundsConfig {
        rate_tolerance: 1.5,
        ..RoundsConfig::default()
    };
    let e = cfg.validate(1).unwrap_err().to_string();
    assert!(e.contains("engine.rate_tolerance"), "{e}");
}
