//! The flow list every engine consumes.

use crate::ids::NodeId;
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

/// One flow of a workload: who sends how much to whom, when, with what weight.
///
/// Engines index flows by their position in the list (`FlowId(i)`); `tag` is free for the
/// generator (e.g. a job or coflow number) and is copied to the records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FlowSpec {
    /// Sending host.
    pub src: NodeId,
    /// Receiving host.
    pub dst: NodeId,
    /// Bytes of payload to deliver.
    pub size: Bytes,
    /// Start time.
    pub start: Time,
    /// Weight for weighted allocation schemes (1 when the scheme has no weights).
    pub weight: f64,
    /// Priority class (0 = highest), for schemes with priority queues.
    pub priority: u8,
    /// Free-form group number (job, coflow, tenant), copied to the records.
    pub tag: u32,
    /// Deadline relative to `start` (the flow should finish by `start + deadline`), for
    /// deadline-aware transports (D2TCP); `None` for a flow without one.
    pub deadline: Option<Time>,
}

impl FlowSpec {
    /// A flow of weight 1, priority 0, tag 0, no deadline.
    pub fn new(src: NodeId, dst: NodeId, size: Bytes, start: Time) -> FlowSpec {
        FlowSpec {
            src,
            dst,
            size,
            start,
            weight: 1.0,
            priority: 0,
            tag: 0,
            deadline: None,
        }
    }
}
