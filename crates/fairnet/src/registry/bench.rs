//! The htsim yardstick scenario and a timed run of it, shared by the `packet_bench` example
//! and the Python binding (`fairnet._core.packet_bench`).
//!
//! The scenario (as htsim's published DCTCP fat-tree runs): a k-ary fat-tree (k = 8: 128
//! hosts), 100 Gb/s links, 1 µs per link, 100-packet port buffers, DCTCP with ECN step marking
//! at K = 15 packets, 1500 B packets on the wire (1452 B payload + 48 B header), permutation
//! traffic (a seeded random derangement: each host sends one long flow to a distinct other
//! host, one ECMP path per flow).
//!
//! The second benchmark ([`websearch_scenario`]) keeps the fabric and the transport and
//! replaces the permutation with web-search flows (DCTCP paper's distribution) arriving as a
//! Poisson process at a fraction of the host links' capacity (50% in `fairnet bench packet`):
//! many short flows, so flow setup, completion and the pool's churn are measured too.

use super::{PacketConfig, PacketSim, QdiscConfig, TransportKind};
use crate::error::Result;
use crate::schemes::fifo::EcnThreshold;
use crate::topo::{fat_tree, FatTreeSpec, LinkSpec, Topology};
use crate::units::{Bytes, Rate, Time};
use crate::workload::{poisson_flows, FlowSpec, SizeCdf};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use std::time::Instant;

/// Topology, flows and configuration of the yardstick on a `k`-ary fat-tree; `seed` drives
/// the permutation and the ECMP hashes.
pub fn htsim_yardstick(k: u32, seed: u64) -> Result<(Topology, Vec<FlowSpec>, PacketConfig)> {
    let header = Bytes(48);
    let mtu = Bytes(1452);
    let wire = mtu.0 + header.0;
    let link = LinkSpec::new(Rate::gbps(100), Time::from_us(1), Bytes(100 * wire));
    let topo = fat_tree(FatTreeSpec {
        k,
        host_link: link,
        fabric_link: link,
        oversubscription: 1,
    })?;
    let hosts = topo.hosts().to_vec();
    // A random derangement: every host sends to a distinct host other than itself.
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut dst = hosts.clone();
    loop {
        dst.shuffle(&mut rng);
        if hosts.iter().zip(&dst).all(|(a, b)| a != b) {
            break;
        }
    }
    let flows = hosts
        .iter()
        .zip(&dst)
        .map(|(&s, &d)| FlowSpec::new(s, d, Bytes(1 << 50), Time::ZERO))
        .collect();
    let cfg = PacketConfig {
        mtu,
        header,
        transport: TransportKind::Dctcp,
        qdisc: QdiscConfig::Ecn {
            k: EcnThreshold::Packets(15),
        },
        seed,
        ..PacketConfig::default()
    };
    Ok((topo, flows, cfg))
}

/// The yardstick's fabric and transport with Poisson web-search flows offering `load` of the
/// host links' capacity, enough flows to keep arriving for `duration` (sizes from the CDF
/// file at `cdf`; flows are real sizes, so they finish and new ones start).
pub fn websearch_scenario(
    k: u32,
    load: f64,
    duration: Time,
    cdf: &Path,
    seed: u64,
) -> Result<(Topology, Vec<FlowSpec>, PacketConfig)> {
    let (topo, _, cfg) = htsim_yardstick(k, seed)?;
    let cdf = SizeCdf::from_file(cdf)?;
    let hosts = topo.hosts().to_vec();
    let rate = Rate::gbps(100);
    // Arrivals per second over all hosts, times the duration, plus 10% so arrivals outlast it.
    let per_second = load * rate.bps() * hosts.len() as f64 / (8.0 * cdf.mean());
    let n = (per_second * duration.as_secs_f64() * 1.1).ceil() as usize + 1;
    let flows = poisson_flows(&hosts, rate, load, &cdf, n, seed)?;
    Ok((topo, flows, cfg))
}

/// Figures of one timed run of the yardstick.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchReport {
    /// Hosts (= flows).
    pub hosts: usize,
    /// Wall-clock seconds of the run (construction excluded).
    pub wall_seconds: f64,
    /// CPU seconds of the running thread during the run (Linux; `None` elsewhere). On a
    /// loaded machine this is the steadier figure.
    pub cpu_seconds: Option<f64>,
    /// Simulated seconds.
    pub simulated_seconds: f64,
    /// Events processed.
    pub events: u64,
    /// Data packets transmitted by ports (host NICs included).
    pub data_packet_hops: u64,
    /// All packets (data and ACKs) transmitted by ports.
    pub all_packet_hops: u64,
    /// Peak number of packets alive at once.
    pub peak_live_packets: usize,
    /// Packets dropped.
    pub drops: u64,
    /// Packets marked CE.
    pub marks: u64,
    /// Mean goodput per flow, bit/s.
    pub mean_goodput: f64,
    /// Flows that had started by the end of the run.
    pub flows_started: usize,
    /// Flows that had finished by the end of the run.
    pub flows_finished: usize,
}

/// CPU time of the calling thread in seconds (Linux `CLOCK_THREAD_CPUTIME_ID`).
///
/// Read from the clock rather than from `/proc/thread-self/schedstat`: the kernel brings the
/// schedstat figure up to date only at scheduler ticks and switches, so read from a running
/// thread it lagged by up to a tick (4 ms here), which made a 4 ms solve read 0 or 8 ms.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
pub fn thread_cpu_seconds() -> Option<f64> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut t = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` (libc, which std links) writes one `struct timespec` (two 64-bit
    // fields on 64-bit Linux) to the pointer, which points at a live, writable one.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (rc == 0).then_some(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
}

/// CPU time of the calling thread: not available off 64-bit Linux.
#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
pub fn thread_cpu_seconds() -> Option<f64> {
    None
}

/// Builds the yardstick and runs it for `simulated` time, timing the run.
pub fn run_yardstick(simulated: Time, k: u32, seed: u64) -> Result<BenchReport> {
    let (topo, flows, cfg) = htsim_yardstick(k, seed)?;
    timed_run(&topo, &flows, cfg, simulated)
}

/// Runs `flows` for `simulated` time, timing the run (construction excluded).
pub fn timed_run(
    topo: &Topology,
    flows: &[FlowSpec],
    cfg: PacketConfig,
    simulated: Time,
) -> Result<BenchReport> {
    let mut sim = PacketSim::from_config(topo, flows, cfg)?;
    let cpu0 = thread_cpu_seconds();
    let t0 = Instant::now();
    let r = sim.run_until(simulated)?;
    let wall_seconds = t0.elapsed().as_secs_f64();
    let cpu_seconds = match (cpu0, thread_cpu_seconds()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let simulated_seconds = r.now.as_secs_f64();
    let started: Vec<_> = r.flows.iter().filter(|f| f.start <= r.now).collect();
    let delivered: u64 = started.iter().map(|f| f.delivered).sum();
    Ok(BenchReport {
        hosts: topo.num_hosts(),
        wall_seconds,
        cpu_seconds,
        simulated_seconds,
        events: r.events,
        data_packet_hops: r.data_packet_hops,
        all_packet_hops: r.packet_hops,
        peak_live_packets: r.peak_packets,
        drops: r.links.iter().map(|l| l.drops).sum(),
        marks: r.links.iter().map(|l| l.marks).sum(),
        mean_goodput: if simulated_seconds > 0.0 && !started.is_empty() {
            delivered as f64 * 8.0 / simulated_seconds / started.len() as f64
        } else {
            0.0
        },
        flows_started: started.len(),
        flows_finished: r.flows.iter().filter(|f| f.end.is_some()).count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yardstick_is_a_permutation_and_runs() {
        let (topo, flows, cfg) = htsim_yardstick(4, 7).unwrap();
        assert_eq!(flows.len(), 16);
        let mut dsts: Vec<_> = flows.iter().map(|f| f.dst).collect();
        dsts.sort();
        dsts.dedup();
        assert_eq!(dsts.len(), 16, "every host receives exactly one flow");
        assert!(flows.iter().all(|f| f.src != f.dst));
        assert_eq!(cfg.mtu_wire(), Bytes(1500));
        assert_eq!(topo.num_hosts(), 16);
        let r = run_yardstick(Time::from_us(200), 4, 7).unwrap();
        assert_eq!(r.simulated_seconds, 200e-6);
        assert!(r.data_packet_hops > 0 && r.all_packet_hops > r.data_packet_hops);
        assert!(r.events > r.all_packet_hops);
        assert!(r.mean_goodput > 1e9, "{}", r.mean_goodput);
        assert_eq!((r.flows_started, r.flows_finished), (16, 0));
    }

    #[test]
    fn websearch_benchmark_runs_short_flows_to_completion() {
        let cdf = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../python/fairnet/data/flow-size-cdf/WebSearch_distribution.txt");
        let (topo, flows, cfg) = websearch_scenario(4, 0.5, Time::from_us(500), &cdf, 3).unwrap();
        // 50% of 16 × 100 Gb/s over 0.5 ms, at a mean of about 1.6 MB: a few dozen flows.
        assert!(flows.len() > 20 && flows.len() < 200, "{}", flows.len());
        let r = timed_run(&topo, &flows, cfg, Time::from_us(500)).unwrap();
        assert!(r.flows_started > 10 && r.flows_finished > 0, "{r:?}");
        assert!(r.flows_finished < r.flows_started);
    }
}
