//! The simulator: builds ports, hosts and flows from a topology and a flow list, runs events,
//! and reports records.
//!
//! Packet lifecycle:
//! 1. A host's NIC port idles with an empty queue → the host pulls one data packet from its
//!    active flows (round robin) → the packet is allocated from the pool, stamped with the
//!    send time, passed through the host shim, counted as *sent*, and enqueued at the NIC.
//! 2. At every port: the qdisc accepts (maybe marking CE) or drops it (counted per link and as
//!    *dropped*, slot freed). When the serializer is free the packet is dequeued: its queueing
//!    delay there updates `max_qdelay` (compare and keep), the port agent runs, and the packet
//!    arrives at the link's far end after `tx_time + delay`. It waits in the link's wire FIFO;
//!    each link has at most one pending `Arrive` event, for the head of its FIFO.
//! 3. At a switch the next link comes from the flow's cached path (per-flow ECMP, host-pair
//!    or first-path routing: computed once per flow with [`Routing::path`]) or, when spraying,
//!    from [`Routing::next_hop`] with the packet's key. ACKs and reflected control packets take
//!    the flow's reverse route: hashed on its own under ECMP, or, with
//!    [`EngineConfig::two_way_control`], the data path reversed link by link; then a reflected
//!    control packet arriving at a node over link `r` is first handed to
//!    [`PortAgent::on_reverse`] of `r`'s reverse link (s-PERC §2 assumption 6).
//! 4. At the destination host it is counted as *delivered*. A data packet's slot is reused for
//!    its ACK (cumulative ACK, ECE = arrived CE, echoed timestamp, `max_qdelay` and INT
//!    records), which the receiver enqueues at its NIC at once; an ACK updates its sender and
//!    is freed.

//!
//! The files, by responsibility: `build` (construction), `run` (the event loop), `nic` (the
//! host NIC and data packets), `ports` (forwarding, admission, service, arrival),
//! `transport` (delivery, receivers, ACKs, the senders' timers), `control` (control
//! packets), `pfc` (lossless switches, pause frames, deadlocks), `report` (samples,
//! invariants, results); this file holds the state and the public controls.

mod build;
mod control;
mod nic;
mod pfc;
mod ports;
mod report;
mod run;
mod transport;

use super::cc::{CcContext, CongestionControl};
use super::config::{
    EngineConfig, HostNic, QdelaySignal, QueueRecord, RoutingMode, FLOWCELL_BYTES, FLOWCELL_HOLD,
};
use super::event::{Event, EventQueue};
#[cfg(test)]
use super::host::weighted_share;
use super::host::{Host, HostLevels, HostShim, NicLevels, SfqOrder, ShimControl, NIL_LEVEL};
use super::pkt::{
    CtrlArea, Ecn, Packet, PacketId, PacketKind, PacketPool, MAX_SACK_BLOCKS, NO_PACKET, NO_ROUTE,
};
use super::port::{CtrlQueue, Port, PortAgent, PortStats, QdelayLpf};
use super::qdisc::{Enqueued, Qdisc, QdiscParams};
use super::records::{
    Conservation, FlowRecord, FlowSample, LinkRecord, PacketResults, QdiscGaugeSample, QueueSample,
};
use super::scheme::{FlowPaths, PortInfo, SchemeSet, Transport};
use super::tcp::{SendState, TcpParams, TcpReceiver, TcpSender};
use super::udp::UdpSender;
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::ids::{FlowId, LinkId, NodeId};
use crate::topo::{PathSelector, Routing, Topology};
use crate::units::{Bytes, Rate, Time};
use crate::workload::FlowSpec;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

const NO_HOST: u32 = u32::MAX;

/// Key offset that makes a flow's ACK path hash independently of its data path.
const ACK_KEY: u64 = 1 << 63;

/// No link (an entry of `PacketSim::rev_link`).
const NO_LINK: u32 = u32::MAX;

enum Sender<C> {
    Tcp(Box<TcpSender<C>>),
    Udp(UdpSender),
}

enum Receiver {
    Tcp(TcpReceiver),
    Udp { received: u64 },
}

struct FlowState<C> {
    spec: FlowSpec,
    host: u32,
    sender: Sender<C>,
    receiver: Receiver,
    route_data: u32,
    route_ack: u32,
    started: bool,
    /// On its host's round robin or sleeping ([`Host::sleeping`]).
    active: bool,
    /// Sleeping until this time (`u64::MAX`: not sleeping).
    sleep_until: u64,
    finished: bool,
    end: Option<Time>,
    /// When the sender held the ACK of its last byte (reliable transports).
    acked: Option<Time>,
    rto_event_at: u64,
    /// Time of the pending `Control` event (`u64::MAX`: none).
    ctrl_event_at: u64,
    delack: DelAck,
    /// Wire bytes of this flow's data packets delivered to its receiver (for the samples).
    rx_wire: u64,
    /// `rx_wire` at the previous sample.
    rx_wire_sampled: u64,
    /// [`HostNic::Weighted`]: the flow's start-time fair queueing finish tag (wire bytes per
    /// unit weight) at its host's NIC.
    nic_tag: f64,
    /// [`HostNic::Weighted`]: the flow's place in its host's list ([`SfqOrder`]'s `seq`);
    /// `u64::MAX` while it is not on the list (its old entries are then stale).
    nic_seq: u64,
    /// [`RoutingMode::Flowcell`]: data packets of a later flowcell than the receiver's next
    /// expected byte, held back from the receiver (by sequence number), and when they are
    /// handed over regardless (`u64::MAX`: none held).
    cell_held: Vec<PacketId>,
    cell_hold_until: u64,
}

/// The time series of [`super::config::RecordConfig`], filled between events.
#[derive(Default)]
struct Recorder {
    interval: u64,
    flows: bool,
    queues: QueueRecord,
    flow_samples: Vec<FlowSample>,
    queue_samples: Vec<QueueSample>,
    gauge_samples: Vec<QdiscGaugeSample>,
    /// One port's gauges while they are copied into `gauge_samples`.
    gauge_scratch: Vec<(&'static str, f64)>,
}

/// A receiver's delayed-ACK state (used only with [`super::config::TcpConfig::delayed_ack`]).
#[derive(Clone, Copy, Debug)]
struct DelAck {
    /// In-order segments received and not yet acknowledged (0 or 1).
    pending: u32,
    /// CE state of the pending segments (DCTCP's two-state machine).
    ce: bool,
    /// Timestamp of the earliest pending segment: RFC 7323 §4.3 echoes the earliest
    /// unacknowledged segment's timestamp, so delaying the ACK shows in the RTT sample.
    ts: Time,
    /// `max_qdelay` of the pending segment, echoed.
    qdelay: Time,
    /// Header word of the pending segment, echoed.
    word: u32,
    /// When the pending segment must be acknowledged.
    deadline: u64,
    /// Time of the pending `DelAck` event (`u64::MAX`: none).
    event_at: u64,
}

impl Default for DelAck {
    fn default() -> DelAck {
        DelAck {
            pending: 0,
            ce: false,
            ts: Time::ZERO,
            qdelay: Time::ZERO,
            word: 0,
            deadline: u64::MAX,
            event_at: u64::MAX,
        }
    }
}

#[derive(Default)]
struct Counters {
    sent: u64,
    delivered: u64,
    dropped: u64,
    buffer_violations: u64,
    /// Enqueues that left a switch's shared memory above its size.
    shared_violations: u64,
    unroutable: u64,
    packet_hops: u64,
    data_hops: u64,
}

/// Arms one of a flow's lazily cancelled timers: schedules `ev` at `at` unless an event of
/// that timer is already pending no later (`pending` holds its time, `u64::MAX` when none).
/// An event that finds `pending` moved on was superseded and does nothing.
#[inline]
fn arm_timer(events: &mut EventQueue, pending: &mut u64, at: u64, ev: Event) {
    if at < *pending {
        *pending = at;
        events.push(Time(at), ev);
    }
}

/// The queueing delay a hop reports for `pkt` leaving `port` now ([`QdelaySignal`]): its
/// sojourn since it was queued, or the time the `backlog` bytes left behind take at the
/// port's rate.
#[inline]
fn hop_qdelay<Q: Qdisc, A>(
    signal: QdelaySignal,
    now: u64,
    pkt: &Packet,
    port: &Port<Q, A>,
    backlog: u64,
) -> u64 {
    match signal {
        QdelaySignal::Sojourn => now - pkt.at.0,
        QdelaySignal::Backlog => port.tx_time_of(backlog),
    }
}

/// Counts packet `id` as dropped at a port (`stats`) and frees it.
#[inline]
fn drop_packet(stats: &mut PortStats, c: &mut Counters, pool: &mut PacketPool, id: PacketId) {
    let wire = pool.get(id).wire as u64;
    stats.drops += 1;
    stats.drop_bytes += wire;
    c.dropped += wire;
    pool.release(id);
}

/// A switch's shared packet memory ([`super::config::SharedBufferConfig`]): the bytes queued at
/// all its egress ports, and the most ever queued.
#[derive(Clone, Copy, Debug, Default)]
struct SwitchMemory {
    used: u64,
    peak: u64,
}

/// Mixed into the run's seed for the control-loss generator, so that its draws are not those
/// of another generator seeded with the same number.
const CTRL_LOSS_SALT: u64 = 0x6C6F_7373_6374_726C; // "lossctrl"

/// A packet-level simulation of one topology and flow list, running the schemes of `S`.
pub struct PacketSim<S: SchemeSet> {
    cfg: EngineConfig,
    schemes: S,
    mss: u64,
    header: u64,
    routing: Routing,
    ports: Vec<Port<S::Qdisc, S::Agent>>,
    host_of_node: Vec<u32>,
    hosts: Vec<Host>,
    flows: Vec<FlowState<S::Cc>>,
    /// Cached paths (link indices), addressed by `FlowState::route_*`.
    paths: Vec<u32>,
    pool: PacketPool,
    events: EventQueue,
    c: Counters,
    /// Per node, its shared memory (empty without `shared_buffer`; unused for hosts).
    switch_mem: Vec<SwitchMemory>,
    finished: usize,
    spray_ctr: u64,
    /// [`HostNic::Weighted`]: the hosts' NIC water levels, for the shares the engine tells
    /// congestion controls that want them (empty until the first asks).
    levels: NicLevels,
    /// Time of the next sample (`u64::MAX` when nothing is recorded): the run loops compare
    /// each event's time with it, the only cost of recording on the event path.
    next_sample: u64,
    rec: Recorder,
    /// Scheduled weight changes, addressed by `Event::Weight`.
    weight_changes: Vec<(u32, f64)>,
    /// With [`EngineConfig::two_way_control`]: each link's reverse-direction link (`NO_LINK`:
    /// none); empty otherwise.
    rev_link: Vec<u32>,
    /// Scratch list for [`HostShim::on_timer`] (kept to reuse its allocation).
    shim_out: Vec<ShimControl>,
    /// Lossless switches and PFC ([`super::config::EngineConfig::pfc`]).
    pfc: Option<Box<pfc::Pfc>>,
    /// The run stopped for good (a PFC deadlock): the run loops return.
    halted: bool,
    /// Draws the control packets a lossy network drops
    /// ([`super::config::ControlConfig::loss`]); seeded by the run's seed, drawn from only
    /// when the loss is positive.
    ctrl_loss_rng: ChaCha8Rng,
}

impl<S: SchemeSet> PacketSim<S> {
    /// The scheme set (what it derived in [`SchemeSet::prepare`], e.g. a shared range).
    pub fn schemes(&self) -> &S {
        &self.schemes
    }

    /// The engine configuration.
    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.events.now()
    }

    fn check_link(&self, link: LinkId) -> Result<usize> {
        let i = link.idx();
        if i >= self.ports.len() {
            return Err(Error::invalid(
                format!("{link}"),
                format!("unknown link (the topology has {} links)", self.ports.len()),
            ));
        }
        Ok(i)
    }

    fn check_flow(&self, flow: FlowId) -> Result<usize> {
        let i = flow.idx();
        if i >= self.flows.len() {
            return Err(Error::invalid(
                format!("{flow}"),
                format!("unknown flow (there are {} flows)", self.flows.len()),
            ));
        }
        Ok(i)
    }

    /// Replaces the queueing discipline of `link`'s port (only while its queue is empty).
    pub fn set_qdisc(&mut self, link: LinkId, qdisc: Box<dyn Qdisc>) -> Result<()> {
        let i = self.check_link(link)?;
        if self.ports[i].waiting() > 0 {
            return Err(Error::invalid(
                format!("{link}"),
                "cannot replace the qdisc of a non-empty queue",
            ));
        }
        self.ports[i].qdisc = S::Qdisc::from(qdisc);
        Ok(())
    }

    /// Installs a port agent at `link`'s port, replacing any other.
    pub fn set_port_agent(&mut self, link: LinkId, agent: Box<dyn PortAgent>) -> Result<()> {
        let i = self.check_link(link)?;
        self.ports[i].agent = Some(Box::new(S::Agent::from(agent)));
        Ok(())
    }

    /// Installs a shim at host `node`, replacing any other.
    pub fn set_host_shim(&mut self, node: NodeId, shim: Box<dyn HostShim>) -> Result<()> {
        let h = match self.host_of_node.get(node.idx()) {
            Some(&h) if h != NO_HOST => h,
            _ => {
                return Err(Error::invalid(
                    format!("{node}"),
                    "not a host of the topology",
                ))
            }
        };
        self.hosts[h as usize].shim = Some(shim);
        self.sync_shim_timer(h);
        Ok(())
    }

    /// Replaces the congestion control of a reliable flow before it starts; the flow's weight
    /// is passed to it at once.
    pub fn set_congestion_control(
        &mut self,
        flow: FlowId,
        cc: Box<dyn CongestionControl>,
    ) -> Result<()> {
        let i = self.check_flow(flow)?;
        let f = &mut self.flows[i];
        if f.started {
            return Err(Error::invalid(
                format!("{flow}"),
                "congestion control can only be replaced before the flow starts",
            ));
        }
        match &mut f.sender {
            Sender::Tcp(s) => {
                s.cc = S::Cc::from(cc);
                s.cc.on_weight(f.spec.weight);
                Ok(())
            }
            Sender::Udp(_) => Err(Error::invalid(
                format!("{flow}"),
                "a UDP flow has no congestion control",
            )),
        }
    }

    /// Changes a flow's weight at run time: passed to its congestion control and to every
    /// port's qdisc (a WRR port reweights the flow's queue; the others ignore it).
    pub fn set_weight(&mut self, flow: FlowId, weight: f64) -> Result<()> {
        let i = self.check_flow(flow)?;
        if !(weight.is_finite() && weight > 0.0) {
            return Err(Error::invalid(
                format!("{flow}"),
                format!("weight must be positive and finite, got {weight}"),
            ));
        }
        let old = self.flows[i].spec.weight;
        self.retag(i as u32, old, weight);
        let f = &mut self.flows[i];
        f.spec.weight = weight;
        if let Sender::Tcp(s) = &mut f.sender {
            s.cc.on_weight(weight);
        }
        let priority = f.spec.priority;
        let host = f.host;
        self.nic_level_changed(i as u32);
        if let Some(shim) = self.hosts[host as usize].shim.as_mut() {
            shim.on_weight(flow, weight);
            self.sync_shim_timer(host);
        }
        for p in &mut self.ports {
            p.qdisc.on_flow_weight(flow, priority, weight);
        }
        self.recheck_if_listed(i as u32); // its congestion control may have changed its window
        Ok(())
    }

    /// Changes a flow's weight at simulated time `at` (not before now), as [`Self::set_weight`]
    /// would: an engine event, so the change lands exactly at `at` whichever way the run is
    /// driven, after the events already scheduled for that picosecond. Changes for the same
    /// time apply in the order they were scheduled.
    pub fn schedule_weight(&mut self, at: Time, flow: FlowId, weight: f64) -> Result<()> {
        self.check_flow(flow)?;
        if !(weight.is_finite() && weight > 0.0) {
            return Err(Error::invalid(
                format!("{flow}"),
                format!("weight must be positive and finite, got {weight}"),
            ));
        }
        if at < self.now() {
            return Err(Error::invalid(
                format!("{flow}"),
                format!("weight change at {at} is before now ({})", self.now()),
            ));
        }
        let i = u32::try_from(self.weight_changes.len())
            .map_err(|_| Error::invalid(format!("{flow}"), "more than 2^32 weight changes"))?;
        self.weight_changes.push((flow.0, weight));
        self.events.push(at, Event::Weight(i));
        Ok(())
    }

    /// The most bytes ever queued at once in switch `node`'s shared buffer (`None` without
    /// `shared_buffer`, or for a host).
    pub fn shared_buffer_peak(&self, node: NodeId) -> Option<u64> {
        if self.switch_mem.is_empty() || self.host_of_node[node.idx()] != NO_HOST {
            return None;
        }
        self.switch_mem.get(node.idx()).map(|m| m.peak)
    }

    /// Stops flow `f` now, as if its application closed it: it sends no more data (packets in
    /// flight still arrive), counts as finished with its end time now, and its congestion
    /// control may send a FIN control packet (s-PERC §7.1). Used to replace flows (s-PERC
    /// §8.2's Fig. 7). Stopping a finished or not yet started flow is an error.
    pub fn stop_flow(&mut self, flow: FlowId) -> Result<()> {
        let i = self.check_flow(flow)?;
        let now = self.events.now().0;
        let fl = &mut self.flows[i];
        if fl.finished || !fl.started {
            return Err(Error::invalid(
                format!("{flow}"),
                "only a started, unfinished flow can be stopped",
            ));
        }
        fl.finished = true;
        fl.end = Some(Time(now));
        self.finished += 1;
        self.send_fin(now, i as u32);
        self.recheck_if_listed(i as u32);
        self.nic_level_changed(i as u32);
        Ok(())
    }

    /// Wire bytes of `flow`'s data packets that reached its receiver so far (in order or
    /// not, retransmissions included: what the throughput samples count).
    pub fn received_wire(&self, flow: FlowId) -> Option<u64> {
        Some(self.flows.get(flow.idx())?.rx_wire)
    }

    /// Flow `flow`'s congestion control, to read a scheme's own state (`None`: no such flow,
    /// or it runs without one, at a constant rate). Reading it changes nothing.
    pub fn cc(&self, flow: FlowId) -> Option<&S::Cc> {
        match &self.flows.get(flow.idx())?.sender {
            Sender::Tcp(s) => Some(&s.cc),
            Sender::Udp(_) => None,
        }
    }

    /// The current pacing rate of flow `f`'s congestion control (bit/s), if it paces.
    pub fn pacing_rate(&self, flow: FlowId) -> Option<f64> {
        match &self.flows.get(flow.idx())?.sender {
            Sender::Tcp(s) => s.cc.pacing_rate().map(|r| r.bps()),
            Sender::Udp(u) => Some(u.rate().bps()),
        }
    }
}
