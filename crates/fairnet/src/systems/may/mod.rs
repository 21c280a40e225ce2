//! MAY, Markov Active Yield: R. Stanojević and R. Shorten, "Drop counters are enough"
//! (`../shared/papers/may-drop-counters.txt`).
//!
//! # What the paper says
//!
//! MAY is an active queue management scheme for one FIFO queue that gives long-lived flows
//! max-min fair rates and short flows (at most S₀ packets) nearly lossless service, keeping
//! state only for flows that have lost packets: "drop proportionally to the amount of past
//! drops" (§II). Fig. 1 is the whole algorithm:
//!
//! - a hash table H of flows that lost packets, each entry holding the drop frequency δ, the
//!   drops ND of the current update period and a time stamp TS (§II);
//! - on arrival, a packet of a flow in H is dropped with probability ν·δ (lines 2–7; ND + 1,
//!   TS = now on a drop); a flow not in H is entered with probability q₀ = 1/S₀ (δ = 1,
//!   ND = 1, TS = now) and that packet is dropped if the current utilization exceeds u₀
//!   (lines 8–16);
//! - every Δ: ν ← ν + κ·(utilization − u₀) (line 19); entries without a drop for more than T₀
//!   are removed (lines 21–22); the others get δ ← (1 − q_w)·δ + q_w·ND and ND ← 0
//!   (lines 24–25).
//!
//! §III shows that the mean-field map of δ converges (Theorem 3.1) so that every AIMD flow gets
//! u₀C/N whatever its parameters (Corollary 3.1); a CBR flow below the fair share 1/ν is not
//! dropped and one above it is shut out (Theorem 3.2); in a network of MAY queues the rates are
//! max-min fair (Theorem 3.3, from the fixed point of δ, Eq. 9: x = 1/ν at the flow's
//! bottleneck). §II-A sizes the table for hardware: 10-byte entries (10 bits each for δ, TS and
//! ND, a 30-bit fingerprint, a 20-bit pointer).
//!
//! # What is implemented
//!
//! [`May`] is Fig. 1 as a [`crate::engine::packet::Qdisc`] on a FIFO byte buffer (the link's
//! `buffer`); the code cites the figure's line numbers. [`MayConfig`] holds Table I's
//! parameters with the §IV defaults (Δ = 1 s, u₀ = 0.98, κ = 0.1, q_w = 0.05, T₀ = 64 s,
//! S₀ = 1000 packets), each citing its source. Randomness is one seeded generator per port
//! (the run's seed combined with the link id), so a run is reproducible. Options:
//!
//! - §II-A's bounded table ([`MayConfig::table_entries`]) and fingerprints
//!   ([`MayConfig::fingerprint_bits`], 30 in the paper): flows whose fingerprints collide
//!   share one entry. [`May::memory_bits`] gives the SRAM in use at 80 bits per entry, and
//!   [`MayStats`] the entries created, removed, refused and at peak.
//! - §V's estimates: [`May::fair_share_per_delta`] (x* = 1/ν) and [`May::bottlenecked`]
//!   (NB(l) = #{f ∈ H : δ_f > ε}).
//! - **Weighted MAY, fairnet's extension (not in the paper)** ([`MayConfig::weighted`]): a
//!   packet of a flow of weight `w` in H is dropped with probability ν·δ/w. Eq. (9) becomes
//!   δ = (1 − q_w)·δ + q_w·x·ν·δ/w, whose positive fixed point is x = w/ν: the flows
//!   bottlenecked at a link get rates proportional to their weights, i.e. weighted max-min.
//!   The weights are the flows' (`FlowSpec::weight`), passed in by the registry, and follow
//!   run-time changes ([`crate::engine::packet::Qdisc::on_flow_weight`]).
//!
//! # Choices the paper leaves open
//!
//! - **CurrentUtilization** (lines 13 and 19): §V says the control "is rate based, rather
//!   than queue-based ... congestion indicator is arrival rate at the queue". We measure the
//!   bytes arriving at the FIFO — every packet MAY did not drop, queued or lost to overflow —
//!   during the last update period over what the link could send in that time. At the FIFO,
//!   not at the port: an unresponsive flow that MAY shuts out (Theorem 3.2) would otherwise
//!   keep counting as load and push every other flow below the fair share. Overflows count:
//!   measured as the rate *admitted* to the buffer, the utilization cannot exceed 1 by more
//!   than a buffer per Δ, so u − u₀ ≤ 0.02 while the buffer overflows and ν could not keep up
//!   (we tried: ν stayed near 0 and tail drops set the shares). Line 13 uses the value
//!   measured at the last update (0 before the first update): Fig. 1 has no other
//!   measurement.
//! - **The update period** runs when an arrival finds more than Δ since the last update
//!   (lines 17–18: `Update(H)` follows `OnPacketArrival`), so after an idle spell one update
//!   covers the whole spell (its utilization is measured over the real span, not Δ).
//! - **ν** starts at [`MayConfig::nu0`] = 0 (not given): the queue then drops only new flows'
//!   entry packets and overflows until the measured utilization exceeds u₀; no guess of the
//!   fair share is needed. ν is kept at or above 0 after line 19.
//! - **Probabilities**: ν·δ is capped at 1 (a probability); a flow's entry draw and its drop
//!   draw are one uniform each.
//! - **δ's units** are drops per update period (line 24 averages ND, a count per Δ), so ν is
//!   per packet-per-Δ and 1/ν is the fair share in packets per Δ (Theorem 3.2, where "x_j
//!   packets per δ" reads as per Δ).
//! - **Buffer overflows** do not count in ND by default ([`MayConfig::overflow_counts`]):
//!   Fig. 1 counts its own drops, and the fixed point of Eq. (9), on which Theorems 3.2 and
//!   3.3 rest, needs ND = x·ν·δ; tail drops hit whoever arrives while the buffer is full.
//! - **Every packet** at the port goes through MAY (data and ACKs alike, as a router queue
//!   sees them); ACKs of a flow share its entry (they carry its flow id).
//! - **A full bounded table** refuses the new entry, and the packet is not dropped (a drop
//!   without an entry is a loss the table cannot remember).
//! - **Timers in small tests**: §V's rules ("Δ should be taken to cover several typical RTT
//!   values"; "q_w should be chosen to allow averaging over several update intervals") scale Δ
//!   with the RTTs; κ stays 0.1, since ν's relative change per second, κ·x*·(u − u₀) with x*
//!   in packets per second, does not depend on Δ.
//!
//! - **CurrentUtilization** has three readings ([`MayConfig::utilization`]): the default above
//!   (`admitted`), every byte arriving at the port (`arrivals`, MAY's drops included) and what
//!   the link sent (`departures`). On Fig. 7's network none changes the outcome
//!   (docs/systems/may.md, "Fig. 7", measured with `examples/may_fig7.rs`).
//!
//! [`model`] is §III-A's mean-field map for the model engine (`may_mean_field`), [`chain`]
//! the AIMD Markov chain it averages (`may_aimd_chain`).
//!
//! §V's variants are options ([`MayConfig::bytes`], [`MayConfig::control`]); [`probe`]
//! samples §V's estimates (x* = 1/ν, NB(l)) and §II-A's memory of chosen ports as time series
//! while a run goes on.

pub mod aqm;
pub mod chain;
pub mod config;
pub mod model;
pub mod probe;

#[cfg(test)]
mod tests;

pub use aqm::{Entry, FlowWeights, May, MayStats, ENTRY_BITS};
pub use config::{MayConfig, NuControl, Utilization};
