//! MAY's mean-field map (§III-A, Eqs. 3–4) for the model engine, with Theorem 3.2's CBR flow.
//!
//! ```text
//! Ū_i(t)   = a_i / √(δ_i(t)·ν(t))                                    (Eq. 1, a_i = β_i/(1−β_i)·√γ_i·A)
//! Σ_i Ū_i  = u₀·C                       ⇒ ν(t) = (Σ_i a_i/√δ_i(t))² / (u₀C)²        (Eq. 3)
//! δ_i(t+1) = (1 − q_w)·δ_i(t) + q_w·a_i·√δ_i(t)·Σ_j (a_j/√δ_j(t)) / (u₀C)            (Eq. 4)
//! ```
//!
//! Theorem 3.1: from any positive start, `z_i = δ_i·u₀C/a_i²` converges to `N` (Eq. 5), so
//! `δ_i → N·a_i²/(u₀C)`, `ν → N/(u₀C)` and every flow's throughput → `u₀C/N` whatever its AIMD
//! parameters (Corollary 3.1). Units: `C` in packets per update period Δ (one iteration), δ in
//! drops per Δ, as the paper's `Ū` and `δ̄` are counts per interval of length Δ.
//!
//! Theorem 3.2 (optional, `cbr > 0`): one CBR flow of `cbr` packets per Δ. Its δ follows the
//! proof's map `δ_c(t+1) = δ_c·((1 − q_w) + q_w·x·ν)` while `δ_c·ν < 1`, and it is shut out
//! (throughput 0) once `δ_c·ν ≥ 1`; otherwise it delivers `x·(1 − δ_c·ν)`. The AIMD flows
//! share what it leaves: Eq. (3) with `u₀C − T_c` on the right, `T_c` taken from the previous
//! iteration (a choice: the paper states the map for AIMD flows alone and the CBR's fate at
//! the fixed point ν*). The CBR flow starts at δ_c = 1, as a new entry (Fig. 1 line 10).
//!
//! The AIMD flows' parameters spread linearly over the flows: `γ_i` from `gamma_min` to
//! `gamma_max`, `β_i` from `beta_min` to `beta_max` (A = 1: it cancels in every throughput).
//! The start is unequal, `δ_i(1) = 1 + i`, so the convergence of Lemmas 3.1–3.3 shows.

use crate::engine::model::{Discrete, Model, OutputSpec, ParamSpec, ParamUnit, Params, StateVar};
use crate::error::{Error, Result};
use rand_chacha::ChaCha8Rng;

/// The parameters of [`MeanField`], with their defaults (§IV's MAY parameters; a link of
/// 10,000 1000-byte packets per 1 s update period, 80 Mb/s).
pub const PARAMS: &[ParamSpec] = &[
    FLOWS, CAPACITY, U0, Q_W, GAMMA_MIN, GAMMA_MAX, BETA_MIN, BETA_MAX, CBR, PERIOD,
];

/// The parameters this map shares with the AIMD Markov chain ([`super::chain`]).
pub(super) const FLOWS: ParamSpec = ParamSpec {
    name: "flows",
    unit: ParamUnit::Count,
    default: Some(10.0),
    doc: "number of AIMD flows N",
};
pub(super) const CAPACITY: ParamSpec = ParamSpec {
    name: "capacity",
    unit: ParamUnit::Number,
    default: Some(10_000.0),
    doc: "link capacity C, packets per update period",
};
pub(super) const U0: ParamSpec = ParamSpec {
    name: "u0",
    unit: ParamUnit::Number,
    default: Some(0.98),
    doc: "desired utilization u0 in (0, 1]",
};
pub(super) const Q_W: ParamSpec = ParamSpec {
    name: "q_w",
    unit: ParamUnit::Number,
    default: Some(0.05),
    doc: "weight of the drop-frequency average q_w in (0, 1)",
};
pub(super) const GAMMA_MIN: ParamSpec = ParamSpec {
    name: "gamma_min",
    unit: ParamUnit::Number,
    default: Some(1.0),
    doc: "additive increase of the first flow",
};
pub(super) const GAMMA_MAX: ParamSpec = ParamSpec {
    name: "gamma_max",
    unit: ParamUnit::Number,
    default: Some(4.0),
    doc: "additive increase of the last flow",
};
pub(super) const BETA_MIN: ParamSpec = ParamSpec {
    name: "beta_min",
    unit: ParamUnit::Number,
    default: Some(0.5),
    doc: "multiplicative decrease of the first flow, in (0, 1)",
};
pub(super) const BETA_MAX: ParamSpec = ParamSpec {
    name: "beta_max",
    unit: ParamUnit::Number,
    default: Some(0.875),
    doc: "multiplicative decrease of the last flow, in (0, 1)",
};
const CBR: ParamSpec = ParamSpec {
    name: "cbr",
    unit: ParamUnit::Number,
    default: Some(0.0),
    doc: "rate of one CBR flow, packets per update period (0: none; Theorem 3.2)",
};
pub(super) const PERIOD: ParamSpec = ParamSpec {
    name: "period",
    unit: ParamUnit::Seconds,
    default: Some(1.0),
    doc: "the update period Δ (simulated time per iteration)",
};

/// Parameter `name` checked to lie in (0, 1) (or (0, 1] with `closed_top`).
pub(super) fn unit_interval(p: &Params, name: &str, closed_top: bool) -> Result<f64> {
    let v = p.get(name);
    if v > 0.0 && (v < 1.0 || (closed_top && v == 1.0)) {
        Ok(v)
    } else {
        let close = if closed_top { "]" } else { ")" };
        Err(Error::invalid(
            format!("engine.params.{name}"),
            format!("must be in (0, 1{close}, got {v}"),
        ))
    }
}

/// The AIMD flows' `(γ_i, β_i)`, spread linearly from `gamma_min`, `beta_min` (flow 0) to
/// `gamma_max`, `beta_max` (flow N − 1).
pub(super) fn aimd_flows(p: &Params) -> Result<Vec<(f64, f64)>> {
    let n = p.positive("flows")? as usize;
    let (g0, g1) = (p.positive("gamma_min")?, p.positive("gamma_max")?);
    let (b0, b1) = (
        unit_interval(p, "beta_min", false)?,
        unit_interval(p, "beta_max", false)?,
    );
    let at = |lo: f64, hi: f64, i: usize| {
        if n == 1 {
            lo
        } else {
            lo + (hi - lo) * i as f64 / (n - 1) as f64
        }
    };
    Ok((0..n).map(|i| (at(g0, g1, i), at(b0, b1, i))).collect())
}

/// The paper and equations, for `fairnet model list`.
pub const PAPER: &str = "Stanojevic and Shorten, Drop counters are enough (MAY), \
                         §III-A Eqs. 3-5 and Theorems 3.1-3.2";
/// The model in one line.
pub const EQUATION: &str = "delta_i <- (1-q_w) delta_i + q_w a_i sqrt(delta_i) \
                            sum_j a_j/sqrt(delta_j) / (u0 C); nu = (sum a_j/sqrt(delta_j))^2/(u0 C)^2";

/// The mean-field map (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct MeanField {
    a: Vec<f64>,
    target: f64,
    q_w: f64,
    cbr: f64,
    period: f64,
    /// The CBR flow's delivered rate in the last iteration (packets per Δ).
    cbr_delivered: f64,
}

impl MeanField {
    /// Builds the map from parsed parameters; ranges are checked here.
    pub fn new(p: &Params) -> Result<MeanField> {
        let cbr = p.get("cbr");
        if !(cbr.is_finite() && cbr >= 0.0) {
            return Err(Error::invalid(
                "engine.params.cbr",
                format!("must be at least 0, got {cbr}"),
            ));
        }
        // Eq. (2): a_i = β_i/(1 − β_i)·√γ_i·A, with A = 1.
        let a = aimd_flows(p)?
            .into_iter()
            .map(|(g, b)| b / (1.0 - b) * g.sqrt())
            .collect();
        Ok(MeanField {
            a,
            target: unit_interval(p, "u0", true)? * p.positive("capacity")?,
            q_w: unit_interval(p, "q_w", false)?,
            cbr,
            period: p.positive("period")?,
            cbr_delivered: 0.0,
        })
    }

    /// ν from Eq. (3), the AIMD flows filling what the CBR flow leaves of u₀C.
    fn nu(&self, delta: &[f64], cbr_delivered: f64) -> f64 {
        let s: f64 = self.a.iter().zip(delta).map(|(a, d)| a / d.sqrt()).sum();
        let room = (self.target - cbr_delivered).max(1e-12);
        (s / room).powi(2)
    }

    /// The CBR flow's delivered rate at drop frequency `dc` and ν.
    fn cbr_rate(&self, dc: f64, nu: f64) -> f64 {
        let p = dc * nu;
        if p >= 1.0 {
            0.0
        } else {
            self.cbr * (1.0 - p)
        }
    }
}

impl Model for MeanField {
    fn state(&self) -> Vec<StateVar> {
        let mut s = vec![StateVar::new("delta", self.a.len(), "drops per period")];
        if self.cbr > 0.0 {
            s.push(StateVar::new("delta_cbr", 1, "drops per period"));
        }
        s
    }

    fn initial_state(&self) -> Vec<f64> {
        let mut y: Vec<f64> = (0..self.a.len()).map(|i| 1.0 + i as f64).collect();
        if self.cbr > 0.0 {
            y.push(1.0);
        }
        y
    }

    fn outputs(&self) -> Vec<OutputSpec> {
        let mut out = vec![
            OutputSpec::plain("nu", "per packet per period"),
            OutputSpec::plain("z_ratio", "1"),
            OutputSpec::plain("fairness", "1"),
            OutputSpec::plain("cbr_throughput", "packets per period"),
        ];
        out.extend(
            (0..self.a.len()).map(|i| OutputSpec::plain(format!("x[{i}]"), "packets per period")),
        );
        out
    }

    fn output(&self, _t: f64, y: &[f64], out: &mut [f64]) {
        let n = self.a.len();
        let nu = self.nu(&y[..n], self.cbr_delivered);
        let z: Vec<f64> = (0..n)
            .map(|i| y[i] * self.target / (self.a[i] * self.a[i]))
            .collect();
        let (lo, hi) = z
            .iter()
            .fold((f64::MAX, 0.0f64), |(l, h), &v| (l.min(v), h.max(v)));
        let x: Vec<f64> = (0..n).map(|i| self.a[i] / (y[i] * nu).sqrt()).collect();
        let (s, sq) = x.iter().fold((0.0, 0.0), |(s, q), v| (s + v, q + v * v));
        out[0] = nu;
        out[1] = lo / hi;
        out[2] = s * s / (n as f64 * sq);
        out[3] = if self.cbr > 0.0 {
            self.cbr_rate(y[n], nu)
        } else {
            0.0
        };
        out[4..].copy_from_slice(&x);
    }
}

impl Discrete for MeanField {
    fn period(&self) -> f64 {
        self.period
    }

    fn step(&mut self, _n: u64, y: &[f64], next: &mut [f64], _rng: &mut ChaCha8Rng) {
        let n = self.a.len();
        let nu = self.nu(&y[..n], self.cbr_delivered);
        let s: f64 = self.a.iter().zip(&y[..n]).map(|(a, d)| a / d.sqrt()).sum();
        let room = (self.target - self.cbr_delivered).max(1e-12);
        for i in 0..n {
            // Eq. (4): the drops δ̄_i = a_i·√(δ_i·ν) averaged in with weight q_w.
            next[i] = (1.0 - self.q_w) * y[i] + self.q_w * self.a[i] * y[i].sqrt() * s / room;
        }
        if self.cbr > 0.0 {
            let dc = y[n];
            // Theorem 3.2's proof: δ_c grows by (1 − q_w) + q_w·x·ν per period while δ_c·ν < 1;
            // at δ_c·ν ≥ 1 every packet is dropped (x drops per period).
            next[n] = if dc * nu >= 1.0 {
                (1.0 - self.q_w) * dc + self.q_w * self.cbr
            } else {
                dc * ((1.0 - self.q_w) + self.q_w * self.cbr * nu)
            };
            self.cbr_delivered = self.cbr_rate(dc, nu);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{iterate, SolverOptions};
    use crate::engine::Progress;

    fn run(json: serde_json::Value, iterations: f64) -> crate::engine::model::ModelRun {
        let p = Params::parse("may_mean_field", PARAMS, json.as_object().unwrap()).unwrap();
        let mut m = MeanField::new(&p).unwrap();
        let y0 = m.initial_state();
        let o = SolverOptions {
            horizon: iterations,
            output_interval: 1.0,
            ..SolverOptions::default()
        };
        iterate(&mut m, &y0, &o, &Progress::default()).unwrap()
    }

    #[test]
    fn the_map_converges_to_theorem_3_1_whatever_the_aimd_parameters() {
        // Theorem 3.1 and Corollary 3.1: 10 flows with additive increase 1–4 and decrease
        // 0.5–0.875 (a_i from 1 to 8.5), started at δ_i = 1 + i. z_i/z_N rises to 1 (Lemma 3.3),
        // ν → N/(u₀C) = 10/9800, and every throughput → u₀C/N = 980 packets per period.
        // Expected after 1000 iterations (q_w = 0.05: the gap shrinks by a factor of order
        // 1 − q_w/2 per period): z ratio above 0.999, ν within 0.1% of N/(u₀C), each flow within
        // 0.1% of 980.
        let r = run(serde_json::json!({}), 1000.0);
        let last = |c: &str| *r.column(c).unwrap().last().unwrap();
        assert!(r.column("z_ratio").unwrap()[0] < 0.5);
        assert!(last("z_ratio") > 0.999, "{}", last("z_ratio"));
        let nu_star = 10.0 / 9800.0;
        assert!(
            (last("nu") - nu_star).abs() < 1e-3 * nu_star,
            "{}",
            last("nu")
        );
        for i in 0..10 {
            let x = last(&format!("x[{i}]"));
            assert!((x - 980.0).abs() < 0.98, "flow {i}: {x}");
        }
        // Lemma 3.1: the ratio never decreases.
        let z = r.column("z_ratio").unwrap();
        assert!(z.windows(2).all(|w| w[1] >= w[0] - 1e-12));
    }

    #[test]
    fn a_cbr_flow_below_the_fair_share_is_kept_and_one_above_is_shut_out() {
        // Theorem 3.2 with 19 AIMD flows and one CBR flow on C = 4000 packets per period (u₀C =
        // 3920): the fair share 1/ν* is about 3920/20 = 196 when the CBR flow takes its share.
        // At 100 packets per period (half) its δ decays by 1 − q_w + q_w·x·ν ≈ 0.975 per period
        // and it delivers nearly all of it: expected ≥ 99% after 2000 periods. At 400 (twice)
        // δ grows until δ·ν ≥ 1: expected 0 delivered after 2000 periods.
        let go = |cbr: f64| {
            let r = run(
                serde_json::json!({"flows": 19, "capacity": 4000.0, "cbr": cbr}),
                2000.0,
            );
            *r.column("cbr_throughput").unwrap().last().unwrap()
        };
        let below = go(100.0);
        assert!(below >= 99.0, "{below}");
        assert_eq!(go(400.0), 0.0);
    }

    #[test]
    fn bad_parameters_are_one_line_errors_naming_the_field() {
        let p = Params::parse(
            "may_mean_field",
            PARAMS,
            serde_json::json!({"q_w": 1.0}).as_object().unwrap(),
        )
        .unwrap();
        assert_eq!(
            MeanField::new(&p).unwrap_err().to_string(),
            "engine.params.q_w: must be in (0, 1), got 1"
        );
    }
}
