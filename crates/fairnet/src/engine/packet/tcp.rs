//! A reliable TCP-like transport: cumulative ACKs, one ACK per data packet, SACK (RFC 2018)
//! with RFC 6675's conservative loss recovery ([`super::sack`]) or, without SACK, fast
//! retransmit on the third duplicate ACK with NewReno fast recovery (RFC 6582), and a
//! retransmission timer (RFC 6298) with a configurable minimum. The window and pacing rate come from a
//! [`CongestionControl`] ([`super::dctcp`]).
//!
//! Choices, and why:
//! - Byte sequence numbers; segments are `min(MSS, remaining)` payload bytes.
//! - Every data packet carries a timestamp that its ACK echoes (RFC 7323), so every ACK of new
//!   data gives an RTT sample, retransmissions included (no Karn ambiguity).
//! - With SACK (`tcp.sack`, the default): the receiver reports up to
//!   [`super::pkt::MAX_SACK_BLOCKS`] blocks per ACK (RFC 2018 §4: the first holds the segment
//!   that triggered the ACK, then the most recently reported ones); the sender keeps RFC 6675's
//!   scoreboard, enters recovery on the third duplicate ACK (an ACK SACKing new data, §2) or
//!   when `IsLost(HighACK)` holds (§5 step 3), sends while `cwnd − pipe ≥ 1 SMSS` by `NextSeg()`
//!   (§5 steps 4 and C), and leaves at the recovery point. No window inflation.
//! - Recovery without SACK: RFC 6582's NewReno. The window inflation of fast recovery (3 MSS,
//!   then one MSS per further duplicate ACK; on a partial ACK deflated by the bytes acked and
//!   one MSS added back) is kept here, outside the congestion control, so a congestion
//!   control only decides the window itself.
//! - After a timeout the sender goes back to the first unacknowledged byte (go-back-N, as TCP
//!   without SACK does); the receiver keeps out-of-order data, so the cumulative ACK jumps over
//!   what already arrived. With SACK the resend skips SACKed ranges: RFC 6675 §5.1 keeps
//!   `Update()` running after a timeout, and our receivers never renege (RFC 2018 §8 allows it;
//!   Linux's `tcp_enter_loss` likewise keeps SACK marks unless it detects reneging).
//! - The RTO starts at `initial_rto` (RFC 6298's 1 s would dominate microsecond-scale flows),
//!   is `srtt + 4·rttvar` clamped to `[min_rto, max_rto]`, and doubles on each expiry.

use super::cc::{AckInfo, CongestionControl};
use super::pkt::{IntHop, Packet, SackBlock, MAX_SACK_BLOCKS};
use super::sack::{NextSeg, Scoreboard};
use crate::units::{Bytes, Time};

/// Timer and segment parameters of a [`TcpSender`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpParams {
    /// Maximum segment size (payload bytes per packet).
    pub mss: u64,
    /// Header bytes per packet (for pacing the wire size).
    pub header: u64,
    /// Lower bound of the retransmission timeout.
    pub min_rto: Time,
    /// Retransmission timeout before the first RTT sample.
    pub initial_rto: Time,
    /// Upper bound of the retransmission timeout (and of its backoff).
    pub max_rto: Time,
    /// SACK-based loss recovery (RFC 2018, RFC 6675) instead of NewReno (RFC 6582).
    pub sack: bool,
    /// Pacing credit in bytes ([`super::config::TcpConfig::pacing_burst`]).
    pub pacing_burst: u64,
}

/// Whether a sender can transmit now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendState {
    /// A packet can go now.
    Ready,
    /// A packet can go at this time (pacing or a shim's rate limit).
    Wait(Time),
    /// Nothing to send until an ACK or a timeout.
    Blocked,
    /// All data acknowledged (TCP) or sent (UDP).
    Done,
}

/// One segment chosen for transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Byte offset of the first payload byte.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Whether some of these bytes were sent before.
    pub retransmit: bool,
}

/// Sender side of the reliable transport.
pub struct TcpSender<C> {
    size: u64,
    p: TcpParams,
    /// The congestion control deciding the window and pacing rate.
    pub cc: C,
    snd_una: u64,
    snd_nxt: u64,
    high_sent: u64,
    dupacks: u32,
    in_recovery: bool,
    recover: u64,
    inflation: u64,
    /// The receiver's advertised window from the latest ACK (bytes; `u64::MAX` until an ACK
    /// says otherwise): RFC 5681 §3 limits data in flight to `min(cwnd, rwnd)`. Hypervisor
    /// shims that impose a window on an unmodified guest transport rewrite it.
    rwnd: u64,
    retx_pending: Option<u64>,
    /// RFC 6675 state (used only with [`TcpParams::sack`]).
    sb: Scoreboard,
    srtt: Option<u64>,
    rttvar: u64,
    /// The current timeout without backoff (from the RTT estimate).
    base_rto: u64,
    /// The current timeout with backoff.
    rto: u64,
    next_send_at: u64,
    /// Time and wire bytes of the last segment sent (for [`TcpSender::repace`]).
    last_sent: (u64, u64),
    /// When the retransmission timer expires (`u64::MAX`: not armed).
    pub(crate) rto_deadline: u64,
    /// Payload bytes sent more than once.
    pub bytes_retransmitted: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
}

impl<C: CongestionControl> TcpSender<C> {
    /// A sender of `size` bytes.
    pub fn new(size: Bytes, p: TcpParams, cc: C) -> TcpSender<C> {
        let rto = p.initial_rto.0.max(p.min_rto.0).min(p.max_rto.0);
        TcpSender {
            size: size.0,
            p,
            cc,
            snd_una: 0,
            snd_nxt: 0,
            high_sent: 0,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            inflation: 0,
            rwnd: u64::MAX,
            retx_pending: None,
            sb: Scoreboard::default(),
            srtt: None,
            rttvar: 0,
            base_rto: rto,
            rto,
            next_send_at: 0,
            last_sent: (0, 0),
            rto_deadline: u64::MAX,
            bytes_retransmitted: 0,
            timeouts: 0,
            fast_retransmits: 0,
        }
    }

    /// First unacknowledged byte.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// Next new byte to send.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }

    /// Whether every byte is acknowledged.
    pub fn done(&self) -> bool {
        self.snd_una >= self.size
    }

    /// Smoothed RTT, once sampled.
    pub fn srtt(&self) -> Option<Time> {
        self.srtt.map(Time)
    }

    /// The current retransmission timeout (with backoff).
    pub fn rto(&self) -> Time {
        Time(self.rto)
    }

    /// Recomputes the pacing release time after the congestion control's pacing rate changed
    /// abruptly (an explicit-rate scheme learned a new rate): the next segment may go one
    /// packet time at the *new* rate after the last one, not at the old rate.
    pub fn repace(&mut self) {
        if let Some(rate) = self.cc.pacing_rate() {
            let (at, wire) = self.last_sent;
            if wire > 0 {
                self.next_send_at = at + rate.tx_time(Bytes(wire)).0;
            }
        }
    }

    /// Whether the sender is in SACK-based loss recovery (RFC 6675 §5).
    #[inline]
    fn sack_recovery(&self) -> bool {
        self.in_recovery && self.p.sack
    }

    /// RFC 6675 `NextSeg()` now.
    #[inline]
    fn sack_next(&self) -> Option<NextSeg> {
        self.sb.next_seg(
            self.snd_una,
            self.high_sent,
            self.snd_nxt < self.size,
            self.p.mss,
        )
    }

    /// Payload bytes of the segment starting at `seq`.
    #[inline]
    fn seg_len(&self, seq: u64) -> u64 {
        (self.size - seq).min(self.p.mss)
    }

    #[inline]
    fn window_allows(&self) -> bool {
        if !self.cc.may_send() {
            return false;
        }
        if self.sack_recovery() {
            // RFC 6675 §5 step (C): send while cwnd − pipe ≥ 1 SMSS and NextSeg() has one.
            let window = self.cc.cwnd().min(self.rwnd);
            return self.sb.pipe + self.p.mss <= window && self.sack_next().is_some();
        }
        if self.snd_nxt >= self.size {
            return false;
        }
        let seg = (self.size - self.snd_nxt).min(self.p.mss);
        let flight = self.snd_nxt - self.snd_una;
        // With nothing in flight one segment may always go: a window below one MSS must not
        // stall the flow (nor a zero receive window: the segment doubles as its probe).
        let window = self.cc.cwnd().saturating_add(self.inflation).min(self.rwnd);
        flight == 0 || flight + seg <= window
    }

    /// Whether a segment can be sent at `now`.
    #[inline]
    pub fn state(&self, now: Time) -> SendState {
        if self.done() {
            return SendState::Done;
        }
        if self.retx_pending.is_none() && !self.window_allows() {
            return SendState::Blocked;
        }
        if self.next_send_at > now.0 {
            return SendState::Wait(Time(self.next_send_at));
        }
        SendState::Ready
    }

    /// Takes the next segment (a pending retransmission first, else new data) and arms the
    /// timer if it is not running. Call only when [`TcpSender::state`] is `Ready`.
    #[inline]
    pub fn next_segment(&mut self, now: Time) -> Segment {
        let pick = if self.retx_pending.is_none() && self.sack_recovery() {
            self.sack_next()
        } else {
            None
        };
        let resend = match pick {
            // §5 step (C.1)–(C.4): a retransmission chosen by NextSeg() raises HighRxt (rule
            // 1 and 3) or sets RescueRxt (rule 4); pipe grows by what is sent.
            Some(NextSeg::Retransmit(seq)) => {
                self.sb.high_rxt = seq + self.seg_len(seq);
                self.sb.pipe += self.seg_len(seq);
                Some(seq)
            }
            Some(NextSeg::Rescue(seq)) => {
                self.sb.rescue_rxt = Some(self.recover);
                self.sb.pipe += self.seg_len(seq);
                Some(seq)
            }
            Some(NextSeg::NewData) => {
                self.sb.pipe += self.seg_len(self.snd_nxt);
                None
            }
            None => self.retx_pending.take(),
        };
        let seg = if let Some(seq) = resend {
            let len = self.seg_len(seq);
            self.bytes_retransmitted += len;
            Segment {
                seq,
                len: len as u32,
                retransmit: true,
            }
        } else {
            let seq = self.snd_nxt;
            let len = self.seg_len(seq);
            self.snd_nxt += len;
            if self.p.sack && self.snd_nxt < self.high_sent {
                // Go-back-N after a timeout: skip what the receiver has SACKed.
                self.snd_nxt = self.sb.skip_sacked(self.snd_nxt);
            }
            let retransmit = seq < self.high_sent;
            if retransmit {
                self.bytes_retransmitted += self.high_sent.min(seq + len) - seq;
            }
            self.high_sent = self.high_sent.max(self.snd_nxt);
            Segment {
                seq,
                len: len as u32,
                retransmit,
            }
        };
        if let Some(rate) = self.cc.pacing_rate() {
            let wire = Bytes(seg.len as u64 + self.p.header);
            // A packet that left late (the NIC was busy) may take back up to `pacing_burst`
            // bytes of the lost time (0: none, the release time restarts from now).
            let credit = if self.p.pacing_burst > 0 {
                rate.tx_time(Bytes(self.p.pacing_burst)).0
            } else {
                0
            };
            self.next_send_at =
                now.0.saturating_sub(credit).max(self.next_send_at) + rate.tx_time(wire).0;
            self.last_sent = (now.0, wire.0);
        }
        if self.rto_deadline == u64::MAX {
            self.rto_deadline = now.0 + self.rto;
        }
        seg
    }

    /// RFC 6298 §2.2–2.3 with clock granularity 0 (picosecond time).
    fn sample_rtt(&mut self, r: u64) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                self.rttvar = (3 * self.rttvar + s.abs_diff(r)) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        let rto = self.srtt.unwrap_or(r) + 4 * self.rttvar;
        self.base_rto = rto.clamp(self.p.min_rto.0, self.p.max_rto.0);
        self.rto = self.base_rto;
    }

    /// Processes an ACK (`ack.seq` is the cumulative acknowledgement, `sack` its SACK blocks).
    pub fn on_ack(&mut self, ack: &Packet, int: &[IntHop], sack: &[SackBlock], now: Time) {
        let cum = ack.seq.min(self.size);
        let mss = self.p.mss;
        if cum >= self.snd_una {
            // RFC 793 §3.7: the window of the newest acknowledgement (a stale, reordered ACK
            // below snd_una does not move it).
            self.rwnd = ack.window;
        }
        // RFC 6675 §4 Update(); an ACK SACKing new data counts as a duplicate (§2).
        let sack_new = self.p.sack
            && (!sack.is_empty() || !self.sb.is_empty())
            && self.sb.update(cum.max(self.snd_una), sack);
        if cum > self.snd_una {
            let acked = cum - self.snd_una;
            self.snd_una = cum;
            // After a go-back-N restart the receiver may acknowledge beyond what we resent.
            self.snd_nxt = self.snd_nxt.max(cum);
            if self.p.sack && self.snd_nxt < self.high_sent {
                self.snd_nxt = self.sb.skip_sacked(self.snd_nxt);
            }
            self.dupacks = 0;
            let rtt = now.0.saturating_sub(ack.ts.0);
            self.sample_rtt(rtt);
            if self.in_recovery {
                if cum >= self.recover {
                    // RFC 6582 §3.2 step 3, full acknowledgment: leave recovery (RFC 6675 §5
                    // step (A): the cumulative ACK reached RecoveryPoint).
                    self.in_recovery = false;
                    self.inflation = 0;
                    self.sb.end_recovery();
                } else if self.p.sack {
                    // RFC 6675 §5 step (C): a partial ACK only updates pipe; NextSeg() picks
                    // what goes next.
                    self.sb.set_pipe(self.snd_una, self.high_sent, mss);
                } else {
                    // Partial acknowledgment: retransmit the next hole, deflate the window by
                    // the bytes acked and add back one MSS.
                    self.retx_pending = Some(self.snd_una);
                    self.inflation = self.inflation.saturating_sub(acked) + mss;
                }
            }
            let info = self.ack_info(ack, int, now, acked, Some(Time(rtt)));
            self.cc.on_ack(&info);
            // RFC 6298 §5.2–5.3: stop the timer when all is acknowledged, else restart it.
            self.rto_deadline = if self.snd_una >= self.snd_nxt.max(self.high_sent) {
                u64::MAX
            } else {
                now.0 + self.rto
            };
            if self.done() {
                self.retx_pending = None;
            }
        } else if cum == self.snd_una && self.snd_nxt > self.snd_una && (sack_new || !self.p.sack) {
            self.dupacks += 1;
            if self.in_recovery {
                if self.p.sack {
                    self.sb.set_pipe(self.snd_una, self.high_sent, mss);
                } else {
                    self.inflation += mss;
                }
            } else if (self.dupacks >= 3 || (self.p.sack && self.sb.is_lost(cum, mss)))
                && (cum > self.recover || self.recover == 0)
            {
                // RFC 6582 §3.2 step 1–2 / RFC 6675 §5 steps 2–3: enter recovery on the third
                // duplicate ACK (or, with SACK, when IsLost(HighACK + 1)), but only for a loss
                // past the previous recovery point (RFC 6675 §5.1 after a timeout).
                self.in_recovery = true;
                self.recover = self.high_sent;
                self.fast_retransmits += 1;
                let flight = self.snd_nxt - self.snd_una;
                self.cc.on_loss(now, flight);
                // Retransmit the first segment (RFC 6675 §5 step 4.3 sets HighRxt and
                // RescueRxt to its end), then SetPipe() (step 4.4).
                self.retx_pending = Some(self.snd_una);
                if self.p.sack {
                    let end = self.snd_una + self.seg_len(self.snd_una);
                    self.sb.high_rxt = end;
                    self.sb.rescue_rxt = Some(end);
                    self.sb.set_pipe(self.snd_una, self.high_sent, mss);
                } else {
                    self.inflation = 3 * mss;
                }
            }
            let info = self.ack_info(ack, int, now, 0, None);
            self.cc.on_ack(&info);
        }
        // An ACK below snd_una is stale (reordered): ignored.
        self.release_after_rate_change(now);
    }

    /// The release time of the next segment (set when the last one left, one packet time at
    /// the rate then) after the pacing rate changed, for a congestion control that asks:
    /// `t` = the last departure plus one packet time at the current pacing rate.
    /// With [`CongestionControl::release_follows_rate_rise`] a pending release moves to `t`
    /// if that is sooner; a release that has come is left alone (it already allows a segment;
    /// moving it back would add credit). With [`CongestionControl::release_follows_rate_fall`]
    /// the release moves to `t` if that is later, pending or come. With both, a pending
    /// release is `t` (a NIC that re-times a paced queue pair's next send at every rate
    /// change).
    fn release_after_rate_change(&mut self, now: Time) {
        let (rise, fall) = (
            self.cc.release_follows_rate_rise(),
            self.cc.release_follows_rate_fall(),
        );
        if !(fall || rise && self.next_send_at > now.0) {
            return;
        }
        let Some(rate) = self.cc.pacing_rate() else {
            return;
        };
        let (at, wire) = self.last_sent;
        if wire == 0 {
            return;
        }
        let t = at + rate.tx_time(Bytes(wire)).0;
        if rise && self.next_send_at > now.0 {
            self.next_send_at = self.next_send_at.min(t);
        }
        if fall {
            self.next_send_at = self.next_send_at.max(t);
        }
    }

    fn ack_info<'a>(
        &self,
        ack: &Packet,
        int: &'a [IntHop],
        now: Time,
        acked: u64,
        rtt: Option<Time>,
    ) -> AckInfo<'a> {
        AckInfo {
            now,
            acked,
            cum_ack: self.snd_una,
            snd_nxt: self.snd_nxt,
            in_flight: self.snd_nxt - self.snd_una,
            ece: ack.ece,
            max_qdelay: ack.max_qdelay,
            int,
            rtt,
            in_recovery: self.in_recovery,
            word: ack.word,
        }
    }

    /// The timer fired at `now` (the engine calls this only when `now >= rto_deadline`).
    pub fn on_timeout(&mut self, now: Time) {
        if self.done() {
            self.rto_deadline = u64::MAX;
            return;
        }
        self.timeouts += 1;
        let flight = self.snd_nxt - self.snd_una;
        self.cc.on_timeout(now, flight);
        // RFC 6582 §3.2 step 5 analogue: no fast retransmit for losses before this point.
        self.recover = self.high_sent;
        self.in_recovery = false;
        self.inflation = 0;
        self.dupacks = 0;
        self.retx_pending = None;
        self.sb.end_recovery();
        self.snd_nxt = self.snd_una;
        if self.p.sack {
            self.snd_nxt = self.sb.skip_sacked(self.snd_nxt);
        }
        // RFC 6298 §5.5: back off.
        self.rto = (self.rto * 2).min(self.p.max_rto.0);
        self.rto_deadline = now.0 + self.rto;
        self.next_send_at = now.0;
    }
}

/// Receiver side: in-order delivery point plus out-of-order byte ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpReceiver {
    rcv_nxt: u64,
    /// Received ranges above `rcv_nxt`, sorted and disjoint, `[start, end)`. Allocates only
    /// when packets arrive out of order (after a loss or with spraying).
    ooo: Vec<(u64, u64)>,
    /// SACK blocks of the previous ACK, most recent first (RFC 2018 §4 repeats them).
    reported: [SackBlock; MAX_SACK_BLOCKS],
    reported_len: u8,
    /// Payload bytes received more than once.
    pub duplicate_bytes: u64,
}

impl TcpReceiver {
    /// Bytes delivered in order.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Records `len` bytes at `seq`; returns the cumulative ACK.
    pub fn on_data(&mut self, seq: u64, len: u64) -> u64 {
        let end = seq + len;
        if end <= self.rcv_nxt {
            self.duplicate_bytes += len;
        } else if seq <= self.rcv_nxt {
            self.rcv_nxt = end;
            // Pull in the out-of-order ranges the new data reaches.
            let mut k = 0;
            while k < self.ooo.len() && self.ooo[k].0 <= self.rcv_nxt {
                self.rcv_nxt = self.rcv_nxt.max(self.ooo[k].1);
                k += 1;
            }
            self.ooo.drain(..k);
            if self.ooo.is_empty() {
                self.reported_len = 0;
            }
        } else {
            self.insert(seq, end);
        }
        self.rcv_nxt
    }

    /// Whether out-of-order data is held (then ACKs carry SACK blocks).
    #[inline]
    pub fn holds_out_of_order(&self) -> bool {
        !self.ooo.is_empty()
    }

    /// The out-of-order range holding byte `seq`, if any.
    fn range_of(&self, seq: u64) -> Option<SackBlock> {
        let i = self.ooo.partition_point(|r| r.1 <= seq);
        self.ooo.get(i).copied().filter(|r| r.0 <= seq)
    }

    /// Fills `out` with the SACK blocks of the next ACK and returns how many (RFC 2018 §4):
    /// first the block holding `trigger` (the byte offset of the segment that caused the ACK,
    /// `None` for a timer-driven ACK), then the blocks reported most recently (as they are now,
    /// merged with later arrivals), then the highest other ranges. Nothing once all is in order.
    pub fn sack_blocks(
        &mut self,
        trigger: Option<u64>,
        out: &mut [SackBlock; MAX_SACK_BLOCKS],
    ) -> usize {
        let mut n = 0;
        if !self.ooo.is_empty() {
            let mut push = |r: SackBlock, out: &mut [SackBlock; MAX_SACK_BLOCKS]| {
                if n < MAX_SACK_BLOCKS && !out[..n].contains(&r) {
                    out[n] = r;
                    n += 1;
                }
            };
            if let Some(r) = trigger.and_then(|s| self.range_of(s)) {
                push(r, out);
            }
            for k in 0..self.reported_len as usize {
                if let Some(r) = self.range_of(self.reported[k].0) {
                    push(r, out);
                }
            }
            for &r in self.ooo.iter().rev() {
                push(r, out);
            }
        }
        self.reported[..n].copy_from_slice(&out[..n]);
        self.reported_len = n as u8;
        n
    }

    fn insert(&mut self, mut s: u64, mut e: u64) {
        // First range ending at or after s: it and the following ones may overlap [s, e).
        let i = self.ooo.partition_point(|r| r.1 < s);
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            j += 1;
        }
        if j == i + 1 && self.ooo[i] == (s, e) {
            self.duplicate_bytes += e - s;
        }
        self.ooo.splice(i..j, std::iter::once((s, e)));
    }
}

#[cfg(test)]
mod tests {
    use super::super::pkt::PacketKind;
    use super::*;
    use crate::units::Rate;

    /// RFC 5681's window, enough to drive the sender in these tests: slow start (no
    /// congestion avoidance is reached), `cwnd = ssthresh = max(FlightSize/2, 2·SMSS)` on fast
    /// retransmit, one segment after a timeout.
    struct Rfc5681 {
        mss: u64,
        cwnd: u64,
    }

    impl CongestionControl for Rfc5681 {
        fn on_ack(&mut self, a: &AckInfo<'_>) {
            if !a.in_recovery {
                self.cwnd += a.acked;
            }
        }
        fn on_loss(&mut self, _now: Time, in_flight: u64) {
            self.cwnd = (in_flight / 2).max(2 * self.mss);
        }
        fn on_timeout(&mut self, _now: Time, _in_flight: u64) {
            self.cwnd = self.mss;
        }
        fn cwnd(&self) -> u64 {
            self.cwnd
        }
    }

    fn params() -> TcpParams {
        TcpParams {
            mss: 1000,
            header: 48,
            min_rto: Time::from_us(100),
            initial_rto: Time::from_ms(1),
            max_rto: Time::from_ms(100),
            sack: false,
            pacing_burst: 0,
        }
    }

    fn ack(seq: u64, ts: Time) -> Packet {
        Packet {
            kind: PacketKind::Ack,
            seq,
            ts,
            ..Packet::default()
        }
    }

    fn sender(size: u64, init_cwnd: u64) -> TcpSender<Rfc5681> {
        let cc = Rfc5681 {
            mss: 1000,
            cwnd: init_cwnd,
        };
        TcpSender::new(Bytes(size), params(), cc)
    }

    #[test]
    fn the_receive_window_caps_data_in_flight_below_the_congestion_window() {
        // cwnd 10 segments, but the first ACK advertises a 3,000-byte window (as a hypervisor
        // shim rewriting it would): after it, at most 3 segments may be in flight (RFC 5681
        // §3: min(cwnd, rwnd)); an ACK advertising no limit again opens the full window.
        let t = Time::ZERO;
        let mut s = sender(100_000, 10_000);
        for _ in 0..10 {
            s.next_segment(t);
        }
        assert_eq!(
            s.state(t),
            SendState::Blocked,
            "cwnd of 10 segments is full"
        );
        let mut a = ack(1000, t);
        a.window = 3000;
        s.on_ack(&a, &[], &[], Time::from_us(10));
        // 9 segments in flight, above the 3,000-byte window: nothing may go.
        assert_eq!(s.state(t), SendState::Blocked);
        let mut a = ack(8000, t);
        a.window = 3000;
        s.on_ack(&a, &[], &[], Time::from_us(20));
        // 2 in flight, the window allows 3: one more, then blocked at 3,000 bytes in flight.
        assert_eq!(s.state(t), SendState::Ready);
        s.next_segment(t);
        assert_eq!(s.state(t), SendState::Blocked);
        assert_eq!(s.snd_nxt() - s.snd_una(), 3000);
        s.on_ack(&ack(9000, t), &[], &[], Time::from_us(30));
        // Window lifted (u64::MAX): cwnd (now 18 segments) governs again.
        assert_eq!(s.state(t), SendState::Ready);
    }

    #[test]
    fn receiver_reassembles_out_of_order_data() {
        let mut r = TcpReceiver::default();
        assert_eq!(r.on_data(0, 100), 100);
        assert_eq!(r.on_data(300, 100), 100, "hole at 100..300");
        assert_eq!(r.on_data(500, 100), 100);
        assert_eq!(r.on_data(200, 100), 100, "merges with 300..400");
        assert_eq!(r.ooo, vec![(200, 400), (500, 600)]);
        assert_eq!(r.on_data(100, 100), 400);
        assert_eq!(r.on_data(400, 100), 600);
        assert!(r.ooo.is_empty());
        assert_eq!(r.on_data(0, 100), 600);
        assert_eq!(r.duplicate_bytes, 100);
    }

    #[test]
    fn window_limits_sending_and_acks_open_it() {
        let mut s = sender(10_000, 2000);
        let t = Time::ZERO;
        assert_eq!(s.state(t), SendState::Ready);
        assert_eq!(s.next_segment(t).seq, 0);
        assert_eq!(s.next_segment(t).seq, 1000);
        assert_eq!(s.state(t), SendState::Blocked);
        assert_eq!(s.rto_deadline, Time::from_ms(1).0);
        s.on_ack(&ack(1000, t), &[], &[], Time::from_us(10));
        // Slow start: cwnd 3000, 1000 in flight -> two more.
        assert_eq!(s.state(t), SendState::Ready);
        s.next_segment(t);
        s.next_segment(t);
        assert_eq!(s.state(t), SendState::Blocked);
        assert_eq!(s.srtt(), Some(Time::from_us(10)));
        // RTO = srtt + 4·(srtt/2) = 30 us, clamped up to min_rto = 100 us.
        assert_eq!(s.rto(), Time::from_us(100));
    }

    #[test]
    fn three_dupacks_trigger_fast_retransmit_and_newreno_recovery() {
        let mut s = sender(20_000, 10_000);
        let t = Time::ZERO;
        for _ in 0..10 {
            s.next_segment(t);
        }
        // Segment 0 lost: ACKs for 1..=3 are duplicates of 0.
        let now = Time::from_us(10);
        for _ in 0..3 {
            s.on_ack(&ack(0, t), &[], &[], now);
        }
        assert_eq!(s.fast_retransmits, 1);
        assert_eq!(s.state(now), SendState::Ready);
        let r = s.next_segment(now);
        assert_eq!((r.seq, r.retransmit), (0, true));
        assert_eq!(s.cc.cwnd(), 5000, "ssthresh = flight/2");
        // Partial ACK (segment 4 also lost): retransmit it at once.
        s.on_ack(&ack(4000, t), &[], &[], now);
        let r = s.next_segment(now);
        assert_eq!((r.seq, r.retransmit), (4000, true));
        // Full ACK: recovery over.
        s.on_ack(&ack(10_000, t), &[], &[], now);
        assert!(!s.in_recovery);
        assert_eq!(s.bytes_retransmitted, 2000);
    }

    #[test]
    fn timeout_goes_back_and_backs_off() {
        let mut s = sender(5000, 3000);
        let t = Time::ZERO;
        for _ in 0..3 {
            s.next_segment(t);
        }
        let fire = Time(s.rto_deadline);
        s.on_timeout(fire);
        assert_eq!(s.timeouts, 1);
        assert_eq!(s.cc.cwnd(), 1000);
        assert_eq!(s.snd_nxt(), 0);
        assert_eq!(s.rto(), Time::from_ms(2));
        let r = s.next_segment(fire);
        assert!(r.retransmit);
        // The receiver had 1000..3000: the cumulative ACK jumps to 3000.
        s.on_ack(&ack(3000, fire), &[], &[], fire + Time::from_us(10));
        assert_eq!(s.snd_una(), 3000);
        assert_eq!(s.snd_nxt(), 3000);
        s.next_segment(fire);
        s.next_segment(fire);
        s.on_ack(&ack(5000, fire), &[], &[], fire + Time::from_us(20));
        assert!(s.done());
        assert_eq!(s.rto_deadline, u64::MAX);
        assert_eq!(s.state(fire), SendState::Done);
    }

    /// A paced congestion control whose rate each ACK sets to the next of `rates`, opting in
    /// to [`CongestionControl::release_follows_rate_rise`] (`follow`) and
    /// [`CongestionControl::release_follows_rate_fall`] (`follow_fall`) or not.
    struct Stepped {
        rates: Vec<u64>,
        follow: bool,
        follow_fall: bool,
    }

    impl CongestionControl for Stepped {
        fn on_ack(&mut self, _a: &AckInfo<'_>) {
            if self.rates.len() > 1 {
                self.rates.remove(0);
            }
        }
        fn on_loss(&mut self, _now: Time, _in_flight: u64) {}
        fn on_timeout(&mut self, _now: Time, _in_flight: u64) {}
        fn cwnd(&self) -> u64 {
            u64::MAX
        }
        fn pacing_rate(&self) -> Option<Rate> {
            Some(Rate(self.rates[0]))
        }
        fn release_follows_rate_rise(&self) -> bool {
            self.follow
        }
        fn release_follows_rate_fall(&self) -> bool {
            self.follow_fall
        }
    }

    /// A segment (1,000 B + 48 B header = 8,384 bits) leaves at t = 0 at 1 Mb/s: its release
    /// time is then 8.384 ms. The ACK at 10 µs sets `rates[1]`; `rates[2]` is the rate after a
    /// second ACK at 20 µs. Returns the sender's state just after each ACK.
    fn release_after_acks(rates: &[u64], follow: bool) -> (SendState, SendState) {
        release_after_acks_both(rates, follow, false)
    }

    fn release_after_acks_both(
        rates: &[u64],
        follow: bool,
        follow_fall: bool,
    ) -> (SendState, SendState) {
        let cc = Stepped {
            rates: rates.to_vec(),
            follow,
            follow_fall,
        };
        let mut s = TcpSender::new(Bytes(100_000), params(), cc);
        s.next_segment(Time::ZERO);
        s.next_segment(Time::ZERO); // a second segment in flight, so both ACKs are new data
        let (t1, t2) = (Time::from_us(10), Time::from_us(20));
        s.on_ack(&ack(1000, Time::ZERO), &[], &[], t1);
        let after_first = s.state(t1);
        s.on_ack(&ack(2000, Time::ZERO), &[], &[], t2);
        (after_first, s.state(t2))
    }

    #[test]
    fn a_rate_rise_pulls_the_pending_release_in_when_the_scheme_asks() {
        // Two segments left at t = 0 at 1 Mb/s, so the next may go at 2 × 8.384 = 16.768 ms.
        // The ACK at 10 µs raises the rate to 10 Gb/s: with the opt-in the release moves to
        // one packet time at 10 Gb/s (838.4 ns) after the last departure (t = 0), already
        // past, so a segment may go at once; without it the flow waits out 16.768 ms.
        let (follow, _) = release_after_acks(&[1_000_000, 10_000_000_000], true);
        assert_eq!(follow, SendState::Ready);
        let (stay, _) = release_after_acks(&[1_000_000, 10_000_000_000], false);
        assert_eq!(stay, SendState::Wait(Time::from_us(16_768)));
        // A small rise leaves the new release in the future: 1 → 1.048 Mb/s, at which the
        // 8,384 wire bits take exactly 8 ms; 0 + 8 ms is sooner than 16.768 ms, so the release
        // moves there (not to now).
        let (moved, _) = release_after_acks(&[1_000_000, 1_048_000], true);
        assert_eq!(moved, SendState::Wait(Time::from_ms(8)));
        // A fall (1 Mb/s → 500 kb/s) never delays it: the release at the old rate stands,
        // and a later rise (second ACK, 10 Gb/s) still pulls it in.
        let (fall, rise) = release_after_acks(&[1_000_000, 500_000, 10_000_000_000], true);
        assert_eq!(fall, SendState::Wait(Time::from_us(16_768)));
        assert_eq!(rise, SendState::Ready);
    }

    #[test]
    fn a_rate_fall_pushes_the_release_out_when_the_scheme_asks() {
        // Two segments (8,384 wire bits each) left at t = 0 at 1 Mb/s: the next may go at
        // 16.768 ms, and the last departure is t = 0. The ACK at 10 µs cuts the rate to
        // 250 kb/s, at which one packet takes 33.536 ms: opted in to falls, the release moves
        // to 0 + 33.536 ms; opted out (or in to rises only) it stays at 16.768 ms.
        let cut = [1_000_000, 250_000];
        let (later, _) = release_after_acks_both(&cut, true, true);
        assert_eq!(later, SendState::Wait(Time::from_us(33_536)));
        let (fall_only, _) = release_after_acks_both(&cut, false, true);
        assert_eq!(fall_only, SendState::Wait(Time::from_us(33_536)));
        for follow in [false, true] {
            let (stays, _) = release_after_acks_both(&cut, follow, false);
            assert_eq!(stays, SendState::Wait(Time::from_us(16_768)));
        }
        // Both ways, a pending release is exactly one packet time at the new rate after the
        // last departure: a rise to 1.048 Mb/s puts it at 8 ms, and a second ACK at 20 µs
        // cutting to 500 kb/s puts it at 16.768 ms (8,384 bits at 500 kb/s).
        let (rise, fall) = release_after_acks_both(&[1_000_000, 1_048_000, 500_000], true, true);
        assert_eq!(rise, SendState::Wait(Time::from_ms(8)));
        assert_eq!(fall, SendState::Wait(Time::from_us(16_768)));
        // A release that has come moves too when the fall puts it in the future: a rise to
        // 10 Gb/s lets a segment go at once (release 838.4 ns), then a cut to 250 kb/s at
        // 20 µs holds the sender until 33.536 ms (opted in to falls) or not at all.
        let steps = [1_000_000, 10_000_000_000, 250_000];
        let (ready, held) = release_after_acks_both(&steps, true, true);
        assert_eq!(ready, SendState::Ready);
        assert_eq!(held, SendState::Wait(Time::from_us(33_536)));
        let (_, free) = release_after_acks_both(&steps, true, false);
        assert_eq!(free, SendState::Ready);
    }
}
