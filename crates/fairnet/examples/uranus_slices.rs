//! Uranus's slices on the flow engine at fabric scale: a k = 16 fat-tree (1,024 hosts,
//! 100 Gb/s, 1 µs links), web-search flow sizes with Poisson arrivals at `load`, each flow in
//! one of three slices at random — DS (`W_S` = 2, deadlines `start + Exp(mean)` with mean
//! 10× the flow's ideal transfer time plus 1 ms), CS (`W_S` = 1) and CS (`W_S` = 1) — the
//! scheduler every `slot` µs, seed 1.
//!
//! ```sh
//! cargo run --release -p fairnet --example uranus_slices -- 5000 0.5 100   # flows load slot_us
//! ```
//!
//! Prints wall time, decision slots, Eq. (3)'s largest relative error, each slice's mean FCT
//! and the DS slice's deadline-miss ratio.

use fairnet::engine::flow::{FlowSimConfig, FluidFlow};
use fairnet::systems::uranus::flow_level::run_slices;
use fairnet::systems::uranus::slices::{Objective, SliceSpec};
use fairnet::topo::TopologySpec;
use fairnet::units::Time;
use fairnet::workload::{poisson_flows, SizeCdf};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::error::Error;
use std::path::Path;
use std::time::Instant;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n_flows: usize = args.get(1).map_or(Ok(5000), |s| s.parse())?;
    let load: f64 = args.get(2).map_or(Ok(0.5), |s| s.parse())?;
    let slot_us: u64 = args.get(3).map_or(Ok(100), |s| s.parse())?;
    let topo: TopologySpec = serde_json::from_str(r#"{"kind": "fat_tree", "k": 16}"#)?;
    let topo = topo.build()?;
    let cdf_file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/fairnet/data/flow-size-cdf/WebSearch_distribution.txt");
    let cdf = SizeCdf::from_file(&cdf_file)?;
    let rate = topo.link(topo.out_links(topo.hosts()[0])[0]).capacity;
    let mut specs = poisson_flows(topo.hosts(), rate, load, &cdf, n_flows, 1)?;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut deadlines = Vec::with_capacity(specs.len());
    for s in &mut specs {
        s.tag = rng.gen_range(0..3);
        let ideal = s.size.0 as f64 * 8.0 / rate.bps();
        let mean = 10.0 * ideal + 1e-3;
        let u: f64 = rng.gen_range(f64::EPSILON..1.0);
        deadlines.push(Some(s.start + Time::from_secs_f64(-mean * u.ln())));
    }
    let flows: Vec<FluidFlow> = specs.iter().cloned().map(FluidFlow::new).collect();
    let slices = vec![
        SliceSpec {
            name: "ds".into(),
            objective: Objective::Ds,
            weight: 2.0,
            tags: vec![0],
        },
        SliceSpec {
            name: "cs1".into(),
            objective: Objective::Cs,
            weight: 1.0,
            tags: vec![1],
        },
        SliceSpec {
            name: "cs2".into(),
            objective: Objective::Cs,
            weight: 1.0,
            tags: vec![2],
        },
    ];
    let t0 = Instant::now();
    let r = run_slices(
        &topo,
        &flows,
        &deadlines,
        slices,
        Time::from_us(slot_us),
        &FlowSimConfig::default(),
    )?;
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "{n_flows} flows, load {load}, slot {slot_us} µs on k = 16: {wall:.2} s wall, {} slots, \
         {} events, Eq. (3) max relative error {:.1e}, simulated {:.1} ms",
        r.slots,
        r.sim.events,
        r.max_sum_error,
        r.sim.end_time.as_secs_f64() * 1e3
    );
    for (tag, name) in ["ds", "cs1", "cs2"].iter().enumerate() {
        let mine: Vec<_> = r.sim.flows.iter().filter(|f| f.tag == tag as u32).collect();
        let fct: f64 = mine
            .iter()
            .filter_map(|f| f.fct())
            .map(|t| t.as_secs_f64())
            .sum::<f64>()
            / mine.len() as f64;
        let missed = mine
            .iter()
            .filter(|f| {
                f.end
                    .is_none_or(|e| e > deadlines[f.flow as usize].unwrap())
            })
            .count();
        println!(
            "  {name}: {} flows, mean FCT {:.3} ms, past the deadline drawn for it {:.1}%",
            mine.len(),
            fct * 1e3,
            100.0 * missed as f64 / mine.len() as f64
        );
    }
    Ok(())
}
