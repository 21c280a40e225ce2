//! Stacked Congestion Control (SCC; Tian et al., INFOCOM 2017, reference [41] of the paper)
//! at flow level, as Uranus §2.4 describes it: the baseline Uranus is compared with.
//!
//! **What §2.4 says**: a *tunnel* holds the flows of one slice with the same source–destination
//! (host) pair; "SCC supports performance isolation among slices by dividing the weight of a
//! slice to its constituent tunnels. To support objective-oriented scheduling, a tunnel's weight
//! is divided to its contained flows", and "the summation of the weight of all tunnels in a
//! slice is fixed". A *virtual tunnel* runs weighted congestion control for all its flows on
//! their aggregated ECN feedback, so a congested path slows the tunnel's flows on other paths
//! (Fig. 3(c)).
//!
//! **What is implemented**:
//! - [`tunnels`] and [`flow_weights`]: tunnels keyed by (slice, source host, destination host);
//!   a tunnel's weight is `W_S · Σ_{f∈T} m_f / Σ_{f∈S} m_f`, and a flow's is the tunnel's
//!   weight times `m_f / Σ_{g∈T} m_g`, with `m` the objective's metric of
//!   [`super::slices::SliceSet::metric`] (Uranus's `d` or `r`).
//! - [`virtual_tunnel_allocation`]: the flow-level steady state of virtual tunnels. One
//!   congestion control per tunnel moves all its flows together (each at the tunnel's rate
//!   times its weight share), and backs off on any member's marks; at flow level this is
//!   progressive filling in which a tunnel's flows rise at one normalised rate and all stop
//!   when any of them reaches a saturated link. With one flow per tunnel it is the oracle's
//!   weighted max-min (tested against [`crate::alloc`]).
//!
//! **Assumed** (the SCC paper is not at hand, and §2.4 gives only the structure): SCC's
//! objective-oriented division uses the same metrics as Uranus (`d = T_c/D`, `r = 1/S`), so
//! the two differ only in the unit they divide among (host-pair tunnels versus PS-N over
//! rack-flows). Fig. 2's tunnel weights (A₁ 0.1, A₂ 0.9) are such a division's output; the
//! Fig. 3 cases choose flow sizes that produce them. The tunnel's congestion control is
//! modelled by its steady state only: a tunnel keeps its aggregate unmarked, i.e. stops at the
//! first saturated link of any member (§2.4: "the tunnel gets non-zero overall α value and
//! reduces the tunnel's sending rate which affects all contained flows").

use super::slices::{FlowState, SliceSet};
use crate::alloc::REL_TOL;
use crate::error::{Error, Result};
use crate::ids::NodeId;
use crate::units::Time;
use std::collections::BTreeMap;

/// A tunnel's identity: (slice, source host, destination host).
type TunnelKey = (usize, NodeId, NodeId);

/// One tunnel: a slice's flows between one host pair, with the tunnel's share of `W_S`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tunnel {
    /// The slice (index into the [`SliceSet`]).
    pub slice: usize,
    /// Source host.
    pub src: NodeId,
    /// Destination host.
    pub dst: NodeId,
    /// The tunnel's weight (the slice's tunnels sum to `W_S`).
    pub weight: f64,
    /// Its flows: indices into the flow list given to [`tunnels`].
    pub flows: Vec<usize>,
    /// The objective's metric of each of its flows, in the order of `flows`.
    pub metrics: Vec<f64>,
}

/// The tunnels of the active `flows` at `now` and their weights (§2.4, Fig. 2). Errors as
/// [`SliceSet::metric`].
pub fn tunnels(slices: &SliceSet, now: Time, flows: &[FlowState]) -> Result<Vec<Tunnel>> {
    // (slice, source, destination) → the tunnel's flows and their metrics.
    let mut by_key: BTreeMap<TunnelKey, (Vec<usize>, Vec<f64>)> = BTreeMap::new();
    let mut slice_total = vec![0.0; slices.specs().len()];
    for (i, f) in flows.iter().enumerate() {
        let (s, m) = slices.metric(now, f)?;
        slice_total[s] += m;
        let e = by_key.entry((s, f.src, f.dst)).or_default();
        e.0.push(i);
        e.1.push(m);
    }
    Ok(by_key
        .into_iter()
        .map(|((slice, src, dst), (members, metrics))| Tunnel {
            slice,
            src,
            dst,
            weight: slices.specs()[slice].weight * metrics.iter().sum::<f64>() / slice_total[slice],
            flows: members,
            metrics,
        })
        .collect())
}

/// Every flow's weight: its tunnel's weight divided among the tunnel's flows by their metric
/// (§2.4: "a tunnel's weight is divided to its contained flows"). `n_flows` is the length of
/// the flow list the tunnels index.
pub fn flow_weights(tunnels: &[Tunnel], n_flows: usize) -> Vec<f64> {
    let mut w = vec![0.0; n_flows];
    for t in tunnels {
        let total: f64 = t.metrics.iter().sum();
        for (&i, m) in t.flows.iter().zip(&t.metrics) {
            w[i] = t.weight * m / total;
        }
    }
    w
}

/// Rates (bit/s) of flows grouped into virtual tunnels (`group[i]` is flow `i`'s tunnel; a flow
/// alone in its group is on its own congestion control): progressive filling at one
/// normalised rate `λ` per tunnel, flow `i` at `λ·weights[i]`, where a tunnel stops when any of
/// its flows crosses a saturated link. `paths[i]` lists flow `i`'s links (indices into
/// `capacities`, bit/s). Errors name a flow with an empty path or a non-positive weight, or a
/// link index out of range.
pub fn virtual_tunnel_allocation(
    capacities: &[f64],
    paths: &[Vec<u32>],
    weights: &[f64],
    group: &[usize],
) -> Result<Vec<f64>> {
    let n = paths.len();
    if weights.len() != n || group.len() != n {
        return Err(Error::invalid(
            "virtual tunnels",
            format!(
                "{n} paths but {} weights and {} groups",
                weights.len(),
                group.len()
            ),
        ));
    }
    for (i, p) in paths.iter().enumerate() {
        if p.is_empty() {
            return Err(Error::invalid(format!("flow {i}"), "empty path"));
        }
        if let Some(&l) = p.iter().find(|&&l| l as usize >= capacities.len()) {
            return Err(Error::invalid(
                format!("flow {i}"),
                format!("link {l} out of range"),
            ));
        }
        if !(weights[i] > 0.0 && weights[i].is_finite()) {
            return Err(Error::invalid(
                format!("flow {i}"),
                format!("weight must be > 0, got {}", weights[i]),
            ));
        }
    }
    let mut rate = vec![0.0; n];
    let mut residual = capacities.to_vec();
    let mut active = vec![true; n];
    let mut wsum = vec![0.0; capacities.len()];
    while active.iter().any(|&a| a) {
        wsum.iter_mut().for_each(|x| *x = 0.0);
        for i in (0..n).filter(|&i| active[i]) {
            for &l in &paths[i] {
                wsum[l as usize] += weights[i];
            }
        }
        // The level rises until the first link fills (`tight`).
        let (tight, step) = (0..capacities.len())
            .filter(|&l| wsum[l] > 0.0)
            .map(|l| (l, residual[l].max(0.0) / wsum[l]))
            .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
        for i in (0..n).filter(|&i| active[i]) {
            rate[i] += step * weights[i];
        }
        for l in 0..capacities.len() {
            residual[l] -= step * wsum[l];
        }
        let saturated = |l: u32| {
            let l = l as usize;
            l == tight || (wsum[l] > 0.0 && residual[l] <= REL_TOL * capacities[l])
        };
        // Every tunnel with a flow on a saturated link stops, all its flows with it.
        let mut stopped: Vec<usize> = (0..n)
            .filter(|&i| active[i] && paths[i].iter().any(|&l| saturated(l)))
            .map(|i| group[i])
            .collect();
        stopped.sort_unstable();
        stopped.dedup();
        for i in 0..n {
            if active[i] && stopped.binary_search(&group[i]).is_ok() {
                active[i] = false;
            }
        }
    }
    Ok(rate)
}

#[cfg(test)]
#[path = "scc_tests.rs"]
mod tests;
