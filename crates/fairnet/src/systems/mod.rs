//! The published allocation systems, one folder per paper: its host part, switch part,
//! policies and the glue to the engines. Each module's doc cites the paper's sections and
//! lists where we differ from it.
//!
//! - [`soze`]: Söze's sender on the packet engine and its §5.1 weight policies.
//! - [`sperc`]: s-PERC, n-PERC, *Fair* and s-PERC* on the rounds engine.
//! - [`may`]: MAY's drop-counter AQM (Fig. 1) as a queueing discipline.
//! - [`uranus`]: WVCC, Uranus's weighted virtual congestion control shim; Uranus's slice
//!   scheduler (PS-N, Algorithms 1–2) and the SCC baseline.
//! - [`eba`]: eBA's VM guarantees (Eqs. 1–2, Algorithm 1) and logistic rate control.

pub mod eba;
pub mod may;
pub mod soze;
pub mod sperc;
pub mod uranus;
