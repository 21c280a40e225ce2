//! eBA's rate-control model (§II-C, §IV) on the model engine: the continuous system, Eq. (6),
//! and its discretization, Eq. (15), both with the guarantee floor of Eq. (16), the rate-factor
//! cap of Eq. (17) and the capacity constriction μ of §VI-B.
//!
//! ```text
//! dv_i/dt = α v_i (ln r̃_i − ln v_i),      r̃_i = w_i · min{ r_l : l ∈ L_i }              (6)
//! dr_l/dt = β r_l (1 − Σ_{i ∈ P_l} x_i / (μ C_l)),   r_l ≤ C_l                        (6), (17)
//! x_i     = min(d_i, max(B_i, v_i))   what VM-flow i sends: its rate limit (16), or its demand
//!
//! v_i(k+1) = v_i(k)^{1 − ατ_v} · r̃_i(k̃_r)^{ατ_v}                                      (15)
//! r_l(k+1) = min{ C_l, r_l(k) · exp(βτ_r (1 − Σ x_i(k̃_v) / (μ C_l))) }                (15), (17)
//! ```
//!
//! [`LrcNetwork`] is the network both read (links, VM-flow paths, weights, guarantees and
//! demands); [`LogisticModel`] is Eq. (6) (solved in the log coordinates of Eq. (7),
//! `φ_i = ln v_i`, `ϕ_l = ln r_l`, where the equations are smooth and the rates stay
//! positive); [`LrcRecursion`] is Eq. (15), updating the VM-flows every τ_v and the links every
//! τ_r on the grid of their greatest common divisor. [`SingleLink`] is the named model
//! `eba_lrc` of `fairnet model list`: VM-flows on one bottleneck, with the parameters of a
//! scenario.
//!
//! Choices the equations leave open (see also the module doc of [`super`]):
//! - **What a link sees.** Eq. (15) sums the VM-flows' rates "measured by a switch"; a VM-flow
//!   sends at its rate limit `max(B_i, v_i)` (Eq. 16, Algorithm 2 lines 8–9) unless its demand
//!   `d_i` is lower, so the load is `Σ min(d_i, max(B_i, v_i))` in both models. With `μ < 1`
//!   the rate factor steers the load to `μ·C_l` (§VI-B), so the equilibrium is compared with
//!   the oracle on capacities `μ·C_l`.
//! - **The cap in continuous time.** Eq. (17) is a projection: at `r_l = C_l` the rate factor
//!   may only fall (`dϕ_l/dt = min(0, β(1 − load/(μC_l)))`), and `r̃_i` reads `min(r_l, C_l)`.
//! - **Delays.** The recursion takes the latest rate factor at each VM-flow update and the
//!   load at the start of each link interval (`k̃_r = ⌊kτ_v/τ_r⌋`, `k̃_v = ⌊kτ_r/τ_v⌋`, i.e.
//!   τ_d = 0): a control packet's round trip (µs to ms) is small beside τ_v = 50 ms. The
//!   continuous model has no delay, as Eq. (6).
//! - **Start.** `v_i(0) = v_0` (a parameter) and `r_l(0) = C_l`: Algorithm 2 line 4 starts a
//!   control packet's rate factor at the line rate, and a link nobody has loaded sits at its
//!   cap.
//! - **Eq. (11)'s sign.** Linearizing Eq. (6) at `v_i* = w_i r*`, `r* = μC/Σw` gives
//!   `Δṙ = −β Σ Δv_i / Σw` (the rate factor falls when the load rises); the paper prints it
//!   without the minus sign. With it, Eq. (12) is `Δv̇ = −αΔv + αΔr`, `Δṙ = −βΔv`, whose
//!   characteristic polynomial `s² + αs + αβ` gives the paper's `ζ = ½√(α/β)` (tested).
//! - **Weights below μ.** A VM-flow alone on its path cannot exceed `w_i·C` (its objective
//!   `w_i·min r_l` with every `r_l ≤ C_l`), so with `w_i < μ` it stays below the link's
//!   `μ·C`: Eq. (17) then stops the allocation from being work-conserving. We keep the paper's
//!   law (a test shows the effect); Eq. (1)'s weights are sums of two VM weights, so VMs of
//!   weight ≥ 1 never meet it.

use crate::alloc::{Problem, ProblemInput};
use crate::engine::model::{
    Continuous, Discrete, Model, OutputSpec, ParamSpec, ParamUnit, Params, Past, Series, StateVar,
    System,
};
use crate::error::{Error, Result};
use crate::units::Time;
use rand_chacha::ChaCha8Rng;

/// The network the models read: links, VM-flow paths, and each VM-flow's weight (Eq. 1),
/// guarantee (Eq. 2) and demand. Rates in bits/s.
#[derive(Clone, Debug, PartialEq)]
pub struct LrcNetwork {
    /// Capacity `C_l` of each link.
    pub capacities: Vec<f64>,
    /// The links `L_i` of each VM-flow (indices into `capacities`).
    pub paths: Vec<Vec<u32>>,
    /// Weight `w_i` of each VM-flow (> 0).
    pub weights: Vec<f64>,
    /// Guarantee `B_i` of each VM-flow (≥ 0).
    pub guarantees: Vec<f64>,
    /// Demand `d_i` of each VM-flow (`f64::INFINITY`: backlogged).
    pub demands: Vec<f64>,
}

impl LrcNetwork {
    /// A network of backlogged VM-flows without guarantees and of weight 1.
    pub fn new(capacities: Vec<f64>, paths: Vec<Vec<u32>>) -> LrcNetwork {
        let n = paths.len();
        LrcNetwork {
            capacities,
            paths,
            weights: vec![1.0; n],
            guarantees: vec![0.0; n],
            demands: vec![f64::INFINITY; n],
        }
    }

    /// Number of VM-flows.
    pub fn flows(&self) -> usize {
        self.paths.len()
    }

    /// Number of links.
    pub fn links(&self) -> usize {
        self.capacities.len()
    }

    /// Checks the network once; errors name the VM-flow or link.
    pub fn validate(&self) -> Result<()> {
        let n = self.flows();
        for (what, len) in [
            ("weights", self.weights.len()),
            ("guarantees", self.guarantees.len()),
            ("demands", self.demands.len()),
        ] {
            if len != n {
                return Err(Error::invalid(
                    what,
                    format!("has {len} entries for {n} VM-flows"),
                ));
            }
        }
        for (l, &c) in self.capacities.iter().enumerate() {
            if !(c > 0.0 && c.is_finite()) {
                return Err(Error::invalid(
                    format!("link {l}"),
                    format!("capacity must be positive, got {c}"),
                ));
            }
        }
        for i in 0..n {
            let at = |f: &str| format!("vm-flow {i}.{f}");
            if self.paths[i].is_empty() {
                return Err(Error::invalid(at("path"), "crosses no link"));
            }
            if let Some(&l) = self.paths[i].iter().find(|&&l| l as usize >= self.links()) {
                return Err(Error::invalid(at("path"), format!("no link {l}")));
            }
            if !(self.weights[i] > 0.0 && self.weights[i].is_finite()) {
                return Err(Error::invalid(
                    at("weight"),
                    format!("must be positive, got {}", self.weights[i]),
                ));
            }
            if !(self.guarantees[i] >= 0.0 && self.guarantees[i].is_finite()) {
                return Err(Error::invalid(
                    at("guarantee"),
                    format!("must be a rate ≥ 0, got {}", self.guarantees[i]),
                ));
            }
            if self.demands[i].is_nan() || self.demands[i] <= 0.0 {
                return Err(Error::invalid(
                    at("demand"),
                    format!("must be positive, got {}", self.demands[i]),
                ));
            }
        }
        Ok(())
    }

    /// What VM-flow `i` sends with internal rate `v`: `min(d_i, max(B_i, v))` (Eq. 16).
    pub fn sending(&self, i: usize, v: f64) -> f64 {
        self.demands[i].min(self.guarantees[i].max(v))
    }

    /// The load of every link when VM-flow `i` has internal rate `v(i)`.
    pub fn loads(&self, v: impl Fn(usize) -> f64, out: &mut [f64]) {
        out.fill(0.0);
        for (i, path) in self.paths.iter().enumerate() {
            let x = self.sending(i, v(i));
            for &l in path {
                out[l as usize] += x;
            }
        }
    }

    /// `r̃_i = w_i · min{ min(r_l, C_l) : l ∈ L_i }` (Eq. 6 with the cap of Eq. 17), from
    /// the rate factors `r(l)`.
    pub fn objective(&self, i: usize, r: impl Fn(usize) -> f64) -> f64 {
        let m = self.paths[i]
            .iter()
            .map(|&l| r(l as usize).min(self.capacities[l as usize]))
            .fold(f64::INFINITY, f64::min);
        self.weights[i] * m
    }

    /// The oracle's problem with the same weights, guarantees and demands on capacities
    /// `μ·C_l` (the load the rate factors steer to, §VI-B).
    pub fn oracle_problem(&self, mu: f64) -> Result<Problem> {
        let mut input = ProblemInput::from_paths(
            self.capacities.iter().map(|c| mu * c).collect(),
            &self.paths,
        );
        input.weights = Some(self.weights.clone());
        input.guarantees = Some(self.guarantees.clone());
        input.demands = Some(self.demands.clone());
        Problem::new(input)
    }
}

/// Eq. (6): the continuous logistic rate-control model, with Eqs. (16)–(17) and μ.
#[derive(Clone, Debug)]
pub struct LogisticModel {
    net: LrcNetwork,
    alpha: f64,
    beta: f64,
    mu: f64,
    v0: f64,
}

/// Checks α, β > 0 and μ in (0, 1]; errors name `at.<field>`.
fn check_gains(at: &str, alpha: f64, beta: f64, mu: f64) -> Result<()> {
    for (name, v) in [("alpha", alpha), ("beta", beta)] {
        if !(v > 0.0 && v.is_finite()) {
            return Err(Error::invalid(
                format!("{at}.{name}"),
                format!("must be positive (s⁻¹), got {v}"),
            ));
        }
    }
    if !(mu > 0.0 && mu <= 1.0) {
        return Err(Error::invalid(
            format!("{at}.mu"),
            format!("must be in (0, 1], got {mu}"),
        ));
    }
    Ok(())
}

impl LogisticModel {
    /// The model on `net` with gains α, β (s⁻¹), constriction μ and initial rate `v0` (bits/s)
    /// of every VM-flow. Errors name the field.
    pub fn new(net: LrcNetwork, alpha: f64, beta: f64, mu: f64, v0: f64) -> Result<Self> {
        net.validate()?;
        check_gains("model", alpha, beta, mu)?;
        if !(v0 > 0.0 && v0.is_finite()) {
            return Err(Error::invalid(
                "model.initial_rate",
                format!("must be positive, got {v0}"),
            ));
        }
        Ok(LogisticModel {
            net,
            alpha,
            beta,
            mu,
            v0,
        })
    }

    /// The network.
    pub fn network(&self) -> &LrcNetwork {
        &self.net
    }

    /// The rate limits `max(B_i, v_i)` (or demands) of a state `y` of this model.
    pub fn rates(&self, y: &[f64]) -> Vec<f64> {
        (0..self.net.flows())
            .map(|i| self.net.sending(i, y[i].exp()))
            .collect()
    }
}

/// The outputs of both models: each VM-flow's sending rate (a rate sample, like the packet
/// engine's) and each link's rate factor.
fn lrc_outputs(net: &LrcNetwork) -> Vec<OutputSpec> {
    let mut out: Vec<OutputSpec> = (0..net.flows())
        .map(|i| OutputSpec {
            name: format!("rate[{i}]"),
            unit: "bit/s",
            series: Series::Rate { flow: i as u32 },
        })
        .collect();
    out.extend((0..net.links()).map(|l| OutputSpec::plain(format!("r[{l}]"), "bit/s")));
    out
}

impl Model for LogisticModel {
    fn state(&self) -> Vec<StateVar> {
        vec![
            StateVar::new("lnv", self.net.flows(), "ln(bit/s)"),
            StateVar::new("lnr", self.net.links(), "ln(bit/s)"),
        ]
    }

    fn initial_state(&self) -> Vec<f64> {
        let mut y = vec![self.v0.ln(); self.net.flows()];
        y.extend(self.net.capacities.iter().map(|c| c.ln()));
        y
    }

    fn outputs(&self) -> Vec<OutputSpec> {
        lrc_outputs(&self.net)
    }

    fn output(&self, _t: f64, y: &[f64], out: &mut [f64]) {
        let n = self.net.flows();
        out[..n].copy_from_slice(&self.rates(y));
        for (o, lnr) in out[n..].iter_mut().zip(&y[n..]) {
            *o = lnr.exp();
        }
    }
}

impl Continuous for LogisticModel {
    /// Eq. (7) (Eq. (6) in logs): `dφ_i/dt = α(ln r̃_i − φ_i)`,
    /// `dϕ_l/dt = β(1 − load_l/(μC_l))`, held at `ϕ_l ≤ ln C_l` (Eq. 17).
    fn derivative(&self, _t: f64, y: &[f64], _past: &Past<'_>, dy: &mut [f64]) {
        let n = self.net.flows();
        let (lnv, lnr) = y.split_at(n);
        for i in 0..n {
            let target = self.net.objective(i, |l| lnr[l].exp()).ln();
            dy[i] = self.alpha * (target - lnv[i]);
        }
        let mut load = vec![0.0; self.net.links()];
        self.net.loads(|i| lnv[i].exp(), &mut load);
        for (l, c) in self.net.capacities.iter().enumerate() {
            let d = self.beta * (1.0 - load[l] / (self.mu * c));
            dy[n + l] = if lnr[l] >= c.ln() { d.min(0.0) } else { d };
        }
    }
}

/// Eq. (15): the discrete recursion, with Eqs. (16)–(17) and μ. VM-flows update every τ_v
/// and links every τ_r, on a grid of their greatest common divisor; the state carries, beside
/// `v` and `r`, the rate factors each VM-flow last received and the loads each link last
/// measured.
#[derive(Clone, Debug)]
pub struct LrcRecursion {
    net: LrcNetwork,
    a_tau: f64,
    b_tau: f64,
    mu: f64,
    v0: f64,
    tick: u64,
    every_v: u64,
    every_r: u64,
}

impl LrcRecursion {
    /// The recursion on `net` with gains α, β (s⁻¹), intervals τ_v, τ_r, constriction μ and
    /// initial rate `v0`. Errors name the field (`α·τ_v` must be in (0, 1), §VI-B).
    pub fn new(
        net: LrcNetwork,
        alpha: f64,
        beta: f64,
        tau_v: Time,
        tau_r: Time,
        mu: f64,
        v0: f64,
    ) -> Result<Self> {
        net.validate()?;
        check_gains("model", alpha, beta, mu)?;
        if tau_v.0 == 0 || tau_r.0 == 0 {
            return Err(Error::invalid(
                "model.tau_v",
                "tau_v and tau_r must be positive",
            ));
        }
        let a_tau = alpha * tau_v.as_secs_f64();
        if !(a_tau > 0.0 && a_tau < 1.0) {
            return Err(Error::invalid(
                "model.alpha",
                format!("alpha·tau_v must be in (0, 1) (§VI-B), got {a_tau}"),
            ));
        }
        if !(v0 > 0.0 && v0.is_finite()) {
            return Err(Error::invalid(
                "model.initial_rate",
                format!("must be positive, got {v0}"),
            ));
        }
        let tick = gcd(tau_v.0, tau_r.0);
        Ok(LrcRecursion {
            net,
            a_tau,
            b_tau: beta * tau_r.as_secs_f64(),
            mu,
            v0,
            tick,
            every_v: tau_v.0 / tick,
            every_r: tau_r.0 / tick,
        })
    }

    /// The network.
    pub fn network(&self) -> &LrcNetwork {
        &self.net
    }

    /// The rate limits `max(B_i, v_i)` (or demands) of a state `y` of this model.
    pub fn rates(&self, y: &[f64]) -> Vec<f64> {
        (0..self.net.flows())
            .map(|i| self.net.sending(i, y[i]))
            .collect()
    }
}

/// Eq. (15)'s VM-flow step (Algorithm 2 line 7): `v^{1−ατ_v} · target^{ατ_v}`, with
/// `target = w·r` the VM-flow's weight times the smallest rate factor on its path. One piece of
/// code for the recursion ([`LrcRecursion`]) and the packet-level host shim
/// ([`super::shim::EbaShim`]).
pub fn rate_step(v: f64, target: f64, a_tau: f64) -> f64 {
    v.powf(1.0 - a_tau) * target.powf(a_tau)
}

/// Eq. (15)'s link step with the cap of Eq. (17) and the constriction μ (Algorithm 2 lines
/// 18–19, §VI-B): `min(C, r·exp(β·Δt·(1 − load/(μC))))`, `b_dt = β·Δt`. One piece of code for
/// the recursion ([`LrcRecursion`]) and the packet-level port ([`super::agent::RateFactorAgent`]).
pub fn factor_step(r: f64, b_dt: f64, load: f64, mu: f64, c: f64) -> f64 {
    (r * (b_dt * (1.0 - load / (mu * c))).exp()).min(c)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Model for LrcRecursion {
    fn state(&self) -> Vec<StateVar> {
        let (n, m) = (self.net.flows(), self.net.links());
        vec![
            StateVar::new("v", n, "bit/s"),
            StateVar::new("r", m, "bit/s"),
            StateVar::new("r_seen", m, "bit/s"),
            StateVar::new("load_seen", m, "bit/s"),
        ]
    }

    fn initial_state(&self) -> Vec<f64> {
        let n = self.net.flows();
        let mut y = vec![self.v0; n];
        y.extend(&self.net.capacities);
        y.extend(&self.net.capacities);
        let mut load = vec![0.0; self.net.links()];
        self.net.loads(|_| self.v0, &mut load);
        y.extend(load);
        y
    }

    fn outputs(&self) -> Vec<OutputSpec> {
        lrc_outputs(&self.net)
    }

    fn output(&self, _t: f64, y: &[f64], out: &mut [f64]) {
        let (n, m) = (self.net.flows(), self.net.links());
        out[..n].copy_from_slice(&self.rates(y));
        out[n..].copy_from_slice(&y[n..n + m]);
    }
}

impl Discrete for LrcRecursion {
    fn period(&self) -> f64 {
        Time(self.tick).as_secs_f64()
    }

    /// One grid tick, from `nΔ` to `(n+1)Δ`: a VM-flow update if `(n+1)Δ` is a multiple of
    /// τ_v (Algorithm 2 lines 7–8, with the rate factor last received), a link update if it is
    /// a multiple of τ_r (lines 18–19, with the load measured at the start of the interval);
    /// then what the next updates will read is taken from the new values.
    fn step(&mut self, n: u64, y: &[f64], next: &mut [f64], _rng: &mut ChaCha8Rng) {
        let (nf, m) = (self.net.flows(), self.net.links());
        next.copy_from_slice(y);
        let (v, rest) = y.split_at(nf);
        let (r, rest) = rest.split_at(m);
        let (r_seen, load_seen) = rest.split_at(m);
        let due_v = (n + 1) % self.every_v == 0;
        let due_r = (n + 1) % self.every_r == 0;
        if due_v {
            for i in 0..nf {
                let target = self.net.objective(i, |l| r_seen[l]);
                next[i] = rate_step(v[i], target, self.a_tau);
            }
        }
        if due_r {
            for (l, c) in self.net.capacities.iter().enumerate() {
                next[nf + l] = factor_step(r[l], self.b_tau, load_seen[l], self.mu, *c);
            }
        }
        let (v_new, rest) = next.split_at_mut(nf);
        let (r_new, rest) = rest.split_at_mut(m);
        let (r_seen_new, load_seen_new) = rest.split_at_mut(m);
        if due_v {
            r_seen_new.copy_from_slice(r_new);
        }
        if due_r {
            self.net.loads(|i| v_new[i], load_seen_new);
        }
    }
}

/// The parameters of the named model `eba_lrc` ([`SingleLink`]), with their defaults.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "flows",
        unit: ParamUnit::Count,
        default: Some(2.0),
        doc: "number of VM-flows n on the bottleneck (default 2: X and Y of §VII)",
    },
    ParamSpec {
        name: "capacity",
        unit: ParamUnit::BitsPerSecond,
        default: Some(900e6),
        doc: "bottleneck capacity C (default 900 Mb/s, the simulations of §VII-C)",
    },
    ParamSpec {
        name: "alpha",
        unit: ParamUnit::Number,
        default: Some(2.0),
        doc: "α, s⁻¹ (default 2, §VII-C)",
    },
    ParamSpec {
        name: "beta",
        unit: ParamUnit::Number,
        default: Some(2.0),
        doc: "β, s⁻¹ (default 2, §VII-C)",
    },
    ParamSpec {
        name: "mu",
        unit: ParamUnit::Number,
        default: Some(1.0),
        doc: "capacity constriction μ in (0, 1] (default 1: Eq. (6) as written; 0.9 in the testbed, §VI-B)",
    },
    ParamSpec {
        name: "last_weight",
        unit: ParamUnit::Number,
        default: Some(1.0),
        doc: "weight of the last VM-flow, the others 1 (Table III's 1:w)",
    },
    ParamSpec {
        name: "first_guarantee",
        unit: ParamUnit::BitsPerSecond,
        default: Some(0.0),
        doc: "guarantee B of the first VM-flow, the others 0 (Fig. 12's B_X)",
    },
    ParamSpec {
        name: "initial_rate",
        unit: ParamUnit::BitsPerSecond,
        default: Some(1e6),
        doc: "v_i(0) of every VM-flow (default 1 Mb/s, well below C as Proposition 1 assumes)",
    },
    ParamSpec {
        name: "discrete",
        unit: ParamUnit::Count,
        default: Some(0.0),
        doc: "0: the continuous model, Eq. (6); 1: the recursion, Eq. (15)",
    },
    ParamSpec {
        name: "tau_v",
        unit: ParamUnit::Seconds,
        default: Some(0.05),
        doc: "τ_v, the VM-flow update interval of Eq. (15) (default 50 ms, §VII-C)",
    },
    ParamSpec {
        name: "tau_r",
        unit: ParamUnit::Seconds,
        default: Some(0.1),
        doc: "τ_r, the rate-factor update interval of Eq. (15) (default 100 ms, §VII-C)",
    },
];

/// The paper and equations, for `fairnet model list`.
pub const PAPER: &str =
    "Liu, Guo, Huang, Lui, eBA, IEEE/ACM ToN 2017, §II-C Eq. (6), §IV Eqs. (15)-(17)";
/// The model in one line.
pub const EQUATION: &str =
    "v' = α v (ln(w min r) − ln v), r' = β r (1 − Σ max(B, v)/(μC)), r ≤ C; or its recursion (15)";

/// The named model `eba_lrc`: `flows` VM-flows on one link (see [`PARAMS`]).
pub struct SingleLink;

impl SingleLink {
    /// Builds the continuous model or the recursion from the scenario's parameters; errors
    /// name `engine.params.<name>`.
    pub fn build(p: &Params) -> Result<System> {
        let n = p.positive("flows")? as usize;
        let mut net = LrcNetwork::new(vec![p.positive("capacity")?], vec![vec![0]; n]);
        net.weights[n - 1] = p.positive("last_weight")?;
        net.guarantees[0] = p.get("first_guarantee");
        if net.guarantees[0] > net.capacities[0] {
            return Err(Error::invalid(
                "engine.params.first_guarantee",
                format!(
                    "{} b/s is above the link's capacity {} b/s",
                    net.guarantees[0], net.capacities[0]
                ),
            ));
        }
        let (alpha, beta, mu) = (p.get("alpha"), p.get("beta"), p.get("mu"));
        let v0 = p.get("initial_rate");
        // The models name their fields `model.<name>`; here they are scenario parameters.
        let named = |e: Error| match e {
            Error::Invalid { at, msg } => match at.strip_prefix("model.") {
                Some(name) => Error::invalid(format!("engine.params.{name}"), msg),
                None => Error::Invalid { at, msg },
            },
            other => other,
        };
        match p.get("discrete") as u64 {
            0 => Ok(System::Continuous(Box::new(
                LogisticModel::new(net, alpha, beta, mu, v0).map_err(named)?,
            ))),
            1 => {
                let tau = |name: &str| Time((p.get(name) * 1e12).round() as u64);
                Ok(System::Discrete(Box::new(
                    LrcRecursion::new(net, alpha, beta, tau("tau_v"), tau("tau_r"), mu, v0)
                        .map_err(named)?,
                )))
            }
            d => Err(Error::invalid(
                "engine.params.discrete",
                format!("must be 0 (Eq. 6) or 1 (Eq. 15), got {d}"),
            )),
        }
    }
}
