//! Hosts: the hypervisor-shim extension point and the host's NIC scheduling state.
//!
//! A host has one NIC: the egress port of its one out-link. The NIC *pulls* data: whenever its
//! queue is empty and its serializer idle, it asks the host's active flows, round robin, for
//! the next packet a flow may send (its window allows it, its pacing time and its shim's
//! release time have come). ACKs do not wait for the pull: the receiver puts them straight into
//! the NIC queue. So a host never builds an unbounded local queue of data, and flows sharing a
//! NIC share it packet by packet.
//!
//! A flow that must wait (pacing, or its shim's release time) leaves the round robin and
//! *sleeps* until that time, or until its transport acts (an ACK, a timeout, a control packet),
//! then rejoins at the tail — deficit round robin's rule for a queue that becomes
//! backlogged. So a pull costs the flows that may send, not every flow of the host (on the
//! s-PERC WAN runs, 100 paced flows per host, scanning them all was 55% of the time).

use super::pkt::{CtrlArea, Packet};
use crate::ids::FlowId;
use crate::units::Time;
use crate::workload::FlowSpec;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A layer between a host's transports and its NIC (a hypervisor virtual switch).
///
/// Default: no shim (nothing is called). Used by: WVCC and AC/DC (rewrite the receive window
/// of ACKs on the way in or out, to impose a congestion window on an unmodified guest
/// transport); eBA (per-VM rate limiting via [`HostShim::earliest_send`], and its own control
/// packets via [`HostShim::on_timer`] and [`HostShim::on_control`]).
///
/// **Shim timer and shim control packets.** A shim may originate control packets, as a
/// congestion control does ([`super::cc::CongestionControl::make_control`]): the engine asks
/// [`HostShim::next_timer`] after installing the shim and after each call of
/// [`HostShim::on_flow_start`], [`HostShim::on_weight`], [`HostShim::on_timer`] and
/// [`HostShim::on_control`] (a timer that moves in any other hook is seen at the next of
/// those), and calls [`HostShim::on_timer`] once that time has come. Each [`ShimControl`] the
/// shim lists there is sent as a control packet of the engine's control size
/// ([`super::config::ControlConfig`]) from this host on `flow`'s data path, processed by the
/// port agents as any control packet, reflected by the receiver, and handed back to
/// [`HostShim::on_control`] (never to the flow's congestion control).
pub trait HostShim {
    /// A packet leaves this host (data from a sender, or an ACK from a receiver), just before
    /// it enters the NIC queue.
    fn on_egress(&mut self, _pkt: &mut Packet, _now: Time) {}
    /// A packet arrived at this host, before the transport sees it.
    fn on_ingress(&mut self, _pkt: &mut Packet, _now: Time) {}
    /// The earliest time `flow` may send its next data packet of `wire` bytes (a rate limiter
    /// returns a future time; the host tries again then, or earlier when the flow's transport
    /// acts: a shim whose release times can move earlier on its own must not rely on being
    /// asked in between). Default: now.
    fn earliest_send(&mut self, _flow: FlowId, _wire: u32, now: Time) -> Time {
        now
    }
    /// A flow sent from this host starts, with its spec (endpoints, size, weight, tag) as the
    /// engine holds it then. Default: nothing.
    fn on_flow_start(&mut self, _flow: FlowId, _spec: &FlowSpec, _now: Time) {}
    /// The weight of a flow sent from this host changed ([`super::PacketSim::set_weight`]).
    /// Default: nothing.
    fn on_weight(&mut self, _flow: FlowId, _weight: f64) {}
    /// When this shim next wants [`HostShim::on_timer`] called (`None`: not now). Default:
    /// never, so a shim without a timer costs no event.
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// The time [`HostShim::next_timer`] asked for has come: the shim pushes onto `out` the
    /// control packets to send now. Default: nothing.
    fn on_timer(&mut self, _now: Time, _out: &mut Vec<ShimControl>) {}
    /// A control packet this shim sent came back, reflected by the receiver, with its control
    /// area as the port agents left it. Default: nothing.
    fn on_control(&mut self, _pkt: &Packet, _area: &CtrlArea, _now: Time) {}
}

/// A control packet a host shim asks to send ([`HostShim::on_timer`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShimControl {
    /// The flow whose data path it takes: a flow sent from this host that has started and not
    /// finished (others are skipped: they have no path to take).
    pub flow: FlowId,
    /// Its header word ([`Packet::word`]), which port agents may rewrite on the way.
    pub word: u32,
    /// Its control area; the engine sets `shim`, clears `reflected` and keeps the rest.
    pub area: CtrlArea,
}

/// One host (engine-internal).
pub(crate) struct Host {
    /// Its NIC: the port of its one out-link (`u32::MAX` for a host without links).
    pub nic: u32,
    /// Flows that may have something to send, round robin.
    pub active: VecDeque<u32>,
    /// Flows out of the round robin until a time (their pacing or shim release time), by that
    /// time. An entry is stale when the flow was woken early (its `sleep_until` differs).
    pub sleeping: BinaryHeap<Reverse<(u64, u32)>>,
    /// Time of the pending `HostWake` event (`u64::MAX`: none).
    pub wake_at: u64,
    pub shim: Option<Box<dyn HostShim>>,
    /// Time of the pending `ShimTimer` event (`u64::MAX`: none).
    pub shim_timer_at: u64,
    /// [`super::config::HostNic::Queue`]: data packets handed over by the flows, waiting for
    /// the NIC (FIFO), and their wire bytes.
    pub fifo: VecDeque<super::pkt::PacketId>,
    pub fifo_bytes: u64,
    /// [`super::config::HostNic::Weighted`]: the start tag of the last packet sent (the
    /// scheduler's virtual time, wire bytes per unit weight).
    pub vtime: f64,
    /// [`super::config::HostNic::Weighted`]: the ready flows in the order the NIC serves them
    /// (takes the place of `active`).
    pub sfq: SfqOrder,
    /// [`super::config::HostNic::Weighted`]: listed flows whose transport acted since the last
    /// pull (asked again at the next one).
    pub sfq_recheck: Vec<u32>,
    /// [`super::config::HostNic::Weighted`]: the host's flows that started (finished ones are
    /// dropped lazily, when the list is read or about to grow), for the NIC shares
    /// ([`weighted_share`]).
    pub senders: Vec<u32>,
}

/// The weighted max-min share of a link of `capacity` for a flow of weight `weight` that would
/// take all it is given, beside flows that want `others` = `(demand, weight)` (demand in the
/// unit of `capacity`): `weight · λ`, where the level `λ` fills the link,
/// `Σ min(dⱼ, wⱼ·λ) + weight·λ = capacity` (water-filling: a flow whose demand per weight is
/// below the level keeps its demand, the rest share what is left by weight). At most
/// `capacity`; `others` is reordered (by demand per weight).
pub(crate) fn weighted_share(capacity: f64, weight: f64, others: &mut [(f64, f64)]) -> f64 {
    others.sort_unstable_by(|a, b| (a.0 / a.1).total_cmp(&(b.0 / b.1)));
    let mut left = capacity;
    let mut wsum = weight + others.iter().map(|o| o.1).sum::<f64>();
    for &(d, w) in others.iter() {
        // Satisfied at the level the rest would reach: keeps its demand.
        if d / w * wsum > left {
            break;
        }
        left -= d;
        wsum -= w;
    }
    (weight * left.max(0.0) / wsum).min(capacity)
}

/// The flows a weighted NIC may serve, in start-time fair queueing order (Goyal, Vin & Cheng,
/// SIGCOMM 1996): smallest start tag `max(finish tag, virtual time)` first, ties to the flow
/// that joined the NIC's list first (its `seq`). O(log n) a packet where a scan of the host's
/// flows was O(n): with ~100 ready flows a host (Söze Fig. 19, 100k flows on k = 16) the scan
/// was 63% of the run.
///
/// Every flow whose finish tag is at or below the virtual time starts at the virtual time, so
/// those are kept apart (`level`, by `seq` alone) from the rest (`above`, by tag, then `seq`);
/// the virtual time only grows, so flows only move from `above` to `level`.
#[derive(Default)]
pub(crate) struct SfqOrder {
    next_seq: u64,
    /// `(finish tag bits, seq, flow)` of flows whose tag is above the virtual time (tags are
    /// non-negative, so their bit patterns sort as the numbers do).
    above: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// `(seq, flow)` of flows whose tag is at or below the virtual time.
    level: BinaryHeap<Reverse<(u64, u32)>>,
    /// The flow served last, with its `seq`: it keeps its place in the list, but whether it may
    /// send again is known only at the next pull (its pacing time moved when it sent).
    pub served: Option<(u32, u64)>,
}

impl SfqOrder {
    /// A flow joins the list's tail (it became ready, or woke up); returns its place.
    pub fn push(&mut self, flow: u32, tag: f64, vtime: f64) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.insert(flow, seq, tag, vtime);
        seq
    }

    /// A flow back at its old place `seq` (the one served last, still ready).
    pub fn insert(&mut self, flow: u32, seq: u64, tag: f64, vtime: f64) {
        debug_assert!(tag >= 0.0, "SFQ tags are non-negative");
        if tag <= vtime {
            self.level.push(Reverse((seq, flow)));
        } else {
            self.above.push(Reverse((tag.to_bits(), seq, flow)));
        }
    }

    /// Takes the flow to serve at virtual time `vtime`: `(flow, seq, start tag)`. Entries of
    /// flows that left the list are not removed; the caller skips them (their `seq` is no
    /// longer the flow's).
    pub fn pop(&mut self, vtime: f64) -> Option<(u32, u64, f64)> {
        while let Some(&Reverse((tag, seq, flow))) = self.above.peek() {
            if f64::from_bits(tag) > vtime {
                break;
            }
            self.above.pop();
            self.level.push(Reverse((seq, flow)));
        }
        if let Some(Reverse((seq, flow))) = self.level.pop() {
            return Some((flow, seq, vtime));
        }
        let Reverse((tag, seq, flow)) = self.above.pop()?;
        Some((flow, seq, f64::from_bits(tag)))
    }
}

#[cfg(test)]
mod tests {
    use super::{weighted_share, SfqOrder};

    #[test]
    fn weighted_share_water_fills_the_others_demands() {
        // A 100 Gb/s NIC, the asking flow of weight 1 unlimited. Beside one flow of weight 3
        // wanting the line rate: the level is 100/4 = 25 per weight, the asker gets 25.
        assert_eq!(weighted_share(100.0, 1.0, &mut [(100.0, 3.0)]), 25.0);
        // Beside a weight-3 flow wanting only 30 (10 per weight, below 25): it keeps 30, the
        // asker gets the other 70.
        assert_eq!(weighted_share(100.0, 1.0, &mut [(30.0, 3.0)]), 70.0);
        // Weight 2 beside (10, w 1), (90, w 1), (60, w 2), total weight 6: the first wants 10
        // per weight, below the level 100/6 = 16.7, and keeps 10; the other 90 go to weights
        // 5 at 18 per weight, below what (60, w 2) and (90, w 1) want (30 and 90 per
        // weight): the asker gets 2 · 18 = 36 (10 + 36 + 36 + 18 = 100). Order of the
        // others does not matter.
        let mut others = [(90.0, 1.0), (60.0, 2.0), (10.0, 1.0)];
        assert_eq!(weighted_share(100.0, 2.0, &mut others), 36.0);
        // Alone, or beside flows that want nothing: the whole line; weights below 1 as well.
        assert_eq!(weighted_share(100.0, 0.5, &mut []), 100.0);
        assert_eq!(weighted_share(100.0, 0.5, &mut [(0.0, 4.0)]), 100.0);
        // Weight 0.5 beside weight 0.25 at the line rate: 2/3 of the line.
        let s = weighted_share(100.0, 0.5, &mut [(100.0, 0.25)]);
        assert!((s - 200.0 / 3.0).abs() < 1e-9, "{s}");
    }

    #[test]
    fn sfq_serves_the_smallest_start_tag_and_ties_in_list_order() {
        let mut q = SfqOrder::default();
        // Virtual time 10: flows 7 and 3 have finish tags below it (both start at 10, list
        // order decides: 7 joined first); flows 5 and 9 start at their tags 12 and 11.
        assert_eq!(q.push(7, 4.0, 10.0), 0);
        assert_eq!(q.push(5, 12.0, 10.0), 1);
        assert_eq!(q.push(3, 1.0, 10.0), 2);
        assert_eq!(q.push(9, 11.0, 10.0), 3);
        assert_eq!(q.pop(10.0), Some((7, 0, 10.0)));
        assert_eq!(q.pop(10.0), Some((3, 2, 10.0)));
        // The virtual time passed 11 and 12: both now start at it, and 5 joined before 9.
        assert_eq!(q.pop(12.5), Some((5, 1, 12.5)));
        // A flow served keeps its place: back with its old seq 0 and a tag above 12.5.
        q.insert(7, 0, 13.0, 12.5);
        assert_eq!(q.pop(12.5), Some((9, 3, 12.5)));
        assert_eq!(q.pop(12.5), Some((7, 0, 13.0)));
        assert_eq!(q.pop(12.5), None);
    }
}
