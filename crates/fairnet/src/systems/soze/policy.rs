//! Söze §5.1's weight policies: how applications turn their knowledge into flow weights.
//!
//! - Shortest-flow first (§5.1.5), `weight = max_flow_size / flow_size`: the scenario's
//!   `weights.kind = "shortest_first"`.
//! - Critical path (§5.1.1, §5.1.6): a flow's weight from the longest chain of flows from it to
//!   the end of its job's DAG ([`crate::workload::dag::longest_path_to_sink`]).
//! - Job-level sum-preserving reallocation (§3 "usage policy" and §5.1.3): "the sum of the
//!   weights in an application is generally the same" — [`JobSumPreserving`] rescales, at every
//!   arrival and departure, the weights of a job's active flows so that they sum to the number
//!   of its active flows (what fair sharing gives the job) while keeping their ratios. A job
//!   with one active flow gets weight 1, so a single-path job is neither helped nor harmed,
//!   as §5.1.6 reports for the TPC-H jobs "that have only one execution path".
//!
//! - Straggler mitigation inside a coflow (§5.1.2): [`StragglerMitigation`] watches every
//!   coflow member's progress on the packet engine and raises the weight of a flow that cannot
//!   finish with the coflow's leader at its current rate ([`run_mitigating_stragglers`]).
//! - Altruistic sharing (§5.1.4): [`altruistic_weight`], the weight with which a non-critical
//!   flow takes only the share it needs to finish with its job's critical flow.
//!
//! The §5.1 application cases that exercise these are in [`super::apps`].

use crate::engine::flow::WeightPolicy;
use crate::engine::packet::PacketResults;
use crate::error::{Error, Result};
use crate::ids::FlowId;
use crate::registry::PacketSim;
use crate::units::Time;
use std::collections::HashMap;

/// Söze §5.1.2, "Identify and Mitigate Stragglers inside a Coflow": "we monitor the progress of
/// flow f2, if the progress cannot catch up with f1 under current sending rate, the weight of
/// flow f2 will increase", so that f2 "will take more bandwidth from the background traffic"
/// and finish with f1.
///
/// Our reading, evaluated every monitoring interval from the bytes each flow has delivered:
/// a coflow member's *rate* is its progress over the last interval and its *projected finish*
/// `now + remaining / rate`; the coflow's *target* is the earliest projected finish among its
/// unfinished members (the leader, f1 in the paper). A member projected to finish more than
/// `slack` (relative, of the time left) after the target is a straggler: its weight is
/// multiplied by `needed rate / rate`, with `needed rate = remaining / (target − now)`, capped
/// at `max_weight` and never below its base weight. With Söze the rate a flow gets at its
/// bottleneck grows with its weight (`r = C·w / (w + W_others)`), so the repeated
/// multiplicative step converges on the weight that lands the straggler at the target. Flows
/// outside every coflow (background traffic) keep their weights.
#[derive(Clone, Debug)]
pub struct StragglerMitigation {
    coflow: Vec<Option<u32>>,
    size: Vec<u64>,
    base: Vec<f64>,
    weight: Vec<f64>,
    last: Option<(Time, Vec<u64>)>,
    max_weight: f64,
    slack: f64,
}

impl StragglerMitigation {
    /// `coflow[i]`: flow `i`'s coflow (`None`: background), `size[i]` its bytes, `base[i]` its
    /// weight at start. Errors name the offending argument.
    pub fn new(
        coflow: Vec<Option<u32>>,
        size: Vec<u64>,
        base: Vec<f64>,
        max_weight: f64,
        slack: f64,
    ) -> Result<StragglerMitigation> {
        if size.len() != coflow.len() || base.len() != coflow.len() {
            return Err(Error::invalid(
                "straggler mitigation",
                format!(
                    "{} coflow ids, {} sizes and {} weights: one of each per flow",
                    coflow.len(),
                    size.len(),
                    base.len()
                ),
            ));
        }
        if let Some((i, w)) = base
            .iter()
            .enumerate()
            .find(|(_, w)| !(w.is_finite() && **w > 0.0))
        {
            return Err(Error::invalid(
                format!("flows[{i}].weight"),
                format!("must be positive and finite, got {w}"),
            ));
        }
        if !(max_weight.is_finite() && max_weight >= 1.0) {
            return Err(Error::invalid(
                "straggler mitigation.max_weight",
                format!("must be finite and at least 1, got {max_weight}"),
            ));
        }
        if !(slack.is_finite() && slack >= 0.0) {
            return Err(Error::invalid(
                "straggler mitigation.slack",
                format!("must be finite and non-negative, got {slack}"),
            ));
        }
        Ok(StragglerMitigation {
            coflow,
            size,
            weight: base.clone(),
            base,
            last: None,
            max_weight,
            slack,
        })
    }

    /// Each flow's current weight.
    pub fn weights(&self) -> &[f64] {
        &self.weight
    }

    /// One monitoring step at `now`, with `delivered[i]` the bytes flow `i` has delivered so
    /// far; returns the weight changes `(flow, weight)` to apply.
    pub fn step(&mut self, now: Time, delivered: &[u64]) -> Vec<(u32, f64)> {
        let mut out = Vec::new();
        let Some((then, before)) = self.last.replace((now, delivered.to_vec())) else {
            return out;
        };
        let dt = (now.0.saturating_sub(then.0)) as f64 / Time::S as f64;
        if dt <= 0.0 {
            return out;
        }
        let now_s = now.as_secs_f64();
        // (flow, rate in B/s, remaining bytes, projected finish in s) of unfinished members.
        let mut members: HashMap<u32, Vec<(usize, f64, f64, f64)>> = HashMap::new();
        for (i, c) in self.coflow.iter().enumerate() {
            let (Some(c), Some(&d)) = (c, delivered.get(i)) else {
                continue;
            };
            let rem = self.size[i].saturating_sub(d) as f64;
            let rate = d.saturating_sub(before[i]) as f64 / dt;
            if rem > 0.0 && rate > 0.0 {
                members
                    .entry(*c)
                    .or_default()
                    .push((i, rate, rem, now_s + rem / rate));
            }
        }
        let mut coflows: Vec<_> = members.into_iter().collect();
        coflows.sort_unstable_by_key(|(c, _)| *c);
        for (_, m) in coflows {
            let target = m.iter().map(|x| x.3).fold(f64::INFINITY, f64::min);
            let left = target - now_s;
            for &(i, rate, rem, finish) in &m {
                if finish - now_s <= left * (1.0 + self.slack) {
                    continue;
                }
                let needed = rem / left;
                let w = (self.weight[i] * needed / rate).clamp(self.base[i], self.max_weight);
                if w != self.weight[i] {
                    self.weight[i] = w;
                    out.push((i as u32, w));
                }
            }
        }
        out
    }
}

/// Weight changes made by [`run_mitigating_stragglers`]: `(time, flow, weight)`.
pub type WeightHistory = Vec<(Time, u32, f64)>;

/// Runs `sim` until `done` holds for the results (checked every `every`; e.g. every flow has
/// finished) or `until`, letting `policy` reweight stragglers every `every` of simulated time
/// (weights through [`PacketSim::set_weight`], so Söze senders react at once). Returns the
/// final results and the weight history `(time, flow, weight)`.
pub fn run_mitigating_stragglers(
    sim: &mut PacketSim,
    policy: &mut StragglerMitigation,
    every: Time,
    until: Time,
    done: impl Fn(&PacketResults) -> bool,
) -> Result<(PacketResults, WeightHistory)> {
    if every.0 == 0 {
        return Err(Error::invalid(
            "straggler mitigation.every",
            "must be positive",
        ));
    }
    let mut history = Vec::new();
    let mut t = sim.now();
    loop {
        t = Time(t.0.saturating_add(every.0)).min(until);
        let r = sim.run_until(t)?;
        if t >= until || done(&r) {
            return Ok((r, history));
        }
        let delivered: Vec<u64> = r.flows.iter().map(|f| f.delivered).collect();
        for (f, w) in policy.step(t, &delivered) {
            sim.set_weight(FlowId(f), w)?;
            history.push((t, f, w));
        }
    }
}

/// Söze §5.1.4, "Altruistic Scheduling among Multiple Jobs": a non-critical flow of `size`
/// bytes that must only end by the time its job's critical flow ends (`critical_size` bytes at
/// the rate fair sharing gives it) gives up the rest of its share. With `others` the summed
/// weight of the flows it shares its bottleneck with, the weight `w` that leaves it the
/// fraction `size / critical_size` of the bottleneck solves `w / (w + others) = size /
/// critical_size`. Fig. 9: f2 (7 GB) beside f1 (28 GB) needs 25% of host 4's link, shared with
/// f3 (weight 1): `w = 1/3`. Returns `None` when the flow needs the whole link or more.
pub fn altruistic_weight(size: f64, critical_size: f64, others: f64) -> Option<f64> {
    let share = size / critical_size;
    (share > 0.0 && share < 1.0 && others > 0.0).then(|| share * others / (1.0 - share))
}

/// Rescales each job's active weights to sum to its number of active flows, keeping the
/// ratios of the base weights. Jobs are the flows' tags.
#[derive(Clone, Debug)]
pub struct JobSumPreserving {
    base: Vec<f64>,
    tag: Vec<u32>,
    active: HashMap<u32, Vec<u32>>,
}

impl JobSumPreserving {
    /// `base[i]`: flow `i`'s relative priority within its job `tag[i]` (e.g. its longest path
    /// to the end of the DAG).
    pub fn new(base: Vec<f64>, tag: Vec<u32>) -> JobSumPreserving {
        JobSumPreserving {
            base,
            tag,
            active: HashMap::new(),
        }
    }
}

impl WeightPolicy for JobSumPreserving {
    fn on_instant(
        &mut self,
        _now: Time,
        arrived: &[u32],
        departed: &[u32],
        set: &mut dyn FnMut(u32, f64),
    ) {
        let mut touched: Vec<u32> = Vec::new();
        for &f in departed {
            let job = self.tag[f as usize];
            if let Some(v) = self.active.get_mut(&job) {
                v.retain(|&g| g != f);
            }
            touched.push(job);
        }
        for &f in arrived {
            let job = self.tag[f as usize];
            self.active.entry(job).or_default().push(f);
            touched.push(job);
        }
        touched.sort_unstable();
        touched.dedup();
        for job in touched {
            let flows = &self.active[&job];
            let sum: f64 = flows.iter().map(|&f| self.base[f as usize]).sum();
            let n = flows.len() as f64;
            for &f in flows {
                set(f, self.base[f as usize] * n / sum);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_weights_keep_their_sum_and_single_flows_get_one() {
        let mut p = JobSumPreserving::new(vec![3.0, 1.0, 5.0], vec![7, 7, 8]);
        let mut got = Vec::new();
        p.on_instant(Time::ZERO, &[0, 1, 2], &[], &mut |f, w| got.push((f, w)));
        got.sort_by_key(|g| g.0);
        assert_eq!(got, vec![(0, 1.5), (1, 0.5), (2, 1.0)]);
        got.clear();
        p.on_instant(Time::ZERO, &[], &[0], &mut |f, w| got.push((f, w)));
        assert_eq!(got, vec![(1, 1.0)]);
    }

    #[test]
    fn a_straggler_gets_the_weight_that_lands_it_at_the_leaders_finish() {
        // Coflow 0: flow 0 has 100 B left at 10 B/s (ends in 10 s), flow 1 has 400 B left at
        // 10 B/s (40 s): it needs 40 B/s, so its weight 1 becomes 4. Background flow 2 and the
        // leader keep theirs. A second step at the right pace changes nothing.
        let mut p = StragglerMitigation::new(
            vec![Some(0), Some(0), None],
            vec![200, 500, 1000],
            vec![1.0; 3],
            8.0,
            0.05,
        )
        .unwrap();
        assert!(p.step(Time::ZERO, &[0, 0, 0]).is_empty());
        assert_eq!(
            p.step(Time::from_secs_f64(10.0), &[100, 100, 100]),
            vec![(1, 4.0)]
        );
        assert!(p
            .step(Time::from_secs_f64(11.0), &[110, 140, 110])
            .is_empty());
        let e = StragglerMitigation::new(vec![None], vec![1], vec![0.0], 8.0, 0.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "flows[0].weight: must be positive and finite, got 0"
        );
    }

    #[test]
    fn altruistic_weight_of_fig9() {
        // Fig. 9: f2 needs 7/28 = 25% of the link it shares with f3 (weight 1): w = 1/3.
        assert!((altruistic_weight(7.0, 28.0, 1.0).unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(altruistic_weight(28.0, 28.0, 1.0), None);
    }
}
