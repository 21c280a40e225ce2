//! DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015),
//! a baseline of Söze §5.2.3.
//!
//! Written from our knowledge of the paper (it is not in `../shared/papers/`; the parameter
//! values below are as we remember them and are all configurable). Cross-checked against HPCC's
//! ns-3 simulator's `dcqcn_paper` setting, which scales R_AI, R_HAI and the marking thresholds
//! with the link rate and differs in F, the floor and the α timer: the values and their effect
//! on Söze Figs. 15–16 are in `docs/systems/soze.md` ("Not done").
//!
//! - **CP** (switch): RED-style ECN marking on the egress queue — use
//!   `qdisc = { kind = "red", thresholds = [{ rate, kmin = "5KB", kmax = "200KB", pmax = 0.01 }] }`.
//! - **NP** (receiver): sends a CNP when a CE-marked packet arrives and none was sent for the
//!   flow in the last `N = 50 µs`. Emulated at the sender: the engine echoes CE in every ACK
//!   (ECE), and an ECE ACK counts as a CNP if the last one was at least `cnp_interval` ago —
//!   the same events at the same times as a receiver's CNP on the ACK path.
//! - **RP** (sender): on a CNP, `R_T ← R_C`, `R_C ← R_C·(1 − α/2)`, `α ← (1 − g)·α + g`, and the
//!   increase counters restart. Without a CNP for `K = 55 µs`, `α ← (1 − g)·α`. Rate increase
//!   events come from a timer (every `T = 55 µs`) and a byte counter (every `B = 10 MB` sent);
//!   with `i` the smaller and `j` the larger of the two event counts since the last CNP: fast
//!   recovery while `j < F = 5` (`R_C ← (R_T + R_C)/2`), additive increase otherwise
//!   (`R_T ← R_T + R_AI`, then the same averaging), hyper increase once `i > F`
//!   (`R_T ← R_T + (i − F)·R_HAI`). `g = 1/256`, `R_AI = 40 Mb/s`, `R_HAI = 10·R_AI`
//!   (400 Mb/s; the least sure of our values).
//!
//! Our choices: timers are evaluated when ACKs arrive (a sending flow receives ACKs every
//! packet time, so the error is at most one packet time); the byte counter counts
//! acknowledged bytes; rates are clamped to `[min_rate, line rate]`; flows start at line rate
//! (as DCQCN does); loss and timeouts leave the rate alone (DCQCN runs over lossless PFC).

use crate::engine::packet::cc::{AckInfo, CcContext, CongestionControl};
use crate::error::{Error, Result};
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// DCQCN's parameters (`[dcqcn]` table of the packet config).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DcqcnConfig {
    /// `α` gain `g` (default 1/256).
    pub g: f64,
    /// NP's minimum CNP spacing `N` (default 50 µs).
    pub cnp_interval: Time,
    /// `α` decay timer `K` (default 55 µs).
    pub alpha_timer: Time,
    /// Rate-increase timer `T` (default 55 µs).
    pub rate_timer: Time,
    /// Rate-increase byte counter `B` (default 10 MB).
    pub byte_counter: Bytes,
    /// Fast-recovery steps `F` (default 5).
    pub f: u32,
    /// Additive increase `R_AI` (default 40 Mb/s).
    pub r_ai: Rate,
    /// Hyper increase `R_HAI` (default 400 Mb/s).
    pub r_hai: Rate,
    /// Lowest rate (default 100 Mb/s).
    pub min_rate: Rate,
}

impl Default for DcqcnConfig {
    fn default() -> DcqcnConfig {
        DcqcnConfig {
            g: 1.0 / 256.0,
            cnp_interval: Time::from_us(50),
            alpha_timer: Time::from_us(55),
            rate_timer: Time::from_us(55),
            byte_counter: Bytes(10_000_000),
            f: 5,
            r_ai: Rate(40_000_000),
            r_hai: Rate(400_000_000),
            min_rate: Rate(100_000_000),
        }
    }
}

impl DcqcnConfig {
    /// Checks value ranges; `at` is the table's path (`packet config.dcqcn`).
    pub fn validate(&self, at: &str) -> Result<()> {
        let f = |n: &str| format!("{at}.{n}");
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(Error::invalid(
                f("g"),
                format!("must be in (0, 1], got {}", self.g),
            ));
        }
        for (n, t) in [
            ("alpha_timer", self.alpha_timer),
            ("rate_timer", self.rate_timer),
        ] {
            if t.0 == 0 {
                return Err(Error::invalid(f(n), "must be positive"));
            }
        }
        if self.byte_counter.0 == 0 {
            return Err(Error::invalid(f("byte_counter"), "must be positive"));
        }
        if self.min_rate.0 == 0 {
            return Err(Error::invalid(f("min_rate"), "must be positive"));
        }
        Ok(())
    }
}

/// DCQCN's reaction point (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Dcqcn {
    cfg: DcqcnConfig,
    line: f64,
    /// Current rate `R_C`, bit/s.
    rc: f64,
    /// Target rate `R_T`, bit/s.
    rt: f64,
    alpha: f64,
    last_cnp: Option<u64>,
    next_alpha: u64,
    next_timer: u64,
    bytes: u64,
    timer_events: u32,
    byte_events: u32,
    started: bool,
}

impl Dcqcn {
    /// DCQCN with `cfg` for the flow described by `ctx`, starting at line rate.
    pub fn new(cfg: &DcqcnConfig, ctx: &CcContext) -> Dcqcn {
        let line = ctx.nic_rate.bps();
        Dcqcn {
            cfg: *cfg,
            line,
            rc: line,
            rt: line,
            alpha: 1.0,
            last_cnp: None,
            next_alpha: 0,
            next_timer: 0,
            bytes: 0,
            timer_events: 0,
            byte_events: 0,
            started: false,
        }
    }

    /// Current rate `R_C`, bit/s.
    pub fn rate(&self) -> f64 {
        self.rc
    }

    /// One rate-increase event (fast recovery, additive or hyper increase).
    fn increase(&mut self) {
        let (i, j) = (
            self.timer_events.min(self.byte_events),
            self.timer_events.max(self.byte_events),
        );
        let f = self.cfg.f;
        if i > f {
            self.rt += (i - f) as f64 * self.cfg.r_hai.bps();
        } else if j >= f {
            self.rt += self.cfg.r_ai.bps();
        }
        self.rt = self.rt.min(self.line);
        self.rc =
            ((self.rt + self.rc) / 2.0).clamp(self.cfg.min_rate.bps().min(self.line), self.line);
    }

    fn cnp(&mut self, now: u64) {
        self.rt = self.rc;
        self.rc = (self.rc * (1.0 - self.alpha / 2.0)).max(self.cfg.min_rate.bps().min(self.line));
        self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g;
        self.timer_events = 0;
        self.byte_events = 0;
        self.bytes = 0;
        self.next_timer = now + self.cfg.rate_timer.0;
        self.next_alpha = now + self.cfg.alpha_timer.0;
        self.last_cnp = Some(now);
    }
}

impl CongestionControl for Dcqcn {
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        let now = a.now.0;
        if !self.started {
            self.started = true;
            self.next_alpha = now + self.cfg.alpha_timer.0;
            self.next_timer = now + self.cfg.rate_timer.0;
        }
        // α decays once per K without a CNP.
        if now >= self.next_alpha {
            let k = self.cfg.alpha_timer.0;
            let n = (now - self.next_alpha) / k + 1;
            self.alpha *= (1.0 - self.cfg.g).powi(n.min(i32::MAX as u64) as i32);
            self.next_alpha += n * k;
        }
        // Rate-increase timer events (bounded: after 64 the rate is at the line rate anyway).
        let mut steps = 0;
        while now >= self.next_timer && steps < 64 {
            self.timer_events = self.timer_events.saturating_add(1);
            self.next_timer += self.cfg.rate_timer.0;
            self.increase();
            steps += 1;
        }
        if now >= self.next_timer {
            let t = self.cfg.rate_timer.0;
            self.next_timer += ((now - self.next_timer) / t + 1) * t;
        }
        self.bytes += a.acked;
        while self.bytes >= self.cfg.byte_counter.0 {
            self.bytes -= self.cfg.byte_counter.0;
            self.byte_events = self.byte_events.saturating_add(1);
            self.increase();
        }
        if a.ece
            && self
                .last_cnp
                .is_none_or(|t| now.saturating_sub(t) >= self.cfg.cnp_interval.0)
        {
            self.cnp(now);
        }
    }

    fn on_loss(&mut self, _now: Time, _in_flight: u64) {}

    fn on_timeout(&mut self, _now: Time, _in_flight: u64) {}

    fn cwnd(&self) -> u64 {
        u64::MAX
    }

    fn pacing_rate(&self) -> Option<Rate> {
        Some(Rate(self.rc as u64))
    }

    fn ecn_capable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(now_us: u64, ece: bool) -> AckInfo<'static> {
        AckInfo {
            now: Time::from_us(now_us),
            acked: 1000,
            cum_ack: 0,
            snd_nxt: 0,
            in_flight: 0,
            ece,
            max_qdelay: Time::ZERO,
            int: &[],
            rtt: None,
            in_recovery: false,
            word: 0,
        }
    }

    #[test]
    fn cnp_cuts_by_half_alpha_then_fast_recovery_halves_the_gap() {
        // α starts at 1: the first CNP halves the rate (R_T = 100, R_C = 50 Gb/s) and moves
        // α to (1 − g) + g = 1. A second ECE within 50 µs is not a CNP. Then each 55 µs timer
        // event (fast recovery, < F = 5 events) averages R_C with R_T: 75, then 87.5 Gb/s.
        let ctx = CcContext {
            mss: 1000,
            header: 48,
            nic_rate: Rate::gbps(100),
            base_rtt: Time::from_us(5),
            weight: 1.0,
        };
        let mut d = Dcqcn::new(&DcqcnConfig::default(), &ctx);
        d.on_ack(&ack(0, true));
        assert_eq!(d.rate(), 50e9);
        d.on_ack(&ack(10, true));
        assert_eq!(d.rate(), 50e9, "within the 50 us CNP interval");
        d.on_ack(&ack(56, false));
        assert_eq!(d.rate(), 75e9);
        d.on_ack(&ack(111, false));
        assert_eq!(d.rate(), 87.5e9);
    }
}
