//! The fluid engine beside m3's flowSim (netiken/m3: a full recompute of the max-min rates at
//! every arrival and departure) on m3's own two-layer parking lot (`scenarios/m3_parking_lot.toml`:
//! 8 hosts, 10 Gb/s host links, 40 Gb/s chain; web-search sizes, Poisson arrivals, 48 B of
//! header per 1000 B), the same flows to both (issue 25).
//!
//! ```sh
//! cargo run --release -p fairnet --example m3_compare -- 100000 0.6 0.8 0.9 0.95
//! cargo run --release -p fairnet --example m3_compare -- 100000 0.95 --m3 /tmp/m3/flowsim
//! cargo run --release -p fairnet --example m3_compare -- 20000 0.95 --recompute
//! cargo run --release -p fairnet --example m3_compare -- 100000 0.95 --no-classes
//! ```
//!
//! For every load it prints the fluid engine's CPU time, events, CPU per event, the
//! time-average number of active flows and a hash of all end times. With `--m3 BIN` it writes
//! m3's input from the same flows ([`write_m3_input`]), runs `BIN INPUT 8 OUTPUT` — a driver
//! around m3's `get_fct_mmf` built outside this repository (docs/benchmarks.md says how) that
//! prints `cpu <seconds>` on stderr and one FCT in ns per line to OUTPUT — and prints m3's CPU
//! time, the ratio and the largest |ΔFCT| (m3's FCT has no propagation delay; ours has it taken
//! off). With `--recompute` it also runs the full-recompute mode with every flow on its own (the
//! reference) and prints the largest end-time difference from it. `--classes` / `--no-classes`
//! set [`FlowSimConfig::classes`] (default: the scenario's); `--full-solve` runs the measured
//! engine with a full solve per event instead of the incremental allocator.

use fairnet::engine::flow::bench::{
    m3_workload, parking_lot_run, propagation_delays, write_m3_input,
};
use fairnet::engine::flow::{AllocatorKind, FlowSimConfig};
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs m3's driver on the flows written to `input`; its CPU seconds and FCTs (ps).
fn run_m3(bin: &Path, input: &Path, output: &Path) -> Result<(f64, Vec<f64>), Box<dyn Error>> {
    let out = Command::new(bin).arg(input).arg("8").arg(output).output()?;
    if !out.status.success() {
        return Err(format!("{} failed: {}", bin.display(), out.status).into());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let cpu = err
        .split_whitespace()
        .skip_while(|w| *w != "cpu")
        .nth(1)
        .and_then(|w| w.parse::<f64>().ok())
        .ok_or_else(|| format!("no `cpu <seconds>` in m3's output: {err}"))?;
    let fcts = std::fs::read_to_string(output)?
        .lines()
        .map(|l| l.trim().parse::<f64>().map(|ns| ns * 1e3))
        .collect::<Result<Vec<f64>, _>>()?;
    Ok((cpu, fcts))
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let n_flows: usize = args.next().map_or(Ok(100_000), |a| a.parse())?;
    let (mut loads, mut m3, mut recompute, mut classes) =
        (Vec::new(), None::<PathBuf>, false, None::<bool>);
    let mut allocator = AllocatorKind::Incremental;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--m3" => m3 = Some(args.next().ok_or("--m3 needs the driver's path")?.into()),
            "--recompute" => recompute = true,
            "--classes" => classes = Some(true),
            "--full-solve" => allocator = AllocatorKind::Recompute,
            "--no-classes" => classes = Some(false),
            x => loads.push(x.parse::<f64>()?),
        }
    }
    if loads.is_empty() {
        loads = vec![0.6, 0.8, 0.9, 0.95];
    }
    let cdf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/fairnet/data/flow-size-cdf/WebSearch_distribution.txt");
    let dir = std::env::temp_dir().join(format!("fairnet-m3-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    println!(
        "{:>5} {:>8} {:>9} {:>9} {:>9} {:>11} {:>10} {:>10} {:>7} {:>13}",
        "load",
        "flows",
        "events",
        "cpu s",
        "us/event",
        "mean active",
        "m3 cpu s",
        "m3 us/ev",
        "ratio",
        "max|dFCT| ps"
    );
    for load in loads {
        let (topo, flows, mut cfg) = m3_workload(n_flows, load, 1, &cdf)?;
        cfg.classes = classes.unwrap_or(cfg.classes);
        let (r, f) = parking_lot_run(&topo, &flows, &cfg, allocator)?;
        let (mut m3_cpu, mut dfct) = (f64::NAN, f64::NAN);
        if let Some(bin) = &m3 {
            let (input, output) = (dir.join("flows.txt"), dir.join("fct.txt"));
            write_m3_input(&input, &topo, &flows)?;
            let (c, fcts) = run_m3(bin, &input, &output)?;
            m3_cpu = c;
            dfct = 0.0;
            let prop = propagation_delays(&topo, &flows)?;
            for ((rec, p), m) in r.flows.iter().zip(&prop).zip(&fcts) {
                let end = rec.end.ok_or("a flow did not finish")?;
                let ours = (end - rec.start).0 as f64 - p.0 as f64;
                dfct = f64::max(dfct, (ours - m).abs());
            }
        }
        println!(
            "{:>5} {:>8} {:>9} {:>9.3} {:>9.3} {:>11.1} {:>10.3} {:>10.3} {:>7.2} {:>13.3}",
            load,
            n_flows,
            f.events,
            f.cpu_seconds,
            f.cpu_seconds / f.events as f64 * 1e6,
            f.mean_active,
            m3_cpu,
            m3_cpu / (2 * n_flows) as f64 * 1e6,
            m3_cpu / f.cpu_seconds,
            dfct
        );
        println!("      end-time hash {:016x}", f.end_hash);
        let (a, u) = (r.allocator, r.rate_updates.max(1) as f64);
        println!(
            "      per update: {:.1} allocator entries, {:.1} links recomputed, {:.1} flows \
             scanned, {:.1} passed on, {:.1} rates changed",
            r.active_entries as f64 / u,
            a.link_updates as f64 / u,
            a.flows_scanned as f64 / u,
            a.flows_passed as f64 / u,
            a.rates_changed as f64 / u
        );
        if recompute {
            // The reference: a full solve per event, every flow on its own.
            let per_flow = FlowSimConfig {
                classes: false,
                ..cfg.clone()
            };
            let (b, g) = parking_lot_run(&topo, &flows, &per_flow, AllocatorKind::Recompute)?;
            let d = r
                .flows
                .iter()
                .zip(&b.flows)
                .filter_map(|(x, y)| Some(x.end?.0.abs_diff(y.end?.0)))
                .max()
                .unwrap_or(0);
            println!(
                "      recompute mode: {:.3} s cpu, end times differ from it by at most {d} ps",
                g.cpu_seconds
            );
        }
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
