//! Bindings of the systems' experiments that run in Rust (Söze §5.1's application cases,
//! s-PERC §8.2.1's convergence experiments, Uranus Fig. 3).

use crate::workload::value_error;
use fairnet::ids::NodeId;
use fairnet::registry::rounds::run_rounds;
use fairnet::systems::soze::apps::{self, AppCase};
use fairnet::systems::soze::{self, scaling};
use fairnet::systems::sperc::convergence::{self, Episode, Scheme};
use fairnet::systems::sperc::{self, wan, RoundsSpec};
use fairnet::units::{Bytes, Rate, Time};
use fairnet::workload::FlowSpec;
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn case<'py>(py: Python<'py>, c: &AppCase) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("figure", c.figure)?;
    d.set_item("what", c.what)?;
    d.set_item("fair_s", c.fair_s)?;
    d.set_item("policy_s", c.policy_s)?;
    d.set_item("ratio", c.ratio())?;
    d.set_item("paper_fair_s", c.paper_fair_s)?;
    d.set_item("paper_policy_s", c.paper_policy_s)?;
    Ok(d)
}

/// Söze §5.1's application cases (`fairnet::systems::soze::apps`): Fig. 6 (critical path),
/// Fig. 7 (straggler mitigation on the packet engine; with f1's times, f2's largest weight and
/// the background's rate), Fig. 8 (job-level reweighting; with each job's Gb/s before and
/// after the change, f3's and f4's ends and job 1's times), Fig. 9 (altruistic; with `f3_s`),
/// Fig. 10 (shortest-flow first,
/// `rpcs` requests per sender, seeded; with `sooner`: the fraction of RPCs that finish sooner).
#[pyfunction]
fn soze_app_cases<'py>(
    py: Python<'py>,
    rpcs: usize,
    seed: u64,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let fig6 = apps::fig6_critical_path().map_err(value_error)?;
    let fig8 = apps::fig8_job_level().map_err(value_error)?;
    let (fig9, f3) = apps::fig9_altruistic().map_err(value_error)?;
    let (fig10, sooner) = apps::fig10_shortest_first(rpcs, seed).map_err(value_error)?;
    let (fig7, fair, mitigated) = py.detach(apps::fig7_case).map_err(value_error)?;
    let d9 = case(py, &fig9)?;
    d9.set_item("f3_s", f3)?;
    let d10 = case(py, &fig10)?;
    d10.set_item("sooner", sooner)?;
    let d7 = case(py, &fig7)?;
    d7.set_item("f1_fair_s", fair.f1_s)?;
    d7.set_item("f1_policy_s", mitigated.f1_s)?;
    d7.set_item("f2_max_weight", mitigated.f2_max_weight)?;
    d7.set_item("background_bps", mitigated.background_bps)?;
    let d8 = case(py, &fig8.case)?;
    d8.set_item("job_gbps_before", fig8.job_gbps_before.to_vec())?;
    d8.set_item("job_gbps_after", fig8.job_gbps_after.to_vec())?;
    d8.set_item("f3_f4_end_s", fig8.f3_f4_end_s)?;
    d8.set_item("job1_s", fig8.job1_s)?;
    Ok(vec![case(py, &fig6)?, d7, d8, d9, d10])
}

/// Söze §5.3.2's Multi-Conn comparison (`fairnet::systems::soze::multi_connection`): a flow of
/// weight `weights[i]` and `sizes[i]` bytes becomes the closest integer number of unit-weight
/// connections (at least one) sharing its bytes. Returns the connections' sizes and, for each,
/// the index of its flow.
#[pyfunction]
fn soze_multi_connection(weights: Vec<f64>, sizes: Vec<u64>) -> PyResult<(Vec<u64>, Vec<usize>)> {
    if weights.len() != sizes.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "soze_multi_connection: {} weights but {} sizes",
            weights.len(),
            sizes.len()
        )));
    }
    let flows: Vec<FlowSpec> = weights
        .iter()
        .zip(&sizes)
        .map(|(&w, &s)| {
            let mut f = FlowSpec::new(NodeId(0), NodeId(1), Bytes(s), Time::ZERO);
            f.weight = w;
            f
        })
        .collect();
    let (conns, owner) = soze::multi_connection(&flows).map_err(value_error)?;
    Ok((conns.iter().map(|c| c.size.0).collect(), owner))
}

/// Söze §5.3.4, Fig. 19 on the packet engine (`fairnet::systems::soze::scaling`): `flows`
/// weighted long flows on a k-ary fat-tree; the time until 90% of the flows' sending rates
/// (`rate_*`) and delivered throughputs stay within 10% of the oracle's, each flow's own
/// convergence time on average, and the time until the median flow's throughput does (None:
/// not within the horizon), beside the oracle's solve time on the same flows. Runs without
/// the GIL.
#[pyfunction]
#[pyo3(signature = (k, flows, seed, horizon_us=None, sample_us=None))]
fn soze_scaling<'py>(
    py: Python<'py>,
    k: u32,
    flows: usize,
    seed: u64,
    horizon_us: Option<u64>,
    sample_us: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut spec = scaling::ScalingSpec::new(k, flows, seed);
    if let Some(h) = horizon_us {
        spec.horizon = Time::from_us(h);
    }
    if let Some(s) = sample_us {
        spec.sample = Time::from_us(s);
    }
    let r = py.detach(|| scaling::run(&spec)).map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("k", k)?;
    d.set_item("hosts", r.hosts)?;
    d.set_item("flows", r.flows)?;
    d.set_item("max_base_rtt_s", r.max_base_rtt.as_secs_f64())?;
    let secs = |t: Option<Time>| t.map(|t| t.as_secs_f64());
    d.set_item("rate_converged_s", secs(r.rate_converged))?;
    d.set_item(
        "rate_mean_flow_converged_s",
        secs(r.rate_mean_flow_converged),
    )?;
    d.set_item("rate_flows_converged", r.rate_flows_converged)?;
    d.set_item("rate_final_within", r.rate_final_within)?;
    d.set_item("converged_s", secs(r.converged))?;
    d.set_item("median_converged_s", secs(r.median_converged))?;
    d.set_item("final_within", r.final_within)?;
    d.set_item("final_median_error", r.final_median_error)?;
    d.set_item("delivered_median_error", r.delivered_median_error)?;
    d.set_item("delivered_p95_error", r.delivered_p95_error)?;
    d.set_item("lemma_3_2_violated", r.lemma_3_2_violated)?;
    d.set_item("lemma_3_2_violated_updates", r.lemma_3_2_violated_updates)?;
    d.set_item("held_at_floor", r.held_at_floor)?;
    d.set_item("oracle_solve_s", r.oracle_solve_s)?;
    d.set_item("sim_wall_s", r.sim_wall_s)?;
    d.set_item("events", r.events)?;
    d.set_item("horizon_s", spec.horizon.as_secs_f64())?;
    Ok(d)
}

fn episode<'py>(py: Python<'py>, e: &Episode) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("t95_20", e.t95_20)?;
    d.set_item("t99_10", e.t99_10)?;
    d.set_item("final_within_10", e.final_within_10)?;
    Ok(d)
}

/// s-PERC §8.2.1's convergence experiment on the packet engine
/// (`fairnet::systems::sperc::convergence`): `figure` is `"fig7"` (datacenter), `"fig8"` or
/// `"table5"` (B4 WAN), `scheme` `"sperc"` or `"rcp"`, `scale` `"smoke"` or `"full"`; on the
/// WAN `rate_bps` is the cable rate (default: the scale's first) and `replace` the fraction
/// replaced per change (Fig. 8; default 0.4). Optional overrides of the spec (`two_way`:
/// s-PERC*'s update direction, both ways or forward only; default the preset's). Returns the RTT
/// unit and range (µs), flows, events, drops (data/ACK and control), timeouts, the start
/// episode and per change the convergence times in RTTs (None: not within the epoch). Runs
/// without the GIL, so two schemes can run on two threads.
#[pyfunction]
#[pyo3(signature = (figure, scheme, scale, seed, rate_bps=None, replace=None, changes=None, flows_per_server=None, epoch_rtts=None, two_way=None))]
#[allow(clippy::too_many_arguments)]
fn sperc_convergence<'py>(
    py: Python<'py>,
    figure: &str,
    scheme: &str,
    scale: &str,
    seed: u64,
    rate_bps: Option<u64>,
    replace: Option<f64>,
    changes: Option<u32>,
    flows_per_server: Option<f64>,
    epoch_rtts: Option<u32>,
    two_way: Option<bool>,
) -> PyResult<Bound<'py, PyDict>> {
    let scheme = Scheme::parse(scheme, "sperc_convergence.scheme").map_err(value_error)?;
    let full = match scale {
        "smoke" => false,
        "full" => true,
        s => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "sperc_convergence.scale: unknown scale {s:?}; expected \"smoke\" or \"full\""
            )))
        }
    };
    let rate = Rate(rate_bps.unwrap_or(if full {
        wan::FULL_RATES[0].0
    } else {
        wan::SMOKE_RATES[0].0
    }));
    let replace = replace.unwrap_or(0.4);
    let mut spec = sperc::convergence_preset(
        figure,
        full,
        rate,
        replace,
        seed,
        "sperc_convergence.figure",
    )
    .map_err(value_error)?;
    if let Some(c) = changes {
        spec.changes = c;
    }
    if let Some(n) = flows_per_server {
        spec.flows_per_server = n;
    }
    if let Some(e) = epoch_rtts {
        spec.epoch_rtts = e;
    }
    if let Some(w) = two_way {
        spec.sperc.two_way = w;
    }
    let r = py
        .detach(|| convergence::run(&spec, scheme))
        .map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("scheme", scheme.name())?;
    d.set_item("servers", spec.net.servers())?;
    d.set_item("rtt_us", r.rtt.0 as f64 * 1e-6)?;
    d.set_item("rtt_min_us", r.rtt_range.0 .0 as f64 * 1e-6)?;
    d.set_item("rtt_max_us", r.rtt_range.1 .0 as f64 * 1e-6)?;
    d.set_item("active_flows", r.active_flows)?;
    d.set_item("replace", spec.replace)?;
    d.set_item("start", episode(py, &r.start)?)?;
    d.set_item(
        "t95_20",
        r.changes.iter().map(|e| e.t95_20).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "t99_10",
        r.changes.iter().map(|e| e.t99_10).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "final_within_10",
        r.changes
            .iter()
            .map(|e| e.final_within_10)
            .collect::<Vec<_>>(),
    )?;
    d.set_item("epoch_rtts", spec.epoch_rtts)?;
    d.set_item("events", r.events)?;
    d.set_item("drops", r.drops)?;
    d.set_item("ctrl_drops", r.ctrl_drops)?;
    d.set_item("timeouts", r.timeouts)?;
    Ok(d)
}

/// Uranus Fig. 3 at flow level (`fairnet::systems::uranus::fig3`): (b) SCC's and Uranus's
/// weights and the oracle's rates on two bottlenecks (`b`: one dict per scheme), (c) one
/// virtual tunnel over two paths with `n_background` flows on the congested one against
/// per-flow control (`c`: one dict per scheme); `capacity_bps`: the bottlenecks' capacity.
#[pyfunction]
fn uranus_fig3<'py>(py: Python<'py>, n_background: usize) -> PyResult<Bound<'py, PyDict>> {
    use fairnet::systems::uranus::fig3;
    let d = PyDict::new(py);
    let mut b = Vec::new();
    for c in fig3::fig3b().map_err(value_error)? {
        let e = PyDict::new(py);
        e.set_item("scheme", c.scheme)?;
        e.set_item("weights", c.weights.to_vec())?;
        e.set_item("rates", c.rates.to_vec())?;
        e.set_item("a1_share", c.a1_share())?;
        e.set_item("a2_share", c.a2_share())?;
        e.set_item("a1_to_a2", c.a1_to_a2())?;
        e.set_item("a_to_b", c.a_to_b())?;
        e.set_item("proportionality", c.proportionality)?;
        b.push(e);
    }
    let mut cs = Vec::new();
    for c in fig3::fig3c(n_background).map_err(value_error)? {
        let e = PyDict::new(py);
        e.set_item("scheme", c.scheme)?;
        e.set_item("f1", c.f1)?;
        e.set_item("f2", c.f2)?;
        e.set_item("background", c.background)?;
        cs.push(e);
    }
    d.set_item("b", b)?;
    d.set_item("c", cs)?;
    d.set_item("capacity_bps", fig3::BOTTLENECK.bps())?;
    Ok(d)
}

/// The packet-level slice scheduler named `name` (`"uranus"` or `"scc"`); anything else is a
/// one-line error naming the argument.
fn fig3_scheduler(name: &str) -> PyResult<fairnet::systems::uranus::packet_level::SliceScheduler> {
    use fairnet::systems::uranus::packet_level::SliceScheduler;
    match name {
        "uranus" => Ok(SliceScheduler::Uranus),
        "scc" => Ok(SliceScheduler::Scc),
        other => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "scheduler: expected \"uranus\" or \"scc\", got {other:?}"
        ))),
    }
}

/// Seconds as the engine's picoseconds.
fn picoseconds(s: f64) -> Time {
    Time((s * 1e12).round() as u64)
}

/// Fig. 3(b) on the packet engine (`fairnet::systems::uranus::fig3::fig3b_packet_with`):
/// `scheduler`'s weights every `slot_s` (`"uranus"`: WVCC per flow; `"scc"`: virtual
/// tunnels), DCTCP guests, goodput over `[warmup_s, end_s]`. Returns the goodputs, the
/// oracle's target rates (payload bit/s), the weights, the ratios and the per-slot distance
/// from the target.
#[pyfunction]
#[pyo3(signature = (slot_s, warmup_s, end_s, scheduler = "uranus"))]
fn uranus_fig3_packet<'py>(
    py: Python<'py>,
    slot_s: f64,
    warmup_s: f64,
    end_s: f64,
    scheduler: &str,
) -> PyResult<Bound<'py, PyDict>> {
    use fairnet::systems::uranus::fig3;
    let rule = fig3_scheduler(scheduler)?;
    let t = picoseconds;
    let r = py
        .detach(|| fig3::fig3b_packet_with(rule, t(slot_s), t(warmup_s), t(end_s)))
        .map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("rates", r.rates.to_vec())?;
    d.set_item("target", r.target.to_vec())?;
    d.set_item("weights", r.weights.to_vec())?;
    d.set_item("a1_to_a2", r.a1_to_a2())?;
    d.set_item("a_to_b", r.a_to_b())?;
    d.set_item("slots", r.report.slots)?;
    d.set_item("max_sum_error", r.report.max_sum_error)?;
    d.set_item("target_jain_mean", r.report.target_jain_mean)?;
    d.set_item("target_rel_error_mean", r.report.target_rel_error_mean)?;
    Ok(d)
}

/// Fig. 3(c) on the packet engine (`fairnet::systems::uranus::fig3::fig3c_packet`): f₁ and
/// f₂ of one slice over two paths, `n_background` flows beside f₁, every weight 1, under
/// `scheduler` (`"scc"`: one virtual tunnel for f₁ and f₂; `"uranus"`: WVCC per flow), DCTCP
/// guests, goodput (payload bit/s) over `[warmup_s, end_s]`. Returns `f1`, `f2`,
/// `background` and the two paths' round trips `rtt` (s).
#[pyfunction]
fn uranus_fig3c_packet<'py>(
    py: Python<'py>,
    scheduler: &str,
    n_background: usize,
    warmup_s: f64,
    end_s: f64,
) -> PyResult<Bound<'py, PyDict>> {
    use fairnet::systems::uranus::fig3;
    let rule = fig3_scheduler(scheduler)?;
    let t = picoseconds;
    let r = py
        .detach(|| fig3::fig3c_packet(rule, n_background, t(warmup_s), t(end_s)))
        .map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("f1", r.rates.f1)?;
    d.set_item("f2", r.rates.f2)?;
    d.set_item("background", r.rates.background)?;
    d.set_item("rtt", r.rtt.to_vec())?;
    Ok(d)
}

/// Registers this module's functions on `fairnet._core`.
/// The rounds engine on one explicit instance (`fairnet::registry::rounds::run_rounds`):
/// capacities (b/s), paths as a CSR pair (each path in the order the control packet crosses
/// its links), `spec_json` the `[engine]` table of a rounds scenario as JSON without `kind`
/// (algorithm, delay, tolerance, rate_tolerance, timer, …; errors name the field), `seed`.
/// Returns the convergence times in rounds (`None`: not within `max_rounds`), the round and
/// the mean control-packet RTT in seconds, N₁/N₂/N∞, the final rates and error. Runs without
/// the GIL.
#[pyfunction]
fn rounds_instance<'py>(
    py: Python<'py>,
    capacities: PyReadonlyArray1<'py, f64>,
    path_ptr: PyReadonlyArray1<'py, i64>,
    path_links: PyReadonlyArray1<'py, i64>,
    spec_json: &str,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let problem = crate::build_problem(
        capacities, path_ptr, path_links, None, None, None, None, None,
    )?;
    let spec: RoundsSpec =
        serde_json::from_str(spec_json).map_err(|e| value_error(format!("engine: {e}")))?;
    let o = py
        .detach(|| run_rounds(&problem, &spec, seed))
        .map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("algorithm", spec.algorithm.name())?;
    d.set_item("converged", o.converged)?;
    d.set_item("convergence_rounds", o.convergence_rounds)?;
    d.set_item("rate_convergence_rounds", o.rate_convergence_rounds)?;
    d.set_item("round_s", o.round.as_secs_f64())?;
    d.set_item("mean_rtt_s", o.mean_rtt.as_secs_f64())?;
    d.set_item("rounds_run", o.rounds_run)?;
    d.set_item("n1", o.n1)?;
    d.set_item("n2", o.n2)?;
    d.set_item("ninf", o.ninf)?;
    d.set_item("exceeds_6n2", o.exceeds_6n2)?;
    d.set_item("exceeds_4n1", o.exceeds_4n1)?;
    d.set_item("max_rel_error", o.max_rel_error)?;
    d.set_item("updates", o.updates)?;
    d.set_item("rates", o.rates)?;
    d.set_item("oracle", o.oracle)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(soze_app_cases, m)?)?;
    m.add_function(wrap_pyfunction!(soze_multi_connection, m)?)?;
    m.add_function(wrap_pyfunction!(soze_scaling, m)?)?;
    m.add_function(wrap_pyfunction!(sperc_convergence, m)?)?;
    m.add_function(wrap_pyfunction!(uranus_fig3, m)?)?;
    m.add_function(wrap_pyfunction!(uranus_fig3_packet, m)?)?;
    m.add_function(wrap_pyfunction!(uranus_fig3c_packet, m)?)?;
    m.add_function(wrap_pyfunction!(rounds_instance, m)?)?;
    Ok(())
}
