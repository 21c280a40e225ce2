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

use super::scc::{self, virtual_tunnel_allocation};
use super::slices::{BigSwitch, FlowState, Objective, Scheduler, SliceSet, SliceSpec};
use crate::alloc::{solve, Problem, ProblemInput};
use crate::error::Result;
use crate::ids::{LinkId, NodeId};
use crate::metrics::{rack_core_links, slice_proportionality};
use crate::topo::{explicit_path, LinkSpec, Topology};
use crate::units::{Bytes, Rate, Time};

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

fn link(rate: Rate) -> LinkSpec {
    LinkSpec::new(rate, Time::from_us(1), Bytes(1_000_000))
}

fn host_link() -> LinkSpec {
    link(Rate(BOTTLENECK.bps() as u64 * 10))
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
fn fig2_slices() -> Result<SliceSet> {
    let slice = |name: &str, tag| SliceSpec {
        name: name.into(),
        objective: Objective::Cs,
        weight: 1.0,
        tags: vec![tag],
    };
    SliceSet::new(vec![slice("A", 0), slice("B", 1)])
}

/// Fig. 3(b) for SCC and for Uranus (one decision slot): weights, then the oracle's rates.
pub fn fig3b() -> Result<Vec<Fig3b>> {
    let mut t = Topology::new();
    let mut flows = Vec::new();
    let mut paths = Vec::new();
    // Tunnel order A₁, A₂, B₁, B₂: (slice tag, bottleneck index, bytes).
    let tunnels = [(0, 0, 9e6), (0, 1, 1e6), (1, 0, 1e6), (1, 1, 1e6)];
    let racks: Vec<(NodeId, NodeId)> = (1..=2)
        .map(|i| (t.add_switch(format!("s{i}")), t.add_switch(format!("r{i}"))))
        .collect();
    for &(s, r) in &racks {
        t.add_link(s, r, link(BOTTLENECK))?;
    }
    for (i, &(tag, b, bytes)) in tunnels.iter().enumerate() {
        let (s, r) = racks[b];
        let src = t.add_host(format!("src{i}"));
        let dst = t.add_host(format!("dst{i}"));
        t.add_duplex(src, s, host_link())?;
        t.add_duplex(r, dst, host_link())?;
        paths.push(path(&t, &[src, s, r, dst])?);
        flows.push((i as u32, tag, src, dst, bytes));
    }
    let big = BigSwitch::new(&t)?;
    let states: Vec<FlowState> = flows
        .iter()
        .map(|&(flow, tag, src, dst, remaining)| {
            Ok(FlowState {
                flow,
                tag,
                src,
                dst,
                src_rack: big.rack_of(src)?,
                dst_rack: big.rack_of(dst)?,
                remaining,
                deadline: None,
                throughput: None,
            })
        })
        .collect::<Result<_>>()?;
    let slices = fig2_slices()?;
    let scc_w = scc::flow_weights(&scc::tunnels(&slices, Time::ZERO, &states)?, states.len());
    let uranus = Scheduler::new(slices).decide(Time::ZERO, &states)?;
    let uranus_w: Vec<f64> = uranus.flow_weights.iter().map(|&(_, w)| w).collect();
    let counted = rack_core_links(&t);
    let link_paths: Vec<Vec<LinkId>> = paths
        .iter()
        .map(|p| p.iter().map(|&l| LinkId(l)).collect())
        .collect();
    let slice_of: Vec<usize> = flows.iter().map(|f| f.1 as usize).collect();
    let case = |scheme, w: Vec<f64>| -> Result<Fig3b> {
        let r = oracle(&t, &paths, &w)?;
        Ok(Fig3b {
            scheme,
            weights: [w[0], w[1], w[2], w[3]],
            rates: [r[0], r[1], r[2], r[3]],
            proportionality: slice_proportionality(
                &link_paths,
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
    let mut t = Topology::new();
    let src = t.add_host("src");
    let dst = t.add_host("dst");
    let s0 = t.add_switch("s0");
    let m1 = t.add_switch("m1");
    let m2 = t.add_switch("m2");
    let s1 = t.add_switch("s1");
    t.add_duplex(src, s0, host_link())?;
    t.add_duplex(s1, dst, host_link())?;
    t.add_link(s0, m1, host_link())?;
    t.add_link(s0, m2, host_link())?;
    t.add_link(m1, s1, link(BOTTLENECK))?; // L₁
    t.add_link(m2, s1, link(BOTTLENECK))?; // L₂
    let mut paths = vec![
        path(&t, &[src, s0, m1, s1, dst])?,
        path(&t, &[src, s0, m2, s1, dst])?,
    ];
    for i in 0..n_background {
        let b = t.add_host(format!("bg{i}"));
        let d = t.add_host(format!("bgdst{i}"));
        t.add_duplex(b, m1, host_link())?;
        t.add_duplex(s1, d, host_link())?;
        paths.push(path(&t, &[b, m1, s1, d])?);
    }
    let weights = vec![1.0; paths.len()];
    // f₁ and f₂ share tunnel 0; each background flow is its own tunnel.
    let group: Vec<usize> = (0..paths.len()).map(|i| i.saturating_sub(1)).collect();
    let tunnel = virtual_tunnel_allocation(&capacities(&t), &paths, &weights, &group)?;
    let per_flow = oracle(&t, &paths, &weights)?;
    let case = |scheme, r: Vec<f64>| Fig3c {
        scheme,
        f1: r[0],
        f2: r[1],
        background: r[2..].to_vec(),
    };
    Ok(vec![case("scc", tunnel), case("uranus", per_flow)])
}
