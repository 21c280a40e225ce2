//! The sender-side congestion-control extension point.
//!
//! The reliable sender ([`super::tcp::TcpSender`]) owns sequence numbers, loss detection and
//! retransmission; a [`CongestionControl`] owns the *window* and the *pacing rate*, and the host
//! engine enforces both: a flow sends a packet only while its bytes in flight stay within
//! `cwnd()` (plus the fast-recovery inflation of RFC 6582), and no sooner than one packet time
//! at `pacing_rate()` after its previous packet.

use super::pkt::{CtrlArea, IntHop, Packet};
use crate::units::{Bytes, Rate, Time};

/// What a congestion control may know about its flow when it is built (the engine computes it
/// from the topology and the flow's cached path).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcContext {
    /// Payload bytes per full packet.
    pub mss: u64,
    /// Header bytes per packet.
    pub header: u64,
    /// Line rate of the sender's NIC.
    pub nic_rate: Rate,
    /// Base RTT of the flow's paths: propagation both ways, one full data packet serialized
    /// at every data-path hop and one bare ACK at every ACK-path hop, no queueing.
    pub base_rtt: Time,
    /// The flow's weight at start.
    pub weight: f64,
}

impl CcContext {
    /// Wire size of a full data packet.
    pub fn mss_wire(&self) -> Bytes {
        Bytes(self.mss + self.header)
    }
}

/// What the sender learned from one ACK.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckInfo<'a> {
    /// Arrival time of the ACK.
    pub now: Time,
    /// Bytes newly acknowledged cumulatively (0 for a duplicate ACK).
    pub acked: u64,
    /// The cumulative acknowledgement (next byte the receiver expects).
    pub cum_ack: u64,
    /// The sender's next new sequence number (highest byte sent + 1) when the ACK arrived.
    pub snd_nxt: u64,
    /// Bytes in flight after this ACK.
    pub in_flight: u64,
    /// ECN echo: the acknowledged packet arrived marked CE.
    pub ece: bool,
    /// Echo of the data packet's largest per-hop queueing delay (the compact INT value).
    pub max_qdelay: Time,
    /// Echo of the data packet's per-hop INT records (empty unless ports stamp them).
    pub int: &'a [IntHop],
    /// RTT sample from the echoed timestamp, if this ACK acknowledged new data.
    pub rtt: Option<Time>,
    /// The sender is in fast recovery (window growth is suspended, RFC 5681 §3.2).
    pub in_recovery: bool,
    /// Echo of the data packet's scheme-defined header word ([`Packet::word`]; e.g. the
    /// explicit rate routers stamped).
    pub word: u32,
}

/// Sender-side congestion control: reacts to ACKs (ECN echo, INT echo, RTT sample), losses,
/// timeouts, control packets and weight changes; exposes a congestion window and/or a pacing
/// rate.
///
/// Implemented by the baselines in `crate::schemes` and the papers' senders in
/// `crate::systems`; the engine knows none of them by name. Weighted schemes take the flow's
/// weight at start and through [`CongestionControl::on_weight`].
pub trait CongestionControl {
    /// An ACK arrived (new or duplicate).
    fn on_ack(&mut self, ack: &AckInfo<'_>);
    /// Fast retransmit fired (third duplicate ACK): reduce the window (RFC 5681 §3.2 step 2).
    fn on_loss(&mut self, now: Time, in_flight: u64);
    /// The retransmission timer expired (RFC 5681 §3.1: loss window of one segment).
    fn on_timeout(&mut self, now: Time, in_flight: u64);
    /// The flow's weight changed at run time.
    fn on_weight(&mut self, _weight: f64) {}
    /// Whether the sender wants [`CongestionControl::on_nic_share`] (the engine computes the
    /// share only for senders that do). Default false.
    fn wants_nic_share(&self) -> bool {
        false
    }
    /// What the host's weighted NIC ([`super::config::HostNic::Weighted`]) can give this flow
    /// now: its weighted max-min share of the NIC's line rate were it to send without limit,
    /// beside the other flows of its host at their current demands (pacing rate, or line rate
    /// unpaced; none while they may not send). Called before every ACK is handed to
    /// [`CongestionControl::on_ack`], with the weighted NIC only, when
    /// [`CongestionControl::wants_nic_share`]. Default: ignored.
    fn on_nic_share(&mut self, _share: Rate) {}
    /// When the sender wants to send its next control packet (`None`: none now). The engine
    /// asks after every event of the flow (start, ACK, control packet, control timer) and
    /// calls [`CongestionControl::make_control`] at that time. Default: never.
    fn control_at(&self) -> Option<Time> {
        None
    }
    /// Writes the control packet to send now into `area` (the engine makes a packet of
    /// `control.size` bytes, kind [`super::pkt::PacketKind::Control`], on the flow's data path);
    /// returns false to send nothing. `unsent` is the flow's payload bytes not sent yet (size
    /// less the next new sequence number).
    fn make_control(&mut self, _now: Time, _unsent: u64, _area: &mut CtrlArea) -> bool {
        false
    }
    /// The flow ended (all data acknowledged, or stopped with
    /// [`super::PacketSim::stop_flow`]): writes a last control packet (a FIN) into `area`;
    /// returns false to send none. Default: none.
    fn make_fin(&mut self, _now: Time, _area: &mut CtrlArea) -> bool {
        false
    }
    /// One of this flow's control packets came back to the sender (the receiver reflected it).
    fn on_control(&mut self, _pkt: &Packet, _area: &CtrlArea, _now: Time) {}
    /// Whether data may be sent now (an explicit-rate scheme says false until it knows its
    /// first rate). Default true.
    fn may_send(&self) -> bool {
        true
    }
    /// Congestion window in bytes (`u64::MAX`: unlimited, e.g. a purely rate-based scheme).
    fn cwnd(&self) -> u64;
    /// Pacing rate, or `None` to send as fast as the window and the NIC allow.
    fn pacing_rate(&self) -> Option<Rate> {
        None
    }
    /// Whether a rise of [`CongestionControl::pacing_rate`] on an ACK pulls the pending
    /// release time of the next segment in: to one packet time at the new rate after the last
    /// segment left, when that is sooner than the release set at the old rate as it left (a
    /// NIC that re-times a paced queue pair's next send at every rate change, as HPCC's ns-3
    /// does). Default false: the release time set when the packet left stands until then,
    /// however far a low rate put it.
    fn release_follows_rate_rise(&self) -> bool {
        false
    }
    /// Whether a fall of [`CongestionControl::pacing_rate`] on an ACK pushes the release time
    /// of the next segment out: to one packet time at the new rate after the last segment
    /// left, when that is later than the release set at the old rate (pending or come). With
    /// [`CongestionControl::release_follows_rate_rise`] too, the release follows every rate
    /// change both ways, as HPCC's ns-3 NIC re-times a paced queue pair's next send. Default
    /// false.
    fn release_follows_rate_fall(&self) -> bool {
        false
    }
    /// The scheme-defined header word ([`Packet::word`]) of a data packet sent now, given the
    /// flow's `remaining` bytes (its size less the cumulative ACK); ports may rewrite it and
    /// the receiver echoes it ([`AckInfo::word`]). Default 0.
    fn header_word(&self, _remaining: u64) -> u32 {
        0
    }
    /// Whether data packets are sent ECN-capable (ECT).
    fn ecn_capable(&self) -> bool {
        false
    }
    /// The priority class of the flow's packets (data and ACKs; 0 = highest), overriding the
    /// workload's [`crate::workload::FlowSpec::priority`] (`None`: keep it). Asked once, when
    /// the flow is built; it takes effect with a multi-queue qdisc that classifies by priority
    /// (e.g. a scheme that puts short flows above the rest). Default `None`.
    fn priority(&self) -> Option<u8> {
        None
    }
}
