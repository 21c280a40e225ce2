//! Packet-engine speed on the htsim yardstick: a k = 8 fat-tree (128 hosts), 100 Gb/s links,
//! 1 µs per link, 100-packet port buffers, DCTCP with ECN marking at 15 packets, 1500 B packets
//! on the wire, permutation traffic (each host sends one long flow to a distinct host, one ECMP
//! path per flow), 10 ms simulated. The scenario is
//! `fairnet::registry::bench::htsim_yardstick` (shared with the Python binding).
//!
//! ```sh
//! cargo run --release -p fairnet --example packet_bench            # 10 ms
//! cargo run --release -p fairnet --example packet_bench -- 2       # 2 ms
//! ```
//!
//! Prints simulated time per wall second, events per second, data packet-hops per wall second
//! (and per CPU second of the simulating thread, steadier on a loaded machine) and peak RSS.

use fairnet::registry::bench::run_yardstick;
use fairnet::units::Time;

/// Peak resident set size in KiB (Linux `VmHWM`), if available.
fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sim_ms: f64 = match std::env::args().nth(1) {
        Some(a) => a.parse()?,
        None => 10.0,
    };
    let r = run_yardstick(Time::from_secs_f64(sim_ms * 1e-3), 8, 1)?;
    let wall = r.wall_seconds;
    println!(
        "k=8 fat-tree, {} hosts, {} flows, DCTCP K=15 pkts, 100-pkt buffers, 1500 B packets",
        r.hosts, r.hosts
    );
    println!("simulated           {:.3} ms", r.simulated_seconds * 1e3);
    println!("wall                {:.3} s", wall);
    println!(
        "sim time / wall s   {:.3} ms",
        r.simulated_seconds * 1e3 / wall
    );
    println!("events              {}", r.events);
    println!("events / s          {:.3} M", r.events as f64 / wall / 1e6);
    println!("data packet-hops    {}", r.data_packet_hops);
    println!(
        "data pkt-hops / s   {:.3} M",
        r.data_packet_hops as f64 / wall / 1e6
    );
    println!(
        "all pkt-hops / s    {:.3} M",
        r.all_packet_hops as f64 / wall / 1e6
    );
    if let Some(cpu) = r.cpu_seconds {
        println!("cpu                 {:.3} s", cpu);
        println!(
            "data pkt-hops / cpu s {:.3} M",
            r.data_packet_hops as f64 / cpu / 1e6
        );
    }
    println!("peak packets alive  {}", r.peak_live_packets);
    println!("mean goodput/flow   {:.2} Gb/s", r.mean_goodput / 1e9);
    println!("drops {}, marks {}", r.drops, r.marks);
    match peak_rss_kib() {
        Some(kib) => println!("peak RSS            {:.1} MiB", kib as f64 / 1024.0),
        None => println!("peak RSS            unavailable"),
    }
    Ok(())
}
