//! eBA at datacenter speeds, at packet level (issue 23, beyond the paper): how small can τ_v
//! and τ_r be before the ports' rate measurement is the noise §VII-B describes, and what does
//! a small τ buy in convergence time? The flow-level answer (`eba_datacenter`) has no noise: a
//! fluid link measures its rate exactly. Here the port counts the bytes it sent in each τ_r,
//! packet by packet, while Reno guests fill their limits.
//!
//! ```sh
//! cargo run --release -p fairnet --example eba_datacenter_packet [-- [--capped] RATE_GBPS ...]
//! ```
//!
//! Setting: a dumbbell (hosts 0, 1 → 2, 3) of `RATE` links (default 10 and 100 Gb/s), 1 µs
//! each (a path's round trip 6 µs plus queueing), 1 MB buffers; X (host 0 → 2) backlogged
//! from 0, Y (host 1 → 3) joining after 200 τ_v, both guaranteed 45% of C, weight 1: the
//! oracle gives each half of μC = 0.9 C, 45% of C, its guarantee (Theorem 2). LRC with uniform increase from the paper's (τ_v, τ_r) =
//! (50 ms, 100 ms), α = β = 2 s⁻¹ (§VI-B, §VII-C), τ_r = 2 τ_v, μ = 0.9, 74 B control packets
//! (§VI-C) with no cap on the control channel (`rate = 1`: eBA's control packets are ordinary
//! ICMP packets, §VI-C; the packet engine's default cap, 2% of each port from s-PERC, is below
//! LRC's control load at 10 Gb/s for τ_v ≤ 5 µs — 2.4% and 5.9% — and under it the τ_v = 2 µs
//! run stalled before the host NIC sent data past a capped control packet, see
//! `docs/systems/eba.md`); `--capped` keeps that default cap instead. Each run lasts 800 τ_v.
//!
//! Prints, per τ_v: the packets a port counts in one τ_r at line rate (the measurement's
//! grain: one packet more or less is `1/n` of the rate), the control packets' share of the
//! link (74 B per VM-flow per τ_v, both ways), the time after Y joins until both VM-flows'
//! throughput, averaged over 10 τ_r, stays within 5% of the target (in seconds and in τ_v),
//! and after that the share of τ_r samples within 5% of the target and their coefficient of
//! variation (Fig. 11's measures).

use fairnet::scenario::{from_toml, run};
use std::collections::BTreeMap;
use std::error::Error;
use std::path::Path;

/// One run's scenario: `rate_gbps` links, τ_v = `tau_v_ns`, uniform increase from §VII-C;
/// with `capped` the control channel keeps the engine's default cap (2% of each port).
fn scenario(rate_gbps: f64, tau_v_ns: u64, capped: bool) -> String {
    let tau_v = tau_v_ns as f64 * 1e-9;
    // Uniform increase (§VI-B): α τ_v = 2 s⁻¹ · 50 ms, β τ_r = 2 s⁻¹ · 100 ms.
    let alpha = 2.0 * 0.05 / tau_v;
    let beta = 2.0 * 0.1 / (2.0 * tau_v);
    let g = 0.45 * rate_gbps;
    let cap = if capped { "" } else { ", rate = 1" };
    format!(
        r#"
stop_at = "{stop}ns"
[topology]
kind = "dumbbell"
n_pairs = 2
access_rate = "{rate_gbps}Gbps"
bottleneck_rate = "{rate_gbps}Gbps"
delay = "1us"
buffer = "1MB"
[workload]
kind = "flows"
flows = [
  {{ src = 0, dst = 2, size = "1000GB", tag = 0 }},
  {{ src = 1, dst = 3, size = "1000GB", tag = 1, start = "{join}ns" }},
]
[engine]
kind = "packet"
transport = "reno"
host_shim = "eba"
port_agent = "eba"
routing = "host_pair"
control = {{ size = "74B"{cap} }}
record = {{ interval = "{tau_r}ns", flows = true, queues = "none" }}
[engine.eba]
vms = [
  {{ name = "x", host = 0, tenant = 0, guarantee = "{g}Gbps" }},
  {{ name = "x2", host = 2, tenant = 0, guarantee = "{g}Gbps" }},
  {{ name = "y", host = 1, tenant = 1, guarantee = "{g}Gbps" }},
  {{ name = "y2", host = 3, tenant = 1, guarantee = "{g}Gbps" }},
]
[engine.eba.lrc]
alpha = {alpha}
beta = {beta}
tau_v = "{tau_v_ns}ns"
tau_r = "{tau_r}ns"
mu = 0.9
"#,
        stop = 800 * tau_v_ns,
        join = 200 * tau_v_ns,
        tau_r = 2 * tau_v_ns,
    )
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let capped = args.iter().any(|a| a == "--capped");
    let rates: Vec<f64> = args
        .iter()
        .filter(|a| *a != "--capped")
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let rates = if rates.is_empty() {
        vec![10.0, 100.0]
    } else {
        rates
    };
    for rate in rates {
        let c = rate * 1e9;
        let target = 0.45 * c;
        println!(
            "{rate} Gb/s links, RTT 6 us; targets X = Y = {:.1} Gb/s; UI from (50 ms, 100 ms); \
             control channel {}",
            target / 1e9,
            if capped { "capped at 2%" } else { "not capped" }
        );
        println!(
            "  tau_v    pkts/tau_r  ctrl/C    convergence   in tau_v   within 5%   CV    events"
        );
        for tau_v_us in [500u64, 200, 100, 50, 20, 10, 5, 2] {
            let tau_v_ns = tau_v_us * 1000;
            let s = from_toml(&scenario(rate, tau_v_ns, capped))?;
            let (topo, flows) = s.build(Path::new("."))?;
            let out = run(&s, &topo, &flows)?;
            let join = 200 * tau_v_ns * 1000; // ps
            let mut by_time: BTreeMap<u64, [f64; 2]> = BTreeMap::new();
            for r in out.rates.iter().filter(|r| r.time.0 > join) {
                by_time.entry(r.time.0).or_default()[r.flow as usize] = r.rate;
            }
            let samples: Vec<(u64, [f64; 2])> = by_time.into_iter().collect();
            // Convergence: the first 10-sample mean after which every such mean is within 5%.
            let smooth = 10;
            let mut settled: Option<usize> = None;
            for i in 0..samples.len().saturating_sub(smooth - 1) {
                let w = &samples[i..i + smooth];
                let ok = (0..2).all(|f| {
                    let m = w.iter().map(|s| s.1[f]).sum::<f64>() / smooth as f64;
                    (m / target - 1.0).abs() <= 0.05
                });
                match (ok, settled) {
                    (true, None) => settled = Some(i + smooth - 1),
                    (false, Some(_)) => settled = None,
                    _ => {}
                }
            }
            let pkts = c * 2.0 * tau_v_ns as f64 * 1e-9 / (8.0 * 1500.0);
            // Two VM-flows, a 74 B packet each way every τ_v on the shared link's direction.
            let ctrl = 2.0 * 74.0 * 8.0 / (tau_v_ns as f64 * 1e-9) / c;
            let line = match settled {
                Some(i) => {
                    let t = (samples[i].0 - join) as f64 * 1e-12;
                    let after = &samples[i..];
                    let all: Vec<f64> = after.iter().flat_map(|s| s.1).collect();
                    let within = all
                        .iter()
                        .filter(|&&x| (x / target - 1.0).abs() <= 0.05)
                        .count() as f64
                        / all.len() as f64;
                    let mean = all.iter().sum::<f64>() / all.len() as f64;
                    let var =
                        all.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / all.len() as f64;
                    format!(
                        "{:>9.6} s  {:>8.1}   {:>8.3}   {:.3}",
                        t,
                        t / (tau_v_ns as f64 * 1e-9),
                        within,
                        var.sqrt() / mean
                    )
                }
                None => "not within 5% (10-sample means) by 600 tau_v after the join".into(),
            };
            println!(
                "  {:>4} us  {:>9.1}  {:>6.4}  {line}  {}",
                tau_v_us, pkts, ctrl, out.events
            );
        }
    }
    Ok(())
}
