//! Benchmarks of the fluid engine, used by `fairnet bench flow` and the examples; they print
//! nothing themselves.
//!
//! - [`incremental_vs_recompute`]: the per-event cost of the incremental allocator against a
//!   full recompute on a fixed set of concurrently active flows (issue 5's "at 100,000
//!   concurrently active flows" figure).
//! - [`parking_lot_run`]: a whole run on m3's two-layer parking lot ([`m3_parking_lot`], the
//!   topology of `scenarios/m3_parking_lot.toml`) at a given load, with its CPU time, events and
//!   time-average number of active flows (issue 25's side-by-side with m3's flowSim);
//!   [`write_m3_input`] writes the same flows in the input format of the driver around m3's
//!   flowSim that docs/benchmarks.md describes.
//! - [`fat_tree_workload`]: issue 5's web-search run on a k-ary fat-tree (`flow_bench`, `fairnet
//!   bench flow`'s 1M-flow figure), measured the same way by [`parking_lot_run`].

use super::{run, AllocatorKind, FlowRecord, FlowSimConfig, FlowSimResults, FluidFlow};
use crate::alloc::{IncrementalAllocator, IncrementalStats, Problem, Slot};
use crate::error::{Error, Result};
use crate::topo::formats::TopologyFile;
use crate::topo::routing::{PathSelector, Routing};
use crate::topo::{Topology, TopologySpec};
use crate::units::{Rate, Time};
use crate::workload::{fat_tree_problem, poisson_flows, SizeCdf};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;
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

/// The topology file of m3's two-layer parking lot, shipped with the scenarios.
const M3_PARKING_LOT: &str =
    include_str!("../../../../../scenarios/topologies/m3_parking_lot.toml");

/// m3's two-layer parking lot (`scenarios/topologies/m3_parking_lot.toml`): 8 hosts, each on its
/// own switch by a 10 Gb/s link, the switches chained by 40 Gb/s links, 1 µs per link.
pub fn m3_parking_lot() -> Result<Topology> {
    let file: TopologyFile = toml::from_str(M3_PARKING_LOT)
        .map_err(|e| Error::invalid("topologies/m3_parking_lot.toml", e.to_string()))?;
    Topology::from_file(&file)
}

/// The figures of one run of [`parking_lot_run`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadRun {
    /// CPU seconds of the simulating thread (NaN where the clock is unavailable).
    pub cpu_seconds: f64,
    /// Wall seconds of the run.
    pub wall_seconds: f64,
    /// Events processed (arrivals and completions).
    pub events: u64,
    /// Time-average number of flows sending (see [`mean_active_flows`]).
    pub mean_active: f64,
    /// FNV-1a hash of every flow's end time: a change that moves any end time by 1 ps changes it.
    pub end_hash: u64,
    /// Allocator entries active at a rate update, averaged over the updates (flows, or classes
    /// with [`FlowSimConfig::classes`]).
    pub mean_entries: f64,
    /// Rate updates (one per distinct event time).
    pub rate_updates: u64,
    /// The allocator's work over the run ([`FlowSimResults::allocator`]).
    pub allocator: IncrementalStats,
}

impl LoadRun {
    /// Flow entries the allocator read per rate update: the flows of every link it recomputed
    /// and of every link whose level moved (what an update's cost follows).
    pub fn visits_per_update(&self) -> f64 {
        let a = &self.allocator;
        (a.flows_scanned + a.flows_passed) as f64 / self.rate_updates.max(1) as f64
    }
}

/// Issue 5's fluid-engine workload: web-search sizes from `cdf`, Poisson arrivals at `load`
/// between random host pairs of a k-ary fat-tree (100 Gb/s, 1 µs links), seed `seed`, ECMP by
/// flow hash, no headers (the engine's default configuration). `flow_bench -- N` and `fairnet
/// bench flow` run it with k = 16.
pub fn fat_tree_workload(
    k: u32,
    n_flows: usize,
    load: f64,
    seed: u64,
    cdf: &Path,
) -> Result<(Topology, Vec<FluidFlow>, FlowSimConfig)> {
    let spec: TopologySpec =
        serde_json::from_value(serde_json::json!({"kind": "fat_tree", "k": k}))
            .map_err(|e| Error::invalid("topology", e.to_string()))?;
    let topo = spec.build()?;
    let cdf = SizeCdf::from_file(cdf)?;
    let rate = topo.link(topo.out_links(topo.hosts()[0])[0]).capacity;
    let specs = poisson_flows(topo.hosts(), rate, load, &cdf, n_flows, seed)?;
    let flows = specs.into_iter().map(FluidFlow::new).collect();
    Ok((topo, flows, FlowSimConfig::default()))
}

/// Scenario `scenarios/m3_parking_lot.toml` at `load` with `n_flows` flows: m3's parking lot,
/// web-search sizes from `cdf`, Poisson arrivals between random host pairs (seed `seed`), 48 B
/// of header per 1000 B, flows of one host pair in one class ([`FlowSimConfig::classes`]).
/// Returns the topology, the flows and the engine configuration.
pub fn m3_workload(
    n_flows: usize,
    load: f64,
    seed: u64,
    cdf: &Path,
) -> Result<(Topology, Vec<FluidFlow>, FlowSimConfig)> {
    let topo = m3_parking_lot()?;
    let cdf = SizeCdf::from_file(cdf)?;
    let host_rate = topo.link(topo.out_links(topo.hosts()[0])[0]).capacity;
    let specs = poisson_flows(topo.hosts(), host_rate, load, &cdf, n_flows, seed)?;
    let cfg = FlowSimConfig {
        header_bytes: 48,
        mtu: 1000,
        classes: true,
        ..FlowSimConfig::default()
    };
    Ok((topo, specs.into_iter().map(FluidFlow::new).collect(), cfg))
}

/// Runs `flows` with `allocator` and measures the run ([`LoadRun`]); used for the parking lot
/// and for [`fat_tree_workload`]'s runs alike.
pub fn parking_lot_run(
    topo: &Topology,
    flows: &[FluidFlow],
    cfg: &FlowSimConfig,
    allocator: AllocatorKind,
) -> Result<(FlowSimResults, LoadRun)> {
    let cfg = FlowSimConfig {
        allocator,
        ..cfg.clone()
    };
    let (c0, t0) = (thread_cpu_seconds(), Instant::now());
    let r = run(topo, flows, &[], &cfg)?;
    let (cpu, wall) = (thread_cpu_seconds() - c0, t0.elapsed().as_secs_f64());
    let prop = propagation_delays(topo, flows)?;
    let figures = LoadRun {
        cpu_seconds: cpu,
        wall_seconds: wall,
        events: r.events,
        mean_active: mean_active_flows(&r.flows, &prop),
        end_hash: end_time_hash(&r.flows),
        mean_entries: r.active_entries as f64 / r.rate_updates.max(1) as f64,
        rate_updates: r.rate_updates,
        allocator: r.allocator,
    };
    Ok((r, figures))
}

/// CPU seconds of the calling thread (Linux schedstat; NaN elsewhere).
pub fn thread_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns * 1e-9)
}

/// One-way propagation delay of every flow's (shortest, first equal-cost) path.
pub fn propagation_delays(topo: &Topology, flows: &[FluidFlow]) -> Result<Vec<Time>> {
    let routing = Routing::new(topo);
    flows
        .iter()
        .map(|f| {
            let p = routing.path(f.spec.src, f.spec.dst, PathSelector::First)?;
            Ok(Time(p.iter().map(|&l| topo.link(l).delay.0).sum()))
        })
        .collect()
}

/// Time-average number of flows sending: the time each finished flow spends sending (its end
/// minus its path's propagation delay `prop`, minus its start), summed, over the time from the
/// first start to the last completion.
pub fn mean_active_flows(records: &[FlowRecord], prop: &[Time]) -> f64 {
    let (mut busy, mut first, mut last) = (0u128, u64::MAX, 0u64);
    for (r, p) in records.iter().zip(prop) {
        if let Some(end) = r.end {
            let done = end.0 - p.0;
            busy += (done - r.start.0) as u128;
            first = first.min(r.start.0);
            last = last.max(done);
        }
    }
    busy as f64 / last.saturating_sub(first).max(1) as f64
}

/// FNV-1a over every flow's end time in ps (`u64::MAX` for an unfinished flow), the digest
/// `flow_bench` prints.
pub fn end_time_hash(records: &[FlowRecord]) -> u64 {
    records.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, f| {
        let e = f.end.map_or(u64::MAX, |e| e.0);
        (h ^ e).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Writes `flows` as input of the driver around m3's flowSim (docs/benchmarks.md): the number
/// of flows, then one line per flow `arrival_ns size_bytes src dst` with host indices.
pub fn write_m3_input(path: &Path, topo: &Topology, flows: &[FluidFlow]) -> Result<()> {
    use std::fmt::Write;
    let index = |n| {
        topo.hosts()
            .iter()
            .position(|&h| h == n)
            .ok_or_else(|| Error::invalid("flows", format!("{n} is not a host")))
    };
    let mut s = format!("{}\n", flows.len());
    for f in flows {
        // Picoseconds as ns: a double holds them to far below a picosecond.
        let _ = writeln!(
            s,
            "{} {} {} {}",
            f.spec.start.0 as f64 / 1e3,
            f.spec.size.0,
            index(f.spec.src)?,
            index(f.spec.dst)?
        );
    }
    std::fs::write(path, s).map_err(|e| Error::Io {
        path: path.display().to_string(),
        msg: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn m3_parking_lot_is_eight_hosts_on_a_chain() {
        // 8 hosts and 8 switches; 8 host cables and 7 chain cables, each two directed links.
        let t = m3_parking_lot().unwrap();
        assert_eq!(t.num_hosts(), 8);
        assert_eq!(t.num_links(), 30);
        // h0 -> h7 crosses its host link, the 7 chain links and h7's host link: 9 links, 9 us.
        let flows = [FluidFlow::new(crate::workload::FlowSpec::new(
            t.hosts()[0],
            t.hosts()[7],
            crate::units::Bytes(1000),
            Time::ZERO,
        ))];
        assert_eq!(
            propagation_delays(&t, &flows).unwrap(),
            vec![Time::from_us(9)]
        );
    }

    /// The work counters agree with the engine's own counts on 300 web-search flows of a k = 4
    /// fat-tree, each flow on its own: the allocator is updated once per rate update; every flow
    /// is reported changed at least once (from rate 0 when it arrives); a rate update sees at
    /// most every flow active, and the updates after arrivals see at least one.
    #[test]
    fn work_counters_agree_with_the_run() {
        let cdf = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../python/fairnet/data/flow-size-cdf/WebSearch_distribution.txt");
        let (topo, flows, cfg) = fat_tree_workload(4, 300, 0.6, 1, &cdf).unwrap();
        let (r, f) = parking_lot_run(&topo, &flows, &cfg, AllocatorKind::Incremental).unwrap();
        assert!(r.complete);
        assert_eq!(f.allocator.updates, r.rate_updates);
        assert!(f.allocator.rates_changed >= 300, "{:?}", f.allocator);
        assert!(
            f.mean_entries > 0.0 && f.mean_entries <= 300.0,
            "{}",
            f.mean_entries
        );
        assert!(f.visits_per_update() > 0.0);
    }

    #[test]
    fn measures_both_ways_on_a_small_fabric() {
        let c = incremental_vs_recompute(4, 200, 20, 2, (1.0, 1.0), 1).unwrap();
        assert!(
            c.link_updates >= 1.0,
            "every event re-evaluates at least the changed path"
        );
    }
}
