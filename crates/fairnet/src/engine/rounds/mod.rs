//! The control-message ("rounds") engine: distributed rate algorithms driven by control packets
//! over abstract links, with no data packets (s-PERC §2 model, §8.1 numerical simulations).
//!
//! # The model (s-PERC §2, assumptions 6–12)
//!
//! - Every flow has exactly one control packet in flight (assumption 6). The packet "goes back
//!   and forth between the sender and receiver across the same set of links" (assumption 6):
//!   with [`RoundsConfig::two_way`] (default) every link of the path processes it on the way
//!   out and again, in reverse order, on the way back; without it only on the way out (the
//!   paper's WAN simulations, §8.2.1: "control packets are only updated in the forward
//!   direction, increasing convergence time by a factor of two"). Then it is at the source.
//! - Each link runs a [`LinkAlgorithm`]: per-link state plus the packet's per-link fields, and an
//!   optional timeout action once per round (s-PERC Algorithm 5 / 7).
//! - At the source the flow's rate becomes the minimum allocation `x` carried in the packet
//!   (assumption 10) and the next control packet leaves at once.
//! - Links see packets in arbitrary order (assumption 9): every hop of every traversal has a
//!   random, seeded delay (§8.1.1: "all flows start at once and see a random delay d at each
//!   link to evaluate arbitrary packet orderings").
//!
//! # Rounds, precisely
//!
//! A *round* is the maximum round-trip time of all control packets (assumption 11). The engine
//! fixes it before the run from the delay model, as a hard bound, so that the links' per-round
//! timeouts and the unit of convergence time are the same number:
//!
//! - [`DelayModel::Uniform`] (default; §8.1.1: "all flows start at once and see a random delay
//!   d at each link to evaluate arbitrary packet orderings"): every hop (and the return) takes
//!   an i.i.d. delay uniform in `[min, max]`, redrawn for every traversal, so the orders change
//!   every round. The round is `(V + 1) · max` with `V` the most link visits of a traversal
//!   (the longest path, twice with `two_way`), the largest possible RTT; it also bounds the time
//!   between two visits of a flow at a link (both are sums of `V + 1` hop delays), so "in one
//!   round a link is guaranteed to see at least one control packet of every flow". Default
//!   `[0, 1 µs]`: the paper gives no distribution, and in rounds only `min / max` matters.
//! - [`DelayModel::PerLink`]: the other reading of "a random delay d at each link": every link
//!   has one delay, drawn once. Flows' RTTs differ (the sum of their links' delays), so a
//!   link's order of flows drifts from round to round; the round is the largest RTT.
//! - [`DelayModel::FixedRtt`]: every traversal takes exactly `rtt`. Each flow's `V` link
//!   visits sit at `rtt · (g_0 + … + g_k) / (g_0 + … + g_V)` after the send, for i.i.d.
//!   uniform gaps `g` drawn once per flow: one round = one RTT exactly, every link sees every
//!   flow once per round and pass, and the order in which it sees them is the *same* every
//!   round. That fixed order is what the random models avoid: it locks n-PERC into slow
//!   cycles (M = 100, N = 1000, P = 10: 55–57 rounds against 7–8 with uniform delays; dense
//!   matrices: thousands of rounds) and makes every algorithm about twice as slow as the
//!   paper's Fig. 6 (see `docs/systems/sperc.md`). Kept for tests that need exact rounds, and
//!   because it runs fastest: the schedule repeats, so one round is sorted once and replayed.
//!
//! Redrawing the link visit times inside a fixed RTT would break that guarantee (a flow seen
//! early in one RTT and late in the next is absent from a whole round at that link), which
//! s-PERC's `MaxE` reset (Lemma 9) and s-PERC*'s shadow counters rely on.
//!
//! Links start their round timers at a random phase (Appendix C.3: "every link starts to reset
//! independently at some time"). The timer's period is the round by default; [`LinkTimer`]
//! offers the mean RTT instead (Fig. 6's caption: "s-PERC: 1 round = 1 RTT").
//!
//! # Convergence (assumption 12)
//!
//! A traversal is *correct* when, after its last link, every allocation `x` it carries is within
//! `tolerance` (relative) of the flow's max-min rate from the oracle ([`crate::alloc::solve`]):
//! the flow "has been allocated its correct max-min fair rate on every link". A flow converges at
//! the end of its first correct traversal after which all its traversals are correct. The
//! convergence time is the latest such time over all flows, measured from when the set of flows
//! stabilizes (the last FIN processed; with drops, the last dropped control packet, as in
//! §8.1.2), in rounds. The outcome also gives the weaker *rate* convergence time: when every
//! flow's sending rate (the minimum allocation) became and stayed within
//! [`RoundsConfig::rate_tolerance`] of its max-min rate (1% by default: the criterion of the
//! s-PERC authors' numerical simulator, "the last time any flow's rate was more than 1% off").
//! A run stops at `max_rounds`, or earlier once every flow has stayed correct
//! for `stable_rounds` rounds (a relapse after that cannot be seen; 0 disables early stop).
//!
//! # Units
//!
//! Convergence times are in *rounds* (the largest possible RTT, fixed before the run). The
//! outcome also gives the *mean* control-packet RTT ([`RoundsOutcome::mean_rtt`]), so a time
//! can be given in mean RTTs (`rounds · round / mean_rtt`); under the uniform model with
//! `min = 0` a round is two mean RTTs, with `min = max` (every RTT equal) one.

mod matrix;

pub use matrix::{random_matrix, RandomMatrix};

use crate::alloc::{iteration_counts, solve, Problem, ProblemInput};
use crate::engine::queue::EventQueue;
use crate::error::{Error, Result};
use crate::units::Time;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// What a link is told about the control packet it processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Update {
    /// The flow.
    pub flow: u32,
    /// Position of this link on the flow's path (index into the packet's per-link fields).
    pub hop: usize,
    /// Index of the flow among the flows crossing this link (`0..n_l`), for algorithms with
    /// per-flow link state (*Fair*).
    pub local: u32,
    /// The packet carries a FIN: the flow is leaving (Algorithm 2 line 15, 3 line 12, 4 line 17).
    pub leaving: bool,
}

/// A distributed link algorithm: its per-link state, the per-link fields of a control packet,
/// the processing of one packet at one link, and an optional per-round timeout action.
pub trait LinkAlgorithm {
    /// State kept at a link.
    type Link;
    /// Fields a control packet carries for one link of its path.
    type Hop: Clone + std::fmt::Debug;
    /// Whether [`LinkAlgorithm::on_round`] does anything (timers are skipped otherwise).
    const HAS_TIMEOUT: bool;
    /// Fresh state of a link of `capacity` (bits/s) crossed by `n_flows` flows.
    fn new_link(&self, capacity: f64, n_flows: usize) -> Self::Link;
    /// The fields of a new flow's first control packet, for each link.
    fn initial_hop(&self) -> Self::Hop;
    /// Processes the packet at the link `u.hop` of its path; `hops` are all its per-link fields.
    fn process(&self, link: &mut Self::Link, u: Update, hops: &mut [Self::Hop]);
    /// The allocation `x` the packet carries for one link.
    fn allocation(&self, hop: &Self::Hop) -> f64;
    /// The timeout action, once per round at every link.
    fn on_round(&self, _link: &mut Self::Link) {}
}

/// How long control packets spend between links (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DelayModel {
    /// Every control packet's RTT is `rtt`; link visits at uniformly random points inside it.
    FixedRtt {
        /// The round-trip time (= one round). Default 10 µs.
        #[serde(default = "default_rtt")]
        rtt: Time,
    },
    /// Every hop and the return take an i.i.d. delay uniform in `[min, max]`.
    Uniform {
        /// Shortest hop delay.
        min: Time,
        /// Longest hop delay (> 0).
        max: Time,
    },
    /// Every link has its own delay, drawn once uniform in `[min, max]`: reaching a link takes
    /// its delay, the return to the source nothing more. Flows' RTTs differ, so the order in
    /// which a link sees its flows drifts from round to round; the round is the largest RTT.
    PerLink {
        /// Shortest link delay.
        min: Time,
        /// Longest link delay (> 0).
        max: Time,
    },
}

fn default_rtt() -> Time {
    Time::from_us(10)
}

impl Default for DelayModel {
    /// s-PERC §8.1.1: flows "see a random delay d at each link", every hop a fresh one (the
    /// paper gives no distribution; only the ratio `min / max` matters in rounds).
    fn default() -> Self {
        DelayModel::Uniform {
            min: Time::ZERO,
            max: Time::from_us(1),
        }
    }
}

/// How often links run their per-round timeout action (s-PERC Algorithm 5, s-PERC*'s
/// Algorithm 7): the period of `MaxE` / `MaxE'` resets and of the shadow-counter sync.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum LinkTimer {
    /// Every round, the largest possible RTT: assumption 11's round, the premise of Lemma 9
    /// (every flow is seen at a link between two resets). Default.
    #[default]
    Round,
    /// Every *mean* control-packet RTT (over the flows; under the default uniform delays with
    /// `min = 0`, half a round). Fig. 6's caption: "s-PERC: 1 round = 1 RTT". A flow whose
    /// traversal is slower than the mean can be missed between two resets, so `MaxE` can
    /// briefly be below the largest `E` allocation; convergence is still checked on every run.
    MeanRtt,
}

/// A flow leaving: its first control packet sent at or after `round` carries a FIN.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Departure {
    /// The flow index.
    pub flow: u32,
    /// When, in rounds from the start.
    pub round: f64,
}

/// Options of the rounds engine. Defaults: s-PERC §8.1.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundsConfig {
    /// Seed of the delays, timer phases and drops.
    pub seed: u64,
    /// Stop after this many rounds. Default 100 (§8.1.2 runs 100 RTTs).
    pub max_rounds: u32,
    /// Per-hop delays. Default [`DelayModel::Uniform`] in `[0, 1 µs]`.
    pub delay: DelayModel,
    /// Probability that a link drops a control packet, during the first `drop_rounds` rounds.
    /// Default 0 (§8.1.2 uses 1% and 0.1%).
    pub drop_probability: f64,
    /// Length of the drop window in rounds. Default 20 (§8.1.2: "during the first 20 RTTs").
    pub drop_rounds: f64,
    /// Stop once every flow has been correct for this many rounds (0: never stop early).
    pub stable_rounds: u32,
    /// Relative tolerance of "correct" against the oracle (every allocation in the packet).
    pub tolerance: f64,
    /// Relative tolerance of the weaker *rate* criterion (the sending rate, i.e. the minimum
    /// allocation). Default 0.01: the s-PERC authors' simulator counts a run converged from the
    /// last time any flow's rate was more than 1% from its max-min rate.
    pub rate_tolerance: f64,
    /// Flows that leave during the run.
    pub departures: Vec<Departure>,
    /// Record every change of a source's rate.
    pub trace: bool,
    /// Links process the control packet on its way back too, in reverse path order (s-PERC §2
    /// assumption 6, "back and forth ... across the same set of links"). Default true; false is
    /// the forward-only updating of the paper's WAN runs (§8.2.1). A FIN is processed on the
    /// way out only: the links forget the flow there, and the reverse visits would find nothing.
    pub two_way: bool,
    /// Period of the links' timeout action. Default [`LinkTimer::Round`].
    pub timer: LinkTimer,
}

impl Default for RoundsConfig {
    fn default() -> Self {
        RoundsConfig {
            seed: 1,
            max_rounds: 100,
            delay: DelayModel::default(),
            drop_probability: 0.0,
            drop_rounds: 20.0,
            stable_rounds: 5,
            tolerance: 1e-6,
            rate_tolerance: 0.01,
            departures: Vec::new(),
            trace: false,
            two_way: true,
            timer: LinkTimer::Round,
        }
    }
}

impl RoundsConfig {
    /// Checks the options; errors name the field (`engine.<field>`).
    pub fn validate(&self, n_flows: usize) -> Result<()> {
        if self.max_rounds == 0 {
            return Err(Error::invalid(
                "engine.max_rounds",
                "expected at least 1, got 0",
            ));
        }
        let p = self.drop_probability;
        if !(0.0..1.0).contains(&p) {
            return Err(Error::invalid(
                "engine.drop_probability",
                format!("expected a probability in [0, 1), got {p}"),
            ));
        }
        if !(self.drop_rounds.is_finite() && self.drop_rounds >= 0.0) {
            return Err(Error::invalid(
                "engine.drop_rounds",
                format!("expected a number of rounds >= 0, got {}", self.drop_rounds),
            ));
        }
        if p > 0.0 && self.drop_rounds >= self.max_rounds as f64 {
            return Err(Error::invalid(
                "engine.drop_rounds",
                format!(
                    "the drop window ({} rounds) must end before max_rounds ({}) so the \
                     algorithm can reconverge",
                    self.drop_rounds, self.max_rounds
                ),
            ));
        }
        if !(self.tolerance > 0.0 && self.tolerance < 1.0) {
            return Err(Error::invalid(
                "engine.tolerance",
                format!(
                    "expected a relative tolerance in (0, 1), got {}",
                    self.tolerance
                ),
            ));
        }
        if !(self.rate_tolerance > 0.0 && self.rate_tolerance < 1.0) {
            return Err(Error::invalid(
                "engine.rate_tolerance",
                format!(
                    "expected a relative tolerance in (0, 1), got {}",
                    self.rate_tolerance
                ),
            ));
        }
        match self.delay {
            DelayModel::FixedRtt { rtt } if rtt.0 < 1000 => {
                return Err(Error::invalid(
                    "engine.delay.rtt",
                    format!("expected at least 1ns, got {}ps", rtt.0),
                ))
            }
            DelayModel::Uniform { min, max } | DelayModel::PerLink { min, max }
                if max.0 == 0 || min > max =>
            {
                return Err(Error::invalid(
                    "engine.delay",
                    format!(
                        "expected 0 <= min <= max and max > 0, got min = {}ps, max = {}ps",
                        min.0, max.0
                    ),
                ))
            }
            _ => {}
        }
        for (i, d) in self.departures.iter().enumerate() {
            if d.flow as usize >= n_flows {
                return Err(Error::invalid(
                    format!("engine.departures[{i}].flow"),
                    format!("no flow {} (there are {n_flows})", d.flow),
                ));
            }
            if !(d.round.is_finite() && d.round >= 0.0 && d.round < self.max_rounds as f64) {
                return Err(Error::invalid(
                    format!("engine.departures[{i}].round"),
                    format!("expected a round in [0, max_rounds), got {}", d.round),
                ));
            }
        }
        Ok(())
    }
}

/// One change of a source's sending rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TracePoint {
    /// When the control packet returned.
    pub time: Time,
    /// The flow.
    pub flow: u32,
    /// The new rate (bits/s): the minimum allocation in the packet.
    pub rate: f64,
}

/// What a run of the rounds engine measured.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundsOutcome {
    /// The length of a round (see the [module docs](self)).
    pub round: Time,
    /// The mean control-packet RTT over the flows (each hop at its mean delay under the uniform
    /// model; the sum of the links' delays under the per-link model; `rtt` under fixed RTTs):
    /// `rounds · round / mean_rtt` is a time in mean RTTs.
    pub mean_rtt: Time,
    /// Final sending rate of every flow (bits/s; 0 for flows that left or never heard back).
    pub rates: Vec<f64>,
    /// The oracle's max-min rate of every flow still present at the end (0 for flows that left).
    pub oracle: Vec<f64>,
    /// Whether every remaining flow was correct at the end, and stayed correct.
    pub converged: bool,
    /// Convergence time in rounds (from when the flows stabilized), if converged.
    pub convergence_rounds: Option<f64>,
    /// The weaker criterion: when every flow's *sending rate* (the minimum allocation in its
    /// packet) became and stayed within [`RoundsConfig::rate_tolerance`] of its max-min rate, in
    /// rounds, if it did by the end of the run.
    pub rate_convergence_rounds: Option<f64>,
    /// When the flow set stabilized / the last drop happened, in rounds from the start.
    pub reference_round: f64,
    /// `N_1`, `N_2`, `N_∞` of the final flow set (k-Water-filling, s-PERC Algorithm 1).
    pub n1: u32,
    /// `N_2`.
    pub n2: u32,
    /// `N_∞`.
    pub ninf: u32,
    /// Convergence took more than `6·N_2` rounds (the s-PERC bound, Theorem 4), or never happened.
    pub exceeds_6n2: bool,
    /// Convergence took more than `4·N_1` rounds (the *Fair* bound, Theorem 3), or never happened.
    pub exceeds_4n1: bool,
    /// Simulated rounds.
    pub rounds_run: f64,
    /// Link updates (control packet visits) processed.
    pub updates: u64,
    /// Control packets dropped.
    pub drops: u64,
    /// Largest relative error `|rate − oracle| / oracle` of the final rates.
    pub max_rel_error: f64,
    /// Rate changes at the sources, if asked for.
    pub trace: Vec<TracePoint>,
}

// Event kinds, packed into the low bits of the payload with the flow or link id and the visit.
const EV_VISIT: u64 = 0;
const EV_RETURN: u64 = 1;
const EV_TIMER: u64 = 2;
const EV_CHECK: u64 = 3;

fn ev(kind: u64, id: u32, visit: u32) -> u64 {
    kind | (u64::from(visit) << 2) | (u64::from(id) << 32)
}

fn ev_id(payload: u64) -> usize {
    (payload >> 32) as usize
}

fn ev_visit(payload: u64) -> usize {
    ((payload >> 2) & 0x3fff_ffff) as usize
}

/// Runs `alg` on `p` (unweighted, uncapped: s-PERC §2 assumption 5) with the options `cfg`.
pub fn simulate<A: LinkAlgorithm>(
    p: &Problem,
    alg: &A,
    cfg: &RoundsConfig,
) -> Result<RoundsOutcome> {
    cfg.validate(p.num_flows())?;
    for f in 0..p.num_flows() {
        if p.weights()[f] != 1.0 {
            return Err(Error::invalid(
                format!("flows[{f}].weight"),
                "the PERC algorithms are unweighted max-min (s-PERC §2.1); weights must be 1",
            ));
        }
        if p.demand(f).is_finite() || p.guarantee(f) > 0.0 {
            return Err(Error::invalid(
                format!("flows[{f}]"),
                "the PERC algorithms take no rate caps or guarantees (s-PERC §2 assumption 5)",
            ));
        }
        if p.path(f).is_empty() {
            return Err(Error::invalid(format!("flows[{f}]"), "has an empty path"));
        }
    }
    let mut run = Run::new(p, alg, cfg)?;
    match cfg.delay {
        DelayModel::FixedRtt { .. } => run.drive_periodic(),
        DelayModel::Uniform { min, max } | DelayModel::PerLink { min, max } => {
            run.drive_events(min.0, max.0)
        }
    }
    Ok(run.outcome())
}

/// Every link's fresh state, and each path entry's index among its link's flows (the
/// per-flow link state of *Fair*).
fn new_links<A: LinkAlgorithm>(p: &Problem, alg: &A) -> (Vec<A::Link>, Vec<u32>) {
    let path = p.path_links();
    let mut count = vec![0usize; p.num_links()];
    let mut local = vec![0u32; path.len()];
    for (s, &l) in path.iter().enumerate() {
        local[s] = count[l as usize] as u32;
        count[l as usize] += 1;
    }
    let caps = p.capacities();
    let links = (0..p.num_links())
        .map(|l| alg.new_link(caps[l], count[l]))
        .collect();
    (links, local)
}

/// The path position of visit `k` of a traversal over a path of `len` links: hop `k` on the
/// way out, hop `2·len − 1 − k` on the way back.
fn hop_of(k: usize, len: usize) -> usize {
    if k < len {
        k
    } else {
        2 * len - 1 - k
    }
}

/// What a link visit left the control packet doing.
enum Visited {
    /// On its way to the next link of the traversal.
    Next,
    /// Done with its links, on its way back to the source.
    Complete,
    /// Dropped: the source resends when it times out (one round after sending).
    Dropped,
    /// A FIN that has crossed its last link: the flow is gone.
    Gone,
}

/// The state of one run: links, control packets, flows and the convergence bookkeeping. The
/// two drivers ([`Run::drive_periodic`], [`Run::drive_events`]) only decide *when* its
/// handlers run; what happens at a link, at a source and once a round is written once, here.
struct Run<'a, A: LinkAlgorithm> {
    alg: &'a A,
    cfg: &'a RoundsConfig,
    ptr: &'a [usize],
    path: &'a [u32],
    /// Each path entry's index among its link's flows (per-flow link state of *Fair*).
    local: Vec<u32>,
    links: Vec<A::Link>,
    /// Every flow's control packet: its per-link fields (CSR, like the paths).
    hops: Vec<A::Hop>,
    /// With drops: the copy of every packet the source last sent, to resend.
    saved: Vec<A::Hop>,
    /// Link visits per traversal and path link: 2 with `two_way`, else 1.
    passes: usize,
    round: u64,
    /// Period of the links' timeout action ([`RoundsConfig::timer`]).
    timer_period: u64,
    /// The mean control-packet RTT over the flows.
    mean_rtt: u64,
    horizon: u64,
    drop_end: u64,
    rng: ChaCha8Rng,
    /// [`DelayModel::PerLink`]: every link's delay.
    link_delay: Vec<u64>,
    leaves_at: Vec<f64>,
    staying: Vec<usize>,
    oracle: Vec<f64>,
    counts: (u32, u32, u32),
    sent_at: Vec<u64>,
    fin: Vec<bool>,
    gone: Vec<bool>,
    dropped: Vec<bool>,
    rates: Vec<f64>,
    good_since: Vec<Option<u64>>,
    rate_good_since: Vec<Option<u64>>,
    n_good: usize,
    latest_good: u64,
    reference: u64,
    pending_fins: bool,
    trace: Vec<TracePoint>,
    updates: u64,
    drops: u64,
    now: u64,
}

impl<'a, A: LinkAlgorithm> Run<'a, A> {
    fn new(p: &'a Problem, alg: &'a A, cfg: &'a RoundsConfig) -> Result<Self> {
        let n = p.num_flows();
        let m = p.num_links();
        let ptr = p.path_ptr();
        let path = p.path_links();

        // The flow set at the end, its oracle and k-Water-filling counts.
        let mut leaves_at = vec![f64::INFINITY; n];
        for d in &cfg.departures {
            leaves_at[d.flow as usize] = leaves_at[d.flow as usize].min(d.round);
        }
        let staying: Vec<usize> = (0..n).filter(|&f| leaves_at[f].is_infinite()).collect();
        let mut oracle = vec![0.0; n];
        let counts = if staying.len() == n {
            let a = solve(p);
            oracle.copy_from_slice(&a.rates);
            let c = iteration_counts(p, &a);
            (c.k1, c.k2, c.kinf)
        } else {
            let paths: Vec<Vec<u32>> = staying.iter().map(|&f| p.path(f).to_vec()).collect();
            let q = Problem::new(ProblemInput::from_paths(p.capacities().to_vec(), &paths))?;
            let a = solve(&q);
            for (i, &f) in staying.iter().enumerate() {
                oracle[f] = a.rates[i];
            }
            let c = iteration_counts(&q, &a);
            (c.k1, c.k2, c.kinf)
        };

        let (links, local) = new_links(p, alg);
        let hops: Vec<A::Hop> = vec![alg.initial_hop(); path.len()];
        let saved = if cfg.drop_probability > 0.0 {
            hops.clone()
        } else {
            Vec::new()
        };

        // Link visits per traversal: the path, and with `two_way` the path again in reverse.
        let passes = if cfg.two_way { 2 } else { 1 };
        let max_len = passes * (0..n).map(|f| ptr[f + 1] - ptr[f]).max().unwrap_or(1);
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let bound = |max: Time| {
            max.0.checked_mul(max_len as u64 + 1).ok_or_else(|| {
                Error::invalid(
                    "engine.delay.max",
                    "the round (max × (path length + 1)) overflows",
                )
            })
        };
        // `PerLink`: flow `f`'s RTT, every link of its path (twice with `two_way`).
        let per_link_rtt = |link_delay: &[u64], f: usize| -> u64 {
            passes as u64
                * path[ptr[f]..ptr[f + 1]]
                    .iter()
                    .map(|&l| link_delay[l as usize])
                    .sum::<u64>()
        };
        let mut link_delay = Vec::new();
        let round = match cfg.delay {
            DelayModel::FixedRtt { rtt } => rtt.0,
            DelayModel::Uniform { max, .. } => bound(max)?,
            DelayModel::PerLink { min, max } => {
                bound(max)?;
                link_delay = (0..m).map(|_| rng.gen_range(min.0..=max.0)).collect();
                // The largest RTT.
                (0..n)
                    .map(|f| per_link_rtt(&link_delay, f))
                    .max()
                    .unwrap_or(0)
                    .max(1)
            }
        };
        // Each flow's mean traversal time: its visits plus the return, each hop's delay at its
        // mean (uniform), or the sum of its links' delays (per link); averaged over the flows.
        let flow_mean_rtt = |f: usize| -> f64 {
            match cfg.delay {
                DelayModel::FixedRtt { rtt } => rtt.0 as f64,
                DelayModel::Uniform { min, max } => {
                    let visits = passes * (ptr[f + 1] - ptr[f]);
                    (visits + 1) as f64 * (min.0 + max.0) as f64 / 2.0
                }
                DelayModel::PerLink { .. } => per_link_rtt(&link_delay, f) as f64,
            }
        };
        let mean_rtt =
            ((0..n).map(flow_mean_rtt).sum::<f64>() / n.max(1) as f64).clamp(1.0, round as f64);
        let mean_rtt = mean_rtt as u64;
        let timer_period = match cfg.timer {
            LinkTimer::Round => round,
            LinkTimer::MeanRtt => mean_rtt,
        };
        let horizon = round
            .checked_mul(u64::from(cfg.max_rounds) + 1)
            .ok_or_else(|| {
                Error::invalid(
                    "engine.max_rounds",
                    "max_rounds × the round length overflows the simulated time (u64 picoseconds)",
                )
            })?
            - round;
        Ok(Run {
            alg,
            cfg,
            ptr,
            path,
            local,
            links,
            hops,
            saved,
            passes,
            round,
            timer_period,
            mean_rtt,
            horizon,
            drop_end: (cfg.drop_rounds * round as f64) as u64,
            rng,
            link_delay,
            pending_fins: staying.len() < n,
            leaves_at,
            staying,
            oracle,
            counts,
            sent_at: vec![0; n],
            fin: vec![false; n],
            gone: vec![false; n],
            dropped: vec![false; n],
            rates: vec![0.0; n],
            good_since: vec![None; n],
            rate_good_since: vec![None; n],
            n_good: 0,
            latest_good: 0,
            reference: 0,
            trace: Vec::new(),
            updates: 0,
            drops: 0,
            now: 0,
        })
    }

    fn num_flows(&self) -> usize {
        self.ptr.len() - 1
    }

    /// Link visits of flow `f`'s current traversal. A FIN goes out only (see
    /// [`RoundsConfig::two_way`]).
    fn visits(&self, f: usize) -> usize {
        let len = self.ptr[f + 1] - self.ptr[f];
        if self.fin[f] {
            len
        } else {
            self.passes * len
        }
    }

    /// Visit `k` of flow `f`'s current traversal, at `t`: hop `k` on the way out, hop
    /// `2·len − 1 − k` on the way back.
    fn visit(&mut self, f: usize, k: usize, t: u64) -> Visited {
        let cfg = self.cfg;
        if cfg.drop_probability > 0.0
            && t < self.drop_end
            && self.rng.gen::<f64>() < cfg.drop_probability
        {
            self.drops += 1;
            self.reference = self.reference.max(t);
            self.dropped[f] = true;
            return Visited::Dropped;
        }
        let (lo, hi) = (self.ptr[f], self.ptr[f + 1]);
        let len = hi - lo;
        let hop = hop_of(k, len);
        let s = lo + hop;
        self.updates += 1;
        let u = Update {
            flow: f as u32,
            hop,
            local: self.local[s],
            leaving: self.fin[f],
        };
        let link = &mut self.links[self.path[s] as usize];
        self.alg.process(link, u, &mut self.hops[lo..hi]);
        if k + 1 < self.visits(f) {
            return Visited::Next;
        }
        if self.fin[f] {
            self.gone[f] = true;
            self.rates[f] = 0.0;
            self.reference = self.reference.max(t);
            return Visited::Gone;
        }
        // The traversal is complete: is the flow allocated its max-min rate everywhere?
        let target = self.oracle[f];
        let close = |x: f64| (x - target).abs() <= cfg.tolerance * target;
        let pk = &self.hops[lo..hi];
        let stays = self.leaves_at[f].is_infinite();
        let ok = stays && pk.iter().all(|h| close(self.alg.allocation(h)));
        // The weaker criterion: the sending rate this packet will set (min x) is close.
        let rate = self.min_allocation(f);
        if stays && (rate - target).abs() <= cfg.rate_tolerance * target {
            self.rate_good_since[f].get_or_insert(t);
        } else {
            self.rate_good_since[f] = None;
        }
        match (ok, self.good_since[f]) {
            (true, None) => {
                self.good_since[f] = Some(t);
                self.n_good += 1;
                self.latest_good = self.latest_good.max(t);
            }
            (false, Some(_)) => {
                self.good_since[f] = None;
                self.n_good -= 1;
            }
            _ => {}
        }
        Visited::Complete
    }

    /// The smallest allocation `x` in flow `f`'s packet.
    fn min_allocation(&self, f: usize) -> f64 {
        self.hops[self.ptr[f]..self.ptr[f + 1]]
            .iter()
            .map(|h| self.alg.allocation(h))
            .fold(f64::INFINITY, f64::min)
    }

    /// Flow `f`'s source at `t`: its packet is back (the rate becomes the minimum allocation,
    /// assumption 10), or it was dropped and the source timed out (it resends its last copy).
    /// Either way the next control packet leaves at once.
    fn at_source(&mut self, f: usize, t: u64) {
        let (lo, hi) = (self.ptr[f], self.ptr[f + 1]);
        if self.dropped[f] {
            self.dropped[f] = false;
            self.hops[lo..hi].clone_from_slice(&self.saved[lo..hi]);
        } else {
            let r = self.min_allocation(f);
            if self.cfg.trace && r != self.rates[f] {
                self.trace.push(TracePoint {
                    time: Time(t),
                    flow: f as u32,
                    rate: r,
                });
            }
            self.rates[f] = r;
            if !self.saved.is_empty() {
                self.saved[lo..hi].clone_from_slice(&self.hops[lo..hi]);
            }
        }
        // The packet carries a FIN once the flow's departure round has come.
        self.sent_at[f] = t;
        if t as f64 >= self.leaves_at[f] * self.round as f64 {
            self.fin[f] = true;
        }
    }

    /// Once per round: whether everything has settled, so the run can stop early.
    fn settled(&mut self, t: u64) -> bool {
        if self.pending_fins {
            self.pending_fins =
                !(0..self.num_flows()).all(|f| self.leaves_at[f].is_infinite() || self.gone[f]);
        }
        !self.pending_fins
            && t >= self.drop_end.min(self.horizon)
            && self.n_good == self.staying.len()
            && self.cfg.stable_rounds > 0
            && t >= self.latest_good + self.round * u64::from(self.cfg.stable_rounds)
    }

    /// [`DelayModel::FixedRtt`]: every flow starts at 0 and every RTT is exactly one round, so
    /// traversal `r` of every flow happens in `[r·rtt, (r+1)·rtt]` with its link visits at the
    /// same offsets every round, and the link timers fire at the same phases. One round's events
    /// are sorted once and replayed round after round; events of flows that left, of dropped
    /// packets and the return visits of a FIN are skipped. (The same schedule through a heap
    /// cost half the run time, s-PERC Fig. 6 sweep.)
    fn drive_periodic(&mut self) {
        let n = self.num_flows();
        let rtt = self.round;
        let mut events: Vec<(u64, u64)> = Vec::with_capacity(self.passes * self.path.len() + n);
        let mut gaps = Vec::new();
        for f in 0..n {
            let visits = self.passes * (self.ptr[f + 1] - self.ptr[f]);
            // Visit k at rtt · (g_0 + … + g_k) / (g_0 + … + g_V), the return at rtt.
            gaps.clear();
            gaps.extend((0..=visits).map(|_| self.rng.gen::<f64>() + 1e-9));
            let total: f64 = gaps.iter().sum();
            let mut acc = 0.0;
            for (k, g) in gaps[..visits].iter().enumerate() {
                acc += g;
                let offset = ((rtt as f64) * acc / total) as u64;
                events.push((offset.min(rtt), ev(EV_VISIT, f as u32, k as u32)));
            }
            events.push((rtt, ev(EV_RETURN, f as u32, 0)));
        }
        if A::HAS_TIMEOUT {
            for l in 0..self.links.len() {
                let phase = self.rng.gen_range(0..rtt);
                events.push((phase, ev(EV_TIMER, l as u32, 0)));
            }
        }
        events.push((rtt, ev(EV_CHECK, 0, 0)));
        // Ties: a flow's visits in order, before its return.
        events.sort_unstable_by_key(|&(offset, payload)| (offset, payload & 3, payload));

        let mut start = 0u64;
        loop {
            for &(offset, payload) in &events {
                let t = start + offset;
                if t > self.horizon {
                    return;
                }
                self.now = t;
                let id = ev_id(payload);
                match payload & 3 {
                    EV_VISIT => {
                        let k = ev_visit(payload);
                        if !(self.gone[id] || self.dropped[id] || k >= self.visits(id)) {
                            self.visit(id, k, t);
                        }
                    }
                    EV_RETURN => {
                        if !self.gone[id] {
                            self.at_source(id, t);
                        }
                    }
                    EV_TIMER => self.alg.on_round(&mut self.links[id]),
                    _ => {
                        if self.settled(t) {
                            return;
                        }
                    }
                }
            }
            start += rtt;
        }
    }

    /// [`DelayModel::Uniform`]: every hop and the return take a fresh delay in `[min, max]`, so
    /// the schedule changes every traversal: a discrete-event loop over the calendar queue the
    /// packet engine uses (same `(time, scheduling order)` order as a binary heap, at about a
    /// third of its cost here).
    fn drive_events(&mut self, min: u64, max: u64) {
        let n = self.num_flows();
        let round = self.round;
        // Times of the current traversal of every flow: its link visits, then the return.
        let sched_ptr: Vec<usize> = (0..=n).map(|f| self.passes * self.ptr[f] + f).collect();
        let mut sched = vec![0u64; self.passes * self.path.len() + n];
        let (ptr, path) = (self.ptr, self.path);
        // Moved out of `self` (nothing else reads it) so `plan` can borrow it while the loop
        // below mutates `self`.
        let link_delay = std::mem::take(&mut self.link_delay);
        let plan = |f: usize, t0: u64, rng: &mut ChaCha8Rng, sched: &mut [u64]| {
            let slots = &mut sched[sched_ptr[f]..sched_ptr[f + 1]];
            let visits = slots.len() - 1;
            let len = ptr[f + 1] - ptr[f];
            let mut t = t0;
            for (k, slot) in slots.iter_mut().enumerate() {
                t += if !link_delay.is_empty() {
                    // Reaching the link of visit k takes its delay; the return nothing more.
                    if k < visits {
                        link_delay[path[ptr[f] + hop_of(k, len)] as usize]
                    } else {
                        0
                    }
                } else if min == max {
                    min
                } else {
                    rng.gen_range(min..=max)
                };
                *slot = t;
            }
            sched[sched_ptr[f]]
        };
        let mut queue: EventQueue<u64> = EventQueue::new();
        let push = |queue: &mut EventQueue<u64>, t: u64, payload: u64| queue.push(Time(t), payload);

        // Every flow starts at time 0 (§8.1.1 "all flows start at once").
        for f in 0..n {
            let t = plan(f, 0, &mut self.rng, &mut sched);
            push(&mut queue, t, ev(EV_VISIT, f as u32, 0));
        }
        if A::HAS_TIMEOUT {
            for l in 0..self.links.len() {
                let phase = self.rng.gen_range(0..self.timer_period);
                push(&mut queue, phase, ev(EV_TIMER, l as u32, 0));
            }
        }
        push(&mut queue, round, ev(EV_CHECK, 0, 0));

        while let Some((Time(t), payload)) = queue.pop() {
            if t > self.horizon {
                break;
            }
            self.now = t;
            let id = ev_id(payload);
            match payload & 3 {
                EV_VISIT => {
                    let k = ev_visit(payload);
                    match self.visit(id, k, t) {
                        Visited::Next => {
                            let t = sched[sched_ptr[id] + k + 1];
                            push(&mut queue, t, ev(EV_VISIT, id as u32, k as u32 + 1));
                        }
                        Visited::Complete => {
                            push(
                                &mut queue,
                                sched[sched_ptr[id + 1] - 1],
                                ev(EV_RETURN, id as u32, 0),
                            );
                        }
                        // The source times out one round after sending.
                        Visited::Dropped => {
                            push(
                                &mut queue,
                                self.sent_at[id] + round,
                                ev(EV_RETURN, id as u32, 0),
                            );
                        }
                        Visited::Gone => {}
                    }
                }
                EV_RETURN => {
                    self.at_source(id, t);
                    let t = plan(id, t, &mut self.rng, &mut sched);
                    push(&mut queue, t, ev(EV_VISIT, id as u32, 0));
                }
                EV_TIMER => {
                    self.alg.on_round(&mut self.links[id]);
                    push(
                        &mut queue,
                        t + self.timer_period,
                        ev(EV_TIMER, id as u32, 0),
                    );
                }
                _ => {
                    if self.settled(t) {
                        break;
                    }
                    push(&mut queue, t + round, ev(EV_CHECK, 0, 0));
                }
            }
        }
    }

    fn outcome(self) -> RoundsOutcome {
        let converged = self.n_good == self.staying.len() && !self.pending_fins;
        let reference = self.reference;
        let round = self.round;
        let in_rounds = |t: u64| t.saturating_sub(reference) as f64 / round as f64;
        let convergence_rounds = converged.then(|| {
            let last = self
                .staying
                .iter()
                .filter_map(|&f| self.good_since[f])
                .max()
                .unwrap_or(0);
            in_rounds(last)
        });
        let rate_convergence_rounds = self
            .staying
            .iter()
            .map(|&f| self.rate_good_since[f])
            .collect::<Option<Vec<u64>>>()
            .map(|v| in_rounds(v.into_iter().max().unwrap_or(0)));
        let mut max_rel_error = 0.0f64;
        for &f in &self.staying {
            max_rel_error =
                max_rel_error.max((self.rates[f] - self.oracle[f]).abs() / self.oracle[f]);
        }
        let exceeds = |bound: u32| convergence_rounds.is_none_or(|c| c > f64::from(bound));
        let (n1, n2, ninf) = self.counts;
        RoundsOutcome {
            round: Time(round),
            mean_rtt: Time(self.mean_rtt),
            rates: self.rates,
            oracle: self.oracle,
            converged,
            convergence_rounds,
            rate_convergence_rounds,
            reference_round: reference as f64 / round as f64,
            n1,
            n2,
            ninf,
            exceeds_6n2: exceeds(6 * n2),
            exceeds_4n1: exceeds(4 * n1),
            rounds_run: self.now as f64 / round as f64,
            updates: self.updates,
            drops: self.drops,
            max_rel_error,
            trace: self.trace,
        }
    }
}

/// Replays a scripted sequence of link updates (no delays, no engine), for worked examples
/// such as s-PERC Table 4. `script` lists `(flow, hop)` in processing order; an entry
/// `(u32::MAX, link)` fires link `link`'s round timeout. `observe` sees, for every update, the
/// link's state *before* it, the flow, the hop and the packet's fields *after* it.
pub fn replay<A: LinkAlgorithm>(
    p: &Problem,
    alg: &A,
    script: &[(u32, usize)],
    mut observe: impl FnMut(&A::Link, u32, usize, &[A::Hop]),
) where
    A::Link: Clone,
{
    let ptr = p.path_ptr();
    let path = p.path_links();
    let (mut links, local) = new_links(p, alg);
    let mut hops = vec![alg.initial_hop(); path.len()];
    for &(f, k) in script {
        if f == u32::MAX {
            alg.on_round(&mut links[k]);
            continue;
        }
        let f = f as usize;
        let s = ptr[f] + k;
        let l = path[s] as usize;
        let before = links[l].clone();
        let u = Update {
            flow: f as u32,
            hop: k,
            local: local[s],
            leaving: false,
        };
        alg.process(&mut links[l], u, &mut hops[ptr[f]..ptr[f + 1]]);
        observe(&before, f as u32, k, &hops[ptr[f]..ptr[f + 1]]);
    }
}
