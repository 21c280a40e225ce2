//! Prints the DCTCP fluid model beside the packet engine's DCTCP on one bottleneck
//! (`fairnet::schemes::dctcp_fluid::compare`): queue mean and amplitude, window, α.
//!
//! `cargo run --release --example dctcp_fluid_vs_packet [FLOWS ...]` (default 2 10 40).

use fairnet::schemes::dctcp_fluid::compare::{compare, Setup};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let counts: Vec<u32> = if args.is_empty() {
        vec![2, 10, 40]
    } else {
        match args.iter().map(|a| a.parse()).collect() {
            Ok(c) => c,
            Err(_) => {
                eprintln!("dctcp_fluid_vs_packet: expected flow counts, got {args:?}");
                std::process::exit(2);
            }
        }
    };
    println!("10 Gb/s, K = 65 packets, 16 us per link; steady state 30-80 ms, sampled every 2 us");
    println!(
        "{:>5} {:>8} | {:>9} {:>9} | {:>9} {:>9} | {:>8} {:>8} | {:>7} {:>7}",
        "flows",
        "d (us)",
        "q fluid",
        "q packet",
        "A fluid",
        "A packet",
        "W fluid",
        "W packet",
        "a fluid",
        "a packet"
    );
    for n in counts {
        let c = match compare(&Setup {
            flows: n,
            ..Setup::default()
        }) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("dctcp_fluid_vs_packet: {e}");
                std::process::exit(2);
            }
        };
        let (f, p) = (c.fluid, c.packet);
        println!(
            "{n:>5} {:>8.2} | {:>9.2} {:>9.2} | {:>9.2} {:>9.2} | {:>8.2} {:>8.2} | {:>7.4} {:>7.4}",
            c.model.d[0] * 1e6,
            f.queue_mean,
            p.queue_mean,
            f.queue_amplitude,
            p.queue_amplitude,
            f.window_mean,
            p.window_mean,
            f.alpha_mean,
            p.alpha_mean
        );
    }
}
