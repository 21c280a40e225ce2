//! The HPCC ns-3 simulator's flow list and `fct.txt` (Li et al., SIGCOMM 2019; the
//! `alibaba-edu/High-Precision-Congestion-Control` simulator that Söze and many later papers
//! build on), so a user can bring an ns-3 setup and compare results (under one FCT definition:
//! see below).
//!
//! **Flow list** (`flow.txt`, read by the simulator's `third.cc`): a first line with the number
//! of flows, then one flow per line:
//!
//! ```text
//! 2
//! 0 1 3 100 200000 2.0
//! 2 1 3 100 1000 2.000001
//! ```
//!
//! `src dst pg dport size start`: node ids (hosts, numbered as in the topology file), priority
//! group, destination port, payload bytes, start time in seconds. fairnet reads `pg` and
//! `dport` for validation only (the priority group is a property of the ns-3 switch model, not
//! of the flow; our schemes set their own classes) and writes `3 100`, the values of the
//! simulator's own traffic generator.
//!
//! **`fct.txt`** (written by `qp_finish` in the simulator), one finished flow per line:
//!
//! ```text
//! 0b000001 0b000101 10000 100 200000 2000000000 18240 17440
//! ```
//!
//! `sip dip sport dport size start_ns fct_ns standalone_fct_ns`, the addresses as 8 hex digits
//! (node `n` has address `0x0b000001 + (n / 256) << 16 + (n % 256) << 8`, the simulator's
//! `node_id_to_ip`). The simulator's FCT ends at the sender's ACK of the last byte and its
//! standalone FCT is [`crate::metrics::reference_ideal_fct`]; fairnet writes either that
//! definition or its own (the receiver's last byte, [`crate::metrics::ideal_fct`]), as the
//! caller chooses (the runner's `--fct-def`), source ports `10000 + flow index` (unique per flow, as the simulator's are
//! per host) and destination port 100.

use super::FlowSpec;
use crate::error::{Error, Result};
use crate::ids::{LinkId, NodeId};
use crate::topo::Topology;
use crate::units::{Bytes, Time};
use std::fmt::Write;

/// The priority group the HPCC traffic generator writes for data flows.
const HPCC_DATA_PG: u32 = 3;
/// The destination port the HPCC traffic generator writes.
const HPCC_DPORT: u32 = 100;
/// First source port fairnet writes in `fct.txt`.
const FIRST_SPORT: u64 = 10_000;

/// The simulator's address of node `n` (`node_id_to_ip` in the HPCC simulator).
pub fn node_ip(n: NodeId) -> u32 {
    0x0b00_0001 + ((n.0 / 256) << 16) + ((n.0 % 256) << 8)
}

/// The node of a simulator address (`ip_to_node_id`: bits 8..24).
pub fn ip_node(ip: u32) -> NodeId {
    NodeId((ip >> 8) & 0xffff)
}

/// Parses a flow list; `source` names the file in errors (`flow.txt:3: ...`).
pub fn parse_flow_file(text: &str, source: &str) -> Result<Vec<FlowSpec>> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let (first, count) = lines
        .next()
        .ok_or_else(|| Error::invalid(source, "empty flow file (expected the flow count)"))?;
    let count: usize = count.parse().map_err(|_| {
        Error::invalid(
            format!("{source}:{first}"),
            format!("expected the number of flows, got {count:?}"),
        )
    })?;
    let mut flows = Vec::with_capacity(count);
    for (line, text) in lines {
        let at = format!("{source}:{line}");
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 6 {
            return Err(Error::invalid(
                at,
                format!(
                    "expected 6 fields `src dst pg dport size start_seconds`, got {}",
                    fields.len()
                ),
            ));
        }
        let int = |i: usize, name: &str| -> Result<u64> {
            fields[i].parse::<u64>().map_err(|_| {
                Error::invalid(
                    &at,
                    format!(
                        "{name}: expected a non-negative integer, got {:?}",
                        fields[i]
                    ),
                )
            })
        };
        let src = int(0, "src")?;
        let dst = int(1, "dst")?;
        int(2, "pg")?;
        int(3, "dport")?;
        let size = int(4, "size")?;
        let start: f64 = fields[5].parse().map_err(|_| {
            Error::invalid(&at, format!("start: expected seconds, got {:?}", fields[5]))
        })?;
        if !(start.is_finite() && start >= 0.0) {
            return Err(Error::invalid(
                &at,
                format!("start: expected a non-negative time in seconds, got {start}"),
            ));
        }
        if size == 0 {
            return Err(Error::invalid(
                &at,
                "size: a flow must carry at least 1 byte",
            ));
        }
        if src == dst {
            return Err(Error::invalid(
                &at,
                format!("src and dst are both node {src}"),
            ));
        }
        let node = |n: u64| -> Result<NodeId> {
            u32::try_from(n)
                .map(NodeId)
                .map_err(|_| Error::invalid(&at, format!("node id {n} is out of range")))
        };
        // Round to the picosecond: `2.000001` s must be exactly 2,000,001 µs.
        let start = Time((start * Time::S as f64).round() as u64);
        flows.push(FlowSpec::new(node(src)?, node(dst)?, Bytes(size), start));
    }
    if flows.len() != count {
        return Err(Error::invalid(
            source,
            format!(
                "the first line announces {count} flows but {} follow",
                flows.len()
            ),
        ));
    }
    Ok(flows)
}

/// Reads a flow list from `path` and checks that every flow runs between hosts of `topo`.
pub fn read_flow_file(path: &std::path::Path, topo: &Topology) -> Result<Vec<FlowSpec>> {
    let source = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: source.clone(),
        msg: e.to_string(),
    })?;
    let flows = parse_flow_file(&text, &source)?;
    for (i, f) in flows.iter().enumerate() {
        for (end, n) in [("src", f.src), ("dst", f.dst)] {
            if !topo.is_host(n) {
                return Err(Error::invalid(
                    format!("{source}: flow {i}"),
                    format!("{end} {} is not a host of the topology", n.0),
                ));
            }
        }
    }
    Ok(flows)
}

/// Writes `flows` as a flow list (start times in seconds with nanosecond digits, the
/// precision the simulator's own generator writes).
pub fn write_flow_file(flows: &[FlowSpec]) -> String {
    let mut out = format!("{}\n", flows.len());
    for f in flows {
        let ns = f.start.0 / Time::NS;
        let _ = writeln!(
            out,
            "{} {} {HPCC_DATA_PG} {HPCC_DPORT} {} {}.{:09}",
            f.src.0,
            f.dst.0,
            f.size.0,
            ns / 1_000_000_000,
            ns % 1_000_000_000
        );
    }
    out
}

/// One finished flow, as `fct.txt` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FctLine {
    /// Sender.
    pub src: NodeId,
    /// Receiver.
    pub dst: NodeId,
    /// Source port (identifies the flow together with the addresses).
    pub sport: u32,
    /// Destination port.
    pub dport: u32,
    /// Payload bytes.
    pub size: u64,
    /// Start time.
    pub start: Time,
    /// Flow completion time.
    pub fct: Time,
    /// FCT alone on the empty network.
    pub standalone_fct: Time,
}

/// Writes the simulator's `pfc.txt` (its `get_pfc` trace in `third.cc`): one PFC frame per
/// line as it reaches the port it pauses or resumes, `time_ns node node_type if_index type`
/// — node type 0 for a host, 1 for a switch; `if_index` the port's place among its node's
/// out-links plus one (the simulator numbers a node's devices from 1 in the order its links
/// are read from the topology file, which for a topology read from that file is this order);
/// type 1 for a pause, 0 for a resume. `frames`: `(time, link, pause)` in time order.
pub fn write_pfc(
    topo: &Topology,
    frames: impl IntoIterator<Item = (Time, LinkId, bool)>,
) -> String {
    let mut out = String::new();
    for (time, link, pause) in frames {
        let node = topo.link(link).src;
        let index = topo
            .out_links(node)
            .iter()
            .position(|&l| l == link)
            .map_or(0, |i| i + 1);
        let _ = writeln!(
            out,
            "{} {} {} {} {}",
            time.0 / Time::NS,
            node.0,
            u8::from(!topo.is_host(node)),
            index,
            u8::from(pause)
        );
    }
    out
}

/// Writes `fct.txt` lines for the finished flows: `(flow index, src, dst, size, start, end,
/// ideal FCT)`; unfinished flows have no line, as in the simulator. Times are written in whole
/// nanoseconds (rounded down), the simulator's unit.
pub fn write_fct(rows: impl IntoIterator<Item = FctLine>) -> String {
    let mut out = String::new();
    for r in rows {
        let _ = writeln!(
            out,
            "{:08x} {:08x} {} {} {} {} {} {}",
            node_ip(r.src),
            node_ip(r.dst),
            r.sport,
            r.dport,
            r.size,
            r.start.0 / Time::NS,
            r.fct.0 / Time::NS,
            r.standalone_fct.0 / Time::NS
        );
    }
    out
}

/// The `fct.txt` line of flow number `index` (its source port is `10000 + index`).
pub fn fct_line(index: usize, flow: &FlowSpec, end: Time, standalone_fct: Time) -> Result<FctLine> {
    let sport = u32::try_from(FIRST_SPORT + index as u64).map_err(|_| {
        Error::invalid(
            format!("flows[{index}]"),
            "too many flows for fct.txt's 32-bit ports",
        )
    })?;
    Ok(FctLine {
        src: flow.src,
        dst: flow.dst,
        sport,
        dport: HPCC_DPORT,
        size: flow.size.0,
        start: flow.start,
        fct: Time(end.0.saturating_sub(flow.start.0)),
        standalone_fct,
    })
}

/// Parses `fct.txt` (ours or the simulator's); `source` names the file in errors.
pub fn parse_fct(text: &str, source: &str) -> Result<Vec<FctLine>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let at = format!("{source}:{}", i + 1);
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 8 {
            return Err(Error::invalid(
                at,
                format!(
                    "expected 8 fields `sip dip sport dport size start_ns fct_ns \
                     standalone_fct_ns`, got {}",
                    f.len()
                ),
            ));
        }
        let hex = |k: usize, name: &str| {
            u32::from_str_radix(f[k], 16).map_err(|_| {
                Error::invalid(
                    &at,
                    format!("{name}: expected 8 hex digits, got {:?}", f[k]),
                )
            })
        };
        let int = |k: usize, name: &str| {
            f[k].parse::<u64>().map_err(|_| {
                Error::invalid(
                    &at,
                    format!("{name}: expected a non-negative integer, got {:?}", f[k]),
                )
            })
        };
        let port = |k: usize, name: &str| {
            u32::try_from(int(k, name)?)
                .map_err(|_| Error::invalid(&at, format!("{name}: out of range")))
        };
        out.push(FctLine {
            src: ip_node(hex(0, "sip")?),
            dst: ip_node(hex(1, "dip")?),
            sport: port(2, "sport")?,
            dport: port(3, "dport")?,
            size: int(4, "size")?,
            start: Time(int(5, "start_ns")? * Time::NS),
            fct: Time(int(6, "fct_ns")? * Time::NS),
            standalone_fct: Time(int(7, "standalone_fct_ns")? * Time::NS),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip_as_the_simulator_numbers_them() {
        assert_eq!(node_ip(NodeId(0)), 0x0b00_0001);
        assert_eq!(node_ip(NodeId(1)), 0x0b00_0101);
        assert_eq!(node_ip(NodeId(300)), 0x0b01_2c01);
        for n in [0, 1, 255, 256, 300, 1023, 65535] {
            assert_eq!(ip_node(node_ip(NodeId(n))), NodeId(n));
        }
    }

    #[test]
    fn flow_file_round_trips() {
        let text = "3\n0 1 3 100 200000 2.0\n2 1 3 100 1000 2.000001\n\n5 7 3 100 1 0\n";
        let flows = parse_flow_file(text, "flow.txt").unwrap();
        assert_eq!(flows.len(), 3);
        assert_eq!(flows[1].src, NodeId(2));
        assert_eq!(flows[1].size, Bytes(1000));
        assert_eq!(flows[1].start, Time(2_000_001 * Time::US));
        let again = parse_flow_file(&write_flow_file(&flows), "x").unwrap();
        assert_eq!(again, flows);
        assert!(write_flow_file(&flows).contains("2 1 3 100 1000 2.000001000\n"));
    }

    #[test]
    fn flow_file_errors_name_the_line() {
        let e = |t: &str| parse_flow_file(t, "flow.txt").unwrap_err().to_string();
        assert_eq!(
            e("2\n0 1 3 100 10 0\n0 1 3 100 -5 0\n"),
            "flow.txt:3: size: expected a non-negative integer, got \"-5\""
        );
        assert_eq!(
            e("1\n0 1 3 100 10\n"),
            "flow.txt:2: expected 6 fields `src dst pg dport size start_seconds`, got 5"
        );
        assert_eq!(
            e("3\n0 1 3 100 10 0\n"),
            "flow.txt: the first line announces 3 flows but 1 follow"
        );
        assert_eq!(
            e("x\n"),
            "flow.txt:1: expected the number of flows, got \"x\""
        );
        assert_eq!(
            e("1\n4 4 3 100 10 0\n"),
            "flow.txt:2: src and dst are both node 4"
        );
        assert_eq!(
            e("1\n0 1 3 100 0 0\n"),
            "flow.txt:2: size: a flow must carry at least 1 byte"
        );
        assert_eq!(e(""), "flow.txt: empty flow file (expected the flow count)");
    }

    #[test]
    fn fct_lines_round_trip() {
        let f = FlowSpec::new(NodeId(3), NodeId(260), Bytes(200_000), Time::from_us(5));
        let line = fct_line(7, &f, Time::from_us(25), Time::from_us(17)).unwrap();
        assert_eq!(line.fct, Time::from_us(20));
        let text = write_fct([line]);
        assert_eq!(
            text,
            "0b000301 0b010401 10007 100 200000 5000 20000 17000\n"
        );
        assert_eq!(parse_fct(&text, "fct.txt").unwrap(), vec![line]);
        let e = parse_fct("0b000301 zz 1 1 1 1 1 1\n", "fct.txt").unwrap_err();
        assert_eq!(
            e.to_string(),
            "fct.txt:1: dip: expected 8 hex digits, got \"zz\""
        );
    }
}
