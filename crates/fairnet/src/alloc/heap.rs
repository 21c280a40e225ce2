//! An indexed binary min-heap over a fixed key space `0..n`, with `f64` priorities (the
//! oracle's levels) or `u64` ones (the flow engine's completion times in picoseconds, exact
//! where an `f64` is not: above 2^53 ps ≈ 2.5 h a completion time rounded to `f64` no longer
//! matched the flow's own, and the engine re-keyed it forever).
//!
//! The water-filling oracle keeps one entry per link and changes a link's priority (its fair
//! share level) every time a flow crossing it freezes; a position index makes that an
//! O(log n) sift instead of a push of a stale duplicate.

/// Min-heap of keys `0..n` keyed by priorities `P`; each key is present at most once.
///
/// Each heap slot holds its priority beside its key, so a sift compares without a lookup into
/// the key-indexed arrays (the incremental allocator's worklist and the flow engine's
/// completions sift on every event; the lookups were their cache misses).
#[derive(Debug, Clone)]
pub struct IndexedMinHeap<P = f64> {
    heap: Vec<(P, u32)>,
    pos: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

impl<P: Copy + PartialOrd> IndexedMinHeap<P> {
    /// An empty heap for keys `0..n`.
    pub fn new(n: usize) -> Self {
        IndexedMinHeap {
            heap: Vec::with_capacity(n.min(1 << 16)),
            pos: vec![ABSENT; n],
        }
    }

    /// Whether the heap is empty.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The smallest (priority, key), if any.
    #[inline]
    pub fn peek(&self) -> Option<(P, usize)> {
        self.heap.first().map(|&(p, k)| (p, k as usize))
    }

    /// The priority of `key`, if present.
    #[inline]
    pub fn priority(&self, key: usize) -> Option<P> {
        let p = self.pos[key];
        (p != ABSENT).then(|| self.heap[p as usize].0)
    }

    /// Removes and returns the smallest (priority, key).
    pub fn pop(&mut self) -> Option<(P, usize)> {
        let top = self.peek()?;
        self.remove(top.1);
        Some(top)
    }

    /// Inserts `key` or changes its priority.
    pub fn set(&mut self, key: usize, prio: P) {
        let p = self.pos[key];
        if p == ABSENT {
            self.pos[key] = self.heap.len() as u32;
            self.heap.push((prio, key as u32));
            self.sift_up(self.heap.len() - 1);
        } else {
            let p = p as usize;
            let old = self.heap[p].0;
            self.heap[p].0 = prio;
            if prio < old {
                self.sift_up(p);
            } else {
                self.sift_down(p);
            }
        }
    }

    /// Removes `key` if present.
    pub fn remove(&mut self, key: usize) {
        let p = self.pos[key];
        if p == ABSENT {
            return;
        }
        let p = p as usize;
        let last = self.heap.pop().unwrap();
        self.pos[key] = ABSENT;
        if p < self.heap.len() {
            self.heap[p] = last;
            self.pos[last.1 as usize] = p as u32;
            self.sift_up(p);
            let p = self.pos[last.1 as usize] as usize;
            self.sift_down(p);
        }
    }

    fn sift_up(&mut self, mut i: usize) {
        let item = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            let up = self.heap[parent];
            if up.0 <= item.0 {
                break;
            }
            self.heap[i] = up;
            self.pos[up.1 as usize] = i as u32;
            i = parent;
        }
        self.heap[i] = item;
        self.pos[item.1 as usize] = i as u32;
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        let item = self.heap[i];
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && self.heap[r].0 < self.heap[l].0 {
                r
            } else {
                l
            };
            let down = self.heap[c];
            if down.0 >= item.0 {
                break;
            }
            self.heap[i] = down;
            self.pos[down.1 as usize] = i as u32;
            i = c;
        }
        self.heap[i] = item;
        self.pos[item.1 as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_priority_order_after_updates() {
        let mut h: IndexedMinHeap = IndexedMinHeap::new(6);
        for (k, p) in [(0, 5.0), (1, 3.0), (2, 8.0), (3, 1.0), (4, 7.0)] {
            h.set(k, p);
        }
        h.set(3, 9.0); // raise
        h.set(2, 0.5); // lower
        h.remove(1);
        let mut order = vec![];
        while let Some((_, k)) = h.peek() {
            order.push(k);
            h.remove(k);
        }
        assert_eq!(order, vec![2, 0, 4, 3]);
    }
}
