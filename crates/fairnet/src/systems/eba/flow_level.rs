//! eBA at flow level (issue 23; §VII-C's own VM-level simulator, Fig. 14): the logistic rate
//! controller of Algorithm 2 in fluid form on the flow engine, and the two baselines the paper
//! compares it with on the same engine.
//!
//! The flow engine gives every flow its exact max-min fair rate under its rate cap (the ideal
//! of per-flow fair TCP); eBA's part is the caps. A *VM-flow* is all traffic from VM `x` to VM
//! `y` (§II-A); its flows all take the VM pair's path (§VI-C: per-VM-pair ECMP), and its rate
//! limiter caps their sum:
//!
//! - **LRC** ([`Control::Lrc`]). Every τ_v (Algorithm 2 lines 1–10) a VM-flow takes the
//!   smallest rate factor on its path (the forward control packet, lines 21–24) and updates
//!   `v ← v^(1−ατ_v) · (w · min r_l)^(ατ_v)` (line 7, Eq. 15; [`super::model::rate_step`] and
//!   [`super::model::objective`]); its limit is `max(B, v)` (line 8, Eq. 16). Every τ_r
//!   (lines 15–20) each link measures the rate it received over the interval and updates
//!   `r ← min(C, r · exp(βΔt (1 − V/(μC))))` (line 18 with μ of §VI-B and the cap of Eq. 17;
//!   [`super::model::factor_step`]); below `idle_utilization` the next update comes after
//!   `τ_r/ν` (idle relaxation, §VI-B; [`super::config::relaxed_period`]). Uniform increase
//!   (§VI-B) is [`LrcConfig::with_uniform_increase`]. Weights and guarantees are Eqs. (1)–(2),
//!   kept current by Algorithm 1 ([`GuaranteeTable`]) as VM-flows open (their first flow
//!   arrives) and close (their last flow ends).
//! - **Reservation** ([`Control::Reservation`], Oktopus): each VM-flow limited to its
//!   guarantee `B` (Eq. 2).
//! - **Best effort** ([`Control::BestEffort`]): no limiter, per-flow max-min (TCP's ideal).
//!
//! Choices (also in `docs/systems/eba.md`):
//! - **When.** The engine calls the controller on a grid of `gcd(τ_v, τ_r)`. VM-flows update
//!   at the multiples of τ_v after time 0 (all on one grid, not each from its own opening: a
//!   new VM-flow's first update comes within τ_v); links update at the first grid point at or
//!   after they are due, with the real elapsed time in place of τ_r (as the packet-level port
//!   does, [`super::agent`]). At an instant where both are due the VM-flows update first, from
//!   the rate factors of the interval that just ended (a control packet crosses the network in
//!   µs; Eq. (15)'s `τ_d = 0`): with τ_v = τ_r this is exactly the recursion of
//!   [`super::model::LrcRecursion`] (tested).
//! - **Feedback delay** ([`FlowLevelConfig::feedback_delay`], off by default as in Eq. 15):
//!   a VM-flow's update reads the rate factors in force one round trip of its path earlier
//!   (the return path taken to have the forward path's delays).
//! - **What a link measures** is the rate it carried over the interval (the engine's bits
//!   carried), so it never exceeds `C`: where Eq. (15)'s load `Σ max(B, v)` overshoots the
//!   link, the fluid link (like a real one) carries `C` and the flows share it max-min.
//! - **A new VM-flow** starts at `v = initial_rate` (the paper does not say; the model's
//!   `v(0)`), so its limit is `max(B, initial_rate)` until its first update.
//! - **The distance from the oracle** ([`FlowLevelRun::oracle`], [`super::oracle`]): every
//!   run samples its flows' allocated rates every τ_r (the rate over the τ_r that just ended,
//!   read before that instant's caps change), keeping only the samples since the last
//!   arrival or departure (and the stretch before, in case the last has none), so a long run
//!   holds no more than two stretches of samples. Reservation and best effort get the same
//!   τ_r grid; it changes none of their rates.
//! - **Several flows in one VM-flow** share its limit max-min (equally, unless a flow's own
//!   demand is lower): they cross the same links with the same weight, so that is their exact
//!   share of the limit, not an approximation. A VM-flow's flows have weight 1 in the engine (TCP); the VM-flow's weight
//!   acts only through LRC, as in the paper.

use super::config::{relaxed_period, LrcConfig};
use super::guarantee::{GuaranteeTable, Placement, VmFlow};
use super::model::{factor_step, objective, rate_step};
use super::oracle::{oracle_distance, OracleDistance};
use super::vms::{EbaPacketConfig, RateControl, VmPlan};
use crate::engine::flow::{
    run_with, ActiveFlow, FlowSimConfig, FlowSimResults, FluidFlow, LinkLoad, RateSample,
    WeightPolicy,
};
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::ids::NodeId;
use crate::topo::routing::{PathSelector, Routing};
use crate::topo::Topology;
use crate::units::{Bytes, Time};
use crate::workload::FlowSpec;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// How VM-flows are rate-limited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Control {
    /// eBA's logistic rate controller (Algorithm 2).
    Lrc,
    /// Static reservation (Oktopus): each VM-flow limited to its guarantee (Eq. 2).
    Reservation,
    /// No limiter: per-flow max-min (TCP's ideal).
    BestEffort,
}

/// The flow-level controller's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowLevelConfig {
    /// Which control.
    pub control: Control,
    /// LRC's parameters (§VI, §VII-C defaults).
    pub lrc: LrcConfig,
    /// `v` of a VM-flow when it opens, bits/s (default 1 Mb/s, as the model `eba_lrc`'s
    /// `initial_rate`; Proposition 1 assumes a start well below C).
    pub initial_rate: f64,
    /// Seed of the per-VM-pair ECMP hash (§VI-C). Default 0.
    pub ecmp_seed: u64,
    /// Whether a VM-flow's update reads the rate factors as they were one round trip of its
    /// path earlier (the control packet's trip, Algorithm 2 lines 2–7: sent, stamped on the
    /// way, applied on return). Default false: Eq. (15)'s τ_d = 0, right when the round trip
    /// is small beside τ_v (the paper's 50 ms); at datacenter speeds with τ_v near the round
    /// trip it is not.
    pub feedback_delay: bool,
}

impl Default for FlowLevelConfig {
    fn default() -> Self {
        FlowLevelConfig {
            control: Control::Lrc,
            lrc: LrcConfig::default(),
            initial_rate: 1e6,
            ecmp_seed: 0,
            feedback_delay: false,
        }
    }
}

/// One transfer between two VMs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VmTransfer {
    /// Sending VM (index into [`Placement::vms`]).
    pub src_vm: usize,
    /// Receiving VM.
    pub dst_vm: usize,
    /// Payload bytes.
    pub size: Bytes,
    /// When it starts.
    pub start: Time,
    /// Group tag (a job: its completion is the shuffle time).
    pub tag: u32,
    /// The sender's own rate cap, bits/s (an application sending at a fixed rate, Fig. 9's
    /// UDP); `None`: backlogged.
    pub demand: Option<f64>,
}

/// The outcome of a flow-level run.
#[derive(Clone, Debug)]
pub struct FlowLevelRun {
    /// The flow engine's results, one flow per transfer in input order.
    pub sim: FlowSimResults,
    /// The path (link ids) of each transfer.
    pub paths: Vec<Vec<u32>>,
    /// VM-flow rate updates made (Algorithm 2 line 7).
    pub vm_updates: u64,
    /// Link rate-factor updates made (line 18).
    pub link_updates: u64,
    /// Every VM-flow's weight and guarantee when it last opened or changed, by VM pair
    /// (Algorithm 1's table; a closed VM-flow keeps its last values here).
    pub vm_flows: BTreeMap<(usize, usize), VmFlow>,
    /// The VM-flows' distance from the oracle's allocation with guarantees over the run's
    /// last settled stretch ([`super::oracle`], sampled every τ_r; module doc), `None` when
    /// no VM-flow was open over a sampled window.
    pub oracle: Option<OracleDistance>,
}

/// The rate samples the distance from the oracle reads: every active flow's allocated rate
/// every τ_r, of the last stretch without arrivals or departures that has any (the stretch
/// [`oracle_distance`] compares). Older stretches are dropped as the run goes.
struct StretchSamples {
    /// The sampling period τ_r, picoseconds.
    every: u64,
    /// Samples since the last arrival or departure.
    current: Vec<RateSample>,
    /// The samples of the last earlier stretch that had any.
    previous: Vec<RateSample>,
}

impl StretchSamples {
    /// A flow arrived or departed: a new stretch begins.
    fn changed(&mut self) {
        if !self.current.is_empty() {
            self.previous = std::mem::take(&mut self.current);
        }
    }

    /// At a multiple of τ_r, records the rate each active flow had since the last event.
    fn sample(&mut self, now: Time, active: &[ActiveFlow]) {
        if now.0 % self.every != 0 {
            return;
        }
        self.current.extend(active.iter().map(|a| RateSample {
            time: now,
            flow: a.flow,
            rate: a.rate,
            send_rate: None,
        }));
    }

    /// Every kept sample, oldest first.
    fn into_samples(mut self) -> Vec<RateSample> {
        self.previous.append(&mut self.current);
        self.previous
    }
}

/// An open VM-flow's controller state.
struct Pair {
    v: f64,
    weight: f64,
    guarantee: f64,
    path: Vec<u32>,
    /// Its path's round trip (zero without `feedback_delay`).
    rtt: Time,
    /// Its active flows (engine indices).
    flows: Vec<u32>,
}

/// A link's rate factor (Algorithm 2 lines 15–20).
struct Factor {
    r: f64,
    capacity: f64,
    last: Time,
    last_bits: f64,
    due: Time,
    /// The values `r` took and since when, oldest first, back to the one in force one
    /// longest round trip ago (for `feedback_delay`).
    past: VecDeque<(Time, f64)>,
}

impl Factor {
    /// The rate factor in force at `t` (its value at time 0, `C`, before any update).
    fn at(&self, t: Time) -> f64 {
        self.past
            .iter()
            .rev()
            .find(|&&(since, _)| since <= t)
            .map_or(self.capacity, |&(_, r)| r)
    }
}

/// The [`WeightPolicy`] that sets the VM-flows' rate limits.
struct Controller<'a> {
    cfg: &'a FlowLevelConfig,
    transfers: &'a [VmTransfer],
    paths: &'a [Vec<u32>],
    table: GuaranteeTable,
    pairs: BTreeMap<(usize, usize), Pair>,
    links: Vec<Factor>,
    slot: Time,
    /// Round trip of every transfer's path (zero without `feedback_delay`).
    rtts: Vec<Time>,
    /// The longest of them.
    max_rtt: Time,
    vm_updates: u64,
    link_updates: u64,
    history: BTreeMap<(usize, usize), VmFlow>,
    /// Samples for the distance from the oracle.
    stretch: StretchSamples,
    error: Option<Error>,
}

impl Controller<'_> {
    /// The limit of a VM-flow: `max(B, v)` (Eq. 16) or, reserved, `B`.
    fn limit(&self, p: &Pair) -> f64 {
        match self.cfg.control {
            Control::Lrc => p.guarantee.max(p.v),
            Control::Reservation | Control::BestEffort => p.guarantee,
        }
    }

    /// Caps every active flow of the VM-flow `key` at its max-min share of the limit.
    fn cap_pair(&self, key: (usize, usize), cap: &mut dyn FnMut(u32, f64)) {
        let Some(p) = self.pairs.get(&key) else {
            return;
        };
        let demand = |f: u32| self.transfers[f as usize].demand.unwrap_or(f64::INFINITY);
        let mut flows = p.flows.clone();
        flows.sort_by(|&a, &b| demand(a).total_cmp(&demand(b)));
        let mut left = self.limit(p);
        for (k, &f) in flows.iter().enumerate() {
            let share = (left / (flows.len() - k) as f64).min(demand(f));
            left -= share;
            cap(f, share.max(f64::MIN_POSITIVE));
        }
    }

    /// Algorithm 1's updates: new weights and guarantees of the VM-flows it recomputed.
    fn apply(&mut self, changed: Vec<VmFlow>, touched: &mut Vec<(usize, usize)>) {
        for f in changed {
            let key = (f.src, f.dst);
            self.history.insert(key, f);
            if let Some(p) = self.pairs.get_mut(&key) {
                p.weight = f.weight;
                p.guarantee = f.guarantee;
            }
            touched.push(key);
        }
    }
}

impl WeightPolicy for Controller<'_> {
    fn on_instant(&mut self, _: Time, _: &[u32], _: &[u32], _: &mut dyn FnMut(u32, f64)) {}

    /// LRC's grid of `gcd(τ_v, τ_r)`; τ_r for reservation and best effort (samples only).
    fn slot(&self) -> Option<Time> {
        Some(self.slot)
    }

    fn sets_caps(&self) -> bool {
        true
    }

    /// VM-flows open with their first flow and close with their last (Algorithm 1); every
    /// VM-flow whose flow set, weight or guarantee changed gets its flows' caps anew.
    fn caps_on_instant(
        &mut self,
        _: Time,
        arrived: &[u32],
        departed: &[u32],
        cap: &mut dyn FnMut(u32, f64),
    ) {
        self.stretch.changed();
        let mut touched = Vec::new();
        for &f in departed {
            let t = self.transfers[f as usize];
            let key = (t.src_vm, t.dst_vm);
            let Some(p) = self.pairs.get_mut(&key) else {
                continue;
            };
            p.flows.retain(|&g| g != f);
            if p.flows.is_empty() {
                self.pairs.remove(&key);
                match self.table.close(key.0, key.1) {
                    Ok(changed) => self.apply(changed, &mut touched),
                    Err(e) => {
                        self.error.get_or_insert(e);
                    }
                }
            } else {
                touched.push(key);
            }
        }
        for &f in arrived {
            let t = self.transfers[f as usize];
            let key = (t.src_vm, t.dst_vm);
            if let Some(p) = self.pairs.get_mut(&key) {
                p.flows.push(f);
                touched.push(key);
                continue;
            }
            self.pairs.insert(
                key,
                Pair {
                    v: self.cfg.initial_rate,
                    weight: 0.0,
                    guarantee: 0.0,
                    path: self.paths[f as usize].clone(),
                    rtt: self.rtts[f as usize],
                    flows: vec![f],
                },
            );
            match self.table.connect(key.0, key.1) {
                Ok(changed) => self.apply(changed, &mut touched),
                Err(e) => {
                    self.error.get_or_insert(e);
                }
            }
        }
        if self.cfg.control == Control::BestEffort {
            return;
        }
        touched.sort_unstable();
        touched.dedup();
        for key in touched {
            self.cap_pair(key, cap);
        }
    }

    /// The rate samples of the distance from the oracle, every τ_r; then, under LRC, Algorithm
    /// 2 in fluid form: VM-flows every τ_v (line 7), then links when due (line 18).
    fn caps_on_slot(
        &mut self,
        now: Time,
        active: &[ActiveFlow],
        links: &[LinkLoad],
        cap: &mut dyn FnMut(u32, f64),
    ) {
        self.stretch.sample(now, active);
        if self.cfg.control != Control::Lrc {
            return;
        }
        let lrc = &self.cfg.lrc;
        if now > Time::ZERO && now.0 % lrc.tau_v.0 == 0 {
            let a_tau = lrc.alpha * lrc.tau_v.as_secs_f64();
            let factors = &self.links;
            let capacities: Vec<f64> = factors.iter().map(|f| f.capacity).collect();
            for p in self.pairs.values_mut() {
                let seen = now.0.saturating_sub(p.rtt.0);
                let target = objective(p.weight, &p.path, &capacities, |l| {
                    if p.rtt == Time::ZERO {
                        factors[l].r
                    } else {
                        factors[l].at(Time(seen))
                    }
                });
                p.v = rate_step(p.v, target, a_tau);
                self.vm_updates += 1;
            }
            let keys: Vec<(usize, usize)> = self.pairs.keys().copied().collect();
            for key in keys {
                self.cap_pair(key, cap);
            }
        }
        for (f, load) in self.links.iter_mut().zip(links) {
            if now < f.due {
                continue;
            }
            if now > f.last {
                let dt = (now - f.last).as_secs_f64();
                let v = (load.carried_bits - f.last_bits) / dt;
                f.r = factor_step(f.r, f.capacity, lrc.beta * dt, v, lrc.mu);
                let period = relaxed_period(
                    lrc.tau_r.0,
                    lrc.idle_relaxation,
                    lrc.idle_utilization,
                    v / f.capacity,
                );
                f.due = now + Time(period);
                self.link_updates += 1;
                if self.max_rtt > Time::ZERO {
                    f.past.push_back((now, f.r));
                    let horizon = Time(now.0.saturating_sub(self.max_rtt.0));
                    while f.past.len() > 1 && f.past[1].0 <= horizon {
                        f.past.pop_front();
                    }
                }
            } else {
                f.due = now + lrc.tau_r;
            }
            f.last = now;
            f.last_bits = load.carried_bits;
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Runs `transfers` between the VMs of `placement` on `topo` under `cfg.control`. Every
/// transfer's path is its VM pair's (per-VM-pair ECMP, §VI-C). Errors, before anything runs,
/// name the transfer (`transfers[i]`) or the field (`eba.alpha`, …).
pub fn run(
    topo: &Topology,
    placement: &Placement,
    transfers: &[VmTransfer],
    cfg: &FlowLevelConfig,
    sim: &FlowSimConfig,
    progress: &Progress,
) -> Result<FlowLevelRun> {
    cfg.lrc.validate("eba")?;
    if !(cfg.initial_rate > 0.0 && cfg.initial_rate.is_finite()) {
        return Err(Error::invalid(
            "eba.initial_rate",
            format!("must be positive, got {}", cfg.initial_rate),
        ));
    }
    let vms = placement.vms();
    let routing = Routing::new(topo);
    let mut flows = Vec::with_capacity(transfers.len());
    let mut paths = Vec::with_capacity(transfers.len());
    let mut route = Vec::new();
    for (i, t) in transfers.iter().enumerate() {
        let at = format!("transfers[{i}]");
        let (Some(x), Some(y)) = (vms.get(t.src_vm), vms.get(t.dst_vm)) else {
            return Err(Error::invalid(
                at,
                format!(
                    "no VM {} or {} (there are {})",
                    t.src_vm,
                    t.dst_vm,
                    vms.len()
                ),
            ));
        };
        if x.host == y.host {
            return Err(Error::invalid(
                at,
                format!(
                    "VMs {:?} and {:?} are on the same host {}: their traffic never enters the \
                     network",
                    x.name, y.name, x.host
                ),
            ));
        }
        if cfg.control == Control::Reservation {
            if let Some(vm) = [x, y].into_iter().find(|v| v.guarantee <= 0.0) {
                return Err(Error::invalid(
                    format!("vm {:?}.guarantee", vm.name),
                    "reservation limits each VM-flow to its guarantee, which must be positive",
                ));
            }
        }
        let (src, dst) = (NodeId(x.host), NodeId(y.host));
        route.clear();
        routing
            .path_into(
                src,
                dst,
                PathSelector::FlowHash {
                    seed: cfg.ecmp_seed,
                    flow: (t.src_vm as u64) << 32 | t.dst_vm as u64,
                },
                &mut route,
            )
            .map_err(|e| Error::invalid(at.clone(), e.to_string()))?;
        let mut spec = FlowSpec::new(src, dst, t.size, t.start);
        spec.tag = t.tag;
        let mut flow = FluidFlow::new(spec);
        flow.path = Some(route.clone());
        if let Some(d) = t.demand {
            if d.is_nan() || d <= 0.0 {
                return Err(Error::invalid(
                    at,
                    format!("demand must be positive, got {d}"),
                ));
            }
            flow.demand = Some(d);
        }
        flows.push(flow);
        paths.push(route.iter().map(|l| l.0).collect::<Vec<u32>>());
    }
    let rtts: Vec<Time> = paths
        .iter()
        .map(|p| {
            let one_way: u64 = p.iter().map(|&l| topo.links()[l as usize].delay.0).sum();
            Time(if cfg.feedback_delay { 2 * one_way } else { 0 })
        })
        .collect();
    let max_rtt = rtts.iter().copied().max().unwrap_or(Time::ZERO);
    let lrc = &cfg.lrc;
    let mut ctl = Controller {
        cfg,
        transfers,
        paths: &paths,
        table: GuaranteeTable::new(placement.clone()),
        pairs: BTreeMap::new(),
        links: topo
            .links()
            .iter()
            .map(|l| Factor {
                r: l.capacity.bps(),
                capacity: l.capacity.bps(),
                last: Time::ZERO,
                last_bits: 0.0,
                due: Time::ZERO,
                past: VecDeque::new(),
            })
            .collect(),
        slot: match cfg.control {
            Control::Lrc => Time(gcd(lrc.tau_v.0, lrc.tau_r.0)),
            Control::Reservation | Control::BestEffort => lrc.tau_r,
        },
        rtts,
        max_rtt,
        vm_updates: 0,
        link_updates: 0,
        history: BTreeMap::new(),
        stretch: StretchSamples {
            every: lrc.tau_r.0,
            current: Vec::new(),
            previous: Vec::new(),
        },
        error: None,
    };
    let out = run_with(topo, &flows, &[], sim, progress, Some(&mut ctl))?;
    if let Some(e) = ctl.error {
        return Err(e);
    }
    let (vm_updates, link_updates, vm_flows) = (ctl.vm_updates, ctl.link_updates, ctl.history);
    let vm_pair_of: Vec<(usize, usize)> = transfers.iter().map(|t| (t.src_vm, t.dst_vm)).collect();
    let starts: Vec<Time> = transfers.iter().map(|t| t.start).collect();
    let ends: Vec<Option<Time>> = out.flows.iter().map(|f| f.end).collect();
    let demands: Vec<f64> = transfers
        .iter()
        .map(|t| t.demand.unwrap_or(f64::INFINITY))
        .collect();
    let oracle = oracle_distance(
        topo,
        placement,
        &vm_pair_of,
        cfg.lrc.mu,
        &starts,
        &ends,
        &paths,
        &demands,
        &ctl.stretch.into_samples(),
    );
    Ok(FlowLevelRun {
        sim: out,
        paths,
        vm_updates,
        link_updates,
        vm_flows,
        oracle,
    })
}

/// A scenario's flows as VM-flows under eBA at flow level (`engine.kind = "flow"` with
/// `[engine.eba]`): the VMs of `eba.vms` are placed on `topo` and every flow belongs to its
/// tenant's (its `tag`'s) VMs on its two hosts, exactly as at packet level
/// ([`super::vms::VmPlan`]); `eba.rate_control` picks LRC, reservation or best effort
/// (ElasticSwitch's TCP-like control reacts to losses and marks, which the fluid engine does
/// not have: refused). The flows' paths are their VM pairs' (per-VM-pair ECMP with
/// `sim.ecmp_seed`). Errors name `engine.eba.…`, the VM or the flow.
pub fn run_flows(
    topo: &Topology,
    flows: &[FlowSpec],
    eba: &EbaPacketConfig,
    sim: &FlowSimConfig,
    progress: &Progress,
) -> Result<FlowLevelRun> {
    eba.validate("engine.eba")?;
    let control = match eba.rate_control {
        RateControl::Lrc => Control::Lrc,
        RateControl::Reservation => Control::Reservation,
        RateControl::BestEffort => Control::BestEffort,
        RateControl::TcpLike => {
            return Err(Error::invalid(
                "engine.eba.rate_control",
                "tcp_like reacts to losses and ECN marks, which the flow engine does not \
                 have: run it with engine.kind = \"packet\"",
            ))
        }
    };
    if eba.vms.is_empty() {
        return Err(Error::invalid(
            "engine.eba.vms",
            "eBA at flow level needs at least one VM",
        ));
    }
    let plan = VmPlan::new(eba, topo, flows)?;
    let transfers: Vec<VmTransfer> = flows
        .iter()
        .zip(&plan.pair_of)
        .map(|(f, &p)| {
            let pair = plan.pairs[p as usize];
            VmTransfer {
                src_vm: pair.src,
                dst_vm: pair.dst,
                size: f.size,
                start: f.start,
                tag: f.tag,
                demand: None,
            }
        })
        .collect();
    let cfg = FlowLevelConfig {
        control,
        lrc: eba.lrc.clone(),
        initial_rate: eba.initial_rate.bps(),
        ecmp_seed: sim.ecmp_seed,
        feedback_delay: false,
    };
    let placement = plan.table.borrow().placement().clone();
    run(topo, &placement, &transfers, &cfg, sim, progress).map_err(|e| match e {
        // A transfer is the scenario's flow of the same index.
        Error::Invalid { at, msg } => match at
            .strip_prefix("transfers[")
            .and_then(|i| i.strip_suffix(']'))
        {
            Some(i) => Error::invalid(format!("flow {i}"), msg),
            None => Error::Invalid { at, msg },
        },
        other => other,
    })
}
