//! A lower bound on drawn deadlines (scenario `workload.deadline_min`,
//! `workload.deadline_min_fct_alone`), applied after [`super::exponential_deadlines`].
//!
//! Why: an exponential deadline of mean `m` is shorter than any given `t` with probability
//! `1 − e^{−t/m}`, so a workload of large flows gets many deadlines that no scheduler can meet
//! (on Uranus §5.2's web search with mean 20 ms, about 28% are shorter than the flow's FCT
//! alone on the empty network). Deadline-scheduler evaluations bound the draw below for this
//! reason: PDQ (Hong, Caesar, Godfrey, SIGCOMM 2012, §5.1, as we recall it — the paper is not
//! in the repository) draws D³'s exponential deadlines and imposes a lower bound of 3 ms,
//! since some draws would be unrealistically tiny. Two bounds are offered, and both may be
//! set (the larger applies):
//!
//! - a fixed duration (`deadline_min`, e.g. PDQ's `"3ms"`);
//! - the flow's FCT alone on the empty network (`deadline_min_fct_alone = true`):
//!   [`crate::metrics::ideal_fct`] on the flow's first shortest path with its wire bytes — the
//!   `ideal_fct_s` of the run's flow table — so that no deadline is infeasible by that
//!   definition.
//!
//! How a draw below the bound is treated ("impose a lower bound" does not say; the scenario
//! chooses, `deadline_min_redraw`):
//!
//! - **clamped** to the bound (the default, the plain reading): the draws above it keep the
//!   exponential law, and a raised deadline has no slack beyond the bound;
//! - **redrawn** until it passes the bound: by the exponential's memorylessness a redrawn
//!   deadline is `bound + Exp(m)`, drawn here in one step from its own random stream, so a
//!   raised deadline keeps the same mean slack `m` beyond its bound.
//!
//! Either way the flows' sizes, starts and hosts are untouched.

use super::flows::FlowSpec;
use super::generators::unit_exponential;
use crate::error::Result;
use crate::metrics::{ideal_fct, wire_bytes};
use crate::topo::routing::{PathSelector, Routing};
use crate::topo::Topology;
use crate::units::{Bytes, Time};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A lower bound on every drawn deadline; the larger of the bounds set applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeadlineFloor {
    /// A fixed minimum deadline (PDQ's 3 ms), if any.
    pub fixed: Option<Time>,
    /// Bound every deadline below by the flow's FCT alone on the empty network.
    pub fct_alone: bool,
    /// Redraw a deadline below the bound (`bound + Exp(mean)`) instead of clamping it.
    pub redraw: bool,
}

/// How a flow's bytes travel, for its FCT alone: packets of at most `mtu` payload bytes each
/// carrying `header` bytes, and a `fixed` latency added to every flow (the flow engine's start
/// latency; zero on the packet engine), as the engine that runs the flows counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireFormat {
    /// Payload bytes per packet.
    pub mtu: Bytes,
    /// Header bytes per packet.
    pub header: Bytes,
    /// Latency added to every flow's ideal FCT.
    pub fixed: Time,
}

/// The FCT of `flow` alone on the empty network: [`ideal_fct`] on its first shortest path (in
/// a fabric whose equal-cost paths have equal delays, every path's), its wire bytes at the
/// path's slowest link plus the path's propagation delay and `wire.fixed`.
pub fn fct_alone(
    topo: &Topology,
    routing: &Routing,
    flow: &FlowSpec,
    wire: WireFormat,
) -> Result<Time> {
    let path = routing.path(flow.src, flow.dst, PathSelector::First)?;
    let bytes = wire_bytes(flow.size, wire.mtu.0, wire.header.0);
    Ok(ideal_fct(topo, &path, bytes, wire.fixed))
}

/// Raises every deadline of `flows` below `floor` to it, or with `floor.redraw` to the bound
/// plus an exponential draw of mean `mean` (the deadlines' own mean; random stream from
/// `seed`). Flows without a deadline are left alone. Returns how many deadlines were raised.
pub fn floor_deadlines(
    flows: &mut [FlowSpec],
    floor: DeadlineFloor,
    topo: &Topology,
    wire: WireFormat,
    mean: Time,
    seed: u64,
) -> Result<usize> {
    if floor.fixed.is_none() && !floor.fct_alone {
        return Ok(0);
    }
    let routing = Routing::new(topo);
    // A stream apart from the flows' and the deadlines' (any fixed odd constant will do).
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5851_F42D_4C95_7F2D);
    let mut raised = 0;
    for f in flows.iter_mut() {
        let Some(d) = f.deadline else { continue };
        let mut bound = floor.fixed.unwrap_or(Time::ZERO);
        if floor.fct_alone {
            bound = bound.max(fct_alone(topo, &routing, f, wire)?);
        }
        if d < bound {
            let slack = if floor.redraw {
                Time::from_secs_f64(unit_exponential(&mut rng) * mean.as_secs_f64())
            } else {
                Time::ZERO
            };
            f.deadline = Some(bound + slack);
            raised += 1;
        }
    }
    Ok(raised)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::builders::{fat_tree, FatTreeSpec};
    use crate::topo::LinkSpec;
    use crate::units::Rate;
    use crate::workload::{exponential_deadlines, poisson_flows, SizeCdf};

    const MEAN: Time = Time::from_ms(20);
    const WIRE: WireFormat = WireFormat {
        mtu: Bytes(1460),
        header: Bytes(40),
        fixed: Time::ZERO,
    };

    fn workload() -> (Topology, Vec<FlowSpec>) {
        // A k = 4 fat-tree of 1 Gb/s links (5 µs each), web-search-like sizes from 1 KB to
        // 10 MB, 2,000 flows with exponential deadlines of mean 20 ms (seed 3).
        let link = LinkSpec {
            capacity: Rate::gbps(1),
            delay: Time::from_us(5),
            buffer: Bytes(1_000_000),
        };
        let topo = fat_tree(FatTreeSpec {
            k: 4,
            host_link: link,
            fabric_link: link,
            oversubscription: 1,
        })
        .unwrap();
        let cdf = SizeCdf::parse("1000 0\n100000 50\n10000000 100\n", "t").unwrap();
        let hosts = topo.hosts().to_vec();
        let mut f = poisson_flows(&hosts, Rate::gbps(1), 0.5, &cdf, 2000, 3).unwrap();
        exponential_deadlines(&mut f, MEAN, 3).unwrap();
        (topo, f)
    }

    #[test]
    fn no_deadline_is_below_the_flows_fct_alone() {
        // With the FCT-alone bound, every deadline is at least the flow's ideal FCT (the run's
        // `ideal_fct_s`), a draw already above it is unchanged, and the flows' sizes, starts and
        // hosts are those drawn without the bound. A 10 MB flow alone at 1 Gb/s takes > 80 ms,
        // past the 20 ms mean, so some of these draws must be raised (P(d < 80 ms) = 1 − e⁻⁴).
        let (topo, drawn) = workload();
        let routing = Routing::new(&topo);
        let mut f = drawn.clone();
        let floor = DeadlineFloor {
            fixed: None,
            fct_alone: true,
            redraw: false,
        };
        let raised = floor_deadlines(&mut f, floor, &topo, WIRE, MEAN, 3).unwrap();
        assert!(raised > 0);
        let mut counted = 0;
        for (a, b) in f.iter().zip(&drawn) {
            let alone = fct_alone(&topo, &routing, a, WIRE).unwrap();
            let (d, d0) = (a.deadline.unwrap(), b.deadline.unwrap());
            assert!(
                d >= alone,
                "flow of {} B: deadline {d:?} below {alone:?}",
                a.size.0
            );
            assert_eq!(d, d0.max(alone));
            counted += usize::from(d0 < alone);
            assert_eq!(
                (a.src, a.dst, a.size, a.start),
                (b.src, b.dst, b.size, b.start)
            );
        }
        assert_eq!(counted, raised);
    }

    #[test]
    fn a_fixed_bound_clamps_and_the_larger_bound_applies() {
        // PDQ's 3 ms: every deadline ≥ 3 ms, the draws below it become exactly 3 ms (a
        // fraction 1 − e^{−3/20} ≈ 0.14 of them: binomial standard error 0.8% on 2,000, so
        // within 0.04 but for a negligible chance), the others unchanged. With both bounds,
        // each deadline is the largest of its draw, 3 ms and its FCT alone. No bound: no change.
        let (topo, drawn) = workload();
        let routing = Routing::new(&topo);
        let three = Time::from_ms(3);
        let mut f = drawn.clone();
        let fixed = DeadlineFloor {
            fixed: Some(three),
            fct_alone: false,
            redraw: false,
        };
        let raised = floor_deadlines(&mut f, fixed, &topo, WIRE, MEAN, 3).unwrap();
        let share = raised as f64 / f.len() as f64;
        assert!((share - (1.0 - (-0.15f64).exp())).abs() < 0.04, "{share}");
        assert!(f
            .iter()
            .zip(&drawn)
            .all(|(a, b)| a.deadline == Some(b.deadline.unwrap().max(three))));
        let mut both = drawn.clone();
        let floor = DeadlineFloor {
            fixed: Some(three),
            fct_alone: true,
            redraw: false,
        };
        floor_deadlines(&mut both, floor, &topo, WIRE, MEAN, 3).unwrap();
        assert!(both.iter().zip(&drawn).all(|(a, b)| {
            let alone = fct_alone(&topo, &routing, a, WIRE).unwrap();
            a.deadline == Some(b.deadline.unwrap().max(three).max(alone))
        }));
        let mut none = drawn.clone();
        assert_eq!(
            floor_deadlines(&mut none, DeadlineFloor::default(), &topo, WIRE, MEAN, 3).unwrap(),
            0
        );
        assert!(none
            .iter()
            .zip(&drawn)
            .all(|(a, b)| a.deadline == b.deadline));
    }

    #[test]
    fn a_redrawn_deadline_keeps_its_slack_beyond_the_bound() {
        // Redrawing: every deadline at least its FCT alone; a draw already above is unchanged;
        // a raised one is its bound plus an exponential of mean 20 ms (what redrawing until
        // the bound is passed gives, by memorylessness), so over the raised flows the mean
        // excess is 20 ms within 4 standard errors (the standard deviation is the mean: 4 ·
        // 20 ms / √n) but for a 6·10⁻⁵ chance. Seed 3 fixed; the same seed gives the same
        // deadlines.
        let (topo, drawn) = workload();
        let routing = Routing::new(&topo);
        let floor = DeadlineFloor {
            fixed: None,
            fct_alone: true,
            redraw: true,
        };
        let mut f = drawn.clone();
        let raised = floor_deadlines(&mut f, floor, &topo, WIRE, MEAN, 3).unwrap();
        let mut excess = Vec::new();
        for (a, b) in f.iter().zip(&drawn) {
            let alone = fct_alone(&topo, &routing, a, WIRE).unwrap();
            let (d, d0) = (a.deadline.unwrap(), b.deadline.unwrap());
            assert!(d >= alone);
            if d0 < alone {
                excess.push((d - alone).as_secs_f64());
            } else {
                assert_eq!(d, d0);
            }
        }
        assert_eq!(excess.len(), raised);
        let n = excess.len() as f64;
        let m = excess.iter().sum::<f64>() / n;
        assert!(
            (m - 0.02).abs() < 4.0 * 0.02 / n.sqrt(),
            "mean excess {m} over {n}"
        );
        let mut again = drawn.clone();
        floor_deadlines(&mut again, floor, &topo, WIRE, MEAN, 3).unwrap();
        assert!(again.iter().zip(&f).all(|(a, b)| a.deadline == b.deadline));
    }
}
