//! An independent checker of weighted max-min fairness (with caps and guarantees).
//!
//! It shares no code path with the solvers: it only sums loads and compares normalized rates.
//! A rate vector `r` is the generalized weighted max-min fair allocation iff
//!
//! 1. it is feasible: `g_f ≤ r_f ≤ d_f` for every flow and `Σ_{f ∋ l} r_f ≤ C_l` for every link;
//! 2. every flow below its demand has a *bottleneck*: a saturated link `l` on its path on which
//!    no flow that could give up rate (one above its guarantee) has a larger normalized rate,
//!    i.e. `r_{f'}/w_{f'} ≤ r_f/w_f` for all `f'` on `l` with `r_{f'} > g_{f'}`.
//!
//! (2) is Definition 1 of s-PERC with rates normalized by weight: the flow cannot be raised
//! without lowering a flow whose normalized rate is no larger. All comparisons use a relative
//! tolerance (default [`REL_TOL`]·10³, loose enough for rates produced by distributed algorithms
//! that converged to floating-point precision, tight enough to catch any real unfairness).

use super::problem::{Problem, REL_TOL};

/// What the checker found. `ok` is true iff there is no violation beyond the tolerance.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    /// No violation beyond the tolerance.
    pub ok: bool,
    /// Largest relative overload `(load − C)/C` over links (≤ 0 when feasible), and its link.
    pub max_overload: f64,
    /// The link with the largest relative overload.
    pub worst_link: Option<usize>,
    /// Largest relative violation of a flow's bounds (rate below guarantee or above demand).
    pub max_bound_violation: f64,
    /// Number of flows below their demand with no bottleneck link.
    pub unfair_flows: usize,
    /// The flow with the largest unfairness, and that unfairness: the smallest, over saturated
    /// links on its path, of `max normalized rate there / its normalized rate − 1` (infinite
    /// when no link on its path is saturated).
    pub worst_flow: Option<(usize, f64)>,
    /// One line describing the worst violation, naming the flow or link ("ok" when none).
    pub message: String,
}

/// Checks `rates` against `p` with the default tolerance.
pub fn check(p: &Problem, rates: &[f64]) -> CheckReport {
    check_with_tolerance(p, rates, REL_TOL * 1e3)
}

/// Checks `rates` against `p`; `tol` is the relative tolerance of every comparison.
pub fn check_with_tolerance(p: &Problem, rates: &[f64], tol: f64) -> CheckReport {
    let n_links = p.num_links();
    assert_eq!(rates.len(), p.num_flows(), "one rate per flow");
    let mut load = vec![0.0f64; n_links];
    let mut bound_violation = 0.0f64;
    let mut bound_flow = None;
    for (f, &r) in rates.iter().enumerate() {
        let (g, d) = (p.guarantee(f), p.demand(f));
        let v = if !r.is_finite() {
            f64::INFINITY
        } else {
            ((g - r) / g.max(f64::MIN_POSITIVE)).max((r - d) / d.max(f64::MIN_POSITIVE))
        };
        if v > bound_violation {
            bound_violation = v;
            bound_flow = Some(f);
        }
        for &l in p.path(f) {
            load[l as usize] += r;
        }
    }
    let caps = p.capacities();
    let mut max_overload = f64::NEG_INFINITY;
    let mut worst_link = None;
    for l in 0..n_links {
        let o = (load[l] - caps[l]) / caps[l];
        if o > max_overload {
            max_overload = o;
            worst_link = Some(l);
        }
    }
    let saturated: Vec<bool> = (0..n_links)
        .map(|l| load[l] >= caps[l] * (1.0 - tol))
        .collect();
    // Largest normalized rate among the flows on each link that could give up rate.
    let mut max_norm = vec![0.0f64; n_links];
    for (f, &r) in rates.iter().enumerate() {
        if r > p.guarantee(f) * (1.0 + tol) {
            let norm = r / p.weights()[f];
            for &l in p.path(f) {
                let m = &mut max_norm[l as usize];
                *m = m.max(norm);
            }
        }
    }
    let mut unfair_flows = 0;
    let mut worst_flow: Option<(usize, f64)> = None;
    for (f, &r) in rates.iter().enumerate() {
        if r >= p.demand(f) * (1.0 - tol) {
            continue;
        }
        let norm = r / p.weights()[f];
        let mut best = f64::INFINITY;
        for &l in p.path(f) {
            let l = l as usize;
            if saturated[l] {
                best = best.min(max_norm[l] / norm.max(f64::MIN_POSITIVE) - 1.0);
            }
        }
        if best > tol {
            unfair_flows += 1;
            if worst_flow.is_none_or(|(_, u)| best > u) {
                worst_flow = Some((f, best));
            }
        }
    }
    let overloaded = max_overload > tol;
    let out_of_bounds = bound_violation > tol;
    let message = if overloaded {
        let l = worst_link.unwrap();
        format!(
            "{} is overloaded: load {} bits/s on capacity {} bits/s",
            p.link_label(l),
            load[l],
            caps[l]
        )
    } else if out_of_bounds {
        let f = bound_flow.unwrap();
        format!(
            "{} has rate {} bits/s outside [guarantee {}, demand {}]",
            p.flow_label(f),
            rates[f],
            p.guarantee(f),
            p.demand(f)
        )
    } else if let Some((f, u)) = worst_flow {
        if u.is_infinite() {
            format!(
                "{} is below its demand and no link on its path is saturated",
                p.flow_label(f)
            )
        } else {
            format!(
                "{} could be raised: on every saturated link of its path another flow has a normalized rate {:.3e} higher",
                p.flow_label(f),
                u
            )
        }
    } else {
        "ok".to_string()
    };
    CheckReport {
        ok: !overloaded && !out_of_bounds && unfair_flows == 0,
        max_overload,
        worst_link,
        max_bound_violation: bound_violation,
        unfair_flows,
        worst_flow,
        message,
    }
}
