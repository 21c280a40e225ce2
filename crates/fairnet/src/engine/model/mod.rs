//! The model engine: the papers' fluid (ODE), delay-differential (DDE) and discrete-map models,
//! solved and recorded like any other run.
//!
//! A model is a state vector with named parts ([`StateVar`]), an initial state, and either a
//! derivative ([`Continuous`]: ODEs, and DDEs with constant delays and a history) or a map
//! ([`Discrete`]: one iteration per period, optionally random with the run's seed). It names its
//! outputs ([`OutputSpec`]); outputs that are a link's queue or a flow's rate land in the same
//! tables as the packet and flow engines' samples, so runs can be compared.
//!
//! Discontinuities are declared, not discovered by step rejection: a [`Switch`] is the sign of
//! a function `g(t, y)` (a marking indicator `1{q > K}` is `g = q − K`), seen by the
//! derivative after an optional constant delay (`1{q(t − R*) > K}`). The solver locates each
//! crossing of `g` on the dense output and either ends the step there (no delay) or makes
//! `crossing + delay` a breakpoint that a step must land on; between breakpoints the switch is
//! constant, so every step integrates a smooth right-hand side.
//!
//! The engine knows no model by name: models live beside their paper or scheme and are
//! registered in `crate::scenario::models`. See `docs/model-engine.md`.
//!
//! - [`params`]: a model's parameters with units, parsed and checked once.
//! - [`solve`]: the solvers — Dormand–Prince 5(4) with dense output and the method of steps
//!   ([`solve::solve_continuous`]); plain iteration ([`solve::iterate`]).
//! - [`dopri`]: the Dormand–Prince tableau, one step and its dense output.

pub mod dopri;
pub mod params;
pub mod solve;

#[cfg(test)]
mod tests;

pub use params::{ParamSpec, ParamUnit, Params};
pub use solve::{iterate, solve_continuous, ModelRun, SolverOptions};

use rand_chacha::ChaCha8Rng;

/// A named part of the state vector: one scalar (`len = 1`, e.g. the queue `q`) or one entry
/// per flow (`W[0] … W[N−1]`).
#[derive(Clone, Debug, PartialEq)]
pub struct StateVar {
    /// Name (`q`, `W`, `alpha`).
    pub name: String,
    /// Number of entries.
    pub len: usize,
    /// Unit, for reports (`bytes`, `packets`, `1`).
    pub unit: &'static str,
}

impl StateVar {
    /// A part of `len` entries.
    pub fn new(name: &str, len: usize, unit: &'static str) -> StateVar {
        StateVar {
            name: name.to_string(),
            len,
            unit,
        }
    }
}

/// The name of entry `i` of the state vector laid out as `vars` (`q`, or `W[3]` for a part
/// with several entries).
pub fn state_name(vars: &[StateVar], mut i: usize) -> String {
    for v in vars {
        if i < v.len {
            return if v.len == 1 {
                v.name.clone()
            } else {
                format!("{}[{i}]", v.name)
            };
        }
        i -= v.len;
    }
    format!("y[{i}]")
}

/// Which shared time-series table an output also goes to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Series {
    /// Only the model's own table.
    Plain,
    /// A queue in bytes: also a row of the queue samples (`queues.parquet`) of `link`, whose
    /// line rate `capacity_bps` turns it into a queueing delay.
    Queue {
        /// Link id in the compared simulation.
        link: u32,
        /// Line rate, bits/s.
        capacity_bps: f64,
    },
    /// A sending rate in bits/s: also a row of the rate samples (`rates.parquet`) of `flow`.
    Rate {
        /// Flow index in the compared simulation.
        flow: u32,
    },
}

/// One named output of a model.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSpec {
    /// Column name (`q`, `W[0]`, `rate[0]`).
    pub name: String,
    /// Unit.
    pub unit: &'static str,
    /// Where else it is recorded.
    pub series: Series,
}

impl OutputSpec {
    /// A plain output.
    pub fn plain(name: impl Into<String>, unit: &'static str) -> OutputSpec {
        OutputSpec {
            name: name.into(),
            unit,
            series: Series::Plain,
        }
    }
}

/// What every model has: its state layout, initial state and outputs.
pub trait Model: Send {
    /// The parts of the state vector, in order; their lengths add up to the dimension.
    fn state(&self) -> Vec<StateVar>;
    /// The state at time 0 (before any `initial` override of the scenario).
    fn initial_state(&self) -> Vec<f64>;
    /// The outputs recorded at every output time. Default: the state entries.
    fn outputs(&self) -> Vec<OutputSpec> {
        let vars = self.state();
        let mut out = Vec::new();
        for v in &vars {
            for _ in 0..v.len {
                out.push(OutputSpec::plain(state_name(&vars, out.len()), v.unit));
            }
        }
        out
    }
    /// Writes the outputs at time `t` (seconds) and state `y` into `out` (one per
    /// [`Model::outputs`]). Default: the state.
    fn output(&self, _t: f64, y: &[f64], out: &mut [f64]) {
        out.copy_from_slice(y);
    }
}

/// A discontinuity of the right-hand side: the sign of `g(t, y)` ([`Continuous::switch_value`])
/// as seen after `delay` (an index into [`Continuous::delays`], or `None` for no delay).
#[derive(Clone, Debug, PartialEq)]
pub struct Switch {
    /// Name, for messages (`mark`).
    pub name: String,
    /// Which delay the derivative sees it through.
    pub delay: Option<usize>,
}

/// A continuous-time model: `y'(t) = f(t, y(t), y(t − τ₁), …, switches)`.
pub trait Continuous: Model {
    /// Constant delays `τⱼ` in seconds (positive). Default none (an ODE).
    fn delays(&self) -> Vec<f64> {
        Vec::new()
    }
    /// Entry `i` of the state at `t < 0` (the history of a DDE); `None`: the initial state.
    fn history(&self, _t: f64, _i: usize) -> Option<f64> {
        None
    }
    /// The discontinuities of the right-hand side. Default none.
    fn switches(&self) -> Vec<Switch> {
        Vec::new()
    }
    /// `g_k(t, y)` of switch `k`: the switch is on where it is positive.
    fn switch_value(&self, _k: usize, _t: f64, _y: &[f64]) -> f64 {
        0.0
    }
    /// Called when an undelayed switch `k` flips (at its located crossing) with the state
    /// there, which the model may put exactly on the switching surface (a queue that empties
    /// is set to 0). Default: nothing.
    fn on_flip(&self, _k: usize, _on: bool, _y: &mut [f64]) {}
    /// The derivative at `t` (seconds): `y` now, `past` for delayed values and switches.
    fn derivative(&self, t: f64, y: &[f64], past: &Past<'_>, dy: &mut [f64]);
}

/// A discrete-time model: `y(n + 1) = F(n, y(n))`, one iteration per [`Discrete::period`].
pub trait Discrete: Model {
    /// Simulated seconds per iteration (for the output grid and the horizon).
    fn period(&self) -> f64;
    /// Iteration `n`: writes `F(n, y)` into `next`. A random model draws from `rng` only (seeded
    /// by the run), so runs are reproducible.
    fn step(&mut self, n: u64, y: &[f64], next: &mut [f64], rng: &mut ChaCha8Rng);
}

/// A built model, ready for its solver.
pub enum System {
    /// An ODE or DDE.
    Continuous(Box<dyn Continuous>),
    /// A map.
    Discrete(Box<dyn Discrete>),
}

impl System {
    /// The model's common part.
    pub fn model(&self) -> &dyn Model {
        match self {
            System::Continuous(m) => m.as_ref() as &dyn Model,
            System::Discrete(m) => m.as_ref() as &dyn Model,
        }
    }
}

/// What the derivative may see of the past, at one stage of one step: delayed state entries
/// (from the dense history, or the model's history before time 0) and the switches.
pub struct Past<'a> {
    pub(crate) t: f64,
    pub(crate) delays: &'a [f64],
    pub(crate) history: &'a solve::History,
    pub(crate) model: &'a dyn Continuous,
    pub(crate) y0: &'a [f64],
    pub(crate) switches: &'a [bool],
}

impl Past<'_> {
    /// Entry `i` of the state at `t − τⱼ`.
    pub fn delayed(&self, j: usize, i: usize) -> f64 {
        let at = self.t - self.delays[j];
        if at <= 0.0 {
            return self.model.history(at, i).unwrap_or(self.y0[i]);
        }
        self.history.value(at, i)
    }

    /// Whether switch `k` is on (its `g` positive, seen through its delay).
    pub fn switch(&self, k: usize) -> bool {
        self.switches[k]
    }
}
