//! The oracle's speed without Python (issue 25): `flows` flows between random host pairs of a
//! k-ary fat-tree (ECMP paths, weights in [0.1, 10], seed 1) — the problem of
//! `fairnet.workload.fat_tree_problem(k, flows, seed=1)` — solved `reps` times.
//!
//! ```sh
//! cargo run --release -p fairnet --example alloc_bench -- 16 1000000 5
//! cargo run --release -p fairnet --example alloc_bench -- 16 1000000 5 2   # index on 2 threads
//! ```
//!
//! Prints, per solve, wall and CPU time of the solving thread (CPU time is steadier on a shared
//! machine; with more than one thread it leaves out the index threads' time); then the best of each, `N_∞`, whether the independent checker accepts the rates,
//! the peak RSS of the process, and a hash of every output bit (rates, bottlenecks, link levels
//! and iterations) so that an A/B of two builds shows at once whether a change altered a result.

use fairnet::alloc::{check, solve_with_threads, Allocation, Problem};
use fairnet::registry::bench::thread_cpu_seconds;
use fairnet::units::Rate;
use fairnet::workload::fat_tree_problem;
use std::error::Error;
use std::time::Instant;

/// Peak resident set size in MiB (Linux `VmHWM`), if available.
fn peak_rss_mib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<f64>().ok()? / 1024.0)
}

/// FNV-1a over every bit of the allocation.
fn digest(a: &Allocation) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    };
    a.rates.iter().for_each(|r| eat(r.to_bits()));
    a.bottleneck
        .iter()
        .for_each(|b| eat(b.map_or(u64::MAX, u64::from)));
    a.link_level
        .iter()
        .for_each(|t| eat(t.map_or(u64::MAX, f64::to_bits)));
    a.link_iteration
        .iter()
        .for_each(|i| eat(i.map_or(u64::MAX, u64::from)));
    eat(a.iterations as u64);
    h
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: usize| -> Result<usize, Box<dyn Error>> {
        Ok(args
            .get(i)
            .map(|s| s.parse())
            .transpose()?
            .unwrap_or(default))
    };
    let (k, flows, reps) = (arg(0, 16)? as u32, arg(1, 1_000_000)?, arg(2, 5)?.max(1));
    let threads = arg(3, 1)?.max(1);
    let p = Problem::new(fat_tree_problem(k, flows, 1, (0.1, 10.0), Rate::gbps(100))?)?;
    println!(
        "peak RSS after building the problem: {:.0} MiB",
        peak_rss_mib().unwrap_or(f64::NAN)
    );
    println!(
        "k={k} fat-tree, {flows} flows, {} links, {} flow-link incidences, {threads} thread(s)",
        p.num_links(),
        p.path_links().len()
    );
    let (mut best_wall, mut best_cpu) = (f64::INFINITY, f64::INFINITY);
    let mut last = None;
    for rep in 0..reps {
        drop(last.take());
        let cpu0 = thread_cpu_seconds();
        let t0 = Instant::now();
        let a = solve_with_threads(&p, threads);
        let wall = t0.elapsed().as_secs_f64();
        let cpu = match (cpu0, thread_cpu_seconds()) {
            (Some(a), Some(b)) => b - a,
            _ => f64::NAN,
        };
        println!(
            "solve {rep}: {:.2} ms wall, {:.2} ms CPU",
            wall * 1e3,
            cpu * 1e3
        );
        best_wall = best_wall.min(wall);
        best_cpu = best_cpu.min(cpu);
        last = Some(a);
    }
    let a = last.expect("at least one solve");
    let report = check(&p, &a.rates);
    println!(
        "best: {:.2} ms wall, {:.2} ms CPU; N_inf {}; checker {}; peak RSS {:.0} MiB; digest {:016x}",
        best_wall * 1e3,
        best_cpu * 1e3,
        a.iterations,
        report.message,
        peak_rss_mib().unwrap_or(f64::NAN),
        digest(&a)
    );
    Ok(())
}
