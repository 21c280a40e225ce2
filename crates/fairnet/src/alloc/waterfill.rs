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
//!
//! # Layout (issue 25)
//!
//! On a million flows the solve is bound by cache misses on the flow arrays, not by arithmetic.
//! One pass over the flows gives the starting sums and each link's flow count, from which the
//! links × flows index is built in one more pass; frozen flags are a bit set that stays in
//! cache; a saturating link's unfrozen flows are picked first and their rows fetched ahead of
//! their freezes; and bottlenecks and rates are written after the loop from a log of the freeze
//! order, recomputed with the same operations, so the loop makes no scattered stores and the
//! result is bit for bit what the flow-by-flow version gave. Measurements, and where the time
//! still goes: docs/benchmarks.md.

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

/// One bit per flow (a million flows: 128 KB, which stays in L2 where a byte per flow would
/// not; the walk of a saturated link's flows reads it for every flow, frozen or not).
struct FlowBits(Vec<u64>);

impl FlowBits {
    fn new(n: usize) -> Self {
        FlowBits(vec![0; n.div_ceil(64)])
    }
    #[inline(always)]
    fn get(&self, f: usize) -> bool {
        self.0[f / 64] >> (f % 64) & 1 != 0
    }
    #[inline(always)]
    fn set(&mut self, f: usize) {
        self.0[f / 64] |= 1 << (f % 64);
    }
    #[inline(always)]
    fn clear(&mut self, f: usize) {
        self.0[f / 64] &= !(1 << (f % 64));
    }
}

/// Per-flow state: frozen, and (only with guarantees) still at its guarantee; a flow in
/// neither set is in its linear (weighted-share) regime.
struct FlowState {
    frozen: FlowBits,
    at_guarantee: FlowBits,
}

/// Per-link running sums of the piecewise-linear load `A + B·t`, one array per field.
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

/// The state before the first event, from one pass over the flows.
struct Start {
    links: LinkState,
    state: FlowState,
    guarantee_exits: Vec<(f64, u32)>,
    cap_events: Vec<(f64, u32)>,
    /// How many flows cross each link (for the transpose).
    degree: Vec<u32>,
}

/// One pass over the paths: the initial load of every link, the flows' starting regimes, their
/// guarantee-exit and cap events, and how many flows cross each link.
fn start(p: &Problem) -> Start {
    let (n_flows, n_links) = (p.num_flows(), p.num_links());
    let weights = p.weights();
    let mut links = LinkState {
        fixed: vec![0.0; n_links],
        weight: vec![0.0; n_links],
        n_linear: vec![0; n_links],
        n_at_guarantee: vec![0; n_links],
        saturated: vec![false; n_links],
    };
    let mut state = FlowState {
        frozen: FlowBits::new(n_flows),
        at_guarantee: FlowBits::new(n_flows),
    };
    let mut guarantee_exits: Vec<(f64, u32)> = Vec::new();
    let mut cap_events: Vec<(f64, u32)> = Vec::new();
    let mut degree = vec![0u32; n_links];
    for f in 0..n_flows {
        let (w, g, d) = (weights[f], p.guarantee(f), p.demand(f));
        let path = p.path(f);
        if d <= g {
            // Demand no larger than the guarantee (or zero): fixed from the start.
            state.frozen.set(f);
            for &l in path {
                links.fixed[l as usize] += d;
                degree[l as usize] += 1;
            }
            continue;
        }
        if g > 0.0 {
            state.at_guarantee.set(f);
            guarantee_exits.push((g / w, f as u32));
            for &l in path {
                links.fixed[l as usize] += g;
                links.n_at_guarantee[l as usize] += 1;
                degree[l as usize] += 1;
            }
        } else {
            for &l in path {
                links.weight[l as usize] += w;
                links.n_linear[l as usize] += 1;
                degree[l as usize] += 1;
            }
        }
        if d.is_finite() {
            cap_events.push((d / w, f as u32));
        }
    }
    Start {
        links,
        state,
        guarantee_exits,
        cap_events,
        degree,
    }
}

/// Computes the exact weighted max-min fair allocation (with caps and guarantees) of `p`, on
/// the calling thread.
pub fn solve(p: &Problem) -> Allocation {
    solve_with_threads(p, 1)
}

/// [`solve`] with the links × flows index built by `threads` threads while the calling thread
/// makes the first pass over the flows; the event loop is sequential. The result is the same,
/// bit for bit, for any number of threads (the index is the same entry for entry, and every sum
/// is taken in the same order).
pub fn solve_with_threads(p: &Problem, threads: usize) -> Allocation {
    let n_flows = p.num_flows();
    let n_links = p.num_links();
    let caps = p.capacities();
    let weights = p.weights();

    let (first, link_flows) = if threads <= 1 {
        let first = start(p);
        let link_flows = p.link_flows_of_degrees(&first.degree);
        (first, link_flows)
    } else {
        std::thread::scope(|s| {
            let index = s.spawn(|| p.link_flows_parallel(threads));
            let first = start(p);
            (first, index.join().expect("index thread"))
        })
    };
    let Start {
        mut links,
        mut state,
        mut guarantee_exits,
        mut cap_events,
        degree,
    } = first;
    drop(degree);
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
    // Every flow frozen by a saturation, in the order frozen, and for each saturated link the
    // end of its run in `frozen_order`: the bottlenecks and rates are written from these after
    // the loop, in one pass, rather than as scattered stores inside it. Sized once.
    let mut frozen_order: Vec<u32> = Vec::with_capacity(n_flows);
    let mut runs: Vec<(u32, usize)> = Vec::with_capacity(n_links);

    loop {
        // Exits of flows no longer at their guarantee (frozen there keep the bit; see `freeze`).
        while let Some(&(_, f)) = guarantee_exits.get(next_exit) {
            if state.at_guarantee.get(f as usize) && !state.frozen.get(f as usize) {
                break;
            }
            next_exit += 1;
        }
        while next_cap < cap_events.len() && state.frozen.get(cap_events[next_cap].1 as usize) {
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
            state.at_guarantee.clear(f);
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
                let rate = p.demand(f);
                freeze(p, f, rate, usize::MAX, &mut state, &mut links);
            } else {
                // 3. Saturation of `link`: freeze its unfrozen flows in increasing flow index.
                heap.remove(link);
                links.saturated[link] = true;
                link_level[link] = Some(now);
                link_iteration[link] = Some(iterations);
                // A flow crosses a link once, so no flow of this link is frozen by another of
                // its flows: the walk can run ahead of the freezes. See `fetch_batch`.
                let start = frozen_order.len();
                fetch_batch(p, link_flows.of(link), &state.frozen, &mut frozen_order);
                let batch = &frozen_order[start..];
                for (i, &f) in batch.iter().enumerate() {
                    if let Some(&ahead) = batch.get(i + PATH_AHEAD) {
                        prefetch(&p.path_links()[p.path_ptr()[ahead as usize]]);
                    }
                    let f = f as usize;
                    let rate = if state.at_guarantee.get(f) {
                        p.guarantee(f)
                    } else {
                        (weights[f] * now).min(p.demand(f))
                    };
                    freeze(p, f, rate, link, &mut state, &mut links);
                }
                runs.push((link as u32, frozen_order.len()));
            }
        }
    }
    drop(link_flows);

    let mut bottleneck: Vec<Option<u32>> = vec![None; n_flows];
    let mut start = 0;
    for &(link, end) in &runs {
        for &f in &frozen_order[start..end] {
            bottleneck[f as usize] = Some(link);
        }
        start = end;
    }
    drop(frozen_order);
    // The rate each flow was frozen at, recomputed bit for bit as the loop computed it (the same
    // operations on the same operands): a saturated link's flows at `w·t` (capped at the demand)
    // or, if still at their guarantee, at it; demand-limited flows at the demand.
    let rates = (0..n_flows)
        .map(|f| match bottleneck[f] {
            Some(_) if state.at_guarantee.get(f) => p.guarantee(f),
            Some(l) => {
                let t = link_level[l as usize].expect("a bottleneck link saturated");
                (weights[f] * t).min(p.demand(f))
            }
            None if state.frozen.get(f) => p.demand(f),
            None => p.guarantee(f), // never frozen (no link saturates): its starting rate
        })
        .collect();

    Allocation {
        rates,
        bottleneck,
        link_level,
        link_iteration,
        iterations,
    }
}

/// Freezes flow `f` at `rate` and moves its contribution on every link into the fixed load,
/// except on `saturating` (the link that freezes it, if any): that link is out of the level
/// queue for good and its sums are never read again.
#[inline(always)]
fn freeze(
    p: &Problem,
    f: usize,
    rate: f64,
    saturating: usize,
    state: &mut FlowState,
    links: &mut LinkState,
) {
    debug_assert!(!state.frozen.get(f), "a flow freezes once");
    state.frozen.set(f);
    if state.at_guarantee.get(f) {
        // Its guarantee is already in the fixed load. (The bit stays set: the rates are
        // written after the loop, and this says the flow froze at its guarantee.)
        for &l in p.path(f) {
            links.n_at_guarantee[l as usize] -= 1;
        }
        return;
    }
    let w = p.weights()[f];
    for &l in p.path(f) {
        let l = l as usize;
        if l == saturating {
            continue;
        }
        links.fixed[l] += rate;
        links.weight[l] -= w;
        links.n_linear[l] -= 1;
        if links.n_linear[l] == 0 {
            links.weight[l] = 0.0; // no drift: the sum of an empty set is exactly 0
        }
    }
}

/// Appends to `batch` the unfrozen flows of a saturating link, in list order, and starts
/// fetching everything their freezes will read.
///
/// The flows of a link are scattered over the flow arrays, so freezing them is a string of cache
/// misses (before issue 25 they were three quarters of the solve). The work is staged so that
/// each stage's loads are in flight together rather than one after another: (1) walk the list,
/// test each flow's frozen bit (a bit set that stays in L2) and prefetch the row pointer and
/// weight of each unfrozen one; (2) read the row pointers, which have arrived meanwhile, and
/// prefetch the paths. The caller then freezes the new part of the batch.
#[inline(always)]
fn fetch_batch(p: &Problem, listed: &[u32], frozen: &FlowBits, batch: &mut Vec<u32>) {
    let (path_ptr, path_links, weights) = (p.path_ptr(), p.path_links(), p.weights());
    let start = batch.len();
    for &f in listed {
        if !frozen.get(f as usize) {
            prefetch(&path_ptr[f as usize]);
            prefetch(&weights[f as usize]);
            batch.push(f);
        }
    }
    for &f in batch[start..].iter().take(PATH_AHEAD) {
        prefetch(&path_links[path_ptr[f as usize]]);
    }
}

/// How many flows ahead of its freeze a flow's path is prefetched.
const PATH_AHEAD: usize = 16;

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
