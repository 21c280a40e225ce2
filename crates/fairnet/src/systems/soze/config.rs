//! Söze's parameters (`[soze]` table of the packet config).

use crate::error::{Error, Result};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

/// Söze §4 ("Host implementation", "NS-3 simulator implementation"): `p = 20 µs`.
pub const DEFAULT_P: Time = Time::from_us(20);
/// Söze §4: `k = 3 µs`.
pub const DEFAULT_K: Time = Time::from_us(3);
/// Söze §4: `m = 0.25`.
pub const DEFAULT_M: f64 = 0.25;

/// When Algorithm 1 runs.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SozeUpdate {
    /// On every ACK, each update taken from a reference rate `r_ref` refreshed to the current
    /// rate once per RTT (HPCC §3.3's reference window, not Söze's): `r ← r_ref · U(r_ref/w,
    /// D)`. Every ACK reacts to the newest `D`, but one RTT's feedback is applied once, so a
    /// full step of `m` happens once per RTT: Lemma 3.2's `Δt` is the RTT. The default:
    /// §3.3's compounding fails Theorem 3.1 (weighted max-min in any network) on random
    /// multi-bottleneck fat-trees where this rule meets it (k = 4, 24 weighted flows, p =
    /// 20 µs: mean / worst error 19.4 / 76.8% against 1.2 / 2.4%), and Fig. 16's large flows
    /// "comparable with DCQCN" (`docs/systems/soze.md`, "The update rule").
    #[default]
    PerPacket,
    /// On every ACK, compounding: `r ← r · U(r/w, D)` from the current rate, as §3.3 ("Conduct
    /// rate update in per-packet manner") and Algorithm 1 lines 4–5 write it; Lemma 3.2's
    /// `Δt = RTT/CWND`, one packet time at the flow's rate.
    PerPacketCompound,
    /// At most once per RTT (Algorithm 1 line 3, `now − last_update > rtt`; `Δt = RTT`).
    PerRtt,
}

/// How the rate is enforced (§3.3 "Host control with the INT signal").
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SozeControl {
    /// Rate-based: packets are paced at the rate, no window (the eRPC implementation, §4).
    Rate,
    /// Window-based: `CWND = rate · RTT / 8` bytes from the latest RTT sample, no pacing (the
    /// kernel-module implementation, §3.3: "rate = CWND·pktsize/RTT").
    Window,
    /// Paced at the rate *and* bounded by the window `rate · RTT / 8` that §3.3's
    /// "rate = CWND·pktsize/RTT" gives the same rate: pacing spreads the packets, the window
    /// stops a flow whose ACKs stop coming (a rate alone keeps sending into a queue whose
    /// signal has not come back yet). §3.3 offers the two as alternatives; this is both. The
    /// default (issue 31): it meets Theorem 3.1's weighted max-min within 5% on random
    /// fat-trees where pacing alone does not (k = 4, 24 flows, seed 12345, p = 20 µs: worst
    /// error 1.3% against 17.4%) and Fig. 15's short flows below HPCC's at 80% load (k = 4:
    /// p99 slowdown 5.45 against 6.59, HPCC 6.58), `docs/systems/soze.md`.
    #[default]
    RateWindow,
}

/// Söze's sender parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SozeConfig {
    /// Queueing-delay scaling `p` of the target function (Eq. 6); default 20 µs (§4).
    pub p: Time,
    /// Base queueing delay `k` of the target function (Eq. 6); default 3 µs (§4).
    pub k: Time,
    /// Smoother `m` of the update function (Eq. 7); default 0.25 (§4). Lemma 3.1 needs
    /// `0 < m < 2`.
    pub m: f64,
    /// Highest rate-per-weight `α` (Eq. 6). Default (§3.1.4: "usually the link bandwidth divided
    /// by the smallest weight"): the fastest sender NIC's line rate divided by the smallest
    /// flow weight at start.
    pub alpha: Option<Rate>,
    /// Lowest rate-per-weight `β` (Eq. 6). Default (§3.1.4: "determined with the traffic
    /// pattern"): the lowest weighted fair share any link can have, `min over links of
    /// capacity / Σ weights of the flows crossing it`; if that is not below `α/2` (one flow
    /// alone), `α/1000`, the range of the paper's example (Appendix D, Eq. 38).
    pub beta: Option<Rate>,
    /// Per ACK from a per-RTT reference rate (default), per ACK compounding (§3.3), or once
    /// per RTT (Algorithm 1 line 3).
    pub update: SozeUpdate,
    /// Rate (pacing), window, or pacing under a window (default: pacing under the window).
    pub control: SozeControl,
    /// Starting rate (default: the sender NIC's line rate; the paper does not say).
    pub init_rate: Option<Rate>,
    /// Lowest rate (default none: the paper has no floor; Eq. 7 alone decides). A set floor
    /// decides the rate of every flow whose weighted share is below it; such flows are
    /// reported ([`super::Soze::at_floor`]).
    pub min_rate: Option<Rate>,
    /// Accept `m` outside `(0, 2)` or `p` below Lemma 3.2's bound (for stability experiments).
    pub allow_unstable: bool,
}

impl Default for SozeConfig {
    fn default() -> SozeConfig {
        SozeConfig {
            p: DEFAULT_P,
            k: DEFAULT_K,
            m: DEFAULT_M,
            alpha: None,
            beta: None,
            update: SozeUpdate::PerPacket,
            control: SozeControl::RateWindow,
            init_rate: None,
            min_rate: None,
            allow_unstable: false,
        }
    }
}

impl SozeConfig {
    /// Checks what can be checked without a topology; `at` is the table's path
    /// (`packet config.soze`). Lemma 3.2's bound on `p` needs `Δt` and is checked when a
    /// sender is built ([`super::Soze::new`]).
    pub fn validate(&self, at: &str) -> Result<()> {
        let f = |n: &str| format!("{at}.{n}");
        let in_lemma = self.m > 0.0 && self.m < 2.0;
        if !self.m.is_finite() || !(self.allow_unstable || in_lemma) {
            return Err(Error::invalid(
                f("m"),
                format!(
                    "must be in (0, 2) for convergence to weighted fairness (Söze Lemma 3.1), got {} \
                     (set allow_unstable = true to run it anyway)",
                    self.m
                ),
            ));
        }
        if self.m <= 0.0 {
            return Err(Error::invalid(
                f("m"),
                format!("must be positive, got {}", self.m),
            ));
        }
        if self.p.0 == 0 {
            return Err(Error::invalid(f("p"), "must be positive"));
        }
        for (name, r) in [("alpha", self.alpha), ("beta", self.beta)] {
            if r == Some(Rate(0)) {
                return Err(Error::invalid(f(name), "must be positive"));
            }
        }
        if let (Some(a), Some(b)) = (self.alpha, self.beta) {
            if b >= a {
                return Err(Error::invalid(
                    f("beta"),
                    format!("must be below alpha ({a}), got {b}"),
                ));
            }
        }
        if self.min_rate == Some(Rate(0)) {
            return Err(Error::invalid(f("min_rate"), "must be positive"));
        }
        if self.init_rate == Some(Rate(0)) {
            return Err(Error::invalid(f("init_rate"), "must be positive"));
        }
        Ok(())
    }
}
