//! LRC's parameters (Table II, §VI): the convergence coefficients α and β, the update
//! intervals τ_v (hosts) and τ_r (switches), the capacity constriction μ and the two
//! traffic-aware adaptations of §VI-B.

use crate::error::{Error, Result};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// The smallest utilization idle relaxation divides τ_r by: at most 100·τ_r between updates.
pub const MIN_IDLE_UTILIZATION: f64 = 0.01;

/// Idle relaxation (§VI-B): the time (ps) to a port's next rate-factor update after one that
/// measured utilization `nu`: `τ_r/ν` below `idle_utilization` (ν taken as at least
/// [`MIN_IDLE_UTILIZATION`]; the paper's `τ_r/ν` is unbounded on an idle link), else `τ_r`.
pub fn relaxed_period(tau_r: u64, idle_relaxation: bool, idle_utilization: f64, nu: f64) -> u64 {
    if idle_relaxation && nu < idle_utilization {
        (tau_r as f64 / nu.max(MIN_IDLE_UTILIZATION)) as u64
    } else {
        tau_r
    }
}

/// Configuration of the logistic rate controller (`[eba]` in a scenario).
///
/// Defaults are the paper's simulation settings (§VII-C: "we set α = β = 2 s⁻¹, τ_r = 100 ms,
/// τ_v = 50 ms") and its testbed's capacity constriction (§VI-B: "We set μ to 90%").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LrcConfig {
    /// α, s⁻¹: the rate-control gain of Eq. (5)–(6) (default 2, §VII-C). Positive.
    pub alpha: f64,
    /// β, s⁻¹: the rate-factor gain of Eq. (4) (default 2, §VII-C). Positive.
    pub beta: f64,
    /// τ_v: the sender daemon's period, one control packet per VM-flow (Algorithm 2 line 2;
    /// default 50 ms, §VI-A and §VII-C). `α·τ_v` must lie in (0, 1) (§VI-B).
    pub tau_v: Time,
    /// τ_r: the switch port's rate-factor period (Algorithm 2 line 16; default 100 ms,
    /// §VII-C). Positive.
    pub tau_r: Time,
    /// μ: capacity constriction, the rate factor steers a link to `μ·C` (§VI-B; default 0.9,
    /// the testbed's). In (0, 1].
    pub mu: f64,
    /// Idle relaxation (§VI-B): at a measured utilization ν below
    /// [`LrcConfig::idle_utilization`] the port's next rate-factor update comes after `τ_r/ν`
    /// instead of `τ_r`. Default on, as in eBA.
    pub idle_relaxation: bool,
    /// The utilization below which idle relaxation stretches the period (§VI-B: "The range of
    /// low utilization is set to [0, 0.5) in eBA"; default 0.5). In (0, 1].
    pub idle_utilization: f64,
}

impl Default for LrcConfig {
    fn default() -> LrcConfig {
        LrcConfig {
            alpha: 2.0,
            beta: 2.0,
            tau_v: Time::from_ms(50),
            tau_r: Time::from_ms(100),
            mu: 0.9,
            idle_relaxation: true,
            idle_utilization: 0.5,
        }
    }
}

impl LrcConfig {
    /// Checks value ranges; `at` is the field path of this table (errors name the field).
    pub fn validate(&self, at: &str) -> Result<()> {
        let field = |f: &str| format!("{at}.{f}");
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v > 0.0 && v.is_finite()) {
                return Err(Error::invalid(
                    field(name),
                    format!("must be positive (s⁻¹), got {v}"),
                ));
            }
        }
        if self.tau_v.0 == 0 {
            return Err(Error::invalid(field("tau_v"), "must be positive"));
        }
        if self.tau_r.0 == 0 {
            return Err(Error::invalid(field("tau_r"), "must be positive"));
        }
        let a_tau = self.alpha * self.tau_v.as_secs_f64();
        if !(a_tau > 0.0 && a_tau < 1.0) {
            return Err(Error::invalid(
                field("alpha"),
                format!(
                    "alpha·tau_v must be in (0, 1) (§VI-B), got {a_tau} (alpha {} s⁻¹, tau_v {} s)",
                    self.alpha,
                    self.tau_v.as_secs_f64()
                ),
            ));
        }
        if !(self.mu > 0.0 && self.mu <= 1.0) {
            return Err(Error::invalid(
                field("mu"),
                format!("must be in (0, 1], got {}", self.mu),
            ));
        }
        if !(self.idle_utilization > 0.0 && self.idle_utilization <= 1.0) {
            return Err(Error::invalid(
                field("idle_utilization"),
                format!("must be in (0, 1], got {}", self.idle_utilization),
            ));
        }
        Ok(())
    }

    /// Uniform increase (§VI-B): the same controller with update intervals `tau_v`, `tau_r`,
    /// its coefficients rescaled so that the per-update steps `α·τ_v` and `β·τ_r` (all that
    /// Eq. (15) uses) stay what they are now.
    pub fn with_uniform_increase(&self, tau_v: Time, tau_r: Time) -> LrcConfig {
        LrcConfig {
            alpha: self.alpha * self.tau_v.as_secs_f64() / tau_v.as_secs_f64(),
            beta: self.beta * self.tau_r.as_secs_f64() / tau_r.as_secs_f64(),
            tau_v,
            tau_r,
            ..self.clone()
        }
    }

    /// The damping ratio of the linearized single-bottleneck system, `ζ = ½·√(α/β)` (§III-D).
    pub fn damping(&self) -> f64 {
        0.5 * (self.alpha / self.beta).sqrt()
    }
}
