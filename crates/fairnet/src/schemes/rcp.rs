//! RCP, the Rate Control Protocol (Dukkipati & McKeown; N. Dukkipati's thesis, Stanford 2008,
//! s-PERC's reference \[17\]), the reactive max-min baseline of s-PERC §8.2. Not in `papers/`:
//! the equation is cited from our memory of the RCP papers; the defaults come from s-PERC
//! Table 6.
//!
//! **Router** ([`RcpAgent`], `port_agent = "rcp"`): every port keeps one fair rate `R`,
//! starting at the line rate `C`, and updates it every control interval `T`:
//!
//! `R ← R · (1 + (T/d) · (α·(C − y) − β·q/d) / C)`
//!
//! with `y` the rate of traffic *arriving* at the port over the interval, `q` the queue (bits)
//! and `d` the flows' average RTT. An egress agent sees departures, so `y` is measured as
//! (bytes sent + growth of the queue + bytes dropped) / T: every arrival, dropped or not (RCP's
//! "input traffic rate"; counting only what was not dropped, an overloaded port with a full
//! buffer would see `y = C` and leave `R` almost unchanged — on the WAN, where the buffer is
//! far below the bandwidth-delay product, RCP then never recovered from its start). `R` is kept
//! within `[min_rate, C]`. The update runs lazily, when the first packet leaves after the
//! interval elapsed (`T` is then the real elapsed time). Every data packet leaving the port
//! carries `min(R, header rate)` (the header word, [`crate::engine::packet::pkt::Packet::word`], holding [`encode_rate`]'s 16 bits).
//!
//! **Receiver**: the ACK echoes the data packet's rate. **Sender** ([`Rcp`], `transport =
//! "rcp"`): paces at the echoed rate (no window: `cwnd` unlimited once a rate is known);
//! before the first ACK it sends one packet and waits (s-PERC footnote 7: "the extra RTT it
//! takes to get a starting rate"). Losses are repaired by the reliable sender and leave the
//! rate alone.
//!
//! Header: the rate is a bfloat16 of bit/s (the upper 16 bits of an `f32`, rounded; 0.4%
//! steps), 2 bytes that fit in `Packet`'s padding, so `Packet` stays 88 bytes. 0 means "no
//! limit" (what senders stamp). The routers keep `R` in `f64`; only the header is coarse.
//!
//! Defaults: α = 0.4, β = 0.2 (s-PERC Table 6, DC; WAN: 0.9, 0.1). Table 6's DC "update
//! interval=100ms" is thousands of datacenter RTTs (its WAN one is 20 ms); we default to
//! `interval = 100 µs`, reading "ms" as a likely slip for µs, and the average RTT `d` to the
//! interval: set `rcp.rtt` to the flows' RTT (RCP routers estimate it from a header field).

use crate::engine::packet::cc::{AckInfo, CongestionControl};
use crate::engine::packet::pkt::{PacketId, PacketKind, PacketPool};
use crate::engine::packet::port::{PortAgent, PortView};
use crate::error::{Error, Result};
use crate::units::{Rate, Time};
use serde::{Deserialize, Serialize};

/// Encodes a rate (bit/s) as a bfloat16 (0 is reserved for "no limit").
#[inline]
pub fn encode_rate(bps: f64) -> u16 {
    let b = (bps.max(1.0) as f32).to_bits();
    (((b as u64 + 0x8000) >> 16) as u16).max(1)
}

/// Decodes [`encode_rate`]; `None` for 0 ("no limit").
#[inline]
pub fn decode_rate(x: u16) -> Option<f64> {
    (x != 0).then(|| f32::from_bits((x as u32) << 16) as f64)
}

/// RCP's parameters (`[rcp]` table of the packet config).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RcpConfig {
    /// Gain of the spare-capacity term (default 0.4, s-PERC Table 6, DC).
    pub alpha: f64,
    /// Gain of the queue term (default 0.2, s-PERC Table 6, DC).
    pub beta: f64,
    /// Control interval `T` (default 100 µs; see the module doc on Table 6's "100ms").
    pub interval: Time,
    /// The flows' average RTT `d` (default: the interval).
    pub rtt: Option<Time>,
    /// Floor of `R` (default 10 Mb/s).
    pub min_rate: Rate,
}

impl Default for RcpConfig {
    fn default() -> RcpConfig {
        RcpConfig {
            alpha: 0.4,
            beta: 0.2,
            interval: Time::from_us(100),
            rtt: None,
            min_rate: Rate(10_000_000),
        }
    }
}

impl RcpConfig {
    /// Checks value ranges; `at` is the table's path (`packet config.rcp`).
    pub fn validate(&self, at: &str) -> Result<()> {
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::invalid(
                    format!("{at}.{name}"),
                    format!("must be positive and finite, got {v}"),
                ));
            }
        }
        if self.interval.0 == 0 {
            return Err(Error::invalid(format!("{at}.interval"), "must be positive"));
        }
        if self.rtt == Some(Time::ZERO) {
            return Err(Error::invalid(format!("{at}.rtt"), "must be positive"));
        }
        if self.min_rate.0 == 0 {
            return Err(Error::invalid(format!("{at}.min_rate"), "must be positive"));
        }
        Ok(())
    }
}

/// An RCP router port (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct RcpAgent {
    alpha: f64,
    beta: f64,
    interval: u64,
    d: f64,
    min_rate: f64,
    r: f64,
    last: u64,
    last_tx: u64,
    last_q: u64,
    last_drop: u64,
    primed: bool,
}

impl RcpAgent {
    /// An agent for a port of line rate `rate`.
    pub fn new(cfg: &RcpConfig, _rate: Rate) -> RcpAgent {
        RcpAgent {
            alpha: cfg.alpha,
            beta: cfg.beta,
            interval: cfg.interval.0,
            d: cfg.rtt.unwrap_or(cfg.interval).as_secs_f64(),
            min_rate: cfg.min_rate.bps(),
            r: 0.0,
            last: 0,
            last_tx: 0,
            last_q: 0,
            last_drop: 0,
            primed: false,
        }
    }

    /// The current fair rate `R` (bit/s).
    pub fn rate(&self) -> f64 {
        self.r
    }
}

impl PortAgent for RcpAgent {
    fn on_dequeue(&mut self, id: PacketId, pool: &mut PacketPool, port: &PortView) {
        let now = port.now.0;
        let c = port.rate.bps();
        let p = pool.get_mut(id);
        if !self.primed {
            self.primed = true;
            self.r = c;
            self.last = now;
            self.last_tx = port.tx_bytes - p.wire as u64;
            self.last_q = port.queue_bytes + p.wire as u64;
            self.last_drop = port.drop_bytes;
        } else if now - self.last >= self.interval {
            let dt = (now - self.last) as f64 * 1e-12;
            // Arrivals = departures + queue growth + drops.
            let arrived = (port.tx_bytes - self.last_tx) as f64 + port.queue_bytes as f64
                - self.last_q as f64
                + (port.drop_bytes - self.last_drop) as f64;
            let y = arrived.max(0.0) * 8.0 / dt;
            let q = port.queue_bytes as f64 * 8.0;
            let k = (dt / self.d) * (self.alpha * (c - y) - self.beta * q / self.d) / c;
            self.r = (self.r * (1.0 + k)).clamp(self.min_rate.min(c), c);
            self.last = now;
            self.last_tx = port.tx_bytes;
            self.last_q = port.queue_bytes;
            self.last_drop = port.drop_bytes;
        }
        if p.kind == PacketKind::Data && decode_rate(p.word as u16).is_none_or(|h| self.r < h) {
            p.word = encode_rate(self.r) as u32;
        }
    }
}

/// An RCP sender (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Rcp {
    mss: u64,
    rate: Option<f64>,
}

impl Rcp {
    /// A sender with MSS `mss`.
    pub fn new(mss: u64) -> Rcp {
        Rcp { mss, rate: None }
    }
}

impl CongestionControl for Rcp {
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        if let Some(r) = decode_rate(a.word as u16) {
            self.rate = Some(r);
        }
    }
    fn on_loss(&mut self, _now: Time, _in_flight: u64) {}
    fn on_timeout(&mut self, _now: Time, _in_flight: u64) {}
    fn cwnd(&self) -> u64 {
        if self.rate.is_some() {
            u64::MAX
        } else {
            self.mss
        }
    }
    fn pacing_rate(&self) -> Option<Rate> {
        self.rate.map(|r| Rate(r.max(1.0) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_header_round_trips_within_half_a_percent() {
        for bps in [1e6, 2.5e9, 3.333e9, 1e11, 4e11] {
            let d = decode_rate(encode_rate(bps)).unwrap();
            assert!((d / bps - 1.0).abs() < 0.004, "{bps} -> {d}");
        }
        assert_eq!(decode_rate(0), None);
        let bad = RcpConfig {
            alpha: 0.0,
            ..RcpConfig::default()
        };
        assert_eq!(
            bad.validate("packet config.rcp").unwrap_err().to_string(),
            "packet config.rcp.alpha: must be positive and finite, got 0"
        );
    }
}
