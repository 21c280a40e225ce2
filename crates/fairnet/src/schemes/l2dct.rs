//! L2DCT: least-attained-service congestion control on DCTCP's estimate (Munir, Qazi, Uzmi,
//! Mushtaq, Ismail, Iqbal, Khan, "Minimizing Flow Completion Times in Data Centers", INFOCOM
//! 2013, §III).
//!
//! The paper was not available to us while writing this module: the formulas below are the
//! published algorithm as we recall it; the points we are unsure of are marked **(recalled)**
//! or **(our choice)**.
//!
//! - `α` is DCTCP's estimate of the fraction of marked bytes (§III-B, reusing DCTCP §3.1
//!   eq. 1): [`crate::schemes::dctcp::AlphaEstimator`].
//! - Each flow has a weight `w_c` that falls with its *attained service* (bytes sent so far),
//!   from `w_max = 2.5` for a flow that has sent nothing to `w_min = 0.125` (§III-C; both
//!   values recalled). How `w_c` falls between them is **(our choice)**: linearly in the bytes
//!   acknowledged, reaching `w_min` at [`L2DCT_FULL_BYTES`] = 1 MB (the paper's exact schedule
//!   we do not recall; 1 MB is about where web-search flows stop being "short").
//! - The normalized weight `k_c = w_c / w_max ∈ [0.05, 1]` **(recalled)** scales both
//!   directions:
//!   - increase: `W ← W + k_c` MSS per RTT in congestion avoidance (slow start unchanged);
//!   - decrease: on an ACK with ECE, at most once per window of data, `W ← W · (1 − b/2)`
//!     with the penalty `b = α^{k_c}` (§III-C). With `α ≤ 1` and `k_c ≤ 1`, `b ≥ α`: a flow
//!     that has sent little (`k_c` near 1) backs off like DCTCP and grows like TCP, a flow that
//!     has sent much backs off more and grows more slowly — least attained service, without
//!     knowing flow sizes.
//!
//! Loss and timeout as NewReno; `α` starts at 1; the window never drops below 2 MSS (as
//! [`crate::schemes::dctcp::Dctcp`]).

use crate::engine::packet::cc::{AckInfo, CongestionControl};
use crate::error::{Error, Result};
use crate::schemes::dctcp::{AimdWindow, AlphaEstimator};
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

/// Largest weight, of a flow that has sent nothing (L2DCT §III-C; recalled).
pub const L2DCT_W_MAX: f64 = 2.5;
/// Smallest weight, of a flow that has sent [`L2DCT_FULL_BYTES`] or more (L2DCT §III-C;
/// recalled).
pub const L2DCT_W_MIN: f64 = 0.125;
/// Attained service at which the weight reaches [`L2DCT_W_MIN`] (our choice, see the module
/// doc).
pub const L2DCT_FULL_BYTES: u64 = 1_000_000;

/// L2DCT's parameters (`transport = "l2dct"` with an `[engine.l2dct]` table); DCTCP's gain
/// `g` is the shared `tcp.dctcp_g`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct L2dctConfig {
    /// Weight of a flow that has sent nothing (default 2.5, L2DCT §III-C as recalled).
    pub w_max: f64,
    /// Weight of a flow past `full_service` (default 0.125, L2DCT §III-C as recalled).
    pub w_min: f64,
    /// Attained service at which the weight reaches `w_min` (default 1 MB, our choice: see
    /// the module doc).
    pub full_service: Bytes,
}

impl Default for L2dctConfig {
    fn default() -> L2dctConfig {
        L2dctConfig {
            w_max: L2DCT_W_MAX,
            w_min: L2DCT_W_MIN,
            full_service: Bytes(L2DCT_FULL_BYTES),
        }
    }
}

impl L2dctConfig {
    /// Checks `0 < w_min ≤ w_max` (finite) and `full_service > 0`; errors name the field
    /// under `at`.
    pub fn validate(&self, at: &str) -> Result<()> {
        if !(self.w_min > 0.0 && self.w_min.is_finite()) {
            return Err(Error::invalid(
                format!("{at}.w_min"),
                format!("must be a positive number, got {}", self.w_min),
            ));
        }
        if !(self.w_max >= self.w_min && self.w_max.is_finite()) {
            return Err(Error::invalid(
                format!("{at}.w_max"),
                format!(
                    "must be finite and at least w_min = {}, got {}",
                    self.w_min, self.w_max
                ),
            ));
        }
        if self.full_service.0 == 0 {
            return Err(Error::invalid(
                format!("{at}.full_service"),
                "must be positive",
            ));
        }
        Ok(())
    }
}

/// The weight `w_c` of a flow that has sent `attained` bytes: linear from `cfg.w_max` at 0 to
/// `cfg.w_min` at `cfg.full_service`, then constant.
pub fn weight(attained: u64, cfg: &L2dctConfig) -> f64 {
    let x = (attained as f64 / cfg.full_service.0 as f64).min(1.0);
    cfg.w_max - (cfg.w_max - cfg.w_min) * x
}

/// L2DCT's sender (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct L2dct {
    w: AimdWindow,
    est: AlphaEstimator,
    cfg: L2dctConfig,
}

impl L2dct {
    /// L2DCT with MSS `mss`, initial window `init_cwnd` bytes, DCTCP gain `g` and the weight
    /// schedule of `cfg`.
    pub fn new(mss: u64, init_cwnd: u64, g: f64, cfg: &L2dctConfig) -> L2dct {
        L2dct {
            w: AimdWindow::new(mss, init_cwnd),
            est: AlphaEstimator::new(mss, g),
            cfg: *cfg,
        }
    }

    /// The current estimate `α`.
    pub fn alpha(&self) -> f64 {
        self.est.alpha()
    }
}

impl CongestionControl for L2dct {
    #[inline]
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        let alpha = self.est.on_ack(a);
        // Attained service: the bytes acknowledged so far (the cumulative ACK).
        let k = weight(a.cum_ack, &self.cfg) / self.cfg.w_max;
        let b = alpha.powf(k);
        self.w.on_ack_ecn_scaled(a, a.ece, 1.0 - b / 2.0, k);
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

    use crate::test_support::ecn_ack as ack;

    #[test]
    fn weight_falls_linearly_from_w_max_to_w_min() {
        let cfg = L2dctConfig::default();
        assert_eq!(weight(0, &cfg), L2DCT_W_MAX);
        assert!((weight(L2DCT_FULL_BYTES / 2, &cfg) - (2.5 + 0.125) / 2.0).abs() < 1e-12);
        assert_eq!(weight(L2DCT_FULL_BYTES, &cfg), L2DCT_W_MIN);
        assert_eq!(weight(10 * L2DCT_FULL_BYTES, &cfg), L2DCT_W_MIN);
        // [engine.l2dct] with w_max 4, w_min 1, full at 100 kB: halfway (50 kB) is 2.5.
        let other = L2dctConfig {
            w_max: 4.0,
            w_min: 1.0,
            full_service: Bytes(100_000),
        };
        assert!((weight(50_000, &other) - 2.5).abs() < 1e-12);
        assert_eq!(weight(200_000, &other), 1.0);
    }

    #[test]
    fn bad_schedule_names_the_field() {
        let at = "packet config.l2dct";
        let bad = L2dctConfig {
            w_max: 0.1,
            ..L2dctConfig::default()
        };
        let e = bad.validate(at).unwrap_err().to_string();
        assert!(e.contains("packet config.l2dct.w_max"), "{e}");
        let bad = L2dctConfig {
            w_min: 0.0,
            ..L2dctConfig::default()
        };
        assert!(bad.validate(at).unwrap_err().to_string().contains(".w_min"));
        let bad = L2dctConfig {
            full_service: Bytes(0),
            ..L2dctConfig::default()
        };
        assert!(bad
            .validate(at)
            .unwrap_err()
            .to_string()
            .contains(".full_service"));
    }

    #[test]
    fn a_flow_with_more_attained_service_cuts_deeper() {
        // Both start with α = 1 (b = 1 whatever k): the first mark halves both windows. Then
        // the same unmarked window lowers α to 15/16 for both; the next mark cuts by
        // b/2 = α^k/2 with k = 1 for the fresh flow and k = 0.05 for the one past 1 MB:
        // (15/16)^0.05 > 15/16, so the older flow keeps the smaller window.
        let mss = 1000;
        let run = |base: u64| {
            let mut c = L2dct::new(mss, 100 * mss, 1.0 / 16.0, &L2dctConfig::default());
            c.on_ack(&ack(mss, base + mss, base + 100 * mss, true));
            assert_eq!(c.cwnd(), 50 * mss, "α = 1 halves");
            c.on_ack(&ack(mss, base + 100 * mss, base + 150 * mss, false));
            let before = c.cwnd();
            c.on_ack(&ack(mss, base + 150 * mss, base + 200 * mss, true));
            (before, c.cwnd(), c.alpha())
        };
        let (b0, fresh, a0) = run(0);
        let (b1, old, a1) = run(10 * L2DCT_FULL_BYTES);
        assert_eq!((b0, a0), (b1, a1), "same state before the second cut");
        let k_fresh = weight(150 * mss, &L2dctConfig::default()) / L2DCT_W_MAX;
        let want_fresh = (b0 as f64 * (1.0 - a0.powf(k_fresh) / 2.0)) as u64;
        let want_old = (b1 as f64 * (1.0 - a1.powf(0.05) / 2.0)) as u64;
        assert_eq!((fresh, old), (want_fresh, want_old));
        assert!(fresh > old, "{fresh} vs {old}");
    }
}
