//! eBA at datacenter speeds, at flow level (issue 23, beyond the paper): how small can τ_v and
//! τ_r be? Two VM-flows, X (backlogged from 0) and Y (joining at `join`), both with a 45%
//! guarantee, share a 100 Gb/s link of a dumbbell with 1 µs links (a path's round trip is
//! 6 µs). LRC with uniform increase from the paper's (τ_v, τ_r) = (50 ms, 100 ms) and
//! α = β = 2 s⁻¹ (§VI-B, §VII-C) down to τ_v = 2 µs, with the control packets' feedback delay
//! (`feedback_delay`: each update reads the rate factors one round trip old).
//!
//! ```sh
//! cargo run --release -p fairnet --example eba_datacenter
//! ```
//!
//! Prints, per τ_v: the time after Y joins until both VM-flows stay within 5% of 45 Gb/s
//! (the oracle's share of μC = 90 Gb/s), in seconds and in units of τ_v, and the largest
//! overshoot of the link's load over C after the join. A fluid link measures its rate
//! exactly, so what this shows is the delay's limit alone; the measurement noise of §VII-B
//! (TCP bursts over a short τ_r) needs the packet level.

use fairnet::engine::flow::FlowSimConfig;
use fairnet::engine::Progress;
use fairnet::systems::eba::config::LrcConfig;
use fairnet::systems::eba::flow_level::{run, FlowLevelConfig, VmTransfer};
use fairnet::systems::eba::guarantee::{Placement, Vm};
use fairnet::topo::builders::dumbbell;
use fairnet::topo::LinkSpec;
use fairnet::units::{Bytes, Rate, Time};
use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    let link = LinkSpec::new(Rate::gbps(100), Time::from_us(1), Bytes(1_000_000));
    let topo = dumbbell(2, link, link)?;
    let c = 100e9;
    let vm = |name: &str, host: u32| Vm {
        name: name.into(),
        tenant: "t".into(),
        host,
        guarantee: 0.45 * c,
        weight: 1.0,
    };
    let placement = Placement::new(
        vec![vm("x", 0), vm("rx", 2), vm("y", 1), vm("ry", 3)],
        |_| Some(c),
    )?;
    let base = LrcConfig::default();
    println!("tau_v      alpha/s   convergence  in tau_v  peak load/C   (RTT 6 us, UI from 50 ms)");
    for tau_v_us in [50_000u64, 5_000, 500, 100, 50, 20, 10, 5, 2] {
        let tau_v = Time::from_us(tau_v_us);
        let lrc = base.with_uniform_increase(tau_v, Time(2 * tau_v.0));
        let join = Time(400 * tau_v.0);
        let horizon = Time(join.0 + 2_000 * tau_v.0);
        let long = |src_vm, dst_vm, start| VmTransfer {
            src_vm,
            dst_vm,
            size: Bytes(u64::MAX / 4),
            start,
            tag: 0,
            demand: None,
        };
        let transfers = [long(0, 1, Time::ZERO), long(2, 3, join)];
        let cfg = FlowLevelConfig {
            lrc: lrc.clone(),
            feedback_delay: true,
            ..FlowLevelConfig::default()
        };
        let sample = Time(tau_v.0.div_ceil(2).max(1));
        let sim = FlowSimConfig {
            rate_interval: Some(sample),
            stop_at: Some(horizon),
            ..FlowSimConfig::default()
        };
        let r = run(
            &topo,
            &placement,
            &transfers,
            &cfg,
            &sim,
            &Progress::default(),
        )?;
        // Per sample time after the join: both rates.
        let mut by_time: std::collections::BTreeMap<u64, [f64; 2]> = Default::default();
        for s in r.sim.rates.iter().filter(|s| s.time >= join) {
            by_time.entry(s.time.0).or_default()[s.flow as usize] = s.rate;
        }
        let mut settled_from = None;
        let mut peak: f64 = 0.0;
        for (&t, rates) in &by_time {
            peak = peak.max((rates[0] + rates[1]) / c);
            let ok = rates.iter().all(|&x| (x / (0.45 * c) - 1.0).abs() <= 0.05);
            match (ok, settled_from) {
                (true, None) => settled_from = Some(t),
                (false, Some(_)) => settled_from = None,
                _ => {}
            }
        }
        let conv = settled_from.map(|t| Time(t - join.0).as_secs_f64());
        match conv {
            Some(s) => println!(
                "{:>7} us  {:>8.0}  {:>9.6} s  {:>8.1}  {:>10.3}",
                tau_v_us,
                lrc.alpha,
                s,
                s / tau_v.as_secs_f64(),
                peak
            ),
            None => println!(
                "{:>7} us  {:>8.0}  not within 5% by {} tau_v after the join; peak load/C {:.3}",
                tau_v_us, lrc.alpha, 2_000, peak
            ),
        }
    }
    Ok(())
}
