//! The queueing disciplines a scenario can name (`qdisc = { kind = "ecn", k = { packets = 15 } }`)
//! and their static dispatch.

use crate::engine::packet::pkt::{PacketId, PacketPool};
use crate::engine::packet::qdisc::{Enqueued, Qdisc, QdiscParams};
use crate::error::{Error, Result};
use crate::ids::FlowId;
use crate::schemes::fifo::{DropTail, EcnStep, EcnThreshold};
use crate::schemes::las::Las;
use crate::schemes::pfabric::PfabricQueue;
use crate::schemes::red::{Red, RedConfig};
use crate::schemes::sched::{check_queues, Classifier, Drr, DrrOverflow, StrictPriority, Wrr};
use crate::systems::may::{May, MayConfig};
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

/// The registered disciplines (static dispatch) plus a boxed one for any other.
pub enum QdiscImpl {
    /// [`DropTail`].
    DropTail(DropTail),
    /// [`EcnStep`].
    Ecn(EcnStep),
    /// [`Red`].
    Red(Box<Red>),
    /// [`StrictPriority`]. (The multi-queue and pFabric variants are boxed, as RED is: inline
    /// they made every port, whatever its discipline, ~100 bytes larger on the data path.)
    Priority(Box<StrictPriority>),
    /// [`Drr`].
    Drr(Box<Drr>),
    /// [`Wrr`].
    Wrr(Box<Wrr>),
    /// [`PfabricQueue`].
    Pfabric(Box<PfabricQueue>),
    /// [`May`].
    May(Box<May>),
    /// [`Las`].
    Las(Box<Las>),
    /// Any other [`Qdisc`].
    Custom(Box<dyn Qdisc>),
}

impl std::fmt::Debug for QdiscImpl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QdiscImpl::DropTail(q) => q.fmt(f),
            QdiscImpl::Ecn(q) => q.fmt(f),
            QdiscImpl::Red(q) => q.fmt(f),
            QdiscImpl::Priority(q) => q.fmt(f),
            QdiscImpl::Drr(q) => q.fmt(f),
            QdiscImpl::Wrr(q) => q.fmt(f),
            QdiscImpl::Pfabric(q) => q.fmt(f),
            QdiscImpl::May(q) => q.fmt(f),
            QdiscImpl::Las(q) => q.fmt(f),
            QdiscImpl::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            QdiscImpl::DropTail($q) => $e,
            QdiscImpl::Ecn($q) => $e,
            QdiscImpl::Red($q) => $e,
            QdiscImpl::Priority($q) => $e,
            QdiscImpl::Drr($q) => $e,
            QdiscImpl::Wrr($q) => $e,
            QdiscImpl::Pfabric($q) => $e,
            QdiscImpl::May($q) => $e,
            QdiscImpl::Las($q) => $e,
            QdiscImpl::Custom($q) => $e,
        }
    };
}

impl Qdisc for QdiscImpl {
    #[inline]
    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, now: Time) -> Enqueued {
        dispatch!(self, q => q.enqueue(id, pool, now))
    }
    #[inline]
    fn dequeue(&mut self, pool: &mut PacketPool, now: Time) -> Option<PacketId> {
        dispatch!(self, q => q.dequeue(pool, now))
    }
    fn take_evicted(&mut self) -> Option<PacketId> {
        dispatch!(self, q => q.take_evicted())
    }
    #[inline]
    fn take_dequeue_marks(&mut self) -> u64 {
        dispatch!(self, q => q.take_dequeue_marks())
    }
    #[inline]
    fn bytes(&self) -> u64 {
        dispatch!(self, q => q.bytes())
    }
    #[inline]
    fn packets(&self) -> usize {
        dispatch!(self, q => q.packets())
    }
    fn on_flow_weight(&mut self, flow: FlowId, priority: u8, weight: f64) {
        dispatch!(self, q => q.on_flow_weight(flow, priority, weight))
    }
    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        dispatch!(self, q => q.gauges(out))
    }
}

impl From<Box<dyn Qdisc>> for QdiscImpl {
    fn from(q: Box<dyn Qdisc>) -> QdiscImpl {
        QdiscImpl::Custom(q)
    }
}

/// Which built-in discipline every port uses (`qdisc = { kind = "ecn", k = { packets = 15 } }`).
///
/// ```toml
/// qdisc = { kind = "drop_tail" }
/// qdisc = { kind = "ecn", k = { packets = 15 } }
/// qdisc = { kind = "red", gentle = true, thresholds = [
///   { rate = "100Gbps", kmin = "100KB", kmax = "400KB", pmax = 0.2 },
///   { rate = "25Gbps", kmin = "25KB", kmax = "100KB", pmax = 0.2 } ] }
/// qdisc = { kind = "priority", classes = 8 }
/// qdisc = { kind = "drr", weights = [1, 3], classify = "priority" }
/// qdisc = { kind = "drr", weights = [1, 1, 1], classify = "flow_hash", overflow = "drop_longest" }
/// qdisc = { kind = "wrr", weights = [1, 3], classify = "flow_hash", k = { packets = 20 } }
/// qdisc = { kind = "pfabric" }
/// qdisc = { kind = "las" }
/// qdisc = { kind = "may", delta = "1s", u0 = 0.98, kappa = 0.1, q_w = 0.05, t0 = "64s", s0 = 1000 }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QdiscConfig {
    /// [`DropTail`].
    #[default]
    DropTail,
    /// [`EcnStep`] with threshold `k`.
    Ecn {
        /// Marking threshold.
        k: EcnThreshold,
    },
    /// [`Red`]: RED / gentle RED / Adaptive RED with a per-link-rate threshold table.
    Red(RedConfig),
    /// [`StrictPriority`] over `classes` queues.
    Priority {
        /// Number of queues (packet priority 0 → queue 0, the highest).
        classes: u32,
        /// Queue selection (default: by priority class).
        #[serde(default)]
        classify: Classifier,
        /// Optional per-queue ECN step threshold.
        #[serde(default)]
        k: Option<EcnThreshold>,
    },
    /// [`Drr`]: one queue per weight; queue `i`'s quantum is `weights[i] · quantum`.
    Drr {
        /// Relative weights (positive).
        weights: Vec<f64>,
        /// Bytes per unit of weight per round (default: one full packet on the wire).
        #[serde(default)]
        quantum: Option<Bytes>,
        /// Queue selection (default: by priority class).
        #[serde(default)]
        classify: Classifier,
        /// Optional per-queue ECN step threshold.
        #[serde(default)]
        k: Option<EcnThreshold>,
        /// What happens on overflow (default `own_share`: each queue an equal share of the
        /// buffer; `drop_longest`: one shared buffer, the longest queue's head dropped, as
        /// ns-2's DRR).
        #[serde(default)]
        overflow: DrrOverflow,
    },
    /// [`Wrr`]: one queue per weight, `weights[i]` packets per round.
    Wrr {
        /// Packets per round (at least 1).
        weights: Vec<u32>,
        /// Queue selection (default: by priority class).
        #[serde(default)]
        classify: Classifier,
        /// Optional per-queue ECN step threshold.
        #[serde(default)]
        k: Option<EcnThreshold>,
    },
    /// [`PfabricQueue`]: dequeue the most urgent flow (smallest remaining size), drop the
    /// least urgent packet on overflow (pFabric §4.2).
    Pfabric,
    /// [`May`]: MAY's drop-counter AQM on a FIFO (`crate::systems::may`).
    May(MayConfig),
    /// [`Las`]: least attained service first; overflow drops from the most-served flow.
    Las,
}

impl QdiscConfig {
    /// Checks value ranges; errors name the field (`packet config.qdisc.weights[1]`).
    pub fn validate(&self) -> Result<()> {
        let at = "packet config.qdisc";
        let check_k = |k: &Option<EcnThreshold>| -> Result<()> {
            if let Some(k) = k {
                let zero = match k {
                    EcnThreshold::Bytes(b) => b.0 == 0,
                    EcnThreshold::Packets(n) => *n == 0,
                };
                if zero {
                    return Err(Error::invalid(
                        format!("{at}.k"),
                        "must be positive (K = 0 marks every packet; use a tiny K if meant)",
                    ));
                }
            }
            Ok(())
        };
        match self {
            QdiscConfig::DropTail | QdiscConfig::Pfabric | QdiscConfig::Las => Ok(()),
            QdiscConfig::Ecn { k } => check_k(&Some(*k)),
            QdiscConfig::Red(r) => r.validate(at),
            QdiscConfig::May(m) => m.validate(at),
            QdiscConfig::Priority { classes, k, .. } => {
                check_queues(&format!("{at}.classes"), *classes as usize)?;
                check_k(k)
            }
            QdiscConfig::Drr {
                weights,
                quantum,
                k,
                ..
            } => {
                check_queues(&format!("{at}.weights"), weights.len())?;
                for (i, w) in weights.iter().enumerate() {
                    if !(w.is_finite() && *w > 0.0) {
                        return Err(Error::invalid(
                            format!("{at}.weights[{i}]"),
                            format!("must be positive and finite, got {w}"),
                        ));
                    }
                }
                if *quantum == Some(Bytes(0)) {
                    return Err(Error::invalid(format!("{at}.quantum"), "must be positive"));
                }
                check_k(k)
            }
            QdiscConfig::Wrr { weights, k, .. } => {
                check_queues(&format!("{at}.weights"), weights.len())?;
                if let Some(i) = weights.iter().position(|&w| w == 0) {
                    return Err(Error::invalid(
                        format!("{at}.weights[{i}]"),
                        "must be at least 1 packet",
                    ));
                }
                check_k(k)
            }
        }
    }

    /// Builds the discipline for one port; errors name the link (a RED table without a row
    /// for the link's rate).
    pub fn build(&self, p: &QdiscParams) -> Result<QdiscImpl> {
        Ok(match self {
            QdiscConfig::DropTail => QdiscImpl::DropTail(DropTail::new(p.buffer)),
            QdiscConfig::Pfabric => QdiscImpl::Pfabric(Box::new(PfabricQueue::new(p.buffer))),
            QdiscConfig::Las => QdiscImpl::Las(Box::new(Las::new(p.buffer))),
            QdiscConfig::Ecn { k } => QdiscImpl::Ecn(EcnStep::new(p.buffer, *k)),
            QdiscConfig::Red(r) => QdiscImpl::Red(Box::new(r.build(p)?)),
            // Weighted MAY's initial weights come from the registry's `Builtin` (it sees the
            // flows); built here, MAY follows only run-time weight changes.
            QdiscConfig::May(m) => QdiscImpl::May(Box::new(May::new(m, p, None))),
            QdiscConfig::Priority {
                classes,
                classify,
                k,
            } => QdiscImpl::Priority(Box::new(StrictPriority::new(
                *classes as usize,
                p.buffer,
                p.mtu_wire,
                *classify,
                *k,
            ))),
            QdiscConfig::Drr {
                weights,
                quantum,
                classify,
                k,
                overflow,
            } => {
                let unit = quantum.unwrap_or(p.mtu_wire).0 as f64;
                let quanta = weights
                    .iter()
                    .map(|w| ((w * unit).round() as u64).max(1))
                    .collect();
                QdiscImpl::Drr(Box::new(
                    Drr::new(quanta, p.buffer, p.mtu_wire, *classify, *k).with_overflow(*overflow),
                ))
            }
            QdiscConfig::Wrr {
                weights,
                classify,
                k,
            } => QdiscImpl::Wrr(Box::new(Wrr::new(
                weights.clone(),
                p.buffer,
                p.mtu_wire,
                *classify,
                *k,
            ))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qdisc_config_parses_the_ecn_threshold_and_names_unknown_kinds() {
        let cfg: QdiscConfig = toml::from_str("kind = \"ecn\"\nk = { packets = 15 }").unwrap();
        assert_eq!(
            cfg,
            QdiscConfig::Ecn {
                k: EcnThreshold::Packets(15)
            }
        );
        let cfg: QdiscConfig = toml::from_str("kind = \"ecn\"\nk = { bytes = \"30KB\" }").unwrap();
        assert_eq!(
            cfg,
            QdiscConfig::Ecn {
                k: EcnThreshold::Bytes(Bytes(30_000))
            }
        );
        let err = toml::from_str::<QdiscConfig>("kind = \"wfq\"").unwrap_err();
        assert!(err.to_string().contains("unknown variant `wfq`"), "{err}");
    }
}
