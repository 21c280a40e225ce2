//! eBA's switch part (Algorithm 2 lines 15–26, §V-C, §VI-B): every port keeps a rate factor
//! `r_l`, updated every τ_r from the rate it carried, `r ← min(C, r·exp(βτ_r(1 − V/(μC))))`;
//! a control packet on its way to the receiver takes `min(pkt.r, r_l)`, one on its way back
//! is left alone.
//!
//! Choices (also in `docs/systems/eba.md`):
//! - **Measured rate.** §V-C measures "the receiving rate of the port"; a link's receiving
//!   end gets what its sending port transmits, so `V` is the port's transmitted bytes over the
//!   interval (the engine's [`PortView::tx_bytes`]).
//! - **When.** The update runs at the first packet leaving the port after it is due, with the
//!   real elapsed time in place of τ_r (so a port that was silent for a while catches up as
//!   Eq. (4) would; the packet engine's RCP agent works the same way).
//! - **Idle relaxation** (§VI-B): after an update that measured utilization ν = V/C below
//!   `idle_utilization`, the next is due after `τ_r/ν`, with ν taken as at least
//!   [`MIN_IDLE_UTILIZATION`] (the paper's `τ_r/ν` is unbounded on an idle link). The port
//!   still measures every τ_r ("The throughput measurement needs to keep on monitoring any
//!   changes in the link utilization"): when the last τ_r's utilization reaches
//!   `idle_utilization` the update runs at once, over the whole time since the last one.
//!   Without this a link that was idle when a flow started would leave its rate factor at
//!   `C` for up to 100·τ_r while the flow's rate overshoots (found at packet level: X and Y
//!   of a 1:2 test ran at 1 and 4 Gb/s limits for 58 ms = 58·τ_r).
//! - **Header.** The paper's control packet carries r as a 32-bit integer in bytes/s, which
//!   ends at 34 Gb/s; we carry it in kbit/s ([`encode_factor`]), which reaches 4.29 Tb/s, so
//!   the "beyond the paper" runs at 100 Gb/s fit.

pub use super::config::MIN_IDLE_UTILIZATION;
use super::config::{relaxed_period, LrcConfig};
use super::model::factor_step;
use crate::engine::packet::pkt::{PacketId, PacketPool};
use crate::engine::packet::{PacketKind, PortAgent, PortView};
use crate::units::Rate;

/// A rate in bits/s as the control packet's 32-bit field, in kbit/s (rounded, saturating;
/// at least 1).
pub fn encode_factor(bps: f64) -> u32 {
    (bps / 1e3).round().clamp(1.0, u32::MAX as f64) as u32
}

/// The control packet's field back in bits/s.
pub fn decode_factor(word: u32) -> f64 {
    word as f64 * 1e3
}

/// One port's rate factor (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct RateFactorAgent {
    beta: f64,
    tau_r: u64,
    mu: f64,
    idle_relaxation: bool,
    idle_utilization: f64,
    capacity: f64,
    r: f64,
    primed: bool,
    last: u64,
    last_tx: u64,
    /// The start of the current τ_r watch window and the bytes sent by then.
    check: u64,
    check_tx: u64,
    due: u64,
}

impl RateFactorAgent {
    /// The agent of a port of line rate `rate`, its factor starting at the cap `C` (Eq. 17).
    pub fn new(cfg: &LrcConfig, rate: Rate) -> RateFactorAgent {
        RateFactorAgent {
            beta: cfg.beta,
            tau_r: cfg.tau_r.0,
            mu: cfg.mu,
            idle_relaxation: cfg.idle_relaxation,
            idle_utilization: cfg.idle_utilization,
            capacity: rate.bps(),
            r: rate.bps(),
            primed: false,
            last: 0,
            last_tx: 0,
            check: 0,
            check_tx: 0,
            due: 0,
        }
    }

    /// The current rate factor `r_l`, bits/s.
    pub fn factor(&self) -> f64 {
        self.r
    }

    /// `UpdateLinkFactor` (Algorithm 2 lines 17–19) if it is due at `port.now`; `wire` is the
    /// size of the packet leaving now (already counted in `port.tx_bytes`).
    fn update(&mut self, port: &PortView, wire: u64) {
        let now = port.now.0;
        let tx = port.tx_bytes - wire;
        if !self.primed {
            self.primed = true;
            (self.last, self.last_tx) = (now, tx);
            (self.check, self.check_tx) = (now, tx);
            self.due = now + self.tau_r;
            return;
        }
        if now < self.check + self.tau_r {
            return;
        }
        // The measurement keeps watching every τ_r (§VI-B: "The throughput measurement needs to
        // keep on monitoring any changes in the link utilization"): a stretched period ends
        // as soon as the last τ_r's utilization is no longer low.
        let c = self.capacity;
        let recent = (tx - self.check_tx) as f64 * 8.0 / ((now - self.check) as f64 * 1e-12) / c;
        (self.check, self.check_tx) = (now, tx);
        if now < self.due && recent < self.idle_utilization {
            return;
        }
        let dt = (now - self.last) as f64 * 1e-12;
        let v = (tx - self.last_tx) as f64 * 8.0 / dt;
        self.r = factor_step(self.r, c, self.beta * dt, v, self.mu);
        let period = relaxed_period(
            self.tau_r,
            self.idle_relaxation,
            self.idle_utilization,
            v / c,
        );
        (self.last, self.last_tx) = (now, tx);
        self.due = now + period;
    }
}

impl PortAgent for RateFactorAgent {
    fn on_dequeue(&mut self, id: PacketId, pool: &mut PacketPool, port: &PortView) {
        let wire = pool.get(id).wire as u64;
        self.update(port, wire);
        // `UpdatePacket` (lines 21–26): forward control packets only (identifier 0).
        if pool.get(id).kind == PacketKind::Control && !pool.ctrl(id).reflected {
            let p = pool.get_mut(id);
            p.word = p.word.min(encode_factor(self.r));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::packet::{CtrlArea, Packet};
    use crate::ids::{LinkId, NodeId};
    use crate::units::{Bytes, Time};

    const C: f64 = 1e9;

    fn port(now_ms: u64, tx_bytes: u64) -> PortView {
        PortView {
            link: LinkId(0),
            node: NodeId(0),
            rate: Rate(C as u64),
            buffer: Bytes(1_000_000),
            queue_bytes: 0,
            tx_bytes,
            drop_bytes: 0,
            now: Time::from_ms(now_ms),
        }
    }

    /// Sends one packet of `kind` (word `word`, 100 B) through the agent at `now_ms` with
    /// `sent` bytes transmitted before it; returns its word afterwards.
    fn pass(
        a: &mut RateFactorAgent,
        now_ms: u64,
        sent: u64,
        kind: PacketKind,
        reflected: bool,
        word: u32,
    ) -> u32 {
        let mut pool = PacketPool::new();
        let id = pool.alloc(Packet {
            kind,
            word,
            wire: 100,
            ..Packet::default()
        });
        if kind == PacketKind::Control {
            pool.set_ctrl(
                id,
                &CtrlArea {
                    reflected,
                    ..CtrlArea::default()
                },
            );
        }
        a.on_dequeue(id, &mut pool, &port(now_ms, sent + 100));
        pool.get(id).word
    }

    /// Bytes carried in `ms` milliseconds at `bps`.
    fn bytes(bps: f64, ms: u64) -> u64 {
        (bps * ms as f64 / 1e3 / 8.0) as u64
    }

    #[test]
    fn the_factor_follows_algorithm_2_line_18_and_is_capped_at_c() {
        // Defaults β = 2 s⁻¹, τ_r = 100 ms, μ = 0.9 on 1 Gb/s. Start at C (Eq. 17).
        // 0–100 ms at 600 Mb/s: exp(0.2·(1 − 2/3)) > 1, capped: r = C (utilization 0.6, above
        // idle relaxation's 0.5, so the next update is τ_r later).
        // 100–200 ms at 990 Mb/s: r = C·exp(0.2·(1 − 1.1)) = C·e^(−0.02).
        // 200–300 ms at 900 Mb/s (= μC): unchanged.
        let mut a = RateFactorAgent::new(&LrcConfig::default(), Rate(C as u64));
        let d = PacketKind::Data;
        pass(&mut a, 0, 0, d, false, 0);
        let mut sent = bytes(600e6, 100);
        pass(&mut a, 100, sent, d, false, 0);
        assert_eq!(a.factor(), C);
        sent += bytes(990e6, 100);
        pass(&mut a, 200, sent, d, false, 0);
        let expect = C * (-0.02f64).exp();
        assert!((a.factor() / expect - 1.0).abs() < 1e-6, "{}", a.factor());
        sent += bytes(900e6, 100);
        pass(&mut a, 300, sent, d, false, 0);
        assert!((a.factor() / expect - 1.0).abs() < 1e-6, "{}", a.factor());
    }

    #[test]
    fn forward_control_packets_take_the_smaller_factor_and_returning_ones_are_untouched() {
        // After 0–100 ms at 990 Mb/s the factor is C·e^(−0.02) ≈ 980.2 Mb/s. A forward control
        // packet carrying C leaves with 980.2 Mb/s; one carrying 500 Mb/s keeps it (line 22:
        // only a smaller factor is written); a reflected one (identifier 1) and a data packet
        // keep whatever they carry.
        let mut a = RateFactorAgent::new(&LrcConfig::default(), Rate(C as u64));
        pass(&mut a, 0, 0, PacketKind::Data, false, 0);
        let sent = bytes(990e6, 100);
        let ctrl = PacketKind::Control;
        let w = pass(&mut a, 100, sent, ctrl, false, encode_factor(C));
        assert_eq!(w, encode_factor(C * (-0.02f64).exp()));
        assert_eq!(pass(&mut a, 100, sent, ctrl, false, 500_000), 500_000);
        assert_eq!(pass(&mut a, 100, sent, ctrl, true, 1_000_000), 1_000_000);
        assert_eq!(pass(&mut a, 100, sent, PacketKind::Data, false, 7), 7);
        assert!((decode_factor(encode_factor(123.4e6)) - 123.4e6).abs() <= 500.0);
    }

    #[test]
    fn idle_relaxation_stretches_the_period_below_half_utilization() {
        // §VI-B: at utilization ν = 0.25 (< 0.5) the next update comes after τ_r/ν = 400 ms.
        // With μ = 0.5: 0–100 ms at 990 Mb/s takes the factor to C·e^(−0.196); 100–200 ms at
        // 250 Mb/s (ν = 0.25) raises it by e^(0.1), still below C, and sets the next update
        // 400 ms later: at 300 ms nothing moves, at 600 ms it grows again. Without idle
        // relaxation it grows at 300 ms.
        for relax in [true, false] {
            let cfg = LrcConfig {
                idle_relaxation: relax,
                mu: 0.5,
                ..LrcConfig::default()
            };
            let mut a = RateFactorAgent::new(&cfg, Rate(C as u64));
            let d = PacketKind::Data;
            pass(&mut a, 0, 0, d, false, 0);
            let mut sent = bytes(990e6, 100);
            pass(&mut a, 100, sent, d, false, 0);
            let low = a.factor();
            sent += bytes(250e6, 100);
            pass(&mut a, 200, sent, d, false, 0); // measures ν = 0.25 over 100–200 ms
            let after_200 = a.factor();
            assert!((after_200 / (low * 0.1f64.exp()) - 1.0).abs() < 1e-6 && after_200 < C);
            sent += bytes(250e6, 100);
            pass(&mut a, 300, sent, d, false, 0);
            if relax {
                assert!(after_200 > low, "the 200 ms update runs");
                assert_eq!(
                    a.factor(),
                    after_200,
                    "next update due at 600 ms, not 300 ms"
                );
                sent += bytes(250e6, 300);
                pass(&mut a, 600, sent, d, false, 0);
                assert!(a.factor() > after_200);
            } else {
                assert!(a.factor() > after_200, "updates every τ_r");
            }
        }
    }

    #[test]
    fn a_stretched_period_ends_when_the_utilization_rises() {
        // §VI-B keeps measuring while the period is stretched. 0–100 ms at 10 Mb/s: the update
        // at 100 ms measures ν = 0.01 (factor stays at the cap C) and sets the next one
        // τ_r/0.01 = 10 s later. 100–200 ms at 990 Mb/s: the watch at 200 ms sees ν = 0.99 ≥
        // 0.5 and the update runs at once, over 100–200 ms: C·exp(0.2·(1 − 1.1)) = C·e^(−0.02);
        // another 100 ms at 990 Mb/s (now every τ_r): C·e^(−0.04).
        let mut a = RateFactorAgent::new(&LrcConfig::default(), Rate(C as u64));
        let d = PacketKind::Data;
        pass(&mut a, 0, 0, d, false, 0);
        let mut sent = bytes(10e6, 100);
        pass(&mut a, 100, sent, d, false, 0);
        assert_eq!(a.factor(), C);
        sent += bytes(990e6, 100);
        pass(&mut a, 200, sent, d, false, 0);
        let expect = C * (-0.02f64).exp();
        assert!((a.factor() / expect - 1.0).abs() < 1e-6, "{}", a.factor());
        sent += bytes(990e6, 100);
        pass(&mut a, 300, sent, d, false, 0);
        let expect = C * (-0.04f64).exp();
        assert!((a.factor() / expect - 1.0).abs() < 1e-6, "{}", a.factor());
    }
}
