//! Uranus's slices on the packet engine (§3 with §4's WVCC): every decision slot the scheduler
//! ([`super::slices::Scheduler`]) gives every active flow its weight and the hosts' WVCC shims
//! enforce it (`host_shim = "wvcc"`), and each slot's weights are compared with the exact
//! weighted max-min allocation of the same weights (the oracle), the target WVCC aims at.
//!
//! The driver uses only what the packet engine already offers: it runs the engine one slot at
//! a time ([`PacketSim::run_until`]), reads each flow's progress from the records, and hands
//! the new weights to [`PacketSim::set_weight`] (which reaches the shim's `on_weight`). No
//! engine change.
//!
//! What the scheduler sees at a slot (Algorithms 1–2, step 1), as the flow-level driver
//! ([`super::flow_level`]) sees it: `S(t)` = the payload bytes not yet delivered in order,
//! `B(t)` = the payload bytes delivered over the last slot over the slot's length (unmeasured
//! in a flow's first slot), its deadline. A flow that starts between slots starts with the mean
//! weight its slice's flows had at the last slot (`W_S` before any), so that it neither grabs
//! nor starves before the scheduler sees it (the weight is set before its start, and the shim
//! reads it when the flow starts).
//!
//! **Which scheduler** ([`SliceScheduler`], `slice_scheduler` in a scenario): Uranus's
//! (PS-N over rack-flows, Algorithms 1–2, enforced per flow by WVCC), SCC's (§2.4: the slice's
//! weight divided among its host-pair tunnels by the objective's metric,
//! [`super::scc::flow_weights`], enforced by the hosts' virtual tunnels, `host_shim = "scc"`,
//! [`super::scc_shim`]), or none (the slices are only reported: every flow keeps its
//! workload weight).
//!
//! The distance from the target, per slot: for the flows active over the whole slot (started
//! before it, unfinished after it), `x_i` = goodput over the slot and `t_i` = the oracle's rate
//! with the weights set at the slot's start, on the flows' paths, scaled from wire to payload
//! bits (a full packet's payload over its wire size). Reported: the mean over slots of Jain's
//! index of `x_i/t_i` ([`crate::metrics::jain_index`] against a target) and of the mean
//! `|x_i − t_i|/t_i`. A flow limited by its own size or by slow start is still counted: the
//! distance is what an operator would see, not only WVCC's steady state.

use super::scc;
use super::slices::{BigSwitch, FlowState, Scheduler, SliceSet, SlotDecision};
use crate::alloc::{solve, Problem, ProblemInput};
use crate::engine::packet::{PacketResults, PacketSim, SchemeSet};
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::ids::{FlowId, LinkId};
use crate::metrics::jain_index;
use crate::topo::Topology;
use crate::units::Time;
use crate::workload::FlowSpec;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Which scheduler gives the slices' flows their weights (`slice_scheduler` in a scenario).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SliceScheduler {
    /// Uranus §3: PS-N over rack-flows (Eqs. 2–5) and Algorithms 1–2, every decision slot;
    /// each flow's weight enforced by WVCC (`host_shim = "wvcc"`).
    #[default]
    Uranus,
    /// SCC as Uranus §2.4 describes it: each slice's weight divided among its tunnels (its
    /// flows between one host pair) by the objective's metric, a tunnel's weight among its
    /// flows, every decision slot ([`super::scc::flow_weights`]); enforced by the hosts'
    /// virtual tunnels (`host_shim = "scc"`, [`super::scc_shim`]). Packet engine only.
    Scc,
    /// No scheduler: every flow keeps its workload weight; the slices are only reported.
    None,
}

impl SliceScheduler {
    /// The scenario name (`"uranus"`, `"scc"`, `"none"`).
    pub fn name(self) -> &'static str {
        match self {
            SliceScheduler::Uranus => "uranus",
            SliceScheduler::Scc => "scc",
            SliceScheduler::None => "none",
        }
    }
}

/// What a packet-level slice run measured besides the engine's records.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PacketSliceReport {
    /// Decision slots taken.
    pub slots: u64,
    /// The largest `|Σ weights − W_S| / W_S` of any slice with active flows after any slot
    /// (Eq. 3; rounding only).
    pub max_sum_error: f64,
    /// Slots whose distance from the target was measured (at least one flow active over the
    /// whole slot).
    pub measured_slots: u64,
    /// Mean over measured slots of Jain's index of goodput / target (1: every flow at the same
    /// fraction of its target).
    pub target_jain_mean: Option<f64>,
    /// Mean over measured slots of the mean relative distance `|goodput − target| / target`.
    pub target_rel_error_mean: Option<f64>,
}

/// The slice scheduler driving a packet simulation (see the module doc).
pub struct PacketSlices {
    scheduler: Scheduler,
    rule: SliceScheduler,
    slot: Time,
    /// Per flow: tag, hosts, racks, deadline (from the workload).
    base: Vec<FlowState>,
    /// Each flow's path (link indices), for the oracle's target.
    paths: Vec<Vec<u32>>,
    capacities: Vec<f64>,
    /// Payload bits per wire bit of a full packet.
    goodput_factor: f64,
    /// Each flow's workload weight (kept with [`SliceScheduler::None`]).
    spec_weights: Vec<f64>,
    /// Flow indices in start order, and how many have been given their entry weight.
    by_start: Vec<usize>,
    starts: Vec<Time>,
    entered: usize,
    /// Payload bytes delivered by each active flow at the last slot.
    last_delivered: HashMap<u32, u64>,
    /// The target rate (payload bit/s) of each flow active at the last slot.
    target: HashMap<u32, f64>,
    /// Mean flow weight of each slice at the last slot (`W_S` before any).
    slice_mean: Vec<f64>,
    /// The weight last given to each flow.
    weights: HashMap<u32, f64>,
    report: PacketSliceReport,
    jain_sum: f64,
    error_sum: f64,
}

impl PacketSlices {
    /// A driver for `flows` on `topo` with `slices`, deciding every `slot`; `paths[i]` is the
    /// path flow `i` takes in the packet engine, `mtu` and `header` its packets' payload and
    /// header bytes. `deadlines[i]` is flow `i`'s absolute deadline. Errors name a flow in no
    /// slice, a DS flow without a deadline, a zero slot or a length mismatch.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        topo: &Topology,
        flows: &[FlowSpec],
        deadlines: &[Option<Time>],
        paths: &[Vec<LinkId>],
        slices: SliceSet,
        slot: Time,
        mtu: u64,
        header: u64,
    ) -> Result<PacketSlices> {
        if slot == Time::ZERO {
            return Err(Error::invalid("slot", "the decision slot must be positive"));
        }
        if deadlines.len() != flows.len() || paths.len() != flows.len() {
            return Err(Error::invalid(
                "flows",
                format!(
                    "{} flows, {} deadlines, {} paths",
                    flows.len(),
                    deadlines.len(),
                    paths.len()
                ),
            ));
        }
        let big = BigSwitch::new(topo)?;
        let mut base = Vec::with_capacity(flows.len());
        for (i, (s, &deadline)) in flows.iter().zip(deadlines).enumerate() {
            slices.check_member(i as u32, s.tag, deadline.is_some())?;
            base.push(FlowState::unstarted(i as u32, s, deadline, &big)?);
        }
        let mut by_start: Vec<usize> = (0..flows.len()).collect();
        by_start.sort_by_key(|&i| (flows[i].start, i));
        let slice_mean = slices.specs().iter().map(|s| s.weight).collect();
        Ok(PacketSlices {
            scheduler: Scheduler::new(slices),
            rule: SliceScheduler::Uranus,
            slot,
            base,
            paths: paths
                .iter()
                .map(|p| p.iter().map(|l| l.0).collect())
                .collect(),
            capacities: topo.links().iter().map(|l| l.capacity.bps()).collect(),
            goodput_factor: mtu as f64 / (mtu + header) as f64,
            by_start,
            starts: flows.iter().map(|f| f.start).collect(),
            spec_weights: flows.iter().map(|f| f.weight).collect(),
            entered: 0,
            last_delivered: HashMap::new(),
            target: HashMap::new(),
            slice_mean,
            weights: HashMap::new(),
            report: PacketSliceReport::default(),
            jain_sum: 0.0,
            error_sum: 0.0,
        })
    }

    /// The same driver with the weights of `rule` (default [`SliceScheduler::Uranus`]).
    pub fn with_scheduler(mut self, rule: SliceScheduler) -> PacketSlices {
        self.rule = rule;
        self
    }

    /// Runs `sim` slot by slot until `until`, until every flow has finished, or until
    /// `progress` is cancelled, deciding the weights at every slot boundary. Returns the
    /// engine's records at the stop. `sim` must hold the flows given to [`PacketSlices::new`].
    pub fn run<S: SchemeSet>(
        &mut self,
        sim: &mut PacketSim<S>,
        until: Time,
        progress: &Progress,
    ) -> Result<PacketResults> {
        let mut now = sim.now();
        loop {
            let next = Time((now.0 / self.slot.0 + 1) * self.slot.0).min(until);
            self.enter_flows(sim, next)?;
            let r = sim.run_until(next)?;
            now = next;
            let cancelled = !progress.update(now, r.events, r.finished_flows as u64);
            if r.complete || cancelled {
                return Ok(r);
            }
            // A boundary at `until` is decided now: the next call continues after it.
            if now.0 % self.slot.0 == 0 {
                self.decide(sim, &r, now)?;
            }
            if now >= until {
                return Ok(r);
            }
        }
    }

    /// Every flow's weight as last set by the scheduler or at its entry (`W_S`-based mean
    /// before it was decided; NaN for a flow not started yet).
    pub fn last_weights(&self) -> Vec<f64> {
        (0..self.base.len() as u32)
            .map(|f| self.weights.get(&f).copied().unwrap_or(f64::NAN))
            .collect()
    }

    /// What was measured so far.
    pub fn report(&self) -> PacketSliceReport {
        let n = self.report.measured_slots as f64;
        PacketSliceReport {
            target_jain_mean: (n > 0.0).then(|| self.jain_sum / n),
            target_rel_error_mean: (n > 0.0).then(|| self.error_sum / n),
            ..self.report.clone()
        }
    }

    /// Gives every flow starting before `next` its slice's mean weight of the last slot.
    fn enter_flows<S: SchemeSet>(&mut self, sim: &mut PacketSim<S>, next: Time) -> Result<()> {
        while let Some(&i) = self.by_start.get(self.entered) {
            let f = &self.base[i];
            if self.starts[i] >= next {
                break;
            }
            let s = self.scheduler.slices().slice_of(f.flow, f.tag)?;
            let w = match self.rule {
                SliceScheduler::None => self.spec_weights[i],
                _ => self.slice_mean[s],
            };
            sim.set_weight(FlowId(f.flow), w)?;
            self.weights.insert(f.flow, w);
            self.entered += 1;
        }
        Ok(())
    }

    /// One decision slot at `now`: measure the last slot against its target, decide, set.
    fn decide<S: SchemeSet>(
        &mut self,
        sim: &mut PacketSim<S>,
        r: &PacketResults,
        now: Time,
    ) -> Result<()> {
        let dt = self.slot.as_secs_f64();
        let mut states = Vec::new();
        let mut delivered = HashMap::new();
        let (mut goodput, mut target) = (Vec::new(), Vec::new());
        for rec in &r.flows {
            if rec.end.is_some() || rec.start >= now {
                continue;
            }
            let i = rec.flow.0;
            let mut f = self.base[i as usize];
            f.remaining = rec.size.0.saturating_sub(rec.delivered).max(1) as f64;
            let prev = self.last_delivered.get(&i).copied();
            f.throughput = prev.map(|p| rec.delivered.saturating_sub(p) as f64 * 8.0 / dt);
            if let (Some(x), Some(&t)) = (f.throughput, self.target.get(&i)) {
                if t > 0.0 {
                    goodput.push(x);
                    target.push(t);
                }
            }
            delivered.insert(i, rec.delivered);
            states.push(f);
        }
        if !goodput.is_empty() {
            self.report.measured_slots += 1;
            self.jain_sum += jain_index(&goodput, Some(&target));
            let err: f64 = goodput
                .iter()
                .zip(&target)
                .map(|(x, t)| (x - t).abs() / t)
                .sum();
            self.error_sum += err / goodput.len() as f64;
        }
        self.last_delivered = delivered;
        self.target.clear();
        if states.is_empty() {
            return Ok(());
        }
        self.report.slots += 1;
        let d = match self.rule {
            SliceScheduler::Uranus => self.scheduler.decide(now, &states)?,
            SliceScheduler::Scc => {
                let slices = self.scheduler.slices();
                let w = scc::flow_weights(&scc::tunnels(slices, now, &states)?, states.len());
                SlotDecision {
                    flow_weights: states.iter().zip(w).map(|(f, w)| (f.flow, w)).collect(),
                    ..SlotDecision::default()
                }
            }
            SliceScheduler::None => SlotDecision {
                flow_weights: states
                    .iter()
                    .map(|f| (f.flow, self.spec_weights[f.flow as usize]))
                    .collect(),
                ..SlotDecision::default()
            },
        };
        let specs = self.scheduler.slices().specs();
        let sums = d.slice_sums(self.scheduler.slices(), &states);
        let mut counts = vec![0usize; specs.len()];
        for f in &states {
            if let Some(s) = self.scheduler.slices().slice_of_tag(f.tag) {
                counts[s] += 1;
            }
        }
        for (s, spec) in specs.iter().enumerate() {
            // Eq. (3) for Uranus; SCC's tunnels of a slice also sum to W_S (§2.4). Without a
            // scheduler the workload's weights sum to anything.
            if counts[s] > 0 && self.rule != SliceScheduler::None {
                let err = (sums[s] - spec.weight).abs() / spec.weight;
                self.report.max_sum_error = self.report.max_sum_error.max(err);
                self.slice_mean[s] = sums[s] / counts[s] as f64;
            }
        }
        for &(f, w) in &d.flow_weights {
            sim.set_weight(FlowId(f), w)?;
            self.weights.insert(f, w);
        }
        // The target of the next slot: the oracle with these weights on the active flows.
        let paths: Vec<Vec<u32>> = d
            .flow_weights
            .iter()
            .map(|&(f, _)| self.paths[f as usize].clone())
            .collect();
        let mut input = ProblemInput::from_paths(self.capacities.clone(), &paths);
        input.weights = Some(d.flow_weights.iter().map(|&(_, w)| w).collect());
        let rates = solve(&Problem::new(input)?).rates;
        for (&(f, _), rate) in d.flow_weights.iter().zip(rates) {
            self.target.insert(f, rate * self.goodput_factor);
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "packet_level_tests.rs"]
mod tests;
