//! The flow-level (fluid) engine: flows arrive, share links at their weighted max-min fair rates,
//! and finish.
//!
//! This is the "ideal max-min" simulator of the literature (s-PERC §8.2's ideal allocator
//! reference, m3's flowSim, eBA's VM-level study): no packets, no queues, every active flow
//! always at exactly its weighted max-min fair rate (with caps and guarantees), recomputed at
//! every event. Events are arrivals, completions and weight changes; events at the same
//! picosecond are applied together before the rates are updated once.
//!
//! Rates come from [`IncrementalAllocator`](crate::alloc::IncrementalAllocator), which touches
//! only the links whose levels move, or — `allocator = "recompute"` — from a full solve of the
//! oracle at every event (the reference). Between events a flow's remaining bytes fall linearly;
//! only flows whose rate changed are settled and rescheduled, so an event costs in proportion to
//! what it changes.
//!
//! FCT and slowdown use the same definitions as the packet engine ([`crate::metrics`]): a flow
//! of `size` payload bytes puts `size + ⌈size/mtu⌉·header_bytes` on the wire, starts after
//! `start_latency`, and ends when its last bit has crossed the path (one-way propagation delay
//! after it was sent). The ideal FCT is that of the flow alone on the empty network.
//!
//! Weight policies ([`WeightPolicy`]) change weights at the instants where flows arrive or
//! finish and, if they ask for it, at periodic decision slots where they see every active
//! flow's remaining bytes and rate. A policy may also set per-flow rate caps
//! ([`WeightPolicy::sets_caps`]: a host's rate limiter, e.g. for VM-flows) at those instants
//! and slots, reading at each slot every link's current load and the bits it has carried; the
//! allocation stays the exact weighted max-min one under the caps.
//!
//! DAG jobs: a flow with dependencies starts when the last of them has ended (or at its own
//! start time, if later). Group results (`tag`) give job completion times and coflow completion
//! times: last end minus first start over the group.

pub mod bench;
mod sim;
#[cfg(test)]
mod tests;

pub use sim::{
    run, run_with, run_with_progress, ActiveFlow, AllocatorKind, FlowRecord, FlowSimConfig,
    FlowSimResults, FluidFlow, GroupRecord, LinkLoad, RateSample, WeightChange, WeightPolicy,
};
