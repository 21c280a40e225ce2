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
use crate::schemes::dctcp::{AimdWindow, AlphaEstimator};
use crate::units::Time;

/// Largest weight, of a flow that has sent nothing (L2DCT §III-C; recalled).
pub const L2DCT_W_MAX: f64 = 2.5;
/// Smallest weight, of a flow that has sent [`L2DCT_FULL_BYTES`] or more (L2DCT §III-C;
/// recalled).
pub const L2DCT_W_MIN: f64 = 0.125;
/// Attained service at which the weight reaches [`L2DCT_W_MIN`] (our choice, see the module
/// doc).
pub const L2DCT_FULL_BYTES: u64 = 1_000_000;

/// The weight `w_c` of a flow that has sent `attained` bytes: linear from [`L2DCT_W_MAX`] at 0
/// to [`L2DCT_W_MIN`] at [`L2DCT_FULL_BYTES`], then constant.
pub fn weight(attained: u64) -> f64 {
    let x = (attained as f64 / L2DCT_FULL_BYTES as f64).min(1.0);
    L2DCT_W_MAX - (L2DCT_W_MAX - L2DCT_W_MIN) * x
}

/// L2DCT's sender (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct L2dct {
    w: AimdWindow,
    est: AlphaEstimator,
}

impl L2dct {
    /// L2DCT with MSS `mss`, initial window `init_cwnd` bytes and DCTCP gain `g`.
    pub fn new(mss: u64, init_cwnd: u64, g: f64) -> L2dct {
        L2dct {
            w: AimdWindow::new(mss, init_cwnd),
            est: AlphaEstimator::new(mss, g),
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
        let k = weight(a.cum_ack) / L2DCT_W_MAX;
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
        assert_eq!(weight(0), L2DCT_W_MAX);
        assert!((weight(L2DCT_FULL_BYTES / 2) - (2.5 + 0.125) / 2.0).abs() < 1e-12);
        assert_eq!(weight(L2DCT_FULL_BYTES), L2DCT_W_MIN);
        assert_eq!(weight(10 * L2DCT_FULL_BYTES), L2DCT_W_MIN);
    }

    #[test]
    fn a_flow_with_more_attained_service_cuts_deeper() {
        // Both start with α = 1 (b = 1 whatever k): the first mark halves both windows. Then
        // the same unmarked window lowers α to 15/16 for both; the next mark cuts by
        // b/2 = α^k/2 with k = 1 for the fresh flow and k = 0.05 for the one past 1 MB:
        // (15/16)^0.05 > 15/16, so the older flow keeps the smaller window.
        let mss = 1000;
        let run = |base: u64| {
            let mut c = L2dct::new(mss, 100 * mss, 1.0 / 16.0);
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
        let k_fresh = weight(150 * mss) / L2DCT_W_MAX;
        let want_fresh = (b0 as f64 * (1.0 - a0.powf(k_fresh) / 2.0)) as u64;
        let want_old = (b1 as f64 * (1.0 - a1.powf(0.05) / 2.0)) as u64;
        assert_eq!((fresh, old), (want_fresh, want_old));
        assert!(fresh > old, "{fresh} vs {old}");
    }
}
