//! Running a built scenario on its engine, with one flow table for every engine.

use super::models::{model_output, run_model};
use super::{EngineSpec, Scenario};
use crate::alloc::Problem;
use crate::engine::flow::{self, FlowSimConfig, FluidFlow, RateSample, WeightChange};
use crate::engine::model::ModelRun;
use crate::engine::packet::{QdiscGaugeSample, QueueRecord, QueueSample, RecordConfig};
use crate::engine::rounds::{random_matrix, RoundsOutcome};
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::ids::{FlowId, LinkId, NodeId};
use crate::metrics::{ideal_fct, reference_ideal_fct, wire_bytes};
use crate::registry::rounds::run_rounds;
use crate::registry::{HostShimKind, PacketConfig, PacketSim, TransportKind};
use crate::systems::eba::flow_level::run_flows;
use crate::systems::eba::oracle::{oracle_distance, OracleDistance};
use crate::systems::eba::vms::{EbaPacketConfig, VmPlan};
use crate::systems::uranus::flow_level::{
    absolute_deadlines, run_slices, run_slices_with_progress,
};
use crate::systems::uranus::packet_level::{PacketSliceReport, PacketSlices, SliceScheduler};
use crate::topo::routing::{PathSelector, Routing};
use crate::topo::Topology;
use crate::units::Time;
use crate::workload::hpcc::write_pfc;
use crate::workload::routed_problem;
use crate::workload::FlowSpec;
use std::path::Path;
use std::time::Instant;

/// The packet engine's horizon when the scenario sets no `stop_at`.
pub const DEFAULT_PACKET_HORIZON: Time = Time(10 * Time::S);

/// One flow's outcome, the columns every engine reports.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRow {
    /// Sender.
    pub src: NodeId,
    /// Receiver.
    pub dst: NodeId,
    /// Payload bytes.
    pub size: u64,
    /// Weight.
    pub weight: f64,
    /// Tag (job, coflow).
    pub tag: u32,
    /// Start.
    pub start: Time,
    /// End (last byte delivered), if finished.
    pub end: Option<Time>,
    /// Ideal FCT alone on the empty network ([`crate::metrics::ideal_fct`]).
    pub ideal_fct: Time,
    /// Packet engine: when the sender held the ACK of the last byte (the HPCC ns-3
    /// simulator's end of a flow), if it did; `None` for the other engines.
    pub acked_end: Option<Time>,
    /// Packet engine: the HPCC ns-3 simulator's standalone FCT
    /// ([`crate::metrics::reference_ideal_fct`]); zero for the other engines.
    pub ideal_fct_ref: Time,
    /// Rounds engine: the flow's final sending rate, bits/s.
    pub rate: Option<f64>,
    /// Rounds engine: the oracle's max-min rate, bits/s.
    pub oracle_rate: Option<f64>,
    /// The flow's deadline relative to its start, if it has one (`FlowSpec::deadline`).
    pub deadline: Option<Time>,
    /// Packet engine: payload bytes the sender sent more than once (0: the flow lost nothing,
    /// since a reliable sender resends every lost segment; a spurious timeout counts too);
    /// `None` for the other engines.
    pub retransmitted: Option<u64>,
}

impl RunRow {
    /// Whether the flow missed its deadline in a run that stopped at `run_end`
    /// ([`crate::metrics::deadline_missed`]: `None` without a deadline, or undecided).
    pub fn deadline_missed(&self, run_end: Time) -> Option<bool> {
        crate::metrics::deadline_missed(self.start, self.deadline, self.end, run_end)
    }
}

/// One link's counters over a packet-level run (the `links.parquet` table).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkRow {
    /// The link.
    pub link: LinkId,
    /// Its source node.
    pub src: NodeId,
    /// Its destination node.
    pub dst: NodeId,
    /// Capacity, bit/s.
    pub capacity_bps: f64,
    /// Bytes transmitted (headers included).
    pub tx_bytes: u64,
    /// Mean transmitted rate over the run divided by the capacity.
    pub utilization: f64,
    /// Packets dropped.
    pub drops: u64,
    /// Packets marked CE.
    pub marks: u64,
    /// Largest queue seen, bytes.
    pub max_queue_bytes: u64,
    /// Time-averaged queue, bytes.
    pub mean_queue_bytes: f64,
    /// PFC (lossless runs): pause frames the link's far end sent for it, pause frames its
    /// sending port received, and the time it had some priority paused, seconds.
    pub pfc_pauses_sent: u64,
    /// See `pfc_pauses_sent`.
    pub pfc_pauses_received: u64,
    /// See `pfc_pauses_sent`.
    pub pfc_paused_s: f64,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    /// One row per flow, in workload order.
    pub rows: Vec<RunRow>,
    /// `"flow"`, `"packet"`, `"rounds"` or `"model"`.
    pub engine: &'static str,
    /// Events processed.
    pub events: u64,
    /// Simulated time at the end.
    pub end_time: Time,
    /// Whether every flow finished.
    pub complete: bool,
    /// Wall-clock seconds of the simulation itself.
    pub wall_seconds: f64,
    /// Engine-specific counters (packet-hops, drops, marks, retransmitted bytes, and the
    /// congestion controls' own, [`crate::registry::cc::scheme_counters`]; for the rounds
    /// engine the convergence summary: `convergence_rounds`, `n1`, `n2`, `ninf`,
    /// `exceeds_6n2`, …).
    pub counters: Vec<(&'static str, f64)>,
    /// Each flow's end under the ideal weighted max-min allocation: the flow-level engine on
    /// the same flows, paths and per-packet headers ([`maxmin_reference`]). For a flow-level
    /// run this is the run itself. `None` for a flow the reference did not finish.
    pub maxmin_end: Vec<Option<Time>>,
    /// Rate samples of the active flows, if the engine was asked to record them (flow engine:
    /// `engine.rate_interval`, its allocated rate; packet engine: `engine.record`, the wire
    /// throughput over the interval, with the congestion control's sending rate).
    pub rates: Vec<RateSample>,
    /// Per-link counters (packet engine; empty for the others).
    pub links: Vec<LinkRow>,
    /// Why the run failed part-way (an engine invariant broken), if it did; the rest of the
    /// output is what existed then.
    pub failure: Option<String>,
    /// The max-min reference's rate samples on the run's sampling grid (packet runs recording
    /// flow samples; empty otherwise).
    pub maxmin_rates: Vec<RateSample>,
    /// Queue samples of the packet engine's ports (`engine.record.queues`), or a model's queue
    /// outputs.
    pub queues: Vec<QueueSample>,
    /// The packet engine's queueing-discipline gauges (`engine.record`; the disciplines that
    /// publish their own state, [`crate::engine::packet::Qdisc::gauges`]); empty otherwise.
    pub qdisc_gauges: Vec<QdiscGaugeSample>,
    /// A model run's outputs (model engine only).
    pub model: Option<ModelRun>,
    /// A lossless packet run's PFC frames in the HPCC ns-3 simulator's `pfc.txt` format
    /// ([`crate::workload::hpcc::write_pfc`]).
    pub pfc_txt: Option<String>,
}

/// Runs `flows` on `topo` with the scenario's engine.
pub fn run(s: &Scenario, topo: &Topology, flows: &[FlowSpec]) -> Result<RunOutput> {
    run_with_progress(s, topo, flows, &Progress::default())
}

/// [`run`], reporting to `progress`; a cancelled `progress` stops the engine where it is and
/// the output holds what finished (`complete` false). The max-min reference of a packet run
/// is skipped then.
pub fn run_with_progress(
    s: &Scenario,
    topo: &Topology,
    flows: &[FlowSpec],
    progress: &Progress,
) -> Result<RunOutput> {
    let t0 = Instant::now();
    let row = |f: &FlowSpec, end: Option<Time>, start: Time, ideal: Time| RunRow {
        src: f.src,
        dst: f.dst,
        size: f.size.0,
        weight: f.weight,
        tag: f.tag,
        start,
        end,
        ideal_fct: ideal,
        acked_end: None,
        ideal_fct_ref: Time::ZERO,
        rate: None,
        oracle_rate: None,
        deadline: f.deadline,
        retransmitted: None,
    };
    let changes = s.weight_schedule(flows.len())?;
    match &s.engine {
        EngineSpec::Model(spec) => Ok(model_output(run_model(s, spec, progress)?)),
        EngineSpec::Rounds(spec) => {
            // Every flow starts at once and stays (s-PERC §8.1); sizes and start times are not
            // used. Paths: the ECMP hash of the scenario's seed.
            let routing = Routing::new(topo);
            let pairs: Vec<_> = flows.iter().map(|f| (f.src, f.dst)).collect();
            let weights = flows.iter().map(|f| f.weight).collect();
            let input = routed_problem(topo, &routing, &pairs, s.seed, weights)?;
            let p = Problem::new(input).map_err(in_engine)?;
            let o = run_rounds(&p, spec, s.seed).map_err(in_engine)?;
            let rows = flows
                .iter()
                .enumerate()
                .map(|(i, f)| RunRow {
                    rate: Some(o.rates[i]),
                    oracle_rate: Some(o.oracle[i]),
                    // Flows never end in a rounds run: no deadline is met or missed.
                    deadline: None,
                    ..row(f, None, f.start, Time::ZERO)
                })
                .collect();
            Ok(rounds_output(rows, &o, t0))
        }
        EngineSpec::Flow(spec) => {
            let mut cfg = spec.sim.clone();
            cfg.stop_at = s.stop_at.or(cfg.stop_at);
            if let Some(stop_at) = cfg.stop_at {
                progress.set_horizon(stop_at);
            }
            let fluid: Vec<FluidFlow> = flows.iter().cloned().map(FluidFlow::new).collect();
            let mut counters = Vec::new();
            let r = match (&spec.eba, s.slice_set(flows)?) {
                // eBA's VM-flows under LRC, reservation or best effort (systems::eba).
                (Some(eba), _) => {
                    let (r, eba_counters) = run_eba_flows(topo, flows, eba, &cfg, progress)?;
                    counters.extend(eba_counters);
                    r
                }
                // Uranus's slices: the scheduler's weights every decision slot, each slot's
                // exact weighted max-min allocation in between (systems::uranus::flow_level).
                // Without a scheduler the flows keep their weights (SCC is refused earlier).
                (None, Some((set, slot))) if s.slice_scheduler != Some(SliceScheduler::None) => {
                    let run = run_slices_with_progress(
                        topo,
                        &fluid,
                        &absolute_deadlines(flows),
                        set.specs().to_vec(),
                        slot,
                        &cfg,
                        progress,
                    )
                    .map_err(in_engine)?;
                    counters.push(("decision_slots", run.slots as f64));
                    counters.push(("slice_weight_sum_max_error", run.max_sum_error));
                    run.sim
                }
                _ => flow::run_with_progress(topo, &fluid, &changes, &cfg, progress)
                    .map_err(in_engine)?,
            };
            counters.insert(0, ("rate_updates", r.rate_updates as f64));
            let rows: Vec<RunRow> = flows
                .iter()
                .zip(&r.flows)
                .map(|(f, rec)| row(f, rec.end, rec.start, rec.ideal_fct))
                .collect();
            let maxmin_end = rows.iter().map(|r| r.end).collect();
            Ok(RunOutput {
                rows,
                engine: "flow",
                events: r.events,
                end_time: r.end_time,
                complete: r.complete,
                wall_seconds: t0.elapsed().as_secs_f64(),
                counters,
                maxmin_end,
                rates: r.rates,
                links: Vec::new(),
                maxmin_rates: Vec::new(),
                failure: None,
                queues: Vec::new(),
                qdisc_gauges: Vec::new(),
                model: None,
                pfc_txt: None,
            })
        }
        EngineSpec::Packet(cfg) => {
            let mut cfg = cfg.clone();
            cfg.flow_transports = s.flow_transports();
            // SCC's tunnels group flows by slice: a tag's group is its slice.
            let slice_groups = s.slices.iter().enumerate();
            cfg.scc.tunnel_groups = slice_groups
                .flat_map(|(i, sl)| sl.tags.iter().map(move |&t| (t, i as u32)))
                .collect();
            // An eBA run samples its flows every τ_r for its distance from the oracle even when
            // the scenario records nothing (the samples are then not reported).
            let eba = cfg.host_shim == HostShimKind::Eba;
            let sample_for_eba = eba && !cfg.record.as_ref().is_some_and(|r| r.flows);
            let mut sim_cfg = cfg.clone();
            if sample_for_eba {
                sim_cfg.record = Some(RecordConfig {
                    interval: cfg.eba.lrc.tau_r,
                    flows: true,
                    queues: cfg.record.as_ref().map_or(QueueRecord::None, |r| r.queues),
                });
            }
            let mut sim = PacketSim::from_config(topo, flows, sim_cfg).map_err(in_engine)?;
            for (i, c) in changes.iter().enumerate() {
                sim.schedule_weight(c.time, FlowId(c.flow), c.weight)
                    .map_err(|e| Error::invalid(format!("weight_changes[{i}]"), e.to_string()))?;
            }
            // A broken engine invariant fails the run, but what it computed is still written
            // (DESIGN.md: nothing already computed is lost), marked as failed.
            let horizon = s.stop_at.unwrap_or(DEFAULT_PACKET_HORIZON);
            progress.set_horizon(horizon);
            // The ideal FCT and the max-min reference use the path the engine takes (with
            // spraying there is none: the ideal takes the first shortest path, which in
            // symmetric fabrics gives the same ideal, and there is no reference).
            let routing = Routing::new(topo);
            let mut paths = Vec::with_capacity(flows.len());
            for (i, f) in flows.iter().enumerate() {
                let sel = cfg.routing.data_selector(cfg.seed, i as u64);
                paths.push(routing.path(f.src, f.dst, sel.unwrap_or(PathSelector::First))?);
            }
            let slices = s.slice_set(flows)?;
            let mut slice_counters = Vec::new();
            let outcome = match &slices {
                // Uranus's slices: the scheduler sets every flow's weight each decision slot
                // and the hosts' shims (WVCC) enforce it (systems::uranus::packet_level).
                Some((set, slot)) => {
                    let mut driver = PacketSlices::new(
                        topo,
                        flows,
                        &absolute_deadlines(flows),
                        &paths,
                        set.clone(),
                        *slot,
                        cfg.mtu.0,
                        cfg.header.0,
                    )?
                    .with_scheduler(s.slice_scheduler.unwrap_or_default());
                    let r = driver.run(&mut sim, horizon, progress);
                    slice_counters = packet_slice_counters(&driver.report());
                    r
                }
                None => sim.run_to_completion_with_progress(horizon, progress),
            };
            let (r, failure) = match outcome {
                Ok(r) => (r, None),
                Err(e) => (sim.records(), Some(e.to_string())),
            };
            let mut rows = Vec::with_capacity(flows.len());
            for ((f, rec), path) in flows.iter().zip(&r.flows).zip(&paths) {
                let wire = wire_bytes(f.size, cfg.mtu.0, cfg.header.0);
                let ideal = ideal_fct(topo, path, wire, Time::ZERO);
                rows.push(RunRow {
                    acked_end: rec.acked,
                    ideal_fct_ref: reference_ideal_fct(topo, path, wire, cfg.mtu.0),
                    retransmitted: Some(rec.bytes_retransmitted),
                    ..row(f, rec.end, rec.start, ideal)
                });
            }
            let wall_seconds = t0.elapsed().as_secs_f64();
            let samples: Vec<RateSample> = sim
                .flow_samples()
                .iter()
                .map(|x| RateSample {
                    time: x.time,
                    flow: x.flow.0,
                    rate: x.throughput,
                    send_rate: x.send_rate,
                })
                .collect();
            let eba_counters = if eba {
                packet_eba_counters(topo, flows, &cfg, &rows, &paths, &samples)?
            } else {
                Vec::new()
            };
            let reference = FlowSimConfig {
                header_bytes: cfg.header.0,
                mtu: cfg.mtu.0,
                ..FlowSimConfig::default()
            };
            // With flow samples recorded, a second reference run samples its rates on the same
            // grid up to the run's end (for the convergence time of summary.json); the first
            // runs to completion for the max-min FCTs (long flows may take far longer than the
            // run, and sampling all that time would be wasted).
            let sampled = FlowSimConfig {
                rate_interval: cfg.record.as_ref().filter(|r| r.flows).map(|r| r.interval),
                stop_at: Some(r.now),
                ..reference.clone()
            };
            let (maxmin_end, maxmin_rates) = match cfg.routing.data_selector(0, 0) {
                // With slices the reference is Uranus's own target: the flow-level run of the
                // same scheduler on the same paths (ends only); under SCC too, as the ideal
                // both schedulers are compared with. Without a scheduler, plain max-min.
                Some(_)
                    if !progress.is_cancelled()
                        && slices.is_some()
                        && s.slice_scheduler != Some(SliceScheduler::None) =>
                {
                    let (set, slot) = slices.as_ref().expect("matched");
                    let mut fluid: Vec<FluidFlow> =
                        flows.iter().cloned().map(FluidFlow::new).collect();
                    for (f, p) in fluid.iter_mut().zip(paths) {
                        f.path = Some(p);
                    }
                    let run = run_slices(
                        topo,
                        &fluid,
                        &absolute_deadlines(flows),
                        set.specs().to_vec(),
                        *slot,
                        &reference,
                    )
                    .map_err(in_engine)?;
                    (run.sim.flows.iter().map(|f| f.end).collect(), Vec::new())
                }
                Some(_) if !progress.is_cancelled() => {
                    let m =
                        maxmin_reference(topo, flows, Some(paths.clone()), &changes, &reference)?;
                    let rates = match sampled.rate_interval {
                        Some(_) => {
                            maxmin_reference(topo, flows, Some(paths), &changes, &sampled)?.rates
                        }
                        None => Vec::new(),
                    };
                    (m.end, rates)
                }
                _ => (vec![None; flows.len()], Vec::new()),
            };
            let secs = r.now.as_secs_f64();
            let links = r
                .links
                .iter()
                .map(|l| {
                    let spec = topo.link(l.link);
                    let cap = spec.capacity.bps();
                    LinkRow {
                        link: l.link,
                        src: spec.src,
                        dst: spec.dst,
                        capacity_bps: cap,
                        tx_bytes: l.tx_bytes,
                        utilization: if secs > 0.0 {
                            l.tx_bytes as f64 * 8.0 / secs / cap
                        } else {
                            0.0
                        },
                        drops: l.drops,
                        marks: l.marks,
                        max_queue_bytes: l.max_queue_bytes,
                        mean_queue_bytes: if r.now.0 > 0 {
                            l.queue_integral as f64 / r.now.0 as f64
                        } else {
                            0.0
                        },
                        pfc_pauses_sent: l.pfc_pauses_sent,
                        pfc_pauses_received: l.pfc_pauses_received,
                        pfc_paused_s: l.pfc_paused_time.as_secs_f64(),
                    }
                })
                .collect();
            let drops: u64 = r.links.iter().map(|l| l.drops).sum();
            let marks: u64 = r.links.iter().map(|l| l.marks).sum();
            let retx: u64 = r.flows.iter().map(|f| f.bytes_retransmitted).sum();
            let mut counters = vec![
                ("data_packet_hops", r.data_packet_hops as f64),
                ("drops", drops as f64),
                ("ecn_marks", marks as f64),
                ("bytes_retransmitted", retx as f64),
            ];
            counters.extend(crate::registry::cc::scheme_counters(&sim, flows.len()));
            counters.extend(slice_counters);
            counters.extend(eba_counters);
            Ok(RunOutput {
                rows,
                engine: "packet",
                events: r.events,
                end_time: r.now,
                complete: r.complete && failure.is_none(),
                wall_seconds,
                counters,
                maxmin_end,
                rates: if sample_for_eba { Vec::new() } else { samples },
                queues: sim.queue_samples().to_vec(),
                qdisc_gauges: sim.qdisc_gauge_samples().to_vec(),
                links,
                maxmin_rates,
                failure,
                model: None,
                pfc_txt: cfg.lossless.then(|| {
                    write_pfc(topo, r.pfc_frames.iter().map(|f| (f.time, f.link, f.pause)))
                }),
            })
        }
    }
}

/// Named run counters (`RunOutput::counters`).
type Counters = Vec<(&'static str, f64)>;

/// eBA at flow level from a scenario ([`run_flows`]): the engine's results and eBA's counters
/// (updates made, the distance from the oracle the run measured:
/// [`crate::systems::eba::flow_level::FlowLevelRun::oracle`]).
fn run_eba_flows(
    topo: &Topology,
    flows: &[FlowSpec],
    eba: &EbaPacketConfig,
    cfg: &FlowSimConfig,
    progress: &Progress,
) -> Result<(flow::FlowSimResults, Counters)> {
    let run = run_flows(topo, flows, eba, cfg, progress).map_err(in_engine)?;
    let mut counters = vec![
        ("eba_vm_updates", run.vm_updates as f64),
        ("eba_link_updates", run.link_updates as f64),
    ];
    counters.extend(OracleDistance::counters(run.oracle.as_ref()));
    Ok((run.sim, counters))
}

/// A packet run's eBA counters: its VM-flows' distance from the oracle ([`oracle_distance`];
/// a constant-rate flow wants its `udp_rate`, the others are backlogged).
fn packet_eba_counters(
    topo: &Topology,
    flows: &[FlowSpec],
    cfg: &PacketConfig,
    rows: &[RunRow],
    paths: &[Vec<LinkId>],
    samples: &[RateSample],
) -> Result<Counters> {
    let plan = VmPlan::new(&cfg.eba, topo, flows)?;
    let ends: Vec<Option<Time>> = rows.iter().map(|r| r.end).collect();
    let paths: Vec<Vec<u32>> = paths
        .iter()
        .map(|p| p.iter().map(|l| l.0).collect())
        .collect();
    let demands: Vec<f64> = (0..flows.len())
        .map(|i| match cfg.flow_transports.get(i).copied().flatten() {
            Some(t) if t.kind == TransportKind::Udp => {
                let line = topo.link(topo.out_links(flows[i].src)[0]).capacity;
                t.udp_rate.or(cfg.udp_rate).unwrap_or(line).bps()
            }
            _ => f64::INFINITY,
        })
        .collect();
    let starts: Vec<Time> = flows.iter().map(|f| f.start).collect();
    let d = oracle_distance(
        topo,
        plan.table.borrow().placement(),
        &plan.vm_pair_of_flows(),
        cfg.eba.lrc.mu,
        &starts,
        &ends,
        &paths,
        &demands,
        samples,
    );
    Ok(OracleDistance::counters(d.as_ref()))
}

/// The counters of a packet run driven by Uranus's slices (NaN where nothing was measured).
fn packet_slice_counters(r: &PacketSliceReport) -> Vec<(&'static str, f64)> {
    vec![
        ("decision_slots", r.slots as f64),
        ("slice_weight_sum_max_error", r.max_sum_error),
        ("target_measured_slots", r.measured_slots as f64),
        ("target_jain_mean", r.target_jain_mean.unwrap_or(f64::NAN)),
        (
            "target_rel_error_mean",
            r.target_rel_error_mean.unwrap_or(f64::NAN),
        ),
    ]
}

/// Each flow's end under the ideal weighted max-min allocation: the flow-level engine on the
/// same flows (on `paths` if given, else by its ECMP hash) and weight `changes` with `cfg`
/// (which should carry the
/// compared run's MTU and header size, so the bytes on the wire match), run to completion.
/// The fairness metrics of `summary.json` and s-PERC's "ideal max-min" FCT reference (§7.2)
/// compare against it.
pub fn maxmin_reference(
    topo: &Topology,
    flows: &[FlowSpec],
    paths: Option<Vec<Vec<LinkId>>>,
    changes: &[WeightChange],
    cfg: &FlowSimConfig,
) -> Result<MaxminReference> {
    let mut fluid: Vec<FluidFlow> = flows.iter().cloned().map(FluidFlow::new).collect();
    if let Some(paths) = paths {
        for (f, p) in fluid.iter_mut().zip(paths) {
            f.path = Some(p);
        }
    }
    let r = flow::run(topo, &fluid, changes, cfg).map_err(in_engine)?;
    Ok(MaxminReference {
        end: r.flows.iter().map(|f| f.end).collect(),
        rates: r.rates,
    })
}

/// What [`maxmin_reference`] computes.
#[derive(Clone, Debug, PartialEq)]
pub struct MaxminReference {
    /// Each flow's end (`None` if it did not finish).
    pub end: Vec<Option<Time>>,
    /// The active flows' max-min rates at every `rate_interval` of its configuration.
    pub rates: Vec<RateSample>,
}

/// Runs a scenario whose network is an abstract `[matrix]` (rounds engine only). Rows have no
/// endpoints, sizes or times: `src = dst = 0`, `size = 0`.
pub fn run_matrix(s: &Scenario) -> Result<RunOutput> {
    let t0 = Instant::now();
    let (Some(m), EngineSpec::Rounds(spec)) = (&s.matrix, &s.engine) else {
        return Err(Error::invalid(
            "matrix",
            "an abstract routing matrix runs only on engine.kind = \"rounds\"",
        ));
    };
    let p = random_matrix(m, s.seed)?;
    let o = run_rounds(&p, spec, s.seed)?;
    let rows = (0..p.num_flows())
        .map(|i| RunRow {
            src: NodeId(0),
            dst: NodeId(0),
            size: 0,
            weight: 1.0,
            tag: 0,
            start: Time::ZERO,
            end: None,
            ideal_fct: Time::ZERO,
            acked_end: None,
            ideal_fct_ref: Time::ZERO,
            rate: Some(o.rates[i]),
            oracle_rate: Some(o.oracle[i]),
            deadline: None,
            retransmitted: None,
        })
        .collect();
    Ok(rounds_output(rows, &o, t0))
}

/// Builds and runs any scenario: a `[matrix]` one, or topology + workload on its engine,
/// reporting to `progress` (see [`run_with_progress`]).
pub fn run_built(s: &Scenario, base_dir: &Path, progress: &Progress) -> Result<RunOutput> {
    if let EngineSpec::Model(spec) = &s.engine {
        return Ok(model_output(run_model(s, spec, progress)?));
    }
    if s.matrix.is_some() {
        return run_matrix(s);
    }
    let (topo, flows) = s.build(base_dir)?;
    run_with_progress(s, &topo, &flows, progress)
}

fn rounds_output(rows: Vec<RunRow>, o: &RoundsOutcome, t0: Instant) -> RunOutput {
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    RunOutput {
        rows,
        engine: "rounds",
        events: o.updates,
        end_time: Time((o.rounds_run * o.round.0 as f64) as u64),
        complete: o.converged,
        wall_seconds: t0.elapsed().as_secs_f64(),
        counters: vec![
            ("converged", flag(o.converged)),
            (
                "convergence_rounds",
                o.convergence_rounds.unwrap_or(f64::NAN),
            ),
            (
                "rate_convergence_rounds",
                o.rate_convergence_rounds.unwrap_or(f64::NAN),
            ),
            ("reference_round", o.reference_round),
            ("rounds_run", o.rounds_run),
            ("round_seconds", o.round.as_secs_f64()),
            ("mean_rtt_seconds", o.mean_rtt.as_secs_f64()),
            ("n1", f64::from(o.n1)),
            ("n2", f64::from(o.n2)),
            ("ninf", f64::from(o.ninf)),
            ("bound_6n2", f64::from(6 * o.n2)),
            ("exceeds_6n2", flag(o.exceeds_6n2)),
            ("bound_4n1", f64::from(4 * o.n1)),
            ("exceeds_4n1", flag(o.exceeds_4n1)),
            ("max_rel_error", o.max_rel_error),
            ("updates", o.updates as f64),
            ("drops", o.drops as f64),
        ],
        maxmin_end: vec![None; o.rates.len()],
        rates: Vec::new(),
        links: Vec::new(),
        maxmin_rates: Vec::new(),
        failure: None,
        queues: Vec::new(),
        qdisc_gauges: Vec::new(),
        model: None,
        pfc_txt: None,
    }
}

fn in_engine(e: Error) -> Error {
    match e {
        Error::Invalid { at, msg } if at.starts_with("flows[") => {
            Error::invalid(format!("workload: {at}"), msg)
        }
        other => other,
    }
}
