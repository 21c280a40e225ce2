//! Fig. 3 of the paper (§2.4): SCC's failures on toy networks, at flow level, with Uranus on
//! the same networks. Weights come from [`super::scc`] and [`super::slices`]; rates from the
//! oracle ([`crate::alloc`]) or, for virtual tunnels, [`super::scc::virtual_tunnel_allocation`].
//!
//! - (b) Two bottlenecks `L₁`, `L₂` of equal capacity; slice A has tunnels A₁ (over `L₁`) and
//!   A₂ (over `L₂`), slice B has B₁ and B₂ likewise, both slices of weight 1 (Fig. 2). The
//!   paper: with tunnel weights A₁ 0.1, A₂ 0.9, B₁ = B₂ = 0.5, "A₁ gets 1/6 of L₁ and A₂ gets
//!   9/14 of L₂ … 7 : 27 rather than 1 : 9 … 17 : 25 instead of 1 : 1". The network here: each
//!   tunnel's sender in a rack `s_i` and receiver in a rack `r_i`, `L_i = s_i → r_i`, host
//!   links ten times faster. The objective is CS with A₁'s flow nine times A₂'s size, so
//!   `r = 1/S` gives Fig. 2's 0.1 / 0.9, and B's flows are of equal size.
//! - (c) One virtual tunnel of flows f₁ and f₂ between the same two hosts over two paths; f₁'s
//!   path crosses `L₁` with `n` background flows, f₂'s crosses `L₂` alone. The paper: "the
//!   tunnel gets non-zero overall α value and reduces the tunnel's sending rate which affects
//!   all contained flows. Hence, the throughput of f₂ is significantly decreased."

use super::packet_level::{PacketSliceReport, PacketSlices, SliceScheduler};
use super::scc::{self, virtual_tunnel_allocation};
use super::scc_shim::SccConfig;
use super::slices::{BigSwitch, FlowState, Objective, Scheduler, SliceSet, SliceSpec};
use crate::alloc::{solve, Problem, ProblemInput};
use crate::engine::packet::{RoutingMode, DEFAULT_HEADER, DEFAULT_MTU};
use crate::engine::Progress;
use crate::error::Result;
use crate::ids::{LinkId, NodeId};
use crate::metrics::{rack_core_links, slice_proportionality};
use crate::registry::shim::HostShimKind;
use crate::registry::{PacketConfig, PacketSim, QdiscConfig, TransportKind};
use crate::schemes::fifo::EcnThreshold;
use crate::topo::Routing;
use crate::topo::{explicit_path, LinkSpec, Topology};
use crate::units::{Bytes, Rate, Time};
use crate::workload::FlowSpec;

/// Capacity of the bottlenecks `L₁`, `L₂` (the paper: "the same capacity"; any value).
pub const BOTTLENECK: Rate = Rate::gbps(1);

/// One scheme's outcome on Fig. 3(b).
#[derive(Clone, Debug, PartialEq)]
pub struct Fig3b {
    /// `"scc"` or `"uranus"`.
    pub scheme: &'static str,
    /// Weights of A₁, A₂, B₁, B₂.
    pub weights: [f64; 4],
    /// Rates (bit/s) of A₁, A₂, B₁, B₂ from the oracle with these weights.
    pub rates: [f64; 4],
    /// Congestion proportionality ([`crate::metrics::slice_proportionality`] over the
    /// rack–core links, here `L₁` and `L₂`): 1 when A : B = 1 : 1.
    pub proportionality: f64,
}

impl Fig3b {
    /// A₁'s share of `L₁` (paper, SCC: 1/6).
    pub fn a1_share(&self) -> f64 {
        self.rates[0] / BOTTLENECK.bps()
    }
    /// A₂'s share of `L₂` (paper, SCC: 9/14).
    pub fn a2_share(&self) -> f64 {
        self.rates[1] / BOTTLENECK.bps()
    }
    /// A₁ : A₂ as `A₁/A₂` (paper, SCC: 7/27; intended 1/9).
    pub fn a1_to_a2(&self) -> f64 {
        self.rates[0] / self.rates[1]
    }
    /// Slice A : slice B as `A/B` (paper, SCC: 17/25; intended 1).
    pub fn a_to_b(&self) -> f64 {
        (self.rates[0] + self.rates[1]) / (self.rates[2] + self.rates[3])
    }
}

/// The links of the node path `nodes`, as the oracle's link indices.
fn path(topo: &Topology, nodes: &[NodeId]) -> Result<Vec<u32>> {
    Ok(explicit_path(topo, nodes)?.iter().map(|l| l.0).collect())
}

fn capacities(topo: &Topology) -> Vec<f64> {
    topo.links().iter().map(|l| l.capacity.bps()).collect()
}

fn oracle(topo: &Topology, paths: &[Vec<u32>], weights: &[f64]) -> Result<Vec<f64>> {
    let mut input = ProblemInput::from_paths(capacities(topo), paths);
    input.weights = Some(weights.to_vec());
    Ok(solve(&Problem::new(input)?).rates)
}

/// The two slices of Fig. 2, both of weight 1 and completion-sensitive (tags 0 and 1).
pub fn fig2_slices() -> Result<SliceSet> {
    let slice = |name: &str, tag| SliceSpec {
        name: name.into(),
        objective: Objective::Cs,
        weight: 1.0,
        tags: vec![tag],
    };
    SliceSet::new(vec![slice("A", 0), slice("B", 1)])
}

/// Fig. 3(b)'s network and flows, for either engine.
#[derive(Clone, Debug)]
pub struct Fig3bNetwork {
    /// Racks `s₁, r₁, s₂, r₂`, `L_i = s_i → r_i` (with its reverse, for ACKs), a sender and a
    /// receiver host per tunnel.
    pub topo: Topology,
    /// A₁, A₂, B₁, B₂ (tags 0, 0, 1, 1), all starting at 0: A₁ nine times `unit` bytes, the
    /// others `unit`.
    pub flows: Vec<FlowSpec>,
    /// Each flow's path (host, `s_i`, `r_i`, host).
    pub paths: Vec<Vec<LinkId>>,
}

/// Builds Fig. 3(b)'s network with link delays `delay` and flows of `unit` bytes (A₁: nine).
pub fn fig3b_network(delay: Time, unit: u64) -> Result<Fig3bNetwork> {
    let link = |rate: Rate| LinkSpec::new(rate, delay, Bytes(1_000_000));
    let mut t = Topology::new();
    let mut flows = Vec::new();
    let mut paths = Vec::new();
    // Tunnel order A₁, A₂, B₁, B₂: (slice tag, bottleneck index, units of bytes).
    let tunnels = [(0, 0, 9), (0, 1, 1), (1, 0, 1), (1, 1, 1)];
    let racks: Vec<(NodeId, NodeId)> = (1..=2)
        .map(|i| (t.add_switch(format!("s{i}")), t.add_switch(format!("r{i}"))))
        .collect();
    for &(s, r) in &racks {
        t.add_duplex(s, r, link(BOTTLENECK))?;
    }
    for (i, &(tag, b, units)) in tunnels.iter().enumerate() {
        let (s, r) = racks[b];
        let src = t.add_host(format!("src{i}"));
        let dst = t.add_host(format!("dst{i}"));
        let host = link(Rate(BOTTLENECK.bps() as u64 * 10));
        t.add_duplex(src, s, host)?;
        t.add_duplex(r, dst, host)?;
        paths.push(explicit_path(&t, &[src, s, r, dst])?);
        let mut f = FlowSpec::new(src, dst, Bytes(units * unit), Time::ZERO);
        f.tag = tag;
        flows.push(f);
    }
    Ok(Fig3bNetwork {
        topo: t,
        flows,
        paths,
    })
}

/// Fig. 3(b) for SCC and for Uranus (one decision slot): weights, then the oracle's rates.
pub fn fig3b() -> Result<Vec<Fig3b>> {
    let net = fig3b_network(Time::from_us(1), 1_000_000)?;
    let t = &net.topo;
    let paths: Vec<Vec<u32>> = net
        .paths
        .iter()
        .map(|p| p.iter().map(|l| l.0).collect())
        .collect();
    let big = BigSwitch::new(t)?;
    let states: Vec<FlowState> = net
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            Ok(FlowState {
                flow: i as u32,
                tag: f.tag,
                src: f.src,
                dst: f.dst,
                src_rack: big.rack_of(f.src)?,
                dst_rack: big.rack_of(f.dst)?,
                remaining: f.size.0 as f64,
                deadline: None,
                throughput: None,
            })
        })
        .collect::<Result<_>>()?;
    let slices = fig2_slices()?;
    let scc_w = scc::flow_weights(&scc::tunnels(&slices, Time::ZERO, &states)?, states.len());
    let uranus = Scheduler::new(slices).decide(Time::ZERO, &states)?;
    let uranus_w: Vec<f64> = uranus.flow_weights.iter().map(|&(_, w)| w).collect();
    let counted = rack_core_links(t);
    let link_paths = &net.paths;
    let slice_of: Vec<usize> = net.flows.iter().map(|f| f.tag as usize).collect();
    let case = |scheme, w: Vec<f64>| -> Result<Fig3b> {
        let r = oracle(t, &paths, &w)?;
        Ok(Fig3b {
            scheme,
            weights: [w[0], w[1], w[2], w[3]],
            rates: [r[0], r[1], r[2], r[3]],
            proportionality: slice_proportionality(
                link_paths,
                &r,
                &slice_of,
                &[1.0, 1.0],
                &counted,
            ),
        })
    };
    Ok(vec![case("scc", scc_w)?, case("uranus", uranus_w)?])
}

/// One scheme's outcome on Fig. 3(c).
#[derive(Clone, Debug, PartialEq)]
pub struct Fig3c {
    /// `"scc"` (one virtual tunnel for f₁ and f₂) or `"uranus"` (WVCC: one weighted
    /// congestion control per flow, so the oracle's rates).
    pub scheme: &'static str,
    /// Rates (bit/s) of f₁ (congested path), f₂ (uncongested path).
    pub f1: f64,
    /// Rate of f₂.
    pub f2: f64,
    /// Rates of the background flows on `L₁`.
    pub background: Vec<f64>,
}

/// Fig. 3(c) with `n_background` unit-weight background flows on `L₁` (each its own tunnel)
/// and f₁, f₂ of weight 1 each: SCC's virtual tunnel against per-flow weighted control.
pub fn fig3c(n_background: usize) -> Result<Vec<Fig3c>> {
    let net = fig3c_network(n_background, Time::from_us(1), 1)?;
    let (t, paths) = (&net.topo, &net.paths);
    let weights = vec![1.0; paths.len()];
    // f₁ and f₂ share tunnel 0; each background flow is its own tunnel.
    let group: Vec<usize> = (0..paths.len()).map(|i| i.saturating_sub(1)).collect();
    let tunnel = virtual_tunnel_allocation(&capacities(t), paths, &weights, &group)?;
    let per_flow = oracle(t, paths, &weights)?;
    let case = |scheme, r: Vec<f64>| Fig3c {
        scheme,
        f1: r[0],
        f2: r[1],
        background: r[2..].to_vec(),
    };
    Ok(vec![case("scc", tunnel), case("uranus", per_flow)])
}

/// Fig. 3(c)'s network and flows, for either engine.
#[derive(Clone, Debug)]
pub struct Fig3cNetwork {
    /// Hosts `src`, `dst` joined by two paths (through `m₁` and `m₂`), `L₁ = m₁ → s₁`
    /// shared with the background flows, `L₂ = m₂ → s₁`.
    pub topo: Topology,
    /// f₁, f₂ (`src → dst`, tag 0, `size` bytes each) then the background flows (tag 1, each
    /// from its own host at `m₁` to its own host at `s₁`), all starting at 0.
    pub flows: Vec<FlowSpec>,
    /// The oracle's paths (link indices): f₁ through `m₁`, f₂ through `m₂`.
    pub paths: Vec<Vec<u32>>,
}

/// Builds Fig. 3(c)'s network with link delays `delay` and flows of `size` bytes.
pub fn fig3c_network(n_background: usize, delay: Time, size: u64) -> Result<Fig3cNetwork> {
    let link = |rate: Rate| LinkSpec::new(rate, delay, Bytes(1_000_000));
    let host_link = || link(Rate(BOTTLENECK.bps() as u64 * 10));
    let mut t = Topology::new();
    let src = t.add_host("src");
    let dst = t.add_host("dst");
    let s0 = t.add_switch("s0");
    let m1 = t.add_switch("m1");
    let m2 = t.add_switch("m2");
    let s1 = t.add_switch("s1");
    t.add_duplex(src, s0, host_link())?;
    t.add_duplex(s1, dst, host_link())?;
    // The two paths, both ways (the packet engine's ACKs come back over them).
    t.add_duplex(s0, m1, host_link())?;
    t.add_duplex(s0, m2, host_link())?;
    t.add_duplex(m1, s1, link(BOTTLENECK))?; // L₁
    t.add_duplex(m2, s1, link(BOTTLENECK))?; // L₂
    let mut paths = vec![
        path(&t, &[src, s0, m1, s1, dst])?,
        path(&t, &[src, s0, m2, s1, dst])?,
    ];
    let mut flows = vec![FlowSpec::new(src, dst, Bytes(size), Time::ZERO); 2];
    for i in 0..n_background {
        let b = t.add_host(format!("bg{i}"));
        let d = t.add_host(format!("bgdst{i}"));
        t.add_duplex(b, m1, host_link())?;
        t.add_duplex(s1, d, host_link())?;
        paths.push(path(&t, &[b, m1, s1, d])?);
        let mut f = FlowSpec::new(b, d, Bytes(size), Time::ZERO);
        f.tag = 1;
        flows.push(f);
    }
    Ok(Fig3cNetwork {
        topo: t,
        flows,
        paths,
    })
}

/// Fig. 3(c) on the packet engine, all weights 1, goodput (payload bit/s) over
/// `[warmup, end]`: SCC's virtual tunnel (`host_shim = "scc"`: f₁ and f₂, tag 0, one tunnel;
/// each background flow its own) against Uranus's WVCC (one weighted control per flow), DCTCP
/// guests, marking at [`FIG3B_PACKET_K`], 25 µs links. The packet engine routes by ECMP hash;
/// the run's seed is the first for which f₁ hashes through `m₁` and f₂ through `m₂` (the
/// figure's paths), found by asking the routing, not by running.
pub fn fig3c_packet(
    scheduler: SliceScheduler,
    n_background: usize,
    warmup: Time,
    end: Time,
) -> Result<Fig3cPacket> {
    let net = fig3c_network(n_background, FIG3B_PACKET_DELAY, 1 << 40)?;
    let t = &net.topo;
    let routing = Routing::new(t);
    let on_figure_path = |seed: u64| -> Result<bool> {
        for i in 0..2 {
            let sel = RoutingMode::Ecmp
                .data_selector(seed, i as u64)
                .expect("hashed");
            let p = routing.path(net.flows[i].src, net.flows[i].dst, sel)?;
            if p.iter().map(|l| l.0).ne(net.paths[i].iter().copied()) {
                return Ok(false);
            }
        }
        Ok(true)
    };
    let mut seed = 0;
    while !on_figure_path(seed)? {
        seed += 1;
    }
    let cfg = PacketConfig {
        seed,
        ..fig3_packet_config(scheduler)
    };
    let mut sim = PacketSim::from_config(t, &net.flows, cfg)?;
    let a = sim.run_until(warmup)?;
    let b = sim.run_until(end)?;
    let secs = (end - warmup).as_secs_f64();
    let r: Vec<f64> = (0..net.flows.len())
        .map(|i| (b.flows[i].delivered - a.flows[i].delivered) as f64 * 8.0 / secs)
        .collect();
    // Each path's round trip: propagation both ways, a full packet's serialization forward
    // and an ACK's back, plus the mean queueing delay at its bottleneck over the window.
    let (wire, ack) = (cfg_mtu_wire(), DEFAULT_HEADER.0 as f64 * 8.0);
    let rtt = |i: usize| {
        let bottleneck = net.paths[i][2] as usize;
        let q = |rec: &crate::engine::packet::PacketResults| rec.links[bottleneck].queue_integral;
        let queue_bytes = (q(&b) - q(&a)) as f64 / (end - warmup).0 as f64;
        let base: f64 = net.paths[i]
            .iter()
            .map(|&l| {
                let l = t.link(crate::ids::LinkId(l));
                2.0 * l.delay.as_secs_f64() + (wire + ack) / l.capacity.bps()
            })
            .sum();
        base + queue_bytes * 8.0 / BOTTLENECK.bps()
    };
    Ok(Fig3cPacket {
        rates: Fig3c {
            scheme: scheduler.name(),
            f1: r[0],
            f2: r[1],
            background: r[2..].to_vec(),
        },
        rtt: [rtt(0), rtt(1)],
    })
}

/// A full data packet's wire bits under the packet-level Fig. 3 configuration.
fn cfg_mtu_wire() -> f64 {
    (DEFAULT_MTU.0 + DEFAULT_HEADER.0) as f64 * 8.0
}

/// Fig. 3(c) measured on the packet engine.
#[derive(Clone, Debug, PartialEq)]
pub struct Fig3cPacket {
    /// Goodput (payload bit/s) of f₁, f₂ and the background flows.
    pub rates: Fig3c,
    /// Round trips (s) of f₁'s and f₂'s paths: the base round trip plus the mean queueing
    /// delay at `L₁` / `L₂` over the window.
    pub rtt: [f64; 2],
}

/// Fig. 3(b) measured on the packet engine: Uranus's scheduler every decision slot, WVCC on
/// every host over DCTCP guests, switches marking CE above DCTCP's 1 Gb/s threshold.
#[derive(Clone, Debug, PartialEq)]
pub struct Fig3bPacket {
    /// Goodput (payload bit/s) of A₁, A₂, B₁, B₂ over the measurement window.
    pub rates: [f64; 4],
    /// The oracle's rates with the scheduler's weights, in payload bit/s (the target).
    pub target: [f64; 4],
    /// The weights of the last slot.
    pub weights: [f64; 4],
    /// The driver's report (slots, Eq. 3, per-slot distance from the target).
    pub report: PacketSliceReport,
}

impl Fig3bPacket {
    /// A₁ : A₂ as `A₁/A₂` (exact at flow level: 7/27).
    pub fn a1_to_a2(&self) -> f64 {
        self.rates[0] / self.rates[1]
    }
    /// Slice A : slice B as `A/B` (exact at flow level: 17/25).
    pub fn a_to_b(&self) -> f64 {
        (self.rates[0] + self.rates[1]) / (self.rates[2] + self.rates[3])
    }
}

/// Link delay of the packet-level Fig. 3(b): 25 µs, so a round trip over its six links is
/// 150 µs (half §5.2's largest, 300 µs) and the bottleneck's bandwidth-delay product (18
/// packets) is of the order of DCTCP's threshold.
pub const FIG3B_PACKET_DELAY: Time = Time::from_us(25);
/// DCTCP's marking threshold at 1 Gb/s (DCTCP §3.4: K = 20 packets).
pub const FIG3B_PACKET_K: u32 = 20;

/// The packet engine's configuration of the packet-level Fig. 3 cases: DCTCP guests under
/// the shim of `scheduler` (WVCC for Uranus, virtual tunnels grouping tag `t` as slice `t`
/// for SCC), DCTCP's marking at [`FIG3B_PACKET_K`].
fn fig3_packet_config(scheduler: SliceScheduler) -> PacketConfig {
    PacketConfig {
        transport: TransportKind::Dctcp,
        host_shim: match scheduler {
            SliceScheduler::Scc => HostShimKind::Scc,
            _ => HostShimKind::Wvcc,
        },
        qdisc: QdiscConfig::Ecn {
            k: EcnThreshold::Packets(FIG3B_PACKET_K),
        },
        scc: SccConfig {
            tunnel_groups: vec![(0, 0), (1, 1)],
            ..SccConfig::default()
        },
        ..PacketConfig::default()
    }
}

/// Fig. 3(b) on the packet engine under Uranus ([`fig3b_packet_with`]).
pub fn fig3b_packet(slot: Time, warmup: Time, end: Time) -> Result<Fig3bPacket> {
    fig3b_packet_with(SliceScheduler::Uranus, slot, warmup, end)
}

/// Fig. 3(b) on the packet engine under `scheduler` (Uranus with WVCC, or SCC with its
/// virtual tunnels — here one flow per tunnel), decisions every `slot`, goodput measured over
/// `[warmup, end]`. The flows are long enough (A₁ 9·10¹¹ bytes, the others 10¹¹) that their
/// remaining sizes, hence the weights (0.1, 0.9, 0.5, 0.5 under both), do not move during the
/// run.
pub fn fig3b_packet_with(
    scheduler: SliceScheduler,
    slot: Time,
    warmup: Time,
    end: Time,
) -> Result<Fig3bPacket> {
    let net = fig3b_network(FIG3B_PACKET_DELAY, 100_000_000_000)?;
    let cfg = fig3_packet_config(scheduler);
    let (mtu, header) = (cfg.mtu.0, cfg.header.0);
    let mut sim = PacketSim::from_config(&net.topo, &net.flows, cfg)?;
    let mut driver = PacketSlices::new(
        &net.topo,
        &net.flows,
        &[None; 4],
        &net.paths,
        fig2_slices()?,
        slot,
        mtu,
        header,
    )?
    .with_scheduler(scheduler);
    let progress = Progress::default();
    let a = driver.run(&mut sim, warmup, &progress)?;
    let b = driver.run(&mut sim, end, &progress)?;
    let secs = (end - warmup).as_secs_f64();
    let rate = |i: usize| (b.flows[i].delivered - a.flows[i].delivered) as f64 * 8.0 / secs;
    let weights = driver.last_weights();
    let w: Vec<f64> = (0..4).map(|i| weights[i]).collect();
    let paths: Vec<Vec<u32>> = net
        .paths
        .iter()
        .map(|p| p.iter().map(|l| l.0).collect())
        .collect();
    let factor = mtu as f64 / (mtu + header) as f64;
    let target = oracle(&net.topo, &paths, &w)?;
    Ok(Fig3bPacket {
        rates: [rate(0), rate(1), rate(2), rate(3)],
        target: [0, 1, 2, 3].map(|i| target[i] * factor),
        weights: [w[0], w[1], w[2], w[3]],
        report: driver.report(),
    })
}
