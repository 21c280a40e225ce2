//! §III-A's AIMD Markov chain under MAY's drops, for the model engine (`may_aimd_chain`): the
//! stochastic model the mean-field map ([`super::model`]) averages.
//!
//! ```text
//! U_{k+1} = U_k + γ_i   with probability e^{−δ_i(t)·ν(t)·U_k}                 (§III-A)
//! U_{k+1} = β_i·U_k     otherwise
//! ```
//!
//! `U_k` is flow i's throughput (packets) in the k-th small step Δ₀ of the update period
//! (t·Δ, (t+1)·Δ); each of its packets is dropped with probability `μ_i = δ_i·ν`. One iteration
//! of the model is one update period of `substeps` = Δ/Δ₀ steps, after which MAY's table
//! updates as Fig. 1 line 24: `δ_i ← (1 − q_w)·δ_i + q_w·ND_i`, ND_i the flow's drops in the
//! period.
//!
//! Choices the paper leaves to the reader (none changes the fixed point, where every flow
//! sends `1/ν` per period):
//! - **Drops per step**: Poisson with mean `μ_i·U_k` (each of `U_k` packets dropped with the
//!   small probability μ_i), and the window is cut when at least one is dropped — which
//!   happens with probability `1 − e^{−μ_i·U_k}`, the chain's. So the expected drops are the
//!   mean-field's `δ̄_i = Ū_i·δ_i·ν` (Eq. 2).
//! - **ν**: the analysis takes ν "regulated to achieve utilization u₀C" (Eq. 3). The chain
//!   applies Eq. (3) once per period from what the flows sent: since the sent packets go as
//!   `1/√ν` (Eq. 1), `ν ← ν·(S/(u₀C))²` (S the period's total) moves ν to where Eq. (3) holds.
//!   Fig. 1's line 19 (`ν ← ν + κ·(u − u₀)`) reaches the same point, more slowly; it is the
//!   packet simulation's.
//! - **Start**: every window at 1 packet per step, `δ_i = 1 + i` (unequal, as the map's), ν at
//!   `1/(u₀C)` (the whole link's fair share).
//!
//! The AIMD parameters spread over the flows as in the map (`gamma_min`…`gamma_max`,
//! `beta_min`…`beta_max`). Corollary 3.1's claim, that each flow gets u₀C/N whatever its
//! parameters, is tested on the chain here (`x[i]`: packets flow i sent in the last period).

use super::model::{
    aimd_flows, unit_interval, BETA_MAX, BETA_MIN, CAPACITY, FLOWS, GAMMA_MAX, GAMMA_MIN, PERIOD,
    Q_W, U0,
};
use crate::engine::model::{Discrete, Model, OutputSpec, ParamSpec, ParamUnit, Params, StateVar};
use crate::error::Result;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The parameters of [`AimdChain`]: the mean-field map's (without its CBR flow) and the steps
/// per update period.
pub const PARAMS: &[ParamSpec] = &[
    FLOWS,
    CAPACITY,
    U0,
    Q_W,
    GAMMA_MIN,
    GAMMA_MAX,
    BETA_MIN,
    BETA_MAX,
    PERIOD,
    ParamSpec {
        name: "substeps",
        unit: ParamUnit::Count,
        default: Some(100.0),
        doc: "steps of the AIMD chain per update period (Δ/Δ0; the paper's Δ0 'say a \
              millisecond' with Δ0 << Δ)",
    },
];

/// The paper and equations, for `fairnet model list`.
pub const PAPER: &str = "Stanojevic and Shorten, Drop counters are enough (MAY), \
                         §III-A's AIMD Markov chain, with Fig. 1 line 24 each period";
/// The model in one line.
pub const EQUATION: &str = "U <- U + gamma_i w.p. exp(-delta_i nu U), else beta_i U; \
                            delta_i <- (1-q_w) delta_i + q_w ND_i per period; nu <- nu (S/(u0 C))^2";

/// The chain (see the module doc). State: each flow's window `U`, its drop frequency `delta`,
/// ν, and the packets each flow sent in the last period `x`.
#[derive(Clone, Debug, PartialEq)]
pub struct AimdChain {
    flows: Vec<(f64, f64)>,
    target: f64,
    q_w: f64,
    substeps: u64,
    period: f64,
}

impl AimdChain {
    /// Builds the chain from parsed parameters; ranges are checked here.
    pub fn new(p: &Params) -> Result<AimdChain> {
        Ok(AimdChain {
            flows: aimd_flows(p)?,
            target: unit_interval(p, "u0", true)? * p.positive("capacity")?,
            q_w: unit_interval(p, "q_w", false)?,
            substeps: p.positive("substeps")? as u64,
            period: p.positive("period")?,
        })
    }
}

/// A Poisson draw of mean `mean` by inversion (the means here are below a few units).
fn poisson(rng: &mut ChaCha8Rng, mean: f64) -> u64 {
    let u: f64 = rng.gen();
    let mut p = (-mean).exp();
    let (mut k, mut cdf) = (0u64, p);
    while u > cdf && p > 0.0 {
        k += 1;
        p *= mean / k as f64;
        cdf += p;
    }
    k
}

impl Model for AimdChain {
    fn state(&self) -> Vec<StateVar> {
        let n = self.flows.len();
        vec![
            StateVar::new("U", n, "packets per step"),
            StateVar::new("delta", n, "drops per period"),
            StateVar::new("nu", 1, "per packet per period"),
            StateVar::new("x", n, "packets per period"),
        ]
    }

    fn initial_state(&self) -> Vec<f64> {
        let n = self.flows.len();
        let mut y = vec![1.0; n];
        y.extend((0..n).map(|i| 1.0 + i as f64));
        y.push(1.0 / self.target);
        y.extend(std::iter::repeat_n(self.substeps as f64, n));
        y
    }

    fn outputs(&self) -> Vec<OutputSpec> {
        let mut out = vec![
            OutputSpec::plain("nu", "per packet per period"),
            OutputSpec::plain("fairness", "1"),
        ];
        out.extend(
            (0..self.flows.len())
                .map(|i| OutputSpec::plain(format!("x[{i}]"), "packets per period")),
        );
        out
    }

    fn output(&self, _t: f64, y: &[f64], out: &mut [f64]) {
        let n = self.flows.len();
        let x = &y[2 * n + 1..];
        let (s, sq) = x.iter().fold((0.0, 0.0), |(s, q), v| (s + v, q + v * v));
        out[0] = y[2 * n];
        out[1] = s * s / (n as f64 * sq);
        out[2..].copy_from_slice(x);
    }
}

impl Discrete for AimdChain {
    fn period(&self) -> f64 {
        self.period
    }

    fn step(&mut self, _n: u64, y: &[f64], next: &mut [f64], rng: &mut ChaCha8Rng) {
        let n = self.flows.len();
        let nu = y[2 * n];
        let mut total = 0.0;
        for (i, &(gamma, beta)) in self.flows.iter().enumerate() {
            let delta = y[n + i];
            let mu = delta * nu;
            let (mut u, mut sent, mut drops) = (y[i], 0.0, 0u64);
            for _ in 0..self.substeps {
                sent += u;
                let d = poisson(rng, mu * u);
                drops += d;
                u = if d > 0 { beta * u } else { u + gamma };
            }
            next[i] = u;
            // Fig. 1 line 24.
            next[n + i] = (1.0 - self.q_w) * delta + self.q_w * drops as f64;
            next[2 * n + 1 + i] = sent;
            total += sent;
        }
        // Eq. (3) applied once per period (module doc).
        next[2 * n] = nu * (total / self.target).powi(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{iterate, SolverOptions};
    use crate::engine::Progress;

    fn run(json: serde_json::Value, periods: f64, seed: u64) -> crate::engine::model::ModelRun {
        let p = Params::parse("may_aimd_chain", PARAMS, json.as_object().unwrap()).unwrap();
        let mut m = AimdChain::new(&p).unwrap();
        let y0 = m.initial_state();
        let o = SolverOptions {
            horizon: periods,
            output_interval: 1.0,
            seed,
            ..SolverOptions::default()
        };
        iterate(&mut m, &y0, &o, &Progress::default()).unwrap()
    }

    #[test]
    fn poisson_draws_have_the_mean_asked_for() {
        // 200,000 draws of mean 0.3: the sample mean's standard error is √(0.3/200000) ≈
        // 0.0012; expected within 5 of them, and P(0) within 0.005 of e^{−0.3} = 0.7408.
        let mut rng = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(4);
        let draws: Vec<u64> = (0..200_000).map(|_| poisson(&mut rng, 0.3)).collect();
        let mean = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
        assert!((mean - 0.3).abs() < 5.0 * 0.0012, "{mean}");
        let zeros = draws.iter().filter(|&&k| k == 0).count() as f64 / draws.len() as f64;
        assert!((zeros - (-0.3f64).exp()).abs() < 0.005, "{zeros}");
    }

    #[test]
    fn every_aimd_flow_gets_the_same_throughput_whatever_its_parameters() {
        // Corollary 3.1 on the chain itself: 10 flows with additive increase 1–4 and decrease
        // 0.5–0.875 (Eq. 2's a_i from 1 to 14: under one common drop probability their rates
        // would differ about fourteenfold), C = 10,000 packets per period, u₀ = 0.98. MAY's
        // δ_i settles where each flow's drops per period equal δ_i, i.e. where it sends 1/ν,
        // and Eq. (3) makes the total u₀C: expected u₀C/N = 980 packets per period each.
        // Bound: a flow at its share loses about 980·δ·ν ≈ a few packets a period, so ND is
        // noisy (±50%), δ averages ~40 periods of it (±8%) and the rate goes as 1/√δ (±4% a
        // period); the mean over 300 periods is then within 5% of 980 (a tenth of the
        // noise-free spread would already fail it), and Jain's index of those means ≥ 0.998.
        let r = run(serde_json::json!({}), 600.0, 1);
        let mean = |c: &str| {
            let v = r.column(c).unwrap();
            v[300..].iter().sum::<f64>() / (v.len() - 300) as f64
        };
        let x: Vec<f64> = (0..10).map(|i| mean(&format!("x[{i}]"))).collect();
        for (i, xi) in x.iter().enumerate() {
            assert!((xi - 980.0).abs() < 0.05 * 980.0, "flow {i}: {xi} ({x:?})");
        }
        let j = crate::metrics::jain_index(&x, None);
        assert!(j >= 0.998, "Jain {j}");
        // Eq. (3): the total sent is u₀C = 9800 packets per period on average (ν's update makes
        // it so; within 2%).
        let total: f64 = x.iter().sum();
        assert!((total - 9800.0).abs() < 0.02 * 9800.0, "total {total}");
    }

    #[test]
    fn the_same_seed_gives_the_same_chain() {
        let a = run(serde_json::json!({"flows": 3}), 20.0, 7);
        let b = run(serde_json::json!({"flows": 3}), 20.0, 7);
        let c = run(serde_json::json!({"flows": 3}), 20.0, 8);
        assert_eq!(a.values, b.values);
        assert_ne!(a.values, c.values);
    }

    #[test]
    fn bad_parameters_are_one_line_errors_naming_the_field() {
        let p = Params::parse(
            "may_aimd_chain",
            PARAMS,
            serde_json::json!({"beta_max": 1.0}).as_object().unwrap(),
        )
        .unwrap();
        assert_eq!(
            AimdChain::new(&p).unwrap_err().to_string(),
            "engine.params.beta_max: must be in (0, 1), got 1"
        );
    }
}
