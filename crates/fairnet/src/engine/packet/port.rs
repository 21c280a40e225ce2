//! Egress ports: one per directed link, at the link's source node, with a queueing discipline,
//! an optional [`PortAgent`], and the link's serializer.
//!
//! A port serializes one packet at a time at the link's capacity (`Rate::tx_time` of its wire
//! size); the packet then propagates for the link's delay and arrives whole at the far end
//! (store and forward). Host NICs are ports too: the host's transport feeds its one out-link.

use super::pkt::{PacketId, PacketPool};
use super::qdisc::Qdisc;
use crate::ids::{LinkId, NodeId};
use crate::units::{Bytes, Rate, Time};
use std::collections::VecDeque;

/// What a [`PortAgent`] sees of its port when a packet leaves the queue (or, for
/// [`PortAgent::on_reverse`], when a reflected control packet comes back through its node).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortView {
    /// The link.
    pub link: LinkId,
    /// The node owning the port (the link's source).
    pub node: NodeId,
    /// Line rate.
    pub rate: Rate,
    /// Buffer size.
    pub buffer: Bytes,
    /// Bytes still queued behind this packet.
    pub queue_bytes: u64,
    /// Cumulative bytes transmitted by the port, including this packet.
    pub tx_bytes: u64,
    /// Cumulative bytes the port dropped on arrival or from its queue (RCP counts them in its
    /// input rate).
    pub drop_bytes: u64,
    /// Current time (the packet starts serialization now).
    pub now: Time,
}

/// Per-port switch logic that reads or rewrites headers at egress.
///
/// Called once per packet, when it leaves the queue and starts transmission, after the engine
/// has updated the packet's `max_qdelay`. Used by: per-hop INT stamping, explicit-rate routers
/// (RCP), s-PERC's link state (control packets processed at egress), eBA's per-port rate
/// factor — implemented in `crate::schemes` and `crate::systems`.
pub trait PortAgent {
    /// Reads or rewrites packet `id` (through `pool`: header fields with
    /// [`PacketPool::get_mut`], INT records with [`PacketPool::push_int`]) as it leaves the
    /// port described by `port`.
    fn on_dequeue(&mut self, id: PacketId, pool: &mut PacketPool, port: &PortView);

    /// Processes control packet `id` on its way back (reflected by the receiver) for the
    /// forward link described by `port`, when the packet, travelling the reverse of its data
    /// path, arrives at `port.node` over the reverse-direction link (s-PERC §2 assumption 6:
    /// the control packet goes "back and forth between the sender and receiver across the
    /// same set of links" and links update it both ways). So a link sees its flows' control
    /// packets leave through it and come back through its node, in reverse path order; the
    /// agent's per-hop index runs back down (s-PERC*'s `next − 1`). Called only when the
    /// engine routes reflected control packets on the reversed data path
    /// ([`super::config::EngineConfig::two_way_control`]); default: nothing.
    fn on_reverse(&mut self, id: PacketId, pool: &mut PacketPool, port: &PortView) {
        let _ = (id, pool, port);
    }
}

/// A port's low-pass filter of queueing-delay samples (Söze §4: the Tofino `Lpf` extern in
/// "sample" mode, "the smoothed queueing delay over 10 µs"; `qdelay_lpf` in the config).
///
/// An exponentially weighted average in continuous time with time constant `τ`: a sample `x`
/// arriving `Δ` after the previous one moves the output by `(1 − e^(−Δ/τ))·(x − y)`. So the
/// output forgets the past with the same time constant whatever the packet rate; the first
/// sample is taken as is. The Tofino documents its LPF as such an exponential-decay filter
/// with a configurable time constant; its fixed-point arithmetic is not modelled.
///
/// Why a port option and not a [`PortAgent`]: the engine folds each hop's delay into the
/// packet's `max_qdelay` (compare and keep) before the agent runs, so an agent would see the
/// raw value already merged; and a port has one agent slot, which INT stamping may need at
/// the same time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QdelayLpf {
    tau: f64,
    y: f64,
    last: u64,
    primed: bool,
}

impl QdelayLpf {
    /// A filter with time constant `tau` (positive).
    pub fn new(tau: Time) -> QdelayLpf {
        QdelayLpf {
            tau: tau.0.max(1) as f64,
            y: 0.0,
            last: 0,
            primed: false,
        }
    }

    /// Feeds sample `x` (picoseconds) taken at `now`; returns the filtered delay.
    #[inline]
    pub fn sample(&mut self, now: u64, x: u64) -> u64 {
        if self.primed {
            let a = 1.0 - (-((now - self.last) as f64) / self.tau).exp();
            self.y += a * (x as f64 - self.y);
        } else {
            self.y = x as f64;
            self.primed = true;
        }
        self.last = now;
        self.y.round() as u64
    }
}

/// A port's control-packet FIFO (engine-internal): strict priority over the qdisc, with a
/// token-bucket rate limiter kept as a GCRA "theoretical arrival time" (`tat`): a packet of
/// `w` bytes may start at `now` when `tat + w/r ≤ now + B/r` (the bucket of `B` bytes holds
/// its tokens); sending moves `tat` to `max(tat, now) + w/r`. So over any interval `Δ` the
/// port sends at most `B + r·Δ` control bytes.
pub(crate) struct CtrlQueue {
    pub q: VecDeque<u32>,
    pub bytes: u64,
    pub buffer: u64,
    /// Picoseconds per byte at the limited rate `r`.
    ps_per_byte: f64,
    /// `B/r` in picoseconds.
    tau: u64,
    tat: u64,
    /// Time of the pending limiter wake-up (`PortFree`), or 0.
    pub wake_at: u64,
}

impl CtrlQueue {
    /// A queue for a port of line rate `rate`.
    pub fn new(cfg: &super::config::ControlConfig, rate: Rate) -> CtrlQueue {
        let ps_per_byte = 8e12 / (rate.bps() * cfg.rate);
        CtrlQueue {
            q: VecDeque::new(),
            bytes: 0,
            buffer: cfg.buffer.0,
            ps_per_byte,
            tau: (cfg.burst.0 as f64 * ps_per_byte) as u64,
            tat: 0,
            wake_at: 0,
        }
    }

    /// The earliest time a control packet of `wire` bytes may start (at or after `now`).
    #[inline]
    pub fn ready_at(&self, now: u64, wire: u32) -> u64 {
        let inc = (wire as f64 * self.ps_per_byte) as u64;
        now.max((self.tat + inc).saturating_sub(self.tau))
    }

    /// Takes tokens for a packet of `wire` bytes starting at `now`.
    #[inline]
    pub fn take(&mut self, now: u64, wire: u32) {
        let inc = (wire as f64 * self.ps_per_byte) as u64;
        self.tat = self.tat.max(now) + inc;
    }
}

/// Per-link counters, kept by the port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PortStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub data_tx_packets: u64,
    /// Control packets and their bytes transmitted.
    pub ctrl_tx_packets: u64,
    pub ctrl_tx_bytes: u64,
    /// Control packets dropped (control FIFO full); also counted in `drops`.
    pub ctrl_drops: u64,
    pub drops: u64,
    pub drop_bytes: u64,
    pub marks: u64,
    pub max_queue_bytes: u64,
    /// Integral of the queue length over time, in byte·picoseconds.
    pub queue_integral: u128,
    /// Time of the last queue-length change (for the integral).
    pub queue_last: u64,
}

/// One egress port (engine-internal).
pub(crate) struct Port<Q, A> {
    pub link: LinkId,
    pub node: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: u64,
    pub buffer: Bytes,
    /// Whether the port is a host's NIC (then the host is asked for data when it idles).
    pub host_nic: bool,
    pub qdisc: Q,
    /// Boxed: the largest agents (RCP's, s-PERC*'s) would otherwise make every port, agent
    /// or not, 136 bytes larger on the data path.
    pub agent: Option<Box<A>>,
    /// Control packets, served first (strict priority), rate-limited; created when the
    /// port meets its first control packet (boxed and absent otherwise: the queue is four
    /// cache lines the data path of a run without control packets should not carry).
    pub ctrl: Option<Box<CtrlQueue>>,
    /// The serializer is busy until this time.
    pub busy_until: u64,
    /// A `PortFree` event is pending.
    pub wake_pending: bool,
    pub stats: PortStats,
    /// `(wire bytes, serialization time)` of the last packet: most packets are full data
    /// packets or bare ACKs, and the 128-bit division in `Rate::tx_time` showed in profiles.
    pub tx_cache: (u32, u64),
    /// Packets on the wire, oldest first (so also in arrival order: one serializer, a
    /// constant delay): a list through [`super::pkt::Packet::next`], each packet holding its
    /// arrival time in `at`; [`super::pkt::NO_PACKET`] when empty. Only the head has a
    /// pending `Arrive` event.
    pub wire_head: u32,
    /// The last packet on the wire (valid when `wire_head` is not `NO_PACKET`).
    pub wire_tail: u32,
    /// Low-pass filter of the queueing-delay samples (`qdelay_lpf`).
    pub lpf: Option<QdelayLpf>,
    /// `ack_first`: ACKs waiting, sent ahead of the queueing discipline's packets.
    pub acks: std::collections::VecDeque<PacketId>,
    /// PFC: the priorities (bit `p`) the far end has paused; while any is, the port serves
    /// only its control packets and the ACKs ahead of the discipline.
    pub pfc_paused: u8,
}

impl<Q: Qdisc, A> Port<Q, A> {
    /// What an agent is shown of this port at `now` (ps).
    pub(crate) fn view(&self, now: u64) -> PortView {
        PortView {
            link: self.link,
            node: self.node,
            rate: self.rate,
            buffer: self.buffer,
            queue_bytes: self.qdisc.bytes(),
            tx_bytes: self.stats.tx_bytes,
            drop_bytes: self.stats.drop_bytes,
            now: Time(now),
        }
    }

    /// Packets waiting (the queueing discipline's, the ACKs ahead of it and the control
    /// packets ahead of both).
    #[inline]
    pub fn waiting(&self) -> usize {
        self.qdisc.packets() + self.acks.len() + self.ctrl.as_ref().map_or(0, |c| c.q.len())
    }

    /// Serialization time of `wire` bytes at the port's rate.
    #[inline]
    pub fn tx_time(&mut self, wire: u32) -> u64 {
        if self.tx_cache.0 != wire {
            self.tx_cache = (wire, self.rate.tx_time(Bytes(wire as u64)).0);
        }
        self.tx_cache.1
    }

    /// Serialization time (picoseconds) of `bytes` at the port's rate, uncached.
    #[inline]
    pub fn tx_time_of(&self, bytes: u64) -> u64 {
        if bytes == 0 {
            0
        } else {
            self.rate.tx_time(Bytes(bytes)).0
        }
    }

    /// Adds the queue length held since the last change to the integral; call before every
    /// change of the queue length.
    #[inline]
    pub fn account_queue(&mut self, now: u64, bytes_before: u64) {
        let s = &mut self.stats;
        s.queue_integral += bytes_before as u128 * (now - s.queue_last) as u128;
        s.queue_last = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lpf_follows_a_step_with_its_time_constant() {
        // A step from 0 to 10 us in the samples, sampled every 1 us through a 10 us filter:
        // after one time constant (10 samples) the output is at 1 − e^−1 ≈ 63.2% of the step.
        let mut f = QdelayLpf::new(Time::from_us(10));
        assert_eq!(f.sample(0, 0), 0);
        let mut y = 0;
        for i in 1..=10 {
            y = f.sample(i * Time::US, 10 * Time::US);
        }
        let want = 10.0 * (1.0 - (-1.0f64).exp());
        assert!(((y as f64 / 1e6) - want).abs() < 1e-3, "{y} vs {want} us");
    }
}
