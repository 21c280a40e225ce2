//! MAY's per-packet cost against drop-tail on the same scenario (issue 20's goal: within 15%).
//!
//! Two figures, each printed for both queues and as a ratio:
//!
//! 1. **Whole run**: the packet yardstick's fabric and flows (`registry::bench::htsim_yardstick`:
//!    k = 8 fat-tree, 128 long flows, 100 Gb/s, 100-packet buffers, 1500 B packets) with a
//!    drop-based transport (NewReno with SACK) and every port under drop-tail or MAY; CPU
//!    nanoseconds per data packet-hop (the runs' dynamics differ — MAY drops other packets —
//!    so the cost is taken per packet forwarded, the engine's work included); and MAY kept
//!    from entering any flow, whose run is drop-tail's packet for packet, so the ratio is the
//!    per-packet path's cost alone.
//! 2. **One port**: enqueue + dequeue of 10⁷ 1500-byte packets of 1,000 flows through a
//!    drop-tail FIFO and through MAY with every flow in its table and ν > 0 (the per-packet
//!    path of Fig. 1: the table lookup, the random draw), no engine around them.
//!
//! MAY's timers for these 100 Gb/s, ~20 µs-RTT runs follow §V's rules: Δ covers several RTTs
//! (100 µs), q_w = 0.05 averages over several Δ, T₀ = 64·Δ (the paper's ratio).
//!
//! ```sh
//! cargo run --release -p fairnet --example may_cost            # 5 ms simulated
//! cargo run --release -p fairnet --example may_cost -- 2       # 2 ms
//! ```

use fairnet::engine::packet::pkt::{Packet, PacketPool};
use fairnet::engine::packet::qdisc::{Enqueued, Qdisc, QdiscParams};
use fairnet::ids::{FlowId, LinkId};
use fairnet::registry::bench::{htsim_yardstick, thread_cpu_seconds, timed_run};
use fairnet::registry::{QdiscConfig, TransportKind};
use fairnet::schemes::fifo::DropTail;
use fairnet::systems::may::{May, MayConfig};
use fairnet::units::{Bytes, Rate, Time};
use std::time::Instant;

/// MAY with §V's datacenter timers (module doc).
fn may_dc() -> MayConfig {
    MayConfig {
        delta: Time::from_us(100),
        t0: Time::from_us(6400),
        ..MayConfig::default()
    }
}

/// CPU (or wall) seconds of `f`.
fn cpu_of(f: impl FnOnce()) -> f64 {
    let (c0, t0) = (thread_cpu_seconds(), Instant::now());
    f();
    match (c0, thread_cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => t0.elapsed().as_secs_f64(),
    }
}

/// Nanoseconds per packet of `n` enqueue + dequeue pairs of 1500-byte packets from 1,000
/// flows in turn, one packet every 120 ns (100 Gb/s).
fn per_port(q: &mut dyn Qdisc, n: u64) -> f64 {
    let mut pool = PacketPool::new();
    let secs = cpu_of(|| {
        for i in 0..n {
            let mut p = Packet::default();
            p.flow = FlowId((i % 1000) as u32);
            p.wire = 1500;
            let id = pool.alloc(p);
            let now = Time(i * 120_000);
            match q.enqueue(id, &mut pool, now) {
                Enqueued::Dropped => pool.release(id),
                _ => {
                    let sent = q.dequeue(&mut pool, now).unwrap();
                    pool.release(sent);
                }
            }
        }
    });
    secs * 1e9 / n as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sim_ms: f64 = match std::env::args().nth(1) {
        Some(a) => a.parse()?,
        None => 5.0,
    };
    let (topo, flows, mut cfg) = htsim_yardstick(8, 1)?;
    cfg.transport = TransportKind::Reno;
    let mut ns = Vec::new();
    println!(
        "whole run: k=8 fat-tree, {} long NewReno flows, 100 Gb/s, 100-packet buffers, {sim_ms} ms",
        flows.len()
    );
    // Third: MAY that never enters a flow (S₀ = 10¹⁸): it drops nothing, so the run is
    // drop-tail's packet for packet (same events, same drops) and the difference is the cost
    // of Fig. 1's per-packet path alone (line 2's lookup, line 8's draw).
    let idle = MayConfig {
        s0: 1e18,
        ..may_dc()
    };
    for (name, qdisc) in [
        ("drop-tail", QdiscConfig::DropTail),
        ("MAY", QdiscConfig::May(may_dc())),
        ("MAY idle", QdiscConfig::May(idle)),
    ] {
        let mut c = cfg.clone();
        c.qdisc = qdisc;
        let r = timed_run(&topo, &flows, c, Time::from_secs_f64(sim_ms * 1e-3))?;
        let cpu = r.cpu_seconds.unwrap_or(r.wall_seconds);
        let per_hop = cpu * 1e9 / r.data_packet_hops as f64;
        ns.push(per_hop);
        println!(
            "  {name:<9} {:.3} s CPU, {} data packet-hops, {} events, {} drops: {per_hop:.1} ns per data packet-hop",
            cpu, r.data_packet_hops, r.events, r.drops
        );
    }
    println!(
        "  MAY / drop-tail: {:.3} (MAY idle, the same packets: {:.3})",
        ns[1] / ns[0],
        ns[2] / ns[0]
    );

    let n = 10_000_000;
    let params = QdiscParams {
        link: LinkId(0),
        buffer: Bytes(100 * 1500),
        rate: Rate::gbps(100),
        mtu_wire: Bytes(1500),
        seed: 1,
    };
    let mut tail = DropTail::new(params.buffer);
    // Every flow in H (S₀ = 1: entered at its first packet) and ν·δ small but positive, so
    // each packet takes Fig. 1's lines 2–7: lookup and draw.
    let mut may = May::new(
        &MayConfig {
            s0: 1.0,
            nu0: 1e-4,
            kappa: 0.0,
            ..may_dc()
        },
        &params,
        None,
    );
    let a = per_port(&mut tail, n);
    let b = per_port(&mut may, n);
    println!("one port: 10^7 packets of 1,000 flows, enqueue + dequeue");
    println!("  drop-tail {a:.1} ns per packet");
    println!(
        "  MAY       {b:.1} ns per packet ({} table drops, {} entries)",
        may.stats().table_drops,
        may.entries()
    );
    println!("  MAY / drop-tail: {:.3}", b / a);
    Ok(())
}
