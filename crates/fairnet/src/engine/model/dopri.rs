//! The Dormand–Prince 5(4) pair (Dormand and Prince, "A family of embedded Runge–Kutta
//! formulae", J. Comput. Appl. Math. 6(1), 1980, Table 2) with its free continuous extension
//! of order 4 (Hairer, Nørsett and Wanner, *Solving Ordinary Differential Equations I*, 2nd
//! ed., §II.6, the coefficients of their code DOPRI5's `CONTD5`), the same pair as MATLAB's
//! `ode45` and SciPy's `RK45`.
//!
//! Seven stages, the last evaluated at the new point ("first same as last": it is the next
//! step's first stage). The error estimate is the difference of the 5th- and 4th-order
//! solutions, `h·Σ eᵢkᵢ`; the step is advanced with the 5th-order one (local extrapolation).

/// Nodes `c₂ … c₇`.
pub const C: [f64; 7] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0];

/// The lower-triangular matrix `a`, row `i` holding `aᵢ₁ … aᵢ,ᵢ₋₁`.
pub const A: [&[f64]; 7] = [
    &[],
    &[1.0 / 5.0],
    &[3.0 / 40.0, 9.0 / 40.0],
    &[44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0],
    &[
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
    ],
    &[
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
    ],
    // The 5th-order weights: stage 7 is evaluated at the new solution.
    &[
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];

/// Error weights `eᵢ = bᵢ − b̂ᵢ` (5th minus 4th order).
pub const E: [f64; 7] = [
    71.0 / 57600.0,
    0.0,
    -71.0 / 16695.0,
    71.0 / 1920.0,
    -17253.0 / 339200.0,
    22.0 / 525.0,
    -1.0 / 40.0,
];

/// Dense-output weights `dᵢ` (Hairer et al.'s `CONTD5` coefficients).
pub const D: [f64; 7] = [
    -12715105075.0 / 11282082432.0,
    0.0,
    87487479700.0 / 32700410799.0,
    -10690763975.0 / 1880347072.0,
    701980252875.0 / 199316789632.0,
    -1453857185.0 / 822651844.0,
    69997945.0 / 29380423.0,
];

/// The stage vectors and scratch space of one integration, allocated once.
pub struct Stages {
    /// `k₁ … k₇` (`k₁` is the derivative at the step's start).
    pub k: [Vec<f64>; 7],
    /// The argument of the stage being evaluated.
    pub arg: Vec<f64>,
    /// The 5th-order solution at the step's end.
    pub y_new: Vec<f64>,
}

impl Stages {
    /// Space for a state of `n` entries.
    pub fn new(n: usize) -> Stages {
        Stages {
            k: std::array::from_fn(|_| vec![0.0; n]),
            arg: vec![0.0; n],
            y_new: vec![0.0; n],
        }
    }

    /// Takes one step of size `h` from `(t, y)` with `k₁ = f(t, y)` already in `k[0]`;
    /// `f(t, y, dy)` is the right-hand side. Leaves the new solution in `y_new`, `f` at it in
    /// `k[6]`, and returns the scaled RMS error norm (Hairer et al. eq. II.4.11): accept when
    /// at most 1.
    pub fn step(
        &mut self,
        t: f64,
        h: f64,
        y: &[f64],
        rtol: f64,
        atol: f64,
        mut f: impl FnMut(f64, &[f64], &mut [f64]),
    ) -> f64 {
        let n = y.len();
        // Stage arguments and the error as sums of scaled stage vectors, one vector at a time
        // (contiguous loops the compiler vectorizes).
        for s in 1..7 {
            let (done, rest) = self.k.split_at_mut(s);
            self.arg.copy_from_slice(y);
            for (j, &a) in A[s].iter().enumerate() {
                if a != 0.0 {
                    axpy(&mut self.arg, h * a, &done[j]);
                }
            }
            if s == 6 {
                self.y_new.copy_from_slice(&self.arg);
            }
            f(t + C[s] * h, &self.arg, &mut rest[0]);
        }
        // The error vector reuses `arg`.
        self.arg.fill(0.0);
        for (j, &e) in E.iter().enumerate() {
            if e != 0.0 {
                axpy(&mut self.arg, h * e, &self.k[j]);
            }
        }
        let mut sum = 0.0;
        for i in 0..n {
            let scale = atol + rtol * y[i].abs().max(self.y_new[i].abs());
            let r = self.arg[i] / scale;
            sum += r * r;
        }
        if n == 0 {
            0.0
        } else {
            (sum / n as f64).sqrt()
        }
    }

    /// The dense-output coefficients of the step just taken (`y` its start, `y_new` its end),
    /// written into `out` as five consecutive blocks of `n`: `r₁ … r₅` of
    /// `y(t + θh) = r₁ + θ(r₂ + (1−θ)(r₃ + θ(r₄ + (1−θ)r₅)))`.
    pub fn dense(&self, h: f64, y: &[f64], out: &mut [f64]) {
        let n = y.len();
        let (r1, rest) = out.split_at_mut(n);
        let (r2, rest) = rest.split_at_mut(n);
        let (r3, rest) = rest.split_at_mut(n);
        let (r4, r5) = rest.split_at_mut(n);
        r1.copy_from_slice(y);
        for i in 0..n {
            let dy = self.y_new[i] - y[i];
            let bspl = h * self.k[0][i] - dy;
            r2[i] = dy;
            r3[i] = bspl;
            r4[i] = dy - h * self.k[6][i] - bspl;
        }
        r5.fill(0.0);
        for (j, &d) in D.iter().enumerate() {
            if d != 0.0 {
                axpy(r5, h * d, &self.k[j]);
            }
        }
    }
}

/// `y += a·x`.
#[inline]
fn axpy(y: &mut [f64], a: f64, x: &[f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// Entry `i` at `θ ∈ [0, 1]` of a step's dense output written by [`Stages::dense`].
#[inline]
pub fn dense_value(coef: &[f64], n: usize, i: usize, theta: f64) -> f64 {
    let t1 = 1.0 - theta;
    coef[i]
        + theta
            * (coef[n + i]
                + t1 * (coef[2 * n + i] + theta * (coef[3 * n + i] + t1 * coef[4 * n + i])))
}
