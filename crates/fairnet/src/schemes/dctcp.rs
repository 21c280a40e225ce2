//! Window-based congestion control: DCTCP and NewReno's AIMD window.
//!
//! Both share [`AimdWindow`], TCP's window (RFC 5681): slow start (`cwnd += acked` while
//! `cwnd < ssthresh`), congestion avoidance (one MSS per window of acknowledged bytes, the
//! byte-counting form of RFC 3465 §2.1), on fast retransmit `ssthresh = max(flight/2, 2·MSS)`
//! and `cwnd = ssthresh` (RFC 5681 §3.2 steps 2–3, without the inflation, which the reliable
//! sender keeps), and on timeout `cwnd = 1·MSS` (RFC 5681 §3.1, the loss window).

use crate::engine::packet::cc::{AckInfo, CongestionControl};
use crate::units::Time;

/// TCP's congestion window in bytes (RFC 5681).
#[derive(Clone, Debug, PartialEq)]
pub struct AimdWindow {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged in congestion avoidance since the last increase.
    ca_acked: u64,
    /// No further ECN reduction until the cumulative ACK passes this (one per window of data).
    cwr_end: u64,
}

impl AimdWindow {
    /// A window of `init_cwnd` bytes, no slow-start threshold yet.
    pub fn new(mss: u64, init_cwnd: u64) -> AimdWindow {
        AimdWindow {
            mss,
            cwnd: init_cwnd.max(mss),
            ssthresh: u64::MAX,
            ca_acked: 0,
            cwr_end: 0,
        }
    }

    /// Window in bytes.
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// Slow-start threshold in bytes (`u64::MAX` before the first reduction).
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// Grows the window for `acked` newly acknowledged bytes.
    #[inline]
    pub fn grow(&mut self, acked: u64) {
        if self.cwnd < self.ssthresh {
            self.cwnd += acked;
        } else {
            self.ca_acked += acked;
            while self.ca_acked >= self.cwnd {
                self.ca_acked -= self.cwnd;
                self.cwnd += self.mss;
            }
        }
    }

    /// Sets window and threshold to `cwnd` (at least two MSS, the floor of RFC 5681 eq. 4 and
    /// of Linux's DCTCP).
    pub fn reduce_to(&mut self, cwnd: u64) {
        self.cwnd = cwnd.max(2 * self.mss);
        self.ssthresh = self.cwnd;
        self.ca_acked = 0;
    }

    /// The window's reaction to one ACK when the sender reacts to ECN: with `ece`, multiply the
    /// window by `factor` at most once per window of data (RFC 3168 §6.1.2 halves it; DCTCP
    /// §3.1 eq. 2 uses `1 − α/2`); without, grow as usual outside loss recovery. ACKs carrying
    /// ECE never grow the window.
    #[inline]
    pub fn on_ack_ecn(&mut self, a: &AckInfo<'_>, ece: bool, factor: f64) {
        if ece {
            self.cut_once_per_window(a, factor);
        } else if !a.in_recovery && a.acked > 0 {
            self.grow(a.acked);
        }
    }

    /// As [`AimdWindow::on_ack_ecn`], but congestion avoidance adds `k` MSS per window of
    /// acknowledged bytes instead of one (L2DCT's weighted increase); slow start unchanged.
    #[inline]
    pub fn on_ack_ecn_scaled(&mut self, a: &AckInfo<'_>, ece: bool, factor: f64, k: f64) {
        if ece {
            self.cut_once_per_window(a, factor);
        } else if !a.in_recovery && a.acked > 0 {
            if self.cwnd < self.ssthresh {
                self.grow(a.acked);
            } else {
                // `acked·k` bytes of credit: one MSS per `cwnd/k` acknowledged bytes.
                self.grow((a.acked as f64 * k).round() as u64);
            }
        }
    }

    /// Multiplies the window by `factor` unless a cut already happened in this window of data.
    #[inline]
    fn cut_once_per_window(&mut self, a: &AckInfo<'_>, factor: f64) {
        if a.cum_ack >= self.cwr_end {
            self.reduce_to((self.cwnd as f64 * factor) as u64);
            self.cwr_end = a.snd_nxt;
        }
    }

    /// Fast retransmit: RFC 5681 §3.2 step 2 (`ssthresh = max(FlightSize/2, 2·SMSS)`), then
    /// `cwnd = ssthresh` (step 3 less the inflation).
    pub fn on_loss(&mut self, in_flight: u64) {
        self.reduce_to(in_flight / 2);
    }

    /// Timeout: RFC 5681 §3.1 (`ssthresh = max(FlightSize/2, 2·SMSS)`, `cwnd = 1·SMSS`).
    pub fn on_timeout(&mut self, in_flight: u64) {
        self.ssthresh = (in_flight / 2).max(2 * self.mss);
        self.cwnd = self.mss;
        self.ca_acked = 0;
    }
}

/// DCTCP's gain `g = 1/16` (Alizadeh et al., SIGCOMM 2010, §3.1 "Sender side" and §3.4:
/// "g = 1/16" in all experiments).
pub const DCTCP_G: f64 = 1.0 / 16.0;

/// DCTCP (Alizadeh et al., "Data Center TCP", SIGCOMM 2010, §3.1).
///
/// - The sender keeps `α`, an estimate of the fraction of marked packets, updated once per
///   window of data (about one RTT): `α ← (1 − g)·α + g·F`, with `F` the fraction of bytes
///   acknowledged in that window whose ACK carried ECE (eq. 1).
/// - On an ACK with ECE, at most once per window of data, `cwnd ← cwnd·(1 − α/2)` (eq. 2).
/// - Otherwise TCP: slow start, then additive increase ([`AimdWindow`]); loss and timeout as
///   NewReno.
///
/// Choices where the paper is silent: `α` starts at 1 (as Linux's `dctcp_alpha_on_init`
/// default and ns-3 do), so the first reduction is a halving like TCP's; a duplicate ACK
/// counts as one MSS of acknowledged bytes in `F` (as Linux's `dctcp_update_alpha`); ACKs
/// carrying ECE never grow the window; the window never drops below 2 MSS.
#[derive(Clone, Debug, PartialEq)]
pub struct Dctcp {
    w: AimdWindow,
    est: AlphaEstimator,
}

impl Dctcp {
    /// DCTCP with gain `g`, MSS `mss` bytes and an initial window of `init_cwnd` bytes.
    pub fn new(mss: u64, init_cwnd: u64, g: f64) -> Dctcp {
        Dctcp {
            w: AimdWindow::new(mss, init_cwnd),
            est: AlphaEstimator::new(mss, g),
        }
    }

    /// The current estimate `α`.
    pub fn alpha(&self) -> f64 {
        self.est.alpha()
    }

    /// The window state.
    pub fn window(&self) -> &AimdWindow {
        &self.w
    }
}

impl CongestionControl for Dctcp {
    #[inline]
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        let alpha = self.est.on_ack(a);
        // §3.1 eq. (2), once per window of data.
        self.w.on_ack_ecn(a, a.ece, 1.0 - alpha / 2.0);
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

/// DCTCP's estimate `α` of the fraction of marked bytes (§3.1 eq. 1), shared by the
/// transports built on it (DCTCP, D2TCP, L2DCT): updated once per window of data,
/// `α ← (1 − g)·α + g·F`. Starts at 1; a duplicate ACK counts as one MSS (see [`Dctcp`]).
#[derive(Clone, Debug, PartialEq)]
pub struct AlphaEstimator {
    mss: u64,
    g: f64,
    alpha: f64,
    started: bool,
    /// Sequence number that ends the current observation window.
    win_end: u64,
    win_acked: u64,
    win_marked: u64,
}

impl AlphaEstimator {
    /// `α = 1`, gain `g`, MSS `mss` bytes.
    pub fn new(mss: u64, g: f64) -> AlphaEstimator {
        AlphaEstimator {
            mss,
            g,
            alpha: 1.0,
            started: false,
            win_end: 0,
            win_acked: 0,
            win_marked: 0,
        }
    }

    /// The current estimate `α`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Counts one ACK; returns `α` after it (updated if the ACK closed a window of data).
    #[inline]
    pub fn on_ack(&mut self, a: &AckInfo<'_>) -> f64 {
        if !self.started {
            self.started = true;
            self.win_end = a.snd_nxt;
        }
        let bytes = if a.acked > 0 { a.acked } else { self.mss };
        self.win_acked += bytes;
        if a.ece {
            self.win_marked += bytes;
        }
        // §3.1 eq. (1): once per window of data.
        if a.cum_ack >= self.win_end && a.acked > 0 {
            let f = self.win_marked as f64 / self.win_acked as f64;
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            self.win_acked = 0;
            self.win_marked = 0;
            self.win_end = a.snd_nxt;
        }
        self.alpha
    }
}

/// NewReno's window (RFC 5681 with RFC 6582 recovery in the sender). With `ecn`, data is sent
/// ECN-capable and an ACK with ECE halves the window at most once per window of data, as for a
/// loss (RFC 3168 §6.1.2).
#[derive(Clone, Debug, PartialEq)]
pub struct Reno {
    w: AimdWindow,
    ecn: bool,
}

impl Reno {
    /// NewReno with MSS `mss`, initial window `init_cwnd` bytes, ECN reaction if `ecn`.
    pub fn new(mss: u64, init_cwnd: u64, ecn: bool) -> Reno {
        Reno {
            w: AimdWindow::new(mss, init_cwnd),
            ecn,
        }
    }
}

impl CongestionControl for Reno {
    #[inline]
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        self.w.on_ack_ecn(a, a.ece && self.ecn, 0.5);
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
        self.ecn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::ecn_ack as ack;

    #[test]
    fn slow_start_then_additive_increase() {
        let mut w = AimdWindow::new(1000, 10_000);
        w.grow(1000);
        assert_eq!(w.cwnd(), 11_000, "slow start adds the acked bytes");
        w.on_loss(20_000);
        assert_eq!((w.cwnd(), w.ssthresh()), (10_000, 10_000));
        // Congestion avoidance: one MSS per cwnd of acked bytes.
        for _ in 0..9 {
            w.grow(1000);
        }
        assert_eq!(w.cwnd(), 10_000);
        w.grow(1000);
        assert_eq!(w.cwnd(), 11_000);
        w.on_timeout(8_000);
        assert_eq!((w.cwnd(), w.ssthresh()), (1000, 4000));
        w.on_loss(1000);
        assert_eq!(w.cwnd(), 2000, "floor of two segments");
    }

    #[test]
    fn dctcp_alpha_follows_the_marked_fraction() {
        // All ACKs marked for many windows: alpha -> 1. None marked: alpha decays by (1-g) per
        // window.
        let mss = 1000;
        let mut d = Dctcp::new(mss, 10 * mss, DCTCP_G);
        let mut cum = 0;
        let mut nxt = 10 * mss;
        // First window (ends at the snd_nxt of the first ACK, 10 MSS): no marks, so alpha goes
        // from 1 to 15/16.
        for _ in 0..10 {
            cum += mss;
            d.on_ack(&ack(mss, cum, nxt, false));
            nxt += mss;
        }
        assert!((d.alpha() - 15.0 / 16.0).abs() < 1e-12, "{}", d.alpha());
        // Next window ends at the snd_nxt of the ACK that closed the first (19 MSS): every
        // other ACK marked. alpha = (15/16)(15/16) + (1/16)·F with F the marked byte fraction.
        let win_end = 19 * mss;
        let (mut marked, mut total) = (0u64, 0u64);
        let mut i = 0;
        while cum < win_end {
            cum += mss;
            let ece = i % 2 == 1;
            d.on_ack(&ack(mss, cum, nxt, ece));
            nxt += mss;
            total += mss;
            marked += if ece { mss } else { 0 };
            i += 1;
        }
        let f = marked as f64 / total as f64;
        assert!(f > 0.4 && f < 0.5);
        let want = (15.0f64 / 16.0).powi(2) + f / 16.0;
        assert!((d.alpha() - want).abs() < 1e-9, "{} vs {want}", d.alpha());
    }

    #[test]
    fn dctcp_cuts_by_alpha_over_two_once_per_window() {
        let mss = 1000;
        let mut d = Dctcp::new(mss, 100 * mss, DCTCP_G);
        // alpha = 1 initially: the first marked ACK halves the window.
        d.on_ack(&ack(mss, mss, 100 * mss, true));
        assert_eq!(d.cwnd(), 50 * mss);
        // More marks in the same window (cum < snd_nxt at the cut) do not cut again.
        d.on_ack(&ack(mss, 2 * mss, 101 * mss, true));
        d.on_ack(&ack(mss, 3 * mss, 102 * mss, true));
        assert_eq!(d.cwnd(), 50 * mss);
        // Unmarked ACKs in congestion avoidance grow slowly.
        d.on_ack(&ack(mss, 4 * mss, 103 * mss, false));
        assert_eq!(d.cwnd(), 50 * mss);
        // Past the window end, a mark cuts by alpha/2 of the alpha then.
        let a = d.alpha();
        let before = d.cwnd();
        d.on_ack(&ack(mss, 100 * mss, 150 * mss, true));
        let a2 = d.alpha();
        assert!(a2 <= a);
        let want = (before as f64 * (1.0 - a2 / 2.0)) as u64;
        assert_eq!(d.cwnd(), want);
    }

    #[test]
    fn reno_halves_on_ece_once_per_window() {
        let mss = 1000;
        let mut r = Reno::new(mss, 40 * mss, true);
        r.on_ack(&ack(mss, mss, 40 * mss, true));
        assert_eq!(r.cwnd(), 20 * mss);
        r.on_ack(&ack(mss, 2 * mss, 41 * mss, true));
        assert_eq!(r.cwnd(), 20 * mss);
        let mut plain = Reno::new(mss, 40 * mss, false);
        plain.on_ack(&ack(mss, mss, 40 * mss, true));
        assert_eq!(
            plain.cwnd(),
            41 * mss,
            "ECE ignored without ECN: slow start"
        );
    }
}
