//! The exact weighted max-min oracle: event-driven weighted water-filling with caps and
//! guarantees.
//!
//! # The maths
//!
//! Raise a common *level* `t ≥ 0` (bits/s per unit of weight). While flow `f` is unfrozen its
//! rate is `clamp(w_f·t, g_f, d_f)` — its guarantee `g_f` until `w_f·t` passes it, then its
//! weighted share, up to its demand `d_f`. This is the generalized max-min point of eBA Eq. 16
//! (`max(guarantee, weighted share)`), and with `g = 0`, `d = ∞` it is plain weighted max-min
//! (Söze §2, s-PERC Definition 1 with weights). Between breakpoints the load of link `l` is
//! linear in `t`:
//!
//! ```text
//!   load_l(t) = A_l + B_l·t      A_l = Σ rates of frozen flows + Σ g of flows still at their guarantee
//!                                B_l = Σ w of flows in their linear (weighted-share) regime
//! ```
//!
//! so the link saturates at `t_l = (C_l − A_l) / B_l`. Three kinds of event move the state:
//!
//! 1. *guarantee exit* of flow `f` at `t = g_f / w_f`: `A_l −= g_f`, `B_l += w_f` on its path;
//! 2. *cap* of flow `f` at `t = d_f / w_f`: frozen at `d_f` (demand-limited, no bottleneck);
//! 3. *saturation* of link `l` at `t_l`: every unfrozen flow on `l` is frozen — flows in their
//!    linear regime at `w_f·t_l`, flows still at their guarantee at `g_f` (the link is full, so
//!    they can never rise above it) — and `l` becomes their bottleneck.
//!
//! Events are processed in increasing `t` (guarantee exits, then caps, then saturations at equal
//! `t`); link levels live in an indexed min-heap and are re-keyed lazily when they surface at
//! the top (see `top_link`). Each flow freezes once and walks its path once, so the cost is `O(nnz + E log L)` for `nnz` path entries, `L` links and
//! `E` re-keyings.
//!
//! Removal events (caps and saturations) whose levels are equal within [`REL_TOL`] form one
//! iteration of standard water-filling (s-PERC Algorithm 1 with `k = ∞`, line 6: all links at the
//! global minimum are removed together), so the solver also returns `N_∞` and the iteration in
//! which every link was removed. Weights are real numbers throughout; nothing is truncated.

use super::heap::IndexedMinHeap;
use super::problem::{Problem, REL_TOL};

/// The weighted max-min fair allocation of a [`Problem`].
#[derive(Debug, Clone)]
pub struct Allocation {
    /// Rate of every flow, bits per second.
    pub rates: Vec<f64>,
    /// The link that froze each flow (`None` if it is demand-limited).
    pub bottleneck: Vec<Option<u32>>,
    /// For every link that saturated, the level (bits/s per unit weight) at which it did.
    pub link_level: Vec<Option<f64>>,
    /// For every link that saturated, the water-filling iteration (1-based) that removed it.
    pub link_iteration: Vec<Option<u32>>,
    /// Number of iterations of standard (k = ∞) water-filling, `N_∞`.
    pub iterations: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FlowState {
    AtGuarantee,
    Linear,
    Frozen,
}

/// Per-link running sums of the piecewise-linear load `A + B·t`.
struct LinkState {
    fixed: Vec<f64>,
    weight: Vec<f64>,
    n_linear: Vec<u32>,
    n_at_guarantee: Vec<u32>,
    saturated: Vec<bool>,
}

impl LinkState {
    /// The level at which link `l` saturates, given the current level `now`.
    fn level(&self, l: usize, cap: f64, now: f64) -> Option<f64> {
        if self.n_linear[l] > 0 {
            // Rounding can put a just-touched link a hair below `now`; it saturates now.
            Some(((cap - self.fixed[l]) / self.weight[l]).max(now))
        } else if self.n_at_guarantee[l] > 0 && cap - self.fixed[l] <= REL_TOL * cap {
            // Full with flows that are all at their guarantee: they can never rise.
            Some(now)
        } else {
            None
        }
    }
}

/// Computes the exact weighted max-min fair allocation (with caps and guarantees) of `p`.
pub fn solve(p: &Problem) -> Allocation {
    let n_flows = p.num_flows();
    let n_links = p.num_links();
    let caps = p.capacities();
    let weights = p.weights();
    let link_flows = p.link_flows();

    let mut links = LinkState {
        fixed: vec![0.0; n_links],
        weight: vec![0.0; n_links],
        n_linear: vec![0; n_links],
        n_at_guarantee: vec![0; n_links],
        saturated: vec![false; n_links],
    };
    let mut state = vec![FlowState::Linear; n_flows];
    let mut rates = vec![0.0; n_flows];
    let mut bottleneck: Vec<Option<u32>> = vec![None; n_flows];
    let mut guarantee_exits: Vec<(f64, u32)> = Vec::new();
    let mut cap_events: Vec<(f64, u32)> = Vec::new();

    for f in 0..n_flows {
        let (w, g, d) = (weights[f], p.guarantee(f), p.demand(f));
        let path = p.path(f);
        if d <= g {
            // Demand no larger than the guarantee (or zero): fixed from the start.
            state[f] = FlowState::Frozen;
            rates[f] = d;
            for &l in path {
                links.fixed[l as usize] += d;
            }
            continue;
        }
        if g > 0.0 {
            state[f] = FlowState::AtGuarantee;
            rates[f] = g;
            guarantee_exits.push((g / w, f as u32));
            for &l in path {
                links.fixed[l as usize] += g;
                links.n_at_guarantee[l as usize] += 1;
            }
        } else {
            for &l in path {
                links.weight[l as usize] += w;
                links.n_linear[l as usize] += 1;
            }
        }
        if d.is_finite() {
            cap_events.push((d / w, f as u32));
        }
    }
    let by_level = |a: &(f64, u32), b: &(f64, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    guarantee_exits.sort_unstable_by(by_level);
    cap_events.sort_unstable_by(by_level);

    let mut heap = IndexedMinHeap::new(n_links);
    for l in 0..n_links {
        if let Some(t) = links.level(l, caps[l], 0.0) {
            heap.set(l, t);
        }
    }

    let mut link_level = vec![None; n_links];
    let mut link_iteration = vec![None; n_links];
    let mut iterations = 0u32;
    let mut iteration_level = f64::NEG_INFINITY;
    let (mut next_exit, mut next_cap) = (0usize, 0usize);

    loop {
        while next_exit < guarantee_exits.len()
            && state[guarantee_exits[next_exit].1 as usize] != FlowState::AtGuarantee
        {
            next_exit += 1;
        }
        while next_cap < cap_events.len()
            && state[cap_events[next_cap].1 as usize] == FlowState::Frozen
        {
            next_cap += 1;
        }
        let t_exit = guarantee_exits
            .get(next_exit)
            .map_or(f64::INFINITY, |e| e.0);
        let t_cap = cap_events.get(next_cap).map_or(f64::INFINITY, |e| e.0);
        let (t_link, link) = top_link(&mut heap, &links, caps, now_floor(iteration_level));
        let now = t_exit.min(t_cap).min(t_link);
        if now == f64::INFINITY {
            break;
        }

        if t_exit == now {
            // 1. Guarantee exit: the flow starts following its weighted share.
            let f = guarantee_exits[next_exit].1 as usize;
            next_exit += 1;
            state[f] = FlowState::Linear;
            let (w, g) = (weights[f], p.guarantee(f));
            for &l in p.path(f) {
                let l = l as usize;
                links.fixed[l] -= g;
                links.weight[l] += w;
                links.n_at_guarantee[l] -= 1;
                links.n_linear[l] += 1;
                // The only event that can lower a level: re-key at once.
                if !links.saturated[l] {
                    if let Some(t) = links.level(l, caps[l], now) {
                        heap.set(l, t);
                    }
                }
            }
        } else {
            // A removal: caps and saturations within REL_TOL of each other share an iteration.
            if now > iteration_level + REL_TOL * now.abs().max(f64::MIN_POSITIVE) {
                iterations += 1;
                iteration_level = now;
            }
            if t_cap == now {
                // 2. Cap: demand-limited, no bottleneck link.
                let f = cap_events[next_cap].1 as usize;
                next_cap += 1;
                let d = p.demand(f);
                freeze(p, f, d, &mut state, &mut rates, &mut links);
            } else {
                // 3. Saturation of `link`.
                heap.remove(link);
                links.saturated[link] = true;
                link_level[link] = Some(now);
                link_iteration[link] = Some(iterations);
                let flows = link_flows.of(link);
                for (i, &f) in flows.iter().enumerate() {
                    prefetch_flow(p, &state, flows, i);
                    let f = f as usize;
                    let rate = match state[f] {
                        FlowState::Frozen => continue,
                        FlowState::AtGuarantee => p.guarantee(f),
                        FlowState::Linear => (weights[f] * now).min(p.demand(f)),
                    };
                    bottleneck[f] = Some(link as u32);
                    freeze(p, f, rate, &mut state, &mut rates, &mut links);
                }
            }
        }
    }

    Allocation {
        rates,
        bottleneck,
        link_level,
        link_iteration,
        iterations,
    }
}

/// Freezes flow `f` at `rate` and moves its contribution on every link into the fixed load.
#[inline]
fn freeze(
    p: &Problem,
    f: usize,
    rate: f64,
    state: &mut [FlowState],
    rates: &mut [f64],
    links: &mut LinkState,
) {
    let w = p.weights()[f];
    let was = state[f];
    state[f] = FlowState::Frozen;
    rates[f] = rate;
    for &l in p.path(f) {
        let l = l as usize;
        match was {
            FlowState::Linear => {
                links.fixed[l] += rate;
                links.weight[l] -= w;
                links.n_linear[l] -= 1;
                if links.n_linear[l] == 0 {
                    links.weight[l] = 0.0; // no drift: the sum of an empty set is exactly 0
                }
            }
            FlowState::AtGuarantee => {
                // Its guarantee is already in the fixed load.
                links.n_at_guarantee[l] -= 1;
            }
            FlowState::Frozen => unreachable!("a flow freezes once"),
        }
    }
}

/// How far ahead in a link's flow list [`prefetch_flow`] reaches: far enough to hide a memory
/// access, near enough to stay in cache.
const PREFETCH_AHEAD: usize = 8;

/// Saturating a link walks its flows, which are scattered over the flow arrays, and each flow's
/// path; on a million flows these reads are cache misses that dominated the solve (perf: 80% of
/// `freeze` waiting on one load). Prefetch in two stages: the row pointer and state of the flow
/// `2·PREFETCH_AHEAD` ahead, then the path of the flow `PREFETCH_AHEAD` ahead (whose row pointer
/// arrived in the meantime).
#[inline(always)]
fn prefetch_flow(p: &Problem, state: &[FlowState], flows: &[u32], i: usize) {
    if let Some(&far) = flows.get(i + 2 * PREFETCH_AHEAD) {
        prefetch(&p.path_ptr()[far as usize]);
        prefetch(&state[far as usize]);
        prefetch(&p.weights()[far as usize]);
    }
    if let Some(&near) = flows.get(i + PREFETCH_AHEAD) {
        let start = p.path_ptr()[near as usize];
        if let Some(first) = p.path_links().get(start) {
            prefetch(first);
        }
    }
}

#[inline(always)]
pub(crate) fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it never faults and does not change memory. The pointer
    // comes from a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            r as *const T as *const i8,
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// The level below which no event has been processed yet (0 before the first removal).
fn now_floor(iteration_level: f64) -> f64 {
    iteration_level.max(0.0)
}

/// The link with the lowest saturation level.
///
/// Freezing a flow at the current level `t` can only *raise* the level of the other links on its
/// path (it leaves with `w·t` while they would give it at least as much), so freezes do not touch
/// the heap; a key can only be stale by being too low. The top is therefore re-keyed lazily:
/// recompute its true level and sift it down until the top is exact. Guarantee exits, which
/// lower levels, re-key eagerly.
fn top_link(heap: &mut IndexedMinHeap, links: &LinkState, caps: &[f64], now: f64) -> (f64, usize) {
    while let Some((key, l)) = heap.peek() {
        match links.level(l, caps[l], now) {
            Some(t) if t == key => return (t, l),
            Some(t) => heap.set(l, t),
            None => heap.remove(l),
        }
    }
    (f64::INFINITY, usize::MAX)
}
