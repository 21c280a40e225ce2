//! s-PERC: *A Distributed Algorithm to Calculate Max-Min Fair Rates Without Per-Flow State*
//! (Jose, Ibanez, Alizadeh, McKeown, POMACS 2019; `s-perc.txt`).
//!
//! # What is implemented
//!
//! Five link algorithms for the [rounds engine](crate::engine::rounds) (which is the paper's
//! numerical simulator of §8.1: control packets only, random per-link delays):
//!
//! | algorithm | paper | link state | packet fields (per link) |
//! | --- | --- | --- | --- |
//! | [`Fair`] | §4, Algorithm 2 | limit rate `e` per flow | `b`, `x` |
//! | [`NPerc`] | §5, Algorithm 3 | `SumE`, `NumB` | `b`, `x`, `s` |
//! | [`SPerc`] | §6, Algorithms 4–5 | `SumE`, `NumB`, `MaxE`, `MaxE'` | `b`, `x`, `s`, `i` |
//! | [`SPercBasic`] | the authors' simulator (Fig. 6's curve) | as [`SPerc`] | `p`, `x`, `s` |
//! | [`SPercStar`] | §7.1, App. D.2, Algorithms 6–7 | + `SumE'`, `NumB'`, round `T` | + round `t` |
//!
//! plus approximate division by lookup table ([`division`], §7.1 "Division in hardware",
//! §8.1.2 table sizes 20/80/320 KB), a serde configuration ([`RoundsSpec`], the scenario's
//! `[engine]` with `kind = "rounds"`; the registry's `crate::registry::rounds::run_rounds` picks the algorithm it names). The random
//! routing matrices of Fig. 6 are [`crate::engine::rounds::random_matrix`]. SL \[46\], the fourth
//! algorithm of Fig. 6, is not implemented.
//!
//! The same [`SPercStar`] code runs per port on the packet engine ([`packet`]: control packets,
//! headroom, control-rate limit, `Tx_ctrl` round estimation; `transport = "sperc"`), where
//! [`convergence`] runs §8.2.1's convergence-time experiment against RCP: [`fig7`] in the
//! datacenter (Fig. 7), [`wan`] on the B4 WAN (Fig. 8, Table 5).
//!
//! The paper's words for the shared template (§3): "Step 1: the link assumes the flow is going to
//! be bottlenecked here and computes bottleneck rate b … Step 2: the link determines e, the
//! lowest bottleneck rate that the flow gets from any other link … Step 3: x = min(b, e) …
//! Step 4: the link updates its local state, and the control packet". Bounds: *Fair* converges
//! within `4·N_1` rounds (Theorem 3), s-PERC within `6·N_2` (Theorem 4), n-PERC has no known
//! bound. The rounds engine reports both flags on every run.
//!
//! # Where the paper is ambiguous or inconsistent, and what we chose
//!
//! 1. **Algorithm 2 line 4, "let e⁽ⁱ⁾ denote the ith largest rate".** The loop of lines 6–9
//!    moves a flow to E while the fair rate exceeds its limit rate; walking from the largest
//!    would stop at once (the flow itself is at ∞) and give `c/n` even when a flow is limited far
//!    below it. §4.1 and Eq. (2) (`E_b = {f | e_f < b}`) describe the ascending walk, so we sort
//!    ascending ("ith smallest"). The condition of line 6 is evaluated as `(c − SumE) > e·NumB`.
//! 2. **Algorithm 6 line 13, "if t\[l\] = T then NumB' ← NumB' + 1".** Taken literally, a flow in E
//!    first seen in a round never enters `NumB'` yet leaves it at line 29 if it stays in E, so
//!    `NumB'` (and `NumB` after the sync of Algorithm 7) would be one short per such flow and
//!    s-PERC* could not converge. The shadow counters must count the flows seen in this round,
//!    so we increment `NumB'` unconditionally at line 13 (the `t[l] = T` test belongs to
//!    line 11 only).
//! 3. **Division by `NumB = 0`.** With drops (s-PERC*'s sync of Algorithm 7 can leave out a flow
//!    whose packet was lost, and counters of s-PERC/n-PERC drift when a traversal is lost) `NumB`
//!    can reach 0 or below while a flow still counts itself in B. Every algorithm divides by
//!    `max(NumB, 1)`. Without drops `NumB ≥ 1` at line 9 always, so this changes nothing there.
//! 4. **Lost control packets** (§7.1 "Handling dropped control packets"): the source "detects
//!    dropped control packets using a timeout". The paper does not say what the next packet
//!    carries; the host "does not modify the control packet" (§2 assumption 8), so it resends the
//!    last packet it received (the per-link fields as they were before the lost traversal),
//!    one round after sending the lost one.
//! 5. **Round length at the links** (§7.1 "Estimating round"): links learn it from the `Tx_ctrl`
//!    field. We give every link the engine's round (the exact maximum RTT), with a random phase
//!    per link (Appendix C.3). Fig. 6's caption says "s-PERC: 1 round = 1 RTT": the
//!    `sperc-fig6` entry makes every RTT equal (the authors' simulator), so the round is the
//!    RTT. [`RoundsSpec::timer`] = mean RTT resets `MaxE` every mean RTT instead (half a round
//!    under the default uniform delays); s-PERC* cannot use it (its shadow counters need every
//!    flow seen between two syncs).
//! 6. **Ignore-bit initial value.** Algorithm 4 line 2 says `i` is initially 1, §7.1 says a new
//!    flow's packet is "initialized with i = 0", Table 9 shows 1 for real links and 0 for the
//!    virtual link `l₀`. With `b = ∞` initially both mean "not limited here"; we use 1.
//! 7. **Lookup-table layout** (§7.1, §8.1.2): only sizes are given; ours is described in
//!    [`division`]. The prototype updates the link state from the exact comparison
//!    `(c − SumE) < e·NumB` and only the propagated `b` goes through the table; in our
//!    simulations that split does not settle (up to 40% error at 320 KB), so links classify with
//!    the table's quotient too (≈1% error at 320 KB, matching §8.1.2's "within 10%").
//! 8. **Exact comparisons in floating point.** `e < b` (Algorithm 3 line 13, 4 line 18) and
//!    `b < MaxE` (Algorithm 4 line 16) compare rates that are often equal in exact arithmetic;
//!    one ulp of difference made s-PERC cycle forever on 4 of 200 dense Fig. 6b matrices. Both
//!    use a relative tie tolerance of [`division::TIE`] (1e-12).
//! 9. **Not modeled in the rounds engine** (they matter for data, not control packets):
//!    headroom, control-packet rate limits, the virtual link `l₀` for short flows (§7.1). The
//!    [packet-level s-PERC*](packet) models headroom, rate-limited prioritized control packets
//!    and `Tx_ctrl` (its module doc lists its own choices); `l₀` is not implemented.
//! 10. **Which s-PERC Fig. 6 plots.** The paper prints Algorithm 4 ([`SPerc`]); the authors'
//!     plotting notebook plots their simulator's basic variant as "s-PERC" ([`SPercBasic`]:
//!     no ignore bit, the link propagates `max(MaxE, b)`). Both are implemented.

pub mod algorithms;
pub mod convergence;
pub mod division;
pub mod fig7;
pub mod packet;
pub mod wan;

pub use algorithms::{
    AggregateLink, Class, Fair, FairHop, FairLink, NPerc, NPercHop, SPerc, SPercBasic,
    SPercBasicHop, SPercHop, SPercStar, StarLink,
};
pub use division::{Divider, LookupDivision};

use crate::engine::rounds::{DelayModel, Departure, LinkTimer, RoundsConfig};
use crate::error::{Error, Result};
use crate::units::{Bytes, Rate};
use serde::{Deserialize, Serialize};

/// Which link algorithm runs.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// *Fair* (Algorithm 2).
    Fair,
    /// n-PERC (Algorithm 3).
    NPerc,
    /// s-PERC (Algorithms 4–5, with the ignore bit; the authors' `sperc_ignore`).
    #[default]
    SPerc,
    /// s-PERC* (Algorithms 6–7).
    SPercStar,
    /// Basic s-PERC: no ignore bit, the link propagates `max(MaxE, b)` (the authors'
    /// `sperc_basic`, the curve Fig. 6 plots as "s-PERC"; see [`SPercBasic`]).
    SPercBasic,
}

impl Algorithm {
    /// All five: the paper's four in its order, then basic s-PERC.
    pub const ALL: [Algorithm; 5] = [
        Algorithm::Fair,
        Algorithm::NPerc,
        Algorithm::SPerc,
        Algorithm::SPercStar,
        Algorithm::SPercBasic,
    ];

    /// The name used in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Fair => "fair",
            Algorithm::NPerc => "n_perc",
            Algorithm::SPerc => "s_perc",
            Algorithm::SPercStar => "s_perc_star",
            Algorithm::SPercBasic => "s_perc_basic",
        }
    }
}

fn d_max_rounds() -> u32 {
    100
}
fn d_drop_rounds() -> f64 {
    20.0
}
fn d_stable_rounds() -> u32 {
    5
}
fn d_tolerance() -> f64 {
    1e-6
}
fn d_rate_tolerance() -> f64 {
    0.01
}
fn d_two_way() -> bool {
    true
}

/// The scenario's `[engine]` section for `kind = "rounds"`. Defaults are the paper's (§8.1).
///
/// ```toml
/// [engine]
/// kind = "rounds"
/// algorithm = "s_perc"          # fair | n_perc | s_perc | s_perc_star | s_perc_basic
/// # division_table = "320KB"    # approximate division (§8.1.2); default exact
/// # max_rounds = 100            # §8.1.2 runs 100 RTTs
/// # drop_probability = 0.01     # per link, during the first drop_rounds = 20 rounds
/// # delay = { kind = "fixed_rtt", rtt = "10us" }
/// # two_way = true              # links update the packet out and back (§2 assumption 6)
/// # timer = "round"             # MaxE resets every round; "mean_rtt": every mean RTT (Fig. 6)
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundsSpec {
    /// The link algorithm. Default s-PERC.
    #[serde(default)]
    pub algorithm: Algorithm,
    /// Size of the division lookup table; none (default) divides exactly.
    #[serde(default)]
    pub division_table: Option<Bytes>,
    /// Stop after this many rounds. Default 100 (§8.1.2).
    #[serde(default = "d_max_rounds")]
    pub max_rounds: u32,
    /// Per-hop delays. Default: a fresh random delay in `[0, 1 µs]` at every link (§8.1.1); one
    /// round is the largest possible RTT (see [`crate::engine::rounds`]).
    #[serde(default)]
    pub delay: DelayModel,
    /// Per-link control packet drop probability during the first `drop_rounds`. Default 0
    /// (§8.1.2 uses 0.01 and 0.001).
    #[serde(default)]
    pub drop_probability: f64,
    /// Length of the drop window, rounds. Default 20 (§8.1.2).
    #[serde(default = "d_drop_rounds")]
    pub drop_rounds: f64,
    /// Stop early once all flows were correct this many rounds (0: run `max_rounds`). Default 5.
    #[serde(default = "d_stable_rounds")]
    pub stable_rounds: u32,
    /// Relative tolerance of "converged" against the oracle. Default 1e-6.
    #[serde(default = "d_tolerance")]
    pub tolerance: f64,
    /// Relative tolerance of the weaker rate criterion (every flow's sending rate within it of
    /// its max-min rate). Default 0.01, the s-PERC authors' simulator's 1%.
    #[serde(default = "d_rate_tolerance")]
    pub rate_tolerance: f64,
    /// Flows that send a FIN during the run.
    #[serde(default)]
    pub departures: Vec<Departure>,
    /// Record every rate change at the sources.
    #[serde(default)]
    pub trace: bool,
    /// Links process the control packet on its way back too (s-PERC §2 assumption 6: it "goes
    /// back and forth ... across the same set of links"). Default true; false: forward only,
    /// as the paper's WAN runs (§8.2.1).
    #[serde(default = "d_two_way")]
    pub two_way: bool,
    /// How often links reset `MaxE` / `MaxE'` and sync the shadow counters (Algorithms 5, 7):
    /// `"round"` (default: the largest possible RTT, the proof's round) or `"mean_rtt"` (the
    /// mean control-packet RTT, half a round under the default uniform delays; rejected for
    /// `s_perc_star`, whose shadow counters need every flow seen between two syncs). With every
    /// RTT equal (the `sperc-fig6` entry) both are the RTT. Convergence is counted in rounds
    /// either way.
    #[serde(default)]
    pub timer: LinkTimer,
}

impl Default for RoundsSpec {
    fn default() -> Self {
        RoundsSpec {
            algorithm: Algorithm::default(),
            division_table: None,
            max_rounds: d_max_rounds(),
            delay: DelayModel::default(),
            drop_probability: 0.0,
            drop_rounds: d_drop_rounds(),
            stable_rounds: d_stable_rounds(),
            tolerance: d_tolerance(),
            rate_tolerance: d_rate_tolerance(),
            departures: Vec::new(),
            trace: false,
            two_way: d_two_way(),
            timer: LinkTimer::Round,
        }
    }
}

impl RoundsSpec {
    /// The engine options, seeded with `seed`.
    pub fn engine_config(&self, seed: u64) -> RoundsConfig {
        RoundsConfig {
            seed,
            max_rounds: self.max_rounds,
            delay: self.delay,
            drop_probability: self.drop_probability,
            drop_rounds: self.drop_rounds,
            stable_rounds: self.stable_rounds,
            tolerance: self.tolerance,
            rate_tolerance: self.rate_tolerance,
            departures: self.departures.clone(),
            trace: self.trace,
            two_way: self.two_way,
            timer: self.timer,
        }
    }

    /// Checks every option for a problem of `n_flows` flows; errors name the field
    /// (`engine.drop_probability`, `engine.division_table`, …).
    pub fn validate(&self, n_flows: usize) -> Result<()> {
        self.engine_config(0).validate(n_flows)?;
        if self.algorithm == Algorithm::SPercStar && self.timer == LinkTimer::MeanRtt {
            // Measured: on M = 100, N = 300, P = 10 it stalls 33% off the max-min rates.
            return Err(Error::invalid(
                "engine.timer",
                "s_perc_star syncs its shadow counters on the timer and must see every flow \
                 between two syncs: use timer = \"round\" (\"mean_rtt\" misses the slower \
                 flows and never converges)",
            ));
        }
        Divider::new(self.division_table.map(|b| b.0))?;
        Ok(())
    }
}

#[cfg(test)]
mod rounds_engine_tests;
#[cfg(test)]
mod tests;

/// The convergence-time experiment of `figure` (`"fig7"`, `"fig8"` or `"table5"`) at smoke or
/// `full` scale: the presets of [`fig7`] and [`wan`] (`rate` and `replace` are the WAN cable
/// rate and the share of flows replaced per change; Fig. 7 ignores them). An unknown figure
/// is an error naming `at`.
pub fn convergence_preset(
    figure: &str,
    full: bool,
    rate: Rate,
    replace: f64,
    seed: u64,
    at: &str,
) -> Result<convergence::ConvSpec> {
    Ok(match (figure, full) {
        ("fig7", false) => fig7::smoke(seed),
        ("fig7", true) => fig7::full(seed),
        ("fig8", false) => wan::fig8_smoke(rate, replace, seed),
        ("fig8", true) => wan::fig8_full(rate, replace, seed),
        ("table5", false) => wan::table5_smoke(rate, seed),
        ("table5", true) => wan::table5_full(rate, seed),
        (f, _) => {
            return Err(Error::invalid(
                at,
                format!("unknown figure {f:?}; expected \"fig7\", \"fig8\" or \"table5\""),
            ))
        }
    })
}
