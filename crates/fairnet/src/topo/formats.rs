//! Topology file formats.
//!
//! - The **HPCC simulator's `topology.txt`** (the ns-3 HPCC fork, e.g. `simulation/mix/fat.txt`),
//!   so topologies move to and from the ns-3 world unchanged:
//!
//!   ```text
//!   <num_nodes> <num_switches> <num_links>
//!   <switch id> <switch id> ...
//!   <src> <dst> <rate> <delay> <error_rate>      (one line per bidirectional link)
//!   ```
//!
//!   Node ids are `0..num_nodes`; nodes not listed as switches are hosts. Rates are ns-3
//!   `DataRate` strings (`100Gbps`, `10Gb/s`), delays ns-3 `Time` strings (`1000ns`, `0.001ms`,
//!   `1us`; a bare number is seconds). The format has no buffers and no names: the reader gives
//!   every link the same buffer and names nodes `h{id}` / `sw{id}`.
//! - A **serde form**, [`TopologyFile`], for TOML and JSON: nodes by name and kind, links by
//!   node names with human units. [`Topology::to_file`] / [`Topology::from_file`] convert.

use super::builders::{MAX_LINKS, MAX_NODES};
use super::{LinkSpec, NodeKind, Topology, DEFAULT_BUFFER};
use crate::error::{Error, Result};
use crate::ids::NodeId;
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// The on-disk formats a topology can be read from or written to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FileFormat {
    /// The HPCC ns-3 fork's `topology.txt` ([`read_hpcc_topology`]).
    Hpcc,
    /// [`TopologyFile`] as TOML.
    Toml,
    /// [`TopologyFile`] as JSON.
    Json,
}

impl FileFormat {
    /// The format implied by a file extension: `.toml`, `.json`, or `.txt` (HPCC).
    pub fn from_path(path: &Path) -> Option<FileFormat> {
        match path.extension()?.to_str()? {
            "toml" => Some(FileFormat::Toml),
            "json" => Some(FileFormat::Json),
            "txt" => Some(FileFormat::Hpcc),
            _ => None,
        }
    }
}

/// Replaces the `at` of an [`Error::Invalid`] (keeping its message).
fn relabel(e: Error, at: impl Into<String>) -> Error {
    match e {
        Error::Invalid { msg, .. } => Error::Invalid { at: at.into(), msg },
        other => other,
    }
}

/// Prefixes the `at` of an [`Error::Invalid`] with a file name.
fn in_file(e: Error, path: &str) -> Error {
    match e {
        Error::Invalid { at, msg } => Error::Invalid {
            at: format!("{path}: {at}"),
            msg,
        },
        other => other,
    }
}

/// Parses an ns-3 `DataRate` string (`100Gbps`, `10Gb/s`, `1000Mbps`, `12.5GBps`).
fn parse_ns3_rate(s: &str) -> std::result::Result<Rate, String> {
    let norm = s
        .replace("b/s", "bps")
        .replace("B/s", "Bps")
        .replace("kBps", "KBps");
    norm.parse::<Rate>().map_err(|e| format!("bad rate: {e}"))
}

/// Parses an ns-3 `Time` string (`1000ns`, `0.001ms`, `1us`; a bare number is seconds).
fn parse_ns3_time(s: &str) -> std::result::Result<Time, String> {
    if let Ok(secs) = s.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Ok(Time::from_secs_f64(secs));
        }
        return Err(format!("bad delay: {s:?} is not a non-negative duration"));
    }
    s.parse::<Time>().map_err(|e| format!("bad delay: {e}"))
}

/// Reads the HPCC simulator's `topology.txt` (see the [module docs](self)), giving every link
/// `buffer`. Each line `src dst rate delay error_rate` becomes a duplex pair (`src -> dst`
/// first). Only error rate 0 is accepted: fairnet links are lossless.
///
/// Errors name the line: `topology.txt line 5: unknown node 40 (the file declares 36 nodes)`.
pub fn read_hpcc_topology(text: &str, buffer: Bytes) -> Result<Topology> {
    read_hpcc_named(text, buffer, "topology.txt")
}

fn read_hpcc_named(text: &str, buffer: Bytes, name: &str) -> Result<Topology> {
    let at = |line: usize| format!("{name} line {line}");
    if buffer.0 == 0 {
        return Err(Error::invalid(
            format!("{name}: buffer"),
            "must be positive, got 0B",
        ));
    }
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split_whitespace().collect::<Vec<&str>>()))
        .filter(|(_, toks)| !toks.is_empty());

    // Header.
    let (hl, header) = lines.next().ok_or_else(|| {
        Error::invalid(
            at(1),
            "empty file: expected \"<num_nodes> <num_switches> <num_links>\"",
        )
    })?;
    if header.len() != 3 {
        return Err(Error::invalid(
            at(hl),
            format!(
                "expected \"<num_nodes> <num_switches> <num_links>\", got {} fields",
                header.len()
            ),
        ));
    }
    let count = |i: usize, what: &str| -> Result<u64> {
        header[i].parse::<u64>().map_err(|_| {
            Error::invalid(
                at(hl),
                format!("{what} must be a non-negative integer, got {:?}", header[i]),
            )
        })
    };
    let n_nodes = count(0, "num_nodes")?;
    let n_switches = count(1, "num_switches")?;
    let n_links = count(2, "num_links")?;
    if n_nodes > MAX_NODES || 2 * n_links > MAX_LINKS {
        return Err(Error::invalid(
            at(hl),
            format!(
                "too large: {n_nodes} nodes, {n_links} links (limit {MAX_NODES} nodes, {} links)",
                MAX_LINKS / 2
            ),
        ));
    }
    if n_switches > n_nodes {
        return Err(Error::invalid(
            at(hl),
            format!("num_switches ({n_switches}) exceeds num_nodes ({n_nodes})"),
        ));
    }
    let n = n_nodes as usize;

    // Switch ids (normally one line; may span several).
    let mut is_switch = vec![false; n];
    let mut seen = 0u64;
    let mut last_line = hl;
    while seen < n_switches {
        let Some((ln, toks)) = lines.next() else {
            return Err(Error::invalid(
                at(last_line + 1),
                format!("expected {n_switches} switch ids, found {seen}"),
            ));
        };
        last_line = ln;
        for tok in toks {
            if seen == n_switches {
                return Err(Error::invalid(
                    at(ln),
                    format!("expected {n_switches} switch ids, found more"),
                ));
            }
            let id: usize = tok.parse().ok().filter(|&id| id < n).ok_or_else(|| {
                Error::invalid(
                    at(ln),
                    format!("switch id {tok:?} is not a node id in 0..{n}"),
                )
            })?;
            if std::mem::replace(&mut is_switch[id], true) {
                return Err(Error::invalid(at(ln), format!("switch {id} listed twice")));
            }
            seen += 1;
        }
    }

    let mut t = Topology::with_capacity(n, 2 * n_links as usize);
    for (i, &sw) in is_switch.iter().enumerate() {
        if sw {
            t.add_switch(format!("sw{i}"));
        } else {
            t.add_host(format!("h{i}"));
        }
    }

    let mut read = 0u64;
    for (ln, toks) in lines {
        if read == n_links {
            return Err(Error::invalid(
                at(ln),
                format!("the header declares {n_links} links, but there are more lines"),
            ));
        }
        if toks.len() != 5 {
            return Err(Error::invalid(
                at(ln),
                format!(
                    "expected \"<src> <dst> <rate> <delay> <error_rate>\", got {} fields",
                    toks.len()
                ),
            ));
        }
        let node = |tok: &str| -> Result<NodeId> {
            tok.parse::<u32>()
                .ok()
                .filter(|&id| (id as usize) < n)
                .map(NodeId)
                .ok_or_else(|| {
                    Error::invalid(
                        at(ln),
                        format!("unknown node {tok:?} (the file declares {n} nodes)"),
                    )
                })
        };
        let (src, dst) = (node(toks[0])?, node(toks[1])?);
        let capacity = parse_ns3_rate(toks[2]).map_err(|m| Error::invalid(at(ln), m))?;
        let delay = parse_ns3_time(toks[3]).map_err(|m| Error::invalid(at(ln), m))?;
        let err_rate: f64 = toks[4]
            .parse()
            .map_err(|_| Error::invalid(at(ln), format!("bad error rate {:?}", toks[4])))?;
        if err_rate != 0.0 {
            return Err(Error::invalid(
                at(ln),
                format!(
                    "error rate {} is not supported: fairnet links are lossless (use 0)",
                    toks[4]
                ),
            ));
        }
        t.add_duplex(src, dst, LinkSpec::new(capacity, delay, buffer))
            .map_err(|e| relabel(e, at(ln)))?;
        read += 1;
    }
    if read < n_links {
        return Err(Error::invalid(
            at(text.lines().count() + 1),
            format!("the header declares {n_links} links, found {read}"),
        ));
    }
    Ok(t)
}

/// Groups links into cables: link `i` and `i + 1` form one duplex cable when `i + 1` is the
/// exact reverse of `i` with the same capacity and delay (and, if `same_buffer`, buffer).
/// Returns `(first link index, duplex)`.
fn cables(t: &Topology, same_buffer: bool) -> Vec<(usize, bool)> {
    let links = t.links();
    let mut out = Vec::with_capacity(links.len() / 2 + 1);
    let mut i = 0;
    while i < links.len() {
        let a = &links[i];
        let pair = links.get(i + 1).is_some_and(|b| {
            b.src == a.dst
                && b.dst == a.src
                && b.capacity == a.capacity
                && b.delay == a.delay
                && (!same_buffer || b.buffer == a.buffer)
        });
        out.push((i, pair));
        i += if pair { 2 } else { 1 };
    }
    out
}

/// Writes `t` in the HPCC `topology.txt` format, error rate 0.
///
/// Each duplex pair made by [`Topology::add_duplex`] (consecutive link ids, reverse directions,
/// equal capacity and delay) is written once, so topologies from the builders round-trip
/// through [`read_hpcc_topology`] with identical node and link ids. The format cannot say more:
/// buffers and names are not written, and a directed link without such a partner is written
/// as a bidirectional link of its own (it reads back as two links).
pub fn write_hpcc_topology(t: &Topology) -> String {
    let cables = cables(t, false);
    let switches: Vec<String> = (0..t.num_nodes())
        .filter(|&i| t.nodes()[i].kind == NodeKind::Switch)
        .map(|i| i.to_string())
        .collect();
    let mut s = String::with_capacity(32 * (cables.len() + 2));
    let _ = writeln!(s, "{} {} {}", t.num_nodes(), switches.len(), cables.len());
    let _ = writeln!(s, "{}", switches.join(" "));
    for (i, _) in cables {
        let l = &t.links()[i];
        let _ = writeln!(s, "{} {} {} {} 0", l.src.0, l.dst.0, l.capacity, l.delay);
    }
    s
}

/// One node of a [`TopologyFile`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeEntry {
    /// Unique, non-empty name; links refer to nodes by it.
    pub name: String,
    /// `"host"` or `"switch"`.
    pub kind: NodeKind,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// One link (or duplex cable) of a [`TopologyFile`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkEntry {
    /// Name of the transmitting node.
    pub src: String,
    /// Name of the receiving node.
    pub dst: String,
    /// Line rate, e.g. `"100Gbps"`.
    pub capacity: Rate,
    /// Propagation delay, e.g. `"1us"`.
    pub delay: Time,
    /// Egress buffer, e.g. `"32MB"`; when absent, the reader's default (32 MB unless told
    /// otherwise, Söze §5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Bytes>,
    /// Whether the entry is a duplex cable (`src -> dst` and then `dst -> src`, equal
    /// parameters) or a single directed link. Default `true`.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub duplex: bool,
}

/// The serde (TOML/JSON) form of a topology.
///
/// ```toml
/// [[nodes]]
/// name = "h0"
/// kind = "host"
/// [[nodes]]
/// name = "sw0"
/// kind = "switch"
/// [[links]]
/// src = "h0"
/// dst = "sw0"
/// capacity = "100Gbps"
/// delay = "1us"
/// buffer = "32MB"      # optional
/// duplex = true        # optional, default true
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopologyFile {
    /// Nodes; their order gives the node ids.
    pub nodes: Vec<NodeEntry>,
    /// Links; their order gives the link ids (a duplex entry takes two consecutive ids).
    #[serde(default)]
    pub links: Vec<LinkEntry>,
}

impl Topology {
    /// The serde form of this topology. Consecutive reverse links with identical parameters
    /// (what [`Topology::add_duplex`] makes) become one duplex entry, every other link a
    /// directed entry, so [`Topology::from_file`] rebuilds exactly this topology (same ids).
    pub fn to_file(&self) -> TopologyFile {
        let nodes = self
            .nodes()
            .iter()
            .map(|n| NodeEntry {
                name: n.name.clone(),
                kind: n.kind,
            })
            .collect();
        let links = cables(self, true)
            .into_iter()
            .map(|(i, duplex)| {
                let l = &self.links()[i];
                LinkEntry {
                    src: self.node(l.src).name.clone(),
                    dst: self.node(l.dst).name.clone(),
                    capacity: l.capacity,
                    delay: l.delay,
                    buffer: Some(l.buffer),
                    duplex,
                }
            })
            .collect();
        TopologyFile { nodes, links }
    }

    /// Builds a topology from its serde form; links without a buffer get 32 MB
    /// ([`DEFAULT_BUFFER`]).
    ///
    /// Errors name the entry: `nodes[2].name: duplicate name "h1" (also nodes[0])`,
    /// `links[3].src: unknown node "x"`, `links[4]: capacity must be positive, got 0bps`.
    pub fn from_file(file: &TopologyFile) -> Result<Topology> {
        Topology::from_file_with_buffer(file, DEFAULT_BUFFER)
    }

    /// [`Topology::from_file`], with `buffer` for links that do not give one.
    pub fn from_file_with_buffer(file: &TopologyFile, buffer: Bytes) -> Result<Topology> {
        let too_large =
            file.nodes.len() as u64 > MAX_NODES || file.links.len() as u64 > MAX_LINKS / 2;
        if too_large {
            return Err(Error::invalid(
                "topology",
                format!(
                    "too large: {} nodes, {} links (limit {MAX_NODES} nodes, {} links)",
                    file.nodes.len(),
                    file.links.len(),
                    MAX_LINKS / 2
                ),
            ));
        }
        let mut t = Topology::with_capacity(file.nodes.len(), 2 * file.links.len());
        let mut by_name: HashMap<&str, NodeId> = HashMap::with_capacity(file.nodes.len());
        for (i, n) in file.nodes.iter().enumerate() {
            if n.name.is_empty() {
                return Err(Error::invalid(
                    format!("nodes[{i}].name"),
                    "must not be empty",
                ));
            }
            let id = match n.kind {
                NodeKind::Host => t.add_host(n.name.clone()),
                NodeKind::Switch => t.add_switch(n.name.clone()),
            };
            if let Some(prev) = by_name.insert(&n.name, id) {
                return Err(Error::invalid(
                    format!("nodes[{i}].name"),
                    format!("duplicate name {:?} (also nodes[{}])", n.name, prev.0),
                ));
            }
        }
        for (i, l) in file.links.iter().enumerate() {
            let node = |field: &str, name: &str| -> Result<NodeId> {
                by_name.get(name).copied().ok_or_else(|| {
                    Error::invalid(
                        format!("links[{i}].{field}"),
                        format!("unknown node {name:?}"),
                    )
                })
            };
            let (src, dst) = (node("src", &l.src)?, node("dst", &l.dst)?);
            let spec = LinkSpec::new(l.capacity, l.delay, l.buffer.unwrap_or(buffer));
            let added = if l.duplex {
                t.add_duplex(src, dst, spec).map(|_| ())
            } else {
                t.add_link(src, dst, spec).map(|_| ())
            };
            added.map_err(|e| relabel(e, format!("links[{i}]")))?;
        }
        Ok(t)
    }
}

/// Reads a topology file. `buffer` is given to links that do not state one (every link of an
/// HPCC file). Unreadable or unparsable files give [`Error::Io`]; invalid contents give
/// [`Error::Invalid`] with the file name in front of the item (`topo.toml: links[3].src`).
pub fn read_topology_file(path: &Path, format: FileFormat, buffer: Bytes) -> Result<Topology> {
    let shown = path.display().to_string();
    let io = |msg: String| Error::Io {
        path: shown.clone(),
        msg,
    };
    let text = std::fs::read_to_string(path).map_err(|e| io(e.to_string()))?;
    match format {
        FileFormat::Hpcc => read_hpcc_named(&text, buffer, &shown),
        FileFormat::Toml => {
            let file: TopologyFile = toml::from_str(&text).map_err(|e| io(e.to_string()))?;
            Topology::from_file_with_buffer(&file, buffer).map_err(|e| in_file(e, &shown))
        }
        FileFormat::Json => {
            let file: TopologyFile = serde_json::from_str(&text).map_err(|e| io(e.to_string()))?;
            Topology::from_file_with_buffer(&file, buffer).map_err(|e| in_file(e, &shown))
        }
    }
}

/// Writes `t` to `path` in `format` (see [`write_hpcc_topology`] for what HPCC cannot hold).
pub fn write_topology_file(t: &Topology, path: &Path, format: FileFormat) -> Result<()> {
    let io = |msg: String| Error::Io {
        path: path.display().to_string(),
        msg,
    };
    let text = match format {
        FileFormat::Hpcc => write_hpcc_topology(t),
        FileFormat::Toml => toml::to_string(&t.to_file()).map_err(|e| io(e.to_string()))?,
        FileFormat::Json => {
            serde_json::to_string_pretty(&t.to_file()).map_err(|e| io(e.to_string()))?
        }
    };
    std::fs::write(path, text).map_err(|e| io(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::LinkId;
    use crate::topo::builders::{dumbbell, fat_tree, FatTreeSpec};

    fn k4() -> Topology {
        fat_tree(FatTreeSpec {
            k: 4,
            host_link: LinkSpec::with_rate(Rate::gbps(100)),
            fabric_link: LinkSpec::new(Rate::gbps(400), Time::from_ns(500), Bytes(1_000_000)),
            oversubscription: 1,
        })
        .unwrap()
    }

    /// Everything HPCC keeps: kinds, endpoints, rates, delays.
    fn same_shape(a: &Topology, b: &Topology) {
        assert_eq!(a.num_nodes(), b.num_nodes());
        for (x, y) in a.nodes().iter().zip(b.nodes()) {
            assert_eq!(x.kind, y.kind);
        }
        assert_eq!(a.num_links(), b.num_links());
        for (x, y) in a.links().iter().zip(b.links()) {
            assert_eq!(
                (x.src, x.dst, x.capacity, x.delay),
                (y.src, y.dst, y.capacity, y.delay)
            );
        }
    }

    #[test]
    fn reads_hpcc_example() {
        // The shape of HPCC's simulation/mix/fat.txt, shrunk: 2 hosts, 1 switch.
        let text = "3 1 2\n2\n0 2 100Gbps 1000ns 0.000000\n1 2 100Gbps 0.001ms 0\n\n";
        let t = read_hpcc_topology(text, Bytes(1_000_000)).unwrap();
        assert_eq!(t.hosts(), &[NodeId(0), NodeId(1)]);
        assert_eq!(t.node(NodeId(2)).kind, NodeKind::Switch);
        assert_eq!(t.node(NodeId(2)).name, "sw2");
        assert_eq!(t.num_links(), 4);
        let l = t.link(LinkId(3));
        assert_eq!((l.src, l.dst), (NodeId(2), NodeId(1)));
        assert_eq!(l.capacity, Rate::gbps(100));
        assert_eq!(l.delay, Time::from_us(1));
        assert_eq!(l.buffer, Bytes(1_000_000));
        // ns-3 spellings: b/s, bare seconds, switch ids over two lines.
        let t = read_hpcc_topology("3 2 1\n1\n2\n0 1 10Gb/s 0.000002 0\n", Bytes(1)).unwrap();
        assert_eq!(t.link(LinkId(0)).capacity, Rate::gbps(10));
        assert_eq!(t.link(LinkId(0)).delay, Time::from_us(2));
        assert_eq!(t.hosts(), &[NodeId(0)]);
    }

    #[test]
    fn hpcc_errors_name_the_line() {
        let b = Bytes(1000);
        let err = |text: &str| read_hpcc_topology(text, b).unwrap_err().to_string();
        assert_eq!(
            err("3 1 2\n2\n0 2 100Gbps 1us 0\n0 7 100Gbps 1us 0\n"),
            "topology.txt line 4: unknown node \"7\" (the file declares 3 nodes)"
        );
        assert_eq!(
            err("3 1 1\n2\n0 2 100Gbps 1us\n"),
            "topology.txt line 3: expected \"<src> <dst> <rate> <delay> <error_rate>\", got 4 fields"
        );
        assert!(err("3 1 1\n2\n0 2 100Gbit 1us 0\n").starts_with("topology.txt line 3: bad rate"));
        assert!(err("3 1 1\n2\n0 2 100Gbps 1 us 0\n").starts_with("topology.txt line 3: expected"));
        assert!(
            err("3 1 1\n2\n0 2 100Gbps 1parsec 0\n").starts_with("topology.txt line 3: bad delay")
        );
        assert_eq!(
            err("3 1 1\n2\n0 2 100Gbps 1us 0.01\n"),
            "topology.txt line 3: error rate 0.01 is not supported: fairnet links are lossless (use 0)"
        );
        assert_eq!(
            err("3 1 1\n2\n2 2 100Gbps 1us 0\n"),
            "topology.txt line 3: self loop: source and destination are the same node"
        );
        assert_eq!(
            err("3 1 1\n2\n0 2 0Gbps 1us 0\n"),
            "topology.txt line 3: capacity must be positive, got 0bps"
        );
        assert_eq!(
            err("3 1 2\n2\n0 2 100Gbps 1us 0\n"),
            "topology.txt line 4: the header declares 2 links, found 1"
        );
        assert_eq!(
            err("3 1 1\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n"),
            "topology.txt line 4: the header declares 1 links, but there are more lines"
        );
        assert_eq!(
            err("3 1 0\n5\n"),
            "topology.txt line 2: switch id \"5\" is not a node id in 0..3"
        );
        assert_eq!(
            err("3 2 0\n1 1\n"),
            "topology.txt line 2: switch 1 listed twice"
        );
        assert_eq!(
            err("3 x 0\n"),
            "topology.txt line 1: num_switches must be a non-negative integer, got \"x\""
        );
        assert!(err("").starts_with("topology.txt line 1: empty file"));
    }

    #[test]
    fn hpcc_round_trip() {
        let t = k4();
        let text = write_hpcc_topology(&t);
        let first: Vec<&str> = text.lines().take(3).collect();
        assert_eq!(first[0], "36 20 48");
        assert_eq!(
            first[1],
            (16..36)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        );
        assert_eq!(first[2], "0 16 100Gbps 1us 0");
        let back = read_hpcc_topology(&text, Bytes(1_000_000)).unwrap();
        same_shape(&t, &back);
        assert_eq!(write_hpcc_topology(&back), text);
        // An unpaired directed link is written as a cable.
        let mut d = Topology::new();
        let a = d.add_host("a");
        let s = d.add_switch("s");
        d.add_link(a, s, LinkSpec::default()).unwrap();
        let back = read_hpcc_topology(&write_hpcc_topology(&d), Bytes(1)).unwrap();
        assert_eq!(back.num_links(), 2);
    }

    #[test]
    fn serde_round_trips_through_toml_and_json() {
        let mut t = dumbbell(2, LinkSpec::default(), LinkSpec::with_rate(Rate::gbps(10))).unwrap();
        // A one-way link, which must stay one-way.
        let a = t.find_node("swA").unwrap();
        let h0 = NodeId(0);
        t.add_link(a, h0, LinkSpec::new(Rate::gbps(1), Time::ZERO, Bytes(1500)))
            .unwrap();
        let file = t.to_file();
        assert_eq!(file.nodes.len(), 6);
        assert_eq!(file.links.len(), 6, "5 cables + 1 one-way link");
        assert!(!file.links[5].duplex);

        let toml_text = toml::to_string(&file).unwrap();
        assert!(toml_text.contains("capacity = \"10Gbps\""));
        let from_toml: TopologyFile = toml::from_str(&toml_text).unwrap();
        assert_eq!(from_toml, file);
        assert_eq!(Topology::from_file(&from_toml).unwrap(), t);

        let json_text = serde_json::to_string(&file).unwrap();
        let from_json: TopologyFile = serde_json::from_str(&json_text).unwrap();
        assert_eq!(Topology::from_file(&from_json).unwrap(), t);

        let ft = k4();
        assert_eq!(Topology::from_file(&ft.to_file()).unwrap(), ft);
    }

    #[test]
    fn serde_form_defaults_and_errors() {
        let text = r#"
            [[nodes]]
            name = "h0"
            kind = "host"
            [[nodes]]
            name = "s"
            kind = "switch"
            [[links]]
            src = "h0"
            dst = "s"
            capacity = "25Gbps"
            delay = "2us"
        "#;
        let file: TopologyFile = toml::from_str(text).unwrap();
        let t = Topology::from_file(&file).unwrap();
        assert_eq!(t.num_links(), 2, "duplex by default");
        assert_eq!(t.link(LinkId(1)).buffer, DEFAULT_BUFFER);
        assert_eq!(t.link(LinkId(1)).capacity, Rate::gbps(25));

        let bad_field = text.replace("delay = \"2us\"", "delay = \"2us\"\nlatency = 3");
        let e = toml::from_str::<TopologyFile>(&bad_field)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `latency`"), "{e}");
        let bad_kind = text.replace("kind = \"switch\"", "kind = \"router\"");
        assert!(toml::from_str::<TopologyFile>(&bad_kind).is_err());

        let mut f = file.clone();
        f.links[0].dst = "nowhere".into();
        assert_eq!(
            Topology::from_file(&f).unwrap_err().to_string(),
            "links[0].dst: unknown node \"nowhere\""
        );
        let mut f = file.clone();
        f.nodes[1].name = "h0".into();
        assert_eq!(
            Topology::from_file(&f).unwrap_err().to_string(),
            "nodes[1].name: duplicate name \"h0\" (also nodes[0])"
        );
        let mut f = file.clone();
        f.links.push(LinkEntry {
            capacity: Rate(0),
            ..file.links[0].clone()
        });
        assert_eq!(
            Topology::from_file(&f).unwrap_err().to_string(),
            "links[1]: capacity must be positive, got 0bps"
        );
    }

    #[test]
    fn files_on_disk() {
        let dir = std::env::temp_dir().join(format!("fairnet-topo-formats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let t = k4();
        for (name, format) in [
            ("t.toml", FileFormat::Toml),
            ("t.json", FileFormat::Json),
            ("t.txt", FileFormat::Hpcc),
        ] {
            let path = dir.join(name);
            assert_eq!(FileFormat::from_path(&path), Some(format));
            write_topology_file(&t, &path, format).unwrap();
            let back = read_topology_file(&path, format, Bytes(1_000_000)).unwrap();
            same_shape(&t, &back);
            if format != FileFormat::Hpcc {
                assert_eq!(back, t);
            }
        }
        let missing = dir.join("missing.toml");
        assert!(matches!(
            read_topology_file(&missing, FileFormat::Toml, DEFAULT_BUFFER),
            Err(Error::Io { .. })
        ));
        let bad = dir.join("bad.toml");
        std::fs::write(&bad, "[[nodes]]\nname = \"a\"\nkind = \"host\"\n[[links]]\nsrc = \"a\"\ndst = \"b\"\ncapacity = \"1Gbps\"\ndelay = \"1us\"\n").unwrap();
        let e = read_topology_file(&bad, FileFormat::Toml, DEFAULT_BUFFER).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}: links[0].dst: unknown node \"b\"", bad.display())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
