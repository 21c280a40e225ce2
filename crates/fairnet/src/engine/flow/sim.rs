//! The fluid simulation loop.

use crate::alloc::{IncrementalAllocator, IncrementalStats, IndexedMinHeap, Slot};
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::ids::{LinkId, NodeId};
use crate::metrics::{ideal_fct, slowdown, wire_bytes};
use crate::topo::routing::{PathSelector, Routing};
use crate::topo::Topology;
use crate::units::Time;
use crate::workload::dag::{children_by, topological_order_by};
use crate::workload::FlowSpec;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::hash::BuildHasherDefault;

/// A flow of the fluid engine: the common [`FlowSpec`] plus what only allocation needs.
#[derive(Clone, Debug, PartialEq)]
pub struct FluidFlow {
    /// Endpoints, size, start, weight, tag.
    pub spec: FlowSpec,
    /// Explicit path; `None` routes by ECMP (per-flow hash seeded by `ecmp_seed`).
    pub path: Option<Vec<LinkId>>,
    /// Rate cap, bits/s.
    pub demand: Option<f64>,
    /// Minimum rate, bits/s.
    pub guarantee: Option<f64>,
    /// Flows (indices) that must end before this one starts (DAG jobs).
    pub deps: Vec<u32>,
}

impl FluidFlow {
    /// A flow with no path, cap, guarantee or dependencies.
    pub fn new(spec: FlowSpec) -> FluidFlow {
        FluidFlow {
            spec,
            path: None,
            demand: None,
            guarantee: None,
            deps: Vec::new(),
        }
    }
}

/// A weight change at a point in time (Söze §5.1 policies, Fig. 17's schedule).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WeightChange {
    /// When.
    pub time: Time,
    /// Which flow (index).
    pub flow: u32,
    /// The new weight (> 0).
    pub weight: f64,
}

/// An active flow as a [`WeightPolicy`] sees it at a decision slot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActiveFlow {
    /// The flow's index.
    pub flow: u32,
    /// Bytes it still has to put on the wire (payload and headers).
    pub remaining_wire_bytes: f64,
    /// Its rate since the last event, bits/s.
    pub rate: f64,
}

/// Changes weights as flows come and go: Söze §5.1's application policies (job-level
/// sum-preserving reallocation, critical-path priority), evaluated by the engine at every
/// instant where flows arrived or finished; and, for a policy that asks for them, at periodic
/// decision slots with the state of every active flow (Uranus's Algorithms 1–2).
pub trait WeightPolicy {
    /// After the arrivals and departures of one instant (flow indices in `arrived`,
    /// `departed`), before the rates are updated: `set(flow, weight)` changes the weight of
    /// any flow (a positive, finite weight; it takes effect for an active flow now and for a
    /// waiting flow when it arrives).
    fn on_instant(
        &mut self,
        now: Time,
        arrived: &[u32],
        departed: &[u32],
        set: &mut dyn FnMut(u32, f64),
    );

    /// The period of decision slots (from time 0 while flows remain), if the policy wants
    /// them. Default none.
    fn slot(&self) -> Option<Time> {
        None
    }

    /// At every decision slot, after that instant's events and [`Self::on_instant`], before
    /// the rates are updated: every active flow's state (in flow order); `set` as in
    /// [`Self::on_instant`]. Default: nothing.
    fn on_slot(&mut self, now: Time, active: &[ActiveFlow], set: &mut dyn FnMut(u32, f64)) {
        let _ = (now, active, set);
    }

    /// Whether the policy also sets per-flow rate caps (then [`Self::caps_on_instant`] and
    /// [`Self::caps_on_slot`] are called, and the engine keeps each link's carried bits for
    /// [`LinkLoad`]). Default false.
    fn sets_caps(&self) -> bool {
        false
    }

    /// After [`Self::on_instant`], at an instant with arrivals or departures: `cap(flow,
    /// rate)` sets a flow's rate cap, bits/s (positive, at least the flow's guarantee;
    /// `f64::INFINITY` removes it). It replaces the flow's `demand` and takes effect for an
    /// active flow now, for a waiting flow when it arrives. Default: nothing.
    fn caps_on_instant(
        &mut self,
        now: Time,
        arrived: &[u32],
        departed: &[u32],
        cap: &mut dyn FnMut(u32, f64),
    ) {
        let _ = (now, arrived, departed, cap);
    }

    /// At every decision slot, after [`Self::on_slot`]: every active flow's state (as in
    /// `on_slot`, weights already changed) and every link's load (indexed by link id); `cap`
    /// as in [`Self::caps_on_instant`]. Default: nothing.
    fn caps_on_slot(
        &mut self,
        now: Time,
        active: &[ActiveFlow],
        links: &[LinkLoad],
        cap: &mut dyn FnMut(u32, f64),
    ) {
        let _ = (now, active, links, cap);
    }
}

/// A link's load as a cap-setting [`WeightPolicy`] sees it at a decision slot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkLoad {
    /// The sum of the rates of the flows crossing it since the last event, bits/s.
    pub rate: f64,
    /// Bits the flows crossing it have put on it since time 0 (finished flows included): a
    /// counter whose differences give the rate received over any interval, as a switch port
    /// measures it.
    pub carried_bits: f64,
}

/// Which allocator updates the rates.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum AllocatorKind {
    /// [`IncrementalAllocator::update`]: only links whose levels move.
    #[default]
    Incremental,
    /// A full solve of the oracle at every event (the reference).
    Recompute,
}

/// Parameters of the fluid engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FlowSimConfig {
    /// Delay between a flow's start and its first byte (e.g. a handshake). Default 0.
    pub start_latency: Time,
    /// Header bytes per packet, added to the bytes on the wire. Default 0 (pure fluid).
    pub header_bytes: u64,
    /// Payload bytes per packet, for the header overhead. Default 1000 (Söze §5).
    pub mtu: u64,
    /// Seed of the per-flow ECMP hash. Default 0.
    pub ecmp_seed: u64,
    /// Record every active flow's rate at this interval. Default none.
    pub rate_interval: Option<Time>,
    /// Stop at this time even if flows remain (they are reported unfinished). Default none.
    pub stop_at: Option<Time>,
    /// Which allocator updates rates. Default incremental.
    pub allocator: AllocatorKind,
    /// Whether flows of one class — the same path, weight and rate cap, no guarantee — share
    /// one allocator entry, one rate and one clock while they are active, so that an event
    /// costs in proportion to the classes it changes rather than the flows (see the module
    /// docs). Not used with weight changes or a weight policy (weights then change per flow).
    /// Default false: a class of several flows is solved as one flow of their summed weight, so
    /// its end times may differ from the per-flow ones in the last bits of the rates (by a
    /// picosecond or so, docs/flow-engine.md "Classes").
    pub classes: bool,
}

impl Default for FlowSimConfig {
    fn default() -> Self {
        FlowSimConfig {
            start_latency: Time::ZERO,
            header_bytes: 0,
            mtu: 1000,
            ecmp_seed: 0,
            rate_interval: None,
            stop_at: None,
            allocator: AllocatorKind::Incremental,
            classes: false,
        }
    }
}

/// The outcome of one flow; the same columns as the packet engine's flow table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowRecord {
    /// Index of the flow in the input.
    pub flow: u32,
    /// Sender.
    pub src: NodeId,
    /// Receiver.
    pub dst: NodeId,
    /// Payload bytes.
    pub size: u64,
    /// When the flow was due to start (for a DAG flow: when its last dependency ended).
    pub start: Time,
    /// When its last byte arrived; `None` if it did not finish.
    pub end: Option<Time>,
    /// Ideal FCT on the empty network.
    pub ideal_fct: Time,
    /// The flow's tag (job, coflow).
    pub tag: u32,
}

impl FlowRecord {
    /// Flow completion time, if finished.
    pub fn fct(&self) -> Option<Time> {
        self.end.map(|e| e - self.start)
    }
    /// FCT over ideal FCT, if finished.
    pub fn slowdown(&self) -> Option<f64> {
        self.fct().map(|f| slowdown(f, self.ideal_fct))
    }
}

/// Completion of a group of flows sharing a tag (a DAG job or a coflow).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupRecord {
    /// The tag.
    pub tag: u32,
    /// Number of flows.
    pub flows: u32,
    /// Earliest start.
    pub start: Time,
    /// Latest end; `None` if any flow did not finish.
    pub end: Option<Time>,
}

/// One sample of a flow's rate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RateSample {
    /// Sample time.
    pub time: Time,
    /// Flow index.
    pub flow: u32,
    /// Rate, bits/s (flow engine: the allocated rate; packet engine: the wire throughput over
    /// the interval ending at `time`).
    pub rate: f64,
    /// The congestion control's sending rate, bits/s (packet engine only).
    pub send_rate: Option<f64>,
}

/// Everything a fluid run produces.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSimResults {
    /// One record per input flow, in input order.
    pub flows: Vec<FlowRecord>,
    /// One record per tag, in tag order.
    pub groups: Vec<GroupRecord>,
    /// Rate samples, if requested.
    pub rates: Vec<RateSample>,
    /// Events processed (arrivals, completions, weight changes, samples).
    pub events: u64,
    /// Times the rates were brought up to date (one per distinct event time).
    pub rate_updates: u64,
    /// Simulated time at which the run ended.
    pub end_time: Time,
    /// Whether every flow finished (false when stopped by `stop_at`).
    pub complete: bool,
    /// The allocator's work counters over the run (what an event costs, for benchmarks).
    pub allocator: IncrementalStats,
    /// The number of allocator entries active (flows, or classes with
    /// [`FlowSimConfig::classes`]) summed over the rate updates: over `rate_updates`, the mean
    /// an update saw.
    pub active_entries: u64,
}

/// Events other than completions (which live in their own indexed heap). At equal times
/// completions are applied first, then these in this order; rates are updated once per time, so
/// the order does not change them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    Arrive { flow: u32 },
    Weight { change: u32 },
    Sample,
    Slot,
}

struct FlowState {
    /// The flow's links: `Paths::links[path.0 as usize..path.1 as usize]`.
    path: (u32, u32),
    /// Bits to put on the wire (payload and headers).
    wire_bits: f64,
    /// The allocator slot of the flow's class while it is active.
    slot: Option<Slot>,
    /// While active: its class's [`Live::rem`] minus the flow's remaining bits (0 for the
    /// class's first flow).
    offset: f64,
    pending_deps: u32,
    start: Time,
    end: Option<Time>,
    /// One-way propagation delay of the path: the last bit arrives this long after it is sent.
    prop: Time,
    ideal: Time,
}

/// Every flow's path, one after another in one array (one allocation for the run instead of
/// one per flow: the per-flow vectors and their page faults were a tenth of a 100k-flow run on
/// m3's parking lot).
#[derive(Default)]
struct Paths {
    links: Vec<u32>,
}

impl Paths {
    /// The path of flow state `s`.
    #[inline]
    fn of(&self, s: &FlowState) -> &[u32] {
        &self.links[s.path.0 as usize..s.path.1 as usize]
    }
}

/// The events other than completions, in (time, event) order: the arrivals of flows without
/// dependencies are known up front and kept sorted (a 1M-flow run popped every arrival from a
/// 1M-entry binary heap, 20 sift levels over 24 MB); dependent arrivals, weight changes and
/// samples go through a heap, and the two are merged.
#[derive(Default)]
struct Agenda {
    sorted: Vec<(Time, Event)>,
    next: usize,
    heap: BinaryHeap<Reverse<(Time, Event)>>,
}

impl Agenda {
    fn push(&mut self, e: (Time, Event)) {
        self.heap.push(Reverse(e));
    }

    /// The earliest event, and whether it is from the sorted list.
    fn first(&self) -> Option<((Time, Event), bool)> {
        match (self.sorted.get(self.next), self.heap.peek()) {
            (Some(&a), Some(&Reverse(b))) => Some(if a <= b { (a, true) } else { (b, false) }),
            (Some(&a), None) => Some((a, true)),
            (None, Some(&Reverse(b))) => Some((b, false)),
            (None, None) => None,
        }
    }

    fn peek(&self) -> Option<(Time, Event)> {
        self.first().map(|f| f.0)
    }

    fn pop(&mut self) -> Option<(Time, Event)> {
        let (e, sorted) = self.first()?;
        if sorted {
            self.next += 1;
        } else {
            self.heap.pop();
        }
        Some(e)
    }
}

/// `x.ceil() as u64`, without the libm call that `ceil` is on the baseline x86-64 target (1.5%
/// of a web-search run): below 2^52 truncation and the conversion back are exact.
#[inline]
fn ceil_u64(x: f64) -> u64 {
    if x < 4_503_599_627_370_496.0 {
        let i = x as u64;
        if (i as f64) < x {
            i + 1
        } else {
            i
        }
    } else {
        x.ceil() as u64
    }
}

/// The state of an active class of flows (one flow unless [`FlowSimConfig::classes`]) that
/// changes with its rate, indexed by allocator slot.
///
/// Every flow of a class has the same rate, so one clock serves them all: `rem` falls by
/// `rate · Δt` as the class's first flow's remaining bits would, and a flow that joins later
/// records `offset = rem − its bits`; its remaining bits are always `rem − offset`. The class's
/// next completion is its flow with the largest offset (the fewest bits left), so a rate change
/// settles one number and reschedules one completion, whatever the number of flows. For a class
/// of one flow (offset 0) this is exactly the per-flow arithmetic.
#[derive(Clone, Copy, Default)]
struct Live {
    /// Remaining bits of the class's reference flow (see above).
    rem: f64,
    /// Rate of each flow of the class, bits/s.
    rate: f64,
    /// When `rem` was last settled.
    last: Time,
    /// When the class's next flow completes at the current rate, ps ([`NEVER`] at rate 0); its
    /// key in the completion heap may be earlier (see `settle_top`).
    done: u64,
    /// Active flows in the class.
    flows: u32,
}

impl Live {
    /// Brings `rem` to time `t` at the current rate.
    #[inline]
    fn settle(&mut self, t: Time) {
        self.rem -= self.rate * (t - self.last).as_secs_f64();
        self.last = t;
    }

    /// When a flow of the class with `offset` completes at the current rate (settled at `t`).
    #[inline]
    fn completion(&self, t: Time, offset: f64) -> u64 {
        if self.rate > 0.0 {
            let secs = (self.rem - offset).max(0.0) / self.rate;
            t.0.saturating_add(ceil_u64(secs * Time::S as f64))
        } else {
            NEVER
        }
    }
}

/// A flow of a class, ordered so that the flow with the fewest bits left (largest offset) is
/// the greatest, ties broken by flow index.
#[derive(Clone, Copy, PartialEq)]
struct Member {
    offset: f64,
    flow: u32,
}

impl Eq for Member {}

impl Ord for Member {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.offset
            .total_cmp(&other.offset)
            .then(other.flow.cmp(&self.flow))
    }
}

impl PartialOrd for Member {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The class key of a flow: a hash of its path, weight and cap (equality is checked against a
/// flow of the class, so a collision only keeps two classes apart).
fn class_hash(path: &[u32], weight: f64, cap: f64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for x in path
        .iter()
        .map(|&l| l as u64)
        .chain([weight.to_bits(), cap.to_bits()])
    {
        h = (h ^ x).wrapping_mul(0x0100_0000_01b3);
        h ^= h >> 29;
    }
    h
}

/// A hasher for keys that are already hashes.
#[derive(Default)]
struct PassThrough(u64);

impl std::hash::Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// `Live::done` of a flow that is not sending.
const NEVER: u64 = u64::MAX;

/// Re-keys stale tops of the lazy completion heap until its top is keyed at its true completion
/// time (or the heap is empty): then the top is the next completion.
fn settle_top(completions: &mut IndexedMinHeap<u64>, live: &[Live]) {
    while let Some((p, slot)) = completions.peek() {
        let done = live[slot].done;
        if done == p {
            break;
        }
        if done == NEVER {
            completions.remove(slot);
        } else {
            completions.set(slot, done);
        }
    }
}

/// Checks the input and routes the flows; errors name the flow (`flows[3]: ...`).
fn prepare(
    topo: &Topology,
    flows: &[FluidFlow],
    changes: &[WeightChange],
    cfg: &FlowSimConfig,
) -> Result<(Vec<FlowState>, Paths)> {
    if cfg.mtu == 0 {
        return Err(Error::invalid("mtu", "must be at least one byte"));
    }
    if cfg.rate_interval == Some(Time::ZERO) {
        return Err(Error::invalid("rate_interval", "must be positive"));
    }
    let routing = Routing::new(topo);
    let mut states = Vec::with_capacity(flows.len());
    let mut paths = Paths::default();
    let mut route = Vec::new();
    for (i, f) in flows.iter().enumerate() {
        let at = || format!("flows[{i}]");
        let s = &f.spec;
        if !(s.weight.is_finite() && s.weight > 0.0) {
            return Err(Error::invalid(
                at(),
                format!("weight must be a positive number, got {}", s.weight),
            ));
        }
        if s.size.0 == 0 {
            return Err(Error::invalid(at(), "size must be at least one byte"));
        }
        let demand = f.demand.unwrap_or(f64::INFINITY);
        let guarantee = f.guarantee.unwrap_or(0.0);
        if demand.is_nan() || demand <= 0.0 {
            return Err(Error::invalid(
                at(),
                format!("demand must be positive, got {demand}"),
            ));
        }
        if !(guarantee.is_finite() && guarantee >= 0.0 && guarantee <= demand) {
            return Err(Error::invalid(
                at(),
                format!("guarantee must be in [0, demand], got {guarantee}"),
            ));
        }
        route.clear();
        match &f.path {
            Some(p) => {
                check_path(topo, s, p).map_err(|m| Error::invalid(at(), m))?;
                route.extend_from_slice(p);
            }
            None => routing
                .path_into(
                    s.src,
                    s.dst,
                    PathSelector::FlowHash {
                        seed: cfg.ecmp_seed,
                        flow: i as u64,
                    },
                    &mut route,
                )
                .map_err(|e| Error::invalid(at(), e.to_string()))?,
        }
        let wire = wire_bytes(s.size, cfg.mtu, cfg.header_bytes);
        let from = paths.links.len() as u32;
        paths.links.extend(route.iter().map(|l| l.0));
        let to = u32::try_from(paths.links.len())
            .map_err(|_| Error::invalid(at(), "the flows' paths hold more than 2^32 links"))?;
        states.push(FlowState {
            path: (from, to),
            wire_bits: wire.0 as f64 * 8.0,
            slot: None,
            offset: 0.0,
            pending_deps: f.deps.len() as u32,
            start: s.start,
            end: None,
            prop: Time(route.iter().map(|&l| topo.link(l).delay.0).sum()),
            ideal: ideal_fct(topo, &route, wire, cfg.start_latency),
        });
    }
    for (i, c) in changes.iter().enumerate() {
        if c.flow as usize >= flows.len() {
            return Err(Error::invalid(
                format!("weight_changes[{i}]"),
                format!("unknown flow {}", c.flow),
            ));
        }
        if !(c.weight.is_finite() && c.weight > 0.0) {
            return Err(Error::invalid(
                format!("weight_changes[{i}]"),
                format!("weight must be positive, got {}", c.weight),
            ));
        }
    }
    // Dependencies name other existing flows and form no cycle (errors name `flows[i].deps`).
    if flows.iter().any(|f| !f.deps.is_empty()) {
        topological_order_by(flows.len(), |i| &flows[i].deps)?;
    }
    Ok((states, paths))
}

fn check_path(topo: &Topology, s: &FlowSpec, p: &[LinkId]) -> std::result::Result<(), String> {
    if p.is_empty() {
        return Err("path is empty".into());
    }
    let mut at = s.src;
    for &l in p {
        if l.idx() >= topo.num_links() {
            return Err(format!("path has unknown {l}"));
        }
        let link = topo.link(l);
        if link.src != at {
            return Err(format!(
                "path is not contiguous at {l} ({} -> {}, expected to leave {at})",
                link.src, link.dst
            ));
        }
        at = link.dst;
    }
    if at != s.dst {
        return Err(format!(
            "path ends at {at}, not at the destination {}",
            s.dst
        ));
    }
    Ok(())
}

/// Simulates `flows` on `topo`; see the [module docs](super).
pub fn run(
    topo: &Topology,
    flows: &[FluidFlow],
    changes: &[WeightChange],
    cfg: &FlowSimConfig,
) -> Result<FlowSimResults> {
    run_with_progress(topo, flows, changes, cfg, &Progress::default())
}

/// [`run`], reporting to `progress` as it goes; a cancelled `progress` stops the run as
/// `stop_at` would (unfinished flows reported unfinished, the run incomplete).
pub fn run_with_progress(
    topo: &Topology,
    flows: &[FluidFlow],
    changes: &[WeightChange],
    cfg: &FlowSimConfig,
    progress: &Progress,
) -> Result<FlowSimResults> {
    run_with(topo, flows, changes, cfg, progress, None)
}

/// [`run_with_progress`] with an optional [`WeightPolicy`] changing weights as flows arrive
/// and finish.
pub fn run_with(
    topo: &Topology,
    flows: &[FluidFlow],
    changes: &[WeightChange],
    cfg: &FlowSimConfig,
    progress: &Progress,
    mut policy: Option<&mut dyn WeightPolicy>,
) -> Result<FlowSimResults> {
    let (mut st, paths) = prepare(topo, flows, changes, cfg)?;
    let (mut arrived, mut departed): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    // The flows waiting for each flow (none without dependencies: no per-flow vectors then).
    let children = if flows.iter().any(|f| !f.deps.is_empty()) {
        children_by(flows.len(), |i| &flows[i].deps)?
    } else {
        Vec::new()
    };
    let mut weights: Vec<f64> = flows.iter().map(|f| f.spec.weight).collect();
    // Rate caps: the flows' demands, changed by a cap-setting policy.
    let mut caps: Vec<f64> = flows
        .iter()
        .map(|f| f.demand.unwrap_or(f64::INFINITY))
        .collect();
    let sets_caps = policy.as_deref().is_some_and(|p| p.sets_caps());
    // Bits put on each link by finished flows (kept only for a cap-setting policy).
    let mut finished_bits: Vec<f64> = if sets_caps {
        vec![0.0; topo.num_links()]
    } else {
        Vec::new()
    };
    let mut link_loads: Vec<LinkLoad> = Vec::new();
    let mut alloc =
        IncrementalAllocator::new(topo.links().iter().map(|l| l.capacity.bps()).collect());
    // What the settling of a changed rate touches, indexed by allocator slot: dense and as
    // small as the active set, so it stays in cache (indexed by flow, every settle of a 1M-flow
    // run was a miss into a 100 MB array).
    let mut live: Vec<Live> = Vec::new();
    // The flows of each active class (slot), the next to complete on top.
    let mut members: Vec<BinaryHeap<Member>> = Vec::new();
    // Classes (see `Live`): the slot of each active class by class hash, and each slot's hash.
    let classes = cfg.classes && changes.is_empty() && policy.is_none();
    let mut class_slots: HashMap<u64, Slot, BuildHasherDefault<PassThrough>> = HashMap::default();
    let mut slot_hash: Vec<u64> = Vec::new();
    // Classes whose flows changed at this instant: their next completion is rescheduled even
    // if the allocator leaves their rate as it was.
    let mut resched: Vec<Slot> = Vec::new();
    let mut changed: Vec<Slot> = Vec::new();
    let mut queue = Agenda::default();
    // Completion time of every active flow (picoseconds, as the `Time` it is: an f64 key was
    // exact only below 2^53 ps ≈ 2.5 h, and a 10 TB flow at 1 Gb/s ran forever re-keying);
    // re-keyed in place when a rate changes, so no stale entries pile up. Keyed by allocator
    // slot, not flow index: slots are reused, so the heap's priority array stays as small as the
    // active set and its sifts stay in cache (keyed by flow, every sift step of a 1M-flow run
    // read a priority scattered over 8 MB).
    //
    // The heap is lazy for completions that move later: a key is only a lower bound of the
    // flow's true completion (`Live::done`), fixed when it surfaces (`settle_top`); a rate change
    // that delays a completion (about half of them) costs no sift.
    let mut completions = IndexedMinHeap::new(flows.len());
    queue.sorted = flows
        .iter()
        .enumerate()
        .filter(|(_, f)| f.deps.is_empty())
        .map(|(i, f)| {
            (
                f.spec.start + cfg.start_latency,
                Event::Arrive { flow: i as u32 },
            )
        })
        .collect();
    queue.sorted.sort_unstable();
    for (i, c) in changes.iter().enumerate() {
        queue.push((c.time, Event::Weight { change: i as u32 }));
    }
    if cfg.rate_interval.is_some() {
        queue.push((Time::ZERO, Event::Sample));
    }
    let slot_period = policy.as_deref().and_then(|p| p.slot());
    if let Some(period) = slot_period {
        if period == Time::ZERO {
            return Err(Error::invalid(
                "weight policy",
                "decision slot must be positive",
            ));
        }
        queue.push((Time::ZERO, Event::Slot));
    }
    let mut slot_flows: Vec<ActiveFlow> = Vec::new();
    let mut rates = Vec::new();
    let (mut events, mut rate_updates, mut active_entries) = (0u64, 0u64, 0u64);
    let mut active = 0usize;
    let mut finished = 0usize;
    let mut now = Time::ZERO;
    let mut complete = true;
    let mut next_progress = 0u64;

    loop {
        let next_other = queue.peek().map(|r| r.0);
        settle_top(&mut completions, &live);
        let next_done = completions.peek().map(|(p, _)| Time(p));
        let t = match (next_other, next_done) {
            (None, None) => break,
            (a, b) => a.unwrap_or(Time(u64::MAX)).min(b.unwrap_or(Time(u64::MAX))),
        };
        if cfg.stop_at.is_some_and(|s| t > s) {
            complete = false;
            now = cfg.stop_at.unwrap();
            break;
        }
        if events >= next_progress {
            next_progress = events + Progress::EVERY;
            if !progress.update(now, events, finished as u64) {
                complete = false;
                break;
            }
        }
        if finished == flows.len() {
            break;
        }
        now = t;
        let mut sample = false;
        let mut slot_due = false;
        // Apply every event of this instant, then update the rates once.
        while let Some((p, slot)) = completions.peek() {
            if p != t.0 {
                break;
            }
            if live[slot].done != t.0 {
                // A stale key: the flow was slowed down since it was keyed.
                settle_top(&mut completions, &live);
                continue;
            }
            let flow = members[slot]
                .pop()
                .expect("an active class has a flow")
                .flow as usize;
            events += 1;
            let l = &mut live[slot];
            l.flows -= 1;
            if l.flows == 0 {
                completions.remove(slot);
                alloc.remove_flow(slot as Slot);
                if classes && class_slots.get(&slot_hash[slot]) == Some(&(slot as Slot)) {
                    class_slots.remove(&slot_hash[slot]);
                }
            } else {
                // The class goes on with one flow fewer: key its next completion at the rate it
                // has now (the update below gives it its new rate and moves it).
                l.settle(t);
                let next = *members[slot].peek().expect("flows remain");
                l.done = l.completion(t, next.offset);
                if l.done == NEVER {
                    completions.remove(slot);
                } else {
                    completions.set(slot, l.done);
                }
                let (n, f) = (l.flows as f64, next.flow as usize);
                alloc.set_weight(slot as Slot, n * weights[f]);
                if caps[f].is_finite() {
                    alloc.set_demand(slot as Slot, n * caps[f]);
                }
                resched.push(slot as Slot);
            }
            let s = &mut st[flow];
            s.slot = None;
            let end = t + s.prop;
            s.end = Some(end);
            if sets_caps {
                for &l in paths.of(s) {
                    finished_bits[l as usize] += s.wire_bits;
                }
            }
            active -= 1;
            finished += 1;
            if policy.is_some() {
                departed.push(flow as u32);
            }
            for &c in children.get(flow).map_or(&[][..], |c| &c[..]) {
                let cs = &mut st[c as usize];
                cs.pending_deps -= 1;
                if cs.pending_deps == 0 {
                    cs.start = cs.start.max(end);
                    queue.push((cs.start + cfg.start_latency, Event::Arrive { flow: c }));
                }
            }
        }
        while let Some((t2, ev)) = queue.peek() {
            if t2 != t {
                break;
            }
            queue.pop();
            events += 1;
            match ev {
                Event::Arrive { flow } => {
                    let i = flow as usize;
                    let (w, cap) = (weights[i], caps[i]);
                    let guarantee = flows[i].guarantee.unwrap_or(0.0);
                    let key =
                        (classes && guarantee == 0.0).then(|| class_hash(paths.of(&st[i]), w, cap));
                    // The active class of the same path, weight and cap, if any.
                    let class = key.and_then(|h| class_slots.get(&h).copied()).filter(|&c| {
                        let other = members[c as usize]
                            .peek()
                            .expect("an active class has a flow");
                        let o = other.flow as usize;
                        paths.of(&st[o]) == paths.of(&st[i]) && weights[o] == w && caps[o] == cap
                    });
                    if let Some(slot) = class {
                        // Join it: one more flow of the class's weight (and cap) on its links.
                        let l = &mut live[slot as usize];
                        l.settle(t);
                        l.flows += 1;
                        let offset = l.rem - st[i].wire_bits;
                        members[slot as usize].push(Member { offset, flow });
                        let n = l.flows as f64;
                        alloc.set_weight(slot, n * w);
                        if cap.is_finite() {
                            alloc.set_demand(slot, n * cap);
                        }
                        resched.push(slot);
                        (st[i].slot, st[i].offset) = (Some(slot), offset);
                    } else {
                        let s = &mut st[i];
                        let slot = alloc.add_flow(paths.of(s), w, cap, guarantee);
                        (s.slot, s.offset) = (Some(slot), 0.0);
                        let entry = Live {
                            rem: s.wire_bits,
                            rate: 0.0,
                            last: t,
                            done: NEVER,
                            flows: 1,
                        };
                        let at = slot as usize;
                        if live.len() <= at {
                            live.resize(at + 1, Live::default());
                            members.resize_with(at + 1, BinaryHeap::new);
                            slot_hash.resize(at + 1, 0);
                        }
                        live[at] = entry;
                        members[at].clear();
                        members[at].push(Member { offset: 0.0, flow });
                        if let Some(h) = key {
                            class_slots.entry(h).or_insert(slot);
                            slot_hash[at] = h;
                        }
                    }
                    active += 1;
                    if policy.is_some() {
                        arrived.push(flow);
                    }
                }
                Event::Weight { change } => {
                    let c = changes[change as usize];
                    weights[c.flow as usize] = c.weight;
                    if let Some(slot) = st[c.flow as usize].slot {
                        alloc.set_weight(slot, c.weight);
                    }
                }
                Event::Sample => sample = true,
                Event::Slot => slot_due = true,
            }
        }
        if let Some(p) = policy.as_deref_mut() {
            if !arrived.is_empty() || !departed.is_empty() {
                set_weights(&mut weights, &st, &mut alloc, |set| {
                    p.on_instant(t, &arrived, &departed, set)
                })?;
                if sets_caps {
                    set_caps(&mut caps, flows, &st, &mut alloc, |cap| {
                        p.caps_on_instant(t, &arrived, &departed, cap)
                    })?;
                }
                arrived.clear();
                departed.clear();
            }
            if slot_due {
                slot_flows.clear();
                for (flow, s) in st.iter().enumerate() {
                    if let Some(slot) = s.slot {
                        let l = &live[slot as usize];
                        let bits = (l.rem - s.offset) - l.rate * (t - l.last).as_secs_f64();
                        slot_flows.push(ActiveFlow {
                            flow: flow as u32,
                            remaining_wire_bytes: bits.max(0.0) / 8.0,
                            rate: l.rate,
                        });
                    }
                }
                set_weights(&mut weights, &st, &mut alloc, |set| {
                    p.on_slot(t, &slot_flows, set)
                })?;
                if sets_caps {
                    link_loads.clear();
                    link_loads.extend(finished_bits.iter().map(|&b| LinkLoad {
                        rate: 0.0,
                        carried_bits: b,
                    }));
                    for a in &slot_flows {
                        let s = &st[a.flow as usize];
                        let sent = s.wire_bits - a.remaining_wire_bytes * 8.0;
                        for &l in paths.of(s) {
                            let load = &mut link_loads[l as usize];
                            load.rate += a.rate;
                            load.carried_bits += sent;
                        }
                    }
                    set_caps(&mut caps, flows, &st, &mut alloc, |cap| {
                        p.caps_on_slot(t, &slot_flows, &link_loads, cap)
                    })?;
                }
                if finished < flows.len() {
                    queue.push((t + slot_period.expect("slots are due"), Event::Slot));
                }
            }
        }
        if cfg.allocator == AllocatorKind::Recompute && active > 0 {
            alloc.recompute_all();
        }
        rate_updates += 1;
        active_entries += alloc.num_flows() as u64;
        changed.clear();
        changed.extend_from_slice(alloc.update());
        // A class listed twice is settled twice at `t`, the second time by nothing.
        changed.append(&mut resched);
        for &slot in &changed {
            let l = &mut live[slot as usize];
            if l.flows == 0 {
                // Its last flow completed after it was listed.
                continue;
            }
            // Settle the bits sent at the old rate, then reschedule at the new one.
            l.settle(t);
            l.rate = alloc.rate(slot) / l.flows as f64;
            let next = members[slot as usize]
                .peek()
                .expect("an active class has a flow");
            let done = l.completion(t, next.offset);
            l.done = done;
            // Earlier than keyed (or not keyed): key now. Later: the key stays a lower bound,
            // re-keyed when it surfaces.
            if done != NEVER && completions.priority(slot as usize).is_none_or(|p| done < p) {
                completions.set(slot as usize, done);
            }
        }
        if sample {
            for (flow, s) in st.iter().enumerate() {
                if let Some(slot) = s.slot {
                    rates.push(RateSample {
                        time: t,
                        flow: flow as u32,
                        rate: live[slot as usize].rate,
                        send_rate: None,
                    });
                }
            }
            if finished < flows.len() {
                queue.push((t + cfg.rate_interval.unwrap(), Event::Sample));
            }
        }
    }
    complete &= finished == flows.len();

    let records: Vec<FlowRecord> = flows
        .iter()
        .zip(&st)
        .enumerate()
        .map(|(i, (f, s))| FlowRecord {
            flow: i as u32,
            src: f.spec.src,
            dst: f.spec.dst,
            size: f.spec.size.0,
            start: s.start,
            end: s.end,
            ideal_fct: s.ideal,
            tag: f.spec.tag,
        })
        .collect();
    Ok(FlowSimResults {
        groups: groups(&records),
        flows: records,
        rates,
        events,
        rate_updates,
        end_time: now,
        complete,
        allocator: alloc.stats(),
        active_entries,
    })
}

/// Runs `call` with a `set(flow, weight)` that changes the weight of a flow (active or not);
/// an error names the first flow set to an unknown index or a non-positive weight.
fn set_weights(
    weights: &mut [f64],
    st: &[FlowState],
    alloc: &mut IncrementalAllocator,
    call: impl FnOnce(&mut dyn FnMut(u32, f64)),
) -> Result<()> {
    let n = weights.len();
    let mut bad = None;
    call(&mut |f, w| {
        if f as usize >= n || !(w.is_finite() && w > 0.0) {
            bad.get_or_insert((f, w));
            return;
        }
        weights[f as usize] = w;
        if let Some(slot) = st[f as usize].slot {
            alloc.set_weight(slot, w);
        }
    });
    match bad {
        Some((f, w)) => Err(Error::invalid(
            format!("flows[{f}].weight"),
            format!(
                "the weight policy set {w}: weights must be positive and finite, for one of the {n} flows"
            ),
        )),
        None => Ok(()),
    }
}

/// Runs `call` with a `cap(flow, rate)` that changes the rate cap of a flow (active or not);
/// an error names the first flow given an unknown index, a cap that is not positive, or a cap
/// below its guarantee.
fn set_caps(
    caps: &mut [f64],
    flows: &[FluidFlow],
    st: &[FlowState],
    alloc: &mut IncrementalAllocator,
    call: impl FnOnce(&mut dyn FnMut(u32, f64)),
) -> Result<()> {
    let n = caps.len();
    let mut bad = None;
    call(&mut |f, cap| {
        let guarantee = flows
            .get(f as usize)
            .map_or(0.0, |x| x.guarantee.unwrap_or(0.0));
        if f as usize >= n || cap.is_nan() || cap <= 0.0 || cap < guarantee {
            bad.get_or_insert((f, cap, guarantee));
            return;
        }
        caps[f as usize] = cap;
        if let Some(slot) = st[f as usize].slot {
            alloc.set_demand(slot, cap);
        }
    });
    match bad {
        Some((f, cap, _)) if f as usize >= n => Err(Error::invalid(
            format!("flows[{f}].demand"),
            format!("the policy capped flow {f} at {cap} b/s, but there are {n} flows"),
        )),
        Some((f, cap, guarantee)) => Err(Error::invalid(
            format!("flows[{f}].demand"),
            format!(
                "the policy set a rate cap of {cap} b/s: caps must be positive and at least the \
                 flow's guarantee ({guarantee} b/s)"
            ),
        )),
        None => Ok(()),
    }
}

fn groups(records: &[FlowRecord]) -> Vec<GroupRecord> {
    let mut by_tag: BTreeMap<u32, GroupRecord> = BTreeMap::new();
    for r in records {
        let g = by_tag.entry(r.tag).or_insert(GroupRecord {
            tag: r.tag,
            flows: 0,
            start: r.start,
            end: r.end,
        });
        g.flows += 1;
        g.start = g.start.min(r.start);
        g.end = match (g.end, r.end) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
    }
    by_tag.into_values().collect()
}
