//! MapReduce shuffles between VMs (eBA §VII-C, Fig. 14; Orchestra/Varys-style shuffle
//! workloads): jobs arrive as a Poisson process, each moving its shuffle bytes from `k` mapper
//! VMs to `k` reducer VMs, all-to-all (every mapper sends an equal part to every reducer). A
//! job ends when its last transfer does: its *shuffle time*.
//!
//! Job sizes come from a piecewise log-uniform distribution given by knots `(bytes, cumulative
//! fraction)` and are drawn *stratified* — the `n` quantiles `i/(n−1)`, shuffled over the
//! arrivals — so a run has exactly the distribution's counts below every knot and its largest
//! job at the last knot (a trace's statistics, reproduced exactly, rather than approximately
//! by independent draws).
//!
//! Tasks: `k = clamp(⌈size / bytes_per_task⌉, 1, max_tasks)` mappers and as many reducers
//! (one task per input block, as Hadoop splits its input), on `2k` distinct hosts drawn at
//! random (mappers on the first `k`, reducers on the others, so no transfer stays inside a
//! host), one VM drawn at random on each.

use crate::error::{Error, Result};
use crate::units::Time;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Parameters of [`shuffle_jobs`].
#[derive(Clone, Debug, PartialEq)]
pub struct ShuffleSpec {
    /// Knots `(bytes, cumulative fraction)` of the job-size distribution: at least two, bytes
    /// positive and increasing, fractions from 0 (first) rising to 1 (last).
    pub size_knots: Vec<(f64, f64)>,
    /// Number of jobs.
    pub jobs: usize,
    /// Mean time between job arrivals (Poisson; the first job arrives at 0).
    pub mean_interarrival: Time,
    /// Shuffle bytes per mapper (one task per block).
    pub bytes_per_task: u64,
    /// At most this many mappers (and reducers) per job.
    pub max_tasks: u32,
    /// Seed of arrivals, size order and placement.
    pub seed: u64,
}

/// One job.
#[derive(Clone, Debug, PartialEq)]
pub struct ShuffleJob {
    /// Shuffle bytes.
    pub size: u64,
    /// Arrival time.
    pub start: Time,
    /// Mapper VMs (indices into the VM list given to [`shuffle_jobs`]).
    pub mappers: Vec<u32>,
    /// Reducer VMs.
    pub reducers: Vec<u32>,
}

/// One transfer from a mapper to a reducer of job `job`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShuffleTransfer {
    /// The job (index).
    pub job: u32,
    /// Sending (mapper) VM.
    pub src_vm: u32,
    /// Receiving (reducer) VM.
    pub dst_vm: u32,
    /// Bytes.
    pub bytes: u64,
    /// When it starts (the job's arrival).
    pub start: Time,
}

/// The stratified sizes: quantile `i/(n−1)` of the knots' piecewise log-uniform distribution
/// for `i = 0..n` (ascending). Errors name the knot.
pub fn stratified_sizes(knots: &[(f64, f64)], n: usize) -> Result<Vec<u64>> {
    check_knots(knots)?;
    let quantile = |q: f64| -> f64 {
        let j = knots
            .windows(2)
            .position(|w| q <= w[1].1)
            .unwrap_or(knots.len() - 2);
        let ((b0, p0), (b1, p1)) = (knots[j], knots[j + 1]);
        if p1 <= p0 {
            return b1;
        }
        let x = (q - p0) / (p1 - p0);
        (b0.ln() + x * (b1.ln() - b0.ln())).exp()
    };
    Ok((0..n)
        .map(|i| {
            let q = if n == 1 {
                1.0
            } else {
                i as f64 / (n - 1) as f64
            };
            quantile(q).round().max(1.0) as u64
        })
        .collect())
}

fn check_knots(knots: &[(f64, f64)]) -> Result<()> {
    let at = |i: usize| format!("size_knots[{i}]");
    if knots.len() < 2 {
        return Err(Error::invalid(
            "size_knots",
            "needs at least two knots (bytes, cumulative fraction)",
        ));
    }
    for (i, &(b, p)) in knots.iter().enumerate() {
        if !(b > 0.0 && b.is_finite()) {
            return Err(Error::invalid(
                at(i),
                format!("bytes must be positive, got {b}"),
            ));
        }
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::invalid(
                at(i),
                format!("fraction must be in [0, 1], got {p}"),
            ));
        }
        if i > 0 && (b <= knots[i - 1].0 || p < knots[i - 1].1) {
            return Err(Error::invalid(
                at(i),
                "bytes must increase and fractions must not decrease",
            ));
        }
    }
    if knots[0].1 != 0.0 || knots[knots.len() - 1].1 != 1.0 {
        return Err(Error::invalid(
            "size_knots",
            "the first fraction must be 0 and the last 1",
        ));
    }
    Ok(())
}

/// Jobs and their transfers; `vm_host[v]` is the host of VM `v`. Transfers are listed job by
/// job, mapper-major. Errors name the field.
pub fn shuffle_jobs(
    spec: &ShuffleSpec,
    vm_host: &[u32],
) -> Result<(Vec<ShuffleJob>, Vec<ShuffleTransfer>)> {
    if spec.bytes_per_task == 0 {
        return Err(Error::invalid("bytes_per_task", "must be positive"));
    }
    if spec.max_tasks == 0 {
        return Err(Error::invalid("max_tasks", "must be positive"));
    }
    let mut hosts: Vec<u32> = vm_host.to_vec();
    hosts.sort_unstable();
    hosts.dedup();
    let mut vms_on: Vec<Vec<u32>> = vec![Vec::new(); hosts.len()];
    for (v, h) in vm_host.iter().enumerate() {
        let i = hosts.binary_search(h).expect("listed");
        vms_on[i].push(v as u32);
    }
    if hosts.len() < 2 * spec.max_tasks as usize {
        return Err(Error::invalid(
            "max_tasks",
            format!(
                "{} mappers and as many reducers need {} hosts, there are {}",
                spec.max_tasks,
                2 * spec.max_tasks,
                hosts.len()
            ),
        ));
    }
    let mut sizes = stratified_sizes(&spec.size_knots, spec.jobs)?;
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    sizes.shuffle(&mut rng);
    let mean = spec.mean_interarrival.as_secs_f64();
    let mut t = 0.0;
    let mut jobs = Vec::with_capacity(spec.jobs);
    let mut transfers = Vec::new();
    let mut order: Vec<usize> = (0..hosts.len()).collect();
    for (j, &size) in sizes.iter().enumerate() {
        if j > 0 {
            let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
            t += -mean * u.ln();
        }
        let start = Time::from_secs_f64(t);
        let k = size
            .div_ceil(spec.bytes_per_task)
            .clamp(1, spec.max_tasks as u64) as usize;
        let (chosen, _) = order.partial_shuffle(&mut rng, 2 * k);
        let pick = |h: usize, rng: &mut ChaCha8Rng| *vms_on[h].choose(rng).expect("a VM");
        let picked: Vec<u32> = chosen.iter().map(|&h| pick(h, &mut rng)).collect();
        let (mappers, reducers) = picked.split_at(k);
        let pairs = (k * k) as u64;
        for (m, &src) in mappers.iter().enumerate() {
            for (r, &dst) in reducers.iter().enumerate() {
                let idx = (m * k + r) as u64;
                let bytes = size / pairs + u64::from(idx < size % pairs);
                if bytes > 0 {
                    transfers.push(ShuffleTransfer {
                        job: j as u32,
                        src_vm: src,
                        dst_vm: dst,
                        bytes,
                        start,
                    });
                }
            }
        }
        jobs.push(ShuffleJob {
            size,
            start,
            mappers: mappers.to_vec(),
            reducers: reducers.to_vec(),
        });
    }
    Ok((jobs, transfers))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// eBA §VII-C's statistics: 900 jobs, 140 under 1 MB, 600 under 128 MB, the largest
    /// 32.3 GB (knots at 1 KB, 1 MB, 128 MB, 32.3 GB).
    fn fig14_knots() -> Vec<(f64, f64)> {
        vec![
            (1e3, 0.0),
            (1e6, 140.0 / 900.0),
            (128e6, 600.0 / 900.0),
            (32.3e9, 1.0),
        ]
    }

    #[test]
    fn stratified_sizes_have_the_knots_counts_exactly() {
        // Quantiles i/899: i/899 < 140/900 for i ≤ 139 (140 jobs under 1 MB) and < 600/900
        // for i ≤ 599 (600 under 128 MB); i = 899 is the last knot, 32.3 GB; i = 0 the first.
        let s = stratified_sizes(&fig14_knots(), 900).unwrap();
        assert_eq!(s.iter().filter(|&&b| b < 1_000_000).count(), 140);
        assert_eq!(s.iter().filter(|&&b| b < 128_000_000).count(), 600);
        assert_eq!(*s.last().unwrap(), 32_300_000_000);
        assert_eq!(s[0], 1000);
        assert!(s.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn every_job_moves_its_size_mapper_to_reducer_across_hosts() {
        // 16 hosts with 4 VMs each, 50 jobs, 128 MB per task, at most 4 tasks: a job of s
        // bytes has k = clamp(⌈s/128 MB⌉, 1, 4) mappers and reducers on 2k distinct hosts, k²
        // transfers that add up to s, none inside a host; arrivals increase from 0.
        let vm_host: Vec<u32> = (0..64).map(|v| v / 4).collect();
        let spec = ShuffleSpec {
            size_knots: fig14_knots(),
            jobs: 50,
            mean_interarrival: Time::from_ms(100),
            bytes_per_task: 128_000_000,
            max_tasks: 4,
            seed: 7,
        };
        let (jobs, transfers) = shuffle_jobs(&spec, &vm_host).unwrap();
        assert_eq!(jobs.len(), 50);
        assert_eq!(jobs[0].start, Time::ZERO);
        for (j, job) in jobs.iter().enumerate() {
            let k = job.size.div_ceil(128_000_000).clamp(1, 4) as usize;
            assert_eq!((job.mappers.len(), job.reducers.len()), (k, k));
            let mut hosts: Vec<u32> = job
                .mappers
                .iter()
                .chain(&job.reducers)
                .map(|&v| vm_host[v as usize])
                .collect();
            hosts.sort_unstable();
            hosts.dedup();
            assert_eq!(hosts.len(), 2 * k, "job {j}");
            let mine: Vec<_> = transfers.iter().filter(|t| t.job == j as u32).collect();
            assert_eq!(mine.iter().map(|t| t.bytes).sum::<u64>(), job.size);
            assert!(mine.len() <= k * k && mine.iter().all(|t| t.start == job.start));
            if j > 0 {
                assert!(job.start >= jobs[j - 1].start);
            }
        }
        let e = shuffle_jobs(
            &ShuffleSpec {
                max_tasks: 9,
                ..spec.clone()
            },
            &vm_host,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("max_tasks"), "{e}");
        let mut bad = spec.clone();
        bad.size_knots[2].0 = 1.0;
        let e = shuffle_jobs(&bad, &vm_host).unwrap_err().to_string();
        assert!(e.contains("size_knots[2]"), "{e}");
    }
}
