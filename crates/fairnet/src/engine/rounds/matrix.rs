//! Random routing matrices of s-PERC §8.1.1 (Fig. 6): `M` links, `N` flows, each flow crossing
//! `P` distinct links picked uniformly at random.
//!
//! The paper gives the shapes — sparse: `M = 100`, `N ∈ {10², 10³, 10⁴}`, `P ∈ {5, 10}` and
//! `M = N = 1000`, `P ∈ {5, 10}`; dense: `M = N = 100`, `P = 80` — but not the link capacities.
//! We give every link the same capacity (default 100 Gb/s, the data-center link speed of §8.2),
//! or, when `capacity_max` is set, a capacity uniform in `[capacity, capacity_max]`. A flow's
//! links are visited in the (random) order in which they were drawn, or in ascending link order
//! (`path_order = "ascending"`), as the s-PERC authors' numerical simulator lists every path:
//! the same links either way (the draw is the same), only the order differs. The order
//! matters to n-PERC, whose links see a control packet's fields as earlier links left them:
//! on dense matrices it converges in 10–11 RTTs with ascending paths and not within 200 with
//! drawn ones (docs/systems/sperc.md).

use crate::alloc::{Problem, ProblemInput};
use crate::error::{Error, Result};
use crate::units::Rate;
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

fn default_capacity() -> Rate {
    Rate::gbps(100)
}

/// The order in which a flow of a random matrix crosses its links.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PathOrder {
    /// The order in which the links were drawn (uniformly random).
    #[default]
    Drawn,
    /// Ascending link index, as the s-PERC authors' simulator lists paths.
    Ascending,
}

/// Shape of a random routing matrix (scenario section `[matrix]`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RandomMatrix {
    /// `M`, the number of links.
    pub links: u32,
    /// `N`, the number of flows.
    pub flows: u32,
    /// `P`, the number of distinct links every flow crosses.
    pub links_per_flow: u32,
    /// Capacity of every link (the lower end when `capacity_max` is set). Default 100 Gb/s.
    #[serde(default = "default_capacity")]
    pub capacity: Rate,
    /// If set, capacities are uniform in `[capacity, capacity_max]`.
    #[serde(default)]
    pub capacity_max: Option<Rate>,
    /// The order of each flow's links: `"drawn"` (default) or `"ascending"`.
    #[serde(default)]
    pub path_order: PathOrder,
}

impl RandomMatrix {
    /// A matrix with every link at 100 Gb/s.
    pub fn new(links: u32, flows: u32, links_per_flow: u32) -> RandomMatrix {
        RandomMatrix {
            links,
            flows,
            links_per_flow,
            capacity: default_capacity(),
            capacity_max: None,
            path_order: PathOrder::Drawn,
        }
    }

    /// Checks the shape; errors name the field (`matrix.<field>`).
    pub fn validate(&self) -> Result<()> {
        if self.links == 0 {
            return Err(Error::invalid("matrix.links", "expected at least 1 link"));
        }
        if self.flows == 0 {
            return Err(Error::invalid("matrix.flows", "expected at least 1 flow"));
        }
        if self.links_per_flow == 0 || self.links_per_flow > self.links {
            return Err(Error::invalid(
                "matrix.links_per_flow",
                format!(
                    "expected 1 to links ({}) distinct links per flow, got {}",
                    self.links, self.links_per_flow
                ),
            ));
        }
        if self.capacity.0 == 0 {
            return Err(Error::invalid(
                "matrix.capacity",
                "expected a positive rate",
            ));
        }
        if let Some(hi) = self.capacity_max {
            if hi < self.capacity {
                return Err(Error::invalid(
                    "matrix.capacity_max",
                    "expected at least matrix.capacity",
                ));
            }
        }
        Ok(())
    }
}

/// Draws the routing matrix `spec` with `seed` and returns it as a [`Problem`].
pub fn random_matrix(spec: &RandomMatrix, seed: u64) -> Result<Problem> {
    spec.validate()?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_f16e);
    let lo = spec.capacity.bps();
    let capacities = (0..spec.links)
        .map(|_| match spec.capacity_max {
            Some(hi) if hi > spec.capacity => rng.gen_range(lo..=hi.bps()),
            _ => lo,
        })
        .collect();
    let p = spec.links_per_flow as usize;
    let mut path_ptr = Vec::with_capacity(spec.flows as usize + 1);
    let mut path_links = Vec::with_capacity(spec.flows as usize * p);
    path_ptr.push(0);
    for _ in 0..spec.flows {
        let start = path_links.len();
        path_links.extend(
            sample(&mut rng, spec.links as usize, p)
                .into_iter()
                .map(|l| l as u32),
        );
        if spec.path_order == PathOrder::Ascending {
            path_links[start..].sort_unstable();
        }
        path_ptr.push(path_links.len());
    }
    Problem::new(ProblemInput {
        capacities,
        path_ptr,
        path_links,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascending_paths_cross_the_drawn_links_in_index_order() {
        // The same seed draws the same links whatever the order asked for; "ascending" only
        // sorts each flow's path, and the drawn order is (with 40 flows of 10 links out of 100)
        // not sorted for some flow.
        let mut spec = RandomMatrix::new(100, 40, 10);
        let drawn = random_matrix(&spec, 3).unwrap();
        spec.path_order = PathOrder::Ascending;
        let ascending = random_matrix(&spec, 3).unwrap();
        let mut some_unsorted = false;
        for f in 0..40 {
            let (d, a) = (drawn.path(f), ascending.path(f));
            let mut sorted = d.to_vec();
            sorted.sort_unstable();
            assert_eq!(a, &sorted[..], "flow {f}");
            some_unsorted |= d != a;
        }
        assert!(some_unsorted);
    }
}
