//! Metrics shared by the engines, so that their outputs compare column by column.

use crate::ids::LinkId;
use crate::topo::Topology;
use crate::units::{Bytes, Time};

/// Bytes on the wire for `payload` bytes cut into packets of at most `mtu` payload bytes, each
/// carrying `header` bytes of headers.
pub fn wire_bytes(payload: Bytes, mtu: u64, header: u64) -> Bytes {
    Bytes(payload.0 + payload.0.div_ceil(mtu.max(1)) * header)
}

/// The ideal flow completion time of a flow alone on an empty network: `fixed` (e.g. a start
/// latency) plus the path's one-way propagation delay plus the wire bytes at the path's slowest
/// link. This is the denominator of every slowdown fairnet reports.
pub fn ideal_fct(topo: &Topology, path: &[LinkId], wire: Bytes, fixed: Time) -> Time {
    let prop: u64 = path.iter().map(|&l| topo.link(l).delay.0).sum();
    let slowest = path
        .iter()
        .map(|&l| topo.link(l).capacity)
        .min()
        .expect("a path has a link");
    Time(fixed.0 + prop) + slowest.tx_time(wire)
}

/// The HPCC ns-3 simulator's standalone FCT of a flow (`qp_finish` in its `third.cc`): the
/// pair's base RTT — twice the path's one-way propagation delay plus one full payload (`mtu`
/// bytes, headers not counted) serialized at every hop of the path — plus the flow's `wire`
/// bytes at the path's slowest link. The simulator ends a flow when the sender holds the ACK
/// of its last byte, so its ideal counts the return trip that [`ideal_fct`] (one way, to the
/// delivery of the last byte) does not. The simulator rounds each term down to whole
/// nanoseconds; this is exact in picoseconds.
pub fn reference_ideal_fct(topo: &Topology, path: &[LinkId], wire: Bytes, mtu: u64) -> Time {
    let prop: u64 = path.iter().map(|&l| topo.link(l).delay.0).sum();
    let per_hop: u64 = path
        .iter()
        .map(|&l| topo.link(l).capacity.tx_time(Bytes(mtu)).0)
        .sum();
    let slowest = path
        .iter()
        .map(|&l| topo.link(l).capacity)
        .min()
        .expect("a path has a link");
    Time(2 * prop + per_hop) + slowest.tx_time(wire)
}

/// Slowdown: actual over ideal FCT (≥ 1 up to rounding).
pub fn slowdown(fct: Time, ideal: Time) -> f64 {
    fct.0 as f64 / ideal.0.max(1) as f64
}

/// Whether a flow missed its deadline: `deadline` is relative to `start`, `end` the flow's last
/// delivered byte (`None`: not finished when the run stopped at `run_end`). A flow misses iff
/// it ends after `start + deadline`; one unfinished when the run stopped at or after its
/// deadline has missed it too. `None` when the flow has no deadline, or is unfinished and the
/// run stopped before its deadline (undecided).
pub fn deadline_missed(
    start: Time,
    deadline: Option<Time>,
    end: Option<Time>,
    run_end: Time,
) -> Option<bool> {
    let due = start + deadline?;
    match end {
        Some(end) => Some(end > due),
        None if run_end >= due => Some(true),
        None => None,
    }
}

/// The deadline miss ratio over decided flows (Uranus §5.2, D2TCP §5): missed / (missed +
/// met), from [`deadline_missed`]'s outcomes; `None` when no flow is decided.
pub fn deadline_miss_ratio(outcomes: impl IntoIterator<Item = Option<bool>>) -> Option<f64> {
    let (mut decided, mut missed) = (0usize, 0usize);
    for m in outcomes.into_iter().flatten() {
        decided += 1;
        missed += usize::from(m);
    }
    (decided > 0).then(|| missed as f64 / decided as f64)
}

/// Jain's fairness index of `x` (1 = all equal); with `target`, of `x_i / target_i`, the index
/// against a target allocation such as the oracle's weighted max-min rates.
pub fn jain_index(x: &[f64], target: Option<&[f64]>) -> f64 {
    let ratio = |i: usize| match target {
        Some(t) => x[i] / t[i],
        None => x[i],
    };
    let n = x.len() as f64;
    let (s, s2) = (0..x.len()).fold((0.0, 0.0), |(s, s2), i| {
        (s + ratio(i), s2 + ratio(i) * ratio(i))
    });
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

/// The links between the rack layer and the core of `topo` (Uranus §2.2): a link from a rack
/// switch (a switch with a host attached) to another switch, or back. Uranus treats all of
/// them as congested, "regardless of their real-time load", so every byte crossing them counts
/// for congestion proportionality.
pub fn rack_core_links(topo: &Topology) -> Vec<bool> {
    let mut rack = vec![false; topo.num_nodes()];
    for &h in topo.hosts() {
        for &l in topo.out_links(h) {
            rack[topo.link(l).dst.0 as usize] = true;
        }
    }
    topo.links()
        .iter()
        .map(|l| {
            let (a, b) = (l.src, l.dst);
            !topo.is_host(a) && !topo.is_host(b) && (rack[a.0 as usize] || rack[b.0 as usize])
        })
        .collect()
}

/// Congestion proportionality among slices (Uranus §5.2.1, "Jain's fairness index [21] as a
/// metric to quantify network proportionality"): for each slice `s`, `T_s` = the sum over the
/// `counted` links (the rack–core links, [`rack_core_links`]) of the rate its flows put on
/// them (a flow counts once per counted link it crosses); the index is Jain's over
/// `T_s / W_s` (1 = every slice's share of the congested links in proportion to its weight).
/// `paths[i]`, `rates[i]` and `slice_of[i]` describe flow `i`; `weights[s]` is `W_s`.
pub fn slice_proportionality(
    paths: &[Vec<LinkId>],
    rates: &[f64],
    slice_of: &[usize],
    weights: &[f64],
    counted: &[bool],
) -> f64 {
    let mut t = vec![0.0; weights.len()];
    for ((path, &r), &s) in paths.iter().zip(rates).zip(slice_of) {
        let n = path.iter().filter(|l| counted[l.idx()]).count();
        t[s] += r * n as f64;
    }
    jain_index(&t, Some(weights))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::uniform_fat_tree;
    use crate::topo::LinkSpec;
    use crate::units::Rate;

    #[test]
    fn reference_ideal_fct_counts_the_base_rtt() {
        // A k = 4 fat-tree at 100 Gb/s and 1 µs per link; an inter-pod path has 6 links. A
        // 10,000-byte flow in 1,000-byte packets with 48-byte headers is 10,480 wire bytes.
        // fairnet: 6 µs one way + 10,480 B at 100 Gb/s (838.4 ns) = 6.8384 µs. The reference:
        // base RTT 2·6 µs + 6 hops × 1,000 B at 100 Gb/s (80 ns each) = 12.48 µs, plus the
        // same 838.4 ns: 13.3184 µs.
        let link = LinkSpec::new(Rate::gbps(100), Time::from_us(1), Bytes(1_000_000));
        let topo = uniform_fat_tree(4, link);
        let routing = crate::topo::Routing::new(&topo);
        let hosts = topo.hosts();
        let path = routing
            .path(hosts[0], hosts[15], crate::topo::PathSelector::First)
            .unwrap();
        assert_eq!(path.len(), 6);
        let wire = wire_bytes(Bytes(10_000), 1000, 48);
        assert_eq!(wire, Bytes(10_480));
        assert_eq!(ideal_fct(&topo, &path, wire, Time::ZERO), Time(6_838_400));
        assert_eq!(
            reference_ideal_fct(&topo, &path, wire, 1000),
            Time(13_318_400)
        );
    }

    #[test]
    fn a_deadline_is_missed_iff_the_flow_ends_after_start_plus_deadline() {
        // Start 1 ms, deadline 2 ms: due at 3 ms. Ending at 3 ms exactly meets it; 1 ps later
        // misses it; unfinished at a run end of 3 ms has missed it (its end is later); unfinished
        // at 2.5 ms is undecided; no deadline is never counted.
        let (start, d) = (Time::from_ms(1), Some(Time::from_ms(2)));
        let run_end = Time::from_ms(10);
        assert_eq!(
            deadline_missed(start, d, Some(Time::from_ms(3)), run_end),
            Some(false)
        );
        let late = Some(Time(Time::from_ms(3).0 + 1));
        assert_eq!(deadline_missed(start, d, late, run_end), Some(true));
        assert_eq!(
            deadline_missed(start, d, None, Time::from_ms(3)),
            Some(true)
        );
        assert_eq!(deadline_missed(start, d, None, Time(2_500_000_000)), None);
        assert_eq!(deadline_missed(start, None, late, run_end), None);
        // 1 missed of 3 decided; the undecided and deadline-free flows are not counted.
        let ratio = deadline_miss_ratio([Some(true), Some(false), None, Some(false)]);
        assert!((ratio.unwrap() - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(deadline_miss_ratio([None, None]), None);
    }

    #[test]
    fn rack_core_links_of_a_fat_tree() {
        // k = 4: 8 edge (rack) switches, each with 2 uplinks to aggregation switches, both
        // directions: 32 rack–core links; host links and aggregation–core links are not.
        let link = LinkSpec::new(Rate::gbps(1), Time::from_us(1), Bytes(100_000));
        let topo = uniform_fat_tree(4, link);
        let counted = rack_core_links(&topo);
        assert_eq!(counted.iter().filter(|&&c| c).count(), 32);
    }

    #[test]
    fn slice_proportionality_of_fig3b() {
        // Uranus Fig. 3(b) with SCC's rates on two counted links 0 and 1 (capacity 1): A₁ 1/6
        // and A₂ 9/14, B₁ 5/6 and B₂ 5/14, W_A = W_B = 1. T_A = 34/42, T_B = 50/42, so the
        // index is 84² / (2·(34² + 50²)) = 7056/7312. Doubling B's weight to 2 makes B's
        // normalised share 25/42 and the index (59²)/(2·(34² + 25²)) = 3481/3562.
        let paths = vec![
            vec![LinkId(0)],
            vec![LinkId(1)],
            vec![LinkId(0)],
            vec![LinkId(1)],
        ];
        let rates = [1.0 / 6.0, 9.0 / 14.0, 5.0 / 6.0, 5.0 / 14.0];
        let slice_of = [0, 0, 1, 1];
        let j = slice_proportionality(&paths, &rates, &slice_of, &[1.0, 1.0], &[true, true]);
        assert!((j - 7056.0 / 7312.0).abs() < 1e-12, "{j}");
        let j = slice_proportionality(&paths, &rates, &slice_of, &[1.0, 2.0], &[true, true]);
        assert!((j - 3481.0 / 3562.0).abs() < 1e-12, "{j}");
        // Links not counted carry nothing: only link 1 counted gives T = (9/14, 5/14).
        let j = slice_proportionality(&paths, &rates, &slice_of, &[1.0, 1.0], &[false, true]);
        assert!((j - 196.0 / (2.0 * (81.0 + 25.0))).abs() < 1e-12, "{j}");
    }

    #[test]
    fn wire_bytes_add_a_header_per_packet() {
        assert_eq!(wire_bytes(Bytes(2500), 1000, 48), Bytes(2500 + 3 * 48));
        assert_eq!(wire_bytes(Bytes(1000), 1000, 48), Bytes(1048));
    }

    #[test]
    fn jain_index_of_equal_and_skewed_shares() {
        assert!((jain_index(&[5.0, 5.0, 5.0], None) - 1.0).abs() < 1e-12);
        // One flow takes everything among four: 1/4.
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0], None) - 0.25).abs() < 1e-12);
        // Against a weighted target 1:2, the shares 10 and 20 are perfectly fair.
        assert!((jain_index(&[10.0, 20.0], Some(&[1.0, 2.0])) - 1.0).abs() < 1e-12);
    }
}
