//! What a run reports: per-flow and per-link records, conservation counters, event counts.

use crate::ids::{FlowId, LinkId, NodeId};
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

/// One flow's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FlowRecord {
    /// Index in the flow list.
    pub flow: FlowId,
    /// Sending host.
    pub src: NodeId,
    /// Receiving host.
    pub dst: NodeId,
    /// Bytes to deliver.
    pub size: Bytes,
    /// Start time.
    pub start: Time,
    /// Time the receiver held every byte (`None`: not yet).
    pub end: Option<Time>,
    /// Flow completion time, `end - start`.
    pub fct: Option<Time>,
    /// Time the sender held the ACK of the last byte (`None`: not yet, or no ACKs: UDP) —
    /// the HPCC ns-3 simulator's end of a flow (`QpComplete`).
    pub acked: Option<Time>,
    /// Bytes delivered to the receiver in order so far (UDP: bytes received).
    pub delivered: u64,
    /// Payload bytes the sender sent more than once.
    pub bytes_retransmitted: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits.
    pub fast_retransmits: u64,
    /// The flow spec's tag.
    pub tag: u32,
}

/// A PFC frame as it took effect at the upstream end of `link` (the pause time series; the
/// HPCC ns-3 simulator's `pfc.txt` lists the same events).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PfcFrame {
    /// Arrival time at the paused (or resumed) port.
    pub time: Time,
    /// The link whose sending end is paused or resumed.
    pub link: LinkId,
    /// The priority.
    pub priority: u8,
    /// Pause (true) or resume.
    pub pause: bool,
}

/// One directed link's counters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LinkRecord {
    /// The link.
    pub link: LinkId,
    /// Packets transmitted.
    pub tx_packets: u64,
    /// Wire bytes transmitted.
    pub tx_bytes: u64,
    /// Packets dropped by the queue.
    pub drops: u64,
    /// Wire bytes dropped by the queue.
    pub drop_bytes: u64,
    /// Packets marked CE by the queue.
    pub marks: u64,
    /// Wire bytes of control packets transmitted (also in `tx_bytes`).
    #[serde(default)]
    pub ctrl_tx_bytes: u64,
    /// Control packets dropped because the port's control FIFO was full or, with
    /// `control.loss`, lost at random (also in `drops`).
    #[serde(default)]
    pub ctrl_drops: u64,
    /// Largest queue length seen, in bytes.
    pub max_queue_bytes: u64,
    /// Queue length now, in bytes.
    pub queue_bytes: u64,
    /// Integral of the queue length over time up to the end of the run, in byte·picoseconds;
    /// the difference of two snapshots divided by the time between them is the mean queue.
    pub queue_integral: u128,
    /// PFC: pause frames the link's far end sent for it (as an ingress port).
    #[serde(default)]
    pub pfc_pauses_sent: u64,
    /// PFC: pause frames that reached the link's sending port.
    #[serde(default)]
    pub pfc_pauses_received: u64,
    /// PFC: time the sending port had some priority paused, up to the end of the run.
    #[serde(default)]
    pub pfc_paused_time: Time,
}

/// Wire bytes of every packet injected by a host, by fate. A run fails unless
/// `sent == delivered + dropped + in_flight`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Conservation {
    /// Injected by hosts (data, ACKs, control).
    pub sent: u64,
    /// Arrived at their destination host.
    pub delivered: u64,
    /// Dropped by a queue.
    pub dropped: u64,
    /// Alive in the network now (queued, serializing, propagating), counted from the packet
    /// pool independently of the other three.
    pub in_flight: u64,
}

impl Conservation {
    /// Whether `sent == delivered + dropped + in_flight`.
    pub fn holds(&self) -> bool {
        self.sent as u128 == self.delivered as u128 + self.dropped as u128 + self.in_flight as u128
    }
}

/// The outcome of a (partial or complete) run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PacketResults {
    /// Simulated time reached.
    pub now: Time,
    /// Whether every flow finished (TCP: all bytes acknowledged; UDP: all bytes received).
    pub complete: bool,
    /// Flows finished.
    pub finished_flows: usize,
    /// Per flow, in flow-list order.
    pub flows: Vec<FlowRecord>,
    /// Per directed link, in link-id order.
    pub links: Vec<LinkRecord>,
    /// The byte conservation counters.
    pub conservation: Conservation,
    /// Events processed.
    pub events: u64,
    /// Data packets transmitted summed over links (data packet-hops).
    pub data_packet_hops: u64,
    /// Packets transmitted summed over links (data, ACK and control packet-hops).
    pub packet_hops: u64,
    /// Peak number of packets alive at once (the pool's size).
    pub peak_packets: usize,
    /// Events still pending.
    pub pending_events: usize,
    /// PFC frames as they took effect, in time order (empty unless lossless).
    #[serde(default)]
    pub pfc_frames: Vec<PfcFrame>,
}

/// One sample of a flow ([`super::config::RecordConfig`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FlowSample {
    /// Sample time (the end of the interval).
    pub time: Time,
    /// The flow.
    pub flow: FlowId,
    /// Wire bits per second of the flow's data packets that reached its receiver during the
    /// interval.
    pub throughput: f64,
    /// The congestion control's sending rate in bits per second: the pacing rate, else
    /// `cwnd · 8 / srtt` (`None` before the first RTT sample of a window-based flow).
    pub send_rate: Option<f64>,
}

/// One sample of a port's queue ([`super::config::RecordConfig`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QueueSample {
    /// Sample time.
    pub time: Time,
    /// The link whose egress port it is.
    pub link: LinkId,
    /// Bytes queued (wire bytes, excluding the packet being serialized).
    pub bytes: u64,
    /// The same queue as a delay at the link's line rate.
    pub delay: Time,
}

/// One sample of one of a port's queueing-discipline gauges ([`super::Qdisc::gauges`]),
/// taken with the run's other records ([`super::config::RecordConfig`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct QdiscGaugeSample {
    /// Sample time.
    pub time: Time,
    /// The link whose egress port it is.
    pub link: LinkId,
    /// The gauge's name, as the discipline gives it.
    pub name: &'static str,
    /// Its value.
    pub value: f64,
}
