//! Hosts: the hypervisor-shim extension point and the host's NIC scheduling state.
//!
//! A host has one NIC: the egress port of its one out-link. The NIC *pulls* data: whenever its
//! queue is empty and its serializer idle, it asks the host's active flows, round robin, for
//! the next packet a flow may send (its window allows it, its pacing time and its shim's
//! release time have come). ACKs do not wait for the pull: the receiver puts them straight into
//! the NIC queue. So a host never builds an unbounded local queue of data, and flows sharing a
//! NIC share it packet by packet.
//!
//! A flow that must wait (pacing, or its shim's release time) leaves the round robin and
//! *sleeps* until that time, or until its transport acts (an ACK, a timeout, a control packet),
//! then rejoins at the tail — deficit round robin's rule for a queue that becomes
//! backlogged. So a pull costs the flows that may send, not every flow of the host (on the
//! s-PERC WAN runs, 100 paced flows per host, scanning them all was 55% of the time).

use super::pkt::{CtrlArea, Packet};
use crate::ids::FlowId;
use crate::units::Time;
use crate::workload::FlowSpec;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A layer between a host's transports and its NIC (a hypervisor virtual switch).
///
/// Default: no shim (nothing is called). Used by: WVCC and AC/DC (rewrite the receive window
/// of ACKs on the way in or out, to impose a congestion window on an unmodified guest
/// transport); eBA (per-VM rate limiting via [`HostShim::earliest_send`], and its own control
/// packets via [`HostShim::on_timer`] and [`HostShim::on_control`]).
///
/// **Shim timer and shim control packets.** A shim may originate control packets, as a
/// congestion control does ([`super::cc::CongestionControl::make_control`]): the engine asks
/// [`HostShim::next_timer`] after installing the shim and after each call of
/// [`HostShim::on_flow_start`], [`HostShim::on_weight`], [`HostShim::on_timer`] and
/// [`HostShim::on_control`] (a timer that moves in any other hook is seen at the next of
/// those), and calls [`HostShim::on_timer`] once that time has come. Each [`ShimControl`] the
/// shim lists there is sent as a control packet of the engine's control size
/// ([`super::config::ControlConfig`]) from this host on `flow`'s data path, processed by the
/// port agents as any control packet, reflected by the receiver, and handed back to
/// [`HostShim::on_control`] (never to the flow's congestion control).
pub trait HostShim {
    /// A packet leaves this host (data from a sender, or an ACK from a receiver), just before
    /// it enters the NIC queue.
    fn on_egress(&mut self, _pkt: &mut Packet, _now: Time) {}
    /// A packet arrived at this host, before the transport sees it.
    fn on_ingress(&mut self, _pkt: &mut Packet, _now: Time) {}
    /// The earliest time `flow` may send its next data packet of `wire` bytes (a rate limiter
    /// returns a future time; the host tries again then, or earlier when the flow's transport
    /// acts: a shim whose release times can move earlier on its own must not rely on being
    /// asked in between). Default: now.
    fn earliest_send(&mut self, _flow: FlowId, _wire: u32, now: Time) -> Time {
        now
    }
    /// A flow sent from this host starts, with its spec (endpoints, size, weight, tag) as the
    /// engine holds it then. Default: nothing.
    fn on_flow_start(&mut self, _flow: FlowId, _spec: &FlowSpec, _now: Time) {}
    /// The weight of a flow sent from this host changed ([`super::PacketSim::set_weight`]).
    /// Default: nothing.
    fn on_weight(&mut self, _flow: FlowId, _weight: f64) {}
    /// When this shim next wants [`HostShim::on_timer`] called (`None`: not now). Default:
    /// never, so a shim without a timer costs no event.
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// The time [`HostShim::next_timer`] asked for has come: the shim pushes onto `out` the
    /// control packets to send now. Default: nothing.
    fn on_timer(&mut self, _now: Time, _out: &mut Vec<ShimControl>) {}
    /// A control packet this shim sent came back, reflected by the receiver, with its control
    /// area as the port agents left it. Default: nothing.
    fn on_control(&mut self, _pkt: &Packet, _area: &CtrlArea, _now: Time) {}
}

/// A control packet a host shim asks to send ([`HostShim::on_timer`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShimControl {
    /// The flow whose data path it takes: a flow sent from this host that has started and not
    /// finished (others are skipped: they have no path to take).
    pub flow: FlowId,
    /// Its header word ([`Packet::word`]), which port agents may rewrite on the way.
    pub word: u32,
    /// Its control area; the engine sets `shim`, clears `reflected` and keeps the rest.
    pub area: CtrlArea,
}

/// One host (engine-internal).
pub(crate) struct Host {
    /// Its NIC: the port of its one out-link (`u32::MAX` for a host without links).
    pub nic: u32,
    /// Flows that may have something to send, round robin.
    pub active: VecDeque<u32>,
    /// Flows out of the round robin until a time (their pacing or shim release time), by that
    /// time. An entry is stale when the flow was woken early (its `sleep_until` differs).
    pub sleeping: BinaryHeap<Reverse<(u64, u32)>>,
    /// Time of the pending `HostWake` event (`u64::MAX`: none).
    pub wake_at: u64,
    pub shim: Option<Box<dyn HostShim>>,
    /// Time of the pending `ShimTimer` event (`u64::MAX`: none).
    pub shim_timer_at: u64,
    /// [`super::config::HostNic::Queue`]: data packets handed over by the flows, waiting for
    /// the NIC (FIFO), and their wire bytes.
    pub fifo: VecDeque<super::pkt::PacketId>,
    pub fifo_bytes: u64,
    /// [`super::config::HostNic::Weighted`]: the start tag of the last packet sent (the
    /// scheduler's virtual time, wire bytes per unit weight).
    pub vtime: f64,
    /// [`super::config::HostNic::Weighted`]: the ready flows in the order the NIC serves them
    /// (takes the place of `active`).
    pub sfq: SfqOrder,
    /// [`super::config::HostNic::Weighted`]: listed flows whose transport acted since the last
    /// pull (asked again at the next one).
    pub sfq_recheck: Vec<u32>,
    /// [`super::config::HostNic::Weighted`]: the host's flows that started (finished ones are
    /// dropped lazily, when the list is about to grow): the flows its [`NicLevels`] tree
    /// starts from when a flow of the host first asks for its NIC share.
    pub senders: Vec<u32>,
    /// [`super::config::HostNic::Weighted`]: the host's tree in [`NicLevels`], kept from the
    /// first time one of its flows asks for its NIC share (`None` before: a host whose flows
    /// never ask pays nothing).
    pub levels: Option<HostLevels>,
}

/// A host's part of [`NicLevels`]: the root of its tree and the flows whose state changed
/// since the tree last saw them (each listed once: [`NicLevels::mark`]).
pub(crate) struct HostLevels {
    pub root: u32,
    pub dirty: Vec<u32>,
}

/// The weighted max-min share of a link of `capacity` for a flow of weight `weight` that would
/// take all it is given, beside flows that want `others` = `(demand, weight)` (demand in the
/// unit of `capacity`): `weight · λ`, where the level `λ` fills the link,
/// `Σ min(dⱼ, wⱼ·λ) + weight·λ = capacity` (water-filling: a flow whose demand per weight is
/// below the level keeps its demand, the rest share what is left by weight). At most
/// `capacity`; `others` is reordered (by demand per weight). O(n log n): the reference that
/// [`NicLevels::share`] (O(log n), what the engine uses) is tested against.
#[cfg(test)]
pub(crate) fn weighted_share(capacity: f64, weight: f64, others: &mut [(f64, f64)]) -> f64 {
    others.sort_unstable_by(|a, b| (a.0 / a.1).total_cmp(&(b.0 / b.1)));
    let mut left = capacity;
    let mut wsum = weight + others.iter().map(|o| o.1).sum::<f64>();
    for &(d, w) in others.iter() {
        // Satisfied at the level the rest would reach: keeps its demand.
        if d / w * wsum > left {
            break;
        }
        left -= d;
        wsum -= w;
    }
    (weight * left.max(0.0) / wsum).min(capacity)
}

/// No node (an empty subtree, an empty tree's root).
pub(crate) const NIL_LEVEL: u32 = u32::MAX;
const NIL: u32 = NIL_LEVEL;

/// One flow in its host's [`NicLevels`] tree: its demand and weight as the tree last saw them,
/// its children, and the sums of demands and weights of its subtree.
#[derive(Clone, Copy)]
struct LevelNode {
    left: u32,
    right: u32,
    demand: u64,
    weight: f64,
    sum_demand: u64,
    sum_weight: f64,
    in_tree: bool,
    /// Listed in its host's [`HostLevels::dirty`].
    dirty: bool,
}

impl Default for LevelNode {
    fn default() -> Self {
        LevelNode {
            left: NIL,
            right: NIL,
            demand: 0,
            weight: 0.0,
            sum_demand: 0,
            sum_weight: 0.0,
            in_tree: false,
            dirty: false,
        }
    }
}

/// The weighted NIC's water level, kept per host so that a flow's share of its NIC
/// (`weighted_share`'s water-filling of the line rate beside the host's other flows) is read
/// in O(log n) instead of sorting the host's flows for every ACK (O(n log n), with ~1,000
/// flows a host at Söze's Fig. 19's 1M flows).
///
/// Each host's flows that may send form a treap (a binary search tree kept balanced by
/// random priorities: here a hash of the flow id, so runs are reproducible) ordered by demand
/// per weight, then flow id; every node holds the sums of demands and weights of its subtree.
/// Water-filling serves the flows in that order and stops at the first one whose demand per
/// weight is above the level the rest would reach; one descent of the tree finds that flow
/// with the sums of the demands before it and the weights from it on, which is all the share
/// needs. A flow whose demand or weight changes leaves the tree and re-enters it (O(log n)).
///
/// Demands are whole bits per second (the engine's [`crate::units::Rate`]) and their sums
/// integers, so what is left of the line after the satisfied flows is exact, as in
/// `weighted_share`'s sequential subtraction; only the weight sums may round differently
/// (they are summed in another order): on random hosts of up to 1,000 flows the shares equal
/// the reference's within 5e-15 relative, and bit for bit when the weight sums are exact
/// (tested). Nodes are indexed by flow id (one array for all hosts: a flow belongs to
/// one host).
#[derive(Default)]
pub(crate) struct NicLevels {
    nodes: Vec<LevelNode>,
}

impl NicLevels {
    /// Room for `flows` flows (ids `0..flows`); nothing in any tree.
    pub fn new(flows: usize) -> NicLevels {
        NicLevels {
            nodes: vec![LevelNode::default(); flows],
        }
    }

    /// Whether no host keeps levels yet (nothing allocated).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Marks flow `f` as changed; true if it was not marked (the caller lists it once).
    #[inline]
    pub fn mark(&mut self, f: u32) -> bool {
        let n = &mut self.nodes[f as usize];
        !std::mem::replace(&mut n.dirty, true)
    }

    /// Clears flow `f`'s mark (its host is about to look at it).
    #[inline]
    pub fn unmark(&mut self, f: u32) {
        self.nodes[f as usize].dirty = false;
    }

    /// Flow `f`'s `(demand, weight)` as its tree holds it, if it is in one.
    #[inline]
    pub fn entry(&self, f: u32) -> Option<(u64, f64)> {
        let n = &self.nodes[f as usize];
        n.in_tree.then_some((n.demand, n.weight))
    }

    /// Puts flow `f` (in no tree) into the tree at `root` with `demand` (bit/s) and `weight`.
    pub fn insert(&mut self, root: &mut u32, f: u32, demand: u64, weight: f64) {
        debug_assert!(!self.nodes[f as usize].in_tree);
        debug_assert!(weight > 0.0);
        self.nodes[f as usize] = LevelNode {
            demand,
            weight,
            sum_demand: demand,
            sum_weight: weight,
            in_tree: true,
            ..LevelNode::default()
        };
        let (below, rest) = self.split(*root, f);
        let below = self.merge(below, f);
        *root = self.merge(below, rest);
    }

    /// Takes flow `f` (in the tree at `root`) out of it.
    pub fn remove(&mut self, root: &mut u32, f: u32) {
        debug_assert!(self.nodes[f as usize].in_tree);
        let (below, rest) = self.split(*root, f);
        // `f` has the smallest key of `rest`.
        let rest = self.remove_first(rest, f);
        *root = self.merge(below, rest);
        let n = &mut self.nodes[f as usize];
        (n.in_tree, n.left, n.right) = (false, NIL, NIL);
    }

    /// The share of a link of `capacity` bit/s for a flow of weight `weight` (not in the
    /// tree) that would take all it is given, beside the flows of the tree at `root` at their
    /// demands: `weighted_share`, in one descent.
    pub fn share(&self, root: u32, capacity: u64, weight: f64) -> f64 {
        let cap = capacity as f64;
        // Demands of the flows before the subtree being searched (all satisfied), weights of
        // the flows after it.
        let (mut demand_before, mut weight_after) = (0u64, 0.0f64);
        // The first flow found that is not satisfied: (demands before it, weights from it on).
        let mut stop = None;
        let mut t = root;
        while t != NIL {
            let n = &self.nodes[t as usize];
            let before = demand_before + self.sum_demand(n.left);
            let from = n.weight + self.sum_weight(n.right) + weight_after;
            let left = cap - before as f64;
            // As `weighted_share`: satisfied at the level the rest would reach, it keeps its
            // demand.
            if n.demand as f64 / n.weight * (weight + from) > left {
                stop = Some((before, from));
                weight_after = from;
                t = n.left;
            } else {
                demand_before = before + n.demand;
                t = n.right;
            }
        }
        let (before, from) = stop.unwrap_or((demand_before, 0.0));
        let left = (cap - before as f64).max(0.0);
        (weight * left / (weight + from)).min(cap)
    }

    #[inline]
    fn sum_demand(&self, t: u32) -> u64 {
        if t == NIL {
            0
        } else {
            self.nodes[t as usize].sum_demand
        }
    }

    #[inline]
    fn sum_weight(&self, t: u32) -> f64 {
        if t == NIL {
            0.0
        } else {
            self.nodes[t as usize].sum_weight
        }
    }

    /// Whether node `a` comes before node `b`: by demand per weight, then flow id.
    #[inline]
    fn before(&self, a: u32, b: u32) -> bool {
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        let (ra, rb) = (na.demand as f64 / na.weight, nb.demand as f64 / nb.weight);
        ra.total_cmp(&rb).then(a.cmp(&b)).is_lt()
    }

    /// Recomputes node `t`'s subtree sums from its children.
    #[inline]
    fn pull(&mut self, t: u32) {
        let n = self.nodes[t as usize];
        let d = n.demand + self.sum_demand(n.left) + self.sum_demand(n.right);
        let w = self.sum_weight(n.left) + n.weight + self.sum_weight(n.right);
        let n = &mut self.nodes[t as usize];
        (n.sum_demand, n.sum_weight) = (d, w);
    }

    /// Splits the subtree `t` into the nodes before node `k` and the rest (`k` and after).
    fn split(&mut self, t: u32, k: u32) -> (u32, u32) {
        if t == NIL {
            return (NIL, NIL);
        }
        if self.before(t, k) {
            let (a, b) = self.split(self.nodes[t as usize].right, k);
            self.nodes[t as usize].right = a;
            self.pull(t);
            (t, b)
        } else {
            let (a, b) = self.split(self.nodes[t as usize].left, k);
            self.nodes[t as usize].left = b;
            self.pull(t);
            (a, t)
        }
    }

    /// Joins subtrees `a` and `b` (every node of `a` before every node of `b`).
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if priority(a) > priority(b) {
            let r = self.merge(self.nodes[a as usize].right, b);
            self.nodes[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.merge(a, self.nodes[b as usize].left);
            self.nodes[b as usize].left = l;
            self.pull(b);
            b
        }
    }

    /// Subtree `t` without its first node (which is `f`).
    fn remove_first(&mut self, t: u32, f: u32) -> u32 {
        let left = self.nodes[t as usize].left;
        if left == NIL {
            debug_assert_eq!(t, f, "the first node after the split is the flow");
            return self.nodes[t as usize].right;
        }
        let l = self.remove_first(left, f);
        self.nodes[t as usize].left = l;
        self.pull(t);
        t
    }
}

/// A node's treap priority: a hash of its flow id (splitmix64's finalizer), so the tree's
/// shape does not depend on anything but the flows.
#[inline]
fn priority(f: u32) -> u64 {
    let mut x = (f as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The flows a weighted NIC may serve, in start-time fair queueing order (Goyal, Vin & Cheng,
/// SIGCOMM 1996): smallest start tag `max(finish tag, virtual time)` first, ties to the flow
/// that joined the NIC's list first (its `seq`). O(log n) a packet where a scan of the host's
/// flows was O(n): with ~100 ready flows a host (Söze Fig. 19, 100k flows on k = 16) the scan
/// was 63% of the run.
///
/// Every flow whose finish tag is at or below the virtual time starts at the virtual time, so
/// those are kept apart (`level`, by `seq` alone) from the rest (`above`, by tag, then `seq`);
/// the virtual time only grows, so flows only move from `above` to `level`.
#[derive(Default)]
pub(crate) struct SfqOrder {
    next_seq: u64,
    /// `(finish tag bits, seq, flow)` of flows whose tag is above the virtual time (tags are
    /// non-negative, so their bit patterns sort as the numbers do).
    above: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// `(seq, flow)` of flows whose tag is at or below the virtual time.
    level: BinaryHeap<Reverse<(u64, u32)>>,
    /// The flow served last, with its `seq`: it keeps its place in the list, but whether it may
    /// send again is known only at the next pull (its pacing time moved when it sent).
    pub served: Option<(u32, u64)>,
}

impl SfqOrder {
    /// A flow joins the list's tail (it became ready, or woke up); returns its place.
    pub fn push(&mut self, flow: u32, tag: f64, vtime: f64) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.insert(flow, seq, tag, vtime);
        seq
    }

    /// A flow back at its old place `seq` (the one served last, still ready).
    pub fn insert(&mut self, flow: u32, seq: u64, tag: f64, vtime: f64) {
        debug_assert!(tag >= 0.0, "SFQ tags are non-negative");
        if tag <= vtime {
            self.level.push(Reverse((seq, flow)));
        } else {
            self.above.push(Reverse((tag.to_bits(), seq, flow)));
        }
    }

    /// Takes the flow to serve at virtual time `vtime`: `(flow, seq, start tag)`. Entries of
    /// flows that left the list are not removed; the caller skips them (their `seq` is no
    /// longer the flow's).
    pub fn pop(&mut self, vtime: f64) -> Option<(u32, u64, f64)> {
        while let Some(&Reverse((tag, seq, flow))) = self.above.peek() {
            if f64::from_bits(tag) > vtime {
                break;
            }
            self.above.pop();
            self.level.push(Reverse((seq, flow)));
        }
        if let Some(Reverse((seq, flow))) = self.level.pop() {
            return Some((flow, seq, vtime));
        }
        let Reverse((tag, seq, flow)) = self.above.pop()?;
        Some((flow, seq, f64::from_bits(tag)))
    }
}

#[cfg(test)]
mod tests {
    use super::{weighted_share, NicLevels, SfqOrder, NIL_LEVEL};
    use rand::{Rng, SeedableRng};

    #[test]
    fn weighted_share_water_fills_the_others_demands() {
        // A 100 Gb/s NIC, the asking flow of weight 1 unlimited. Beside one flow of weight 3
        // wanting the line rate: the level is 100/4 = 25 per weight, the asker gets 25.
        assert_eq!(weighted_share(100.0, 1.0, &mut [(100.0, 3.0)]), 25.0);
        // Beside a weight-3 flow wanting only 30 (10 per weight, below 25): it keeps 30, the
        // asker gets the other 70.
        assert_eq!(weighted_share(100.0, 1.0, &mut [(30.0, 3.0)]), 70.0);
        // Weight 2 beside (10, w 1), (90, w 1), (60, w 2), total weight 6: the first wants 10
        // per weight, below the level 100/6 = 16.7, and keeps 10; the other 90 go to weights
        // 5 at 18 per weight, below what (60, w 2) and (90, w 1) want (30 and 90 per
        // weight): the asker gets 2 · 18 = 36 (10 + 36 + 36 + 18 = 100). Order of the
        // others does not matter.
        let mut others = [(90.0, 1.0), (60.0, 2.0), (10.0, 1.0)];
        assert_eq!(weighted_share(100.0, 2.0, &mut others), 36.0);
        // Alone, or beside flows that want nothing: the whole line; weights below 1 as well.
        assert_eq!(weighted_share(100.0, 0.5, &mut []), 100.0);
        assert_eq!(weighted_share(100.0, 0.5, &mut [(0.0, 4.0)]), 100.0);
        // Weight 0.5 beside weight 0.25 at the line rate: 2/3 of the line.
        let s = weighted_share(100.0, 0.5, &mut [(100.0, 0.25)]);
        assert!((s - 200.0 / 3.0).abs() < 1e-9, "{s}");
    }

    /// Random hosts: `n` flows with demands up to the line rate (some at it: unpaced, some at
    /// 0: nothing to send) and weights either any float in [0.1, 10] or multiples of 1/64
    /// (sums of those are exact in f64), `churn` demand or weight changes through
    /// `remove`/`insert`, then every flow's share from the tree against [`weighted_share`]
    /// over the others. Returns the largest relative difference seen and how many shares were
    /// bit for bit equal.
    fn levels_against_sorting(seed: u64, n: usize, dyadic: bool) -> (f64, usize, usize) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let line: u64 = 100_000_000_000;
        let weight = |rng: &mut rand_chacha::ChaCha8Rng| {
            if dyadic {
                rng.gen_range(6..=640) as f64 / 64.0
            } else {
                rng.gen_range(0.1..10.0)
            }
        };
        let demand = |rng: &mut rand_chacha::ChaCha8Rng| match rng.gen_range(0..10) {
            0 => line,
            1 => 0,
            // Many flows a host: most want a small part of the line.
            _ => rng.gen_range(1..=line / (n as u64).max(1) * 3).min(line),
        };
        let mut levels = NicLevels::new(n);
        let mut root = NIL_LEVEL;
        let mut flows: Vec<(u64, f64)> = Vec::with_capacity(n);
        for f in 0..n {
            let (d, w) = (demand(&mut rng), weight(&mut rng));
            flows.push((d, w));
            levels.insert(&mut root, f as u32, d, w);
        }
        for _ in 0..4 * n {
            let f = rng.gen_range(0..n);
            levels.remove(&mut root, f as u32);
            if rng.gen_bool(0.8) {
                flows[f].0 = demand(&mut rng);
            } else {
                flows[f].1 = weight(&mut rng);
            }
            levels.insert(&mut root, f as u32, flows[f].0, flows[f].1);
        }
        let (mut worst, mut equal) = (0.0f64, 0);
        for f in 0..n {
            let asker = flows[f].1;
            let mut others: Vec<(f64, f64)> = (0..n)
                .filter(|&g| g != f)
                .map(|g| (flows[g].0 as f64, flows[g].1))
                .collect();
            let want = weighted_share(line as f64, asker, &mut others);
            levels.remove(&mut root, f as u32);
            let got = levels.share(root, line, asker);
            levels.insert(&mut root, f as u32, flows[f].0, flows[f].1);
            assert_eq!(levels.entry(f as u32), Some(flows[f]));
            if got == want {
                equal += 1;
            }
            worst = worst.max((got - want).abs() / want.max(1.0));
        }
        (worst, equal, n)
    }

    #[test]
    fn nic_levels_give_the_sorting_water_fill_shares() {
        // The tree's share is `weighted_share`'s water-filling read in one descent: same
        // stopping flow, same integer sum of the demands before it (exact), weights summed in
        // another order. With weights whose sums are exact in f64 (multiples of 1/64) nothing
        // rounds differently, so every share must be the same bit for bit; with any weights
        // in [0.1, 10] only the weight sums round differently, a few ulps of the sum: within
        // 1e-12 relative (the brief's bar; measured below it by orders of magnitude).
        for (seed, n) in [(1, 1), (2, 2), (3, 5), (4, 40), (5, 300), (6, 1000)] {
            let (worst, equal, total) = levels_against_sorting(seed, n, true);
            assert_eq!(equal, total, "dyadic weights, {n} flows: worst {worst:e}");
            let (worst, equal, total) = levels_against_sorting(seed + 100, n, false);
            println!("{n} flows, weights in [0.1, 10]: {equal}/{total} bit for bit, worst relative difference {worst:e}");
            assert!(
                worst <= 1e-12,
                "{n} flows: worst relative difference {worst:e}"
            );
        }
    }

    #[test]
    fn nic_levels_follow_flows_that_come_and_go() {
        // Hand-worked (the cases of `weighted_share_water_fills_the_others_demands`, line
        // 100): flows 0 (demand 10, weight 1), 1 (90, 1), 2 (60, 2) in the tree; a weight-2
        // asker gets 36. Flow 0 leaves: 100 over weights 5 → 20 per weight, below what 1 and
        // 2 want (90 and 30 per weight): 40. Flow 2's demand drops to 20 (10 per weight):
        // kept; 80 over weights 3 → 26.67 per weight, below 90: 53.33. Empty: the line.
        let mut levels = NicLevels::new(3);
        let mut root = NIL_LEVEL;
        levels.insert(&mut root, 0, 10, 1.0);
        levels.insert(&mut root, 1, 90, 1.0);
        levels.insert(&mut root, 2, 60, 2.0);
        assert_eq!(levels.share(root, 100, 2.0), 36.0);
        levels.remove(&mut root, 0);
        assert_eq!(levels.entry(0), None);
        assert_eq!(levels.share(root, 100, 2.0), 40.0);
        levels.remove(&mut root, 2);
        levels.insert(&mut root, 2, 20, 2.0);
        assert!((levels.share(root, 100, 2.0) - 160.0 / 3.0).abs() < 1e-12);
        levels.remove(&mut root, 1);
        levels.remove(&mut root, 2);
        assert_eq!(root, NIL_LEVEL);
        assert_eq!(levels.share(root, 100, 0.5), 100.0);
    }

    #[test]
    fn sfq_serves_the_smallest_start_tag_and_ties_in_list_order() {
        let mut q = SfqOrder::default();
        // Virtual time 10: flows 7 and 3 have finish tags below it (both start at 10, list
        // order decides: 7 joined first); flows 5 and 9 start at their tags 12 and 11.
        assert_eq!(q.push(7, 4.0, 10.0), 0);
        assert_eq!(q.push(5, 12.0, 10.0), 1);
        assert_eq!(q.push(3, 1.0, 10.0), 2);
        assert_eq!(q.push(9, 11.0, 10.0), 3);
        assert_eq!(q.pop(10.0), Some((7, 0, 10.0)));
        assert_eq!(q.pop(10.0), Some((3, 2, 10.0)));
        // The virtual time passed 11 and 12: both now start at it, and 5 joined before 9.
        assert_eq!(q.pop(12.5), Some((5, 1, 12.5)));
        // A flow served keeps its place: back with its old seq 0 and a tag above 12.5.
        q.insert(7, 0, 13.0, 12.5);
        assert_eq!(q.pop(12.5), Some((9, 3, 12.5)));
        assert_eq!(q.pop(12.5), Some((7, 0, 13.0)));
        assert_eq!(q.pop(12.5), None);
    }
}
