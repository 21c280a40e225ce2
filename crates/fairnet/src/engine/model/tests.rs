//! Accuracy of the solvers against closed forms; each test states the solution it expects.

use super::*;
use crate::engine::Progress;
use rand::Rng;

/// `y' = f(t, y)` for one scalar, no delays.
struct Scalar<F: Fn(f64, f64) -> f64 + Send>(f64, F);

impl<F: Fn(f64, f64) -> f64 + Send> Model for Scalar<F> {
    fn state(&self) -> Vec<StateVar> {
        vec![StateVar::new("y", 1, "1")]
    }
    fn initial_state(&self) -> Vec<f64> {
        vec![self.0]
    }
}

impl<F: Fn(f64, f64) -> f64 + Send> Continuous for Scalar<F> {
    fn derivative(&self, t: f64, y: &[f64], _: &Past<'_>, dy: &mut [f64]) {
        dy[0] = (self.1)(t, y[0]);
    }
}

fn opts(horizon: f64, interval: f64, rtol: f64, atol: f64) -> SolverOptions {
    SolverOptions {
        horizon,
        output_interval: interval,
        rtol,
        atol,
        ..SolverOptions::default()
    }
}

fn solve(m: &dyn Continuous, o: &SolverOptions) -> ModelRun {
    solve_continuous(m, &m.initial_state(), o, &Progress::default()).unwrap()
}

fn max_error(run: &ModelRun, exact: impl Fn(f64) -> f64) -> f64 {
    run.times
        .iter()
        .zip(run.column("y").unwrap())
        .map(|(&t, y)| (y - exact(t)).abs())
        .fold(0.0, f64::max)
}

#[test]
fn exponential_decay_matches_its_closed_form() {
    // y' = −2y, y(0) = 1: y(t) = e^(−2t). With rtol 1e-9 the global error over [0, 5] stays
    // below 1e-8, and the output grid is exact: 0, 0.1, …, 5 (51 samples).
    let m = Scalar(1.0, |_, y| -2.0 * y);
    let run = solve(&m, &opts(5.0, 0.1, 1e-9, 1e-12));
    assert!(run.complete);
    assert_eq!(run.times.len(), 51);
    assert!((run.times[50] - 5.0).abs() < 1e-12);
    let err = max_error(&run, |t| (-2.0 * t).exp());
    assert!(err < 1e-8, "max error {err}");
}

#[test]
fn logistic_growth_matches_its_closed_form() {
    // y' = r·y·(1 − y/K), r = 3, K = 10, y(0) = 0.1: y(t) = K / (1 + (K/y0 − 1)·e^(−rt)).
    // Tolerance 1e-7 relative: the error over [0, 6] is below 1e-5 (the solution reaches 10).
    let (r, k, y0) = (3.0, 10.0, 0.1);
    let m = Scalar(y0, move |_, y| r * y * (1.0 - y / k));
    let run = solve(&m, &opts(6.0, 0.05, 1e-7, 1e-9));
    let err = max_error(&run, |t| k / (1.0 + (k / y0 - 1.0) * (-r * t).exp()));
    assert!(err < 1e-5, "max error {err}");
    // Looser tolerance, larger error: the error control does follow the tolerance.
    let loose = solve(&m, &opts(6.0, 0.05, 1e-3, 1e-6));
    let err_loose = max_error(&loose, |t| k / (1.0 + (k / y0 - 1.0) * (-r * t).exp()));
    assert!(err_loose > err, "{err_loose} vs {err}");
    assert!(loose.steps < run.steps);
}

/// `y'(t) = −y(t − 1)`, history `y = 1` for `t ≤ 0`.
struct LinearDde;

impl Model for LinearDde {
    fn state(&self) -> Vec<StateVar> {
        vec![StateVar::new("y", 1, "1")]
    }
    fn initial_state(&self) -> Vec<f64> {
        vec![1.0]
    }
}

impl Continuous for LinearDde {
    fn delays(&self) -> Vec<f64> {
        vec![1.0]
    }
    fn derivative(&self, _t: f64, _y: &[f64], past: &Past<'_>, dy: &mut [f64]) {
        dy[0] = -past.delayed(0, 0);
    }
}

#[test]
fn linear_dde_matches_the_method_of_steps_on_its_first_intervals() {
    // y' = −y(t − 1), y = 1 on [−1, 0]. Integrating interval by interval:
    //   [0, 1]: y = 1 − t
    //   [1, 2]: y = 1 − t + (t − 1)²/2
    //   [2, 3]: y = 1 − t + (t − 1)²/2 − (t − 2)³/6
    // With rtol 1e-9 the solver (dense history, landing on the breakpoints 1, 2, 3) is within
    // 1e-8 of this on [0, 3].
    let exact = |t: f64| {
        let mut y = 1.0 - t;
        if t > 1.0 {
            y += (t - 1.0).powi(2) / 2.0;
        }
        if t > 2.0 {
            y -= (t - 2.0).powi(3) / 6.0;
        }
        y
    };
    let run = solve(&LinearDde, &opts(3.0, 0.01, 1e-9, 1e-12));
    assert!(run.complete);
    let err = max_error(&run, exact);
    assert!(err < 1e-8, "max error {err}");
}

#[test]
fn step_control_holds_a_stiff_problem_stable() {
    // y' = −λ(y − cos t), λ = 2000, y(0) = 0: after a boundary layer of width 1/λ the solution
    // follows y ≈ cos t; exactly y = (λ² cos t + λ sin t − λ² e^(−λt))/(λ² + 1). An explicit
    // method is stable only for h·λ below about 3.3, so the step control must keep every step
    // near 3.3/λ although accuracy alone would allow far longer ones: expected at least
    // λ·T/3.5 steps over T = 2 with some rejections where the step tried to grow, and a solution
    // still within the tolerance (no oscillation). The same problem with λ = 1 (not stiff) takes
    // fewer than a fiftieth of the steps.
    let lambda = 2000.0;
    let exact = move |t: f64| {
        let l2 = lambda * lambda;
        (l2 * t.cos() + lambda * t.sin() - l2 * (-lambda * t).exp()) / (l2 + 1.0)
    };
    let m = Scalar(0.0, move |t, y| -lambda * (y - t.cos()));
    let run = solve(&m, &opts(2.0, 0.01, 1e-6, 1e-9));
    assert!(run.complete);
    let err = max_error(&run, exact);
    assert!(err < 1e-5, "max error {err}");
    let stability_floor = (lambda * 2.0 / 3.5) as u64;
    assert!(
        run.steps >= stability_floor,
        "{} steps, fewer than λT/3.5 = {stability_floor}: the step left the stability region",
        run.steps
    );
    assert!(
        run.rejected > 0,
        "the step never tried to grow past stability"
    );
    let easy = solve(
        &Scalar(0.0, |t, y| -(y - t.cos())),
        &opts(2.0, 0.01, 1e-6, 1e-9),
    );
    assert!(
        easy.steps * 50 < run.steps,
        "{} vs {}",
        easy.steps,
        run.steps
    );
}

/// `x' = 1` (so `x = t`) and `y' = 1{x(t − d) > 0.5}` through a switch, delayed (`d = 0.2`)
/// or not.
struct Switched {
    delayed: bool,
}

impl Model for Switched {
    fn state(&self) -> Vec<StateVar> {
        vec![StateVar::new("x", 1, "1"), StateVar::new("y", 1, "1")]
    }
    fn initial_state(&self) -> Vec<f64> {
        vec![0.0, 0.0]
    }
}

impl Continuous for Switched {
    fn delays(&self) -> Vec<f64> {
        if self.delayed {
            vec![0.2]
        } else {
            Vec::new()
        }
    }
    fn switches(&self) -> Vec<Switch> {
        vec![Switch {
            name: "x > 0.5".into(),
            delay: self.delayed.then_some(0),
        }]
    }
    fn switch_value(&self, _k: usize, _t: f64, y: &[f64]) -> f64 {
        y[0] - 0.5
    }
    fn derivative(&self, _t: f64, _y: &[f64], past: &Past<'_>, dy: &mut [f64]) {
        dy[0] = 1.0;
        dy[1] = if past.switch(0) { 1.0 } else { 0.0 };
    }
}

#[test]
fn switches_flip_at_the_located_crossing_plus_delay() {
    // x = t crosses 0.5 at t = 0.5. Undelayed: y = max(0, t − 0.5), so y(1) = 0.5; delayed by
    // 0.2: y = max(0, t − 0.7), y(1) = 0.3. Located to 1e-12 of a step, both are exact to 1e-10
    // even with a loose tolerance (the kink is a step boundary, not inside a step).
    for (delayed, expected) in [(false, 0.5), (true, 0.3)] {
        let run = solve(&Switched { delayed }, &opts(1.0, 0.25, 1e-4, 1e-6));
        let y = run.column("y").unwrap();
        assert!(
            (y[4] - expected).abs() < 1e-10,
            "delayed {delayed}: {}",
            y[4]
        );
        assert_eq!(run.crossings, 1);
    }
}

#[test]
fn a_blow_up_names_the_time_and_variable_and_keeps_the_samples() {
    // y' = y², y(0) = 1: y = 1/(1 − t), which leaves the numbers at t = 1. Expected: a failure
    // naming y and a time within 1e-3 of 1, the samples before 1 kept (0, 0.1, …, 0.9) and
    // accurate.
    let m = Scalar(1.0, |_, y| y * y);
    let run = solve(&m, &opts(2.0, 0.1, 1e-6, 1e-9));
    assert!(!run.complete);
    let msg = run.failure.clone().expect("a failure");
    assert!(msg.contains("y = "), "{msg}");
    let t: f64 = msg
        .split("t = ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    assert!((t - 1.0).abs() < 1e-3, "{msg}");
    // (a last sample at t = 1 may be kept too: the step reached 1 − 1e-7 before failing.)
    assert!(run.times.len() >= 10, "{msg} {:?}", run.column("y"));
    let y = run.column("y").unwrap();
    assert!((y[9] - 10.0).abs() < 1e-4, "y(0.9) = {}", y[9]);
}

#[test]
fn bad_options_and_states_are_errors_naming_the_field() {
    let m = Scalar(1.0, |_, y| -y);
    let p = Progress::default();
    let err =
        |o: &SolverOptions, y0: &[f64]| solve_continuous(&m, y0, o, &p).unwrap_err().to_string();
    let e = err(&opts(0.0, 0.1, 1e-6, 1e-9), &[1.0]);
    assert!(e.starts_with("engine.horizon: must be positive"), "{e}");
    let e = err(&opts(1.0, -0.1, 1e-6, 1e-9), &[1.0]);
    assert!(e.starts_with("engine.output_interval"), "{e}");
    let e = err(&opts(1.0, 0.1, 1e-6, 1e-9), &[f64::NAN]);
    assert!(
        e.starts_with("engine.initial.y: must be a finite number"),
        "{e}"
    );
    struct NegativeDelay;
    impl Model for NegativeDelay {
        fn state(&self) -> Vec<StateVar> {
            vec![StateVar::new("y", 1, "1")]
        }
        fn initial_state(&self) -> Vec<f64> {
            vec![1.0]
        }
    }
    impl Continuous for NegativeDelay {
        fn delays(&self) -> Vec<f64> {
            vec![-1.0]
        }
        fn derivative(&self, _: f64, _: &[f64], _: &Past<'_>, dy: &mut [f64]) {
            dy[0] = 0.0;
        }
    }
    let e = solve_continuous(&NegativeDelay, &[1.0], &opts(1.0, 0.1, 1e-6, 1e-9), &p)
        .unwrap_err()
        .to_string();
    assert!(e.contains("delay 0 must be positive"), "{e}");
}

#[test]
fn parameters_are_parsed_with_units_and_checked() {
    let specs = [
        ParamSpec {
            name: "rtt",
            unit: ParamUnit::Seconds,
            default: None,
            doc: "round-trip time",
        },
        ParamSpec {
            name: "capacity",
            unit: ParamUnit::BitsPerSecond,
            default: Some(10e9),
            doc: "link rate",
        },
        ParamSpec {
            name: "flows",
            unit: ParamUnit::Count,
            default: Some(2.0),
            doc: "flows",
        },
    ];
    let parse = |json: &str| {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        Params::parse("m", &specs, v.as_object().unwrap())
    };
    let p = parse(r#"{"rtt": "100us", "flows": 5}"#).unwrap();
    assert!((p.get("rtt") - 100e-6).abs() < 1e-18);
    assert_eq!(p.get("capacity"), 10e9);
    assert_eq!(p.get("flows"), 5.0);
    let e = parse(r#"{"flows": 5}"#).unwrap_err().to_string();
    assert!(e.starts_with("engine.params.rtt: model \"m\" needs"), "{e}");
    let e = parse(r#"{"rtt": "1us", "colour": 1}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("engine.params.colour: model \"m\" has no parameter"),
        "{e}"
    );
    assert!(e.contains("rtt, capacity, flows"), "{e}");
    let e = parse(r#"{"rtt": "-1us"}"#).unwrap_err().to_string();
    assert!(
        e.starts_with("engine.params.rtt: must not be negative"),
        "{e}"
    );
    let e = parse(r#"{"rtt": "1 furlong"}"#).unwrap_err().to_string();
    assert!(
        e.starts_with("engine.params.rtt: expected a duration"),
        "{e}"
    );
    let e = parse(r#"{"rtt": "1us", "flows": 2.5}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("engine.params.flows: expected a whole number"),
        "{e}"
    );
}

#[test]
fn a_list_parameter_gives_one_value_per_entry() {
    // `Numbers`: one number for every entry (its default too), or exactly one per entry;
    // another count, or a value that is not a number, is an error naming the field.
    let specs = [ParamSpec {
        name: "weights",
        unit: ParamUnit::Numbers,
        default: Some(1.0),
        doc: "one per flow",
    }];
    let parse = |json: &str| {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        Params::parse("m", &specs, v.as_object().unwrap())
    };
    assert_eq!(
        parse("{}").unwrap().per_entry("weights", 3).unwrap(),
        [1.0; 3]
    );
    let p = parse(r#"{"weights": 0.5}"#).unwrap();
    assert_eq!(p.per_entry("weights", 2).unwrap(), [0.5, 0.5]);
    let p = parse(r#"{"weights": [1, 2.5, -3]}"#).unwrap();
    assert_eq!(p.per_entry("weights", 3).unwrap(), [1.0, 2.5, -3.0]);
    let e = p.per_entry("weights", 4).unwrap_err().to_string();
    assert_eq!(
        e,
        "engine.params.weights: expected one number or 4 (one per entry), got 3"
    );
    let e = parse(r#"{"weights": [1, "x"]}"#).unwrap_err().to_string();
    assert!(
        e.starts_with("engine.params.weights: entry 1: expected a number"),
        "{e}"
    );
    let e = parse(r#"{"weights": []}"#).unwrap_err().to_string();
    assert!(
        e.starts_with("engine.params.weights: expected a number or a list"),
        "{e}"
    );
}

/// A random walk `y ← y + U(−1, 1)`, one step per millisecond.
struct Walk;

impl Model for Walk {
    fn state(&self) -> Vec<StateVar> {
        vec![StateVar::new("y", 1, "1")]
    }
    fn initial_state(&self) -> Vec<f64> {
        vec![0.0]
    }
}

impl Discrete for Walk {
    fn period(&self) -> f64 {
        1e-3
    }
    fn step(&mut self, _n: u64, y: &[f64], next: &mut [f64], rng: &mut ChaCha8Rng) {
        next[0] = y[0] + rng.gen_range(-1.0..1.0);
    }
}

#[test]
fn maps_iterate_on_their_period_and_random_ones_follow_the_seed() {
    // 1 s of 1 ms iterations = 1000 iterations, sampled every 10 ms: 101 samples. The same
    // seed gives the same path bit for bit; another seed another path.
    let p = Progress::default();
    let run = |seed| {
        let o = SolverOptions {
            seed,
            ..opts(1.0, 0.01, 1e-6, 1e-9)
        };
        iterate(&mut Walk, &[0.0], &o, &p).unwrap()
    };
    let (a, b, c) = (run(7), run(7), run(8));
    assert_eq!(a.steps, 1000);
    assert_eq!(a.times.len(), 101);
    assert!((a.times[100] - 1.0).abs() < 1e-12);
    assert_eq!(a.values, b.values);
    assert_ne!(a.values, c.values);
}
