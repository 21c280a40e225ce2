//! eBA's host part at packet level (Algorithm 2 lines 1–14, §V-C, §VI-C): a hypervisor shim
//! on every host that sends a VM-flow. Per VM-flow (ordered VM pair, [`super::vms`]) it keeps
//!
//! - a **rate limiter** at `max(B, v)` (Eq. 16, Algorithm 2 lines 8–9) over all of that VM
//!   pair's traffic: the pair has a next-free time; a data packet of any of its flows may
//!   leave at that time ([`HostShim::earliest_send`]), and each one that leaves moves it on by
//!   its wire bytes at the limit ([`HostShim::on_egress`]);
//! - the **sender daemon** (lines 1–5): every τ_v a control packet
//!   ([`crate::engine::packet::ShimControl`]) on one of the pair's flows, its header word
//!   the host's line rate `C_l` ([`encode_factor`]); the switches' [`super::agent::RateFactorAgent`]s
//!   lower it to the smallest rate factor on the way, the receiver reflects it unchanged
//!   (lines 11–14: the engine's reflection);
//! - **on its return** (lines 6–9) Eq. (15)'s step `v ← v^{1−ατ_v}·(w·r)^{ατ_v}`
//!   ([`super::model::rate_step`], the same code as the recursion's), `w` and `B` the
//!   VM-flow's current weight and guarantee from Algorithm 1's table.
//!
//! With [`RateControl::Reservation`] the limit is the guarantee `B` itself and no control
//! packet is sent (Oktopus's static reservation as eBA §VII compares it).
//!
//! **ElasticSwitch's TCP-like rate allocation** ([`RateControl::TcpLike`]; Popa et al.,
//! SIGCOMM 2013, §4, which is not among our papers: written from the published algorithm as
//! recalled, each recalled point marked *(recalled)*): per VM-flow a rate `R`, the limit
//! `max(B, R)` (eBA Fig. 12's caption: `v^max = max{v, B}` for both algorithms; guarantee
//! decoupled from weight as eBA §VII-C says). Every period (15 ms, eBA §VII-C):
//! - *congestion* is a loss on the VM-flow's traffic in the period (ElasticSwitch detects
//!   losses by numbering packets per destination, eBA §VIII; *(recalled)* it also accepts
//!   ECN): here a retransmitted data packet of the pair leaving the host, or an ACK echoing
//!   CE arriving;
//! - on congestion `R_max ← R`, `R ← R·(1 − d)` (d = 0.3, CUBIC's decrease *(recalled)*), the
//!   epoch restarts;
//! - otherwise, before the first congestion `R` doubles (a slow start, ours); after it CUBIC's
//!   growth `R_max + c·(t − K)³`, `K = ∛(R_max·d/c)`, `t` in periods since the decrease, rates
//!   in Mb/s, `c = 0.4` *(recalled; units ours)*; the step is scaled by the VM-flow's weight
//!   over 2 (Seawall-style weighting, ElasticSwitch's RA builds on Seawall *(recalled)*; 2 is
//!   Eq. (1)'s weight of two VMs of weight 1) and by *rate-caution*, which eBA §VII-C
//!   describes as "the increment of rate has an inverse correlation with the rate": our form
//!   is the factor `1 − R/C_l` (`C_l` the host's line rate), ElasticSwitch's exact law not
//!   being recalled.
//!
//! Choices (also in `docs/systems/eba.md`):
//! - **The limiter** is a token bucket [`LIMITER_BURST`] (3 KB, two full packets) deep: a
//!   pair may send at most that much ahead of its rate. The paper's testbed uses Linux `tc`
//!   (whose limiters have a burst) and gives no depth. Without any depth a pair loses, for
//!   good, the time each of its packets waits at the NIC behind another pair's: two VM-flows
//!   limited to 374 and 748 Mb/s on one 1 Gb/s NIC got 299 and 598 Mb/s (found at packet
//!   level).
//! - **Which flow carries the control packet**: the VM-flow's most recently started flow that
//!   still has bytes to hand to the NIC (any of them takes the pair's path, see below). A
//!   VM-flow none of whose flows has bytes left sends none and is closed in Algorithm 1's
//!   table; it reopens, with its `v` kept, when a new flow starts.
//! - **The first control packet** leaves τ_v after the VM-flow opens (line 2 sleeps before
//!   line 3 sends); until it returns the limit is `max(B, v(0))`.
//! - **A fixed step per returned packet**: each return applies `ατ_v` once, whatever the
//!   time since the last (§VI-C: a lost packet "means that the time period between two
//!   iterations is doubled").
//! - **§VI-C's per-VM-pair ECMP** is the engine's `routing = "host_pair"`: every flow between
//!   two hosts, control packets included, takes one path, so a control packet measures the
//!   path its VM-flow's data takes. It is coarser than the paper's (source IP, destination IP)
//!   hash when a host pair carries several VM pairs (they cannot spread over paths), never
//!   finer; the registry refuses per-flow ECMP and spraying with eBA.

use super::agent::{decode_factor, encode_factor};
use super::model::rate_step;
use super::vms::{EbaPacketConfig, RateControl, TcpLikeConfig, VmPlan};
use crate::engine::packet::pkt::{CtrlArea, Packet, PacketKind};
use crate::engine::packet::{HostShim, ShimControl};
use crate::ids::{FlowId, NodeId};
use crate::units::Time;
use crate::workload::FlowSpec;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Depth of each VM-flow's token bucket, bytes: two full 1500 B packets (see
/// [`EbaShim`]'s `on_egress`).
pub const LIMITER_BURST: u64 = 3000;

/// One VM-flow sent from this host.
#[derive(Clone, Debug)]
struct PairState {
    /// Index into [`VmPlan::pairs`].
    pair: u32,
    /// `v`, bits/s: the rate Eq. (15) steers.
    v: f64,
    /// When the limiter lets the next data packet go, ps.
    next_free: u64,
    /// When the next control packet leaves (`None`: the VM-flow is closed).
    next_probe: Option<u64>,
    /// Started flows that still have bytes to hand to the NIC, oldest first.
    live: Vec<FlowId>,
    /// TCP-like: congestion seen in the current period.
    congested: bool,
    /// TCP-like: `R_max` (bits/s) and periods since the last decrease (`None`: no congestion
    /// yet, slow start).
    cubic: Option<(f64, f64)>,
}

/// One flow sent from this host.
#[derive(Clone, Copy, Debug)]
struct FlowState {
    /// Index into the shim's pairs.
    local: usize,
    /// Bytes to send.
    size: u64,
    /// The highest byte handed to the NIC so far.
    sent_end: u64,
}

/// The plan every host's shim shares, filled once the whole flow list is known
/// ([`crate::engine::packet::SchemeSet::prepare`] runs after the engine has built the host
/// shims, so they hold this cell and read it when their first flow starts).
pub type SharedPlan = Rc<OnceCell<VmPlan>>;

/// The eBA host shim of one host (see the module doc).
pub struct EbaShim {
    plan: SharedPlan,
    host: NodeId,
    control: RateControl,
    a_tau: f64,
    tau_v: u64,
    v0: f64,
    /// Filled from the plan at the first flow start.
    pairs: Vec<PairState>,
    /// Global pair index → index into `pairs`.
    local: HashMap<u32, usize>,
    flows: HashMap<u32, FlowState>,
    tcp_like: TcpLikeConfig,
}

impl EbaShim {
    /// The shim of `host` (`None` when the rate control is best effort: no limiter).
    pub fn for_host(plan: &SharedPlan, cfg: &EbaPacketConfig, host: NodeId) -> Option<EbaShim> {
        (cfg.rate_control != RateControl::BestEffort).then(|| EbaShim {
            plan: plan.clone(),
            host,
            control: cfg.rate_control,
            a_tau: cfg.lrc.alpha * cfg.lrc.tau_v.as_secs_f64(),
            tau_v: cfg.lrc.tau_v.0,
            v0: cfg.initial_rate.bps(),
            pairs: Vec::new(),
            local: HashMap::new(),
            flows: HashMap::new(),
            tcp_like: cfg.tcp_like.clone(),
        })
    }

    fn plan(&self) -> &VmPlan {
        self.plan
            .get()
            .expect("the scheme set's prepare fills the plan before any flow starts")
    }

    /// The VM-flows this host sends, from the plan (once).
    fn init(&mut self) {
        if !self.local.is_empty() || self.plan.get().is_none() {
            return;
        }
        let plan = self.plan.clone();
        for (i, p) in plan.get().unwrap().pairs.iter().enumerate() {
            if p.host == self.host {
                self.local.insert(i as u32, self.pairs.len());
                self.pairs.push(PairState {
                    pair: i as u32,
                    v: self.v0,
                    next_free: 0,
                    next_probe: None,
                    live: Vec::new(),
                    congested: false,
                    cubic: None,
                });
            }
        }
    }

    /// The TCP-like baseline's update of every VM-flow whose period has ended (module doc).
    fn tcp_like_periods(&mut self, now: Time) {
        let plan = self.plan.clone();
        let plan = plan.get().unwrap();
        let t = &self.tcp_like;
        for s in &mut self.pairs {
            let Some(due) = s.next_probe else { continue };
            if due > now.0 {
                continue;
            }
            s.next_probe = Some(due + t.period.0);
            let Some((w, _)) = plan.current(s.pair) else {
                continue;
            };
            let line = plan.pairs[s.pair as usize].line_rate;
            if std::mem::take(&mut s.congested) {
                s.cubic = Some((s.v, 0.0));
                s.v *= 1.0 - t.decrease;
                continue;
            }
            let step = match &mut s.cubic {
                None => s.v, // slow start: double
                Some((r_max, periods)) => {
                    *periods += 1.0;
                    let (r_max_mbps, c) = (*r_max / 1e6, t.cubic_c);
                    let k = (r_max_mbps * t.decrease / c).cbrt();
                    let target = (r_max_mbps + c * (*periods - k).powi(3)) * 1e6;
                    (target - s.v).max(0.0)
                }
            };
            let caution = (1.0 - s.v / line).max(0.0);
            s.v = (s.v + step * (w / 2.0) * caution).max(1e3);
        }
    }

    /// The current rate limit of VM-flow `pair` (global index), bits/s, if this shim sends it
    /// and it is open: `max(B, v)` (Eq. 16), or `B` under static reservation.
    pub fn limit(&self, pair: u32) -> Option<f64> {
        let s = &self.pairs[*self.local.get(&pair)?];
        let (_, b) = self.plan().current(s.pair)?;
        Some(match self.control {
            RateControl::Reservation => b,
            _ => b.max(s.v),
        })
    }
}

impl HostShim for EbaShim {
    fn earliest_send(&mut self, flow: FlowId, _wire: u32, now: Time) -> Time {
        match self.flows.get(&flow.0) {
            Some(f) => Time(self.pairs[f.local].next_free.max(now.0)),
            None => now,
        }
    }

    fn on_egress(&mut self, pkt: &mut Packet, now: Time) {
        if pkt.kind != PacketKind::Data {
            return;
        }
        let Some(f) = self.flows.get_mut(&pkt.flow.0) else {
            return;
        };
        f.sent_end = f.sent_end.max(pkt.seq + pkt.payload as u64);
        let (local, done) = (f.local, f.sent_end >= f.size);
        if pkt.retransmit {
            self.pairs[local].congested = true;
        }
        let pair = self.pairs[local].pair;
        let limit = self.limit(pair).unwrap_or(0.0);
        let s = &mut self.pairs[local];
        let per_byte = if limit > 0.0 {
            8.0 / limit * Time::S as f64
        } else {
            0.0
        };
        // A token bucket of LIMITER_BURST: the pair may send as if it had started up to that
        // many bytes' time ago, so a packet the NIC delays behind another pair's does not cost
        // its pair that time for good.
        let depth = (LIMITER_BURST as f64 * per_byte) as u64;
        let start = s.next_free.max(now.0.saturating_sub(depth));
        s.next_free = start + (pkt.wire as f64 * per_byte).ceil() as u64;
        if done {
            s.live.retain(|&g| g != pkt.flow);
            if s.live.is_empty() {
                s.next_probe = None;
                self.plan.get().unwrap().close(pair);
            }
        }
    }

    fn on_ingress(&mut self, pkt: &mut Packet, _now: Time) {
        if pkt.kind == PacketKind::Ack && pkt.ece {
            if let Some(f) = self.flows.get(&pkt.flow.0) {
                self.pairs[f.local].congested = true;
            }
        }
    }

    fn on_flow_start(&mut self, flow: FlowId, spec: &FlowSpec, now: Time) {
        self.init();
        let pair = self.plan().pair_of[flow.idx()];
        let Some(&local) = self.local.get(&pair) else {
            return;
        };
        self.flows.insert(
            flow.0,
            FlowState {
                local,
                size: spec.size.0,
                sent_end: 0,
            },
        );
        let s = &mut self.pairs[local];
        s.live.push(flow);
        self.plan.get().unwrap().open(pair);
        if s.next_probe.is_none() {
            match self.control {
                // Algorithm 2 line 2: sleep τ_v, then send.
                RateControl::Lrc => s.next_probe = Some(now.0 + self.tau_v),
                RateControl::TcpLike => s.next_probe = Some(now.0 + self.tcp_like.period.0),
                _ => {}
            }
        }
    }

    fn next_timer(&self) -> Option<Time> {
        self.pairs
            .iter()
            .filter_map(|s| s.next_probe)
            .min()
            .map(Time)
    }

    fn on_timer(&mut self, now: Time, out: &mut Vec<ShimControl>) {
        if self.control == RateControl::TcpLike {
            self.tcp_like_periods(now);
            return;
        }
        for s in &mut self.pairs {
            let Some(due) = s.next_probe else { continue };
            if due > now.0 {
                continue;
            }
            let Some(&flow) = s.live.last() else { continue };
            let line_rate = self.plan.get().unwrap().pairs[s.pair as usize].line_rate;
            // Lines 3–4: identifier 0 (forward, the engine clears `reflected`), r = C_l.
            out.push(ShimControl {
                flow,
                word: encode_factor(line_rate),
                area: CtrlArea {
                    seq: s.pair as u64,
                    ..CtrlArea::default()
                },
            });
            s.next_probe = Some(due + self.tau_v);
        }
    }

    fn on_control(&mut self, pkt: &Packet, _area: &CtrlArea, _now: Time) {
        let Some(f) = self.flows.get(&pkt.flow.0) else {
            return;
        };
        let s = &mut self.pairs[f.local];
        // A VM-flow closed since the packet left keeps its v (it is not being controlled).
        let Some((w, _)) = self.plan.get().unwrap().current(s.pair) else {
            return;
        };
        // Line 7: Eq. (15)'s step on the smallest rate factor along the path.
        s.v = rate_step(s.v, w * decode_factor(pkt.word), self.a_tau);
    }
}
