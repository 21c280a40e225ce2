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
    use crate::engine::flow::{run, run_with, FlowSimConfig, FluidFlow};
    use crate::engine::Progress;
    use crate::ids::NodeId;
    use crate::topo::builders::star;
    use crate::topo::LinkSpec;
    use crate::units::{Bytes, Rate};
    use crate::workload::FlowSpec;

    /// Söze §5.1.1, Figs. 5–6: a job of four flows, f1 (20 GB) → f2 (10 GB) → f3 (10 GB) in
    /// sequence and f4 (20 GB) in parallel with f1 through the same bottleneck. Fair sharing:
    /// "the job completion time is 117 seconds"; weights 4/3 and 2/3 for f1 and f4 ("flow 1
    /// gets twice bandwidth than flow 4 and the sum of their weights still add to 2"): 96 s.
    /// The testbed's link rate is not given; at rate C, fair sharing takes 60 GB / C and the
    /// weighted allocation 50 GB / C, so the ratio (0.833) is what compares; the paper's
    /// 96 / 117 = 0.821.
    #[test]
    fn critical_path_priority_reproduces_fig6() {
        // Hosts 0..4 on one switch; f1 and f4 both into host 1 (their shared bottleneck), f2
        // from 1 to 2, f3 from 2 to 3.
        let topo = star(
            4,
            LinkSpec::new(Rate::gbps(10), Time::from_us(1), Bytes(1 << 20)),
        )
        .unwrap();
        let gb = |n: u64| Bytes(n * 1_000_000_000);
        let h = NodeId;
        let mut flows = vec![
            FluidFlow::new(FlowSpec::new(h(0), h(1), gb(20), Time::ZERO)),
            FluidFlow::new(FlowSpec::new(h(1), h(2), gb(10), Time::ZERO)),
            FluidFlow::new(FlowSpec::new(h(2), h(3), gb(10), Time::ZERO)),
            FluidFlow::new(FlowSpec::new(h(3), h(1), gb(20), Time::ZERO)),
        ];
        flows[1].deps = vec![0];
        flows[2].deps = vec![1];
        let jct = |flows: &[FluidFlow]| {
            let r = run(&topo, flows, &[], &FlowSimConfig::default()).unwrap();
            r.flows
                .iter()
                .filter_map(|f| f.end)
                .max()
                .unwrap()
                .as_secs_f64()
        };
        let fair = jct(&flows);
        flows[0].spec.weight = 4.0 / 3.0;
        flows[3].spec.weight = 2.0 / 3.0;
        let weighted = jct(&flows);
        let ratio = weighted / fair;
        println!("Fig. 6: fair {fair:.2} s, weighted {weighted:.2} s, ratio {ratio:.3} (paper 96/117 = 0.821)");
        assert!((ratio - 50.0 / 60.0).abs() < 1e-3, "{ratio}");
        // The same through the policy: base weights from the longest path to the end of the
        // DAG (f1: 3, f4: 1), rescaled within the job to sum to the active flow count.
        for f in &mut flows {
            f.spec.weight = 1.0;
        }
        let mut policy = JobSumPreserving::new(vec![3.0, 2.0, 1.0, 1.0], vec![0; 4]);
        let r = run_with(
            &topo,
            &flows,
            &[],
            &FlowSimConfig::default(),
            &Progress::default(),
            Some(&mut policy),
        )
        .unwrap();
        let with_policy = r
            .flows
            .iter()
            .filter_map(|f| f.end)
            .max()
            .unwrap()
            .as_secs_f64();
        // f1 : f4 = 3 : 1 (weights 1.5 and 0.5) instead of the paper's 2 : 1: f1 ends sooner
        // still, and the job no later than with the paper's weights.
        assert!(
            with_policy <= weighted * (1.0 + 1e-9),
            "{with_policy} vs {weighted}"
        );
    }

    /// Söze §5.1.4, Fig. 9: job 1 is f1 (28 GB) and f2 (7 GB) in parallel; job 2 is f3 (7 GB)
    /// then f4 (14 GB); f2 and f3 share host 4's inbound link. Fair sharing: job 2 ends at
    /// 60 s; optimal (f2 yields everything until f3 is done): 45 s; altruistic (f2 takes only
    /// the 25% it needs to end with f1): "f3 finished much earlier at 20 seconds, so that its
    /// job also finished at time 60 seconds" — 50 s in the caption, with job 1 unharmed. At
    /// link rate C these are 28, 21 and 23.3 units of GB / C; the paper's times are those
    /// units at C = 28 GB / 60 s.
    #[test]
    fn altruistic_sharing_reproduces_fig9() {
        let topo = star(
            6,
            LinkSpec::new(Rate::gbps(10), Time::from_us(1), Bytes(1 << 20)),
        )
        .unwrap();
        let gb = |n: u64| Bytes(n * 1_000_000_000);
        let h = NodeId;
        let mut flows = vec![
            FluidFlow::new(FlowSpec::new(h(0), h(1), gb(28), Time::ZERO)), // f1
            FluidFlow::new(FlowSpec::new(h(2), h(4), gb(7), Time::ZERO)),  // f2
            FluidFlow::new(FlowSpec::new(h(3), h(4), gb(7), Time::ZERO)),  // f3
            FluidFlow::new(FlowSpec::new(h(4), h(5), gb(14), Time::ZERO)), // f4
        ];
        flows[3].deps = vec![2];
        let ends = |flows: &[FluidFlow]| -> Vec<f64> {
            let r = run(&topo, flows, &[], &FlowSimConfig::default()).unwrap();
            r.flows
                .iter()
                .map(|f| f.end.unwrap().as_secs_f64())
                .collect()
        };
        // Seconds per "GB / C" unit at 10 Gb/s: 0.8 s; the paper's unit is 60 / 28 s.
        let to_paper = |s: f64| s / 0.8 * 60.0 / 28.0;
        let fair = ends(&flows);
        // f2 weight 1/3 against f3's 1: 25% of the link, exactly what 7 GB in 60 s needs.
        flows[1].spec.weight = 1.0 / 3.0;
        let altruistic = ends(&flows);
        let job1 = |e: &[f64]| e[0].max(e[1]);
        let job2 = |e: &[f64]| e[2].max(e[3]);
        println!(
            "Fig. 9: job 2 fair {:.1} s, altruistic {:.1} s (paper 60, 50); f3 ends at {:.1} s (paper 20); job 1 {:.1} -> {:.1} s",
            to_paper(job2(&fair)),
            to_paper(job2(&altruistic)),
            to_paper(altruistic[2]),
            to_paper(job1(&fair)),
            to_paper(job1(&altruistic)),
        );
        assert!((to_paper(job2(&fair)) - 60.0).abs() < 0.01);
        assert!((to_paper(job2(&altruistic)) - 50.0).abs() < 0.01);
        assert!((to_paper(altruistic[2]) - 20.0).abs() < 0.01);
        // Job 1 is not harmed: f2 still ends by the time f1 does.
        assert!(job1(&altruistic) <= job1(&fair) * (1.0 + 1e-9));
    }

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
