//! s-PERC §8.2.1, Fig. 7: convergence times of s-PERC* and RCP in the datacenter when 40% of
//! the long flows are replaced at once (packet engine). The experiment, its metric and our
//! choices for it are in [`super::convergence`]; this module holds the datacenter setup.
//!
//! Setup (§8.2.1, lines 532–534 of `s-perc.txt`): "a 144-server 3-level fat-tree topology \[4\]
//! with 100 and 400 Gb/s links. We start flows between random pairs of servers, with N = 20
//! flows per server on average … we wait for the rates to converge, then replace 40% of the
//! flows with new ones … ten changes per run". Table 6 (lines 569–574): buffers 128 KB;
//! s-PERC*: 64 B control packets, initial round 20 µs (DC), headroom 2%, ctrl rate 4% (CT);
//! RCP (DC): α = 0.4, β = 0.2.
//!
//! **Topology** (our reading): \[4\] is pFabric, whose topology is 144 servers in 9 racks of 16
//! under a leaf–spine with 4 spines (100 Gb/s edge, 400 Gb/s fabric links there too); "3-level"
//! counts the tiers a packet crosses — servers, leaves, spines — not three switch levels. So
//! Fig. 7 runs on the same [`crate::topo::leaf_spine`] as the FCT entries (Figs. 9–13,
//! `python/fairnet/paper/sperc_fct.py`): 9 leaves × 16 servers, 4 spines, 100 Gb/s server
//! links, 400 Gb/s fabric links, 1 µs per link. Smoke scale: 3 leaves × 4 servers, 2 spines
//! (the FCT entries' smoke shape).
//!
//! **RCP's interval**: Table 6's DC "update interval=100ms" is thousands of datacenter RTTs;
//! §8.2.1 says "every link computes a fair share rate every RTT", and RCP needs `T = d` here
//! (found in an earlier session): [`RcpInterval::Rtt`]. The RTT unit is the largest base RTT
//! (all inter-rack pairs have it; 1,460 B payloads).

use super::convergence::{
    ConvSpec, Net, RateMeasure, RcpInterval, RcpSettings, RttUnit, SPercSettings,
};
use crate::units::{Bytes, Rate, Time};

/// Table 6's datacenter settings of both schemes (convergence-time experiments).
fn dc(net: Net, seed: u64) -> ConvSpec {
    ConvSpec {
        net,
        flows_per_server: 20.0,
        changes: 10,
        replace: 0.4,
        epoch_rtts: 400,
        stable_rtts: 5,
        rtt_unit: RttUnit::Max,
        measure: RateMeasure::Sending,
        mtu: Bytes(1460),
        // The engine's datacenter defaults (1 ms, 1 ms).
        rto: (Time::from_ms(1), Time::from_ms(1)),
        rcp: RcpSettings {
            buffer: Bytes(128 * 1024),
            alpha: 0.4,
            beta: 0.2,
            interval: RcpInterval::Rtt,
        },
        // §2 assumption 6: links update the control packet both ways (the paper's WAN runs
        // are the ones it says update forward only, §8.2.1).
        sperc: SPercSettings::table6(Time::from_us(20), true),
        seed,
    }
}

/// pFabric's leaf–spine at s-PERC's rates, `hosts_per_leaf` × `leaves` servers.
fn leaf_spine(hosts_per_leaf: u32, leaves: u32, spines: u32) -> Net {
    Net::LeafSpine {
        hosts_per_leaf,
        leaves,
        spines,
        host_rate: Rate::gbps(100),
        fabric_rate: Rate::gbps(400),
        delay: Time(Time::US),
    }
}

/// The paper's setup: 144 servers (9 leaves × 16, 4 spines), 20 flows per server, ten
/// changes, 400 RTTs apart.
pub fn full(seed: u64) -> ConvSpec {
    dc(leaf_spine(16, 9, 4), seed)
}

/// The CI scale: 12 servers (3 leaves × 4, 2 spines), 8 flows per server, four changes, 300
/// RTTs apart.
pub fn smoke(seed: u64) -> ConvSpec {
    ConvSpec {
        flows_per_server: 8.0,
        changes: 4,
        epoch_rtts: 300,
        ..dc(leaf_spine(4, 3, 2), seed)
    }
}

#[cfg(test)]
mod tests {
    use super::super::convergence::{run, Scheme};
    use super::*;

    #[test]
    fn full_scale_is_pfabrics_144_servers() {
        assert_eq!(full(1).net.servers(), 144);
        assert_eq!(smoke(1).net.servers(), 12);
    }

    /// A small DC run: s-PERC* reaches 99% of flows within 10% of its max-min rates after a
    /// change, and does so no later than RCP (§8.2.1: "s-PERC* converges at least ten times
    /// faster than RCP").
    #[test]
    fn sperc_converges_and_beats_rcp_on_a_small_leaf_spine() {
        let spec = ConvSpec {
            changes: 1,
            epoch_rtts: 150,
            ..smoke(3)
        };
        let s = run(&spec, Scheme::SPercStar).unwrap();
        let r = run(&spec, Scheme::Rcp).unwrap();
        let ts = s.changes[0].t99_10.expect("s-PERC* converges");
        let tr = r.changes[0].t99_10.unwrap_or(u32::MAX);
        assert!(ts <= tr, "s-PERC* {ts} RTTs, RCP {tr}");
        assert!(s.changes[0].final_within_10 >= 0.99);
    }
}
