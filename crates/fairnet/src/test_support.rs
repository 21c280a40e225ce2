//! Helpers shared by the systems' packet-level tests (compiled for tests only).

use crate::alloc::{waterfill, Problem};
use crate::engine::packet::cc::AckInfo;
use crate::engine::packet::PacketResults;
use crate::topo::{fat_tree, FatTreeSpec, LinkSpec, Routing, Topology};
use crate::units::{Bytes, Time};
use crate::workload::{routed_problem, FlowSpec};

/// The oracle's weighted max-min rates (bit/s) of `flows` on `topo`, each flow on the path
/// the per-flow ECMP hash with seed 0 gives it.
pub(crate) fn oracle_rates(topo: &Topology, flows: &[FlowSpec]) -> Vec<f64> {
    let pairs: Vec<_> = flows.iter().map(|f| (f.src, f.dst)).collect();
    let weights = flows.iter().map(|f| f.weight).collect();
    let p = routed_problem(topo, &Routing::new(topo), &pairs, 0, weights).unwrap();
    waterfill::solve(&Problem::new(p).unwrap()).rates
}

/// Wire throughput (bit/s) of every flow between two snapshots: payload delivered in order,
/// scaled to the wire by full packets of `mtu` payload and `header` bytes.
pub(crate) fn wire_throughput(
    a: &PacketResults,
    b: &PacketResults,
    mtu: Bytes,
    header: Bytes,
) -> Vec<f64> {
    let dt = (b.now - a.now).as_secs_f64();
    let wire = (mtu.0 + header.0) as f64 / mtu.0 as f64;
    a.flows
        .iter()
        .zip(&b.flows)
        .map(|(x, y)| (y.delivered - x.delivered) as f64 * 8.0 * wire / dt)
        .collect()
}

/// An ACK as a sender's congestion control sees it: `acked` new bytes, cumulative ACK `cum`,
/// next sequence `snd_nxt`, echoing CE if `ece`; no RTT sample, no INT, not in recovery (the
/// window laws' unit tests, DCTCP and L2DCT).
pub(crate) fn ecn_ack(acked: u64, cum: u64, snd_nxt: u64, ece: bool) -> AckInfo<'static> {
    AckInfo {
        now: Time::ZERO,
        acked,
        cum_ack: cum,
        snd_nxt,
        in_flight: snd_nxt - cum,
        ece,
        max_qdelay: Time::ZERO,
        int: &[],
        rtt: None,
        in_recovery: false,
        word: 0,
    }
}

/// A k-ary fat-tree whose every link (host and fabric) is `link`, without oversubscription.
pub(crate) fn uniform_fat_tree(k: u32, link: LinkSpec) -> Topology {
    fat_tree(FatTreeSpec {
        k,
        host_link: link,
        fabric_link: link,
        oversubscription: 1,
    })
    .unwrap()
}
