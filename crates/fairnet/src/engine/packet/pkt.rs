//! Packets, their header fields, and the packet pool.
//!
//! A [`Packet`] is a small fixed-size value (no `Vec`, no `Box`; 96 bytes). Packets live in a
//! [`PacketPool`] (a `Vec` plus a free list) and are referred to by [`PacketId`] (a `u32`
//! index), so events and queues move 4-byte handles and a run allocates nothing per packet
//! once the pool has grown to the peak number of packets alive.
//!
//! The per-hop INT area ([`MAX_INT_HOPS`] records, 160 bytes) lives in a side table of the
//! pool indexed by the packet's slot, not in the packet: most runs never stamp INT, and a
//! 260-byte packet spent the caches on it (moving it out sped the fat-tree benchmark up; see
//! `docs/packet-engine.md`). The table grows only when a record is first written. The packet
//! keeps the number of valid records ([`Packet::int_len`]); an ACK reuses its data packet's
//! slot, so it echoes the data packet's records without copying them.

use crate::ids::{FlowId, NodeId};
use crate::units::{Rate, Time};

/// Per-hop INT records a packet can carry (HPCC's INT header holds up to 5 hops; a fat-tree
/// path has at most 5 switch egresses after the host NIC).
pub const MAX_INT_HOPS: usize = 5;

/// SACK blocks an ACK can carry (RFC 2018 §3: the 40-byte option space holds 4 blocks, 3 when
/// the RFC 7323 timestamp option is present, as it is on every ACK here).
pub const MAX_SACK_BLOCKS: usize = 3;

/// One SACK block: received bytes `[start, end)` above the cumulative ACK (RFC 2018 §3's left
/// and right edges).
pub type SackBlock = (u64, u64);

/// Per-hop records a control packet can carry ([`CtrlArea`]); a fat-tree path has 6 egress
/// hops (host NIC and five switch ports).
pub const MAX_CTRL_HOPS: usize = 8;

/// One per-hop record of a control packet, written by the [`super::port::PortAgent`] of the
/// port it passed. The meaning of the fields is the scheme's: s-PERC stores its `b` in `rate`,
/// `x` in `alloc`, the round number `t` in `round` and the bits `s`, `i` in `flags`; an
/// RCP-style scheme would use `rate` alone.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CtrlHop {
    /// A rate the hop computed (bit/s).
    pub rate: f64,
    /// A rate the hop allocated (bit/s).
    pub alloc: f64,
    /// A round or epoch number of the hop.
    pub round: u64,
    /// Scheme-defined bits.
    pub flags: u8,
}

/// The control header of a control packet, beside its per-hop records, in the pool's side
/// table ([`PacketPool::ctrl`]). Written whole by the sender when the packet is made.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CtrlArea {
    /// Index of the next hop record to process: agents advance it on the forward path and,
    /// with two-way updates ([`super::port::PortAgent::on_reverse`]), take it back down on the
    /// way back (the record processed there is `next − 1`).
    pub next: u8,
    /// Number of valid hop records.
    pub len: u8,
    /// The flow is leaving (s-PERC §7.1: "the end host tags the control packet with a FIN");
    /// the receiver consumes a FIN packet instead of reflecting it.
    pub fin: bool,
    /// The packet is on its way back from the receiver (agents leave it alone at dequeue; with
    /// two-way updates the engine hands it to [`super::port::PortAgent::on_reverse`]).
    pub reflected: bool,
    /// The packet was made by the sending host's shim ([`super::HostShim::on_timer`]): once
    /// reflected, it goes back to that shim ([`super::HostShim::on_control`]), not to the
    /// flow's congestion control. Set by the engine.
    pub shim: bool,
    /// A period the sender reports to the links (s-PERC*'s `Tx_ctrl`, §7.1).
    pub period: Time,
    /// The sender's sequence number of this control packet (echoed back by the receiver).
    pub seq: u64,
    /// The per-hop records.
    pub hops: [CtrlHop; MAX_CTRL_HOPS],
}

/// What a packet is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PacketKind {
    /// Payload of a flow, sender → receiver.
    #[default]
    Data,
    /// Acknowledgement, receiver → sender.
    Ack,
    /// A control message (e.g. s-PERC control packets, processed by port agents at egress).
    Control,
}

/// The two-bit ECN codepoint of the IP header (RFC 3168 §5), with both ECT codepoints folded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ecn {
    /// Not ECN-capable transport: an ECN queue never marks it.
    #[default]
    NotEct,
    /// ECN-capable transport, not marked.
    Ect,
    /// Congestion experienced: marked by a queue.
    Ce,
}

/// One per-hop INT record, as HPCC (Li et al., SIGCOMM 2019, §3.2 and Fig. 4) defines it:
/// written by an egress port when the packet starts transmission there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct IntHop {
    /// Time the packet left the port's queue.
    pub ts: Time,
    /// The port's cumulative transmitted bytes at that time (including this packet).
    pub tx_bytes: u64,
    /// The port's queue length in bytes after this packet left it.
    pub qlen: u64,
    /// The port's line rate.
    pub rate: Rate,
}

/// A handle to a packet in a [`PacketPool`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PacketId(pub u32);

/// Marker for "no route cached": the packet is routed hop by hop with
/// [`crate::topo::Routing::next_hop`].
pub(crate) const NO_ROUTE: u32 = u32::MAX;

/// "No packet" in the intrusive lists of [`Packet::next`].
pub(crate) const NO_PACKET: u32 = u32::MAX;

/// A packet: header fields read and written by transports, queues, port agents and shims.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    /// Data, ACK or control.
    pub kind: PacketKind,
    /// The flow it belongs to (for an ACK: the flow it acknowledges).
    pub flow: FlowId,
    /// Sending host of this packet.
    pub src: NodeId,
    /// Receiving host of this packet.
    pub dst: NodeId,
    /// Data: byte offset of the first payload byte. ACK: the cumulative acknowledgement (next
    /// byte expected by the receiver).
    pub seq: u64,
    /// Payload bytes (0 for ACKs).
    pub payload: u32,
    /// Bytes on the wire: payload plus header; what queues count and links serialize.
    pub wire: u32,
    /// ECN codepoint.
    pub ecn: Ecn,
    /// ACK only: ECN echo (the acknowledged data packet arrived marked CE), as DCTCP echoes
    /// per packet (Alizadeh et al., SIGCOMM 2010, §3.1).
    pub ece: bool,
    /// Priority class (0 = highest), copied from the flow.
    pub priority: u8,
    /// A scheme-defined header word. Data: set by the sender's congestion control when the
    /// packet is made ([`super::cc::CongestionControl::header_word`], e.g. the flow's remaining
    /// size as a priority), and rewritable by port agents (e.g. an explicit rate each router
    /// lowers to its own). ACK: the acknowledged data packet's word, echoed to the sender
    /// ([`super::cc::AckInfo::word`]).
    pub word: u32,
    /// Whether this data packet is a retransmission.
    pub retransmit: bool,
    /// Compact INT: the largest queueing delay seen at any egress so far (each port keeps the
    /// maximum of this and its own queueing delay). ACKs echo the data packet's value. Söze's
    /// one INT value (Söze §3).
    pub max_qdelay: Time,
    /// Data: time the sender handed it to the NIC (a TCP timestamp, RFC 7323). ACK: echo of
    /// the acknowledged packet's timestamp, giving an RTT sample at the sender.
    pub ts: Time,
    /// Receive window advertised by an ACK, in bytes (`u64::MAX`: no limit). Hypervisor shims
    /// (WVCC, AC/DC) rewrite it.
    pub window: u64,
    /// Number of valid per-hop INT records in the pool's side table for this slot (data:
    /// stamped by ports; ACK: echoed from the data packet). See [`PacketPool::int_hops`].
    pub int_len: u8,
    /// ACK only: number of valid SACK blocks in the pool's side table for this slot (RFC 2018;
    /// see [`PacketPool::sack_blocks`]). 0 on data packets and on ACKs without SACK.
    pub sack_len: u8,
    /// Start of the cached route in the engine's path store, or [`NO_ROUTE`].
    pub(crate) route: u32,
    /// Index of the next hop in the cached route.
    pub(crate) hop: u16,
    /// Whether the slot holds a packet (for the conservation check).
    pub(crate) live: bool,
    /// While queued at a port: when it entered the queue (for the queueing delay). While on a
    /// link: when it arrives at the far end.
    pub(crate) at: Time,
    /// The packet behind this one on the link it is crossing ([`NO_PACKET`] if last): a
    /// link's packets in flight form a list through this field, so the wire needs no buffer
    /// of its own (a `VecDeque` per link cost a cache miss per hop; the packet is touched
    /// anyway).
    pub(crate) next: u32,
    /// Key for per-packet spraying (unique per packet of a run).
    pub(crate) spray_key: u64,
}

impl Packet {
    /// Folds a hop's queueing delay `qd` (ps) into the maxQD INT field by compare and keep
    /// (Söze §3.2.3). Only data packets carry it: an ACK brings the receiver's echo home
    /// unchanged, since folding the reverse path's queues into it would tell a sender about
    /// links its data never crosses.
    #[inline]
    pub fn keep_max_qdelay(&mut self, qd: u64) {
        if self.kind == PacketKind::Data && qd > self.max_qdelay.0 {
            self.max_qdelay = Time(qd);
        }
    }
}

impl Default for Packet {
    fn default() -> Packet {
        Packet {
            kind: PacketKind::Data,
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(0),
            seq: 0,
            payload: 0,
            wire: 0,
            ecn: Ecn::NotEct,
            ece: false,
            priority: 0,
            word: 0,
            retransmit: false,
            max_qdelay: Time::ZERO,
            ts: Time::ZERO,
            window: u64::MAX,
            int_len: 0,
            sack_len: 0,
            route: NO_ROUTE,
            hop: 0,
            live: false,
            at: Time::ZERO,
            next: NO_PACKET,
            spray_key: 0,
        }
    }
}

/// An arena of packets with a free list, and the side table of per-hop INT records.
#[derive(Debug, Default)]
pub struct PacketPool {
    pkts: Vec<Packet>,
    free: Vec<u32>,
    /// INT records by slot; shorter than `pkts` until INT is used (grown on first write).
    int: Vec<[IntHop; MAX_INT_HOPS]>,
    /// SACK blocks by slot; shorter than `pkts` until a SACK is first written.
    sack: Vec<[SackBlock; MAX_SACK_BLOCKS]>,
    /// Control areas by slot; shorter than `pkts` until a control packet is first made.
    ctrl: Vec<CtrlArea>,
}

impl PacketPool {
    /// An empty pool.
    pub fn new() -> PacketPool {
        PacketPool::default()
    }

    /// Stores `p` and returns its handle, reusing a freed slot when there is one.
    #[inline]
    pub fn alloc(&mut self, mut p: Packet) -> PacketId {
        p.live = true;
        if let Some(i) = self.free.pop() {
            self.pkts[i as usize] = p;
            PacketId(i)
        } else {
            let i = u32::try_from(self.pkts.len()).expect("more than 2^32 packets alive");
            self.pkts.push(p);
            PacketId(i)
        }
    }

    /// Returns a packet's slot to the pool.
    #[inline]
    pub fn release(&mut self, id: PacketId) {
        let p = &mut self.pkts[id.0 as usize];
        debug_assert!(p.live, "double free of packet {}", id.0);
        p.live = false;
        self.free.push(id.0);
    }

    /// The packet `id`.
    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.pkts[id.0 as usize]
    }

    /// The packet `id`, mutably.
    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.pkts[id.0 as usize]
    }

    /// The valid per-hop INT records of packet `id`.
    #[inline]
    pub fn int_hops(&self, id: PacketId) -> &[IntHop] {
        let n = self.pkts[id.0 as usize].int_len as usize;
        match self.int.get(id.0 as usize) {
            Some(a) => &a[..n],
            None => &[],
        }
    }

    /// Appends an INT record to packet `id`; returns false (and records nothing) when all
    /// [`MAX_INT_HOPS`] are used.
    #[inline]
    pub fn push_int(&mut self, id: PacketId, hop: IntHop) -> bool {
        let i = id.0 as usize;
        let n = self.pkts[i].int_len as usize;
        if n >= MAX_INT_HOPS {
            return false;
        }
        if self.int.len() <= i {
            // Grow to the pool's size at once (not per packet).
            self.int.resize(
                self.pkts.len().max(i + 1),
                [IntHop::default(); MAX_INT_HOPS],
            );
        }
        self.int[i][n] = hop;
        self.pkts[i].int_len += 1;
        true
    }

    /// The valid SACK blocks of ACK `id` (empty for data packets and ACKs without SACK).
    #[inline]
    pub fn sack_blocks(&self, id: PacketId) -> &[SackBlock] {
        let n = self.pkts[id.0 as usize].sack_len as usize;
        match self.sack.get(id.0 as usize) {
            Some(a) => &a[..n],
            None => &[],
        }
    }

    /// Writes the SACK blocks of ACK `id` (at most [`MAX_SACK_BLOCKS`]; extra ones are
    /// ignored). The side table grows on the first write only.
    #[inline]
    pub fn set_sack(&mut self, id: PacketId, blocks: &[SackBlock]) {
        let i = id.0 as usize;
        let n = blocks.len().min(MAX_SACK_BLOCKS);
        if n > 0 {
            if self.sack.len() <= i {
                self.sack
                    .resize(self.pkts.len().max(i + 1), [(0, 0); MAX_SACK_BLOCKS]);
            }
            self.sack[i][..n].copy_from_slice(&blocks[..n]);
        }
        self.pkts[i].sack_len = n as u8;
    }

    /// The control area of control packet `id` (see [`CtrlArea`]; only meaningful for a
    /// packet of kind [`PacketKind::Control`] whose area was written with
    /// [`PacketPool::set_ctrl`]).
    #[inline]
    pub fn ctrl(&self, id: PacketId) -> &CtrlArea {
        const EMPTY: CtrlArea = CtrlArea {
            next: 0,
            len: 0,
            fin: false,
            reflected: false,
            shim: false,
            period: Time::ZERO,
            seq: 0,
            hops: [CtrlHop {
                rate: 0.0,
                alloc: 0.0,
                round: 0,
                flags: 0,
            }; MAX_CTRL_HOPS],
        };
        self.ctrl.get(id.0 as usize).unwrap_or(&EMPTY)
    }

    /// The control area of packet `id`, mutably (the side table grows on first use, to the
    /// pool's size at once, not per packet).
    #[inline]
    pub fn ctrl_mut(&mut self, id: PacketId) -> &mut CtrlArea {
        let i = id.0 as usize;
        if self.ctrl.len() <= i {
            self.ctrl
                .resize(self.pkts.len().max(i + 1), CtrlArea::default());
        }
        &mut self.ctrl[i]
    }

    /// Writes the whole control area of packet `id`.
    #[inline]
    pub fn set_ctrl(&mut self, id: PacketId, area: &CtrlArea) {
        *self.ctrl_mut(id) = *area;
    }

    /// Packets alive now.
    pub fn live(&self) -> usize {
        self.pkts.len() - self.free.len()
    }

    /// Slots ever allocated (the peak number of packets alive at once).
    pub fn capacity(&self) -> usize {
        self.pkts.len()
    }

    /// Sum of the wire bytes of the live packets, counted by scanning the slots (independent of
    /// the engine's counters, for the conservation check).
    pub fn live_wire_bytes(&self) -> u64 {
        self.pkts
            .iter()
            .filter(|p| p.live)
            .map(|p| p.wire as u64)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_reuses_slots_and_counts_live_bytes() {
        let mut pool = PacketPool::new();
        let a = pool.alloc(Packet {
            wire: 100,
            ..Packet::default()
        });
        let b = pool.alloc(Packet {
            wire: 48,
            ..Packet::default()
        });
        assert_eq!(pool.live(), 2);
        assert_eq!(pool.live_wire_bytes(), 148);
        pool.release(a);
        assert_eq!(pool.live_wire_bytes(), 48);
        let c = pool.alloc(Packet {
            wire: 7,
            ..Packet::default()
        });
        assert_eq!(c, a, "freed slot reused");
        assert_eq!(pool.capacity(), 2);
        assert_eq!(pool.get(b).wire, 48);
    }

    #[test]
    fn int_area_holds_five_hops_and_a_new_packet_starts_empty() {
        let mut pool = PacketPool::new();
        let other = pool.alloc(Packet::default());
        let p = pool.alloc(Packet::default());
        assert!(pool.int_hops(p).is_empty());
        for i in 0..MAX_INT_HOPS {
            assert!(pool.push_int(
                p,
                IntHop {
                    qlen: i as u64,
                    ..IntHop::default()
                }
            ));
        }
        assert!(!pool.push_int(p, IntHop::default()));
        assert_eq!(pool.int_hops(p).len(), MAX_INT_HOPS);
        assert_eq!(pool.int_hops(p)[4].qlen, 4);
        assert!(
            pool.int_hops(other).is_empty(),
            "records belong to one slot"
        );
        // A packet allocated into the freed slot starts with no records.
        pool.release(p);
        let q = pool.alloc(Packet::default());
        assert_eq!(q, p);
        assert!(pool.int_hops(q).is_empty());
    }

    #[test]
    fn sack_side_table_is_per_slot_and_reset_on_reuse() {
        let mut pool = PacketPool::new();
        let a = pool.alloc(Packet::default());
        let b = pool.alloc(Packet::default());
        assert!(pool.sack_blocks(b).is_empty());
        pool.set_sack(b, &[(10, 20), (30, 40), (50, 60), (70, 80)]);
        assert_eq!(pool.sack_blocks(b), &[(10, 20), (30, 40), (50, 60)]);
        assert!(pool.sack_blocks(a).is_empty());
        pool.release(b);
        let c = pool.alloc(Packet::default());
        assert_eq!(c, b);
        assert!(pool.sack_blocks(c).is_empty(), "a new packet has no blocks");
    }

    #[test]
    fn packet_is_small() {
        // The INT area and SACK blocks live in the pool's side tables; keep the hot packet
        // compact: 96 bytes, of which 4 are the `next` link that replaced the per-link and
        // per-queue buffers (88 before it).
        assert!(
            std::mem::size_of::<Packet>() <= 96,
            "{}",
            std::mem::size_of::<Packet>()
        );
    }
}
