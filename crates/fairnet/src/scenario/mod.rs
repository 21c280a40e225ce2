//! Scenario files: one schema for every engine, parsed and validated once.
//!
//! A scenario names a topology, a workload, a weight policy and an engine with its parameters:
//!
//! ```toml
//! name = "weighted flows on a fat-tree"
//! seed = 1
//! [topology]
//! kind = "fat_tree"
//! k = 4
//! [workload]
//! kind = "poisson"
//! cdf = "/path/to/WebSearch_distribution.txt"
//! load = "60%"
//! flows = 2000
//! [weights]
//! kind = "uniform"
//! lo = 1
//! hi = 4
//! [engine]
//! kind = "flow"
//! ```
//!
//! The rounds engine (s-PERC §8.1) runs either on a topology and workload (every flow starts at
//! once and stays) or on an abstract random routing matrix given instead of both:
//!
//! ```toml
//! [matrix]              # s-PERC Fig. 6: M links, N flows, each on P random distinct links
//! links = 100
//! flows = 1000
//! links_per_flow = 5
//! [engine]
//! kind = "rounds"
//! algorithm = "s_perc"
//! ```
//!
//! The model engine solves a registered fluid, delay-differential or map model instead
//! ([`models`]: `engine.kind = "model"`, `model = "dctcp_fluid"`, `[engine.params]`).
//!
//! Unknown keys are errors; every error names the field path and what was expected
//! (`workload.load: expected a fraction in (0, 1] such as 0.4 or "40%", got 1.4`). Units are
//! parsed from strings (`"100Gbps"`, `"1us"`, `"32MB"`, `"40%"`). The Python runner (`fairnet
//! run`) resolves named size distributions to files before handing the scenario over.

mod memory;
pub mod models;
mod run;

pub use memory::{estimate_memory, MemoryEstimate};
pub use models::{find_model, ModelEntry, ModelSpec, MODELS};
pub use run::{
    maxmin_reference, run, run_built, run_matrix, run_with_progress, LinkRow, MaxminReference,
    RunOutput, RunRow,
};

use crate::engine::flow::{FlowSimConfig, WeightChange};
use crate::engine::rounds::RandomMatrix;
use crate::error::{Error, Result};
use crate::ids::NodeId;
use crate::registry::{FlowTransport, HostShimKind, PacketConfig, TransportKind};
use crate::systems::eba::vms::EbaPacketConfig;
use crate::systems::sperc::RoundsSpec;
use crate::systems::uranus::packet_level::SliceScheduler;
use crate::systems::uranus::slices::{SliceSet, SliceSpec, DEFAULT_DECISION_SLOT};
use crate::topo::{Topology, TopologySpec};
use crate::units::{Bytes, Rate, Time};
use crate::workload::{
    all_to_all_flows, background_flows, bulk_flows, exponential_deadlines, floor_deadlines,
    full_load, hpcc, incast_flows, permutation_flows, poisson_flows_offering, split_tags,
    DeadlineFloor, FlowSpec, HostPairs, LoadOn, SizeCdf, WireFormat,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{de, Deserialize, Deserializer, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// A fraction in (0, 1], written as a number or a percentage string (`"40%"`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Fraction(pub f64);

impl schemars::JsonSchema for Fraction {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Fraction".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "a fraction in (0, 1], as a number or a percentage string",
            "oneOf": [
                {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                {"type": "string", "pattern": "^[0-9.]+ *%$", "examples": ["40%"]}
            ]
        })
    }
}

impl<'de> Deserialize<'de> for Fraction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Fraction;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a fraction in (0, 1] such as 0.4 or \"40%\"")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Fraction, E> {
                if v > 0.0 && v <= 1.0 {
                    Ok(Fraction(v))
                } else {
                    Err(E::custom(format!(
                        "expected a fraction in (0, 1] such as 0.4 or \"40%\", got {v}"
                    )))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Fraction, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Fraction, E> {
                self.visit_f64(v as f64)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Fraction, E> {
                let pct = v
                    .trim()
                    .strip_suffix('%')
                    .and_then(|x| x.trim().parse::<f64>().ok());
                match pct {
                    Some(p) => self.visit_f64(p / 100.0),
                    None => Err(E::custom(format!(
                        "expected a percentage such as \"40%\", got {v:?}"
                    ))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// The flows of a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum WorkloadSpec {
    /// Poisson arrivals offering `load` of the hosts' access capacity, sizes from a CDF file.
    Poisson {
        /// Flow-size CDF file (relative to the scenario's directory).
        cdf: PathBuf,
        /// Offered load, a fraction of the capacity of the links `load_on` names (the host
        /// links' by default).
        load: Fraction,
        /// Which links `load` (and `background.load`) is a fraction of: `"hosts"` (default:
        /// the hosts' access links, `λ = load · host rate · hosts / (8 · mean size)`) or
        /// `"rack_uplinks"` (the links from each rack switch to the switches above it and
        /// back: load 1 fills the busiest rack's uplinks in expectation, the bottleneck of an
        /// oversubscribed fabric; [`crate::workload::full_load`]).
        #[serde(default, skip_serializing_if = "LoadOn::is_hosts")]
        load_on: LoadOn,
        /// Number of flows.
        flows: usize,
        /// If given, every flow gets a deadline (relative to its start) drawn from an
        /// exponential distribution of this mean (L2DCT's guideline), for deadline-aware
        /// transports (`d2tcp`). Default: no deadlines.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline_mean: Option<Time>,
        /// A lower bound on the drawn deadlines: a draw below it becomes it (PDQ's 3 ms;
        /// [`crate::workload::floor_deadlines`]). Needs `deadline_mean`. Default none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline_min: Option<Time>,
        /// Bound every drawn deadline below by the flow's FCT alone on the empty network (the
        /// flow table's `ideal_fct_s`), so that none is infeasible by that measure. Needs
        /// `deadline_mean`. Default false.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        deadline_min_fct_alone: bool,
        /// A draw below the bound is redrawn until it passes it (`bound + Exp(deadline_mean)`)
        /// instead of clamped to it. Default false (clamped).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        deadline_min_redraw: bool,
        /// Split the flows into this many classes of equal rate, tagged `0 … tags − 1` (each
        /// flow's tag drawn uniformly: independent Poisson processes of `load / tags` each, as
        /// Uranus §5.2.2's two slices "share the same Poisson parameters"). Default 1 (every
        /// flow tag 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tags: Option<u32>,
        /// Random background traffic between racks (Uranus §5.2.1), appended after the
        /// `flows` flows. Default none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        background: Option<BackgroundSpec>,
    },
    /// Long-lived bulk senders between racks (Uranus §5.2.1: each sending host "works as a
    /// *bulk-sender*, i.e., sending packets as fast as possible"): every host starts
    /// `per_host` flows of each class `0 … tags − 1` at `start`, each of `size` bytes to a
    /// uniformly random host of another rack ([`crate::workload::bulk_flows`]). End the run
    /// with `stop_at` before the flows can finish.
    Bulk {
        /// Bytes per flow: more than the run can deliver (e.g. `"100GB"`).
        size: Bytes,
        /// Flows per host of each class. Default 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        per_host: Option<u32>,
        /// Flows per drawn destination: each of a host's `per_host` flows of a class becomes
        /// this many flows of the same host pair and class (several flows in one SCC tunnel).
        /// Default 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        per_pair: Option<u32>,
        /// Classes, tagged `0 … tags − 1` (e.g. one per slice). Default 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tags: Option<u32>,
        /// Start of every flow. Default 0.
        #[serde(default)]
        start: Time,
        /// Random background traffic between racks (Uranus §5.2.1), appended after the bulk
        /// flows; it needs its own `cdf` and `until` here. Default none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        background: Option<BackgroundSpec>,
    },
    /// Every host sends `size` to a distinct host at time 0.
    Permutation {
        /// Bytes per flow.
        size: Bytes,
    },
    /// `senders` hosts send `size` to one receiver at `start`.
    Incast {
        /// Number of senders.
        senders: usize,
        /// Bytes per flow.
        size: Bytes,
        /// Start time. Default 0.
        #[serde(default)]
        start: Time,
    },
    /// Every host sends `size` to every other host at time 0.
    AllToAll {
        /// Bytes per flow.
        size: Bytes,
    },
    /// Flows listed in the scenario (`flows = [{ src = 0, dst = 4, size = "10MB" }, ...]`).
    Flows {
        /// The flows, in order (flow `i` of the results and of `weight_changes`).
        flows: Vec<InlineFlow>,
    },
    /// Flows read from a file (relative to the scenario's directory).
    FlowFile {
        /// The file.
        path: PathBuf,
        /// Its format (default `hpcc`: the HPCC ns-3 simulator's flow list,
        /// [`crate::workload::hpcc`]).
        #[serde(default)]
        format: FlowFileFormat,
    },
}

/// Random background traffic between racks beside a Poisson workload
/// ([`crate::workload::background_flows`]): flows from a random host to a random host of
/// another rack (a host's rack: the switch its access link leads to), sizes from the
/// workload's CDF, Poisson arrivals from time 0 until the workload's last flow starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackgroundSpec {
    /// Offered load, a fraction of the capacity the workload's `load` refers to
    /// (`load_on`: the hosts' access links by default, or the racks' uplinks), so the two
    /// add. Uranus §5.2.1: "around 10%", i.e. 0.1.
    pub load: Fraction,
    /// The background flows' tag. Default: the workload's `tags` (the first tag after the
    /// workload's own), e.g. 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<u32>,
    /// Flow-size CDF of the background (a file or a shipped name, as `workload.cdf`).
    /// Default: the Poisson workload's `cdf`; required beside a bulk workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cdf: Option<PathBuf>,
    /// Arrivals stop here. Default: when the Poisson workload's last flow starts; required
    /// beside a bulk workload (e.g. the run's `stop_at`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Time>,
}

/// One flow of [`WorkloadSpec::Flows`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InlineFlow {
    /// Sending host (node id of the topology).
    pub src: u32,
    /// Receiving host (node id).
    pub dst: u32,
    /// Payload bytes.
    pub size: Bytes,
    /// Start time. Default 0.
    #[serde(default)]
    pub start: Time,
    /// Weight (> 0). Default 1; a `[weights]` policy other than `equal` overrides it.
    #[serde(default = "one_f64")]
    pub weight: f64,
    /// Group number copied to the results. Default 0.
    #[serde(default)]
    pub tag: u32,
    /// Priority class (0 = highest; also the queue of a `priority` or `wrr` qdisc classifying
    /// by priority). Default 0.
    #[serde(default)]
    pub priority: u8,
    /// Deadline relative to `start` (> 0), read by deadline-aware transports (`d2tcp`); a flow
    /// without one has none (D2TCP then behaves as DCTCP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<Time>,
    /// This flow's transport, overriding `engine.transport` (packet engine only): e.g. one
    /// constant-rate `udp` flow among TCP flows (MAY §IV.C). Default: the engine's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<TransportKind>,
    /// Sending rate of this flow when its transport is `udp` (> 0). Default
    /// `engine.udp_rate`, then the sender's line rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udp_rate: Option<Rate>,
}

fn one_f64() -> f64 {
    1.0
}

/// A scheduled weight change (`weight_changes = [{ at = "10ms", flow = 0, weight = 2 }]`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WeightChangeSpec {
    /// When (simulated time).
    pub at: Time,
    /// Which flow: its index in the workload's flow list.
    pub flow: u32,
    /// The new weight (> 0).
    pub weight: f64,
}

/// Formats of [`WorkloadSpec::FlowFile`].
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FlowFileFormat {
    /// `N`, then `src dst pg dport size start_seconds` per line.
    #[default]
    Hpcc,
}

/// How flows get their weights.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum WeightSpec {
    /// Every flow has weight `value` (default 1).
    Constant {
        /// The weight.
        value: f64,
    },
    /// Weights drawn uniformly from `[lo, hi]`.
    Uniform {
        /// Lowest weight (> 0).
        lo: f64,
        /// Highest weight.
        hi: f64,
    },
    /// Shortest-flow-first (Söze §5.1): weight = largest size / own size.
    ShortestFirst,
    /// All weights 1.
    #[default]
    Equal,
}

/// The engine and its parameters.
// Built once per run: the packet engine's config (with its per-transport tables) being a few
// hundred bytes larger than the flow engine's costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EngineSpec {
    /// The flow-level (fluid) engine ([`FlowSimConfig`] fields, and eBA's `[engine.eba]`).
    Flow(FlowEngineSpec),
    /// The packet-level engine ([`PacketConfig`] fields).
    Packet(PacketConfig),
    /// The control-message engine with an s-PERC-family algorithm ([`RoundsSpec`] fields).
    Rounds(RoundsSpec),
    /// The model engine: a registered ODE, DDE or map model ([`ModelSpec`] fields).
    Model(ModelSpec),
}

/// The flow engine's section: the engine's own parameters ([`FlowSimConfig`], at the top of
/// `[engine]`) and, optionally, eBA's VMs and rate control (`[engine.eba]`, the same table as
/// at packet level: [`EbaPacketConfig`]), which runs the flows as VM-flows under LRC,
/// reservation or best effort ([`crate::systems::eba::flow_level::run_flows`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct FlowEngineSpec {
    /// The fluid engine's parameters.
    #[serde(flatten)]
    pub sim: FlowSimConfig,
    /// eBA at flow level. Default none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eba: Option<EbaPacketConfig>,
}

// By hand rather than `#[serde(flatten)]` on the way in: a flattened struct ignores the keys
// it does not know, and a misspelt engine field must stay an error.
impl<'de> Deserialize<'de> for FlowEngineSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let mut map = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
        let eba = map
            .remove("eba")
            .map(serde_json::from_value::<EbaPacketConfig>)
            .transpose()
            .map_err(de::Error::custom)?;
        let sim = FlowSimConfig::deserialize(serde_json::Value::Object(map))
            .map_err(de::Error::custom)?;
        Ok(FlowEngineSpec { sim, eba })
    }
}

/// A whole scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A name for reports. Default "scenario".
    #[serde(default = "default_name")]
    pub name: String,
    /// Seed of every random choice (workload, weights, ECMP). Default 1.
    #[serde(default = "one")]
    pub seed: u64,
    /// The network (required unless `matrix` is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<TopologySpec>,
    /// The flows (required unless `matrix` is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<WorkloadSpec>,
    /// An abstract random routing matrix instead of a topology and workload (rounds engine
    /// only; s-PERC Fig. 6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<RandomMatrix>,
    /// The weight policy. Default: all weights 1.
    #[serde(default)]
    pub weights: WeightSpec,
    /// The engine.
    pub engine: EngineSpec,
    /// Weight changes during the run, applied by either engine at their exact times (after
    /// the initial weights of `[weights]`). Default none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weight_changes: Vec<WeightChangeSpec>,
    /// Stop the simulation at this time even if flows remain. Default: run to completion (the
    /// packet engine stops at 10 s of simulated time at the latest).
    #[serde(default)]
    pub stop_at: Option<Time>,
    /// Uranus's slices (§3; `[[slices]]`: `name`, `objective` "ds" or "cs", `weight` W_S,
    /// `tags`): every flow belongs to the one slice listing its tag, and the slice scheduler
    /// sets every flow's weight each decision slot (flow and packet engines). Default none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slices: Vec<SliceSpec>,
    /// The slice scheduler's decision slot (with `[[slices]]`; default 1 ms,
    /// [`crate::systems::uranus::slices::DEFAULT_DECISION_SLOT`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_slot: Option<Time>,
    /// Which scheduler weighs the slices' flows (with `[[slices]]`): `"uranus"` (default,
    /// §3), `"scc"` (the baseline of §2.4: host-pair tunnels; packet engine with
    /// `engine.host_shim = "scc"`) or `"none"` (every flow keeps its workload weight).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slice_scheduler: Option<SliceScheduler>,
}

fn default_name() -> String {
    "scenario".into()
}
fn one() -> u64 {
    1
}

/// Parses a scenario from JSON; errors name the field path.
pub fn from_json(text: &str) -> Result<Scenario> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Error::invalid("scenario", json_error_message(&e)))?;
    from_value(value)
}

/// A JSON error's message without the position serde_json appends (`at line 1 column 231`):
/// the JSON text handed to the core is built by the caller from a TOML file or a Python dict,
/// so a position in it means nothing to the user (issue 24).
pub fn json_error_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&position) {
        Some(message) if e.line() > 0 => message.to_string(),
        _ => text,
    }
}

/// Parses a scenario from TOML; errors name the field path.
pub fn from_toml(text: &str) -> Result<Scenario> {
    let value: serde_json::Value =
        toml::from_str(text).map_err(|e| Error::invalid("scenario", e.message().to_string()))?;
    from_value(value)
}

/// Deserializes a scenario document, naming the field of the first error.
///
/// serde buffers the sections that are enums tagged by `kind` (topology, workload, weights,
/// engine), so the path it reports stops at the section. When that happens the culprit is found
/// by elimination: the key of the section whose removal changes the error is the one at fault.
pub fn from_value(value: serde_json::Value) -> Result<Scenario> {
    let first = match serde_path_to_error::deserialize::<_, Scenario>(&value) {
        Ok(s) => {
            s.check_sections()?;
            return Ok(s);
        }
        Err(e) => e,
    };
    let path = first.path().to_string();
    let msg = first.inner().to_string();
    if let Some(serde_json::Value::Object(section)) = value.get(&path) {
        for key in section.keys().filter(|k| *k != "kind") {
            let mut trial = value.clone();
            trial[&path].as_object_mut().unwrap().remove(key);
            let changed = match serde_path_to_error::deserialize::<_, Scenario>(&trial) {
                Ok(_) => true,
                Err(e) => e.inner().to_string() != msg || e.path().to_string() != path,
            };
            if changed {
                if let (Some(serde_json::Value::Array(items)), true) =
                    (section.get(key), path == "workload" && key == "flows")
                {
                    // An inline flow list: name the entry and its field.
                    for (i, item) in items.iter().enumerate() {
                        if let Err(e) = serde_path_to_error::deserialize::<_, InlineFlow>(item) {
                            let field = e.path().to_string();
                            let at = if field == "." {
                                format!("workload.flows[{i}]")
                            } else {
                                format!("workload.flows[{i}].{field}")
                            };
                            return Err(Error::invalid(at, e.inner().to_string()));
                        }
                    }
                }
                return Err(Error::invalid(format!("{path}.{key}"), msg));
            }
        }
    }
    let at = if path == "." || path.is_empty() {
        "scenario".to_string()
    } else {
        path
    };
    Err(Error::invalid(at, msg))
}

impl Scenario {
    /// Checks which sections go together: `[matrix]` replaces `[topology]` and `[workload]` and
    /// needs the rounds engine; the rounds engine's options are valid.
    pub fn check_sections(&self) -> Result<()> {
        if let EngineSpec::Model(_) = self.engine {
            // The model's parameters describe its network: nothing else is used.
            for (section, given) in [
                ("topology", self.topology.is_some()),
                ("workload", self.workload.is_some()),
                ("matrix", self.matrix.is_some()),
                ("weight_changes", !self.weight_changes.is_empty()),
                ("slices", !self.slices.is_empty()),
            ] {
                if given {
                    return Err(Error::invalid(
                        section,
                        "a model run (engine.kind = \"model\") takes its network from \
                         engine.params; remove this section",
                    ));
                }
            }
            return Ok(());
        }
        self.check_slice_sections()?;
        self.check_flow_eba()?;
        let rounds = matches!(self.engine, EngineSpec::Rounds(_));
        match (&self.matrix, &self.topology, &self.workload) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return Err(Error::invalid(
                    "matrix",
                    "give either [matrix] or [topology] and [workload], not both",
                ))
            }
            (Some(m), None, None) => {
                if !rounds {
                    return Err(Error::invalid(
                        "matrix",
                        "an abstract routing matrix runs only on engine.kind = \"rounds\"",
                    ));
                }
                m.validate()?;
            }
            (None, None, _) => return Err(Error::invalid("topology", "missing field `topology`")),
            (None, _, None) => return Err(Error::invalid("workload", "missing field `workload`")),
            (None, Some(_), Some(_)) => {}
        }
        if let EngineSpec::Rounds(r) = &self.engine {
            // The number of flows is known only once built: departures are checked then.
            r.validate(usize::MAX)?;
        }
        self.check_flow_transports()
    }

    /// Checks the flow rows' own transports: only the packet engine has transports, and a
    /// `udp_rate` belongs to a flow whose transport is `udp`.
    fn check_flow_transports(&self) -> Result<()> {
        let Some(WorkloadSpec::Flows { flows }) = &self.workload else {
            return Ok(());
        };
        for (i, f) in flows.iter().enumerate() {
            let at = |field: &str| format!("workload.flows[{i}].{field}");
            let default = match &self.engine {
                EngineSpec::Packet(cfg) => cfg.tag_transport(f.tag).kind,
                _ if f.transport.is_some() || f.udp_rate.is_some() => {
                    let field = if f.transport.is_some() {
                        "transport"
                    } else {
                        "udp_rate"
                    };
                    return Err(Error::invalid(
                        at(field),
                        "a flow's own transport needs engine.kind = \"packet\"",
                    ));
                }
                _ => continue,
            };
            if let Some(rate) = f.udp_rate {
                if rate == Rate(0) {
                    return Err(Error::invalid(at("udp_rate"), "must be positive"));
                }
                if f.transport.unwrap_or(default) != TransportKind::Udp {
                    return Err(Error::invalid(
                        at("udp_rate"),
                        "is the rate of a constant-rate flow: set transport = \"udp\"",
                    ));
                }
            }
        }
        Ok(())
    }

    /// eBA at flow level (`[engine.eba]` with `engine.kind = "flow"`) sets every VM-flow's
    /// weight and guarantee itself (Eqs. 1–2): no `[weights]` policy, `weight_changes` or
    /// `[[slices]]` beside it; its own fields are valid (errors name `engine.eba.…`).
    fn check_flow_eba(&self) -> Result<()> {
        let EngineSpec::Flow(FlowEngineSpec { eba: Some(eba), .. }) = &self.engine else {
            return Ok(());
        };
        for (section, given) in [
            ("weights", self.weights != WeightSpec::Equal),
            ("weight_changes", !self.weight_changes.is_empty()),
            ("slices", !self.slices.is_empty()),
        ] {
            if given {
                return Err(Error::invalid(
                    section,
                    "eBA sets every VM-flow's weight from its VMs (Eq. 1): remove this \
                     section or [engine.eba]",
                ));
            }
        }
        eba.validate("engine.eba")
    }

    /// `[[slices]]` and `decision_slot` go with the flow or packet engine, set every weight
    /// themselves (no `[weights]` policy, no `weight_changes`), and the declarations are valid
    /// (names, `W_S > 0`, no tag in two slices); flows are checked once built.
    fn check_slice_sections(&self) -> Result<()> {
        if self.slices.is_empty() {
            if self.decision_slot.is_some() {
                return Err(Error::invalid(
                    "decision_slot",
                    "a decision slot without [[slices]]: declare the slices or remove it",
                ));
            }
            if self.slice_scheduler.is_some() {
                return Err(Error::invalid(
                    "slice_scheduler",
                    "a slice scheduler without [[slices]]: declare the slices or remove it",
                ));
            }
            return Ok(());
        }
        if self.slice_scheduler == Some(SliceScheduler::Scc) {
            match &self.engine {
                EngineSpec::Packet(c) if c.host_shim == HostShimKind::Scc => {}
                EngineSpec::Packet(_) => {
                    return Err(Error::invalid(
                        "slice_scheduler",
                        "\"scc\" runs SCC's virtual tunnels: set engine.host_shim = \"scc\"",
                    ))
                }
                _ => {
                    return Err(Error::invalid(
                        "slice_scheduler",
                        "\"scc\" runs on the packet engine (its virtual tunnels are host \
                         shims): set engine.kind = \"packet\"",
                    ))
                }
            }
        }
        if !matches!(self.engine, EngineSpec::Flow(_) | EngineSpec::Packet(_)) {
            return Err(Error::invalid(
                "slices",
                "slices run on engine.kind = \"flow\" or \"packet\"",
            ));
        }
        if self.decision_slot == Some(Time::ZERO) {
            return Err(Error::invalid(
                "decision_slot",
                "expected a positive duration, got 0",
            ));
        }
        if !self.weight_changes.is_empty() {
            return Err(Error::invalid(
                "weight_changes",
                "the slice scheduler sets every flow's weight: remove weight_changes or [[slices]]",
            ));
        }
        if self.weights != WeightSpec::Equal {
            return Err(Error::invalid(
                "weights",
                "the slice scheduler sets every flow's weight: remove [weights] or [[slices]]",
            ));
        }
        SliceSet::new(self.slices.clone())?;
        Ok(())
    }

    /// The checked slices and decision slot, if the scenario declares slices: every flow of
    /// `flows` in exactly one slice, every flow of a DS slice with a deadline (errors name the
    /// flow: `flow 4: tag 9 is in no slice: every flow must belong to one slice`).
    pub fn slice_set(&self, flows: &[FlowSpec]) -> Result<Option<(SliceSet, Time)>> {
        if self.slices.is_empty() {
            return Ok(None);
        }
        let set = SliceSet::new(self.slices.clone())?;
        for (i, f) in flows.iter().enumerate() {
            set.check_member(i as u32, f.tag, f.deadline.is_some())?;
        }
        Ok(Some((
            set,
            self.decision_slot.unwrap_or(DEFAULT_DECISION_SLOT),
        )))
    }

    /// The flow rows' own transports by flow index, for [`PacketConfig::flow_transports`]
    /// (empty when no flow row names one; a row naming only `udp_rate` takes its tag's
    /// transport, [`PacketConfig::tag_transport`]; the other flows' tags are resolved when the
    /// run is built, [`PacketConfig::resolve_tag_transports`]).
    pub fn flow_transports(&self) -> Vec<Option<FlowTransport>> {
        let Some(WorkloadSpec::Flows { flows }) = &self.workload else {
            return Vec::new();
        };
        if flows
            .iter()
            .all(|f| f.transport.is_none() && f.udp_rate.is_none())
        {
            return Vec::new();
        }
        let EngineSpec::Packet(cfg) = &self.engine else {
            return Vec::new();
        };
        flows
            .iter()
            .map(|f| {
                (f.transport.is_some() || f.udp_rate.is_some()).then(|| FlowTransport {
                    kind: f.transport.unwrap_or(cfg.tag_transport(f.tag).kind),
                    udp_rate: f.udp_rate,
                })
            })
            .collect()
    }

    /// How the scenario's engine puts a flow's bytes on the wire, for the FCT alone that
    /// bounds deadlines below (the engines' own `ideal_fct`): the packet engine's MTU and
    /// headers; the flow engine's, with its start latency; the payload alone otherwise.
    fn wire_format(&self) -> WireFormat {
        match &self.engine {
            EngineSpec::Packet(cfg) => WireFormat {
                mtu: cfg.mtu,
                header: cfg.header,
                fixed: Time::ZERO,
            },
            EngineSpec::Flow(f) => WireFormat {
                mtu: Bytes(f.sim.mtu),
                header: Bytes(f.sim.header_bytes),
                fixed: f.sim.start_latency,
            },
            _ => WireFormat {
                mtu: Bytes(u64::MAX),
                header: Bytes(0),
                fixed: Time::ZERO,
            },
        }
    }

    /// Builds the topology and the flow list; relative paths are taken from `base_dir`.
    pub fn build(&self, base_dir: &Path) -> Result<(Topology, Vec<FlowSpec>)> {
        let (Some(topology), Some(workload)) = (&self.topology, &self.workload) else {
            return Err(Error::invalid(
                "topology",
                "this scenario has an abstract [matrix], not a topology and workload to build",
            ));
        };
        let topo = topology
            .build_relative_to(base_dir)
            .map_err(|e| prefix("topology", e))?;
        let hosts = topo.hosts().to_vec();
        let mut flows = match workload {
            WorkloadSpec::Poisson {
                cdf,
                load,
                load_on,
                flows,
                deadline_mean,
                deadline_min,
                deadline_min_fct_alone,
                deadline_min_redraw,
                tags,
                background,
            } => {
                let cdf = SizeCdf::from_file(&base_dir.join(cdf))
                    .map_err(|e| prefix("workload.cdf", e))?;
                if hosts.is_empty() {
                    return Err(Error::invalid("topology", "has no hosts"));
                }
                let full = full_load(&topo, HostPairs::AnyOther, *load_on)
                    .map_err(|e| prefix("workload", e))?;
                poisson_flows_offering(&hosts, full, load.0, &cdf, *flows, self.seed).and_then(
                    |mut f| {
                        let floor = DeadlineFloor {
                            fixed: *deadline_min,
                            fct_alone: *deadline_min_fct_alone,
                            redraw: *deadline_min_redraw,
                        };
                        if let Some(mean) = deadline_mean {
                            exponential_deadlines(&mut f, *mean, self.seed)?;
                            let wire = self.wire_format();
                            floor_deadlines(&mut f, floor, &topo, wire, *mean, self.seed)?;
                        } else if floor != DeadlineFloor::default() {
                            let field = if deadline_min.is_some() {
                                "deadline_min"
                            } else if *deadline_min_fct_alone {
                                "deadline_min_fct_alone"
                            } else {
                                "deadline_min_redraw"
                            };
                            return Err(Error::invalid(
                                field,
                                "bounds drawn deadlines: set deadline_mean too",
                            ));
                        }
                        let classes = tags.unwrap_or(1);
                        if classes != 1 {
                            split_tags(&mut f, classes, self.seed)?;
                        }
                        if let Some(bg) = background {
                            let until = f.last().map_or(Time::ZERO, |x| x.start);
                            f.extend(background_between_racks(
                                bg,
                                base_dir,
                                &topo,
                                Some((&cdf, until)),
                                classes,
                                *load_on,
                                self.seed,
                            )?);
                        }
                        Ok(f)
                    },
                )
            }
            WorkloadSpec::Bulk {
                size,
                per_host,
                per_pair,
                tags,
                start,
                background,
            } => {
                let classes = tags.unwrap_or(1);
                bulk_flows(
                    &hosts,
                    &host_racks(&topo, &hosts),
                    per_host.unwrap_or(1),
                    classes,
                    *size,
                    *start,
                    self.seed,
                )
                .and_then(|drawn| {
                    let per_pair = per_pair.unwrap_or(1);
                    if per_pair == 0 {
                        return Err(Error::invalid(
                            "per_pair",
                            "expected at least 1 flow, got 0",
                        ));
                    }
                    // Each drawn flow repeated in place: the draws (hosts, order) are those
                    // of `per_pair = 1`.
                    let mut f: Vec<FlowSpec> = drawn
                        .into_iter()
                        .flat_map(|x| std::iter::repeat_n(x, per_pair as usize))
                        .collect();
                    if let Some(bg) = background {
                        f.extend(background_between_racks(
                            bg,
                            base_dir,
                            &topo,
                            None,
                            classes,
                            LoadOn::Hosts,
                            self.seed,
                        )?);
                    }
                    Ok(f)
                })
            }
            WorkloadSpec::Permutation { size } => permutation_flows(&hosts, *size, self.seed),
            WorkloadSpec::Incast {
                senders,
                size,
                start,
            } => incast_flows(&hosts, *senders, *size, *start, self.seed),
            WorkloadSpec::AllToAll { size } => Ok(all_to_all_flows(&hosts, *size, Time::ZERO)),
            WorkloadSpec::Flows { flows } => flows
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    if !(f.weight.is_finite() && f.weight > 0.0) {
                        return Err(Error::invalid(
                            format!("workload.flows[{i}].weight"),
                            format!("expected a positive number, got {}", f.weight),
                        ));
                    }
                    let mut spec = FlowSpec::new(NodeId(f.src), NodeId(f.dst), f.size, f.start);
                    spec.weight = f.weight;
                    spec.tag = f.tag;
                    spec.priority = f.priority;
                    if let Some(d) = f.deadline {
                        if d <= Time::ZERO {
                            return Err(Error::invalid(
                                format!("workload.flows[{i}].deadline"),
                                "expected a positive duration, got 0",
                            ));
                        }
                    }
                    spec.deadline = f.deadline;
                    Ok(spec)
                })
                .collect(),
            WorkloadSpec::FlowFile { path, format } => {
                let FlowFileFormat::Hpcc = format;
                // The file's own location (`flow.txt:3`) goes in the message, after the field.
                hpcc::read_flow_file(&base_dir.join(path), &topo).map_err(|e| match e {
                    Error::Invalid { at, msg } => {
                        Error::invalid("workload.path", format!("{at}: {msg}"))
                    }
                    Error::Io { path, msg } => {
                        Error::invalid("workload.path", format!("{path}: {msg}"))
                    }
                })
            }
        }
        .map_err(|e| prefix("workload", e))?;
        self.assign_weights(&mut flows)?;
        self.weight_schedule(flows.len())?;
        self.slice_set(&flows)?;
        Ok((topo, flows))
    }

    /// The checked weight changes in time order (changes at the same time keep their order):
    /// `weight_changes[2].flow: no flow 9 (the workload has 6)`.
    pub fn weight_schedule(&self, n_flows: usize) -> Result<Vec<WeightChange>> {
        let mut out = Vec::with_capacity(self.weight_changes.len());
        for (i, c) in self.weight_changes.iter().enumerate() {
            if c.flow as usize >= n_flows {
                return Err(Error::invalid(
                    format!("weight_changes[{i}].flow"),
                    format!("no flow {} (the workload has {n_flows})", c.flow),
                ));
            }
            if !(c.weight.is_finite() && c.weight > 0.0) {
                return Err(Error::invalid(
                    format!("weight_changes[{i}].weight"),
                    format!("expected a positive number, got {}", c.weight),
                ));
            }
            out.push(WeightChange {
                time: c.at,
                flow: c.flow,
                weight: c.weight,
            });
        }
        out.sort_by_key(|c| c.time);
        Ok(out)
    }

    fn assign_weights(&self, flows: &mut [FlowSpec]) -> Result<()> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ 0x77e1_6475);
        match self.weights {
            WeightSpec::Equal => {}
            WeightSpec::Constant { value } => {
                if !(value.is_finite() && value > 0.0) {
                    return Err(Error::invalid(
                        "weights.value",
                        format!("expected a positive number, got {value}"),
                    ));
                }
                flows.iter_mut().for_each(|f| f.weight = value);
            }
            WeightSpec::Uniform { lo, hi } => {
                if !(lo > 0.0 && lo <= hi && hi.is_finite()) {
                    return Err(Error::invalid(
                        "weights",
                        format!("expected 0 < lo <= hi, got lo = {lo}, hi = {hi}"),
                    ));
                }
                flows
                    .iter_mut()
                    .for_each(|f| f.weight = if lo == hi { lo } else { rng.gen_range(lo..hi) });
            }
            WeightSpec::ShortestFirst => {
                let max = flows.iter().map(|f| f.size.0).max().unwrap_or(1) as f64;
                flows
                    .iter_mut()
                    .for_each(|f| f.weight = max / f.size.0.max(1) as f64);
            }
        }
        Ok(())
    }
}

/// The JSON Schema of a scenario (draft 2020-12), generated from the same serde definition
/// the parser uses: every section, field, unit and default. `fairnet schema` prints it;
/// `docs/scenario.schema.json` is a copy kept in sync by a test.
pub fn json_schema() -> serde_json::Value {
    let mut schema = schemars::schema_for!(Scenario);
    schema.insert(
        "title".into(),
        serde_json::Value::String("fairnet scenario".into()),
    );
    schema.to_value()
}

/// The background flows of `bg` beside a workload of `classes` tags: sizes from `bg.cdf`
/// (relative to `base_dir`), else the workload's (`own`, with its last start as the default
/// `until`), its load a fraction of the links `load_on` names; errors name
/// `workload.background…`.
fn background_between_racks(
    bg: &BackgroundSpec,
    base_dir: &Path,
    topo: &Topology,
    own: Option<(&SizeCdf, Time)>,
    classes: u32,
    load_on: LoadOn,
    seed: u64,
) -> Result<Vec<FlowSpec>> {
    let hosts = topo.hosts();
    let file;
    let cdf = match (&bg.cdf, own) {
        (Some(path), _) => {
            file = SizeCdf::from_file(&base_dir.join(path))
                .map_err(|e| prefix("workload.background.cdf", e))?;
            &file
        }
        (None, Some((cdf, _))) => cdf,
        (None, None) => {
            return Err(Error::invalid(
                "workload.background.cdf",
                "needed beside a bulk workload (it has no flow sizes of its own)",
            ))
        }
    };
    let until =
        match (bg.until, own) {
            (Some(t), _) => t,
            (None, Some((_, t))) => t,
            (None, None) => return Err(Error::invalid(
                "workload.background.until",
                "needed beside a bulk workload (when its arrivals stop, e.g. the run's stop_at)",
            )),
        };
    let full = full_load(topo, HostPairs::OtherRack, load_on).map_err(|e| prefix("workload", e))?;
    let tag = bg.tag.unwrap_or(classes);
    background_flows(
        hosts,
        &host_racks(topo, hosts),
        full,
        bg.load.0,
        cdf,
        until,
        tag,
        seed,
    )
    .map_err(|e| match e {
        Error::Invalid { at, msg } => Error::invalid(format!("workload.{at}"), msg),
        other => other,
    })
}

/// Each host's rack: the node its (first) access link leads to, as Uranus's big switch reads it.
fn host_racks(topo: &Topology, hosts: &[NodeId]) -> Vec<u32> {
    hosts
        .iter()
        .map(|&h| topo.link(topo.out_links(h)[0]).dst.0)
        .collect()
}

/// Re-roots a builder's error at the scenario section it came from: the builder names its own
/// spec (`fat_tree.k`, `load`), the user wrote `topology.k`, `workload.load`.
fn prefix(section: &str, e: Error) -> Error {
    match e {
        Error::Invalid { at, msg } if at.starts_with(section) => Error::Invalid { at, msg },
        Error::Invalid { at, msg } => {
            let field = at.split_once('.').map_or(at.as_str(), |(_, rest)| rest);
            Error::invalid(format!("{section}.{field}"), msg)
        }
        Error::Io { path, msg } => Error::invalid(section, format!("{path}: {msg}")),
    }
}

#[cfg(test)]
mod tests;
