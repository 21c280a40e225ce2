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
//! One pass over the flows gives the starting sums and copies every path into a packed row of
//! `u16` links ([`PackedPaths`]: one cache line a flow where the problem's row pointer and path
//! took two or three), from which the links × flows index is built in the compressed form of
//! [`FlowLists`](super::flow_lists) (half the bytes of `u32` flow indices, which pays for the
//! rows); frozen flags are a bit set that stays in cache; a saturating link's unfrozen flows are
//! picked first and their rows fetched ahead of their freezes; and bottlenecks and rates are
//! written after the loop from the frozen flows each saturated link keeps in its own list,
//! recomputed with the same operations, so the loop makes no scattered stores and the result is
//! bit for bit what the flow-by-flow version gave. The packed rows and the compressed index (the
//! compact layout) are used from [`COMPACT_FROM_BYTES`] of flow arrays; smaller problems, which
//! stay in cache, read the problem's own paths and a plain `u32` index. Measurements, and where
//! the time still goes: docs/benchmarks.md.

use super::flow_lists::{FlowLists, ForEachLink};
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

/// One link's capacity and running sums of its piecewise-linear load `A + B·t`, together in 32
/// bytes: a freeze updates the sums of every link on the flow's path and a level reads them all
/// with the capacity, so one cache line per link visited, where an array per field took three or
/// four (docs/benchmarks.md, issue 25's third sitting).
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct LinkSums {
    /// `A`: the rates of frozen flows and the guarantees of flows still at them.
    fixed: f64,
    /// `B`: the weights of flows in their linear regime.
    weight: f64,
    cap: f64,
    n_linear: u32,
    n_at_guarantee: u32,
}

/// Per-link sums ([`LinkSums`]) and whether the link has saturated.
struct LinkState {
    sums: Vec<LinkSums>,
    saturated: Vec<bool>,
}

impl std::ops::Index<usize> for LinkState {
    type Output = LinkSums;
    #[inline(always)]
    fn index(&self, l: usize) -> &LinkSums {
        &self.sums[l]
    }
}

impl std::ops::IndexMut<usize> for LinkState {
    #[inline(always)]
    fn index_mut(&mut self, l: usize) -> &mut LinkSums {
        &mut self.sums[l]
    }
}

impl LinkState {
    /// The level at which link `l` saturates, given the current level `now`.
    fn level(&self, l: usize, now: f64) -> Option<f64> {
        let LinkSums {
            fixed,
            weight,
            cap,
            n_linear,
            n_at_guarantee,
        } = self.sums[l];
        if n_linear > 0 {
            // Rounding can put a just-touched link a hair below `now`; it saturates now.
            Some(((cap - fixed) / weight).max(now))
        } else if n_at_guarantee > 0 && cap - fixed <= REL_TOL * cap {
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
    /// Every flow's links packed in fixed-width `u16` rows, if the problem fits them.
    packed: Option<PackedPaths>,
    /// How many flows cross each link, outside the compact layout (for the plain index).
    degree: Option<Vec<usize>>,
}

/// One pass over the paths: the initial load of every link, the flows' starting regimes, their
/// guarantee-exit and cap events, and in the compact layout (`COMPACT`) the packed rows of
/// [`PackedPaths`] (if the problem fits them), outside it how many flows cross each link.
///
/// Compiled once per layout, and outside the compact layout the count is taken in the same walk
/// of each path as the sums: a separate walk for it, and a test of the layout per flow, cost the
/// 100,000-flow problems 14% of this pass (docs/benchmarks.md, issue 25's third sitting).
fn start<const COMPACT: bool>(p: &Problem) -> Start {
    let (n_flows, n_links) = (p.num_flows(), p.num_links());
    let weights = p.weights();
    let mut links = LinkState {
        sums: (p.capacities().iter())
            .map(|&cap| LinkSums {
                fixed: 0.0,
                weight: 0.0,
                cap,
                n_linear: 0,
                n_at_guarantee: 0,
            })
            .collect(),
        saturated: vec![false; n_links],
    };
    let mut state = FlowState {
        frozen: FlowBits::new(n_flows),
        at_guarantee: FlowBits::new(n_flows),
    };
    let mut guarantee_exits: Vec<(f64, u32)> = Vec::new();
    let mut cap_events: Vec<(f64, u32)> = Vec::new();
    let mut degree = vec![0usize; if COMPACT { 0 } else { n_links }];
    // Counts a flow on link `l` for the plain index (nothing in the compact layout).
    let mut count = |l: usize| {
        if !COMPACT {
            degree[l] += 1;
        }
    };
    let mut packed = if COMPACT {
        PackedPaths::with_capacity(p)
    } else {
        None
    };
    for f in 0..n_flows {
        let (w, g, d) = (weights[f], p.guarantee(f), p.demand(f));
        let path = p.path(f);
        if let Some(packed) = &mut packed {
            packed.push(path);
        }
        if d <= g {
            // Demand no larger than the guarantee (or zero): fixed from the start.
            state.frozen.set(f);
            for &l in path {
                links[l as usize].fixed += d;
                count(l as usize);
            }
            continue;
        }
        if g > 0.0 {
            state.at_guarantee.set(f);
            guarantee_exits.push((g / w, f as u32));
            for &l in path {
                links[l as usize].fixed += g;
                links[l as usize].n_at_guarantee += 1;
                count(l as usize);
            }
        } else {
            for &l in path {
                links[l as usize].weight += w;
                links[l as usize].n_linear += 1;
                count(l as usize);
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
        packed,
        degree: (!COMPACT).then_some(degree),
    }
}

/// Computes the exact weighted max-min fair allocation (with caps and guarantees) of `p`, on
/// the calling thread.
pub fn solve(p: &Problem) -> Allocation {
    solve_with_threads(p, 1)
}

/// [`solve`] with the links × flows index built by `threads` threads while the calling thread
/// makes the first pass over the flows (on problems large enough for the compact layout, see
/// [`COMPACT_FROM_BYTES`]; smaller ones are solved on the calling thread); the event loop is
/// sequential. The result is the same, bit for bit, for any number of threads (every link's list
/// holds the same flows in the same order, and every sum is taken in the same order).
pub fn solve_with_threads(p: &Problem, threads: usize) -> Allocation {
    solve_laid_out(p, threads, compact_pays(p))
}

/// Problems whose flow arrays (row pointers, paths and weights) take at least this many bytes
/// are solved in the compact layout: paths packed in `u16` rows ([`PackedPaths`]) and the index
/// compressed ([`FlowLists::Gaps`]). Those arrays are then read at random from memory, and the
/// compact layout halves the cache lines a frozen flow costs; smaller problems stay in the last
/// level cache (32 MB here, shared), where building the packed rows and decoding the gaps cost
/// more than they save (measured in docs/benchmarks.md: 100,000 flows, 4 MB, were slower with
/// it; a million, 39 MB, faster).
pub const COMPACT_FROM_BYTES: usize = 16 << 20;

/// Whether `p` is large enough for the compact layout.
fn compact_pays(p: &Problem) -> bool {
    p.num_flows() * 16 + p.path_links().len() * 4 >= COMPACT_FROM_BYTES
}

/// [`solve_with_threads`] in the compact layout or not, whatever the problem's size (the tests
/// compare the two bit for bit).
#[cfg(test)]
pub(super) fn solve_compact(p: &Problem, threads: usize, compact: bool) -> Allocation {
    solve_laid_out(p, threads, compact)
}

/// [`solve_with_threads`], in the compact layout if `compact` (the paths packed if the problem
/// fits [`PackedPaths`]).
fn solve_laid_out(p: &Problem, threads: usize, compact: bool) -> Allocation {
    let (n_flows, n_links) = (p.num_flows(), p.num_links());
    let (mut first, lists) = if threads <= 1 || !compact {
        let mut first = if compact {
            start::<true>(p)
        } else {
            start::<false>(p)
        };
        // From the packed rows if there are any: a third of the bytes of the problem's paths.
        let lists = match (&first.packed, first.degree.take()) {
            (_, Some(degree)) => FlowLists::plain(degree, n_flows, &Csr(p)),
            (Some(packed), None) => FlowLists::build(n_links, n_flows, true, 1, packed),
            (None, None) => FlowLists::build(n_links, n_flows, true, 1, &Csr(p)),
        };
        (first, lists)
    } else {
        std::thread::scope(|s| {
            let index = s.spawn(|| FlowLists::build(n_links, n_flows, true, threads, &Csr(p)));
            let first = start::<true>(p);
            (first, index.join().expect("index thread"))
        })
    };
    match first.packed.take() {
        Some(packed) => fill(p, packed, first, lists),
        None => fill(p, Csr(p), first, lists),
    }
}

/// The event loop and the results, reading the frozen flows' links through `paths` (dropped
/// when the loop ends, before the results are allocated).
fn fill<P: Paths>(p: &Problem, paths: P, first: Start, mut lists: FlowLists) -> Allocation {
    let n_flows = p.num_flows();
    let n_links = p.num_links();
    let weights = p.weights();
    let Start {
        mut links,
        mut state,
        mut guarantee_exits,
        mut cap_events,
        ..
    } = first;
    let by_level = |a: &(f64, u32), b: &(f64, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    guarantee_exits.sort_unstable_by(by_level);
    cap_events.sort_unstable_by(by_level);

    let mut heap = IndexedMinHeap::new(n_links);
    for l in 0..n_links {
        if let Some(t) = links.level(l, 0.0) {
            heap.set(l, t);
        }
    }

    let mut link_level = vec![None; n_links];
    let mut link_iteration = vec![None; n_links];
    let mut iterations = 0u32;
    let mut iteration_level = f64::NEG_INFINITY;
    let (mut next_exit, mut next_cap) = (0usize, 0usize);
    // Every saturated link, in order, and how many flows it froze in each part of the index:
    // those flows are written over the start of the link's own list (they are a subset of it,
    // in list order; nothing else reads it again), and the bottlenecks and rates are written
    // from them after the loop, in one pass, rather than as scattered stores inside it.
    let parts = lists.parts();
    let mut runs: Vec<u32> = Vec::with_capacity(n_links);
    let mut kept: Vec<u32> = Vec::with_capacity(n_links * parts);
    // The flows being frozen by one saturation (reused).
    let mut batch: Vec<u32> = Vec::new();

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
        let (t_link, link) = top_link(&mut heap, &links, now_floor(iteration_level));
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
                let sums = &mut links[l];
                sums.fixed -= g;
                sums.weight += w;
                sums.n_at_guarantee -= 1;
                sums.n_linear += 1;
                // The only event that can lower a level: re-key at once.
                if !links.saturated[l] {
                    if let Some(t) = links.level(l, now) {
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
                freeze(&paths, weights, f, rate, usize::MAX, &mut state, &mut links);
            } else {
                // 3. Saturation of `link`: freeze its unfrozen flows in increasing flow index.
                heap.remove(link);
                links.saturated[link] = true;
                link_level[link] = Some(now);
                link_iteration[link] = Some(iterations);
                // A flow crosses a link once, so no flow of this link is frozen by another of
                // its flows: the walk can run ahead of the freezes. See `pick_unfrozen`.
                let at = kept.len();
                kept.resize(at + parts, 0);
                let batch = pick_unfrozen(
                    &paths,
                    weights,
                    (&mut lists, link, &mut kept[at..]),
                    &state.frozen,
                    &mut batch,
                );
                for (i, &f) in batch.iter().enumerate() {
                    if let Some(&ahead) = batch.get(i + PATH_AHEAD) {
                        paths.ahead(ahead as usize);
                    }
                    let f = f as usize;
                    let rate = if state.at_guarantee.get(f) {
                        p.guarantee(f)
                    } else {
                        (weights[f] * now).min(p.demand(f))
                    };
                    freeze(&paths, weights, f, rate, link, &mut state, &mut links);
                }
                runs.push(link as u32);
            }
        }
    }

    drop((paths, batch));
    let mut bottleneck: Vec<Option<u32>> = vec![None; n_flows];
    for (&link, kept) in runs.iter().zip(kept.chunks_exact(parts)) {
        lists.for_each_kept(link as usize, kept, |f| bottleneck[f as usize] = Some(link));
    }
    drop(lists);
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
fn freeze<P: Paths>(
    paths: &P,
    weights: &[f64],
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
        paths.for_each_link(f, |l| links[l].n_at_guarantee -= 1);
        return;
    }
    let w = weights[f];
    paths.for_each_link(f, |l| {
        if l == saturating {
            return;
        }
        let sums = &mut links[l];
        sums.fixed += rate;
        sums.weight -= w;
        sums.n_linear -= 1;
        if sums.n_linear == 0 {
            sums.weight = 0.0; // no drift: the sum of an empty set is exactly 0
        }
    });
}

/// Returns the unfrozen flows of a saturating link, in list order, keeps them at the start of its
/// list in the index (`kept`: how many in each part), and starts fetching everything their
/// freezes will read. The flows returned are the kept start of the list itself in the plain
/// index, and `batch`, filled here, in the compressed one (whose gaps must be decoded): a second
/// copy of every frozen flow in the plain index cost the 100,000-flow problems about 3% of the
/// loop (docs/benchmarks.md, issue 25's third sitting).
///
/// The flows of a link are scattered over the flow arrays, so freezing them is a string of cache
/// misses (before issue 25 they were three quarters of the solve). The work is staged so that
/// each stage's loads are in flight together rather than one after another: walk the list, test
/// each flow's frozen bit (a bit set that stays in L2) and start fetching the weight and path
/// (or, for [`Csr`], the row pointer) of each unfrozen one; then the first paths of the batch
/// that still need a second stage ([`Paths::ahead`]). The caller then freezes the batch.
#[inline(always)]
fn pick_unfrozen<'a, P: Paths>(
    paths: &P,
    weights: &[f64],
    (lists, link, kept): (&'a mut FlowLists, usize, &mut [u32]),
    frozen: &FlowBits,
    batch: &'a mut Vec<u32>,
) -> &'a [u32] {
    batch.clear();
    let decoded = !lists.is_plain();
    lists.retain(link, kept, |f| {
        let unfrozen = !frozen.get(f as usize);
        if unfrozen {
            paths.stage(f as usize);
            prefetch(&weights[f as usize]);
            if decoded {
                batch.push(f);
            }
        }
        unfrozen
    });
    let picked = match lists.plain_kept(link, kept) {
        Some(list) => list,
        None => &batch[..],
    };
    for &f in picked.iter().take(PATH_AHEAD) {
        paths.ahead(f as usize);
    }
    picked
}

/// Where the event loop reads the links of the flows it freezes, and how it fetches them ahead.
trait Paths: ForEachLink {
    /// Starts fetching the path of `f` (called when `f` joins a batch, a batch ahead).
    fn stage(&self, f: usize);
    /// Second stage of the fetch, [`PATH_AHEAD`] freezes before `f`'s (where the first stage
    /// only fetched where the path is).
    fn ahead(&self, f: usize);
}

/// The problem's own CSR paths: a row pointer (`usize`) and the `u32` links, two or three cache
/// lines a flow, in two stages.
struct Csr<'a>(&'a Problem);

impl Paths for Csr<'_> {
    #[inline(always)]
    fn stage(&self, f: usize) {
        prefetch(&self.0.path_ptr()[f]);
    }
    #[inline(always)]
    fn ahead(&self, f: usize) {
        prefetch(&self.0.path_links()[self.0.path_ptr()[f]]);
    }
}

impl ForEachLink for Csr<'_> {
    #[inline(always)]
    fn for_each_link(&self, f: usize, mut visit: impl FnMut(usize)) {
        for &l in self.0.path(f) {
            visit(l as usize);
        }
    }
}

/// Every flow's links as `u16`, in rows of a fixed width (the longest path), unused entries
/// [`PackedPaths::NONE`]: row `f` is found without a row pointer, and it is one cache line (or
/// two, when it straddles one) instead of a pointer and a path in two arrays. With the
/// compressed index that pays for it, it took the 1M-flow k = 16 solve from about 92 to 65 ms CPU
/// (docs/benchmarks.md). Built in the first pass, in the compact layout, when the links fit `u16`
/// and the rows take no more memory than the problem's `u32` paths (the width at most twice the
/// mean path length); [`Csr`] otherwise.
struct PackedPaths {
    width: usize,
    links: Vec<u16>,
}

impl PackedPaths {
    /// Marks the unused end of a row (never a link: there are fewer than `u16::MAX` links).
    const NONE: u16 = u16::MAX;

    /// Empty rows for `p`'s flows, if `p` fits them.
    fn with_capacity(p: &Problem) -> Option<PackedPaths> {
        let (n_flows, nnz) = (p.num_flows(), p.path_links().len());
        let width = p.max_path_len();
        let fits = p.num_links() < Self::NONE as usize && width * n_flows <= 2 * nnz;
        fits.then(|| {
            let mut links = Vec::with_capacity(width * n_flows);
            advise_huge_pages(links.spare_capacity_mut());
            PackedPaths { width, links }
        })
    }

    /// Appends the next flow's row.
    #[inline(always)]
    fn push(&mut self, path: &[u32]) {
        self.links.extend(path.iter().map(|&l| l as u16));
        let end = self.links.len() + self.width - path.len();
        self.links.resize(end, Self::NONE);
    }

    #[inline(always)]
    fn row(&self, f: usize) -> &[u16] {
        &self.links[f * self.width..(f + 1) * self.width]
    }
}

impl Paths for PackedPaths {
    #[inline(always)]
    fn stage(&self, f: usize) {
        let row = self.row(f);
        prefetch(&row[0]);
        prefetch(&row[row.len() - 1]);
    }
    #[inline(always)]
    fn ahead(&self, _f: usize) {}
}

impl ForEachLink for PackedPaths {
    #[inline(always)]
    fn for_each_link(&self, f: usize, mut visit: impl FnMut(usize)) {
        for &l in self.row(f) {
            if l == Self::NONE {
                break;
            }
            visit(l as usize);
        }
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

/// Asks the kernel to back the 2 MiB-aligned part of `v`, a fresh allocation not yet written, with
/// huge pages (`madvise(MADV_HUGEPAGE)`; this machine's kernel does it only where asked): the
/// solve reads its packed paths at random and writes its index at scattered places, and with
/// 4 KiB pages nearly every such access also missed the TLB. Measured on the 1M-flow problem:
/// docs/benchmarks.md. Only a hint: errors are ignored, and it changes no contents.
pub(crate) fn advise_huge_pages<T>(v: &[T]) {
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn madvise(addr: *mut u8, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let end = start + std::mem::size_of_val(v);
        let (a, b) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if b > a {
            // SAFETY: `madvise` (libc, which std links) with MADV_HUGEPAGE changes no contents;
            // the range lies inside `v`'s allocation.
            unsafe { madvise(a as *mut u8, b - a, MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
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
fn top_link(heap: &mut IndexedMinHeap, links: &LinkState, now: f64) -> (f64, usize) {
    while let Some((key, l)) = heap.peek() {
        match links.level(l, now) {
            Some(t) if t == key => return (t, l),
            Some(t) => heap.set(l, t),
            None => heap.remove(l),
        }
    }
    (f64::INFINITY, usize::MAX)
}
