//! The SACK sender's scoreboard and RFC 6675's conservative loss recovery ("A Conservative
//! Loss Recovery Algorithm Based on Selective Acknowledgment (SACK) for TCP").
//!
//! The receiver side (RFC 2018 blocks) lives in [`super::tcp::TcpReceiver::sack_blocks`]; the
//! blocks travel in the packet pool's side table ([`super::pkt::PacketPool::sack_blocks`]), not
//! in [`super::pkt::Packet`]. [`super::tcp::TcpSender`] drives this scoreboard:
//!
//! - `Update()` (RFC 6675 §4): every ACK's blocks are merged into a sorted list of SACKed
//!   ranges above the cumulative ACK ([`Scoreboard::update`]).
//! - `IsLost(SeqNum)` (§4, `DupThresh = 3`, §2): a segment is lost when at least 3 SACKed
//!   segments, or more than `2·SMSS` SACKed bytes, lie above it ([`Scoreboard::is_lost`]).
//! - `SetPipe()` (§4): `pipe` = the outstanding un-SACKed bytes not deemed lost, plus the
//!   un-SACKed bytes retransmitted in this recovery (below `HighRxt`) ([`Scoreboard::set_pipe`]).
//! - `NextSeg()` (§4, rules 1–4): the first un-SACKed lost segment above `HighRxt`; else new
//!   data; else the first un-SACKed segment above `HighRxt` below the highest SACKed byte; else
//!   one "rescue" retransmission of the highest un-SACKed segment per recovery
//!   ([`Scoreboard::next_seg`]).
//!
//! Choices: the scoreboard works in whole segments. Every segment of a flow starts at a
//! multiple of the MSS (segments are `min(MSS, remaining)` bytes from offset 0, and a
//! retransmission resends the same segment), so SACKed ranges are unions of whole segments
//! and "the octet SeqNum" of RFC 6675 can be read as "the segment starting at SeqNum".
//! Sequence bounds are exclusive ends: `high_rxt` is one past the highest retransmitted byte,
//! and `RescueRxt` is compared as `HighACK >= rescue_rxt`.

use super::pkt::SackBlock;

/// RFC 6675 §2 `DupThresh` (RFC 5681's three duplicate ACKs).
pub const DUP_THRESH: u64 = 3;

/// What [`Scoreboard::next_seg`] chose (RFC 6675 §4 `NextSeg()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Rules (1) and (3): retransmit the segment starting here.
    Retransmit(u64),
    /// Rule (2): send new data.
    NewData,
    /// Rule (4): the rescue retransmission of the segment starting here.
    Rescue(u64),
}

/// The sender's SACK state (RFC 6675 §2–4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    /// SACKed ranges above the cumulative ACK (`HighACK`), sorted and disjoint, `[start, end)`.
    /// Allocates only once a SACK arrives (after a loss or reordering).
    sacked: Vec<SackBlock>,
    /// `HighRxt`: one past the highest byte retransmitted in this recovery.
    pub(crate) high_rxt: u64,
    /// `RescueRxt`: no rescue retransmission until `HighACK >= rescue_rxt` (`None`: undefined).
    pub(crate) rescue_rxt: Option<u64>,
    /// `pipe`: the sender's estimate of the bytes in the network during recovery.
    pub(crate) pipe: u64,
}

impl Scoreboard {
    /// Whether nothing is SACKed.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.sacked.is_empty()
    }

    /// The SACKed ranges.
    pub fn sacked(&self) -> &[SackBlock] {
        &self.sacked
    }

    /// RFC 6675 §4 `Update()`: forgets what the cumulative ACK `high_ack` covers and merges
    /// `blocks`; returns whether they SACKed a byte not SACKed before (the §2 definition of a
    /// duplicate ACK needs "SACK information for new data").
    pub fn update(&mut self, high_ack: u64, blocks: &[SackBlock]) -> bool {
        let k = self.sacked.partition_point(|r| r.1 <= high_ack);
        if k > 0 {
            self.sacked.drain(..k);
        }
        if let Some(first) = self.sacked.first_mut() {
            first.0 = first.0.max(high_ack);
        }
        let mut new = false;
        for &(s, e) in blocks {
            let s = s.max(high_ack);
            if e > s {
                new |= self.insert(s, e);
            }
        }
        new
    }

    fn insert(&mut self, mut s: u64, mut e: u64) -> bool {
        let i = self.sacked.partition_point(|r| r.1 < s);
        let mut j = i;
        while j < self.sacked.len() && self.sacked[j].0 <= e {
            s = s.min(self.sacked[j].0);
            e = e.max(self.sacked[j].1);
            j += 1;
        }
        let old = j == i + 1 && self.sacked[i] == (s, e);
        self.sacked.splice(i..j, std::iter::once((s, e)));
        !old
    }

    /// One past the highest SACKed byte (0: none).
    #[inline]
    pub fn highest_sacked(&self) -> u64 {
        self.sacked.last().map_or(0, |r| r.1)
    }

    /// `seq` itself if it is not SACKed, else the end of the SACKed range holding it.
    #[inline]
    pub fn skip_sacked(&self, seq: u64) -> u64 {
        let i = self.sacked.partition_point(|r| r.1 <= seq);
        match self.sacked.get(i) {
            Some(r) if r.0 <= seq => r.1,
            _ => seq,
        }
    }

    /// RFC 6675 §4 `IsLost(seq)` for the un-SACKed segment starting at `seq`: at least
    /// `DupThresh` SACKed segments, or more than `(DupThresh − 1)·SMSS` SACKed bytes, above it.
    pub fn is_lost(&self, seq: u64, mss: u64) -> bool {
        let i = self.sacked.partition_point(|r| r.0 <= seq);
        let (mut bytes, mut segs) = (0, 0);
        for r in &self.sacked[i..] {
            let len = r.1 - r.0;
            bytes += len;
            segs += len.div_ceil(mss);
            if segs >= DUP_THRESH || bytes > (DUP_THRESH - 1) * mss {
                return true;
            }
        }
        false
    }

    /// RFC 6675 §4 `SetPipe()` over the outstanding data `[high_ack, high_data)`: every
    /// un-SACKed segment counts once if it is not lost (`IsLost` false, still in flight) and
    /// once more if it was retransmitted in this recovery (below `HighRxt`). One pass from the
    /// top, counting the SACKed segments above as it goes.
    pub fn set_pipe(&mut self, high_ack: u64, high_data: u64, mss: u64) {
        let (mut pipe, mut sb, mut ss) = (0, 0, 0);
        let mut r = self.sacked.len();
        let mut end = high_data;
        while end > high_ack {
            // Segment boundaries are multiples of the MSS (the last one may be short).
            let start = ((end - 1) / mss * mss).max(high_ack);
            let len = end - start;
            while r > 0 && self.sacked[r - 1].0 >= end {
                r -= 1;
            }
            if r > 0 && self.sacked[r - 1].0 <= start && self.sacked[r - 1].1 >= end {
                sb += len;
                ss += 1;
            } else {
                let lost = ss >= DUP_THRESH || sb > (DUP_THRESH - 1) * mss;
                if !lost {
                    pipe += len;
                }
                if start < self.high_rxt {
                    pipe += len;
                }
            }
            end = start;
        }
        self.pipe = pipe;
    }

    /// RFC 6675 §4 `NextSeg()` with cumulative ACK `high_ack`, highest byte sent `high_data`
    /// (exclusive) and whether new data is available. `None`: nothing to send.
    pub fn next_seg(
        &self,
        high_ack: u64,
        high_data: u64,
        new_data: bool,
        mss: u64,
    ) -> Option<NextSeg> {
        // The first un-SACKed segment above HighRxt (ranges are disjoint and not adjacent
        // after merging, so one skip lands on an un-SACKed byte).
        let s = self.skip_sacked(high_ack.max(self.high_rxt));
        let below_sack = s < self.highest_sacked();
        // Rule (1): it is lost. IsLost only weakens with the sequence number, so if this one
        // is not lost no later one is.
        if below_sack && self.is_lost(s, mss) {
            return Some(NextSeg::Retransmit(s));
        }
        // Rule (2): new data.
        if new_data {
            return Some(NextSeg::NewData);
        }
        // Rule (3): un-SACKed, not yet deemed lost, below the highest SACKed byte.
        if below_sack {
            return Some(NextSeg::Retransmit(s));
        }
        // Rule (4): one rescue retransmission per recovery, of the segment holding the
        // highest outstanding un-SACKed byte.
        if self.rescue_rxt.is_none_or(|r| high_ack >= r) {
            let top = match self.sacked.last() {
                Some(r) if r.1 >= high_data => r.0,
                _ => high_data,
            };
            if top > high_ack {
                return Some(NextSeg::Rescue((top - 1) / mss * mss));
            }
        }
        None
    }

    /// Forgets the recovery state (`HighRxt`, `RescueRxt`, `pipe`) but keeps the SACKed
    /// ranges: after a timeout (RFC 6675 §5.1) the go-back-N resend skips them.
    pub fn end_recovery(&mut self) {
        self.high_rxt = 0;
        self.rescue_rxt = None;
        self.pipe = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    #[test]
    fn update_merges_and_forgets_below_the_cumulative_ack() {
        let mut sb = Scoreboard::default();
        assert!(sb.update(0, &[(2000, 3000)]));
        assert!(sb.update(0, &[(4000, 5000), (2000, 3000)]));
        assert!(!sb.update(0, &[(2000, 3000), (4000, 5000)]), "nothing new");
        assert!(sb.update(0, &[(3000, 4000)]));
        assert_eq!(sb.sacked(), &[(2000, 5000)]);
        sb.update(3000, &[]);
        assert_eq!(sb.sacked(), &[(3000, 5000)]);
        sb.update(6000, &[]);
        assert!(sb.is_empty());
    }

    #[test]
    fn is_lost_needs_three_sacked_segments_above() {
        let mut sb = Scoreboard::default();
        sb.update(0, &[(1000, 3000)]);
        assert!(!sb.is_lost(0, MSS), "two segments above");
        sb.update(0, &[(5000, 6000)]);
        assert!(sb.is_lost(0, MSS), "three segments above");
        assert!(!sb.is_lost(3000, MSS), "one above");
        assert_eq!(sb.skip_sacked(1500), 3000);
        assert_eq!(sb.skip_sacked(3000), 3000);
    }

    #[test]
    fn pipe_and_next_seg_follow_rfc_6675() {
        // Ten segments 0..10 sent; 0, 3 and 5 lost, the others SACKed.
        let mut sb = Scoreboard::default();
        sb.update(0, &[(1000, 3000), (4000, 5000), (6000, 10_000)]);
        // Entry (§5 step 4.3): segment 0 retransmitted.
        sb.high_rxt = 1000;
        sb.rescue_rxt = Some(1000);
        sb.set_pipe(0, 10_000, MSS);
        // Segment 0: lost (counts 0) but retransmitted (1000); 3 and 5 lost, not resent.
        assert_eq!(sb.pipe, 1000);
        assert_eq!(
            sb.next_seg(0, 10_000, true, MSS),
            Some(NextSeg::Retransmit(3000))
        );
        sb.high_rxt = 4000;
        assert_eq!(
            sb.next_seg(0, 10_000, true, MSS),
            Some(NextSeg::Retransmit(5000))
        );
        sb.high_rxt = 6000;
        assert_eq!(sb.next_seg(0, 10_000, true, MSS), Some(NextSeg::NewData));
        assert_eq!(sb.next_seg(0, 10_000, false, MSS), None, "rescue not yet");
        sb.set_pipe(0, 10_000, MSS);
        assert_eq!(sb.pipe, 3000, "three retransmissions in flight");
        // Rule 3: a segment not yet deemed lost (only 2 SACKed segments above 7000).
        let mut sb = Scoreboard::default();
        sb.update(0, &[(8000, 10_000)]);
        assert_eq!(
            sb.next_seg(7000, 10_000, false, MSS),
            Some(NextSeg::Retransmit(7000))
        );
        // Rule 4: the tail lost, nothing SACKed above it: rescue the highest un-SACKed segment.
        let sb = Scoreboard::default();
        assert_eq!(
            sb.next_seg(7000, 10_000, false, MSS),
            Some(NextSeg::Rescue(9000))
        );
    }
}
