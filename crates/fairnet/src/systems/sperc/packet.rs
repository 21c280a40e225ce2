//! s-PERC* on the [packet engine](crate::engine::packet) (§7.1, Appendix D.2, Algorithms 6–7;
//! `transport = "sperc"`, `port_agent = "sperc"`, `[sperc]` and `[control]` tables).
//!
//! **Links** ([`SPercAgent`], a [`PortAgent`] on every port, host NICs included): each
//! forward control packet leaving the port (and with `two_way` each reflected one coming back
//! through the port's node) is processed by [`SPercStar::process`] — the very
//! code the rounds engine runs, through [`LinkAlgorithm`] — on the packet's per-hop records,
//! which live in the packet pool's control side table ([`CtrlArea`]; s-PERC's `b`, `x`, `t`
//! in [`CtrlHop::rate`], [`CtrlHop::alloc`], [`CtrlHop::round`], the bits `s`, `i` in
//! [`CtrlHop::flags`]). The link's capacity is the line rate less the headroom and the
//! control-packet share (§7.1 "Headroom", "Limiting control overhead"; Table 6: 2% and 2%).
//! **Two-way updates** (`two_way`, default true; §2 assumption 6: the control packet goes
//! "back and forth between the sender and receiver across the same set of links"): the
//! reflected packet returns on the exact reverse of the flow's data path (the engine's
//! [`crate::registry::PacketConfig::two_way_control`]), and when it comes back through the
//! node owning this port, [`PortAgent::on_reverse`] processes it again with the same code
//! ([`SPercAgent`]'s `visit`: Algorithms 6–7) on record `next − 1`, counting `next` back down, so
//! the links see it in reverse path order as in the rounds engine's `two_way`. With
//! `two_way = false` reflected packets are left alone and return on the ACK route (hashed
//! independently under ECMP): the forward-only updating of the paper's WAN runs (§8.2.1:
//! "increasing convergence time by a factor of two"). Algorithm 7 (the round timeout) runs
//! lazily, when the first control packet visits the link after the round elapsed.
//!
//! **Round** (§7.1 "Estimating round"): "control packets carry the longest period (RTT) the
//! end host has seen on the flow's path, `Tx_ctrl`; links use this field to set the local value
//! of round." A link starts with `initial_round` (Table 6: 20 µs DC); at each round boundary
//! its next round is the largest `Tx_ctrl` it saw during the round, times
//! `1 + round_margin` (our choice, default 0.25: a flow whose period equals the round could
//! otherwise miss a round by jitter and drop out of the shadow counters `NumB'`, `SumE'`).
//!
//! **Sender** ([`SPercSender`], a [`CongestionControl`]): one control packet in flight per
//! flow (§2: "each flow has one control packet in flight"); when it comes back the sender
//! takes the minimum allocation `x` it carries as its pacing rate (§2 assumption 10) and sends
//! the next one at once, carrying the per-hop fields as they returned (the host "does not
//! modify the control packet", §2 assumption 8). A new flow's first packet has no per-hop
//! records: each link appends its record initialised as Algorithm 4 line 1 (`b = ∞`, `x = 0`,
//! `s = E`, `i = 1`, see the module docs of [`super`] on the ignore bit). Data waits for the
//! first rate (§8.2.2: "flows must wait for the rate algorithm to run before sending any
//! packets"). `Tx_ctrl` is the longest of the last 8 periods between the flow's control packets
//! (its control RTT, or the timeout after a loss; a window, so a transient does not stick
//! forever): a link whose round is shorter than some flow's period would leave that flow out
//! of `NumB'` and over-allocate.
//!
//! **FIN** (§7.1: "To signal the end of a flow the end host tags the control packet with a
//! FIN"; the paper does not say when). `fin_at = "sent"` (default, our choice): the first
//! control packet due after the flow's last new byte left is tagged FIN — it replaces the next
//! regular control packet, so no other control packet of the flow is in flight to re-register
//! it at a link behind the FIN — and no control packets follow; the flow keeps its last rate
//! for what is still in flight. A loss after the FIN (fast retransmit or timeout) makes the
//! flow *rejoin*: it starts over as a new flow (a first control packet without records), sends
//! nothing until a rate comes back, and then holds that allocation until its last ACK (its FIN
//! then goes as with `"acked"`). `fin_at = "acked"`: the FIN goes once every byte is
//! acknowledged. A flow stopped with [`crate::engine::packet::PacketSim::stop_flow`] sends its
//! FIN then, either way. Why "sent": the allocation is held until the FIN passes each link,
//! and waiting for the last ACK holds it about one more RTT after the link carried the flow's
//! last packet, which idles capacity in a high-churn workload. Why the rejoin: retransmitting
//! at the old rate after the FIN sends unallocated traffic into links that gave the share
//! away. Measured on Fig. 9 at full scale (web search, 60%, with the entry's pacing credit):
//! basic s-PERC\*'s active flows were allocated 93.6% of their host-link max-min rates with
//! "acked", 95.3% with "sent"; bin 4's median slowdown 4.72 → 4.54 (RCP 4.29), mean FCT
//! 0.754 → 0.729 ms (1,298 drops in the run; our first version, retransmitting after the
//! FIN without rejoining, overflowed queues far more). s-PERC\* 'short' has `l₀` to hand a finishing flow's share over, and its entries
//! use `"acked"` (with "sent" they dropped 5× more packets; mean FCT 0.741 vs 0.702 ms).
//!
//! **Lost control packets** (§7.1 "Handling dropped control packets"): if a packet has not come
//! back `timeout` × `max(RTT, initial_round)` after it left (RTT: the longest control RTT
//! seen; not `Tx_ctrl`, which includes timeouts and would let the timeout grow geometrically
//! under persistent loss), the sender sends the last
//! fields it received again (the module docs of [`super`], item 4). A packet that comes back
//! after it was given up is ignored (its sequence number is stale): the links already counted
//! its traversal, and s-PERC*'s shadow counters absorb the difference within a round.
//!
//! **s-PERC* 'short'** (`short_flows = true`; §7.1 "Optimizing latency for short flows",
//! §8.2.2; off by default, which is the paper's "basic" s-PERC*): a flow smaller than one BDP
//! ([`short_threshold`]: NIC line rate × the flow's base RTT) is *short*: it sends at line rate
//! from its first packet, sends no control packets ("we do not send control packets to reserve
//! bandwidth for them") and its packets carry priority class 0; every other flow's packets carry
//! class 1 ([`CongestionControl::priority`]), so with `qdisc = { kind = "priority", classes = 2 }`
//! and the engine's control queue above both, every port has "three priority levels for all
//! traffic". A long flow's control packet carries the virtual link `l₀` as its first per-link
//! record (Table 9's first row: `s = E`, ignore bit 0, round 0, `b` = remaining bytes / RTT):
//! links process the records after it (`next` starts at 1), and Algorithm 6 line 18 takes
//! `b[l₀]` into the limit rate `e` at every link like any other link's propagated rate, so a
//! flow about to end is classified E at rate ≤ remaining / RTT and the rest of the link goes to
//! the others (line 16: `b = (c − SumE)/NumB`). Remaining bytes: the payload not yet sent when
//! the control packet leaves (the engine's `unsent`), as wire bytes, over the flow's last
//! control RTT (its base RTT before the first); at least one full packet per RTT, so that a
//! flow whose bytes are all sent keeps a rate for retransmissions (our choice).
//!
//! **Not implemented**: approximate division is available (`division_table`) but off by
//! default. A FIN carries the fields of
//! the last packet that came back; if another packet was still in flight its link updates are
//! not undone exactly — s-PERC*'s sync (Algorithm 7) removes the flow within a round.

use super::algorithms::{Class, SPercHop, SPercStar, StarLink};
use super::division::Divider;
use crate::engine::packet::cc::{AckInfo, CcContext, CongestionControl};
use crate::engine::packet::pkt::{
    CtrlArea, CtrlHop, Packet, PacketId, PacketKind, PacketPool, MAX_CTRL_HOPS,
};
use crate::engine::packet::port::{PortAgent, PortView};
use crate::engine::rounds::{LinkAlgorithm, Update};
use crate::error::{Error, Result};
use crate::registry::QdiscConfig;
use crate::schemes::sched::Classifier;
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// s-PERC*'s packet-level parameters (`[sperc]` table of the packet config).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SPercPacketConfig {
    /// Fraction of each link's capacity left unallocated (default 0.02, Table 6 "headroom=2%").
    pub headroom: f64,
    /// A link's round before any `Tx_ctrl` arrives (default 20 µs, Table 6 "initial round").
    pub initial_round: Time,
    /// A link's round is the largest `Tx_ctrl` of the last round times `1 + round_margin`
    /// (default 0.25; our choice, see the module doc).
    pub round_margin: f64,
    /// A control packet is given up as lost after `timeout` × `max(RTT, initial_round)`, with
    /// RTT the longest control-packet RTT the sender has seen (default 3; the paper says only
    /// "a timeout", §7.1).
    pub timeout: f64,
    /// Size of the division lookup table (§7.1, §8.1.2); none (default) divides exactly.
    pub division_table: Option<Bytes>,
    /// s-PERC* 'short' (§7.1 "Optimizing latency for short flows", §8.2.2): flows under one
    /// BDP (NIC line rate × the flow's base RTT) start at line rate in priority class 0 and
    /// send no control packets; the other flows use class 1 and their control packets carry
    /// the virtual link `l₀` at remaining bytes / RTT. Needs `qdisc = { kind = "priority",
    /// classes = 2 }`. Default false: basic s-PERC* (§8.2.2's two versions).
    pub short_flows: bool,
    /// Two-way control updates (§2 assumption 6: the control packet goes "back and forth
    /// between the sender and receiver across the same set of links"): the reflected control
    /// packet returns on the exact reverse of the flow's data path and every link processes
    /// it again on the way back; needs per-flow routes (not `routing = "spray"`). Default
    /// true: the paper's model (§8.2.1 singles out its WAN runs as updating "only in the
    /// forward direction, increasing convergence time by a factor of two"); false updates on
    /// the way out only, and the way back is the flow's ACK route (hashed on its own under
    /// ECMP).
    pub two_way: bool,
    /// When a flow gives its allocation back (§7.1 "To signal the end of a flow the end host
    /// tags the control packet with a FIN"; the paper does not say when): `"sent"` (default)
    /// tags the first control packet due after the flow's last new byte left, `"acked"` sends
    /// the FIN once every byte is acknowledged. See the module doc.
    pub fin_at: FinAt,
}

/// When an s-PERC* flow sends its FIN ([`SPercPacketConfig::fin_at`]).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FinAt {
    /// The next control packet after the last new byte was sent is the FIN.
    #[default]
    Sent,
    /// A FIN after the last byte was acknowledged.
    Acked,
}

impl Default for SPercPacketConfig {
    fn default() -> SPercPacketConfig {
        SPercPacketConfig {
            headroom: 0.02,
            initial_round: Time::from_us(20),
            round_margin: 0.25,
            timeout: 3.0,
            division_table: None,
            short_flows: false,
            two_way: true,
            fin_at: FinAt::Sent,
        }
    }
}

impl SPercPacketConfig {
    /// Checks value ranges; `at` is the table's path (`packet config.sperc`).
    pub fn validate(&self, at: &str) -> Result<()> {
        if !(self.headroom >= 0.0 && self.headroom < 1.0) {
            return Err(Error::invalid(
                format!("{at}.headroom"),
                format!("must be in [0, 1), got {}", self.headroom),
            ));
        }
        if self.initial_round.0 == 0 {
            return Err(Error::invalid(
                format!("{at}.initial_round"),
                "must be positive",
            ));
        }
        if !(self.round_margin >= 0.0 && self.round_margin.is_finite()) {
            return Err(Error::invalid(
                format!("{at}.round_margin"),
                format!("must be non-negative and finite, got {}", self.round_margin),
            ));
        }
        if !(self.timeout >= 1.0 && self.timeout.is_finite()) {
            return Err(Error::invalid(
                format!("{at}.timeout"),
                format!("must be at least 1 (rounds), got {}", self.timeout),
            ));
        }
        Divider::new(self.division_table.map(|b| b.0))
            .map_err(|e| Error::invalid(format!("{at}.division_table"), e.to_string()))?;
        Ok(())
    }

    /// With `short_flows`, the ports must serve priority class 0 (short flows) strictly before
    /// class 1 (the rest): §7.1's "three priority levels for all traffic" are the control
    /// queue and these two. `at` names the field (`packet config.sperc.short_flows`).
    pub fn check_qdisc(&self, qdisc: &QdiscConfig, at: &str) -> Result<()> {
        if !self.short_flows {
            return Ok(());
        }
        match qdisc {
            QdiscConfig::Priority {
                classes,
                classify: Classifier::Priority,
                ..
            } if *classes >= 2 => Ok(()),
            _ => Err(Error::invalid(
                at,
                "s-PERC* 'short' prioritizes short flows at every link: set qdisc = \
                 { kind = \"priority\", classes = 2 }",
            )),
        }
    }
}

const FLAG_B: u8 = 1;
const FLAG_IGNORE: u8 = 2;

/// s-PERC's per-link fields from a control packet's record.
#[inline]
fn decode(h: &CtrlHop) -> SPercHop {
    SPercHop {
        b: h.rate,
        x: h.alloc,
        s: if h.flags & FLAG_B != 0 {
            Class::B
        } else {
            Class::E
        },
        i: h.flags & FLAG_IGNORE != 0,
        t: h.round,
    }
}

/// A control packet's record from s-PERC's per-link fields.
#[inline]
fn encode(h: &SPercHop) -> CtrlHop {
    CtrlHop {
        rate: h.b,
        alloc: h.x,
        round: h.t,
        flags: if h.s == Class::B { FLAG_B } else { 0 } | if h.i { FLAG_IGNORE } else { 0 },
    }
}

/// An s-PERC* link at one egress port (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct SPercAgent {
    alg: SPercStar,
    link: StarLink,
    margin: f64,
    round_len: u64,
    round_start: u64,
    max_period: u64,
    /// Control-packet visits processed (each way with two-way updates).
    pub processed: u64,
    /// Control-packet visits (each way) left alone because the path is longer than
    /// [`MAX_CTRL_HOPS`].
    pub too_long: u64,
}

impl SPercAgent {
    /// An agent for a port of line rate `rate`, with `ctrl_rate` of it reserved for control
    /// packets.
    pub fn new(cfg: &SPercPacketConfig, ctrl_rate: f64, rate: Rate) -> Result<SPercAgent> {
        let alg = SPercStar {
            div: Divider::new(cfg.division_table.map(|b| b.0))?,
        };
        // §7.1 "Headroom" and "Limiting control overhead": both are taken off the capacity.
        let c = rate.bps() * (1.0 - cfg.headroom - ctrl_rate);
        Ok(SPercAgent {
            link: alg.new_link(c, 0),
            alg,
            margin: cfg.round_margin,
            round_len: cfg.initial_round.0,
            round_start: 0,
            max_period: 0,
            processed: 0,
            too_long: 0,
        })
    }

    /// The link state (`SumE`, `NumB`, `MaxE`, … and the round number).
    pub fn state(&self) -> &StarLink {
        &self.link
    }

    /// The current round length.
    pub fn round(&self) -> Time {
        Time(self.round_len)
    }
}

impl SPercAgent {
    /// Algorithm 7, once per round, and the next round from the `Tx_ctrl` seen (§7.1): on
    /// every control-packet visit, also one whose path is too long to be processed.
    fn tick(&mut self, area: &CtrlArea, now: u64) {
        if now >= self.round_start + self.round_len {
            self.alg.on_round(&mut self.link);
            self.round_start = now;
            if self.max_period > 0 {
                self.round_len = ((self.max_period as f64) * (1.0 + self.margin)) as u64;
            }
            self.max_period = 0;
        }
        self.max_period = self.max_period.max(area.period.0);
    }

    /// The link's work on one control-packet visit, the same in both directions (§2
    /// assumption 6; the rounds engine's `two_way` runs the same code): Algorithm 7 when the
    /// round has elapsed, the `Tx_ctrl` bookkeeping of §7.1, then Algorithm 6 (lines 8–31,
    /// [`SPercStar::process`]) on per-hop record `k`.
    fn visit(&mut self, area: &mut CtrlArea, k: usize, flow: u32, now: u64) {
        self.tick(area, now);
        if k >= area.len as usize {
            // A new flow's first traversal: Algorithm 4 line 1 / Algorithm 6 line 3.
            area.hops[k] = encode(&self.alg.initial_hop());
            area.len = k as u8 + 1;
        }
        let n = area.len as usize;
        let mut hops = [self.alg.initial_hop(); MAX_CTRL_HOPS];
        for (h, r) in hops.iter_mut().zip(&area.hops[..n]) {
            *h = decode(r);
        }
        let u = Update {
            flow,
            hop: k,
            local: 0,
            leaving: area.fin,
        };
        self.alg.process(&mut self.link, u, &mut hops[..n]);
        area.hops[k] = encode(&hops[k]);
        self.processed += 1;
    }
}

impl PortAgent for SPercAgent {
    fn on_dequeue(&mut self, id: PacketId, pool: &mut PacketPool, port: &PortView) {
        let p = pool.get(id);
        if p.kind != PacketKind::Control {
            return;
        }
        let flow = p.flow.0;
        let area = pool.ctrl_mut(id);
        if area.reflected {
            // On the way back: updated, if at all, by `on_reverse` (two-way updates, §2
            // assumption 6); forward-only is the paper's WAN setting (§8.2.1).
            return;
        }
        let k = area.next as usize;
        // The hop index advances even past the records' room, so that the way back
        // (`on_reverse`, which counts down) stays aligned with the links.
        area.next = area.next.saturating_add(1);
        if k >= MAX_CTRL_HOPS {
            self.tick(area, port.now.0);
            self.too_long += 1;
            return;
        }
        self.visit(area, k, flow, port.now.0);
    }

    fn on_reverse(&mut self, id: PacketId, pool: &mut PacketPool, port: &PortView) {
        let p = pool.get(id);
        if p.kind != PacketKind::Control {
            return;
        }
        let flow = p.flow.0;
        let area = pool.ctrl_mut(id);
        // The way back visits the links in reverse order: this link's record is the one just
        // below `next` (§2 assumption 6, "back and forth ... across the same set of links").
        // A FIN is consumed by the receiver and never comes back.
        if !area.reflected || area.fin || area.next == 0 {
            return;
        }
        area.next -= 1;
        let k = area.next as usize;
        if k >= MAX_CTRL_HOPS {
            self.tick(area, port.now.0);
            self.too_long += 1;
            return;
        }
        if k >= area.len as usize {
            return; // no record for this link (cannot happen on the reversed data path)
        }
        self.visit(area, k, flow, port.now.0);
    }
}

/// What a flow does under s-PERC* 'short' ([`SPercPacketConfig::short_flows`], §7.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShortMode {
    /// `short_flows` off: basic s-PERC* (no `l₀`, the workload's priority class).
    Basic,
    /// A short flow (< 1 BDP): line rate at once, priority class 0, no control packets.
    Short,
    /// Any other flow: priority class 1, control packets carry `l₀`.
    Long,
}

/// The BDP below which a flow is short (§7.1: "short flows (< 1 BDP)"), in bytes: the
/// sender's NIC line rate × the flow's base RTT (propagation and one packet's serialization
/// per hop both ways, [`CcContext::base_rtt`]) — the bytes a flow at line rate sends in the
/// RTT in which the paper says it finishes ("finish within the same RTT").
pub fn short_threshold(ctx: &CcContext) -> f64 {
    ctx.nic_rate.bps() * ctx.base_rtt.as_secs_f64() / 8.0
}

/// Control-packet RTT samples kept for `Tx_ctrl`.
const PERIODS: usize = 8;

/// An s-PERC* sender (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct SPercSender {
    /// The fields of the last control packet that came back (next one carries them).
    state: CtrlArea,
    rate: Option<f64>,
    outstanding: bool,
    seq: u64,
    sent_at: u64,
    ready_at: u64,
    periods: [u64; PERIODS],
    /// Where the next period goes in `periods` (a ring; u8 keeps the sender small).
    next_period: u8,
    /// The longest control RTT seen (for the timeout).
    max_rtt: u64,
    initial_round: u64,
    timeout: f64,
    /// When this flow sends its FIN (`"acked"` after it rejoined following a loss).
    fin_at: FinAt,
    /// The FIN went out: no more control packets (unless a loss makes the flow rejoin).
    fin_sent: bool,
    /// s-PERC* 'short': what this flow does (see [`ShortMode`]).
    mode: ShortMode,
    /// The last control-packet RTT (the flow's base RTT before the first; for `l₀`).
    last_rtt: u64,
    /// Payload and header bytes of a full packet (for `l₀`'s wire rate; u32 keeps
    /// [`crate::engine::packet::CcImpl`] small).
    mss: u32,
    header: u32,
    /// Control packets sent (FIN included).
    pub ctrl_sent: u64,
    /// Control packets given up as lost.
    pub ctrl_timeouts: u64,
}

impl SPercSender {
    /// A sender for a flow of `size` payload bytes starting at `start`.
    pub fn new(cfg: &SPercPacketConfig, ctx: &CcContext, start: Time, size: Bytes) -> SPercSender {
        let mode = if !cfg.short_flows {
            ShortMode::Basic
        } else if (size.0 as f64) < short_threshold(ctx) {
            ShortMode::Short
        } else {
            ShortMode::Long
        };
        SPercSender {
            state: CtrlArea::default(),
            rate: None,
            outstanding: false,
            seq: 0,
            sent_at: 0,
            ready_at: start.0,
            periods: [0; PERIODS],
            next_period: 0,
            max_rtt: 0,
            initial_round: cfg.initial_round.0,
            timeout: cfg.timeout,
            fin_at: cfg.fin_at,
            fin_sent: false,
            mode,
            last_rtt: ctx.base_rtt.0,
            mss: ctx.mss.clamp(1, u32::MAX as u64) as u32,
            header: ctx.header.min(u32::MAX as u64) as u32,
            ctrl_sent: 0,
            ctrl_timeouts: 0,
        }
    }

    /// `Tx_ctrl`: the longest of the last periods between control packets (0 before the
    /// second packet).
    pub fn tx_ctrl(&self) -> Time {
        Time(self.periods.iter().copied().max().unwrap_or(0))
    }

    /// The rate from the last control packet (bit/s), once one came back.
    pub fn rate(&self) -> Option<f64> {
        self.rate
    }

    /// What this flow does under s-PERC* 'short'.
    pub fn mode(&self) -> ShortMode {
        self.mode
    }

    /// The virtual link `l₀`'s bottleneck rate for a flow with `unsent` payload bytes left:
    /// their wire bytes over the last control RTT (§7.1: "remaining bytes / RTT"), at least
    /// one full packet per RTT so that retransmissions still get a rate once all is sent.
    pub fn l0_rate(&self, unsent: u64) -> f64 {
        let (mss, header) = (self.mss as u64, self.header as u64);
        let packets = unsent.div_ceil(mss).max(1);
        let wire = (unsent + packets * header).max(mss + header);
        wire as f64 * 8.0 / Time(self.last_rtt.max(1)).as_secs_f64()
    }

    /// A loss after the FIN (`fin_at = "sent"`): the links no longer count this flow, so
    /// it starts over as a new flow (§7.1 "Signaling the start": a first control packet
    /// with no records) and waits for a rate before retransmitting; it keeps that allocation
    /// until every byte is acknowledged (see the module doc).
    fn rejoin_after_fin(&mut self, now: Time) {
        if !self.fin_sent {
            return;
        }
        self.fin_sent = false;
        self.fin_at = FinAt::Acked;
        self.state = CtrlArea::default();
        self.rate = None;
        self.outstanding = false;
        self.ready_at = now.0;
    }

    fn fill(&mut self, area: &mut CtrlArea, unsent: u64) {
        *area = self.state;
        area.next = 0;
        if self.mode == ShortMode::Long {
            // Table 9: the first per-link record is the virtual link l₀, never ignored, its
            // b the remaining bytes over one RTT; the links' records follow (Algorithm 6
            // line 18 then takes it into the limit rate e at every link). Its x is the same
            // rate, so the sender's minimum over the path (§2 assumption 10) includes it.
            let b = self.l0_rate(unsent);
            area.hops[0] = CtrlHop {
                rate: b,
                alloc: b,
                round: 0,
                flags: 0,
            };
            area.len = area.len.max(1);
            area.next = 1;
        }
        area.fin = false;
        area.reflected = false;
        area.period = self.tx_ctrl();
        self.seq += 1;
        area.seq = self.seq;
        self.ctrl_sent += 1;
    }
}

impl CongestionControl for SPercSender {
    fn on_ack(&mut self, _a: &AckInfo<'_>) {}
    fn on_loss(&mut self, now: Time, _in_flight: u64) {
        self.rejoin_after_fin(now);
    }
    fn on_timeout(&mut self, now: Time, _in_flight: u64) {
        self.rejoin_after_fin(now);
    }
    fn cwnd(&self) -> u64 {
        u64::MAX
    }
    fn pacing_rate(&self) -> Option<Rate> {
        // A short flow sends at line rate (§7.1): no pacing.
        self.rate.map(|r| Rate(r.max(1.0) as u64))
    }
    fn may_send(&self) -> bool {
        // §7.1: short flows "start immediately at line-rate".
        self.mode == ShortMode::Short || self.rate.is_some_and(|r| r > 0.0)
    }
    fn priority(&self) -> Option<u8> {
        // §7.1: short flows are "prioritize[d] at every link (with priority second to control
        // packets, for a total of three priority levels for all traffic)".
        match self.mode {
            ShortMode::Basic => None,
            ShortMode::Short => Some(0),
            ShortMode::Long => Some(1),
        }
    }
    fn control_at(&self) -> Option<Time> {
        if self.mode == ShortMode::Short || self.fin_sent {
            // §7.1: "we do not send control packets to reserve bandwidth for them".
            return None;
        }
        Some(Time(if self.outstanding {
            // §7.1: lost control packets are detected by a timeout.
            let t = self.max_rtt.max(self.initial_round) as f64 * self.timeout;
            self.sent_at + t as u64
        } else {
            self.ready_at
        }))
    }
    fn make_control(&mut self, now: Time, unsent: u64, area: &mut CtrlArea) -> bool {
        if self.mode == ShortMode::Short || self.fin_sent {
            return false;
        }
        if self.fin_at == FinAt::Sent && unsent == 0 && self.rate.is_some() {
            // Everything is sent: this control packet is the FIN (see the module doc); the
            // flow keeps its last rate for retransmissions.
            self.fill(area, 0);
            area.fin = true;
            self.fin_sent = true;
            self.outstanding = false;
            return true;
        }
        if self.outstanding {
            self.ctrl_timeouts += 1;
        }
        if self.ctrl_sent > 0 {
            // The period between this flow's control packets: its RTT, or the timeout after a
            // loss (§7.1: "the longest period (RTT) the end host has seen").
            self.periods[self.next_period as usize] = now.0 - self.sent_at;
            self.next_period = ((self.next_period as usize + 1) % PERIODS) as u8;
        }
        self.fill(area, unsent);
        self.outstanding = true;
        self.sent_at = now.0;
        true
    }
    fn make_fin(&mut self, _now: Time, area: &mut CtrlArea) -> bool {
        if self.mode == ShortMode::Short || self.fin_sent {
            return false; // it reserved nothing at the links, or gave it back already
        }
        self.fill(area, 0);
        area.fin = true;
        true
    }
    fn on_control(&mut self, _pkt: &Packet, area: &CtrlArea, now: Time) {
        if self.fin_sent || !self.outstanding || area.seq != self.seq {
            return; // given up on (see the module doc)
        }
        self.outstanding = false;
        self.last_rtt = now.0 - self.sent_at;
        self.max_rtt = self.max_rtt.max(self.last_rtt);
        self.state = *area;
        // §2 assumption 10: the source sends at the minimum allocation along its path.
        let x = area.hops[..area.len as usize]
            .iter()
            .map(|h| h.alloc)
            .fold(f64::INFINITY, f64::min);
        if x.is_finite() {
            self.rate = Some(x);
        }
        self.ready_at = now.0;
    }
}

#[cfg(test)]
mod tests;
