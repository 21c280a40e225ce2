//! The engine's own configuration: what the mechanism needs, and nothing about any scheme.
//!
//! [`EngineConfig`] is what [`super::PacketSim::new`] takes beside a scheme set; the scenario's
//! `[engine]` table (`crate::registry::PacketConfig`) carries these fields flat beside the
//! scheme choices and their parameter sections, and builds this from them. The tables below
//! ([`ControlConfig`], [`RecordConfig`], [`SharedBufferConfig`], …) are the scenario's sections
//! as they are.

use crate::error::{Error, Result};
use crate::topo::routing::PathSelector;
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

/// Control packets ([`super::pkt::PacketKind::Control`]): their size, and how every port
/// carries them. Only transports that send control packets are affected.
///
/// Every port holds control packets in a FIFO of their own, served with strict priority over
/// the port's queueing discipline (data and ACKs), and rate-limited to `rate` × line rate by
/// a token bucket of `burst` bytes (s-PERC §7.1: "control packets are prioritized at every
/// link, but rate-limited to a fraction (2%-5%) of the link capacity").
///
/// With `loss` > 0 every port also drops each control packet that reaches it with that
/// probability (forward and reflected alike), drawn from a generator seeded by the run's
/// `seed`: a lossy network for control packets only, the data packets untouched.
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
    /// Probability, in [0, 1), that a port drops a control packet reaching it, independently
    /// at every port (default 0: none). A packet crossing `k` links in all is lost with
    /// probability `1 − (1 − loss)^k`. Counted in the link's `ctrl_drops` and `drops`.
    pub loss: f64,
}

impl Default for ControlConfig {
    fn default() -> ControlConfig {
        ControlConfig {
            size: Bytes(64),
            rate: 0.02,
            burst: Bytes(1024),
            buffer: Bytes(16 * 1024),
            loss: 0.0,
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
        if !(0.0..1.0).contains(&self.loss) {
            return Err(Error::invalid(
                format!("{at}.loss"),
                format!("must be in [0, 1), got {}", self.loss),
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
    /// Flowcells (Presto, He et al., SIGCOMM 2015, §3): a flow's data is cut into cells of
    /// [`FLOWCELL_BYTES`] consecutive bytes, each cell sprayed as one unit (every packet of a
    /// cell takes the path hashed from the flow and the cell's number; ACKs are sprayed per
    /// packet). The receiver holds a data packet of a later cell than its next expected byte
    /// until the gap is filled or [`FLOWCELL_HOLD`] has passed (Presto §3.2's receive-side
    /// reassembly below TCP), so reordering between cells does not look like loss; a gap inside
    /// a cell is a loss and reaches the transport at once.
    Flowcell,
}

/// Presto's flowcell: 64 KB, "the maximum TSO segment size" (He et al., SIGCOMM 2015, §3.1).
pub const FLOWCELL_BYTES: u64 = 64 * 1024;

/// How long a receiver holds data of a later flowcell waiting for the gap before it (Presto
/// §3.2 flushes on a timeout; its adaptive value is not reproduced): 500 µs, the queueing
/// delay of a 65-packet ECN threshold at 1 Gb/s, the largest difference between two paths'
/// queues under DCTCP's marking in Uranus §5.2's network.
pub const FLOWCELL_HOLD: Time = Time::from_us(500);

impl RoutingMode {
    /// The path choice of a flow's data packets (flow number `flow`, the engine's `seed`), or
    /// `None` for per-packet spraying, which has no single path. The packet engine routes with
    /// it, and the max-min reference of a packet run puts each flow on the same path.
    pub fn data_selector(self, seed: u64, flow: u64) -> Option<PathSelector> {
        match self {
            RoutingMode::Ecmp => Some(PathSelector::FlowHash { seed, flow }),
            RoutingMode::HostPair => Some(PathSelector::HostPairHash { seed }),
            RoutingMode::First => Some(PathSelector::First),
            RoutingMode::Spray | RoutingMode::Flowcell => None,
        }
    }

    /// Packets choose their paths hop by hop (spraying, flowcells): a flow has no one path.
    pub fn per_packet(self) -> bool {
        matches!(self, RoutingMode::Spray | RoutingMode::Flowcell)
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
/// its constant rate); each selected port's queue length in bytes (and as a delay at the
/// port's line rate); and every port's queueing-discipline gauges (what the discipline
/// publishes of its own state through [`super::Qdisc::gauges`], e.g. a control variable;
/// disciplines that publish none add nothing).
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

/// Priority flow control (IEEE 802.1Qbb) over a lossless switch memory (`lossless = true`,
/// thresholds in `[engine.pfc]`), as the HPCC ns-3 simulator's switch MMU computes it
/// (`switch-mmu.cc`, thresholds set in `third.cc`).
///
/// Each switch accounts the bytes it holds per *ingress* port (the link a packet arrived on)
/// and priority (the packet's `priority`, modulo 8): the first `reserve` bytes, then shared
/// bytes up to the pause threshold, then up to `headroom` bytes. An ingress priority is paused
/// (a PFC frame to the upstream port) when it holds headroom bytes or its shared bytes reach
/// the threshold, and resumed when its headroom is empty and its shared bytes are zero or
/// `xon_offset` below the threshold (static: at most `xon`). A packet is dropped only when the
/// headroom is full too. The threshold is static (`xoff`) or dynamic: the switch's free shared
/// memory (`shared_buffer.size` less every port's headroom and reserve and the shared bytes in
/// use) shifted right by `alpha_shift`, one less for each doubling of the port's rate above the
/// hosts' NIC rate (the reference's `pfc_a_shift`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PfcConfig {
    /// Static pause threshold of an ingress priority's shared bytes; omit for the dynamic one.
    pub xoff: Option<Bytes>,
    /// Static resume threshold (with `xoff`; default `xoff` less `xon_offset`).
    pub xon: Option<Bytes>,
    /// Dynamic threshold: free shared memory >> `alpha_shift` (default 3, i.e. 1/8: the
    /// reference's `shift`).
    pub alpha_shift: u8,
    /// Dynamic threshold: resume once shared bytes + this ≤ the threshold (default 3 KiB, the
    /// reference's `resume_offset`).
    pub xon_offset: Bytes,
    /// Bytes per ingress port and priority held before the shared pool (default 4 KiB, the
    /// reference's `reserve`).
    pub reserve: Bytes,
    /// Headroom per ingress port; default 3 × its link's rate × delay (the reference's
    /// `third.cc`).
    pub headroom: Option<Bytes>,
    /// A PFC frame's bytes on the wire (default 64 B, a minimum Ethernet frame).
    pub frame: Bytes,
}

impl Default for PfcConfig {
    fn default() -> PfcConfig {
        PfcConfig {
            xoff: None,
            xon: None,
            alpha_shift: 3,
            xon_offset: Bytes(3 * 1024),
            reserve: Bytes(4 * 1024),
            headroom: None,
            frame: Bytes(64),
        }
    }
}

/// Default payload per packet: 1000 B, as Söze §5 ("NS-3 simulator setup") uses.
pub const DEFAULT_MTU: Bytes = Bytes(1000);
/// Default header: 48 B (the HPCC ns-3 simulator's Ethernet + IP + UDP + custom header size).
pub const DEFAULT_HEADER: Bytes = Bytes(48);

/// Everything the packet engine itself needs: packet sizes, the reliable transport's timers,
/// routing, the host NIC, telemetry, records, control packets and switch memory. The schemes'
/// choices and parameters are not here: they come with the scheme set
/// ([`super::SchemeSet`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EngineConfig {
    /// Payload bytes per full packet.
    pub mtu: Bytes,
    /// Header bytes per packet (an ACK is one header).
    pub header: Bytes,
    /// The reliable sender's lower bound on the RTO (RFC 6298 §2.4).
    pub min_rto: Time,
    /// The RTO before the first RTT sample (RFC 6298 §2.1).
    pub initial_rto: Time,
    /// The largest RTO after backoff.
    pub max_rto: Time,
    /// SACK loss recovery (RFC 2018, RFC 6675) instead of NewReno's (RFC 6582).
    pub sack: bool,
    /// Bytes a paced flow may send back to back before the pacing gap applies.
    pub pacing_burst: Bytes,
    /// Receivers delay ACKs (RFC 5681 §4.2: every second segment or the timeout).
    pub delayed_ack: bool,
    /// The delayed-ACK timeout.
    pub delayed_ack_timeout: Time,
    /// How flows and packets pick their paths.
    pub routing: RoutingMode,
    /// The run's seed (ECMP hashes, randomized disciplines).
    pub seed: u64,
    /// Optional low-pass filter of each hop's queueing delay before it is folded into
    /// [`super::Packet::max_qdelay`].
    pub qdelay_lpf: Option<Time>,
    /// What a hop reports as its queueing delay.
    pub qdelay_signal: QdelaySignal,
    /// How a host's NIC picks the next flow to send.
    pub host_nic: HostNic,
    /// ACKs leave every port ahead of data.
    pub ack_first: bool,
    /// Time series to record.
    pub record: Option<RecordConfig>,
    /// Control packets: size, priority queue, rate limit.
    pub control: ControlConfig,
    /// A buffer shared by the egress ports of each switch.
    pub shared_buffer: Option<SharedBufferConfig>,
    /// Lossless switches with priority flow control (`lossless = true`; needs
    /// `shared_buffer`).
    pub pfc: Option<PfcConfig>,
    /// Reflected control packets take the exact reverse of their data path and are handed to
    /// [`super::PortAgent::on_reverse`] of each link they cross back (the flow's ACKs take
    /// that reversed path too).
    pub two_way_control: bool,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig {
            mtu: DEFAULT_MTU,
            header: DEFAULT_HEADER,
            min_rto: Time::from_ms(1),
            initial_rto: Time::from_ms(1),
            max_rto: Time::from_ms(1000),
            sack: true,
            pacing_burst: Bytes(0),
            delayed_ack: false,
            delayed_ack_timeout: Time::from_us(100),
            routing: RoutingMode::Ecmp,
            seed: 0,
            qdelay_lpf: None,
            qdelay_signal: QdelaySignal::Sojourn,
            host_nic: HostNic::Pull,
            ack_first: false,
            record: None,
            control: ControlConfig::default(),
            shared_buffer: None,
            pfc: None,
            two_way_control: false,
        }
    }
}

impl EngineConfig {
    /// Wire size of a full data packet.
    pub fn mtu_wire(&self) -> Bytes {
        Bytes(self.mtu.0 + self.header.0)
    }

    /// Checks value ranges; errors name the field under `at` (`packet config.mtu`).
    pub fn validate(&self, at: &str) -> Result<()> {
        let at = |f: &str| format!("{at}.{f}");
        for (name, v) in [("mtu", self.mtu), ("header", self.header)] {
            if v.0 == 0 || v.0 > u32::MAX as u64 / 2 {
                return Err(Error::invalid(
                    at(name),
                    format!("must be between 1B and 2GB, got {v}"),
                ));
            }
        }
        if self.min_rto.0 == 0 || self.initial_rto.0 == 0 {
            return Err(Error::invalid(
                at("tcp.min_rto"),
                "min_rto and initial_rto must be positive",
            ));
        }
        if self.max_rto < self.min_rto {
            return Err(Error::invalid(
                at("tcp.max_rto"),
                format!("{} is below min_rto {}", self.max_rto, self.min_rto),
            ));
        }
        if self.delayed_ack_timeout.0 == 0 {
            return Err(Error::invalid(
                at("tcp.delayed_ack_timeout"),
                "must be positive",
            ));
        }
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
        self.control.validate(&at("control"))?;
        if let Some(pfc) = &self.pfc {
            let Some(sb) = &self.shared_buffer else {
                return Err(Error::invalid(
                    at("lossless"),
                    "needs shared_buffer (the switch memory the lossless MMU accounts)",
                ));
            };
            if self.routing.per_packet() {
                return Err(Error::invalid(
                    at("lossless"),
                    "PFC accounts each packet to the port it came in on, which spraying does \
                     not keep: use routing = \"ecmp\", \"host_pair\" or \"first\"",
                ));
            }
            if let Some(xoff) = pfc.xoff {
                if xoff > sb.size {
                    return Err(Error::invalid(
                        at("pfc.xoff"),
                        format!(
                            "{xoff} is above the switch buffer (shared_buffer.size {})",
                            sb.size
                        ),
                    ));
                }
                if let Some(xon) = pfc.xon {
                    if xon > xoff {
                        return Err(Error::invalid(
                            at("pfc.xon"),
                            format!("{xon} is above xoff {xoff}"),
                        ));
                    }
                }
            } else if pfc.xon.is_some() {
                return Err(Error::invalid(
                    at("pfc.xon"),
                    "needs xoff (a static threshold); the dynamic one resumes at xon_offset",
                ));
            }
            if pfc.alpha_shift > 16 {
                return Err(Error::invalid(
                    at("pfc.alpha_shift"),
                    format!("must be at most 16, got {}", pfc.alpha_shift),
                ));
            }
            if pfc.frame.0 == 0 {
                return Err(Error::invalid(at("pfc.frame"), "must be positive"));
            }
            if let Some(h) = pfc.headroom {
                if h > sb.size {
                    return Err(Error::invalid(
                        at("pfc.headroom"),
                        format!(
                            "{h} is above the switch buffer (shared_buffer.size {})",
                            sb.size
                        ),
                    ));
                }
            }
        }
        if self.two_way_control && self.routing.per_packet() {
            return Err(Error::invalid(
                at("two_way_control"),
                "reflected control packets go back along the reversed data path, which \
                 spraying does not have",
            ));
        }
        Ok(())
    }
}
