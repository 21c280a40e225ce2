//! The oracle's links × flows index, compressed: each link's flows in increasing index, stored as
//! the gaps between consecutive indices in `u16` units.
//!
//! On the 1M-flow k = 16 problem a link's flows are about a thousand indices apart, so a gap
//! takes one unit (2 bytes) where a `u32` flow index took 4: the index is half the size (11.7
//! against 23.5 MB), which pays for the oracle's packed paths (`waterfill::PackedPaths`) within
//! the memory the solve used before them. The lists are only ever walked front to back. Problems
//! below `waterfill::COMPACT_FROM_BYTES` get plain `u32` lists instead ([`FlowLists::Plain`]).
//!
//! **Encoding.** The gap `g` from the previous flow of the list (from the start of the part's
//! flow range for the first) takes one unit if `g < 2^15`, else two: `2^15 | g >> 16`, then
//! `g & 0xFFFF` (so `g < 2^31`; [`Problem::new`](super::Problem::new) refuses more flows).
//!
//! **Parts.** The index can be built by several threads, each over a contiguous range of flows:
//! part `t` holds, for every link, the flows of range `t` crossing it. A link's list is its lists
//! in parts 0, 1, … in turn, so it is in increasing flow index whatever the number of parts.
//!
//! **Kept flows.** The oracle overwrites a saturated link's list with the flows it froze there
//! (a subset, in list order) and reads them back after its loop to write the bottlenecks. The
//! subset, encoded the same way, never takes more units than the list did: a gap of the subset
//! spans one gap of the list (then it is the same gap) or several, which took at least two units,
//! the most any gap takes. So the rewrite can run in place, behind the read.

/// One unit, or the first of two.
const WIDE: u16 = 1 << 15;

/// The largest number of flows the encoding allows (gaps below 2^31).
pub(crate) const MAX_FLOWS: usize = 1 << 31;

/// Units the gap `g` takes.
#[inline(always)]
fn units(g: u32) -> usize {
    if g < WIDE as u32 {
        1
    } else {
        2
    }
}

/// Writes the gap `g` at `out[at..]`; returns the position after it.
#[inline(always)]
fn put(out: &mut [u16], at: usize, g: u32) -> usize {
    if g < WIDE as u32 {
        out[at] = g as u16;
        at + 1
    } else {
        out[at] = WIDE | (g >> 16) as u16;
        out[at + 1] = g as u16;
        at + 2
    }
}

/// Reads the gap at `units[at..]`; returns it and the position after it.
#[inline(always)]
fn get(units: &[u16], at: usize) -> (u32, usize) {
    let u = units[at];
    if u < WIDE {
        (u as u32, at + 1)
    } else {
        (((u & !WIDE) as u32) << 16 | units[at + 1] as u32, at + 2)
    }
}

/// Walks the links of a flow's path (the oracle reads them from the problem or from its packed
/// copy).
pub(crate) trait ForEachLink: Sync {
    /// Calls `visit` with every link of flow `f`'s path, in path order.
    fn for_each_link(&self, f: usize, visit: impl FnMut(usize));
}

/// The compressed lists of the flows `first..` of one range.
pub(crate) struct Part {
    /// The range's first flow: the first gap of every list is from it.
    first: u32,
    /// Link `l`'s list is `units[ptr[l]..ptr[l + 1]]`.
    ptr: Vec<usize>,
    units: Vec<u16>,
}

impl Part {
    /// The lists of the flows `range` of `paths`, in two passes (count the units of every list,
    /// then fill them).
    fn build(n_links: usize, range: std::ops::Range<usize>, paths: &impl ForEachLink) -> Part {
        let first = range.start as u32;
        let mut last = vec![first; n_links];
        let mut count = vec![0usize; n_links];
        for f in range.clone() {
            paths.for_each_link(f, |l| {
                count[l] += units(f as u32 - last[l]);
                last[l] = f as u32;
            });
        }
        let mut ptr = Vec::with_capacity(n_links + 1);
        ptr.push(0usize);
        for &c in &count {
            ptr.push(ptr[ptr.len() - 1] + c);
        }
        drop(count);
        let total = ptr[n_links];
        let mut units = vec![0u16; total];
        super::waterfill::advise_huge_pages(&units);
        let mut fill = ptr[..n_links].to_vec();
        last.fill(first);
        for f in range {
            paths.for_each_link(f, |l| {
                fill[l] = put(&mut units, fill[l], f as u32 - last[l]);
                last[l] = f as u32;
            });
        }
        Part { first, ptr, units }
    }

    /// Keeps at the start of link `l`'s list the flows for which `keep` is true (called with
    /// every flow of the list, in order); returns how many it kept.
    #[inline(always)]
    fn retain(&mut self, l: usize, keep: &mut impl FnMut(u32) -> bool) -> u32 {
        let (mut read, end) = (self.ptr[l], self.ptr[l + 1]);
        let (mut write, mut f, mut kept_f, mut kept) = (read, self.first, self.first, 0);
        while read < end {
            let (g, next) = get(&self.units, read);
            read = next;
            f += g;
            if keep(f) {
                // Never past `read`: see the module doc.
                write = put(&mut self.units, write, f - kept_f);
                kept_f = f;
                kept += 1;
            }
        }
        kept
    }
}

/// For every link, the flows crossing it, in increasing flow index: compressed (see the module
/// doc), or plain `u32` flow indices, which are quicker to build and walk where memory does not
/// bind (the oracle compresses only large problems).
pub(crate) enum FlowLists {
    /// Gaps in `u16` units, in one part per building thread.
    Gaps(Vec<Part>),
    /// Link `l`'s flows are `flows[ptr[l]..ptr[l + 1]]`.
    Plain { ptr: Vec<usize>, flows: Vec<u32> },
}

impl FlowLists {
    /// The lists of the `n_flows` flows of `paths` on `n_links` links, compressed (built by
    /// `threads` threads, one part each) or plain (on the calling thread).
    pub(crate) fn build(
        n_links: usize,
        n_flows: usize,
        compress: bool,
        threads: usize,
        paths: &impl ForEachLink,
    ) -> FlowLists {
        debug_assert!(n_flows <= MAX_FLOWS);
        if !compress {
            let mut degree = vec![0usize; n_links];
            for f in 0..n_flows {
                paths.for_each_link(f, |l| degree[l] += 1);
            }
            return FlowLists::plain(degree, n_flows, paths);
        }
        let threads = threads.clamp(1, n_flows.max(1));
        let chunk = n_flows.div_ceil(threads);
        let range = |t: usize| (t * chunk).min(n_flows)..((t + 1) * chunk).min(n_flows);
        FlowLists::Gaps(if threads == 1 {
            vec![Part::build(n_links, 0..n_flows, paths)]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| s.spawn(move || Part::build(n_links, range(t), paths)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("index thread"))
                    .collect()
            })
        })
    }

    /// The plain lists of the `n_flows` flows of `paths`, given how many flows cross each link
    /// (the oracle counts them in its own first pass over the paths, which saves one here).
    pub(crate) fn plain(degree: Vec<usize>, n_flows: usize, paths: &impl ForEachLink) -> FlowLists {
        let n_links = degree.len();
        let mut ptr = degree;
        ptr.insert(0, 0);
        for l in 0..n_links {
            ptr[l + 1] += ptr[l];
        }
        let mut fill = ptr[..n_links].to_vec();
        let mut flows = vec![0u32; ptr[n_links]];
        for f in 0..n_flows {
            paths.for_each_link(f, |l| {
                flows[fill[l]] = f as u32;
                fill[l] += 1;
            });
        }
        FlowLists::Plain { ptr, flows }
    }

    /// How many parts (one per building thread) the lists are in.
    pub(crate) fn parts(&self) -> usize {
        match self {
            FlowLists::Gaps(parts) => parts.len(),
            FlowLists::Plain { .. } => 1,
        }
    }

    /// Keeps at the start of link `l`'s list the flows for which `keep` is true (called with
    /// every flow of the list, in order), and writes into `kept` how many it kept in each part.
    #[inline(always)]
    pub(crate) fn retain(&mut self, l: usize, kept: &mut [u32], mut keep: impl FnMut(u32) -> bool) {
        match self {
            FlowLists::Gaps(parts) => {
                for (part, n) in parts.iter_mut().zip(kept) {
                    *n = part.retain(l, &mut keep);
                }
            }
            FlowLists::Plain { ptr, flows } => {
                let list = &mut flows[ptr[l]..ptr[l + 1]];
                let mut n = 0;
                for i in 0..list.len() {
                    let f = list[i];
                    if keep(f) {
                        list[n] = f;
                        n += 1;
                    }
                }
                kept[0] = n as u32;
            }
        }
    }

    /// Whether these are the plain lists.
    #[inline(always)]
    pub(crate) fn is_plain(&self) -> bool {
        matches!(self, FlowLists::Plain { .. })
    }

    /// In the plain lists, the flows kept by [`FlowLists::retain`] at the start of link `l`'s
    /// list, as a slice (`None` for the compressed lists, which must be decoded).
    #[inline(always)]
    pub(crate) fn plain_kept(&self, l: usize, kept: &[u32]) -> Option<&[u32]> {
        match self {
            FlowLists::Gaps(_) => None,
            FlowLists::Plain { ptr, flows } => Some(&flows[ptr[l]..ptr[l] + kept[0] as usize]),
        }
    }

    /// Calls `visit` with every flow kept by [`FlowLists::retain`] at the start of link `l`'s
    /// list, in order.
    #[inline(always)]
    pub(crate) fn for_each_kept(&self, l: usize, kept: &[u32], mut visit: impl FnMut(u32)) {
        match self {
            FlowLists::Gaps(parts) => {
                for (part, &n) in parts.iter().zip(kept) {
                    let mut at = part.ptr[l];
                    let mut f = part.first;
                    for _ in 0..n {
                        let (g, next) = get(&part.units, at);
                        at = next;
                        f += g;
                        visit(f);
                    }
                }
            }
            FlowLists::Plain { .. } => {
                let list = self.plain_kept(l, kept).expect("plain lists");
                list.iter().for_each(|&f| visit(f));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Paths<'a>(&'a [Vec<usize>]);
    impl ForEachLink for Paths<'_> {
        fn for_each_link(&self, f: usize, mut visit: impl FnMut(usize)) {
            self.0[f].iter().for_each(|&l| visit(l));
        }
    }

    /// Lists built from explicit paths, compressed by `threads` threads, or plain for 0.
    fn lists(paths: &[Vec<usize>], n_links: usize, threads: usize) -> FlowLists {
        FlowLists::build(n_links, paths.len(), threads > 0, threads, &Paths(paths))
    }

    fn all(lf: &mut FlowLists, l: usize) -> Vec<u32> {
        let mut kept = vec![0; lf.parts()];
        lf.retain(l, &mut kept, |_| true);
        kept_flows(lf, l, &kept)
    }

    fn kept_flows(lf: &FlowLists, l: usize, kept: &[u32]) -> Vec<u32> {
        let mut v = Vec::new();
        lf.for_each_kept(l, kept, |f| v.push(f));
        v
    }

    #[test]
    fn gaps_round_trip_across_the_unit_boundaries() {
        // Every gap is written and read back as itself, on both sides of the one-unit limit
        // (2^15) and up to the largest allowed (2^31 − 1).
        for g in [
            0,
            1,
            WIDE as u32 - 1,
            WIDE as u32,
            65_535,
            65_536,
            (1 << 31) - 1,
        ] {
            let mut out = [0u16; 2];
            let end = put(&mut out, 0, g);
            assert_eq!(end, units(g), "gap {g}");
            assert_eq!(get(&out, 0), (g, end), "gap {g}");
        }
    }

    #[test]
    fn the_lists_are_the_transpose_for_any_number_of_threads() {
        // 100,000 flows on 3 links: link 0 carries every flow, link 1 every 40,000th (gaps of
        // two units), link 2 none. Each list must hold exactly the flows crossing the link, in
        // increasing index, however many parts built it (0: the plain lists).
        let paths: Vec<Vec<usize>> = (0..100_000)
            .map(|f| if f % 40_000 == 7 { vec![1, 0] } else { vec![0] })
            .collect();
        for threads in [0, 1, 2, 3, 7] {
            let mut lf = lists(&paths, 3, threads);
            assert_eq!(all(&mut lf, 0), (0..100_000).collect::<Vec<u32>>());
            assert_eq!(all(&mut lf, 1), vec![7, 40_007, 80_007]);
            assert_eq!(all(&mut lf, 2), Vec::<u32>::new());
        }
    }

    #[test]
    fn retain_keeps_the_chosen_flows_in_order_in_place() {
        // Keeping the flows of link 0 that are 0 mod 3 below 10,000 or lie past 50,000 (short
        // gaps merging into short ones, into one of two units from 9,996 to 50,002, and the rest
        // kept as they are) must read back exactly those flows, for one part and for several,
        // and from the plain lists.
        let paths: Vec<Vec<usize>> = (0..60_000)
            .map(|f| {
                if f < 50_000 && f % 2 == 1 {
                    vec![1]
                } else {
                    vec![0, 1]
                }
            })
            .collect();
        let keep = |f: u32| f % 3 == 0 && f < 10_000 || f > 50_000;
        for threads in [0, 1, 4] {
            let mut lf = lists(&paths, 2, threads);
            let want: Vec<u32> = all(&mut lf, 0).into_iter().filter(|&f| keep(f)).collect();
            let mut kept = vec![0; lf.parts()];
            let mut seen = Vec::new();
            lf.retain(0, &mut kept, |f| {
                seen.push(f);
                keep(f)
            });
            assert_eq!(
                seen.len(),
                25_000 + 10_000,
                "every flow of the list is offered"
            );
            assert_eq!(kept_flows(&lf, 0, &kept), want);
            // Keeping none leaves nothing; the other link is untouched.
            lf.retain(0, &mut kept, |_| false);
            assert_eq!(kept_flows(&lf, 0, &kept), Vec::<u32>::new());
            assert_eq!(all(&mut lf, 1), (0..60_000).collect::<Vec<u32>>());
        }
    }
}
