//! Empirical flow-size distributions (the files of `shared/data/flow-size-cdf/`).
//!
//! Format (the HPCC traffic generator's): one point per line, `<size in bytes> <cumulative
//! percent>`, sizes non-decreasing, the last point at 100. Sampling draws a uniform percentile
//! and interpolates linearly between the surrounding points, the HPCC `traffic_gen`
//! convention. Sizes below one byte (the first points of some files are at 0 B) are raised to one
//! byte: a flow must carry something.

use crate::error::{Error, Result};
use crate::units::Bytes;
use rand::Rng;
use std::path::Path;

/// A piecewise-linear flow-size CDF.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeCdf {
    /// `(size in bytes, cumulative fraction in [0, 1])`, both non-decreasing, last fraction 1.
    points: Vec<(f64, f64)>,
}

impl SizeCdf {
    /// Parses the text of a CDF file; `name` is used in error messages.
    pub fn parse(text: &str, name: &str) -> Result<SizeCdf> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = || format!("{name} line {}", i + 1);
            let mut it = line.split_whitespace();
            let (Some(s), Some(p), None) = (it.next(), it.next(), it.next()) else {
                return Err(Error::invalid(
                    at(),
                    format!("expected '<size> <percent>', got {line:?}"),
                ));
            };
            let size: f64 = s
                .parse()
                .map_err(|_| Error::invalid(at(), format!("bad size {s:?}")))?;
            let pct: f64 = p
                .parse()
                .map_err(|_| Error::invalid(at(), format!("bad percent {p:?}")))?;
            if !(size.is_finite() && size >= 0.0 && (0.0..=100.0).contains(&pct)) {
                return Err(Error::invalid(
                    at(),
                    "size must be ≥ 0 and percent in [0, 100]",
                ));
            }
            if let Some(&(ls, lp)) = points.last() {
                if size < ls || pct / 100.0 < lp {
                    return Err(Error::invalid(at(), "sizes and percents must not decrease"));
                }
            }
            points.push((size, pct / 100.0));
        }
        match points.last() {
            None => Err(Error::invalid(name, "no points")),
            Some(&(_, p)) if (p - 1.0).abs() > 1e-9 => Err(Error::invalid(
                name,
                format!("last point must be at 100 percent, got {}", p * 100.0),
            )),
            _ => Ok(SizeCdf { points }),
        }
    }

    /// Reads a CDF file.
    pub fn from_file(path: &Path) -> Result<SizeCdf> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            msg: e.to_string(),
        })?;
        SizeCdf::parse(&text, &path.display().to_string())
    }

    /// The size at cumulative fraction `u` in [0, 1] (linear interpolation).
    pub fn quantile(&self, u: f64) -> f64 {
        let i = self.points.partition_point(|&(_, p)| p < u);
        if i == 0 {
            return self.points[0].0;
        }
        if i >= self.points.len() {
            return self.points[self.points.len() - 1].0;
        }
        let (s0, p0) = self.points[i - 1];
        let (s1, p1) = self.points[i];
        if p1 <= p0 {
            s1
        } else {
            s0 + (s1 - s0) * (u - p0) / (p1 - p0)
        }
    }

    /// Draws a flow size (at least one byte).
    pub fn sample(&self, rng: &mut impl Rng) -> Bytes {
        Bytes(self.quantile(rng.gen::<f64>()).round().max(1.0) as u64)
    }

    /// The mean of the piecewise-linear distribution, bytes (before the one-byte floor).
    pub fn mean(&self) -> f64 {
        let mut m = self.points[0].0 * self.points[0].1;
        for w in self.points.windows(2) {
            let ((s0, p0), (s1, p1)) = (w[0], w[1]);
            m += (p1 - p0) * (s0 + s1) / 2.0;
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn shared(name: &str) -> SizeCdf {
        // The package's copy of shared/data/flow-size-cdf (shipped with the Python package).
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/fairnet/data/flow-size-cdf");
        SizeCdf::from_file(&dir.join(name)).unwrap()
    }

    #[test]
    fn interpolates_linearly() {
        // 50% of flows up to 100 B, the rest up to 300 B: the median is 100, the 75th percentile
        // halfway between 100 and 300.
        let c = SizeCdf::parse("0 0\n100 50\n300 100\n", "t").unwrap();
        assert_eq!(c.quantile(0.5), 100.0);
        assert_eq!(c.quantile(0.75), 200.0);
        assert_eq!(c.mean(), 0.5 * 50.0 + 0.5 * 200.0);
    }

    #[test]
    fn sample_mean_matches_the_distribution_mean() {
        for name in [
            "WebSearch_distribution.txt",
            "DataMining_VL2.txt",
            "GoogleRPC2008.txt",
        ] {
            let c = shared(name);
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let n = 200_000;
            let mean: f64 = (0..n).map(|_| c.sample(&mut rng).0 as f64).sum::<f64>() / n as f64;
            let rel = (mean - c.mean()).abs() / c.mean();
            // Heavy tails (data mining reaches 1 GB) make the sample mean noisy: 10% is ~3σ there.
            assert!(rel < 0.1, "{name}: sample mean {mean} vs {}", c.mean());
        }
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = SizeCdf::parse("0 0\n100 50\n90 60\n", "x.txt")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.txt line 3"), "{e}");
        assert!(SizeCdf::parse("0 0\n100 90\n", "x")
            .unwrap_err()
            .to_string()
            .contains("100 percent"));
    }
}
