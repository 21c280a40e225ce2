//! The weighted max-min oracle: the ground truth of every experiment.
//!
//! - [`solve`]: exact weighted max-min fair rates for single-path flows with real weights,
//!   optional rate caps (demands) and minimum guarantees, plus each flow's bottleneck link and
//!   `N_∞` (event-driven water-filling, see [`waterfill`]); [`solve_with_threads`] builds its
//!   index on several threads, with the same result.
//! - [`k_waterfilling`]: s-PERC Algorithm 1 for `k = 1, 2, ∞`, returning `N_k` and the iteration
//!   in which every link is removed.
//! - [`IncrementalAllocator`]: the same rates for a set of flows that changes over time,
//!   updated by touching only the links whose levels move (the flow engine's allocator).
//! - [`check()`]: an independent verifier of feasibility and the weighted max-min property that
//!   reports the worst violation.
//!
//! Rates and capacities are `f64` bits per second.

mod check;
mod flow_lists;
mod heap;
mod incremental;
mod kwaterfill;
mod problem;
pub mod waterfill;

pub use check::{check, check_with_tolerance, CheckReport};
pub use heap::IndexedMinHeap;
pub use incremental::{IncrementalAllocator, IncrementalStats, Slot, LEVEL_TOL, SLACK_MARGIN};
pub use kwaterfill::{k_waterfilling, KWaterfilling, Radius};
pub use problem::{LinkFlows, Problem, ProblemInput, REL_TOL};
pub use waterfill::{solve, solve_with_threads, Allocation};

/// Iteration counts of k-Water-filling for `k = 1, 2, ∞`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IterationCounts {
    /// `N_1`.
    pub k1: u32,
    /// `N_2`.
    pub k2: u32,
    /// `N_∞`.
    pub kinf: u32,
}

/// `N_1`, `N_2` (from [`k_waterfilling`]) and `N_∞` (from the oracle's own run, `solution`).
///
/// k-Water-filling costs one pass over the remaining flows per iteration (about two minutes
/// for N_2 ≈ 3,000 on a million flows), so `N_1` and `N_2` are computed on two threads.
pub fn iteration_counts(p: &Problem, solution: &Allocation) -> IterationCounts {
    let (k1, k2) = std::thread::scope(|s| {
        let k1 = s.spawn(|| k_waterfilling(p, Radius::One).iterations);
        let k2 = k_waterfilling(p, Radius::Two).iterations;
        (k1.join().expect("k = 1 water-filling thread"), k2)
    });
    IterationCounts {
        k1,
        k2,
        kinf: solution.iterations,
    }
}

#[cfg(test)]
mod tests;
