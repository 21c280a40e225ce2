//! One point of Söze Fig. 19 on the packet engine (`systems::soze::scaling`), printed — for
//! measuring single full-scale points without Python.
//!
//! `cargo run --release -p fairnet --example soze_scaling -- K FLOWS [SEED] [HORIZON_US] [P_US]
//! [WEIGHT_LO] [WEIGHT_HI]` (defaults: seed 1, 2,000 µs, Söze's p = 20 µs, weights uniform in
//! [0.1, 10]).

use fairnet::systems::soze::scaling::{run, ScalingSpec};
use fairnet::units::Time;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let k: u32 = arg(0, "4").parse()?;
    let flows: usize = arg(1, "10").parse()?;
    let mut spec = ScalingSpec::new(k, flows, arg(2, "1").parse()?);
    spec.horizon = Time::from_us(arg(3, "2000").parse()?);
    if let Some(p) = args.get(4) {
        spec.p = Time::from_us(p.parse()?);
    }
    spec.weights = (
        arg(5, &spec.weights.0.to_string()).parse()?,
        arg(6, &spec.weights.1.to_string()).parse()?,
    );
    let r = run(&spec)?;
    let ms = |t: Option<Time>| match t {
        Some(t) => format!("{:.3} ms", t.as_secs_f64() * 1e3),
        None => format!("> {:.3} ms", spec.horizon.as_secs_f64() * 1e3),
    };
    println!(
        "k = {k}, {flows} flows, {} hosts, p = {}, weights [{}, {}], horizon {}",
        r.hosts, spec.p, spec.weights.0, spec.weights.1, spec.horizon
    );
    println!(
        "sending rate: 90% within 10% {}; mean flow {} ({:.1}% of flows converged); within at end {:.1}%",
        ms(r.rate_converged),
        ms(r.rate_mean_flow_converged),
        r.rate_flows_converged * 100.0,
        r.rate_final_within * 100.0
    );
    println!(
        "throughput (50 us): 90% within 10% {}; median {}; within at end {:.1}%; last quarter error p50 {:.1}% p95 {:.1}%",
        ms(r.converged),
        ms(r.median_converged),
        r.final_within * 100.0,
        r.delivered_median_error * 100.0,
        r.delivered_p95_error * 100.0
    );
    println!(
        "Lemma 3.2 violated at the oracle rates by {:.1}% of flows",
        r.lemma_3_2_violated * 100.0
    );
    println!(
        "longest base RTT {:.2} us; oracle solve {:.3} ms; simulation {:.1} s, {} events",
        r.max_base_rtt.as_secs_f64() * 1e6,
        r.oracle_solve_s * 1e3,
        r.sim_wall_s,
        r.events
    );
    Ok(())
}
