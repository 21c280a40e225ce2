//! Packet-engine speed on the htsim yardstick: a k = 8 fat-tree (128 hosts), 100 Gb/s links,
//! 1 µs per link, 100-packet port buffers, DCTCP with ECN marking at 15 packets, 1500 B packets
//! on the wire, permutation traffic (each host sends one long flow to a distinct host, one ECMP
//! path per flow), 10 ms simulated.
//!
//! ```sh
//! cargo run --release -p fairnet --example packet_bench            # 10 ms
//! cargo run --release -p fairnet --example packet_bench -- 2       # 2 ms
//! ```
//!
//! Prints simulated time per wall second, events per second, data packet-hops per wall second
//! and peak RSS.

use fairnet::engine::packet::{EcnThreshold, PacketConfig, PacketSim, QdiscConfig, TransportKind};
use fairnet::topo::{fat_tree, FatTreeSpec, LinkSpec};
use fairnet::units::{Bytes, Rate, Time};
use fairnet::workload::FlowSpec;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// Peak resident set size in KiB (Linux `VmHWM`), if available.
fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sim_ms: u64 = match std::env::args().nth(1) {
        Some(a) => a.parse()?,
        None => 10,
    };
    // 1500 B on the wire: 1452 B payload + 48 B header.
    let header = Bytes(48);
    let mtu = Bytes(1452);
    let wire = mtu.0 + header.0;
    let link = LinkSpec::new(Rate::gbps(100), Time::from_us(1), Bytes(100 * wire));
    let topo = fat_tree(FatTreeSpec {
        k: 8,
        host_link: link,
        fabric_link: link,
        oversubscription: 1,
    })?;
    let hosts = topo.hosts().to_vec();
    // A random derangement: every host sends to a distinct host other than itself.
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut dst = hosts.clone();
    loop {
        dst.shuffle(&mut rng);
        if hosts.iter().zip(&dst).all(|(a, b)| a != b) {
            break;
        }
    }
    let flows: Vec<FlowSpec> = hosts
        .iter()
        .zip(&dst)
        .map(|(&s, &d)| FlowSpec::new(s, d, Bytes(1 << 50), Time::ZERO))
        .collect();
    let cfg = PacketConfig {
        mtu,
        header,
        transport: TransportKind::Dctcp,
        qdisc: QdiscConfig::Ecn {
            k: EcnThreshold::Packets(15),
        },
        seed: 1,
        ..PacketConfig::default()
    };

    let t0 = Instant::now();
    let mut sim = PacketSim::new(&topo, &flows, cfg)?;
    let setup = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let r = sim.run_until(Time::from_ms(sim_ms))?;
    let wall = t1.elapsed().as_secs_f64();

    let sim_s = r.now.as_secs_f64();
    let delivered: u64 = r.flows.iter().map(|f| f.delivered).sum();
    let goodput = delivered as f64 * 8.0 / sim_s / flows.len() as f64;
    let drops: u64 = r.links.iter().map(|l| l.drops).sum();
    let marks: u64 = r.links.iter().map(|l| l.marks).sum();
    println!(
        "k=8 fat-tree, {} hosts, {} flows, DCTCP K=15 pkts, 100-pkt buffers, 1500 B packets",
        hosts.len(),
        flows.len()
    );
    println!("simulated           {:.3} ms", sim_s * 1e3);
    println!("setup               {:.3} s", setup);
    println!("wall                {:.3} s", wall);
    println!("sim time / wall s   {:.3} ms", sim_s * 1e3 / wall);
    println!("events              {}", r.events);
    println!("events / s          {:.3} M", r.events as f64 / wall / 1e6);
    println!("data packet-hops    {}", r.data_packet_hops);
    println!(
        "data pkt-hops / s   {:.3} M",
        r.data_packet_hops as f64 / wall / 1e6
    );
    println!(
        "all pkt-hops / s    {:.3} M",
        r.packet_hops as f64 / wall / 1e6
    );
    println!("peak packets alive  {}", r.peak_packets);
    println!("pending events      {}", r.pending_events);
    println!("mean goodput/flow   {:.2} Gb/s", goodput / 1e9);
    println!("drops {drops}, marks {marks}");
    match peak_rss_kib() {
        Some(kib) => println!("peak RSS            {:.1} MiB", kib as f64 / 1024.0),
        None => println!("peak RSS            unavailable"),
    }
    Ok(())
}
