//! One point of Söze Fig. 19 on the packet engine (`systems::soze::scaling`), printed — for
//! measuring single full-scale points without Python.
//!
//! `cargo run --release -p fairnet --example soze_scaling -- K FLOWS [SEED] [HORIZON_US] [P_US]
//! [WEIGHT_LO] [WEIGHT_HI]` (defaults: seed 1, 2,000 µs, Söze's p = 20 µs, weights uniform in
//! [0.1, 10]).

use fairnet::systems::soze::scaling::{run, ScalingSpec};
use fairnet::units::Time;
use std::str::FromStr;

const NAMES: [&str; 7] = [
    "K",
    "FLOWS",
    "SEED",
    "HORIZON_US",
    "P_US",
    "WEIGHT_LO",
    "WEIGHT_HI",
];

fn main() {
    if let Err(e) = measure() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn measure() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Argument `i` (or `default`), parsed; an error names the argument.
    fn arg<T: FromStr>(args: &[String], i: usize, default: &str) -> Result<T, String> {
        let v = args.get(i).map_or(default, String::as_str);
        v.parse()
            .map_err(|_| format!("{}: cannot parse {v:?}", NAMES[i]))
    }
    let (k, flows): (u32, usize) = (arg(&args, 0, "4")?, arg(&args, 1, "10")?);
    let mut spec = ScalingSpec::new(k, flows, arg(&args, 2, "1")?);
    spec.horizon = Time::from_us(arg(&args, 3, "2000")?);
    if args.len() > 4 {
        spec.p = Time::from_us(arg(&args, 4, "")?);
    }
    let (lo, hi) = (spec.weights.0.to_string(), spec.weights.1.to_string());
    spec.weights = (arg(&args, 5, &lo)?, arg(&args, 6, &hi)?);
    let r = run(&spec).map_err(|e| e.to_string())?;
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
        "Lemma 3.2 violated at the oracle rates by {:.1}% of flows, in {:.1}% of the updates made; \
         {:.1}% of flows held at a set rate floor",
        r.lemma_3_2_violated * 100.0,
        r.lemma_3_2_violated_updates * 100.0,
        r.held_at_floor * 100.0
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
