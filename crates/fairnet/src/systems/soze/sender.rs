//! Söze's sender: the target function (Eq. 6), the update function (Eq. 7) and Algorithm 1,
//! as a [`CongestionControl`] of the packet engine.

use super::config::{SozeConfig, SozeControl, SozeUpdate};
use crate::engine::packet::cc::{AckInfo, CcContext, CongestionControl};
use crate::error::{Error, Result};
use crate::units::{Rate, Time};

/// The target function's shape: `p`, `k` (seconds), `α`, `β` (bit/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    /// Queueing-delay scaling `p`, seconds.
    pub p: f64,
    /// Base queueing delay `k`, seconds.
    pub k: f64,
    /// Highest rate-per-weight `α`, bit/s.
    pub alpha: f64,
    /// Lowest rate-per-weight `β`, bit/s.
    pub beta: f64,
}

impl Target {
    /// `ln α − ln β`.
    #[inline]
    fn ln_range(&self) -> f64 {
        self.alpha.ln() - self.beta.ln()
    }

    /// Eq. 6: `T(r/w) = p · (ln α − ln(r/w)) / (ln α − ln β) + k`, the queueing delay (seconds)
    /// that signals weighted fair share `s = r/w` (bit/s per unit weight).
    pub fn delay(&self, s: f64) -> f64 {
        self.p * (self.alpha.ln() - s.ln()) / self.ln_range() + self.k
    }

    /// The inverse of Eq. 6 (Appendix D, Eq. 25, with `k` kept): the rate-per-weight signalled
    /// by queueing delay `d` seconds, `T⁻¹(D) = α · (β/α)^((D − k)/p)`.
    pub fn share(&self, d: f64) -> f64 {
        (self.alpha.ln() - (d - self.k) / self.p * self.ln_range()).exp()
    }

    /// Lemma 3.2 / Theorem 3.1: convergence to the target queueing delay needs
    /// `p > Δt/2 · (ln α − ln β)`; returns that bound on `p` (seconds) for update interval `dt`.
    pub fn p_bound(&self, dt: f64) -> f64 {
        dt / 2.0 * self.ln_range()
    }
}

/// The default `α` and `β` (see [`SozeConfig::alpha`], [`SozeConfig::beta`]): `max_nic` is the
/// fastest sender NIC, `min_weight` the smallest flow weight, `levels` the lowest
/// `capacity / Σ weights` over the links flows cross (bit/s per unit weight).
pub fn default_range(max_nic: Rate, min_weight: f64, lowest_level: f64) -> (f64, f64) {
    let alpha = max_nic.bps() / min_weight;
    let beta = if lowest_level.is_finite() && lowest_level > 0.0 && lowest_level < alpha / 2.0 {
        lowest_level
    } else {
        alpha / 1000.0
    };
    (alpha, beta)
}

/// Söze's sender (Söze, Wang & Ng, §3, §3.3 and Algorithm 1).
///
/// On an ACK carrying the path's largest per-hop queueing delay `D` (the `maxQD` INT value,
/// §3.2.3), with rate `r` and weight `w`: `ratio = U(r/w, D) = (T⁻¹(D) / (r/w))^m` (Eq. 7,
/// Algorithm 1 line 4) and `r ← r · ratio` (line 5). Per packet (every ACK) or, as Algorithm 1
/// is written, only when `now − last_update > rtt` (line 3). Per packet, `r` in lines 4–5 is a
/// reference rate refreshed to the current rate once per RTT ([`SozeUpdate::PerPacket`]; the
/// compounding variant is [`SozeUpdate::PerPacketCompound`]). The rate is enforced by pacing
/// or by a window `rate · RTT` (§3.3).
///
/// Choices where the paper is silent (see `docs/systems/soze.md`): the rate is clamped to
/// `[min_rate, NIC line rate]` (a faster pacing rate cannot be sent, and without the cap an
/// idle path would wind the rate up without bound); a flow starts at its NIC's line rate; loss
/// and timeouts leave the rate to the queueing-delay signal (the paper's simulations use
/// 32 MB buffers and never lose packets); `rtt` in Algorithm 1 line 3 and in the window is the
/// latest RTT sample (the path's base RTT before the first).
#[derive(Clone, Debug, PartialEq)]
pub struct Soze {
    target: Target,
    m: f64,
    update: SozeUpdate,
    control: SozeControl,
    min_rate: f64,
    max_rate: f64,
    weight: f64,
    /// Current rate, bit/s on the wire.
    rate: f64,
    rtt: Time,
    last_update: Option<Time>,
    /// Per-packet reference rate (bit/s) and when it was taken ([`SozeUpdate::PerPacket`]).
    ref_rate: f64,
    ref_at: Option<Time>,
    updates: u64,
}

impl Soze {
    /// A sender with `cfg`, target range `(α, β)` in bit/s, for the flow described by `ctx`.
    /// Errors (unless `cfg.allow_unstable`) if `p` is below Lemma 3.2's bound for this flow's
    /// update interval `Δt`: per packet, `Δt = RTT/CWND`, one packet time at the NIC's line
    /// rate (the window of a flow sending at line rate over its base RTT); per RTT, the flow's
    /// base RTT. `at` names the config table in errors (`packet config.soze`).
    pub fn new(cfg: &SozeConfig, range: (f64, f64), ctx: &CcContext, at: &str) -> Result<Soze> {
        cfg.validate(at)?;
        let (alpha, beta) = range;
        if !(alpha.is_finite() && beta.is_finite() && beta > 0.0 && beta < alpha) {
            return Err(Error::invalid(
                format!("{at}.beta"),
                format!("need 0 < beta < alpha, got alpha {alpha} b/s, beta {beta} b/s"),
            ));
        }
        let target = Target {
            p: cfg.p.as_secs_f64(),
            k: cfg.k.as_secs_f64(),
            alpha,
            beta,
        };
        let nic = ctx.nic_rate.bps();
        let dt = match cfg.update {
            SozeUpdate::PerPacket | SozeUpdate::PerPacketCompound => {
                ctx.nic_rate.tx_time(ctx.mss_wire()).as_secs_f64()
            }
            SozeUpdate::PerRtt => ctx.base_rtt.as_secs_f64(),
        };
        let bound = target.p_bound(dt);
        if !cfg.allow_unstable && target.p <= bound {
            return Err(Error::invalid(
                format!("{at}.p"),
                format!(
                    "{} is below Söze Lemma 3.2's bound p > Δt/2·ln(α/β) = {:.3}us \
                     (Δt = {:.3}us, α = {alpha:.4e} b/s, β = {beta:.4e} b/s); \
                     set allow_unstable = true to run it anyway",
                    cfg.p,
                    bound * 1e6,
                    dt * 1e6
                ),
            ));
        }
        let min_rate = cfg.min_rate.bps().min(nic);
        Ok(Soze {
            target,
            m: cfg.m,
            update: cfg.update,
            control: cfg.control,
            min_rate,
            max_rate: nic,
            weight: ctx.weight,
            rate: cfg.init_rate.map_or(nic, |r| r.bps()).clamp(min_rate, nic),
            rtt: ctx.base_rtt,
            last_update: None,
            ref_rate: 0.0,
            ref_at: None,
            updates: 0,
        })
    }

    /// The target function in use.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Current rate, bit/s.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Current weight.
    pub fn weight(&self) -> f64 {
        self.weight
    }

    /// Rate updates applied so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Algorithm 1 lines 4–5 for signal `d` (seconds): `r ← r · (T⁻¹(d) / (r/w))^m`.
    #[inline]
    pub fn apply(&mut self, d: f64) {
        let s = self.rate / self.weight;
        // ln U = m · (ln T⁻¹(d) − ln s); T⁻¹ in log form avoids an exp.
        let t = &self.target;
        let ln_target = t.alpha.ln() - (d - t.k) / t.p * t.ln_range();
        let ratio = (self.m * (ln_target - s.ln())).exp();
        self.rate = (self.rate * ratio).clamp(self.min_rate, self.max_rate);
        self.updates += 1;
    }
}

impl CongestionControl for Soze {
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        if let Some(r) = a.rtt {
            self.rtt = r;
        }
        match self.update {
            SozeUpdate::PerRtt => {
                // Algorithm 1 line 3: `if now − last_update > rtt`.
                if let Some(last) = self.last_update {
                    if a.now.0.saturating_sub(last.0) <= self.rtt.0 {
                        return;
                    }
                }
            }
            SozeUpdate::PerPacket => {
                // Reference rate: refreshed once per RTT; every ACK in between updates from it
                // (lines 4–5 with `r = r_ref`), so one RTT's feedback is applied once.
                let stale = self
                    .ref_at
                    .is_none_or(|t| a.now.0.saturating_sub(t.0) > self.rtt.0);
                if stale {
                    self.ref_rate = self.rate;
                    self.ref_at = Some(a.now);
                }
                self.rate = self.ref_rate;
            }
            SozeUpdate::PerPacketCompound => {}
        }
        self.last_update = Some(a.now);
        self.apply(a.max_qdelay.as_secs_f64());
    }

    fn on_loss(&mut self, _now: Time, _in_flight: u64) {}

    fn on_timeout(&mut self, _now: Time, _in_flight: u64) {}

    fn on_weight(&mut self, weight: f64) {
        if weight.is_finite() && weight > 0.0 {
            self.weight = weight;
        }
    }

    fn cwnd(&self) -> u64 {
        match self.control {
            SozeControl::Rate => u64::MAX,
            // §3.3: rate = CWND · pktsize / RTT.
            SozeControl::Window => (self.rate / 8.0 * self.rtt.as_secs_f64()) as u64,
        }
    }

    fn pacing_rate(&self) -> Option<Rate> {
        match self.control {
            SozeControl::Rate => Some(Rate(self.rate as u64)),
            SozeControl::Window => None,
        }
    }
}
