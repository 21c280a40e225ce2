//! Fluid-engine speed on issue 5's workload: web-search flow sizes, Poisson arrivals at 60%
//! load, k = 16 fat-tree (1,024 hosts, 100 Gb/s, 1 µs links), seed 1 — the same flows as
//! `fairnet bench flow`, without Python.
//!
//! ```sh
//! cargo run --release -p fairnet --example flow_bench -- 200000          # flows
//! cargo run --release -p fairnet --example flow_bench -- 1000000 0.6 recompute
//! cargo run --release -p fairnet --example flow_bench -- 5000 0.6 compare   # end times of both
//! cargo run --release -p fairnet --example flow_bench -- 100000 0.6 active  # per-event cost
//! ```
//!
//! Prints wall time, events, per-event cost, median slowdown and peak RSS.

use fairnet::alloc::{solve, Problem, ProblemInput};
use fairnet::engine::flow::bench::{fat_tree_workload, incremental_vs_recompute};
use fairnet::engine::flow::{run, AllocatorKind, FlowSimConfig, FluidFlow};
use fairnet::topo::Topology;
use fairnet::units::Rate;
use fairnet::workload::fat_tree_problem;
use std::error::Error;
use std::path::Path;
use std::time::Instant;

/// CPU time of this thread in seconds (Linux schedstat), steadier than wall time on a shared
/// machine.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? * 1e-9)
}

/// Peak resident set size in KiB (Linux `VmHWM`), if available.
fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn workload(n_flows: usize, load: f64) -> Result<(Topology, Vec<FluidFlow>), Box<dyn Error>> {
    let cdf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/fairnet/data/flow-size-cdf/WebSearch_distribution.txt");
    let (topo, flows, _) = fat_tree_workload(16, n_flows, load, 1, &cdf)?;
    Ok((topo, flows))
}

/// Issue 5's per-event figure: `active` long flows between random host pairs (weights in
/// [0.1, 10]), one departure or arrival per event; the same call as `fairnet bench flow`.
fn per_event(active: usize) -> Result<(), Box<dyn Error>> {
    let c = incremental_vs_recompute(16, active, 200, 3, (0.1, 10.0), 1)?;
    println!(
        "{active} active flows: incremental {:.4} ms, recompute {:.3} ms per event ({:.1}x); \
         {:.0} rates and {:.0} link levels changed per event",
        c.incremental_seconds * 1e3,
        c.recompute_seconds * 1e3,
        c.recompute_seconds / c.incremental_seconds,
        c.changed_flows,
        c.link_updates
    );
    Ok(())
}

/// How far one departure reaches in the exact solution: `active` long flows as in
/// [`per_event`], solved by the oracle with and without flow 0; counts the link levels and rates
/// that move by more than 1e-9 (relative), the floor of what any exact update must rewrite.
fn spread(active: usize) -> Result<(), Box<dyn Error>> {
    const TRIES: usize = 10;
    let input = fat_tree_problem(16, active, 1, (0.1, 10.0), Rate::gbps(100))?;
    let full = Problem::new(input.clone())?;
    let a = solve(&full);
    let moved = |x: f64, y: f64| (x - y).abs() > 1e-9 * x.abs().max(y.abs());
    let saturated = a.link_level.iter().filter(|l| l.is_some()).count();
    let (mut levels, mut rates) = (0, 0);
    // The floor of an exact update's work in the units of a full solve's: the (flow, link) inputs
    // of link computations that change (a flow's limit from the rest of its path, at a link
    // saturated before or after), the flows on links whose level moves, and the flows whose
    // bottleneck link changes (what a representation with rates implied by the bottleneck's
    // level must still rewrite), against the flow-link incidences a full solve reads.
    let (mut inputs, mut on_moved, mut rebottlenecked) = (0usize, 0usize, 0usize);
    let mut incidences = 0usize;
    let level_of =
        |s: &fairnet::alloc::Allocation, l: u32| s.link_level[l as usize].unwrap_or(f64::INFINITY);
    let limit_elsewhere = |s: &fairnet::alloc::Allocation, path: &[u32], l: u32| {
        path.iter()
            .filter(|&&m| m != l)
            .map(|&m| level_of(s, m))
            .fold(f64::INFINITY, f64::min)
    };
    let mut link_flows = vec![0usize; input.capacities.len()];
    for gone in 0..TRIES {
        let keep: Vec<usize> = (0..active).filter(|&f| f != gone).collect();
        let paths: Vec<Vec<u32>> = keep.iter().map(|&f| full.path(f).to_vec()).collect();
        let mut less = ProblemInput::from_paths(input.capacities.clone(), &paths);
        less.weights = Some(keep.iter().map(|&f| full.weights()[f]).collect());
        let b = solve(&Problem::new(less)?);
        levels += a
            .link_level
            .iter()
            .zip(&b.link_level)
            .filter(|(x, y)| match (x, y) {
                (Some(x), Some(y)) => moved(*x, *y),
                (None, None) => false,
                _ => true,
            })
            .count();
        rates += keep
            .iter()
            .enumerate()
            .filter(|&(i, &f)| moved(a.rates[f], b.rates[i]))
            .count();
        link_flows.fill(0);
        incidences += keep.iter().map(|&f| full.path(f).len()).sum::<usize>();
        for (i, &f) in keep.iter().enumerate() {
            let path = full.path(f);
            for &l in path {
                link_flows[l as usize] += 1;
                let saturated =
                    a.link_level[l as usize].is_some() || b.link_level[l as usize].is_some();
                let (x, y) = (limit_elsewhere(&a, path, l), limit_elsewhere(&b, path, l));
                if saturated && x != y && (x.is_infinite() || y.is_infinite() || moved(x, y)) {
                    inputs += 1;
                }
            }
            if a.bottleneck[f] != b.bottleneck[i] {
                rebottlenecked += 1;
            }
        }
        on_moved += (0..link_flows.len())
            .filter(|&l| match (a.link_level[l], b.link_level[l]) {
                (Some(x), Some(y)) => moved(x, y),
                (None, None) => false,
                _ => true,
            })
            .map(|l| link_flows[l])
            .sum::<usize>();
    }
    println!(
        "{active} active flows, one departure (mean of {TRIES}): {:.0} of {saturated} saturated \
         link levels and {:.0} of {} rates move by more than 1e-9",
        levels as f64 / TRIES as f64,
        rates as f64 / TRIES as f64,
        active - 1
    );
    let t = TRIES as f64;
    println!(
        "  changed link inputs (flow, link) {:.0}, flows on moved links {:.0}, flows whose \
         bottleneck changes {:.0}; a full solve reads {:.0} flow-link incidences ({:.1}x \
         the changed inputs)",
        inputs as f64 / t,
        on_moved as f64 / t,
        rebottlenecked as f64 / t,
        incidences as f64 / t,
        incidences as f64 / inputs as f64
    );
    Ok(())
}

/// Runs both allocators and prints how far apart the end times are.
fn compare(n_flows: usize, load: f64) -> Result<(), Box<dyn Error>> {
    let (topo, flows) = workload(n_flows, load)?;
    let mut ends = Vec::new();
    for allocator in [AllocatorKind::Incremental, AllocatorKind::Recompute] {
        let cfg = FlowSimConfig {
            allocator,
            ..Default::default()
        };
        let t0 = Instant::now();
        let r = run(&topo, &flows, &[], &cfg)?;
        println!("{allocator:?}: {:.3} s", t0.elapsed().as_secs_f64());
        ends.push(r.flows.iter().map(|f| f.end).collect::<Vec<_>>());
    }
    let (mut max_diff, mut max_rel, mut differ) = (0u64, 0f64, 0usize);
    for (i, (a, b)) in ends[0].iter().zip(&ends[1]).enumerate() {
        let (a, b) = (a.ok_or("unfinished")?, b.ok_or("unfinished")?);
        let d = a.0.abs_diff(b.0);
        if d > 0 {
            differ += 1;
        }
        max_diff = max_diff.max(d);
        let fct = (b - flows[i].spec.start).0 as f64;
        max_rel = max_rel.max(d as f64 / fct);
    }
    println!(
        "end times: {differ} of {n_flows} differ, by at most {max_diff} ps ({max_rel:.2e} of the FCT)"
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let n_flows: usize = args.next().map_or(Ok(200_000), |a| a.parse())?;
    let load: f64 = args.next().map_or(Ok(0.6), |a| a.parse())?;
    let allocator = match args.next().as_deref() {
        None | Some("incremental") => AllocatorKind::Incremental,
        Some("recompute") => AllocatorKind::Recompute,
        Some("compare") => return compare(n_flows, load),
        Some("active") => return per_event(n_flows),
        Some("spread") => return spread(n_flows),
        Some(other) => return Err(format!("unknown allocator {other}").into()),
    };
    let (topo, flows) = workload(n_flows, load)?;
    let cfg = FlowSimConfig {
        allocator,
        ..Default::default()
    };
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let r = run(&topo, &flows, &[], &cfg)?;
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(c0).map(|(b, a)| b - a);
    let mut sd: Vec<f64> = r.flows.iter().filter_map(|f| f.slowdown()).collect();
    sd.sort_by(f64::total_cmp);
    println!(
        "web search at {:.0}% load, k=16 fat-tree, {} flows, {:?}",
        load * 100.0,
        n_flows,
        allocator
    );
    println!("wall                {wall:.3} s");
    if let Some(cpu) = cpu {
        println!("cpu                 {cpu:.3} s");
        println!(
            "cpu per event       {:.2} us",
            cpu / r.events.max(1) as f64 * 1e6
        );
    }
    println!("events              {}", r.events);
    println!("rate updates        {}", r.rate_updates);
    // What an update costs: the active flows it sees and the allocator's work per update.
    let (a, u) = (r.allocator, r.rate_updates.max(1) as f64);
    println!(
        "per update          {:.0} active flows, {:.1} links recomputed ({:.1} moved), {:.0} \
         flows scanned, {:.0} passed on, {:.1} rates changed; {} full solves",
        r.active_entries as f64 / u,
        a.link_updates as f64 / u,
        a.level_changes as f64 / u,
        a.flows_scanned as f64 / u,
        a.flows_passed as f64 / u,
        a.rates_changed as f64 / u,
        a.full_recomputes
    );
    println!(
        "per event           {:.2} us",
        wall / r.events.max(1) as f64 * 1e6
    );
    println!(
        "simulated           {:.3} ms",
        r.end_time.as_secs_f64() * 1e3
    );
    println!("finished            {}", sd.len());
    // Exactness check across code changes: any end time that moves by 1 ps changes the hash.
    let hash = r.flows.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, f| {
        let e = f.end.map_or(u64::MAX, |e| e.0);
        (h ^ e).wrapping_mul(0x0100_0000_01b3)
    });
    println!("end-time hash       {hash:016x}");
    if !sd.is_empty() {
        println!("median slowdown     {:.3}", sd[sd.len() / 2]);
        println!("p99 slowdown        {:.3}", sd[sd.len() * 99 / 100]);
    }
    if let Some(kib) = peak_rss_kib() {
        println!("peak RSS            {:.0} MiB", kib as f64 / 1024.0);
    }
    Ok(())
}
