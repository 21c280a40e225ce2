//! Uranus's slice scheduler (§3): slices, the big-switch abstraction, PS-N at rack level
//! (Eqs. 2–3) and the intra-slice weights of Algorithm 1 (deadline-sensitive, Eq. 4) and
//! Algorithm 2 (completion-sensitive, Eq. 5), computed at every decision slot.
//!
//! The composition implemented, one decision slot of one slice `S` (the reading and its
//! reasons are in the module doc of [`super`]):
//!
//! 1. Every active flow of `S` gets its metric `m`: `d = T_c/D` for DS (Algorithm 1 step 2),
//!    `r = 1/S` for CS (Algorithm 2 step 2).
//! 2. Rack weights (Eq. 4 / Eq. 5): `Wr_R = W_S · Σ_{f at R} m_f / Σ_R' Σ_{f at R'} m_f`, where
//!    a flow is "at" its source rack and at its destination rack (it counts once in each).
//! 3. Rack-flow weights (Eq. 2): `Wr_{X→Y} = Wr_X/Nr_X + Wr_Y/Nr_Y`, with `Nr_X` the number of
//!    the slice's rack-flows that start or end at `X` (a rack-flow inside one rack counts twice).
//! 4. Flow weights (Algorithm lines 5–9): inside each rack-flow, `W* = m · W_prev`,
//!    `λ = Σ W* / Wr_{X→Y}`, `W_new = W*/λ`.
//!
//! Steps 2–4 each preserve the total, so the slice's flow weights sum to `W_S` (Eq. 3) after
//! every slot.

use crate::error::{Error, Result};
use crate::ids::NodeId;
use crate::topo::Topology;
use crate::units::Time;
use crate::workload::FlowSpec;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// A slice's objective (§3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Objective {
    /// Deadline-sensitive: Algorithm 1, urgency `d = T_c/D` (§3.3.1).
    Ds,
    /// Completion-sensitive: Algorithm 2, priority `r = 1/S` (§3.3.2).
    Cs,
}

impl Objective {
    /// Parses `"ds"` or `"cs"`; `at` names the field in the error.
    pub fn parse(text: &str, at: &str) -> Result<Objective> {
        match text {
            "ds" => Ok(Objective::Ds),
            "cs" => Ok(Objective::Cs),
            other => Err(Error::invalid(
                at,
                format!("unknown objective {other:?} (expected \"ds\" or \"cs\")"),
            )),
        }
    }
}

/// One slice as an operator declares it: a name, an objective, the weight `W_S` and the tags
/// of its flows (the workload's `tag`, as jobs and coflows are tagged).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SliceSpec {
    /// Name, for errors and reports.
    pub name: String,
    /// DS or CS.
    pub objective: Objective,
    /// The slice's weight `W_S` (> 0), divided among its flows (Eq. 3).
    pub weight: f64,
    /// The flow tags that belong to this slice.
    pub tags: Vec<u32>,
}

/// A validated set of slices: every tag in at most one slice, every weight positive.
#[derive(Clone, Debug, PartialEq)]
pub struct SliceSet {
    specs: Vec<SliceSpec>,
    by_tag: HashMap<u32, usize>,
}

impl SliceSet {
    /// Checks the declarations: names unique and non-empty, `W_S > 0` and finite, at least one
    /// tag per slice, no tag in two slices. Errors name the slice.
    pub fn new(specs: Vec<SliceSpec>) -> Result<SliceSet> {
        let mut by_tag: HashMap<u32, usize> = HashMap::new();
        for (i, s) in specs.iter().enumerate() {
            let at = format!("slices[{i}] ({:?})", s.name);
            if s.name.is_empty() {
                return Err(Error::invalid(format!("slices[{i}].name"), "is empty"));
            }
            if let Some(j) = specs[..i].iter().position(|o| o.name == s.name) {
                return Err(Error::invalid(
                    at,
                    format!("the name is already used by slices[{j}]"),
                ));
            }
            if !(s.weight > 0.0 && s.weight.is_finite()) {
                return Err(Error::invalid(
                    format!("{at}.weight"),
                    format!("W_S must be > 0 and finite, got {}", s.weight),
                ));
            }
            if s.tags.is_empty() {
                return Err(Error::invalid(
                    format!("{at}.tags"),
                    "no tags: the slice has no flows",
                ));
            }
            for &tag in &s.tags {
                if let Some(&j) = by_tag.get(&tag) {
                    if j != i {
                        return Err(Error::invalid(
                            format!("{at}.tags"),
                            format!(
                                "tag {tag} is already in slice {:?}: a flow in two slices",
                                specs[j].name
                            ),
                        ));
                    }
                }
                by_tag.insert(tag, i);
            }
        }
        Ok(SliceSet { specs, by_tag })
    }

    /// The declarations, in order (slice `i` of [`SlotDecision`]).
    pub fn specs(&self) -> &[SliceSpec] {
        &self.specs
    }

    /// The slice of flows tagged `tag`, if any.
    pub fn slice_of_tag(&self, tag: u32) -> Option<usize> {
        self.by_tag.get(&tag).copied()
    }

    /// The slice of an active flow and its objective's metric at `now` (Algorithms 1–2, step
    /// 2): the urgency `d` for DS, the priority `r` for CS. Errors name a flow in no slice, a
    /// DS flow without a deadline, or a non-positive remaining size.
    pub fn metric(&self, now: Time, f: &FlowState) -> Result<(usize, f64)> {
        let s = self.slice_of(f.flow, f.tag)?;
        let spec = &self.specs[s];
        if !(f.remaining > 0.0 && f.remaining.is_finite()) {
            return Err(Error::invalid(
                format!("flow {}", f.flow),
                format!(
                    "remaining size must be > 0 for an active flow, got {}",
                    f.remaining
                ),
            ));
        }
        self.check_member(f.flow, f.tag, f.deadline.is_some())?;
        let m = match (spec.objective, f.deadline) {
            (Objective::Ds, Some(deadline)) => urgency(now, f.remaining, deadline, f.throughput),
            // CS (a DS flow without a deadline was refused just above).
            _ => priority(f.remaining),
        };
        Ok((s, m))
    }

    /// The slice of workload flow `flow` with `tag`, checked before a run: an error names a
    /// flow in no slice, or a flow of a DS slice without a deadline (`has_deadline` false).
    pub fn check_member(&self, flow: u32, tag: u32, has_deadline: bool) -> Result<usize> {
        let s = self.slice_of(flow, tag)?;
        let spec = &self.specs[s];
        if spec.objective == Objective::Ds && !has_deadline {
            return Err(Error::invalid(
                format!("flow {flow}"),
                format!(
                    "in deadline-sensitive slice {:?} but has no deadline",
                    spec.name
                ),
            ));
        }
        Ok(s)
    }

    /// The slice of `flow` (its index, for the error) with `tag`; an error if in none.
    pub fn slice_of(&self, flow: u32, tag: u32) -> Result<usize> {
        self.slice_of_tag(tag).ok_or_else(|| {
            Error::invalid(
                format!("flow {flow}"),
                format!("tag {tag} is in no slice: every flow must belong to one slice"),
            )
        })
    }
}

/// The big-switch abstraction (§2.1, §3.2): the core is one non-blocking switch, and a host is
/// known by its rack, the ToR switch its access link leads to.
#[derive(Clone, Debug, PartialEq)]
pub struct BigSwitch {
    rack_of_host: Vec<Option<NodeId>>,
}

impl BigSwitch {
    /// The rack of every host of `topo`: the switch at the other end of its first out-link.
    /// Errors name a host with no link.
    pub fn new(topo: &Topology) -> Result<BigSwitch> {
        let mut rack_of_host = vec![None; topo.num_nodes()];
        for &h in topo.hosts() {
            let up = topo.out_links(h).first().ok_or_else(|| {
                Error::invalid(format!("node {}", h.0), "host has no link to a rack switch")
            })?;
            rack_of_host[h.0 as usize] = Some(topo.link(*up).dst);
        }
        Ok(BigSwitch { rack_of_host })
    }

    /// The rack (ToR switch) of `host`; an error names a node that is not a host.
    pub fn rack_of(&self, host: NodeId) -> Result<NodeId> {
        self.rack_of_host
            .get(host.0 as usize)
            .copied()
            .flatten()
            .ok_or_else(|| Error::invalid(format!("node {}", host.0), "is not a host"))
    }
}

/// What the scheduler knows of one active flow at a decision slot (Algorithms 1–2, step 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowState {
    /// The flow's index in the workload (the id of its weight).
    pub flow: u32,
    /// Its tag, which names its slice.
    pub tag: u32,
    /// Sending host (SCC's tunnels are per host pair).
    pub src: NodeId,
    /// Receiving host.
    pub dst: NodeId,
    /// Rack of its sender.
    pub src_rack: NodeId,
    /// Rack of its receiver.
    pub dst_rack: NodeId,
    /// Bytes still to deliver, `S(t)` (> 0 for an active flow).
    pub remaining: f64,
    /// Absolute deadline; required for a DS flow.
    pub deadline: Option<Time>,
    /// Its throughput `B(t)` over the last slot, bits/s; `None` before it was measured.
    pub throughput: Option<f64>,
}

impl FlowState {
    /// Flow `flow` of the workload before it has sent anything: all of its bytes remaining
    /// (at least 1, so an empty flow is still a flow), not yet measured, its racks from `big`.
    pub fn unstarted(
        flow: u32,
        spec: &FlowSpec,
        deadline: Option<Time>,
        big: &BigSwitch,
    ) -> Result<FlowState> {
        Ok(FlowState {
            flow,
            tag: spec.tag,
            src: spec.src,
            dst: spec.dst,
            src_rack: big.rack_of(spec.src)?,
            dst_rack: big.rack_of(spec.dst)?,
            remaining: spec.size.0.max(1) as f64,
            deadline,
            throughput: None,
        })
    }
}

/// The decision slot of a scenario that gives none (`decision_slot`): 1 ms. The paper gives no
/// length (§3.3: "every decision slot"); 1 ms is about three of §5.2's largest round trips
/// (300 µs), enough for a throughput `B(t)` measured over the slot to span several windows and
/// for WVCC to move towards new weights before the next decision.
pub const DEFAULT_DECISION_SLOT: Time = Time::from_ms(1);

/// The deadline urgency `d` is clamped to `[1/D_BOUND, D_BOUND]`; a stalled flow takes
/// `D_BOUND`, a flow past its deadline `1/D_BOUND` (the paper gives no bound; see the module
/// doc of [`super`]).
pub const D_BOUND: f64 = 1e3;
/// Inside a rack-flow, no `W*` falls below this fraction of the largest, so that the
/// compounding of Algorithm lines 5–9 over many slots never underflows a weight to 0.
pub const MIN_RELATIVE_WEIGHT: f64 = 1e-9;

/// Deadline urgency `d(t) = T_c(t)/D(t)` (§3.3.1, Algorithm 1 step 2), with `T_c = S/B` the
/// expected completion time at the current throughput and `D` the time left to the deadline.
/// A flow not yet measured has `d = 1` (on schedule); a stalled flow has the bound `D_BOUND`
/// (the limit of `T_c/D` as `B → 0`: most likely to fail). A flow past its deadline has failed
/// already and more weight cannot save it: it takes the lowest urgency `1/D_BOUND` and keeps
/// only what the others leave (§3.3.1's aim is fewer flows that fail; see the module doc of
/// [`super`] for why not `D_BOUND`).
pub fn urgency(now: Time, remaining_bytes: f64, deadline: Time, throughput: Option<f64>) -> f64 {
    let Some(b) = throughput else { return 1.0 };
    let left = deadline.as_secs_f64() - now.as_secs_f64();
    if left <= 0.0 {
        return 1.0 / D_BOUND;
    }
    if b <= 0.0 {
        return D_BOUND;
    }
    let t_c = remaining_bytes * 8.0 / b;
    (t_c / left).clamp(1.0 / D_BOUND, D_BOUND)
}

/// Remaining-size priority `r(t) = 1/S(t)` (§3.3.2, Algorithm 2 step 2), `S` in bytes.
pub fn priority(remaining_bytes: f64) -> f64 {
    1.0 / remaining_bytes.max(1.0)
}

/// Eq. (4) / Eq. (5): the slice weight `w_s` divided among racks in proportion to the sum of
/// the metrics of the flows at each rack. `at_rack` lists (rack, metric) once per flow end.
pub fn rack_weights(at_rack: &[(NodeId, f64)], w_s: f64) -> BTreeMap<NodeId, f64> {
    let total: f64 = at_rack.iter().map(|&(_, m)| m).sum();
    let mut out = BTreeMap::new();
    for &(rack, m) in at_rack {
        *out.entry(rack).or_insert(0.0) += w_s * m / total;
    }
    out
}

/// Eq. (2): the weight of each rack-flow `(X, Y)`, `Wr_X/Nr_X + Wr_Y/Nr_Y`, where `Nr_R` counts
/// the rack-flows that start or end at `R` (a rack-flow inside `R` twice). The weights sum to
/// `Σ Wr` over the racks the rack-flows touch.
pub fn ps_n(rack_weight: &BTreeMap<NodeId, f64>, rack_flows: &[(NodeId, NodeId)]) -> Vec<f64> {
    let mut n_r: BTreeMap<NodeId, u32> = BTreeMap::new();
    for &(x, y) in rack_flows {
        *n_r.entry(x).or_insert(0) += 1;
        *n_r.entry(y).or_insert(0) += 1;
    }
    let share = |r: NodeId| rack_weight.get(&r).copied().unwrap_or(0.0) / f64::from(n_r[&r]);
    rack_flows
        .iter()
        .map(|&(x, y)| share(x) + share(y))
        .collect()
}

/// Algorithm 1/2 lines 5–9 for one rack-flow of weight `w_rack_flow`: `W* = m · W_prev`, then
/// `W_new = W* / λ` with `λ = Σ W* / w_rack_flow`, so the flows' weights sum to the rack-flow's.
pub fn divide_rack_flow(w_rack_flow: f64, previous: &[f64], metric: &[f64]) -> Vec<f64> {
    let mut w: Vec<f64> = previous.iter().zip(metric).map(|(p, m)| p * m).collect();
    let top = w.iter().copied().fold(0.0, f64::max);
    for x in &mut w {
        *x = x.max(top * MIN_RELATIVE_WEIGHT);
    }
    let lambda = w.iter().sum::<f64>() / w_rack_flow;
    w.iter().map(|x| x / lambda).collect()
}

/// The outcome of one decision slot.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SlotDecision {
    /// The new weight of every active flow, `(flow, weight)`, in input order.
    pub flow_weights: Vec<(u32, f64)>,
    /// Eq. (4)/(5): `(slice, rack, Wr_R)`.
    pub rack_weights: Vec<(usize, NodeId, f64)>,
    /// Eq. (2): `(slice, source rack, destination rack, Wr_{X→Y})`.
    pub rack_flow_weights: Vec<(usize, NodeId, NodeId, f64)>,
}

impl SlotDecision {
    /// The sum of the flow weights of each slice (index = slice), given the slice of each
    /// flow as the scheduler found it.
    pub fn slice_sums(&self, slices: &SliceSet, flows: &[FlowState]) -> Vec<f64> {
        let mut sums = vec![0.0; slices.specs().len()];
        for (f, &(_, w)) in flows.iter().zip(&self.flow_weights) {
            if let Some(s) = slices.slice_of_tag(f.tag) {
                sums[s] += w;
            }
        }
        sums
    }
}

/// The Uranus scheduler: the slices and each flow's weight from the last slot (`W_prev` of
/// Algorithm lines 5–9).
#[derive(Clone, Debug)]
pub struct Scheduler {
    slices: SliceSet,
    previous: HashMap<u32, f64>,
}

impl Scheduler {
    /// A scheduler with no history.
    pub fn new(slices: SliceSet) -> Scheduler {
        Scheduler {
            slices,
            previous: HashMap::new(),
        }
    }

    /// The slices.
    pub fn slices(&self) -> &SliceSet {
        &self.slices
    }

    /// One decision slot at `now` over the active flows (Algorithms 1–2). Flows absent from
    /// `flows` are forgotten. Errors name a flow in no slice, a DS flow without a deadline, a
    /// flow listed twice, or a non-positive remaining size.
    pub fn decide(&mut self, now: Time, flows: &[FlowState]) -> Result<SlotDecision> {
        let n_slices = self.slices.specs().len();
        // Step 1–2: slice and metric of every flow.
        let mut slice_of = Vec::with_capacity(flows.len());
        let mut metric = Vec::with_capacity(flows.len());
        let mut seen = HashMap::with_capacity(flows.len());
        for (i, f) in flows.iter().enumerate() {
            if let Some(j) = seen.insert(f.flow, i) {
                return Err(Error::invalid(
                    format!("flow {}", f.flow),
                    format!("listed twice in one decision slot (entries {j} and {i})"),
                ));
            }
            let (s, m) = self.slices.metric(now, f)?;
            slice_of.push(s);
            metric.push(m);
        }
        // Group flows by slice and rack-flow (ordered maps: deterministic output).
        let mut rack_flows: Vec<BTreeMap<(NodeId, NodeId), Vec<usize>>> =
            vec![BTreeMap::new(); n_slices];
        let mut at_rack: Vec<Vec<(NodeId, f64)>> = vec![Vec::new(); n_slices];
        for (i, f) in flows.iter().enumerate() {
            let s = slice_of[i];
            rack_flows[s]
                .entry((f.src_rack, f.dst_rack))
                .or_default()
                .push(i);
            at_rack[s].push((f.src_rack, metric[i]));
            at_rack[s].push((f.dst_rack, metric[i]));
        }
        let mut out = SlotDecision {
            flow_weights: flows.iter().map(|f| (f.flow, 0.0)).collect(),
            ..Default::default()
        };
        let mut next = HashMap::with_capacity(flows.len());
        for s in 0..n_slices {
            if rack_flows[s].is_empty() {
                continue;
            }
            // Step 3: Eq. (4)/(5), then Eq. (2).
            let wr = rack_weights(&at_rack[s], self.slices.specs()[s].weight);
            out.rack_weights
                .extend(wr.iter().map(|(&rack, &w)| (s, rack, w)));
            let pairs: Vec<(NodeId, NodeId)> = rack_flows[s].keys().copied().collect();
            let wrf = ps_n(&wr, &pairs);
            // Lines 5–9 inside each rack-flow.
            for ((&(x, y), members), &w_rf) in rack_flows[s].iter().zip(&wrf) {
                out.rack_flow_weights.push((s, x, y, w_rf));
                let known: Vec<f64> = members
                    .iter()
                    .filter_map(|&i| self.previous.get(&flows[i].flow).copied())
                    .collect();
                // A flow new to the scheduler enters at the mean previous weight of its
                // rack-flow (1 if all are new): neither favoured nor penalised.
                let fresh = if known.is_empty() {
                    1.0
                } else {
                    known.iter().sum::<f64>() / known.len() as f64
                };
                let prev: Vec<f64> = members
                    .iter()
                    .map(|&i| self.previous.get(&flows[i].flow).copied().unwrap_or(fresh))
                    .collect();
                let m: Vec<f64> = members.iter().map(|&i| metric[i]).collect();
                for (&i, w) in members.iter().zip(divide_rack_flow(w_rf, &prev, &m)) {
                    out.flow_weights[i].1 = w;
                    next.insert(flows[i].flow, w);
                }
            }
        }
        self.previous = next;
        Ok(out)
    }
}

#[cfg(test)]
#[path = "slices_tests.rs"]
mod tests;
