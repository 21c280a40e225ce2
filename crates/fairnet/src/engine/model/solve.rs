//! The solvers: Dormand–Prince 5(4) with error control for ODEs and, with a dense history, for
//! DDEs with constant delays; plain iteration for maps.
//!
//! **Continuous models** ([`solve_continuous`]). Each step is one Dormand–Prince 5(4) step
//! ([`super::dopri`]) accepted when its scaled RMS error is at most 1 (`rtol`, `atol`), with
//! the standard step-size update `h ← h·min(5, max(0.2, 0.9·err^(−1/5)))` (Hairer et al. I,
//! §II.4) and no growth right after a rejection. For a DDE this is the method of steps with
//! dense output, as MATLAB's `dde23` does (Shampine and Thompson, "Solving DDEs in MATLAB",
//! Appl. Numer. Math. 37, 2001, §2–3):
//!
//! - every accepted step's continuous extension (order 4) is kept while it is younger than the
//!   longest delay, so `y(t − τ)` is read from it (or from the model's history before 0);
//! - a step is never longer than the shortest delay, so no stage needs the step being taken;
//! - the solver lands a step on every breakpoint: the points `m·τⱼ` (`m = 1 … 5`, the order
//!   of the method) where the jump of the history's derivative at 0 propagates, and the points
//!   `crossing + delay` where a delayed [`super::Switch`] flips.
//!
//! Switches ([`super::Switch`]): after each accepted step the sign of every `g_k` is compared
//! with its sign at the step's start; a change is located by bisection on the dense output (to
//! 1e-12 of the step). A delayed switch flips at `crossing + delay` (a breakpoint); an
//! undelayed one ends the step: it is redone to end at the crossing, where the switch flips.
//! Between flips each switch is constant, so every step integrates a smooth right-hand side.
//!
//! A solution that leaves the finite numbers, or whose step size shrinks below 1e-12 of the
//! time reached, stops the run: the failure names the time and the variable, and the samples
//! up to there are kept.
//!
//! **Maps** ([`iterate`]): `y ← F(n, y)` once per period, the random ones drawing from a
//! ChaCha8 generator seeded by the run's seed.

use super::dopri::{dense_value, Stages};
use super::{state_name, Continuous, Discrete, OutputSpec, Past, StateVar};
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::units::Time;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::time::Instant;

/// How to solve: horizon, output grid, tolerances.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverOptions {
    /// End time, seconds (> 0).
    pub horizon: f64,
    /// Time between recorded outputs, seconds (> 0).
    pub output_interval: f64,
    /// Relative tolerance of the local error.
    pub rtol: f64,
    /// Absolute tolerance of the local error.
    pub atol: f64,
    /// Longest step, seconds (`None`: no limit beyond the shortest delay).
    pub max_step: Option<f64>,
    /// Seed of a random model.
    pub seed: u64,
}

impl Default for SolverOptions {
    fn default() -> SolverOptions {
        SolverOptions {
            horizon: 1.0,
            output_interval: 1e-3,
            rtol: DEFAULT_RTOL,
            atol: DEFAULT_ATOL,
            max_step: None,
            seed: 1,
        }
    }
}

/// Default relative tolerance.
pub const DEFAULT_RTOL: f64 = 1e-6;
/// Default absolute tolerance.
pub const DEFAULT_ATOL: f64 = 1e-9;

/// What a model run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelRun {
    /// The outputs, in column order.
    pub outputs: Vec<OutputSpec>,
    /// Output times, seconds.
    pub times: Vec<f64>,
    /// Output values, one row of `outputs.len()` per time.
    pub values: Vec<f64>,
    /// The state at the end.
    pub state: Vec<f64>,
    /// Time reached, seconds.
    pub end_time: f64,
    /// Accepted steps (iterations of a map).
    pub steps: u64,
    /// Rejected steps.
    pub rejected: u64,
    /// Evaluations of the derivative.
    pub evaluations: u64,
    /// Located switch crossings.
    pub crossings: u64,
    /// Why the run stopped early (blow-up), if it did; the samples before are kept.
    pub failure: Option<String>,
    /// Whether the run reached its horizon.
    pub complete: bool,
    /// Wall-clock seconds of the solve.
    pub wall_seconds: f64,
}

impl ModelRun {
    /// The column of output `name`, if there is one.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let j = self.outputs.iter().position(|o| o.name == name)?;
        let w = self.outputs.len();
        Some(self.values.iter().skip(j).step_by(w).copied().collect())
    }
}

/// Checks the common options; errors name the scenario field.
fn check_options(o: &SolverOptions) -> Result<()> {
    if !(o.horizon > 0.0 && o.horizon.is_finite()) {
        return Err(Error::invalid(
            "engine.horizon",
            format!("must be positive, got {} s", o.horizon),
        ));
    }
    if !(o.output_interval > 0.0 && o.output_interval.is_finite()) {
        return Err(Error::invalid(
            "engine.output_interval",
            format!("must be positive, got {} s", o.output_interval),
        ));
    }
    for (name, v) in [("rtol", o.rtol), ("atol", o.atol)] {
        if !(v > 0.0 && v < 1.0) {
            return Err(Error::invalid(
                format!("engine.{name}"),
                format!("must be in (0, 1), got {v}"),
            ));
        }
    }
    if let Some(h) = o.max_step {
        if !(h > 0.0 && h.is_finite()) {
            return Err(Error::invalid(
                "engine.max_step",
                format!("must be positive, got {h} s"),
            ));
        }
    }
    Ok(())
}

/// Checks an initial state against the model's layout: one finite number per entry.
pub fn check_state(vars: &[StateVar], y: &[f64]) -> Result<()> {
    let n: usize = vars.iter().map(|v| v.len).sum();
    if y.len() != n {
        return Err(Error::invalid(
            "engine.initial",
            format!("the model has {n} state entries, got {}", y.len()),
        ));
    }
    if let Some(i) = y.iter().position(|v| !v.is_finite()) {
        return Err(Error::invalid(
            format!("engine.initial.{}", state_name(vars, i)),
            format!("must be a finite number, got {}", y[i]),
        ));
    }
    Ok(())
}

/// The dense output of the accepted steps younger than the longest delay.
pub struct History {
    n: usize,
    keep: f64,
    starts: VecDeque<f64>,
    lengths: VecDeque<f64>,
    coefs: VecDeque<Vec<f64>>,
    spare: Vec<Vec<f64>>,
}

impl History {
    fn new(n: usize, keep: f64) -> History {
        History {
            n,
            keep,
            starts: VecDeque::new(),
            lengths: VecDeque::new(),
            coefs: VecDeque::new(),
            spare: Vec::new(),
        }
    }

    /// Keeps the step `[t, t + h]` with dense coefficients `coef`, and forgets the steps that
    /// ended more than the longest delay before `t + h`.
    fn push(&mut self, t: f64, h: f64, coef: &[f64]) {
        if self.keep <= 0.0 {
            return;
        }
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(coef);
        self.starts.push_back(t);
        self.lengths.push_back(h);
        self.coefs.push_back(buf);
        let horizon = t + h - self.keep;
        while self.starts.len() > 1 && self.starts[0] + self.lengths[0] < horizon {
            self.starts.pop_front();
            self.lengths.pop_front();
            self.spare.extend(self.coefs.pop_front());
        }
    }

    /// Entry `i` of the solution at `at` (within the kept steps).
    pub fn value(&self, at: f64, i: usize) -> f64 {
        let s = self.starts.partition_point(|&t0| t0 <= at).max(1) - 1;
        let theta = ((at - self.starts[s]) / self.lengths[s]).clamp(0.0, 1.0);
        dense_value(&self.coefs[s], self.n, i, theta)
    }
}

/// A switch flip due at `time`.
#[derive(Clone, Copy, Debug)]
struct Flip {
    time: f64,
    switch: usize,
    on: bool,
}

/// Solves a continuous model from `y0` at time 0 over `[0, horizon]`, recording its outputs on
/// the grid `0, Δ, 2Δ, …` (see the module doc). Bad options and a bad initial state are errors;
/// a blow-up is a [`ModelRun::failure`] with what was computed.
pub fn solve_continuous(
    model: &dyn Continuous,
    y0: &[f64],
    o: &SolverOptions,
    progress: &Progress,
) -> Result<ModelRun> {
    let wall = Instant::now();
    check_options(o)?;
    let vars = model.state();
    check_state(&vars, y0)?;
    let delays = model.delays();
    for (j, &d) in delays.iter().enumerate() {
        if !(d > 0.0 && d.is_finite()) {
            return Err(Error::invalid(
                "engine.params",
                format!("the model's delay {j} must be positive, got {d} s"),
            ));
        }
    }
    let switches = model.switches();
    let n = y0.len();
    let tau_min = delays.iter().copied().fold(f64::INFINITY, f64::min);
    let tau_max = delays.iter().copied().fold(0.0, f64::max);
    let mut history = History::new(n, tau_max);

    // Breakpoints: the propagated jumps of the history's derivative, then switch flips.
    let mut breaks: Vec<f64> = Vec::new();
    for &d in &delays {
        for m in 1..=5 {
            if m as f64 * d < o.horizon {
                breaks.push(m as f64 * d);
            }
        }
    }
    breaks.sort_by(f64::total_cmp);
    breaks.dedup();
    breaks.reverse(); // popped from the back, earliest first
    let mut flips: Vec<Flip> = Vec::new(); // sorted by time, latest first

    // Each switch starts as its g sees the state at (−delay), the history.
    let hist_at = |t: f64| -> Vec<f64> {
        (0..n)
            .map(|i| model.history(t, i).unwrap_or(y0[i]))
            .collect()
    };
    let mut mode: Vec<bool> = switches
        .iter()
        .enumerate()
        .map(|(k, s)| match s.delay {
            Some(j) => {
                let at = -delays[j];
                model.switch_value(k, at, &hist_at(at)) > 0.0
            }
            None => model.switch_value(k, 0.0, y0) > 0.0,
        })
        .collect();
    let mut g_prev: Vec<f64> = (0..switches.len())
        .map(|k| model.switch_value(k, 0.0, y0))
        .collect();

    let outputs = model.outputs();
    let width = outputs.len();
    let mut run = ModelRun {
        outputs,
        times: Vec::new(),
        values: Vec::new(),
        state: y0.to_vec(),
        end_time: 0.0,
        steps: 0,
        rejected: 0,
        evaluations: 0,
        crossings: 0,
        failure: None,
        complete: false,
        wall_seconds: 0.0,
    };
    let mut row = vec![0.0; width];
    let record = |run: &mut ModelRun, row: &mut [f64], t: f64, y: &[f64]| {
        model.output(t, y, row);
        run.times.push(t);
        run.values.extend_from_slice(row);
    };
    let samples = (o.horizon / o.output_interval + 1e-9).floor() as u64;
    let sample_time = |m: u64| (m as f64 * o.output_interval).min(o.horizon);
    record(&mut run, &mut row, 0.0, y0);
    let mut next_sample = 1u64;

    let mut stages = Stages::new(n);
    let mut y = y0.to_vec();
    let mut t = 0.0;
    let mut dense = vec![0.0; 5 * n];
    let mut scratch = vec![0.0; n];
    let eval = |t: f64, y: &[f64], dy: &mut [f64], mode: &[bool], h: &History| {
        let past = Past {
            t,
            delays: &delays,
            history: h,
            model,
            y0,
            switches: mode,
        };
        model.derivative(t, y, &past, dy);
    };
    eval(t, &y, &mut stages.k[0], &mode, &history);
    run.evaluations += 1;

    // Initial step (Hairer et al. I, §II.4, the first guess): 1% of |y|/|y'|.
    let norm = |v: &[f64], y: &[f64]| {
        let s: f64 = v
            .iter()
            .zip(y)
            .map(|(a, b)| (a / (o.atol + o.rtol * b.abs())).powi(2))
            .sum();
        (s / n.max(1) as f64).sqrt()
    };
    let (d0, d1) = (norm(&y, &y), norm(&stages.k[0], &y));
    // The controller's step size; a step is shorter only to land on a stop.
    let mut h_ctrl = if d0 < 1e-5 || d1 < 1e-5 {
        1e-6 * o.horizon
    } else {
        0.01 * d0 / d1
    };
    let mut just_rejected = false;
    // No step is longer than the shortest delay (every stage reads a finished step).
    let h_max = tau_min.min(o.max_step.unwrap_or(f64::INFINITY));

    while t < o.horizon {
        let next_break = breaks.last().copied().unwrap_or(f64::INFINITY);
        let next_flip = flips.last().map_or(f64::INFINITY, |f| f.time);
        // The next stop: the horizon, a breakpoint, or a flip (including the crossing a cut
        // step is redone to end at).
        let stop = o.horizon.min(next_break).min(next_flip);
        h_ctrl = h_ctrl.min(h_max);
        // Land exactly on the next stop rather than leave a sliver before it.
        let h = if t + 1.01 * h_ctrl >= stop && stop - t <= h_max {
            stop - t
        } else {
            h_ctrl
        };
        let err = {
            let (mode_ref, hist) = (&mode, &history);
            stages.step(t, h, &y, o.rtol, o.atol, |ts, ys, dy| {
                eval(ts, ys, dy, mode_ref, hist)
            })
        };
        run.evaluations += 6;
        let finite = err.is_finite() && stages.y_new.iter().all(|v| v.is_finite());
        if !finite || err > 1.0 {
            run.rejected += 1;
            h_ctrl = h * if finite {
                (0.9 * err.powf(-0.2)).max(0.2)
            } else {
                0.2
            };
            just_rejected = true;
            if h_ctrl < 1e-12 * t.max(o.output_interval) {
                run.failure = Some(blow_up(&vars, t, &y, y0));
                break;
            }
            continue;
        }
        stages.dense(h, &y, &mut dense);

        // Switch crossings within the step: an undelayed one cuts the step (it is redone to
        // end at the crossing), a delayed one becomes a flip at crossing + delay.
        let t_new = t + h;
        let mut crossing = |k: usize| -> Option<(f64, bool)> {
            let g_new = model.switch_value(k, t_new, &stages.y_new);
            if (g_new > 0.0) == (g_prev[k] > 0.0) {
                return None;
            }
            let theta = locate(|th| {
                for i in 0..n {
                    scratch[i] = dense_value(&dense, n, i, th);
                }
                model.switch_value(k, t + th * h, &scratch)
            });
            Some((t + theta * h, g_new > 0.0))
        };
        let mut cut: Option<(f64, usize, bool)> = None;
        for (k, s) in switches.iter().enumerate() {
            let pending = flips.iter().any(|f| f.switch == k);
            if s.delay.is_some() || pending {
                continue;
            }
            if let Some((at, on)) = crossing(k) {
                if at < t_new && cut.is_none_or(|(c, _, _)| at < c) {
                    cut = Some((at, k, on));
                }
            }
        }
        if let Some((at, switch, on)) = cut {
            let pos = flips.partition_point(|f| f.time > at);
            flips.insert(
                pos,
                Flip {
                    time: at,
                    switch,
                    on,
                },
            );
            run.crossings += 1;
            continue;
        }
        for (k, s) in switches.iter().enumerate() {
            let Some(j) = s.delay else { continue };
            if let Some((at, on)) = crossing(k) {
                let flip = Flip {
                    time: at + delays[j],
                    switch: k,
                    on,
                };
                let pos = flips.partition_point(|f| f.time > flip.time);
                flips.insert(pos, flip);
                run.crossings += 1;
            }
        }
        for k in 0..switches.len() {
            g_prev[k] = model.switch_value(k, t_new, &stages.y_new);
        }

        // Record the output times inside the step from its dense output.
        while next_sample <= samples && sample_time(next_sample) <= t_new {
            let ts = sample_time(next_sample);
            let th = ((ts - t) / h).clamp(0.0, 1.0);
            for i in 0..n {
                scratch[i] = dense_value(&dense, n, i, th);
            }
            record(&mut run, &mut row, ts, &scratch);
            next_sample += 1;
        }
        history.push(t, h, &dense);
        t = if t_new >= stop { stop } else { t_new };
        std::mem::swap(&mut y, &mut stages.y_new);
        run.steps += 1;

        // Breakpoints reached: flip the switches due now; a flip invalidates "first same as
        // last" (the derivative changes at t).
        while breaks.last().is_some_and(|&b| b <= t) {
            breaks.pop();
        }
        let mut flipped = false;
        while flips.last().is_some_and(|f| f.time <= t) {
            let f = flips.pop().unwrap();
            if mode[f.switch] != f.on {
                mode[f.switch] = f.on;
                flipped = true;
            }
            if switches[f.switch].delay.is_none() {
                // At the crossing g is zero: the model may put the state on the surface
                // (a queue that empties is exactly 0), and g is taken on the side the switch
                // is now on.
                model.on_flip(f.switch, f.on, &mut y);
                g_prev[f.switch] = if f.on { f64::MIN_POSITIVE } else { -0.0 };
                flipped = true;
            }
        }
        if flipped {
            eval(t, &y, &mut stages.k[0], &mode, &history);
            run.evaluations += 1;
        } else {
            stages.k.swap(0, 6);
        }
        // Grow from the step taken, but never below the controller's step when the step was
        // only shortened to land on a stop.
        if !just_rejected {
            let proposed = h * (0.9 * err.max(1e-10).powf(-0.2)).min(5.0);
            h_ctrl = if h < h_ctrl {
                h_ctrl.max(proposed)
            } else {
                proposed
            };
        }
        just_rejected = false;
        if run.steps % 1024 == 0 && !progress.update(Time::from_secs_f64(t), run.steps, 0) {
            break;
        }
    }
    run.state = y;
    run.end_time = t;
    run.complete = run.failure.is_none() && t >= o.horizon;
    run.wall_seconds = wall.elapsed().as_secs_f64();
    Ok(run)
}

/// The θ in `(0, 1]` where `g(θ)` changes sign (`g(0)` and `g(1)` differ in sign), to 1e-12:
/// the Illinois variant of regula falsi (Dowell and Jarratt, BIT 11, 1971), which converges
/// superlinearly where bisection would need 40 evaluations, falling back to bisection when the
/// secant leaves the bracket. Returns a point on the far side of the change.
fn locate(mut g: impl FnMut(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let (mut g_lo, mut g_hi) = (g(lo), g(hi));
    let left_on = g_lo > 0.0;
    let mut kept = 0i8; // which end was kept last: -1 low, 1 high
    for _ in 0..200 {
        if hi - lo <= 1e-12 {
            break;
        }
        let secant = lo - g_lo * (hi - lo) / (g_hi - g_lo);
        let mid = if secant > lo && secant < hi && secant.is_finite() {
            secant
        } else {
            0.5 * (lo + hi)
        };
        let g_mid = g(mid);
        if (g_mid > 0.0) == left_on {
            lo = mid;
            g_lo = g_mid;
            if kept == 1 {
                g_hi *= 0.5;
            }
            kept = 1;
        } else {
            hi = mid;
            g_hi = g_mid;
            if kept == -1 {
                g_lo *= 0.5;
            }
            kept = -1;
        }
    }
    hi
}

/// The failure message of a solution that left the finite numbers: the time and the variable
/// that grew the most relative to its start.
fn blow_up(vars: &[StateVar], t: f64, y: &[f64], y0: &[f64]) -> String {
    let growth = |i: usize| y[i].abs() / (1.0 + y0[i].abs());
    let worst = (0..y.len())
        .max_by(|&a, &b| growth(a).total_cmp(&growth(b)))
        .unwrap_or(0);
    format!(
        "the solution blows up at t = {t:.6e} s: {} = {:.3e} (the step size fell below 1e-12 of the time)",
        state_name(vars, worst),
        y.get(worst).copied().unwrap_or(f64::NAN)
    )
}

/// Iterates a map from `y0` for `horizon / period` iterations, recording its outputs every
/// `output_interval` (rounded to whole iterations, at least one).
pub fn iterate(
    model: &mut dyn Discrete,
    y0: &[f64],
    o: &SolverOptions,
    progress: &Progress,
) -> Result<ModelRun> {
    let wall = Instant::now();
    check_options(o)?;
    let vars = model.state();
    check_state(&vars, y0)?;
    let period = model.period();
    if !(period > 0.0 && period.is_finite()) {
        return Err(Error::invalid(
            "engine.params",
            format!("the model's period must be positive, got {period} s"),
        ));
    }
    let iterations = (o.horizon / period + 1e-9).floor() as u64;
    let every = ((o.output_interval / period).round() as u64).max(1);
    let outputs = model.outputs();
    let mut row = vec![0.0; outputs.len()];
    let mut run = ModelRun {
        outputs,
        times: Vec::new(),
        values: Vec::new(),
        state: Vec::new(),
        end_time: 0.0,
        steps: 0,
        rejected: 0,
        evaluations: 0,
        crossings: 0,
        failure: None,
        complete: false,
        wall_seconds: 0.0,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(o.seed);
    let mut y = y0.to_vec();
    let mut next = y0.to_vec();
    model.output(0.0, &y, &mut row);
    run.times.push(0.0);
    run.values.extend_from_slice(&row);
    for it in 0..iterations {
        model.step(it, &y, &mut next, &mut rng);
        let t = (it + 1) as f64 * period;
        if let Some(i) = next.iter().position(|v| !v.is_finite()) {
            run.failure = Some(format!(
                "the solution blows up at iteration {} (t = {t:.6e} s): {} = {}",
                it + 1,
                state_name(&vars, i),
                next[i]
            ));
            break;
        }
        std::mem::swap(&mut y, &mut next);
        run.steps += 1;
        run.end_time = t;
        if (it + 1) % every == 0 {
            model.output(t, &y, &mut row);
            run.times.push(t);
            run.values.extend_from_slice(&row);
        }
        if (it + 1) % (1 << 16) == 0 && !progress.update(Time::from_secs_f64(t), it + 1, 0) {
            break;
        }
    }
    run.evaluations = run.steps;
    run.state = y;
    run.complete = run.failure.is_none() && run.steps == iterations;
    run.wall_seconds = wall.elapsed().as_secs_f64();
    Ok(run)
}
