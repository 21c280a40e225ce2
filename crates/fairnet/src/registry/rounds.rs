//! The rounds engine's algorithms by name (`[engine] kind = "rounds"`, `algorithm = "sperc"`):
//! the one place that maps a [`RoundsSpec`]'s algorithm to its link algorithm.

use crate::alloc::Problem;
use crate::engine::rounds::{simulate, RoundsOutcome};
use crate::error::Result;
use crate::systems::sperc::{
    Algorithm, Divider, Fair, NPerc, RoundsSpec, SPerc, SPercBasic, SPercStar,
};

/// Runs the algorithm `spec` names on `p` in the rounds engine.
pub fn run_rounds(p: &Problem, spec: &RoundsSpec, seed: u64) -> Result<RoundsOutcome> {
    spec.validate(p.num_flows())?;
    let cfg = spec.engine_config(seed);
    let div = Divider::new(spec.division_table.map(|b| b.0))?;
    match spec.algorithm {
        Algorithm::Fair => simulate(p, &Fair { div }, &cfg),
        Algorithm::NPerc => simulate(p, &NPerc { div }, &cfg),
        Algorithm::SPerc => simulate(p, &SPerc { div }, &cfg),
        Algorithm::SPercStar => simulate(p, &SPercStar { div }, &cfg),
        Algorithm::SPercBasic => simulate(p, &SPercBasic { div }, &cfg),
    }
}
