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

/// Lemma 3.2's update interval `Δt` (seconds) of `update` for a flow sending at `rate` bit/s
/// with packets of `packet_bits` over a round trip of `rtt` seconds: per ACK compounding,
/// `Δt = RTT/CWND` with `CWND = rate·RTT/pktsize` (§3.3), one packet time at the rate; from a
/// per-RTT reference rate or once per RTT, one full step per round trip, `Δt = RTT`.
pub fn update_interval(update: SozeUpdate, rate: f64, packet_bits: f64, rtt: f64) -> f64 {
    match update {
        SozeUpdate::PerPacketCompound => packet_bits / rate,
        SozeUpdate::PerPacket | SozeUpdate::PerRtt => rtt,
    }
}

/// Söze's sender (Söze, Wang & Ng, §3, §3.3 and Algorithm 1).
///
/// On an ACK carrying the path's largest per-hop queueing delay `D` (the `maxQD` INT value,
/// §3.2.3), with rate `r` and weight `w`: `ratio = U(r/w, D) = (T⁻¹(D) / (r/w))^m` (Eq. 7,
/// Algorithm 1 line 4) and `r ← r · ratio` (line 5). By default on every ACK from a reference
/// rate refreshed once per RTT ([`SozeUpdate::PerPacket`], see there why); on every ACK,
/// compounding, as §3.3 "Conduct rate update in per-packet manner" writes it
/// ([`SozeUpdate::PerPacketCompound`]); or only when `now − last_update > rtt` (line 3,
/// [`SozeUpdate::PerRtt`]). The rate is enforced by
/// pacing, by a window `rate · RTT` (§3.3), or both ([`SozeControl`]).
///
/// Lemma 3.2 (`p > Δt/2 · ln(α/β)`) is checked when the sender is built, for the rule's best
/// case (a violation there is an error unless `allow_unstable`, see [`Soze::new`]), and on
/// every update with the `Δt` of the rule in force ([`update_interval`]) at the flow's current
/// rate and RTT sample, counting the updates that violate it ([`Soze::lemma_3_2_violations`]).
///
/// Choices where the paper is silent (see `docs/systems/soze.md`): the rate is capped at the
/// NIC line rate (a faster pacing rate cannot be sent, and without the cap an idle path would
/// wind the rate up without bound) and, behind a weighted host NIC, at what the NIC can give
/// the flow ([`CongestionControl::on_nic_share`]: the NIC holds a flow to its weighted share
/// whatever it paces at, so without the cap Eq. 7 would update from a rate the flow is not
/// sending at — it drifts to the line rate — and a flow whose bottleneck moves off the NIC
/// would start from there); no floor unless `min_rate` is set (1 bit/s, the engine's
/// rate unit, keeps the pacing rate positive); a flow starts at its NIC's line rate; loss and
/// timeouts leave the rate to the queueing-delay signal (the paper's simulations use 32 MB
/// buffers and never lose packets); `rtt` in Algorithm 1 line 3 and in the window is the
/// latest RTT sample (the path's base RTT before the first).
#[derive(Clone, Debug, PartialEq)]
pub struct Soze {
    target: Target,
    m: f64,
    update: SozeUpdate,
    control: SozeControl,
    /// The set floor (bit/s), or 1 bit/s (the engine's rate unit) when none is set.
    min_rate: f64,
    floor_set: bool,
    /// The NIC's line rate (bit/s).
    max_rate: f64,
    /// What the host's weighted NIC can give the flow (bit/s; the line rate without one).
    nic_share: f64,
    weight: f64,
    /// Wire bits of a full data packet (Lemma 3.2's `pktsize`).
    packet_bits: f64,
    /// Current rate, bit/s on the wire.
    rate: f64,
    rtt: Time,
    last_update: Option<Time>,
    /// Per-packet reference rate (bit/s) and when it was taken ([`SozeUpdate::PerPacket`]).
    ref_rate: f64,
    ref_at: Option<Time>,
    updates: u64,
    lemma_violations: u64,
}

impl Soze {
    /// A sender with `cfg`, target range `(α, β)` in bit/s, for the flow described by `ctx`.
    /// Errors (unless `cfg.allow_unstable`) if `p` is below Lemma 3.2's bound in the best case
    /// of the rule: per ACK (both per-ACK rules) one packet time at the NIC's line rate apart,
    /// once per RTT the flow's base RTT — no rate the flow can take would satisfy it then.
    /// The reference-rate rule's own `Δt` is the RTT ([`update_interval`]); where that fails
    /// the updates are counted ([`Soze::lemma_3_2_violations`]), not refused: measured, the
    /// rule is steady where the bound with `Δt = RTT` fails (`docs/systems/soze.md`). `at`
    /// names the config table in errors (`packet config.soze`).
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
        let packet_bits = ctx.mss_wire().0 as f64 * 8.0;
        // The best case: every ACK reacts (both per-ACK rules), at the earliest one packet time
        // at line rate apart; once per RTT, the base RTT.
        let dt = match cfg.update {
            SozeUpdate::PerRtt => ctx.base_rtt.as_secs_f64(),
            _ => packet_bits / nic,
        };
        let bound = target.p_bound(dt);
        if !cfg.allow_unstable && target.p <= bound {
            return Err(Error::invalid(
                format!("{at}.p"),
                format!(
                    "{} is below Söze Lemma 3.2's bound p > Δt/2·ln(α/β) = {:.3}us \
                     (Δt = {:.3}us for update = {:?} at line rate, α = {alpha:.4e} b/s, \
                     β = {beta:.4e} b/s); set allow_unstable = true to run it anyway",
                    cfg.p,
                    bound * 1e6,
                    dt * 1e6,
                    cfg.update
                ),
            ));
        }
        let min_rate = cfg.min_rate.map_or(1.0, |r| r.bps().min(nic));
        Ok(Soze {
            target,
            m: cfg.m,
            update: cfg.update,
            control: cfg.control,
            min_rate,
            floor_set: cfg.min_rate.is_some(),
            max_rate: nic,
            nic_share: nic,
            weight: ctx.weight,
            packet_bits,
            rate: cfg.init_rate.map_or(nic, |r| r.bps()).clamp(min_rate, nic),
            rtt: ctx.base_rtt,
            last_update: None,
            ref_rate: 0.0,
            ref_at: None,
            updates: 0,
            lemma_violations: 0,
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

    /// Updates made where Lemma 3.2 failed: `p ≤ Δt/2 · ln(α/β)` with the rule's `Δt`
    /// ([`update_interval`]) at the rate and RTT sample the update started from.
    pub fn lemma_3_2_violations(&self) -> u64 {
        self.lemma_violations
    }

    /// The highest rate the flow may take now: the NIC line rate, or behind a weighted NIC
    /// what it can give the flow ([`CongestionControl::on_nic_share`]); never below a set floor.
    pub fn rate_cap(&self) -> f64 {
        self.nic_share.min(self.max_rate).max(self.min_rate)
    }

    /// Whether a set `min_rate` holds the rate now (never without a set floor).
    pub fn at_floor(&self) -> bool {
        self.floor_set && self.rate <= self.min_rate
    }

    /// Algorithm 1 lines 4–5 for signal `d` (seconds): `r ← r · (T⁻¹(d) / (r/w))^m`.
    #[inline]
    pub fn apply(&mut self, d: f64) {
        let t = &self.target;
        let dt = update_interval(
            self.update,
            self.rate,
            self.packet_bits,
            self.rtt.as_secs_f64(),
        );
        if t.p <= t.p_bound(dt) {
            self.lemma_violations += 1;
        }
        let s = self.rate / self.weight;
        // ln U = m · (ln T⁻¹(d) − ln s); T⁻¹ in log form avoids an exp.
        let ln_target = t.alpha.ln() - (d - t.k) / t.p * t.ln_range();
        let ratio = (self.m * (ln_target - s.ln())).exp();
        self.rate = (self.rate * ratio).clamp(self.min_rate, self.rate_cap());
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

    fn wants_nic_share(&self) -> bool {
        true
    }

    /// The weighted NIC's share caps the rate at once, and the per-RTT reference rate the
    /// next updates start from ([`SozeUpdate::PerPacket`]), and every update after.
    fn on_nic_share(&mut self, share: Rate) {
        self.nic_share = share.bps();
        let cap = self.rate_cap();
        self.rate = self.rate.min(cap);
        self.ref_rate = self.ref_rate.min(cap);
    }

    fn cwnd(&self) -> u64 {
        match self.control {
            SozeControl::Rate => u64::MAX,
            // §3.3: rate = CWND · pktsize / RTT; at least one packet, so a flow always sends.
            SozeControl::Window | SozeControl::RateWindow => {
                ((self.rate / 8.0 * self.rtt.as_secs_f64()) as u64).max(1)
            }
        }
    }

    fn pacing_rate(&self) -> Option<Rate> {
        match self.control {
            SozeControl::Rate | SozeControl::RateWindow => Some(Rate((self.rate as u64).max(1))),
            SozeControl::Window => None,
        }
    }

    /// A rate rise moves the pending release (issue 31): Söze's simulator, built on HPCC's
    /// ns-3, re-times a queue pair's next send at every rate change. Without it a packet sent
    /// at a rate Eq. 7 took very low (an incast's maxQD, no floor) holds the flow for that
    /// packet's time at the low rate whatever the next ACKs say (one flow of Figs. 15–16 at
    /// full scale, 80%, paced alone, waited ~665 ms).
    fn release_follows_rate_rise(&self) -> bool {
        true
    }
}
