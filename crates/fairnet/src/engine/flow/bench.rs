//! The per-event cost of the incremental allocator against a full recompute, measured on a
//! fixed set of concurrently active flows (issue 5's "at 100,000 concurrently active flows"
//! figure). Used by `fairnet bench flow`; prints nothing itself.

use crate::alloc::{IncrementalAllocator, Problem, Slot};
use crate::error::Result;
use crate::units::Rate;
use crate::workload::fat_tree_problem;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// Seconds per event of each way of keeping the rates up to date.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerEventCost {
    /// Incremental update after one departure or one arrival.
    pub incremental_seconds: f64,
    /// Full recompute (oracle solve over all active flows) after one event.
    pub recompute_seconds: f64,
    /// Mean number of flows whose rate changed per incremental event.
    pub changed_flows: f64,
    /// Mean link-level recomputations per incremental event.
    pub link_updates: f64,
}

/// `active` flows between random host pairs of a k-ary fat-tree (100 Gb/s, ECMP, weights in
/// `weights`); then `events` events alternating a random departure and a new arrival, each
/// followed by an incremental update; then `recomputes` full recomputes of the same set.
pub fn incremental_vs_recompute(
    k: u32,
    active: usize,
    events: usize,
    recomputes: usize,
    weights: (f64, f64),
    seed: u64,
) -> Result<PerEventCost> {
    // Enough distinct flows for the initial set plus one arrival per two events.
    let input = fat_tree_problem(k, active + events / 2 + 1, seed, weights, Rate::gbps(100))?;
    let p = Problem::new(input)?;
    let mut alloc = IncrementalAllocator::new(p.capacities().to_vec());
    let mut slots: Vec<Slot> = (0..active)
        .map(|f| alloc.add_flow(p.path(f), p.weights()[f], f64::INFINITY, 0.0))
        .collect();
    alloc.recompute_all();
    alloc.update();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let before = alloc.stats();
    let mut changed = 0usize;
    let mut next = active;
    let t0 = Instant::now();
    for e in 0..events {
        if e % 2 == 0 {
            let i = rng.gen_range(0..slots.len());
            alloc.remove_flow(slots.swap_remove(i));
        } else {
            slots.push(alloc.add_flow(p.path(next), p.weights()[next], f64::INFINITY, 0.0));
            next += 1;
        }
        changed += alloc.update().len();
    }
    let incremental = t0.elapsed().as_secs_f64() / events.max(1) as f64;
    let after = alloc.stats();
    let t0 = Instant::now();
    for _ in 0..recomputes {
        alloc.recompute_all();
        alloc.update();
    }
    let recompute = t0.elapsed().as_secs_f64() / recomputes.max(1) as f64;
    Ok(PerEventCost {
        incremental_seconds: incremental,
        recompute_seconds: recompute,
        changed_flows: changed as f64 / events.max(1) as f64,
        link_updates: (after.link_updates - before.link_updates) as f64 / events.max(1) as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_both_ways_on_a_small_fabric() {
        let c = incremental_vs_recompute(4, 200, 20, 2, (1.0, 1.0), 1).unwrap();
        assert!(
            c.link_updates >= 1.0,
            "every event re-evaluates at least the changed path"
        );
    }
}
