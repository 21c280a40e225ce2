//! HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019), the baseline of
//! Söze §5.2–5.3.
//!
//! Written from our knowledge of the paper (it is not in `../shared/papers/`); what follows is
//! its §3.3 Algorithm 1, and where we chose, we say so.
//!
//! - **MeasureInflight** (Algorithm 1, per ACK): for each hop `i` of the echoed INT records
//!   ([`crate::engine::packet::port::IntStamp`], `port_agent = "int"`), against the previous ACK's record of
//!   the same hop: `txRate = Δtx_bytes / Δts`,
//!   `u' = min(qlen, qlen_prev) / (B·T) + txRate / B`; the hop with the largest `u'` gives
//!   `u` and `τ = Δts`; `τ ← min(τ, T)`; `U ← (1 − τ/T)·U + (τ/T)·u` (the EWMA over one base RTT
//!   `T`, §3.3 "the estimation of inflight bytes").
//! - **ComputeWind** (Algorithm 1): if `U ≥ η` or `incStage ≥ maxStage`, multiplicative
//!   decrease `W = W_c / (U/η) + W_AI` (and `incStage = 0` when updating `W_c`); else additive
//!   increase `W = W_c + W_AI` (and `incStage += 1`). `η = 95%`, `maxStage = 5`, `W_AI = 80 B`
//!   (§5 of HPCC, and Söze §4 "all the original settings from \[35\] are kept ... W_AI = 80
//!   Bytes, maxstage = 5, and η = 95%").
//! - **NewAck**: the reference window `W_c` is updated once per RTT, when an ACK acknowledges
//!   data sent after the last update (`ack.seq > lastUpdateSeq`, then
//!   `lastUpdateSeq = snd_nxt`); every other ACK computes `W` from the unchanged `W_c` (the
//!   "per-ACK reaction, per-RTT reference" of HPCC §3.3). The sender paces at `R = W/T` and
//!   keeps at most `W` bytes in flight.
//!
//! Our choices: `T` is the flow's base RTT computed from its path (HPCC's ns-3 simulator uses
//! the per-pair base RTT too), or `[hpcc] base_rtt`; `W` starts at the line-rate BDP
//! `B_nic·T` (HPCC starts flows at line rate) and stays within `[MSS/…, B_nic·T]`: the
//! pacing rate never exceeds the NIC's line rate, and never falls below `min_rate`
//! (100 Mb/s, the ns-3 simulator's `MinRate`); the first ACK only records the INT (there is
//! no previous record to difference); a hop whose timestamp did not advance is skipped; `U`
//! starts at 1 (a conservative start, as the ns-3 code's initial utilization). Loss and
//! timeouts leave the window to the INT signal (HPCC runs on lossless RDMA fabrics).
//!
//! **Pacing.** The paper paces at `R = W/T` and leaves open when a change of `R` takes effect.
//! HPCC's ns-3 simulator (commit 9f4be2a, `RdmaHw::ChangeRate`, called at every window
//! update) moves the queue pair's next send time by one packet's time at the new rate less at
//! the old, both ways: the next packet goes one packet time at the new rate after the last.
//! Ours does the same (`release_follows_rate_rise` and `release_follows_rate_fall`; the
//! engine's default holds the release set at the old rate): measured against that simulator
//! on its 15-to-1 incast on its own paths, where neither has a random element, the mean FCT
//! moves from 0.7% below its to 0.2% above and the last FCT from 0.3% above to 0.2% below
//! (docs/validation.md, "Paced release after a rate change").
//!
//! **INT field units** (`int_qlen_unit`, `int_bytes_unit`; default 1 B: exact). The paper's
//! INT fields are whole counters; HPCC's ns-3 simulator (commit 9f4be2a, `int-header.h`,
//! `IntHop`) packs each hop in 8 bytes and stores the queue length in units of
//! `qlenUnit·INT_MULTI` = 80·multi bytes (17 bits) and the transmitted bytes in units of
//! `byteUnit·INT_MULTI` = 128·multi bytes (20 bits), both rounded down (`Set`), where
//! `run.py` writes `INT_MULTI = bw/25` (320 B and 512 B at 100 Gb/s). Setting the two units
//! reads each record as that switch would have written it: `qlen` and `tx_bytes` rounded
//! down to their unit before they are differenced. The field widths themselves change
//! nothing: the simulator differences the 20-bit byte counter and the 24-bit nanosecond
//! timestamp modulo their width (`GetBytesDelta`, `GetTimeDelta`), which is the exact
//! difference while a delta stays below 512 MB and 16.7 ms, and 17 bits of 320 B hold
//! 41 MB, above any switch memory here.

use crate::engine::packet::cc::{AckInfo, CcContext, CongestionControl};
use crate::engine::packet::pkt::{IntHop, MAX_INT_HOPS};
use crate::error::{Error, Result};
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// HPCC's parameters (`[hpcc]` table of the packet config).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct HpccConfig {
    /// Target utilization `η` (default 0.95).
    pub eta: f64,
    /// Additive-increase stages before a multiplicative update, `maxStage` (default 5).
    pub max_stage: u32,
    /// Additive increase `W_AI` (default 80 B).
    pub w_ai: Bytes,
    /// Base RTT `T` (default: each flow's own base RTT from the topology).
    pub base_rtt: Option<Time>,
    /// Lowest pacing rate (default 100 Mb/s, the HPCC ns-3 simulator's `MinRate`).
    pub min_rate: Rate,
    /// Unit of the INT queue length, rounded down (default 1 B: exact; HPCC ns-3: 80 B ·
    /// `INT_MULTI`; module doc, "INT field units").
    pub int_qlen_unit: Bytes,
    /// Unit of the INT transmitted-bytes counter, rounded down (default 1 B: exact; HPCC
    /// ns-3: 128 B · `INT_MULTI`).
    pub int_bytes_unit: Bytes,
}

impl Default for HpccConfig {
    fn default() -> HpccConfig {
        HpccConfig {
            eta: 0.95,
            max_stage: 5,
            w_ai: Bytes(80),
            base_rtt: None,
            min_rate: Rate(100_000_000),
            int_qlen_unit: Bytes(1),
            int_bytes_unit: Bytes(1),
        }
    }
}

impl HpccConfig {
    /// Checks value ranges; `at` is the table's path (`packet config.hpcc`).
    pub fn validate(&self, at: &str) -> Result<()> {
        let f = |n: &str| format!("{at}.{n}");
        if !(self.eta > 0.0 && self.eta <= 1.0) {
            return Err(Error::invalid(
                f("eta"),
                format!("must be in (0, 1], got {}", self.eta),
            ));
        }
        if self.w_ai.0 == 0 {
            return Err(Error::invalid(f("w_ai"), "must be positive"));
        }
        if self.base_rtt == Some(Time::ZERO) {
            return Err(Error::invalid(f("base_rtt"), "must be positive"));
        }
        if self.min_rate.0 == 0 {
            return Err(Error::invalid(f("min_rate"), "must be positive"));
        }
        for (n, unit) in [
            ("int_qlen_unit", self.int_qlen_unit),
            ("int_bytes_unit", self.int_bytes_unit),
        ] {
            if unit.0 == 0 {
                return Err(Error::invalid(f(n), "must be at least 1 B"));
            }
        }
        Ok(())
    }
}

/// HPCC's sender (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Hpcc {
    eta: f64,
    max_stage: u32,
    w_ai: f64,
    /// Base RTT `T`, seconds.
    t: f64,
    w_max: f64,
    w_min: f64,
    /// Current window `W`, bytes.
    w: f64,
    /// Reference window `W_c`, bytes.
    wc: f64,
    inc_stage: u32,
    /// Normalized inflight estimate `U`.
    u: f64,
    last_update_seq: u64,
    prev: [IntHop; MAX_INT_HOPS],
    prev_len: usize,
    /// INT field units (bytes): queue length, transmitted bytes.
    qlen_unit: u64,
    bytes_unit: u64,
}

impl Hpcc {
    /// HPCC with `cfg` for the flow described by `ctx`.
    pub fn new(cfg: &HpccConfig, ctx: &CcContext) -> Hpcc {
        let t = cfg.base_rtt.unwrap_or(ctx.base_rtt).as_secs_f64();
        let nic = ctx.nic_rate.bps();
        let w_max = nic * t / 8.0;
        let w_min = (cfg.min_rate.bps() * t / 8.0).min(w_max);
        Hpcc {
            eta: cfg.eta,
            max_stage: cfg.max_stage,
            w_ai: cfg.w_ai.0 as f64,
            t,
            w_max,
            w_min,
            w: w_max,
            wc: w_max,
            inc_stage: 0,
            u: 1.0,
            last_update_seq: 0,
            prev: [IntHop::default(); MAX_INT_HOPS],
            prev_len: 0,
            qlen_unit: cfg.int_qlen_unit.0,
            bytes_unit: cfg.int_bytes_unit.0,
        }
    }

    /// Current window `W`, bytes.
    pub fn window(&self) -> f64 {
        self.w
    }

    /// Current utilization estimate `U`.
    pub fn utilization(&self) -> f64 {
        self.u
    }

    /// Algorithm 1, MeasureInflight: updates and returns `U` (`None` if no hop advanced).
    fn measure_inflight(&mut self, int: &[IntHop]) -> Option<f64> {
        let mut u = f64::NEG_INFINITY;
        let mut tau = 0.0;
        for (h, prev) in int.iter().zip(&self.prev[..self.prev_len]) {
            if h.ts <= prev.ts || h.rate.0 == 0 {
                continue;
            }
            let dts = (h.ts.0 - prev.ts.0) as f64 / Time::S as f64;
            let b = h.rate.bps();
            // The fields as a switch with these units wrote them (module doc).
            let (bu, qu) = (self.bytes_unit, self.qlen_unit);
            let tx = (h.tx_bytes / bu).saturating_sub(prev.tx_bytes / bu) * bu;
            let qlen = h.qlen / qu * qu;
            let qlen_prev = prev.qlen / qu * qu;
            let tx_rate = tx as f64 * 8.0 / dts;
            let u1 = qlen.min(qlen_prev) as f64 * 8.0 / (b * self.t) + tx_rate / b;
            if u1 > u {
                u = u1;
                tau = dts;
            }
        }
        if u == f64::NEG_INFINITY {
            return None;
        }
        let tau = tau.min(self.t);
        self.u = (1.0 - tau / self.t) * self.u + tau / self.t * u;
        Some(self.u)
    }

    /// Algorithm 1, ComputeWind.
    fn compute_wind(&mut self, u: f64, update_wc: bool) {
        let w = if u >= self.eta || self.inc_stage >= self.max_stage {
            if update_wc {
                self.inc_stage = 0;
            }
            self.wc / (u / self.eta) + self.w_ai
        } else {
            if update_wc {
                self.inc_stage += 1;
            }
            self.wc + self.w_ai
        };
        self.w = w.clamp(self.w_min, self.w_max);
        if update_wc {
            self.wc = self.w;
        }
    }
}

impl CongestionControl for Hpcc {
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        if a.int.is_empty() {
            return;
        }
        if self.prev_len > 0 {
            if let Some(u) = self.measure_inflight(a.int) {
                // NewAck: a new RTT starts once data sent after the last update is acked.
                let update_wc = a.cum_ack > self.last_update_seq;
                self.compute_wind(u, update_wc);
                if update_wc {
                    self.last_update_seq = a.snd_nxt;
                }
            }
        } else {
            self.last_update_seq = a.snd_nxt;
        }
        let n = a.int.len().min(MAX_INT_HOPS);
        self.prev[..n].copy_from_slice(&a.int[..n]);
        self.prev_len = n;
    }

    fn on_loss(&mut self, _now: Time, _in_flight: u64) {}

    fn on_timeout(&mut self, _now: Time, _in_flight: u64) {}

    fn cwnd(&self) -> u64 {
        self.w as u64
    }

    fn pacing_rate(&self) -> Option<Rate> {
        // R = W / T.
        Some(Rate((self.w * 8.0 / self.t) as u64))
    }

    // The next paced send follows every change of R, both ways (module docs, "Pacing").
    fn release_follows_rate_rise(&self) -> bool {
        true
    }

    fn release_follows_rate_fall(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> CcContext {
        CcContext {
            mss: 1000,
            header: 48,
            nic_rate: Rate::gbps(100),
            base_rtt: Time::from_us(8),
            weight: 1.0,
        }
    }

    fn hop(ts_ns: u64, tx: u64, qlen: u64) -> IntHop {
        IntHop {
            ts: Time::from_ns(ts_ns),
            tx_bytes: tx,
            qlen,
            rate: Rate::gbps(100),
        }
    }

    fn ack<'a>(int: &'a [IntHop], cum: u64, nxt: u64) -> AckInfo<'a> {
        AckInfo {
            now: Time::ZERO,
            acked: 1000,
            cum_ack: cum,
            snd_nxt: nxt,
            in_flight: 0,
            ece: false,
            max_qdelay: Time::ZERO,
            int,
            rtt: None,
            in_recovery: false,
            word: 0,
        }
    }

    #[test]
    fn starts_at_line_rate_bdp_and_cuts_in_proportion_to_overload() {
        // T = 8 us at 100 Gb/s: W starts at the BDP, 100 KB. A hop reporting line-rate
        // transmission plus a queue of one BDP measures u = 1 + 1 = 2; with τ = T (timestamps
        // 8 us apart) the EWMA takes it whole, U = 2, and the reference window is divided by
        // U/η: W = 100 KB · 0.95/2 + 80 B.
        let mut h = Hpcc::new(&HpccConfig::default(), &ctx());
        assert!((h.window() - 100_000.0).abs() < 1e-6);
        h.on_ack(&ack(&[hop(0, 0, 100_000)], 1000, 2000));
        assert!(
            (h.window() - 100_000.0).abs() < 1e-6,
            "first ACK only records"
        );
        h.on_ack(&ack(&[hop(8000, 100_000, 100_000)], 3000, 5000));
        assert!(
            (h.utilization() - 2.0).abs() < 1e-9,
            "U {}",
            h.utilization()
        );
        let want = 100_000.0 * 0.95 / 2.0 + 80.0;
        assert!((h.window() - want).abs() < 1e-6, "W {}", h.window());
        assert!(h.pacing_rate().unwrap().bps() <= 100e9);
    }

    #[test]
    fn additive_increase_below_eta_then_multiplicative_after_max_stage() {
        // An idle-ish hop (u = 0.5 < η): each new RTT adds W_AI to the reference window, for
        // maxStage = 5 stages; the sixth update is multiplicative (W_c / (U/η)), which with
        // U ≈ 0.5 grows the window. The window never exceeds the line-rate BDP.
        let c = CcContext {
            nic_rate: Rate::gbps(100),
            ..ctx()
        };
        let mut h = Hpcc::new(&HpccConfig::default(), &c);
        h.w = 50_000.0;
        h.wc = 50_000.0;
        h.u = 0.5;
        let mut ts = 0;
        let mut tx = 0;
        let mut seq = 0;
        h.on_ack(&ack(&[hop(ts, tx, 0)], seq, seq + 1));
        for stage in 1..=5 {
            ts += 8000;
            tx += 50_000;
            seq += 10_000;
            h.on_ack(&ack(&[hop(ts, tx, 0)], seq, seq + 1));
            assert!((h.utilization() - 0.5).abs() < 1e-9);
            let want = 50_000.0 + 80.0 * stage as f64;
            assert!(
                (h.window() - want).abs() < 1e-6,
                "stage {stage}: {}",
                h.window()
            );
        }
        ts += 8000;
        tx += 50_000;
        seq += 10_000;
        h.on_ack(&ack(&[hop(ts, tx, 0)], seq, seq + 1));
        let wc: f64 = 50_000.0 + 400.0;
        let want = (wc / (0.5 / 0.95) + 80.0).min(100_000.0);
        assert!((h.window() - want).abs() < 1e-6, "W {}", h.window());
    }

    #[test]
    fn int_fields_are_read_in_their_units_rounded_down() {
        // The HPCC ns-3 units at 100 Gb/s: queue in 320 B, bytes in 512 B. Records 8 µs (= T)
        // apart: bytes 1,000 → 101,000 read as 512 → 100,864 (1 → 197 units: 196 · 512 B =
        // 100,352 B), queues 100,000 and 100,100 B both read as 99,840 B (312 units). So
        // u = 99,840 / 100,000 + 100,352 / 100,000 = 2.00192 (exact fields: 1 + 1 = 2).
        let cfg = HpccConfig {
            int_qlen_unit: Bytes(320),
            int_bytes_unit: Bytes(512),
            ..HpccConfig::default()
        };
        let mut h = Hpcc::new(&cfg, &ctx());
        h.on_ack(&ack(&[hop(0, 1_000, 100_000)], 1000, 2000));
        h.on_ack(&ack(&[hop(8000, 101_000, 100_100)], 3000, 5000));
        let want = (99_840.0 + 100_352.0) / 100_000.0;
        assert!(
            (h.utilization() - want).abs() < 1e-9,
            "U {}",
            h.utilization()
        );
        let mut exact = Hpcc::new(&HpccConfig::default(), &ctx());
        exact.on_ack(&ack(&[hop(0, 1_000, 100_000)], 1000, 2000));
        exact.on_ack(&ack(&[hop(8000, 101_000, 100_100)], 3000, 5000));
        assert!((exact.utilization() - 2.0).abs() < 1e-9);
        let zero = HpccConfig {
            int_bytes_unit: Bytes(0),
            ..HpccConfig::default()
        };
        let e = zero.validate("packet config.hpcc").unwrap_err().to_string();
        assert!(e.starts_with("packet config.hpcc.int_bytes_unit:"), "{e}");
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let c = HpccConfig {
            eta: 1.5,
            ..HpccConfig::default()
        };
        let e = c.validate("packet config.hpcc").unwrap_err().to_string();
        assert!(
            e.starts_with("packet config.hpcc.eta: must be in (0, 1]"),
            "{e}"
        );
    }
}
