//! Söze (Weitao Wang and T. S. Eugene Ng, "Söze: One Network Telemetry Is All You Need for
//! Per-flow Weighted Bandwidth Allocation at Scale", `../shared/papers/soze.txt`).
//!
//! - Host part: [`Soze`], a [`crate::engine::packet::CongestionControl`] implementing the
//!   target function `T` (Eq. 6), the update function `U` (Eq. 7) and Algorithm 1, per packet
//!   or once per RTT, enforced by pacing or by a window (§3.3). `transport = "soze"` with a
//!   `[soze]` table ([`SozeConfig`]) selects it in the packet engine.
//! - Switch part: the packet engine already keeps the largest per-hop queueing delay in every
//!   data packet (compare and keep, §3.2.3) and echoes it in ACKs; `qdelay_lpf = "10us"` adds
//!   the Tofino "sample" low-pass filter of §4 at every port.
//! - [`multi_connection`]: the "Multi-Conn" comparison of §5.3.2 / Fig. 18(c), a flow of weight
//!   `w` replaced by `round(w)` unit-weight connections.
//!
//! - [`apps`]: §5.1's application cases (Figs. 6, 9, 10) on the flow-level engine, and Fig. 7
//!   (straggler mitigation) on the packet engine.
//! - [`policy`]: §5.1's weight policies: job-level sum-preserving reallocation over critical-path
//!   weights (a [`crate::engine::flow::WeightPolicy`] for the flow-level engine), straggler
//!   mitigation inside a coflow (§5.1.2, progress-driven, on the packet engine) and the
//!   altruistic weight of §5.1.4.
//!
//! Where we differ from the paper and what we measured: `docs/systems/soze.md`.

pub mod apps;
pub mod config;
pub mod policy;
pub mod scaling;
pub mod sender;

#[cfg(test)]
mod tests;

pub use config::{SozeConfig, SozeControl, SozeUpdate};
pub use sender::{default_range, update_interval, Soze, Target};

use crate::engine::packet::{HostNic, QdelaySignal};
use crate::error::{Error, Result};
use crate::registry::{PacketConfig, TransportKind};
use crate::units::Bytes;
use crate::workload::FlowSpec;

/// Söze §5.3.2 "Granularity Micro-benchmark", the multi-connection solution: "we will choose
/// the closest integer number" of connections for a flow, each of weight 1 (so a flow of
/// weight 2.4 becomes 2 connections, 2.6 becomes 3; at least one). The flow's bytes are split
/// evenly (the first connections take the remainder). Returns the connections and, for each,
/// the index of the flow it belongs to.
pub fn multi_connection(flows: &[FlowSpec]) -> Result<(Vec<FlowSpec>, Vec<usize>)> {
    let mut out = Vec::new();
    let mut owner = Vec::new();
    for (i, f) in flows.iter().enumerate() {
        if !(f.weight.is_finite() && f.weight > 0.0) {
            return Err(Error::invalid(
                format!("flows[{i}]"),
                format!("weight must be positive and finite, got {}", f.weight),
            ));
        }
        let n = (f.weight.round() as u64).max(1).min(f.size.0.max(1));
        let (each, rem) = (f.size.0 / n, f.size.0 % n);
        for c in 0..n {
            let mut g = f.clone();
            g.weight = 1.0;
            g.size = Bytes(each + u64::from(c < rem));
            out.push(g);
            owner.push(i);
        }
    }
    Ok((out, owner))
}

/// What a run's Söze senders report for its summary (`summary.json`'s `counters`, the run
/// report): `soze_flows`, `soze_rate_updates`, `soze_lemma_3_2_violated_updates` (updates made
/// where Lemma 3.2's `p > Δt/2·ln(α/β)` failed with the `Δt` of the rule in force,
/// [`Soze::lemma_3_2_violations`]), `soze_lemma_3_2_flows` (flows with at least one) and
/// `soze_held_at_floor` (flows a set `min_rate` holds at the end, [`Soze::at_floor`]). Empty
/// without Söze senders.
pub fn run_counters<'a>(senders: impl Iterator<Item = &'a Soze>) -> Vec<(&'static str, f64)> {
    let (mut flows, mut updates, mut violated, mut violating, mut floor) = (0u64, 0, 0, 0, 0);
    for s in senders {
        flows += 1;
        updates += s.updates();
        violated += s.lemma_3_2_violations();
        violating += u64::from(s.lemma_3_2_violations() > 0);
        floor += u64::from(s.at_floor());
    }
    if flows == 0 {
        return Vec::new();
    }
    vec![
        ("soze_flows", flows as f64),
        ("soze_rate_updates", updates as f64),
        ("soze_lemma_3_2_violated_updates", violated as f64),
        ("soze_lemma_3_2_flows", violating as f64),
        ("soze_held_at_floor", floor as f64),
    ]
}

/// The packet engine as the Söze reproductions run it: Söze with the paper's defaults (p =
/// 20 µs, k = 3 µs, m = 0.25, per-packet updates from a per-RTT reference rate, paced under
/// the window `rate · RTT`), the
/// backlog delay signal (the sojourn time describes the queue one sojourn late: Fig. 2 then
/// settles slower and further off), no switch filter (with §4's 10 µs filter on the sojourn
/// time, Fig. 2's rates stay ~15% off on average), host NICs that queue (their delay
/// enters maxQD) and ACKs ahead of data at every port. Why: `docs/systems/soze.md`.
pub fn packet_config() -> PacketConfig {
    PacketConfig {
        transport: TransportKind::Soze,
        qdelay_lpf: None,
        qdelay_signal: QdelaySignal::Backlog,
        host_nic: HostNic::Queue,
        ack_first: true,
        ..PacketConfig::default()
    }
}

/// [`packet_config`] with the weighted NIC (`host_nic = "weighted"`: the uplink shared by
/// weight, nothing queued in front of the fabric) and a pacing credit of two packets
/// (`tcp.pacing_burst`): what random fat-trees need to reach weighted max-min
/// (`docs/systems/soze.md`, "Stability and accuracy").
pub fn weighted_nic_packet_config() -> PacketConfig {
    let mut cfg = packet_config();
    cfg.host_nic = HostNic::Weighted;
    cfg.tcp.pacing_burst = crate::units::Bytes(2 * cfg.mtu_wire().0);
    cfg
}
