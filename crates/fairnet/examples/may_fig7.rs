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
//!     [--q-w 0.05] [--delta 1] [--t0 64] [--expected-drops] [--tcp fairnet|ns2]
//!     [--init-cwnd 10] [--csv PATH] [--patterns np,nq,mp,mq,nm,pq] [--weights 1,2,3]
//! ```
//!
//! Diagnostics (none is the paper's MAY or the entry's default): `--q-w`, `--delta`, `--t0`
//! (seconds) change Table I's parameters; `--expected-drops` makes line 24 average each
//! flow's expected drops instead of its counted ones ([`May::with_expected_drops`]: δ without
//! the sampling noise of ND); `--tcp ns2` replaces every flow's window by ns-2's
//! `Agent/TCP` window ([`Ns2Window`]: per-ACK growth, so half a packet per RTT with delayed
//! ACKs, `windowInit_` 2, integer `ssthresh_`); `--init-cwnd` sets our TCP's initial window.
//! `--csv` writes every flow's base RTT, throughput and max-min rate (and, under MAY, its
//! entry at its bottleneck: seconds in H, mean δ, removals); `--patterns` keeps only some of
//! §IV.B's six flow patterns (`np` is n(i) → p(i), …); `--weights` runs weighted MAY
//! (fairnet's extension) with these weights cycled over the flows, against the weighted
//! max-min oracle.
//!
//! The paper (§IV.B): "We plot the amount of throughput taken by each of 30 flows during
//! 2-minute simulations"; Jain's index against max-min RED 0.731, DRR 0.987, MAY 0.985.
//! What the harness found is in docs/systems/may.md ("Fig. 7").

use fairnet::engine::packet::qdisc::QdiscParams;
use fairnet::engine::packet::{AckInfo, CongestionControl, PacketResults, PacketSim};
use fairnet::ids::{FlowId, LinkId};
use fairnet::metrics::jain_index;
use fairnet::registry::{Builtin, PacketConfig, QdiscConfig, TransportKind};
use fairnet::systems::may::probe::SharedMay;
use fairnet::systems::may::{FlowWeights, May, MayConfig, Utilization};
use fairnet::topo::{may_fig6, LinkSpec, NodeKind, PathSelector, Routing, Topology};
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
    q_w: f64,
    delta: f64,
    t0: f64,
    expected_drops: bool,
    ns2_tcp: bool,
    init_cwnd: u32,
    csv: Option<String>,
    patterns: Vec<String>,
    weights: Vec<f64>,
}

/// ns-2's `Agent/TCP` window as §IV's simulations ran it (ns-2 TCP with `Agent/TCP/Sack1`
/// recovery, which the engine's SACK sender provides), for the `--tcp ns2` diagnostic:
/// - `windowInit_` 2 packets (ns-2's default since 2001); no `ssthresh_`/`maxcwnd_` limits
///   (§IV.D: "no ssthresh_ nor cwnd_ limitations");
/// - `opencwnd`: +1 packet per new ACK in slow start, +1/cwnd per new ACK in congestion
///   avoidance — per ACK, not per byte, so with a delayed-ACK sink (one ACK per two packets)
///   the window grows by half a packet per RTT (ours: one, RFC 3465 byte counting);
/// - fast retransmit: `ssthresh_ = cwnd_ = max(⌊cwnd/2⌋, 2)`; timeout: `ssthresh_` the same,
///   `cwnd_ = 1`; the window in use is `⌊cwnd_⌋` packets.
struct Ns2Window {
    mss: u64,
    cwnd: f64,
    ssthresh: f64,
}

impl Ns2Window {
    fn new(mss: u64) -> Ns2Window {
        Ns2Window {
            mss,
            cwnd: 2.0,
            ssthresh: f64::INFINITY,
        }
    }
    fn half(&self) -> f64 {
        (self.cwnd / 2.0).floor().max(2.0)
    }
}

impl CongestionControl for Ns2Window {
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        if a.acked == 0 || a.in_recovery {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
    }
    fn on_loss(&mut self, _now: Time, _in_flight: u64) {
        self.ssthresh = self.half();
        self.cwnd = self.ssthresh;
    }
    fn on_timeout(&mut self, _now: Time, _in_flight: u64) {
        self.ssthresh = self.half();
        self.cwnd = 1.0;
    }
    fn cwnd(&self) -> u64 {
        (self.cwnd.floor() as u64).max(1) * self.mss
    }
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
        q_w: MayConfig::default().q_w,
        delta: MayConfig::default().delta.as_secs_f64(),
        t0: MayConfig::default().t0.as_secs_f64(),
        expected_drops: false,
        ns2_tcp: false,
        init_cwnd: 10,
        csv: None,
        patterns: PATTERNS.iter().map(|p| p.to_string()).collect(),
        weights: vec![],
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
        let real = |i: usize| -> Result<f64, String> {
            val(i)?
                .parse::<f64>()
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
            "--q-w" => o.q_w = real(i)?,
            "--delta" => o.delta = real(i)?,
            "--t0" => o.t0 = real(i)?,
            "--init-cwnd" => o.init_cwnd = num(i)? as u32,
            "--csv" => o.csv = Some(val(i)?),
            "--weights" => {
                o.weights = val(i)?
                    .split(',')
                    .map(|w| {
                        w.parse::<f64>()
                            .map_err(|e| format!("--weights: {w:?}: {e}"))
                    })
                    .collect::<Result<_, _>>()?;
                if o.weights.iter().any(|&w| !(w > 0.0 && w.is_finite())) {
                    return Err("--weights: every weight must be positive".into());
                }
            }
            "--patterns" => {
                o.patterns = val(i)?.split(',').map(str::to_string).collect();
                if let Some(p) = o.patterns.iter().find(|p| !PATTERNS.contains(&p.as_str())) {
                    return Err(format!(
                        "--patterns: unknown {p:?} (of {})",
                        PATTERNS.join(",")
                    ));
                }
            }
            "--tcp" => {
                o.ns2_tcp = match val(i)?.as_str() {
                    "fairnet" => false,
                    "ns2" => true,
                    v => return Err(format!("--tcp: unknown {v:?} (fairnet or ns2)")),
                }
            }
            "--expected-drops" => {
                o.expected_drops = true;
                i += 1;
                continue;
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

/// One flow's entry at one MAY link, sampled every second: seconds in H, the sum of δ over
/// them, removals (in H one second, not the next: Fig. 1 line 22), and (for sums over links)
/// the links summed.
#[derive(Clone, Copy, Default)]
struct Track {
    in_h: u64,
    delta_sum: f64,
    removals: u64,
    was_in: bool,
    links: u64,
}

impl Track {
    fn sample(&mut self, delta: Option<f64>) {
        if let Some(d) = delta {
            self.in_h += 1;
            self.delta_sum += d;
        } else if self.was_in {
            self.removals += 1;
        }
        self.was_in = delta.is_some();
    }
    fn mean_delta(&self) -> f64 {
        self.delta_sum / self.in_h.max(1) as f64
    }
}

/// §IV.B's six flow patterns, five flows each, in the order of `may_fig6`'s flows.
const PATTERNS: [&str; 6] = ["np", "nq", "mp", "mq", "nm", "pq"];

/// Fig. 6's network with `buffer` on every link and the flows of `patterns` (of [`PATTERNS`]).
fn network(buffer: Bytes, patterns: &[String]) -> (Topology, Vec<FlowSpec>) {
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
        .filter(|(k, _)| patterns.iter().any(|p| p == PATTERNS[k / 5]))
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
    let (topo, mut flows) = network(buffer, &o.patterns);
    // Weighted MAY (fairnet's extension): the weights cycle over the flows, and the oracle
    // becomes weighted max-min.
    let weighted = !o.weights.is_empty();
    if weighted {
        for (k, f) in flows.iter_mut().enumerate() {
            f.weight = o.weights[k % o.weights.len()];
        }
    }
    let may = MayConfig {
        weighted,
        utilization: o.utilization,
        overflow_counts: o.overflow_counts,
        kappa: o.kappa,
        u0: o.u0,
        q_w: o.q_w,
        delta: Time::from_secs_f64(o.delta),
        t0: Time::from_secs_f64(o.t0),
        ..MayConfig::default()
    };
    if let Err(e) = may.validate("--qdisc may") {
        eprintln!("may_fig7: {e}");
        std::process::exit(2);
    }
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
    cfg.tcp.init_cwnd = o.init_cwnd;
    let engine = cfg.engine();
    let mut sim = match Builtin::new(cfg).and_then(|b| PacketSim::new(&topo, &flows, engine, b)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("may_fig7: {e}");
            std::process::exit(2);
        }
    };
    if o.ns2_tcp {
        for k in 0..flows.len() {
            sim.set_congestion_control(FlowId(k as u32), Box::new(Ns2Window::new(MTU)))
                .unwrap();
        }
    }
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
                let w = FlowWeights::default();
                w.set(flows.iter().map(|f| f.weight).collect()).unwrap();
                let mut m = May::new(&may, &p, Some(w));
                if o.expected_drops {
                    m = m.with_expected_drops();
                }
                let q = Arc::new(Mutex::new(m));
                sim.set_qdisc(l, Box::new(SharedMay(q.clone()))).unwrap();
                q
            })
            .collect()
    } else {
        vec![]
    };
    let routing = Routing::new(&topo);
    let paths: Vec<Vec<LinkId>> = flows
        .iter()
        .map(|f| {
            let sel = PathSelector::FlowHash { seed: 0, flow: 0 };
            routing.path(f.src, f.dst, sel).unwrap()
        })
        .collect();
    // Each flow's bottleneck: the core link on its path that the most flows cross.
    let crossing = |l: LinkId| paths.iter().filter(|p| p.contains(&l)).count();
    let bottleneck: Vec<usize> = paths
        .iter()
        .map(|p| {
            (0..core.len())
                .filter(|&k| p.contains(&core[k]))
                .max_by_key(|&k| crossing(core[k]))
                .unwrap()
        })
        .collect();
    let mut prev = sim.run_until(Time::ZERO).unwrap();
    let mut first: Option<PacketResults> = (o.from == 0).then(|| prev.clone());
    // ν of each probed link sampled every second from `from` on: mean, spread, time at 0.
    let mut nu_samples: Vec<Vec<f64>> = vec![vec![]; probes.len()];
    // Each flow's entry at each core link on its path, sampled every second from `from` on.
    let mut track = vec![[Track::default(); 3]; flows.len()];
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
                if !probes.is_empty() {
                    for (i, t) in track.iter_mut().enumerate() {
                        for k in (0..core.len()).filter(|&k| paths[i].contains(&core[k])) {
                            let e = probes[k].lock().unwrap().entry(FlowId(i as u32));
                            t[k].sample(e.map(|e| e.delta));
                        }
                    }
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
    let weights: Vec<f64> = flows.iter().map(|f| f.weight).collect();
    let problem = routed_problem(&topo, &routing, &pairs, 0, weights)
        .and_then(fairnet::alloc::Problem::new)
        .unwrap();
    let want = fairnet::alloc::solve(&problem).rates;
    // Base RTT: the path's propagation delay both ways (the ACKs take the reverse links,
    // whose delays are the same).
    let rtt: Vec<f64> = paths
        .iter()
        .map(|p| {
            2.0 * p
                .iter()
                .map(|&l| topo.link(l).delay.as_secs_f64())
                .sum::<f64>()
        })
        .collect();
    println!(
        "flow  src→dst   RTT s    Mb/s   max-min   (throughput over {}–{} s){}",
        o.from,
        o.duration,
        if probes.is_empty() {
            ""
        } else {
            "   at its bottleneck: share of seconds in H, mean δ there, removals; \
             at its other core links: share in H, removals"
        }
    );
    let secs = nu_samples.first().map_or(0, |v| v.len()).max(1) as f64;
    // A flow's entries at the core links on its path other than its bottleneck, summed.
    let other = |i: usize| {
        let mut o = Track::default();
        for k in (0..core.len()).filter(|&k| k != bottleneck[i] && paths[i].contains(&core[k])) {
            o.in_h += track[i][k].in_h;
            o.removals += track[i][k].removals;
            o.links += 1;
        }
        o
    };
    for (i, f) in flows.iter().enumerate() {
        let mut line = format!(
            "{:>4}  {:>4}→{:<4} {:>5.3} {:>6.3}  {:>6.3}",
            i + 1,
            topo.node(f.src).name,
            topo.node(f.dst).name,
            rtt[i],
            x[i] / 1e6,
            want[i] / 1e6
        );
        if !probes.is_empty() {
            let b = &track[i][bottleneck[i]];
            let o = other(i);
            line += &format!(
                "   c{}→c{} {:>4.2} {:>7.4} {:>3}   {:>4.2} {:>3}",
                bottleneck[i] + 1,
                bottleneck[i] + 2,
                b.in_h as f64 / secs,
                b.mean_delta(),
                b.removals,
                o.in_h as f64 / secs / o.links.max(1) as f64,
                o.removals
            );
        }
        println!("{line}");
    }
    // Throughput over the max-min rate against the base RTT, for each max-min share: the
    // shape of Figs. 5 and 7 (RED's share falls as 1/RTT, §IV.A; MAY's should be flat).
    let mut shares: Vec<f64> = want.clone();
    shares.sort_by(|a, b| a.partial_cmp(b).unwrap());
    shares.dedup_by(|a, b| (*a - *b).abs() < 1e-6 * b.abs());
    for s in shares {
        let mut group: Vec<(f64, f64)> = (0..flows.len())
            .filter(|&i| (want[i] - s).abs() < 1e-6 * s)
            .map(|i| (rtt[i], x[i] / want[i]))
            .collect();
        group.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let n = group.len() as f64;
        let (mr, mx) = (
            group.iter().map(|g| g.0).sum::<f64>() / n,
            group.iter().map(|g| g.1).sum::<f64>() / n,
        );
        let cov = group.iter().map(|g| (g.0 - mr) * (g.1 - mx)).sum::<f64>();
        let var = group.iter().map(|g| (g.0 - mr).powi(2)).sum::<f64>();
        let line: Vec<String> = group
            .iter()
            .map(|(r, v)| format!("{:.2}s:{v:.2}", r))
            .collect();
        println!(
            "max-min {:.3} Mb/s ({} flows): x/max-min by RTT {}; slope {:+.3} per s of RTT",
            s / 1e6,
            group.len(),
            line.join(" "),
            cov / var
        );
    }
    if let Some(path) = &o.csv {
        // The last six columns are empty unless the core links run MAY.
        let mut out = String::from(
            "flow,src,dst,base_rtt_s,throughput_bps,maxmin_bps,in_h_share,mean_delta,removals,\
             other_links,other_in_h_share,other_removals\n",
        );
        for (i, f) in flows.iter().enumerate() {
            let may = if probes.is_empty() {
                ",,,,,".to_string()
            } else {
                let (b, o) = (&track[i][bottleneck[i]], other(i));
                format!(
                    "{},{},{},{},{},{}",
                    b.in_h as f64 / secs,
                    b.mean_delta(),
                    b.removals,
                    o.links,
                    o.in_h as f64 / secs / o.links.max(1) as f64,
                    o.removals
                )
            };
            out += &format!(
                "{},{},{},{},{},{},{may}\n",
                i + 1,
                topo.node(f.src).name,
                topo.node(f.dst).name,
                rtt[i],
                x[i],
                want[i]
            );
        }
        if let Err(e) = std::fs::write(path, out) {
            eprintln!("may_fig7: --csv {path}: {e}");
            std::process::exit(2);
        }
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
