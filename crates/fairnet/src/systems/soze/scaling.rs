//! Söze §5.3.4, Fig. 19: how long Söze takes to reach the global weighted max-min allocation as
//! the fat-tree and the flow count grow, on the packet engine.
//!
//! The paper: "once applications have determined the weights, the convergence time towards the
//! global weighted bandwidth allocation is always around the same magnitude. The average
//! convergence time for Söze is 0.3 milliseconds, which is around 10 RTTs" (Fig. 19(a), 10k
//! flows on k = 4 … 16), and "Söze still provides consistent convergence towards the global
//! weighted allocation within 10 RTTs" (Fig. 19(b), 10 … 1M flows on k = 16). It does not say
//! what "converged" means, how flows are placed or weighted, or where the flows start.
//!
//! Our reading, chosen so that the two halves of Fig. 19 are measured on the same problem:
//! - **Flows**: the oracle-timing workload ([`crate::workload::fat_tree_problem`]): random
//!   distinct host pairs of a k-ary fat-tree (100 Gb/s, 1 µs links, 32 MB buffers: Söze §5),
//!   weights uniform in [0.1, 10], one ECMP path per flow (the engine routes with the same
//!   per-flow hash and seed, so the oracle sees the engine's paths). Every flow is long-lived
//!   and starts at time 0 at the sender NIC's line rate (Söze's default start).
//! - **Engine**: Söze with the weighted NIC and a two-packet pacing credit
//!   ([`super::weighted_nic_packet_config`]: a host's flows share its uplink by weight with
//!   nothing queued in front of the fabric; on random fat-trees the queueing NIC leaves flows
//!   10–40% off, `docs/systems/soze.md`).
//! - **Two rates per flow**, sampled every 10 µs:
//!   - the *sending rate* Söze sets: the flow's pacing rate, capped by its weighted share of
//!     its host's NIC (the weighted NIC serves the ready flows by start-time fair queueing, so
//!     the flows of a host get the weighted max-min allocation of the NIC's line rate with
//!     their pacing rates as demands; computed with the oracle on the host uplinks alone).
//!     Since issue 31 Söze caps its own rate at that share (`CongestionControl::on_nic_share`),
//!     so the cap here only repeats it (before, Söze's rate drifted up to the NIC rate for
//!     flows held by their uplink while the NIC sent them at their share);
//!   - the *delivered throughput* (wire bit/s) over a sliding `window` (default 50 µs, five
//!     samples). A flow of rate r delivers r·window / 8 bytes per window: below ~20 packets
//!     (r < 3.4 Gb/s at 50 µs) one packet more or less is 5%, so at the paper's density
//!     (10k flows on k = 4: ~160 Mb/s a flow, one packet per 50 µs) the window measures
//!     packet granularity, not convergence. That is why the sending rate is the headline.
//! - **Converged** (either rate): the earliest sample from which on at least `fraction` (90%)
//!   of the flows are within `tolerance` (10%) of their oracle rate at every sample up to the
//!   horizon (the s-PERC paper's definition of convergence, §8.2.1, applied to weighted
//!   rates). The paper reports an "average convergence time", so we also give each flow's own
//!   convergence time (the sample from which on its sending rate stays within `tolerance`) and
//!   their mean over the flows that converged, with the share that did.
//! - **Lowest rate**: none by default (Söze's default: the paper has no floor; with 10k–1M
//!   flows on 16–1,024 hosts many weighted fair shares are below 100 Mb/s, and a floor, not
//!   Söze, would decide them). `min_rate` sets one; the share of flows it holds at the end is
//!   reported ([`ScalingRun::held_at_floor`]).
//! - **Lemma 3.2** is evaluated at each flow's oracle rate with the `Δt` of the update rule in
//!   force ([`super::sender::update_interval`]; per-RTT rules with the longest base RTT), and
//!   counted at run time by the senders themselves ([`ScalingRun::lemma_3_2_violated_updates`]).

use crate::alloc::{waterfill, Problem};
use crate::error::{Error, Result};
use crate::ids::FlowId;
use crate::registry::{CcImpl, PacketConfig, PacketSim};
use crate::topo::builders::{fat_tree, FatTreeSpec};
use crate::topo::LinkSpec;
use crate::units::{Bytes, Rate, Time};
use crate::workload::FlowSpec;

/// A flow that never ends within a run.
const LONG: Bytes = Bytes(1 << 50);

/// One point of Fig. 19.
#[derive(Clone, Debug)]
pub struct ScalingSpec {
    /// Fat-tree arity (k³/4 hosts).
    pub k: u32,
    /// Long-lived flows between random host pairs.
    pub flows: usize,
    /// Seed of the pairs, the weights and the ECMP hash.
    pub seed: u64,
    /// How often the delivered bytes are sampled.
    pub sample: Time,
    /// The throughput window, in samples.
    pub window: usize,
    /// How long the run lasts.
    pub horizon: Time,
    /// Relative distance to the oracle rate that counts as converged (0.1: within 10%).
    pub tolerance: f64,
    /// Share of the flows that must be within `tolerance` (0.9: 90%).
    pub fraction: f64,
    /// Range the flow weights are drawn from, uniformly.
    pub weights: (f64, f64),
    /// Söze's `p` (Eq. 6).
    pub p: Time,
    /// Söze's rate floor (`None`: none, the default).
    pub min_rate: Option<Rate>,
    /// Söze's update rule (default: the engine's, [`super::SozeConfig`]).
    pub update: super::SozeUpdate,
}

impl ScalingSpec {
    /// `flows` flows on a k-ary fat-tree, sampled every 10 µs for 2 ms; 90% within 10%.
    pub fn new(k: u32, flows: usize, seed: u64) -> ScalingSpec {
        ScalingSpec {
            k,
            flows,
            seed,
            sample: Time::from_us(10),
            window: 5,
            horizon: Time::from_ms(2),
            tolerance: 0.10,
            fraction: 0.90,
            weights: (0.1, 10.0),
            p: crate::systems::soze::config::DEFAULT_P,
            min_rate: None,
            update: super::SozeUpdate::default(),
        }
    }
}

/// What one point measured.
#[derive(Clone, Debug)]
pub struct ScalingRun {
    /// Hosts of the fat-tree.
    pub hosts: usize,
    /// Flows run.
    pub flows: usize,
    /// Longest base round-trip time of any flow's path (no queueing), for "RTTs".
    pub max_base_rtt: Time,
    /// Time from the start until the sending rates converged (90% of the flows within 10%
    /// from then on, see the module doc); `None`: not within the horizon.
    pub rate_converged: Option<Time>,
    /// Mean over the flows whose sending rate converged of the time it did (the paper's
    /// "average convergence time"); `None`: no flow converged.
    pub rate_mean_flow_converged: Option<Time>,
    /// Share of the flows whose sending rate converged within the horizon.
    pub rate_flows_converged: f64,
    /// Share of the flows whose sending rate is within `tolerance` at the last sample.
    pub rate_final_within: f64,
    /// Time from the start until the delivered throughputs converged (see the module doc);
    /// `None`: not within the horizon.
    pub converged: Option<Time>,
    /// The weaker criterion: time from the start until the median flow's error stayed within
    /// `tolerance`; `None`: not within the horizon.
    pub median_converged: Option<Time>,
    /// Share of the flows whose delivered throughput is within `tolerance` of the oracle at
    /// the last sample.
    pub final_within: f64,
    /// Median relative error of the windowed throughput at the last sample.
    pub final_median_error: f64,
    /// Median relative error of the delivered throughput over the last quarter of the run.
    pub delivered_median_error: f64,
    /// 95th percentile of that error.
    pub delivered_p95_error: f64,
    /// Share of the flows for which Lemma 3.2's stability condition `p > Δt/2 · ln(α/β)`
    /// fails at their oracle rate, with the `Δt` of the update rule in force (per ACK
    /// compounding, the default: `RTT/CWND`, one packet's time at that rate; the engine's
    /// check at start takes the best case, line rate).
    pub lemma_3_2_violated: f64,
    /// Share of all rate updates the senders made where Lemma 3.2 failed at the rate they
    /// started from ([`super::Soze::lemma_3_2_violations`]).
    pub lemma_3_2_violated_updates: f64,
    /// Share of the flows a set `min_rate` holds at the end (0 without a floor).
    pub held_at_floor: f64,
    /// Söze's target range `(α, β)`, bit/s.
    pub range: (f64, f64),
    /// Wall-clock seconds of the oracle's solve on the same flows and paths.
    pub oracle_solve_s: f64,
    /// Wall-clock seconds of the packet simulation.
    pub sim_wall_s: f64,
    /// Events the packet engine handled.
    pub events: u64,
}

/// The weighted oracle problem and the flows of a point (same pairs, weights and paths).
fn problem(spec: &ScalingSpec) -> Result<(crate::topo::Topology, Vec<FlowSpec>, Problem)> {
    let link = LinkSpec::new(Rate::gbps(100), Time::from_us(1), Bytes(32_000_000));
    let topo = fat_tree(FatTreeSpec {
        k: spec.k,
        host_link: link,
        fabric_link: link,
        oversubscription: 1,
    })?;
    let problem = Problem::new(crate::workload::random_pairs_problem(
        &topo,
        spec.flows,
        spec.seed,
        spec.weights,
    )?)?;
    // The pairs again, from the problem's paths: each path starts at its source host's uplink
    // and ends at its destination's downlink.
    let flows = (0..problem.num_flows())
        .map(|i| {
            let path = problem.path(i);
            let src = topo.links()[path[0] as usize].src;
            let dst = topo.links()[path[path.len() - 1] as usize].dst;
            let mut f = FlowSpec::new(src, dst, LONG, Time::ZERO);
            f.weight = problem.weights()[i];
            f
        })
        .collect();
    Ok((topo, flows, problem))
}

/// The flows' sending rates: each pacing rate capped by the flow's weighted share of its host
/// NIC (see the module doc), from the oracle on a problem of the sender uplinks alone.
struct NicShares {
    /// Line rate of each sending host's uplink.
    capacities: Vec<f64>,
    /// Index into `capacities` of each flow's uplink.
    uplink: Vec<u32>,
    weights: Vec<f64>,
}

impl NicShares {
    fn new(topo: &crate::topo::Topology, problem: &Problem) -> NicShares {
        let mut index = std::collections::HashMap::new();
        let mut capacities = Vec::new();
        let uplink = (0..problem.num_flows())
            .map(|f| {
                let link = problem.path(f)[0];
                *index.entry(link).or_insert_with(|| {
                    capacities.push(topo.links()[link as usize].capacity.bps());
                    capacities.len() as u32 - 1
                })
            })
            .collect();
        NicShares {
            capacities,
            uplink,
            weights: problem.weights().to_vec(),
        }
    }

    /// The sending rates of flows paced at `pacing` (bit/s).
    fn rates(&self, pacing: Vec<f64>) -> Result<Vec<f64>> {
        let n = self.uplink.len();
        let nic = Problem::new(crate::alloc::ProblemInput {
            capacities: self.capacities.clone(),
            path_ptr: (0..=n).collect(),
            path_links: self.uplink.clone(),
            weights: Some(self.weights.clone()),
            demands: Some(pacing),
            ..Default::default()
        })?;
        Ok(waterfill::solve(&nic).rates)
    }
}

/// Relative errors of `got` against `want` (flows with a positive oracle rate).
fn errors(got: &[f64], want: &[f64]) -> Vec<f64> {
    got.iter()
        .zip(want)
        .filter(|(_, w)| **w > 0.0)
        .map(|(g, w)| (g - w).abs() / w)
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    percentile(&v, 0.5)
}

/// The `q` quantile (nearest rank) of sorted values; 0 for none.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// The first sample time from which on every sample is good (`good[i]` at `times[i]`);
/// `None` if the last one is not.
pub fn settled_at(times: &[Time], good: &[bool]) -> Option<Time> {
    let last_bad = good.iter().rposition(|&g| !g);
    match last_bad {
        None => times.first().copied(),
        Some(i) if i + 1 < times.len() => Some(times[i + 1]),
        Some(_) => None,
    }
}

/// Runs one point of Fig. 19 (see the module doc).
pub fn run(spec: &ScalingSpec) -> Result<ScalingRun> {
    if spec.flows == 0 || spec.sample.0 == 0 || spec.horizon < spec.sample {
        return Err(Error::invalid(
            "soze scaling",
            format!(
                "need flows > 0 and 0 < sample <= horizon, got {} flows, sample {}, horizon {}",
                spec.flows, spec.sample, spec.horizon
            ),
        ));
    }
    let (topo, flows, problem) = problem(spec)?;
    let t0 = std::time::Instant::now();
    let want = waterfill::solve(&problem).rates;
    let oracle_solve_s = t0.elapsed().as_secs_f64();

    let mut cfg = super::weighted_nic_packet_config();
    cfg.seed = spec.seed;
    cfg.soze.p = spec.p;
    cfg.soze.min_rate = spec.min_rate;
    cfg.soze.update = spec.update;
    let max_base_rtt = max_base_rtt(&topo, &problem, &cfg);
    let nic = NicShares::new(&topo, &problem);
    let t1 = std::time::Instant::now();
    let packet_bits = cfg.mtu_wire().0 as f64 * 8.0;
    let (p, k) = (cfg.soze.p.as_secs_f64(), cfg.soze.k.as_secs_f64());
    let mut sim = PacketSim::from_config(&topo, &flows, cfg)?;
    let n = flows.len();
    let (alpha, beta) = sim.schemes().soze_range().expect("the transport is Söze");
    // Lemma 3.2 at each flow's oracle rate with the rule's Δt (RTT/CWND per ACK compounding).
    let target = super::Target { p, k, alpha, beta };
    let rule = spec.update;
    let rtt = max_base_rtt.as_secs_f64();
    let violated = want
        .iter()
        .filter(|&&r| p <= target.p_bound(super::update_interval(rule, r, packet_bits, rtt)))
        .count();
    let rx = |sim: &PacketSim| -> Vec<u64> {
        (0..n)
            .map(|f| sim.received_wire(FlowId(f as u32)).unwrap_or(0))
            .collect()
    };
    let window = spec.window.max(1);
    let span = (spec.sample.0 * window as u64) as f64 * 1e-12;
    // The delivered bytes of the last `window + 1` samples (a ring).
    let mut ring: Vec<Vec<u64>> = vec![vec![0; n]];
    let mut times = Vec::new();
    let mut within = Vec::new();
    let mut median_err = Vec::new();
    let mut rates = vec![0.0; n];
    let quarter = Time(spec.horizon.0 - spec.horizon.0 / 4);
    let mut rx_at_quarter: Option<(Time, Vec<u64>)> = None;
    // The sending rates: every sample, and each flow's last sample out of `tolerance`.
    let mut rate_times = Vec::new();
    let mut rate_within = Vec::new();
    let mut rate_last_miss: Vec<Option<usize>> = vec![None; n];
    let mut t = spec.sample;
    let mut events = 0;
    let mut i = 0usize;
    while t <= spec.horizon {
        events = sim.run_until(t)?.events;
        i += 1;
        let pacing = (0..n)
            .map(|f| sim.pacing_rate(FlowId(f as u32)).unwrap_or(0.0))
            .collect();
        let sending = nic.rates(pacing)?;
        let mut ok = 0;
        for (f, (got, want)) in sending.iter().zip(&want).enumerate() {
            if (got - want).abs() <= spec.tolerance * want {
                ok += 1;
            } else {
                rate_last_miss[f] = Some(rate_times.len());
            }
        }
        rate_times.push(t);
        rate_within.push(ok as f64 / n as f64);
        let now_rx = rx(&sim);
        if ring.len() <= window {
            ring.push(now_rx.clone());
        } else {
            ring[i % (window + 1)].clone_from(&now_rx);
        }
        if i >= window {
            let old = &ring[(i - window) % (window + 1)];
            for (f, r) in rates.iter_mut().enumerate() {
                *r = (now_rx[f] - old[f]) as f64 * 8.0 / span;
            }
            let err = errors(&rates, &want);
            let ok = err.iter().filter(|e| **e <= spec.tolerance).count();
            times.push(t);
            within.push(ok as f64 / err.len().max(1) as f64);
            median_err.push(median(err));
        }
        if rx_at_quarter.is_none() && t >= quarter {
            rx_at_quarter = Some((t, now_rx));
        }
        t += spec.sample;
    }
    if times.is_empty() {
        return Err(Error::invalid(
            "soze scaling",
            format!(
                "the horizon {} holds fewer samples than one window",
                spec.horizon
            ),
        ));
    }
    let (tq, rxq) = rx_at_quarter.expect("the horizon is at least one sample");
    let (mut updates, mut violated_updates, mut at_floor) = (0u64, 0u64, 0usize);
    for f in 0..n {
        if let Some(CcImpl::Soze(s)) = sim.cc(FlowId(f as u32)) {
            updates += s.updates();
            violated_updates += s.lemma_3_2_violations();
            at_floor += usize::from(s.at_floor());
        }
    }
    let dt = (sim.now() - tq).as_secs_f64();
    let last = rx(&sim);
    let delivered: Vec<f64> = (0..n)
        .map(|f| (last[f] - rxq[f]) as f64 * 8.0 / dt.max(f64::MIN_POSITIVE))
        .collect();
    let mut delivered_err = errors(&delivered, &want);
    delivered_err.sort_by(f64::total_cmp);
    // Each flow's own convergence time: the sample after its last miss.
    let flow_converged: Vec<Time> = rate_last_miss
        .iter()
        .filter_map(|miss| match miss {
            None => Some(rate_times[0]),
            Some(j) => rate_times.get(j + 1).copied(),
        })
        .collect();
    let rate_mean_flow_converged = (!flow_converged.is_empty()).then(|| {
        let sum: u128 = flow_converged.iter().map(|t| t.0 as u128).sum();
        Time((sum / flow_converged.len() as u128) as u64)
    });
    // When at least `fraction` of the flows were within tolerance from then on.
    let fraction_settled = |times: &[Time], within: &[f64]| {
        let good: Vec<bool> = within.iter().map(|&w| w >= spec.fraction).collect();
        settled_at(times, &good)
    };
    Ok(ScalingRun {
        hosts: topo.hosts().len(),
        flows: n,
        max_base_rtt,
        rate_converged: fraction_settled(&rate_times, &rate_within),
        rate_mean_flow_converged,
        rate_flows_converged: flow_converged.len() as f64 / n as f64,
        rate_final_within: *rate_within.last().expect("at least one sample"),
        converged: fraction_settled(&times, &within),
        median_converged: settled_at(
            &times,
            &median_err
                .iter()
                .map(|&e| e <= spec.tolerance)
                .collect::<Vec<_>>(),
        ),
        final_within: *within.last().expect("at least one sample"),
        final_median_error: median(errors(&rates, &want)),
        delivered_median_error: percentile(&delivered_err, 0.5),
        delivered_p95_error: percentile(&delivered_err, 0.95),
        lemma_3_2_violated: violated as f64 / n as f64,
        lemma_3_2_violated_updates: violated_updates as f64 / updates.max(1) as f64,
        held_at_floor: at_floor as f64 / n as f64,
        range: (alpha, beta),
        oracle_solve_s,
        sim_wall_s: t1.elapsed().as_secs_f64(),
        events,
    })
}

/// The longest base RTT over the flows' paths: propagation both ways plus one MTU's
/// serialization per hop out and one ACK's back.
fn max_base_rtt(topo: &crate::topo::Topology, problem: &Problem, cfg: &PacketConfig) -> Time {
    let mtu = Bytes(cfg.mtu.0 + cfg.header.0);
    let ack = Bytes(cfg.header.0);
    let links = topo.links();
    (0..problem.num_flows())
        .map(|f| {
            problem
                .path(f)
                .iter()
                .map(|&l| {
                    let l = &links[l as usize];
                    Time(2 * l.delay.0 + l.capacity.tx_time(mtu).0 + l.capacity.tx_time(ack).0)
                })
                .fold(Time::ZERO, |a, b| a + b)
        })
        .max()
        .unwrap_or(Time::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::soze::SozeUpdate;

    #[test]
    fn settled_at_is_the_sample_after_the_last_miss() {
        let times: Vec<Time> = (1..=5).map(Time::from_us).collect();
        let at = |w: [f64; 5]| settled_at(&times, &w.map(|x| x >= 0.9));
        assert_eq!(at([0.5, 0.95, 0.8, 0.92, 0.99]), Some(Time::from_us(4)));
        assert_eq!(at([0.95, 0.95, 0.91, 0.92, 0.99]), Some(Time::from_us(1)));
        assert_eq!(at([0.95, 0.95, 0.91, 0.92, 0.5]), None);
    }

    #[test]
    fn a_host_nic_shares_its_line_rate_by_weight_among_the_flows_paced_above_it() {
        // Two flows from host 0 (weights 1 and 3) and one from host 1, on a k = 4 fat-tree.
        let spec = ScalingSpec::new(4, 3, 1);
        let (topo, _, _) = problem(&spec).unwrap();
        let routing = crate::topo::routing::Routing::new(&topo);
        let h = topo.hosts();
        let pairs = [(h[0], h[5]), (h[0], h[9]), (h[1], h[9])];
        let input =
            crate::workload::routed_problem(&topo, &routing, &pairs, 1, vec![1.0, 3.0, 1.0])
                .unwrap();
        let nic = NicShares::new(&topo, &Problem::new(input).unwrap());
        let line = 100e9;
        let close = |got: Vec<f64>, want: [f64; 3]| {
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-6 * line, "{got:?} vs {want:?}");
            }
        };
        // Both of host 0's flows paced at line rate: 25 / 75 Gb/s; host 1's alone keeps its rate.
        close(
            nic.rates(vec![line, line, 40e9]).unwrap(),
            [25e9, 75e9, 40e9],
        );
        // A flow paced below its share keeps its pacing rate; the other takes the rest.
        close(
            nic.rates(vec![10e9, line, 40e9]).unwrap(),
            [10e9, 90e9, 40e9],
        );
        // Both below the line rate together: their pacing rates.
        close(nic.rates(vec![10e9, 20e9, 0.0]).unwrap(), [10e9, 20e9, 0.0]);
    }

    #[test]
    fn lemma_3_2_share_is_the_oracle_count_of_flows_whose_update_interval_is_too_long() {
        // Lemma 3.2: p > Δt/2·ln(α/β). The share reported is recomputed here from the oracle's
        // rates of the same flows: per ACK compounding, Δt = RTT/CWND = one packet (8,384 wire
        // bits) at the flow's oracle rate; the reference rate (the default), Δt = the RTT
        // (the longest base RTT, 12.5 µs on a k = 4 fat-tree), the same for every flow.
        for (k, flows) in [(4, 10), (4, 1000)] {
            for update in [SozeUpdate::PerPacketCompound, SozeUpdate::PerPacket] {
                let mut spec = ScalingSpec::new(k, flows, 1);
                spec.horizon = Time::from_us(100);
                spec.window = 1;
                spec.update = update;
                let r = run(&spec).unwrap();
                let (_, _, problem) = problem(&spec).unwrap();
                let (alpha, beta) = r.range;
                let bound = |dt: f64| dt / 2.0 * (alpha / beta).ln();
                let rtt = r.max_base_rtt.as_secs_f64();
                let slow = waterfill::solve(&problem)
                    .rates
                    .iter()
                    .filter(|&&rate| match update {
                        SozeUpdate::PerPacketCompound => 20e-6 <= bound(8384.0 / rate),
                        _ => 20e-6 <= bound(rtt),
                    })
                    .count();
                println!(
                    "k = {k}, {flows} flows, {update:?}: ln(α/β) = {:.2}, Lemma 3.2 fails for \
                     {:.1}% of flows at their oracle rates, in {:.1}% of the updates made",
                    (alpha / beta).ln(),
                    r.lemma_3_2_violated * 100.0,
                    r.lemma_3_2_violated_updates * 100.0
                );
                assert_eq!(r.lemma_3_2_violated, slow as f64 / flows as f64);
                assert_eq!(r.held_at_floor, 0.0, "no floor is set");
            }
        }
        // 10 flows on 16 hosts run at tens of Gb/s: one packet takes < 1 µs, and compounding
        // meets the bound for every flow; with 1,000 flows (1.6 Gb/s a flow on average, many
        // far below; ln(α/β) = 8.3) the flows below 8,384 bit / (2p/ln(α/β)) = 1.7 Gb/s fail
        // it: some, not all (measured 58%, seed 1).
        let mut spec = ScalingSpec::new(4, 10, 1);
        spec.horizon = Time::from_us(100);
        spec.update = SozeUpdate::PerPacketCompound;
        assert_eq!(run(&spec).unwrap().lemma_3_2_violated, 0.0);
        spec.flows = 1000;
        let dense = run(&spec).unwrap().lemma_3_2_violated;
        assert!(dense > 0.0 && dense < 1.0, "{dense}");
    }

    #[test]
    fn the_flows_are_the_oracle_problems_pairs() {
        let spec = ScalingSpec::new(4, 50, 7);
        let (topo, flows, problem) = problem(&spec).unwrap();
        assert_eq!(flows.len(), 50);
        for (i, f) in flows.iter().enumerate() {
            assert_ne!(f.src, f.dst);
            assert!(topo.is_host(f.src) && topo.is_host(f.dst));
            assert!((0.1..=10.0).contains(&f.weight));
            assert!(!problem.path(i).is_empty());
        }
        assert!(flows.iter().any(|f| f.src != topo.hosts()[0]));
    }
}
