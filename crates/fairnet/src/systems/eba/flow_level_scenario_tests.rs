//! eBA at flow level from a scenario file (`engine.kind = "flow"` with `[engine.eba]`), and
//! the distance from the oracle every eBA run reports (`oracle.rs`). Expected outcomes are
//! stated in prose before they are asserted.

use crate::scenario::{from_toml, run, RunOutput};
use std::path::Path;

/// A dumbbell of 1 Gb/s links (hosts 0, 1 → 2, 3; the middle link the bottleneck). Tenant 0:
/// X on host 0 (weight 1, guarantee 400 Mb/s) sending one flow to X2 on host 2; tenant 1: Y on
/// host 1 (weight 2, guarantee 200 Mb/s) sending three flows to Y2 on host 3. §VII-C's
/// parameters (α = β = 2 s⁻¹, τ_v = 50 ms, τ_r = 100 ms), μ = 0.9, 20 s ([`VMS`], [`LRC`]).
/// `control` is `rate_control`, `vms` the rows of `vms = [...]`, `lrc` the lines of
/// `[engine.eba.lrc]` (the bad-input test breaks one of them).
fn scenario(control: &str, vms: &str, lrc: &str) -> String {
    format!(
        r#"
name = "eba flow level"
stop_at = "20s"
[topology]
kind = "dumbbell"
n_pairs = 2
access_rate = "1Gbps"
bottleneck_rate = "1Gbps"
[workload]
kind = "flows"
flows = [
  {{ src = 0, dst = 2, size = "1000GB", tag = 0 }},
  {{ src = 1, dst = 3, size = "1000GB", tag = 1 }},
  {{ src = 1, dst = 3, size = "1000GB", tag = 1 }},
  {{ src = 1, dst = 3, size = "1000GB", tag = 1 }},
]
[engine]
kind = "flow"
rate_interval = "100ms"
[engine.eba]
rate_control = "{control}"
vms = [{vms}]
[engine.eba.lrc]
{lrc}
"#
    )
}

const VMS: &str = r#"
  { name = "x", host = 0, tenant = 0, guarantee = "400Mbps", weight = 1 },
  { name = "x2", host = 2, tenant = 0, guarantee = "400Mbps", weight = 1 },
  { name = "y", host = 1, tenant = 1, guarantee = "200Mbps", weight = 2 },
  { name = "y2", host = 3, tenant = 1, guarantee = "200Mbps", weight = 2 },
"#;
const LRC: &str = "alpha = 2.0\nbeta = 2.0\ntau_v = \"50ms\"\ntau_r = \"100ms\"\nmu = 0.9";

fn run_text(text: &str) -> crate::error::Result<RunOutput> {
    let s = from_toml(text)?;
    let (topo, flows) = s.build(Path::new("."))?;
    run(&s, &topo, &flows)
}

fn counter(out: &RunOutput, name: &str) -> f64 {
    out.counters
        .iter()
        .find(|(k, _)| *k == name)
        .unwrap_or_else(|| panic!("no counter {name}: {:?}", out.counters))
        .1
}

/// Mean rate of tenant `tag`'s flows together over samples in `(from, to]` seconds.
fn tenant_rate(out: &RunOutput, tag: u32, from: f64, to: f64) -> f64 {
    let mut times = std::collections::BTreeSet::new();
    let mut sum = 0.0;
    for s in &out.rates {
        let t = s.time.as_secs_f64();
        if t > from && t <= to {
            times.insert(s.time);
            if out.rows[s.flow as usize].tag == tag {
                sum += s.rate;
            }
        }
    }
    sum / times.len() as f64
}

#[test]
fn a_flow_scenario_runs_lrc_reservation_and_best_effort_and_reports_the_oracle_distance() {
    // VM-flow weights by Eq. (1): X → X2 gets 1/1 + 1/1 = 2, Y → Y2 2 + 2 = 4; guarantees by
    // Eq. (2): 400 and 200 Mb/s. The oracle with guarantees on μC = 900 Mb/s: weighted shares
    // 300 / 600 put X below its guarantee, so X 400 and Y the other 500 Mb/s (Theorem 2).
    //
    // LRC settles there: X and Y within 5% of 400 and 500 over 15–20 s (the issue's bar), and
    // the reported distance (window: the second half of the run, nothing starting or ending
    // after 0) is small: every VM-flow within 5% (max relative error < 0.05), Jain's index
    // against the oracle above 0.99.
    //
    // Reservation caps each VM-flow at its guarantee: X 400, Y 200 Mb/s exactly (the fluid
    // engine's allocation), so the distance is Y's (500 − 200)/500 = 0.6. Best effort is
    // per-flow max-min: four flows on the 1 Gb/s middle link, 250 Mb/s each, X 250, Y 750:
    // errors 150/400 and 250/500, the largest 0.5. These are closed forms; the metric must
    // reproduce them to rounding.
    let lrc = run_text(&scenario("lrc", VMS, LRC)).unwrap();
    let (x, y) = (
        tenant_rate(&lrc, 0, 15.0, 20.0),
        tenant_rate(&lrc, 1, 15.0, 20.0),
    );
    assert!((x / 400e6 - 1.0).abs() < 0.05, "x {x}");
    assert!((y / 500e6 - 1.0).abs() < 0.05, "y {y}");
    assert_eq!(counter(&lrc, "eba_oracle_vm_flows"), 2.0);
    assert_eq!(counter(&lrc, "eba_oracle_window_start_s"), 10.0);
    assert_eq!(counter(&lrc, "eba_oracle_window_end_s"), 20.0);
    assert!(counter(&lrc, "eba_oracle_max_rel_error") < 0.05);
    assert!(counter(&lrc, "eba_oracle_jain") > 0.99);
    assert!(counter(&lrc, "eba_vm_updates") > 0.0 && counter(&lrc, "eba_link_updates") > 0.0);

    let reserved = run_text(&scenario("reservation", VMS, LRC)).unwrap();
    let (x, y) = (
        tenant_rate(&reserved, 0, 15.0, 20.0),
        tenant_rate(&reserved, 1, 15.0, 20.0),
    );
    assert!(
        (x / 400e6 - 1.0).abs() < 1e-6 && (y / 200e6 - 1.0).abs() < 1e-6,
        "{x} {y}"
    );
    let e = counter(&reserved, "eba_oracle_max_rel_error");
    assert!((e - 0.6).abs() < 1e-6, "{e}");

    let best = run_text(&scenario("best_effort", VMS, LRC)).unwrap();
    let (x, y) = (
        tenant_rate(&best, 0, 15.0, 20.0),
        tenant_rate(&best, 1, 15.0, 20.0),
    );
    assert!(
        (x / 250e6 - 1.0).abs() < 1e-6 && (y / 750e6 - 1.0).abs() < 1e-6,
        "{x} {y}"
    );
    let e = counter(&best, "eba_oracle_max_rel_error");
    assert!((e - 0.5).abs() < 1e-6, "{e}");
}

#[test]
fn without_rate_samples_the_distance_is_still_measured_and_no_samples_are_reported() {
    // The distance needs rate samples; a scenario that asks for none gets it all the same
    // (the run samples every τ_r for it) and its output holds no samples, as it asked.
    let text = scenario("lrc", VMS, LRC).replace("rate_interval = \"100ms\"\n", "");
    let out = run_text(&text).unwrap();
    assert!(out.rates.is_empty());
    assert!(counter(&out, "eba_oracle_max_rel_error") < 0.05);
}

#[test]
fn bad_flow_level_eba_input_gets_one_line_errors_naming_the_vm_or_field() {
    // Issue 23's bad input, at flow level: each refused before anything runs with one line
    // naming the VM or the field.
    let over_link = VMS.replace(
        r#"name = "x", host = 0, tenant = 0, guarantee = "400Mbps""#,
        r#"name = "x", host = 0, tenant = 0, guarantee = "1.5Gbps""#,
    );
    let host_total =
        format!("{VMS}  {{ name = \"z\", host = 0, tenant = 2, guarantee = \"700Mbps\" }},\n");
    let zero_weight = VMS.replace(
        r#"guarantee = "200Mbps", weight = 2 },"#,
        r#"guarantee = "200Mbps", weight = 0 },"#,
    );
    let cases: Vec<(String, &str)> = vec![
        (scenario("lrc", &over_link, LRC), "vm \"x\".guarantee:"),
        (scenario("lrc", &host_total, LRC), "host 0:"),
        (
            scenario("lrc", &zero_weight, LRC),
            "engine.eba.vms[2] (\"y\").weight: must be positive",
        ),
        (
            scenario("lrc", VMS, &LRC.replace("alpha = 2.0", "alpha = 0")),
            "engine.eba.lrc.alpha: must be positive",
        ),
        (
            scenario("lrc", VMS, &LRC.replace("beta = 2.0", "beta = -1")),
            "engine.eba.lrc.beta: must be positive",
        ),
        (
            scenario("lrc", VMS, &LRC.replace("alpha = 2.0", "alpha = 40")),
            "engine.eba.lrc.alpha: alpha·tau_v must be in (0, 1)",
        ),
        (
            scenario("lrc", VMS, &LRC.replace("mu = 0.9", "mu = 1.5")),
            "engine.eba.lrc.mu: must be in (0, 1]",
        ),
        (
            scenario("lrc", VMS, &LRC.replace("mu = 0.9", "mu = 0")),
            "engine.eba.lrc.mu: must be in (0, 1]",
        ),
        (
            scenario("tcp_like", VMS, LRC),
            "engine.eba.rate_control: tcp_like reacts to losses",
        ),
        (
            scenario("lrc", VMS, LRC)
                .replace("[engine]", "[weights]\nkind = \"shortest_first\"\n[engine]"),
            "weights: eBA sets every VM-flow's weight",
        ),
        (
            scenario("lrc", "", LRC),
            "engine.eba.vms: eBA at flow level needs",
        ),
        // The flow engine's own fields stay checked beside [engine.eba].
        (
            scenario("lrc", VMS, LRC).replace("rate_interval =", "rate_intervall ="),
            "engine.rate_intervall: unknown field",
        ),
    ];
    for (text, want) in cases {
        let got = run_text(&text).unwrap_err().to_string();
        assert!(got.starts_with(want), "{got:?} should start with {want:?}");
        assert!(!got.contains('\n'), "one line: {got:?}");
    }
}
