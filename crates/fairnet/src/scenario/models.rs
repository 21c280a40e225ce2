//! The registry of models for the model engine ([`crate::engine::model`]), and how a scenario
//! with `engine.kind = "model"` is run.
//!
//! ```toml
//! [engine]
//! kind = "model"
//! model = "dctcp_fluid"        # a name of MODELS (`fairnet model list`)
//! horizon = "50ms"             # simulated time
//! output_interval = "10us"     # time between recorded outputs
//! rtol = 1e-6                  # optional: relative and absolute tolerances (ODE/DDE)
//! atol = 1e-9
//! max_step = "10us"            # optional: longest step
//! [engine.params]              # the model's parameters, with units
//! flows = 2
//! capacity = "10Gbps"
//! rtt = "100us"
//! [engine.initial]             # optional: initial state by variable (a number for every
//! W = [10, 40]                 # entry, or one per entry)
//! ```
//!
//! A model run has no topology or workload: its parameters describe the network. Its outputs
//! go to the model table; outputs that are a queue or a flow's rate also go to the queue and
//! rate samples every engine reports ([`crate::engine::model::Series`]).
//!
//! Adding a model: write it beside its paper (`systems::<paper>::model`) or scheme
//! (`schemes::<name>`) implementing [`Continuous`](crate::engine::model::Continuous) or
//! [`Discrete`](crate::engine::model::Discrete), with its `PARAMS`, `PAPER` and `EQUATION`, and
//! add one line to [`MODELS`].

use super::{RunOutput, Scenario};
use crate::engine::flow::RateSample;
use crate::engine::model::{
    iterate, solve::check_state, solve_continuous, ModelRun, ParamSpec, Params, Series,
    SolverOptions, System,
};
use crate::engine::packet::QueueSample;
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::ids::LinkId;
use crate::schemes::{chiu_jain, dctcp_fluid};
use crate::systems::eba;
use crate::systems::may::chain as may_chain;
use crate::systems::may::model as may_model;
use crate::systems::uranus::model as wvcc_model;
use crate::units::Time;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One registered model: its name, source, parameters and constructor.
pub struct ModelEntry {
    /// Name in scenarios (`engine.model`).
    pub name: &'static str,
    /// Paper, section and equations.
    pub paper: &'static str,
    /// The model in one line.
    pub equation: &'static str,
    /// Its parameters.
    pub params: &'static [ParamSpec],
    /// Builds it from parsed parameters.
    pub build: fn(&Params) -> Result<System>,
}

/// Every model, by name. Later models add one line each.
pub const MODELS: &[ModelEntry] = &[
    ModelEntry {
        name: "dctcp_fluid",
        paper: dctcp_fluid::PAPER,
        equation: dctcp_fluid::EQUATION,
        params: dctcp_fluid::PARAMS,
        build: |p| {
            Ok(System::Continuous(Box::new(
                dctcp_fluid::EcnWindowFluid::dctcp(p)?,
            )))
        },
    },
    ModelEntry {
        name: "chiu_jain_aimd",
        paper: chiu_jain::PAPER,
        equation: chiu_jain::EQUATION,
        params: chiu_jain::PARAMS,
        build: |p| Ok(System::Discrete(Box::new(chiu_jain::ChiuJain::new(p)?))),
    },
    ModelEntry {
        name: "wvcc_fluid",
        paper: wvcc_model::WVCC_PAPER,
        equation: wvcc_model::WVCC_EQUATION,
        params: wvcc_model::PARAMS,
        build: |p| {
            let m = wvcc_model::weighted_fluid(wvcc_model::FluidLaw::Wvcc, p)?;
            Ok(System::Continuous(Box::new(m)))
        },
    },
    ModelEntry {
        name: "acdc_fluid",
        paper: wvcc_model::ACDC_PAPER,
        equation: wvcc_model::ACDC_EQUATION,
        params: wvcc_model::PARAMS,
        build: |p| {
            let m = wvcc_model::weighted_fluid(wvcc_model::FluidLaw::Acdc, p)?;
            Ok(System::Continuous(Box::new(m)))
        },
    },
    ModelEntry {
        name: "eba_lrc",
        paper: eba::model::PAPER,
        equation: eba::model::EQUATION,
        params: eba::model::PARAMS,
        build: eba::model::SingleLink::build,
    },
    ModelEntry {
        name: "may_mean_field",
        paper: may_model::PAPER,
        equation: may_model::EQUATION,
        params: may_model::PARAMS,
        build: |p| Ok(System::Discrete(Box::new(may_model::MeanField::new(p)?))),
    },
    ModelEntry {
        name: "may_aimd_chain",
        paper: may_chain::PAPER,
        equation: may_chain::EQUATION,
        params: may_chain::PARAMS,
        build: |p| Ok(System::Discrete(Box::new(may_chain::AimdChain::new(p)?))),
    },
];

/// The model called `name`, or an error listing the known ones.
pub fn find_model(name: &str) -> Result<&'static ModelEntry> {
    MODELS.iter().find(|m| m.name == name).ok_or_else(|| {
        let known: Vec<_> = MODELS.iter().map(|m| m.name).collect();
        Error::invalid(
            "engine.model",
            format!("unknown model {name:?} (known: {})", known.join(", ")),
        )
    })
}

/// An initial value: one number for every entry of a variable, or one per entry. A value that
/// is not a finite number (TOML's `nan` and `inf` reach here as null) is kept as NaN and
/// rejected by the state check, which names the entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum InitialValue {
    /// The same value for every entry.
    All(f64),
    /// One value per entry.
    Each(Vec<Option<f64>>),
    /// Not a finite number.
    NotFinite,
}

/// `engine.kind = "model"`: which model, its parameters, and how to solve it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// The model's name (`fairnet model list`).
    pub model: String,
    /// Its parameters, with units (`capacity = "10Gbps"`); omitted ones take their defaults.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
    /// Initial state by variable name, overriding the model's default start.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub initial: BTreeMap<String, InitialValue>,
    /// Simulated time to solve for (> 0).
    pub horizon: Time,
    /// Time between recorded outputs (> 0).
    pub output_interval: Time,
    /// Relative tolerance of the local error (default 1e-6; ODE/DDE models).
    #[serde(default = "default_rtol")]
    pub rtol: f64,
    /// Absolute tolerance of the local error (default 1e-9; ODE/DDE models).
    #[serde(default = "default_atol")]
    pub atol: f64,
    /// Longest step (default: no limit beyond the shortest delay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_step: Option<Time>,
}

fn default_rtol() -> f64 {
    crate::engine::model::solve::DEFAULT_RTOL
}
fn default_atol() -> f64 {
    crate::engine::model::solve::DEFAULT_ATOL
}

impl ModelSpec {
    /// The model built from its parameters and its initial state (defaults overridden by
    /// `initial`), all checked.
    pub fn build(&self) -> Result<(System, Vec<f64>)> {
        let entry = find_model(&self.model)?;
        let params = Params::parse(entry.name, entry.params, &self.params)?;
        let system = (entry.build)(&params)?;
        let model = system.model();
        let vars = model.state();
        let mut y0 = model.initial_state();
        for (name, value) in &self.initial {
            let at = format!("engine.initial.{name}");
            let Some(k) = vars.iter().position(|v| &v.name == name) else {
                let known: Vec<_> = vars.iter().map(|v| v.name.as_str()).collect();
                return Err(Error::invalid(
                    at,
                    format!(
                        "model {:?} has no state variable {name:?} (its state: {})",
                        entry.name,
                        known.join(", ")
                    ),
                ));
            };
            let offset: usize = vars[..k].iter().map(|v| v.len).sum();
            let slot = &mut y0[offset..offset + vars[k].len];
            match value {
                InitialValue::All(v) => slot.fill(*v),
                InitialValue::NotFinite => slot.fill(f64::NAN),
                InitialValue::Each(vs) if vs.len() == slot.len() => {
                    for (y, v) in slot.iter_mut().zip(vs) {
                        *y = v.unwrap_or(f64::NAN);
                    }
                }
                InitialValue::Each(vs) => {
                    return Err(Error::invalid(
                        at,
                        format!("{name} has {} entries, got {}", slot.len(), vs.len()),
                    ))
                }
            }
        }
        check_state(&vars, &y0)?;
        Ok((system, y0))
    }

    /// The solver's options, with the scenario's seed.
    pub fn options(&self, seed: u64) -> SolverOptions {
        SolverOptions {
            horizon: self.horizon.as_secs_f64(),
            output_interval: self.output_interval.as_secs_f64(),
            rtol: self.rtol,
            atol: self.atol,
            max_step: self.max_step.map(Time::as_secs_f64),
            seed,
        }
    }
}

/// Solves a model scenario. Bad input is an error before anything runs; a blow-up is the
/// output's `failure`, with what was computed.
pub fn run_model(s: &Scenario, spec: &ModelSpec, progress: &Progress) -> Result<ModelRun> {
    let (mut system, y0) = spec.build()?;
    let o = spec.options(s.seed);
    match &mut system {
        System::Continuous(m) => solve_continuous(m.as_ref(), &y0, &o, progress),
        System::Discrete(m) => iterate(m.as_mut(), &y0, &o, progress),
    }
}

/// A model run as the output every engine gives: no flow rows; its queue and rate outputs as
/// queue and rate samples; the solver's counters.
pub fn model_output(run: ModelRun) -> RunOutput {
    let width = run.outputs.len();
    let mut rates = Vec::new();
    let mut queues = Vec::new();
    for (row, &t) in run.values.chunks(width.max(1)).zip(&run.times) {
        let time = Time::from_secs_f64(t);
        for (spec, &v) in run.outputs.iter().zip(row) {
            match spec.series {
                Series::Plain => {}
                Series::Queue { link, capacity_bps } => queues.push(QueueSample {
                    time,
                    link: LinkId(link),
                    bytes: v.max(0.0).round() as u64,
                    delay: Time::from_secs_f64(v.max(0.0) * 8.0 / capacity_bps),
                }),
                Series::Rate { flow } => rates.push(RateSample {
                    time,
                    flow,
                    rate: v,
                    send_rate: None,
                }),
            }
        }
    }
    RunOutput {
        rows: Vec::new(),
        engine: "model",
        events: run.steps,
        end_time: Time::from_secs_f64(run.end_time),
        complete: run.complete,
        wall_seconds: run.wall_seconds,
        counters: vec![
            ("steps", run.steps as f64),
            ("rejected_steps", run.rejected as f64),
            ("evaluations", run.evaluations as f64),
            ("switch_crossings", run.crossings as f64),
        ],
        maxmin_end: Vec::new(),
        rates,
        links: Vec::new(),
        failure: run.failure.clone(),
        maxmin_rates: Vec::new(),
        queues,
        qdisc_gauges: Vec::new(),
        model: Some(run),
        pfc_txt: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{from_toml, run_built};
    use crate::engine::Progress;
    use std::path::Path;

    const DCTCP: &str = r#"
name = "dctcp fluid"
[engine]
kind = "model"
model = "dctcp_fluid"
horizon = "5ms"
output_interval = "100us"
[engine.params]
flows = 2
capacity = "10Gbps"
rtt = "100us"
[engine.initial]
W = [5, 20]
"#;

    fn err(text: &str) -> String {
        match from_toml(text) {
            Err(e) => e.to_string(),
            Ok(s) => run_built(&s, Path::new("."), &Progress::default())
                .expect_err("an error")
                .to_string(),
        }
    }

    #[test]
    fn a_model_scenario_runs_and_fills_the_shared_series() {
        // 5 ms sampled every 100 µs: 51 samples of every output, 51 queue samples of link 0
        // and 2 × 51 rate samples; the initial windows as given (5 and 20 packets).
        let s = from_toml(DCTCP).unwrap();
        let out = run_built(&s, Path::new("."), &Progress::default()).unwrap();
        assert_eq!(out.engine, "model");
        assert!(out.complete);
        let run = out.model.as_ref().unwrap();
        assert_eq!(run.times.len(), 51);
        assert_eq!(run.column("W[0]").unwrap()[0], 5.0);
        assert_eq!(run.column("W[1]").unwrap()[0], 20.0);
        assert_eq!(out.queues.len(), 51);
        assert_eq!(out.rates.len(), 102);
        assert!(out.queues.iter().any(|q| q.bytes > 0), "the queue builds");
        assert!(out.rows.is_empty());
    }

    #[test]
    fn bad_model_input_gets_one_line_naming_the_field() {
        let with = |from: &str, to: &str| err(&DCTCP.replace(from, to));
        let e = with("\"dctcp_fluid\"", "\"dctcp_fuid\"");
        // The list goes on with every model registered after these two.
        assert!(
            e.starts_with(
                "engine.model: unknown model \"dctcp_fuid\" (known: dctcp_fluid, chiu_jain_aimd"
            ),
            "{e}"
        );
        let e = with("flows = 2", "flows = 2\ncolour = 3");
        assert!(
            e.starts_with("engine.params.colour: model \"dctcp_fluid\" has no parameter"),
            "{e}"
        );
        let e = with("rtt = \"100us\"", "rtt = \"-100us\"");
        assert!(
            e.starts_with("engine.params.rtt: must not be negative"),
            "{e}"
        );
        let e = with("horizon = \"5ms\"", "horizon = \"0ms\"");
        assert!(e.starts_with("engine.horizon: must be positive"), "{e}");
        let e = with("W = [5, 20]", "W = [5, nan]");
        assert!(
            e.starts_with("engine.initial.W[1]: must be a finite number"),
            "{e}"
        );
        let e = with("W = [5, 20]", "W = [5, 20, 1]");
        assert!(
            e.starts_with("engine.initial.W: W has 2 entries, got 3"),
            "{e}"
        );
        let e = with("W = [5, 20]", "cwnd = 1");
        assert!(
            e.starts_with("engine.initial.cwnd: model \"dctcp_fluid\" has no state"),
            "{e}"
        );
        let e = with(
            "name = \"dctcp fluid\"",
            "[topology]\nkind = \"star\"\nn_hosts = 2",
        );
        assert!(e.starts_with("topology: a model run"), "{e}");
        let e = with("capacity = \"10Gbps\"", "capacity = \"0Gbps\"");
        assert!(
            e.starts_with("engine.params.capacity: must be positive"),
            "{e}"
        );
    }
}
