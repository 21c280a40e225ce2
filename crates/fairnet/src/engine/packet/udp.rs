//! UDP at a constant bit rate: no ACKs, no retransmission, no congestion reaction.
//!
//! The sender emits `min(MSS, remaining)`-byte packets spaced by one packet time at `rate`
//! (wire bytes, header included), measured from the flow's start, so the long-run rate is
//! exactly `rate` whenever the NIC can keep up; when it cannot, packets go back to back at
//! the NIC's rate. Lost packets are never recovered; the flow completes when the receiver
//! holds all bytes.

use super::tcp::{Segment, SendState};
use crate::units::{Bytes, Rate, Time};

/// Sender side of a constant-bit-rate flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UdpSender {
    size: u64,
    sent: u64,
    mss: u64,
    header: u64,
    rate: Rate,
    next_at: u64,
}

impl UdpSender {
    /// A flow of `size` bytes at `rate`, starting at `start`.
    pub fn new(size: Bytes, mss: u64, header: u64, rate: Rate, start: Time) -> UdpSender {
        UdpSender {
            size: size.0,
            sent: 0,
            mss,
            header,
            rate,
            next_at: start.0,
        }
    }

    /// The sending rate.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Payload bytes sent so far.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// Whether a packet can be sent at `now`.
    #[inline]
    pub fn state(&self, now: Time) -> SendState {
        if self.sent >= self.size {
            SendState::Done
        } else if self.next_at > now.0 {
            SendState::Wait(Time(self.next_at))
        } else {
            SendState::Ready
        }
    }

    /// Takes the next packet.
    #[inline]
    pub fn next_segment(&mut self) -> Segment {
        let seq = self.sent;
        let len = (self.size - seq).min(self.mss);
        self.sent += len;
        self.next_at += self.rate.tx_time(Bytes(len + self.header)).0;
        Segment {
            seq,
            len: len as u32,
            retransmit: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_packets_at_the_rate() {
        // 1000 B payload + 48 B header at 8.384 Gb/s: 1 us per packet.
        let mut u = UdpSender::new(Bytes(2500), 1000, 48, Rate(8_384_000_000), Time::ZERO);
        assert_eq!(u.state(Time::ZERO), SendState::Ready);
        assert_eq!(u.next_segment().len, 1000);
        assert_eq!(u.state(Time::ZERO), SendState::Wait(Time::from_us(1)));
        assert_eq!(u.state(Time::from_us(1)), SendState::Ready);
        u.next_segment();
        let last = u.next_segment();
        assert_eq!((last.seq, last.len), (2000, 500));
        assert_eq!(u.state(Time::from_ms(1)), SendState::Done);
    }
}
