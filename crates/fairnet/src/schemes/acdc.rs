//! AC/DC TCP (He et al., "AC/DC TCP: Virtual Congestion Control Enforcement for Datacenter
//! Networks", SIGCOMM 2016), as Uranus §4.2 describes it, and the virtual congestion control
//! core it shares with WVCC (`crate::systems::uranus::wvcc`).
//!
//! **Virtual congestion control** ([`VccShim`]): a [`HostShim`] in the hypervisor runs a
//! congestion control of its own for every flow its host sends, on the headers it sees pass,
//! and imposes the resulting window `cwnd*` on the unmodified guest transport by lowering the
//! receive window of the ACKs on their way in (Uranus §4.3: "RWND is modified only when
//! cwnd* is smaller than the original RWND set by the receiver"; the guest then keeps at most
//! `min(cwnd, rwnd)` in flight, RFC 5681 §3). Per flow (a hash table keyed by the flow, as the
//! kernel module's 4-tuple hash, Uranus §5.1.2) it keeps:
//!
//! - `snd_nxt` (the highest byte the guest sent, seen on egress) and `snd_una` (the
//!   cumulative ACK, seen on ingress);
//! - DCTCP's `α` (Alizadeh et al., SIGCOMM 2010, §3.1 eq. 1; Uranus Eq. 9): once per window of
//!   data, `α ← (1 − g)·α + g·F`, `F` the fraction of acknowledged bytes whose ACK echoed CE;
//! - `cwnd*` and `ssthresh` in bytes ([`EcnWindow`], whose steps SCC's tunnels take too):
//!   slow start (`cwnd* += acked` below `ssthresh`), then the law's additive increase per ACK;
//!   on an ACK echoing CE, at most once per window of data, the law's multiplicative cut
//!   (never below 2 MSS); fast recovery as NewReno (RFC 5681 §3.2, RFC 6582): on the
//!   third duplicate ACK `ssthresh = cwnd* = max(flight/2, 2·MSS)`, no growth until the
//!   cumulative ACK passes the recovery point; a timeout (RFC 5681 §3.1) sets `cwnd* = 1·MSS`.
//!
//! The control *law* — how much to add per ACK and how much to cut — is a [`VccLaw`]: AC/DC's
//! ([`AcdcLaw`]) is DCTCP's additive increase (one MSS per window) with the priority back-off
//! of Uranus Eq. (6), `rwnd ← rwnd·[1 − α(1 − β/2)]`; WVCC's is Eq. (7).
//!
//! **ECN is the shim's business.** On egress the shim makes the guest's data ECN-capable
//! (`NotEct → Ect`), so switches mark it instead of dropping it; on ingress it reads the ECN
//! echo of each ACK and *clears* it before the guest sees it, for every guest: a guest that
//! does not speak ECN is not confused by it, and an ECN guest (DCTCP, Reno-ECN) does not cut
//! its own window a second time for marks the shim already answered (AC/DC §3.2 hides the
//! ECN feedback from the VM in the same way).
//!
//! Choices where the papers are silent, and why:
//! - The receiver half of AC/DC (counting CE bytes and carrying them back) is the engine's
//!   receiver, which echoes CE on every ACK as DCTCP does (§3.1; with delayed ACKs, DCTCP's
//!   two-state machine): the shim at the sender reads the same per-packet information AC/DC's
//!   receiver module would carry.
//! - Loss detection from headers only: three duplicate ACKs (same cumulative ACK, nothing newly
//!   acknowledged, data outstanding) start fast recovery; a retransmission the shim did not
//!   foresee (outside a recovery episode) is a loss the guest found first: with at least one
//!   duplicate ACK since the last new acknowledgment it is treated as a fast retransmit,
//!   without as a timeout.
//! - `α` starts at 1 and the window never drops below 2 MSS, as the engine's DCTCP
//!   ([`super::dctcp::Dctcp`]); the initial `cwnd*` is the guest's initial window.
//! - A duplicate ACK counts as one MSS of acknowledged bytes in `F` (as Linux's DCTCP).
//! - β is the flow's weight; it must be in (0, 1] (AC/DC §3.3: a priority, 1 the highest: with
//!   β > 2 the "back-off" would grow the window). A weight set at run time above 1 is taken as 1.

use crate::engine::packet::host::HostShim;
use crate::engine::packet::pkt::{Ecn, Packet, PacketKind};
use crate::error::{Error, Result};
use crate::ids::FlowId;
use crate::units::Time;
use crate::workload::FlowSpec;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The control law of a virtual congestion control: its additive increase and its cut.
pub trait VccLaw {
    /// Bytes added to `cwnd` (bytes) in congestion avoidance for `acked` newly acknowledged
    /// bytes, for a flow of weight (or priority) `w`.
    fn increase(&self, cwnd: f64, acked: u64, mss: u64, w: f64) -> f64;
    /// The factor `cwnd` is multiplied by at a cut (an ACK echoing CE, once per window), with
    /// congestion estimate `alpha`, for a flow of weight (or priority) `w`.
    fn cut_factor(&self, alpha: f64, w: f64) -> f64;
}

/// The window of a virtual congestion control on ECN echoes — one flow's in [`VccShim`], one
/// tunnel's in SCC's shim (`crate::systems::uranus::scc_shim`) — and its reaction to an ACK
/// ([`EcnWindow::on_ack`]), to a fast retransmit and to a timeout.
#[derive(Clone, Debug, PartialEq)]
pub struct EcnWindow {
    /// The enforced window `cwnd*`, bytes.
    pub cwnd: f64,
    /// Slow-start threshold, bytes (`f64::INFINITY` before the first reduction).
    pub ssthresh: f64,
    /// No further cut until the acknowledged bytes pass this.
    pub cwr_end: u64,
    /// Cuts made for ECN echoes (for tests and reports).
    pub cuts: u64,
}

/// What one ACK tells an [`EcnWindow`], in the byte space the window counts (a flow's sequence
/// space, or the sum of a tunnel's flows').
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EcnAck {
    /// It echoed CE.
    pub ece: bool,
    /// Bytes it newly acknowledged.
    pub acked: u64,
    /// Bytes acknowledged up to now, this ACK's included.
    pub una: u64,
    /// Bytes sent up to now (one past the highest).
    pub nxt: u64,
    /// In fast recovery (no growth).
    pub in_recovery: bool,
}

impl EcnWindow {
    /// A window of `init_cwnd` bytes, no slow-start threshold yet.
    pub fn new(init_cwnd: u64) -> EcnWindow {
        EcnWindow {
            cwnd: init_cwnd as f64,
            ssthresh: f64::INFINITY,
            cwr_end: 0,
            cuts: 0,
        }
    }

    /// One ACK under `law` with congestion estimate `alpha` and weight (or priority) `w`
    /// (Uranus Eq. 7, AC/DC Eq. 6): on an echo, at most once per window of data (until the
    /// acknowledged bytes pass what was sent at the last cut), `cwnd ← cwnd·law.cut_factor`,
    /// never below 2 MSS, and `ssthresh = cwnd`; otherwise, outside fast recovery and for
    /// newly acknowledged bytes, slow start below `ssthresh` (`cwnd += acked`, as TCP, RFC
    /// 5681 §3.1) or the law's increase. An ACK echoing CE never grows the window.
    #[inline]
    pub fn on_ack(&mut self, law: &impl VccLaw, ack: &EcnAck, alpha: f64, w: f64, mss: u64) {
        if ack.ece {
            if ack.una >= self.cwr_end {
                let cut = self.cwnd * law.cut_factor(alpha, w);
                self.cwnd = cut.max(2.0 * mss as f64);
                self.ssthresh = self.cwnd;
                self.cwr_end = ack.nxt;
                self.cuts += 1;
            }
        } else if !ack.in_recovery && ack.acked > 0 {
            if self.cwnd < self.ssthresh {
                self.cwnd += ack.acked as f64;
            } else {
                self.cwnd += law.increase(self.cwnd, ack.acked, mss, w);
            }
        }
    }

    /// Fast retransmit (RFC 5681 §3.2 steps 2–3) with `flight` bytes in flight:
    /// `ssthresh = cwnd = max(flight/2, 2·MSS)`.
    pub fn on_fast_retransmit(&mut self, flight: u64, mss: u64) {
        self.ssthresh = ((flight / 2).max(2 * mss)) as f64;
        self.cwnd = self.ssthresh;
    }

    /// Timeout (RFC 5681 §3.1) with `flight` bytes in flight: `ssthresh = max(flight/2,
    /// 2·MSS)`, `cwnd = 1·MSS`.
    pub fn on_timeout(&mut self, flight: u64, mss: u64) {
        self.ssthresh = ((flight / 2).max(2 * mss)) as f64;
        self.cwnd = mss as f64;
    }
}

/// One flow's state in a [`VccShim`].
#[derive(Clone, Debug, PartialEq)]
pub struct VccFlow {
    /// The flow's weight (WVCC's `w`) or priority (AC/DC's `β`).
    pub weight: f64,
    /// The enforced window `cwnd*` and what goes with it.
    pub window: EcnWindow,
    /// DCTCP's congestion estimate.
    pub alpha: f64,
    /// Cumulative acknowledgement seen last.
    pub snd_una: u64,
    /// One past the highest byte the guest sent.
    pub snd_nxt: u64,
    /// End of the current α observation window (0: no ACK yet).
    win_end: u64,
    win_acked: u64,
    win_marked: u64,
    /// Duplicate ACKs since the last new acknowledgment.
    dupacks: u32,
    /// Retransmissions of bytes below this belong to a loss episode already answered.
    recover: u64,
    /// In fast recovery (no growth) until the cumulative ACK reaches `recover`.
    in_recovery: bool,
    /// Receive windows lowered to `cwnd*` (for tests and reports).
    pub rewrites: u64,
}

/// A virtual congestion control shim at one host: the per-flow machinery of the module doc,
/// with the control law `L`.
pub struct VccShim<L: VccLaw> {
    law: L,
    mss: u64,
    init_cwnd: u64,
    g: f64,
    /// Weights above this are taken as this (AC/DC's β ≤ 1; WVCC: none).
    max_weight: f64,
    flows: HashMap<FlowId, VccFlow>,
}

impl<L: VccLaw> VccShim<L> {
    /// A shim with law `law`, MSS `mss` bytes, initial `cwnd*` `init_cwnd` bytes and DCTCP
    /// gain `g`; weights above `max_weight` are clamped to it.
    pub fn new(law: L, mss: u64, init_cwnd: u64, g: f64, max_weight: f64) -> VccShim<L> {
        VccShim {
            law,
            mss,
            init_cwnd: init_cwnd.max(mss),
            g,
            max_weight,
            flows: HashMap::new(),
        }
    }

    /// The state of `flow`, if it is sent from this host and has started.
    pub fn flow(&self, flow: FlowId) -> Option<&VccFlow> {
        self.flows.get(&flow)
    }

    /// The ACK `pkt` of one of this host's flows arrives: run the control law, consume the ECN
    /// echo, lower the receive window to `cwnd*` if it is below.
    fn on_ack(&mut self, pkt: &mut Packet) {
        let (mss, g) = (self.mss, self.g);
        let Some(s) = self.flows.get_mut(&pkt.flow) else {
            return;
        };
        let ece = pkt.ece;
        pkt.ece = false; // the guest never sees the echo (module doc: ECN)
        let cum = pkt.seq;
        if cum < s.snd_una {
            return; // a stale, reordered ACK: the guest ignores its window too
        }
        let acked = cum - s.snd_una;
        let flight = s.snd_nxt.saturating_sub(s.snd_una);
        // DCTCP eq. (1) / Uranus Eq. (9): α once per window of data.
        if s.win_end == 0 {
            s.win_end = s.snd_nxt.max(1);
        }
        let bytes = if acked > 0 { acked } else { mss };
        s.win_acked += bytes;
        if ece {
            s.win_marked += bytes;
        }
        if cum >= s.win_end && acked > 0 {
            let f = s.win_marked as f64 / s.win_acked as f64;
            s.alpha = (1.0 - g) * s.alpha + g * f;
            s.win_acked = 0;
            s.win_marked = 0;
            s.win_end = s.snd_nxt.max(cum + 1);
        }
        // Loss: NewReno's fast retransmit on the third duplicate ACK (RFC 5681 §3.2).
        if acked == 0 && flight > 0 {
            s.dupacks += 1;
            if s.dupacks == 3 && !s.in_recovery {
                s.enter_recovery(flight, mss);
            }
        } else if acked > 0 {
            s.dupacks = 0;
            s.snd_una = cum;
            if s.in_recovery && cum >= s.recover {
                s.in_recovery = false;
            }
        }
        // Uranus Eq. (7) / AC/DC Eq. (6): cut at most once per window on an echo, else grow.
        let ack = EcnAck {
            ece,
            acked,
            una: s.snd_una,
            nxt: s.snd_nxt,
            in_recovery: s.in_recovery,
        };
        s.window.on_ack(&self.law, &ack, s.alpha, s.weight, mss);
        // §4.3: "RWND is modified only when cwnd* is smaller than the original RWND".
        let w = s.window.cwnd as u64;
        if w < pkt.window {
            pkt.window = w;
            s.rewrites += 1;
        }
    }
}

impl VccFlow {
    fn new(weight: f64, init_cwnd: u64) -> VccFlow {
        VccFlow {
            weight,
            window: EcnWindow::new(init_cwnd),
            alpha: 1.0,
            snd_una: 0,
            snd_nxt: 0,
            win_end: 0,
            win_acked: 0,
            win_marked: 0,
            dupacks: 0,
            recover: 0,
            in_recovery: false,
            rewrites: 0,
        }
    }

    /// Fast retransmit (RFC 5681 §3.2 steps 2–3): `ssthresh = cwnd* = max(flight/2, 2·MSS)`.
    fn enter_recovery(&mut self, flight: u64, mss: u64) {
        self.window.on_fast_retransmit(flight, mss);
        self.recover = self.snd_nxt;
        self.in_recovery = true;
    }

    /// Timeout (RFC 5681 §3.1): `ssthresh = max(flight/2, 2·MSS)`, `cwnd* = 1·MSS`.
    fn on_timeout(&mut self, flight: u64, mss: u64) {
        self.window.on_timeout(flight, mss);
        self.recover = self.snd_nxt;
        self.in_recovery = false;
        self.dupacks = 0;
    }
}

impl<L: VccLaw> HostShim for VccShim<L> {
    fn on_egress(&mut self, pkt: &mut Packet, _now: Time) {
        if pkt.kind != PacketKind::Data {
            return;
        }
        let mss = self.mss;
        let Some(s) = self.flows.get_mut(&pkt.flow) else {
            return;
        };
        if pkt.ecn == Ecn::NotEct {
            pkt.ecn = Ecn::Ect; // module doc: ECN is the shim's business
        }
        if pkt.retransmit && pkt.seq >= s.recover && !s.in_recovery {
            // A loss the guest found before the shim (module doc).
            let flight = s.snd_nxt.saturating_sub(s.snd_una);
            if s.dupacks > 0 {
                s.enter_recovery(flight, mss);
            } else {
                s.on_timeout(flight, mss);
            }
        }
        s.snd_nxt = s.snd_nxt.max(pkt.seq + pkt.payload as u64);
    }

    fn on_ingress(&mut self, pkt: &mut Packet, _now: Time) {
        if pkt.kind == PacketKind::Ack {
            self.on_ack(pkt);
        }
    }

    fn on_flow_start(&mut self, flow: FlowId, spec: &FlowSpec, _now: Time) {
        let w = spec.weight.min(self.max_weight);
        self.flows.insert(flow, VccFlow::new(w, self.init_cwnd));
    }

    fn on_weight(&mut self, flow: FlowId, weight: f64) {
        let w = weight.min(self.max_weight);
        if let Some(s) = self.flows.get_mut(&flow) {
            s.weight = w;
        }
    }
}

/// Checks a DCTCP gain `g` for a shim: in (0, 1) (Uranus §4.4: "0 < g < 1").
pub fn check_gain(g: f64, at: &str) -> Result<()> {
    if !(g > 0.0 && g < 1.0) {
        return Err(Error::invalid(
            format!("{at}.g"),
            format!("must be in (0, 1), got {g}"),
        ));
    }
    Ok(())
}

/// AC/DC's law: DCTCP's additive increase (one MSS per window of data, byte counting) and the
/// priority back-off of Uranus Eq. (6), `cwnd ← cwnd·[1 − α(1 − β/2)]`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AcdcLaw;

impl VccLaw for AcdcLaw {
    fn increase(&self, cwnd: f64, acked: u64, mss: u64, _beta: f64) -> f64 {
        mss as f64 * acked as f64 / cwnd
    }
    fn cut_factor(&self, alpha: f64, beta: f64) -> f64 {
        1.0 - alpha * (1.0 - beta / 2.0)
    }
}

/// The AC/DC shim of one host.
pub type Acdc = VccShim<AcdcLaw>;

/// AC/DC's parameters (`host_shim = "acdc"` with an `[acdc]` table). Each flow's priority β is
/// its weight, in (0, 1].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AcdcConfig {
    /// DCTCP's gain `g` in the vSwitch (default 1/16, DCTCP §3.4; AC/DC §3.2 runs DCTCP's
    /// algorithm with its parameters).
    pub g: f64,
}

impl Default for AcdcConfig {
    fn default() -> AcdcConfig {
        AcdcConfig {
            g: super::dctcp::DCTCP_G,
        }
    }
}

impl AcdcConfig {
    /// Checks the ranges; errors name the field under `at`.
    pub fn validate(&self, at: &str) -> Result<()> {
        check_gain(self.g, at)
    }

    /// Checks the flows' priorities β (their weights) are in (0, 1]; errors name the flow.
    pub fn check_flows(&self, flows: &[FlowSpec]) -> Result<()> {
        for (i, f) in flows.iter().enumerate() {
            if !(f.weight > 0.0 && f.weight <= 1.0) {
                return Err(Error::invalid(
                    format!("{}", FlowId(i as u32)),
                    format!(
                        "AC/DC's priority β (the flow's weight) must be in (0, 1], got {}",
                        f.weight
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The shim of one host, for MSS `mss` and the guests' initial window `init_cwnd` bytes.
    pub fn build(&self, mss: u64, init_cwnd: u64) -> Acdc {
        VccShim::new(AcdcLaw, mss, init_cwnd, self.g, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NodeId;
    use crate::units::Bytes;

    fn ack(flow: u32, cum: u64, ece: bool) -> Packet {
        Packet {
            kind: PacketKind::Ack,
            flow: FlowId(flow),
            seq: cum,
            ece,
            ..Packet::default()
        }
    }

    fn data(flow: u32, seq: u64, len: u32) -> Packet {
        Packet {
            kind: PacketKind::Data,
            flow: FlowId(flow),
            seq,
            payload: len,
            ..Packet::default()
        }
    }

    fn started(beta: f64) -> Acdc {
        let mut s = AcdcConfig::default().build(1000, 10_000);
        let mut spec = FlowSpec::new(NodeId(0), NodeId(1), Bytes(1 << 40), Time::ZERO);
        spec.weight = beta;
        s.on_flow_start(FlowId(0), &spec, Time::ZERO);
        s
    }

    #[test]
    fn the_cut_follows_eq_6_and_the_echo_is_consumed() {
        // β = 1/4, α = 1 (its initial value): Eq. (6) multiplies the window by
        // 1 − 1·(1 − 1/8) = 1/8: 10,000 → 1,250 bytes, floored at 2 MSS = 2,000. The guest's
        // data leaves ECT, and the ACK reaches the guest with its echo cleared and its window
        // lowered to cwnd*.
        let mut s = started(0.25);
        for i in 0..10 {
            let mut d = data(0, i * 1000, 1000);
            s.on_egress(&mut d, Time::ZERO);
            assert_eq!(d.ecn, Ecn::Ect);
        }
        let mut a = ack(0, 1000, true);
        s.on_ingress(&mut a, Time::ZERO);
        assert!(!a.ece, "the echo is the shim's");
        assert_eq!(s.flow(FlowId(0)).unwrap().window.cwnd, 2000.0);
        assert_eq!(a.window, 2000);
        // A second echo in the same window of data does not cut again.
        let mut a = ack(0, 2000, true);
        s.on_ingress(&mut a, Time::ZERO);
        assert_eq!(s.flow(FlowId(0)).unwrap().window.cuts, 1);
        // β = 1 is DCTCP's cut: α/2.
        assert_eq!(AcdcLaw.cut_factor(0.5, 1.0), 0.75);
    }

    #[test]
    fn the_shim_never_raises_a_receive_window() {
        // The receiver advertises 3,000 bytes, below cwnd* = 10,000: the ACK passes unchanged.
        let mut s = started(1.0);
        let mut d = data(0, 0, 1000);
        s.on_egress(&mut d, Time::ZERO);
        let mut a = ack(0, 1000, false);
        a.window = 3000;
        s.on_ingress(&mut a, Time::ZERO);
        assert_eq!(a.window, 3000);
        assert_eq!(s.flow(FlowId(0)).unwrap().rewrites, 0);
    }

    #[test]
    fn three_duplicate_acks_halve_the_window_once() {
        // 10 packets out, cumulative ACK stuck at 1,000: the third duplicate sets
        // cwnd* = flight/2 = 9,000/2 = 4,500 bytes (RFC 5681 §3.2); a guest retransmission
        // inside the episode does not cut again.
        let mut s = started(1.0);
        for i in 0..10 {
            s.on_egress(&mut data(0, i * 1000, 1000), Time::ZERO);
        }
        s.on_ingress(&mut ack(0, 1000, false), Time::ZERO);
        let after_first = s.flow(FlowId(0)).unwrap().window.cwnd;
        assert_eq!(after_first, 11_000.0, "slow start: +1,000");
        for _ in 0..3 {
            s.on_ingress(&mut ack(0, 1000, false), Time::ZERO);
        }
        assert_eq!(s.flow(FlowId(0)).unwrap().window.cwnd, 4500.0);
        let mut r = data(0, 1000, 1000);
        r.retransmit = true;
        s.on_egress(&mut r, Time::ZERO);
        assert_eq!(s.flow(FlowId(0)).unwrap().window.cwnd, 4500.0);
    }

    #[test]
    fn bad_gain_and_priorities_are_one_line_errors() {
        let e = AcdcConfig { g: 1.0 }
            .validate("packet config.acdc")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "packet config.acdc.g: must be in (0, 1), got 1"
        );
        let mut f = FlowSpec::new(NodeId(0), NodeId(1), Bytes(1), Time::ZERO);
        f.weight = 1.5;
        let e = AcdcConfig::default().check_flows(&[f]).unwrap_err();
        assert!(e.to_string().contains("must be in (0, 1], got 1.5"), "{e}");
    }
}
