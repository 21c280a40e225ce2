//! Shortest-path routing towards hosts, with equal-cost multipath (ECMP) selection.
//!
//! [`Routing::new`] runs one breadth-first search per destination host over the reversed links
//! and stores hop distances in a dense `u16` table (`num_hosts × num_nodes`, destination-major:
//! the distances of all nodes to one host are contiguous, which is what a path walk reads).
//! Hosts never forward: a search never expands through a host other than its destination, so
//! paths visit hosts only at their ends. Memory is `2 · num_hosts · num_nodes` bytes (2.75 MB
//! for the k = 16 fat-tree). Large tables are filled by a few threads (rows are independent,
//! so the result is the same).
//!
//! The equal-cost next hops of `node` towards `dst` are the out-links of `node` (in out-link
//! order) whose far end is one hop closer to `dst`. A [`PathSelector`] picks one of them at
//! every hop:
//!
//! ```text
//! fmix(z)        = splitmix64 finalizer: z ^= z >> 30; z *= 0xBF58476D1CE4E5B9;
//!                  z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31
//! base(seed,key) = fmix(fmix(seed + 0x9E3779B97F4A7C15) ^ key)
//! hash(node)     = fmix(base ^ (node_index + 1) · 0x9E3779B97F4A7C15)     (wrapping arithmetic)
//! choice         = hash(node) % number_of_next_hops
//! ```
//!
//! with `key` = the flow number ([`PathSelector::FlowHash`]), the packet number
//! ([`PathSelector::Spray`]) or `src_id << 32 | dst_id` ([`PathSelector::HostPairHash`]).
//! [`ecmp_hash`] exposes the per-hop hash so that a hop-by-hop engine can reproduce the same
//! choices ([`Routing::next_hop`]).

use super::{NodeKind, Topology};
use crate::error::{Error, Result};
use crate::ids::{LinkId, NodeId};

/// How [`Routing::path`] chooses among equal-cost next hops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathSelector {
    /// Per-flow ECMP: the choice at each hop hashes `(seed, flow, node)`. All packets of a flow
    /// take the same path; different flows spread over the equal-cost paths.
    FlowHash {
        /// Hash seed (one per run or per switch configuration).
        seed: u64,
        /// The flow's key, e.g. its [`crate::ids::FlowId`] or a five-tuple hash.
        flow: u64,
    },
    /// Per-host-pair hashing: every flow between the same two hosts takes the same path.
    HostPairHash {
        /// Hash seed.
        seed: u64,
    },
    /// Per-packet spraying: the same hash as [`PathSelector::FlowHash`] keyed on the packet
    /// instead of the flow (so `Spray { seed, packet: x }` takes the path of
    /// `FlowHash { seed, flow: x }`). Callers should make `packet` unique across flows, e.g. by
    /// mixing in the flow id.
    Spray {
        /// Hash seed.
        seed: u64,
        /// The packet's key (sequence number, global packet counter, ...).
        packet: u64,
    },
    /// Always the first equal-cost next hop in out-link order (deterministic, unbalanced).
    First,
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline]
fn fmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[inline]
fn hash_base(seed: u64, key: u64) -> u64 {
    fmix(fmix(seed.wrapping_add(GOLDEN)) ^ key)
}

#[inline]
fn hop_hash(base: u64, node: usize) -> u64 {
    fmix(base ^ (node as u64).wrapping_add(1).wrapping_mul(GOLDEN))
}

/// The per-hop ECMP hash of `(seed, key, node)` described in the [module docs](self); the
/// choice among `n` equal-cost next hops at `node` is `ecmp_hash(..) % n`.
pub fn ecmp_hash(seed: u64, key: u64, node: NodeId) -> u64 {
    hop_hash(hash_base(seed, key), node.idx())
}

impl PathSelector {
    /// `None` for [`PathSelector::First`], else the per-path hash base.
    #[inline]
    fn base(self, src: NodeId, dst: NodeId) -> Option<u64> {
        match self {
            PathSelector::FlowHash { seed, flow } => Some(hash_base(seed, flow)),
            PathSelector::Spray { seed, packet } => Some(hash_base(seed, packet)),
            PathSelector::HostPairHash { seed } => {
                Some(hash_base(seed, (src.0 as u64) << 32 | dst.0 as u64))
            }
            PathSelector::First => None,
        }
    }
}

/// One out-link as routing sees it.
#[derive(Clone, Copy, Debug)]
struct Hop {
    link: u32,
    far: u32,
}

/// Searches below this much work (`hosts × (nodes + links)`) run on one thread.
const PARALLEL_WORK: usize = 1 << 22;
/// At most this many threads fill the distance table.
const MAX_THREADS: usize = 8;

/// Unreachable marker in the distance table.
const UNREACHABLE: u16 = u16::MAX;

/// Shortest-path next hops from every node to every host. Independent of the [`Topology`]
/// after construction (it copies the adjacency it needs).
#[derive(Clone, Debug)]
pub struct Routing {
    num_nodes: usize,
    hosts: Vec<NodeId>,
    /// Per node: its index in `hosts`, or `u32::MAX`.
    host_index: Vec<u32>,
    /// CSR out-adjacency: node `n`'s hops are `hops[out_start[n]..out_start[n + 1]]`, first
    /// those to switches, then (from `host_start[n]`) those to hosts, each in out-link order.
    /// Only the destination is at distance 0 and it is a host, so the candidates of one hop
    /// all lie in one part, in out-link order.
    out_start: Vec<u32>,
    host_start: Vec<u32>,
    hops: Vec<Hop>,
    /// `dist[h * num_nodes + n]`: hops from node `n` to host `hosts[h]`.
    dist: Vec<u16>,
}

impl Routing {
    /// Computes hop distances from every node to every host.
    ///
    /// Paths of 65,535 hops or more are treated as unreachable.
    pub fn new(topo: &Topology) -> Routing {
        let work = topo.num_hosts() * (topo.num_nodes() + topo.num_links());
        let threads = if work < PARALLEL_WORK {
            1
        } else {
            std::thread::available_parallelism().map_or(1, |p| p.get().min(MAX_THREADS))
        };
        Routing::with_threads(topo, threads)
    }

    /// [`Routing::new`] on `threads` threads (at least one).
    fn with_threads(topo: &Topology, threads: usize) -> Routing {
        let n = topo.num_nodes();
        let hosts = topo.hosts().to_vec();
        let mut host_index = vec![u32::MAX; n];
        for (i, h) in hosts.iter().enumerate() {
            host_index[h.idx()] = i as u32;
        }
        let is_host: Vec<bool> = topo
            .nodes()
            .iter()
            .map(|x| x.kind == NodeKind::Host)
            .collect();

        let mut out_start = Vec::with_capacity(n + 1);
        let mut host_start = Vec::with_capacity(n);
        let mut hops = Vec::with_capacity(topo.num_links());
        out_start.push(0u32);
        for v in 0..n {
            let out = topo.out_links(NodeId(v as u32));
            for to_host in [false, true] {
                if to_host {
                    host_start.push(hops.len() as u32);
                }
                for &l in out {
                    let far = topo.link(l).dst;
                    if is_host[far.idx()] == to_host {
                        hops.push(Hop {
                            link: l.0,
                            far: far.0,
                        });
                    }
                }
            }
            out_start.push(hops.len() as u32);
        }

        // CSR in-adjacency (sources of the links entering each node), for the reverse search.
        let mut in_start = vec![0u32; n + 1];
        for l in topo.links() {
            in_start[l.dst.idx() + 1] += 1;
        }
        for v in 0..n {
            in_start[v + 1] += in_start[v];
        }
        let mut fill = in_start.clone();
        let mut in_src = vec![0u32; topo.num_links()];
        for l in topo.links() {
            let slot = &mut fill[l.dst.idx()];
            in_src[*slot as usize] = l.src.0;
            *slot += 1;
        }

        // One breadth-first search per destination; rows are independent, so large tables are
        // filled by a few threads (the result does not depend on how many).
        let mut dist = vec![UNREACHABLE; hosts.len() * n];
        let search = |first_host: usize, rows: &mut [u16]| {
            let mut queue: Vec<u32> = Vec::with_capacity(n);
            for (i, row) in rows.chunks_exact_mut(n.max(1)).enumerate() {
                let h = hosts[first_host + i];
                queue.clear();
                row[h.idx()] = 0;
                queue.push(h.0);
                let mut head = 0;
                while head < queue.len() {
                    let v = queue[head] as usize;
                    head += 1;
                    let next = row[v] + 1;
                    if next == UNREACHABLE {
                        continue;
                    }
                    for &u in &in_src[in_start[v] as usize..in_start[v + 1] as usize] {
                        if row[u as usize] == UNREACHABLE {
                            row[u as usize] = next;
                            // Hosts are endpoints: never search through one.
                            if !is_host[u as usize] {
                                queue.push(u);
                            }
                        }
                    }
                }
            }
        };
        if threads <= 1 || hosts.is_empty() {
            search(0, &mut dist);
        } else {
            let rows_per = hosts.len().div_ceil(threads);
            std::thread::scope(|scope| {
                for (t, chunk) in dist.chunks_mut(rows_per * n).enumerate() {
                    let search = &search;
                    scope.spawn(move || search(t * rows_per, chunk));
                }
            });
        }

        Routing {
            num_nodes: n,
            hosts,
            host_index,
            out_start,
            host_start,
            hops,
            dist,
        }
    }

    /// Number of nodes of the topology this was built from.
    pub fn num_nodes(&self) -> usize {
        self.num_nodes
    }

    /// The hosts (the possible destinations), in topology order.
    pub fn hosts(&self) -> &[NodeId] {
        &self.hosts
    }

    /// The position of `node` in [`Routing::hosts`], or `None` if it is not a host.
    pub fn host_index(&self, node: NodeId) -> Option<usize> {
        match self.host_index.get(node.idx()) {
            Some(&i) if i != u32::MAX => Some(i as usize),
            _ => None,
        }
    }

    /// The distance table row of destination `dst`, if `dst` is a host.
    #[inline]
    fn row(&self, dst: NodeId) -> Option<&[u16]> {
        let hi = self.host_index(dst)?;
        Some(&self.dist[hi * self.num_nodes..(hi + 1) * self.num_nodes])
    }

    /// Hops from `node` to host `dst`; `None` if unreachable, or if `node` is unknown or `dst`
    /// is not a host.
    pub fn distance(&self, node: NodeId, dst: NodeId) -> Option<u16> {
        let d = *self.row(dst)?.get(node.idx())?;
        (d != UNREACHABLE).then_some(d)
    }

    /// The hops of `node` that can be next hops towards `dst` when `node` is at distance `d`
    /// (`0 < d < UNREACHABLE`), and the distance their far end must have.
    #[inline]
    fn candidates(&self, node: usize, d: u16) -> (&[Hop], u16) {
        let (lo, mid, hi) = (
            self.out_start[node] as usize,
            self.host_start[node] as usize,
            self.out_start[node + 1] as usize,
        );
        let want = d - 1;
        // Distance 0 is the destination (a host); anything farther must be a switch.
        let range = if want == 0 { mid..hi } else { lo..mid };
        (&self.hops[range], want)
    }

    /// The equal-cost next hops from `node` towards host `dst`, in out-link order. Empty if
    /// `node == dst`, `dst` is unreachable, `node` is unknown or `dst` is not a host.
    pub fn next_hops(&self, node: NodeId, dst: NodeId) -> impl Iterator<Item = LinkId> + '_ {
        let (row, hops, want): (&[u16], &[Hop], u16) = match self.row(dst) {
            Some(row) if node.idx() < self.num_nodes => {
                let d = row[node.idx()];
                if d == 0 || d == UNREACHABLE {
                    (row, &[], 0)
                } else {
                    let (hops, want) = self.candidates(node.idx(), d);
                    (row, hops, want)
                }
            }
            _ => (&[], &[], 0),
        };
        hops.iter()
            .filter(move |h| row[h.far as usize] == want)
            .map(|h| LinkId(h.link))
    }

    /// Picks the next hop at `node` (at distance `d` from the destination, `0 < d <
    /// UNREACHABLE`): the first candidate for [`PathSelector::First`] (`base == None`), else
    /// candidate number `hop_hash(base, node) % count`.
    #[inline]
    fn choose(&self, row: &[u16], node: usize, dst: u32, d: u16, base: Option<u64>) -> Hop {
        let (hops, want) = self.candidates(node, d);
        if want == 0 {
            // The last hop: compare ids rather than read the destination's table entry.
            return self.choose_among(hops, |h| h.far == dst, node, base);
        }
        self.choose_among(hops, |h| row[h.far as usize] == want, node, base)
    }

    #[inline]
    fn choose_among(
        &self,
        hops: &[Hop],
        is_next: impl Fn(&Hop) -> bool,
        node: usize,
        base: Option<u64>,
    ) -> Hop {
        let ok = |h: &&Hop| is_next(h);
        let found = match base {
            None => hops.iter().find(ok).copied(),
            Some(base) => {
                // Count the candidates, remembering the first; a second pass only when there
                // is a real choice.
                let mut count = 0u64;
                let mut first = None;
                for h in hops {
                    if is_next(h) {
                        if count == 0 {
                            first = Some(*h);
                        }
                        count += 1;
                    }
                }
                if count <= 1 {
                    first
                } else {
                    let pick = (hop_hash(base, node) % count) as usize;
                    hops.iter().filter(ok).nth(pick).copied()
                }
            }
        };
        // A node at finite distance d > 0 always has a neighbour at distance d - 1: the one
        // the search reached it from.
        found.expect("routing table invariant: a next hop exists")
    }

    /// The next hop of a packet at `node` towards `dst` under `sel`, consistent with
    /// [`Routing::path`] (which makes this choice at every hop). `src` is the packet's source
    /// host, used only by [`PathSelector::HostPairHash`]. `None` at the destination, or if
    /// `dst` is unreachable, not a host, or `node` is unknown.
    pub fn next_hop(
        &self,
        node: NodeId,
        src: NodeId,
        dst: NodeId,
        sel: PathSelector,
    ) -> Option<LinkId> {
        let row = self.row(dst)?;
        let d = *row.get(node.idx())?;
        if d == 0 || d == UNREACHABLE {
            return None;
        }
        let h = self.choose(row, node.idx(), dst.0, d, sel.base(src, dst));
        Some(LinkId(h.link))
    }

    /// Checks the endpoints of a path; returns the row of `dst` and the distance of `src`.
    fn check_endpoints(&self, src: NodeId, dst: NodeId) -> Result<(&[u16], u16)> {
        let at = || format!("path {src} -> {dst}");
        let n = self.num_nodes;
        for (end, node) in [("source", src), ("destination", dst)] {
            if node.idx() >= n {
                return Err(Error::invalid(
                    at(),
                    format!("unknown {end} {node} (the topology has {n} nodes)"),
                ));
            }
        }
        if src == dst {
            return Err(Error::invalid(
                at(),
                "source and destination are the same node (flow to itself)",
            ));
        }
        for (end, node) in [("source", src), ("destination", dst)] {
            if self.host_index(node).is_none() {
                return Err(Error::invalid(
                    at(),
                    format!("{end} {node} is a switch, not a host"),
                ));
            }
        }
        let row = self.row(dst).expect("dst is a host");
        let d = self.host_distance(row, src.idx(), dst.0);
        if d == UNREACHABLE {
            return Err(Error::invalid(
                at(),
                "destination unreachable from the source",
            ));
        }
        Ok((row, d))
    }

    /// `row[host]` for a host other than the destination, computed from the host's
    /// neighbours (`1 +` the least distance of a switch it links to, or 1 if it links to the
    /// destination) — the search sets it exactly so. It reads only switch entries, which a
    /// path walk reads next anyway, instead of the host entry on a cache line of its own.
    #[inline]
    fn host_distance(&self, row: &[u16], host: usize, dst: u32) -> u16 {
        let (lo, mid, hi) = (
            self.out_start[host] as usize,
            self.host_start[host] as usize,
            self.out_start[host + 1] as usize,
        );
        if self.hops[mid..hi].iter().any(|h| h.far == dst) {
            return 1;
        }
        let best = self.hops[lo..mid]
            .iter()
            .map(|h| row[h.far as usize])
            .min()
            .unwrap_or(UNREACHABLE);
        best.saturating_add(1)
    }

    /// Appends the links of the path from host `src` to host `dst` chosen by `sel` to `out`.
    ///
    /// Errors (naming `path node a -> node b`) if either node is unknown or not a host, if
    /// `src == dst`, or if `dst` is unreachable; `out` is unchanged then.
    pub fn path_into(
        &self,
        src: NodeId,
        dst: NodeId,
        sel: PathSelector,
        out: &mut Vec<LinkId>,
    ) -> Result<()> {
        let (row, mut d) = self.check_endpoints(src, dst)?;
        let base = sel.base(src, dst);
        let mut node = src.idx();
        out.reserve(d as usize);
        while d > 0 {
            let h = self.choose(row, node, dst.0, d, base);
            out.push(LinkId(h.link));
            node = h.far as usize;
            d -= 1;
        }
        Ok(())
    }

    /// The links of the path from host `src` to host `dst` chosen by `sel`. See
    /// [`Routing::path_into`] for the errors.
    pub fn path(&self, src: NodeId, dst: NodeId, sel: PathSelector) -> Result<Vec<LinkId>> {
        let mut out = Vec::new();
        self.path_into(src, dst, sel, &mut out)?;
        Ok(out)
    }

    /// The share of a flow's data from host `src` to host `dst` that crosses each link, in
    /// path order (hop by hop, links of one hop in out-link order): under a path selector
    /// `Some(sel)` its one path ([`Routing::path`]), each link 1; under `None` (packets or
    /// flowcells sprayed hop by hop, [`PathSelector::Spray`]) the expected share when every
    /// hop picks uniformly among its equal-cost next hops — what the hash modulo the count
    /// of candidates does on average. The shares of one hop's links sum to 1. Errors as
    /// [`Routing::path_into`].
    pub fn link_shares(
        &self,
        src: NodeId,
        dst: NodeId,
        sel: Option<PathSelector>,
    ) -> Result<Vec<(LinkId, f64)>> {
        if let Some(sel) = sel {
            return Ok(self
                .path(src, dst, sel)?
                .into_iter()
                .map(|l| (l, 1.0))
                .collect());
        }
        let (row, mut d) = self.check_endpoints(src, dst)?;
        let mut out = Vec::new();
        // The probability of being at each node `d` hops from the destination.
        let mut at: Vec<(usize, f64)> = vec![(src.idx(), 1.0)];
        while d > 0 {
            let mut next: Vec<(usize, f64)> = Vec::new();
            for &(node, mass) in &at {
                let (hops, want) = self.candidates(node, d);
                let is_next = |h: &Hop| {
                    if want == 0 {
                        h.far == dst.0
                    } else {
                        row[h.far as usize] == want
                    }
                };
                let count = hops.iter().filter(|h| is_next(h)).count() as f64;
                for h in hops.iter().filter(|h| is_next(h)) {
                    let share = mass / count;
                    match out
                        .iter_mut()
                        .rev()
                        .find(|(l, _): &&mut (LinkId, f64)| l.0 == h.link)
                    {
                        Some((_, s)) => *s += share,
                        None => out.push((LinkId(h.link), share)),
                    }
                    match next.iter_mut().find(|(n, _)| *n == h.far as usize) {
                        Some((_, m)) => *m += share,
                        None => next.push((h.far as usize, share)),
                    }
                }
            }
            at = next;
            d -= 1;
        }
        Ok(out)
    }
}

/// The links of the explicit node sequence `nodes` (first the source, last the destination):
/// for each consecutive pair the first link between them ([`Topology::find_link`]).
///
/// Errors (naming `explicit path[i]`) if there are fewer than two nodes, a node is unknown, two
/// consecutive nodes have no link between them, or an intermediate node is a host (hosts do not
/// forward).
pub fn explicit_path(topo: &Topology, nodes: &[NodeId]) -> Result<Vec<LinkId>> {
    if nodes.len() < 2 {
        return Err(Error::invalid(
            "explicit path",
            format!("needs at least two nodes, got {}", nodes.len()),
        ));
    }
    for (i, &n) in nodes.iter().enumerate() {
        if !topo.contains(n) {
            return Err(Error::invalid(
                format!("explicit path[{i}]"),
                format!("unknown {n} (the topology has {} nodes)", topo.num_nodes()),
            ));
        }
        if i > 0 && i + 1 < nodes.len() && topo.is_host(n) {
            return Err(Error::invalid(
                format!("explicit path[{i}]"),
                format!(
                    "{n} ({:?}) is a host; hosts do not forward",
                    topo.node(n).name
                ),
            ));
        }
    }
    nodes
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            topo.find_link(w[0], w[1]).ok_or_else(|| {
                Error::invalid(
                    format!("explicit path[{}]", i + 1),
                    format!("no link {} -> {}", w[0], w[1]),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::builders::{fat_tree, FatTreeSpec};
    use crate::topo::LinkSpec;
    use crate::units::Rate;
    use std::collections::HashSet;

    fn k4() -> Topology {
        fat_tree(FatTreeSpec {
            k: 4,
            host_link: LinkSpec::default(),
            fabric_link: LinkSpec::default(),
            oversubscription: 1,
        })
        .unwrap()
    }

    /// The nodes a path visits after its source.
    fn visits(t: &Topology, p: &[LinkId]) -> Vec<NodeId> {
        p.iter().map(|&l| t.link(l).dst).collect()
    }

    fn is_connected_path(t: &Topology, src: NodeId, dst: NodeId, p: &[LinkId]) -> bool {
        let mut at = src;
        for &l in p {
            if t.link(l).src != at {
                return false;
            }
            at = t.link(l).dst;
        }
        at == dst
    }

    #[test]
    fn fat_tree_path_lengths() {
        // k = 4: hosts 0..16, two per edge, four per pod.
        let t = k4();
        let r = Routing::new(&t);
        let sel = PathSelector::FlowHash { seed: 1, flow: 7 };
        for s in 0..16u32 {
            for d in 0..16u32 {
                if s == d {
                    continue;
                }
                let p = r.path(NodeId(s), NodeId(d), sel).unwrap();
                let want = if s / 2 == d / 2 {
                    2 // same edge
                } else if s / 4 == d / 4 {
                    4 // same pod, different edge
                } else {
                    6 // different pods
                };
                assert_eq!(p.len(), want, "{s} -> {d}");
                assert!(is_connected_path(&t, NodeId(s), NodeId(d), &p));
                assert_eq!(r.distance(NodeId(s), NodeId(d)), Some(want as u16));
                // No host in the middle.
                assert!(visits(&t, &p)[..p.len() - 1].iter().all(|&n| !t.is_host(n)));
            }
        }
    }

    #[test]
    fn next_hops_lists_all_equal_cost_choices() {
        let t = k4();
        let r = Routing::new(&t);
        // From host 0 to host 15 (other pod): one uplink, then 2 aggs, then 2 cores, then 1.
        let (h0, h15) = (NodeId(0), NodeId(15));
        let up: Vec<LinkId> = r.next_hops(h0, h15).collect();
        assert_eq!(up, vec![LinkId(0)]);
        let edge0 = t.link(LinkId(0)).dst;
        let aggs: Vec<NodeId> = r.next_hops(edge0, h15).map(|l| t.link(l).dst).collect();
        assert_eq!(aggs, vec![NodeId(24), NodeId(25)]);
        let cores: Vec<NodeId> = r
            .next_hops(NodeId(24), h15)
            .map(|l| t.link(l).dst)
            .collect();
        assert_eq!(cores, vec![NodeId(32), NodeId(33)]);
        // Towards a host in the same pod, an agg goes down to one edge only.
        let down: Vec<NodeId> = r
            .next_hops(NodeId(24), NodeId(3))
            .map(|l| t.link(l).dst)
            .collect();
        assert_eq!(down, vec![NodeId(17)]);
        assert_eq!(r.next_hops(h15, h15).count(), 0);
        assert_eq!(
            r.next_hops(h0, NodeId(20)).count(),
            0,
            "a switch is not a destination"
        );
        assert_eq!(r.next_hops(NodeId(999), h15).count(), 0);
    }

    #[test]
    fn flow_hash_spreads_over_cores() {
        let t = k4();
        let r = Routing::new(&t);
        let mut per_core = [0usize; 4];
        let n = 10_000u64;
        let mut path = Vec::new();
        for f in 0..n {
            // Alternate between a few inter-pod pairs.
            let s = NodeId((f % 4) as u32); // pod 0
            let d = NodeId(8 + (f % 8) as u32); // pods 2, 3
            path.clear();
            r.path_into(
                s,
                d,
                PathSelector::FlowHash { seed: 42, flow: f },
                &mut path,
            )
            .unwrap();
            let core = path[2];
            let c = t.link(core).dst.0 - 32;
            per_core[c as usize] += 1;
        }
        for (c, &cnt) in per_core.iter().enumerate() {
            let share = cnt as f64 / n as f64;
            assert!(
                (0.15..=0.35).contains(&share),
                "core {c} got {share}: {per_core:?}"
            );
        }
    }

    #[test]
    fn host_pair_hash_ignores_the_flow_and_seeds_matter() {
        let t = k4();
        let r = Routing::new(&t);
        let (s, d) = (NodeId(1), NodeId(14));
        let hp = r
            .path(s, d, PathSelector::HostPairHash { seed: 9 })
            .unwrap();
        for _ in 0..5 {
            assert_eq!(
                r.path(s, d, PathSelector::HostPairHash { seed: 9 })
                    .unwrap(),
                hp
            );
        }
        // Host-pair hashing spreads different pairs: over all inter-pod pairs, more than one
        // core is used.
        let mut cores = HashSet::new();
        for s in 0..4 {
            for d in 4..16 {
                let p = r
                    .path(NodeId(s), NodeId(d), PathSelector::HostPairHash { seed: 9 })
                    .unwrap();
                assert_eq!(p.len(), 6, "pod 0 to another pod");
                cores.insert(t.link(p[2]).dst);
            }
        }
        assert_eq!(cores.len(), 4);

        // Same seed, same flow -> same path; a different seed changes some paths.
        let mut changed = 0;
        for f in 0..200u64 {
            let a = r
                .path(s, d, PathSelector::FlowHash { seed: 1, flow: f })
                .unwrap();
            let b = r
                .path(s, d, PathSelector::FlowHash { seed: 1, flow: f })
                .unwrap();
            let c = r
                .path(s, d, PathSelector::FlowHash { seed: 2, flow: f })
                .unwrap();
            assert_eq!(a, b);
            changed += usize::from(a != c);
        }
        assert!(
            changed > 50,
            "only {changed} of 200 paths moved with the seed"
        );
    }

    #[test]
    fn spray_is_flow_hash_keyed_on_packet_and_first_is_first() {
        let t = k4();
        let r = Routing::new(&t);
        let (s, d) = (NodeId(0), NodeId(12));
        let mut distinct = HashSet::new();
        for x in 0..64u64 {
            let sp = r
                .path(s, d, PathSelector::Spray { seed: 3, packet: x })
                .unwrap();
            let fh = r
                .path(s, d, PathSelector::FlowHash { seed: 3, flow: x })
                .unwrap();
            assert_eq!(sp, fh);
            distinct.insert(sp);
        }
        assert_eq!(distinct.len(), 4, "2 aggs × 2 cores");
        let first = r.path(s, d, PathSelector::First).unwrap();
        let lowest: Vec<LinkId> = {
            let mut at = s;
            let mut p = Vec::new();
            while at != d {
                let l = r.next_hops(at, d).next().unwrap();
                p.push(l);
                at = t.link(l).dst;
            }
            p
        };
        assert_eq!(first, lowest);
    }

    #[test]
    fn link_shares_spread_a_sprayed_flow_evenly_over_equal_cost_paths() {
        // A k = 4 fat-tree: an inter-pod flow has 2 aggregation switches to choose at its
        // ToR and 2 cores at each, then one way down (each core links to one aggregation
        // switch of the destination pod): its 6 hops cross 14 links with shares 1 (host →
        // ToR), 2 × 1/2 (ToR → agg), 4 × 1/4 (agg → core), 4 × 1/4 (core → agg), 2 × 1/2 (agg
        // → ToR), 1 (ToR → host); each hop's shares sum to 1, all of them to 6. A hashed
        // selector gives the path itself, each link 1.
        let t = k4();
        let r = Routing::new(&t);
        let (src, dst) = (t.hosts()[0], t.hosts()[15]);
        let sprayed = r.link_shares(src, dst, None).unwrap();
        let shares: Vec<f64> = sprayed.iter().map(|&(_, s)| s).collect();
        let q = 0.25;
        assert_eq!(
            shares,
            [1.0, 0.5, 0.5, q, q, q, q, q, q, q, q, 0.5, 0.5, 1.0]
        );
        assert!((shares.iter().sum::<f64>() - 6.0).abs() < 1e-12);
        for &(l, _) in &sprayed {
            assert!(r.next_hops(t.link(l).src, dst).any(|x| x == l));
        }
        let sel = PathSelector::FlowHash { seed: 1, flow: 7 };
        let one = r.link_shares(src, dst, Some(sel)).unwrap();
        assert_eq!(
            one,
            r.path(src, dst, sel)
                .unwrap()
                .into_iter()
                .map(|l| (l, 1.0))
                .collect::<Vec<_>>()
        );
        assert_eq!(
            r.link_shares(src, src, None).unwrap_err().to_string(),
            r.path(src, src, PathSelector::First)
                .unwrap_err()
                .to_string()
        );
    }

    #[test]
    fn next_hop_reproduces_path_hop_by_hop() {
        let t = k4();
        let r = Routing::new(&t);
        for f in 0..50u64 {
            for sel in [
                PathSelector::FlowHash { seed: 5, flow: f },
                PathSelector::HostPairHash { seed: f },
                PathSelector::Spray { seed: 5, packet: f },
                PathSelector::First,
            ] {
                let (s, d) = (NodeId((f % 16) as u32), NodeId(((f * 7 + 3) % 16) as u32));
                if s == d {
                    continue;
                }
                let p = r.path(s, d, sel).unwrap();
                let mut at = s;
                let mut q = Vec::new();
                while let Some(l) = r.next_hop(at, s, d, sel) {
                    q.push(l);
                    at = t.link(l).dst;
                }
                assert_eq!(p, q);
            }
        }
        // The documented hash formula.
        let base = hash_base(5, 9);
        assert_eq!(ecmp_hash(5, 9, NodeId(20)), hop_hash(base, 20));
        assert_ne!(ecmp_hash(5, 9, NodeId(20)), ecmp_hash(5, 9, NodeId(21)));
    }

    #[test]
    fn path_errors() {
        let mut t = k4();
        let lonely = t.add_host("lonely");
        let r = Routing::new(&t);
        let sel = PathSelector::First;
        assert_eq!(
            r.path(NodeId(3), NodeId(3), sel).unwrap_err().to_string(),
            "path node 3 -> node 3: source and destination are the same node (flow to itself)"
        );
        assert_eq!(
            r.path(NodeId(3), NodeId(100), sel).unwrap_err().to_string(),
            "path node 3 -> node 100: unknown destination node 100 (the topology has 37 nodes)"
        );
        assert_eq!(
            r.path(NodeId(16), NodeId(3), sel).unwrap_err().to_string(),
            "path node 16 -> node 3: source node 16 is a switch, not a host"
        );
        assert_eq!(
            r.path(NodeId(3), lonely, sel).unwrap_err().to_string(),
            "path node 3 -> node 36: destination unreachable from the source"
        );
        let mut out = vec![LinkId(99)];
        assert!(r.path_into(lonely, NodeId(0), sel, &mut out).is_err());
        assert_eq!(out, vec![LinkId(99)], "untouched on error");
        r.path_into(NodeId(0), NodeId(1), sel, &mut out).unwrap();
        assert_eq!(out.len(), 3, "appends");
    }

    #[test]
    fn threads_do_not_change_the_table() {
        let t = fat_tree(FatTreeSpec {
            k: 8,
            host_link: LinkSpec::default(),
            fabric_link: LinkSpec::default(),
            oversubscription: 1,
        })
        .unwrap();
        let one = Routing::with_threads(&t, 1);
        for threads in [2, 3, 7] {
            assert_eq!(Routing::with_threads(&t, threads).dist, one.dist);
        }
        assert_eq!(Routing::new(&t).dist, one.dist);
        // Spot check: host 0 to host 127 (another pod) is 6 hops; to host 1 (same edge) 2.
        assert_eq!(one.distance(NodeId(0), NodeId(127)), Some(6));
        assert_eq!(one.distance(NodeId(0), NodeId(1)), Some(2));
    }

    #[test]
    fn hosts_never_forward() {
        // h0 - s0 - h1 - s1 - h2: the only way from h0 to h2 is through host h1, which must not
        // forward; h1 itself reaches both.
        let mut t = Topology::new();
        let h0 = t.add_host("h0");
        let h1 = t.add_host("h1");
        let h2 = t.add_host("h2");
        let s0 = t.add_switch("s0");
        let s1 = t.add_switch("s1");
        let spec = LinkSpec::with_rate(Rate::gbps(10));
        t.add_duplex(h0, s0, spec).unwrap();
        t.add_duplex(s0, h1, spec).unwrap();
        t.add_duplex(h1, s1, spec).unwrap();
        t.add_duplex(s1, h2, spec).unwrap();
        let r = Routing::new(&t);
        assert!(r.path(h0, h2, PathSelector::First).is_err());
        assert_eq!(r.path(h0, h1, PathSelector::First).unwrap().len(), 2);
        assert_eq!(r.path(h1, h2, PathSelector::First).unwrap().len(), 2);
        assert_eq!(r.distance(s0, h2), None);
    }

    #[test]
    fn explicit_paths() {
        let t = k4();
        // h0 -> edge0 -> agg0 -> core1 -> agg2 (pod 1) -> edge2 -> h4.
        let nodes = [0, 16, 24, 33, 26, 18, 4].map(NodeId);
        let p = explicit_path(&t, &nodes).unwrap();
        assert_eq!(p.len(), 6);
        assert!(is_connected_path(&t, NodeId(0), NodeId(4), &p));
        assert_eq!(visits(&t, &p), nodes[1..]);
        assert_eq!(
            explicit_path(&t, &[0, 16, 26].map(NodeId))
                .unwrap_err()
                .to_string(),
            "explicit path[2]: no link node 16 -> node 26"
        );
        assert_eq!(
            explicit_path(&t, &[0, 16, 1, 16].map(NodeId))
                .unwrap_err()
                .to_string(),
            "explicit path[2]: node 1 (\"h1\") is a host; hosts do not forward"
        );
        assert!(explicit_path(&t, &[NodeId(0)]).is_err());
        assert!(explicit_path(&t, &[NodeId(0), NodeId(77)])
            .unwrap_err()
            .to_string()
            .starts_with("explicit path[1]: unknown node 77"));
    }
}
