//! What a workload's `load` is a fraction of.
//!
//! A generated workload offers traffic at a rate `load · F` (bits/s, all flows together), so its
//! Poisson rate is `λ = load · F / (8 · mean size)`. `F`, the traffic at load 1, depends on which
//! links the load is defined on:
//!
//! - [`LoadOn::Hosts`]: the hosts' access links, `F = Σ` host link rates (the convention of the
//!   HPCC traffic generator, of pFabric and of DCTCP-lineage evaluations on non-blocking fabrics,
//!   where the access links are the bottleneck).
//! - [`LoadOn::RackUplinks`]: the links between each rack switch and the switches above it —
//!   the bottleneck of an oversubscribed fabric (Uranus §5.2's 4:1 fat-tree, §2.2: "the
//!   oversubscription usually happens to links between the rack level and the core level").
//!   `F` is the offered traffic at which, in expectation, the busiest rack's uplinks (or its
//!   downlinks, whichever is busier) are exactly full. With the hosts of a flow drawn as
//!   [`HostPairs`] says, a fraction `out_R` of the traffic leaves rack `R` and `in_R` enters it,
//!   so `F = min_R min(U_R / out_R, D_R / in_R)`, `U_R` and `D_R` the capacities of `R`'s
//!   uplinks and downlinks; a rack no traffic leaves or enters sets no bound.
//!
//! A host's rack is the switch its (first) access link leads to, as in the big-switch
//! abstraction (`systems::uranus::BigSwitch`) and [`crate::metrics::rack_core_links`].

use crate::error::{Error, Result};
use crate::topo::Topology;
use crate::units::Rate;
use serde::{Deserialize, Serialize};

/// Which links a workload's `load` is a fraction of (the module doc gives the closed forms).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum LoadOn {
    /// The hosts' access links: load 1 offers every host's link rate.
    #[default]
    Hosts,
    /// The racks' uplinks (rack switch to the switches above it, and back): load 1 fills the
    /// busiest rack's uplinks or downlinks in expectation.
    RackUplinks,
}

impl LoadOn {
    /// Whether this is the default, [`LoadOn::Hosts`].
    pub fn is_hosts(&self) -> bool {
        *self == LoadOn::Hosts
    }
}

/// How a workload draws a flow's two hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostPairs {
    /// A uniformly random host, to a uniformly random other host
    /// ([`super::random_host_pairs`]; Poisson workloads).
    AnyOther,
    /// A uniformly random host, to a uniformly random host of another rack
    /// ([`super::background_flows`]).
    OtherRack,
}

/// The offered traffic that is load 1 on `load_on` for flows whose hosts are drawn as `pairs`
/// on `topo` (bits/s, all flows together). Errors when `topo` has no hosts, or when no rack
/// uplink carries any of the traffic (one rack, or racks without uplinks).
pub fn full_load(topo: &Topology, pairs: HostPairs, load_on: LoadOn) -> Result<Rate> {
    let hosts = topo.hosts();
    if hosts.is_empty() {
        return Err(Error::invalid("topology", "has no hosts"));
    }
    let access = |h: crate::ids::NodeId| topo.out_links(h).first().map(|&l| topo.link(l));
    if load_on == LoadOn::Hosts {
        let total: u64 = hosts
            .iter()
            .filter_map(|&h| access(h))
            .map(|l| l.capacity.0)
            .sum();
        return Ok(Rate(total));
    }
    // Racks and their host counts, in order of first appearance.
    let mut racks: Vec<(crate::ids::NodeId, f64)> = Vec::new();
    for &h in hosts {
        let Some(l) = access(h) else { continue };
        match racks.iter_mut().find(|(r, _)| *r == l.dst) {
            Some((_, n)) => *n += 1.0,
            None => racks.push((l.dst, 1.0)),
        }
    }
    let n_hosts: f64 = racks.iter().map(|r| r.1).sum();
    // Capacity up (rack switch → another switch) and down (another switch → rack switch).
    let (mut up, mut down) = (vec![0.0; racks.len()], vec![0.0; racks.len()]);
    for l in topo.links() {
        if topo.is_host(l.src) || topo.is_host(l.dst) {
            continue;
        }
        if let Some(i) = racks.iter().position(|r| r.0 == l.src) {
            up[i] += l.capacity.bps();
        }
        if let Some(i) = racks.iter().position(|r| r.0 == l.dst) {
            down[i] += l.capacity.bps();
        }
    }
    // P(source in rack a, destination in rack b), a ≠ b, summed into out_a and in_b.
    let (mut out, mut inn) = (vec![0.0; racks.len()], vec![0.0; racks.len()]);
    for (a, &(_, na)) in racks.iter().enumerate() {
        for (b, &(_, nb)) in racks.iter().enumerate() {
            if a == b {
                continue;
            }
            let p = match pairs {
                HostPairs::AnyOther => na * nb / (n_hosts * (n_hosts - 1.0)),
                HostPairs::OtherRack => na / n_hosts * nb / (n_hosts - na),
            };
            out[a] += p;
            inn[b] += p;
        }
    }
    let mut full = f64::INFINITY;
    for i in 0..racks.len() {
        for (cap, frac) in [(up[i], out[i]), (down[i], inn[i])] {
            if frac > 0.0 {
                full = full.min(cap / frac);
            }
        }
    }
    if !(full.is_finite() && full > 0.0) {
        return Err(Error::invalid(
            "load_on",
            format!(
                "\"rack_uplinks\" needs traffic between racks with uplinks: the topology has \
                 {} rack(s){}",
                racks.len(),
                if full == 0.0 {
                    ", one without uplinks"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(Rate(full.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::builders::uranus_fat_tree;
    use crate::topo::{LinkSpec, Topology};
    use crate::units::{Bytes, Time};

    #[test]
    fn uranus_fat_tree_closed_forms() {
        // §5.2's fat-tree: 64 hosts of 1 Gb/s in 8 racks of 8, each rack 2 uplinks of 1 Gb/s.
        // Hosts: F = 64 Gb/s. Rack uplinks, any other host: a rack's outbound fraction is
        // 8·56 / (64·63) = 1/9, so F = 2 Gb/s · 9 = 18 Gb/s (load 1 on the uplinks is load
        // 18/64 = 0.28125 on the hosts' links). Background, another rack's host: 1/8 of the
        // traffic leaves each rack, F = 2 · 8 = 16 Gb/s.
        let topo = uranus_fat_tree().unwrap();
        let f = |p, on| full_load(&topo, p, on).unwrap().0;
        assert_eq!(f(HostPairs::AnyOther, LoadOn::Hosts), 64_000_000_000);
        assert_eq!(f(HostPairs::OtherRack, LoadOn::Hosts), 64_000_000_000);
        assert_eq!(f(HostPairs::AnyOther, LoadOn::RackUplinks), 18_000_000_000);
        assert_eq!(f(HostPairs::OtherRack, LoadOn::RackUplinks), 16_000_000_000);
    }

    #[test]
    fn poisson_at_uplink_load_fills_each_rack_uplink_to_the_load() {
        // 40,000 flows between random host pairs of §5.2's fat-tree, sizes uniform in
        // [0, 2 MB] (mean 1 MB), load 0.5 on the racks' uplinks (F = 18 Gb/s, above): each
        // rack should send 0.5 · 2 Gb/s = 1 Gb/s to other racks, and receive as much. A rack
        // sends about 40,000/9 ≈ 4,444 of the flows out; the bytes over the span have a
        // relative standard error of about √(E[S²]/N)/E[S] = √(4/3)/√4444 ≈ 1.7%, so each
        // rack's rate is within 6% (3.5 standard errors) of 1 Gb/s but for a small chance;
        // seed 11 fixed.
        let topo = uranus_fat_tree().unwrap();
        let cdf = crate::workload::SizeCdf::parse("0 0\n2000000 100\n", "uniform").unwrap();
        let full = full_load(&topo, HostPairs::AnyOther, LoadOn::RackUplinks).unwrap();
        let f = crate::workload::poisson_flows_offering(topo.hosts(), full, 0.5, &cdf, 40_000, 11)
            .unwrap();
        let span = f.last().unwrap().start.as_secs_f64();
        let rack = |h| topo.link(topo.out_links(h)[0]).dst;
        let mut racks: Vec<_> = topo.hosts().iter().map(|&h| rack(h)).collect();
        racks.dedup();
        assert_eq!(racks.len(), 8);
        for r in racks {
            let bits = |leaving: bool| {
                f.iter()
                    .filter(|x| rack(x.src) != rack(x.dst))
                    .filter(|x| {
                        if leaving {
                            rack(x.src) == r
                        } else {
                            rack(x.dst) == r
                        }
                    })
                    .map(|x| x.size.0 as f64 * 8.0)
                    .sum::<f64>()
                    / span
            };
            for leaving in [true, false] {
                let rate = bits(leaving);
                assert!(
                    (rate / 1e9 - 1.0).abs() < 0.06,
                    "rack {r:?} out {leaving}: {rate}"
                );
            }
        }
    }

    /// Two racks behind one core switch: rack A (switch 0) with `na` hosts and uplink rate
    /// `ua` Gb/s (both directions), rack B (switch 1) with `nb` hosts and `ub` Gb/s.
    fn two_racks(na: u32, nb: u32, ua: u64, ub: u64) -> Topology {
        let link = |gbps| LinkSpec {
            capacity: Rate::gbps(gbps),
            delay: Time::from_us(1),
            buffer: Bytes(1_000_000),
        };
        let mut t = Topology::new();
        let (a, b, core) = (t.add_switch("A"), t.add_switch("B"), t.add_switch("core"));
        t.add_duplex(a, core, link(ua)).unwrap();
        t.add_duplex(b, core, link(ub)).unwrap();
        for (rack, n) in [(a, na), (b, nb)] {
            for i in 0..n {
                let h = t.add_host(format!("h{}-{i}", rack.0));
                t.add_duplex(h, rack, link(10)).unwrap();
            }
        }
        t
    }

    #[test]
    fn unequal_racks_take_the_busiest() {
        // Racks of 2 and 4 hosts (6 in all), uplinks 1 and 4 Gb/s. Any other host: traffic
        // A → B is 2·4 / (6·5) = 4/15 of the flows, and B → A the same, so rack A's uplink
        // bounds F at 1 · 15/4 = 3.75 Gb/s and B's at 4 · 15/4 = 15: F = 3.75 Gb/s.
        // Another rack's host: A → B is 2/6 = 1/3, B → A is 4/6 = 2/3; A's uplink (out 1/3)
        // gives 3, A's downlink (in 2/3) gives 1.5, B's 12 and 6: F = 1.5 Gb/s. Hosts: 60.
        let topo = two_racks(2, 4, 1, 4);
        let f = |p, on| full_load(&topo, p, on).unwrap().0;
        assert_eq!(f(HostPairs::AnyOther, LoadOn::RackUplinks), 3_750_000_000);
        assert_eq!(f(HostPairs::OtherRack, LoadOn::RackUplinks), 1_500_000_000);
        assert_eq!(f(HostPairs::AnyOther, LoadOn::Hosts), 60_000_000_000);
    }

    #[test]
    fn one_rack_has_no_uplink_load() {
        // Every host on one switch: no traffic crosses a rack uplink, so no load on them can
        // be defined; the error names the field.
        let mut topo = two_racks(3, 0, 1, 1);
        assert_eq!(
            full_load(&topo, HostPairs::AnyOther, LoadOn::RackUplinks)
                .unwrap_err()
                .to_string(),
            "load_on: \"rack_uplinks\" needs traffic between racks with uplinks: the topology \
             has 1 rack(s)"
        );
        assert!(full_load(&topo, HostPairs::AnyOther, LoadOn::Hosts).is_ok());
        topo = Topology::new();
        assert_eq!(
            full_load(&topo, HostPairs::AnyOther, LoadOn::Hosts)
                .unwrap_err()
                .to_string(),
            "topology: has no hosts"
        );
    }
}
