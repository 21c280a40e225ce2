//! One run of s-PERC §8.2.1's convergence experiment (`systems::sperc::convergence`), printed
//! per episode — for measuring single full-scale samples without Python.
//!
//! `cargo run --release -p fairnet --example sperc_convergence -- FIGURE SCHEME SCALE [RATE_BPS]
//! [REPLACE] [SEED] [CHANGES] [RCP_INTERVAL_MS] [TWO_WAY]` (0: one RTT) with FIGURE `fig7`, `fig8` or `table5`, SCHEME `sperc` or `rcp`,
//! SCALE `smoke` or `full`, TWO_WAY `true` or `false` (s-PERC*'s two-way control updates;
//! default: the preset's, true for `fig7`, false on the WAN).

use fairnet::systems::sperc;
use fairnet::systems::sperc::convergence::{run, RcpInterval, Scheme};
use fairnet::units::{Rate, Time};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let scheme = Scheme::parse(&arg(1, "sperc"), "scheme")?;
    let full = arg(2, "smoke") == "full";
    let rate = Rate(arg(3, "20000000").parse()?);
    let replace: f64 = arg(4, "0.4").parse()?;
    let seed: u64 = arg(5, "1").parse()?;
    let mut spec = sperc::convergence_preset(&arg(0, "fig7"), full, rate, replace, seed, "FIGURE")?;
    if let Some(c) = args.get(6) {
        spec.changes = c.parse()?;
    }
    // RCP's interval in ms, 0 for one RTT unit (to compare with Table 6's 20 ms on the WAN).
    if let Some(t) = args.get(7) {
        let ms: f64 = t.parse()?;
        spec.rcp.interval = if ms == 0.0 {
            RcpInterval::Rtt
        } else {
            RcpInterval::Fixed(Time::from_secs_f64(ms * 1e-3))
        };
    }
    if let Some(t) = args.get(8) {
        spec.sperc.two_way = t.parse()?;
    }
    let t0 = Instant::now();
    let r = run(&spec, scheme)?;
    println!(
        "{}: {} flows, RTT unit {:.3} ms (range {:.3}-{:.3} ms), {:.1} s CPU, {} events, {} drops, {} ctrl drops, {} timeouts",
        scheme.name(),
        r.active_flows,
        r.rtt.as_secs_f64() * 1e3,
        r.rtt_range.0.as_secs_f64() * 1e3,
        r.rtt_range.1.as_secs_f64() * 1e3,
        t0.elapsed().as_secs_f64(),
        r.events,
        r.drops,
        r.ctrl_drops,
        r.timeouts
    );
    for (i, e) in std::iter::once(&r.start).chain(&r.changes).enumerate() {
        println!(
            "  {}: 95%/20% {:?}, 99%/10% {:?}, within 10% at the end {:.3}",
            if i == 0 {
                "start".to_string()
            } else {
                format!("change {i}")
            },
            e.t95_20,
            e.t99_10,
            e.final_within_10
        );
    }
    Ok(())
}
