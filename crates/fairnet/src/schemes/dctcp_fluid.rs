//! DCTCP's fluid model (Alizadeh, Javanmard and Prabhakar, "Analysis of DCTCP: Stability,
//! Convergence, and Fairness", SIGMETRICS 2011, §3, eqs. (1)–(3)): `N` long-lived DCTCP flows
//! through one bottleneck of capacity `C` with an ECN marking threshold `K`.
//!
//! ```text
//! dWᵢ/dt = 1/R(t) − Wᵢ(t)·αᵢ(t)/(2R(t)) · p(t − R*)          (1)  window, packets
//! dαᵢ/dt = g/R(t) · (p(t − R*) − αᵢ(t))                        (2)  marked fraction estimate
//! dq/dt  = Σᵢ Wᵢ(t)/R(t) − C                                   (3)  queue, packets
//! p(t)   = 1{q(t) > K},   R(t) = d + q(t)/C,   R* = d + K/C
//! ```
//!
//! (1) is additive increase of one packet per RTT and, at rate `1/R` windows per second while
//! marks arrive, the decrease `W ← W(1 − α/2)` once per window; (2) is the EWMA
//! `α ← (1 − g)α + gF` once per window; the marks the sender sees were made one round trip
//! earlier, hence the delayed indicator. The solver sees `p(t − R*)` as a delayed
//! [`Switch`] on `q − K`, so each crossing of `K` is located and
//! the jump lands on a step boundary `R*` later.
//!
//! Choices where the model is silent or where the paper's text is not at hand (it is not in the
//! repository's papers; the equations above are its §3 model as it is widely restated):
//! - **Per-flow state.** The paper writes one `W` and one `α` for `N` synchronized flows; here
//!   each flow has its own `Wᵢ`, `αᵢ` and the queue sees their sum. With equal initial states
//!   this is exactly the paper's system (the flows stay equal); unequal ones show convergence.
//! - **Empty queue.** (3) is projected at `q = 0` (`dq/dt = 0` while the queue is empty and
//!   `ΣW/R ≤ C`), as the queue cannot go negative; two undelayed switches, on `q` and on
//!   `ΣW/R − C`, locate the instants it empties (where it is set to exactly 0) and starts to
//!   fill, so neither kink falls inside a step.
//! - **Delay.** `R*` is constant (`d + K/C`, the round trip when the queue sits at `K`), the
//!   approximation that makes (1)–(3) a constant-delay DDE.
//! - **Units.** Packets of `packet` wire bytes (default 1048 B: the packet engine's 1000 B
//!   payload plus 48 B of headers, so the two engines are compared like for like).
//! - **Defaults.** `g = 1/16` and `K = 65` packets at 10 Gb/s (DCTCP, SIGCOMM 2010, §3.4 and
//!   §4.1's guideline `K > C·RTT/7`); `d = 100 µs`; `N = 10`; initial `W = 10` packets (the
//!   packet engine's initial window), `α = 1` (as the packet engine's DCTCP), `q = 0`.

use crate::engine::model::{
    Continuous, Model, OutputSpec, ParamSpec, ParamUnit, Params, Past, Series, StateVar, Switch,
};
use crate::error::{Error, Result};

/// The parameters of [`DctcpFluid`], with their defaults.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "flows",
        unit: ParamUnit::Count,
        default: Some(10.0),
        doc: "number of long-lived flows N",
    },
    ParamSpec {
        name: "capacity",
        unit: ParamUnit::BitsPerSecond,
        default: Some(10e9),
        doc: "bottleneck capacity C (default 10 Gb/s, DCTCP §4)",
    },
    ParamSpec {
        name: "rtt",
        unit: ParamUnit::Seconds,
        default: Some(100e-6),
        doc: "round-trip propagation delay d, without queueing",
    },
    ParamSpec {
        name: "k",
        unit: ParamUnit::Number,
        default: Some(65.0),
        doc: "marking threshold K in packets (default 65, DCTCP §3.4 at 10 Gb/s)",
    },
    ParamSpec {
        name: "g",
        unit: ParamUnit::Number,
        default: Some(1.0 / 16.0),
        doc: "EWMA gain g (default 1/16, DCTCP §3.4)",
    },
    ParamSpec {
        name: "packet",
        unit: ParamUnit::Bytes,
        default: Some(1048.0),
        doc: "wire bytes per packet (default 1000 B payload + 48 B headers)",
    },
    ParamSpec {
        name: "link",
        unit: ParamUnit::Count,
        default: Some(0.0),
        doc: "the bottleneck's link id in a compared packet run (queues.parquet)",
    },
    ParamSpec {
        name: "per_flow",
        unit: ParamUnit::Count,
        default: Some(1.0),
        doc: "1: record every flow's W, alpha and rate; 0: only their means",
    },
];

/// The paper and equations, for `fairnet model list`.
pub const PAPER: &str =
    "Alizadeh, Javanmard, Prabhakar, Analysis of DCTCP, SIGMETRICS 2011, §3 eqs. (1)-(3)";
/// The model in one line.
pub const EQUATION: &str = "W' = 1/R - W·a/(2R)·p(t-R*), a' = g/R·(p(t-R*) - a), \
                            q' = N·W/R - C, p = 1{q > K}, R = d + q/C";

/// The DCTCP fluid model of one bottleneck (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpFluid {
    /// Flows `N`.
    pub flows: usize,
    /// Capacity, packets per second.
    pub c: f64,
    /// Propagation round trip `d`, seconds.
    pub d: f64,
    /// Marking threshold, packets.
    pub k: f64,
    /// EWMA gain.
    pub g: f64,
    /// Wire bytes per packet.
    pub packet: f64,
    /// Link id of the bottleneck in a compared run.
    pub link: u32,
    /// Record per-flow outputs.
    pub per_flow: bool,
}

/// Switch 0: marking, `q > K`, seen after `R*`.
const MARK: usize = 0;
/// Switch 1: the queue is not empty.
const BUSY: usize = 1;
/// Switch 2: the flows send faster than the link (the empty queue starts to fill).
const FILLING: usize = 2;

impl DctcpFluid {
    /// Builds the model from parsed parameters; ranges are checked here.
    pub fn new(p: &Params) -> Result<DctcpFluid> {
        let flows = p.positive("flows")? as usize;
        let packet = p.positive("packet")?;
        let k = p.get("k");
        if !(k >= 0.0 && k.is_finite()) {
            return Err(Error::invalid(
                "engine.params.k",
                format!("must be a non-negative number of packets, got {k}"),
            ));
        }
        let g = p.get("g");
        if !(g > 0.0 && g <= 1.0) {
            return Err(Error::invalid(
                "engine.params.g",
                format!("must be in (0, 1], got {g}"),
            ));
        }
        Ok(DctcpFluid {
            flows,
            c: p.positive("capacity")? / (8.0 * packet),
            d: p.positive("rtt")?,
            k,
            g,
            packet,
            link: p.get("link") as u32,
            per_flow: p.get("per_flow") != 0.0,
        })
    }

    /// `R* = d + K/C`, the delay of the marks.
    pub fn delay(&self) -> f64 {
        self.d + self.k / self.c
    }

    fn q(&self, y: &[f64]) -> f64 {
        y[2 * self.flows]
    }

    /// `Σ Wᵢ/R`, packets per second into the queue.
    fn inflow(&self, y: &[f64]) -> f64 {
        let r = self.d + self.q(y).max(0.0) / self.c;
        y[..self.flows].iter().sum::<f64>() / r
    }
}

impl Model for DctcpFluid {
    fn state(&self) -> Vec<StateVar> {
        vec![
            StateVar::new("W", self.flows, "packets"),
            StateVar::new("alpha", self.flows, "1"),
            StateVar::new("q", 1, "packets"),
        ]
    }

    fn initial_state(&self) -> Vec<f64> {
        let mut y = vec![10.0; self.flows];
        y.extend(std::iter::repeat_n(1.0, self.flows));
        y.push(0.0);
        y
    }

    fn outputs(&self) -> Vec<OutputSpec> {
        let mut out = vec![
            OutputSpec::plain("q", "packets"),
            OutputSpec {
                name: "queue_bytes".into(),
                unit: "bytes",
                series: Series::Queue {
                    link: self.link,
                    capacity_bps: self.c * 8.0 * self.packet,
                },
            },
            OutputSpec::plain("W_mean", "packets"),
            OutputSpec::plain("alpha_mean", "1"),
        ];
        if self.per_flow {
            for i in 0..self.flows {
                out.push(OutputSpec::plain(format!("W[{i}]"), "packets"));
                out.push(OutputSpec::plain(format!("alpha[{i}]"), "1"));
                out.push(OutputSpec {
                    name: format!("rate[{i}]"),
                    unit: "bit/s",
                    series: Series::Rate { flow: i as u32 },
                });
            }
        }
        out
    }

    fn output(&self, _t: f64, y: &[f64], out: &mut [f64]) {
        let n = self.flows;
        let q = self.q(y).max(0.0);
        let r = self.d + q / self.c;
        out[0] = q;
        out[1] = q * self.packet;
        out[2] = y[..n].iter().sum::<f64>() / n as f64;
        out[3] = y[n..2 * n].iter().sum::<f64>() / n as f64;
        if self.per_flow {
            for i in 0..n {
                out[4 + 3 * i] = y[i];
                out[5 + 3 * i] = y[n + i];
                out[6 + 3 * i] = y[i] * self.packet * 8.0 / r;
            }
        }
    }
}

impl Continuous for DctcpFluid {
    fn delays(&self) -> Vec<f64> {
        vec![self.delay()]
    }

    fn switches(&self) -> Vec<Switch> {
        vec![
            Switch {
                name: "mark: q > K".into(),
                delay: Some(0),
            },
            Switch {
                name: "busy: q > 0".into(),
                delay: None,
            },
            Switch {
                name: "filling: sum W/R > C".into(),
                delay: None,
            },
        ]
    }

    fn switch_value(&self, k: usize, _t: f64, y: &[f64]) -> f64 {
        match k {
            MARK => self.q(y) - self.k,
            BUSY => self.q(y),
            _ => self.inflow(y) - self.c,
        }
    }

    fn on_flip(&self, k: usize, on: bool, y: &mut [f64]) {
        if k == BUSY && !on {
            y[2 * self.flows] = 0.0;
        }
    }

    fn derivative(&self, _t: f64, y: &[f64], past: &Past<'_>, dy: &mut [f64]) {
        let n = self.flows;
        let q = self.q(y).max(0.0);
        let r = self.d + q / self.c;
        let p = if past.switch(MARK) { 1.0 } else { 0.0 };
        let (inv_r, cut, gain) = (1.0 / r, p / (2.0 * r), self.g / r);
        let (w, rest) = y.split_at(n);
        let (dw, drest) = dy.split_at_mut(n);
        let mut sum_w = 0.0;
        for i in 0..n {
            dw[i] = inv_r - w[i] * rest[i] * cut; // (1)
            drest[i] = gain * (p - rest[i]); // (2)
            sum_w += w[i];
        }
        let inflow = sum_w * inv_r;
        // (3), projected on q ≥ 0: an empty queue stays empty until the flows fill it.
        let filling = past.switch(BUSY) || past.switch(FILLING);
        dy[2 * n] = if filling { inflow - self.c } else { 0.0 };
    }
}

pub mod compare;

#[cfg(test)]
mod tests;
