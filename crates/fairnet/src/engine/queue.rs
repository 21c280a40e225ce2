//! The event queue: a calendar queue (Brown, CACM 1988) of fixed-width time buckets over a
//! sliding window, with a 4-ary min-heap for events beyond the window.
//!
//! Time is integer picoseconds. Events are ordered by `(time, sequence number)`; the sequence
//! number is a global counter, so two events at the same time run in the order they were
//! scheduled and a run is deterministic. Every entry's key is unique, so the pop order is
//! exactly that of a heap on `(time, seq)` whatever the bucket layout (tested against an
//! ordered set).
//!
//! Layout: bucket `b` holds the events with `time >> BUCKET_BITS == b`; the ring holds the
//! `RING` buckets `[cur, cur + RING)` after the current one, unsorted, with a bitmap of the
//! non-empty ones. Each ring slot stores its first `SLOT` entries in place in one flat array
//! (a push writes near the slots written just before it, and a slot becomes current soon
//! after its neighbours: one array keeps them in few cache lines; a `Vec` per slot spent most
//! of the push in cache misses on scattered headers and buffers); more spill into a
//! per-slot vector. The current bucket is copied out and sorted by time, stably (entries of
//! a slot arrive in `(time, seq)`-consistent order, so ties keep their scheduling order and
//! ring entries need no sequence number: 16 bytes); an event scheduled into it is inserted in
//! place. Events beyond the window wait in the overflow heap (keyed `(time, seq)`) and move
//! into the ring as the window slides past them. In a packet simulation almost every event is
//! within a few microseconds of now (serialization ends, arrivals one link delay later), so
//! pushes are a store and pops an index step; the 4-ary heap this replaced spent about half
//! of the fat-tree benchmark's time in its sift-down. Every buffer grows to its peak and is
//! then reused, so steady-state scheduling does not allocate.

use crate::units::Time;
use std::marker::PhantomData;

/// An event the queue can hold: it packs into one word. The queue orders by time and
/// scheduling order only; what the word means is the engine's business.
pub trait Packed: Copy {
    /// The event as one word.
    fn pack(self) -> u64;
    /// The event back from its word.
    fn unpack(word: u64) -> Self;
}

/// A bare word (the rounds engine packs its own events).
impl Packed for u64 {
    #[inline(always)]
    fn pack(self) -> u64 {
        self
    }
    #[inline(always)]
    fn unpack(word: u64) -> u64 {
        word
    }
}

/// A heap entry: 24 bytes, the event packed into one word (see [`Entry::pack`]).
#[derive(Clone, Copy, Debug)]
struct Entry {
    time: u64,
    seq: u64,
    ev: u64,
}

impl Entry {
    /// Whether `self` fires before `o`: earlier time, then earlier scheduling. Written without
    /// short-circuit operators so it compiles to flag arithmetic rather than branches, which
    /// the heap's child selection mispredicts.
    #[inline(always)]
    fn before(&self, o: &Entry) -> bool {
        (self.time < o.time) | ((self.time == o.time) & (self.seq < o.seq))
    }
}

/// Children per node of the overflow heap.
const D: usize = 4;

/// A `D`-ary min-heap on `(time, seq)`: the events beyond the calendar's window.
#[derive(Debug, Default)]
struct Heap {
    v: Vec<Entry>,
}

impl Heap {
    fn push(&mut self, e: Entry) {
        // Sift up with a hole.
        let mut i = self.v.len();
        self.v.push(e);
        while i > 0 {
            let parent = (i - 1) / D;
            if e.before(&self.v[parent]) {
                self.v[i] = self.v[parent];
                i = parent;
            } else {
                break;
            }
        }
        self.v[i] = e;
    }

    fn peek(&self) -> Option<&Entry> {
        self.v.first()
    }

    fn pop(&mut self) -> Option<Entry> {
        let last = self.v.pop()?;
        if self.v.is_empty() {
            return Some(last);
        }
        let top = self.v[0];
        // Sift the last entry down from the root with a hole.
        let n = self.v.len();
        let mut i = 0;
        loop {
            let first = D * i + 1;
            if first >= n {
                break;
            }
            let mut best = first;
            for c in first + 1..(first + D).min(n) {
                if self.v[c].before(&self.v[best]) {
                    best = c;
                }
            }
            if self.v[best].before(&last) {
                self.v[i] = self.v[best];
                i = best;
            } else {
                break;
            }
        }
        self.v[i] = last;
        Some(top)
    }

    fn len(&self) -> usize {
        self.v.len()
    }
}

/// Bucket width: `2^BUCKET_BITS` ps (1.024 ns: the yardstick runs ~8 events per simulated ns,
/// so a bucket holds a handful; 2.048 and 0.512 ns measured no better, 0.256 ns worse).
const BUCKET_BITS: u32 = 10;
/// Buckets in the ring (a power of two): a window of 4096 × 1.024 ns ≈ 4.2 µs.
const RING: usize = 4096;
const WORDS: usize = RING / 64;
/// Entries stored in place per ring slot; more spill into the slot's overflow vector.
const SLOT: usize = 8;

/// A calendar entry: the time and the packed event (16 bytes). The sequence number is not
/// stored: entries enter a slot in `(time, seq)`-consistent order (see [`EventQueue::advance`]),
/// so a stable sort by time restores `(time, seq)` order.
#[derive(Clone, Copy, Debug, Default)]
struct Slotted {
    time: u64,
    ev: u64,
}

/// Pending events in time order, with deterministic tie-breaking.
#[derive(Debug)]
pub struct EventQueue<E> {
    /// The current bucket, ascending by `(time, seq)`; `active[head..]` is pending.
    active: Vec<Slotted>,
    head: usize,
    /// Absolute index of the current bucket.
    cur: u64,
    /// Buckets `cur + 1 .. cur + RING`: slot `index & (RING - 1)` holds its first `SLOT`
    /// entries in `ring[slot * SLOT ..]` (one flat array, so neighbouring buckets are
    /// neighbours in memory), the count in `count[slot]`, the rest in `spill[slot]`.
    ring: Vec<Slotted>,
    count: Vec<u8>,
    spill: Vec<Vec<Slotted>>,
    /// Which ring slots are non-empty.
    bits: [u64; WORDS],
    /// Entries in the ring.
    ring_len: usize,
    /// Entries at or beyond bucket `cur + RING`.
    overflow: Heap,
    seq: u64,
    now: u64,
    popped: u64,
    /// Events scheduled before `now` (an engine bug); checked at the end of a run.
    past: u64,
    event: PhantomData<E>,
}

impl<E: Packed> Default for EventQueue<E> {
    fn default() -> EventQueue<E> {
        EventQueue {
            active: Vec::new(),
            head: 0,
            cur: 0,
            ring: vec![Slotted::default(); RING * SLOT],
            count: vec![0; RING],
            spill: (0..RING).map(|_| Vec::new()).collect(),
            bits: [0; WORDS],
            ring_len: 0,
            overflow: Heap::default(),
            seq: 0,
            now: 0,
            popped: 0,
            past: 0,
            event: PhantomData,
        }
    }
}

impl<E: Packed> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> EventQueue<E> {
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
    pub fn push(&mut self, time: Time, ev: E) {
        let mut time = time.0;
        if time < self.now {
            self.past += 1;
            time = self.now;
        }
        self.seq += 1;
        let b = time >> BUCKET_BITS;
        if b <= self.cur {
            // The current bucket (or, after a peek moved the window on, an earlier time that
            // still precedes everything in the ring): after every pending entry at or before
            // `time`, since this one was scheduled last.
            let e = Slotted {
                time,
                ev: ev.pack(),
            };
            let at = self.head + self.active[self.head..].partition_point(|x| x.time <= time);
            self.active.insert(at, e);
        } else if b < self.cur + RING as u64 {
            self.put(
                b,
                Slotted {
                    time,
                    ev: ev.pack(),
                },
            );
        } else {
            self.overflow.push(Entry {
                time,
                seq: self.seq,
                ev: ev.pack(),
            });
        }
    }

    /// Appends `e` to ring bucket `b` (inside the window).
    #[inline]
    fn put(&mut self, b: u64, e: Slotted) {
        let slot = b as usize & (RING - 1);
        let n = self.count[slot] as usize;
        if n < SLOT {
            self.ring[slot * SLOT + n] = e;
            self.count[slot] = n as u8 + 1;
        } else {
            self.spill[slot].push(e);
        }
        self.bits[slot / 64] |= 1 << (slot % 64);
        self.ring_len += 1;
    }

    /// Moves overflow events that the window `[cur, cur + RING)` now covers into the ring.
    /// They go in before anything is pushed directly into their buckets (those buckets were
    /// beyond the window until now) and leave the heap in `(time, seq)` order, which keeps
    /// every slot in `(time, seq)`-consistent order.
    fn migrate(&mut self) {
        let end = self.cur + RING as u64;
        while let Some(e) = self.overflow.peek() {
            let b = e.time >> BUCKET_BITS;
            if b >= end {
                break;
            }
            let e = self.overflow.pop().expect("peeked");
            debug_assert!(b > self.cur);
            self.put(
                b,
                Slotted {
                    time: e.time,
                    ev: e.ev,
                },
            );
        }
    }

    /// Makes the next non-empty bucket current (the current one must be empty); false when no
    /// event is pending.
    #[cold]
    fn advance(&mut self) -> bool {
        debug_assert!(self.head == self.active.len());
        if self.ring_len == 0 {
            let Some(e) = self.overflow.peek() else {
                return false;
            };
            // Jump: the window starts just before the earliest overflow event.
            self.cur = (e.time >> BUCKET_BITS) - 1;
            self.migrate();
        }
        // The first non-empty slot after `cur`, circularly.
        let start = (self.cur as usize + 1) & (RING - 1);
        let mut dist = None;
        let (w0, b0) = (start / 64, start % 64);
        let first = self.bits[w0] >> b0;
        if first != 0 {
            dist = Some(first.trailing_zeros() as usize);
        } else {
            for k in 1..=WORDS {
                let w = (w0 + k) % WORDS;
                if self.bits[w] != 0 {
                    let off = w * 64 + self.bits[w].trailing_zeros() as usize;
                    dist = Some((off + RING - start) & (RING - 1));
                    break;
                }
            }
        }
        let dist = dist.expect("ring_len > 0 means a non-empty slot");
        self.cur += 1 + dist as u64;
        let slot = self.cur as usize & (RING - 1);
        self.bits[slot / 64] &= !(1 << (slot % 64));
        let n = self.count[slot] as usize;
        self.count[slot] = 0;
        self.active.clear();
        self.head = 0;
        self.active
            .extend_from_slice(&self.ring[slot * SLOT..slot * SLOT + n]);
        self.active.append(&mut self.spill[slot]);
        self.ring_len -= self.active.len();
        debug_assert!(!self.active.is_empty());
        // Stable: entries of equal time keep their (sequence) order.
        self.active.sort_by_key(|e| e.time);
        self.migrate();
        true
    }

    /// The time of the next event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        if self.head == self.active.len() && !self.advance() {
            return None;
        }
        Some(Time(self.active[self.head].time))
    }

    /// Removes the next event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        if self.head == self.active.len() && !self.advance() {
            return None;
        }
        let top = self.active[self.head];
        self.head += 1;
        debug_assert!(
            top.time >= self.now,
            "the queue returned an event in the past"
        );
        self.now = top.time;
        self.popped += 1;
        Some((Time(top.time), E::unpack(top.ev)))
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
        self.active.len() - self.head + self.ring_len + self.overflow.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
        let mut q: EventQueue<u64> = EventQueue::new();
        q.push(Time(5), 1u64);
        q.push(Time(3), 2u64);
        q.push(Time(5), 3u64);
        q.push(Time(3), 4u64);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Time(3), 2u64),
                (Time(3), 4u64),
                (Time(5), 1u64),
                (Time(5), 3u64),
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
        let mut q: EventQueue<u64> = EventQueue::new();
        let mut model = BTreeSet::new();
        let mut now = 0u64;
        for i in 0..20_000u32 {
            let t = now + rng.gen_range(0..50);
            q.push(Time(t), u64::from(i));
            model.insert((t, i));
            if rng.gen_bool(0.4) {
                let want = model.pop_first().unwrap();
                let (t, ev) = q.pop().unwrap();
                assert_eq!((t.0, ev), (want.0, u64::from(want.1)));
                now = t.0;
            }
        }
        while let Some(want) = model.pop_first() {
            assert_eq!(q.pop(), Some((Time(want.0), u64::from(want.1))));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn matches_an_ordered_set_across_buckets_window_and_overflow() {
        // Times spread from the same picosecond to far beyond the calendar's window, pushes
        // interleaved with peeks, and a clock moved forward between pops (as `run_until`).
        use rand::{Rng, SeedableRng};
        use std::collections::BTreeSet;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut q: EventQueue<u64> = EventQueue::new();
        let mut model = BTreeSet::new();
        let mut now = 0u64;
        let window = (RING as u64) << BUCKET_BITS;
        for i in 0..50_000u32 {
            let dt = match rng.gen_range(0..10) {
                0 => 0,
                1..=5 => rng.gen_range(0..5_000),
                6..=7 => rng.gen_range(0..window),
                8 => rng.gen_range(window..3 * window),
                _ => rng.gen_range(0..1_000_000_000),
            };
            q.push(Time(now + dt), u64::from(i));
            model.insert((now + dt, i));
            if rng.gen_bool(0.45) {
                let want = model.pop_first().unwrap();
                assert_eq!(q.peek_time(), Some(Time(want.0)));
                let (t, ev) = q.pop().unwrap();
                assert_eq!((t.0, ev), (want.0, u64::from(want.1)));
                now = t.0;
                if rng.gen_bool(0.1) {
                    // A horizon between now and the next event.
                    let next = model.first().map_or(now, |x| x.0);
                    let h = rng.gen_range(now..=next);
                    q.advance_to(Time(h));
                    now = h;
                }
            }
            assert_eq!(q.len(), model.len());
        }
        while let Some(want) = model.pop_first() {
            assert_eq!(q.pop(), Some((Time(want.0), u64::from(want.1))));
        }
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
        assert_eq!(q.past_events(), 0);
    }

    #[test]
    fn scheduling_in_the_past_is_counted_and_clamped() {
        let mut q: EventQueue<u64> = EventQueue::new();
        q.push(Time(10), 0u64);
        q.pop();
        q.push(Time(4), 1u64);
        assert_eq!(q.past_events(), 1);
        assert_eq!(q.pop(), Some((Time(10), 1u64)));
    }
}
