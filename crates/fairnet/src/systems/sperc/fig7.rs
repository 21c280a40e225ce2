//! s-PERC §8.2.1, Fig. 7: convergence times of s-PERC* and RCP on a datacenter fat-tree when
//! 40% of the long flows are replaced at once (packet engine).
//!
//! Setup (§8.2.1): "a 144-server 3-level fat-tree topology with 100 and 400 Gb/s links. We
//! start flows between random pairs of servers, with N = 20 flows per server on average …
//! we wait for the rates to converge, then replace 40% of the flows with new ones … ten
//! changes per run". Table 6: buffers 128 KB; s-PERC*: 64 B control packets, initial round
//! 20 µs, headroom 2%, ctrl rate 4% (convergence-time experiments); RCP α = 0.4, β = 0.2.
//!
//! Our choices (the paper does not give them):
//! - **Topology**: a k = 4 fat-tree with oversubscription 9 (18 servers per ToR: 144 servers,
//!   the only fat-tree of our builder with 144 servers), hosts at 100 Gb/s, fabric at
//!   400 Gb/s, 1 µs per link. Smoke scale: k = 4, 16 servers.
//! - **Waiting for convergence**: each change comes a fixed `epoch_rtts` after the previous
//!   one (long enough for RCP to settle), instead of detecting convergence.
//! - **RTT**: the largest base RTT of any server pair (6 hops each way), the unit of the
//!   results and the sampling period.
//! - **A flow's rate**: what it delivers — every RTT, the wire bytes of each active flow's
//!   data packets that reached the receiver (in order or not) over the last `window_rtts`
//!   RTTs (default 4, fewer right after the change). Not its pacing rate: our hosts' NICs pull data from
//!   their flows round robin and never queue more than one packet, so an RCP port at a host
//!   NIC sees its link exactly full and no queue, and leaves its rate `R` at the line rate;
//!   flows sharing that NIC pace "at" 100 Gb/s while each gets its share. (In ns-2 the NIC
//!   queue would build and RCP's queue term would pull `R` down.) The window trades ~2 RTTs
//!   of lag (both schemes) for per-RTT packet quantization (one packet per RTT is ~7% of a
//!   9 Gb/s flow).
//! - **Ideal**: the max-min rates of the active flows on their ECMP paths at full link
//!   capacity ([`crate::alloc`]); s-PERC* aims 6% lower (headroom and control share), well
//!   inside both tolerances.
//! - **Converged**: the first RTT after the change from which the fraction of flows within the
//!   tolerance stays at or above the target for `stable_rtts` consecutive samples ("for at
//!   least N consecutive RTTs"; N is not given, default 5). A change that never converges
//!   within its epoch is reported as `None` (censored).
//! - **RCP** computes its rate every RTT (§8.2.1: "every link computes a fair share rate every
//!   RTT"): interval = average RTT `d` = the RTT above.

use crate::alloc::{solve, Problem, ProblemInput};
use crate::engine::packet::{PacketConfig, PacketSim, PortAgentConfig, TransportKind};
use crate::error::{Error, Result};
use crate::ids::{FlowId, LinkId};
use crate::topo::{fat_tree, FatTreeSpec, LinkSpec, PathSelector, Routing, Topology};
use crate::units::{Bytes, Rate, Time};
use crate::workload::FlowSpec;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Which scheme runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// s-PERC* (`transport = "sperc"`).
    SPercStar,
    /// RCP (`transport = "rcp"`).
    Rcp,
}

impl Scheme {
    /// The name printed in tables.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::SPercStar => "s-PERC*",
            Scheme::Rcp => "RCP",
        }
    }
}

/// The experiment's parameters (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fig7Spec {
    /// Fat-tree radix.
    pub k: u32,
    /// ToR oversubscription (servers per ToR = oversubscription · k/2).
    pub oversubscription: u32,
    /// Average flows per server.
    pub flows_per_server: f64,
    /// Flow replacements per run.
    pub changes: u32,
    /// Fraction of the active flows replaced at each change.
    pub replace: f64,
    /// RTTs between changes (and before the first).
    pub epoch_rtts: u32,
    /// Consecutive RTTs the criterion must hold.
    pub stable_rtts: u32,
    /// A flow's rate at a sample is its delivered bytes over the last `window_rtts` RTTs.
    pub window_rtts: u32,
    /// Server links.
    pub host_rate: Rate,
    /// Fabric links.
    pub fabric_rate: Rate,
    /// Propagation delay per link.
    pub delay: Time,
    /// Buffer per port.
    pub buffer: Bytes,
    /// s-PERC*'s control-packet share of each link.
    pub ctrl_rate: f64,
    /// Payload bytes per data packet.
    pub mtu: Bytes,
    /// Seed of the flow pairs, the replacements and ECMP.
    pub seed: u64,
}

impl Fig7Spec {
    /// The paper's setup: 144 servers, 20 flows per server, ten changes.
    pub fn full(seed: u64) -> Fig7Spec {
        Fig7Spec {
            k: 4,
            oversubscription: 9,
            flows_per_server: 20.0,
            changes: 10,
            replace: 0.4,
            epoch_rtts: 400,
            stable_rtts: 5,
            window_rtts: 4,
            host_rate: Rate::gbps(100),
            fabric_rate: Rate::gbps(400),
            delay: Time(Time::US),
            buffer: Bytes(128 * 1024),
            ctrl_rate: 0.04,
            mtu: Bytes(1460),
            seed,
        }
    }

    /// The CI scale: 16 servers, 4 flows per server, two changes.
    pub fn smoke(seed: u64) -> Fig7Spec {
        Fig7Spec {
            oversubscription: 1,
            flows_per_server: 4.0,
            changes: 2,
            epoch_rtts: 300,
            ..Fig7Spec::full(seed)
        }
    }
}

/// One scheme's run: convergence times after each change, in RTTs.
#[derive(Clone, Debug, PartialEq)]
pub struct Fig7Run {
    /// The scheme.
    pub scheme: Scheme,
    /// The RTT unit.
    pub rtt: Time,
    /// Flows active at once.
    pub active_flows: usize,
    /// RTTs until 95% of flows stay within 20% of the ideal, per change (`None`: not within
    /// the epoch).
    pub t95_20: Vec<Option<u32>>,
    /// RTTs until 99% of flows stay within 10% of the ideal, per change.
    pub t99_10: Vec<Option<u32>>,
    /// Fraction of flows within 10% at the end of each epoch (a sanity check).
    pub final_within_10: Vec<f64>,
    /// Packet-engine events handled.
    pub events: u64,
    /// Data and ACK packets dropped by the queues (all links, whole run).
    pub drops: u64,
    /// Control packets dropped (control FIFOs full).
    pub ctrl_drops: u64,
    /// Retransmission timeouts (all flows).
    pub timeouts: u64,
}

/// The flows of a run: the initial set, then per change the flows stopped and the new ones.
struct Plan {
    flows: Vec<FlowSpec>,
    initial: Vec<usize>,
    changes: Vec<(Time, Vec<usize>, Vec<usize>)>,
}

fn plan(spec: &Fig7Spec, topo: &Topology, epoch: Time) -> Plan {
    let hosts = topo.hosts().to_vec();
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let n = (spec.flows_per_server * hosts.len() as f64)
        .round()
        .max(2.0) as usize;
    let mut flows = Vec::new();
    let pair = |rng: &mut ChaCha8Rng, start: Time, flows: &mut Vec<FlowSpec>| -> usize {
        let s = hosts[rng.gen_range(0..hosts.len())];
        let mut d = s;
        while d == s {
            d = hosts[rng.gen_range(0..hosts.len())];
        }
        // Long-lived: far more bytes than any run sends.
        flows.push(FlowSpec::new(s, d, Bytes(1 << 50), start));
        flows.len() - 1
    };
    let initial: Vec<usize> = (0..n)
        .map(|_| pair(&mut rng, Time::ZERO, &mut flows))
        .collect();
    let mut active = initial.clone();
    let mut changes = Vec::new();
    for c in 1..=spec.changes {
        let at = Time(epoch.0 * c as u64);
        active.shuffle(&mut rng);
        let m = ((active.len() as f64) * spec.replace).round() as usize;
        let stopped: Vec<usize> = active.drain(..m).collect();
        let started: Vec<usize> = (0..m).map(|_| pair(&mut rng, at, &mut flows)).collect();
        active.extend(&started);
        changes.push((at, stopped, started));
    }
    Plan {
        flows,
        initial,
        changes,
    }
}

/// Max-min rates of `active` flows on the paths the packet engine gives them (ECMP, `seed`).
fn ideal(topo: &Topology, flows: &[FlowSpec], active: &[usize], seed: u64) -> Result<Vec<f64>> {
    let routing = Routing::new(topo);
    let mut paths = Vec::with_capacity(active.len());
    let mut path: Vec<LinkId> = Vec::new();
    for &i in active {
        path.clear();
        let sel = PathSelector::FlowHash {
            seed,
            flow: i as u64,
        };
        routing.path_into(flows[i].src, flows[i].dst, sel, &mut path)?;
        paths.push(path.iter().map(|l| l.0).collect::<Vec<u32>>());
    }
    let caps = topo.links().iter().map(|l| l.capacity.bps()).collect();
    let p = Problem::new(ProblemInput::from_paths(caps, &paths))?;
    Ok(solve(&p).rates)
}

/// The largest base RTT between any two servers (full data packet out, bare ACK back).
fn max_rtt(topo: &Topology, cfg: &PacketConfig) -> Result<Time> {
    let routing = Routing::new(topo);
    let hosts = topo.hosts();
    let (a, b) = (hosts[0], *hosts.last().expect("hosts"));
    let mut t = 0;
    for (s, d, wire) in [(a, b, cfg.mtu_wire()), (b, a, cfg.header)] {
        let mut path = Vec::new();
        routing.path_into(s, d, PathSelector::First, &mut path)?;
        for l in path {
            let link = topo.link(l);
            t += link.delay.0 + link.capacity.tx_time(wire).0;
        }
    }
    Ok(Time(t))
}

/// The packet config of `scheme` for an RTT of `rtt`.
fn config(spec: &Fig7Spec, scheme: Scheme, rtt: Time) -> PacketConfig {
    let mut cfg = PacketConfig {
        seed: spec.seed,
        mtu: spec.mtu,
        ..PacketConfig::default()
    };
    // Both schemes pace; hosts share their NIC among ~20 flows (see `pacing_burst`).
    cfg.tcp.pacing_burst = Bytes(2 * cfg.mtu_wire().0);
    match scheme {
        Scheme::SPercStar => {
            cfg.transport = TransportKind::Sperc;
            cfg.port_agent = PortAgentConfig::Sperc;
            cfg.control.rate = spec.ctrl_rate;
        }
        Scheme::Rcp => {
            cfg.transport = TransportKind::Rcp;
            cfg.port_agent = PortAgentConfig::Rcp;
            cfg.rcp.interval = rtt;
            cfg.rcp.rtt = Some(rtt);
        }
    }
    cfg
}

/// The first sample index from which `ok` holds for `stable` consecutive samples.
fn settle(ok: &[bool], stable: usize) -> Option<u32> {
    let (mut run, mut start) = (0, 0);
    for (j, &o) in ok.iter().enumerate() {
        if !o {
            run = 0;
            continue;
        }
        if run == 0 {
            start = j;
        }
        run += 1;
        if run >= stable.max(1) {
            // Sample j is taken j + 1 RTTs after the change.
            return Some(start as u32 + 1);
        }
    }
    None
}

/// Fraction of `rates` within `tol` (relative) of `ideal`.
fn within(rates: &[f64], ideal: &[f64], tol: f64) -> f64 {
    let ok = rates
        .iter()
        .zip(ideal)
        .filter(|(r, i)| (*r - *i).abs() <= tol * *i)
        .count();
    ok as f64 / rates.len().max(1) as f64
}

/// Runs Fig. 7's experiment for one scheme.
pub fn run(spec: &Fig7Spec, scheme: Scheme) -> Result<Fig7Run> {
    if !(spec.replace > 0.0 && spec.replace <= 1.0) || spec.epoch_rtts == 0 || spec.k < 4 {
        return Err(Error::invalid(
            "sperc_fig7",
            "replace must be in (0, 1], epoch_rtts positive, k at least 4",
        ));
    }
    let topo = fat_tree(FatTreeSpec {
        k: spec.k,
        host_link: LinkSpec::new(spec.host_rate, spec.delay, spec.buffer),
        fabric_link: LinkSpec::new(spec.fabric_rate, spec.delay, spec.buffer),
        oversubscription: spec.oversubscription,
    })?;
    let probe = config(spec, scheme, Time(Time::US));
    let rtt = max_rtt(&topo, &probe)?;
    let cfg = config(spec, scheme, rtt);
    let epoch = Time(rtt.0 * spec.epoch_rtts as u64);
    let plan = plan(spec, &topo, epoch);
    let mut sim = PacketSim::new(&topo, &plan.flows, cfg)?;
    let mut active = plan.initial.clone();
    let mut out = Fig7Run {
        scheme,
        rtt,
        active_flows: active.len(),
        t95_20: Vec::new(),
        t99_10: Vec::new(),
        final_within_10: Vec::new(),
        events: 0,
        drops: 0,
        ctrl_drops: 0,
        timeouts: 0,
    };
    sim.run_until(epoch)?;
    let mut rates = Vec::new();
    for (at, stopped, started) in &plan.changes {
        sim.run_until(*at)?;
        for &f in stopped {
            sim.stop_flow(FlowId(f as u32))?;
        }
        active.retain(|f| !stopped.contains(f));
        active.extend(started);
        let want = ideal(&topo, &plan.flows, &active, spec.seed)?;
        let (mut ok95, mut ok99) = (Vec::new(), Vec::new());
        // Delivered bytes of each active flow at every sample since the change.
        let delivered =
            |sim: &PacketSim, f: usize| sim.received_wire(FlowId(f as u32)).unwrap_or(0);
        let mut hist: Vec<Vec<u64>> = vec![active.iter().map(|&f| delivered(&sim, f)).collect()];
        for j in 1..=spec.epoch_rtts as u64 {
            sim.run_until(Time(at.0 + j * rtt.0))?;
            hist.push(active.iter().map(|&f| delivered(&sim, f)).collect());
            let w = (spec.window_rtts as usize).min(j as usize).max(1);
            let (now, then) = (&hist[j as usize], &hist[j as usize - w]);
            let secs = (w as u64 * rtt.0) as f64 * 1e-12;
            rates.clear();
            rates.extend(
                now.iter()
                    .zip(then)
                    .map(|(a, b)| (a - b) as f64 * 8.0 / secs),
            );
            ok95.push(within(&rates, &want, 0.2) >= 0.95);
            ok99.push(within(&rates, &want, 0.1) >= 0.99);
        }
        out.final_within_10.push(within(&rates, &want, 0.1));
        out.t95_20.push(settle(&ok95, spec.stable_rtts as usize));
        out.t99_10.push(settle(&ok99, spec.stable_rtts as usize));
    }
    let rec = sim.records();
    out.events = rec.events;
    out.ctrl_drops = rec.links.iter().map(|l| l.ctrl_drops).sum();
    out.drops = rec.links.iter().map(|l| l.drops).sum::<u64>() - out.ctrl_drops;
    out.timeouts = rec.flows.iter().map(|f| f.timeouts).sum();
    sim.check_invariants()?;
    Ok(out)
}

/// The servers of the topology Fig. 7 runs on (for callers that print it).
pub fn servers(spec: &Fig7Spec) -> u32 {
    spec.oversubscription * spec.k * spec.k * spec.k / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settle_finds_the_first_stable_stretch() {
        assert_eq!(
            settle(&[false, true, true, false, true, true, true], 3),
            Some(5)
        );
        assert_eq!(settle(&[true, true, true], 3), Some(1));
        assert_eq!(settle(&[true, false], 2), None);
    }
}
