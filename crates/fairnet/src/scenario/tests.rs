//! Scenario parsing, validation messages, building and running.

use super::*;
use crate::alloc::{check, solve, Problem, ProblemInput};
use crate::ids::LinkId;

fn cdf_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/fairnet/data/flow-size-cdf")
}

const FLOW_SCENARIO: &str = r#"
name = "small"
seed = 3
[topology]
kind = "fat_tree"
k = 4
[workload]
kind = "poisson"
cdf = "WebSearch_distribution.txt"
load = "50%"
flows = 300
[weights]
kind = "uniform"
lo = 1
hi = 4
[engine]
kind = "flow"
"#;

fn err(text: &str) -> String {
    from_toml(text).unwrap_err().to_string()
}

#[test]
fn errors_name_the_field_path() {
    let bad_load = FLOW_SCENARIO.replace("\"50%\"", "1.4");
    assert_eq!(
        err(&bad_load),
        "workload.load: expected a fraction in (0, 1] such as 0.4 or \"40%\", got 1.4"
    );
    let unknown = FLOW_SCENARIO.replace("flows = 300", "flows = 300\ncolour = 1");
    assert!(
        err(&unknown).starts_with("workload.colour: unknown field `colour`"),
        "{}",
        err(&unknown)
    );
    let bad_rate = FLOW_SCENARIO.replace("k = 4", "k = 4\nhost_rate = \"fast\"");
    assert!(
        err(&bad_rate).starts_with("topology.host_rate: expected a rate"),
        "{}",
        err(&bad_rate)
    );
    let bad_engine = FLOW_SCENARIO.replace("kind = \"flow\"", "kind = \"flow\"\nmtu = \"big\"");
    assert!(
        err(&bad_engine).starts_with("engine.mtu"),
        "{}",
        err(&bad_engine)
    );
    let no_engine = FLOW_SCENARIO.replace("[engine]\nkind = \"flow\"", "");
    assert!(
        err(&no_engine).contains("missing field `engine`"),
        "{}",
        err(&no_engine)
    );
    let bad_k = FLOW_SCENARIO.replace("k = 4", "k = 5");
    let s = from_toml(&bad_k).unwrap();
    assert_eq!(
        s.build(&cdf_dir()).unwrap_err().to_string(),
        "topology.k: must be an even number >= 4, got 5"
    );
}

#[test]
fn json_and_toml_give_the_same_scenario() {
    let s = from_toml(FLOW_SCENARIO).unwrap();
    let j = serde_json::to_string(&s).unwrap();
    assert_eq!(from_json(&j).unwrap(), s);
}

#[test]
fn flow_scenario_runs_at_the_oracle_rates() {
    // The fluid engine gives every active flow its weighted max-min rate. Rates are sampled
    // every 1 ns; at the sample holding the most flows, each sampled rate must equal an
    // independent oracle solve (`alloc::solve`) over just those flows, on the same ECMP paths
    // (the engine's per-flow hash with its `ecmp_seed`) and the scenario's weights, to 1e-9
    // relative.
    let s = from_toml(&FLOW_SCENARIO.replace(
        "kind = \"flow\"",
        "kind = \"flow\"\nrate_interval = \"1ns\"",
    ))
    .unwrap();
    let (topo, flows) = s.build(&cdf_dir()).unwrap();
    assert_eq!(flows.len(), 300);
    assert!(flows.iter().all(|f| (1.0..4.0).contains(&f.weight)));
    let out = run(&s, &topo, &flows).unwrap();
    assert!(out.complete && out.rows.iter().all(|r| r.end.is_some()));
    assert!(out
        .rows
        .iter()
        .all(|r| r.end.unwrap() - r.start >= r.ideal_fct));

    let EngineSpec::Flow(cfg) = &s.engine else {
        panic!("a flow scenario")
    };
    let mut per_time = std::collections::BTreeMap::new();
    for r in &out.rates {
        per_time.entry(r.time).or_insert_with(Vec::new).push(r);
    }
    let sampled = per_time
        .into_values()
        .max_by_key(|v| v.len())
        .expect("rates sampled");
    assert!(
        sampled.len() >= 5,
        "a sharing case: {} flows",
        sampled.len()
    );
    let routing = crate::topo::Routing::new(&topo);
    let paths: Vec<Vec<u32>> = sampled
        .iter()
        .map(|r| {
            let f = &flows[r.flow as usize];
            let mut route = Vec::new();
            let sel = crate::topo::PathSelector::FlowHash {
                seed: cfg.sim.ecmp_seed,
                flow: r.flow as u64,
            };
            routing.path_into(f.src, f.dst, sel, &mut route).unwrap();
            route.iter().map(|l| l.0).collect()
        })
        .collect();
    let capacities = topo.links().iter().map(|l| l.capacity.bps()).collect();
    let mut input = ProblemInput::from_paths(capacities, &paths);
    input.weights = Some(
        sampled
            .iter()
            .map(|r| flows[r.flow as usize].weight)
            .collect(),
    );
    let oracle = solve(&Problem::new(input).unwrap());
    for (r, want) in sampled.iter().zip(&oracle.rates) {
        assert!(
            (r.rate - want).abs() <= 1e-9 * want,
            "flow {}: engine {} vs oracle {want} b/s",
            r.flow,
            r.rate
        );
    }
    // Same scenario twice: identical rows.
    assert_eq!(run(&s, &topo, &flows).unwrap().rows, out.rows);
}

#[test]
fn packet_scenario_runs_dctcp_to_completion() {
    let text = r#"
[topology]
kind = "dumbbell"
n_pairs = 2
[workload]
kind = "permutation"
size = "200KB"
[engine]
kind = "packet"
transport = "dctcp"
"#;
    let s = from_toml(text).unwrap();
    let (topo, flows) = s.build(Path::new(".")).unwrap();
    let out = run(&s, &topo, &flows).unwrap();
    assert_eq!(out.engine, "packet");
    assert!(out.complete, "all flows finish");
    for r in &out.rows {
        let fct = r.end.unwrap() - r.start;
        assert!(fct >= r.ideal_fct, "fct {fct} below ideal {}", r.ideal_fct);
    }
    // Both end points and both ideals: the sender holds the last ACK after the receiver held
    // the last byte (by at least the ACK's propagation back over the dumbbell's 3 links, 3 µs
    // at the default 1 µs per link), and the simulator's ideal adds the base RTT's return
    // propagation and one payload per hop to fairnet's: it is above it by at least 3 µs.
    for r in &out.rows {
        let (end, acked) = (r.end.unwrap(), r.acked_end.unwrap());
        assert!(acked >= end + Time::from_us(3), "ack {acked} vs end {end}");
        assert!(
            acked - r.start >= r.ideal_fct_ref,
            "ack-based fct below the reference's ideal"
        );
        assert!(r.ideal_fct_ref >= r.ideal_fct + Time::from_us(3));
    }
}

#[test]
fn shortest_first_weights_are_inverse_sizes() {
    let text = FLOW_SCENARIO.replace(
        "kind = \"uniform\"\nlo = 1\nhi = 4",
        "kind = \"shortest_first\"",
    );
    let s = from_toml(&text).unwrap();
    let (_, flows) = s.build(&cdf_dir()).unwrap();
    let max = flows.iter().map(|f| f.size.0).max().unwrap() as f64;
    for f in &flows {
        assert!((f.weight - max / f.size.0 as f64).abs() < 1e-9);
    }
    // Weighted shares on one link follow the weights: check with the oracle.
    let paths: Vec<Vec<u32>> = flows.iter().take(3).map(|_| vec![0]).collect();
    let mut i = ProblemInput::from_paths(vec![1e9], &paths);
    i.weights = Some(flows.iter().take(3).map(|f| f.weight).collect());
    let p = Problem::new(i).unwrap();
    assert!(check(&p, &solve(&p).rates).ok);
}

#[test]
fn flow_file_workload_reads_the_hpcc_flow_list() {
    let dir = std::env::temp_dir().join(format!("fairnet-flowfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // k = 4 fat-tree: nodes 0..16 are the hosts.
    std::fs::write(
        dir.join("flow.txt"),
        "2\n0 5 3 100 20000 0.000001\n7 5 3 100 1000 0.000002\n",
    )
    .unwrap();
    let text = FLOW_SCENARIO.replace(
        "kind = \"poisson\"\ncdf = \"WebSearch_distribution.txt\"\nload = \"50%\"\nflows = 300",
        "kind = \"flow_file\"\npath = \"flow.txt\"",
    );
    let s = from_toml(&text).unwrap();
    let (topo, flows) = s.build(&dir).unwrap();
    assert_eq!(flows.len(), 2);
    assert_eq!(flows[1].src, crate::ids::NodeId(7));
    assert_eq!(flows[1].start, Time::from_us(2));
    let out = run::run(&s, &topo, &flows).unwrap();
    assert!(out.complete);
    // A node that is not a host, and a broken line, are errors naming the field and the line.
    std::fs::write(dir.join("flow.txt"), "1\n0 17 3 100 20000 0\n").unwrap();
    let e = s.build(&dir).unwrap_err().to_string();
    assert!(
        e.starts_with("workload.path: ")
            && e.ends_with("flow.txt: flow 0: dst 17 is not a host of the topology"),
        "{e}"
    );
    std::fs::write(dir.join("flow.txt"), "1\n0 1 3 100 big 0\n").unwrap();
    let e = s.build(&dir).unwrap_err().to_string();
    assert!(
        e.ends_with("flow.txt:2: size: expected a non-negative integer, got \"big\""),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn packet_runs_carry_the_max_min_reference_on_the_same_paths() {
    // A permutation of 2 MB flows on a k = 4 fat-tree: ECMP collisions make flows share core
    // links 1-, 2- or 3-way in the max-min reference. If the reference routes like the packet
    // engine, the flows it finds alone finish fastest in the packet run, and 3-way-shared
    // flows take longer on average than 2-way-shared ones; a reference on other paths would
    // classify the flows at random.
    let text = r#"
seed = 2
[topology]
kind = "fat_tree"
k = 4
[workload]
kind = "permutation"
size = "2MB"
[engine]
kind = "packet"
transport = "dctcp"
qdisc = { kind = "ecn", k = { packets = 20 } }
seed = 5
"#;
    let s = from_toml(text).unwrap();
    let (topo, flows) = s.build(Path::new(".")).unwrap();
    let out = run(&s, &topo, &flows).unwrap();
    assert!(out.complete);
    assert_eq!(out.maxmin_end.len(), flows.len());
    // (packet FCT, max-min FCT) over the ideal FCT, per flow.
    let ratios: Vec<(f64, f64)> = out
        .rows
        .iter()
        .zip(&out.maxmin_end)
        .map(|(r, m)| {
            let ideal = r.ideal_fct.0 as f64;
            (
                (r.end.unwrap() - r.start).0 as f64 / ideal,
                (m.unwrap() - r.start).0 as f64 / ideal,
            )
        })
        .collect();
    let class = |lo: f64, hi: f64| -> Vec<f64> {
        ratios
            .iter()
            .filter(|(_, m)| *m >= lo && *m < hi)
            .map(|(p, _)| *p)
            .collect()
    };
    let (alone, two, three) = (class(0.9, 1.1), class(1.9, 2.1), class(2.9, 3.1));
    assert!(
        !alone.is_empty() && !two.is_empty() && !three.is_empty(),
        "{ratios:?}"
    );
    let fastest_shared = two
        .iter()
        .chain(&three)
        .copied()
        .fold(f64::INFINITY, f64::min);
    assert!(alone.iter().all(|&a| a < fastest_shared), "{ratios:?}");
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!(mean(&three) > mean(&two), "{ratios:?}");
    // A flow beats its max-min FCT only by taking more than its fair share from a competitor;
    // DCTCP stays close to fair: never below 3/4 of the max-min FCT.
    assert!(ratios.iter().all(|(p, m)| *p > 0.75 * m), "{ratios:?}");
    // A flow-level run is its own reference.
    let flow = from_toml(&text.replace(
        "kind = \"packet\"\ntransport = \"dctcp\"\nqdisc = { kind = \"ecn\", k = { packets = 20 } }\nseed = 5",
        "kind = \"flow\"",
    ))
    .unwrap();
    let out = run(&flow, &topo, &flows).unwrap();
    let ends: Vec<Option<Time>> = out.rows.iter().map(|r| r.end).collect();
    assert_eq!(out.maxmin_end, ends);
}

#[test]
fn a_cancelled_run_keeps_what_finished() {
    // Packet engine: a cancelled progress stops the run after its first Progress::EVERY events;
    // what finished by then finished exactly as in the full run.
    let text = r#"
[topology]
kind = "fat_tree"
k = 4
[workload]
kind = "poisson"
cdf = "WebSearch_distribution.txt"
load = "50%"
flows = 200
[engine]
kind = "packet"
"#;
    let s = from_toml(text).unwrap();
    let (topo, flows) = s.build(&cdf_dir()).unwrap();
    let full = run(&s, &topo, &flows).unwrap();
    assert!(full.complete);
    let progress = crate::engine::Progress::default();
    progress.cancel();
    let part = run_with_progress(&s, &topo, &flows, &progress).unwrap();
    assert!(!part.complete);
    let done = part.rows.iter().filter(|r| r.end.is_some()).count();
    assert!(done > 0 && done < flows.len(), "{done}");
    for (p, f) in part.rows.iter().zip(&full.rows) {
        if p.end.is_some() {
            assert_eq!(p.end, f.end);
        }
    }
    assert!(
        part.maxmin_end.iter().all(|e| e.is_none()),
        "reference skipped"
    );
    let snap = progress.snapshot();
    assert_eq!(snap.events, crate::engine::Progress::EVERY);
    assert_eq!(snap.flows_finished as usize, done);

    // Flow engine: stops at its first check, before any event.
    let s = from_toml(FLOW_SCENARIO).unwrap();
    let (topo, flows) = s.build(&cdf_dir()).unwrap();
    let part = run_with_progress(&s, &topo, &flows, &progress).unwrap();
    assert!(!part.complete);
    assert!(part.rows.iter().all(|r| r.end.is_none()));
    // An uncancelled progress ends at the run's last figures.
    let progress = crate::engine::Progress::default();
    let out = run_with_progress(&s, &topo, &flows, &progress).unwrap();
    assert!(out.complete);
    assert!(progress.snapshot().events <= out.events);
}

const ROUNDS_MATRIX: &str = r#"
name = "fig6 smoke"
seed = 4
[matrix]
links = 100
flows = 200
links_per_flow = 5
[engine]
kind = "rounds"
algorithm = "s_perc"
"#;

fn counter(out: &RunOutput, name: &str) -> f64 {
    out.counters.iter().find(|(k, _)| *k == name).unwrap().1
}

#[test]
fn rounds_engine_on_a_random_matrix() {
    let s = from_toml(ROUNDS_MATRIX).unwrap();
    let out = run_built(&s, Path::new("."), &crate::engine::Progress::default()).unwrap();
    assert_eq!(out.engine, "rounds");
    assert_eq!(out.rows.len(), 200);
    assert!(out.complete);
    for r in &out.rows {
        let (rate, oracle) = (r.rate.unwrap(), r.oracle_rate.unwrap());
        assert!((rate - oracle).abs() <= 1e-6 * oracle);
    }
    assert_eq!(counter(&out, "converged"), 1.0);
    assert_eq!(counter(&out, "exceeds_6n2"), 0.0);
    assert!(counter(&out, "convergence_rounds") <= counter(&out, "bound_6n2"));
    assert!(
        counter(&out, "n1") <= counter(&out, "n2") && counter(&out, "n2") <= counter(&out, "ninf")
    );
    // Same scenario, same output (wall time aside).
    let again = run_built(&s, Path::new("."), &crate::engine::Progress::default()).unwrap();
    assert_eq!(again.rows, out.rows);
}

#[test]
fn rounds_engine_on_a_topology_and_workload() {
    let text = FLOW_SCENARIO
        .replace("kind = \"flow\"", "kind = \"rounds\"\nalgorithm = \"fair\"")
        .replace("[weights]\nkind = \"uniform\"\nlo = 1\nhi = 4\n", "")
        .replace("flows = 300", "flows = 60");
    let s = from_toml(&text).unwrap();
    let (topo, flows) = s.build(&cdf_dir()).unwrap();
    let out = run(&s, &topo, &flows).unwrap();
    assert!(out.complete, "{:?}", out.counters);
    assert!(out.rows.iter().all(|r| r.rate.unwrap() > 0.0));
    // Weighted flows are refused: the PERC algorithms are unweighted.
    let weighted =
        from_toml(&FLOW_SCENARIO.replace("kind = \"flow\"", "kind = \"rounds\"")).unwrap();
    let (topo, flows) = weighted.build(&cdf_dir()).unwrap();
    let e = run(&weighted, &topo, &flows).unwrap_err().to_string();
    assert!(e.contains(".weight"), "{e}");
}

#[test]
fn rounds_errors_name_the_field() {
    let cases = [
        (
            ROUNDS_MATRIX.replace("algorithm = \"s_perc\"", "algorithm = \"x_perc\""),
            "engine.algorithm",
        ),
        (
            ROUNDS_MATRIX.replace("algorithm = \"s_perc\"", "drop_probability = 1.5"),
            "engine.drop_probability",
        ),
        (
            ROUNDS_MATRIX.replace("algorithm = \"s_perc\"", "division_table = \"8B\""),
            "engine.division_table",
        ),
        (
            ROUNDS_MATRIX.replace("algorithm = \"s_perc\"", "colour = 1"),
            "engine.colour",
        ),
        (
            ROUNDS_MATRIX.replace("links_per_flow = 5", "links_per_flow = 500"),
            "matrix.links_per_flow",
        ),
        (
            ROUNDS_MATRIX.replace("links = 100", "links = 100\nwidth = 3"),
            "matrix.width",
        ),
        (
            ROUNDS_MATRIX.replace(
                "kind = \"rounds\"\nalgorithm = \"s_perc\"",
                "kind = \"flow\"",
            ),
            "matrix",
        ),
        (
            ROUNDS_MATRIX.replace(
                "[matrix]\nlinks = 100\nflows = 200\nlinks_per_flow = 5\n",
                "",
            ),
            "topology",
        ),
    ];
    for (text, field) in cases {
        let e = err(&text);
        assert!(
            e.starts_with(field),
            "expected an error at {field}, got {e}"
        );
    }
}

#[test]
fn sperc_fig6_smoke_scenario_runs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/sperc-fig6-smoke.toml");
    let s = from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let out = run_built(
        &s,
        path.parent().unwrap(),
        &crate::engine::Progress::default(),
    )
    .unwrap();
    assert!(out.complete);
    assert_eq!(counter(&out, "exceeds_6n2"), 0.0);
}

const FIG17: &str = r#"
weight_changes = [
    { at = "200us", flow = 0, weight = 5 },
]
[topology]
kind = "soze_fig17"
[workload]
kind = "flows"
flows = [
    { src = 0, dst = 6, size = "100MB" },
    { src = 1, dst = 7, size = "100MB" },
    { src = 2, dst = 7, size = "100MB" },
    { src = 3, dst = 7, size = "100MB" },
    { src = 4, dst = 7, size = "100MB", weight = 2, tag = 4 },
    { src = 5, dst = 7, size = "100MB", start = "1us" },
]
[engine]
kind = "flow"
rate_interval = "100us"
"#;

#[test]
fn inline_flows_and_weight_changes_parse_and_name_their_entry() {
    // Inline flows keep their weights, tags and starts; a weight change naming a flow the
    // workload does not have, or a bad weight, is an error naming the entry.
    let s = from_toml(FIG17).unwrap();
    let (_, flows) = s.build(Path::new(".")).unwrap();
    assert_eq!(flows.len(), 6);
    assert_eq!((flows[4].weight, flows[4].tag), (2.0, 4));
    assert_eq!(flows[5].start, Time::from_us(1));
    let bad = FIG17.replace("flow = 0, weight = 5", "flow = 9, weight = 5");
    let s = from_toml(&bad).unwrap();
    assert_eq!(
        s.build(Path::new(".")).unwrap_err().to_string(),
        "weight_changes[0].flow: no flow 9 (the workload has 6)"
    );
    let bad = FIG17.replace("flow = 0, weight = 5", "flow = 0, weight = -1");
    let e = from_toml(&bad).unwrap().build(Path::new(".")).unwrap_err();
    assert!(
        e.to_string().starts_with("weight_changes[0].weight:"),
        "{e}"
    );
    let bad = FIG17.replace("flow = 0, weight = 5", "flow = 0, weight = 5, colour = 1");
    assert!(
        err(&bad).starts_with("weight_changes[0]: unknown field `colour`")
            || err(&bad).starts_with("weight_changes[0].colour"),
        "{}",
        err(&bad)
    );
    let bad = FIG17.replace("size = \"100MB\", start", "size = \"big\", start");
    assert!(
        err(&bad).starts_with("workload.flows[5].size: expected a size"),
        "{}",
        err(&bad)
    );
    let bad = FIG17.replace("tag = 4 }", "tag = 4, colour = 2 }");
    assert!(
        err(&bad).starts_with("workload.flows[4].colour: unknown field `colour`"),
        "{}",
        err(&bad)
    );
    let bad = FIG17.replace("weight = 2, tag", "weight = 0, tag");
    let e = from_toml(&bad).unwrap().build(Path::new(".")).unwrap_err();
    assert!(
        e.to_string().starts_with("workload.flows[4].weight:"),
        "{e}"
    );
}

#[test]
fn inline_flow_deadlines_reach_the_flow_spec_and_zero_is_an_error() {
    // A flow row's optional `deadline` (relative to its start) lands in `FlowSpec::deadline`;
    // rows without one have none; a zero deadline is an error naming the entry.
    let with = FIG17.replace("start = \"1us\" }", "start = \"1us\", deadline = \"5ms\" }");
    let (_, flows) = from_toml(&with).unwrap().build(Path::new(".")).unwrap();
    assert_eq!(flows[5].deadline, Some(Time::from_us(5000)));
    assert!(flows[..5].iter().all(|f| f.deadline.is_none()));
    let bad = FIG17.replace("start = \"1us\" }", "start = \"1us\", deadline = \"0s\" }");
    let e = from_toml(&bad).unwrap().build(Path::new(".")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "workload.flows[5].deadline: expected a positive duration, got 0"
    );
}

#[test]
fn deadline_bounds_reach_the_run_and_need_a_deadline_mean() {
    // `deadline_min_fct_alone`: no flow of the run has a deadline below its own `ideal_fct`
    // (the flow engine's, from the same topology and wire format), and some would without it
    // (web-search flows of several MB at 10 Gb/s beside exponential deadlines of mean 2 ms).
    // `deadline_min = "3ms"`: none below 3 ms. Either without `deadline_mean` is an error
    // naming the field.
    let with = |extra: &str| {
        let text = FLOW_SCENARIO.replace(
            "flows = 300",
            &format!("flows = 300\ndeadline_mean = \"2ms\"\n{extra}"),
        );
        let s = from_toml(&text).unwrap();
        let (topo, flows) = s.build(&cdf_dir()).unwrap();
        run(&s, &topo, &flows).unwrap().rows
    };
    let below = |rows: &[RunRow]| {
        rows.iter()
            .filter(|r| r.deadline.unwrap() < r.ideal_fct)
            .count()
    };
    assert!(below(&with("")) > 0);
    assert_eq!(below(&with("deadline_min_fct_alone = true")), 0);
    assert!(with("deadline_min = \"3ms\"")
        .iter()
        .all(|r| r.deadline.unwrap() >= Time::from_ms(3)));
    for (extra, field) in [
        ("deadline_min = \"3ms\"", "deadline_min"),
        ("deadline_min_fct_alone = true", "deadline_min_fct_alone"),
    ] {
        let text = FLOW_SCENARIO.replace("flows = 300", &format!("flows = 300\n{extra}"));
        let e = from_toml(&text).unwrap().build(&cdf_dir()).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("workload.{field}: bounds drawn deadlines: set deadline_mean too")
        );
    }
}

#[test]
fn poisson_deadline_mean_gives_every_flow_a_deadline_and_keeps_the_flows() {
    // `deadline_mean` draws an exponential deadline per flow (its own random stream): the
    // same 300 flows as without it, each now with a positive deadline; a zero mean is an
    // error naming the field.
    let plain = from_toml(FLOW_SCENARIO).unwrap();
    let (_, base) = plain.build(&cdf_dir()).unwrap();
    let with = FLOW_SCENARIO.replace("flows = 300", "flows = 300\ndeadline_mean = \"20ms\"");
    let (_, flows) = from_toml(&with).unwrap().build(&cdf_dir()).unwrap();
    assert_eq!(flows.len(), base.len());
    assert!(flows.iter().zip(&base).all(|(a, b)| {
        a.deadline.is_some_and(|d| d > Time::ZERO) && (a.size, a.start) == (b.size, b.start)
    }));
    let bad = FLOW_SCENARIO.replace("flows = 300", "flows = 300\ndeadline_mean = \"0s\"");
    let e = from_toml(&bad).unwrap().build(&cdf_dir()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "workload.deadline_mean: expected a positive duration, got 0"
    );
}

#[test]
fn weight_changes_move_the_flow_engine_rates() {
    // Söze Fig. 17's topology on the flow engine: flow 0 (weight 1) gets 40 Gb/s while switch
    // 2's port holds flows 1–5 (flow 4 has weight 2: 100/6 per unit) ... after its weight goes
    // to 5 at 200 µs, flows 1–3 are held by switch 1's port at 100/(5+3) = 12.5 Gb/s each and
    // flow 0 gets 62.5 Gb/s. The samples at 100 µs and 300 µs show both allocations.
    let s = from_toml(FIG17).unwrap();
    let (topo, flows) = s.build(Path::new(".")).unwrap();
    let out = run(&s, &topo, &flows).unwrap();
    let at = |t: Time| -> Vec<f64> {
        out.rates
            .iter()
            .filter(|r| r.time == t)
            .map(|r| r.rate / 1e9)
            .collect()
    };
    let before = at(Time::from_us(100));
    let after = at(Time::from_us(300));
    // Before: switch 2's port: flows 1, 2, 3, 5 weight 1 and flow 4 weight 2 → 100/6 per
    // unit; flow 0 takes the rest of switch 1's port: 100 − 3·100/6 = 50.
    assert!((before[0] - 50.0).abs() < 1e-6, "{before:?}");
    assert!((before[1] - 100.0 / 6.0).abs() < 1e-6, "{before:?}");
    assert!((after[0] - 62.5).abs() < 1e-6, "{after:?}");
    assert!((after[1] - 12.5).abs() < 1e-6, "{after:?}");
}

#[test]
fn packet_scenario_records_and_applies_weight_changes() {
    // The same file on the packet engine with Söze, recording every 10 µs: samples come back
    // through the run's output (flows and the queued ports) and the weight change shows as
    // flow 0's sending rate rising past its weight-1 level.
    let text = FIG17
        .replace(
            "kind = \"flow\"\nrate_interval = \"100us\"",
            "kind = \"packet\"\ntransport = \"soze\"\nqdelay_signal = \"backlog\"\n\
             qdelay_lpf = \"10us\"\nrecord = { interval = \"10us\" }",
        )
        .replace("size = \"100MB\"", "size = \"10MB\"");
    let s = from_toml(&text).unwrap();
    let s = Scenario {
        stop_at: Some(Time::from_us(600)),
        ..s
    };
    let (topo, flows) = s.build(Path::new(".")).unwrap();
    let out = run(&s, &topo, &flows).unwrap();
    assert_eq!(out.rates.iter().filter(|r| r.flow == 0).count(), 60);
    assert!(out.rates.iter().all(|r| r.send_rate.is_some()));
    assert!(out.queues.iter().any(|q| q.link == LinkId(0)));
    let mean = |from: u64, to: u64| {
        let v: Vec<f64> = out
            .rates
            .iter()
            .filter(|r| r.flow == 0 && r.time > Time::from_us(from) && r.time <= Time::from_us(to))
            .map(|r| r.rate)
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!(
        mean(500, 600) > mean(100, 200) * 1.1,
        "{} {}",
        mean(100, 200),
        mean(500, 600)
    );
}

#[test]
fn packet_run_counters_report_soze_lemma_3_2_violations() {
    // The same file on the packet engine with Söze and §3.3's compounding rule over 600 µs.
    // Lemma 3.2 needs p > Δt/2·ln(α/β), Δt one packet (8,384 bits) at the flow's rate; here
    // α = 100 Gb/s (smallest weight 1) and β = 100/6 Gb/s (switch 2's port: weights 1+1+1+2+1),
    // ln(α/β) = ln 6. With the paper's p = 20 µs the bound holds above 0.38 Gb/s, far below
    // every flow's share (12.5–62.5 Gb/s): at most a few transient updates violate it
    // (asserted: below 1%). With p = 50 ns (allow_unstable) it needs a rate above
    // 8,384 · ln 6 / 0.1 µs = 150 Gb/s, more than the line rate: every update of every flow
    // violates it. The run's counters say so (`summary.json`).
    let run_with = |soze: &str| {
        let text = FIG17
            .replace(
                "kind = \"flow\"\nrate_interval = \"100us\"",
                &format!(
                    "kind = \"packet\"\ntransport = \"soze\"\nqdelay_signal = \"backlog\"\n\
                     soze = {{ update = \"per_packet_compound\"{soze} }}"
                ),
            )
            .replace("size = \"100MB\"", "size = \"10MB\"");
        let s = Scenario {
            stop_at: Some(Time::from_us(600)),
            ..from_toml(&text).unwrap()
        };
        let (topo, flows) = s.build(Path::new(".")).unwrap();
        let out = run(&s, &topo, &flows).unwrap();
        let c = |name: &str| {
            out.counters
                .iter()
                .find(|(k, _)| *k == name)
                .unwrap_or_else(|| panic!("no counter {name}: {:?}", out.counters))
                .1
        };
        assert_eq!(c("soze_flows"), 6.0);
        assert_eq!(c("soze_held_at_floor"), 0.0, "no floor is set");
        let share = c("soze_lemma_3_2_violated_updates") / c("soze_rate_updates");
        println!("{soze:?}: {:?}", out.counters);
        (share, c("soze_lemma_3_2_flows"))
    };
    let (paper, _) = run_with("");
    assert!(paper < 0.01, "p = 20 us: {paper}");
    let (tiny, flows) = run_with(", p = \"50ns\", allow_unstable = true");
    assert_eq!(
        (tiny, flows),
        (1.0, 6.0),
        "p = 50 ns: share of updates, flows"
    );
}

#[test]
fn json_errors_cite_no_position_in_the_internal_document() {
    let e = from_json(r#"{"name": "x", "engine": "#)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("scenario: EOF while parsing"), "{e}");
    assert!(!e.contains("line"), "{e}");
}

#[test]
fn memory_estimate_counts_flows_and_recorded_series_before_building_them() {
    // 300 Poisson flows in the flow engine: 300 times the engine's per-flow figure, nothing
    // recorded.
    let s = from_toml(FLOW_SCENARIO).unwrap();
    let e = estimate_memory(&s, &cdf_dir()).unwrap();
    assert_eq!(e.flows, 300);
    assert_eq!(e.flow_bytes, 300 * memory::FLOW_ENGINE_BYTES_PER_FLOW);
    assert_eq!((e.record_samples, e.record_bytes), (0, 0));

    // A billion flows is counted, not generated.
    let huge = from_toml(&FLOW_SCENARIO.replace("flows = 300", "flows = 1000000000")).unwrap();
    assert_eq!(
        estimate_memory(&huge, &cdf_dir()).unwrap().flows,
        1_000_000_000
    );

    // A packet run recording every port's queue every 10 µs for 1 s: 100,000 samples of each
    // of the k = 4 fat-tree's links, plus one flow sample per host per sample time.
    let recorded = format!(
        "stop_at = \"1s\"\n{}",
        FLOW_SCENARIO.replace(
            "[engine]\nkind = \"flow\"",
            "[engine]\nkind = \"packet\"\nrecord = { interval = \"10us\", queues = \"all\" }",
        )
    );
    let s = from_toml(&recorded).unwrap();
    let (topo, _) = s.build(&cdf_dir()).unwrap();
    let e = estimate_memory(&s, &cdf_dir()).unwrap();
    let n = 100_000u64;
    let queue_rows = n * topo.num_links() as u64;
    let flow_rows = n * topo.hosts().len() as u64;
    assert_eq!(e.record_samples, queue_rows + flow_rows);
    assert_eq!(
        e.record_bytes,
        queue_rows * memory::BYTES_PER_QUEUE_SAMPLE + flow_rows * memory::BYTES_PER_RATE_SAMPLE
    );
    assert_eq!(e.total_bytes(), e.flow_bytes + e.record_bytes);
}

#[test]
fn deadline_misses_are_counted_from_each_flows_end() {
    // Three 1 MB flows on disjoint host pairs of a 1 Gb/s star (flow engine, no headers): each
    // alone on its links, so each ends 8 ms + 2 µs of propagation after it starts. Flow 0's
    // deadline (20 ms) is met, flow 1's (5 ms) missed, flow 2 has none. Stopped at 6 ms
    // instead, flow 1 has missed (unfinished at its deadline) and flow 0 is undecided.
    let text = r#"
[topology]
kind = "star"
n_hosts = 6
rate = "1Gbps"
delay = "1us"
[workload]
kind = "flows"
flows = [
  { src = 0, dst = 1, size = "1MB", deadline = "20ms" },
  { src = 2, dst = 3, size = "1MB", deadline = "5ms" },
  { src = 4, dst = 5, size = "1MB" },
]
[engine]
kind = "flow"
"#;
    let s = from_toml(text).unwrap();
    let (topo, flows) = s.build(Path::new(".")).unwrap();
    let out = run(&s, &topo, &flows).unwrap();
    let missed: Vec<_> = out
        .rows
        .iter()
        .map(|r| r.deadline_missed(out.end_time))
        .collect();
    assert_eq!(missed, vec![Some(false), Some(true), None]);
    assert_eq!(crate::metrics::deadline_miss_ratio(missed), Some(0.5));
    let s = from_toml(&format!("stop_at = \"6ms\"\n{text}")).unwrap();
    let out = run(&s, &topo, &flows).unwrap();
    let missed: Vec<_> = out
        .rows
        .iter()
        .map(|r| r.deadline_missed(out.end_time))
        .collect();
    assert_eq!(missed, vec![None, Some(true), None]);
}

/// Two completion-sensitive slices of weights 1 and 3 on a 10 Gb/s star (one rack): flow 0
/// (slice "a", 10 MB, host 0 → 1) and flow 1 (slice "b", 10 MB, host 2 → 1) share host 1's
/// link. Each slice has one rack-flow holding its one flow, so the flows' weights are 1 and 3
/// and they get 2.5 and 7.5 Gb/s: flow 1 ends after 80 Mb / 7.5 Gb/s = 10.667 ms, flow 0 then
/// has 6.667 MB left at 10 Gb/s: 16 ms (each + 2 µs of propagation).
const SLICED: &str = r#"
decision_slot = "1ms"
[[slices]]
name = "a"
objective = "cs"
weight = 1
tags = [0]
[[slices]]
name = "b"
objective = "cs"
weight = 3
tags = [1]
[topology]
kind = "star"
n_hosts = 3
rate = "10Gbps"
delay = "1us"
[workload]
kind = "flows"
flows = [
  { src = 0, dst = 1, size = "10MB", tag = 0 },
  { src = 2, dst = 1, size = "10MB", tag = 1 },
]
[engine]
kind = "flow"
"#;

#[test]
fn slices_in_a_scenario_run_uranus_on_the_flow_engine() {
    let s = from_toml(SLICED).unwrap();
    let (topo, flows) = s.build(Path::new(".")).unwrap();
    let out = run(&s, &topo, &flows).unwrap();
    let end = |i: usize| out.rows[i].end.unwrap().as_secs_f64() * 1e3 - 0.002;
    assert!((end(1) - 80.0 / 7.5).abs() < 1e-6, "{}", end(1));
    assert!((end(0) - 16.0).abs() < 1e-6, "{}", end(0));
    assert!(counter(&out, "decision_slots") >= 16.0);
    assert!(counter(&out, "slice_weight_sum_max_error") < 1e-12);
}

#[test]
fn slice_errors_name_the_slice_or_flow() {
    let build = |text: &str| {
        from_toml(text)
            .and_then(|s| s.build(Path::new(".")).map(|_| ()))
            .unwrap_err()
            .to_string()
    };
    let cases = [
        (
            SLICED.replacen("objective = \"cs\"", "objective = \"xs\"", 1),
            "slices[0].objective: unknown variant `xs`, expected `ds` or `cs`",
        ),
        (
            SLICED.replacen("weight = 1\n", "weight = 0\n", 1),
            "slices[0] (\"a\").weight: W_S must be > 0 and finite, got 0",
        ),
        (
            SLICED.replacen("tags = [1]", "tags = [0, 1]", 1),
            "slices[1] (\"b\").tags: tag 0 is already in slice \"a\": a flow in two slices",
        ),
        (
            SLICED.replacen("tag = 1 }", "tag = 5 }", 1),
            "flow 1: tag 5 is in no slice: every flow must belong to one slice",
        ),
        (
            SLICED.replacen("objective = \"cs\"", "objective = \"ds\"", 1),
            "flow 0: in deadline-sensitive slice \"a\" but has no deadline",
        ),
        (
            SLICED.replacen("decision_slot = \"1ms\"", "decision_slot = \"0s\"", 1),
            "decision_slot: expected a positive duration, got 0",
        ),
        (
            SLICED.replacen("kind = \"flow\"", "kind = \"rounds\"", 1),
            "slices: slices run on engine.kind = \"flow\" or \"packet\"",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(build(&text), want);
    }
    let no_slices = FLOW_SCENARIO.replace("seed = 3", "seed = 3\ndecision_slot = \"1ms\"");
    assert!(build(&no_slices).starts_with("decision_slot: a decision slot without [[slices]]"));
}

/// The same slices on the packet engine with WVCC: the weights 1 and 3 reach the shims, so
/// the heavier flow ends first (with equal weights they would end together); the reference is
/// Uranus's own flow-level run on the same paths (with the packets' headers: 10.48 MB on the
/// wire each, so 11.179 and 16.768 ms); the per-slot distance from the oracle is reported.
#[test]
fn slices_in_a_packet_scenario_drive_wvcc() {
    let text = SLICED.replace(
        "kind = \"flow\"",
        "kind = \"packet\"\nhost_shim = \"wvcc\"\nqdisc = { kind = \"ecn\", k = { packets = 65 } }",
    );
    let s = from_toml(&text).unwrap();
    let (topo, flows) = s.build(Path::new(".")).unwrap();
    let out = run(&s, &topo, &flows).unwrap();
    assert!(out.complete);
    let end = |i: usize| out.rows[i].end.unwrap();
    assert!(end(1) < end(0));
    let reference = |i: usize| out.maxmin_end[i].unwrap().as_secs_f64() * 1e3 - 0.002;
    assert!(
        (reference(1) - 83.84 / 7.5).abs() < 1e-3,
        "{}",
        reference(1)
    );
    assert!((reference(0) - 16.768).abs() < 1e-3, "{}", reference(0));
    assert!(counter(&out, "decision_slots") >= 10.0);
    assert!(counter(&out, "target_measured_slots") >= 5.0);
    let jain = counter(&out, "target_jain_mean");
    assert!(jain > 0.0 && jain <= 1.0 + 1e-12, "{jain}");
}

/// The same slices under SCC (`slice_scheduler = "scc"`, `host_shim = "scc"`): each slice has
/// one tunnel (one host pair) holding its one flow, so SCC's tunnel weights are `W_S` = 1 and
/// 3 and the heavier flow ends first, as under Uranus. With `slice_scheduler = "none"` both
/// keep their workload weight 1 and share host 1's link evenly: they end within 10% of each
/// other, after the heavier one's end under a scheduler.
#[test]
fn slice_scheduler_scc_and_none_in_a_packet_scenario() {
    let packet = |scheduler: &str, shim: &str| {
        let text = SLICED
            .replace(
                "kind = \"flow\"",
                &format!(
                    "kind = \"packet\"\nhost_shim = \"{shim}\"\n\
                     qdisc = {{ kind = \"ecn\", k = {{ packets = 65 }} }}"
                ),
            )
            .replace(
                "decision_slot = \"1ms\"",
                &format!("decision_slot = \"1ms\"\nslice_scheduler = \"{scheduler}\""),
            );
        let s = from_toml(&text).unwrap();
        let (topo, flows) = s.build(Path::new(".")).unwrap();
        let out = run(&s, &topo, &flows).unwrap();
        assert!(out.complete);
        let end = |i: usize| out.rows[i].end.unwrap().as_secs_f64();
        (end(0), end(1), counter(&out, "slice_weight_sum_max_error"))
    };
    let (a, b, sum_error) = packet("scc", "scc");
    assert!(b < a && sum_error < 1e-12, "{a} {b}");
    let (a0, b0, _) = packet("none", "wvcc");
    assert!((a0 / b0 - 1.0).abs() < 0.1, "{a0} {b0}");
    assert!(a0.min(b0) > b, "{a0} {b0} vs {b}");
}

#[test]
fn slice_scheduler_errors_name_the_field() {
    let build = |text: &str| {
        from_toml(text)
            .and_then(|s| s.build(Path::new(".")).map(|_| ()))
            .unwrap_err()
            .to_string()
    };
    let scc = SLICED.replace(
        "decision_slot = \"1ms\"",
        "decision_slot = \"1ms\"\nslice_scheduler = \"scc\"",
    );
    assert_eq!(
        build(&scc),
        "slice_scheduler: \"scc\" runs on the packet engine (its virtual tunnels are host \
         shims): set engine.kind = \"packet\""
    );
    assert_eq!(
        build(&scc.replace("kind = \"flow\"", "kind = \"packet\"")),
        "slice_scheduler: \"scc\" runs SCC's virtual tunnels: set engine.host_shim = \"scc\""
    );
    let lone = FLOW_SCENARIO.replace("seed = 3", "seed = 3\nslice_scheduler = \"none\"");
    assert_eq!(
        build(&lone),
        "slice_scheduler: a slice scheduler without [[slices]]: declare the slices or remove it"
    );
    assert!(build(&scc.replace("\"scc\"", "\"fair\""))
        .starts_with("slice_scheduler: unknown variant `fair`"));
}

const MIXED_TRANSPORTS: &str = r#"
[topology]
kind = "dumbbell"
n_pairs = 2
access_rate = "10Gbps"
bottleneck_rate = "10Gbps"
[workload]
kind = "flows"
flows = [
  { src = 0, dst = 2, size = "1MB" },
  { src = 1, dst = 3, size = "1MB", transport = "udp", udp_rate = "1Gbps" },
]
[engine]
kind = "packet"
transport = "dctcp"
"#;

#[test]
fn a_flow_row_overrides_the_engines_transport() {
    // Flow 1 sends at a constant 1 Gb/s (its own `udp` transport) beside a DCTCP flow on a
    // 10 Gb/s dumbbell with 32 MB buffers: nothing is lost, so its FCT is its wire bytes at
    // 1 Gb/s (plus four 1 µs hops and the packets' serialization, well under 1%), ten times
    // what the default transport (DCTCP, ramping to the 10 Gb/s line rate) would take. The
    // DCTCP flow finishes too.
    let s = from_toml(MIXED_TRANSPORTS).unwrap();
    let (topo, flows) = s.build(Path::new(".")).unwrap();
    let out = run(&s, &topo, &flows).unwrap();
    assert!(out.complete, "both flows finish");
    let EngineSpec::Packet(cfg) = &s.engine else {
        unreachable!()
    };
    let wire = crate::metrics::wire_bytes(Bytes(1_000_000), cfg.mtu.0, cfg.header.0);
    let want = wire.0 as f64 * 8.0 / 1e9;
    let fct = (out.rows[1].end.unwrap() - out.rows[1].start).as_secs_f64();
    assert!(
        (fct - want).abs() <= 0.01 * want,
        "CBR flow's FCT {fct} s, expected {want} s"
    );
    let tcp = (out.rows[0].end.unwrap() - out.rows[0].start).as_secs_f64();
    assert!(tcp < want / 2.0, "DCTCP flow's FCT {tcp} s");
}

#[test]
fn a_flow_rows_transport_errors_name_the_row() {
    // Another engine has no transports.
    let flow_engine = MIXED_TRANSPORTS.replace(
        "kind = \"packet\"\ntransport = \"dctcp\"",
        "kind = \"flow\"",
    );
    assert_eq!(
        err(&flow_engine),
        "workload.flows[1].transport: a flow's own transport needs engine.kind = \"packet\""
    );
    // A rate belongs to a constant-rate flow.
    let tcp_rate = MIXED_TRANSPORTS.replace("transport = \"udp\", ", "transport = \"reno\", ");
    assert_eq!(
        err(&tcp_rate),
        "workload.flows[1].udp_rate: is the rate of a constant-rate flow: set transport = \"udp\""
    );
    let zero = MIXED_TRANSPORTS.replace("\"1Gbps\"", "\"0bps\"");
    assert_eq!(err(&zero), "workload.flows[1].udp_rate: must be positive");
    // A transport whose switch part is missing is caught when the run is built.
    let hpcc = MIXED_TRANSPORTS.replace(
        "transport = \"udp\", udp_rate = \"1Gbps\"",
        "transport = \"hpcc\"",
    );
    let s = from_toml(&hpcc).unwrap();
    let (topo, flows) = s.build(Path::new(".")).unwrap();
    assert_eq!(
        run(&s, &topo, &flows).unwrap_err().to_string(),
        "workload: flows[1].transport: transport \"hpcc\" reads per-hop INT records: set port_agent = \"int\""
    );
    let unknown = MIXED_TRANSPORTS.replace("\"udp\"", "\"carrier_pigeon\"");
    assert!(
        err(&unknown).starts_with("workload.flows[1].transport: unknown variant `carrier_pigeon`"),
        "{}",
        err(&unknown)
    );
}

/// Two groups of flows on disjoint ports of a 10 Gb/s star: tag 0 (hosts 0, 1 → 2, D2TCP's
/// deadline flows) and tag 1 (hosts 3, 4 → 5), two 2 MB flows into one receiver each, DCTCP's
/// marking at K = 20 packets.
const TAGGED_GROUPS: &str = r#"
seed = 2
[topology]
kind = "star"
n_hosts = 6
rate = "10Gbps"
delay = "5us"
[workload]
kind = "flows"
flows = [
  { src = 0, dst = 2, size = "2MB", tag = 0, deadline = "1ms" },
  { src = 1, dst = 2, size = "2MB", tag = 0, deadline = "50ms" },
  { src = 3, dst = 5, size = "2MB", tag = 1 },
  { src = 4, dst = 5, size = "2MB", tag = 1, start = "1ms" },
]
[engine]
kind = "packet"
transport = "dctcp"
qdisc = { kind = "ecn", k = { packets = 20 } }
"#;

fn tagged_run(engine_extra: &str) -> RunOutput {
    let text = TAGGED_GROUPS.replace(
        "transport = \"dctcp\"",
        &format!("transport = \"dctcp\"\n{engine_extra}"),
    );
    let s = from_toml(&text).unwrap();
    let (topo, flows) = s.build(Path::new(".")).unwrap();
    run(&s, &topo, &flows).unwrap()
}

#[test]
fn each_flow_runs_its_tags_transport() {
    // One run with tag 0 over D2TCP and tag 1 over L2DCT. The groups share no port (a star:
    // each group's own receiver port), so each group's packets are exactly those of a run in
    // which every flow uses that group's transport: the mixed run's tag-0 ends must equal the
    // all-D2TCP run's and its tag-1 ends the all-L2DCT run's, to the picosecond. The check
    // discriminates: the same tag-1 flows end differently under D2TCP (DCTCP's cut, as they
    // have no deadline) than under L2DCT (its late-comer's smaller cut, `b = α^k`), and the
    // tag-0 flows differently under L2DCT than under D2TCP (the 1 ms deadline's deeper
    // imminence, `p = α^d` with d = 2).
    let mixed = tagged_run(
        "tag_transports = [{ tag = 0, transport = \"d2tcp\" }, { tag = 1, transport = \"l2dct\" }]",
    );
    let d2tcp = tagged_run(
        "tag_transports = [{ tag = 0, transport = \"d2tcp\" }, { tag = 1, transport = \"d2tcp\" }]",
    );
    let l2dct = tagged_run(
        "tag_transports = [{ tag = 0, transport = \"l2dct\" }, { tag = 1, transport = \"l2dct\" }]",
    );
    assert!(mixed.complete && d2tcp.complete && l2dct.complete);
    let ends = |o: &RunOutput, r: std::ops::Range<usize>| -> Vec<Option<Time>> {
        o.rows[r].iter().map(|x| x.end).collect()
    };
    assert_eq!(ends(&mixed, 0..2), ends(&d2tcp, 0..2), "tag 0 runs D2TCP");
    assert_eq!(ends(&mixed, 2..4), ends(&l2dct, 2..4), "tag 1 runs L2DCT");
    assert_ne!(
        ends(&d2tcp, 2..4),
        ends(&l2dct, 2..4),
        "the transports differ on tag 1"
    );
    assert_ne!(
        ends(&d2tcp, 0..2),
        ends(&l2dct, 0..2),
        "the transports differ on tag 0"
    );
    // A flow row's own transport wins over its tag's: flow 3 (tag 1) as a 1 Gb/s CBR flow
    // ends after its wire bytes at 1 Gb/s (within 1%, as `a_flow_row_overrides_…`).
    let text = TAGGED_GROUPS
        .replace(
            "start = \"1ms\" }",
            "start = \"1ms\", transport = \"udp\", udp_rate = \"1Gbps\" }",
        )
        .replace(
            "transport = \"dctcp\"\n",
            "transport = \"dctcp\"\ntag_transports = [{ tag = 1, transport = \"l2dct\" }]\n",
        );
    let s = from_toml(&text).unwrap();
    let (topo, flows) = s.build(Path::new(".")).unwrap();
    let out = run(&s, &topo, &flows).unwrap();
    let fct = (out.rows[3].end.unwrap() - out.rows[3].start).as_secs_f64();
    let want = crate::metrics::wire_bytes(Bytes(2_000_000), 1000, 48).0 as f64 * 8.0 / 1e9;
    assert!((fct / want - 1.0).abs() < 0.01, "{fct} vs {want}");
}

#[test]
fn tag_transport_errors_name_the_entry() {
    let build_err = |extra: &str| -> String {
        let text = TAGGED_GROUPS.replace(
            "transport = \"dctcp\"\n",
            &format!("transport = \"dctcp\"\n{extra}\n"),
        );
        match from_toml(&text) {
            Err(e) => e.to_string(),
            Ok(s) => {
                let (topo, flows) = s.build(Path::new(".")).unwrap();
                run(&s, &topo, &flows).unwrap_err().to_string()
            }
        }
    };
    let e = build_err(
        "tag_transports = [{ tag = 0, transport = \"d2tcp\" }, { tag = 0, transport = \"l2dct\" }]",
    );
    assert!(
        e.ends_with("tag_transports[1].tag: tag 0 already has a transport (tag_transports[0])"),
        "{e}"
    );
    let e = build_err("tag_transports = [{ tag = 7, transport = \"d2tcp\" }]");
    assert!(
        e.ends_with("tag_transports[0].tag: no flow has tag 7"),
        "{e}"
    );
    let e = build_err("tag_transports = [{ tag = 1, transport = \"reno\", udp_rate = \"1Gbps\" }]");
    assert!(
        e.ends_with(
            "tag_transports[0].udp_rate: is the rate of a constant-rate flow: set transport = \"udp\""
        ),
        "{e}"
    );
    let e = build_err("tag_transports = [{ tag = 1, transport = \"hpcc\" }]");
    assert!(
        e.ends_with("tag_transports[0].transport: transport \"hpcc\" reads per-hop INT records: set port_agent = \"int\""),
        "{e}"
    );
    let e = build_err("tag_transports = [{ tag = 1, transport = \"pigeon\" }]");
    assert!(e.contains("unknown variant `pigeon`"), "{e}");
}

#[test]
fn background_traffic_joins_a_poisson_workload() {
    // §5.2's fat-tree (64 hosts, 8 racks), 400 web-search flows at load 0.3 split into 2 tags,
    // with background at 10%: the workload's own 400 flows come first, unchanged but for the
    // tags (the same seed without `tags`/`background` gives the same hosts, sizes, starts),
    // then background flows tagged 2 (the first tag after the workload's), every one between
    // two racks and starting before the workload's last flow. Their number is Poisson with
    // mean 400 · 0.1/0.3 ≈ 133 (σ ≈ 11.5): within 45 of it. An explicit tag is used.
    let text = |extra: &str| {
        format!(
            "seed = 4\n[topology]\nkind = \"uranus_fat_tree\"\n[workload]\nkind = \"poisson\"\n\
             cdf = \"WebSearch_distribution.txt\"\nload = 0.3\nflows = 400\n{extra}\n\
             [engine]\nkind = \"flow\"\n"
        )
    };
    let build = |extra: &str| from_toml(&text(extra)).unwrap().build(&cdf_dir());
    let (_, plain) = build("").unwrap();
    let (topo, flows) = build("tags = 2\nbackground = { load = \"10%\" }").unwrap();
    assert_eq!(plain.len(), 400);
    let last = plain.last().unwrap().start;
    for (a, b) in flows.iter().zip(&plain) {
        assert_eq!(
            (a.src, a.dst, a.size, a.start),
            (b.src, b.dst, b.size, b.start)
        );
        assert!(a.tag < 2);
    }
    let bg = &flows[400..];
    assert!((bg.len() as f64 - 400.0 / 3.0).abs() < 45.0, "{}", bg.len());
    let rack = |h: NodeId| topo.link(topo.out_links(h)[0]).dst;
    assert!(bg
        .iter()
        .all(|f| f.tag == 2 && rack(f.src) != rack(f.dst) && f.start < last));
    let (_, tagged) = build("background = { load = 0.1, tag = 9 }").unwrap();
    assert!(tagged[400..].iter().all(|f| f.tag == 9));
    assert_eq!(
        build("tags = 0").unwrap_err().to_string(),
        "workload.tags: expected at least 1 class, got 0"
    );
    let e = err(&text("background = { load = 1.5 }"));
    assert!(
        e.starts_with("workload.background") && e.contains("expected a fraction in (0, 1]"),
        "{e}"
    );
    // One rack: no traffic between racks.
    let star = text("background = { load = 0.1 }")
        .replace("kind = \"uranus_fat_tree\"", "kind = \"star\"\nn_hosts = 4");
    assert_eq!(
        from_toml(&star)
            .unwrap()
            .build(&cdf_dir())
            .unwrap_err()
            .to_string(),
        "workload.background: traffic between racks needs at least 2 racks, the topology has 1"
    );
}

#[test]
fn bulk_senders_with_background_between_racks() {
    // §5.2's fat-tree (64 hosts, 8 racks), bulk senders of 2 classes, one each per host: 128
    // flows of 1 GB at time 0, host by host (host h's tags 0 then 1), every one between racks;
    // then web-search background at 10% until 50 ms, tagged 2 (the first tag after the
    // bulk's): Poisson with mean λ·T = 0.1 · 64 Gb/s · 0.05 s / (8 · mean size) flows, every
    // one between racks and starting before 50 ms. Without `cdf` or `until` the background
    // has no sizes or end: errors naming the field.
    let text = |background: &str| {
        format!(
            "seed = 4\n[topology]\nkind = \"uranus_fat_tree\"\n[workload]\nkind = \"bulk\"\n\
             size = \"1GB\"\ntags = 2\n{background}\n[engine]\nkind = \"flow\"\n"
        )
    };
    let build = |bg: &str| from_toml(&text(bg)).unwrap().build(&cdf_dir());
    let bg = "background = { load = 0.1, cdf = \"WebSearch_distribution.txt\", until = \"50ms\" }";
    let (topo, flows) = build(bg).unwrap();
    let rack = |h: NodeId| topo.link(topo.out_links(h)[0]).dst;
    let hosts = topo.hosts();
    for (i, f) in flows[..128].iter().enumerate() {
        assert_eq!((f.src, f.tag), (hosts[i / 2], (i % 2) as u32));
        assert_eq!((f.size, f.start), (Bytes(1_000_000_000), Time::ZERO));
        assert_ne!(rack(f.src), rack(f.dst));
    }
    let cdf = SizeCdf::from_file(&cdf_dir().join("WebSearch_distribution.txt")).unwrap();
    let mean = 0.1 * 64e9 * 0.05 / (8.0 * cdf.mean());
    let extra = &flows[128..];
    assert!(
        (extra.len() as f64 - mean).abs() < 4.0 * mean.sqrt() + 1.0,
        "{} background flows, mean {mean}",
        extra.len()
    );
    assert!(extra
        .iter()
        .all(|f| f.tag == 2 && rack(f.src) != rack(f.dst) && f.start < Time::from_ms(50)));
    assert_eq!(build("").unwrap().1.len(), 128);
    assert_eq!(
        build("background = { load = 0.1, until = \"50ms\" }")
            .unwrap_err()
            .to_string(),
        "workload.background.cdf: needed beside a bulk workload (it has no flow sizes of its own)"
    );
    assert!(
        build("background = { load = 0.1, cdf = \"WebSearch_distribution.txt\" }")
            .unwrap_err()
            .to_string()
            .starts_with("workload.background.until: needed beside a bulk workload")
    );
    assert_eq!(
        build("per_host = 0").unwrap_err().to_string(),
        "workload.per_host: expected at least 1 flow, got 0"
    );
    // `per_pair = 3`: each of the 128 drawn flows three times in place (same host pair, class,
    // size and start: three flows in one SCC tunnel), the draws those of `per_pair = 1`; zero
    // is an error naming the field.
    let one = build("").unwrap().1;
    let three = build("per_pair = 3").unwrap().1;
    assert_eq!(three.len(), 3 * one.len());
    assert!(three
        .chunks(3)
        .zip(&one)
        .all(|(group, f)| group
            .iter()
            .all(|g| (g.src, g.dst, g.tag, g.size, g.start)
                == (f.src, f.dst, f.tag, f.size, f.start))));
    assert_eq!(
        build("per_pair = 0").unwrap_err().to_string(),
        "workload.per_pair: expected at least 1 flow, got 0"
    );
}

#[test]
fn load_on_rack_uplinks_scales_the_arrivals() {
    // The same Poisson workload on §5.2's fat-tree with `load_on = "rack_uplinks"`: load 1 is
    // 18 Gb/s of offered traffic instead of the hosts' 64 Gb/s (`workload::full_load`'s closed
    // form: each rack's two 1 Gb/s uplinks carry 1/9 of the traffic), so the same seed draws the
    // same hosts, sizes and deadlines, and every start is 64/18 times later (to the rounding of
    // a picosecond). The background's load follows: 10% is 16 Gb/s · 0.1 instead of 6.4 Gb/s, so
    // over the 64/18 longer span it has (64/18)·(1.6/6.4) = 0.889 times as many flows as at the
    // hosts' load: 150 flows at load 0.3 (mean 400 · 0.1/0.3 ≈ 133, Poisson) become about 119
    // (σ ≈ 11): within 45 of it. Not a fraction of rack uplinks on a star: an error naming the
    // field.
    let text = |extra: &str| {
        format!(
            "seed = 4\n[topology]\nkind = \"uranus_fat_tree\"\n[workload]\nkind = \"poisson\"\n\
             cdf = \"WebSearch_distribution.txt\"\nload = 0.3\nflows = 400\n\
             deadline_mean = \"20ms\"\nbackground = {{ load = 0.1 }}\n{extra}\n\
             [engine]\nkind = \"flow\"\n"
        )
    };
    let build = |extra: &str| from_toml(&text(extra)).unwrap().build(&cdf_dir());
    let (_, hosts) = build("").unwrap();
    let (_, same) = build("load_on = \"hosts\"").unwrap();
    assert_eq!(hosts, same);
    let (_, up) = build("load_on = \"rack_uplinks\"").unwrap();
    for (a, b) in up[..400].iter().zip(&hosts[..400]) {
        assert_eq!(
            (a.src, a.dst, a.size, a.deadline),
            (b.src, b.dst, b.size, b.deadline)
        );
        let expect = b.start.as_secs_f64() * 64.0 / 18.0;
        assert!(
            (a.start.as_secs_f64() - expect).abs() <= 1e-9 * expect.max(1e-3),
            "{:?} vs {expect}",
            a.start
        );
    }
    let expect_bg = 400.0 * 0.1 / 0.3 * (64.0 / 18.0) * (1.6 / 6.4);
    let n_bg = (up.len() - 400) as f64;
    assert!((n_bg - expect_bg).abs() < 45.0, "{n_bg} vs {expect_bg}");
    let star = text("load_on = \"rack_uplinks\"")
        .replace("kind = \"uranus_fat_tree\"", "kind = \"star\"\nn_hosts = 4");
    assert_eq!(
        from_toml(&star)
            .unwrap()
            .build(&cdf_dir())
            .unwrap_err()
            .to_string(),
        "workload.load_on: \"rack_uplinks\" needs traffic between racks with uplinks: the \
         topology has 1 rack(s)"
    );
    assert!(err(&text("load_on = \"spine\"")).contains("unknown variant `spine`"));
}
