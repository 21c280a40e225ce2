//! TCP CUBIC (RFC 9438, "CUBIC for Fast and Long-Distance Networks", 2023).
//!
//! The window is a cubic function of the time since the last congestion event, independent of
//! the RTT, so flows with different RTTs converge to closer shares than with Reno.
//!
//! - §4.2: `W_cubic(t) = C·(t − K)³ + W_max`, `K = ∛((W_max − cwnd_epoch)/C)`, windows in
//!   segments and `t` in seconds since the congestion-avoidance stage began; `C = 0.4`.
//! - §4.3 (Reno-friendly region): `W_est` starts at `cwnd_epoch` and grows by
//!   `α_cubic·segments_acked/cwnd` with `α_cubic = 3(1 − β)/(1 + β)`; when `W_cubic(t) < W_est`
//!   the window is `W_est`.
//! - §4.4–4.5 (concave and convex regions): `target = W_cubic(t + RTT)` clamped to
//!   `[cwnd, 1.5·cwnd]`, and `cwnd += (target − cwnd)/cwnd` per acknowledged segment.
//! - §4.6 (multiplicative decrease): `ssthresh = max(flight·β, 2·MSS)` with `β = 0.7`,
//!   `cwnd = ssthresh`; §4.7 (fast convergence): if the window is below the previous `W_max`,
//!   `W_max = cwnd·(1 + β)/2`, else `W_max = cwnd`.
//! - §4.8 (timeout): as §4.6 for `ssthresh` and `W_max`, then `cwnd = 1·MSS` and slow start.
//! - Slow start below `ssthresh` as RFC 5681 (byte counting); no HyStart++ (§4.10 leaves it
//!   optional).
//!
//! Choices where the RFC leaves room: the RTT in §4.4 is an EWMA (gain 1/8) of the samples, as
//! RFC 6298's `SRTT`; data is not ECN-capable (ECN reaction is an option of RFC 9438 §4.6 that
//! no experiment here needs yet); the window never drops below 2 MSS after a loss.

use crate::engine::packet::cc::{AckInfo, CongestionControl};
use crate::units::Time;

/// RFC 9438 §5: `C = 0.4`.
pub const CUBIC_C: f64 = 0.4;
/// RFC 9438 §5: `β_cubic = 0.7`.
pub const CUBIC_BETA: f64 = 0.7;

/// TCP CUBIC's window (RFC 9438); see the module documentation.
#[derive(Clone, Debug, PartialEq)]
pub struct Cubic {
    mss: f64,
    /// Window in segments (fractional: CUBIC grows by fractions of a segment per ACK).
    cwnd: f64,
    /// Slow-start threshold in segments (`f64::INFINITY` before the first reduction).
    ssthresh: f64,
    /// Window just before the last reduction (after fast convergence), in segments.
    w_max: f64,
    /// Reno-friendly estimate `W_est` (§4.3), in segments.
    w_est: f64,
    /// `K` of §4.2, seconds.
    k: f64,
    /// Start of the current congestion-avoidance stage (picoseconds); `None` until the first
    /// ACK in congestion avoidance after a reduction.
    epoch: Option<u64>,
    /// Smoothed RTT in seconds (0 before the first sample).
    srtt: f64,
}

impl Cubic {
    /// CUBIC with MSS `mss` bytes and an initial window of `init_cwnd` bytes.
    pub fn new(mss: u64, init_cwnd: u64) -> Cubic {
        let mss = mss as f64;
        Cubic {
            mss,
            cwnd: (init_cwnd as f64 / mss).max(1.0),
            ssthresh: f64::INFINITY,
            w_max: 0.0,
            w_est: 0.0,
            k: 0.0,
            epoch: None,
            srtt: 0.0,
        }
    }

    /// `W_max` in segments (0 before the first congestion event).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// Slow-start threshold in bytes (`u64::MAX` before the first reduction).
    pub fn ssthresh(&self) -> u64 {
        if self.ssthresh.is_finite() {
            (self.ssthresh * self.mss) as u64
        } else {
            u64::MAX
        }
    }

    /// `W_cubic(t)` of §4.2, `t` in seconds since the epoch.
    fn w_cubic(&self, t: f64) -> f64 {
        CUBIC_C * (t - self.k).powi(3) + self.w_max
    }

    /// §4.6–4.7 (and §4.8's `ssthresh`): a congestion event with `in_flight` bytes out.
    fn congestion_event(&mut self, in_flight: u64) {
        // §4.7 fast convergence: a window below the last W_max means a new flow is competing,
        // so release bandwidth faster.
        self.w_max = if self.cwnd < self.w_max {
            self.cwnd * (1.0 + CUBIC_BETA) / 2.0
        } else {
            self.cwnd
        };
        let flight = in_flight as f64 / self.mss;
        self.ssthresh = (flight * CUBIC_BETA).max(2.0);
        self.epoch = None;
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        if let Some(r) = a.rtt {
            let r = r.as_secs_f64();
            self.srtt = if self.srtt == 0.0 {
                r
            } else {
                0.875 * self.srtt + 0.125 * r
            };
        }
        if a.in_recovery || a.acked == 0 {
            return;
        }
        let segs = a.acked as f64 / self.mss;
        if self.cwnd < self.ssthresh {
            self.cwnd = (self.cwnd + segs).min(self.ssthresh.max(self.cwnd));
            if self.cwnd < self.ssthresh {
                return;
            }
        }
        let now = a.now.0;
        let epoch = match self.epoch {
            Some(e) => e,
            None => {
                // §4.2: a new congestion-avoidance stage; cwnd_epoch is the current window.
                self.epoch = Some(now);
                self.k = ((self.w_max - self.cwnd) / CUBIC_C).cbrt();
                self.w_est = self.cwnd;
                now
            }
        };
        let t = (now - epoch) as f64 * 1e-12;
        // §4.3: Reno-friendly estimate.
        let alpha = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);
        self.w_est += alpha * segs / self.cwnd;
        if self.w_cubic(t) < self.w_est {
            self.cwnd = self.w_est;
        } else {
            // §4.4–4.5: aim at the cubic's value one RTT ahead.
            let target = self
                .w_cubic(t + self.srtt)
                .clamp(self.cwnd, 1.5 * self.cwnd);
            self.cwnd += (target - self.cwnd) / self.cwnd * segs;
        }
    }
    fn on_loss(&mut self, _now: Time, in_flight: u64) {
        self.congestion_event(in_flight);
        self.cwnd = self.ssthresh;
    }
    fn on_timeout(&mut self, _now: Time, in_flight: u64) {
        self.congestion_event(in_flight);
        // §4.8: one segment, then slow start up to ssthresh.
        self.cwnd = 1.0;
    }
    #[inline]
    fn cwnd(&self) -> u64 {
        (self.cwnd * self.mss) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(now: Time, acked: u64, rtt: Option<Time>) -> AckInfo<'static> {
        AckInfo {
            now,
            acked,
            cum_ack: 0,
            snd_nxt: 0,
            in_flight: 0,
            ece: false,
            max_qdelay: Time::ZERO,
            int: &[],
            rtt,
            in_recovery: false,
            word: 0,
        }
    }

    #[test]
    fn decrease_by_beta_with_fast_convergence() {
        // 100 segments of 1000 B; a loss with 100 segments in flight: ssthresh = cwnd = 70.
        let mut c = Cubic::new(1000, 100_000);
        c.on_loss(Time::ZERO, 100_000);
        assert_eq!(c.cwnd(), 70_000);
        assert_eq!(c.w_max(), 100.0);
        // Another loss below W_max: fast convergence sets W_max = 70·(1 + 0.7)/2 = 59.5.
        c.on_loss(Time::ZERO, 70_000);
        assert!((c.w_max() - 59.5).abs() < 1e-9, "{}", c.w_max());
        assert_eq!(c.cwnd(), 49_000);
        // A timeout: one segment, ssthresh from the flight.
        c.on_timeout(Time::ZERO, 49_000);
        assert_eq!(c.cwnd(), 1000);
        assert_eq!(c.ssthresh(), 34_300);
    }

    #[test]
    fn window_follows_the_cubic_and_plateaus_at_w_max() {
        // After a loss at W_max = 100: cwnd_epoch = 70, K = ∛(30/0.4) ≈ 4.217 s. With an RTT
        // of 100 ms and one window of ACKs per RTT, the Reno-friendly estimate grows only
        // ~0.53 segments per RTT, below the cubic, so the window must track W_cubic (one RTT
        // ahead, §4.4): concave up to W_max at K, convex past it. Checked every 0.5 s to 5%.
        let mut c = Cubic::new(1000, 100_000);
        c.on_loss(Time::ZERO, 100_000);
        let rtt = Time::from_ms(100);
        let k = (30.0f64 / CUBIC_C).cbrt();
        let start = Time::from_ms(1);
        let mut now = start;
        let mut checked = 0;
        let mut next_check = 0.5;
        while now < Time::from_ms(6000) {
            // One RTT: a window of one-segment ACKs spread evenly over it.
            let n = c.cwnd.floor() as u64;
            let gap = Time(rtt.0 / n);
            for _ in 0..n {
                c.on_ack(&ack(now, 1000, Some(rtt)));
                now += gap;
            }
            let t = (now - start).as_secs_f64();
            if t >= next_check {
                let want = CUBIC_C * (t - k).powi(3) + 100.0;
                let got = c.cwnd;
                assert!(
                    (got - want).abs() < 0.05 * want,
                    "t = {t}: cwnd {got} vs W_cubic {want}"
                );
                checked += 1;
                next_check += 0.5;
            }
        }
        assert!(checked >= 10);
        assert!(c.cwnd > 100.0, "convex region past K");
    }

    #[test]
    fn reno_friendly_region_for_short_epochs() {
        // With a small W_max the cubic is flat for the first K seconds, while the Reno-friendly
        // estimate grows α_cubic ≈ 0.53 segments per window: after 100 windows of ACKs the
        // window has grown by about 53 segments (well above what the cubic gives so early).
        let mut c = Cubic::new(1000, 10_000);
        c.on_loss(Time::ZERO, 10_000);
        assert_eq!(c.cwnd(), 7000);
        let mut now = Time::from_us(1);
        let mut acked_windows = 0.0;
        while acked_windows < 100.0 {
            let w = c.cwnd;
            c.on_ack(&ack(now, 1000, Some(Time::from_us(10))));
            acked_windows += 1.0 / w;
            now += Time::from_ns(100);
        }
        let alpha = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);
        let grown = c.cwnd - 7.0;
        assert!(
            (grown - 100.0 * alpha).abs() < 0.1 * 100.0 * alpha,
            "grew {grown} segments"
        );
    }
}
