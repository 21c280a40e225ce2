//! The link algorithms as [`LinkAlgorithm`]s: *Fair* (Algorithm 2), n-PERC (Algorithm 3),
//! s-PERC (Algorithms 4–5, with the ignore bit), basic s-PERC (no ignore bit: the variant
//! Fig. 6 plots, from the authors' simulator) and s-PERC* (Algorithms 6–7). Comments cite the
//! algorithm lines.

use super::division::{Divider, TIE};
use crate::engine::rounds::{LinkAlgorithm, Update};

/// Bottleneck state `s` of a flow at a link (Table 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Bottlenecked elsewhere.
    E,
    /// Bottlenecked here.
    B,
}

/// Limit rate `e`: the lowest rate among the packet's *other* links (`b[l] ← ∞` then `min`,
/// Algorithm 2 lines 11–12, Algorithm 3 lines 8–9). With `ignore`, links whose ignore bit is set
/// count as ∞ (Algorithm 4 lines 10–13).
#[inline]
fn limit_rate<H>(hops: &[H], me: usize, rate: impl Fn(&H) -> f64) -> f64 {
    let mut e = f64::INFINITY;
    for (j, h) in hops.iter().enumerate() {
        if j != me {
            e = e.min(rate(h));
        }
    }
    e
}

// ---------------------------------------------------------------------------------------------
// Fair (Algorithm 2)

/// *Fair* (§4, Algorithm 2): a locally max-min fair bottleneck rate from per-flow limit rates.
#[derive(Clone, Debug, PartialEq)]
pub struct Fair {
    /// Division used for `b` (line 10).
    pub div: Divider,
}

/// *Fair*'s per-link fields of the control packet: `b`, `x` (line 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FairHop {
    /// Bottleneck rate (initially ∞).
    pub b: f64,
    /// Allocated rate (initially 0).
    pub x: f64,
}

/// *Fair*'s link state: the vector `e` of limit rates, per flow (line 2).
#[derive(Clone, Debug, PartialEq)]
pub struct FairLink {
    c: f64,
    /// Limit rate of every flow seen so far, by local index (NaN: not seen, "initially empty").
    e_of: Vec<f64>,
    /// The same limit rates, sorted ascending (the sort of line 4, kept up to date).
    sorted: Vec<f64>,
    /// `prefix[k]` = sum of `sorted[..k]`.
    prefix: Vec<f64>,
    /// How many of `sorted` are finite (they come first).
    finite: usize,
}

impl FairLink {
    /// Where one occurrence of `old` is in `sorted`.
    fn position(&self, old: f64) -> usize {
        self.sorted.partition_point(|&v| v < old)
    }

    /// Replaces one occurrence of `old` (or nothing), at `sorted[pos]`, by `new` (or nothing),
    /// and brings the prefix sums and the count of finite rates up to date.
    fn replace(&mut self, old: Option<(f64, usize)>, new: Option<f64>) {
        let finite = |v: Option<f64>| usize::from(v.is_some_and(f64::is_finite));
        self.finite = self.finite + finite(new) - finite(old.map(|(o, _)| o));
        match (old, new) {
            _ if old.map(|(o, _)| o) == new => {}
            (Some((o, i)), Some(n)) if o.is_finite() && n.is_finite() => self.shift(o, i, n),
            _ => {
                let mut from = usize::MAX;
                if let Some((_, i)) = old {
                    self.sorted.remove(i);
                    from = i;
                }
                if let Some(n) = new {
                    let i = self.sorted.partition_point(|&v| v < n);
                    self.sorted.insert(i, n);
                    from = from.min(i);
                }
                self.prefix.truncate(from + 1);
                let mut acc = self.prefix[from];
                for &v in &self.sorted[from..] {
                    acc += v;
                    self.prefix.push(acc);
                }
            }
        }
    }

    /// The common case of [`FairLink::replace`], a finite limit rate changing to another: only
    /// the entries between the old and the new position move, and every prefix sum past them
    /// changes by the same `new − old` (an independent add per entry, where recomputing them
    /// was a chain of dependent adds: the Fig. 6 sweep spent a third of its time there).
    fn shift(&mut self, old: f64, i: usize, new: f64) {
        let (lo, hi) = if new > old {
            // Position of `new` once `old` is out: the entries after `i` below `new` move down.
            let j = i + self.sorted[i + 1..].partition_point(|&v| v < new);
            self.sorted[i..=j].rotate_left(1);
            self.sorted[j] = new;
            (i, j)
        } else {
            let j = self.sorted[..i].partition_point(|&v| v < new);
            self.sorted[j..=i].rotate_right(1);
            self.sorted[j] = new;
            (j, i)
        };
        let mut acc = self.prefix[lo];
        for k in lo..=hi {
            acc += self.sorted[k];
            self.prefix[k + 1] = acc;
        }
        let delta = new - old;
        for p in &mut self.prefix[hi + 2..] {
            *p += delta;
        }
    }

    /// Lines 4–10 with the updated flow at ∞ (line 3): the local max-min fair rate. `old` is the
    /// flow's stored limit rate and its position in `sorted`, if seen, which is left out of the
    /// walk.
    fn local_max_min(&self, old: Option<(f64, usize)>, div: &Divider) -> f64 {
        // The other flows, in increasing order, are `sorted` without one occurrence of `old`.
        let pos = old.map(|(_, i)| i);
        let old = old.map(|(o, _)| o);
        let m = self.sorted.len() - usize::from(pos.is_some());
        let other = |j: usize| match pos {
            Some(p) if j >= p => self.sorted[j + 1],
            _ => self.sorted[j],
        };
        let sum = |j: usize| match (pos, old) {
            (Some(p), Some(o)) if j > p => self.prefix[j + 1] - o,
            _ => self.prefix[j],
        };
        // Lines 6–9 move the j-th smallest limit rate to E while (c − SumE)/NumB > e⁽ʲ⁾, with
        // NumB = m + 1 − j; the condition holds for a prefix of j (water-filling), so the stop
        // is found by binary search over the finite limit rates (∞ never moves).
        let finite = self.finite
            - usize::from(matches!((pos, old), (Some(_), Some(o)) if o < f64::INFINITY));
        let moves = |j: usize| self.c - sum(j) > other(j) * (m + 1 - j) as f64;
        let (mut lo, mut hi) = (0usize, finite.min(m));
        while lo < hi {
            let mid = (lo + hi) / 2;
            if moves(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        // Line 10.
        div.div(self.c - sum(lo), (m + 1 - lo) as f64)
    }
}

impl LinkAlgorithm for Fair {
    type Link = FairLink;
    type Hop = FairHop;
    const HAS_TIMEOUT: bool = false;

    fn new_link(&self, capacity: f64, n_flows: usize) -> FairLink {
        FairLink {
            c: capacity,
            e_of: vec![f64::NAN; n_flows],
            sorted: Vec::new(),
            prefix: vec![0.0],
            finite: 0,
        }
    }
    fn initial_hop(&self) -> FairHop {
        FairHop {
            b: f64::INFINITY,
            x: 0.0,
        }
    }
    fn allocation(&self, h: &FairHop) -> f64 {
        h.x
    }

    fn process(&self, link: &mut FairLink, u: Update, hops: &mut [FairHop]) {
        let me = u.local as usize;
        let old = Some(link.e_of[me])
            .filter(|e| !e.is_nan())
            .map(|o| (o, link.position(o)));
        // Lines 3–10 (walking the limit rates in increasing order: see the module docs on "ith
        // largest"; line 6 evaluated as (c − SumE) > e·NumB).
        let b = link.local_max_min(old, &self.div);
        // Lines 11–13.
        let e = limit_rate(hops, u.hop, |h| h.b);
        let x = b.min(e);
        // Line 14.
        hops[u.hop] = FairHop { b, x };
        // Lines 15–16.
        if u.leaving {
            link.e_of[me] = f64::NAN;
            link.replace(old, None);
        } else {
            link.e_of[me] = e;
            link.replace(old, Some(e));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// n-PERC (Algorithm 3)

/// n-PERC (§5, Algorithm 3): `b = (c − SumE) / NumB` from two aggregate counters.
#[derive(Clone, Debug, PartialEq)]
pub struct NPerc {
    /// Division used for `b` (line 7).
    pub div: Divider,
}

/// n-PERC's per-link packet fields `b`, `x`, `s` (line 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NPercHop {
    /// Bottleneck rate (initially ∞).
    pub b: f64,
    /// Allocated rate (initially 0).
    pub x: f64,
    /// Bottleneck state (initially E).
    pub s: Class,
}

/// Link state of n-PERC and s-PERC: `SumE`, `NumB` (Algorithm 3 line 2), and for s-PERC `MaxE`,
/// `MaxE'` (Algorithm 4 line 4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AggregateLink {
    /// Capacity.
    pub c: f64,
    /// Sum of the allocations of E flows.
    pub sum_e: f64,
    /// Number of B flows.
    pub num_b: f64,
    /// s-PERC: max allocation of flows classified E since the last round.
    pub max_e: f64,
    /// s-PERC: the same, in this round.
    pub max_e2: f64,
}

/// What a link's classification step did with a flow (Algorithm 3 lines 12–16, Algorithm 4
/// lines 17–22, Algorithm 6 lines 24–30).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Classified {
    /// A FIN: the flow left `NumB`.
    Left,
    /// Limited elsewhere: classified E, its allocation added to `SumE`.
    E,
    /// Bottlenecked here: stays B.
    B,
}

/// The bottleneck rate of line 9 (Algorithm 3 line 7) with its numerator and denominator, which
/// the classification compares against without dividing again.
#[derive(Clone, Copy, Debug)]
struct BottleneckRate {
    num: f64,
    den: f64,
    b: f64,
}

impl AggregateLink {
    fn new(c: f64) -> AggregateLink {
        AggregateLink {
            c,
            sum_e: 0.0,
            num_b: 0.0,
            max_e: 0.0,
            max_e2: 0.0,
        }
    }

    /// Algorithm 3 lines 3–6, Algorithm 4 lines 5–8: a flow classified E is first assumed
    /// bottlenecked here. Returns whether it was E.
    fn assume_bottlenecked_here(&mut self, s: &mut Class, x: f64) -> bool {
        if *s != Class::E {
            return false;
        }
        *s = Class::B;
        self.sum_e -= x;
        self.num_b += 1.0;
        true
    }

    /// Algorithm 3 line 7, Algorithm 4 line 9: `b = (c − SumE) / NumB`.
    fn bottleneck_rate(&self, div: &Divider) -> BottleneckRate {
        let num = self.c - self.sum_e;
        let den = self.num_b.max(1.0); // guard, see the module docs
        BottleneckRate {
            num,
            den,
            b: div.div(num, den),
        }
    }

    /// Algorithm 3 lines 12–16, Algorithm 4 lines 17–22: a FIN leaves `NumB`; a flow whose
    /// limit rate `e` is below the bottleneck rate is classified E with allocation `x` (ties
    /// within [`TIE`]).
    fn classify(
        &mut self,
        div: &Divider,
        leaving: bool,
        e: f64,
        x: f64,
        rate: BottleneckRate,
        s: &mut Class,
    ) -> Classified {
        if leaving {
            self.num_b -= 1.0;
            Classified::Left
        } else if div.less_than_quotient(e, rate.num, rate.den) {
            *s = Class::E;
            self.sum_e += x;
            self.num_b -= 1.0;
            Classified::E
        } else {
            Classified::B
        }
    }

    /// s-PERC's `MaxE`, `MaxE'` after a flow was classified E with allocation `x` (Algorithm 4
    /// lines 20–21).
    fn record_e(&mut self, x: f64) {
        self.max_e = self.max_e.max(x);
        self.max_e2 = self.max_e2.max(x);
    }

    /// Algorithm 5 line 1 (Algorithm 7 line 1): `MaxE ← MaxE'`, `MaxE' ← 0`.
    fn new_round(&mut self) {
        self.max_e = self.max_e2;
        self.max_e2 = 0.0;
    }
}

impl LinkAlgorithm for NPerc {
    type Link = AggregateLink;
    type Hop = NPercHop;
    const HAS_TIMEOUT: bool = false;

    fn new_link(&self, capacity: f64, _n: usize) -> AggregateLink {
        AggregateLink::new(capacity)
    }
    fn initial_hop(&self) -> NPercHop {
        NPercHop {
            b: f64::INFINITY,
            x: 0.0,
            s: Class::E,
        }
    }
    fn allocation(&self, h: &NPercHop) -> f64 {
        h.x
    }

    fn process(&self, link: &mut AggregateLink, u: Update, hops: &mut [NPercHop]) {
        let mut h = hops[u.hop];
        // Lines 3–6: assume the flow is not limited.
        link.assume_bottlenecked_here(&mut h.s, h.x);
        // Line 7.
        let rate = link.bottleneck_rate(&self.div);
        // Lines 8–10.
        let e = limit_rate(hops, u.hop, |h| h.b);
        let x = rate.b.min(e);
        // Line 11.
        h.b = rate.b;
        h.x = x;
        // Lines 12–16.
        link.classify(&self.div, u.leaving, e, x, rate, &mut h.s);
        hops[u.hop] = h;
    }
}

// ---------------------------------------------------------------------------------------------
// s-PERC (Algorithms 4, 5)

/// s-PERC (§6, Algorithms 4–5): n-PERC plus `MaxE` and the ignore bit.
#[derive(Clone, Debug, PartialEq)]
pub struct SPerc {
    /// Division used for `b` (line 9).
    pub div: Divider,
}

/// s-PERC's per-link packet fields `b`, `x`, `s`, `i` (lines 1–2), and s-PERC*'s round number
/// `t` (Algorithm 6 line 3; unused by s-PERC).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SPercHop {
    /// Bottleneck rate (initially ∞).
    pub b: f64,
    /// Allocated rate (initially 0).
    pub x: f64,
    /// Bottleneck state (initially E).
    pub s: Class,
    /// Ignore bit (initially 1: "ignore").
    pub i: bool,
    /// s-PERC*: the link's round number when it last saw this packet (initially 0).
    pub t: u64,
}

fn sperc_initial() -> SPercHop {
    SPercHop {
        b: f64::INFINITY,
        x: 0.0,
        s: Class::E,
        i: true,
        t: 0,
    }
}

/// Propagated rates: `p[j] = b[j]` unless the ignore bit is set (Algorithm 4 lines 10–13).
#[inline]
fn propagated(h: &SPercHop) -> f64 {
    if h.i {
        f64::INFINITY
    } else {
        h.b
    }
}

impl LinkAlgorithm for SPerc {
    type Link = AggregateLink;
    type Hop = SPercHop;
    const HAS_TIMEOUT: bool = true;

    fn new_link(&self, capacity: f64, _n: usize) -> AggregateLink {
        AggregateLink::new(capacity)
    }
    fn initial_hop(&self) -> SPercHop {
        sperc_initial()
    }
    fn allocation(&self, h: &SPercHop) -> f64 {
        h.x
    }

    fn process(&self, link: &mut AggregateLink, u: Update, hops: &mut [SPercHop]) {
        let mut h = hops[u.hop];
        // Lines 5–8.
        link.assume_bottlenecked_here(&mut h.s, h.x);
        // Line 9.
        let rate = link.bottleneck_rate(&self.div);
        // Lines 10–13.
        let e = limit_rate(hops, u.hop, propagated);
        // Lines 14–15.
        let x = rate.b.min(e);
        h.b = rate.b;
        h.x = x;
        // Line 16 (ties: see `TIE`).
        h.i = rate.b < link.max_e * (1.0 - TIE);
        // Lines 17–22.
        if link.classify(&self.div, u.leaving, e, x, rate, &mut h.s) == Classified::E {
            link.record_e(x);
        }
        hops[u.hop] = h;
    }

    fn on_round(&self, link: &mut AggregateLink) {
        // Algorithm 5 line 1.
        link.new_round();
    }
}

// ---------------------------------------------------------------------------------------------
// Basic s-PERC (the authors' simulator; what Fig. 6 plots)

/// Basic s-PERC: s-PERC without the ignore bit, the variant the paper's Fig. 6 plots as
/// "s-PERC". It is not printed in the paper; it is `sperc_basic` of the authors' public
/// numerical simulator (lavanyaj/numerical-simulations, `sperc_basic_sim.py`, read for
/// behaviour only), whose plotting notebook maps it to "s-PERC" and notes that it is faster in
/// practice than the ignore-bit variant with the same worst-case bound. Against
/// [`SPerc`] (Algorithm 4) it differs in two places:
///
/// 1. **What a link propagates.** Instead of `b` with an ignore bit set when `b < MaxE`
///    (Algorithm 4 lines 10–13, 16), the link writes `p = max(MaxE, b)` into the packet, with
///    `MaxE` as it was before this update; other links take the flow's limit rate as the lowest
///    `p` of the other links. A rate below `MaxE` is thus raised to `MaxE` rather than
///    ignored (∞).
/// 2. **A link's first visit of a flow.** The limit rate is ∞ until the link has seen the flow
///    once (the authors' link only reads the other links' rates once its own entry is in the
///    packet), so a new flow is classified B on its first visit everywhere.
///
/// Everything else is Algorithm 4's: the flow is first assumed unlimited (lines 5–8),
/// `b = (c − SumE) / NumB` (line 9), `x = min(b, e)` (lines 14–15), E when `e < b` (lines
/// 18–22, ties within [`TIE`]; the authors use an absolute 1e-7), `MaxE` / `MaxE'` kept and
/// reset every round as Algorithm 5, a FIN leaves `NumB` (line 17). The source's rate is the
/// minimum allocation `x`, as for every algorithm here (assumption 10; the authors' simulator
/// measures convergence on the same quantity).
#[derive(Clone, Debug, PartialEq)]
pub struct SPercBasic {
    /// Division used for `b`.
    pub div: Divider,
}

/// Basic s-PERC's per-link packet fields: the propagated rate `p`, the allocation `x`, the
/// bottleneck state `s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SPercBasicHop {
    /// Propagated rate `max(MaxE, b)` (initially ∞: the link has not seen the flow yet).
    pub p: f64,
    /// Allocated rate (initially 0).
    pub x: f64,
    /// Bottleneck state (initially E, with `x = 0`: counted nowhere yet).
    pub s: Class,
}

impl LinkAlgorithm for SPercBasic {
    type Link = AggregateLink;
    type Hop = SPercBasicHop;
    const HAS_TIMEOUT: bool = true;

    fn new_link(&self, capacity: f64, _n: usize) -> AggregateLink {
        AggregateLink::new(capacity)
    }
    fn initial_hop(&self) -> SPercBasicHop {
        SPercBasicHop {
            p: f64::INFINITY,
            x: 0.0,
            s: Class::E,
        }
    }
    fn allocation(&self, h: &SPercBasicHop) -> f64 {
        h.x
    }

    fn process(&self, link: &mut AggregateLink, u: Update, hops: &mut [SPercBasicHop]) {
        let mut h = hops[u.hop];
        let first_visit = h.p.is_infinite();
        // As Algorithm 4 lines 5–8: assume the flow is not limited elsewhere.
        link.assume_bottlenecked_here(&mut h.s, h.x);
        // As line 9.
        let rate = link.bottleneck_rate(&self.div);
        // The lowest rate the other links propagate; ∞ on the link's first visit (see above).
        let e = if first_visit {
            f64::INFINITY
        } else {
            limit_rate(hops, u.hop, |h| h.p)
        };
        // As lines 14–15; the propagated rate uses MaxE before this update.
        h.x = rate.b.min(e);
        h.p = link.max_e.max(rate.b);
        // As lines 17–22.
        if link.classify(&self.div, u.leaving, e, h.x, rate, &mut h.s) == Classified::E {
            link.record_e(h.x);
        }
        hops[u.hop] = h;
    }

    fn on_round(&self, link: &mut AggregateLink) {
        // As Algorithm 5 line 1.
        link.new_round();
    }
}

// ---------------------------------------------------------------------------------------------
// s-PERC* (Algorithms 6, 7)

/// s-PERC* (§7.1, Appendix D.2, Algorithms 6–7): s-PERC with shadow counters `SumE'`, `NumB'`
/// synced every round, and per-link round numbers in the packet, so that state left behind by
/// dropped control packets fades out within a round.
#[derive(Clone, Debug, PartialEq)]
pub struct SPercStar {
    /// Division used for `b` (line 16).
    pub div: Divider,
}

/// s-PERC*'s link state (Algorithm 6 lines 4–7).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StarLink {
    /// `SumE`, `NumB`, `MaxE`, `MaxE'`.
    pub agg: AggregateLink,
    /// `SumE'`: sum of allocations of E flows seen in this round.
    pub sum_e2: f64,
    /// `NumB'`: number of B flows seen in this round.
    pub num_b2: f64,
    /// `T`: the link's round number (initially 1).
    pub round: u64,
}

impl LinkAlgorithm for SPercStar {
    type Link = StarLink;
    type Hop = SPercHop;
    const HAS_TIMEOUT: bool = true;

    fn new_link(&self, capacity: f64, _n: usize) -> StarLink {
        StarLink {
            agg: AggregateLink::new(capacity),
            sum_e2: 0.0,
            num_b2: 0.0,
            round: 1,
        }
    }
    fn initial_hop(&self) -> SPercHop {
        sperc_initial()
    }
    fn allocation(&self, h: &SPercHop) -> f64 {
        h.x
    }

    fn process(&self, st: &mut StarLink, u: Update, hops: &mut [SPercHop]) {
        let mut h = hops[u.hop];
        let seen = h.t == st.round;
        let link = &mut st.agg;
        let x_before = h.x;
        if link.assume_bottlenecked_here(&mut h.s, x_before) {
            // Lines 8–13, the shadow counters.
            if seen {
                st.sum_e2 -= x_before;
            }
            // Line 13 reads "if t[l] = T then NumB' ← NumB' + 1"; we increment unconditionally
            // (see the module docs: with the condition, an E flow first seen in a round would
            // leave NumB' one short).
            st.num_b2 += 1.0;
        } else if !seen {
            // Lines 14–15.
            st.num_b2 += 1.0;
        }
        // Line 16.
        let rate = link.bottleneck_rate(&self.div);
        // Lines 17–20.
        let e = limit_rate(hops, u.hop, propagated);
        // Lines 21–22.
        let x = rate.b.min(e);
        h.b = rate.b;
        h.x = x;
        // Line 23 (ties: see `TIE`).
        h.i = rate.b < link.max_e * (1.0 - TIE);
        // Lines 24–30, the shadow counters following the real ones.
        match link.classify(&self.div, u.leaving, e, x, rate, &mut h.s) {
            Classified::Left => st.num_b2 -= 1.0,
            Classified::E => {
                st.sum_e2 += x;
                st.num_b2 -= 1.0;
                link.record_e(x);
            }
            Classified::B => {}
        }
        // Line 31.
        h.t = st.round;
        hops[u.hop] = h;
    }

    fn on_round(&self, st: &mut StarLink) {
        // Algorithm 7 lines 1–4.
        st.agg.new_round();
        st.agg.sum_e = st.sum_e2;
        st.sum_e2 = 0.0;
        st.agg.num_b = st.num_b2;
        st.num_b2 = 0.0;
        st.round += 1;
    }
}
