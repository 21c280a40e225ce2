//! eBA (`../shared/papers/eba.txt`; Liu, Guo, Huang and Lui, "eBA: Efficient Bandwidth
//! Guarantee Under Traffic Variability in Datacenters", IEEE/ACM ToN 25(1), 2017): VM
//! bandwidth guarantees under the hose model with weighted sharing of what is left, by a
//! logistic rate controller (LRC) at the hosts steered by per-port rate factors in the
//! switches.
//!
//! **Where the paper is, file by file:**
//!
//! | paper | what | file |
//! | --- | --- | --- |
//! | §II-A, Fig. 2 | tenants, VMs on hosts, hose guarantee `B` and weight `w` per VM | [`guarantee`] ([`guarantee::Vm`], [`guarantee::Placement`]) |
//! | §II-A Eqs. (1)–(2) | a VM-flow's weight and guarantee | [`guarantee`] ([`guarantee::VmFlow`]) |
//! | §V-B, Algorithm 1 | guarantees kept current as VM connections open and close | [`guarantee::GuaranteeTable`] |
//! | Table II, §VI-A–B, §VII | α, β, τ_v, τ_r, μ, idle relaxation, uniform increase; their defaults | [`config`] ([`config::LrcConfig`]) |
//! | §II-C Eq. (6), Eq. (7) | the continuous rate-control model | [`model::LogisticModel`] |
//! | §IV-A Eq. (15), §IV-B Eqs. (16)–(17), §VI-B μ | the discrete recursion with the guarantee floor and the rate-factor cap | [`model::LrcRecursion`] |
//! | Algorithm 2 lines 15–26, §V-C, §VI-B | the switch part: a port's rate factor, control packets take the smaller | [`agent::RateFactorAgent`] (`port_agent = "eba"`) |
//! | Algorithm 2 lines 1–14, Eq. (16), §V-C, §VI-C | the host part: per-VM-flow limiter at `max(B, v)`, control packets every τ_v, Eq. (15) on return; the baselines | [`shim::EbaShim`] (`host_shim = "eba"`) |
//! | §II-A VMs, tenants; Algorithm 1 over a run | the scenario's `[eba]` section, flows to VM-flows, the shared guarantee table | [`vms`] |
//! | §VII at packet level | the packet checks | `packet_tests.rs` |
//! | — | the named model `eba_lrc` (one bottleneck) of `fairnet model list` | [`model::SingleLink`] |
//! | Algorithm 2 in fluid form, §VI-B, §VII-C's VM-level simulator; reservation and best effort | VM-flow rate limits on the flow engine's exact allocation; from a scenario (`engine.kind = "flow"` with `[engine.eba]`) | [`flow_level`] ([`flow_level::run_flows`]) |
//! | issue 23 "Beyond the paper" | every run's VM-flows against the oracle's allocation with guarantees | [`oracle`] |
//! | §III Theorems 1–2, Propositions 1–2, Eq. (12) | checked numerically against the oracle and the closed forms | `model_tests.rs` |
//!
//! Lost control packets (Fig. 7) are the packet engine's `control.loss`; the paper entries
//! are in `python/fairnet/paper/eba/`.
//!
//! **Choices the paper leaves open, and why:**
//! - One guarantee `B` per VM for egress and ingress alike: §II-A gives each VM one "throughput
//!   B" and Eq. (2) uses it for both directions (Algorithm 1 line 3 writes `B_x^out`, `B_y^in`
//!   without defining them apart).
//! - Placement checks: a VM's guarantee must fit its host's link and the guarantees of the VMs
//!   on one host must fit its line rate (the hose model's dedicated links, Fig. 2(a), exist
//!   only if the host's link can carry them; the paper assumes placement is done by "an
//!   existing approach", §II-A).
//! - Algorithm 1's update set: its line 2 is garbled in the paper; the text says it updates
//!   "all VM-flows on VM x and y" and that eBA "calculates the guarantees for the minimum set
//!   of VM-flows associated with the changed connection". Eqs. (1)–(2) of `a → b` read only
//!   `V_a^out` and `V_b^in`, and opening or closing `x → y` changes only `V_x^out` and
//!   `V_y^in`, so the minimal set is the VM-flows leaving `x` and those entering `y`; that is
//!   what is recomputed (a test checks it equals a from-scratch recomputation and that every
//!   other flow is unchanged).
//! - The sums `S_x^out`, `S_y^in` (Algorithm 1 lines 10–11, 17–18; line 17's `S_y^out` is a
//!   typo for `S_x^out`) are summed over the sets at each update instead of kept as running
//!   sums, so they return to exactly 0 when all connections close (no floating drift); the
//!   cost is the same as the update loop's.
//! - A VM-flow's guarantee is 0 when its VMs have none; weights below 1 are accepted (Eq. (1)
//!   needs only positive weights).
//! - Defaults: the simulations' α = β = 2 s⁻¹, τ_r = 100 ms, τ_v = 50 ms (§VII-C; the same
//!   paragraph also says "the rate allocation period is … 15 ms", which contradicts it; we
//!   take the explicit parameter list) and the testbed's μ = 0.9 (§VI-B).
//!
//! Where we differ from the paper and what we measured: `docs/systems/eba.md`.

pub mod agent;
pub mod config;
pub mod flow_level;
pub mod guarantee;
pub mod model;
pub mod oracle;
pub mod shim;
pub mod vms;

#[cfg(test)]
mod flow_level_scenario_tests;
#[cfg(test)]
mod flow_level_tests;
#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod packet_tests;
#[cfg(test)]
mod tests;
