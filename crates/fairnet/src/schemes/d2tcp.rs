//! D2TCP: deadline-aware DCTCP (Vamanan, Hasan, Vijaykumar, "Deadline-Aware Datacenter TCP
//! (D2TCP)", SIGCOMM 2012, §4.1).
//!
//! The paper was not available to us while writing this module: the formulas below are the
//! published algorithm as we recall it; the points we are unsure of are marked **(recalled)**.
//!
//! - `α` is DCTCP's estimate of the fraction of marked bytes, updated once per window of data
//!   (DCTCP §3.1 eq. 1; D2TCP §4.1 keeps it unchanged). We reuse
//!   [`crate::schemes::dctcp::AlphaEstimator`].
//! - The *deadline imminence factor* `d = T_c / D` (§4.1), where `T_c` is the time the flow
//!   still needs at its current rate and `D` the time left until its deadline. `T_c = B /
//!   (3/4 · W)` round trips **(recalled)**: `B` the bytes still to deliver, `W` the window, `3/4
//!   · W` the mean window of DCTCP's sawtooth between `W/2` and `W`. A flow without a deadline
//!   has `d = 1`.
//! - `d` is capped to `[0.5, 2]` (§4.1, "to avoid over-aggressive or over-passive flows";
//!   the bounds 0.5 and 2 are the paper's as we recall them).
//! - The *gamma-correction* penalty `p = α^d` (§4.1 eq. 1). With `α ≤ 1`, a near-deadline flow
//!   (`d > 1`) has `p < α` and backs off less than DCTCP, a far-deadline flow (`d < 1`) has
//!   `p > α` and backs off more; `d = 1` is DCTCP exactly.
//! - On an ACK with ECE, at most once per window of data: `W ← W · (1 − p/2)` (§4.1 eq. 2);
//!   otherwise TCP's increase (slow start, then one MSS per RTT), as DCTCP
//!   ([`crate::schemes::dctcp::AimdWindow`]).
//!
//! Choices where the paper (as we recall it) is silent:
//! - `d` is evaluated at the moment of the cut, from `B = size − cum_ack` and the current
//!   window; the round trip that converts `T_c` from round trips to seconds is the ACK's RTT
//!   sample, or the flow's base RTT before the first sample.
//! - Past its deadline (`D ≤ 0`) a flow has `d = 2`, the limit of `T_c / D` as `D → 0⁺`
//!   (D2TCP keeps sending a flow that missed its deadline; it is not dropped).
//! - `α` starts at 1, a duplicate ACK counts one MSS in `α`'s window, the window never drops
//!   below 2 MSS: all as [`crate::schemes::dctcp::Dctcp`].

use crate::engine::packet::cc::{AckInfo, CongestionControl};
use crate::error::{Error, Result};
use crate::schemes::dctcp::{AimdWindow, AlphaEstimator};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// Lower cap of the deadline imminence factor `d` (D2TCP §4.1; recalled).
pub const D2TCP_D_MIN: f64 = 0.5;
/// Upper cap of the deadline imminence factor `d` (D2TCP §4.1; recalled).
pub const D2TCP_D_MAX: f64 = 2.0;

/// D2TCP's parameters (`transport = "d2tcp"` with an `[engine.d2tcp]` table); DCTCP's gain
/// `g` is the shared `tcp.dctcp_g`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct D2tcpConfig {
    /// Lower cap of `d` (default 0.5, D2TCP §4.1 as recalled): the farthest deadline's
    /// penalty is `α^0.5`.
    pub d_min: f64,
    /// Upper cap of `d` (default 2, D2TCP §4.1 as recalled), also the `d` of a flow past its
    /// deadline.
    pub d_max: f64,
}

impl Default for D2tcpConfig {
    fn default() -> D2tcpConfig {
        D2tcpConfig {
            d_min: D2TCP_D_MIN,
            d_max: D2TCP_D_MAX,
        }
    }
}

impl D2tcpConfig {
    /// Checks `0 < d_min ≤ 1 ≤ d_max` (finite): `d = 1`, DCTCP's cut, must stay reachable.
    /// Errors name the field under `at`.
    pub fn validate(&self, at: &str) -> Result<()> {
        if !(self.d_min > 0.0 && self.d_min <= 1.0) {
            return Err(Error::invalid(
                format!("{at}.d_min"),
                format!("must be in (0, 1], got {}", self.d_min),
            ));
        }
        if !(self.d_max >= 1.0 && self.d_max.is_finite()) {
            return Err(Error::invalid(
                format!("{at}.d_max"),
                format!("must be finite and at least 1, got {}", self.d_max),
            ));
        }
        Ok(())
    }
}

/// The deadline imminence factor `d = T_c / D` capped to `[cfg.d_min, cfg.d_max]` (D2TCP
/// §4.1), with `T_c = remaining / (3/4 · cwnd)` round trips of `rtt` and `D = time_left`.
/// `time_left ≤ 0` (deadline passed) gives the upper cap.
pub fn imminence(remaining: u64, cwnd: u64, rtt: Time, time_left: f64, cfg: &D2tcpConfig) -> f64 {
    if time_left <= 0.0 {
        return cfg.d_max;
    }
    let t_c = remaining as f64 / (0.75 * cwnd.max(1) as f64) * rtt.as_secs_f64();
    (t_c / time_left).clamp(cfg.d_min, cfg.d_max)
}

/// D2TCP's sender (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct D2tcp {
    w: AimdWindow,
    est: AlphaEstimator,
    /// Payload bytes of the flow.
    size: u64,
    /// Absolute deadline (start + relative deadline), `None` for a flow without one.
    deadline: Option<Time>,
    /// RTT used before the first sample.
    base_rtt: Time,
    rtt: Time,
    /// `d` at the last cut (1 before any), for tests and records.
    last_d: f64,
    cfg: D2tcpConfig,
}

impl D2tcp {
    /// D2TCP with MSS `mss`, initial window `init_cwnd` bytes, DCTCP gain `g`, for a flow of
    /// `size` payload bytes that must finish by the absolute time `deadline` (`None`: no
    /// deadline, DCTCP's behaviour), with base RTT `base_rtt` and the caps of `cfg`.
    pub fn new(
        mss: u64,
        init_cwnd: u64,
        g: f64,
        size: u64,
        deadline: Option<Time>,
        base_rtt: Time,
        cfg: &D2tcpConfig,
    ) -> D2tcp {
        D2tcp {
            w: AimdWindow::new(mss, init_cwnd),
            est: AlphaEstimator::new(mss, g),
            size,
            deadline,
            base_rtt,
            rtt: base_rtt,
            last_d: 1.0,
            cfg: *cfg,
        }
    }

    /// The current estimate `α`.
    pub fn alpha(&self) -> f64 {
        self.est.alpha()
    }

    /// The deadline imminence factor of the last cut (1 before any cut or without a deadline).
    pub fn last_d(&self) -> f64 {
        self.last_d
    }

    /// `d` for the state after ACK `a` (1 without a deadline).
    fn d(&self, a: &AckInfo<'_>) -> f64 {
        let Some(deadline) = self.deadline else {
            return 1.0;
        };
        let remaining = self.size.saturating_sub(a.cum_ack);
        let time_left = deadline.as_secs_f64() - a.now.as_secs_f64();
        imminence(remaining, self.w.cwnd(), self.rtt, time_left, &self.cfg)
    }
}

impl CongestionControl for D2tcp {
    #[inline]
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        let alpha = self.est.on_ack(a);
        if let Some(r) = a.rtt {
            self.rtt = r;
        }
        let mut factor = 1.0;
        if a.ece {
            let d = self.d(a);
            self.last_d = d;
            // §4.1: p = α^d (gamma correction), W ← W·(1 − p/2). With d = 1, powf(1) is exact,
            // so a flow without a deadline follows DCTCP bit for bit.
            factor = 1.0 - alpha.powf(d) / 2.0;
        }
        self.w.on_ack_ecn(a, a.ece, factor);
    }
    fn on_loss(&mut self, _now: Time, in_flight: u64) {
        self.w.on_loss(in_flight);
    }
    fn on_timeout(&mut self, _now: Time, in_flight: u64) {
        self.w.on_timeout(in_flight);
    }
    #[inline]
    fn cwnd(&self) -> u64 {
        self.w.cwnd()
    }
    fn ecn_capable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imminence_is_tc_over_d_capped_to_half_and_two() {
        // 30 MSS left at a window of 10 MSS: T_c = 30 / 7.5 = 4 RTTs = 400 µs at 100 µs.
        let rtt = Time::from_us(100);
        let (mss, cwnd) = (1000, 10_000);
        let cfg = D2tcpConfig::default();
        let d = imminence(30 * mss, cwnd, rtt, 800e-6, &cfg);
        assert!((d - 0.5).abs() < 1e-12, "400/800 = 0.5, got {d}");
        let d = imminence(30 * mss, cwnd, rtt, 320e-6, &cfg);
        assert!((d - 1.25).abs() < 1e-12, "400/320 = 1.25, got {d}");
        // Far deadline: clamped up to 0.5; near or passed: clamped down to 2.
        assert_eq!(imminence(30 * mss, cwnd, rtt, 1.0, &cfg), D2TCP_D_MIN);
        assert_eq!(imminence(30 * mss, cwnd, rtt, 1e-6, &cfg), D2TCP_D_MAX);
        assert_eq!(imminence(30 * mss, cwnd, rtt, -1.0, &cfg), D2TCP_D_MAX);
        // Other caps from [engine.d2tcp]: 400/800 µs is now below d_min = 0.8; late is 3.
        let wide = D2tcpConfig {
            d_min: 0.8,
            d_max: 3.0,
        };
        assert_eq!(imminence(30 * mss, cwnd, rtt, 800e-6, &wide), 0.8);
        assert_eq!(imminence(30 * mss, cwnd, rtt, -1.0, &wide), 3.0);
    }

    #[test]
    fn bad_caps_name_the_field() {
        let bad = D2tcpConfig {
            d_min: 1.5,
            ..D2tcpConfig::default()
        };
        let e = bad.validate("packet config.d2tcp").unwrap_err().to_string();
        assert!(
            e.contains("packet config.d2tcp.d_min") && e.contains("1.5"),
            "{e}"
        );
        let bad = D2tcpConfig {
            d_max: 0.5,
            ..D2tcpConfig::default()
        };
        let e = bad.validate("packet config.d2tcp").unwrap_err().to_string();
        assert!(e.contains("packet config.d2tcp.d_max"), "{e}");
    }
}
