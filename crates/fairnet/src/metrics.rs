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

/// Slowdown: actual over ideal FCT (≥ 1 up to rounding).
pub fn slowdown(fct: Time, ideal: Time) -> f64 {
    fct.0 as f64 / ideal.0.max(1) as f64
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

#[cfg(test)]
mod tests {
    use super::*;

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
