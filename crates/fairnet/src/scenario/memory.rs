//! How much memory a scenario's run needs, estimated before anything is allocated.
//!
//! A run that cannot fit would otherwise abort part-way (`memory allocation of 8000000000 bytes
//! failed`, exit 134) or push the machine into swap. The runner compares this estimate with the
//! memory the machine has and refuses a run that cannot fit, naming both figures (issue 24).
//!
//! The estimate is deliberately simple: a per-flow figure for each engine, measured as the
//! slope of the peak resident memory of `fairnet.run` between 1,000 and 200,000 web-search
//! flows on a k = 8 fat-tree (everything a run holds per flow: the workload, the engine's
//! state and packet pool, the flow table and the max-min reference, and the Python-side
//! columns and Parquet buffers), plus the recorded time series, whose size follows from the
//! horizon, the sampling interval and the topology.

use super::{EngineSpec, Scenario, WorkloadSpec};
use crate::error::Result;
use crate::units::Time;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Bytes per flow of a flow-level run (measured slope: 382 B/flow).
pub const FLOW_ENGINE_BYTES_PER_FLOW: u64 = 400;
/// Bytes per flow of a packet-level run (measured slope: 1,800 B/flow, packet pool included).
pub const PACKET_ENGINE_BYTES_PER_FLOW: u64 = 2_000;
/// Bytes per flow of a rounds run (the flow's rate state and its links' per-flow entries).
pub const ROUNDS_ENGINE_BYTES_PER_FLOW: u64 = 1_000;
/// Bytes per recorded rate sample: the engine's row (40 B), the Python columns and the Parquet
/// buffer.
pub const BYTES_PER_RATE_SAMPLE: u64 = 100;
/// Bytes per recorded queue sample (the engine's row is 32 B).
pub const BYTES_PER_QUEUE_SAMPLE: u64 = 80;

/// What a run is expected to hold at its peak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// Flows in the workload (0 when a flow file cannot be read yet; the build reports why).
    pub flows: u64,
    /// Bytes for the flows: the workload, the engine's state and the output table.
    pub flow_bytes: u64,
    /// Rows of recorded time series (rates and queues); for flow samples the number of
    /// flows sampled at once is taken as one per host, so it is an order of magnitude only.
    pub record_samples: u64,
    /// Bytes for the recorded time series.
    pub record_bytes: u64,
}

impl MemoryEstimate {
    /// Everything together.
    pub fn total_bytes(&self) -> u64 {
        self.flow_bytes.saturating_add(self.record_bytes)
    }
}

/// Estimates the memory of running `s` (files relative to `base_dir`) without generating its
/// flows. Building the topology is the only real work (it is small beside the flows).
pub fn estimate_memory(s: &Scenario, base_dir: &Path) -> Result<MemoryEstimate> {
    let per_flow = match &s.engine {
        EngineSpec::Flow(_) => FLOW_ENGINE_BYTES_PER_FLOW,
        EngineSpec::Packet(_) => PACKET_ENGINE_BYTES_PER_FLOW,
        EngineSpec::Rounds(_) => ROUNDS_ENGINE_BYTES_PER_FLOW,
        // A model's size follows its parameters (its state vector), not a flow list: it is
        // not estimated here.
        EngineSpec::Model(_) => return Ok(MemoryEstimate::default()),
    };
    if let Some(m) = &s.matrix {
        let flows = u64::from(m.flows);
        return Ok(MemoryEstimate {
            flows,
            flow_bytes: flows.saturating_mul(per_flow),
            ..MemoryEstimate::default()
        });
    }
    let (Some(topology), Some(workload)) = (&s.topology, &s.workload) else {
        return Ok(MemoryEstimate::default());
    };
    let topo = topology
        .build_relative_to(base_dir)
        .map_err(|e| super::prefix("topology", e))?;
    let hosts = topo.hosts().len() as u64;
    let flows = match workload {
        WorkloadSpec::Poisson { flows, .. } => *flows as u64,
        WorkloadSpec::Bulk { per_host, tags, .. } => hosts
            .saturating_mul(u64::from(per_host.unwrap_or(1)))
            .saturating_mul(u64::from(tags.unwrap_or(1))),
        WorkloadSpec::Permutation { .. } => hosts,
        WorkloadSpec::Incast { senders, .. } => *senders as u64,
        WorkloadSpec::AllToAll { .. } => hosts.saturating_mul(hosts.saturating_sub(1)),
        WorkloadSpec::Flows { flows } => flows.len() as u64,
        WorkloadSpec::FlowFile { path, .. } => flow_file_count(&base_dir.join(path)),
    };
    // Flow samples: the flows active at a sample time are unknown before the run; one per
    // host is the order of magnitude of a loaded fabric.
    let sampled_flows = flows.min(hosts);
    let links = topo.num_links() as u64;
    let (rate_rows, queue_rows) = match &s.engine {
        EngineSpec::Flow(cfg) => match (cfg.sim.rate_interval, s.stop_at.or(cfg.sim.stop_at)) {
            (Some(interval), Some(horizon)) => (samples(horizon, interval) * sampled_flows, 0),
            _ => (0, 0),
        },
        EngineSpec::Packet(cfg) => match &cfg.record {
            Some(r) => {
                let n = samples(
                    s.stop_at.unwrap_or(super::run::DEFAULT_PACKET_HORIZON),
                    r.interval,
                );
                let flow_rows = if r.flows { n * sampled_flows } else { 0 };
                let queue_rows = match r.queues {
                    crate::engine::packet::QueueRecord::None => 0,
                    _ => n.saturating_mul(links),
                };
                (flow_rows, queue_rows)
            }
            None => (0, 0),
        },
        EngineSpec::Rounds(_) | EngineSpec::Model(_) => (0, 0),
    };
    Ok(MemoryEstimate {
        flows,
        flow_bytes: flows.saturating_mul(per_flow),
        record_samples: rate_rows.saturating_add(queue_rows),
        record_bytes: rate_rows
            .saturating_mul(BYTES_PER_RATE_SAMPLE)
            .saturating_add(queue_rows.saturating_mul(BYTES_PER_QUEUE_SAMPLE)),
    })
}

/// Sample times in `(0, horizon]` at every `interval`.
fn samples(horizon: Time, interval: Time) -> u64 {
    horizon.0.checked_div(interval.0).unwrap_or(0)
}

/// The count on the first line of an HPCC flow file; 0 if it cannot be read (the build names
/// the problem).
fn flow_file_count(path: &Path) -> u64 {
    let Ok(file) = std::fs::File::open(path) else {
        return 0;
    };
    let mut first = String::new();
    match BufReader::new(file).read_line(&mut first) {
        Ok(_) => first.trim().parse().unwrap_or(0),
        Err(_) => 0,
    }
}
