//! The cost of PFC: the packet yardstick's fabric and flows (a k = 8 fat-tree, 100 Gb/s, DCTCP
//! with ECN at 15 packets, permutation traffic; `fairnet::registry::bench::htsim_yardstick`)
//! over a 4 MB shared memory per switch (link buffers as large), run lossy and lossless
//! (`lossless = true`, default dynamic thresholds), alternated `rounds` times. Prints events,
//! CPU seconds of the simulating thread, drops and pauses per run. With `drop_tail` the
//! ports do not mark (DCTCP falls back to loss), so queues grow and PFC pauses.
//!
//! ```sh
//! cargo run --release -p fairnet --example pfc_bench -- 2 3             # 2 ms, 3 rounds
//! cargo run --release -p fairnet --example pfc_bench -- 2 3 drop_tail   # queues that pause
//! ```

use fairnet::registry::bench::{htsim_yardstick, thread_cpu_seconds};
use fairnet::registry::PacketSim;
use fairnet::topo::{fat_tree, FatTreeSpec, LinkSpec};
use fairnet::units::{Bytes, Rate, Time};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let sim_ms: f64 = args.next().map_or(Ok(2.0), |a| a.parse())?;
    let rounds: u32 = args.next().map_or(Ok(3), |a| a.parse())?;
    let drop_tail = args.next().as_deref() == Some("drop_tail");
    let (_, flows, mut cfg) = htsim_yardstick(8, 1)?;
    if drop_tail {
        cfg.qdisc = fairnet::registry::QdiscConfig::DropTail;
    }
    let memory = Bytes(4_000_000);
    let link = LinkSpec::new(Rate::gbps(100), Time::from_us(1), memory);
    let topo = fat_tree(FatTreeSpec {
        k: 8,
        host_link: link,
        fabric_link: link,
        oversubscription: 1,
    })?;
    for round in 0..rounds {
        for lossless in [false, true] {
            let mut c = cfg.clone();
            c.shared_buffer = Some(fairnet::engine::packet::SharedBufferConfig {
                size: memory,
                alpha: None,
            });
            c.lossless = lossless;
            let mut sim = PacketSim::from_config(&topo, &flows, c)?;
            let cpu0 = thread_cpu_seconds().unwrap_or(0.0);
            let r = sim.run_until(Time::from_secs_f64(sim_ms * 1e-3))?;
            let cpu = thread_cpu_seconds().unwrap_or(0.0) - cpu0;
            let drops: u64 = r.links.iter().map(|l| l.drops).sum();
            let pauses: u64 = r.links.iter().map(|l| l.pfc_pauses_received).sum();
            println!(
                "round {round} {:<8} events {:>10} data packet-hops {:>9} cpu {cpu:.3} s drops {drops} pauses {pauses}",
                if lossless { "lossless" } else { "lossy" },
                r.events,
                r.data_packet_hops
            );
        }
    }
    Ok(())
}
