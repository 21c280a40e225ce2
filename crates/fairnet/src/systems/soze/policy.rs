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
//! The §5.1 application cases that exercise these are in [`super::apps`].

use crate::engine::flow::WeightPolicy;
use crate::units::Time;
use std::collections::HashMap;

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
}
