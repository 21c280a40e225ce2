//! MAY's ports observed while a packet run goes on: §V's estimates — the fair share
//! x* = 1/ν and the number of bottlenecked flows NB(l) = #{f ∈ H : δ_f > ε} — and §II-A's
//! memory (entries × 80 bits) as time series.
//!
//! [`MayProbes::install`] replaces the queueing discipline of the chosen links by MAY queues
//! the caller keeps a handle on ([`SharedMay`]), and [`MayProbes::run_until`] runs the
//! simulation sampling them at a fixed interval. The queues behave exactly as the registry's
//! (`qdisc = { kind = "may" }`): same configuration, same per-port seed. Used by the tests of
//! §V's estimates, the Figs. 2–3 check in a packet simulation and `examples/may_fig7.rs`.

use super::{May, MayConfig, ENTRY_BITS};
use crate::engine::packet::pkt::{PacketId, PacketPool};
use crate::engine::packet::qdisc::{Enqueued, Qdisc, QdiscParams};
use crate::engine::packet::{PacketResults, PacketSim, SchemeSet};
use crate::error::Result;
use crate::ids::{FlowId, LinkId};
use crate::topo::Topology;
use crate::units::{Bytes, Time};
use std::sync::{Arc, Mutex};

/// A MAY queue shared between the engine (which runs it) and an observer (which reads it).
#[derive(Clone, Debug)]
pub struct SharedMay(pub Arc<Mutex<May>>);

impl Qdisc for SharedMay {
    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, now: Time) -> Enqueued {
        self.0.lock().unwrap().enqueue(id, pool, now)
    }
    fn dequeue(&mut self, pool: &mut PacketPool, now: Time) -> Option<PacketId> {
        self.0.lock().unwrap().dequeue(pool, now)
    }
    fn bytes(&self) -> u64 {
        self.0.lock().unwrap().bytes()
    }
    fn packets(&self) -> usize {
        self.0.lock().unwrap().packets()
    }
    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        self.0.lock().unwrap().gauges(out)
    }
    fn on_flow_weight(&mut self, flow: FlowId, priority: u8, weight: f64) {
        self.0
            .lock()
            .unwrap()
            .on_flow_weight(flow, priority, weight)
    }
}

/// One sample of one MAY port.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaySample {
    /// When.
    pub time: Time,
    /// The port's link.
    pub link: LinkId,
    /// ν.
    pub nu: f64,
    /// §V's fair-share estimate x* = 1/ν, packets per Δ (`None` while ν = 0).
    pub fair_share: Option<f64>,
    /// §V's NB(l): entries with δ > ε.
    pub bottlenecked: usize,
    /// Entries in H.
    pub entries: usize,
    /// SRAM in use, bits (§II-A: [`ENTRY_BITS`] per entry).
    pub memory_bits: u64,
    /// The utilization measured over the last update period.
    pub utilization: f64,
}

/// MAY queues at chosen ports of a run, and their samples.
#[derive(Debug)]
pub struct MayProbes {
    ports: Vec<(LinkId, SharedMay)>,
    epsilon: f64,
    /// Every sample taken, in time order (ports in the order given at each time).
    pub samples: Vec<MaySample>,
}

impl MayProbes {
    /// Puts a MAY queue configured by `cfg` at each of `links` of `sim` (built on `topo`
    /// with full data packets of `mtu_wire` bytes and seed `seed`, as the run's other ports),
    /// counting NB(l) with threshold `epsilon`. Call before the run starts.
    pub fn install<S: SchemeSet>(
        sim: &mut PacketSim<S>,
        topo: &Topology,
        links: &[LinkId],
        cfg: &MayConfig,
        mtu_wire: Bytes,
        seed: u64,
        epsilon: f64,
    ) -> Result<MayProbes> {
        let mut ports = Vec::with_capacity(links.len());
        for &link in links {
            let spec = topo.link(link);
            let params = QdiscParams {
                link,
                buffer: spec.buffer,
                rate: spec.capacity,
                mtu_wire,
                seed,
            };
            let q = SharedMay(Arc::new(Mutex::new(May::new(cfg, &params, None))));
            sim.set_qdisc(link, Box::new(q.clone()))?;
            ports.push((link, q));
        }
        Ok(MayProbes {
            ports,
            epsilon,
            samples: Vec::new(),
        })
    }

    /// The queue at the `i`-th link given to [`MayProbes::install`].
    pub fn port(&self, i: usize) -> &SharedMay {
        &self.ports[i].1
    }

    /// Samples every port at `now`.
    pub fn sample(&mut self, now: Time) {
        for (link, q) in &self.ports {
            let m = q.0.lock().unwrap();
            self.samples.push(MaySample {
                time: now,
                link: *link,
                nu: m.nu(),
                fair_share: m.fair_share_per_delta(),
                bottlenecked: m.bottlenecked(self.epsilon),
                entries: m.entries(),
                memory_bits: m.entries() as u64 * ENTRY_BITS,
                utilization: m.utilization(),
            });
        }
    }

    /// Runs `sim` to `until`, sampling every `every` (from `every` on); returns the records at
    /// `until`.
    pub fn run_until<S: SchemeSet>(
        &mut self,
        sim: &mut PacketSim<S>,
        every: Time,
        until: Time,
    ) -> Result<PacketResults> {
        let mut t = sim.now();
        loop {
            t = Time((t.0 + every.0.max(1)).min(until.0));
            let r = sim.run_until(t)?;
            self.sample(t);
            if t >= until {
                return Ok(r);
            }
        }
    }

    /// The samples of `link`.
    pub fn of(&self, link: LinkId) -> impl Iterator<Item = &MaySample> + '_ {
        self.samples.iter().filter(move |s| s.link == link)
    }
}
