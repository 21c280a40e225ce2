//! The queueing-delay AIMD of Söze §5.3.1 (the "WRR with AIMD" comparison of Fig. 17(c)).
//!
//! "The AIMD control uses queuing delay as the explicit feedback signal: when the queuing
//! delay is below 20 µs ..., the CWND is increased by 1; when the queuing delay exceeds
//! 20 µs, the CWND is reduced by 20%." Paired with weighted round robin at the switches
//! (`qdisc = { kind = "wrr", ... }`), which enforces the weights.
//!
//! Read as: the echoed `max_qdelay` above `threshold` multiplies the window by `factor` at most
//! once per window of data (as ECN reactions are, so one congestion episode costs one cut;
//! `cut_every_ack = true` takes the sentence literally and cuts on every such ACK);
//! otherwise the window grows by one MSS per window of acknowledged data (congestion
//! avoidance), reusing TCP's [`AimdWindow`]. Choices where the paper is silent: slow start
//! until the first cut (TCP's start), loss and timeout as NewReno.

use super::dctcp::AimdWindow;
use crate::engine::packet::cc::{AckInfo, CongestionControl};
use crate::error::{Error, Result};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// Parameters (`[delay_aimd]` table of the packet config).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DelayAimdConfig {
    /// Queueing delay above which the window is cut (default 20 µs, Söze §5.3.1).
    pub threshold: Time,
    /// Multiplicative decrease (default 0.8: "reduced by 20%", Söze §5.3.1).
    pub factor: f64,
    /// Cut on every ACK above the threshold instead of once per window of data (the other
    /// reading of §5.3.1's sentence; default false).
    pub cut_every_ack: bool,
}

impl Default for DelayAimdConfig {
    fn default() -> DelayAimdConfig {
        DelayAimdConfig {
            threshold: Time::from_us(20),
            factor: 0.8,
            cut_every_ack: false,
        }
    }
}

impl DelayAimdConfig {
    /// Checks value ranges; `at` is the table's path (`packet config.delay_aimd`).
    pub fn validate(&self, at: &str) -> Result<()> {
        if !(self.factor > 0.0 && self.factor < 1.0) {
            return Err(Error::invalid(
                format!("{at}.factor"),
                format!("must be in (0, 1), got {}", self.factor),
            ));
        }
        Ok(())
    }
}

/// The queueing-delay AIMD window (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct DelayAimd {
    w: AimdWindow,
    threshold: Time,
    factor: f64,
    cut_every_ack: bool,
}

impl DelayAimd {
    /// A window of `init_cwnd` bytes with `cfg`.
    pub fn new(mss: u64, init_cwnd: u64, cfg: &DelayAimdConfig) -> DelayAimd {
        DelayAimd {
            w: AimdWindow::new(mss, init_cwnd),
            threshold: cfg.threshold,
            factor: cfg.factor,
            cut_every_ack: cfg.cut_every_ack,
        }
    }
}

impl CongestionControl for DelayAimd {
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        let high = a.max_qdelay > self.threshold;
        if high && self.cut_every_ack {
            self.w
                .reduce_to((self.w.cwnd() as f64 * self.factor) as u64);
        } else {
            self.w.on_ack_ecn(a, high, self.factor);
        }
    }

    fn on_loss(&mut self, _now: Time, in_flight: u64) {
        self.w.on_loss(in_flight);
    }

    fn on_timeout(&mut self, _now: Time, in_flight: u64) {
        self.w.on_timeout(in_flight);
    }

    fn cwnd(&self) -> u64 {
        self.w.cwnd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(cum: u64, nxt: u64, qd_us: u64) -> AckInfo<'static> {
        AckInfo {
            now: Time::ZERO,
            acked: 1000,
            cum_ack: cum,
            snd_nxt: nxt,
            in_flight: 0,
            ece: false,
            max_qdelay: Time::from_us(qd_us),
            int: &[],
            rtt: None,
            in_recovery: false,
            word: 0,
        }
    }

    #[test]
    fn cuts_by_a_fifth_once_per_window_above_20us() {
        // 10-packet window: an ACK echoing 25 µs cuts it to 8 packets; further high-delay ACKs
        // of the same window do not cut again; after the window, one more does (6.4 → 6400 B).
        let mut c = DelayAimd::new(1000, 10_000, &DelayAimdConfig::default());
        c.on_ack(&ack(1000, 10_000, 25));
        assert_eq!(c.cwnd(), 8000);
        c.on_ack(&ack(2000, 10_000, 25));
        assert_eq!(c.cwnd(), 8000);
        c.on_ack(&ack(10_000, 18_000, 25));
        assert_eq!(c.cwnd(), 6400);
        // Below 20 µs: congestion avoidance, one MSS per window of acknowledged bytes.
        for i in 0..7 {
            c.on_ack(&ack(11_000 + i * 1000, 20_000, 5));
        }
        assert_eq!(c.cwnd(), 7400);
    }
}
