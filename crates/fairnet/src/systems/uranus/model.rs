//! WVCC's fluid model (Uranus §4.4, Eqs. 8–12) and the AC/DC model beside it (Eq. 17), on the
//! model engine ([`crate::engine::model`]; `fairnet model list`: `wvcc_fluid`, `acdc_fluid`).
//!
//! ```text
//! dWᵢ/dt = wᵢ/R(t) − Wᵢ(t)·αᵢ(t)/(2R(t)) · p(t − R*)                     (8)  window, packets
//! dαᵢ/dt = g/R(t) · (p(t − R*) − αᵢ(t))                                     (10) congestion estimate
//! dq/dt  = Σᵢ Wᵢ(t)/R(t) − C                                                (11) queue, packets
//! R(t) = d + q(t)/C,   p(t) = 1{q(t) > K},   R* = d + K/C                   (12)
//! ```
//!
//! (8) is Eq. (7)'s weighted additive increase — `w/cwnd*` per ACK, `wᵢ` packets per round
//! trip — and its cut `W(1 − α/2)` once per round trip while marks arrive; (10) is DCTCP's EWMA
//! (Eq. 9) once per round trip. The steady-state analysis (Eqs. 13–16) freezes `R*` and `α` and
//! balances one round trip's increase against its cut: `wᵢ = α·Wᵢ*/2`, so `Wᵢ* ∝ wᵢ` (Eq. 16),
//! and with one `R` for all flows the rates `Wᵢ/R` are in the ratio of the weights.
//!
//! AC/DC (Eq. 17, from its back-off `rwnd ← rwnd·[1 − α(1 − β/2)]`, Eq. 6): the increase is
//! DCTCP's one packet per round trip and the cut is scaled by `1 − βᵢ/2`:
//! `dWᵢ/dt = 1/R − Wᵢ·αᵢ·(1 − βᵢ/2)/(2R) · p(t − R*)`. The same balance gives
//! `Wᵢ* ∝ 1/(1 − βᵢ/2)`: ordered by β, not proportional to it ([`FluidLaw::window_shares`]).
//!
//! **Why Eq. 16 is exact here, not only on average.** With one `d` for all flows every `αᵢ`
//! follows the same equation (10) and forgets its start, and `uᵢ = Wᵢ/wᵢ` obeys
//! `duᵢ/dt = 1/R − uᵢ·α·p/(2R)`, the same for every flow and contracting (the cut pulls the
//! `uᵢ` together): the windows converge to `wᵢ·u(t)` at every instant, whatever their start.
//! For AC/DC no such change of variables exists (`vᵢ = Wᵢ(1 − βᵢ/2)` has increase
//! `(1 − βᵢ/2)/R`), so Eq. 17's shares hold only as far as `W` is constant over a cycle.
//!
//! Both are [`EcnWindowFluid`], the DCTCP fluid model of [`crate::schemes::dctcp_fluid`] with a
//! per-flow increase and cut: `wvcc_fluid` with every weight 1 is `dctcp_fluid` by
//! construction. Choices the paper leaves open (its MATLAB code, [46], is not at hand; these
//! follow its text and the DCTCP model):
//! - **Parameters** (§4.4 gives none for Fig. 5(a)): DCTCP's 10 Gb/s, `K = 65` packets and
//!   `g = 1/16` (DCTCP §3.4), `d = 100 µs`, 1048-byte packets (the packet engine's), four
//!   flows (Fig. 5(a)); the weights default to 1 each (DCTCP's unit increase) and are given
//!   per flow (`weights = [0.2, 0.4, 0.6, 0.8]`, Fig. 5(a)'s [1, 2, 3, 4]/5).
//! - **Empty queue**: (11) is projected at `q = 0` and the instants the queue empties and
//!   starts to fill are located by undelayed switches, as in the DCTCP fluid model.
//! - **Unequal round trips** (beyond the paper, whose `d` is "the propagation delay for all
//!   the flows"): `rtt_factors` gives flow `i` the propagation delay `dᵢ = d·factorᵢ`, with
//!   `Rᵢ(t) = dᵢ + q/C` in its increase, cut, EWMA and rate, and marks seen after
//!   `Rᵢ* = dᵢ + K/C`. The balance of (13)–(14) is per flow over its own round trip and
//!   does not involve `R`: windows stay ∝ `wᵢ`, so rates are ∝ `wᵢ/Rᵢ` (see
//!   `docs/systems/uranus.md`, unequal RTTs).
//! - **AC/DC in the full model**: Eq. 17 is written with the frozen `R*` and `α` of Eq. 13; the
//!   `acdc_fluid` model puts its cut into Eq. 12 (time-varying `R(t)`, `αᵢ(t)`, the delayed
//!   indicator), so the two laws are integrated alike. β must be in (0, 1], as the packet shim.
//! - **Weights**: any positive numbers (Eq. 7 writes `w < 1`; only ratios matter to shares).
//! - **Start**: `W = 10` packets (the packet engine's initial window), `α = 1`, `q = 0`; Fig.
//!   5(a)'s "random initial window" is given with `[engine.initial] W = [...]`.

use crate::engine::model::{ParamSpec, ParamUnit, Params};
use crate::error::{Error, Result};
use crate::schemes::dctcp_fluid::{marking_threshold, Bottleneck, EcnWindowFluid};

/// The parameters of [`weighted_fluid`], shared by `wvcc_fluid` and `acdc_fluid`.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "flows",
        unit: ParamUnit::Count,
        default: Some(4.0),
        doc: "number of long-lived flows N (default 4, Uranus Fig. 5(a))",
    },
    ParamSpec {
        name: "weights",
        unit: ParamUnit::Numbers,
        default: Some(1.0),
        doc: "per flow: WVCC's weight w (Eq. 7), AC/DC's priority beta in (0, 1] (Eq. 6); \
              one number for all or one per flow (default 1)",
    },
    ParamSpec {
        name: "capacity",
        unit: ParamUnit::BitsPerSecond,
        default: Some(10e9),
        doc: "bottleneck capacity C (default 10 Gb/s, DCTCP §4)",
    },
    ParamSpec {
        name: "rtt",
        unit: ParamUnit::Seconds,
        default: Some(100e-6),
        doc: "round-trip propagation delay d, without queueing (default 100 us)",
    },
    ParamSpec {
        name: "rtt_factors",
        unit: ParamUnit::Numbers,
        default: Some(1.0),
        doc: "per flow: its propagation delay is rtt times this (beyond the paper; default 1)",
    },
    ParamSpec {
        name: "k",
        unit: ParamUnit::Number,
        default: Some(65.0),
        doc: "marking threshold K in packets (default 65, DCTCP §3.4 at 10 Gb/s)",
    },
    ParamSpec {
        name: "g",
        unit: ParamUnit::Number,
        default: Some(1.0 / 16.0),
        doc: "EWMA gain g in (0, 1) (Uranus §4.4; default 1/16, DCTCP §3.4)",
    },
    ParamSpec {
        name: "packet",
        unit: ParamUnit::Bytes,
        default: Some(1048.0),
        doc: "wire bytes per packet (default 1000 B payload + 48 B headers)",
    },
    ParamSpec {
        name: "link",
        unit: ParamUnit::Count,
        default: Some(0.0),
        doc: "the bottleneck's link id in a compared packet run (queues.parquet)",
    },
];

/// Paper and equations of `wvcc_fluid`, for `fairnet model list`.
pub const WVCC_PAPER: &str = "Uranus (WVCC), §4.4 eqs. (8)-(12), steady state (13)-(16)";
/// `wvcc_fluid` in one line.
pub const WVCC_EQUATION: &str = "W_i' = w_i/R - W_i·a_i/(2R)·p(t-R*), a_i' = g/R·(p(t-R*) - a_i), \
                                 q' = sum W_i/R - C, p = 1{q > K}, R = d + q/C";
/// Paper and equation of `acdc_fluid`.
pub const ACDC_PAPER: &str = "Uranus (WVCC), §4.4 eq. (17): AC/DC (He et al., SIGCOMM 2016) \
                              in the fluid model of eq. (12)";
/// `acdc_fluid` in one line.
pub const ACDC_EQUATION: &str = "W_i' = 1/R - W_i·a_i·(1 - b_i/2)/(2R)·p(t-R*), \
                                 a_i' = g/R·(p(t-R*) - a_i), q' = sum W_i/R - C";

/// Which window law the flows follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FluidLaw {
    /// WVCC, Eq. (8): increase `wᵢ` per round trip, cut `α/2`.
    Wvcc,
    /// AC/DC, Eq. (17): increase 1 per round trip, cut `α(1 − βᵢ/2)/2`.
    Acdc,
}

impl FluidLaw {
    /// Per flow, the packets added per round trip and the scale of the `α/2` cut: WVCC's
    /// Eq. (8) `(wᵢ, 1)`, AC/DC's Eq. (17) `(1, 1 − βᵢ/2)`.
    pub fn increase_and_cut(self, weights: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let n = weights.len();
        match self {
            FluidLaw::Wvcc => (weights.to_vec(), vec![1.0; n]),
            FluidLaw::Acdc => (
                vec![1.0; n],
                weights.iter().map(|b| 1.0 - b / 2.0).collect(),
            ),
        }
    }

    /// The steady-state window shares of the paper's analysis: Eq. (16), `Wᵢ* ∝ wᵢ`, or Eq.
    /// (17), `Wᵢ* ∝ 1/(1 − βᵢ/2)` (the balance `increase = α·Wᵢ*·cut factor/2`).
    pub fn window_shares(self, weights: &[f64]) -> Vec<f64> {
        let raw: Vec<f64> = match self {
            FluidLaw::Wvcc => weights.to_vec(),
            FluidLaw::Acdc => weights.iter().map(|b| 1.0 / (1.0 - b / 2.0)).collect(),
        };
        let sum: f64 = raw.iter().sum();
        raw.iter().map(|x| x / sum).collect()
    }
}

/// The fluid model of `N` WVCC (or AC/DC) flows through one bottleneck (see the module doc):
/// the ECN window system of [`EcnWindowFluid`] with the law's increase and cut per flow.
/// Ranges are checked here; errors name the field (`engine.params.weights: flow 2: …`).
pub fn weighted_fluid(law: FluidLaw, p: &Params) -> Result<EcnWindowFluid> {
    let flows = p.positive("flows")? as usize;
    let weights = p.per_entry("weights", flows)?;
    for (i, &w) in weights.iter().enumerate() {
        let ok = match law {
            FluidLaw::Wvcc => w > 0.0 && w.is_finite(),
            FluidLaw::Acdc => w > 0.0 && w <= 1.0,
        };
        if !ok {
            let want = match law {
                FluidLaw::Wvcc => "a weight must be a positive number",
                FluidLaw::Acdc => "AC/DC's priority beta must be in (0, 1]",
            };
            return Err(Error::invalid(
                "engine.params.weights",
                format!("flow {i}: {want}, got {w}"),
            ));
        }
    }
    let d0 = p.positive("rtt")?;
    let factors = p.per_entry("rtt_factors", flows)?;
    if let Some((i, f)) = factors
        .iter()
        .enumerate()
        .find(|(_, f)| !(**f > 0.0 && f.is_finite()))
    {
        return Err(Error::invalid(
            "engine.params.rtt_factors",
            format!("flow {i}: must be a positive number, got {f}"),
        ));
    }
    let k = marking_threshold(p)?;
    let g = p.get("g");
    if !(g > 0.0 && g < 1.0) {
        return Err(Error::invalid(
            "engine.params.g",
            format!("must be in (0, 1) (Uranus §4.4), got {g}"),
        ));
    }
    let packet = p.positive("packet")?;
    let (increase, cut) = law.increase_and_cut(&weights);
    Ok(EcnWindowFluid::new(
        increase,
        cut,
        factors.iter().map(|f| d0 * f).collect(),
        Bottleneck {
            c: p.positive("capacity")? / (8.0 * packet),
            k,
            g,
            packet,
            link: p.get("link") as u32,
        },
    ))
}

#[cfg(test)]
mod tests;
