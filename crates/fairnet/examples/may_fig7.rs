//! MAY Fig. 7 exploration harness: the 24-node, 30-flow network of Fig. 6 (10 Mb/s links,
//! 100-packet buffers, access delays 40·i + 1 ms, core delays 10 ms), every flow long-lived TCP
//! (SACK, delayed ACKs, 1000-byte packets, §IV), the congested core links under `--qdisc`.
//! Prints, every `--every` seconds, each core link's ν, measured utilization, table size and
//! drops by cause (MAY's own, buffer overflow), and at the end every flow's throughput over the
//! measurement window beside the oracle's max-min rate, Jain's index (Eq. 10) and the losses by
//! cause.
//!
//! ```text
//! cargo run --release -p fairnet --example may_fig7 -- [--qdisc may|drop_tail|red|drr|'{ kind = ... }']
//!     [--seed 1] [--duration 120] [--from 0] [--every 10] [--utilization admitted|arrivals|departures]
//!     [--overflow-counts] [--buffer-packets 100] [--kappa 0.1] [--u0 0.98] [--quiet]
//! ```
//!
//! The paper (§IV.B): "We plot the amount of throughput taken by each of 30 flows during
//! 2-minute simulations"; Jain's index against max-min RED 0.731, DRR 0.987, MAY 0.985.
//! What the harness found is in docs/systems/may.md ("Fig. 7").

use fairnet::engine::packet::qdisc::QdiscParams;
use fairnet::engine::packet::{PacketResults, PacketSim};
use fairnet::ids::LinkId;
use fairnet::metrics::jain_index;
use fairnet::registry::{Builtin, PacketConfig, QdiscConfig, TransportKind};
use fairnet::systems::may::probe::SharedMay;
use fairnet::systems::may::{May, MayConfig, Utilization};
use fairnet::topo::{may_fig6, LinkSpec, NodeKind, Routing, Topology};
use fairnet::units::{Bytes, Time};
use fairnet::workload::{routed_problem, FlowSpec};
use std::sync::{Arc, Mutex};

/// §IV's 1000-byte packets and the 40-byte TCP/IP header.
const MTU: u64 = 1000;
const HEADER: u64 = 40;

struct Opts {
    qdisc: String,
    seed: u64,
    duration: u64,
    from: u64,
    every: u64,
    utilization: Utilization,
    overflow_counts: bool,
    buffer_packets: u64,
    kappa: f64,
    u0: f64,
    quiet: bool,
}

fn parse() -> Result<Opts, String> {
    let mut o = Opts {
        qdisc: "may".into(),
        seed: 1,
        duration: 120,
        from: 0,
        every: 10,
        utilization: Utilization::Admitted,
        overflow_counts: false,
        buffer_packets: 100,
        kappa: MayConfig::default().kappa,
        u0: MayConfig::default().u0,
        quiet: false,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let val = |i: usize| {
            args.get(i + 1)
                .cloned()
                .ok_or(format!("{}: missing value", args[i]))
        };
        let num = |i: usize| -> Result<u64, String> {
            val(i)?
                .parse::<u64>()
                .map_err(|e| format!("{}: {e}", args[i]))
        };
        match args[i].as_str() {
            "--qdisc" => o.qdisc = val(i)?,
            "--seed" => o.seed = num(i)?,
            "--duration" => o.duration = num(i)?,
            "--from" => o.from = num(i)?,
            "--every" => o.every = num(i)?.max(1),
            "--buffer-packets" => o.buffer_packets = num(i)?,
            "--u0" => o.u0 = val(i)?.parse::<f64>().map_err(|e| format!("--u0: {e}"))?,
            "--kappa" => {
                o.kappa = val(i)?
                    .parse::<f64>()
                    .map_err(|e| format!("--kappa: {e}"))?
            }
            "--utilization" => {
                o.utilization = match val(i)?.as_str() {
                    "admitted" => Utilization::Admitted,
                    "arrivals" => Utilization::Arrivals,
                    "departures" => Utilization::Departures,
                    v => return Err(format!("--utilization: unknown {v:?}")),
                }
            }
            "--overflow-counts" => {
                o.overflow_counts = true;
                i += 1;
                continue;
            }
            "--quiet" => {
                o.quiet = true;
                i += 1;
                continue;
            }
            a => return Err(format!("unknown argument {a:?}")),
        }
        i += 2;
    }
    if o.from >= o.duration {
        return Err("--from must be before --duration".into());
    }
    Ok(o)
}

/// Fig. 6's network with `buffer` on every link.
fn network(buffer: Bytes) -> (Topology, Vec<FlowSpec>) {
    let fig = may_fig6().expect("Fig. 6 builds");
    let mut t = Topology::new();
    for n in fig.topology.nodes() {
        match n.kind {
            NodeKind::Host => t.add_host(n.name.clone()),
            _ => t.add_switch(n.name.clone()),
        };
    }
    for l in fig.topology.links() {
        t.add_link(l.src, l.dst, LinkSpec::new(l.capacity, l.delay, buffer))
            .expect("same links");
    }
    let flows = fig
        .flows
        .iter()
        .enumerate()
        .map(|(k, &(s, d))| FlowSpec::new(s, d, Bytes(1 << 50), Time::from_ms(10 * k as u64)))
        .collect();
    (t, flows)
}

fn main() {
    let o = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("may_fig7: {e}");
            std::process::exit(2);
        }
    };
    let buffer = Bytes(o.buffer_packets * (MTU + HEADER));
    let (topo, flows) = network(buffer);
    let may = MayConfig {
        utilization: o.utilization,
        overflow_counts: o.overflow_counts,
        kappa: o.kappa,
        u0: o.u0,
        ..MayConfig::default()
    };
    let qdisc = match o.qdisc.as_str() {
        "may" => QdiscConfig::May(may.clone()),
        "drop_tail" => QdiscConfig::DropTail,
        // ns-2's DRR as §IV configures it (100 hashed buckets, 1000-byte quantum, one shared
        // buffer dropping from the longest queue; the link's 100-packet buffer ≈ 100 KB).
        "drr" => PacketConfig::from_toml_str(
            "qdisc = { kind = \"drr\", weights = [1.0] , classify = \"flow_hash\", \
             quantum = \"1040B\", overflow = \"drop_longest\" }",
        )
        .map(|mut c| {
            if let QdiscConfig::Drr { weights, .. } = &mut c.qdisc {
                *weights = vec![1.0; 100];
            }
            c.qdisc
        })
        .unwrap(),
        // Adaptive RED self-configured (Floyd, Gummadi, Shenker 2001, §5; the engine's
        // RED with `self_configure`: at 10 Mb/s min_th = 5 packets, max_th = 15, w_q =
        // 1 − e^(−1/C) with C in packets per second; gentle; drops, not marks).
        "red" => {
            PacketConfig::from_toml_str(
                "qdisc = { kind = \"red\", self_configure = {}, ecn = false }",
            )
            .unwrap()
            .qdisc
        }
        other => match PacketConfig::from_toml_str(&format!("qdisc = {other}")) {
            Ok(c) => c.qdisc,
            Err(e) => {
                eprintln!("may_fig7: --qdisc: {e}");
                std::process::exit(2);
            }
        },
    };
    let mut cfg = PacketConfig {
        mtu: Bytes(MTU),
        header: Bytes(HEADER),
        transport: TransportKind::Reno,
        qdisc: qdisc.clone(),
        seed: o.seed,
        ..PacketConfig::default()
    };
    cfg.tcp.sack = true;
    cfg.tcp.delayed_ack = true;
    cfg.tcp.delayed_ack_timeout = Time::from_ms(100);
    cfg.tcp.min_rto = Time::from_ms(200);
    cfg.tcp.initial_rto = Time::from_ms(1000);
    cfg.tcp.max_rto = Time::from_ms(60_000);
    let engine = cfg.engine();
    let mut sim = PacketSim::new(&topo, &flows, engine, Builtin::new(cfg).unwrap()).unwrap();
    // The three congested core links, c1 → c2 → c3 → c4.
    let c: Vec<_> = (1..=4)
        .map(|i| topo.find_node(&format!("c{i}")).unwrap())
        .collect();
    let core: Vec<LinkId> = c
        .windows(2)
        .map(|w| topo.find_link(w[0], w[1]).unwrap())
        .collect();
    let probes: Vec<Arc<Mutex<May>>> = if matches!(qdisc, QdiscConfig::May(_)) {
        core.iter()
            .map(|&l| {
                let link = topo.link(l);
                let p = QdiscParams {
                    link: l,
                    buffer,
                    rate: link.capacity,
                    mtu_wire: Bytes(MTU + HEADER),
                    seed: o.seed,
                };
                let q = Arc::new(Mutex::new(May::new(&may, &p, None)));
                sim.set_qdisc(l, Box::new(SharedMay(q.clone()))).unwrap();
                q
            })
            .collect()
    } else {
        vec![]
    };
    let mut prev = sim.run_until(Time::ZERO).unwrap();
    let mut first: Option<PacketResults> = (o.from == 0).then(|| prev.clone());
    // ν of each probed link sampled every second from `from` on: mean, spread, time at 0.
    let mut nu_samples: Vec<Vec<f64>> = vec![vec![]; probes.len()];
    let mut t = 0;
    while t < o.duration {
        // Steps of `every` seconds, with one boundary at `from`.
        let mut next = (t + o.every).min(o.duration);
        if t < o.from {
            next = next.min(o.from);
        }
        let mut r = None;
        for sec in t + 1..=next {
            r = Some(sim.run_until(Time::from_ms(sec * 1000)).unwrap());
            if sec > o.from {
                for (k, p) in probes.iter().enumerate() {
                    nu_samples[k].push(p.lock().unwrap().nu());
                }
            }
        }
        let r = r.unwrap();
        if next == o.from {
            first = Some(r.clone());
        }
        if !o.quiet {
            let dt = (r.now - prev.now).as_secs_f64();
            let mut line = format!("t={next:>4}s");
            for (k, &l) in core.iter().enumerate() {
                let (a, b) = (&prev.links[l.idx()], &r.links[l.idx()]);
                let util = (b.tx_bytes - a.tx_bytes) as f64 * 8.0 / (dt * 10e6);
                let drops = b.drops - a.drops;
                line += &format!(" | c{}→c{} sent {util:.3} drops {drops:>4}", k + 1, k + 2);
                if let Some(p) = probes.get(k) {
                    let m = p.lock().unwrap();
                    line += &format!(
                        " ν {:.4} u {:.3} H {:>2} NB {:>2}",
                        m.nu(),
                        m.utilization(),
                        m.entries(),
                        m.bottlenecked(0.1)
                    );
                }
            }
            println!("{line}");
        }
        prev = r;
        t = next;
    }
    let a = first.unwrap();
    let b = prev;
    let dt = (b.now - a.now).as_secs_f64();
    let wire = (MTU + HEADER) as f64 / MTU as f64;
    let x: Vec<f64> = a
        .flows
        .iter()
        .zip(&b.flows)
        .map(|(p, q)| (q.delivered - p.delivered) as f64 * 8.0 * wire / dt)
        .collect();
    let pairs: Vec<_> = flows.iter().map(|f| (f.src, f.dst)).collect();
    let problem = routed_problem(
        &topo,
        &Routing::new(&topo),
        &pairs,
        0,
        vec![1.0; flows.len()],
    )
    .and_then(fairnet::alloc::Problem::new)
    .unwrap();
    let want = fairnet::alloc::solve(&problem).rates;
    println!(
        "flow  src→dst    Mb/s   max-min   (throughput over {}–{} s)",
        o.from, o.duration
    );
    for (i, f) in flows.iter().enumerate() {
        println!(
            "{:>4}  {:>4}→{:<4} {:>6.3}  {:>6.3}",
            i + 1,
            topo.node(f.src).name,
            topo.node(f.dst).name,
            x[i] / 1e6,
            want[i] / 1e6
        );
    }
    println!(
        "qdisc {} seed {}: Jain vs max-min (Eq. 10) {:.4}  (paper: RED 0.731, DRR 0.987, MAY 0.985)",
        o.qdisc,
        o.seed,
        jain_index(&x, Some(&want))
    );
    for (k, &l) in core.iter().enumerate() {
        let (p, q) = (&a.links[l.idx()], &b.links[l.idx()]);
        let util = (q.tx_bytes - p.tx_bytes) as f64 * 8.0 / (dt * 10e6);
        let mut line = format!(
            "c{}→c{}: sent {util:.3} of capacity, drops {}",
            k + 1,
            k + 2,
            q.drops - p.drops
        );
        if let Some(m) = probes.get(k) {
            let v = &nu_samples[k];
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
            let zero = v.iter().filter(|&&x| x == 0.0).count() as f64 / v.len() as f64;
            line += &format!(
                "; ν mean {mean:.4} sd {sd:.4} at 0 {:.0}% of seconds",
                zero * 100.0
            );
            let s = m.lock().unwrap().stats();
            line += &format!(
                " (whole run: MAY table {} entry {} overflow {}; entries created {} peak {})",
                s.table_drops, s.entry_drops, s.overflow_drops, s.entries_created, s.peak_entries
            );
        }
        println!("{line}");
    }
}
