//! TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter",
//! SIGCOMM 2015): a rate-based sender driven by the *gradient* of the RTT. Söze compares with it
//! on its eRPC testbed (§5.2.1, Figs. 12–13: "Timely, the default CC used in eRPC"); its NS-3
//! experiments use HPCC and DCQCN only.
//!
//! The paper is not in `../shared/papers/`; the algorithm below is its Algorithm 1 ("TIMELY
//! congestion control"), applied at every *completion event* (§4.1: the RTT of a segment of
//! 16–64 KB, once per segment):
//!
//! ```text
//! new_rtt_diff = new_rtt − prev_rtt;  prev_rtt = new_rtt
//! rtt_diff = (1 − α)·rtt_diff + α·new_rtt_diff          (EWMA, weight α)
//! normalized_gradient = rtt_diff / minRTT
//! if new_rtt < T_low:   rate ← rate + δ                 (additive increase)
//! elif new_rtt > T_high: rate ← rate·(1 − β·(1 − T_high/new_rtt))
//! elif normalized_gradient ≤ 0: rate ← rate + N·δ       (N = 5 after 5 such events: HAI)
//! else:                 rate ← rate·(1 − β·normalized_gradient)
//! ```
//!
//! Defaults (all configurable): `T_low = 50 µs`, `T_high = 500 µs`, `β = 0.8`, EWMA
//! `α = 0.875`, `δ = 10 Mb/s`, HAI after 5 completion events with `N = 5`, segments of 16 KB —
//! the Timely paper's Table 1 values as we recall them (the paper is not here to check); the
//! public HPCC ns-3 simulator, a common base for such NS-3 comparisons, has the same `α`, `β`,
//! `T_low`, `T_high` as its defaults. `minRTT = 20 µs` (Table 1 as we recall it; the HPCC
//! simulator's default too); `min_rtt = None` takes the
//! flow's base RTT instead (propagation and serialization of its path, no queueing), which on
//! our µs-scale paths normalizes the gradient by ~8 µs and cuts much harder.
//!
//! What it does at 100 Gb/s with these 10 Gb/s-era values (`flows_share_a_bottleneck_...`):
//! flows that start together at line rate stay equal, but the start's overload cuts them far
//! below their share and `δ` per 16 KB segment brings them back slowly (two flows: 8.7, 21.7,
//! 44.5 Gb/s each over 1–5, 10–20, 20–40 ms; four flows: 0.2, 0.6, 1.8 Gb/s). Flows that join a
//! loaded bottleneck at different times do not converge to equal shares (the increase per
//! completion event is per byte sent, so a faster flow grows faster) — the unfairness Zhu et
//! al. (CoNEXT 2016, "ECN or Delay") analyse.
//!
//! **Variants** (`[timely] variant`): `paper` (the default, above) and `hpcc_ns3`, the TIMELY
//! of HPCC's ns-3 simulator (alibaba-edu/High-Precision-Congestion-Control, commit 9f4be2a,
//! `rdma-hw.cc`'s `UpdateRateTimely`), which a side-by-side check against that simulator runs
//! (docs/validation.md). It differs in when and how much the rate grows:
//!
//! - one completion event per RTT of data instead of per `segment`: an ACK that acknowledges
//!   data sent after the previous event (`ack_seq > m_lastUpdateSeq`, then `m_lastUpdateSeq =
//!   snd_nxt`), as HPCC's reference window; `segment` is unused;
//! - every increase counts towards HAI, those below `T_low` included (its `m_incStage`): the
//!   increase is `δ` while fewer than `hai_after` increases came since the last decrease, then
//!   `hai_n·δ` (its `RATE_HAI`, 5·δ in its `run.py`); any decrease restarts the count. In
//!   `paper`, an RTT below `T_low` adds `δ` and restarts the count, and HAI comes at the
//!   `hai_after`-th consecutive non-positive gradient.
//!
//! On a fabric whose RTTs stay below `T_low` (µs-scale RTTs against 50 µs) the first rule
//! makes `paper` grow by `δ` per 16 KB — at 100 Gb/s ten times per RTT, at 1 Gb/s once per ten
//! RTTs — and the second keeps it from ever reaching HAI there.
//!
//! Our choices where the paper is silent or is about hardware: the RTT is the engine's per-ACK
//! sample (the echoed send timestamp; Timely's NIC timestamps the segment's completion), taken
//! from the ACK that completes a segment; a flow starts at the NIC's line rate (as eRPC's Timely
//! and our DCQCN do); the rate is clamped to `[min_rate, line rate]`; the first completion event
//! only records the RTT (there is no gradient yet); losses and timeouts leave the rate to the
//! RTT signal (Timely reacts to delay only). Pacing, no window. Weights are ignored: Timely is
//! not a weighted scheme.

use crate::engine::packet::cc::{AckInfo, CcContext, CongestionControl};
use crate::error::{Error, Result};
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// Which TIMELY runs (module doc, "Variants").
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TimelyVariant {
    /// Timely Algorithm 1, a completion event per `segment` (the default).
    #[default]
    Paper,
    /// HPCC's ns-3 simulator: an event per RTT of data, every increase counting towards HAI.
    HpccNs3,
}

/// TIMELY's parameters (`[timely]` table of the packet config).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TimelyConfig {
    /// Below this RTT the rate grows by `δ` whatever the gradient (default 50 µs, Timely
    /// Table 1).
    pub t_low: Time,
    /// Above this RTT the rate is cut by `β·(1 − T_high/RTT)` (default 500 µs, Timely Table 1).
    pub t_high: Time,
    /// Additive increment `δ` (default 10 Mb/s, Timely Table 1).
    pub delta: Rate,
    /// Multiplicative decrement factor `β` (default 0.8, Timely Table 1).
    pub beta: f64,
    /// EWMA weight `α` of the newest RTT difference (default 0.875, Timely Table 1).
    pub alpha: f64,
    /// Completion events with a non-positive gradient before hyperactive increase (HAI; default
    /// 5, Timely Algorithm 1).
    pub hai_after: u32,
    /// The increase multiplier `N` in HAI mode (default 5, Timely Algorithm 1).
    pub hai_n: u32,
    /// Bytes acknowledged per completion event (default 16 KB, Timely §4.1's segment).
    pub segment: Bytes,
    /// The gradient's normalizing `minRTT` (default 20 µs, Timely Table 1); `None`: the
    /// flow's base RTT.
    pub min_rtt: Option<Time>,
    /// Lowest rate (default 100 Mb/s).
    pub min_rate: Rate,
    /// `paper` (default) or `hpcc_ns3` (module doc, "Variants").
    pub variant: TimelyVariant,
}

impl Default for TimelyConfig {
    fn default() -> TimelyConfig {
        TimelyConfig {
            t_low: Time::from_us(50),
            t_high: Time::from_us(500),
            delta: Rate(10_000_000),
            beta: 0.8,
            alpha: 0.875,
            hai_after: 5,
            hai_n: 5,
            segment: Bytes(16_000),
            min_rtt: Some(Time::from_us(20)),
            min_rate: Rate(100_000_000),
            variant: TimelyVariant::Paper,
        }
    }
}

impl TimelyConfig {
    /// Checks value ranges; `at` is the table's path (`packet config.timely`).
    pub fn validate(&self, at: &str) -> Result<()> {
        let f = |n: &str| format!("{at}.{n}");
        if self.t_low.0 == 0 {
            return Err(Error::invalid(f("t_low"), "must be positive"));
        }
        if self.t_high <= self.t_low {
            return Err(Error::invalid(
                f("t_high"),
                format!("must be above t_low ({}), got {}", self.t_low, self.t_high),
            ));
        }
        if !(self.beta > 0.0 && self.beta <= 1.0) {
            return Err(Error::invalid(
                f("beta"),
                format!("must be in (0, 1], got {}", self.beta),
            ));
        }
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return Err(Error::invalid(
                f("alpha"),
                format!("must be in (0, 1], got {}", self.alpha),
            ));
        }
        if self.delta.0 == 0 {
            return Err(Error::invalid(f("delta"), "must be positive"));
        }
        if self.hai_n == 0 {
            return Err(Error::invalid(f("hai_n"), "must be at least 1"));
        }
        if self.segment.0 == 0 {
            return Err(Error::invalid(
                f("segment"),
                "must be positive (one MSS or more)",
            ));
        }
        if self.min_rtt == Some(Time::ZERO) {
            return Err(Error::invalid(
                f("min_rtt"),
                "must be positive (or none for the flow's base RTT)",
            ));
        }
        if self.min_rate.0 == 0 {
            return Err(Error::invalid(f("min_rate"), "must be positive"));
        }
        Ok(())
    }
}

/// TIMELY's sender (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Timely {
    cfg: TimelyConfig,
    line: f64,
    min_rate: f64,
    min_rtt: f64,
    rate: f64,
    prev_rtt: Option<f64>,
    rtt_diff: f64,
    /// Events counted towards HAI (`paper`: consecutive non-positive gradients; `hpcc_ns3`:
    /// increases since the last decrease).
    hai_count: u32,
    /// Bytes acknowledged since the last completion event (`paper`).
    acked: u64,
    /// The sender's `snd_nxt` at the last completion event (`hpcc_ns3`).
    last_update_seq: u64,
}

impl Timely {
    /// TIMELY with `cfg` for the flow described by `ctx`, starting at line rate.
    pub fn new(cfg: &TimelyConfig, ctx: &CcContext) -> Timely {
        let line = ctx.nic_rate.bps();
        Timely {
            cfg: *cfg,
            line,
            min_rate: cfg.min_rate.bps().min(line),
            min_rtt: cfg.min_rtt.unwrap_or(ctx.base_rtt).0.max(1) as f64,
            rate: line,
            prev_rtt: None,
            rtt_diff: 0.0,
            hai_count: 0,
            acked: 0,
            last_update_seq: 0,
        }
    }

    /// Current rate, bit/s.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// One completion event with RTT sample `rtt` (Timely Algorithm 1).
    pub fn on_completion(&mut self, rtt: Time) {
        let new_rtt = rtt.0 as f64;
        let Some(prev) = self.prev_rtt.replace(new_rtt) else {
            return; // no gradient before the second sample
        };
        let c = &self.cfg;
        self.rtt_diff = (1.0 - c.alpha) * self.rtt_diff + c.alpha * (new_rtt - prev);
        let gradient = self.rtt_diff / self.min_rtt;
        let below_t_low = new_rtt < c.t_low.0 as f64;
        let cut = if below_t_low {
            None
        } else if new_rtt > c.t_high.0 as f64 {
            Some(1.0 - c.beta * (1.0 - c.t_high.0 as f64 / new_rtt))
        } else if gradient <= 0.0 {
            None
        } else {
            Some((1.0 - c.beta * gradient).max(0.0))
        };
        if let Some(factor) = cut {
            self.rate *= factor;
            self.hai_count = 0;
        } else {
            let hai = match c.variant {
                // Algorithm 1: below T_low, +δ (the count restarts); a non-positive gradient
                // adds N·δ, N = hai_n from the hai_after-th such event in a row.
                TimelyVariant::Paper if below_t_low => {
                    self.hai_count = 0;
                    false
                }
                TimelyVariant::Paper => {
                    self.hai_count = self.hai_count.saturating_add(1);
                    self.hai_count >= c.hai_after
                }
                // rdma-hw.cc: `m_incStage < 5 ? RATE_AI : RATE_HAI`, then `m_incStage++`.
                TimelyVariant::HpccNs3 => {
                    let hai = self.hai_count >= c.hai_after;
                    self.hai_count = self.hai_count.saturating_add(1);
                    hai
                }
            };
            let n = if hai { c.hai_n } else { 1 };
            self.rate += n as f64 * c.delta.bps();
        }
        self.rate = self.rate.clamp(self.min_rate, self.line);
    }
}

impl CongestionControl for Timely {
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        match self.cfg.variant {
            TimelyVariant::Paper => {
                self.acked += a.acked;
                if self.acked < self.cfg.segment.0 {
                    return;
                }
                if let Some(rtt) = a.rtt {
                    self.acked = 0;
                    self.on_completion(rtt);
                }
            }
            TimelyVariant::HpccNs3 => {
                // `if (ack_seq > m_lastUpdateSeq)`: the first ACK of data sent after the
                // last event closes one RTT.
                if a.cum_ack > self.last_update_seq {
                    if let Some(rtt) = a.rtt {
                        self.on_completion(rtt);
                    }
                    self.last_update_seq = a.snd_nxt;
                }
            }
        }
    }

    fn on_loss(&mut self, _now: Time, _in_flight: u64) {}

    fn on_timeout(&mut self, _now: Time, _in_flight: u64) {}

    fn cwnd(&self) -> u64 {
        u64::MAX
    }

    fn pacing_rate(&self) -> Option<Rate> {
        Some(Rate(self.rate as u64))
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
            base_rtt: Time::from_us(20),
            weight: 1.0,
        }
    }

    #[test]
    fn algorithm_1_regions() {
        // minRTT 20 µs, α = 0.875, β = 0.8. Start at 100 Gb/s.
        let mut t = Timely::new(&TimelyConfig::default(), &ctx());
        t.on_completion(Time::from_us(60)); // first sample: no change
        assert_eq!(t.rate(), 100e9);
        // RTT rises 60 → 64 µs: rtt_diff = 0.875·4 = 3.5 µs, gradient 0.175, cut by
        // β·0.175 = 14%: 86 Gb/s.
        t.on_completion(Time::from_us(64));
        assert!((t.rate() - 86e9).abs() < 1e3, "{}", t.rate());
        // RTT falls back to 64 → 60: rtt_diff = 0.125·3.5 − 0.875·4 < 0: + δ (10 Mb/s).
        t.on_completion(Time::from_us(60));
        assert!((t.rate() - 86.01e9).abs() < 1e3, "{}", t.rate());
        // Four more non-positive gradients at 60 µs (rtt_diff decays towards 0 from below):
        // events 2–4 add δ, the fifth (HAI) adds 5δ.
        for _ in 0..4 {
            t.on_completion(Time::from_us(60));
        }
        assert!(
            (t.rate() - (86.01e9 + 3.0 * 10e6 + 50e6)).abs() < 1e3,
            "{}",
            t.rate()
        );
        // Above T_high = 500 µs: cut by β·(1 − 500/1000) = 40%.
        let before = t.rate();
        t.on_completion(Time::from_us(1000));
        assert!((t.rate() - before * 0.6).abs() < 1e3, "{}", t.rate());
        // Below T_low = 50 µs: + δ, whatever the gradient.
        let before = t.rate();
        t.on_completion(Time::from_us(10));
        assert!((t.rate() - before - 10e6).abs() < 1e3, "{}", t.rate());
    }

    #[test]
    fn hpcc_ns3_variant_updates_once_per_rtt_and_counts_every_increase_towards_hai() {
        // The simulator's UpdateRateTimely: an event only for an ACK of data sent after the
        // previous event (snd_nxt then); the first event records the RTT. An RTT of 1000 µs
        // (> T_high = 500 µs) cuts by β·(1 − 500/1000) = 40%: 100 → 60 Gb/s. Then six events
        // below T_low: increases 1–5 add δ (10 Mb/s), the sixth 5·δ (HAI once five increases
        // came since the cut): 60 Gb/s + 10·δ = 60.1 Gb/s. The paper variant adds δ six
        // times there (below T_low the HAI count restarts): 60.06 Gb/s.
        let ack = |cum_ack: u64, snd_nxt: u64, rtt_us: u64| AckInfo {
            now: Time::ZERO,
            acked: 1000,
            cum_ack,
            snd_nxt,
            in_flight: snd_nxt - cum_ack,
            ece: false,
            max_qdelay: Time::ZERO,
            int: &[],
            rtt: Some(Time::from_us(rtt_us)),
            in_recovery: false,
            word: 0,
        };
        let cfg = TimelyConfig {
            variant: TimelyVariant::HpccNs3,
            ..TimelyConfig::default()
        };
        let mut t = Timely::new(&cfg, &ctx());
        t.on_ack(&ack(1_000, 10_000, 10)); // first event: records 10 µs
        t.on_ack(&ack(5_000, 10_000, 1000)); // data sent before the event: no event
        assert_eq!(t.rate(), 100e9);
        t.on_ack(&ack(11_000, 20_000, 1000)); // one RTT later: cut by 40%
        assert!((t.rate() - 60e9).abs() < 1e3, "{}", t.rate());
        for k in 0..6 {
            let cum = 21_000 + 10_000 * k;
            t.on_ack(&ack(cum, cum + 9_000, 10));
        }
        assert!(
            (t.rate() - (60e9 + 10.0 * 10e6)).abs() < 1e3,
            "{}",
            t.rate()
        );

        let mut p = Timely::new(&TimelyConfig::default(), &ctx());
        for rtt in [10, 1000, 10, 10, 10, 10, 10, 10] {
            p.on_completion(Time::from_us(rtt));
        }
        assert!((p.rate() - (60e9 + 6.0 * 10e6)).abs() < 1e3, "{}", p.rate());
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let at = "packet config.timely";
        let bad = |c: TimelyConfig| c.validate(at).unwrap_err().to_string();
        let d = TimelyConfig::default();
        assert_eq!(
            bad(TimelyConfig {
                t_high: Time::from_us(40),
                ..d
            }),
            "packet config.timely.t_high: must be above t_low (50us), got 40us"
        );
        assert!(bad(TimelyConfig { beta: 1.5, ..d }).starts_with("packet config.timely.beta:"));
        assert!(bad(TimelyConfig { alpha: 0.0, ..d }).starts_with("packet config.timely.alpha:"));
        assert!(bad(TimelyConfig {
            segment: Bytes(0),
            ..d
        })
        .starts_with("packet config.timely.segment:"));
        assert!(bad(TimelyConfig {
            min_rtt: Some(Time::ZERO),
            ..d
        })
        .starts_with("packet config.timely.min_rtt:"));
        assert!(d.validate(at).is_ok());
    }

    /// `n` long TIMELY flows on a 100 Gb/s dumbbell (sender `i` to receiver `n + i`), flow `i`
    /// starting at `i · stagger`; returns the results at `warm` and at `end`.
    fn dumbbell_run(
        n: u32,
        stagger: Time,
        warm: Time,
        end: Time,
        timely: TimelyConfig,
    ) -> (
        crate::engine::packet::PacketResults,
        crate::engine::packet::PacketResults,
    ) {
        use crate::ids::NodeId;
        use crate::registry::{PacketConfig, PacketSim, TransportKind};
        use crate::topo::{dumbbell, LinkSpec};
        use crate::workload::FlowSpec;
        let l = LinkSpec::new(Rate::gbps(100), Time::from_us(1), Bytes(32_000_000));
        let topo = dumbbell(n, l, l).unwrap();
        let flows: Vec<FlowSpec> = (0..n)
            .map(|i| {
                FlowSpec::new(
                    NodeId(i),
                    NodeId(n + i),
                    Bytes(1 << 50),
                    Time(stagger.0 * i as u64),
                )
            })
            .collect();
        let cfg = PacketConfig {
            transport: TransportKind::Timely,
            timely,
            ..PacketConfig::default()
        };
        let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
        let a = sim.run_until(warm).unwrap();
        let b = sim.run_until(end).unwrap();
        assert!(b.conservation.holds(), "{:?}", b.conservation);
        (a, b)
    }

    fn goodputs(
        a: &crate::engine::packet::PacketResults,
        b: &crate::engine::packet::PacketResults,
    ) -> Vec<f64> {
        let dt = (b.now - a.now).as_secs_f64();
        a.flows
            .iter()
            .zip(&b.flows)
            .map(|(x, y)| (y.delivered - x.delivered) as f64 * 8.0 / dt)
            .collect()
    }

    #[test]
    fn one_flow_keeps_line_rate() {
        // Alone on the path the RTT stays at the base RTT (~8 µs < T_low = 50 µs), so every
        // completion event adds δ and the rate stays clamped at the 100 Gb/s line rate: goodput
        // over 1–3 ms is the payload share of the line, 100 · 1000/1048 = 95.4 Gb/s.
        let (a, b) = dumbbell_run(
            1,
            Time::ZERO,
            Time::from_ms(1),
            Time::from_ms(3),
            TimelyConfig::default(),
        );
        let g = goodputs(&a, &b)[0];
        println!("TIMELY, one flow: goodput {:.2} Gb/s", g / 1e9);
        assert!(g > 0.99 * 100e9 * 1000.0 / 1048.0, "{g}");
        assert_eq!(b.links[0].drops, 0);
    }

    #[test]
    fn flows_share_a_bottleneck_fairly_within_t_high() {
        // 2, 3 and 4 flows starting together at line rate into one 100 Gb/s bottleneck. The
        // start's overload raises the RTT; the positive gradient cuts every flow by the same
        // factor (1 − β·gradient, down to the 100 Mb/s floor), then the RTT falls below T_low
        // and every flow adds δ per 16 KB segment, so equal flows stay equal. Expected over
        // 20–40 ms: Jain's index ≥ 0.9, the aggregate higher than over 10–20 ms (still
        // recovering: +δ = 10 Mb/s per segment is slow at 100 Gb/s, see the docs), and the
        // largest queue ever plus the base RTT below T_high = 500 µs, with no drops.
        for n in 2..=4u32 {
            let d = TimelyConfig::default();
            let run = |a, b| dumbbell_run(n, Time::ZERO, Time::from_ms(a), Time::from_ms(b), d);
            let (a0, b0) = run(10, 20);
            let (a, b) = run(20, 40);
            let g = goodputs(&a, &b);
            let s: f64 = g.iter().sum();
            let s0: f64 = goodputs(&a0, &b0).iter().sum();
            let jain = s * s / (g.len() as f64 * g.iter().map(|x| x * x).sum::<f64>());
            let bottleneck = &b.links[0];
            let max_q_us = bottleneck.max_queue_bytes as f64 * 8.0 / 100e9 * 1e6;
            println!(
                "TIMELY, {n} flows: goodputs over 20-40 ms {:?} Gb/s (sum {:.1}; 10-20 ms \
                 {:.1}), Jain {jain:.4}, max queue {max_q_us:.1} us",
                g.iter()
                    .map(|x| (x / 1e7).round() / 100.0)
                    .collect::<Vec<_>>(),
                s / 1e9,
                s0 / 1e9
            );
            assert!(jain >= 0.9, "{n} flows: Jain {jain}: {g:?}");
            assert!(s > s0, "{n} flows: {s} after {s0}");
            assert!(
                max_q_us + 10.0 < 500.0,
                "{n} flows: max queue {max_q_us} us"
            );
            assert_eq!(bottleneck.drops, 0);
        }
    }
}
