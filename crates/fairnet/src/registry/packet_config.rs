//! The scenario's `[engine]` table for the packet engine (serde; unknown keys and names are
//! errors): the engine's own fields ([`EngineConfig`]) flat beside the scheme choices
//! (`transport`, `qdisc`, `port_agent`) and each scheme's parameter section, which the scheme
//! defines in its own file.
//!
//! ```toml
//! mtu = "1000B"            # payload bytes per packet
//! header = "48B"
//! transport = "dctcp"      # dctcp | reno | reno_ecn | cubic | udp | soze | hpcc | delay_aimd | dcqcn | pfabric | rcp | timely | sperc
//! qdisc = { kind = "ecn", k = { packets = 15 } }
//! port_agent = "none"      # none | int | rcp | sperc | eba (HPCC needs "int", RCP "rcp", s-PERC* "sperc")
//! host_shim = "none"       # none | wvcc | acdc | scc | eba (hypervisor shims over the transport)
//! qdelay_lpf = "10us"      # optional: Söze §4's "sample" low-pass filter of maxQD
//! routing = "ecmp"         # ecmp | host_pair | spray | flowcell | first
//! record = { interval = "10us", flows = true, queues = "queued" }  # optional time series
//! seed = 1
//! [tcp]
//! init_cwnd = 10
//! min_rto = "1ms"
//! [soze]                   # transport = "soze" (crate::systems::soze::SozeConfig)
//! p = "20us"
//! k = "3us"
//! m = 0.25
//! [hpcc]                   # transport = "hpcc" (crate::schemes::hpcc::HpccConfig)
//! eta = 0.95
//! [wvcc]                   # host_shim = "wvcc" (crate::systems::uranus::wvcc::WvccConfig)
//! g = 0.0625
//! [d2tcp]                  # transport = "d2tcp" (crate::schemes::d2tcp::D2tcpConfig)
//! d_min = 0.5
//! d_max = 2.0
//! [l2dct]                  # transport = "l2dct" (crate::schemes::l2dct::L2dctConfig)
//! w_max = 2.5
//! w_min = 0.125
//! full_service = "1MB"
//! ```

use super::qdisc::QdiscConfig;
use super::shim::HostShimKind;
use super::PortAgentConfig;
use crate::engine::packet::{
    ControlConfig, EngineConfig, HostNic, PfcConfig, QdelaySignal, RecordConfig, RoutingMode,
    SharedBufferConfig, DEFAULT_HEADER, DEFAULT_MTU,
};
use crate::error::{Error, Result};
use crate::schemes::acdc::AcdcConfig;
use crate::schemes::d2tcp::D2tcpConfig;
use crate::schemes::dcqcn::DcqcnConfig;
use crate::schemes::delay_aimd::DelayAimdConfig;
use crate::schemes::hpcc::HpccConfig;
use crate::schemes::l2dct::L2dctConfig;
use crate::schemes::pfabric::PfabricConfig;
use crate::schemes::rcp::RcpConfig;
use crate::schemes::timely::TimelyConfig;
use crate::systems::eba::vms::{EbaPacketConfig, RateControl};
use crate::systems::soze::SozeConfig;
use crate::systems::sperc::packet::SPercPacketConfig;
use crate::systems::uranus::scc_shim::SccConfig;
use crate::systems::uranus::wvcc::WvccConfig;
use crate::units::{Bytes, Rate, Time};
use crate::workload::FlowSpec;
use serde::{Deserialize, Serialize};

/// Which transport every flow uses.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    /// Reliable sender with [`crate::schemes::dctcp::Dctcp`].
    #[default]
    Dctcp,
    /// Reliable sender with [`crate::schemes::dctcp::Reno`], no ECN.
    Reno,
    /// Reliable sender with [`crate::schemes::dctcp::Reno`] reacting to ECN (RFC 3168).
    RenoEcn,
    /// Reliable sender with [`crate::schemes::cubic::Cubic`] (RFC 9438), no ECN.
    Cubic,
    /// the engine's constant-rate sender at [`PacketConfig::udp_rate`].
    Udp,
    /// Reliable sender with Söze ([`crate::systems::soze::Soze`], [`PacketConfig::soze`]).
    Soze,
    /// Reliable sender with HPCC ([`crate::schemes::hpcc::Hpcc`], [`PacketConfig::hpcc`]); needs
    /// `port_agent = "int"`.
    Hpcc,
    /// Reliable sender with Söze §5.3.1's queueing-delay AIMD
    /// ([`crate::schemes::delay_aimd::DelayAimd`], [`PacketConfig::delay_aimd`]), for use with WRR.
    DelayAimd,
    /// DCQCN's reaction point ([`crate::schemes::dcqcn::Dcqcn`], [`PacketConfig::dcqcn`]), with ECN
    /// marking (RED) at the switches.
    Dcqcn,
    /// pFabric's minimal host transport ([`crate::schemes::pfabric::Pfabric`],
    /// [`PacketConfig::pfabric`]: large initial window, fixed small RTO, probe mode), for use
    /// with `qdisc = { kind = "pfabric" }`.
    Pfabric,
    /// RCP's sender ([`crate::schemes::rcp::Rcp`]): paces at the rate the routers stamp; needs
    /// `port_agent = "rcp"` ([`PacketConfig::rcp`]).
    Rcp,
    /// TIMELY's RTT-gradient rate control ([`crate::schemes::timely::Timely`],
    /// [`PacketConfig::timely`]).
    Timely,
    /// s-PERC*'s sender ([`crate::systems::sperc::packet::SPercSender`]): one control packet
    /// per flow in flight, paces at the rate it returns; needs `port_agent = "sperc"`
    /// ([`PacketConfig::sperc`], [`PacketConfig::control`]).
    Sperc,
    /// Reliable sender with D2TCP ([`crate::schemes::d2tcp::D2tcp`]): DCTCP whose cut is
    /// gamma-corrected by each flow's deadline (`deadline` of the workload's flows); a flow
    /// without a deadline behaves as DCTCP. Gain `tcp.dctcp_g`.
    D2tcp,
    /// Reliable sender with L2DCT ([`crate::schemes::l2dct::L2dct`]): DCTCP whose increase and
    /// cut are weighted by the flow's attained service. Gain `tcp.dctcp_g`.
    L2dct,
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
            dctcp_g: crate::schemes::dctcp::DCTCP_G,
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
    /// Hypervisor shim of every host (default none).
    pub host_shim: HostShimKind,
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
    /// Lossless switches with priority flow control (default false; needs `shared_buffer`;
    /// [`PfcConfig`]).
    pub lossless: bool,
    /// PFC thresholds (used with `lossless = true`).
    pub pfc: PfcConfig,
    /// WVCC's parameters (used with `host_shim = "wvcc"`).
    pub wvcc: WvccConfig,
    /// AC/DC's parameters (used with `host_shim = "acdc"`).
    pub acdc: AcdcConfig,
    /// SCC's virtual tunnels (used with `host_shim = "scc"`).
    pub scc: SccConfig,
    /// D2TCP's parameters (used with `transport = "d2tcp"`).
    pub d2tcp: D2tcpConfig,
    /// L2DCT's parameters (used with `transport = "l2dct"`).
    pub l2dct: L2dctConfig,
    /// Per-flow transports overriding [`PacketConfig::transport`], by flow index (`None`: the
    /// default). Not part of the `[engine]` table: a scenario sets them on its flow rows
    /// (`workload.flows[i].transport`, MAY §IV.C mixes one CBR flow with TCP flows), and a
    /// program sets them here. Empty (default): every flow uses `transport`.
    #[serde(skip)]
    #[schemars(skip)]
    pub flow_transports: Vec<Option<FlowTransport>>,
    /// Transports by flow tag, overriding [`PacketConfig::transport`] for every flow carrying
    /// the tag (`tag_transports = [{ tag = 0, transport = "d2tcp" }, { tag = 1, transport =
    /// "l2dct" }]`: Uranus §5.2's deadline-sensitive flows over D2TCP and completion-sensitive
    /// flows over L2DCT in one run). Resolved into [`PacketConfig::flow_transports`] when the
    /// run is built; a flow's own transport (its entry there, e.g. an inline flow row's
    /// `transport`) wins over its tag's. Default none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tag_transports: Vec<TagTransport>,
    /// eBA's VMs, rate control and LRC parameters (used with `host_shim = "eba"` and
    /// `port_agent = "eba"`).
    pub eba: EbaPacketConfig,
    /// Data paths given by hand: flow `flow` (its index in the workload) takes the nodes
    /// `nodes`, from its source to its destination (`paths = [{ flow = 3, nodes = [7, 19, 27,
    /// 33, 25, 16, 0] }]`), whatever `routing` would choose; its ACKs and the other flows are
    /// routed as usual. Used to run the path assignment another simulator chose (read from its
    /// packet trace). Not with `routing = "spray"` or `"flowcell"`. Default none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<PinnedPath>,
}

/// One flow's data path given by hand ([`PacketConfig::paths`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinnedPath {
    /// The flow's index in the workload.
    pub flow: u32,
    /// The nodes it crosses, its source first and its destination last.
    pub nodes: Vec<u32>,
}

/// A flow's own transport, overriding the run's [`PacketConfig::transport`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowTransport {
    /// The transport.
    pub kind: TransportKind,
    /// Sending rate with `kind = Udp` (default [`PacketConfig::udp_rate`], then the NIC's
    /// line rate); ignored by the others.
    pub udp_rate: Option<Rate>,
}

/// The transport of every flow with one tag ([`PacketConfig::tag_transports`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TagTransport {
    /// The flows' tag (the workload's `tag`).
    pub tag: u32,
    /// Their transport.
    pub transport: TransportKind,
    /// Their sending rate with `transport = "udp"` (default `udp_rate`, then the NIC's line
    /// rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp_rate: Option<Rate>,
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
            host_shim: HostShimKind::None,
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
            lossless: false,
            pfc: PfcConfig::default(),
            timely: TimelyConfig::default(),
            control: ControlConfig::default(),
            sperc: SPercPacketConfig::default(),
            wvcc: WvccConfig::default(),
            acdc: AcdcConfig::default(),
            scc: SccConfig::default(),
            d2tcp: D2tcpConfig::default(),
            l2dct: L2dctConfig::default(),
            flow_transports: Vec::new(),
            tag_transports: Vec::new(),
            eba: EbaPacketConfig::default(),
            paths: Vec::new(),
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

    /// The transport of flows tagged `tag` that name none of their own: its
    /// [`PacketConfig::tag_transports`] entry's, else the run's [`PacketConfig::transport`].
    pub fn tag_transport(&self, tag: u32) -> FlowTransport {
        match self.tag_transports.iter().find(|t| t.tag == tag) {
            Some(t) => FlowTransport {
                kind: t.transport,
                udp_rate: t.udp_rate,
            },
            None => FlowTransport {
                kind: self.transport,
                udp_rate: None,
            },
        }
    }

    /// Resolves [`PacketConfig::tag_transports`] for `flows` into
    /// [`PacketConfig::flow_transports`] (a flow's own entry there wins). Errors name a tag no
    /// flow carries (`packet config.tag_transports[1].tag: no flow has tag 7`), most likely a
    /// typo.
    pub fn resolve_tag_transports(&mut self, flows: &[FlowSpec]) -> Result<()> {
        if self.tag_transports.is_empty() {
            return Ok(());
        }
        for (i, t) in self.tag_transports.iter().enumerate() {
            if !flows.iter().any(|f| f.tag == t.tag) {
                return Err(Error::invalid(
                    format!("packet config.tag_transports[{i}].tag"),
                    format!("no flow has tag {}", t.tag),
                ));
            }
        }
        let by_tag: Vec<FlowTransport> = flows.iter().map(|f| self.tag_transport(f.tag)).collect();
        self.flow_transports.resize(flows.len(), None);
        for (own, t) in self.flow_transports.iter_mut().zip(by_tag) {
            own.get_or_insert(t);
        }
        Ok(())
    }

    /// [`PacketConfig::paths`] as the engine takes them (links by flow index), checked against
    /// the topology and the flows; errors name the entry (`packet config.paths[1].nodes[2]:
    /// no link node 18 -> node 30`, `packet config.paths[0].nodes: starts at node 3, not at
    /// flow 4's src node 2`).
    pub fn pinned_paths(
        &self,
        topo: &crate::topo::Topology,
        flows: &[FlowSpec],
    ) -> Result<Vec<Option<Vec<crate::ids::LinkId>>>> {
        use crate::ids::NodeId;
        if self.paths.is_empty() {
            return Ok(Vec::new());
        }
        let at = |i: usize, f: &str| format!("packet config.paths[{i}].{f}");
        if self.routing.per_packet() {
            return Err(Error::invalid(
                "packet config.paths",
                "packets of a sprayed flow choose their hops as they go: pin paths with \
                 routing = \"ecmp\", \"host_pair\" or \"first\"",
            ));
        }
        let mut out = vec![None; flows.len()];
        for (i, p) in self.paths.iter().enumerate() {
            let k = p.flow as usize;
            let Some(f) = flows.get(k) else {
                return Err(Error::invalid(
                    at(i, "flow"),
                    format!("no flow {k} (the workload has {})", flows.len()),
                ));
            };
            if out[k].is_some() {
                return Err(Error::invalid(
                    at(i, "flow"),
                    format!("flow {k} pinned twice"),
                ));
            }
            let nodes: Vec<NodeId> = p.nodes.iter().map(|&n| NodeId(n)).collect();
            for (end, want, got) in [
                ("starts", f.src, nodes.first()),
                ("ends", f.dst, nodes.last()),
            ] {
                if got != Some(&want) {
                    let got = got.map_or("nowhere".to_string(), |n| n.to_string());
                    let which = if end == "starts" { "src" } else { "dst" };
                    return Err(Error::invalid(
                        at(i, "nodes"),
                        format!("{end} at {got}, not at flow {k}'s {which} {want}"),
                    ));
                }
            }
            let links = crate::topo::explicit_path(topo, &nodes).map_err(|e| match e {
                Error::Invalid { at: field, msg } => {
                    Error::invalid(at(i, &field.replace("explicit path", "nodes")), msg)
                }
                other => other,
            })?;
            out[k] = Some(links);
        }
        Ok(out)
    }

    /// Wire size of a full data packet.
    pub fn mtu_wire(&self) -> Bytes {
        Bytes(self.mtu.0 + self.header.0)
    }

    /// Whether reflected control packets are updated on their way back (s-PERC §2
    /// assumption 6; `[sperc] two_way` with `port_agent = "sperc"`): the engine's
    /// [`EngineConfig::two_way_control`].
    pub fn two_way_control(&self) -> bool {
        self.port_agent == PortAgentConfig::Sperc && self.sperc.two_way
    }

    /// The engine's own fields. pFabric's host transport has a fixed RTO without backoff
    /// (pFabric §4.3, s-PERC Table 6), so with `transport = "pfabric"` its `rto` replaces the
    /// `tcp` timeouts.
    pub fn engine(&self) -> EngineConfig {
        let t = &self.tcp;
        let (min_rto, initial_rto, max_rto) = if self.transport == TransportKind::Pfabric {
            let rto = self.pfabric.rto;
            (rto, rto, rto)
        } else {
            (t.min_rto, t.initial_rto, t.max_rto)
        };
        EngineConfig {
            mtu: self.mtu,
            header: self.header,
            min_rto,
            initial_rto,
            max_rto,
            sack: t.sack,
            pacing_burst: t.pacing_burst,
            delayed_ack: t.delayed_ack,
            delayed_ack_timeout: t.delayed_ack_timeout,
            routing: self.routing,
            seed: self.seed,
            qdelay_lpf: self.qdelay_lpf,
            qdelay_signal: self.qdelay_signal,
            host_nic: self.host_nic,
            ack_first: self.ack_first,
            record: self.record,
            control: self.control,
            shared_buffer: self.shared_buffer,
            pfc: self.lossless.then_some(self.pfc),
            two_way_control: self.two_way_control(),
        }
    }

    /// Checks value ranges; errors name the field (`packet config.tcp.init_cwnd`).
    pub fn validate(&self) -> Result<()> {
        let at = |f: &str| format!("packet config.{f}");
        if self.two_way_control() && self.routing.per_packet() {
            return Err(Error::invalid(
                at("sperc.two_way"),
                "two-way control updates send reflected control packets back along the \
                 reversed data path, which spraying does not have: use routing = \"ecmp\", \
                 \"host_pair\" or \"first\", or set two_way = false",
            ));
        }
        // The engine's own fields, with the user's timeouts (not pFabric's replacement).
        EngineConfig {
            min_rto: self.tcp.min_rto,
            initial_rto: self.tcp.initial_rto,
            max_rto: self.tcp.max_rto,
            ..self.engine()
        }
        .validate("packet config")?;
        let t = &self.tcp;
        if t.init_cwnd == 0 {
            return Err(Error::invalid(
                at("tcp.init_cwnd"),
                "must be at least 1 packet",
            ));
        }
        if !(t.dctcp_g > 0.0 && t.dctcp_g <= 1.0) {
            return Err(Error::invalid(
                at("tcp.dctcp_g"),
                format!("must be in (0, 1], got {}", t.dctcp_g),
            ));
        }
        if self.udp_rate == Some(Rate(0)) {
            return Err(Error::invalid(at("udp_rate"), "must be positive"));
        }
        self.qdisc.validate()?;
        if self.lossless {
            // Schemes that recover from (or are built on) drops cannot run lossless.
            let dropper = match (&self.qdisc, self.transport) {
                (QdiscConfig::Pfabric, _) => Some("qdisc `pfabric` evicts packets"),
                (QdiscConfig::May(_), _) => Some("qdisc `may` acts by dropping"),
                (_, TransportKind::Pfabric) => Some("transport `pfabric` relies on drops"),
                _ => None,
            };
            if let Some(why) = dropper {
                return Err(Error::invalid(
                    at("lossless"),
                    format!("{why}, which a lossless fabric never has: use another scheme"),
                ));
            }
        }
        self.soze.validate(&at("soze"))?;
        self.hpcc.validate(&at("hpcc"))?;
        self.delay_aimd.validate(&at("delay_aimd"))?;
        self.dcqcn.validate(&at("dcqcn"))?;
        self.pfabric.validate(&at("pfabric"))?;
        self.rcp.validate(&at("rcp"))?;
        self.timely.validate(&at("timely"))?;
        self.sperc.validate(&at("sperc"))?;
        self.wvcc.validate(&at("wvcc"))?;
        self.acdc.validate(&at("acdc"))?;
        self.scc.validate(&at("scc"))?;
        self.d2tcp.validate(&at("d2tcp"))?;
        self.l2dct.validate(&at("l2dct"))?;
        self.check_transport(self.transport, &at("port_agent"))?;
        for (i, t) in self.flow_transports.iter().enumerate() {
            let Some(t) = t else { continue };
            self.check_transport(t.kind, &format!("flows[{i}].transport"))?;
            if t.udp_rate == Some(Rate(0)) {
                return Err(Error::invalid(
                    format!("flows[{i}].udp_rate"),
                    "must be positive",
                ));
            }
        }
        for (i, t) in self.tag_transports.iter().enumerate() {
            let at = |f: &str| at(&format!("tag_transports[{i}].{f}"));
            if let Some(j) = self.tag_transports[..i].iter().position(|u| u.tag == t.tag) {
                return Err(Error::invalid(
                    at("tag"),
                    format!(
                        "tag {} already has a transport (tag_transports[{j}])",
                        t.tag
                    ),
                ));
            }
            self.check_transport(t.transport, &at("transport"))?;
            match t.udp_rate {
                Some(Rate(0)) => return Err(Error::invalid(at("udp_rate"), "must be positive")),
                Some(_) if t.transport != TransportKind::Udp => {
                    return Err(Error::invalid(
                        at("udp_rate"),
                        "is the rate of a constant-rate flow: set transport = \"udp\"",
                    ))
                }
                _ => {}
            }
        }
        if self.host_shim == HostShimKind::Eba || self.port_agent == PortAgentConfig::Eba {
            self.eba.validate(&at("eba"))?;
        }
        if self.host_shim == HostShimKind::Eba && self.eba.rate_control == RateControl::Lrc {
            if self.port_agent != PortAgentConfig::Eba {
                return Err(Error::invalid(
                    at("port_agent"),
                    "eBA's LRC reads the switches' rate factors: set port_agent = \"eba\"",
                ));
            }
            if !matches!(self.routing, RoutingMode::HostPair | RoutingMode::First) {
                return Err(Error::invalid(
                    at("routing"),
                    "eBA's control packets must follow their VM-flow's data (§VI-C): set \
                     routing = \"host_pair\" (or \"first\")",
                ));
            }
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
        Ok(())
    }

    /// Checks that the ports carry what transport `kind` needs; `at` names the field to fix
    /// (`packet config.port_agent` for the run's transport, the flow for a flow's own).
    fn check_transport(&self, kind: TransportKind, at: &str) -> Result<()> {
        let (agent, why) = match kind {
            TransportKind::Sperc => (
                PortAgentConfig::Sperc,
                "transport \"sperc\" needs the links' s-PERC* agents: set port_agent = \"sperc\"",
            ),
            TransportKind::Rcp => (
                PortAgentConfig::Rcp,
                "transport \"rcp\" paces at the routers' rate: set port_agent = \"rcp\"",
            ),
            TransportKind::Hpcc => (
                PortAgentConfig::Int,
                "transport \"hpcc\" reads per-hop INT records: set port_agent = \"int\"",
            ),
            _ => return Ok(()),
        };
        if self.port_agent != agent {
            return Err(Error::invalid(at, why));
        }
        if kind == TransportKind::Sperc {
            self.sperc
                .check_qdisc(&self.qdisc, "packet config.sperc.short_flows")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schemes::fifo::EcnThreshold;

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
             `pfabric`, `rcp`, `timely`, `sperc`, `d2tcp`, `l2dct`"
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
