//! k-Water-filling (s-PERC §3.1, Algorithm 1), weighted and with caps and guarantees.
//!
//! Each iteration computes a fair share for every remaining link (line 5), removes the links
//! whose share is the lowest within distance `k` in the Link Dependency Graph (lines 6–9: two
//! links are adjacent when they share a flow), assigns that share to their flows (lines 10–12)
//! and subtracts those flows' rates from the other links on their paths (lines 13–18).
//! `N_k`, the number of iterations, bounds the convergence of the distributed algorithms:
//! *Fair* converges within `4·N_1` rounds (Theorem 3), s-PERC within `6·N_2` (Theorem 4).
//!
//! Generalizations (the paper's algorithm is unweighted, uncapped):
//! - *Weights*: a link's share is a level `t` in bits/s per unit weight,
//!   `t = remaining capacity / Σ w` over its remaining flows, and flow `f` gets `w_f·t`.
//! - *Caps*: a flow with demand `d_f` gets a virtual link of its own with level `d_f / w_f`
//!   (the construction s-PERC §7.1 uses for its virtual link l₀). It is adjacent to every link on
//!   the flow's path and is removed by the same neighborhood rule.
//! - *Guarantees*: a link's level solves `Σ max(w_f·t, g_f) = remaining capacity`; a link already
//!   filled by guarantees has level 0.
//!
//! Levels are compared with a relative tolerance of [`REL_TOL`]. Without guarantees the `k = ∞`
//! iteration count equals the event-driven oracle's ([`super::solve`]), which is much faster; this
//! module exists for `N_1` and `N_2` and as a second, independent route to the same rates.

use super::problem::{Problem, REL_TOL};

/// Neighborhood radius `k` of k-Water-filling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Radius {
    /// `k = 1`: lowest share among adjacent links (the algorithm that bounds *Fair*).
    One,
    /// `k = 2`: lowest share among links within two hops (the algorithm that bounds s-PERC).
    Two,
    /// `k = ∞`: lowest share globally (standard sequential water-filling, Bertsekas).
    Infinite,
}

/// Outcome of k-Water-filling.
#[derive(Debug, Clone)]
pub struct KWaterfilling {
    /// Rate of every flow, bits per second (identical, within tolerance, for every `k`).
    pub rates: Vec<f64>,
    /// `N_k`: the number of iterations.
    pub iterations: u32,
    /// The iteration (1-based) in which each link was removed; `None` for links that were
    /// never the lowest in their neighborhood (no flows, or all their flows removed elsewhere).
    pub link_iteration: Vec<Option<u32>>,
}

#[inline]
fn at_most(a: f64, b: f64) -> bool {
    a <= b + REL_TOL * b.abs()
}

/// Runs k-Water-filling with radius `k` on `p`.
pub fn k_waterfilling(p: &Problem, k: Radius) -> KWaterfilling {
    let n_flows = p.num_flows();
    let n_links = p.num_links();
    let caps = p.capacities();
    let w = p.weights();

    let mut rates = vec![0.0; n_flows];
    let mut remaining: Vec<u32> = Vec::with_capacity(n_flows);
    let mut fixed = vec![0.0f64; n_links]; // Σ rates of removed flows
    let mut weight_sum = vec![0.0f64; n_links]; // Σ w of remaining flows (no-guarantee case)
    let mut cap_level = vec![f64::INFINITY; n_flows];
    for f in 0..n_flows {
        let d = p.demand(f);
        if d <= p.guarantee(f) {
            rates[f] = d; // fixed from the start, as in the oracle
            for &l in p.path(f) {
                fixed[l as usize] += d;
            }
            continue;
        }
        cap_level[f] = d / w[f];
        remaining.push(f as u32);
        for &l in p.path(f) {
            weight_sum[l as usize] += w[f];
        }
    }

    let mut level = vec![f64::INFINITY; n_links];
    let mut near1 = vec![f64::INFINITY; n_links]; // min level within distance 1
    let mut near2 = vec![f64::INFINITY; n_links]; // min level within distance 2
    let mut flow_near1 = vec![f64::INFINITY; n_flows];
    let mut flow_near2 = vec![f64::INFINITY; n_flows];
    let mut removed = vec![false; n_links];
    let mut link_iteration = vec![None; n_links];
    let mut floors = FloorLevels::new(n_links);
    let mut iterations = 0u32;

    while !remaining.is_empty() {
        iterations += 1;
        // Line 5: the fair share (level) of every link that still carries flows.
        if p.has_guarantees() {
            floors.compute(p, &remaining, &fixed, &mut level);
        } else {
            for &f in &remaining {
                for &l in p.path(f as usize) {
                    let l = l as usize;
                    level[l] = (caps[l] - fixed[l]) / weight_sum[l];
                }
            }
        }
        // Lines 6-9: the lowest level within the neighborhood.
        let mut global_min = f64::INFINITY;
        for &f in &remaining {
            let f = f as usize;
            let mut m = cap_level[f];
            for &l in p.path(f) {
                m = m.min(level[l as usize]);
            }
            flow_near1[f] = m;
            global_min = global_min.min(m);
        }
        let threshold_of = |l: usize, near1: &[f64], near2: &[f64]| match k {
            Radius::One => near1[l],
            Radius::Two => near2[l],
            Radius::Infinite => global_min,
        };
        if k != Radius::Infinite {
            scatter_min(p, &remaining, &flow_near1, &mut near1);
        }
        if k == Radius::Two {
            for &f in &remaining {
                let f = f as usize;
                let mut m = flow_near1[f];
                for &l in p.path(f) {
                    m = m.min(near1[l as usize]);
                }
                flow_near2[f] = m;
            }
            scatter_min(p, &remaining, &flow_near2, &mut near2);
        }
        // The virtual cap link of flow f has the flow's own neighborhood.
        let flow_threshold = |f: usize| match k {
            Radius::One => flow_near1[f],
            Radius::Two => flow_near2[f],
            Radius::Infinite => global_min,
        };
        for &f in &remaining {
            for &l in p.path(f as usize) {
                let l = l as usize;
                if !removed[l] && at_most(level[l], threshold_of(l, &near1, &near2)) {
                    removed[l] = true;
                    link_iteration[l] = Some(iterations);
                }
            }
        }
        // Lines 10-18: assign the removed links' shares and subtract them elsewhere.
        let mut kept = 0;
        for i in 0..remaining.len() {
            let f = remaining[i] as usize;
            let (g, d) = (p.guarantee(f), p.demand(f));
            let mut rate = f64::INFINITY;
            if at_most(cap_level[f], flow_threshold(f)) {
                rate = d;
            }
            for &l in p.path(f) {
                if removed[l as usize] {
                    rate = rate.min((w[f] * level[l as usize]).clamp(g, d));
                }
            }
            if rate.is_finite() {
                rates[f] = rate;
                for &l in p.path(f) {
                    fixed[l as usize] += rate;
                    weight_sum[l as usize] -= w[f];
                }
            } else {
                remaining[kept] = f as u32;
                kept += 1;
            }
        }
        remaining.truncate(kept);
        for &f in &remaining {
            for &l in p.path(f as usize) {
                near1[l as usize] = f64::INFINITY;
                near2[l as usize] = f64::INFINITY;
            }
        }
    }
    KWaterfilling {
        rates,
        iterations,
        link_iteration,
    }
}

/// `out[l] = min(values[f])` over the remaining flows `f` crossing `l` (entries of links with no
/// remaining flows are left as they were, i.e. infinite).
fn scatter_min(p: &Problem, remaining: &[u32], values: &[f64], out: &mut [f64]) {
    for &f in remaining {
        let v = values[f as usize];
        for &l in p.path(f as usize) {
            let o = &mut out[l as usize];
            if v < *o {
                *o = v;
            }
        }
    }
}

/// Scratch space to solve `Σ max(w_f·t, g_f) = capacity − fixed` on every link.
struct FloorLevels {
    ptr: Vec<usize>,
    items: Vec<(f64, f64, f64)>, // (g/w breakpoint, w, g)
}

impl FloorLevels {
    fn new(n_links: usize) -> Self {
        FloorLevels {
            ptr: vec![0; n_links + 1],
            items: Vec::new(),
        }
    }

    fn compute(&mut self, p: &Problem, remaining: &[u32], fixed: &[f64], level: &mut [f64]) {
        let n_links = p.num_links();
        self.ptr.iter_mut().for_each(|x| *x = 0);
        for &f in remaining {
            for &l in p.path(f as usize) {
                self.ptr[l as usize + 1] += 1;
            }
        }
        for l in 0..n_links {
            self.ptr[l + 1] += self.ptr[l];
        }
        self.items.clear();
        self.items.resize(self.ptr[n_links], (0.0, 0.0, 0.0));
        let mut fill = self.ptr[..n_links].to_vec();
        for &f in remaining {
            let f = f as usize;
            let (w, g) = (p.weights()[f], p.guarantee(f));
            for &l in p.path(f) {
                self.items[fill[l as usize]] = (g / w, w, g);
                fill[l as usize] += 1;
            }
        }
        for l in 0..n_links {
            let items = &mut self.items[self.ptr[l]..self.ptr[l + 1]];
            if items.is_empty() {
                continue;
            }
            items.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
            let room = p.capacities()[l] - fixed[l];
            let mut floor_sum: f64 = items.iter().map(|x| x.2).sum();
            if floor_sum >= room * (1.0 - REL_TOL) {
                level[l] = 0.0; // already filled by guarantees
                continue;
            }
            // Walk the breakpoints; between them the load is floor_sum + weight·t.
            let mut weight = 0.0;
            let mut t = f64::INFINITY;
            for (i, &(b, wi, gi)) in items.iter().enumerate() {
                floor_sum -= gi;
                weight += wi;
                let next = items.get(i + 1).map_or(f64::INFINITY, |x| x.0);
                let candidate = (room - floor_sum) / weight;
                if candidate <= next {
                    t = candidate.max(b);
                    break;
                }
            }
            level[l] = t;
        }
    }
}
