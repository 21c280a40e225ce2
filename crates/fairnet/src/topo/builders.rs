//! Topology builders: the standard datacenter shapes and the small networks of the papers'
//! worked examples.
//!
//! Conventions shared by every builder:
//! - **Hosts first.** Hosts get node ids `0..n_hosts` and are named `"h{i}"` (except in the
//!   paper topologies, whose names follow the paper); switches follow.
//! - **Duplex cables**, added with [`Topology::add_duplex`], forward direction first: the
//!   direction data normally flows in (host → switch, lower tier → upper tier, sender side →
//!   receiver side) gets the even link id `2i`, its reverse `2i + 1`.
//! - **Parameters are checked before anything is built**; errors name the parameter, e.g.
//!   `fat_tree.k: must be an even number >= 4, got 5`.

use super::{LinkSpec, Topology};
use crate::error::{Error, Result};
use crate::ids::NodeId;
use crate::units::{Bytes, Rate, Time};

/// The largest topology a builder will make (nodes); a guard against typos such as `k = 4000`.
pub const MAX_NODES: u64 = 1 << 24;
/// The largest number of directed links a builder will make.
pub const MAX_LINKS: u64 = 1 << 28;

fn check_link_spec(at: &str, spec: &LinkSpec) -> Result<()> {
    if spec.capacity.0 == 0 {
        return Err(Error::invalid(
            format!("{at}.capacity"),
            format!("must be positive, got {}", spec.capacity),
        ));
    }
    if spec.buffer.0 == 0 {
        return Err(Error::invalid(
            format!("{at}.buffer"),
            format!("must be positive, got {}", spec.buffer),
        ));
    }
    Ok(())
}

fn check_positive(at: &str, v: u32) -> Result<()> {
    if v == 0 {
        return Err(Error::invalid(at, "must be at least 1, got 0"));
    }
    Ok(())
}

/// Checks the size of a topology about to be built; `at` names the parameters that set it.
fn check_size(at: &str, nodes: Option<u64>, links: Option<u64>) -> Result<(usize, usize)> {
    match (nodes, links) {
        (Some(n), Some(l)) if n <= MAX_NODES && l <= MAX_LINKS => Ok((n as usize, l as usize)),
        _ => Err(Error::invalid(
            at,
            format!(
                "topology too large ({} nodes, {} links; the limit is {MAX_NODES} nodes and {MAX_LINKS} links)",
                nodes.map_or("too many".to_string(), |n| n.to_string()),
                links.map_or("too many".to_string(), |l| l.to_string()),
            ),
        )),
    }
}

fn add_hosts(t: &mut Topology, n: usize) {
    for i in 0..n {
        t.add_host(format!("h{i}"));
    }
}

fn add_switches(t: &mut Topology, prefix: &str, n: usize) -> NodeId {
    let first = NodeId(t.num_nodes() as u32);
    for i in 0..n {
        t.add_switch(format!("{prefix}{i}"));
    }
    first
}

fn nid(first: NodeId, i: usize) -> NodeId {
    NodeId(first.0 + i as u32)
}

/// Parameters of a k-ary fat-tree ([`fat_tree`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FatTreeSpec {
    /// Switch radix: even, at least 4.
    pub k: u32,
    /// Host ↔ edge (ToR) links.
    pub host_link: LinkSpec,
    /// Edge ↔ aggregation and aggregation ↔ core links.
    pub fabric_link: LinkSpec,
    /// ToR oversubscription ratio `r >= 1`: each edge switch has `r·k/2` hosts and `k/2`
    /// uplinks. `1` is the standard non-blocking fat-tree.
    pub oversubscription: u32,
}

/// A standard k-ary fat-tree (Al-Fares et al., SIGCOMM 2008), as used by Söze §5 (`k = 16`:
/// 1024 hosts, 320 switches) and s-PERC §8.2.
///
/// Shape: `k` pods, each with `k/2` edge and `k/2` aggregation switches; `(k/2)²` core
/// switches; `r·k/2` hosts per edge switch (`r` = oversubscription), so `r·k³/4` hosts. Every
/// edge switch connects to every aggregation switch of its pod; aggregation switch `j` of each
/// pod (`0 <= j < k/2`) connects to cores `j·k/2 .. (j+1)·k/2`.
///
/// Node ids, in order (global indices within each tier):
/// - hosts `h0 ..`: host `i` hangs off edge switch `i / (r·k/2)`;
/// - edge switches `edge0 ..`: edge `e` is in pod `e / (k/2)`;
/// - aggregation switches `agg0 ..`: agg `a` is in pod `a / (k/2)`;
/// - core switches `core0 ..`.
///
/// Links, in order, each a duplex pair with the upward direction first: every host's link to
/// its edge switch (host `i` → edge is link `2i`); then edge ↔ agg (by pod, edge, agg); then
/// agg ↔ core (by agg, core).
pub fn fat_tree(spec: FatTreeSpec) -> Result<Topology> {
    fat_tree_with_core(spec, spec.fabric_link)
}

/// [`fat_tree`] with the aggregation ↔ core links given apart (`core_link`; `fabric_link`
/// then sets edge ↔ aggregation only): e.g. Uranus §5.2's 10 Gb/s core over 1 Gb/s
/// ([`uranus_fat_tree`]). The same nodes and links, in the same order, as [`fat_tree`].
pub fn fat_tree_with_core(spec: FatTreeSpec, core_link: LinkSpec) -> Result<Topology> {
    let FatTreeSpec {
        k,
        host_link,
        fabric_link,
        oversubscription: r,
    } = spec;
    if k < 4 || k % 2 != 0 {
        return Err(Error::invalid(
            "fat_tree.k",
            format!("must be an even number >= 4, got {k}"),
        ));
    }
    check_positive("fat_tree.oversubscription", r)?;
    check_link_spec("fat_tree.host_link", &host_link)?;
    check_link_spec("fat_tree.fabric_link", &fabric_link)?;
    check_link_spec("fat_tree.core_link", &core_link)?;

    let (k64, r64) = (k as u64, r as u64);
    let half = k64 / 2;
    let n_edge = k64 * half;
    let n_core = half * half;
    let per_edge = r64.checked_mul(half);
    let n_hosts = per_edge.and_then(|p| p.checked_mul(n_edge));
    let nodes = n_hosts.and_then(|h| h.checked_add(2 * n_edge + n_core));
    // host links + edge-agg (k pods × half × half) + agg-core (n_edge agg × half), both ways.
    let links = n_hosts.map(|h| 2 * (h + n_edge * half + n_edge * half));
    let (n_nodes, n_links) = check_size("fat_tree.k, fat_tree.oversubscription", nodes, links)?;

    let (half, n_edge, n_core) = (half as usize, n_edge as usize, n_core as usize);
    let per_edge = per_edge.unwrap_or(0) as usize;
    let n_hosts = per_edge * n_edge;
    let mut t = Topology::with_capacity(n_nodes, n_links);
    add_hosts(&mut t, n_hosts);
    let edge0 = add_switches(&mut t, "edge", n_edge);
    let agg0 = add_switches(&mut t, "agg", n_edge);
    let core0 = add_switches(&mut t, "core", n_core);

    for h in 0..n_hosts {
        t.add_duplex(NodeId(h as u32), nid(edge0, h / per_edge), host_link)?;
    }
    for pod in 0..k as usize {
        for e in 0..half {
            for a in 0..half {
                t.add_duplex(
                    nid(edge0, pod * half + e),
                    nid(agg0, pod * half + a),
                    fabric_link,
                )?;
            }
        }
    }
    for agg in 0..n_edge {
        let j = agg % half;
        for c in 0..half {
            t.add_duplex(nid(agg0, agg), nid(core0, j * half + c), core_link)?;
        }
    }
    debug_assert_eq!((t.num_nodes(), t.num_links()), (n_nodes, n_links));
    Ok(t)
}

/// Parameters of a two-tier leaf–spine network ([`leaf_spine`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeafSpineSpec {
    /// Hosts under each leaf (ToR) switch, at least 1.
    pub hosts_per_leaf: u32,
    /// Number of leaf switches, at least 1.
    pub leaves: u32,
    /// Number of spine switches, at least 1.
    pub spines: u32,
    /// Host ↔ leaf links.
    pub host_link: LinkSpec,
    /// Leaf ↔ spine links.
    pub fabric_link: LinkSpec,
}

/// A two-tier leaf–spine network: every leaf connects to every spine (full bipartite).
///
/// Node ids: hosts `h0 ..` (host `i` under leaf `i / hosts_per_leaf`), then `leaf0 ..`, then
/// `spine0 ..`. Links: each host's duplex link to its leaf (host → leaf first, link `2i`), then
/// leaf ↔ spine for each leaf and each spine (leaf → spine first).
pub fn leaf_spine(spec: LeafSpineSpec) -> Result<Topology> {
    let LeafSpineSpec {
        hosts_per_leaf,
        leaves,
        spines,
        host_link,
        fabric_link,
    } = spec;
    check_positive("leaf_spine.hosts_per_leaf", hosts_per_leaf)?;
    check_positive("leaf_spine.leaves", leaves)?;
    check_positive("leaf_spine.spines", spines)?;
    check_link_spec("leaf_spine.host_link", &host_link)?;
    check_link_spec("leaf_spine.fabric_link", &fabric_link)?;
    let (hpl, nl, ns) = (hosts_per_leaf as u64, leaves as u64, spines as u64);
    let n_hosts = hpl * nl;
    let nodes = Some(n_hosts + nl + ns);
    let links = Some(2 * (n_hosts + nl * ns));
    let (n_nodes, n_links) = check_size("leaf_spine", nodes, links)?;

    let (hpl, nl, ns, n_hosts) = (hpl as usize, nl as usize, ns as usize, n_hosts as usize);
    let mut t = Topology::with_capacity(n_nodes, n_links);
    add_hosts(&mut t, n_hosts);
    let leaf0 = add_switches(&mut t, "leaf", nl);
    let spine0 = add_switches(&mut t, "spine", ns);
    for h in 0..n_hosts {
        t.add_duplex(NodeId(h as u32), nid(leaf0, h / hpl), host_link)?;
    }
    for l in 0..nl {
        for s in 0..ns {
            t.add_duplex(nid(leaf0, l), nid(spine0, s), fabric_link)?;
        }
    }
    Ok(t)
}

/// A dumbbell: `n_pairs` senders → switch `swA` → (bottleneck) → switch `swB` → `n_pairs`
/// receivers.
///
/// Node ids: senders `h0 .. h{n-1}` (ids `0..n`), receivers `h{n} .. h{2n-1}` (ids `n..2n`;
/// sender `i` naturally pairs with receiver `n + i`), then `swA` (id `2n`) and `swB` (id
/// `2n + 1`).
///
/// Links: **link 0 is the bottleneck** `swA → swB` (link 1 its reverse); then sender `i` →
/// `swA` is link `2 + 2i`; then `swB` → receiver `n + i` is link `2 + 2n + 2i` (reverses odd).
pub fn dumbbell(n_pairs: u32, access: LinkSpec, bottleneck: LinkSpec) -> Result<Topology> {
    check_positive("dumbbell.n_pairs", n_pairs)?;
    check_link_spec("dumbbell.access", &access)?;
    check_link_spec("dumbbell.bottleneck", &bottleneck)?;
    let n = n_pairs as u64;
    let (n_nodes, n_links) = check_size("dumbbell.n_pairs", Some(2 * n + 2), Some(4 * n + 2))?;
    let n = n as usize;
    let mut t = Topology::with_capacity(n_nodes, n_links);
    add_hosts(&mut t, 2 * n);
    let a = t.add_switch("swA");
    let b = t.add_switch("swB");
    t.add_duplex(a, b, bottleneck)?;
    for i in 0..n {
        t.add_duplex(NodeId(i as u32), a, access)?;
    }
    for i in 0..n {
        t.add_duplex(b, NodeId((n + i) as u32), access)?;
    }
    Ok(t)
}

/// The host pairs of a [`parking_lot`]: the long flow first, then the cross pairs hop by hop.
pub fn parking_lot_pairs(n_hops: u32, per_hop_hosts: u32) -> Vec<(NodeId, NodeId)> {
    let cross = n_hops as usize * per_hop_hosts as usize;
    (0..=cross)
        .map(|p| (NodeId(2 * p as u32), NodeId(2 * p as u32 + 1)))
        .collect()
}

/// The classic parking lot: a chain of `n_hops + 1` switches `sw0 .. sw{n_hops}` joined by
/// `n_hops` trunk links (the hops), one long flow crossing every hop and `per_hop_hosts` cross
/// pairs per hop, each crossing exactly one hop.
///
/// Host layout (ids, all named `h{id}`):
/// - `h0` (long-flow source) hangs off `sw0`; `h1` (long-flow destination) off `sw{n_hops}`;
/// - for hop `j` in `0..n_hops` and `m` in `0..per_hop_hosts`, with `p = 1 + j·per_hop_hosts +
///   m`: host `2p` (source) hangs off `sw{j}` and host `2p + 1` (destination) off `sw{j+1}`.
///
/// So pair `p` is always `(2p, 2p + 1)`, pair 0 being the long flow ([`parking_lot_pairs`]).
/// Switch `sw{j}` has id `n_hosts + j`.
///
/// Links: **hop `j` is link `2j`** (`sw{j} → sw{j+1}`, reverse `2j + 1`); then each host's
/// duplex access link in host order, in the direction of data first: host `h`'s access link is
/// `2·n_hops + 2h` (source → switch, or switch → destination). All links use `link`.
pub fn parking_lot(n_hops: u32, per_hop_hosts: u32, link: LinkSpec) -> Result<Topology> {
    check_positive("parking_lot.n_hops", n_hops)?;
    check_link_spec("parking_lot.link", &link)?;
    let (hops, per) = (n_hops as u64, per_hop_hosts as u64);
    let n_hosts = (hops * per + 1) * 2;
    let (n_nodes, n_links) = check_size(
        "parking_lot.n_hops, parking_lot.per_hop_hosts",
        Some(n_hosts + hops + 1),
        Some(2 * (hops + n_hosts)),
    )?;
    let (hops, per, n_hosts) = (hops as usize, per as usize, n_hosts as usize);
    let mut t = Topology::with_capacity(n_nodes, n_links);
    add_hosts(&mut t, n_hosts);
    let sw0 = add_switches(&mut t, "sw", hops + 1);
    for j in 0..hops {
        t.add_duplex(nid(sw0, j), nid(sw0, j + 1), link)?;
    }
    // Pair p = 0 is the long flow (sw0 -> sw{hops}); pair p >= 1 crosses hop (p-1) / per.
    for p in 0..n_hosts / 2 {
        let (from, to) = if p == 0 {
            (0, hops)
        } else {
            let j = (p - 1) / per;
            (j, j + 1)
        };
        t.add_duplex(NodeId(2 * p as u32), nid(sw0, from), link)?;
        t.add_duplex(nid(sw0, to), NodeId(2 * p as u32 + 1), link)?;
    }
    Ok(t)
}

/// A star: `n_hosts` hosts `h0 ..` on one switch `sw0` (id `n_hosts`). Host `i` → switch is
/// link `2i`, switch → host `i` is link `2i + 1`.
pub fn star(n_hosts: u32, link: LinkSpec) -> Result<Topology> {
    check_positive("star.n_hosts", n_hosts)?;
    check_link_spec("star.link", &link)?;
    let n = n_hosts as u64;
    let (n_nodes, n_links) = check_size("star.n_hosts", Some(n + 1), Some(2 * n))?;
    let mut t = Topology::with_capacity(n_nodes, n_links);
    add_hosts(&mut t, n as usize);
    let sw = t.add_switch("sw0");
    for h in 0..n as u32 {
        t.add_duplex(NodeId(h), sw, link)?;
    }
    Ok(t)
}

/// The sites of [`b4`]: name, latitude and longitude in degrees (Google's data-center
/// locations of 2013, when the B4 paper was published).
pub const B4_SITES: [(&str, f64, f64); 12] = [
    ("the_dalles", 45.60, -121.18),
    ("council_bluffs", 41.26, -95.86),
    ("mayes_county", 36.24, -95.33),
    ("lenoir", 35.91, -81.54),
    ("berkeley_county", 33.06, -80.04),
    ("douglas_county", 33.75, -84.75),
    ("dublin", 53.35, -6.26),
    ("st_ghislain", 50.45, 3.82),
    ("hamina", 60.57, 27.20),
    ("changhua", 24.08, 120.54),
    ("hong_kong", 22.32, 114.17),
    ("singapore", 1.35, 103.82),
];

/// The inter-site cables of [`b4`], as indices into [`B4_SITES`]: a mesh inside North
/// America (8), Europe (3) and Asia (3), two transatlantic, two transpacific and one
/// Europe–Asia cable (19 in all, B4's site and link counts).
pub const B4_CABLES: [(usize, usize); 19] = [
    (0, 1),
    (0, 2),
    (1, 2),
    (1, 3),
    (2, 5),
    (3, 4),
    (4, 5),
    (3, 5),
    (3, 6),
    (4, 7),
    (6, 7),
    (7, 8),
    (6, 8),
    (0, 9),
    (0, 10),
    (9, 10),
    (10, 11),
    (9, 11),
    (7, 11),
];

/// Propagation speed in fibre used for [`b4`]'s delays (two thirds of c).
pub const FIBRE_SPEED_M_PER_S: f64 = 2.0e8;

/// Great-circle distance in metres between two points given in degrees (haversine, Earth
/// radius 6,371 km).
fn great_circle_m(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dp = p2 - p1;
    let dl = (lon2 - lon1).to_radians();
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * 6_371_000.0 * a.sqrt().asin()
}

/// A B4-like inter-datacenter WAN (s-PERC §8.2.1 uses "Google's B4 inter-data-center network
/// topology \[30\]"): 12 sites ([`B4_SITES`]) joined by 19 cables ([`B4_CABLES`]), each
/// site a switch with `hosts_per_site` hosts.
///
/// The B4 paper (Jain et al., SIGCOMM 2013, Fig. 1) draws 12 sites on three continents but
/// gives neither coordinates nor the cable list, and the s-PERC paper gives neither either;
/// this is our construction, not a copy of B4: the sites are Google's data-center locations
/// of 2013, the cables a plausible mesh, each cable's delay the great-circle distance between
/// its sites at [`FIBRE_SPEED_M_PER_S`] (1.7–53 ms one way). Routing is by hop count (as
/// everywhere in fairnet), and among equal-hop paths some cross an extra ocean: over all site
/// pairs on the first-choice paths the mean round-trip propagation is 89.5 ms, from 3.5 ms to
/// 256 ms (Hamina → The Dalles through Asia); on delay-shortest paths it would be 83 ms, at
/// most 170 ms. The s-PERC paper's WAN flows see "on average 70ms", RTTs that "vary by two
/// orders of magnitude" and a largest one "over 100ms".
///
/// Node ids: hosts first (host `j` of site `s` is `s · hosts_per_site + j`, named
/// `"{site}-h{j}"`), then the 12 site switches in [`B4_SITES`] order. Links: each host's duplex
/// link to its site (`access`, host → site first: link `2i` for host `i`), then the cables in
/// [`B4_CABLES`] order with `wan`'s rate and buffer and the computed delay (the cable's
/// direction as listed first).
pub fn b4(hosts_per_site: u32, access: LinkSpec, wan: LinkSpec) -> Result<Topology> {
    check_positive("b4.hosts_per_site", hosts_per_site)?;
    check_link_spec("b4.access", &access)?;
    check_link_spec("b4.wan", &wan)?;
    let n_sites = B4_SITES.len() as u64;
    let n_hosts = n_sites * hosts_per_site as u64;
    let nodes = Some(n_hosts + n_sites);
    let links = Some(2 * (n_hosts + B4_CABLES.len() as u64));
    let (n_nodes, n_links) = check_size("b4.hosts_per_site", nodes, links)?;
    let mut t = Topology::with_capacity(n_nodes, n_links);
    for (site, _, _) in B4_SITES {
        for j in 0..hosts_per_site {
            t.add_host(format!("{site}-h{j}"));
        }
    }
    let site0 = NodeId(t.num_nodes() as u32);
    for (site, _, _) in B4_SITES {
        t.add_switch(site);
    }
    for h in 0..n_hosts as usize {
        t.add_duplex(
            NodeId(h as u32),
            nid(site0, h / hosts_per_site as usize),
            access,
        )?;
    }
    for (a, b) in B4_CABLES {
        let (_, la, oa) = B4_SITES[a];
        let (_, lb, ob) = B4_SITES[b];
        let delay = Time::from_secs_f64(great_circle_m(la, oa, lb, ob) / FIBRE_SPEED_M_PER_S);
        t.add_duplex(
            nid(site0, a),
            nid(site0, b),
            LinkSpec::new(wan.capacity, delay, wan.buffer),
        )?;
    }
    Ok(t)
}

/// A topology from a paper's worked example, with the flows of that example.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaperTopology {
    /// The network.
    pub topology: Topology,
    /// The example's flows as `(source host, destination host)`, in the paper's numbering
    /// (paper flow 1 is `flows[0]`). Routing each pair on its shortest path (which is unique
    /// in every paper topology) gives exactly the paper's link sharing.
    pub flows: Vec<(NodeId, NodeId)>,
}

/// Söze §5.3.1 "Weighted Max-min Fairness", Fig. 17(a): six flows over two switches.
///
/// Flow 1 crosses only switch 1's congested egress; flows 2, 3, 4 cross switch 1's and switch
/// 2's; flows 5 and 6 cross only switch 2's. All links use `link` (the paper: 100 Gb/s).
///
/// Nodes: `src1 .. src6` (ids 0–5, the sources of flows 1–6), `dst1` (id 6, flow 1's
/// destination), `dst2` (id 7, the common destination of flows 2–6), `switch1` (id 8),
/// `switch2` (id 9). `src1..src4` hang off `switch1`; `src5`, `src6`, `dst1`, `dst2` off
/// `switch2`.
///
/// Links (duplex, listed direction first):
/// - link 0: `switch1 → switch2` — **bottleneck 1** (switch 1's egress), flows 1–4;
/// - link 2: `switch2 → dst2` — **bottleneck 2** (switch 2's egress), flows 2–6;
/// - links 4, 6, 8, 10: `src1..src4 → switch1`; links 12, 14: `src5`, `src6 → switch2`;
/// - link 16: `switch2 → dst1`, used by flow 1 alone (flow 1 passes through switch 2 on this
///   uncongested port, so it never meets flows 5 and 6).
///
/// With equal weights and capacity `C`, bottleneck 2 gives flows 2–6 `C/5` each and flow 1
/// gets the rest of bottleneck 1, `2C/5` (the paper's 40 Gb/s at `C` = 100 Gb/s). Raising flow
/// 1's weight `w` above 2 moves flows 2–4's bottleneck to switch 1 (rate `C/(w+3)` each).
///
/// Paper ambiguities, and the reading taken: the §5.3.1 text says "flow 4 and 5 only travel
/// switch 2" where the Fig. 17 caption says flows 5 and 6 (six flows; the caption is followed);
/// the text puts the bottleneck change at "weight higher than 3", the caption at "higher than
/// 2" — the max-min arithmetic above agrees with the caption. The figure's drawing is not in
/// the text, so the host placement is ours; only the link sharing is the paper's.
pub fn soze_fig17(link: LinkSpec) -> Result<PaperTopology> {
    check_link_spec("soze_fig17.link", &link)?;
    let mut t = Topology::with_capacity(10, 18);
    let src: Vec<NodeId> = (1..=6).map(|i| t.add_host(format!("src{i}"))).collect();
    let dst1 = t.add_host("dst1");
    let dst2 = t.add_host("dst2");
    let sw1 = t.add_switch("switch1");
    let sw2 = t.add_switch("switch2");
    t.add_duplex(sw1, sw2, link)?;
    t.add_duplex(sw2, dst2, link)?;
    for &s in &src[..4] {
        t.add_duplex(s, sw1, link)?;
    }
    for &s in &src[4..] {
        t.add_duplex(s, sw2, link)?;
    }
    t.add_duplex(sw2, dst1, link)?;
    let flows = std::iter::once((src[0], dst1))
        .chain(src[1..].iter().map(|&s| (s, dst2)))
        .collect();
    Ok(PaperTopology { topology: t, flows })
}

/// Uranus §5.2's network: "a 4-ary Fat-Tree … with 4 core switches, 8 aggregator switches,
/// 8 ToR switches, each ToR switch connected to 8 nodes. The capacity of edge links from server
/// to ToR switch, from ToR switch to Agg switch is 1 Gbps, and core links is 10 Gbps. … The
/// maximum end-to-end RTT is 300 usec." A k = 4 fat-tree with oversubscription 4 (8 hosts per
/// ToR over 2 uplinks), 64 hosts; host and edge–aggregation links 1 Gb/s, aggregation–core
/// links 10 Gb/s ([`fat_tree_with_core`]).
///
/// Choices the paper leaves open: every link's propagation delay is 25 µs, so the longest path
/// (6 links each way, across pods) has a 300 µs round trip of propagation; buffers are 1 MB
/// per port (not given; the ECN threshold of 65 packets is the queue's, set by the scenario).
pub fn uranus_fat_tree() -> Result<Topology> {
    let link = |gbps| LinkSpec::new(Rate::gbps(gbps), Time::from_us(25), Bytes(1_000_000));
    fat_tree_with_core(
        FatTreeSpec {
            k: 4,
            host_link: link(1),
            fabric_link: link(1),
            oversubscription: 4,
        },
        link(10),
    )
}

/// Link rate of MAY's multiple-bottleneck experiment: "The capacities of all links are
/// 10Mbps" (MAY §4.B).
pub const MAY_FIG6_RATE: Rate = Rate(10_000_000);
/// Buffer of every link in MAY's multiple-bottleneck experiment: "a queue size of 100 packets"
/// (MAY §4.B) of 1000 B ("a packet size 1000B", MAY §4).
pub const MAY_FIG6_BUFFER: Bytes = Bytes(100_000);

/// MAY (Stanojević & Shorten, "Drop counters are enough") §4.B "Fairness – Multiple bottleneck
/// topology", Fig. 6: 24 nodes, 30 flows, three bottlenecks in a chain.
///
/// The figure itself is not in the text; the shape is read from it: the access delays
/// (`n_i → c1`, `m_i → c2`, `p_i → c3`, `q_i → c4`) say where each host attaches, and the
/// router-to-router delays (`c1 - c2`, `c2 - c3`, `c3 - c4`) give the chain.
///
/// Nodes: hosts `n1..n5` (ids 0–4), `m1..m5` (5–9), `p1..p5` (10–14), `q1..q5` (15–19), then
/// routers `c1..c4` (ids 20–23). `n_i` hangs off `c1`, `m_i` off `c2`, `p_i` off `c3`, `q_i`
/// off `c4`; the routers form the chain `c1 – c2 – c3 – c4`.
///
/// Links (duplex, both directions equal): all 10 Mb/s with a 100-packet (100 KB) buffer.
/// Delays: `c1–c2`, `c2–c3`, `c3–c4` 10 ms; `n_i–c1`, `m_i–c2`, `p_i–c3`, `q_i–c4`
/// `40·i + 1` ms. Link 0 is `c1 → c2`, link 2 `c2 → c3`, link 4 `c3 → c4`; then the access
/// links in host order, host → router first (host `h`'s uplink is link `6 + 2h`).
///
/// Flows, in this order (the paper lists them per pattern, for `i = 1..5`): `n_i → p_i`
/// (flows 0–4), `n_i → q_i` (5–9), `m_i → p_i` (10–14), `m_i → q_i` (15–19), `n_i → m_i`
/// (20–24), `p_i → q_i` (25–29).
///
/// Bottlenecks: **link 2 (`c2 → c3`)** carries flows 0–19 (max-min share 0.5 Mb/s each);
/// **link 0 (`c1 → c2`)** bottlenecks `n_i → m_i` and **link 4 (`c3 → c4`)** bottlenecks
/// `p_i → q_i` (1 Mb/s each) — the paper's stated fair shares.
pub fn may_fig6() -> Result<PaperTopology> {
    let ms = Time::from_ms;
    let spec = |delay| LinkSpec::new(MAY_FIG6_RATE, delay, MAY_FIG6_BUFFER);
    let mut t = Topology::with_capacity(24, 46);
    let group = |t: &mut Topology, prefix: &str| -> Vec<NodeId> {
        (1..=5)
            .map(|i| t.add_host(format!("{prefix}{i}")))
            .collect()
    };
    let n = group(&mut t, "n");
    let m = group(&mut t, "m");
    let p = group(&mut t, "p");
    let q = group(&mut t, "q");
    let c: Vec<NodeId> = (1..=4).map(|i| t.add_switch(format!("c{i}"))).collect();
    for w in c.windows(2) {
        t.add_duplex(w[0], w[1], spec(ms(10)))?;
    }
    for (hosts, router) in [(&n, c[0]), (&m, c[1]), (&p, c[2]), (&q, c[3])] {
        for (i, &h) in hosts.iter().enumerate() {
            t.add_duplex(h, router, spec(ms(40 * (i as u64 + 1) + 1)))?;
        }
    }
    let mut flows = Vec::with_capacity(30);
    for (a, b) in [(&n, &p), (&n, &q), (&m, &p), (&m, &q), (&n, &m), (&p, &q)] {
        flows.extend(a.iter().copied().zip(b.iter().copied()));
    }
    Ok(PaperTopology { topology: t, flows })
}

/// Rate of the access links [`sperc_fig2`] adds so that its flows have distinct endpoints;
/// well above every flow's rate, so they never constrain.
pub const SPERC_FIG2_ACCESS_RATE: Rate = Rate(100_000_000_000);

/// s-PERC (Jose et al., POMACS 2019) §2.1, Fig. 2, the running example: links `l20`, `l30`,
/// `l12` of 20, 30 and 12 Gb/s; flow 1 crosses `l20` and `l30`, flow 2 crosses `l30` and
/// `l12`.
///
/// Max-min fair rates (the paper): flow 2 gets 12 Gb/s, **bottlenecked at `l12`**; flow 1
/// gets 18 Gb/s, **bottlenecked at `l30`**; `l20` keeps 2 Gb/s spare.
///
/// Nodes: hosts `h1` (id 0, flow 1's source), `h2` (id 1, flow 2's source), `h3` (id 2, flow
/// 1's destination), `h4` (id 3, flow 2's destination); switches `a` (id 4), `b` (id 5).
/// Links (duplex, listed direction first): link 0 `h1 → a` is `l20`; link 2 `a → b` is `l30`;
/// link 4 `b → h4` is `l12`; link 6 `h2 → a` and link 8 `b → h3` are 100 Gb/s access links
/// that the paper's abstract example leaves implicit. The paper gives no delays or buffers;
/// every link uses 1 µs and 32 MB (the fairnet defaults).
pub fn sperc_fig2() -> Result<PaperTopology> {
    let spec = |gbps| LinkSpec::with_rate(Rate::gbps(gbps));
    let mut t = Topology::with_capacity(6, 10);
    let h1 = t.add_host("h1");
    let h2 = t.add_host("h2");
    let h3 = t.add_host("h3");
    let h4 = t.add_host("h4");
    let a = t.add_switch("a");
    let b = t.add_switch("b");
    t.add_duplex(h1, a, spec(20))?;
    t.add_duplex(a, b, spec(30))?;
    t.add_duplex(b, h4, spec(12))?;
    let access = LinkSpec::with_rate(SPERC_FIG2_ACCESS_RATE);
    t.add_duplex(h2, a, access)?;
    t.add_duplex(b, h3, access)?;
    Ok(PaperTopology {
        topology: t,
        flows: vec![(h1, h3), (h2, h4)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::LinkId;
    use crate::topo::routing::{PathSelector, Routing};
    use crate::topo::NodeKind;

    fn link() -> LinkSpec {
        LinkSpec::with_rate(Rate::gbps(100))
    }

    fn ft(k: u32, r: u32) -> Result<Topology> {
        fat_tree(FatTreeSpec {
            k,
            host_link: link(),
            fabric_link: LinkSpec::with_rate(Rate::gbps(400)),
            oversubscription: r,
        })
    }

    #[test]
    fn uranus_fat_tree_is_the_papers_network() {
        // Uranus §5.2: 4 core, 8 aggregation, 8 ToR switches, 8 servers per ToR (64 hosts);
        // server and ToR–aggregation links 1 Gb/s, core links 10 Gb/s; the longest path (hosts
        // in different pods: 6 links each way at 25 µs) has a 300 µs propagation RTT.
        let t = uranus_fat_tree().unwrap();
        assert_eq!(
            (
                count_kind(&t, "core"),
                count_kind(&t, "agg"),
                count_kind(&t, "edge")
            ),
            (4, 8, 8)
        );
        assert_eq!(t.num_hosts(), 64);
        let gbps = |l: &crate::topo::Link| l.capacity.bps() / 1e9;
        for l in t.links() {
            let core =
                t.node(l.src).name.starts_with("core") || t.node(l.dst).name.starts_with("core");
            assert_eq!(gbps(l), if core { 10.0 } else { 1.0 });
        }
        // Host 0 (pod 0) to host 63 (pod 3).
        let mut path = Vec::new();
        Routing::new(&t)
            .path_into(
                NodeId(0),
                NodeId(63),
                PathSelector::FlowHash { seed: 0, flow: 0 },
                &mut path,
            )
            .unwrap();
        let one_way: u64 = path.iter().map(|&l| t.link(l).delay.0).sum();
        assert_eq!(path.len(), 6);
        assert_eq!(Time(2 * one_way), Time::from_us(300));
    }

    fn count_kind(t: &Topology, prefix: &str) -> usize {
        t.nodes()
            .iter()
            .filter(|n| n.kind == NodeKind::Switch && n.name.starts_with(prefix))
            .count()
    }

    #[test]
    fn fat_tree_k16_matches_soze_setup() {
        // Söze §5: "1024 servers and 320 switches in a fat-tree topology".
        let t = ft(16, 1).unwrap();
        assert_eq!(t.num_hosts(), 1024);
        assert_eq!(t.num_nodes() - t.num_hosts(), 320);
        assert_eq!(count_kind(&t, "edge"), 128);
        assert_eq!(count_kind(&t, "agg"), 128);
        assert_eq!(count_kind(&t, "core"), 64);
        // 1024 host cables + 16 pods × 8 × 8 edge-agg + 128 × 8 agg-core, two links each.
        assert_eq!(t.num_links(), 2 * (1024 + 1024 + 1024));
        t.validate().unwrap();
    }

    #[test]
    fn fat_tree_k4_wiring() {
        let t = ft(4, 1).unwrap();
        assert_eq!(t.num_hosts(), 16);
        assert_eq!(t.hosts(), &(0..16).map(NodeId).collect::<Vec<_>>()[..]);
        // hosts 0..16, edge 16..24, agg 24..32, core 32..36.
        assert_eq!(t.node(NodeId(12)).name, "h12");
        assert_eq!(t.node(NodeId(19)).name, "edge3");
        assert_eq!(t.node(NodeId(29)).name, "agg5");
        assert_eq!(t.node(NodeId(34)).name, "core2");
        // Host 5 is under edge 2 (two hosts per edge); its uplink is link 10.
        let up = t.link(LinkId(10));
        assert_eq!((up.src, up.dst), (NodeId(5), NodeId(16 + 2)));
        assert_eq!(up.capacity, Rate::gbps(100));
        // Edge 3 (pod 1) reaches agg 2 and agg 3, nothing else above it.
        let ups: Vec<NodeId> = t
            .out_links(NodeId(19))
            .iter()
            .map(|&l| t.link(l).dst)
            .filter(|&n| n.0 >= 24)
            .collect();
        assert_eq!(ups, vec![NodeId(26), NodeId(27)]);
        // Agg j of every pod connects to cores j·2, j·2 + 1: agg5 is j = 1 -> core2, core3.
        let cores: Vec<NodeId> = t
            .out_links(NodeId(29))
            .iter()
            .map(|&l| t.link(l).dst)
            .filter(|&n| n.0 >= 32)
            .collect();
        assert_eq!(cores, vec![NodeId(34), NodeId(35)]);
        assert_eq!(
            t.link(t.find_link(NodeId(29), NodeId(34)).unwrap())
                .capacity,
            Rate::gbps(400)
        );
        // Every core has one link to each pod.
        for c in 32..36 {
            assert_eq!(t.out_links(NodeId(c)).len(), 4);
        }
    }

    #[test]
    fn fat_tree_oversubscription_adds_hosts_per_tor() {
        let t = ft(4, 3).unwrap();
        assert_eq!(t.num_hosts(), 48);
        // Each edge switch: 6 hosts down, 2 uplinks.
        let edge0 = NodeId(48);
        assert_eq!(t.node(edge0).name, "edge0");
        let down = t
            .out_links(edge0)
            .iter()
            .filter(|&&l| t.is_host(t.link(l).dst))
            .count();
        assert_eq!((down, t.out_links(edge0).len() - down), (6, 2));
    }

    #[test]
    fn fat_tree_rejects_bad_parameters() {
        assert_eq!(
            ft(5, 1).unwrap_err().to_string(),
            "fat_tree.k: must be an even number >= 4, got 5"
        );
        assert!(ft(2, 1).unwrap_err().to_string().starts_with("fat_tree.k:"));
        assert_eq!(
            ft(4, 0).unwrap_err().to_string(),
            "fat_tree.oversubscription: must be at least 1, got 0"
        );
        assert!(ft(1000, 1).unwrap_err().to_string().contains("too large"));
        let err = fat_tree(FatTreeSpec {
            k: 4,
            host_link: LinkSpec {
                capacity: Rate(0),
                ..link()
            },
            fabric_link: link(),
            oversubscription: 1,
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "fat_tree.host_link.capacity: must be positive, got 0bps"
        );
    }

    #[test]
    fn leaf_spine_is_full_bipartite() {
        let t = leaf_spine(LeafSpineSpec {
            hosts_per_leaf: 3,
            leaves: 4,
            spines: 2,
            host_link: link(),
            fabric_link: link(),
        })
        .unwrap();
        assert_eq!(
            (t.num_hosts(), t.num_nodes(), t.num_links()),
            (12, 18, 2 * (12 + 8))
        );
        assert_eq!(t.node(NodeId(12)).name, "leaf0");
        assert_eq!(t.node(NodeId(17)).name, "spine1");
        for l in 12..16 {
            for s in 16..18 {
                assert!(t.find_link(NodeId(l), NodeId(s)).is_some());
                assert!(t.find_link(NodeId(s), NodeId(l)).is_some());
            }
        }
        // Host 7 is under leaf 2.
        assert_eq!(t.link(LinkId(14)).dst, NodeId(14));
        let err = leaf_spine(LeafSpineSpec {
            hosts_per_leaf: 1,
            leaves: 0,
            spines: 1,
            host_link: link(),
            fabric_link: link(),
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "leaf_spine.leaves: must be at least 1, got 0"
        );
    }

    #[test]
    fn dumbbell_layout() {
        let bott = LinkSpec::with_rate(Rate::gbps(10));
        let t = dumbbell(3, link(), bott).unwrap();
        assert_eq!(t.num_hosts(), 6);
        let (a, b) = (NodeId(6), NodeId(7));
        assert_eq!(
            (t.node(a).name.as_str(), t.node(b).name.as_str()),
            ("swA", "swB")
        );
        assert_eq!((t.link(LinkId(0)).src, t.link(LinkId(0)).dst), (a, b));
        assert_eq!(t.link(LinkId(0)).capacity, Rate::gbps(10));
        // Sender 1 -> swA is link 4; swB -> receiver 4 (= 3 + 1) is link 2 + 6 + 2 = 10.
        assert_eq!(
            (t.link(LinkId(4)).src, t.link(LinkId(4)).dst),
            (NodeId(1), a)
        );
        assert_eq!(
            (t.link(LinkId(10)).src, t.link(LinkId(10)).dst),
            (b, NodeId(4))
        );
        let r = Routing::new(&t);
        let p = r.path(NodeId(1), NodeId(4), PathSelector::First).unwrap();
        assert_eq!(p, vec![LinkId(4), LinkId(0), LinkId(10)]);
        assert_eq!(
            dumbbell(0, link(), bott).unwrap_err().to_string(),
            "dumbbell.n_pairs: must be at least 1, got 0"
        );
        let zero_buf = LinkSpec {
            buffer: Bytes(0),
            ..bott
        };
        assert_eq!(
            dumbbell(1, link(), zero_buf).unwrap_err().to_string(),
            "dumbbell.bottleneck.buffer: must be positive, got 0B"
        );
    }

    #[test]
    fn parking_lot_flows_cross_the_documented_hops() {
        let (hops, per) = (3, 2);
        let t = parking_lot(hops, per, link()).unwrap();
        assert_eq!(t.num_hosts(), 2 * (3 * 2 + 1));
        assert_eq!(t.num_nodes(), 14 + 4);
        let r = Routing::new(&t);
        let pairs = parking_lot_pairs(hops, per);
        assert_eq!(pairs.len(), 7);
        for (p, &(s, d)) in pairs.iter().enumerate() {
            let path = r.path(s, d, PathSelector::First).unwrap();
            let trunk: Vec<u32> = path.iter().map(|l| l.0).filter(|&l| l < 2 * hops).collect();
            if p == 0 {
                assert_eq!(trunk, vec![0, 2, 4], "the long flow crosses every hop");
            } else {
                let j = (p as u32 - 1) / per;
                assert_eq!(trunk, vec![2 * j], "pair {p} crosses hop {j} only");
            }
            // Access links are where the doc comment says.
            assert_eq!(path[0], LinkId(2 * hops + 2 * s.0));
            assert_eq!(*path.last().unwrap(), LinkId(2 * hops + 2 * d.0));
        }
        assert!(parking_lot(0, 1, link()).is_err());
        // No cross traffic is allowed: just the long flow.
        assert_eq!(parking_lot(2, 0, link()).unwrap().num_hosts(), 2);
    }

    #[test]
    fn star_layout() {
        let t = star(4, link()).unwrap();
        assert_eq!((t.num_hosts(), t.num_nodes(), t.num_links()), (4, 5, 8));
        assert_eq!(t.link(LinkId(5)).src, NodeId(4));
        assert_eq!(t.link(LinkId(5)).dst, NodeId(2));
        assert_eq!(
            star(0, link()).unwrap_err().to_string(),
            "star.n_hosts: must be at least 1, got 0"
        );
    }

    /// The set of flows crossing each link when every flow takes its (unique) shortest path.
    fn sharing(p: &PaperTopology) -> Vec<Vec<usize>> {
        let t = &p.topology;
        let r = Routing::new(t);
        let mut on = vec![Vec::new(); t.num_links()];
        for (f, &(s, d)) in p.flows.iter().enumerate() {
            let path = r.path(s, d, PathSelector::First).unwrap();
            // Unique shortest path: every selector agrees.
            for seed in 0..8 {
                let q = r
                    .path(
                        s,
                        d,
                        PathSelector::FlowHash {
                            seed,
                            flow: f as u64,
                        },
                    )
                    .unwrap();
                assert_eq!(q, path);
            }
            for l in path {
                on[l.idx()].push(f);
            }
        }
        on
    }

    /// Weighted max-min fair rates by textbook water-filling (a reference for these tests,
    /// independent of `alloc`).
    fn weighted_max_min(p: &PaperTopology, weights: &[f64]) -> Vec<f64> {
        let on = sharing(p);
        let caps: Vec<f64> = p
            .topology
            .links()
            .iter()
            .map(|l| l.capacity.bps())
            .collect();
        let mut rate = vec![f64::NAN; p.flows.len()];
        let mut left = caps.clone();
        loop {
            // Fair level of each link among its unfrozen flows.
            let mut best: Option<(f64, usize)> = None;
            for (l, flows) in on.iter().enumerate() {
                let w: f64 = flows
                    .iter()
                    .filter(|&&f| rate[f].is_nan())
                    .map(|&f| weights[f])
                    .sum();
                if w > 0.0 {
                    let level = left[l] / w;
                    if best.is_none_or(|(b, _)| level < b) {
                        best = Some((level, l));
                    }
                }
            }
            let Some((level, l)) = best else { break };
            for &f in &on[l] {
                if rate[f].is_nan() {
                    rate[f] = level * weights[f];
                    for (m, flows) in on.iter().enumerate() {
                        if flows.contains(&f) {
                            left[m] -= rate[f];
                        }
                    }
                }
            }
        }
        rate
    }

    fn assert_close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() <= 1e-6 * w.abs().max(1.0),
                "got {got:?}, want {want:?}"
            );
        }
    }

    #[test]
    fn b4_has_twelve_sites_nineteen_cables_and_wan_delays() {
        let access = LinkSpec::with_rate(Rate::gbps(10));
        let wan = LinkSpec::with_rate(Rate::gbps(1));
        let t = b4(2, access, wan).unwrap();
        assert_eq!(t.num_hosts(), 24);
        assert_eq!(t.num_nodes(), 36);
        assert_eq!(t.num_links(), 2 * (24 + 19));
        assert_eq!(t.node(NodeId(3)).name, "council_bluffs-h1");
        // Dublin – St. Ghislain (cable 10) is about 760 km: 3.8 ms; The Dalles – Changhua
        // (cable 13) about 10,100 km: 50.4 ms.
        let cable = |i: usize| t.link(LinkId((2 * (24 + i)) as u32));
        assert!((cable(10).delay.as_secs_f64() - 3.81e-3).abs() < 0.05e-3);
        assert!((cable(13).delay.as_secs_f64() - 50.39e-3).abs() < 0.05e-3);
        assert_eq!(cable(13).capacity, Rate::gbps(1));
        assert_eq!(t.link(LinkId(0)).capacity, Rate::gbps(10));
        // Round-trip propagation between every pair of sites on the engine's (hop-shortest,
        // first-choice) paths: the s-PERC paper's WAN flows average 70 ms and its largest RTT
        // is "over 100ms".
        let r = Routing::new(&t);
        let mut rtts = Vec::new();
        for a in (0..24).step_by(2) {
            for b in (0..24).step_by(2) {
                if a != b {
                    let p = r.path(NodeId(a), NodeId(b), PathSelector::First).unwrap();
                    let one_way: f64 = p.iter().map(|&l| t.link(l).delay.as_secs_f64()).sum();
                    rtts.push(2.0 * one_way);
                }
            }
        }
        let mean = rtts.iter().sum::<f64>() / rtts.len() as f64;
        let max = rtts.iter().cloned().fold(0.0, f64::max);
        println!("b4: mean RTT {:.1} ms, max {:.1} ms", mean * 1e3, max * 1e3);
        assert!((0.06..0.11).contains(&mean), "mean RTT {mean}");
        assert!(max > 0.1, "max RTT {max}");
        assert!(b4(0, access, wan).is_err());
    }

    #[test]
    fn soze_fig17_sharing_and_rates() {
        let p = soze_fig17(link()).unwrap();
        assert_eq!(p.flows.len(), 6);
        let on = sharing(&p);
        assert_eq!(on[0], vec![0, 1, 2, 3], "switch 1's egress");
        assert_eq!(on[2], vec![1, 2, 3, 4, 5], "switch 2's egress");
        for (l, flows) in on.iter().enumerate() {
            if l != 0 && l != 2 {
                assert!(flows.len() <= 1, "link {l} carries {flows:?}");
            }
        }
        // §5.3.1: equal weights give flow 1 40 Gb/s, everyone else 20 Gb/s.
        let g = 1e9;
        assert_close(
            &weighted_max_min(&p, &[1.0; 6]),
            &[40.0 * g, 20.0 * g, 20.0 * g, 20.0 * g, 20.0 * g, 20.0 * g],
        );
        // Weight 2 is the tipping point: still 40 Gb/s.
        let w2 = weighted_max_min(&p, &[2.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
        assert!((w2[0] - 40.0 * g).abs() < 1e-3);
        // Weight 5: switch 1 is flows 2-4's bottleneck, 100/8 each; flow 1 gets 62.5 Gb/s and
        // flows 5, 6 split the rest of switch 2: (100 - 37.5) / 2.
        assert_close(
            &weighted_max_min(&p, &[5.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
            &[62.5 * g, 12.5 * g, 12.5 * g, 12.5 * g, 31.25 * g, 31.25 * g],
        );
    }

    #[test]
    fn may_fig6_sharing_and_fair_shares() {
        let p = may_fig6().unwrap();
        let t = &p.topology;
        assert_eq!(t.num_nodes(), 24);
        assert_eq!(t.num_hosts(), 20);
        assert_eq!(p.flows.len(), 30);
        assert!(t.links().iter().all(|l| l.capacity == Rate(10_000_000)));
        assert_eq!(t.link(LinkId(0)).delay, Time::from_ms(10));
        // n3 -> c1 has delay 40·3 + 1 = 121 ms.
        let n3 = t.find_node("n3").unwrap();
        let c1 = t.find_node("c1").unwrap();
        assert_eq!(
            t.link(t.find_link(n3, c1).unwrap()).delay,
            Time::from_ms(121)
        );
        let on = sharing(&p);
        assert_eq!(
            on[2],
            (0..20).collect::<Vec<_>>(),
            "c2 -> c3 carries 20 flows"
        );
        assert_eq!(on[0], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 21, 22, 23, 24]);
        assert_eq!(
            on[4],
            [5, 6, 7, 8, 9, 15, 16, 17, 18, 19, 25, 26, 27, 28, 29]
        );
        // "the max-min fair shares are 0.5Mbps for 20 flows that uses link c2 - c3, and 1Mbps
        // for other 10 flows".
        let mut want = vec![0.5e6; 20];
        want.extend([1e6; 10]);
        assert_close(&weighted_max_min(&p, &[1.0; 30]), &want);
    }

    #[test]
    fn sperc_fig2_sharing_and_rates() {
        let p = sperc_fig2().unwrap();
        let t = &p.topology;
        let on = sharing(&p);
        let cap = |l: u32| t.link(LinkId(l)).capacity;
        assert_eq!(
            (cap(0), cap(2), cap(4)),
            (Rate::gbps(20), Rate::gbps(30), Rate::gbps(12))
        );
        assert_eq!(on[0], vec![0], "l20 carries flow 1");
        assert_eq!(on[2], vec![0, 1], "l30 carries both");
        assert_eq!(on[4], vec![1], "l12 carries flow 2");
        // "12Gb/s for (green) flow 2 ... and 18Gb/s for (blue) flow 1".
        assert_close(&weighted_max_min(&p, &[1.0, 1.0]), &[18e9, 12e9]);
    }
}
