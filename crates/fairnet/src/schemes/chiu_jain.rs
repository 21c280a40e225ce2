//! The AIMD map of Chiu and Jain ("Analysis of the Increase and Decrease Algorithms for
//! Congestion Avoidance in Computer Networks", Computer Networks and ISDN Systems 17(1), 1989,
//! §2–3): `n` users share one resource through a binary feedback `y(t)`.
//!
//! ```text
//! y(t)     = 1{Σᵢ xᵢ(t) > X_goal}                                   (§2, the binary feedback)
//! xᵢ(t+1)  = a_I + xᵢ(t)      if y(t) = 0    (additive increase)     (§3, eq. 1 with b_I = 1)
//! xᵢ(t+1)  = b_D · xᵢ(t)      if y(t) = 1    (multiplicative decrease, a_D = 0)
//! F(x)     = (Σ xᵢ)² / (n Σ xᵢ²)                                     (§2.2, the fairness index)
//! ```
//!
//! Loads are fractions of the resource (`X_goal = 1`). The paper proves that this AIMD map
//! converges to efficiency and fairness (`F → 1`) from any start.
//!
//! A choice beyond the paper, to exercise seeded stochastic models: with `feedback < 1` each
//! user sees a decrease signal independently with that probability (desynchronized feedback,
//! as with random marking); `feedback = 1` (default) is the paper's synchronous map. The
//! default start is unequal (`xᵢ ∝ i + 1`, total 0.1) so convergence shows.

use crate::engine::model::{Discrete, Model, OutputSpec, ParamSpec, ParamUnit, Params, StateVar};
use crate::error::{Error, Result};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The parameters of [`ChiuJain`], with their defaults.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "users",
        unit: ParamUnit::Count,
        default: Some(10.0),
        doc: "number of users n",
    },
    ParamSpec {
        name: "increase",
        unit: ParamUnit::Number,
        default: Some(0.01),
        doc: "additive increase a_I, a fraction of the resource per iteration",
    },
    ParamSpec {
        name: "decrease",
        unit: ParamUnit::Number,
        default: Some(0.5),
        doc: "multiplicative decrease factor b_D in (0, 1)",
    },
    ParamSpec {
        name: "feedback",
        unit: ParamUnit::Number,
        default: Some(1.0),
        doc: "probability that a user sees a decrease signal (1: Chiu-Jain's synchronous map)",
    },
    ParamSpec {
        name: "period",
        unit: ParamUnit::Seconds,
        default: Some(100e-6),
        doc: "simulated time per iteration (one round trip)",
    },
    ParamSpec {
        name: "per_user",
        unit: ParamUnit::Count,
        default: Some(1.0),
        doc: "1: record every user's load; 0: only the total and the fairness index",
    },
];

/// The paper and equations, for `fairnet model list`.
pub const PAPER: &str = "Chiu and Jain, Increase and Decrease Algorithms for Congestion \
                         Avoidance, Computer Networks and ISDN Systems 1989, §2-3";
/// The model in one line.
pub const EQUATION: &str =
    "x_i <- x_i + a_I if sum x <= 1, else b_D·x_i; F = (sum x)^2/(n sum x^2)";

/// The AIMD map (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct ChiuJain {
    users: usize,
    increase: f64,
    decrease: f64,
    feedback: f64,
    period: f64,
    per_user: bool,
}

impl ChiuJain {
    /// Builds the map from parsed parameters; ranges are checked here.
    pub fn new(p: &Params) -> Result<ChiuJain> {
        let in_range = |name: &str, lo_open: f64, hi: f64, hi_closed: bool| {
            let v = p.get(name);
            let ok = v > lo_open && (v < hi || (hi_closed && v == hi));
            if ok {
                Ok(v)
            } else {
                let close = if hi_closed { "]" } else { ")" };
                Err(Error::invalid(
                    format!("engine.params.{name}"),
                    format!("must be in ({lo_open}, {hi}{close}, got {v}"),
                ))
            }
        };
        Ok(ChiuJain {
            users: p.positive("users")? as usize,
            increase: p.positive("increase")?,
            decrease: in_range("decrease", 0.0, 1.0, false)?,
            feedback: in_range("feedback", 0.0, 1.0, true)?,
            period: p.positive("period")?,
            per_user: p.get("per_user") != 0.0,
        })
    }
}

impl Model for ChiuJain {
    fn state(&self) -> Vec<StateVar> {
        vec![StateVar::new("x", self.users, "1")]
    }

    fn initial_state(&self) -> Vec<f64> {
        let n = self.users as f64;
        (0..self.users)
            .map(|i| 0.1 * (i + 1) as f64 / (n * (n + 1.0) / 2.0))
            .collect()
    }

    fn outputs(&self) -> Vec<OutputSpec> {
        let mut out = vec![
            OutputSpec::plain("load", "1"),
            OutputSpec::plain("fairness", "1"),
        ];
        if self.per_user {
            out.extend((0..self.users).map(|i| OutputSpec::plain(format!("x[{i}]"), "1")));
        }
        out
    }

    fn output(&self, _t: f64, x: &[f64], out: &mut [f64]) {
        let sum: f64 = x.iter().sum();
        let sq: f64 = x.iter().map(|v| v * v).sum();
        out[0] = sum;
        out[1] = if sq > 0.0 {
            sum * sum / (x.len() as f64 * sq)
        } else {
            1.0
        };
        if self.per_user {
            out[2..].copy_from_slice(x);
        }
    }
}

impl Discrete for ChiuJain {
    fn period(&self) -> f64 {
        self.period
    }

    fn step(&mut self, _n: u64, x: &[f64], next: &mut [f64], rng: &mut ChaCha8Rng) {
        let overloaded = x.iter().sum::<f64>() > 1.0;
        for (xi, ni) in x.iter().zip(next.iter_mut()) {
            let decrease = overloaded && (self.feedback >= 1.0 || rng.gen_bool(self.feedback));
            *ni = if decrease {
                self.decrease * xi
            } else {
                xi + self.increase
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{iterate, SolverOptions};
    use crate::engine::Progress;

    fn build(json: serde_json::Value) -> ChiuJain {
        ChiuJain::new(&Params::parse("chiu_jain", PARAMS, json.as_object().unwrap()).unwrap())
            .unwrap()
    }

    #[test]
    fn aimd_converges_to_fairness_and_efficiency() {
        // Chiu and Jain §3: from an unequal start (fairness 0.79 for 10 users ∝ 1..10) AIMD
        // moves toward the fair line; each decrease halves the gap between users, each increase
        // keeps it. Expected after 2000 iterations: fairness above 0.999, and the total load
        // oscillating between b_D and 1 + n·a_I (0.5 … 1.1) with mean above 0.7.
        let mut m = build(serde_json::json!({}));
        let y0 = m.initial_state();
        let o = SolverOptions {
            horizon: 2000.0 * 100e-6,
            output_interval: 100e-6,
            ..SolverOptions::default()
        };
        let run = iterate(&mut m, &y0, &o, &Progress::default()).unwrap();
        let f = run.column("fairness").unwrap();
        assert!(f[0] < 0.85, "start {}", f[0]);
        assert!(*f.last().unwrap() > 0.999, "end {}", f.last().unwrap());
        let load = run.column("load").unwrap();
        let tail = &load[1000..];
        assert!(tail.iter().all(|&l| (0.5 - 1e-9..=1.1 + 1e-9).contains(&l)));
        assert!(tail.iter().sum::<f64>() / tail.len() as f64 > 0.7);
    }

    #[test]
    fn random_feedback_follows_the_seed() {
        // With feedback 0.5 the path depends on the draws: the same seed repeats it exactly,
        // another seed does not.
        let run = |seed| {
            let mut m = build(serde_json::json!({"feedback": 0.5}));
            let y0 = m.initial_state();
            let o = SolverOptions {
                horizon: 0.05,
                output_interval: 100e-6,
                seed,
                ..SolverOptions::default()
            };
            iterate(&mut m, &y0, &o, &Progress::default())
                .unwrap()
                .values
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }
}
