//! Uranus's slices on the flow engine (beyond the paper): at every decision slot the
//! scheduler ([`super::slices::Scheduler`]) gives every active flow its weight, and the flow
//! engine runs the exact weighted max-min allocation of these weights until the next slot.
//! This is the ideal WVCC approximates (WVCC enforces the same weights with a window law), so
//! an operator can try slice weights on a large fabric in seconds.
//!
//! What the scheduler sees at a slot (Algorithms 1–2, step 1): each active flow's remaining
//! bytes `S(t)` (the engine's remaining wire bytes), its deadline, and its throughput `B(t)`
//! over the last slot (bytes sent since the previous slot over the slot's length; unmeasured
//! in its first slot). Between slots a newly arrived flow has the mean weight its slice's
//! flows had at the last slot (`W_S` if the slice had none), so it neither grabs nor starves
//! before the scheduler sees it.

use super::slices::{BigSwitch, FlowState, Scheduler, SliceSet, SliceSpec};
use crate::engine::flow::{
    run_with, ActiveFlow, FlowSimConfig, FlowSimResults, FluidFlow, WeightPolicy,
};
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::topo::Topology;
use crate::units::Time;
use crate::workload::FlowSpec;
use std::collections::HashMap;

/// The outcome of a slice run on the flow engine.
#[derive(Clone, Debug)]
pub struct SliceRun {
    /// The flow engine's results (FCTs, rates if sampled).
    pub sim: FlowSimResults,
    /// Decision slots taken.
    pub slots: u64,
    /// The largest `|Σ weights − W_S| / W_S` of any slice with active flows after any slot
    /// (Eq. 3; rounding only).
    pub max_sum_error: f64,
}

/// The [`WeightPolicy`] that runs the Uranus scheduler every `slot`.
struct UranusPolicy<'a> {
    scheduler: Scheduler,
    slot: Time,
    /// Per flow: tag, hosts, racks, deadline (from the workload).
    base: Vec<FlowState>,
    /// Remaining bytes of each flow at the previous slot.
    last_remaining: HashMap<u32, f64>,
    /// Mean flow weight of each slice at the last slot (`W_S` before any).
    slice_mean: Vec<f64>,
    slots: u64,
    max_sum_error: f64,
    error: Option<Error>,
    scratch: Vec<FlowState>,
    flows: &'a [FluidFlow],
}

impl WeightPolicy for UranusPolicy<'_> {
    fn on_instant(&mut self, _: Time, arrived: &[u32], _: &[u32], set: &mut dyn FnMut(u32, f64)) {
        for &f in arrived {
            if let Some(s) = self
                .scheduler
                .slices()
                .slice_of_tag(self.flows[f as usize].spec.tag)
            {
                set(f, self.slice_mean[s]);
            }
        }
    }

    fn slot(&self) -> Option<Time> {
        Some(self.slot)
    }

    fn on_slot(&mut self, now: Time, active: &[ActiveFlow], set: &mut dyn FnMut(u32, f64)) {
        if self.error.is_some() || active.is_empty() {
            return;
        }
        self.slots += 1;
        let dt = self.slot.as_secs_f64();
        self.scratch.clear();
        let mut next_remaining = HashMap::with_capacity(active.len());
        for a in active {
            let mut f = self.base[a.flow as usize];
            // A flow's last bit can be a fraction of a byte from done: at least one byte left.
            f.remaining = a.remaining_wire_bytes.max(1.0);
            f.throughput = self
                .last_remaining
                .get(&a.flow)
                .map(|prev| (prev - a.remaining_wire_bytes).max(0.0) * 8.0 / dt);
            next_remaining.insert(a.flow, a.remaining_wire_bytes);
            self.scratch.push(f);
        }
        self.last_remaining = next_remaining;
        let d = match self.scheduler.decide(now, &self.scratch) {
            Ok(d) => d,
            Err(e) => {
                self.error = Some(e);
                return;
            }
        };
        let specs = self.scheduler.slices().specs();
        let sums = d.slice_sums(self.scheduler.slices(), &self.scratch);
        let mut counts = vec![0usize; specs.len()];
        for f in &self.scratch {
            if let Some(s) = self.scheduler.slices().slice_of_tag(f.tag) {
                counts[s] += 1;
            }
        }
        for (s, spec) in specs.iter().enumerate() {
            if counts[s] > 0 {
                let err = (sums[s] - spec.weight).abs() / spec.weight;
                self.max_sum_error = self.max_sum_error.max(err);
                self.slice_mean[s] = sums[s] / counts[s] as f64;
            }
        }
        for &(f, w) in &d.flow_weights {
            set(f, w);
        }
    }
}

/// Each flow's absolute deadline (`start + deadline`; `None` without one), as the scheduler
/// takes them.
pub fn absolute_deadlines<'a>(flows: impl IntoIterator<Item = &'a FlowSpec>) -> Vec<Option<Time>> {
    flows
        .into_iter()
        .map(|f| f.deadline.map(|d| f.start + d))
        .collect()
}

/// Runs `flows` on `topo` with Uranus's slice weights, recomputed every `slot`.
/// `deadlines[i]` is flow `i`'s absolute deadline (required for flows of DS slices). Errors,
/// before anything runs, name a bad slice, a flow in no slice, a DS flow without a deadline,
/// a zero slot or a length mismatch.
pub fn run_slices(
    topo: &Topology,
    flows: &[FluidFlow],
    deadlines: &[Option<Time>],
    slices: Vec<SliceSpec>,
    slot: Time,
    cfg: &FlowSimConfig,
) -> Result<SliceRun> {
    run_slices_with_progress(
        topo,
        flows,
        deadlines,
        slices,
        slot,
        cfg,
        &Progress::default(),
    )
}

/// [`run_slices`], reporting to `progress` (a cancelled `progress` stops the run where it is).
pub fn run_slices_with_progress(
    topo: &Topology,
    flows: &[FluidFlow],
    deadlines: &[Option<Time>],
    slices: Vec<SliceSpec>,
    slot: Time,
    cfg: &FlowSimConfig,
    progress: &Progress,
) -> Result<SliceRun> {
    if slot == Time::ZERO {
        return Err(Error::invalid("slot", "the decision slot must be positive"));
    }
    if deadlines.len() != flows.len() {
        return Err(Error::invalid(
            "deadlines",
            format!("{} deadlines for {} flows", deadlines.len(), flows.len()),
        ));
    }
    let set = SliceSet::new(slices)?;
    let big = BigSwitch::new(topo)?;
    let mut base = Vec::with_capacity(flows.len());
    for (i, (f, &deadline)) in flows.iter().zip(deadlines).enumerate() {
        let state = FlowState::unstarted(i as u32, &f.spec, deadline, &big)?;
        // Checks slice membership and deadlines up front (the same errors as at a slot).
        set.metric(f.spec.start, &state)?;
        base.push(state);
    }
    let slice_mean = set.specs().iter().map(|s| s.weight).collect();
    let mut policy = UranusPolicy {
        scheduler: Scheduler::new(set),
        slot,
        base,
        last_remaining: HashMap::new(),
        slice_mean,
        slots: 0,
        max_sum_error: 0.0,
        error: None,
        scratch: Vec::new(),
        flows,
    };
    let sim = run_with(topo, flows, &[], cfg, progress, Some(&mut policy))?;
    if let Some(e) = policy.error {
        return Err(e);
    }
    Ok(SliceRun {
        sim,
        slots: policy.slots,
        max_sum_error: policy.max_sum_error,
    })
}

#[cfg(test)]
#[path = "flow_level_tests.rs"]
mod tests;
