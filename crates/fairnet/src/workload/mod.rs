//! Generated workloads for the oracle: random host pairs routed by ECMP, with random weights.
//!
//! The engines' workloads (size CDFs, Poisson arrivals, incast, …) grow here with the engine
//! issues; this module starts with what the oracle benchmark (Söze Fig. 19) needs: `N` flows
//! between uniformly random distinct host pairs, one shortest path each chosen by a seeded
//! per-flow ECMP hash, weights uniform in `[lo, hi]`.

mod cdf;
pub mod dag;
mod deadlines;
mod flows;
mod generators;
pub mod hpcc;
mod load;
pub mod shuffle;
pub mod tpch;
pub use cdf::SizeCdf;
pub use deadlines::{fct_alone, floor_deadlines, DeadlineFloor, WireFormat};
pub use flows::FlowSpec;
pub use generators::{
    all_to_all_flows, background_flows, bulk_flows, exponential_deadlines, incast_flows,
    permutation_flows, poisson_flows, poisson_flows_offering, split_tags, window_arrivals,
    Arrivals,
};
pub use load::{full_load, HostPairs, LoadOn};

use crate::alloc::ProblemInput;
use crate::error::{Error, Result};
use crate::ids::NodeId;
use crate::topo::builders::{fat_tree, FatTreeSpec};
use crate::topo::routing::{PathSelector, Routing};
use crate::topo::{LinkSpec, Topology};
use crate::units::{Bytes, Rate, Time};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `n` ordered pairs of distinct hosts drawn uniformly at random.
pub fn random_host_pairs(
    hosts: &[NodeId],
    n: usize,
    rng: &mut impl Rng,
) -> Result<Vec<(NodeId, NodeId)>> {
    if hosts.len() < 2 {
        return Err(Error::invalid(
            "workload",
            "random host pairs need at least 2 hosts",
        ));
    }
    Ok((0..n)
        .map(|_| {
            let s = rng.gen_range(0..hosts.len());
            // Draw the destination from the other hosts, uniformly.
            let mut d = rng.gen_range(0..hosts.len() - 1);
            if d >= s {
                d += 1;
            }
            (hosts[s], hosts[d])
        })
        .collect())
}

/// The oracle problem of `pairs` on `topo`: link capacities, one ECMP path per flow (hash seeded
/// by `seed`, keyed by the flow's index), and the given weights.
pub fn routed_problem(
    topo: &Topology,
    routing: &Routing,
    pairs: &[(NodeId, NodeId)],
    seed: u64,
    weights: Vec<f64>,
) -> Result<ProblemInput> {
    let capacities = topo.links().iter().map(|l| l.capacity.bps()).collect();
    let mut path_ptr = Vec::with_capacity(pairs.len() + 1);
    let mut path_links: Vec<u32> = Vec::with_capacity(pairs.len() * 6);
    let mut scratch = Vec::with_capacity(16);
    path_ptr.push(0);
    for (i, &(src, dst)) in pairs.iter().enumerate() {
        scratch.clear();
        routing.path_into(
            src,
            dst,
            PathSelector::FlowHash {
                seed,
                flow: i as u64,
            },
            &mut scratch,
        )?;
        path_links.extend(scratch.iter().map(|l| l.0));
        path_ptr.push(path_links.len());
    }
    Ok(ProblemInput {
        capacities,
        path_ptr,
        path_links,
        weights: Some(weights),
        ..Default::default()
    })
}

/// `n_flows` flows between random host pairs of `topo`, each on one ECMP path (per-flow hash),
/// with weights uniform in `weights`. Deterministic for a given seed.
pub fn random_pairs_problem(
    topo: &Topology,
    n_flows: usize,
    seed: u64,
    weights: (f64, f64),
) -> Result<ProblemInput> {
    let (lo, hi) = weights;
    if !(lo > 0.0 && lo <= hi && hi.is_finite()) {
        return Err(Error::invalid(
            "weights",
            format!("need 0 < lo <= hi, got [{lo}, {hi}]"),
        ));
    }
    let routing = Routing::new(topo);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pairs = random_host_pairs(topo.hosts(), n_flows, &mut rng)?;
    let w = (0..n_flows)
        .map(|_| if lo == hi { lo } else { rng.gen_range(lo..hi) })
        .collect();
    routed_problem(topo, &routing, &pairs, seed, w)
}

/// [`random_pairs_problem`] on a k-ary fat-tree whose links all run at `rate`: the benchmark
/// problem of Söze Fig. 19 (§5.3.4).
pub fn fat_tree_problem(
    k: u32,
    n_flows: usize,
    seed: u64,
    weights: (f64, f64),
    rate: Rate,
) -> Result<ProblemInput> {
    let link = LinkSpec {
        capacity: rate,
        delay: Time::from_us(1),
        buffer: Bytes(32_000_000),
    };
    let topo = fat_tree(FatTreeSpec {
        k,
        host_link: link,
        fabric_link: link,
        oversubscription: 1,
    })?;
    random_pairs_problem(&topo, n_flows, seed, weights)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::{check, solve, Problem};

    #[test]
    fn fat_tree_problem_is_deterministic_and_solvable() {
        let a = fat_tree_problem(4, 500, 9, (0.1, 10.0), Rate::gbps(100)).unwrap();
        let b = fat_tree_problem(4, 500, 9, (0.1, 10.0), Rate::gbps(100)).unwrap();
        assert_eq!(a.path_links, b.path_links);
        assert_eq!(a.weights, b.weights);
        // k = 4: 16 hosts, 16 edge-host duplex links + 16 edge-agg + 16 agg-core = 96 directed.
        assert_eq!(a.capacities.len(), 96);
        let p = Problem::new(a).unwrap();
        let s = solve(&p);
        assert!(check(&p, &s.rates).ok);
        // Every host sends through its one uplink, so every flow is bottlenecked somewhere.
        assert!(s.bottleneck.iter().all(Option::is_some));
    }

    #[test]
    fn random_pairs_are_distinct_hosts() {
        let hosts: Vec<NodeId> = (0..3).map(NodeId).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let pairs = random_host_pairs(&hosts, 1000, &mut rng).unwrap();
        assert!(pairs.iter().all(|(s, d)| s != d));
        assert!(random_host_pairs(&hosts[..1], 1, &mut rng).is_err());
    }
}
