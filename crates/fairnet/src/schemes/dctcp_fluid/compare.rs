//! The DCTCP fluid model set beside the packet engine's DCTCP on the same single bottleneck:
//! `N` long-lived flows on a dumbbell, the same capacity, marking threshold, gain, packet size
//! and base round trip, both measured over the same steady-state window.
//!
//! Measured on both, from samples every `sample` of simulated time:
//! - the queue's mean, and its oscillation amplitude as the spread between its 5th and 95th
//!   percentiles (the packet queue moves in whole packets and has bursts; the same robust
//!   definition is applied to the fluid limit cycle, where it is close to max − min);
//! - the mean congestion window (packets) and the mean `α` over the flows.
//!
//! The packet run uses the engine's public API only: [`PacketSim`] with every flow's DCTCP
//! wrapped in an observer (through [`PacketSim::set_congestion_control`]) that exposes its
//! window and `α`.

use super::{Bottleneck, EcnWindowFluid};
use crate::engine::model::{solve_continuous, SolverOptions};
use crate::engine::packet::{AckInfo, CongestionControl};
use crate::engine::Progress;
use crate::error::Result;
use crate::ids::{FlowId, NodeId};
use crate::registry::{PacketConfig, PacketSim, QdiscConfig, TransportKind};
use crate::schemes::dctcp::Dctcp;
use crate::schemes::fifo::EcnThreshold;
use crate::topo::{dumbbell, LinkSpec};
use crate::units::{Bytes, Rate, Time};
use crate::workload::FlowSpec;
use std::cell::RefCell;
use std::rc::Rc;

/// The compared setting.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    /// Long-lived flows.
    pub flows: u32,
    /// Every link's rate (the access links equal the bottleneck).
    pub capacity: Rate,
    /// Every link's propagation delay (three hops each way).
    pub link_delay: Time,
    /// Marking threshold, packets.
    pub k: u32,
    /// Start of the measured window (after slow start and convergence).
    pub warmup: Time,
    /// Length of the measured window.
    pub duration: Time,
    /// Sampling interval of both runs.
    pub sample: Time,
}

impl Default for Setup {
    /// 10 flows at 10 Gb/s, K = 65 packets (DCTCP §3.4), 16 µs per link (a base round trip
    /// near 100 µs), measured from 30 ms to 80 ms every 2 µs.
    fn default() -> Setup {
        Setup {
            flows: 10,
            capacity: Rate::gbps(10),
            link_delay: Time::from_us(16),
            k: 65,
            warmup: Time::from_ms(30),
            duration: Time::from_ms(50),
            sample: Time::from_us(2),
        }
    }
}

/// Steady-state statistics of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// Mean queue, packets.
    pub queue_mean: f64,
    /// 95th − 5th percentile of the queue, packets.
    pub queue_amplitude: f64,
    /// Mean window over time and flows, packets.
    pub window_mean: f64,
    /// Mean `α` over time and flows.
    pub alpha_mean: f64,
}

/// The two runs' statistics and the fluid model used.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The fluid model's.
    pub fluid: Stats,
    /// The packet engine's.
    pub packet: Stats,
    /// The fluid model with the setup's parameters (its `d` is the packet path's base RTT).
    pub model: EcnWindowFluid,
}

/// Runs both and measures them (see the module doc).
pub fn compare(s: &Setup) -> Result<Comparison> {
    let cfg = PacketConfig {
        transport: TransportKind::Dctcp,
        qdisc: QdiscConfig::Ecn {
            k: EcnThreshold::Packets(s.k),
        },
        ..PacketConfig::default()
    };
    let wire = (cfg.mtu.0 + cfg.header.0) as f64;
    // Base RTT of the dumbbell path: three hops of propagation each way, a data packet's
    // serialization on each of the three links, and an ACK's (a bare header) on the way back.
    let hop_tx = |bytes: f64| bytes * 8.0 / s.capacity.bps();
    let d =
        6.0 * s.link_delay.as_secs_f64() + 3.0 * hop_tx(wire) + 3.0 * hop_tx(cfg.header.0 as f64);
    let mut model = EcnWindowFluid::dctcp_flows(
        s.flows as usize,
        d,
        Bottleneck {
            c: s.capacity.bps() / (8.0 * wire),
            k: s.k as f64,
            g: cfg.tcp.dctcp_g,
            packet: wire,
            link: 0,
        },
    );
    model.per_flow = false;
    let fluid = fluid_stats(&model, s)?;
    let packet = packet_stats(s, cfg)?;
    Ok(Comparison {
        fluid,
        packet,
        model,
    })
}

fn fluid_stats(model: &EcnWindowFluid, s: &Setup) -> Result<Stats> {
    let horizon = (s.warmup + s.duration).as_secs_f64();
    let o = SolverOptions {
        horizon,
        output_interval: s.sample.as_secs_f64(),
        ..SolverOptions::default()
    };
    let y0 = crate::engine::model::Model::initial_state(model);
    let run = solve_continuous(model, &y0, &o, &Progress::default())?;
    let from = s.warmup.as_secs_f64();
    let steady = |name: &str| -> Vec<f64> {
        run.times
            .iter()
            .zip(run.column(name).unwrap_or_default())
            .filter(|(t, _)| **t >= from)
            .map(|(_, v)| v)
            .collect()
    };
    let q = steady("q");
    Ok(Stats {
        queue_mean: mean(&q),
        queue_amplitude: spread(q),
        window_mean: mean(&steady("W_mean")),
        alpha_mean: mean(&steady("alpha_mean")),
    })
}

/// A flow's DCTCP, observed: every ACK leaves its window (packets) and `α` in `seen`.
struct Observed {
    cc: Dctcp,
    mss: f64,
    seen: Rc<RefCell<Vec<(f64, f64)>>>,
    flow: usize,
}

impl CongestionControl for Observed {
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        self.cc.on_ack(a);
        self.seen.borrow_mut()[self.flow] = (self.cc.cwnd() as f64 / self.mss, self.cc.alpha());
    }
    fn on_loss(&mut self, now: Time, in_flight: u64) {
        self.cc.on_loss(now, in_flight);
    }
    fn on_timeout(&mut self, now: Time, in_flight: u64) {
        self.cc.on_timeout(now, in_flight);
    }
    fn cwnd(&self) -> u64 {
        self.cc.cwnd()
    }
    fn ecn_capable(&self) -> bool {
        self.cc.ecn_capable()
    }
}

fn packet_stats(s: &Setup, cfg: PacketConfig) -> Result<Stats> {
    let wire = (cfg.mtu.0 + cfg.header.0) as f64;
    // A buffer far above the queue DCTCP keeps: no drops, as in the fluid model.
    let link = LinkSpec::new(s.capacity, s.link_delay, Bytes(4000 * wire as u64));
    let topo = dumbbell(s.flows, link, link)?;
    let flows: Vec<FlowSpec> = (0..s.flows)
        .map(|i| FlowSpec::new(NodeId(i), NodeId(s.flows + i), Bytes(1 << 50), Time::ZERO))
        .collect();
    let (mss, init, g) = (
        cfg.mtu.0,
        cfg.tcp.init_cwnd as u64 * cfg.mtu.0,
        cfg.tcp.dctcp_g,
    );
    let mut sim = PacketSim::from_config(&topo, &flows, cfg)?;
    let seen = Rc::new(RefCell::new(vec![
        (init as f64 / mss as f64, 1.0);
        flows.len()
    ]));
    for i in 0..flows.len() {
        let observed = Observed {
            cc: Dctcp::new(mss, init, g),
            mss: mss as f64,
            seen: seen.clone(),
            flow: i,
        };
        sim.set_congestion_control(FlowId(i as u32), Box::new(observed))?;
    }
    sim.run_until(s.warmup)?;
    let (mut q, mut w, mut a) = (Vec::new(), Vec::new(), Vec::new());
    let end = s.warmup + s.duration;
    let mut t = s.warmup;
    while t <= end {
        let r = sim.run_until(t)?;
        q.push(r.links[0].queue_bytes as f64 / wire);
        let seen = seen.borrow();
        w.push(seen.iter().map(|x| x.0).sum::<f64>() / seen.len() as f64);
        a.push(seen.iter().map(|x| x.1).sum::<f64>() / seen.len() as f64);
        t += s.sample;
    }
    Ok(Stats {
        queue_mean: mean(&q),
        queue_amplitude: spread(q),
        window_mean: mean(&w),
        alpha_mean: mean(&a),
    })
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len().max(1) as f64
}

/// 95th − 5th percentile (nearest rank).
fn spread(mut x: Vec<f64>) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    x.sort_by(f64::total_cmp);
    let at = |p: f64| x[((p * (x.len() - 1) as f64).round() as usize).min(x.len() - 1)];
    at(0.95) - at(0.05)
}
