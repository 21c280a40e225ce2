//! Network topologies: nodes (hosts and switches), directed links, builders, routing and file
//! formats.
//!
//! A [`Topology`] is a directed multigraph. Every [`Link`] is one direction of a cable with its
//! own capacity, propagation delay and egress buffer (the buffer of the queue in front of the
//! link, at its source node). A physical duplex cable is two links, made by
//! [`Topology::add_duplex`]; builders always add the forward direction first, so the reverse of
//! an even link id `2i` built that way is `2i + 1`.
//!
//! Hosts are traffic endpoints only: [`routing`] never forwards through a host.
//!
//! - [`builders`]: fat-tree, leaf–spine, dumbbell, parking lot, star and the small topologies of
//!   the papers' worked examples ([`PaperTopology`]).
//! - [`routing`]: all-pairs shortest-path next hops towards every host, with ECMP flow hashing,
//!   host-pair hashing, per-packet spraying and explicit paths.
//! - [`formats`]: the ns-3 HPCC fork's `topology.txt` and a serde TOML/JSON form.
//! - [`spec`]: [`TopologySpec`], the `[topology]` table of a scenario file.

use crate::error::{Error, Result};
use crate::ids::{LinkId, NodeId};
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub mod builders;
pub mod formats;
pub mod routing;
pub mod spec;

pub use builders::{
    b4, dumbbell, fat_tree, fat_tree_with_core, leaf_spine, may_fig6, parking_lot,
    parking_lot_pairs, soze_fig17, sperc_fig2, star, uranus_fat_tree, FatTreeSpec, LeafSpineSpec,
    PaperTopology,
};
pub use formats::{
    read_hpcc_topology, read_topology_file, write_hpcc_topology, write_topology_file, FileFormat,
    LinkEntry, NodeEntry, TopologyFile,
};
pub use routing::{ecmp_hash, explicit_path, PathSelector, Routing};
pub use spec::TopologySpec;

/// Whether a node is a traffic endpoint or a forwarding element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// An end host: sources and sinks traffic, never forwards it.
    Host,
    /// A switch: forwards traffic, never sources or sinks it.
    Switch,
}

/// A node of a topology.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Host or switch.
    pub kind: NodeKind,
    /// Human-readable name, unique within a topology (`"h12"`, `"edge3"`).
    pub name: String,
}

/// A directed link: one direction of a cable, together with the egress queue at its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    /// The node that transmits onto the link (owner of the egress queue).
    pub src: NodeId,
    /// The node that receives from the link.
    pub dst: NodeId,
    /// Line rate.
    pub capacity: Rate,
    /// Propagation delay.
    pub delay: Time,
    /// Size of the egress buffer in front of the link.
    pub buffer: Bytes,
}

/// The physical parameters of a link, as given to [`Topology::add_link`] and the builders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Line rate; must be positive.
    pub capacity: Rate,
    /// Propagation delay; may be zero.
    pub delay: Time,
    /// Egress buffer size; must be positive.
    pub buffer: Bytes,
}

/// Default link rate, 100 Gb/s (Söze §5, "NS-3 simulator setup": "100 Gbps links").
pub const DEFAULT_RATE: Rate = Rate(100_000_000_000);
/// Default propagation delay, 1 µs (Söze §5, "NS-3 simulator setup": "1 µs link delay").
pub const DEFAULT_DELAY: Time = Time(Time::US);
/// Default egress buffer, 32 MB (Söze §5, "NS-3 simulator setup": "32 MB buffer size").
pub const DEFAULT_BUFFER: Bytes = Bytes(32_000_000);

impl LinkSpec {
    /// A link spec from its three parameters.
    pub const fn new(capacity: Rate, delay: Time, buffer: Bytes) -> LinkSpec {
        LinkSpec {
            capacity,
            delay,
            buffer,
        }
    }

    /// A link of `capacity` with the default delay (1 µs) and buffer (32 MB) of Söze §5.
    pub const fn with_rate(capacity: Rate) -> LinkSpec {
        LinkSpec::new(capacity, DEFAULT_DELAY, DEFAULT_BUFFER)
    }
}

impl Default for LinkSpec {
    /// 100 Gb/s, 1 µs, 32 MB: the links of Söze's ns-3 fat-tree (Söze §5).
    fn default() -> LinkSpec {
        LinkSpec::new(DEFAULT_RATE, DEFAULT_DELAY, DEFAULT_BUFFER)
    }
}

impl Link {
    /// The link's physical parameters.
    pub fn spec(&self) -> LinkSpec {
        LinkSpec::new(self.capacity, self.delay, self.buffer)
    }
}

/// A network: nodes, directed links, per-node out-link adjacency and the list of hosts.
///
/// Ids are dense: node `i` is `nodes()[i]`, link `j` is `links()[j]`, and ids are assigned in
/// insertion order. `out_links(n)` lists the links leaving `n` in insertion order, which is the
/// order [`Routing`] considers equal-cost next hops in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Topology {
    nodes: Vec<Node>,
    links: Vec<Link>,
    out: Vec<Vec<LinkId>>,
    hosts: Vec<NodeId>,
}

/// How an error names a link: `"link 3 (node 1 -> node 2)"`.
pub(crate) fn link_label(id: usize, src: NodeId, dst: NodeId) -> String {
    format!("link {id} ({src} -> {dst})")
}

impl Topology {
    /// An empty topology.
    pub fn new() -> Topology {
        Topology::default()
    }

    /// An empty topology with room for `nodes` nodes and `links` links.
    pub fn with_capacity(nodes: usize, links: usize) -> Topology {
        Topology {
            nodes: Vec::with_capacity(nodes),
            links: Vec::with_capacity(links),
            out: Vec::with_capacity(nodes),
            hosts: Vec::new(),
        }
    }

    fn add_node(&mut self, kind: NodeKind, name: String) -> NodeId {
        let id = NodeId(u32::try_from(self.nodes.len()).expect("more than 2^32 nodes"));
        self.nodes.push(Node { kind, name });
        self.out.push(Vec::new());
        if kind == NodeKind::Host {
            self.hosts.push(id);
        }
        id
    }

    /// Adds a host named `name` and returns its id.
    pub fn add_host(&mut self, name: impl Into<String>) -> NodeId {
        self.add_node(NodeKind::Host, name.into())
    }

    /// Adds a switch named `name` and returns its id.
    pub fn add_switch(&mut self, name: impl Into<String>) -> NodeId {
        self.add_node(NodeKind::Switch, name.into())
    }

    /// Checks one link's fields; `id` is only used to name it in the error.
    fn check_link(&self, id: usize, l: &Link) -> Result<()> {
        let at = || link_label(id, l.src, l.dst);
        let n = self.nodes.len();
        for (end, node) in [("source", l.src), ("destination", l.dst)] {
            if node.idx() >= n {
                return Err(Error::invalid(
                    at(),
                    format!("unknown {end} {node} (the topology has {n} nodes)"),
                ));
            }
        }
        if l.src == l.dst {
            return Err(Error::invalid(
                at(),
                "self loop: source and destination are the same node",
            ));
        }
        if l.capacity.0 == 0 {
            return Err(Error::invalid(
                at(),
                format!("capacity must be positive, got {}", l.capacity),
            ));
        }
        if l.buffer.0 == 0 {
            return Err(Error::invalid(
                at(),
                format!("buffer must be positive, got {}", l.buffer),
            ));
        }
        Ok(())
    }

    /// Adds the directed link `src -> dst`.
    ///
    /// Errors (naming the link it would have become, e.g. `link 3 (node 1 -> node 2)`) if an
    /// endpoint is unknown, `src == dst`, the capacity is zero or the buffer is zero.
    pub fn add_link(&mut self, src: NodeId, dst: NodeId, spec: LinkSpec) -> Result<LinkId> {
        let link = Link {
            src,
            dst,
            capacity: spec.capacity,
            delay: spec.delay,
            buffer: spec.buffer,
        };
        let idx = self.links.len();
        self.check_link(idx, &link)?;
        let id = LinkId(u32::try_from(idx).map_err(|_| {
            Error::invalid(link_label(idx, src, dst), "too many links (limit 2^32)")
        })?);
        self.links.push(link);
        self.out[src.idx()].push(id);
        Ok(id)
    }

    /// Adds `a -> b` and then `b -> a` with the same parameters; returns both ids in that order.
    pub fn add_duplex(&mut self, a: NodeId, b: NodeId, spec: LinkSpec) -> Result<(LinkId, LinkId)> {
        // Check both directions before adding either, so an error leaves the topology unchanged.
        let probe = Link {
            src: a,
            dst: b,
            capacity: spec.capacity,
            delay: spec.delay,
            buffer: spec.buffer,
        };
        self.check_link(self.links.len(), &probe)?;
        let ab = self.add_link(a, b, spec)?;
        let ba = self.add_link(b, a, spec)?;
        Ok((ab, ba))
    }

    /// All nodes, indexed by [`NodeId::idx`].
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// All links, indexed by [`LinkId::idx`].
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// One link. Panics if `id` is not a link of this topology.
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.idx()]
    }

    /// One node. Panics if `id` is not a node of this topology.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.idx()]
    }

    /// The hosts, in the order they were added.
    pub fn hosts(&self) -> &[NodeId] {
        &self.hosts
    }

    /// The links leaving `node`, in the order they were added. Panics if `node` is unknown.
    pub fn out_links(&self, node: NodeId) -> &[LinkId] {
        &self.out[node.idx()]
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// Number of directed links.
    pub fn num_links(&self) -> usize {
        self.links.len()
    }

    /// Number of hosts.
    pub fn num_hosts(&self) -> usize {
        self.hosts.len()
    }

    /// Whether `id` names a node of this topology.
    pub fn contains(&self, id: NodeId) -> bool {
        id.idx() < self.nodes.len()
    }

    /// Whether `id` is a host of this topology (false for unknown ids).
    pub fn is_host(&self, id: NodeId) -> bool {
        self.nodes
            .get(id.idx())
            .is_some_and(|n| n.kind == NodeKind::Host)
    }

    /// The first link `src -> dst` (in insertion order), if any. `None` for unknown nodes.
    pub fn find_link(&self, src: NodeId, dst: NodeId) -> Option<LinkId> {
        self.out
            .get(src.idx())?
            .iter()
            .copied()
            .find(|&l| self.links[l.idx()].dst == dst)
    }

    /// Each link's reverse-direction link, indexed by [`LinkId::idx`]: the link `b -> a` of
    /// `a -> b` (each direction is its own link). Parallel links pair up in insertion order
    /// (the k-th `a -> b` with the k-th `b -> a`, as [`Topology::add_duplex`] adds them);
    /// `None` for a link without a partner.
    pub fn reverse_links(&self) -> Vec<Option<LinkId>> {
        let mut rev = vec![None; self.links.len()];
        for (i, l) in self.links.iter().enumerate() {
            if rev[i].is_some() {
                continue;
            }
            // Rank of link i among the `src -> dst` links, then the same rank among the
            // `dst -> src` ones.
            let same = |s: NodeId, d: NodeId| {
                self.out[s.idx()]
                    .iter()
                    .copied()
                    .filter(move |&k| self.links[k.idx()].dst == d)
            };
            let rank = same(l.src, l.dst)
                .position(|k| k.idx() == i)
                .expect("a link is in its source's out-list");
            if let Some(r) = same(l.dst, l.src).nth(rank) {
                rev[i] = Some(r);
                rev[r.idx()] = Some(LinkId(i as u32));
            }
        }
        rev
    }

    /// The node named `name`, if any (a linear scan).
    pub fn find_node(&self, name: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| n.name == name)
            .map(|i| NodeId(i as u32))
    }

    /// Checks every invariant: each link joins two distinct known nodes and has positive
    /// capacity and buffer; node names are unique and non-empty; the adjacency and host list
    /// agree with the nodes and links.
    ///
    /// Errors name the item, e.g. `link 7 (node 1 -> node 2): capacity must be positive, got
    /// 0bps` or `node 4: duplicate name "h1" (also node 1)`.
    pub fn validate(&self) -> Result<()> {
        let mut names: HashMap<&str, usize> = HashMap::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            if n.name.is_empty() {
                return Err(Error::invalid(
                    format!("node {i}"),
                    "name must not be empty",
                ));
            }
            if let Some(prev) = names.insert(&n.name, i) {
                return Err(Error::invalid(
                    format!("node {i}"),
                    format!("duplicate name {:?} (also node {prev})", n.name),
                ));
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            self.check_link(i, l)?;
        }
        // Internal consistency (cannot fail through the public API; cheap to check).
        let mut out_count = vec![0usize; self.nodes.len()];
        for (n, out) in self.out.iter().enumerate() {
            for &l in out {
                let link = self.links.get(l.idx()).ok_or_else(|| {
                    Error::invalid(format!("node {n}"), format!("out-link {l} does not exist"))
                })?;
                if link.src.idx() != n {
                    return Err(Error::invalid(
                        format!("node {n}"),
                        format!("out-link {l} starts at {}", link.src),
                    ));
                }
                out_count[n] += 1;
            }
        }
        let total: usize = out_count.iter().sum();
        if self.out.len() != self.nodes.len() || total != self.links.len() {
            return Err(Error::invalid(
                "topology",
                "adjacency lists do not match the links",
            ));
        }
        let hosts: Vec<NodeId> = (0..self.nodes.len() as u32)
            .map(NodeId)
            .filter(|&n| self.nodes[n.idx()].kind == NodeKind::Host)
            .collect();
        if hosts != self.hosts {
            return Err(Error::invalid(
                "topology",
                "host list does not match the nodes",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> LinkSpec {
        LinkSpec::new(Rate::gbps(10), Time::from_us(1), Bytes(1000))
    }

    #[test]
    fn reverse_links_pair_each_direction_and_parallel_links_in_order() {
        // h0 <-> s twice (parallel duplex links), s -> h1 one way only.
        let mut t = Topology::new();
        let h0 = t.add_host("h0");
        let s = t.add_switch("s");
        let h1 = t.add_host("h1");
        let (a, b) = t.add_duplex(h0, s, spec()).unwrap();
        let c = t.add_link(s, h1, spec()).unwrap();
        let (d, e) = t.add_duplex(h0, s, spec()).unwrap();
        let rev = t.reverse_links();
        assert_eq!(rev[a.idx()], Some(b));
        assert_eq!(rev[b.idx()], Some(a));
        assert_eq!(
            rev[d.idx()],
            Some(e),
            "the second h0 -> s pairs with the second s -> h0"
        );
        assert_eq!(rev[e.idx()], Some(d));
        assert_eq!(rev[c.idx()], None);
    }

    #[test]
    fn builds_and_queries_a_small_topology() {
        let mut t = Topology::new();
        let h0 = t.add_host("h0");
        let s = t.add_switch("s");
        let h1 = t.add_host("h1");
        let (a, b) = t.add_duplex(h0, s, spec()).unwrap();
        let c = t.add_link(s, h1, spec()).unwrap();
        assert_eq!((a, b, c), (LinkId(0), LinkId(1), LinkId(2)));
        assert_eq!(t.hosts(), &[h0, h1]);
        assert_eq!(t.num_nodes(), 3);
        assert_eq!(t.num_hosts(), 2);
        assert_eq!(t.num_links(), 3);
        assert_eq!(t.out_links(s), &[b, c]);
        assert_eq!(t.out_links(h1), &[] as &[LinkId]);
        assert_eq!(t.find_link(s, h1), Some(c));
        assert_eq!(t.find_link(h1, s), None);
        assert_eq!(t.find_link(NodeId(99), s), None);
        assert_eq!(t.link(b).src, s);
        assert_eq!(t.link(b).dst, h0);
        assert_eq!(t.node(s).kind, NodeKind::Switch);
        assert_eq!(t.find_node("h1"), Some(h1));
        assert!(t.is_host(h0) && !t.is_host(s) && !t.is_host(NodeId(7)));
        t.validate().unwrap();
    }

    #[test]
    fn add_link_rejects_bad_links_and_names_them() {
        let mut t = Topology::new();
        let a = t.add_host("a");
        let b = t.add_switch("b");
        t.add_duplex(a, b, spec()).unwrap();

        let err = t.add_link(a, a, spec()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "link 2 (node 0 -> node 0): self loop: source and destination are the same node"
        );
        let err = t.add_link(a, NodeId(9), spec()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "link 2 (node 0 -> node 9): unknown destination node 9 (the topology has 2 nodes)"
        );
        let zero_cap = LinkSpec {
            capacity: Rate(0),
            ..spec()
        };
        let err = t.add_link(a, b, zero_cap).unwrap_err();
        assert_eq!(
            err,
            Error::invalid(
                "link 2 (node 0 -> node 1)",
                "capacity must be positive, got 0bps"
            )
        );
        let zero_buf = LinkSpec {
            buffer: Bytes(0),
            ..spec()
        };
        let err = t.add_duplex(b, a, zero_buf).unwrap_err();
        assert_eq!(
            err.to_string(),
            "link 2 (node 1 -> node 0): buffer must be positive, got 0B"
        );
        // Failed additions leave the topology unchanged.
        assert_eq!(t.num_links(), 2);
        assert_eq!(t.out_links(a).len(), 1);
        t.validate().unwrap();
    }

    #[test]
    fn validate_reports_corrupted_links_and_names() {
        let mut t = Topology::new();
        let a = t.add_host("a");
        let b = t.add_switch("b");
        t.add_duplex(a, b, spec()).unwrap();

        let mut bad = t.clone();
        bad.links[1].capacity = Rate(0);
        assert_eq!(
            bad.validate().unwrap_err(),
            Error::invalid(
                "link 1 (node 1 -> node 0)",
                "capacity must be positive, got 0bps"
            )
        );

        let mut bad = t.clone();
        bad.links[0].dst = NodeId(5);
        assert_eq!(
            bad.validate().unwrap_err().to_string(),
            "link 0 (node 0 -> node 5): unknown destination node 5 (the topology has 2 nodes)"
        );

        let mut bad = t.clone();
        bad.links[0].dst = a;
        assert!(bad
            .validate()
            .unwrap_err()
            .to_string()
            .contains("self loop"));

        let mut bad = t.clone();
        bad.links[0].buffer = Bytes(0);
        assert!(bad
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("link 0 (node 0 -> node 1): buffer must be positive"));

        let mut bad = t.clone();
        bad.add_host("a");
        assert_eq!(
            bad.validate().unwrap_err().to_string(),
            "node 2: duplicate name \"a\" (also node 0)"
        );
    }

    #[test]
    fn link_spec_defaults_follow_soze() {
        let d = LinkSpec::default();
        assert_eq!(d.capacity, "100Gbps".parse().unwrap());
        assert_eq!(d.delay, "1us".parse().unwrap());
        assert_eq!(d.buffer, "32MB".parse().unwrap());
        assert_eq!(LinkSpec::with_rate(Rate::gbps(25)).capacity, Rate::gbps(25));
    }
}
