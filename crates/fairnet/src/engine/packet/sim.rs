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

use super::cc::{CcContext, CongestionControl};
use super::config::{EngineConfig, HostNic, QdelaySignal, QueueRecord, RoutingMode};
use super::event::{Event, EventQueue};
use super::host::{Host, HostShim, SfqOrder};
use super::pkt::{
    CtrlArea, Ecn, Packet, PacketId, PacketKind, PacketPool, MAX_SACK_BLOCKS, NO_PACKET, NO_ROUTE,
};
use super::port::{CtrlQueue, Port, PortAgent, PortStats, QdelayLpf};
use super::qdisc::{Enqueued, Qdisc, QdiscParams};
use super::records::{
    Conservation, FlowRecord, FlowSample, LinkRecord, PacketResults, QueueSample,
};
use super::scheme::{FlowPaths, PortInfo, SchemeSet, Transport};
use super::tcp::{SendState, TcpParams, TcpReceiver, TcpSender};
use super::udp::UdpSender;
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::ids::{FlowId, LinkId, NodeId};
use crate::topo::{PathSelector, Routing, Topology};
use crate::units::{Bytes, Time};
use crate::workload::FlowSpec;
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
}

/// The time series of [`super::config::RecordConfig`], filled between events.
#[derive(Default)]
struct Recorder {
    interval: u64,
    flows: bool,
    queues: QueueRecord,
    flow_samples: Vec<FlowSample>,
    queue_samples: Vec<QueueSample>,
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
    /// Time of the next sample (`u64::MAX` when nothing is recorded): the run loops compare
    /// each event's time with it, the only cost of recording on the event path.
    next_sample: u64,
    rec: Recorder,
    /// Scheduled weight changes, addressed by `Event::Weight`.
    weight_changes: Vec<(u32, f64)>,
    /// With [`EngineConfig::two_way_control`]: each link's reverse-direction link (`NO_LINK`:
    /// none); empty otherwise.
    rev_link: Vec<u32>,
}

impl<S: SchemeSet> PacketSim<S> {
    /// Validates the inputs and builds the simulation at time zero.
    ///
    /// Errors name the item: `flows[3]: src and dst are the same host node 5`,
    /// `flows[2]: unknown dst node 99 (the topology has 20 nodes)`,
    /// `link 7: buffer 500B is smaller than one packet (1048B)`,
    /// `node 4: host has 2 out-links; the packet engine supports one NIC per host`.
    pub fn new(
        topo: &Topology,
        flows: &[FlowSpec],
        cfg: EngineConfig,
        mut schemes: S,
    ) -> Result<PacketSim<S>> {
        cfg.validate("engine config")?;
        topo.validate()?;
        let mtu_wire = cfg.mtu_wire();
        let n_nodes = topo.num_nodes();
        if u32::try_from(flows.len()).is_err() {
            return Err(Error::invalid("flows", "more than 2^32 - 1 flows"));
        }

        if topo.num_links() >= u32::MAX as usize {
            // Events and packets carry link indices as `u32`.
            return Err(Error::invalid(
                "topology",
                format!(
                    "{} links; the packet engine supports fewer than 2^32 - 1",
                    topo.num_links()
                ),
            ));
        }
        let mut ports = Vec::with_capacity(topo.num_links());
        for (i, l) in topo.links().iter().enumerate() {
            if l.buffer < mtu_wire {
                return Err(Error::invalid(
                    format!("link {i}"),
                    format!(
                        "buffer {} is smaller than one packet ({})",
                        l.buffer, mtu_wire
                    ),
                ));
            }
            let link = LinkId(i as u32);
            let info = PortInfo {
                queue: QdiscParams {
                    link,
                    buffer: l.buffer,
                    rate: l.capacity,
                    mtu_wire,
                    seed: cfg.seed,
                },
                host_nic: topo.is_host(l.src),
            };
            ports.push(Port {
                link,
                node: l.src,
                to: l.dst,
                rate: l.capacity,
                delay: l.delay.0,
                buffer: l.buffer,
                host_nic: info.host_nic,
                qdisc: schemes.qdisc(&info)?,
                agent: schemes.port_agent(&info)?.map(Box::new),
                ctrl: None,
                busy_until: 0,
                wake_pending: false,
                stats: PortStats::default(),
                tx_cache: (0, 0),
                wire_head: NO_PACKET,
                wire_tail: NO_PACKET,
                lpf: cfg.qdelay_lpf.map(QdelayLpf::new),
                acks: VecDeque::new(),
            });
        }

        let mut host_of_node = vec![NO_HOST; n_nodes];
        let mut hosts = Vec::with_capacity(topo.num_hosts());
        for &h in topo.hosts() {
            let out = topo.out_links(h);
            if out.len() > 1 {
                return Err(Error::invalid(
                    format!("{h}"),
                    format!(
                        "host has {} out-links; the packet engine supports one NIC per host",
                        out.len()
                    ),
                ));
            }
            host_of_node[h.idx()] = hosts.len() as u32;
            hosts.push(Host {
                nic: out.first().map_or(u32::MAX, |l| l.0),
                active: VecDeque::new(),
                sleeping: BinaryHeap::new(),
                wake_at: u64::MAX,
                shim: None,
                fifo: VecDeque::new(),
                fifo_bytes: 0,
                vtime: 0.0,
                sfq: SfqOrder::default(),
                sfq_recheck: Vec::new(),
            });
        }

        let routing = Routing::new(topo);
        let mss = cfg.mtu.0;
        let header = cfg.header.0;
        let tcp_params = TcpParams {
            mss,
            header,
            min_rto: cfg.min_rto,
            initial_rto: cfg.initial_rto,
            max_rto: cfg.max_rto,
            sack: cfg.sack,
            pacing_burst: cfg.pacing_burst.0,
        };
        let mut paths: Vec<u32> = Vec::new();
        let mut path = Vec::new();
        let mut routes = Vec::with_capacity(flows.len());
        // Two-way control updates: each link's reverse-direction link (`NO_LINK`: none).
        let two_way = cfg.two_way_control;
        let rev_link: Vec<u32> = if two_way {
            topo.reverse_links()
                .iter()
                .map(|r| r.map_or(NO_LINK, |l| l.0))
                .collect()
        } else {
            Vec::new()
        };
        for (i, f) in flows.iter().enumerate() {
            let at = || format!("flows[{i}]");
            for (end, node) in [("src", f.src), ("dst", f.dst)] {
                if !topo.contains(node) {
                    return Err(Error::invalid(
                        at(),
                        format!("unknown {end} {node} (the topology has {n_nodes} nodes)"),
                    ));
                }
                if !topo.is_host(node) {
                    return Err(Error::invalid(
                        at(),
                        format!("{end} {node} is a switch, not a host"),
                    ));
                }
            }
            if f.src == f.dst {
                return Err(Error::invalid(
                    at(),
                    format!("src and dst are the same host {}", f.src),
                ));
            }
            if f.size.0 == 0 {
                return Err(Error::invalid(at(), "size must be positive, got 0B"));
            }
            if !(f.weight.is_finite() && f.weight > 0.0) {
                return Err(Error::invalid(
                    at(),
                    format!("weight must be positive and finite, got {}", f.weight),
                ));
            }
            // Paths: cached per flow unless spraying. Also checks reachability either way.
            let key = i as u64;
            // A sprayed flow caches the first path (packets pick their hops as they go).
            let data_sel = cfg
                .routing
                .data_selector(cfg.seed, key)
                .unwrap_or(PathSelector::First);
            // ACKs of a hashed flow hash independently of its data packets.
            let ack_sel = match cfg.routing {
                RoutingMode::Ecmp => PathSelector::FlowHash {
                    seed: cfg.seed,
                    flow: key | ACK_KEY,
                },
                _ => data_sel,
            };
            let mut route = |src: NodeId, dst: NodeId, sel| -> Result<(usize, usize)> {
                path.clear();
                routing
                    .path_into(src, dst, sel, &mut path)
                    .map_err(|e| Error::invalid(at(), e.to_string()))?;
                if path.len() > u16::MAX as usize {
                    return Err(Error::invalid(at(), "path longer than 65535 hops"));
                }
                let start = paths.len();
                if u32::try_from(start).is_err() {
                    return Err(Error::invalid(at(), "more than 2^32 cached path links"));
                }
                paths.extend(path.iter().map(|l| l.0));
                Ok((start, path.len()))
            };
            let data = route(f.src, f.dst, data_sel)?;
            let ack = if two_way {
                // The exact reverse of the data path (s-PERC §2 assumption 6: "across the
                // same set of links"), so each link can update the reflected control packet.
                let (start, len) = data;
                if u32::try_from(start + len).is_err() {
                    return Err(Error::invalid(at(), "more than 2^32 cached path links"));
                }
                for k in (start..start + len).rev() {
                    let l = paths[k];
                    let r = rev_link[l as usize];
                    if r == NO_LINK {
                        return Err(Error::invalid(
                            at(),
                            format!(
                                "link {l} of the data path has no reverse-direction link; \
                                 two-way control updates (sperc.two_way) send the reflected \
                                 control packet back on the reversed path"
                            ),
                        ));
                    }
                    paths.push(r);
                }
                (start + len, len)
            } else {
                route(f.dst, f.src, ack_sel)?
            };
            routes.push((data, ack));
        }

        // What congestion controls may know of their flow (base RTT from the cached paths),
        // and Söze's target range, which every flow must share (§3.1.4).
        let ack_wire = Bytes(header);
        let base_rtt = |(d, a): ((usize, usize), (usize, usize))| -> Time {
            let mut t = 0;
            for (&l, wire) in paths[d.0..d.0 + d.1]
                .iter()
                .map(|l| (l, mtu_wire))
                .chain(paths[a.0..a.0 + a.1].iter().map(|l| (l, ack_wire)))
            {
                let link = topo.link(LinkId(l));
                t += link.delay.0 + link.capacity.tx_time(wire).0;
            }
            Time(t)
        };
        let data_routes: Vec<(usize, usize)> = routes.iter().map(|r| r.0).collect();
        schemes.prepare(&FlowPaths {
            topo,
            flows,
            paths: &paths,
            data: &data_routes,
        })?;

        let mut states = Vec::with_capacity(flows.len());
        for (i, (f, &r)) in flows.iter().zip(&routes).enumerate() {
            let (route_data, route_ack) = if cfg.routing == RoutingMode::Spray {
                (NO_ROUTE, NO_ROUTE)
            } else {
                (r.0 .0 as u32, r.1 .0 as u32)
            };
            let nic_rate = topo.link(topo.out_links(f.src)[0]).capacity;
            let ctx = CcContext {
                mss,
                header,
                nic_rate,
                base_rtt: base_rtt(r),
                weight: f.weight,
            };
            let (sender, receiver) = match schemes.transport(i, f, &ctx)? {
                Transport::ConstantRate(rate) => (
                    Sender::Udp(UdpSender::new(f.size, mss, header, rate, f.start)),
                    Receiver::Udp { received: 0 },
                ),
                Transport::Reliable(cc) => {
                    let mut s = TcpSender::new(f.size, tcp_params, cc);
                    s.cc.on_weight(f.weight);
                    (
                        Sender::Tcp(Box::new(s)),
                        Receiver::Tcp(TcpReceiver::default()),
                    )
                }
            };
            let mut spec = f.clone();
            if let Sender::Tcp(s) = &sender {
                // The transport may pick the flow's priority class (asked once, here).
                if let Some(p) = s.cc.priority() {
                    spec.priority = p;
                }
            }
            states.push(FlowState {
                spec,
                host: host_of_node[f.src.idx()],
                sender,
                receiver,
                route_data,
                route_ack,
                started: false,
                active: false,
                sleep_until: u64::MAX,
                finished: false,
                end: None,
                rto_event_at: u64::MAX,
                ctrl_event_at: u64::MAX,
                delack: DelAck::default(),
                rx_wire: 0,
                rx_wire_sampled: 0,
                nic_tag: 0.0,
                nic_seq: u64::MAX,
            });
        }

        let cfg_record = cfg.record;
        let mut events = EventQueue::new();
        for (i, f) in flows.iter().enumerate() {
            events.push(f.start, Event::FlowStart(i as u32));
        }
        let switch_mem = if cfg.shared_buffer.is_some() {
            vec![SwitchMemory::default(); n_nodes]
        } else {
            Vec::new()
        };
        Ok(PacketSim {
            cfg,
            schemes,
            mss,
            header,
            routing,
            ports,
            host_of_node,
            hosts,
            flows: states,
            paths,
            pool: PacketPool::new(),
            events,
            c: Counters::default(),
            switch_mem,
            finished: 0,
            spray_ctr: 0,
            next_sample: cfg_record.map_or(u64::MAX, |r| r.interval.0),
            rec: cfg_record.map_or_else(Recorder::default, |r| Recorder {
                interval: r.interval.0,
                flows: r.flows,
                queues: r.queues,
                ..Recorder::default()
            }),
            weight_changes: Vec::new(),
            rev_link,
        })
    }

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
        let f = &mut self.flows[i];
        f.spec.weight = weight;
        if let Sender::Tcp(s) = &mut f.sender {
            s.cc.on_weight(weight);
        }
        let priority = f.spec.priority;
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

    /// Runs every event up to and including time `t`, then checks the invariants and reports.
    pub fn run_until(&mut self, t: Time) -> Result<PacketResults> {
        while let Some(next) = self.events.peek_time() {
            if next > t {
                break;
            }
            let (now, ev) = self.events.pop().expect("peeked");
            if now.0 > self.next_sample {
                self.sample_before(now.0);
            }
            self.handle(now.0, ev);
        }
        self.events.advance_to(t);
        self.sample_before(t.0.saturating_add(1));
        self.results()
    }

    /// Runs until every flow has finished, no event is left, or `max_time` is reached.
    pub fn run_to_completion(&mut self, max_time: Time) -> Result<PacketResults> {
        self.run_to_completion_with_progress(max_time, &Progress::default())
    }

    /// [`PacketSim::run_to_completion`], reporting to `progress` every [`Progress::EVERY`]
    /// events; a cancelled `progress` stops the run there (the results show what finished).
    pub fn run_to_completion_with_progress(
        &mut self,
        max_time: Time,
        progress: &Progress,
    ) -> Result<PacketResults> {
        let mut handled = 0u64;
        while self.finished < self.flows.len() {
            match self.events.peek_time() {
                Some(next) if next <= max_time => {
                    let (now, ev) = self.events.pop().expect("peeked");
                    if now.0 > self.next_sample {
                        self.sample_before(now.0);
                    }
                    self.handle(now.0, ev);
                    handled += 1;
                    if handled & (Progress::EVERY - 1) == 0
                        && !progress.update(now, self.events.popped(), self.finished as u64)
                    {
                        break;
                    }
                }
                Some(_) => {
                    // Stopped by the horizon: nothing happens before it, so the samples up to
                    // it are known.
                    self.sample_before(max_time.0.saturating_add(1));
                    return self.results();
                }
                None => break,
            }
        }
        self.sample_before(self.events.now().0.saturating_add(1));
        self.results()
    }

    /// Takes every due sample whose time is before `t` (the next event's time): each sees the
    /// state after every event at or before its own time.
    #[cold]
    fn sample_before(&mut self, t: u64) {
        while self.next_sample < t {
            let at = self.next_sample;
            self.take_sample(at);
            self.next_sample = at.saturating_add(self.rec.interval);
        }
    }

    fn take_sample(&mut self, at: u64) {
        let interval = self.rec.interval as f64 * 1e-12;
        if self.rec.flows {
            for (i, f) in self.flows.iter_mut().enumerate() {
                let bytes = f.rx_wire - f.rx_wire_sampled;
                if !f.started || (f.finished && bytes == 0) {
                    continue;
                }
                f.rx_wire_sampled = f.rx_wire;
                let send_rate = match &f.sender {
                    Sender::Tcp(s) => match s.cc.pacing_rate() {
                        Some(r) => Some(r.bps()),
                        None => s
                            .srtt()
                            .filter(|t| t.0 > 0)
                            .map(|t| s.cc.cwnd() as f64 * 8.0 / (t.0 as f64 * 1e-12)),
                    },
                    Sender::Udp(u) => Some(u.rate().bps()),
                };
                self.rec.flow_samples.push(FlowSample {
                    time: Time(at),
                    flow: FlowId(i as u32),
                    throughput: bytes as f64 * 8.0 / interval,
                    send_rate,
                });
            }
        }
        let all = match self.rec.queues {
            QueueRecord::None => return,
            QueueRecord::All => true,
            QueueRecord::Queued => false,
        };
        for p in &self.ports {
            if all || p.stats.max_queue_bytes > 0 {
                let bytes = p.qdisc.bytes();
                self.rec.queue_samples.push(QueueSample {
                    time: Time(at),
                    link: p.link,
                    bytes,
                    delay: p.rate.tx_time(Bytes(bytes)),
                });
            }
        }
    }

    /// The flow samples recorded so far ([`super::config::RecordConfig`]), in time order.
    pub fn flow_samples(&self) -> &[FlowSample] {
        &self.rec.flow_samples
    }

    /// The queue samples recorded so far ([`super::config::RecordConfig`]), in time order.
    pub fn queue_samples(&self) -> &[QueueSample] {
        &self.rec.queue_samples
    }

    #[inline]
    fn handle(&mut self, now: u64, ev: Event) {
        match ev {
            Event::Arrive(link) => {
                let port = &mut self.ports[link as usize];
                let id = port.wire_head;
                debug_assert_ne!(id, NO_PACKET, "an Arrive event has a packet on the wire");
                let pkt = self.pool.get_mut(PacketId(id));
                debug_assert_eq!(pkt.at.0, now);
                port.wire_head = pkt.next;
                pkt.next = NO_PACKET;
                if port.wire_head != NO_PACKET {
                    let next = self.pool.get(PacketId(port.wire_head)).at;
                    self.events.push(next, Event::Arrive(link));
                }
                self.on_arrive(now, PacketId(id), link);
            }
            Event::PortFree(p) => {
                let port = &mut self.ports[p as usize];
                port.wake_pending = false;
                if let Some(c) = port.ctrl.as_mut() {
                    if c.wake_at <= now {
                        c.wake_at = 0;
                    }
                }
                self.port_try_start(now, p);
                let port = &self.ports[p as usize];
                if port.host_nic && port.busy_until <= now {
                    let h = self.host_of_node[port.node.idx()];
                    self.host_pull(now, h);
                }
            }
            Event::HostWake(h) => {
                if self.hosts[h as usize].wake_at == now {
                    self.hosts[h as usize].wake_at = u64::MAX;
                    self.host_pull(now, h);
                }
            }
            Event::FlowStart(f) => {
                self.flows[f as usize].started = true;
                self.sync_ctrl(f);
                self.activate(now, f);
            }
            Event::Rto(f) => self.on_rto_event(now, f),
            Event::DelAck(f) => self.on_delack_event(now, f),
            Event::Weight(i) => {
                let (f, w) = self.weight_changes[i as usize];
                self.set_weight(FlowId(f), w)
                    .expect("checked by schedule_weight");
            }
            Event::Control(f) => self.on_control_event(now, f),
        }
    }

    /// Puts a flow on its host's active list (if it is not there, or wakes it if it sleeps:
    /// its transport acted, so it may send sooner) and lets the host send.
    #[inline]
    fn activate(&mut self, now: u64, f: u32) {
        let fl = &mut self.flows[f as usize];
        if !fl.started || fl.finished {
            return;
        }
        let h = fl.host;
        if !fl.active || fl.sleep_until != u64::MAX {
            fl.active = true;
            fl.sleep_until = u64::MAX; // its heap entry is now stale
            self.join_list(h, f);
        } else {
            // On the list already: its transport acted (the round robin asks every listed flow
            // at every pull anyway).
            self.recheck_if_listed(f);
        }
        self.host_pull(now, h);
    }

    /// Flow `f` joins the tail of host `h`'s list of flows that may send: the round robin, or
    /// the weighted NIC's start-time fair queueing order (where, as the round robin would, the
    /// next pull asks it whether it may send).
    #[inline]
    fn join_list(&mut self, h: u32, f: u32) {
        let host = &mut self.hosts[h as usize];
        if self.cfg.host_nic == HostNic::Weighted {
            let fl = &mut self.flows[f as usize];
            fl.nic_seq = host.sfq.push(f, fl.nic_tag, host.vtime);
            host.sfq_recheck.push(f);
        } else {
            host.active.push_back(f);
        }
    }

    /// Flow `f` of host `h` may not send before `t`: out of the round robin until then.
    #[inline]
    fn sleep(&mut self, h: u32, f: u32, t: u64) {
        self.flows[f as usize].sleep_until = t;
        self.hosts[h as usize].sleeping.push(Reverse((t, f)));
    }

    /// Puts the flows of host `h` whose sleep has ended back on its round robin (at the tail,
    /// in wake-up order).
    #[inline]
    fn wake_sleepers(&mut self, now: u64, h: u32) {
        while let Some(&Reverse((t, f))) = self.hosts[h as usize].sleeping.peek() {
            if t > now {
                break;
            }
            self.hosts[h as usize].sleeping.pop();
            let fl = &mut self.flows[f as usize];
            if fl.sleep_until == t {
                fl.sleep_until = u64::MAX;
                self.join_list(h, f);
            }
        }
    }

    /// [`HostNic::Pull`]: if the host's NIC is idle with an empty queue, sends one data packet
    /// from the first active flow (round robin) that may send now. [`HostNic::Queue`]: hands
    /// every flow's packets that may be sent now to the NIC queue (round robin).
    /// [`HostNic::Weighted`]: as pull, the flow chosen by start-time fair queueing tags
    /// ([`Self::host_pick_weighted`]). Schedules a wake-up for paced flows.
    fn host_pull(&mut self, now: u64, h: u32) {
        let nic = self.hosts[h as usize].nic;
        if nic == u32::MAX {
            return;
        }
        let mode = self.cfg.host_nic;
        if mode == HostNic::Queue {
            self.host_hand_over(now, h);
            self.host_drain(now, h, nic);
            return;
        }
        {
            let port = &self.ports[nic as usize];
            if port.busy_until > now || port.waiting() > 0 {
                return; // the pending PortFree pulls again
            }
        }
        if mode == HostNic::Weighted {
            self.host_pick_weighted(now, h);
        } else {
            self.host_round(now, h, nic, false);
        }
    }

    /// [`HostNic::Weighted`], the NIC idle: sends one data packet from the flow that may send
    /// now with the smallest start tag `max(finish tag, host virtual time)`, then advances
    /// the host's virtual time to that start tag and the flow's finish tag by the packet's
    /// wire bytes over the flow's weight (start-time fair queueing, Goyal, Vin & Cheng,
    /// SIGCOMM 1996); ties go to the earlier flow of the host's list ([`SfqOrder`]). A flow
    /// found unable to send leaves the list (asleep until its pacing time, or inactive until
    /// its transport acts), as in the round robin. Schedules a wake-up for paced flows when
    /// none may send.
    fn host_pick_weighted(&mut self, now: u64, h: u32) {
        let hu = h as usize;
        // As the round robin's scan would: wake-ups join the tail; the flow served last and
        // the listed flows whose state something changed since the last pull (their transport
        // acted, their weight changed, they were stopped: `sfq_recheck`) are asked again, and
        // leave the list if they may not send. Every other listed flow could send at the last
        // pull and still can: a pacing time that has come stays come. (A host shim whose
        // release times move on their own is asked only when its flow comes first; the
        // round robin asked it at every pull.)
        self.wake_sleepers(now, h);
        if let Some((f, seq)) = self.hosts[hu].sfq.served.take() {
            if self.may_send_or_leave(now, h, f) {
                let (tag, vtime) = (self.flows[f as usize].nic_tag, self.hosts[hu].vtime);
                debug_assert_eq!(self.flows[f as usize].nic_seq, seq, "served flow's place");
                self.hosts[hu].sfq.insert(f, seq, tag, vtime);
            }
        }
        let mut recheck = std::mem::take(&mut self.hosts[hu].sfq_recheck);
        for &f in &recheck {
            if self.on_weighted_list(f) {
                self.may_send_or_leave(now, h, f);
            }
        }
        recheck.clear();
        self.hosts[hu].sfq_recheck = recheck; // keeps its allocation
        loop {
            let host = &mut self.hosts[hu];
            let Some((f, seq, start)) = host.sfq.pop(host.vtime) else {
                break;
            };
            if self.flows[f as usize].nic_seq != seq {
                continue; // a stale entry: the flow left the list since
            }
            if self.may_send_or_leave(now, h, f) {
                let wire = self.send_data(now, f, false);
                self.hosts[hu].vtime = start;
                let fl = &mut self.flows[f as usize];
                fl.nic_tag = start + wire as f64 / fl.spec.weight;
                self.hosts[hu].sfq.served = Some((f, seq));
                return; // the NIC's PortFree pulls again
            }
        }
        self.schedule_host_wake(h);
    }

    /// Whether flow `f` of host `h` may send now; if not, it leaves the host's list: asleep
    /// until its pacing (or shim) time, or inactive until its transport acts.
    #[inline]
    fn may_send_or_leave(&mut self, now: u64, h: u32, f: u32) -> bool {
        let state = self.send_state(now, h, f);
        if state == SendState::Ready {
            return true;
        }
        self.flows[f as usize].nic_seq = u64::MAX;
        match state {
            SendState::Wait(t) => self.sleep(h, f, t.0),
            _ => self.flows[f as usize].active = false,
        }
        false
    }

    /// Whether flow `f` of host `h` may send a data packet now (its transport's state, then the
    /// host shim's rate limiter).
    #[inline]
    fn send_state(&mut self, now: u64, h: u32, f: u32) -> SendState {
        let fl = &self.flows[f as usize];
        let state = match &fl.sender {
            // A stopped flow (`stop_flow`) sends nothing more.
            _ if fl.finished => SendState::Done,
            Sender::Tcp(s) => s.state(Time(now)),
            Sender::Udp(u) => u.state(Time(now)),
        };
        if state == SendState::Ready {
            if let Some(shim) = self.hosts[h as usize].shim.as_mut() {
                let wire = self.mss as u32 + self.header as u32;
                let t = shim.earliest_send(FlowId(f), wire, Time(now));
                if t.0 > now {
                    return SendState::Wait(t);
                }
            }
        }
        state
    }

    /// Schedules a `HostWake` of host `h` when its first sleeper wakes, unless one is pending
    /// earlier (a stale sleeper at the top only costs a spurious wake-up).
    #[inline]
    fn schedule_host_wake(&mut self, h: u32) {
        let host = &mut self.hosts[h as usize];
        let Some(&Reverse((wait, _))) = host.sleeping.peek() else {
            return;
        };
        if wait < host.wake_at {
            host.wake_at = wait;
            self.events.push(Time(wait), Event::HostWake(h));
        }
    }

    /// [`HostNic::Queue`]: every flow that may send now hands its packets to the host's FIFO
    /// (round robin), until none may or the FIFO holds half the NIC's buffer.
    fn host_hand_over(&mut self, now: u64, h: u32) {
        let nic = self.hosts[h as usize].nic;
        self.host_round(now, h, nic, true);
    }

    /// [`HostNic::Queue`]: if the NIC is idle with nothing queued (ACKs and other control
    /// packets go through the NIC's own queue, ahead of the FIFO), sends the FIFO's head, its
    /// `max_qdelay` raised to the FIFO's queueing delay (the signal of any port,
    /// [`EngineConfig::qdelay_signal`], without a filter).
    fn host_drain(&mut self, now: u64, h: u32, nic: u32) {
        let port = &self.ports[nic as usize];
        if port.busy_until > now || port.waiting() > 0 {
            return; // the pending PortFree pulls again
        }
        let host = &mut self.hosts[h as usize];
        let Some(id) = host.fifo.pop_front() else {
            return;
        };
        let pkt = self.pool.get_mut(id);
        host.fifo_bytes -= pkt.wire as u64;
        let qd = hop_qdelay(self.cfg.qdelay_signal, now, pkt, port, host.fifo_bytes);
        pkt.keep_max_qdelay(qd);
        let src = pkt.src;
        self.forward(now, id, src);
    }

    /// One pass of round robin over the host's active flows (repeated in queue mode while
    /// any flow sent); schedules a wake-up for paced flows.
    fn host_round(&mut self, now: u64, h: u32, nic: u32, queue: bool) {
        self.wake_sleepers(now, h);
        // HostNic::PullPriority: the highest class (lowest `priority`) among the ready flows
        // sends; round robin within it. Other modes: every class is eligible.
        let class = if !queue && self.cfg.host_nic == HostNic::PullPriority {
            let n = self.hosts[h as usize].active.len();
            (0..n)
                .filter_map(|i| {
                    let f = self.hosts[h as usize].active[i];
                    (self.send_state(now, h, f) == SendState::Ready)
                        .then_some(self.flows[f as usize].spec.priority)
                })
                .min()
                .unwrap_or(u8::MAX)
        } else {
            u8::MAX
        };
        loop {
            let mut sent = false;
            let n = self.hosts[h as usize].active.len();
            for _ in 0..n {
                let f = self.hosts[h as usize]
                    .active
                    .pop_front()
                    .expect("n entries");
                match self.send_state(now, h, f) {
                    SendState::Ready if self.flows[f as usize].spec.priority > class => {
                        // HostNic::PullPriority: a higher class is ready; this flow waits
                        // for the next pull (the NIC is about to be busy).
                        self.hosts[h as usize].active.push_back(f);
                    }
                    SendState::Ready => {
                        self.hosts[h as usize].active.push_back(f);
                        self.send_data(now, f, queue);
                        if !queue {
                            return;
                        }
                        if self.hosts[h as usize].fifo_bytes > self.ports[nic as usize].buffer.0 / 2
                        {
                            return; // the NIC's PortFree pulls again
                        }
                        sent = true;
                    }
                    SendState::Wait(t) => self.sleep(h, f, t.0),
                    SendState::Blocked | SendState::Done => self.flows[f as usize].active = false,
                }
            }
            // Queue mode: rounds until none of the flows may send now.
            if !sent {
                break;
            }
        }
        self.schedule_host_wake(h);
    }

    /// Builds flow `f`'s next data packet and sends it, or with `to_fifo` hands it to the
    /// host's FIFO ([`HostNic::Queue`]); returns the packet's wire bytes.
    fn send_data(&mut self, now: u64, f: u32, to_fifo: bool) -> u64 {
        let fl = &mut self.flows[f as usize];
        let size = fl.spec.size.0;
        let (seg, ecn, word) = match &mut fl.sender {
            Sender::Tcp(s) => {
                let ecn = if s.cc.ecn_capable() {
                    Ecn::Ect
                } else {
                    Ecn::NotEct
                };
                let word = s.cc.header_word(size - s.snd_una());
                (s.next_segment(Time(now)), ecn, word)
            }
            Sender::Udp(u) => (u.next_segment(), Ecn::NotEct, 0),
        };
        self.spray_ctr += 1;
        let mut pkt = Packet {
            kind: PacketKind::Data,
            flow: FlowId(f),
            src: fl.spec.src,
            dst: fl.spec.dst,
            seq: seg.seq,
            payload: seg.len,
            wire: seg.len + self.header as u32,
            ecn,
            priority: fl.spec.priority,
            word,
            retransmit: seg.retransmit,
            ts: Time(now),
            route: fl.route_data,
            spray_key: self.spray_ctr,
            ..Packet::default()
        };
        let src = fl.spec.src;
        let h = fl.host as usize;
        if let Some(shim) = self.hosts[h].shim.as_mut() {
            shim.on_egress(&mut pkt, Time(now));
        }
        self.c.sent += pkt.wire as u64;
        let wire = pkt.wire as u64;
        let id = self.pool.alloc(pkt);
        self.sync_rto(f);
        if to_fifo {
            self.pool.get_mut(id).at = Time(now);
            let host = &mut self.hosts[h];
            host.fifo.push_back(id);
            host.fifo_bytes += wire;
        } else {
            self.forward(now, id, src);
        }
        wire
    }

    /// Sends packet `id`, now at `node`, to its next link.
    #[inline]
    fn forward(&mut self, now: u64, id: PacketId, node: NodeId) {
        let pkt = self.pool.get_mut(id);
        let link = if pkt.route != NO_ROUTE {
            let l = self.paths[pkt.route as usize + pkt.hop as usize];
            pkt.hop += 1;
            Some(l)
        } else {
            let sel = PathSelector::Spray {
                seed: self.cfg.seed,
                packet: pkt.spray_key,
            };
            self.routing
                .next_hop(node, pkt.src, pkt.dst, sel)
                .map(|l| l.0)
        };
        match link {
            Some(l) => self.enqueue(now, l, id),
            None => {
                // Unreachable by construction (paths were checked); counted, not a panic.
                self.c.unroutable += 1;
                self.c.dropped += pkt.wire as u64;
                self.pool.release(id);
            }
        }
    }

    #[inline]
    fn enqueue(&mut self, now: u64, p: u32, id: PacketId) {
        let port = &mut self.ports[p as usize];
        // Queued now, whichever queue takes it (the sojourn signal's start).
        let pkt = self.pool.get_mut(id);
        pkt.at = Time(now);
        let kind = pkt.kind;
        if kind == PacketKind::Control {
            // Control packets wait in the port's own FIFO, served first (see `CtrlQueue`).
            let wire = self.pool.get(id).wire as u64;
            let rate = port.rate;
            let ctrl = port
                .ctrl
                .get_or_insert_with(|| Box::new(CtrlQueue::new(&self.cfg.control, rate)));
            if ctrl.bytes + wire > ctrl.buffer {
                port.stats.ctrl_drops += 1;
                drop_packet(&mut port.stats, &mut self.c, &mut self.pool, id);
                return;
            }
            ctrl.bytes += wire;
            ctrl.q.push_back(id.0);
            self.port_try_start(now, p);
            return;
        }
        if self.cfg.ack_first && kind == PacketKind::Ack {
            port.acks.push_back(id);
            self.port_try_start(now, p);
            return;
        }
        let before = port.qdisc.bytes();
        let shared = match self.cfg.shared_buffer {
            Some(sb) if !port.host_nic => {
                let mem = self.switch_mem[port.node.idx()].used;
                let wire = self.pool.get(id).wire as u64;
                let free = sb.size.0.saturating_sub(mem);
                // First come, first served within the memory; with α, the port's queue may
                // not pass α × the free memory (Choudhury & Hahne's dynamic threshold).
                let fits = wire <= free
                    && sb
                        .alpha
                        .is_none_or(|a| (before + wire) as f64 <= a * free as f64);
                if !fits {
                    drop_packet(&mut port.stats, &mut self.c, &mut self.pool, id);
                    return;
                }
                Some(sb.size.0)
            }
            _ => None,
        };
        match port.qdisc.enqueue(id, &mut self.pool, Time(now)) {
            Enqueued::Dropped => {
                drop_packet(&mut port.stats, &mut self.c, &mut self.pool, id);
                return;
            }
            Enqueued::Marked => port.stats.marks += 1,
            Enqueued::Queued => {}
            Enqueued::Evicting => {
                while let Some(v) = port.qdisc.take_evicted() {
                    drop_packet(&mut port.stats, &mut self.c, &mut self.pool, v);
                }
            }
        }
        port.account_queue(now, before);
        if port.qdisc.bytes() > port.buffer.0 {
            self.c.buffer_violations += 1;
        }
        if let Some(size) = shared {
            // A pFabric eviction can shrink the queue: `used` holds `before`, so this stays
            // non-negative.
            let mem = &mut self.switch_mem[port.node.idx()];
            mem.used = mem.used + port.qdisc.bytes() - before;
            mem.peak = mem.peak.max(mem.used);
            if mem.used > size {
                self.c.shared_violations += 1;
            }
        }
        self.port_try_start(now, p);
        // The queue is what waits behind the serializer: measured after a packet arriving at
        // an idle port has left it.
        let port = &mut self.ports[p as usize];
        port.stats.max_queue_bytes = port.stats.max_queue_bytes.max(port.qdisc.bytes());
    }

    /// Starts serializing the next queued packet if the port is free; otherwise makes sure a
    /// `PortFree` event will come.
    #[inline]
    fn port_try_start(&mut self, now: u64, p: u32) {
        let port = &mut self.ports[p as usize];
        if port.busy_until > now {
            // Also when a stale `PortFree` (from an earlier busy period) fired early: a host
            // NIC must wake when the serializer frees, to pull the next data packet.
            if !port.wake_pending && (port.host_nic || port.waiting() > 0) {
                port.wake_pending = true;
                self.events.push(Time(port.busy_until), Event::PortFree(p));
            }
            return;
        }
        // Control packets first (strict priority), when the rate limiter allows.
        let mut ctrl = None;
        if let Some(c) = port.ctrl.as_mut() {
            if let Some(&head) = c.q.front() {
                let wire = self.pool.get(PacketId(head)).wire;
                let ready = c.ready_at(now, wire);
                if ready <= now {
                    c.q.pop_front();
                    c.bytes -= wire as u64;
                    c.take(now, wire);
                    port.stats.ctrl_tx_packets += 1;
                    port.stats.ctrl_tx_bytes += wire as u64;
                    ctrl = Some(PacketId(head));
                } else if c.wake_at <= now || ready < c.wake_at {
                    c.wake_at = ready;
                    self.events.push(Time(ready), Event::PortFree(p));
                }
            }
        }
        let id = match ctrl {
            Some(id) => id,
            None => {
                let before = port.qdisc.bytes();
                // ACKs ahead of the queueing discipline (`ack_first`), then the discipline.
                let id = if let Some(id) = port.acks.pop_front() {
                    id
                } else {
                    let Some(id) = port.qdisc.dequeue(&mut self.pool, Time(now)) else {
                        return;
                    };
                    id
                };
                port.account_queue(now, before);
                if !self.switch_mem.is_empty() && !port.host_nic {
                    self.switch_mem[port.node.idx()].used -= before - port.qdisc.bytes();
                }
                id
            }
        };
        let pkt = self.pool.get_mut(id);
        let mut qd = hop_qdelay(self.cfg.qdelay_signal, now, pkt, port, port.qdisc.bytes());
        if let Some(lpf) = port.lpf.as_mut() {
            qd = lpf.sample(now, qd);
        }
        pkt.keep_max_qdelay(qd);
        let wire = pkt.wire as u64;
        port.stats.tx_packets += 1;
        port.stats.tx_bytes += wire;
        self.c.packet_hops += 1;
        if pkt.kind == PacketKind::Data {
            port.stats.data_tx_packets += 1;
            self.c.data_hops += 1;
        }
        if port.agent.is_some() {
            let view = port.view(now);
            if let Some(agent) = port.agent.as_mut() {
                agent.on_dequeue(id, &mut self.pool, &view);
            }
        }
        let tx = port.tx_time(wire as u32);
        port.busy_until = now + tx;
        let at = now + tx + port.delay;
        self.pool.get_mut(id).at = Time(at);
        if port.wire_head == NO_PACKET {
            port.wire_head = id.0;
            self.events.push(Time(at), Event::Arrive(p));
        } else {
            self.pool.get_mut(PacketId(port.wire_tail)).next = id.0;
        }
        port.wire_tail = id.0;
        if !port.wake_pending && (port.host_nic || port.waiting() > 0) {
            port.wake_pending = true;
            self.events.push(Time(port.busy_until), Event::PortFree(p));
        }
    }

    fn on_arrive(&mut self, now: u64, id: PacketId, link: u32) {
        let node = self.ports[link as usize].to;
        if !self.rev_link.is_empty() {
            self.reverse_update(now, id, link);
        }
        let h = self.host_of_node[node.idx()];
        if h == NO_HOST {
            self.forward(now, id, node);
        } else {
            self.deliver(now, id, h, node);
        }
    }

    /// Two-way control updates (s-PERC §2 assumption 6): a reflected control packet that
    /// arrived over `link` — on the reverse of its flow's data path — is handed to the agent
    /// of the forward link it mirrors, `reverse(link)`, whose port is at this node.
    #[inline]
    fn reverse_update(&mut self, now: u64, id: PacketId, link: u32) {
        if self.pool.get(id).kind != PacketKind::Control || !self.pool.ctrl(id).reflected {
            return;
        }
        let fwd = self.rev_link[link as usize];
        let Some(port) = self.ports.get_mut(fwd as usize) else {
            return;
        };
        if port.agent.is_some() {
            let view = port.view(now);
            if let Some(agent) = port.agent.as_mut() {
                agent.on_reverse(id, &mut self.pool, &view);
            }
        }
    }

    fn deliver(&mut self, now: u64, id: PacketId, h: u32, node: NodeId) {
        let wire = self.pool.get(id).wire as u64;
        self.c.delivered += wire;
        if let Some(shim) = self.hosts[h as usize].shim.as_mut() {
            shim.on_ingress(self.pool.get_mut(id), Time(now));
        }
        let pkt = *self.pool.get(id);
        let f = pkt.flow.0;
        match pkt.kind {
            PacketKind::Data => {
                self.flows[f as usize].rx_wire += wire;
                self.on_data(now, id, &pkt, h, node)
            }
            PacketKind::Ack => {
                let fl = &mut self.flows[f as usize];
                if let Sender::Tcp(s) = &mut fl.sender {
                    s.on_ack(
                        &pkt,
                        self.pool.int_hops(id),
                        self.pool.sack_blocks(id),
                        Time(now),
                    );
                    if s.done() && !fl.finished {
                        fl.finished = true;
                        self.finished += 1;
                        self.send_fin(now, f);
                    }
                }
                self.pool.release(id);
                if let Sender::Tcp(_) = &self.flows[f as usize].sender {
                    self.sync_rto(f);
                    self.sync_ctrl(f);
                    self.activate(now, f);
                }
            }
            PacketKind::Control => self.on_control_arrival(now, id, &pkt, node),
        }
    }

    fn on_data(&mut self, now: u64, id: PacketId, pkt: &Packet, h: u32, node: NodeId) {
        let f = pkt.flow.0;
        let fl = &mut self.flows[f as usize];
        match &mut fl.receiver {
            Receiver::Udp { received } => {
                *received += pkt.payload as u64;
                if *received >= fl.spec.size.0 && !fl.finished {
                    fl.finished = true;
                    fl.end = Some(Time(now));
                    self.finished += 1;
                }
                self.pool.release(id);
            }
            Receiver::Tcp(r) => {
                let prev = r.rcv_nxt();
                let cum = r.on_data(pkt.seq, pkt.payload as u64);
                let size = fl.spec.size.0;
                if cum >= size && fl.end.is_none() {
                    fl.end = Some(Time(now));
                }
                let ce = pkt.ecn == Ecn::Ce;
                let mut echo = (pkt.ts, pkt.max_qdelay, pkt.word);
                if self.cfg.delayed_ack {
                    let in_order = pkt.seq == prev && cum == prev + pkt.payload as u64;
                    let d = fl.delack;
                    if !in_order || cum >= size {
                        // RFC 5681 §4.2: out-of-order data and data filling a hole are
                        // acknowledged at once; so is the last byte (the flow's FCT ends there).
                        fl.delack.pending = 0;
                    } else {
                        if d.pending > 0 && d.ce != ce {
                            // DCTCP §3.1: the CE state changed; acknowledge the pending segment
                            // at once with its own ECE, then start over in the new state.
                            fl.delack.pending = 0;
                            let nid = self.pool.alloc(Packet::default());
                            let echo = (d.ts, d.qdelay, d.word);
                            self.send_ack(now, nid, f, prev, d.ce, echo, 0, None, h, node);
                        }
                        let d = &mut self.flows[f as usize].delack;
                        if d.pending == 0 {
                            // First segment: hold the ACK until a second one or the timeout.
                            *d = DelAck {
                                pending: 1,
                                ce,
                                ts: pkt.ts,
                                qdelay: pkt.max_qdelay,
                                word: pkt.word,
                                deadline: now + self.cfg.delayed_ack_timeout.0,
                                event_at: d.event_at,
                            };
                            let at = d.deadline;
                            arm_timer(&mut self.events, &mut d.event_at, at, Event::DelAck(f));
                            self.pool.release(id);
                            return;
                        }
                        // Second segment: one ACK for both, echoing the earlier timestamp.
                        d.pending = 0;
                        echo = (d.ts, d.qdelay.max(pkt.max_qdelay), pkt.word);
                    }
                }
                let trigger = Some(pkt.seq);
                self.send_ack(now, id, f, cum, ce, echo, pkt.int_len, trigger, h, node);
            }
        }
    }

    /// Turns slot `id` into flow `f`'s ACK (cumulative `cum`, ECE `ece`, echoed timestamp,
    /// `max_qdelay` and RCP rate, `int_len` INT records already in the slot, SACK blocks with `trigger` the
    /// offset of the segment that caused it) and sends it from the receiver's host `h` at
    /// `node`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn send_ack(
        &mut self,
        now: u64,
        id: PacketId,
        f: u32,
        cum: u64,
        ece: bool,
        echo: (Time, Time, u32),
        int_len: u8,
        trigger: Option<u64>,
        h: u32,
        node: NodeId,
    ) {
        let fl = &self.flows[f as usize];
        // Most ACKs find everything in order: no blocks, no call.
        let sack =
            self.cfg.sack && matches!(&fl.receiver, Receiver::Tcp(r) if r.holds_out_of_order());
        self.spray_ctr += 1;
        // Reuse the data packet's slot for its ACK.
        let ack = self.pool.get_mut(id);
        *ack = Packet {
            kind: PacketKind::Ack,
            flow: FlowId(f),
            src: fl.spec.dst,
            dst: fl.spec.src,
            seq: cum,
            payload: 0,
            wire: self.header as u32,
            ecn: Ecn::NotEct,
            ece,
            priority: fl.spec.priority,
            word: echo.2,
            retransmit: false,
            max_qdelay: echo.1,
            ts: echo.0,
            window: u64::MAX,
            // The slot's INT records stay in place: the ACK echoes them.
            int_len,
            sack_len: 0,
            route: fl.route_ack,
            hop: 0,
            live: true,
            at: Time(now),
            next: NO_PACKET,
            spray_key: self.spray_ctr,
        };
        if sack {
            self.write_sack(id, f, trigger);
        }
        let ack = self.pool.get_mut(id);
        if let Some(shim) = self.hosts[h as usize].shim.as_mut() {
            shim.on_egress(ack, Time(now));
        }
        self.c.sent += ack.wire as u64;
        self.forward(now, id, node);
    }

    /// Writes flow `f`'s receiver's SACK blocks (RFC 2018 §4) into ACK `id`'s side table.
    #[cold]
    #[inline(never)]
    fn write_sack(&mut self, id: PacketId, f: u32, trigger: Option<u64>) {
        let mut blocks = [(0, 0); MAX_SACK_BLOCKS];
        if let Receiver::Tcp(r) = &mut self.flows[f as usize].receiver {
            let n = r.sack_blocks(trigger, &mut blocks);
            self.pool.set_sack(id, &blocks[..n]);
        }
    }

    /// The delayed-ACK timer of flow `f` may have fired: acknowledge the pending segment, or
    /// wait for a later deadline set since the event was scheduled.
    fn on_delack_event(&mut self, now: u64, f: u32) {
        let d = &mut self.flows[f as usize].delack;
        if d.event_at != now {
            return;
        }
        d.event_at = u64::MAX;
        if d.pending == 0 {
            return;
        }
        if d.deadline > now {
            let at = d.deadline;
            arm_timer(&mut self.events, &mut d.event_at, at, Event::DelAck(f));
            return;
        }
        d.pending = 0;
        let (ce, echo) = (d.ce, (d.ts, d.qdelay, d.word));
        let fl = &self.flows[f as usize];
        let Receiver::Tcp(r) = &fl.receiver else {
            return;
        };
        let cum = r.rcv_nxt();
        let node = fl.spec.dst;
        let h = self.host_of_node[node.0 as usize];
        let nid = self.pool.alloc(Packet::default());
        self.send_ack(now, nid, f, cum, ce, echo, 0, None, h, node);
    }

    /// Makes sure an `Rto` event is pending no later than the sender's timer deadline.
    #[inline]
    fn sync_rto(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        if fl.finished {
            return; // no more retransmissions (a stopped flow may still get ACKs)
        }
        let Sender::Tcp(s) = &fl.sender else { return };
        let d = s.rto_deadline; // u64::MAX when the timer is not armed: nothing to schedule
        arm_timer(&mut self.events, &mut fl.rto_event_at, d, Event::Rto(f));
    }

    fn on_rto_event(&mut self, now: u64, f: u32) {
        let fl = &mut self.flows[f as usize];
        if fl.rto_event_at != now {
            return; // superseded by an earlier event
        }
        fl.rto_event_at = u64::MAX;
        if fl.finished {
            return; // stopped (`stop_flow`) or done: no more retransmissions
        }
        let Sender::Tcp(s) = &mut fl.sender else {
            return;
        };
        let d = s.rto_deadline;
        if d == u64::MAX {
            return;
        }
        if d > now {
            // The timer was restarted since this event was scheduled: sleep until the deadline.
            arm_timer(&mut self.events, &mut fl.rto_event_at, d, Event::Rto(f));
            return;
        }
        s.on_timeout(Time(now));
        self.sync_rto(f);
        self.sync_ctrl(f);
        self.activate(now, f);
    }

    /// The most bytes ever queued at once in switch `node`'s shared buffer (`None` without
    /// `shared_buffer`, or for a host).
    pub fn shared_buffer_peak(&self, node: NodeId) -> Option<u64> {
        if self.switch_mem.is_empty() || self.host_of_node[node.idx()] != NO_HOST {
            return None;
        }
        self.switch_mem.get(node.idx()).map(|m| m.peak)
    }

    /// Makes sure a `Control` event is pending no later than the time flow `f`'s congestion
    /// control wants to send its next control packet.
    #[inline]
    fn sync_ctrl(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        if fl.finished || !fl.started {
            return;
        }
        let Sender::Tcp(s) = &fl.sender else { return };
        let Some(at) = s.cc.control_at() else { return };
        let at = at.0.max(self.events.now().0);
        arm_timer(
            &mut self.events,
            &mut fl.ctrl_event_at,
            at,
            Event::Control(f),
        );
    }

    fn on_control_event(&mut self, now: u64, f: u32) {
        let fl = &mut self.flows[f as usize];
        if fl.ctrl_event_at != now {
            return; // superseded by an earlier event
        }
        fl.ctrl_event_at = u64::MAX;
        if fl.finished {
            return;
        }
        let Sender::Tcp(s) = &mut fl.sender else {
            return;
        };
        match s.cc.control_at() {
            Some(t) if t.0 <= now => {
                let mut area = CtrlArea::default();
                let unsent = fl.spec.size.0.saturating_sub(s.snd_nxt());
                if s.cc.make_control(Time(now), unsent, &mut area) {
                    self.send_control(now, f, &area);
                }
            }
            _ => {}
        }
        self.sync_ctrl(f);
    }

    /// Sends a control packet of flow `f` with control area `area` from its source, on the
    /// flow's data path.
    fn send_control(&mut self, now: u64, f: u32, area: &CtrlArea) {
        let fl = &self.flows[f as usize];
        self.spray_ctr += 1;
        let pkt = Packet {
            kind: PacketKind::Control,
            flow: FlowId(f),
            src: fl.spec.src,
            dst: fl.spec.dst,
            wire: self.cfg.control.size.0 as u32,
            priority: 0,
            ts: Time(now),
            route: fl.route_data,
            spray_key: self.spray_ctr,
            ..Packet::default()
        };
        let src = fl.spec.src;
        self.c.sent += pkt.wire as u64;
        let id = self.pool.alloc(pkt);
        self.pool.set_ctrl(id, area);
        self.forward(now, id, src);
    }

    /// Flow `f` ended: lets its congestion control send a FIN control packet.
    fn send_fin(&mut self, now: u64, f: u32) {
        let Sender::Tcp(s) = &mut self.flows[f as usize].sender else {
            return;
        };
        let mut area = CtrlArea::default();
        if s.cc.make_fin(Time(now), &mut area) {
            area.fin = true;
            self.send_control(now, f, &area);
        }
    }

    /// A control packet arrived at host `node`: the receiver reflects it back to the sender
    /// (on the flow's ACK path; agents leave reflected packets alone at dequeue, and with
    /// [`EngineConfig::two_way_control`] that path is the reversed data path and each node
    /// hands the packet to [`PortAgent::on_reverse`], see `reverse_update`) and consumes a
    /// FIN; the sender hands a reflected one to its congestion control.
    fn on_control_arrival(&mut self, now: u64, id: PacketId, pkt: &Packet, node: NodeId) {
        let f = pkt.flow.0;
        let area = self.pool.ctrl(id);
        if !area.reflected {
            if area.fin {
                self.pool.release(id);
                return;
            }
            let fl = &self.flows[f as usize];
            self.pool.ctrl_mut(id).reflected = true;
            self.spray_ctr += 1;
            let p = self.pool.get_mut(id);
            p.src = pkt.dst;
            p.dst = pkt.src;
            p.route = fl.route_ack;
            p.hop = 0;
            p.spray_key = self.spray_ctr;
            self.c.sent += p.wire as u64;
            self.forward(now, id, node);
            return;
        }
        let fl = &mut self.flows[f as usize];
        if let Sender::Tcp(s) = &mut fl.sender {
            if !fl.finished {
                s.cc.on_control(pkt, self.pool.ctrl(id), Time(now));
                s.repace();
            }
        }
        self.pool.release(id);
        self.sync_ctrl(f);
        self.activate(now, f);
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
        Ok(())
    }

    /// [`HostNic::Weighted`]: if flow `f` is on its host's list, the next pull asks it again
    /// whether it may send (something other than the pull changed its state).
    fn recheck_if_listed(&mut self, f: u32) {
        if self.cfg.host_nic == HostNic::Weighted && self.on_weighted_list(f) {
            let h = self.flows[f as usize].host;
            self.hosts[h as usize].sfq_recheck.push(f);
        }
    }

    /// [`HostNic::Weighted`]: whether flow `f` is on its host's list (active, awake, with a
    /// live place).
    #[inline]
    fn on_weighted_list(&self, f: u32) -> bool {
        let fl = &self.flows[f as usize];
        fl.active && fl.sleep_until == u64::MAX && fl.nic_seq != u64::MAX
    }

    /// Wire bytes of `flow`'s data packets that reached its receiver so far (in order or
    /// not, retransmissions included: what the throughput samples count).
    pub fn received_wire(&self, flow: FlowId) -> Option<u64> {
        Some(self.flows.get(flow.idx())?.rx_wire)
    }

    /// The current pacing rate of flow `f`'s congestion control (bit/s), if it paces.
    pub fn pacing_rate(&self, flow: FlowId) -> Option<f64> {
        match &self.flows.get(flow.idx())?.sender {
            Sender::Tcp(s) => s.cc.pacing_rate().map(|r| r.bps()),
            Sender::Udp(u) => Some(u.rate().bps()),
        }
    }

    /// The records so far; errors if an invariant is violated (byte conservation, a queue
    /// above its buffer, an event scheduled in the past, an unroutable packet).
    pub fn results(&self) -> Result<PacketResults> {
        self.check_invariants()?;
        Ok(self.records())
    }

    /// The engine's invariants (byte conservation, buffers, event times, routes); an error
    /// names the one broken. [`PacketSim::results`] checks them before reporting.
    pub fn check_invariants(&self) -> Result<()> {
        let now = self.events.now();
        let conservation = Conservation {
            sent: self.c.sent,
            delivered: self.c.delivered,
            dropped: self.c.dropped,
            in_flight: self.pool.live_wire_bytes(),
        };
        if !conservation.holds() {
            return Err(Error::invalid(
                "packet engine",
                format!(
                    "byte conservation violated at {now}: sent {} != delivered {} + dropped {} + in flight {}",
                    conservation.sent, conservation.delivered, conservation.dropped, conservation.in_flight
                ),
            ));
        }
        if self.c.buffer_violations > 0 {
            return Err(Error::invalid(
                "packet engine",
                format!(
                    "{} enqueues left a queue above its buffer",
                    self.c.buffer_violations
                ),
            ));
        }
        if self.c.shared_violations > 0 {
            return Err(Error::invalid(
                "packet engine",
                format!(
                    "{} enqueues left a switch's shared buffer above its size",
                    self.c.shared_violations
                ),
            ));
        }
        if self.events.past_events() > 0 {
            return Err(Error::invalid(
                "packet engine",
                format!(
                    "{} events were scheduled in the past",
                    self.events.past_events()
                ),
            ));
        }
        if self.c.unroutable > 0 {
            return Err(Error::invalid(
                "packet engine",
                format!("{} packets had no route", self.c.unroutable),
            ));
        }
        Ok(())
    }

    /// The records as they stand, without checking the invariants: what a run whose check
    /// failed still writes (marked as failed).
    pub fn records(&self) -> PacketResults {
        let now = self.events.now();
        let conservation = Conservation {
            sent: self.c.sent,
            delivered: self.c.delivered,
            dropped: self.c.dropped,
            in_flight: self.pool.live_wire_bytes(),
        };
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let (retx, timeouts, fast) = match &f.sender {
                    Sender::Tcp(s) => (s.bytes_retransmitted, s.timeouts, s.fast_retransmits),
                    Sender::Udp(_) => (0, 0, 0),
                };
                FlowRecord {
                    flow: FlowId(i as u32),
                    src: f.spec.src,
                    dst: f.spec.dst,
                    size: f.spec.size,
                    start: f.spec.start,
                    end: f.end,
                    fct: f.end.map(|e| e - f.spec.start),
                    delivered: match &f.receiver {
                        Receiver::Tcp(r) => r.rcv_nxt(),
                        Receiver::Udp { received } => *received,
                    },
                    bytes_retransmitted: retx,
                    timeouts,
                    fast_retransmits: fast,
                    tag: f.spec.tag,
                }
            })
            .collect();
        let links = self
            .ports
            .iter()
            .map(|p| {
                let q = p.qdisc.bytes();
                let s = &p.stats;
                LinkRecord {
                    link: p.link,
                    tx_packets: s.tx_packets,
                    tx_bytes: s.tx_bytes,
                    drops: s.drops,
                    drop_bytes: s.drop_bytes,
                    marks: s.marks,
                    ctrl_tx_bytes: s.ctrl_tx_bytes,
                    ctrl_drops: s.ctrl_drops,
                    max_queue_bytes: s.max_queue_bytes,
                    queue_bytes: q,
                    queue_integral: s.queue_integral
                        + q as u128 * (now.0.saturating_sub(s.queue_last)) as u128,
                }
            })
            .collect();
        PacketResults {
            now,
            complete: self.finished == self.flows.len(),
            finished_flows: self.finished,
            flows,
            links,
            conservation,
            events: self.events.popped(),
            data_packet_hops: self.c.data_hops,
            packet_hops: self.c.packet_hops,
            peak_packets: self.pool.capacity(),
            pending_events: self.events.len(),
        }
    }
}
