//! The event queue: a 4-ary min-heap keyed by `(time, sequence number)`.
//!
//! Time is integer picoseconds. Two events at the same time run in the order they were
//! scheduled (the sequence number is a global counter), so a run is deterministic regardless of
//! how the heap breaks ties internally. Entries are 24 bytes and `Copy`; the heap's storage
//! grows to the peak number of pending events and is then reused, so steady-state scheduling
//! does not allocate.

use crate::units::Time;

/// What happens when an event fires. Payloads are dense indices (packet, link/port, node, flow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Flow `0` starts: its sender becomes active at its host.
    FlowStart(u32),
    /// Packet `pkt` has fully arrived at the far end of link `link` (after serialization and
    /// propagation).
    Arrive {
        /// Packet pool index.
        pkt: u32,
        /// The link it travelled on.
        link: u32,
    },
    /// Port (= link) `0` has finished serializing its current packet and may start the next.
    PortFree(u32),
    /// Host node `0` should try to send again (a pacing or shim release time has come).
    HostWake(u32),
    /// The retransmission timer of flow `0` may have expired (checked against its deadline).
    Rto(u32),
}

/// A heap entry: 24 bytes, the event packed into one word (see [`Entry::pack`]).
#[derive(Clone, Copy, Debug)]
struct Entry {
    time: u64,
    seq: u64,
    ev: u64,
}

const TAG_SHIFT: u32 = 61;
const LOW: u64 = (1 << 32) - 1;

impl Entry {
    /// Whether `self` fires before `o`: earlier time, then earlier scheduling. Written without
    /// short-circuit operators so it compiles to flag arithmetic rather than branches, which
    /// the heap's child selection mispredicts.
    #[inline(always)]
    fn before(&self, o: &Entry) -> bool {
        (self.time < o.time) | ((self.time == o.time) & (self.seq < o.seq))
    }

    /// Tag in the top 3 bits; `Arrive` keeps the packet in the low 32 bits and the link in
    /// bits 32..61 (builders cap topologies at 2^28 links), the others their index in the low
    /// 32 bits.
    #[inline(always)]
    fn pack(ev: Event) -> u64 {
        let (tag, hi, lo) = match ev {
            Event::FlowStart(f) => (0u64, 0u64, f),
            Event::Arrive { pkt, link } => {
                debug_assert!(link < 1 << 29);
                (1, link as u64, pkt)
            }
            Event::PortFree(p) => (2, 0, p),
            Event::HostWake(h) => (3, 0, h),
            Event::Rto(f) => (4, 0, f),
        };
        tag << TAG_SHIFT | hi << 32 | lo as u64
    }

    #[inline(always)]
    fn unpack(w: u64) -> Event {
        let lo = (w & LOW) as u32;
        match w >> TAG_SHIFT {
            0 => Event::FlowStart(lo),
            1 => Event::Arrive {
                pkt: lo,
                link: ((w >> 32) & ((1 << 29) - 1)) as u32,
            },
            2 => Event::PortFree(lo),
            3 => Event::HostWake(lo),
            _ => Event::Rto(lo),
        }
    }
}

/// Children per node of the heap. A 4-ary heap has half the depth of a binary one and its
/// four children share a cache line or two; popping (sift-down) was half the run time of
/// the engine with `std::collections::BinaryHeap` on the fat-tree benchmark.
const D: usize = 4;

/// Pending events in time order, with deterministic tie-breaking.
#[derive(Debug, Default)]
pub struct EventQueue {
    /// A `D`-ary min-heap on `(time, seq)`.
    heap: Vec<Entry>,
    seq: u64,
    now: u64,
    popped: u64,
    /// Events scheduled before `now` (an engine bug); checked at the end of a run.
    past: u64,
}

impl EventQueue {
    /// An empty queue at time zero.
    pub fn new() -> EventQueue {
        EventQueue::default()
    }

    /// The time of the last event popped.
    #[inline]
    pub fn now(&self) -> Time {
        Time(self.now)
    }

    /// Schedules `ev` at `time`. Scheduling in the past is counted (see
    /// [`EventQueue::past_events`]) and the event runs at the current time instead, so time never
    /// goes backwards.
    #[inline]
    pub fn push(&mut self, time: Time, ev: Event) {
        let mut time = time.0;
        if time < self.now {
            self.past += 1;
            time = self.now;
        }
        self.seq += 1;
        let e = Entry {
            time,
            seq: self.seq,
            ev: Entry::pack(ev),
        };
        // Sift up with a hole.
        let mut i = self.heap.len();
        self.heap.push(e);
        while i > 0 {
            let parent = (i - 1) / D;
            if e.before(&self.heap[parent]) {
                self.heap[i] = self.heap[parent];
                i = parent;
            } else {
                break;
            }
        }
        self.heap[i] = e;
    }

    /// The time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.first().map(|e| Time(e.time))
    }

    /// Removes the next event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let last = self.heap.pop()?;
        let top = if self.heap.is_empty() {
            last
        } else {
            let top = self.heap[0];
            // Sift the last entry down from the root with a hole.
            let n = self.heap.len();
            let mut i = 0;
            loop {
                let first = D * i + 1;
                if first >= n {
                    break;
                }
                let mut best = first;
                if first + D <= n {
                    // All four children exist: a fixed, unrolled selection.
                    let h = &self.heap[first..first + D];
                    let a = first + usize::from(h[1].before(&h[0]));
                    let b = first + 2 + usize::from(h[3].before(&h[2]));
                    best = if self.heap[b].before(&self.heap[a]) {
                        b
                    } else {
                        a
                    };
                } else {
                    for c in first + 1..n {
                        if self.heap[c].before(&self.heap[best]) {
                            best = c;
                        }
                    }
                }
                if self.heap[best].before(&last) {
                    self.heap[i] = self.heap[best];
                    i = best;
                } else {
                    break;
                }
            }
            self.heap[i] = last;
            top
        };
        debug_assert!(
            top.time >= self.now,
            "the heap returned an event in the past"
        );
        self.now = top.time;
        self.popped += 1;
        Some((Time(top.time), Entry::unpack(top.ev)))
    }

    /// Moves the clock forward to `t` (no event fires); used when a run stops at a horizon
    /// with no event exactly there.
    pub fn advance_to(&mut self, t: Time) {
        if t.0 > self.now {
            self.now = t.0;
        }
    }

    /// Number of events popped so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// How many events were scheduled in the past (must be zero).
    pub fn past_events(&self) -> u64 {
        self.past
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.push(Time(5), Event::HostWake(1));
        q.push(Time(3), Event::HostWake(2));
        q.push(Time(5), Event::HostWake(3));
        q.push(Time(3), Event::HostWake(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Time(3), Event::HostWake(2)),
                (Time(3), Event::HostWake(4)),
                (Time(5), Event::HostWake(1)),
                (Time(5), Event::HostWake(3)),
            ]
        );
        assert_eq!(q.popped(), 4);
        assert_eq!(q.now(), Time(5));
    }

    #[test]
    fn matches_an_ordered_set_on_random_pushes_and_pops() {
        // Reference: a BTreeSet of (time, insertion index); every pop must return its first.
        use rand::{Rng, SeedableRng};
        use std::collections::BTreeSet;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut q = EventQueue::new();
        let mut model = BTreeSet::new();
        let mut now = 0u64;
        for i in 0..20_000u32 {
            let t = now + rng.gen_range(0..50);
            q.push(Time(t), Event::Rto(i));
            model.insert((t, i));
            if rng.gen_bool(0.4) {
                let want = model.pop_first().unwrap();
                let (t, ev) = q.pop().unwrap();
                assert_eq!((t.0, ev), (want.0, Event::Rto(want.1)));
                now = t.0;
            }
        }
        while let Some(want) = model.pop_first() {
            assert_eq!(q.pop(), Some((Time(want.0), Event::Rto(want.1))));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn events_pack_into_one_word() {
        for ev in [
            Event::FlowStart(u32::MAX),
            Event::Arrive {
                pkt: u32::MAX,
                link: (1 << 29) - 1,
            },
            Event::Arrive { pkt: 7, link: 0 },
            Event::PortFree(3),
            Event::HostWake(0),
            Event::Rto(123_456),
        ] {
            assert_eq!(Entry::unpack(Entry::pack(ev)), ev);
        }
    }

    #[test]
    fn scheduling_in_the_past_is_counted_and_clamped() {
        let mut q = EventQueue::new();
        q.push(Time(10), Event::Rto(0));
        q.pop();
        q.push(Time(4), Event::Rto(1));
        assert_eq!(q.past_events(), 1);
        assert_eq!(q.pop(), Some((Time(10), Event::Rto(1))));
    }
}
