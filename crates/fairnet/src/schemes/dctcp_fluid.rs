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
//!   The system ([`EcnWindowFluid`]) also takes a per-flow increase, cut scale and round trip,
//!   so that the weighted laws built on DCTCP (Uranus's WVCC and AC/DC,
//!   `systems::uranus::model`) are this model with other coefficients, not copies of it.
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

/// The parameters of `dctcp_fluid` ([`EcnWindowFluid::dctcp`]), with their defaults.
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

/// The parameter `k`, a marking threshold in packets: non-negative and finite.
pub fn marking_threshold(p: &Params) -> Result<f64> {
    let k = p.get("k");
    if !(k >= 0.0 && k.is_finite()) {
        return Err(Error::invalid(
            "engine.params.k",
            format!("must be a non-negative number of packets, got {k}"),
        ));
    }
    Ok(k)
}

/// The bottleneck every flow of an [`EcnWindowFluid`] shares.
#[derive(Clone, Debug, PartialEq)]
pub struct Bottleneck {
    /// Capacity, packets per second.
    pub c: f64,
    /// Marking threshold, packets.
    pub k: f64,
    /// EWMA gain.
    pub g: f64,
    /// Wire bytes per packet.
    pub packet: f64,
    /// Link id of the bottleneck in a compared run.
    pub link: u32,
}

/// `N` window flows reacting to one bottleneck's ECN marks DCTCP's way, each with its own
/// additive increase, cut scale and propagation round trip: DCTCP's (1)–(3) (increase 1, cut
/// 1, one `d`) and its weighted descendants (Uranus's WVCC, Eq. 8: increase `wᵢ`; AC/DC,
/// Eq. 17: cut `1 − βᵢ/2`; `systems::uranus::model`) are this one system:
///
/// ```text
/// dWᵢ/dt = (increaseᵢ − Wᵢ·αᵢ·cutᵢ·p(t − Rᵢ*)/2) / Rᵢ(t),   Rᵢ(t) = dᵢ + q/C,   Rᵢ* = dᵢ + K/C
/// dαᵢ/dt = g/Rᵢ(t) · (p(t − Rᵢ*) − αᵢ),   dq/dt = Σᵢ Wᵢ/Rᵢ(t) − C
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct EcnWindowFluid {
    /// Per flow: packets added per round trip.
    pub increase: Vec<f64>,
    /// Per flow: the scale of the `α/2` cut.
    pub cut: Vec<f64>,
    /// Per flow: propagation round trip `dᵢ`, seconds.
    pub d: Vec<f64>,
    /// The shared bottleneck.
    pub link: Bottleneck,
    /// Record the mean window and α (`W_mean`, `alpha_mean`).
    pub means: bool,
    /// Record every flow's window, α and rate.
    pub per_flow: bool,
    /// The distinct mark delays `dⱼ + K/C` (one delayed switch each) …
    delays: Vec<f64>,
    /// … and which of them each flow sees.
    delay_of: Vec<usize>,
}

impl EcnWindowFluid {
    /// The system of the given per-flow laws; outputs per flow, no means.
    pub fn new(increase: Vec<f64>, cut: Vec<f64>, d: Vec<f64>, link: Bottleneck) -> Self {
        let mut delays: Vec<f64> = Vec::new();
        let mut delay_of = Vec::with_capacity(d.len());
        for &di in &d {
            let r = di + link.k / link.c;
            let j = delays.iter().position(|&x| x == r).unwrap_or_else(|| {
                delays.push(r);
                delays.len() - 1
            });
            delay_of.push(j);
        }
        EcnWindowFluid {
            increase,
            cut,
            d,
            link,
            means: false,
            per_flow: true,
            delays,
            delay_of,
        }
    }

    /// DCTCP's model (1)–(3) from parsed `dctcp_fluid` parameters; ranges are checked here.
    pub fn dctcp(p: &Params) -> Result<EcnWindowFluid> {
        let flows = p.positive("flows")? as usize;
        let packet = p.positive("packet")?;
        let link = Bottleneck {
            c: p.positive("capacity")? / (8.0 * packet),
            k: marking_threshold(p)?,
            g: p.get("g"),
            packet,
            link: p.get("link") as u32,
        };
        if !(link.g > 0.0 && link.g <= 1.0) {
            return Err(Error::invalid(
                "engine.params.g",
                format!("must be in (0, 1], got {}", link.g),
            ));
        }
        let mut m = EcnWindowFluid::dctcp_flows(flows, p.positive("rtt")?, link);
        m.per_flow = p.get("per_flow") != 0.0;
        Ok(m)
    }

    /// DCTCP's model (1)–(3): `flows` flows of round trip `d`, recording the means and every
    /// flow.
    pub fn dctcp_flows(flows: usize, d: f64, link: Bottleneck) -> EcnWindowFluid {
        let mut m = EcnWindowFluid::new(vec![1.0; flows], vec![1.0; flows], vec![d; flows], link);
        m.means = true;
        m
    }

    /// Number of flows.
    pub fn flows(&self) -> usize {
        self.increase.len()
    }

    /// `Rᵢ* = dᵢ + K/C`, the delay of flow `i`'s marks.
    pub fn delay(&self, i: usize) -> f64 {
        self.delays[self.delay_of[i]]
    }

    /// Flow `i`'s round trip at queue `q`: `Rᵢ = dᵢ + q/C`.
    fn r(&self, i: usize, q: f64) -> f64 {
        self.d[i] + q.max(0.0) / self.link.c
    }

    fn q(&self, y: &[f64]) -> f64 {
        y[2 * self.flows()]
    }

    /// `Σ Wᵢ/Rᵢ`, packets per second into the queue.
    fn inflow(&self, y: &[f64]) -> f64 {
        let q = self.q(y);
        (0..self.flows()).map(|i| y[i] / self.r(i, q)).sum()
    }

    /// Index of the switch "the queue is not empty" (after one mark switch per delay).
    fn busy(&self) -> usize {
        self.delays.len()
    }
}

impl Model for EcnWindowFluid {
    fn state(&self) -> Vec<StateVar> {
        let n = self.flows();
        vec![
            StateVar::new("W", n, "packets"),
            StateVar::new("alpha", n, "1"),
            StateVar::new("q", 1, "packets"),
        ]
    }

    /// `W = 10` packets (the packet engine's initial window), `α = 1` (as its DCTCP), `q = 0`.
    fn initial_state(&self) -> Vec<f64> {
        let n = self.flows();
        let mut y = vec![10.0; n];
        y.extend(std::iter::repeat_n(1.0, n));
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
                    link: self.link.link,
                    capacity_bps: self.link.c * 8.0 * self.link.packet,
                },
            },
        ];
        if self.means {
            out.push(OutputSpec::plain("W_mean", "packets"));
            out.push(OutputSpec::plain("alpha_mean", "1"));
        }
        if self.per_flow {
            for i in 0..self.flows() {
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
        let n = self.flows();
        let q = self.q(y).max(0.0);
        out[0] = q;
        out[1] = q * self.link.packet;
        let mut at = 2;
        if self.means {
            out[2] = y[..n].iter().sum::<f64>() / n as f64;
            out[3] = y[n..2 * n].iter().sum::<f64>() / n as f64;
            at = 4;
        }
        if self.per_flow {
            for i in 0..n {
                out[at + 3 * i] = y[i];
                out[at + 1 + 3 * i] = y[n + i];
                out[at + 2 + 3 * i] = y[i] * self.link.packet * 8.0 / self.r(i, q);
            }
        }
    }
}

impl Continuous for EcnWindowFluid {
    fn delays(&self) -> Vec<f64> {
        self.delays.clone()
    }

    /// One marking switch `q > K` per distinct delay `Rⱼ*`, then "the queue is not empty" and
    /// "the flows send faster than the link" (undelayed).
    fn switches(&self) -> Vec<Switch> {
        let mut s: Vec<Switch> = (0..self.delays.len())
            .map(|j| Switch {
                name: format!("mark: q > K, seen after {:.3e} s", self.delays[j]),
                delay: Some(j),
            })
            .collect();
        s.push(Switch {
            name: "busy: q > 0".into(),
            delay: None,
        });
        s.push(Switch {
            name: "filling: sum W/R > C".into(),
            delay: None,
        });
        s
    }

    fn switch_value(&self, k: usize, _t: f64, y: &[f64]) -> f64 {
        let busy = self.busy();
        if k < busy {
            self.q(y) - self.link.k
        } else if k == busy {
            self.q(y)
        } else {
            self.inflow(y) - self.link.c
        }
    }

    fn on_flip(&self, k: usize, on: bool, y: &mut [f64]) {
        if k == self.busy() && !on {
            let n = self.flows();
            y[2 * n] = 0.0;
        }
    }

    fn derivative(&self, _t: f64, y: &[f64], past: &Past<'_>, dy: &mut [f64]) {
        let n = self.flows();
        let q = self.q(y).max(0.0);
        let (w, rest) = y.split_at(n);
        let (dw, drest) = dy.split_at_mut(n);
        let mut inflow = 0.0;
        for i in 0..n {
            let r = self.r(i, q);
            let p = if past.switch(self.delay_of[i]) {
                1.0
            } else {
                0.0
            };
            let alpha = rest[i];
            dw[i] = (self.increase[i] - w[i] * alpha * self.cut[i] * p / 2.0) / r; // (1)
            drest[i] = self.link.g / r * (p - alpha); // (2)
            inflow += w[i] / r;
        }
        // (3), projected on q ≥ 0: an empty queue stays empty until the flows fill it.
        let filling = past.switch(self.busy()) || past.switch(self.busy() + 1);
        dy[2 * n] = if filling { inflow - self.link.c } else { 0.0 };
    }
}

pub mod compare;

#[cfg(test)]
mod tests;
