//! The packet engine's configuration (serde; unknown keys and names are errors).
//!
//! ```toml
//! mtu = "1000B"            # payload bytes per packet
//! header = "48B"
//! transport = "dctcp"      # dctcp | reno | reno_ecn | cubic | udp | soze | hpcc | delay_aimd | dcqcn | pfabric | rcp | timely | sperc
//! qdisc = { kind = "ecn", k = { packets = 15 } }
//! port_agent = "none"      # none | int | rcp | sperc (HPCC needs "int", RCP "rcp", s-PERC* "sperc")
//! qdelay_lpf = "10us"      # optional: Söze §4's "sample" low-pass filter of maxQD
//! routing = "ecmp"         # ecmp | host_pair | spray | first
//! record = { interval = "10us", flows = true, queues = "queued" }  # optional time series
//! seed = 1
//! [tcp]
//! init_cwnd = 10
//! min_rto = "1ms"
//! [soze]                   # transport = "soze" (crate::systems::soze::SozeConfig)
//! p = "20us"
//! k = "3us"
//! m = 0.25
//! [hpcc]                   # transport = "hpcc" (super::hpcc::HpccConfig)
//! eta = 0.95
//! ```

use super::dcqcn::DcqcnConfig;
use super::delay_aimd::DelayAimdConfig;
use super::hpcc::HpccConfig;
use super::pfabric::PfabricConfig;
use super::port::PortAgentConfig;
use super::qdisc::QdiscConfig;
use super::rcp::RcpConfig;
use super::timely::TimelyConfig;
use crate::error::{Error, Result};
use crate::systems::soze::SozeConfig;
use crate::systems::sperc::packet::SPercPacketConfig;
use crate::topo::routing::PathSelector;
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// Default payload per packet: 1000 B, as Söze §5 ("NS-3 simulator setup") uses.
pub const DEFAULT_MTU: Bytes = Bytes(1000);
/// Default header: 48 B (the HPCC ns-3 simulator's Ethernet + IP + UDP + custom header size).
pub const DEFAULT_HEADER: Bytes = Bytes(48);

/// Which transport every flow uses.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    /// Reliable sender with [`super::dctcp::Dctcp`].
    #[default]
    Dctcp,
    /// Reliable sender with [`super::dctcp::Reno`], no ECN.
    Reno,
    /// Reliable sender with [`super::dctcp::Reno`] reacting to ECN (RFC 3168).
    RenoEcn,
    /// Reliable sender with [`super::cubic::Cubic`] (RFC 9438), no ECN.
    Cubic,
    /// [`super::udp::UdpSender`] at [`PacketConfig::udp_rate`].
    Udp,
    /// Reliable sender with Söze ([`crate::systems::soze::Soze`], [`PacketConfig::soze`]).
    Soze,
    /// Reliable sender with HPCC ([`super::hpcc::Hpcc`], [`PacketConfig::hpcc`]); needs
    /// `port_agent = "int"`.
    Hpcc,
    /// Reliable sender with Söze §5.3.1's queueing-delay AIMD
    /// ([`super::delay_aimd::DelayAimd`], [`PacketConfig::delay_aimd`]), for use with WRR.
    DelayAimd,
    /// DCQCN's reaction point ([`super::dcqcn::Dcqcn`], [`PacketConfig::dcqcn`]), with ECN
    /// marking (RED) at the switches.
    Dcqcn,
    /// pFabric's minimal host transport ([`super::pfabric::Pfabric`],
    /// [`PacketConfig::pfabric`]: large initial window, fixed small RTO, probe mode), for use
    /// with `qdisc = { kind = "pfabric" }`.
    Pfabric,
    /// RCP's sender ([`super::rcp::Rcp`]): paces at the rate the routers stamp; needs
    /// `port_agent = "rcp"` ([`PacketConfig::rcp`]).
    Rcp,
    /// TIMELY's RTT-gradient rate control ([`super::timely::Timely`],
    /// [`PacketConfig::timely`]).
    Timely,
    /// s-PERC*'s sender ([`crate::systems::sperc::packet::SPercSender`]): one control packet
    /// per flow in flight, paces at the rate it returns; needs `port_agent = "sperc"`
    /// ([`PacketConfig::sperc`], [`PacketConfig::control`]).
    Sperc,
}

/// Control packets ([`super::pkt::PacketKind::Control`]): their size, and how every port
/// carries them. Only transports that send control packets (`sperc`) are affected.
///
/// Every port holds control packets in a FIFO of their own, served with strict priority over
/// the port's queueing discipline (data and ACKs), and rate-limited to `rate` × line rate by
/// a token bucket of `burst` bytes (s-PERC §7.1: "control packets are prioritized at every
/// link, but rate-limited to a fraction (2%-5%) of the link capacity").
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ControlConfig {
    /// Wire size of a control packet (default 64 B, s-PERC Table 6).
    pub size: Bytes,
    /// Fraction of each port's line rate control packets may use, in (0, 1] (default 0.02:
    /// s-PERC Table 6's "ctrl rate=2% (FCT)"; 1 = no limit).
    pub rate: f64,
    /// Token-bucket depth of the rate limiter (default 1 KB = 16 control packets of 64 B).
    pub burst: Bytes,
    /// Bytes of control packets a port may hold; more are dropped (default 16 KB).
    pub buffer: Bytes,
}

impl Default for ControlConfig {
    fn default() -> ControlConfig {
        ControlConfig {
            size: Bytes(64),
            rate: 0.02,
            burst: Bytes(1024),
            buffer: Bytes(16 * 1024),
        }
    }
}

impl ControlConfig {
    /// The share of each link reserved for control packets: `rate`, or 0 when `rate = 1`
    /// (no limit, nothing set aside).
    pub fn reserved(&self) -> f64 {
        if self.rate >= 1.0 {
            0.0
        } else {
            self.rate
        }
    }

    /// Checks value ranges; `at` is the table's path (`packet config.control`).
    pub fn validate(&self, at: &str) -> Result<()> {
        if self.size.0 == 0 || self.size.0 > u32::MAX as u64 / 2 {
            return Err(Error::invalid(
                format!("{at}.size"),
                format!("must be between 1B and 2GB, got {}", self.size),
            ));
        }
        if !(self.rate > 0.0 && self.rate <= 1.0) {
            return Err(Error::invalid(
                format!("{at}.rate"),
                format!("must be in (0, 1], got {}", self.rate),
            ));
        }
        if self.burst < self.size {
            return Err(Error::invalid(
                format!("{at}.burst"),
                format!(
                    "{} is smaller than one control packet ({})",
                    self.burst, self.size
                ),
            ));
        }
        if self.buffer < self.size {
            return Err(Error::invalid(
                format!("{at}.buffer"),
                format!(
                    "{} is smaller than one control packet ({})",
                    self.buffer, self.size
                ),
            ));
        }
        Ok(())
    }
}

/// How packets choose among equal-cost paths ([`crate::topo::PathSelector`]).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RoutingMode {
    /// Per-flow ECMP hash (data and ACKs of a flow hash independently).
    #[default]
    Ecmp,
    /// Hash of the host pair.
    HostPair,
    /// Per-packet spraying.
    Spray,
    /// Always the first equal-cost next hop.
    First,
}

impl RoutingMode {
    /// The path choice of a flow's data packets (flow number `flow`, the engine's `seed`), or
    /// `None` for per-packet spraying, which has no single path. The packet engine routes with
    /// it, and the max-min reference of a packet run puts each flow on the same path.
    pub fn data_selector(self, seed: u64, flow: u64) -> Option<PathSelector> {
        match self {
            RoutingMode::Ecmp => Some(PathSelector::FlowHash { seed, flow }),
            RoutingMode::HostPair => Some(PathSelector::HostPairHash { seed }),
            RoutingMode::First => Some(PathSelector::First),
            RoutingMode::Spray => None,
        }
    }
}

/// What a port reports as its queueing delay (the per-hop value folded into `max_qdelay`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum QdelaySignal {
    /// The packet's own sojourn time in the queue (dequeue time − enqueue time; the Tofino's
    /// `deq_timedelta`, which Söze §4 reads). It describes the queue as it was when the packet
    /// arrived, one sojourn time ago.
    #[default]
    Sojourn,
    /// The delay the queue left behind the packet would cause: bytes still queued when it
    /// leaves, divided by the line rate (the queue length HPCC's INT reports, as a delay). It
    /// describes the queue as it is when the packet leaves.
    Backlog,
}

/// How a host's NIC takes data packets from the host's flows.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HostNic {
    /// When the NIC is idle with an empty queue it takes one data packet from the next flow
    /// that may send (round robin over the host's flows). Data never waits in the NIC queue, so
    /// the NIC reports no queueing delay, and flows whose rates add up to more than the line
    /// rate get equal (unweighted) shares of it.
    #[default]
    Pull,
    /// As `Pull`, but the NIC takes the packet from a ready flow of the highest priority class
    /// (lowest [`crate::workload::FlowSpec::priority`], or the class its transport chose),
    /// round robin within the class: strict priority at the host's uplink, like a multi-queue
    /// NIC (e.g. s-PERC* 'short', whose short flows are "prioritize\[d\] at every link", §7.1).
    /// Each pull asks every flow on the round robin (not the sleeping ones, see
    /// [`super::host`]; and a host shim's `earliest_send`) whether it may send before
    /// choosing, so a pull costs one pass more than `Pull`.
    PullPriority,
    /// Every flow hands a packet to a FIFO in front of the NIC as soon as it may send (its
    /// pacing time, or window space); the NIC sends the FIFO's head whenever it is idle with
    /// nothing in its own queue (ACKs and other control packets go first, as a NIC's
    /// high-priority queue would send them). A data packet's `max_qdelay` starts at the
    /// FIFO's queueing delay ([`PacketConfig::qdelay_signal`], unfiltered), so a delay-based
    /// transport sees its own uplink like any other hop, and flows whose rates add up to more
    /// than the line rate share it by their rates. Meant for paced transports (Söze): an
    /// unpaced window is handed over at once (a host stops handing packets over while its
    /// FIFO holds half the link buffer). The FIFO is not part of the link's queue statistics.
    Queue,
    /// As [`HostNic::Pull`] (data never waits in a NIC queue, the NIC reports no queueing
    /// delay), but the idle NIC takes the packet from the flow that may send with the
    /// smallest start-time fair queueing tag, advanced by wire bytes over the flow's weight
    /// (Goyal, Vin & Cheng, SIGCOMM 1996): flows whose rates add up to more than the line rate
    /// share it in proportion to their weights (weighted max-min at the uplink), and flows
    /// sending below their share leave without waiting behind the others. Scans the host's
    /// active flows per packet.
    Weighted,
}

/// Which ports' queue lengths a run with [`RecordConfig`] samples.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum QueueRecord {
    /// No queue samples.
    None,
    /// Only ports that have queued at least one packet by the sample time (their rows start at
    /// the first sample after that; before it their queue was empty at every sample), which
    /// keeps the table small on large fabrics.
    #[default]
    Queued,
    /// Every port at every sample.
    All,
}

/// Time series a packet run records (`record = { interval = "10us", queues = "queued" }`).
///
/// Every `interval` of simulated time (at `interval`, `2·interval`, …; a sample at time `t`
/// sees every event at or before `t`) the engine samples each started flow that is unfinished
/// or delivered bytes in the interval: its *throughput* (wire bytes of its data packets that
/// reached the receiver during the interval, retransmissions included, × 8 / interval) and its
/// congestion control's *sending rate* (the pacing rate when the scheme paces, otherwise
/// `cwnd · 8 / srtt`, the window over the smoothed RTT; none before the first RTT sample; UDP:
/// its constant rate); and each selected port's queue length in bytes (and as a delay at the
/// port's line rate).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordConfig {
    /// Sampling interval (required, positive).
    pub interval: Time,
    /// Sample the flows (default true).
    #[serde(default = "yes")]
    pub flows: bool,
    /// Which ports' queues to sample (default `"queued"`).
    #[serde(default)]
    pub queues: QueueRecord,
}

fn yes() -> bool {
    true
}

/// Parameters of the reliable transport and its congestion control.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TcpConfig {
    /// Initial window in packets (default 10, RFC 6928).
    pub init_cwnd: u32,
    /// Minimum retransmission timeout (default 1 ms: a choice for datacenter RTTs of a few
    /// microseconds, where Linux's 200 ms would dominate every FCT with a timeout).
    pub min_rto: Time,
    /// Timeout before the first RTT sample (default 1 ms; RFC 6298's 1 s is for the WAN).
    pub initial_rto: Time,
    /// Maximum timeout, bounding the backoff (default 1 s).
    pub max_rto: Time,
    /// DCTCP's gain `g` (default 1/16, DCTCP §3.4).
    pub dctcp_g: f64,
    /// Delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2): the receiver acknowledges every second
    /// in-order full segment, or the first one after [`TcpConfig::delayed_ack_timeout`];
    /// out-of-order data, data filling a hole and the last byte of a flow are acknowledged at
    /// once. With ECN, the ECE echo follows DCTCP's two-state machine (Alizadeh et al.,
    /// SIGCOMM 2010, §3.1 and Fig. 10): when the CE state of arriving packets changes, the
    /// pending packets are acknowledged at once with the old state. Default off (one ACK per
    /// packet).
    pub delayed_ack: bool,
    /// Delayed-ACK timeout (default 100 µs: RFC 1122 allows up to 500 ms and Linux uses 40 ms
    /// at least, both for WAN RTTs; here it stays well below the 1 ms `min_rto`, so a delayed
    /// ACK never causes a spurious timeout).
    pub delayed_ack_timeout: Time,
    /// SACK (RFC 2018 blocks on ACKs, up to 3 with the timestamp option) with RFC 6675's
    /// conservative loss recovery at the sender; `false`: NewReno (RFC 6582). Default on, as
    /// Linux (`net.ipv4.tcp_sack = 1`) for every TCP-family transport (dctcp, reno, reno_ecn,
    /// cubic, soze, hpcc, delay_aimd, dcqcn, timely); UDP ignores it.
    pub sack: bool,
    /// Pacing credit of paced senders: a packet that leaves later than its release time (its
    /// host's NIC was busy with another flow's packet) lets the next one go up to this many
    /// bytes' worth of time sooner, so a flow sharing its NIC still averages its pacing rate.
    /// Default 0 B: none (the next release is one packet time after the actual departure).
    pub pacing_burst: Bytes,
}

impl Default for TcpConfig {
    fn default() -> TcpConfig {
        TcpConfig {
            init_cwnd: 10,
            min_rto: Time::from_ms(1),
            initial_rto: Time::from_ms(1),
            max_rto: Time::from_ms(1000),
            dctcp_g: super::dctcp::DCTCP_G,
            delayed_ack: false,
            delayed_ack_timeout: Time::from_us(100),
            sack: true,
            pacing_burst: Bytes(0),
        }
    }
}

/// Configuration of a packet-level run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PacketConfig {
    /// Payload bytes per full packet (the MSS).
    pub mtu: Bytes,
    /// Header bytes per packet; an ACK is a bare header.
    pub header: Bytes,
    /// Transport of every flow.
    pub transport: TransportKind,
    /// Reliable-transport parameters.
    pub tcp: TcpConfig,
    /// Rate of UDP flows (default: the sender's NIC line rate).
    pub udp_rate: Option<Rate>,
    /// Queueing discipline of every port (host NICs included).
    pub qdisc: QdiscConfig,
    /// Agent of every port.
    pub port_agent: PortAgentConfig,
    /// Equal-cost path choice.
    pub routing: RoutingMode,
    /// Seed of the ECMP hashes (and of any randomness later schemes add).
    pub seed: u64,
    /// Time constant of a low-pass filter applied to each port's queueing-delay samples before
    /// they enter the packets' `max_qdelay` (Söze §4: the Tofino LPF in "sample" mode, "the
    /// smoothed queueing delay over 10 µs"). `None` (default): each packet's own delay.
    pub qdelay_lpf: Option<Time>,
    /// What each port reports as its queueing delay (default: the packet's sojourn time).
    pub qdelay_signal: QdelaySignal,
    /// How host NICs take data packets from their flows (default: pull, round robin).
    pub host_nic: HostNic,
    /// ACKs wait in a FIFO of their own at every port and are sent ahead of the queueing
    /// discipline's packets (HPCC's ns-3 simulator, which Söze's builds on, puts ACKs in the
    /// highest-priority queue), so feedback does not wait behind reverse-path data. Default
    /// off (ACKs share the port's queueing discipline); not in the queue statistics.
    pub ack_first: bool,
    /// Söze's parameters (used with `transport = "soze"`).
    pub soze: SozeConfig,
    /// HPCC's parameters (used with `transport = "hpcc"`).
    pub hpcc: HpccConfig,
    /// The queueing-delay AIMD's parameters (used with `transport = "delay_aimd"`).
    pub delay_aimd: DelayAimdConfig,
    /// DCQCN's parameters (used with `transport = "dcqcn"`).
    pub dcqcn: DcqcnConfig,
    /// Time series to record (default none).
    pub record: Option<RecordConfig>,
    /// pFabric's host parameters (used with `transport = "pfabric"`; they replace
    /// `tcp.init_cwnd` and the RTO settings).
    pub pfabric: PfabricConfig,
    /// RCP's router parameters (used with `port_agent = "rcp"`).
    pub rcp: RcpConfig,
    /// TIMELY's parameters (used with `transport = "timely"`).
    pub timely: TimelyConfig,
    /// Control packets: size, priority queue, rate limit (used by `transport = "sperc"`).
    pub control: ControlConfig,
    /// s-PERC*'s parameters (used with `transport = "sperc"` and `port_agent = "sperc"`).
    pub sperc: SPercPacketConfig,
    /// A buffer shared by the egress ports of each switch, on top of each port's own limit
    /// (the link's `buffer`). Default none: ports have only their own buffers.
    pub shared_buffer: Option<SharedBufferConfig>,
}

/// A switch's packet memory shared by its egress ports (`[engine.shared_buffer]`), as in
/// shared-memory datacenter switches (and the 32 MB switch buffers of the HPCC and Söze
/// evaluations).
///
/// A packet arriving at a switch port is admitted when the switch's queued bytes plus the
/// packet fit in `size` and, with `alpha`, when the port's queued bytes plus the packet stay
/// within `alpha` times the switch's free bytes: the *dynamic threshold* of Choudhury & Hahne
/// ("Dynamic queue length thresholds for shared-memory packet switches", IEEE/ACM ToN 1998),
/// under which one congested port settles at `alpha / (1 + alpha)` of the memory and leaves
/// the rest to the others. Without `alpha` the memory is shared first come, first served.
/// The port's own limit (the link's `buffer`) still applies; set it large to let the shared
/// memory decide alone. Host NICs are not switch ports and are not affected.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SharedBufferConfig {
    /// Bytes of packet memory per switch.
    pub size: Bytes,
    /// Dynamic-threshold factor α (> 0); omit for first-come-first-served sharing.
    #[serde(default)]
    pub alpha: Option<f64>,
}

impl Default for PacketConfig {
    fn default() -> PacketConfig {
        PacketConfig {
            mtu: DEFAULT_MTU,
            header: DEFAULT_HEADER,
            transport: TransportKind::Dctcp,
            tcp: TcpConfig::default(),
            udp_rate: None,
            qdisc: QdiscConfig::DropTail,
            port_agent: PortAgentConfig::None,
            routing: RoutingMode::Ecmp,
            seed: 0,
            qdelay_lpf: None,
            qdelay_signal: QdelaySignal::Sojourn,
            host_nic: HostNic::Pull,
            ack_first: false,
            soze: SozeConfig::default(),
            hpcc: HpccConfig::default(),
            delay_aimd: DelayAimdConfig::default(),
            dcqcn: DcqcnConfig::default(),
            record: None,
            pfabric: PfabricConfig::default(),
            rcp: RcpConfig::default(),
            shared_buffer: None,
            timely: TimelyConfig::default(),
            control: ControlConfig::default(),
            sperc: SPercPacketConfig::default(),
        }
    }
}

impl PacketConfig {
    /// Parses a TOML table; errors name the problem (`packet config: unknown variant ...`).
    pub fn from_toml_str(s: &str) -> Result<PacketConfig> {
        let c: PacketConfig = toml::from_str(s).map_err(|e| {
            // One line (the CLI prints errors on one line): the position, then the message.
            let at = match e.span() {
                Some(span) => {
                    let before = &s[..span.start.min(s.len())];
                    let line = before.matches('\n').count() + 1;
                    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                    format!("packet config (line {line}, column {col})")
                }
                None => "packet config".to_string(),
            };
            Error::invalid(at, e.message().trim())
        })?;
        c.validate()?;
        Ok(c)
    }

    /// Parses JSON; errors as [`PacketConfig::from_toml_str`].
    pub fn from_json_str(s: &str) -> Result<PacketConfig> {
        let c: PacketConfig =
            serde_json::from_str(s).map_err(|e| Error::invalid("packet config", e.to_string()))?;
        c.validate()?;
        Ok(c)
    }

    /// Wire size of a full data packet.
    pub fn mtu_wire(&self) -> Bytes {
        Bytes(self.mtu.0 + self.header.0)
    }

    /// Whether reflected control packets are updated on their way back (s-PERC §2
    /// assumption 6; `[sperc] two_way` with `port_agent = "sperc"`). Then every flow's reverse
    /// route (its ACKs and reflected control packets) is the exact reverse of its data path —
    /// the reverse-direction links between the same nodes ([`crate::topo::Topology::reverse_links`])
    /// instead of an independent ECMP hash — and when a reflected control packet arrives at a
    /// node over link `r`, the agent of `r`'s reverse link (the forward link the packet left
    /// that node by) gets [`super::port::PortAgent::on_reverse`].
    pub fn two_way_control(&self) -> bool {
        self.port_agent == PortAgentConfig::Sperc && self.sperc.two_way
    }

    /// Checks value ranges; errors name the field (`packet config.tcp.init_cwnd`).
    pub fn validate(&self) -> Result<()> {
        let at = |f: &str| format!("packet config.{f}");
        if self.mtu.0 == 0 || self.mtu.0 > u32::MAX as u64 / 2 {
            return Err(Error::invalid(
                at("mtu"),
                format!("must be between 1B and 2GB, got {}", self.mtu),
            ));
        }
        if self.header.0 == 0 || self.header.0 > u32::MAX as u64 / 2 {
            return Err(Error::invalid(
                at("header"),
                format!("must be between 1B and 2GB, got {}", self.header),
            ));
        }
        let t = &self.tcp;
        if t.init_cwnd == 0 {
            return Err(Error::invalid(
                at("tcp.init_cwnd"),
                "must be at least 1 packet",
            ));
        }
        if t.min_rto.0 == 0 || t.initial_rto.0 == 0 {
            return Err(Error::invalid(
                at("tcp.min_rto"),
                "min_rto and initial_rto must be positive",
            ));
        }
        if t.max_rto < t.min_rto {
            return Err(Error::invalid(
                at("tcp.max_rto"),
                format!("{} is below min_rto {}", t.max_rto, t.min_rto),
            ));
        }
        if !(t.dctcp_g > 0.0 && t.dctcp_g <= 1.0) {
            return Err(Error::invalid(
                at("tcp.dctcp_g"),
                format!("must be in (0, 1], got {}", t.dctcp_g),
            ));
        }
        if t.delayed_ack_timeout.0 == 0 {
            return Err(Error::invalid(
                at("tcp.delayed_ack_timeout"),
                "must be positive",
            ));
        }
        if self.udp_rate == Some(Rate(0)) {
            return Err(Error::invalid(at("udp_rate"), "must be positive"));
        }
        self.qdisc.validate()?;
        if self.qdelay_lpf == Some(Time::ZERO) {
            return Err(Error::invalid(
                at("qdelay_lpf"),
                "must be positive (omit it for unfiltered per-packet delays)",
            ));
        }
        if let Some(r) = &self.record {
            if r.interval.0 == 0 {
                return Err(Error::invalid(
                    at("record.interval"),
                    "must be positive, such as \"10us\"",
                ));
            }
        }
        self.soze.validate(&at("soze"))?;
        self.hpcc.validate(&at("hpcc"))?;
        self.delay_aimd.validate(&at("delay_aimd"))?;
        self.dcqcn.validate(&at("dcqcn"))?;
        self.pfabric.validate(&at("pfabric"))?;
        self.rcp.validate(&at("rcp"))?;
        if let Some(sb) = &self.shared_buffer {
            if sb.size < self.mtu_wire() {
                return Err(Error::invalid(
                    at("shared_buffer.size"),
                    format!(
                        "{} is smaller than one packet ({})",
                        sb.size,
                        self.mtu_wire()
                    ),
                ));
            }
            if let Some(a) = sb.alpha {
                if !(a.is_finite() && a > 0.0) {
                    return Err(Error::invalid(
                        at("shared_buffer.alpha"),
                        format!("must be a positive number, got {a}"),
                    ));
                }
            }
        }
        self.timely.validate(&at("timely"))?;
        self.control.validate(&at("control"))?;
        self.sperc.validate(&at("sperc"))?;
        if self.transport == TransportKind::Sperc && self.port_agent != PortAgentConfig::Sperc {
            return Err(Error::invalid(
                at("port_agent"),
                "transport \"sperc\" needs the links' s-PERC* agents: set port_agent = \"sperc\"",
            ));
        }
        if self.transport == TransportKind::Sperc {
            self.sperc
                .check_qdisc(&self.qdisc, &at("sperc.short_flows"))?;
        }
        if self.two_way_control() && self.routing == RoutingMode::Spray {
            return Err(Error::invalid(
                at("sperc.two_way"),
                "two-way control updates send reflected control packets back along the \
                 reversed data path, which spraying does not have: use routing = \"ecmp\", \
                 \"host_pair\" or \"first\", or set two_way = false",
            ));
        }
        if self.port_agent == PortAgentConfig::Sperc
            && self.sperc.headroom + self.control.reserved() >= 1.0
        {
            return Err(Error::invalid(
                at("sperc.headroom"),
                format!(
                    "headroom {} plus control.rate {} leave no capacity",
                    self.sperc.headroom, self.control.rate
                ),
            ));
        }
        if self.transport == TransportKind::Rcp && self.port_agent != PortAgentConfig::Rcp {
            return Err(Error::invalid(
                at("port_agent"),
                "transport \"rcp\" paces at the routers' rate: set port_agent = \"rcp\"",
            ));
        }
        if self.transport == TransportKind::Hpcc && self.port_agent != PortAgentConfig::Int {
            return Err(Error::invalid(
                at("port_agent"),
                "transport \"hpcc\" reads per-hop INT records: set port_agent = \"int\"",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::qdisc::EcnThreshold;
    use super::*;

    #[test]
    fn parses_toml_with_defaults_and_names() {
        let c = PacketConfig::from_toml_str(
            "mtu = \"1500B\"\ntransport = \"dctcp\"\nqdisc = { kind = \"ecn\", k = { packets = 15 } }\nseed = 3\n[tcp]\nmin_rto = \"200us\"\n",
        )
        .unwrap();
        assert_eq!(c.mtu, Bytes(1500));
        assert_eq!(c.header, DEFAULT_HEADER);
        assert_eq!(
            c.qdisc,
            QdiscConfig::Ecn {
                k: EcnThreshold::Packets(15)
            }
        );
        assert_eq!(c.tcp.min_rto, Time::from_us(200));
        assert_eq!(c.tcp.init_cwnd, 10);
        assert_eq!(c.seed, 3);
        assert!(!c.tcp.delayed_ack, "one ACK per packet by default");
        assert!(c.tcp.sack, "SACK on by default, as Linux");
        let c = PacketConfig::from_toml_str("[tcp]\nsack = false\n").unwrap();
        assert!(!c.tcp.sack);
        let c = PacketConfig::from_toml_str(
            "transport = \"pfabric\"\nqdisc = { kind = \"pfabric\" }\n[pfabric]\nrto = \"30us\"\n",
        )
        .unwrap();
        assert_eq!(c.transport, TransportKind::Pfabric);
        assert_eq!(c.qdisc, QdiscConfig::Pfabric);
        assert_eq!(c.pfabric.rto, Time::from_us(30));
        assert_eq!(c.pfabric.init_cwnd, 120, "s-PERC Table 6");
        let e = PacketConfig::from_toml_str("[pfabric]\ninit_cwnd = 0\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "packet config.pfabric.init_cwnd: must be at least 1 packet"
        );
        let e = PacketConfig::from_toml_str("[pfabric]\nprobe_after = 0\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("packet config.pfabric.probe_after:"),
            "{e}"
        );
        let c = PacketConfig::from_toml_str(
            "[tcp]\ndelayed_ack = true\ndelayed_ack_timeout = \"50us\"\n",
        )
        .unwrap();
        assert!(c.tcp.delayed_ack);
        assert_eq!(c.tcp.delayed_ack_timeout, Time::from_us(50));
        let e = PacketConfig::from_toml_str("[tcp]\ndelayed_ack_timeout = \"0us\"\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "packet config.tcp.delayed_ack_timeout: must be positive"
        );
    }

    #[test]
    fn unknown_names_and_bad_values_are_errors() {
        let e = PacketConfig::from_toml_str("transport = \"bbr\"").unwrap_err();
        let s = e.to_string();
        assert_eq!(
            s,
            "packet config (line 1, column 13): unknown variant `bbr`, expected one of \
             `dctcp`, `reno`, `reno_ecn`, `cubic`, `udp`, `soze`, `hpcc`, `delay_aimd`, `dcqcn`, \
             `pfabric`, `rcp`, `timely`, `sperc`"
        );
        assert!(s.contains("unknown variant `bbr`"), "{s}");
        let c = PacketConfig::from_toml_str("transport = \"cubic\"").unwrap();
        assert_eq!(c.transport, TransportKind::Cubic);
        assert!(s.contains("dctcp"), "lists the known names: {s}");
        let e = PacketConfig::from_toml_str("qdisc = { kind = \"wred\" }").unwrap_err();
        assert!(e.to_string().contains("unknown variant `wred`"), "{e}");
        let e = PacketConfig::from_toml_str("mtu_bytes = 9000").unwrap_err();
        assert!(e.to_string().contains("unknown field `mtu_bytes`"), "{e}");
        let e = PacketConfig::from_json_str("{\"tcp\": {\"init_cwnd\": 0}}").unwrap_err();
        assert_eq!(
            e.to_string(),
            "packet config.tcp.init_cwnd: must be at least 1 packet"
        );
        let e = PacketConfig::from_toml_str("qdisc = { kind = \"ecn\", k = { packets = 0 } }")
            .unwrap_err();
        assert!(e.to_string().starts_with("packet config.qdisc.k:"), "{e}");
    }
}
