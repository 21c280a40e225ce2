//! Flow-list generators shared by the engines: Poisson arrivals at a target load, arrivals of
//! exponentially sized flows between two hosts in a time window, background traffic and bulk
//! senders between racks, permutation, incast and all-to-all. All are deterministic for a given seed.

use super::cdf::SizeCdf;
use super::flows::FlowSpec;
use super::random_host_pairs;
use crate::error::{Error, Result};
use crate::ids::NodeId;
use crate::units::{Bytes, Rate, Time};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One draw of the exponential distribution of mean 1, by inversion: `−ln(1 − u)` for `u`
/// uniform in [0, 1), so `1 − u` is in (0, 1] and the draw is finite. Scaled by a mean (or
/// divided by a rate) it gives the exponential gaps, sizes and deadlines of the generators.
pub(super) fn unit_exponential(rng: &mut impl Rng) -> f64 {
    -(1.0 - rng.gen::<f64>()).ln()
}

/// `n_flows` flows with sizes from `cdf` between uniformly random distinct host pairs, arriving
/// as one Poisson process whose rate offers `load` (a fraction in (0, 1]) of the hosts' total
/// access capacity: `λ = load · host_rate · hosts / (8 · mean size)` (the convention of the HPCC
/// traffic generator, aggregated over hosts). Starts at time 0.
pub fn poisson_flows(
    hosts: &[NodeId],
    host_rate: Rate,
    load: f64,
    cdf: &SizeCdf,
    n_flows: usize,
    seed: u64,
) -> Result<Vec<FlowSpec>> {
    let full = Rate(host_rate.0 * hosts.len() as u64);
    poisson_flows_offering(hosts, full, load, cdf, n_flows, seed)
}

/// [`poisson_flows`] with load 1 being `full` bits/s of offered traffic, all flows together
/// (`λ = load · full / (8 · mean size)`): [`super::full_load`] gives `full` for a load defined
/// on the hosts' links ([`poisson_flows`]'s) or on the racks' uplinks. The same seed draws the
/// same hosts and sizes whatever `full` is; only the starts scale.
pub fn poisson_flows_offering(
    hosts: &[NodeId],
    full: Rate,
    load: f64,
    cdf: &SizeCdf,
    n_flows: usize,
    seed: u64,
) -> Result<Vec<FlowSpec>> {
    if !(load > 0.0 && load <= 1.0) {
        return Err(Error::invalid(
            "load",
            format!("expected a fraction in (0, 1], got {load}"),
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pairs = random_host_pairs(hosts, n_flows, &mut rng)?;
    let lambda = load * full.bps() / (8.0 * cdf.mean());
    let mut t = 0.0f64;
    Ok(pairs
        .into_iter()
        .map(|(src, dst)| {
            let size = cdf.sample(&mut rng);
            let flow = FlowSpec::new(src, dst, size, Time::from_secs_f64(t));
            t += unit_exponential(&mut rng) / lambda;
            flow
        })
        .collect())
}

/// How the flows of [`window_arrivals`] arrive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arrivals {
    /// A Poisson process of the given rate: exponential gaps between starts.
    Poisson,
    /// In every `period` of the window exactly `rate · period` flows (a whole number), each at
    /// an independent uniformly random time within it: eBA §VII-C's short flows, "generated
    /// uniformly at random in each second" (period 1 s).
    PerPeriod {
        /// The period.
        period: Time,
    },
}

/// Flows from `src` to `dst` (group `tag`) starting in `[start, end)` at `rate` flows per
/// second, arriving as `arrivals` says, their sizes drawn independently from an exponential
/// distribution of mean `mean_size` bytes (rounded up to whole bytes, so never 0): e.g. eBA's
/// Fig. 13, short flows of mean 200 KB at 5 or 20 a second from 15 s to 60 s through another
/// tenant's bottleneck. Sorted by start. Errors name the argument.
#[allow(clippy::too_many_arguments)]
pub fn window_arrivals(
    src: NodeId,
    dst: NodeId,
    tag: u32,
    rate: f64,
    mean_size: Bytes,
    start: Time,
    end: Time,
    arrivals: Arrivals,
    seed: u64,
) -> Result<Vec<FlowSpec>> {
    if !(rate > 0.0 && rate.is_finite()) {
        return Err(Error::invalid(
            "rate",
            format!("expected a positive number of flows a second, got {rate}"),
        ));
    }
    if mean_size.0 == 0 {
        return Err(Error::invalid(
            "mean_size",
            "expected a positive size, got 0",
        ));
    }
    if end <= start {
        return Err(Error::invalid(
            "end",
            format!("the window must end after its start ({start}), got {end}"),
        ));
    }
    if src == dst {
        return Err(Error::invalid(
            "dst",
            format!(
                "the flows' source and destination are the same host {}",
                src.0
            ),
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (a, b) = (start.as_secs_f64(), end.as_secs_f64());
    let mut starts: Vec<f64> = Vec::new();
    match arrivals {
        Arrivals::Poisson => {
            let mut t = a + unit_exponential(&mut rng) / rate;
            while t < b {
                starts.push(t);
                t += unit_exponential(&mut rng) / rate;
            }
        }
        Arrivals::PerPeriod { period } => {
            let p = period.as_secs_f64();
            let per = rate * p;
            if period == Time::ZERO || (per - per.round()).abs() > 1e-9 || per.round() < 1.0 {
                return Err(Error::invalid(
                    "period",
                    format!(
                        "rate · period must be a whole number of flows, got {rate} /s · {p} s \
                         = {per}"
                    ),
                ));
            }
            let mut t0 = a;
            while t0 < b {
                let len = p.min(b - t0);
                // A last, shorter period keeps the rate: its share of the whole number.
                let n = (per * len / p).round() as usize;
                starts.extend((0..n).map(|_| t0 + rng.gen::<f64>() * len));
                t0 += p;
            }
            starts.sort_by(f64::total_cmp);
        }
    }
    let mean = mean_size.0 as f64;
    Ok(starts
        .into_iter()
        .map(|t| {
            let size = (unit_exponential(&mut rng) * mean).ceil().max(1.0);
            let mut f = FlowSpec::new(src, dst, Bytes(size as u64), Time::from_secs_f64(t));
            f.tag = tag;
            f
        })
        .collect())
}

/// Gives every flow a deadline (relative to its start) drawn independently from an exponential
/// distribution of mean `mean`, as L2DCT's evaluation (and D2TCP's, after D3) draws deadlines
/// for deadline-sensitive traffic. The draws use their own random stream (derived from `seed`),
/// so the flows' sizes, starts and hosts are those of the same workload without deadlines. A
/// draw that rounds to zero becomes 1 ps (a deadline must be positive).
pub fn exponential_deadlines(flows: &mut [FlowSpec], mean: Time, seed: u64) -> Result<()> {
    if mean == Time::ZERO {
        return Err(Error::invalid(
            "deadline_mean",
            "expected a positive duration, got 0",
        ));
    }
    // A stream apart from the one that drew the flows (any fixed odd constant will do).
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x9E37_79B9_7F4A_7C15);
    for f in flows {
        let d = unit_exponential(&mut rng) * mean.as_secs_f64();
        f.deadline = Some(Time::from_secs_f64(d).max(Time(1)));
    }
    Ok(())
}

/// Splits one workload into `classes` independent workloads of equal rate: every flow's tag is
/// drawn uniformly from `0..classes` (independent thinning of a Poisson process gives
/// independent Poisson processes, each of rate λ/classes). The draws use their own random
/// stream (derived from `seed`), so sizes, starts and hosts are those of the unsplit workload.
/// Uranus §5.2.2's coexistence runs: "the two slices share the same Poisson parameters".
pub fn split_tags(flows: &mut [FlowSpec], classes: u32, seed: u64) -> Result<()> {
    if classes == 0 {
        return Err(Error::invalid("tags", "expected at least 1 class, got 0"));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5851_F42D_4C95_7F2D);
    for f in flows {
        f.tag = rng.gen_range(0..classes);
    }
    Ok(())
}

/// Random background traffic between racks (Uranus §5.2.1: "background traffic randomly among
/// racks, consuming around 10% bandwidth resource"): flows from a uniformly random host to a
/// uniformly random host of another rack (`rack[i]` is `hosts[i]`'s rack), sizes from `cdf`,
/// arriving as one Poisson process from time 0 up to `until` that offers `load · full` bits/s,
/// `λ = load · full / (8 · mean size)`. `full` is load 1 on the links the workload's load is
/// defined on ([`super::full_load`] with [`super::HostPairs::OtherRack`]): on the hosts' links
/// the hosts' total access capacity, the convention of [`poisson_flows`], so a workload at load
/// `L` with background `b` offers `L + b` of it; on the racks' uplinks `b` of their capacity.
/// Every flow has weight 1, tag `tag`, no deadline. Deterministic for a given seed.
#[allow(clippy::too_many_arguments)]
pub fn background_flows(
    hosts: &[NodeId],
    rack: &[u32],
    full: Rate,
    load: f64,
    cdf: &SizeCdf,
    until: Time,
    tag: u32,
    seed: u64,
) -> Result<Vec<FlowSpec>> {
    if !(load > 0.0 && load <= 1.0) {
        return Err(Error::invalid(
            "background.load",
            format!("expected a fraction in (0, 1], got {load}"),
        ));
    }
    check_racks(hosts, rack, "background")?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xB5AD_4ECE_DA1C_E2A9);
    let lambda = load * full.bps() / (8.0 * cdf.mean());
    let mut flows = Vec::new();
    let mut t = unit_exponential(&mut rng) / lambda;
    while t < until.as_secs_f64() {
        let s = rng.gen_range(0..hosts.len());
        let d = host_in_another_rack(rack, s, &mut rng);
        let mut f = FlowSpec::new(
            hosts[s],
            hosts[d],
            cdf.sample(&mut rng),
            Time::from_secs_f64(t),
        );
        f.tag = tag;
        flows.push(f);
        t += unit_exponential(&mut rng) / lambda;
    }
    Ok(flows)
}

/// Checks that `rack` gives every host a rack and that there are at least two racks (`what`
/// names the workload element in the error).
fn check_racks(hosts: &[NodeId], rack: &[u32], what: &str) -> Result<()> {
    if rack.len() != hosts.len() {
        return Err(Error::invalid(
            "rack",
            format!("{} racks for {} hosts", rack.len(), hosts.len()),
        ));
    }
    let mut racks: Vec<u32> = rack.to_vec();
    racks.sort_unstable();
    racks.dedup();
    if racks.len() < 2 {
        return Err(Error::invalid(
            what,
            "traffic between racks needs at least 2 racks, the topology has 1",
        ));
    }
    Ok(())
}

/// The index of a host drawn uniformly among the hosts of the racks other than host `s`'s
/// (rejection sampling; [`check_racks`] guarantees there is one).
fn host_in_another_rack(rack: &[u32], s: usize, rng: &mut impl Rng) -> usize {
    loop {
        let d = rng.gen_range(0..rack.len());
        if rack[d] != rack[s] {
            return d;
        }
    }
}

/// Long-lived "bulk senders" between racks (Uranus §5.2.1: "at each host sending packets, the
/// client works as a *bulk-sender*, i.e., sending packets as fast as possible", the traffic
/// of each slice "uniformly distributed across racks"): every host starts `per_host` flows of
/// each class `0 … tags − 1` at `start`, each of `size` bytes (large enough to outlast the
/// run, which `stop_at` ends) to a host drawn uniformly among the other racks' hosts (`rack[i]`
/// is `hosts[i]`'s rack). Flows are listed host by host, class by class; a flow's tag is its
/// class. Weight 1, no deadline. Deterministic for a given seed.
#[allow(clippy::too_many_arguments)]
pub fn bulk_flows(
    hosts: &[NodeId],
    rack: &[u32],
    per_host: u32,
    tags: u32,
    size: Bytes,
    start: Time,
    seed: u64,
) -> Result<Vec<FlowSpec>> {
    if per_host == 0 {
        return Err(Error::invalid(
            "per_host",
            "expected at least 1 flow, got 0",
        ));
    }
    if tags == 0 {
        return Err(Error::invalid("tags", "expected at least 1 class, got 0"));
    }
    if size.0 == 0 {
        return Err(Error::invalid("size", "expected a positive size, got 0B"));
    }
    check_racks(hosts, rack, "bulk")?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x2545_F491_4F6C_DD1D);
    let mut flows = Vec::with_capacity(hosts.len() * (per_host * tags) as usize);
    for s in 0..hosts.len() {
        for tag in 0..tags {
            for _ in 0..per_host {
                let d = host_in_another_rack(rack, s, &mut rng);
                let mut f = FlowSpec::new(hosts[s], hosts[d], size, start);
                f.tag = tag;
                flows.push(f);
            }
        }
    }
    Ok(flows)
}

/// Every host sends one flow of `size` to a distinct host (a random derangement), all at time 0.
pub fn permutation_flows(hosts: &[NodeId], size: Bytes, seed: u64) -> Result<Vec<FlowSpec>> {
    if hosts.len() < 2 {
        return Err(Error::invalid(
            "workload",
            "a permutation needs at least 2 hosts",
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Sattolo's algorithm: a uniformly random cyclic permutation has no fixed point.
    let mut target: Vec<usize> = (0..hosts.len()).collect();
    for i in (1..target.len()).rev() {
        let j = rng.gen_range(0..i);
        target.swap(i, j);
    }
    Ok((0..hosts.len())
        .map(|i| FlowSpec::new(hosts[i], hosts[target[i]], size, Time::ZERO))
        .collect())
}

/// `senders` random hosts each send `size` to one random receiver at `start` (incast).
pub fn incast_flows(
    hosts: &[NodeId],
    senders: usize,
    size: Bytes,
    start: Time,
    seed: u64,
) -> Result<Vec<FlowSpec>> {
    if senders + 1 > hosts.len() {
        return Err(Error::invalid(
            "workload.senders",
            format!(
                "incast of {senders} senders needs {} hosts, the topology has {}",
                senders + 1,
                hosts.len()
            ),
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut chosen: Vec<NodeId> = hosts.to_vec();
    chosen.shuffle(&mut rng);
    let dst = chosen[0];
    Ok(chosen[1..=senders]
        .iter()
        .map(|&src| FlowSpec::new(src, dst, size, start))
        .collect())
}

/// Every host sends `size` to every other host at `start`.
pub fn all_to_all_flows(hosts: &[NodeId], size: Bytes, start: Time) -> Vec<FlowSpec> {
    let mut flows = Vec::with_capacity(hosts.len() * hosts.len().saturating_sub(1));
    for &s in hosts {
        for &d in hosts {
            if s != d {
                flows.push(FlowSpec::new(s, d, size, start));
            }
        }
    }
    flows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(n: u32) -> Vec<NodeId> {
        (0..n).map(NodeId).collect()
    }

    #[test]
    fn poisson_offers_the_target_load() {
        // 16 hosts at 10 Gb/s, 50% load, all flows 1 MB: λ = 0.5·160e9 / 8e6 = 10,000 flows/s,
        // so 20,000 flows span about 2 s.
        let cdf = SizeCdf::parse("1000000 0\n1000000 100\n", "fixed").unwrap();
        let f = poisson_flows(&hosts(16), Rate::gbps(10), 0.5, &cdf, 20_000, 3).unwrap();
        let span = f.last().unwrap().start.as_secs_f64();
        assert!((span - 2.0).abs() < 0.1, "span {span}");
        assert!(f.windows(2).all(|w| w[0].start <= w[1].start));
        assert!(poisson_flows(&hosts(4), Rate::gbps(10), 1.4, &cdf, 1, 1)
            .unwrap_err()
            .to_string()
            .contains("expected a fraction in (0, 1], got 1.4"));
    }

    #[test]
    fn exponential_deadlines_have_the_mean_and_leave_the_flows_alone() {
        // 20,000 draws of an exponential of mean 20 ms: its standard deviation is the mean, so
        // the sample mean is within 3 standard errors (3/√20000 ≈ 2.1%) of 20 ms but for a
        // 0.3% chance; seed 5 fixed. The fraction beyond the mean is e⁻¹ ≈ 0.368 (binomial
        // standard error 0.34%: within 0.015). Sizes, starts and hosts are those drawn without
        // deadlines; a zero mean is an error naming the field.
        let cdf = SizeCdf::parse("1000000 0\n1000000 100\n", "fixed").unwrap();
        let plain = poisson_flows(&hosts(16), Rate::gbps(10), 0.5, &cdf, 20_000, 5).unwrap();
        let mut f = plain.clone();
        let mean = Time::from_ms(20);
        exponential_deadlines(&mut f, mean, 5).unwrap();
        let d: Vec<f64> = f
            .iter()
            .map(|x| x.deadline.unwrap().as_secs_f64())
            .collect();
        let m = d.iter().sum::<f64>() / d.len() as f64;
        assert!(
            (m / 0.02 - 1.0).abs() < 3.0 / (20_000f64).sqrt(),
            "mean {m}"
        );
        let beyond = d.iter().filter(|&&x| x > 0.02).count() as f64 / d.len() as f64;
        assert!((beyond - (-1f64).exp()).abs() < 0.015, "{beyond}");
        assert!(f
            .iter()
            .zip(&plain)
            .all(|(a, b)| { (a.src, a.dst, a.size, a.start) == (b.src, b.dst, b.size, b.start) }));
        assert_eq!(
            exponential_deadlines(&mut f, Time::ZERO, 5)
                .unwrap_err()
                .to_string(),
            "deadline_mean: expected a positive duration, got 0"
        );
    }

    #[test]
    fn background_offers_its_load_between_racks() {
        // 64 hosts in 8 racks of 8 at 1 Gb/s, background at 10% of the hosts' access capacity
        // (load 1 = 64 Gb/s),
        // sizes uniform in [0, 2 MB] (mean 1 MB): λ = 0.1 · 64e9 / 8e6 = 800 flows/s, so 5 s
        // hold N ≈ 4,000 flows (Poisson: standard deviation √4000 ≈ 63, 1.6%) offering
        // 0.1 · 64 Gb/s = 6.4 Gb/s. The offered bytes over the span, Σ sizes / 5 s, have a
        // relative standard error of √(E[S²]/N)/E[S] = √(4/3)/√4000 ≈ 1.8%: within 6% (over
        // 3 standard errors) of the closed form but for a 0.3% chance; seed 3 fixed. Every
        // flow crosses racks, starts before `until`, has the tag, no deadline; every rack
        // sends about 1/8 of the flows (binomial, σ ≈ 0.52% of all flows: within 2.5%).
        let cdf = SizeCdf::parse("0 0\n2000000 100\n", "uniform").unwrap();
        let h = hosts(64);
        let rack: Vec<u32> = (0..64).map(|i| i / 8).collect();
        let until = Time::from_ms(5000);
        let f = background_flows(&h, &rack, Rate::gbps(64), 0.1, &cdf, until, 7, 3).unwrap();
        let offered = f.iter().map(|x| x.size.0 as f64 * 8.0).sum::<f64>() / 5.0;
        assert!((offered / 6.4e9 - 1.0).abs() < 0.06, "offered {offered}");
        assert!(
            (f.len() as f64 / 4000.0 - 1.0).abs() < 0.06,
            "{} flows",
            f.len()
        );
        assert!(f
            .iter()
            .all(|x| rack[x.src.0 as usize] != rack[x.dst.0 as usize]));
        assert!(f
            .iter()
            .all(|x| x.start < until && x.tag == 7 && x.deadline.is_none()));
        assert!(f.windows(2).all(|w| w[0].start <= w[1].start));
        for r in 0..8 {
            let n = f.iter().filter(|x| rack[x.src.0 as usize] == r).count() as f64;
            assert!((n / f.len() as f64 - 0.125).abs() < 0.025, "rack {r}: {n}");
        }
        let err = |r: &[u32]| {
            background_flows(&h, r, Rate::gbps(64), 0.1, &cdf, until, 7, 3)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(&[0; 64]),
            "background: traffic between racks needs at least 2 racks, the topology has 1"
        );
        assert_eq!(err(&[0; 3]), "rack: 3 racks for 64 hosts");
    }

    #[test]
    fn bulk_senders_start_per_host_flows_of_each_class_to_other_racks() {
        // 64 hosts in 8 racks of 8, 2 flows per host of each of 2 classes: 256 flows, listed
        // host by host and class by class (host 0's tags 0, 0, 1, 1 first), every one of the
        // given size and start, between racks, weight 1, no deadline. Destinations are uniform
        // over the 56 hosts of the other racks, so each rack receives about 1/8 of the flows
        // (binomial over 256: σ ≈ 2.1% of all flows; within 7%, over 3σ, seed 4 fixed).
        let h = hosts(64);
        let rack: Vec<u32> = (0..64).map(|i| i / 8).collect();
        let f = bulk_flows(&h, &rack, 2, 2, Bytes(10_000_000), Time::from_us(5), 4).unwrap();
        assert_eq!(f.len(), 256);
        assert_eq!(
            f[..5].iter().map(|x| (x.src.0, x.tag)).collect::<Vec<_>>(),
            [(0, 0), (0, 0), (0, 1), (0, 1), (1, 0)]
        );
        assert!(f
            .iter()
            .all(|x| rack[x.src.0 as usize] != rack[x.dst.0 as usize]
                && x.size == Bytes(10_000_000)
                && x.start == Time::from_us(5)
                && x.weight == 1.0
                && x.deadline.is_none()));
        for r in 0..8 {
            let n = f.iter().filter(|x| rack[x.dst.0 as usize] == r).count() as f64;
            assert!((n / 256.0 - 0.125).abs() < 0.07, "rack {r}: {n}");
        }
        assert_eq!(
            f,
            bulk_flows(&h, &rack, 2, 2, Bytes(10_000_000), Time::from_us(5), 4).unwrap()
        );
        let err = |per: u32, tags: u32, size: u64, r: &[u32]| {
            bulk_flows(&h, r, per, tags, Bytes(size), Time::ZERO, 4)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(0, 1, 1, &rack),
            "per_host: expected at least 1 flow, got 0"
        );
        assert_eq!(
            err(1, 0, 1, &rack),
            "tags: expected at least 1 class, got 0"
        );
        assert_eq!(
            err(1, 1, 0, &rack),
            "size: expected a positive size, got 0B"
        );
        assert_eq!(
            err(1, 1, 1, &[0; 64]),
            "bulk: traffic between racks needs at least 2 racks, the topology has 1"
        );
    }

    #[test]
    fn split_tags_thins_the_workload_evenly() {
        // 20,000 flows split in 2: each tag's count is binomial (σ = 0.35%): within 2% of
        // half; the flows are otherwise unchanged; 0 classes is an error naming the field.
        let cdf = SizeCdf::parse("1000000 0\n1000000 100\n", "fixed").unwrap();
        let plain = poisson_flows(&hosts(16), Rate::gbps(10), 0.5, &cdf, 20_000, 5).unwrap();
        let mut f = plain.clone();
        split_tags(&mut f, 2, 5).unwrap();
        let ones = f.iter().filter(|x| x.tag == 1).count() as f64 / 20_000.0;
        assert!((ones - 0.5).abs() < 0.02, "{ones}");
        assert!(f.iter().all(|x| x.tag < 2));
        assert!(f
            .iter()
            .zip(&plain)
            .all(|(a, b)| (a.src, a.dst, a.size, a.start) == (b.src, b.dst, b.size, b.start)));
        assert_eq!(
            split_tags(&mut f, 0, 5).unwrap_err().to_string(),
            "tags: expected at least 1 class, got 0"
        );
    }

    #[test]
    fn permutation_is_a_derangement() {
        let f = permutation_flows(&hosts(128), Bytes(1000), 7).unwrap();
        let mut dsts: Vec<u32> = f.iter().map(|x| x.dst.0).collect();
        assert!(f.iter().all(|x| x.src != x.dst));
        dsts.sort();
        assert_eq!(dsts, (0..128).collect::<Vec<_>>());
    }

    #[test]
    fn incast_and_all_to_all() {
        let f = incast_flows(&hosts(10), 9, Bytes(10), Time::ZERO, 1).unwrap();
        assert!(f.iter().all(|x| x.dst == f[0].dst && x.src != x.dst));
        assert!(incast_flows(&hosts(10), 10, Bytes(10), Time::ZERO, 1).is_err());
        assert_eq!(all_to_all_flows(&hosts(5), Bytes(1), Time::ZERO).len(), 20);
    }
    #[test]
    fn window_arrivals_keep_the_rate_the_window_and_the_mean_size() {
        // 2,000 flows a second for 10 s, mean 200 KB. Poisson: the count is Poisson(20,000),
        // standard deviation 141, so within 3% (4σ) but for a negligible chance; per period of
        // 1 s exactly 2,000 in each second. Exponential sizes: standard deviation = mean, so
        // the sample mean of 20,000 is within 3% (4.2 standard errors) of 200 KB. Every start
        // in [5 s, 15 s), sorted, tagged. Seeds fixed (7).
        let (a, b) = (Time::from_ms(5000), Time::from_ms(15000));
        let mean = Bytes(200_000);
        let poisson = window_arrivals(
            NodeId(1),
            NodeId(3),
            4,
            2000.0,
            mean,
            a,
            b,
            Arrivals::Poisson,
            7,
        )
        .unwrap();
        assert!(
            (poisson.len() as f64 / 20_000.0 - 1.0).abs() < 0.03,
            "{}",
            poisson.len()
        );
        let per = Arrivals::PerPeriod {
            period: Time::from_ms(1000),
        };
        let uniform = window_arrivals(NodeId(1), NodeId(3), 4, 2000.0, mean, a, b, per, 7).unwrap();
        assert_eq!(uniform.len(), 20_000);
        for second in 5..15u64 {
            let n = uniform
                .iter()
                .filter(|f| f.start.0 / Time::S == second)
                .count();
            assert_eq!(n, 2000, "second {second}");
        }
        for flows in [&poisson, &uniform] {
            assert!(flows
                .iter()
                .all(|f| f.start >= a && f.start < b && f.size.0 >= 1));
            assert!(flows.windows(2).all(|w| w[0].start <= w[1].start));
            assert!(flows
                .iter()
                .all(|f| f.tag == 4 && f.src == NodeId(1) && f.dst == NodeId(3)));
            let m = flows.iter().map(|f| f.size.0 as f64).sum::<f64>() / flows.len() as f64;
            assert!((m / 200_000.0 - 1.0).abs() < 0.03, "mean {m}");
        }
        // Bad input: one-line errors naming the argument.
        let err = |r: Result<Vec<FlowSpec>>| r.unwrap_err().to_string();
        let w = |rate, arrivals| {
            window_arrivals(NodeId(1), NodeId(3), 0, rate, mean, a, b, arrivals, 1)
        };
        assert!(err(w(0.0, Arrivals::Poisson)).starts_with("rate:"));
        let odd = Arrivals::PerPeriod {
            period: Time::from_ms(100),
        };
        assert!(
            err(w(5.0, odd)).starts_with("period:"),
            "{}",
            err(w(5.0, odd))
        );
        let back = window_arrivals(
            NodeId(1),
            NodeId(3),
            0,
            5.0,
            mean,
            b,
            a,
            Arrivals::Poisson,
            1,
        );
        assert!(err(back).starts_with("end:"));
    }
}
