//! The packet engine's events, as [`crate::engine::queue::EventQueue`] entries: each packs into
//! one word (a 4-bit tag and a 32-bit index).

use crate::engine::queue::Packed;

/// The packet engine's event queue.
pub type EventQueue = crate::engine::queue::EventQueue<Event>;

/// What happens when an event fires. Payloads are dense indices (packet, link/port, node, flow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Flow `0` starts: its sender becomes active at its host.
    FlowStart(u32),
    /// The packet at the head of link `0`'s wire has fully arrived at the link's far end
    /// (after serialization and propagation). Packets on a link arrive in the order they were
    /// sent (one serializer, one constant delay), so each link keeps its packets in flight in a
    /// FIFO and has at most one pending `Arrive` — for its head — as htsim's pipes do.
    Arrive(u32),
    /// Port (= link) `0` has finished serializing its current packet and may start the next.
    PortFree(u32),
    /// Host node `0` should try to send again (a pacing or shim release time has come).
    HostWake(u32),
    /// The retransmission timer of flow `0` may have expired (checked against its deadline).
    Rto(u32),
    /// The delayed-ACK timer of flow `0`'s receiver may have expired (checked against its
    /// deadline, as `Rto`).
    DelAck(u32),
    /// Scheduled weight change number `0` ([`super::PacketSim::schedule_weight`]).
    Weight(u32),
    /// Flow `0`'s sender may want to send a control packet (checked against the time its
    /// congestion control asks for, as `Rto`).
    Control(u32),
    /// Host `0`'s shim may want its timer ([`super::HostShim::on_timer`]; checked against the
    /// time its shim asks for, as `Control`).
    ShimTimer(u32),
    /// A PFC frame arrives at the upstream end of a link: `link << 4 | priority << 1 | pause`
    /// ([`super::config::PfcConfig`]).
    Pfc(u32),
    /// Flowcell routing: flow `0`'s receiver may have held out-of-order flowcells long enough
    /// (checked against its deadline, as `DelAck`).
    CellHold(u32),
}

const TAG_SHIFT: u32 = 60;
const LOW: u64 = (1 << 32) - 1;

impl Packed for Event {
    /// Tag in the top 4 bits, the index in the low 32 bits.
    #[inline(always)]
    fn pack(self) -> u64 {
        let (tag, lo) = match self {
            Event::FlowStart(f) => (0u64, f),
            Event::Arrive(l) => (1, l),
            Event::PortFree(p) => (2, p),
            Event::HostWake(h) => (3, h),
            Event::Rto(f) => (4, f),
            Event::DelAck(f) => (5, f),
            Event::Weight(i) => (6, i),
            Event::Control(f) => (7, f),
            Event::ShimTimer(h) => (8, h),
            Event::Pfc(x) => (9, x),
            Event::CellHold(f) => (10, f),
        };
        tag << TAG_SHIFT | lo as u64
    }

    #[inline(always)]
    fn unpack(w: u64) -> Event {
        let lo = (w & LOW) as u32;
        match w >> TAG_SHIFT {
            0 => Event::FlowStart(lo),
            1 => Event::Arrive(lo),
            2 => Event::PortFree(lo),
            3 => Event::HostWake(lo),
            4 => Event::Rto(lo),
            5 => Event::DelAck(lo),
            6 => Event::Weight(lo),
            7 => Event::Control(lo),
            8 => Event::ShimTimer(lo),
            10 => Event::CellHold(lo),
            _ => Event::Pfc(lo),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_pack_into_one_word() {
        for ev in [
            Event::FlowStart(u32::MAX),
            Event::Arrive(u32::MAX),
            Event::Arrive(0),
            Event::PortFree(3),
            Event::HostWake(0),
            Event::Rto(123_456),
            Event::DelAck(7),
            Event::Weight(u32::MAX),
            Event::Control(u32::MAX),
            Event::ShimTimer(u32::MAX),
            Event::ShimTimer(0),
            Event::Pfc(u32::MAX),
            Event::CellHold(u32::MAX),
        ] {
            assert_eq!(Event::unpack(ev.pack()), ev);
        }
    }
}
