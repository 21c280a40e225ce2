//! RED and Adaptive RED with per-link-rate thresholds.
//!
//! - **RED**: Floyd and Jacobson, "Random Early Detection Gateways for Congestion
//!   Avoidance", IEEE/ACM ToN 1993. On every arrival the average queue is updated,
//!   `avg ← (1 − w_q)·avg + w_q·q` (§4, eq. 1); after an idle period of `m` packet times it
//!   decays as `avg ← (1 − w_q)^m·avg` (§11). Between `min_th` and `max_th` an arrival is
//!   marked with probability `p_b = max_p·(avg − min_th)/(max_th − min_th)` (§4); at or above
//!   `max_th` every arrival is marked.
//! - **Gentle RED** (Floyd, 2000, recommended by Adaptive RED §3): between `max_th` and
//!   `2·max_th` the probability rises linearly from `max_p` to 1 instead of jumping to 1.
//! - **Adaptive RED**: Floyd, Gummadi and Shenker, "Adaptive RED: An Algorithm for Increasing
//!   the Robustness of RED's Active Queue Management", 2001, Fig. 2: every `interval`
//!   (0.5 s in the paper), if `avg > target` and `max_p ≤ 0.5` then `max_p += α` with
//!   `α = min(0.01, max_p/4)`; if `avg < target` and `max_p ≥ 0.01` then `max_p ·= β` with
//!   `β = 0.9`; `target = [min_th + 0.4·(max_th − min_th), min_th + 0.6·(max_th − min_th)]`.
//!
//! - **Self-configuring Adaptive RED** (`self_configure`): the same paper's §5 sets every
//!   other parameter from the port's line rate C (packets of the port's full data size per
//!   second) and a target queueing delay (default 5 ms, §5): `min_th = max(5, delay·C/2)`
//!   packets, `max_th = 3·min_th` (so the target band's middle, `2·min_th`, is `delay·C`),
//!   `w_q = 1 − e^(−1/C)` (a time constant of one second of arrivals at line rate), gentle
//!   mode (§3) and Fig. 2's adaptation of `max_p`; one configuration then serves ports of any
//!   rate, each deriving its own thresholds and weight. The initial `max_p` is not fixed by
//!   the paper (it is adapted from wherever it starts); ours is 0.1, inside Fig. 2's band
//!   [0.01, 0.5] (`initial_max_p`).
//!
//! "Marking" means setting CE on an ECN-capable packet (RFC 3168 §7) and dropping any other
//! packet. A packet that does not fit in the buffer is dropped.
//!
//! Thresholds come from a per-link-rate table (`Kmin`, `Kmax`, `Pmax` by line rate, as the
//! HPCC ns-3 simulator's `KMIN_MAP`/`KMAX_MAP`/`PMAX_MAP`), so one configuration serves a
//! topology with several link speeds; a table without an entry for a rate present in the
//! topology is an error naming the link and the rate.
//!
//! **Where the mark is decided** (`mark_at`): RED decides at each arrival, from the queue the
//! packet joins (the 1993 paper; the default, `"enqueue"`). HPCC's ns-3 simulator decides as a
//! packet leaves, from the queue it leaves behind (`switch-node.cc`, `SwitchNotifyDequeue`
//! calls `SwitchMmu::ShouldSendCN` after removing the packet from the egress count), so its
//! mark reports the queue of that instant rather than of one queueing delay earlier:
//! `"dequeue"` does that. There the average is sampled at each departure, and a packet that
//! is not ECN-capable leaves unmarked (it cannot be dropped once it is leaving, and RFC 3168
//! forbids CE on it); a full buffer still drops at arrival.
//!
//! Choices where the papers leave room: queue length in bytes; `w_q = 1` by default, i.e.
//! the instantaneous queue (as datacenter ECN marking — DCTCP §3.1, HPCC's ns-3 switch —
//! uses; the 1993 paper's 0.002 is set with `w_q`); no count-based uniformization of the
//! inter-mark gaps (the 1993 paper's `p_a = p_b/(1 − count·p_b)`), so the marked fraction at
//! a steady average is exactly `p_b` (as HPCC's ns-3 switch); the idle "packet time" is the
//! serialization time of a full data packet at the link's rate.

use crate::engine::packet::pkt::{Ecn, PacketId, PacketPool};
use crate::engine::packet::qdisc::{Enqueued, Fifo, Qdisc, QdiscParams};
use crate::error::{Error, Result};
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// One row of the threshold table: the RED parameters of links of line rate `rate`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedThreshold {
    /// The line rate this row applies to (exact match).
    pub rate: Rate,
    /// `min_th`: below this average queue nothing is marked.
    pub kmin: Bytes,
    /// `max_th`: from this average queue on, every packet is marked (or, gentle, the
    /// probability rises from `pmax` to 1 at `2·kmax`).
    pub kmax: Bytes,
    /// `max_p`: the marking probability at `kmax` (the initial one with Adaptive RED).
    pub pmax: f64,
}

fn default_w_q() -> f64 {
    1.0
}
fn default_interval() -> Time {
    Time::from_ms(500)
}
fn default_true() -> bool {
    true
}
fn default_target_delay() -> Time {
    Time::from_ms(5)
}
fn default_initial_max_p() -> f64 {
    0.1
}

/// Adaptive RED's self-configuration (Floyd, Gummadi and Shenker 2001, §5): the thresholds
/// and the averaging weight of each port derived from its line rate (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedSelfConfig {
    /// The target average queueing delay (default 5 ms, ARED §5).
    #[serde(default = "default_target_delay")]
    pub target_delay: Time,
    /// `max_p` before the first adaptation (default 0.1; the paper adapts it from wherever it
    /// starts, within [0.01, 0.5], Fig. 2).
    #[serde(default = "default_initial_max_p")]
    pub initial_max_p: f64,
}

impl Default for RedSelfConfig {
    fn default() -> Self {
        RedSelfConfig {
            target_delay: default_target_delay(),
            initial_max_p: default_initial_max_p(),
        }
    }
}

/// The RED parameters one port runs with (from the table, or self-configured).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedPortParams {
    /// `min_th`, bytes.
    pub min_th: f64,
    /// `max_th`, bytes.
    pub max_th: f64,
    /// The initial `max_p`.
    pub max_p: f64,
    /// EWMA weight of the average queue.
    pub w_q: f64,
    /// Gentle mode above `max_th`.
    pub gentle: bool,
    /// Fig. 2's adaptation of `max_p`.
    pub adaptive: bool,
}

impl RedSelfConfig {
    /// ARED §5's parameters for a port of line rate `rate` whose full data packets take
    /// `mtu_wire` bytes on the wire.
    pub fn derive(&self, rate: Rate, mtu_wire: Bytes) -> RedPortParams {
        let bytes_per_s = rate.bps() / 8.0;
        let pkts_per_s = bytes_per_s / mtu_wire.0 as f64;
        // §5: min_th = max(5, delay_target·C/2) packets; in bytes, delay·C_bytes/2.
        // (Picoseconds times bytes per second, then over 10¹²: exact for round rates.)
        let target_bytes = self.target_delay.0 as f64 * bytes_per_s / Time::S as f64;
        let min_th = (5.0 * mtu_wire.0 as f64).max(target_bytes / 2.0);
        RedPortParams {
            min_th,
            // §5: max_th = 3·min_th.
            max_th: 3.0 * min_th,
            max_p: self.initial_max_p,
            // §5: w_q = 1 − exp(−1/C), C in packets per second.
            w_q: 1.0 - (-1.0 / pkts_per_s).exp(),
            // §3: ARED runs in gentle mode.
            gentle: true,
            adaptive: true,
        }
    }
}

/// When [`Red`] decides whether to mark a packet (module doc, "Where the mark is decided").
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MarkAt {
    /// At the packet's arrival, from the queue it joins (RED as published).
    #[default]
    Enqueue,
    /// At the packet's departure, from the queue it leaves behind (HPCC's ns-3 switch).
    Dequeue,
}

/// Configuration of [`Red`] (`qdisc = { kind = "red", thresholds = [...] }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// Per-line-rate thresholds; every rate in the topology needs a row (none with
    /// `self_configure`).
    #[serde(default)]
    pub thresholds: Vec<RedThreshold>,
    /// EWMA weight of the average queue (default 1: the instantaneous queue).
    #[serde(default = "default_w_q")]
    pub w_q: f64,
    /// Mark ECN-capable packets with CE instead of dropping them (default true).
    #[serde(default = "default_true")]
    pub ecn: bool,
    /// Gentle RED above `kmax` (default false: mark everything at or above `kmax`).
    #[serde(default)]
    pub gentle: bool,
    /// Adapt `max_p` as Adaptive RED (default false).
    #[serde(default)]
    pub adaptive: bool,
    /// Adaptive RED's adaptation interval (default 0.5 s, Floyd et al. 2001 §4).
    #[serde(default = "default_interval")]
    pub interval: Time,
    /// Self-configuring Adaptive RED (Floyd et al. 2001 §5): each port derives `min_th`,
    /// `max_th` and `w_q` from its line rate and runs gentle and adaptive; `thresholds` and
    /// `w_q` are then left out (default: none, the table is used).
    #[serde(default)]
    pub self_configure: Option<RedSelfConfig>,
    /// Decide the mark at arrival (default) or at departure (module doc).
    #[serde(default)]
    pub mark_at: MarkAt,
}

impl RedConfig {
    /// Checks value ranges; `at` is the field path of this table.
    pub fn validate(&self, at: &str) -> Result<()> {
        if let Some(sc) = &self.self_configure {
            if !self.thresholds.is_empty() {
                return Err(Error::invalid(
                    format!("{at}.thresholds"),
                    "self_configure derives the thresholds from each link's rate: give one or the other",
                ));
            }
            if self.w_q != default_w_q() {
                return Err(Error::invalid(
                    format!("{at}.w_q"),
                    "self_configure derives w_q from each link's rate (1 − e^(−1/C)): leave it out",
                ));
            }
            if sc.target_delay.0 == 0 {
                return Err(Error::invalid(
                    format!("{at}.self_configure.target_delay"),
                    "must be positive",
                ));
            }
            if !(sc.initial_max_p >= 0.01 && sc.initial_max_p <= 0.5) {
                return Err(Error::invalid(
                    format!("{at}.self_configure.initial_max_p"),
                    format!(
                        "must be in [0.01, 0.5] (Adaptive RED's range), got {}",
                        sc.initial_max_p
                    ),
                ));
            }
            if self.interval.0 == 0 {
                return Err(Error::invalid(format!("{at}.interval"), "must be positive"));
            }
            return Ok(());
        }
        if self.thresholds.is_empty() {
            return Err(Error::invalid(
                format!("{at}.thresholds"),
                "needs at least one row",
            ));
        }
        for (i, t) in self.thresholds.iter().enumerate() {
            let row = format!("{at}.thresholds[{i}]");
            if t.kmin >= t.kmax {
                return Err(Error::invalid(
                    row,
                    format!("kmin {} must be below kmax {}", t.kmin, t.kmax),
                ));
            }
            if !(t.pmax > 0.0 && t.pmax <= 1.0) {
                return Err(Error::invalid(
                    row,
                    format!("pmax must be in (0, 1], got {}", t.pmax),
                ));
            }
            if self.thresholds[..i].iter().any(|o| o.rate == t.rate) {
                return Err(Error::invalid(
                    row,
                    format!("a second row for rate {}", t.rate),
                ));
            }
        }
        if !(self.w_q > 0.0 && self.w_q <= 1.0) {
            return Err(Error::invalid(
                format!("{at}.w_q"),
                format!("must be in (0, 1], got {}", self.w_q),
            ));
        }
        if self.adaptive && self.interval.0 == 0 {
            return Err(Error::invalid(format!("{at}.interval"), "must be positive"));
        }
        Ok(())
    }

    /// The queue of one port: looks up the row for the port's rate; a missing row is an
    /// error naming the link and the rate.
    pub fn build(&self, p: &QdiscParams) -> Result<Red> {
        if let Some(sc) = &self.self_configure {
            return Ok(Red::new(self, sc.derive(p.rate, p.mtu_wire), p));
        }
        let Some(row) = self.thresholds.iter().find(|t| t.rate == p.rate) else {
            let have: Vec<String> = self.thresholds.iter().map(|t| t.rate.to_string()).collect();
            return Err(Error::invalid(
                format!("{}", p.link),
                format!(
                    "packet config.qdisc.thresholds has no row for this link's rate {} (rows: {})",
                    p.rate,
                    have.join(", ")
                ),
            ));
        };
        let port = RedPortParams {
            min_th: row.kmin.0 as f64,
            max_th: row.kmax.0 as f64,
            max_p: row.pmax,
            w_q: self.w_q,
            gentle: self.gentle,
            adaptive: self.adaptive,
        };
        Ok(Red::new(self, port, p))
    }
}

/// RED / gentle RED / Adaptive RED over a byte FIFO (see the module doc for the sources).
#[derive(Debug)]
pub struct Red {
    fifo: Fifo,
    buffer: u64,
    kmin: f64,
    kmax: f64,
    max_p: f64,
    w_q: f64,
    ecn: bool,
    gentle: bool,
    adaptive: bool,
    interval: u64,
    next_adapt: u64,
    /// Average queue, bytes.
    avg: f64,
    /// Start of the current idle period (`None`: busy).
    idle_since: Option<u64>,
    /// Serialization time of a full packet (ps): the idle decay's "packet time".
    pkt_time: u64,
    rng: u64,
    mark_at: MarkAt,
    /// Marks made at departure since the engine last asked ([`Qdisc::take_dequeue_marks`]).
    dequeue_marks: u64,
}

impl Red {
    fn new(cfg: &RedConfig, port: RedPortParams, p: &QdiscParams) -> Red {
        Red {
            fifo: Fifo::default(),
            buffer: p.buffer.0,
            kmin: port.min_th,
            kmax: port.max_th,
            max_p: port.max_p,
            w_q: port.w_q,
            ecn: cfg.ecn,
            gentle: port.gentle,
            adaptive: port.adaptive,
            interval: cfg.interval.0,
            next_adapt: cfg.interval.0,
            avg: 0.0,
            idle_since: Some(0),
            pkt_time: p.rate.tx_time(p.mtu_wire).0.max(1),
            rng: p.seed
                ^ 0x9E37_79B9_7F4A_7C15
                ^ (p.link.0 as u64).wrapping_mul(0xD1B5_4A32_D192_ED03),
            mark_at: cfg.mark_at,
            dequeue_marks: 0,
        }
    }

    /// The average queue (bytes).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// `(min_th, max_th)` in bytes and the EWMA weight this port runs with.
    pub fn thresholds(&self) -> (f64, f64, f64) {
        (self.kmin, self.kmax, self.w_q)
    }

    /// The current `max_p` (changes only with Adaptive RED).
    pub fn max_p(&self) -> f64 {
        self.max_p
    }

    /// The marking probability at average queue `avg`.
    pub fn probability(&self, avg: f64) -> f64 {
        if avg < self.kmin {
            0.0
        } else if avg < self.kmax {
            self.max_p * (avg - self.kmin) / (self.kmax - self.kmin)
        } else if self.gentle && avg < 2.0 * self.kmax {
            self.max_p + (1.0 - self.max_p) * (avg - self.kmax) / self.kmax
        } else {
            1.0
        }
    }

    /// A uniform number in [0, 1) (SplitMix64; deterministic per seed and link).
    fn uniform(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Updates the average with the queue now (and Adaptive RED's `max_p`).
    fn sample(&mut self, now: u64) {
        let q = self.fifo.bytes as f64;
        match self.idle_since.take() {
            Some(t0) if self.w_q < 1.0 => {
                // §11: the queue was empty for m packet times.
                let m = (now.saturating_sub(t0) / self.pkt_time) as f64;
                self.avg *= (1.0 - self.w_q).powf(m);
                self.avg = (1.0 - self.w_q) * self.avg + self.w_q * q;
            }
            _ => self.avg = (1.0 - self.w_q) * self.avg + self.w_q * q,
        }
        if self.adaptive {
            self.adapt(now);
        }
    }

    /// Whether to mark at the current average (a uniform draw only between the thresholds).
    fn draw(&mut self) -> bool {
        let prob = self.probability(self.avg);
        prob > 0.0 && (prob >= 1.0 || self.uniform() < prob)
    }

    fn adapt(&mut self, now: u64) {
        // Floyd et al. 2001, Fig. 2, every `interval` (possibly several intervals passed
        // without arrivals): the target band is the middle fifth of [min_th, max_th]
        // ("target: [min_th + 0.4·(max_th − min_th), min_th + 0.6·(max_th − min_th)]");
        // above it max_p grows by α = min(0.01, max_p/4) while max_p ≤ 0.5, below it max_p
        // shrinks by β = 0.9 while max_p ≥ 0.01 (AIMD, Fig. 2's constants).
        while now >= self.next_adapt {
            self.next_adapt += self.interval;
            let span = self.kmax - self.kmin;
            let (lo, hi) = (self.kmin + 0.4 * span, self.kmin + 0.6 * span);
            if self.avg > hi && self.max_p <= 0.5 {
                self.max_p += (self.max_p / 4.0).min(0.01);
            } else if self.avg < lo && self.max_p >= 0.01 {
                self.max_p *= 0.9;
            }
        }
    }
}

impl Qdisc for Red {
    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, now: Time) -> Enqueued {
        let now = now.0;
        let at_arrival = self.mark_at == MarkAt::Enqueue;
        if at_arrival {
            self.sample(now);
        }
        let p = pool.get_mut(id);
        if self.fifo.bytes + p.wire as u64 > self.buffer {
            return Enqueued::Dropped;
        }
        let mut out = Enqueued::Queued;
        if at_arrival && self.draw() {
            if self.ecn && p.ecn != Ecn::NotEct {
                p.ecn = Ecn::Ce;
                out = Enqueued::Marked;
            } else {
                return Enqueued::Dropped;
            }
        }
        let wire = p.wire;
        self.fifo.push(id, wire, pool);
        out
    }

    fn dequeue(&mut self, pool: &mut PacketPool, now: Time) -> Option<PacketId> {
        let id = self.fifo.pop(pool)?;
        if self.mark_at == MarkAt::Dequeue {
            // The queue the packet leaves behind (HPCC ns-3's `ShouldSendCN`).
            self.sample(now.0);
            let p = pool.get_mut(id);
            if p.ecn != Ecn::NotEct && self.ecn && self.draw() {
                p.ecn = Ecn::Ce;
                self.dequeue_marks += 1;
            }
        }
        if self.fifo.is_empty() {
            self.idle_since = Some(now.0);
        }
        Some(id)
    }

    fn take_dequeue_marks(&mut self) -> u64 {
        std::mem::take(&mut self.dequeue_marks)
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes
    }

    fn packets(&self) -> usize {
        self.fifo.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::packet::pkt::Packet;
    use crate::ids::LinkId;

    fn params(rate: Rate) -> QdiscParams {
        QdiscParams {
            link: LinkId(3),
            buffer: Bytes(1_000_000),
            rate,
            mtu_wire: Bytes(1000),
            seed: 5,
        }
    }

    fn cfg(gentle: bool) -> RedConfig {
        RedConfig {
            thresholds: vec![RedThreshold {
                rate: Rate::gbps(100),
                kmin: Bytes(20_000),
                kmax: Bytes(60_000),
                pmax: 0.2,
            }],
            w_q: 1.0,
            ecn: true,
            gentle,
            adaptive: false,
            interval: default_interval(),
            self_configure: None,
            mark_at: MarkAt::Enqueue,
        }
    }

    /// Holds the queue at `n` packets of 1000 B and offers `trials` ECT packets; returns the
    /// marked fraction.
    fn marked_fraction(red: &mut Red, n: usize, trials: usize) -> f64 {
        let mut pool = PacketPool::new();
        let t = Time::ZERO;
        let mk = |pool: &mut PacketPool| {
            pool.alloc(Packet {
                wire: 1000,
                ecn: Ecn::Ect,
                ..Packet::default()
            })
        };
        while red.packets() < n {
            let id = mk(&mut pool);
            red.enqueue(id, &mut pool, t);
        }
        let mut marked = 0;
        for _ in 0..trials {
            let id = mk(&mut pool);
            if red.enqueue(id, &mut pool, t) == Enqueued::Marked {
                marked += 1;
            }
            let out = red.dequeue(&mut pool, t).unwrap();
            pool.release(out);
        }
        marked as f64 / trials as f64
    }

    #[test]
    fn marking_probability_is_linear_between_kmin_and_kmax() {
        // Kmin = 20 KB, Kmax = 60 KB, Pmax = 0.2, instantaneous queue. An arrival seeing
        // 40 KB is marked with probability 0.2 · (40 − 20)/(60 − 20) = 0.1; at 30 KB, 0.05;
        // at 10 KB never; at 60 KB always. 40,000 trials: the standard error of 0.1 is 0.0015.
        let red_at = |n| {
            let mut red = cfg(false).build(&params(Rate::gbps(100))).unwrap();
            marked_fraction(&mut red, n, 40_000)
        };
        let f40 = red_at(40);
        assert!((f40 - 0.1).abs() < 0.006, "{f40}");
        let f30 = red_at(30);
        assert!((f30 - 0.05).abs() < 0.005, "{f30}");
        assert_eq!(red_at(10), 0.0);
        assert_eq!(red_at(60), 1.0);
        // Gentle: at 90 KB (between Kmax and 2 Kmax) p = 0.2 + 0.8 · 30/60 = 0.6.
        let mut g = cfg(true).build(&params(Rate::gbps(100))).unwrap();
        assert!((g.probability(90_000.0) - 0.6).abs() < 1e-12);
        let f90 = marked_fraction(&mut g, 90, 20_000);
        assert!((f90 - 0.6).abs() < 0.015, "{f90}");
    }

    #[test]
    fn average_follows_the_ewma_and_decays_when_idle() {
        let mut c = cfg(false);
        c.w_q = 0.5;
        let mut red = c.build(&params(Rate::gbps(100))).unwrap();
        let mut pool = PacketPool::new();
        let mut ids = vec![];
        for _ in 0..3 {
            let id = pool.alloc(Packet {
                wire: 1000,
                ..Packet::default()
            });
            red.enqueue(id, &mut pool, Time::ZERO);
            ids.push(id);
        }
        // Arrivals saw 0, 1000, 2000 bytes: avg = 0 → 500 → 1250.
        assert!((red.avg() - 1250.0).abs() < 1e-9, "{}", red.avg());
        for _ in 0..3 {
            red.dequeue(&mut pool, Time::ZERO);
        }
        // Idle for 4 packet times (80 ns each at 100 Gb/s): 1250 · 0.5^4, then a sample of 0.
        let id = pool.alloc(Packet {
            wire: 1000,
            ..Packet::default()
        });
        red.enqueue(id, &mut pool, Time::from_ns(320));
        assert!(
            (red.avg() - 1250.0 / 16.0 / 2.0).abs() < 1e-9,
            "{}",
            red.avg()
        );
    }

    #[test]
    fn marking_at_dequeue_reads_the_queue_left_behind() {
        // mark_at = "dequeue" (HPCC ns-3's switch): nothing is marked on arrival; a departing
        // packet that leaves 40 KB behind is marked with probability 0.2 · 20/40 = 0.1, and the
        // marks are reported through take_dequeue_marks. 40,000 departures: the standard error
        // of 0.1 is 0.0015. A packet that is not ECN-capable leaves unmarked, never dropped.
        let mut c = cfg(false);
        c.mark_at = MarkAt::Dequeue;
        let mut red = c.build(&params(Rate::gbps(100))).unwrap();
        let mut pool = PacketPool::new();
        let t = Time::ZERO;
        let mk = |pool: &mut PacketPool, ecn| {
            pool.alloc(Packet {
                wire: 1000,
                ecn,
                ..Packet::default()
            })
        };
        for _ in 0..41 {
            let id = mk(&mut pool, Ecn::Ect);
            assert_eq!(red.enqueue(id, &mut pool, t), Enqueued::Queued);
        }
        let trials = 40_000;
        let mut marked = 0;
        for _ in 0..trials {
            let out = red.dequeue(&mut pool, t).unwrap();
            marked += (pool.get(out).ecn == Ecn::Ce) as u64;
            pool.release(out);
            let id = mk(&mut pool, Ecn::Ect);
            assert_eq!(red.enqueue(id, &mut pool, t), Enqueued::Queued);
        }
        let f = marked as f64 / trials as f64;
        assert!((f - 0.1).abs() < 0.006, "{f}");
        assert_eq!(red.take_dequeue_marks(), marked);
        assert_eq!(red.take_dequeue_marks(), 0);
        // 40 more: the first 21 departures leave at least kmax = 60 KB behind, always marked.
        for _ in 0..40 {
            let id = mk(&mut pool, Ecn::Ect);
            red.enqueue(id, &mut pool, t);
        }
        for _ in 0..21 {
            let out = red.dequeue(&mut pool, t).unwrap();
            assert_eq!(pool.get(out).ecn, Ecn::Ce);
            pool.release(out);
        }
        assert_eq!(red.take_dequeue_marks(), 21);
        // Not ECN-capable: 80 queued, all leave, none marked (20 of them above kmax).
        let mut red = c.build(&params(Rate::gbps(100))).unwrap();
        for _ in 0..80 {
            let id = mk(&mut pool, Ecn::NotEct);
            assert_eq!(red.enqueue(id, &mut pool, t), Enqueued::Queued);
        }
        while let Some(out) = red.dequeue(&mut pool, t) {
            assert_eq!(pool.get(out).ecn, Ecn::NotEct);
            pool.release(out);
        }
        assert_eq!(red.take_dequeue_marks(), 0);
    }

    #[test]
    fn non_ect_packets_are_dropped_instead_of_marked() {
        let mut red = cfg(false).build(&params(Rate::gbps(100))).unwrap();
        let mut pool = PacketPool::new();
        for _ in 0..60 {
            let id = pool.alloc(Packet {
                wire: 1000,
                ecn: Ecn::Ect,
                ..Packet::default()
            });
            red.enqueue(id, &mut pool, Time::ZERO);
        }
        let plain = pool.alloc(Packet {
            wire: 1000,
            ..Packet::default()
        });
        assert_eq!(red.enqueue(plain, &mut pool, Time::ZERO), Enqueued::Dropped);
    }

    #[test]
    fn adaptive_red_raises_max_p_while_the_average_is_above_target() {
        let mut c = cfg(false);
        c.adaptive = true;
        c.interval = Time::from_us(10);
        let mut red = c.build(&params(Rate::gbps(100))).unwrap();
        // Hold the queue at 55 KB (> target 44 KB) for 5 intervals: max_p grows by
        // min(0.01, max_p/4) = 0.01 each interval → 0.25.
        let mut pool = PacketPool::new();
        let mut t = 0;
        for _ in 0..55 {
            let id = pool.alloc(Packet {
                wire: 1000,
                ecn: Ecn::Ect,
                ..Packet::default()
            });
            red.enqueue(id, &mut pool, Time(t));
        }
        for _ in 0..5 {
            t += Time::from_us(10).0;
            let id = pool.alloc(Packet {
                wire: 1000,
                ecn: Ecn::Ect,
                ..Packet::default()
            });
            red.enqueue(id, &mut pool, Time(t));
            let out = red.dequeue(&mut pool, Time(t)).unwrap();
            pool.release(out);
        }
        assert!((red.max_p() - 0.25).abs() < 1e-9, "{}", red.max_p());
        // Then an empty queue (avg 0 < 36 KB) for 3 intervals: · 0.9³.
        while let Some(id) = red.dequeue(&mut pool, Time(t)) {
            pool.release(id);
        }
        for _ in 0..3 {
            t += Time::from_us(10).0;
            let id = pool.alloc(Packet {
                wire: 1000,
                ..Packet::default()
            });
            red.enqueue(id, &mut pool, Time(t));
            let out = red.dequeue(&mut pool, Time(t)).unwrap();
            pool.release(out);
        }
        assert!((red.max_p() - 0.25 * 0.729).abs() < 1e-9, "{}", red.max_p());
    }

    fn self_configured(rate: Rate) -> Red {
        let c = RedConfig {
            thresholds: vec![],
            self_configure: Some(RedSelfConfig::default()),
            ..cfg(false)
        };
        c.validate("q").unwrap();
        let mut p = params(rate);
        p.mtu_wire = Bytes(1040);
        c.build(&p).unwrap()
    }

    #[test]
    fn self_configured_thresholds_follow_ared_section_5() {
        // ARED §5 with a 5 ms target delay and 1040-byte packets. At 10 Mb/s, C = 1,201.9
        // packets/s: delay·C/2 = 3.0 packets < 5, so min_th = 5 packets = 5,200 B, max_th =
        // 15,600 B, w_q = 1 − e^(−1/1201.9) = 8.3165e-4 (x − x²/2 with x = 8.32e-4). At
        // 100 Mb/s, 12.5 MB/s: delay·C/2 = 31,250 B (30 packets > 5), max_th = 93,750 B,
        // w_q = 1 − e^(−1/12,019) = 8.3197e-5 (8.32e-5 − 3.5e-9). Both start at max_p = 0.1,
        // gentle, adaptive.
        let slow = self_configured(Rate(10_000_000));
        let (lo, hi, w) = slow.thresholds();
        assert_eq!((lo, hi), (5_200.0, 15_600.0));
        assert!((w - 8.3165e-4).abs() < 1e-8, "{w}");
        assert_eq!(slow.max_p(), 0.1);
        assert!(slow.gentle && slow.adaptive);
        let fast = self_configured(Rate(100_000_000));
        let (lo, hi, w) = fast.thresholds();
        assert_eq!((lo, hi), (31_250.0, 93_750.0));
        assert!((w - 8.3197e-5).abs() < 1e-9, "{w}");
    }

    /// Brings the queue to `n` packets of 1040 B at time `t`, then offers `arrivals` ECT
    /// packets at `t`, each followed by one departure (the queue stays at `n`).
    fn hold(red: &mut Red, pool: &mut PacketPool, n: usize, arrivals: usize, t: u64) {
        let ect = |pool: &mut PacketPool| {
            pool.alloc(Packet {
                wire: 1040,
                ecn: Ecn::Ect,
                ..Packet::default()
            })
        };
        while red.packets() > n {
            let id = red.dequeue(pool, Time(t)).unwrap();
            pool.release(id);
        }
        while red.packets() < n {
            let id = ect(pool);
            red.enqueue(id, pool, Time(t));
        }
        for _ in 0..arrivals {
            let id = ect(pool);
            assert_ne!(red.enqueue(id, pool, Time(t)), Enqueued::Dropped);
            let out = red.dequeue(pool, Time(t)).unwrap();
            pool.release(out);
        }
    }

    #[test]
    fn self_configured_max_p_follows_fig2_above_and_below_the_band() {
        // 10 Mb/s: min_th 5 and max_th 15 packets, so the target band is 9–11 packets
        // (9,360–11,440 B). With w_q = 8.3e-4, 5,000 arrivals seeing 14 packets bring the
        // average to 14,560·(1 − e^(−4.16)) ≈ 14,330 B, above the band; then one arrival per
        // 0.5 s interval: max_p + min(0.01, max_p/4) = +0.01 five times, 0.1 → 0.15.
        let mut red = self_configured(Rate(10_000_000));
        let mut pool = PacketPool::new();
        let half_s = Time::from_ms(500).0;
        hold(&mut red, &mut pool, 14, 5_000, 0);
        assert!(red.avg() > 11_440.0, "{}", red.avg());
        for k in 1..=5 {
            hold(&mut red, &mut pool, 14, 1, k * half_s);
        }
        assert!((red.max_p() - 0.15).abs() < 1e-12, "{}", red.max_p());
        // A queue of 6 packets for 5,000 arrivals: the average falls to within
        // 8,090·e^(−4.16) ≈ 126 B of 6,240 B, below the band; three intervals: · 0.9³.
        hold(&mut red, &mut pool, 6, 5_000, 5 * half_s);
        assert!(red.avg() < 9_360.0, "{}", red.avg());
        for k in 6..=8 {
            hold(&mut red, &mut pool, 6, 1, k * half_s);
        }
        let after = 0.15 * 0.729;
        assert!((red.max_p() - after).abs() < 1e-12, "{}", red.max_p());
        // It keeps shrinking while max_p ≥ 0.01: 0.10935·0.9^k < 0.01 first at k = 23
        // (0.00972), where it stops.
        for k in 9..=60 {
            hold(&mut red, &mut pool, 6, 1, k * half_s);
        }
        let floor = after * 0.9f64.powi(23);
        assert!(
            (red.max_p() - floor).abs() < 1e-12,
            "{} vs {floor}",
            red.max_p()
        );
        // Back above the band, α = max_p/4 < 0.01: max_p · 1.25 per interval.
        hold(&mut red, &mut pool, 14, 5_000, 60 * half_s);
        hold(&mut red, &mut pool, 14, 1, 61 * half_s);
        assert!(
            (red.max_p() - 1.25 * floor).abs() < 1e-12,
            "{}",
            red.max_p()
        );
    }

    #[test]
    fn self_configure_with_a_table_or_a_weight_is_an_error_naming_the_field() {
        let mut c = cfg(false);
        c.self_configure = Some(RedSelfConfig::default());
        let e = c.validate("q").unwrap_err().to_string();
        assert!(e.starts_with("q.thresholds:"), "{e}");
        c.thresholds.clear();
        c.w_q = 0.002;
        let e = c.validate("q").unwrap_err().to_string();
        assert!(e.starts_with("q.w_q:"), "{e}");
        c.w_q = 1.0;
        c.self_configure = Some(RedSelfConfig {
            initial_max_p: 0.9,
            ..RedSelfConfig::default()
        });
        let e = c.validate("q").unwrap_err().to_string();
        assert!(e.starts_with("q.self_configure.initial_max_p:"), "{e}");
    }

    #[test]
    fn a_rate_missing_from_the_table_is_an_error_naming_link_and_rate() {
        let e = cfg(false).build(&params(Rate::gbps(40))).unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("link 3:"), "{s}");
        assert!(s.contains("40Gbps") && s.contains("100Gbps"), "{s}");
    }
}
