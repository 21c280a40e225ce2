//! SCC's virtual tunnels on the packet engine (Tian et al., INFOCOM 2017, as Uranus §2.4
//! describes them): the baseline's host part, a [`HostShim`] on every host (`host_shim =
//! "scc"`), beside [`super::scc`] (its weights, and its flow-level steady state).
//!
//! **What §2.4 says.** "A tunnel is the basic unit for running weighted congestion control,
//! similar to Seawall … only flows *in a same slice* with the same source-destination pair are
//! aggregated into a tunnel"; the slice's weight is divided among its tunnels and "a tunnel's
//! weight is divided to its contained flows"; a *virtual tunnel* (no encapsulation) "uses the
//! aggregated ECN feedback to estimate the network congestion level and adjust its sending
//! rate accordingly … combine the congestion signals (i.e., CE-marked packets) from all
//! contained flows … and perform tunnel-level congestion control" (Fig. 3(c): "the tunnel gets
//! non-zero overall α value and reduces the tunnel's sending rate which affects all contained
//! flows").
//!
//! **What is implemented.** Per host, a tunnel per (slice, destination host) — the host is the
//! source — holding one weighted congestion control: WVCC's law (Uranus Eq. 7, [`WvccLaw`]:
//! the weighted increase `W_T·MSS·acked/cwnd_T` with `W_T` the tunnel's weight, DCTCP's cut
//! `cwnd_T·(1 − α/2)` at most once per window of tunnel data) over DCTCP's `α` (Eq. 9) on the
//! tunnel's aggregated feedback: every ACK of every member flow adds its newly acknowledged
//! bytes to the tunnel's count, and its bytes to the marked count when it echoes CE; `α` is
//! updated once per window of the tunnel's data. Slow start, fast recovery (on the third
//! duplicate ACK of any member) and timeouts act on the tunnel's window, as
//! [`crate::schemes::acdc`]'s core does on a flow's. The tunnel's window is divided among its
//! member flows by their weights (`cwnd_T · w_f / W_T`, `W_T = Σ w_f` over the members that
//! have started and not finished) and imposed on each guest by lowering the receive window of
//! its ACKs, as WVCC does. The flows' weights come from the slice scheduler every decision
//! slot ([`super::scc::flow_weights`] through [`super::packet_level::PacketSlices`]); the
//! tunnels of a slice sum to `W_S` there.
//!
//! With one flow per tunnel every rule above is WVCC's for that flow (tested: on Fig. 3(b)
//! SCC's packet run is within 1% of Uranus's, flow by flow; the weights differ in rounding).
//!
//! **What we had to assume** (the SCC paper is not at hand; §2.4 gives the structure only):
//! - *The tunnel's congestion control is WVCC's law* (Eq. 7 with the tunnel's weight): §2.4
//!   says weighted congestion control on ECN feedback "similar to Seawall"; WVCC's law is this
//!   paper's weighted DCTCP, so Uranus and SCC differ only in what they aggregate, which is
//!   the comparison §2.4 and §5.2 make.
//! - *Division inside a tunnel by weight, of the window*: a flow may keep `cwnd_T·w_f/W_T`
//!   bytes in flight. A member that does not use its share (finished, or limited elsewhere)
//!   leaves it unused until it leaves the tunnel (at its last byte acknowledged).
//! - *Tunnel membership by tag*: a flow's tunnel group is its slice
//!   ([`SccConfig::tunnel_groups`], filled from `[[slices]]` by the scenario runner); a tag
//!   listed in no group is a group of its own.
//! - *A tunnel outlives its flows*: a flow joining a tunnel that had flows before takes the
//!   tunnel's current window (the point of a tunnel: one control for the host pair).
//! - `α` starts at 1, `cwnd_T` at the guests' initial window, never below 2 MSS; `g = 1/16`
//!   (DCTCP §3.4), as WVCC's.

use super::wvcc::WvccLaw;
use crate::engine::packet::host::HostShim;
use crate::engine::packet::pkt::{Ecn, Packet, PacketKind};
use crate::error::Result;
use crate::ids::{FlowId, NodeId};
use crate::schemes::acdc::{check_gain, EcnAck, EcnWindow};
use crate::units::Time;
use crate::workload::FlowSpec;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// SCC's parameters (`host_shim = "scc"` with an `[scc]` table).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SccConfig {
    /// DCTCP's gain `g` of the tunnels' `α` (default 1/16, DCTCP §3.4, as WVCC's). In (0, 1).
    pub g: f64,
    /// Which tunnel group (slice) each tag belongs to, as `(tag, group)`: flows of one group
    /// between one host pair share a tunnel. Not part of the `[engine]` table: the scenario
    /// runner fills it from `[[slices]]` (a tag's group is its slice), and a program sets it
    /// here. A tag listed nowhere is a group of its own.
    #[serde(skip)]
    #[schemars(skip)]
    pub tunnel_groups: Vec<(u32, u32)>,
}

impl Default for SccConfig {
    fn default() -> SccConfig {
        SccConfig {
            g: crate::schemes::dctcp::DCTCP_G,
            tunnel_groups: Vec::new(),
        }
    }
}

impl SccConfig {
    /// Checks the ranges; errors name the field under `at`.
    pub fn validate(&self, at: &str) -> Result<()> {
        check_gain(self.g, at)
    }

    /// The shim of one host, for MSS `mss` and the guests' initial window `init_cwnd` bytes.
    pub fn build(&self, mss: u64, init_cwnd: u64) -> SccShim {
        SccShim {
            law: WvccLaw,
            mss,
            init_cwnd: init_cwnd.max(mss),
            g: self.g,
            group_of_tag: self.tunnel_groups.iter().copied().collect(),
            flows: HashMap::new(),
            tunnels: HashMap::new(),
        }
    }
}

/// A tunnel at its source host: (group, destination host).
type TunnelKey = (u64, NodeId);

/// One member flow's sequence state (the control is its tunnel's).
#[derive(Clone, Debug, PartialEq)]
pub struct SccFlow {
    /// Its tunnel.
    tunnel: TunnelKey,
    /// Its weight (its share of the tunnel's weight).
    pub weight: f64,
    /// Payload bytes; the flow leaves its tunnel once they are all acknowledged.
    size: u64,
    /// Cumulative acknowledgement seen last.
    pub snd_una: u64,
    /// One past the highest byte the guest sent.
    pub snd_nxt: u64,
    /// Duplicate ACKs since the last new acknowledgment.
    dupacks: u32,
    /// Retransmissions of bytes below this belong to a loss episode already answered.
    recover: u64,
    /// Still in its tunnel (started, not fully acknowledged).
    member: bool,
}

/// One virtual tunnel: a weighted congestion control on its flows' aggregated feedback. Byte
/// counts are in the tunnel's own sequence space: `sent` and `acked` add up the member flows'
/// new bytes sent and newly acknowledged.
#[derive(Clone, Debug, PartialEq)]
pub struct SccTunnel {
    /// `W_T`: the weights of its current members.
    pub weight: f64,
    /// Member flows (started, not fully acknowledged).
    pub members: Vec<FlowId>,
    /// The tunnel's window `cwnd_T` and what goes with it.
    pub window: EcnWindow,
    /// DCTCP's estimate over the aggregated feedback.
    pub alpha: f64,
    /// Bytes its flows have sent (new data only).
    pub sent: u64,
    /// Bytes its flows have had acknowledged.
    pub acked: u64,
    win_end: u64,
    win_acked: u64,
    win_marked: u64,
    /// Tunnel-space recovery point.
    recover: u64,
    in_recovery: bool,
}

impl SccTunnel {
    fn new(init_cwnd: u64) -> SccTunnel {
        SccTunnel {
            weight: 0.0,
            members: Vec::new(),
            window: EcnWindow::new(init_cwnd),
            alpha: 1.0,
            sent: 0,
            acked: 0,
            win_end: 0,
            win_acked: 0,
            win_marked: 0,
            recover: 0,
            in_recovery: false,
        }
    }

    fn flight(&self) -> u64 {
        self.sent.saturating_sub(self.acked)
    }
}

/// SCC's host part (module doc): virtual tunnels per (slice, destination).
pub struct SccShim {
    law: WvccLaw,
    mss: u64,
    init_cwnd: u64,
    g: f64,
    group_of_tag: HashMap<u32, u32>,
    flows: HashMap<FlowId, SccFlow>,
    tunnels: HashMap<TunnelKey, SccTunnel>,
}

impl SccShim {
    /// The state of `flow`, if it is sent from this host and has started.
    pub fn flow(&self, flow: FlowId) -> Option<&SccFlow> {
        self.flows.get(&flow)
    }

    /// The tunnel `flow` belongs to, if it is sent from this host and has started.
    pub fn tunnel_of(&self, flow: FlowId) -> Option<&SccTunnel> {
        self.flows
            .get(&flow)
            .and_then(|f| self.tunnels.get(&f.tunnel))
    }

    /// Fast retransmit on the tunnel (RFC 5681 §3.2): `ssthresh = cwnd_T = max(flight/2,
    /// 2·MSS)`; every member's retransmissions below its current `snd_nxt` belong to it.
    fn enter_recovery(&mut self, key: TunnelKey) {
        let mss = self.mss;
        let t = self
            .tunnels
            .get_mut(&key)
            .expect("a member's tunnel exists");
        let flight = t.flight();
        t.window.on_fast_retransmit(flight, mss);
        t.recover = t.sent;
        t.in_recovery = true;
        for f in &t.members {
            let s = self.flows.get_mut(f).expect("members are flows");
            s.recover = s.snd_nxt;
        }
    }

    /// Timeout (RFC 5681 §3.1) on the tunnel: `cwnd_T = 1·MSS`.
    fn on_timeout(&mut self, key: TunnelKey) {
        let mss = self.mss;
        let t = self
            .tunnels
            .get_mut(&key)
            .expect("a member's tunnel exists");
        let flight = t.flight();
        t.window.on_timeout(flight, mss);
        t.recover = t.sent;
        t.in_recovery = false;
        for f in &t.members {
            let s = self.flows.get_mut(f).expect("members are flows");
            s.recover = s.snd_nxt;
            s.dupacks = 0;
        }
    }

    /// The ACK `pkt` of one of this host's flows arrives: the tunnel's control on the
    /// aggregated feedback, the echo consumed, the flow's receive window lowered to its share
    /// of the tunnel's window.
    fn on_ack(&mut self, pkt: &mut Packet) {
        let (mss, g) = (self.mss, self.g);
        let Some(f) = self.flows.get_mut(&pkt.flow) else {
            return;
        };
        let ece = pkt.ece;
        pkt.ece = false; // the guest never sees the echo: the tunnel answers it
        let cum = pkt.seq;
        if cum < f.snd_una || !f.member {
            return;
        }
        let acked = cum - f.snd_una;
        let flow_flight = f.snd_nxt.saturating_sub(f.snd_una);
        let key = f.tunnel;
        let t = self
            .tunnels
            .get_mut(&key)
            .expect("a member's tunnel exists");
        // DCTCP eq. (1) on the tunnel's aggregated feedback, once per window of tunnel data.
        if t.win_end == 0 {
            t.win_end = t.sent.max(1);
        }
        let bytes = if acked > 0 { acked } else { mss };
        t.win_acked += bytes;
        if ece {
            t.win_marked += bytes;
        }
        let tunnel_cum = t.acked + acked;
        if tunnel_cum >= t.win_end && acked > 0 {
            let frac = t.win_marked as f64 / t.win_acked as f64;
            t.alpha = (1.0 - g) * t.alpha + g * frac;
            t.win_acked = 0;
            t.win_marked = 0;
            t.win_end = t.sent.max(tunnel_cum + 1);
        }
        // Loss: the third duplicate ACK of any member starts the tunnel's fast recovery.
        let mut recover = false;
        if acked == 0 && flow_flight > 0 {
            f.dupacks += 1;
            recover = f.dupacks == 3 && !t.in_recovery;
        } else if acked > 0 {
            f.dupacks = 0;
            f.snd_una = cum;
            t.acked = tunnel_cum;
            if t.in_recovery && t.acked >= t.recover {
                t.in_recovery = false;
            }
        }
        if recover {
            self.enter_recovery(key);
        }
        let t = self
            .tunnels
            .get_mut(&key)
            .expect("a member's tunnel exists");
        // Eq. (7) with the tunnel's weight: cut at most once per window on an echo, else grow
        // (tunnel space: what its flows sent and had acknowledged).
        let ack = EcnAck {
            ece,
            acked,
            una: t.acked,
            nxt: t.sent,
            in_recovery: t.in_recovery,
        };
        t.window.on_ack(&self.law, &ack, t.alpha, t.weight, mss);
        // The flow's share of the tunnel's window, imposed as WVCC imposes cwnd*.
        let f = self.flows.get(&pkt.flow).expect("looked up above");
        let share = if t.weight > 0.0 {
            t.window.cwnd * (f.weight / t.weight).min(1.0)
        } else {
            t.window.cwnd
        };
        let w = share as u64;
        if w < pkt.window {
            pkt.window = w;
        }
        if f.snd_una >= f.size {
            self.leave(pkt.flow);
        }
    }

    /// `flow` has had every byte acknowledged: it leaves its tunnel.
    fn leave(&mut self, flow: FlowId) {
        let f = self.flows.get_mut(&flow).expect("a flow of this host");
        f.member = false;
        let t = self.tunnels.get_mut(&f.tunnel).expect("a member's tunnel");
        t.members.retain(|&m| m != flow);
        t.weight = weight_sum(&t.members, &self.flows);
    }
}

fn weight_sum(members: &[FlowId], flows: &HashMap<FlowId, SccFlow>) -> f64 {
    members.iter().map(|m| flows[m].weight).sum()
}

impl HostShim for SccShim {
    fn on_egress(&mut self, pkt: &mut Packet, _now: Time) {
        if pkt.kind != PacketKind::Data {
            return;
        }
        let Some(f) = self.flows.get_mut(&pkt.flow) else {
            return;
        };
        if pkt.ecn == Ecn::NotEct {
            pkt.ecn = Ecn::Ect; // as WVCC: ECN is the shim's business
        }
        let key = f.tunnel;
        let in_recovery = self.tunnels[&key].in_recovery;
        let end = pkt.seq + pkt.payload as u64;
        if f.member && pkt.retransmit && pkt.seq >= f.recover && !in_recovery {
            // A loss the guest found before the shim (as crate::schemes::acdc): with a
            // duplicate ACK since the last new acknowledgment a fast retransmit, else a
            // timeout; answered by the tunnel, before this packet counts.
            if f.dupacks > 0 {
                self.enter_recovery(key);
            } else {
                self.on_timeout(key);
            }
        }
        let f = self.flows.get_mut(&pkt.flow).expect("looked up above");
        if end > f.snd_nxt {
            let new = end - f.snd_nxt;
            f.snd_nxt = end;
            self.tunnels.get_mut(&key).expect("a member's tunnel").sent += new;
        }
    }

    fn on_ingress(&mut self, pkt: &mut Packet, _now: Time) {
        if pkt.kind == PacketKind::Ack {
            self.on_ack(pkt);
        }
    }

    fn on_flow_start(&mut self, flow: FlowId, spec: &FlowSpec, _now: Time) {
        // Groups are u32 slices; a tag in no group is keyed apart from every group.
        let group = match self.group_of_tag.get(&spec.tag) {
            Some(&g) => g as u64,
            None => (1u64 << 32) | spec.tag as u64,
        };
        let key = (group, spec.dst);
        let init = self.init_cwnd;
        let t = self
            .tunnels
            .entry(key)
            .or_insert_with(|| SccTunnel::new(init));
        t.members.push(flow);
        self.flows.insert(
            flow,
            SccFlow {
                tunnel: key,
                weight: spec.weight,
                size: spec.size.0,
                snd_una: 0,
                snd_nxt: 0,
                dupacks: 0,
                recover: 0,
                member: true,
            },
        );
        let t = self.tunnels.get_mut(&key).expect("just inserted");
        t.weight = weight_sum(&t.members, &self.flows);
    }

    fn on_weight(&mut self, flow: FlowId, weight: f64) {
        let Some(f) = self.flows.get_mut(&flow) else {
            return;
        };
        f.weight = weight;
        let key = f.tunnel;
        let t = self.tunnels.get_mut(&key).expect("a member's tunnel");
        t.weight = weight_sum(&t.members, &self.flows);
    }
}

#[cfg(test)]
#[path = "scc_shim_tests.rs"]
mod tests;
