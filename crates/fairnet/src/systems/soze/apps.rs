//! Söze §5.1's application cases (Figs. 6, 8, 9, 10), on the flow-level engine: the exact
//! weighted max-min allocation at every instant, which is what Söze converges to (the paper ran
//! them on its eRPC testbed, 4 hosts on one switch; we use one 25 Gb/s switch).
//!
//! The testbed's effective rate is not given, so absolute times are not comparable; the ratio
//! of the policy's job completion time to fair sharing's is (the figures' point), and each case
//! also reports its times rescaled so that fair sharing takes as long as in the paper.
//!
//! Fig. 7 (straggler mitigation) needs a policy that watches progress, so it runs on the packet
//! engine with Söze senders ([`fig7_straggler`]).

use super::policy::{run_mitigating_stragglers, JobSumPreserving, StragglerMitigation};
use crate::engine::flow::{run, run_with, FlowSimConfig, FlowSimResults, FluidFlow, WeightChange};
use crate::engine::Progress;
use crate::error::Result;
use crate::ids::NodeId;
use crate::registry::PacketSim;
use crate::topo::builders::star;
use crate::topo::{LinkSpec, Topology};
use crate::units::{Bytes, Rate, Time};
use crate::workload::FlowSpec;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The link rate of our testbed stand-in.
pub const TESTBED_RATE: Rate = Rate::gbps(25);

/// One application case: completion time (job, or mean FCT for Fig. 10) under fair sharing
/// and under the policy, ours and the paper's.
#[derive(Clone, Debug, PartialEq)]
pub struct AppCase {
    /// The figure.
    pub figure: &'static str,
    /// What is compared.
    pub what: &'static str,
    /// Ours, fair sharing, seconds.
    pub fair_s: f64,
    /// Ours, with the policy, seconds.
    pub policy_s: f64,
    /// The paper's fair-sharing time, seconds (None where it gives none).
    pub paper_fair_s: Option<f64>,
    /// The paper's time with the policy, seconds.
    pub paper_policy_s: Option<f64>,
}

impl AppCase {
    /// Policy over fair.
    pub fn ratio(&self) -> f64 {
        self.policy_s / self.fair_s
    }
}

fn testbed(hosts: u32) -> Result<Topology> {
    star(
        hosts,
        LinkSpec::new(TESTBED_RATE, Time::from_us(1), Bytes(32 << 20)),
    )
}

fn gb(n: u64) -> Bytes {
    Bytes(n * 1_000_000_000)
}

fn flow(src: u32, dst: u32, size: Bytes) -> FluidFlow {
    FluidFlow::new(FlowSpec::new(NodeId(src), NodeId(dst), size, Time::ZERO))
}

fn last_end(topo: &Topology, flows: &[FluidFlow], ids: &[usize]) -> Result<f64> {
    let r = run(topo, flows, &[], &FlowSimConfig::default())?;
    Ok(ids
        .iter()
        .filter_map(|&i| r.flows[i].end)
        .max()
        .map_or(f64::NAN, |t| t.as_secs_f64()))
}

/// Fig. 5's job: hosts 0–3 on one switch; f1 and f4 both into host 1, f2 from 1 to 2 after
/// f1, f3 from 2 to 3 after f2.
fn fig6_job() -> Result<(Topology, Vec<FluidFlow>)> {
    let mut flows = vec![
        flow(0, 1, gb(20)),
        flow(1, 2, gb(10)),
        flow(2, 3, gb(10)),
        flow(3, 1, gb(20)),
    ];
    flows[1].deps = vec![0];
    flows[2].deps = vec![1];
    Ok((testbed(4)?, flows))
}

/// §5.1.1, Figs. 5–6: f1 (20 GB) → f2 (10 GB) → f3 (10 GB) in sequence, f4 (20 GB) in parallel
/// with f1 through the same bottleneck (host 1's downlink). Fair: "the job completion time is
/// 117 seconds"; f1 : f4 weighted 4/3 : 2/3: 96 s.
pub fn fig6_critical_path() -> Result<AppCase> {
    let (topo, mut flows) = fig6_job()?;
    let all = [0, 1, 2, 3];
    let fair_s = last_end(&topo, &flows, &all)?;
    flows[0].spec.weight = 4.0 / 3.0;
    flows[3].spec.weight = 2.0 / 3.0;
    let policy_s = last_end(&topo, &flows, &all)?;
    Ok(AppCase {
        figure: "Fig. 6",
        what: "job completion time, f1:f4 = 2:1",
        fair_s,
        policy_s,
        paper_fair_s: Some(117.0),
        paper_policy_s: Some(96.0),
    })
}

/// §5.1.4, Fig. 9: job 1 is f1 (28 GB) and f2 (7 GB) in parallel; job 2 is f3 (7 GB) then f4
/// (14 GB); f2 and f3 share host 4's inbound link. Fair: job 2 ends at 60 s; altruistic (f2
/// takes only the 25% it needs to end with f1, weight 1/3 against f3's 1): 50 s, "f3 finished
/// much earlier at 20 seconds", and job 1 is not delayed.
pub fn fig9_altruistic() -> Result<(AppCase, f64)> {
    let topo = testbed(6)?;
    let mut flows = vec![
        flow(0, 1, gb(28)),
        flow(2, 4, gb(7)),
        flow(3, 4, gb(7)),
        flow(4, 5, gb(14)),
    ];
    flows[3].deps = vec![2];
    let fair_s = last_end(&topo, &flows, &[2, 3])?;
    flows[1].spec.weight = 1.0 / 3.0;
    let policy_s = last_end(&topo, &flows, &[2, 3])?;
    let f3_s = last_end(&topo, &flows, &[2])?;
    Ok((
        AppCase {
            figure: "Fig. 9",
            what: "job 2 completion time, f2 altruistic (25%)",
            fair_s,
            policy_s,
            paper_fair_s: Some(60.0),
            paper_policy_s: Some(50.0),
        },
        f3_s,
    ))
}

/// §5.1.5, Fig. 10: "three hosts send RPC write requests to one host", sizes "from around
/// 700 MB to 7000 MB" (we draw them uniformly), `weight = max_flow_size / flow_size`. The
/// paper reports that smaller RPCs finish sooner and "more than 80% of the flows benefit";
/// it gives no times. Each sender issues `rpcs` requests back to back (the next when the
/// previous ends), all senders starting together. Returns the case (mean FCT) and the fraction
/// of RPCs that finish sooner with the weights.
pub fn fig10_shortest_first(rpcs: usize, seed: u64) -> Result<(AppCase, f64)> {
    let topo = testbed(4)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut flows = Vec::new();
    for sender in 1..=3u32 {
        for k in 0..rpcs {
            let size = Bytes(rng.gen_range(700_000_000..=7_000_000_000));
            let mut f = flow(sender, 0, size);
            if k > 0 {
                f.deps = vec![flows.len() as u32 - 1];
            }
            flows.push(f);
        }
    }
    let fcts = |flows: &[FluidFlow]| -> Result<Vec<f64>> {
        let r = run(&topo, flows, &[], &FlowSimConfig::default())?;
        Ok(r.flows
            .iter()
            .map(|f| f.end.map_or(f64::NAN, |e| (e - f.start).as_secs_f64()))
            .collect())
    };
    let fair = fcts(&flows)?;
    let max = flows.iter().map(|f| f.spec.size.0).max().unwrap_or(1) as f64;
    for f in &mut flows {
        f.spec.weight = max / f.spec.size.0 as f64;
    }
    let sff = fcts(&flows)?;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let better = fair.iter().zip(&sff).filter(|(a, b)| b < a).count() as f64 / fair.len() as f64;
    Ok((
        AppCase {
            figure: "Fig. 10",
            what: "mean RPC completion time, weight = max size / size",
            fair_s: mean(&fair),
            policy_s: mean(&sff),
            paper_fair_s: None,
            paper_policy_s: None,
        },
        better,
    ))
}

/// What Fig. 8's runs measured besides the job-2 completion times ([`fig8_job_level`]).
#[derive(Clone, Debug, PartialEq)]
pub struct JobLevelRun {
    /// The case: job 2's completion time, fair vs reweighted.
    pub case: AppCase,
    /// Each job's aggregate rate (Gb/s) while all four flows run, before and after the weight
    /// change, with the reweighting (Fig. 8(d): "always around 5 Gbps" each).
    pub job_gbps_before: [f64; 2],
    /// The same after the change.
    pub job_gbps_after: [f64; 2],
    /// When f3 and f4 (job 2) ended with the reweighting, seconds.
    pub f3_f4_end_s: (f64, f64),
    /// Job 1's completion time, fair and reweighted, seconds.
    pub job1_s: (f64, f64),
}

/// Fig. 8's weight change, in the paper's time (its caption; the text says 100 s, after job 2
/// has ended in both of its runs, so the caption's 50 s is the one that fits).
pub const FIG8_CHANGE_S: f64 = 50.0;

/// §5.1.3, Fig. 8: jobs 1 (f1, f2) and 2 (f3, f4) of two parallel flows each, all four through
/// one common bottleneck (here host 4's downlink). Fair: every flow a quarter; "job 2 finishes
/// at 82 seconds". At 50 s every flow's weight becomes its share of its job's remaining bytes,
/// times 2, so each job's weights still sum to 2 and keep half the bottleneck, while f3 and f4
/// end together: 79 s.
///
/// The paper gives no sizes. Ours are solved from its two times at the rate its Fig. 8(d)
/// shows (each job "around 5 Gbps", a 10 Gb/s bottleneck): with f1 and f2 outlasting job 2,
/// f3 + f4 = 79 s × 5 Gb/s = 49.4 GB, and fair sharing ends f4 at 82 s for f3 = 22.8 GB; we
/// take f3 = 23 GB, f4 = 26.5 GB, f1 = 30 GB, f2 = 40 GB, scaled by 2.5 to our 25 Gb/s link so
/// that times come out in the paper's seconds. Matching 82 → 79 s is therefore by
/// construction; what the run shows is the mechanism: each job's aggregate rate is unchanged
/// by the reweighting, job 2's flows end together, and job 1 does not end later.
pub fn fig8_job_level() -> Result<JobLevelRun> {
    let topo = testbed(5)?;
    let scale = TESTBED_RATE.bps() / 10e9;
    let sizes_gb = [30.0, 40.0, 23.0, 26.5];
    let flows: Vec<FluidFlow> = sizes_gb
        .iter()
        .enumerate()
        .map(|(i, gb)| flow(i as u32, 4, Bytes((gb * scale * 1e9) as u64)))
        .collect();
    let cfg = FlowSimConfig {
        rate_interval: Some(Time::from_secs_f64(1.0)),
        ..FlowSimConfig::default()
    };
    let fair = run(&topo, &flows, &[], &cfg)?;
    // Until the change all four flows run at a quarter of the link, if none ends before it
    // (with these sizes the first ends at ~74 s); the weights below rely on that.
    let change = Time::from_secs_f64(FIG8_CHANGE_S);
    if fair.flows.iter().any(|f| f.end.is_none_or(|e| e <= change)) {
        return Err(crate::error::Error::invalid(
            "fig8_job_level",
            "a flow ends before the weight change; the remaining bytes assume all four run",
        ));
    }
    let sent_by_change = TESTBED_RATE.bps() / 4.0 * FIG8_CHANGE_S / 8.0;
    let remaining: Vec<f64> = flows
        .iter()
        .map(|f| f.spec.size.0 as f64 - sent_by_change)
        .collect();
    let changes: Vec<WeightChange> = (0..4)
        .map(|i| {
            let job = [i - i % 2, i - i % 2 + 1];
            WeightChange {
                time: change,
                flow: i as u32,
                weight: 2.0 * remaining[i] / (remaining[job[0]] + remaining[job[1]]),
            }
        })
        .collect();
    let policy = run(&topo, &flows, &changes, &cfg)?;
    let end = |r: &FlowSimResults, ids: &[usize]| {
        ids.iter()
            .filter_map(|&i| r.flows[i].end)
            .max()
            .map_or(f64::NAN, |t| t.as_secs_f64())
    };
    // Each job's aggregate allocated rate at the sample `at` seconds.
    let jobs_at = |at: f64| {
        let mut gbps = [0.0; 2];
        for s in policy
            .rates
            .iter()
            .filter(|s| (s.time.as_secs_f64() - at).abs() < 1e-9)
        {
            gbps[s.flow as usize / 2] += s.rate / 1e9;
        }
        gbps
    };
    Ok(JobLevelRun {
        case: AppCase {
            figure: "Fig. 8",
            what: "job 2 completion time, job-level sum-preserving reweighting",
            fair_s: end(&fair, &[2, 3]),
            policy_s: end(&policy, &[2, 3]),
            paper_fair_s: Some(82.0),
            paper_policy_s: Some(79.0),
        },
        job_gbps_before: jobs_at(FIG8_CHANGE_S - 10.0),
        job_gbps_after: jobs_at(FIG8_CHANGE_S + 10.0),
        f3_f4_end_s: (end(&policy, &[2]), end(&policy, &[3])),
        job1_s: (end(&fair, &[0, 1]), end(&policy, &[0, 1])),
    })
}

/// Fig. 6's job with the job-level sum-preserving policy over longest-path weights instead of
/// the paper's hand-set 4/3 : 2/3 (f1 : f4 = 3 : 1), as `fairnet` applies it to TPC-H.
pub fn fig6_with_policy() -> Result<f64> {
    let (topo, flows) = fig6_job()?;
    let mut policy = JobSumPreserving::new(vec![3.0, 2.0, 1.0, 1.0], vec![0; 4]);
    let r = run_with(
        &topo,
        &flows,
        &[],
        &FlowSimConfig::default(),
        &Progress::default(),
        Some(&mut policy),
    )?;
    Ok(r.flows
        .iter()
        .filter_map(|f| f.end)
        .max()
        .map_or(f64::NAN, |t| t.as_secs_f64()))
}

/// One run of Fig. 7's coflow: when its two flows ended, and the straggler's weight history.
#[derive(Clone, Debug, PartialEq)]
pub struct StragglerRun {
    /// f1's completion time, seconds.
    pub f1_s: f64,
    /// f2's completion time, seconds (the coflow's, as f2 is the larger).
    pub f2_s: f64,
    /// f2's largest weight.
    pub f2_max_weight: f64,
    /// Weight changes `(time s, flow, weight)`.
    pub weights: Vec<(f64, u32, f64)>,
    /// Mean throughput (bit/s, payload) of the background flows that share f2's bottleneck,
    /// over the coflow's lifetime.
    pub background_bps: f64,
}

/// §5.1.2, Fig. 7: "two flows inside one coflow, where flow f2 is twice as large as flow f1";
/// f2 shares its bottleneck "fairly ... with background flows". Ours (the paper gives neither
/// sizes nor the background's): one 100 Gb/s switch (Söze §5's links), f1 (`f1_bytes`) into
/// host 1 beside three long background flows, f2 (twice as large) into host 6 beside three
/// others, so fair sharing gives both 25 Gb/s and f2 ends at twice f1's time. With
/// `mitigate`, [`StragglerMitigation`] (weights capped at 8, 5% slack) checks progress every
/// `every` and raises f2's weight until it keeps pace with f1 (weight 3: 50 Gb/s). Söze senders
/// as in the packet tests (§4 parameters, backlog signal, no filter, queueing NICs, ACKs first; `β` = 5 Gb/s so the
/// target range covers f2's raised share).
pub fn fig7_straggler(f1_bytes: u64, mitigate: bool, every: Time) -> Result<StragglerRun> {
    let topo = star(
        10,
        LinkSpec::new(Rate::gbps(100), Time::from_us(1), Bytes(32_000_000)),
    )?;
    let long = Bytes(1 << 50);
    let mut flows = vec![
        FlowSpec::new(NodeId(0), NodeId(1), Bytes(f1_bytes), Time::ZERO),
        FlowSpec::new(NodeId(5), NodeId(6), Bytes(2 * f1_bytes), Time::ZERO),
    ];
    for (src, dst) in [(2, 1), (3, 1), (4, 1), (7, 6), (8, 6), (9, 6)] {
        flows.push(FlowSpec::new(NodeId(src), NodeId(dst), long, Time::ZERO));
    }
    let mut cfg = super::packet_config();
    cfg.soze.beta = Some(Rate::gbps(5));
    let mut sim = PacketSim::from_config(&topo, &flows, cfg)?;
    let n = flows.len();
    let mut coflow = vec![None; n];
    coflow[0] = Some(0);
    coflow[1] = Some(0);
    let mut policy = StragglerMitigation::new(
        coflow,
        flows.iter().map(|f| f.size.0).collect(),
        vec![1.0; n],
        if mitigate { 8.0 } else { 1.0 },
        0.05,
    )?;
    let until = Time::from_ms(100);
    // Run until f2 ends (the background flows never do).
    let (r, history) = run_mitigating_stragglers(&mut sim, &mut policy, every, until, |r| {
        r.flows[1].end.is_some()
    })?;
    let secs = |i: usize| r.flows[i].end.map_or(f64::NAN, |e| e.as_secs_f64());
    let bg: u64 = r.flows[5..8].iter().map(|f| f.delivered).sum();
    Ok(StragglerRun {
        f1_s: secs(0),
        f2_s: secs(1),
        f2_max_weight: history
            .iter()
            .filter(|h| h.1 == 1)
            .map(|h| h.2)
            .fold(1.0, f64::max),
        weights: history
            .iter()
            .map(|&(t, f, w)| (t.as_secs_f64(), f, w))
            .collect(),
        background_bps: bg as f64 * 8.0 / 3.0 / r.now.as_secs_f64(),
    })
}

/// Fig. 7 as an application case: the coflow's completion time (f2's end, the larger flow)
/// under fair sharing and with [`StragglerMitigation`] checking progress every 100 µs, f1 of
/// 5 MB ([`fig7_straggler`]); with both runs. The paper plots rates only (no times).
pub fn fig7_case() -> Result<(AppCase, StragglerRun, StragglerRun)> {
    let every = Time::from_us(100);
    let fair = fig7_straggler(5_000_000, false, every)?;
    let mitigated = fig7_straggler(5_000_000, true, every)?;
    let case = AppCase {
        figure: "Fig. 7",
        what: "coflow completion, straggler mitigation (packet level)",
        fair_s: fair.f2_s,
        policy_s: mitigated.f2_s,
        paper_fair_s: None,
        paper_policy_s: None,
    };
    Ok((case, fair, mitigated))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fig8_reweighting_within_jobs_keeps_each_jobs_share_and_ends_job_2_together() {
        let r = fig8_job_level().unwrap();
        println!("Fig. 8: {r:?}");
        // Each job keeps half of the 25 Gb/s bottleneck before and after the change (Fig. 8(d)).
        for gbps in r.job_gbps_before.iter().chain(&r.job_gbps_after) {
            assert!((gbps - 12.5).abs() < 0.01, "{r:?}");
        }
        // The reweighting moved bandwidth within job 2: f3 and f4 now end together ...
        let (f3, f4) = r.f3_f4_end_s;
        assert!((f3 - f4).abs() < 0.01 * f4, "{r:?}");
        // ... job 2 ends sooner (paper: 82 → 79 s; our sizes are solved from those times, see
        // the doc, so the ratio is checked against the mechanism's, not taken as evidence) ...
        assert!((r.case.fair_s - 82.0).abs() < 0.5, "{r:?}");
        assert!((r.case.policy_s - 79.2).abs() < 0.5, "{r:?}");
        // ... and job 1 does not end later (the link is busy until the last byte either way).
        assert!(r.job1_s.1 <= r.job1_s.0 + 1e-6, "{r:?}");
    }

    #[test]
    fn fig6_critical_path_ratio() {
        // At rate C: fair takes 60 GB / C, weighted 50 GB / C (paper: 96 / 117 = 0.821).
        let c = fig6_critical_path().unwrap();
        println!(
            "Fig. 6: fair {:.2} s, weighted {:.2} s, ratio {:.3} (paper 0.821)",
            c.fair_s,
            c.policy_s,
            c.ratio()
        );
        assert!((c.ratio() - 50.0 / 60.0).abs() < 1e-3, "{}", c.ratio());
        // 60 GB at 25 Gb/s is 19.2 s.
        assert!((c.fair_s - 19.2).abs() < 1e-3, "{}", c.fair_s);
        // The policy's 3 : 1 ends the job no later than the paper's 2 : 1.
        assert!(fig6_with_policy().unwrap() <= c.policy_s * (1.0 + 1e-9));
    }

    #[test]
    fn fig9_altruistic_times_match_the_paper_in_its_units() {
        let (c, f3) = fig9_altruistic().unwrap();
        let to_paper = 60.0 / c.fair_s;
        println!(
            "Fig. 9: job 2 fair {:.1}, altruistic {:.1}, f3 {:.1} (paper's units: 60, 50, 20)",
            c.fair_s * to_paper,
            c.policy_s * to_paper,
            f3 * to_paper
        );
        assert!((c.policy_s * to_paper - 50.0).abs() < 0.01);
        assert!((f3 * to_paper - 20.0).abs() < 0.01);
    }

    #[test]
    fn fig7_straggler_mitigation_lands_f2_with_f1() {
        // Fair sharing: f1 (5 MB) and f2 (10 MB) both get 25 Gb/s, so f2 ends at about twice
        // f1's time. Mitigated (progress checked every 100 µs): f2's weight rises to about 3
        // (50 Gb/s against three unit-weight background flows) and f2 ends within 15% of f1;
        // the coflow ends at least 35% sooner, f1 is not slowed, and the background flows beside
        // f2 keep a positive share (Söze never starves them).
        let (case, fair, mit) = fig7_case().unwrap();
        assert_eq!((case.fair_s, case.policy_s), (fair.f2_s, mit.f2_s));
        println!(
            "Fig. 7: fair f1 {:.3} ms, f2 {:.3} ms; mitigated f1 {:.3} ms, f2 {:.3} ms, \
             f2's max weight {:.2}, background beside f2 {:.1} Gb/s each; weights {:?}",
            fair.f1_s * 1e3,
            fair.f2_s * 1e3,
            mit.f1_s * 1e3,
            mit.f2_s * 1e3,
            mit.f2_max_weight,
            mit.background_bps / 1e9,
            mit.weights
        );
        assert!(fair.f2_s > 1.8 * fair.f1_s, "{fair:?}");
        assert!(mit.f2_s < 1.15 * mit.f1_s, "{mit:?}");
        assert!(mit.f2_s < 0.65 * fair.f2_s, "{mit:?} vs {fair:?}");
        assert!(mit.f1_s < 1.05 * fair.f1_s);
        assert!(mit.f2_max_weight > 2.0 && mit.f2_max_weight <= 8.0);
        // f2 is reweighted first; with the per-RTT reference rate f2 reaches its raised share
        // within one 100 µs check, overshoots f1's pace, and the policy may then nudge f1 up
        // (measured: 1.07–1.20 from 0.7 ms, 1.54 at 1.6 ms just before f1 ends, with the
        // default window; 1.12 at most under pacing alone), never the background.
        assert!(mit.weights[0].1 == 1, "f2 is reweighted first");
        assert!(
            mit.weights.iter().all(|w| w.1 <= 1),
            "only the coflow's flows: {:?}",
            mit.weights
        );
        assert!(mit.background_bps > 5e9, "{}", mit.background_bps);
    }

    #[test]
    fn fig10_shortest_first_helps_most_rpcs() {
        let (c, better) = fig10_shortest_first(20, 1).unwrap();
        println!(
            "Fig. 10: mean RPC time fair {:.3} s, shortest-first {:.3} s; {:.0}% of RPCs sooner (paper: > 80%)",
            c.fair_s,
            c.policy_s,
            better * 100.0
        );
        assert!(c.policy_s < c.fair_s);
        assert!(better > 0.5, "{better}");
    }
}
