//! MAY's queue: Fig. 1 of the paper, line by line, over a FIFO byte buffer.

use super::config::{MayConfig, NuControl, Utilization};
use crate::engine::packet::pkt::{PacketId, PacketPool};
use crate::engine::packet::qdisc::{Enqueued, Fifo, Qdisc, QdiscParams};
use crate::ids::FlowId;
use crate::units::Time;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, OnceLock};

/// The flows' weights by flow id, for weighted MAY: shared by every port of a run and filled
/// by the registry's `prepare`, which the engine calls before it builds the ports.
pub type FlowWeights = Arc<OnceLock<Vec<f64>>>;

/// Bits of SRAM per table entry (§II-A: "The size of MAY hash table entry can be made to be 10
/// bytes").
pub const ENTRY_BITS: u64 = 80;

/// One entry of the table H (§II: the quadruple FlowID, δ, TS, ND).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// δ, the flow's drop frequency: a moving average of its drops per update period Δ
    /// (Fig. 1 line 24).
    pub delta: f64,
    /// ND, the flow's drops in the current update period (Fig. 1 lines 5, 11, 25); in
    /// MTU-sized packets with [`MayConfig::bytes`] (then fractional).
    pub nd: f64,
    /// TS, the time of the flow's last drop or entry (Fig. 1 lines 6, 12).
    pub ts: Time,
    /// With the expected-drops diagnostic ([`May::with_expected_drops`]): the drops this
    /// period's packets were *expected* to have, Σ ν·δ over them (plus the entry's own drop);
    /// line 24 then averages this instead of ND. 0 otherwise.
    pub expected: f64,
}

/// Counters of one MAY port, for tests and the §II-A memory model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MayStats {
    /// Packets of flows in H dropped with probability ν·δ (Fig. 1 line 4).
    pub table_drops: u64,
    /// Packets dropped when their flow was entered (Fig. 1 line 14).
    pub entry_drops: u64,
    /// Packets that did not fit in the buffer.
    pub overflow_drops: u64,
    /// Entries created (Fig. 1 line 9).
    pub entries_created: u64,
    /// Entries removed after T₀ without a drop (Fig. 1 line 22).
    pub entries_removed: u64,
    /// Entries refused because the bounded table was full (§II-A option).
    pub entries_refused: u64,
    /// The most entries H held at once.
    pub peak_entries: u64,
    /// Update periods run (Fig. 1 lines 18–28).
    pub updates: u64,
}

/// MAY's active queue management on one FIFO (see [`crate::systems::may`] for the paper and
/// the choices made).
#[derive(Debug)]
pub struct May {
    fifo: Fifo,
    buffer: u64,
    /// Δ, ps.
    delta: u64,
    u0: f64,
    kappa: f64,
    q_w: f64,
    /// T₀, ps.
    t0: u64,
    /// q₀ = 1/S₀.
    q0: f64,
    overflow_counts: bool,
    capacity: usize,
    /// Right shift that leaves the fingerprint's bits of a 64-bit hash (`None`: exact ids).
    fingerprint_shift: Option<u32>,
    fingerprint_salt: u64,
    /// Weighted MAY (fairnet's extension): the flows' weights by flow id, and changes since.
    weighted: bool,
    weights: Option<FlowWeights>,
    weight_changes: HashMap<u32, f64>,
    /// Line rate, bit/s.
    rate: f64,
    /// ν.
    nu: f64,
    table: HashMap<u64, Entry, BuildHasherDefault<KeyHasher>>,
    /// LastUpdate (Fig. 1 line 28), ps.
    last_update: u64,
    /// What CurrentUtilization counts ([`MayConfig::utilization`]).
    signal: Utilization,
    /// §V's byte-based variant: the port's full data packet (wire bytes) a packet is measured
    /// against; `None`: packet-based (every packet counts 1).
    byte_unit: Option<f64>,
    /// What drives ν, and the queue target (a fraction of the buffer) with `queue` control.
    control: NuControl,
    queue_target: f64,
    /// Queue-based control: the sum of the queue (bytes) seen by this period's arrivals, and
    /// their number.
    queue_seen: f64,
    arrivals: u64,
    /// Queue-based control: the mean queue seen by the last period's arrivals over the buffer.
    queue_fraction: f64,
    /// Bytes counted for CurrentUtilization since LastUpdate (by `signal`).
    offered: u64,
    /// CurrentUtilization: the bytes counted (by `signal`) during the last update period over
    /// what the link could send in that time.
    utilization: f64,
    rng: ChaCha8Rng,
    stats: MayStats,
    /// §V's ε for NB(l) ([`MayConfig::nb_epsilon`]) and the port's full data packet (bits),
    /// for the gauges.
    nb_epsilon: f64,
    mtu_bits: f64,
    /// Diagnostic, not the paper's ([`May::with_expected_drops`]): line 24 averages the
    /// expected drops instead of the counted ones.
    expected_drops: bool,
}

/// The table's hasher: keys are flow ids or fingerprints (one `u64` each), mixed by
/// [`mix64`] — a few multiplications per packet instead of the standard library's SipHash,
/// which made a lookup MAY's largest per-packet cost (`examples/may_cost.rs`).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix64(self.0 ^ b as u64);
        }
    }
    fn write_u64(&mut self, key: u64) {
        self.0 = mix64(key);
    }
}

/// SplitMix64's finalizer: the fingerprint hash.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl May {
    /// The queue of one port. `weights` (weighted MAY only) are the flows' weights by flow id;
    /// flows beyond it, or all flows without it, weigh 1 until
    /// [`Qdisc::on_flow_weight`] says otherwise.
    pub fn new(cfg: &MayConfig, p: &QdiscParams, weights: Option<FlowWeights>) -> May {
        let port_seed = p.seed ^ (p.link.0 as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        May {
            fifo: Fifo::default(),
            buffer: p.buffer.0,
            delta: cfg.delta.0,
            u0: cfg.u0,
            kappa: cfg.kappa,
            q_w: cfg.q_w,
            t0: cfg.t0.0,
            q0: 1.0 / cfg.s0,
            overflow_counts: cfg.overflow_counts,
            capacity: cfg.table_entries.map_or(usize::MAX, |n| n as usize),
            fingerprint_shift: cfg.fingerprint_bits.map(|b| 64 - b as u32),
            // The same hash at every port of a run (a switch's hash function), varied by seed.
            fingerprint_salt: mix64(p.seed ^ 0x6D41_5946_5052_4E54),
            weighted: cfg.weighted,
            weights: if cfg.weighted { weights } else { None },
            weight_changes: HashMap::new(),
            rate: p.rate.bps(),
            nu: cfg.nu0,
            table: HashMap::default(),
            last_update: 0,
            signal: cfg.utilization,
            byte_unit: cfg.bytes.then(|| p.mtu_wire.0.max(1) as f64),
            control: cfg.control,
            queue_target: cfg.queue_target,
            queue_seen: 0.0,
            arrivals: 0,
            queue_fraction: 0.0,
            offered: 0,
            utilization: 0.0,
            rng: ChaCha8Rng::seed_from_u64(mix64(port_seed ^ 0x004D_4159)),
            stats: MayStats::default(),
            nb_epsilon: cfg.nb_epsilon,
            mtu_bits: p.mtu_wire.0 as f64 * 8.0,
            expected_drops: false,
        }
    }

    /// **A diagnostic, not the paper's MAY** (used by `examples/may_fig7.rs
    /// --expected-drops`): line 24 averages, instead of ND (the drops counted in the period),
    /// the drops the period's packets were expected to have — Σ min(1, ν·δ/w) over the flow's
    /// arrivals while in H, plus ND's initial value at entry (line 11). Drops themselves are
    /// drawn as before. E[ND] given the arrivals is exactly that sum, so δ follows the same
    /// mean as Fig. 1's but without the sampling noise of a count that is 0 or 1 per Δ at low
    /// drop rates: it tells whether that noise is what keeps the flows from the fixed point
    /// x = 1/ν (Eq. 9).
    pub fn with_expected_drops(mut self) -> May {
        self.expected_drops = true;
        self
    }

    /// The table key of `flow`: its id, or its fingerprint (§II-A).
    #[inline]
    fn key(&self, flow: FlowId) -> u64 {
        match self.fingerprint_shift {
            None => flow.0 as u64,
            Some(s) => mix64(flow.0 as u64 ^ self.fingerprint_salt) >> s,
        }
    }

    /// The weight MAY divides the drop probability by (1 unless weighted).
    #[inline]
    fn weight(&self, flow: FlowId) -> f64 {
        if !self.weighted {
            return 1.0;
        }
        if let Some(&w) = self.weight_changes.get(&flow.0) {
            return w;
        }
        self.weights
            .as_ref()
            .and_then(|w| w.get())
            .and_then(|w| w.get(flow.idx()).copied())
            .unwrap_or(1.0)
    }

    /// What a packet of `wire` bytes counts as: 1 packet, or (byte-based, §V) `wire / MTU`.
    #[inline]
    fn size(&self, wire: u32) -> f64 {
        self.byte_unit.map_or(1.0, |mtu| wire as f64 / mtu)
    }

    /// Whether the link is congested for line 13: the utilization above u₀ (rate control), or
    /// the mean queue above its target (queue control).
    #[inline]
    fn congested(&self) -> bool {
        match self.control {
            NuControl::Rate => self.utilization > self.u0,
            NuControl::Queue => self.queue_fraction > self.queue_target,
        }
    }

    /// Counts a loss of `size` packets of `key`'s flow at `now`: ND + size and TS refreshed if
    /// it is in H, a new entry (δ = 1, ND = size) otherwise (used for buffer overflows when
    /// [`MayConfig::overflow_counts`]).
    fn count_loss(&mut self, key: u64, now: u64, size: f64) {
        if let Some(e) = self.table.get_mut(&key) {
            e.nd += size;
            e.ts = Time(now);
        } else {
            self.create(key, now, size);
        }
    }

    /// Fig. 1 lines 9–12 (ND = `size`: 1, or the packet's size byte-based); false if the
    /// bounded table is full.
    fn create(&mut self, key: u64, now: u64, size: f64) -> bool {
        if self.table.len() >= self.capacity {
            self.stats.entries_refused += 1;
            return false;
        }
        self.table.insert(
            key,
            Entry {
                delta: 1.0,
                nd: size,
                ts: Time(now),
                expected: if self.expected_drops { size } else { 0.0 },
            },
        );
        self.stats.entries_created += 1;
        self.stats.peak_entries = self.stats.peak_entries.max(self.table.len() as u64);
        true
    }

    /// Fig. 1 lines 18–28: run when an arrival finds more than Δ since the last update.
    fn update(&mut self, now: u64) {
        // CurrentUtilization: the arrival rate at the FIFO over the capacity (§V: "the control
        // of ν is rate based ... congestion indicator is arrival rate at the queue").
        let span = Time(now - self.last_update).as_secs_f64();
        self.utilization = self.offered as f64 * 8.0 / (self.rate * span);
        // Queue control: the mean queue the period's arrivals found, over the buffer.
        self.queue_fraction = if self.arrivals > 0 {
            self.queue_seen / self.arrivals as f64 / self.buffer.max(1) as f64
        } else {
            0.0
        };
        let error = match self.control {
            NuControl::Rate => self.utilization - self.u0,
            NuControl::Queue => self.queue_fraction - self.queue_target,
        };
        // Line 19, kept at or above 0 (a negative ν would be no probability).
        self.nu = (self.nu + self.kappa * error).max(0.0);
        let (t0, q_w, expected) = (self.t0, self.q_w, self.expected_drops);
        let before = self.table.len();
        // Lines 20–27 (each entry on its own: the order of the walk does not matter).
        self.table.retain(|_, e| {
            if now - e.ts.0 > t0 {
                false
            } else {
                // Line 24 (the diagnostic averages the expected drops instead of ND).
                let nd = if expected { e.expected } else { e.nd };
                e.delta = (1.0 - q_w) * e.delta + q_w * nd;
                e.nd = 0.0;
                e.expected = 0.0;
                true
            }
        });
        self.stats.entries_removed += (before - self.table.len()) as u64;
        self.stats.updates += 1;
        self.offered = 0;
        self.queue_seen = 0.0;
        self.arrivals = 0;
        self.last_update = now; // line 28
    }

    /// ν now.
    pub fn nu(&self) -> f64 {
        self.nu
    }

    /// The utilization measured over the last update period (0 before the first).
    pub fn utilization(&self) -> f64 {
        self.utilization
    }

    /// Entries in H now.
    pub fn entries(&self) -> usize {
        self.table.len()
    }

    /// SRAM in use now at [`ENTRY_BITS`] per entry (§II-A, §III-D's `80·Z(n)`).
    pub fn memory_bits(&self) -> u64 {
        self.table.len() as u64 * ENTRY_BITS
    }

    /// The entry of `flow` (by its key: a fingerprint's entry is shared), if it is in H.
    pub fn entry(&self, flow: FlowId) -> Option<Entry> {
        self.table.get(&self.key(flow)).copied()
    }

    /// The counters.
    pub fn stats(&self) -> MayStats {
        self.stats
    }

    /// §V's estimate of the max-min fair share, x* = 1/ν, in packets per Δ (`None` while
    /// ν = 0).
    pub fn fair_share_per_delta(&self) -> Option<f64> {
        (self.nu > 0.0).then(|| 1.0 / self.nu)
    }

    /// §V's estimate of the number of flows bottlenecked here: entries with δ > `epsilon`.
    pub fn bottlenecked(&self, epsilon: f64) -> usize {
        self.table.values().filter(|e| e.delta > epsilon).count()
    }
}

impl Qdisc for May {
    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, now: Time) -> Enqueued {
        let (flow, wire) = {
            let p = pool.get(id);
            (p.flow, p.wire)
        };
        let now = now.0;
        let key = self.key(flow);
        let weight = self.weight(flow);
        let size = self.size(wire);
        if self.control == NuControl::Queue {
            self.queue_seen += self.fifo.bytes as f64;
            self.arrivals += 1;
        }
        let mut drop = false;
        // Fig. 1 line 2: is the flow in H?
        if let Some(e) = self.table.get_mut(&key) {
            // Lines 3–7: drop with probability ν·δ (capped at 1; weighted: ν·δ/w).
            let p = (self.nu * e.delta / weight).min(1.0);
            if self.expected_drops {
                e.expected += p * size;
            }
            if p > 0.0 && (p >= 1.0 || self.rng.gen::<f64>() < p) {
                drop = true;
                e.nd += size;
                e.ts = Time(now);
                self.stats.table_drops += 1;
            }
        } else if self.rng.gen::<f64>() < self.q0 * size {
            // Lines 8–16: enter the flow with probability q₀ (byte-based: q₀·size); drop its
            // packet if the link is busier than u₀ (or its queue above target).
            if self.create(key, now, size) && self.congested() {
                drop = true;
                self.stats.entry_drops += 1;
            }
        }
        match self.signal {
            Utilization::Admitted if !drop => self.offered += wire as u64,
            Utilization::Arrivals => self.offered += wire as u64,
            _ => {}
        }
        let out = if drop {
            Enqueued::Dropped
        } else if self.fifo.bytes + wire as u64 > self.buffer {
            self.stats.overflow_drops += 1;
            if self.overflow_counts {
                self.count_loss(key, now, size);
            }
            Enqueued::Dropped
        } else {
            self.fifo.push(id, wire, pool);
            Enqueued::Queued
        };
        // Line 17–18: Update(H) once more than Δ has passed.
        if now - self.last_update > self.delta {
            self.update(now);
        }
        out
    }

    fn dequeue(&mut self, pool: &mut PacketPool, _now: Time) -> Option<PacketId> {
        let id = self.fifo.pop(pool)?;
        if self.signal == Utilization::Departures {
            self.offered += pool.get(id).wire as u64;
        }
        Some(id)
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes
    }

    fn packets(&self) -> usize {
        self.fifo.len()
    }

    /// §V's estimates and §II-A's memory, sampled by the engine with the run's records:
    /// `nu` (ν), `fair_share` (x* = 1/ν, packets per Δ) and `fair_share_bps` (the same in
    /// bits per second of full data packets; both absent while ν = 0), `bottlenecked`
    /// (NB(l) with [`MayConfig::nb_epsilon`]), `entries` and `memory_bits` (80 bits an entry),
    /// `entries_created` (since the start: §III-D's Z(n), the flows hashed), `utilization`
    /// (measured over the last update period), and the drops since the start by cause:
    /// `table_drops` (line 4), `entry_drops` (line 14), `overflow_drops` (a full buffer).
    fn gauges(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("nu", self.nu));
        if let Some(x) = self.fair_share_per_delta() {
            out.push(("fair_share", x));
            out.push((
                "fair_share_bps",
                x * self.mtu_bits / (self.delta as f64 * 1e-12),
            ));
        }
        out.push(("bottlenecked", self.bottlenecked(self.nb_epsilon) as f64));
        out.push(("entries", self.entries() as f64));
        out.push(("memory_bits", self.memory_bits() as f64));
        out.push(("entries_created", self.stats.entries_created as f64));
        out.push(("table_drops", self.stats.table_drops as f64));
        out.push(("entry_drops", self.stats.entry_drops as f64));
        out.push(("overflow_drops", self.stats.overflow_drops as f64));
        out.push(("utilization", self.utilization));
    }
    fn on_flow_weight(&mut self, flow: FlowId, _priority: u8, weight: f64) {
        if self.weighted {
            self.weight_changes.insert(flow.0, weight);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::packet::pkt::Packet;
    use crate::ids::LinkId;
    use crate::units::{Bytes, Rate};

    const MS: u64 = Time::MS;

    /// A port of 8 Mb/s (a 1000-byte packet takes exactly 1 ms) with a large buffer.
    fn params() -> QdiscParams {
        QdiscParams {
            link: LinkId(2),
            buffer: Bytes(10_000_000),
            rate: Rate(8_000_000),
            mtu_wire: Bytes(1000),
            seed: 11,
        }
    }

    /// Δ = 100 ms and T₀ = 300 ms (the paper's ratios do not matter to these tests of single
    /// lines); the rest as given.
    fn cfg(s0: f64, nu0: f64) -> MayConfig {
        MayConfig {
            delta: Time::from_ms(100),
            t0: Time::from_ms(300),
            s0,
            nu0,
            ..MayConfig::default()
        }
    }

    /// Offers one 1000-byte packet of `flow` at `t` ms (ps precision via `t_ps`); a queued
    /// packet is sent at once, so the buffer never fills and only MAY drops.
    fn offer_at(may: &mut May, pool: &mut PacketPool, flow: u32, t_ps: u64) -> Enqueued {
        let id = pool.alloc(Packet {
            flow: FlowId(flow),
            wire: 1000,
            ..Packet::default()
        });
        let out = may.enqueue(id, pool, Time(t_ps));
        if out == Enqueued::Dropped {
            pool.release(id);
        } else {
            let sent = may.dequeue(pool, Time(t_ps)).unwrap();
            pool.release(sent);
        }
        out
    }

    #[test]
    fn new_flows_are_entered_with_probability_one_over_s0_and_not_dropped_below_u0() {
        // Fig. 1 lines 8–12: a flow not in H is entered with probability q₀ = 1/S₀ = 1/100.
        // 200,000 one-packet flows: expect 2,000 entries, standard deviation
        // √(200,000·0.01·0.99) ≈ 44.5; we allow 5σ. The utilization before the first update is
        // 0 < u₀, so line 13 drops nothing; each entry starts at δ = 1, ND = 1, TS = now.
        let mut may = May::new(&cfg(100.0, 0.0), &params(), None);
        let mut pool = PacketPool::new();
        let mut dropped = 0;
        for f in 0..200_000u32 {
            if offer_at(&mut may, &mut pool, f, 7 * MS) == Enqueued::Dropped {
                dropped += 1;
            }
        }
        let n = may.entries() as f64;
        assert!((n - 2000.0).abs() < 5.0 * 44.5, "{n} entries");
        assert_eq!(dropped, 0);
        assert_eq!(may.stats().entries_created, may.entries() as u64);
        let entered = (0..200_000u32).find_map(|f| may.entry(FlowId(f))).unwrap();
        assert_eq!(
            entered,
            Entry {
                delta: 1.0,
                nd: 1.0,
                ts: Time(7 * MS),
                expected: 0.0,
            }
        );
    }

    #[test]
    fn the_entry_packet_is_dropped_only_when_utilization_exceeds_u0() {
        // Fig. 1 lines 13–15 with S₀ = 1 (every new flow is entered at its first packet).
        // First period: flow 0 sends one packet per ms at the line rate (8 Mb/s of 1000-byte
        // packets) for 101 ms; ν₀ = 0, so nothing of flow 0 is dropped once it is in H. The
        // arrival at 101 ms runs the update: 102 packets over 101 ms, u = 1.0099 > 0.98. A new
        // flow's first packet is then entered and dropped. In a second, idle period
        // (at most one packet admitted by 400 ms: u ≤ 0.0034 < 0.98), a new flow is entered
        // but not dropped.
        let mut may = May::new(&cfg(1.0, 0.0), &params(), None);
        let mut pool = PacketPool::new();
        for t in 0..=101 {
            assert_eq!(offer_at(&mut may, &mut pool, 0, t * MS), Enqueued::Queued);
        }
        let u = may.utilization();
        assert!((u - 102.0 * 8000.0 / (8e6 * 0.101)).abs() < 1e-9, "{u}");
        assert_eq!(
            offer_at(&mut may, &mut pool, 1, 102 * MS),
            Enqueued::Dropped
        );
        assert_eq!(may.stats().entry_drops, 1);
        assert_eq!(may.entry(FlowId(1)).unwrap().nd, 1.0);
        // Flow 0 (in H) at 400 ms runs the next update: one admitted packet at most in 299 ms.
        offer_at(&mut may, &mut pool, 0, 400 * MS);
        assert!(may.utilization() < 0.98);
        assert_eq!(offer_at(&mut may, &mut pool, 3, 401 * MS), Enqueued::Queued);
        assert!(may.entry(FlowId(3)).is_some(), "entered, not dropped");
    }

    #[test]
    fn a_flow_in_h_is_dropped_with_probability_nu_delta_capped_at_one() {
        // Fig. 1 lines 2–7: with ν = 0.2 and δ = 1 (a fresh entry), 20,000 packets of the flow
        // within the first period are dropped with probability 0.2 (σ of the fraction
        // ≈ 0.0028; we allow 0.015). Weighted MAY (fairnet's extension) with w = 2 halves it.
        // With ν = 3, ν·δ is capped at 1: every packet is dropped.
        let frac = |nu0: f64, weighted: bool| {
            let c = MayConfig {
                weighted,
                ..cfg(1.0, nu0)
            };
            let w = FlowWeights::default();
            w.set(vec![2.0]).unwrap();
            let mut may = May::new(&c, &params(), Some(w));
            let mut pool = PacketPool::new();
            offer_at(&mut may, &mut pool, 0, 0); // entered: δ = 1, ND = 1
            let mut dropped = 0u32;
            for i in 0..20_000u64 {
                if offer_at(&mut may, &mut pool, 0, i * 1000) == Enqueued::Dropped {
                    dropped += 1;
                }
            }
            // ND counts every drop of the period (line 5), plus the entry's 1 (line 11).
            assert_eq!(may.entry(FlowId(0)).unwrap().nd, (dropped + 1) as f64);
            dropped as f64 / 20_000.0
        };
        let f = frac(0.2, false);
        assert!((f - 0.2).abs() < 0.015, "{f}");
        let f = frac(0.2, true);
        assert!((f - 0.1).abs() < 0.015, "weighted w = 2: {f}");
        assert_eq!(frac(3.0, false), 1.0);
    }

    #[test]
    fn the_update_averages_nd_into_delta_resets_nd_and_moves_nu_by_the_utilization_error() {
        // ν₀ = 1 and δ = 1 make every packet of an entered flow a drop (ν·δ = 1). Flow 0 is
        // entered at 0 (ND = 1, admitted: the one packet), its packets at 1..4 ms are dropped
        // (ND = 5), and its packet at 101 ms is dropped (ND = 6) before that arrival runs the
        // update (more than Δ = 100 ms since 0). Lines 24–25: δ = 0.95·1 + 0.05·6 = 1.25,
        // ND = 0. Line 19: u = 1000·8 bits / (8 Mb/s · 0.101 s) = 0.0099 < u₀, so ν falls:
        // ν = 1 + 0.1·(0.0099 − 0.98).
        let mut may = May::new(&cfg(1.0, 1.0), &params(), None);
        let mut pool = PacketPool::new();
        assert_eq!(offer_at(&mut may, &mut pool, 0, 0), Enqueued::Queued);
        for t in 1..=4 {
            assert_eq!(offer_at(&mut may, &mut pool, 0, t * MS), Enqueued::Dropped);
        }
        assert_eq!(may.entry(FlowId(0)).unwrap().nd, 5.0);
        assert_eq!(
            offer_at(&mut may, &mut pool, 0, 101 * MS),
            Enqueued::Dropped
        );
        let e = may.entry(FlowId(0)).unwrap();
        assert!((e.delta - 1.25).abs() < 1e-12, "{e:?}");
        assert_eq!(e.nd, 0.0);
        assert_eq!(e.ts, Time(101 * MS), "line 6: TS = now on a drop");
        let u = 8000.0 / (8e6 * 0.101);
        assert!((may.nu() - (1.0 + 0.1 * (u - 0.98))).abs() < 1e-12);
        assert_eq!(may.stats().updates, 1);
    }

    #[test]
    fn the_expected_drops_diagnostic_averages_the_sum_of_drop_probabilities_not_the_count() {
        // `with_expected_drops` (a diagnostic, not the paper's): ν₀ = 0.01 and S₀ = 1, so
        // flow 0 is entered by its first packet at 0 (δ = 1, ND = 1, expected = 1, not dropped:
        // u = 0 before the first update) and each of its next 2,000 packets (1..=2000 µs·50)
        // is dropped with probability ν·δ = 0.01. The expected drops are then
        // 1 + 2,000·0.01 = 21 whatever the draws, and the update at 101 ms (more than Δ since
        // 0) sets δ = 0.95·1 + 0.05·(21 + 0.01) = 2.0005 (the arrival at 101 ms adds its own
        // 0.01 before the update). The same run without the diagnostic counts the actual
        // drops, whose number is random (binomial, mean 20), so its δ is 0.95 + 0.05·(1 + ND):
        // the same draws, a different δ unless ND happens to equal 20.01 (it cannot: ND is
        // an integer).
        let run = |diagnostic: bool| {
            let mut may = May::new(&cfg(1.0, 0.01), &params(), None);
            if diagnostic {
                may = may.with_expected_drops();
            }
            let mut pool = PacketPool::new();
            assert_eq!(offer_at(&mut may, &mut pool, 0, 0), Enqueued::Queued);
            let mut dropped = 0u32;
            for i in 1..=2000u64 {
                if offer_at(&mut may, &mut pool, 0, i * 50 * 1000 * 1000) == Enqueued::Dropped {
                    dropped += 1;
                }
            }
            let before = may.entry(FlowId(0)).unwrap();
            offer_at(&mut may, &mut pool, 0, 101 * MS);
            (before, may.entry(FlowId(0)).unwrap(), dropped)
        };
        let (before, after, dropped) = run(true);
        assert!((before.expected - 21.0).abs() < 1e-9, "{before:?}");
        assert_eq!(before.nd, 1.0 + dropped as f64, "ND still counts the drops");
        assert!(
            (after.delta - (0.95 + 0.05 * 21.01)).abs() < 1e-9,
            "{after:?}"
        );
        assert_eq!((after.nd, after.expected), (0.0, 0.0));
        let (_, plain, _) = run(false);
        assert_eq!(plain.expected, 0.0, "not tracked without the diagnostic");
        assert!((plain.delta - after.delta).abs() > 1e-6, "{plain:?}");
    }

    #[test]
    fn nu_rises_above_u0_and_never_goes_below_zero() {
        // Line 19's sign: at the line rate (u ≈ 1.0099 > 0.98, see above) ν rises by
        // κ·(u − u₀) from 0; an idle period (u ≈ 0) would take it to 0.1·(0.0099 − 0.98) < 0,
        // which we keep at 0.
        let mut may = May::new(&cfg(1e9, 0.0), &params(), None);
        let mut pool = PacketPool::new();
        for t in 0..=101 {
            offer_at(&mut may, &mut pool, 0, t * MS);
        }
        let u = may.utilization();
        assert!(u > 0.98);
        assert!((may.nu() - 0.1 * (u - 0.98)).abs() < 1e-12, "{}", may.nu());
        offer_at(&mut may, &mut pool, 0, 1000 * MS);
        assert!(may.utilization() < 0.01);
        assert_eq!(may.nu(), 0.0);
    }

    #[test]
    fn entries_without_a_drop_for_more_than_t0_are_removed_at_an_update() {
        // Lines 21–22 with T₀ = 300 ms, Δ = 100 ms, ν = 0 (so no drop refreshes TS). Flow 0 is
        // entered at 0; flow 1 at 150 ms, then sends every 10 ms. Updates run at the first
        // arrival more than Δ after the last: 150, 260, 370 ms. At 260 ms flow 0's entry is
        // 260 ms old (kept); at 370 ms it is 370 ms old (removed), flow 1's 220 ms (kept).
        let mut may = May::new(&cfg(1.0, 0.0), &params(), None);
        let mut pool = PacketPool::new();
        offer_at(&mut may, &mut pool, 0, 0);
        let mut t = 150;
        while t <= 360 {
            offer_at(&mut may, &mut pool, 1, t * MS);
            t += 10;
        }
        assert_eq!(may.stats().updates, 2);
        assert!(may.entry(FlowId(0)).is_some());
        offer_at(&mut may, &mut pool, 1, 370 * MS);
        assert_eq!(may.stats().updates, 3);
        assert!(may.entry(FlowId(0)).is_none());
        assert!(may.entry(FlowId(1)).is_some());
        assert_eq!(may.stats().entries_removed, 1);
        assert_eq!(may.memory_bits(), ENTRY_BITS);
    }

    #[test]
    fn a_full_table_refuses_entries_and_colliding_fingerprints_share_one() {
        // §II-A options. A table of 2 entries with S₀ = 1: flows 0 and 1 are entered, flow 2 is
        // refused and its packet passes.
        let c = MayConfig {
            table_entries: Some(2),
            ..cfg(1.0, 0.0)
        };
        let mut may = May::new(&c, &params(), None);
        let mut pool = PacketPool::new();
        for f in 0..3 {
            assert_eq!(offer_at(&mut may, &mut pool, f, 0), Enqueued::Queued);
        }
        assert_eq!(may.entries(), 2);
        assert!(may.entry(FlowId(2)).is_none());
        assert_eq!(may.stats().entries_refused, 1);
        // 2-bit fingerprints: among 5 flows two share a fingerprint (pigeonhole); entering one
        // puts the other in H too.
        let c = MayConfig {
            fingerprint_bits: Some(2),
            ..cfg(1.0, 0.0)
        };
        let mut may = May::new(&c, &params(), None);
        let keys: Vec<u64> = (0..5).map(|f| may.key(FlowId(f))).collect();
        assert!(keys.iter().all(|&k| k < 4));
        let (a, b) = (0..5)
            .flat_map(|a| (a + 1..5).map(move |b| (a, b)))
            .find(|&(a, b)| keys[a] == keys[b])
            .unwrap();
        let mut pool = PacketPool::new();
        offer_at(&mut may, &mut pool, a as u32, 0);
        assert!(may.entry(FlowId(b as u32)).is_some());
        assert_eq!(may.entries(), 1);
    }

    #[test]
    fn buffer_overflows_count_in_nd_only_when_configured() {
        // A buffer of one packet, nothing dequeued: the second packet of flow 0 overflows.
        // Default: no entry (S₀ huge, so no entry by q₀ either). overflow_counts: the loss
        // enters the flow (δ = 1, ND = 1).
        for counts in [false, true] {
            let c = MayConfig {
                overflow_counts: counts,
                ..cfg(1e12, 0.0)
            };
            let p = QdiscParams {
                buffer: Bytes(1000),
                ..params()
            };
            let mut may = May::new(&c, &p, None);
            let mut pool = PacketPool::new();
            for _ in 0..2 {
                let id = pool.alloc(Packet {
                    wire: 1000,
                    ..Packet::default()
                });
                may.enqueue(id, &mut pool, Time::ZERO);
            }
            assert_eq!(may.stats().overflow_drops, 1);
            assert_eq!(may.entry(FlowId(0)).is_some(), counts);
        }
    }

    #[test]
    fn out_of_range_parameters_are_one_line_errors_naming_the_field() {
        let at = "packet config.qdisc";
        let bad = |c: MayConfig| c.validate(at).unwrap_err().to_string();
        let d = MayConfig::default;
        assert_eq!(
            bad(MayConfig { u0: 0.0, ..d() }),
            "packet config.qdisc.u0: must be in (0, 1], got 0"
        );
        assert!(bad(MayConfig { u0: 1.2, ..d() }).starts_with("packet config.qdisc.u0:"));
        assert!(MayConfig { u0: 1.0, ..d() }.validate(at).is_ok());
        assert!(bad(MayConfig { q_w: 1.0, ..d() }).starts_with("packet config.qdisc.q_w:"));
        assert!(bad(MayConfig { q_w: 0.0, ..d() }).starts_with("packet config.qdisc.q_w:"));
        assert_eq!(
            bad(MayConfig {
                delta: Time::ZERO,
                ..d()
            }),
            "packet config.qdisc.delta: must be positive"
        );
        assert!(bad(MayConfig { s0: 0.5, ..d() }).starts_with("packet config.qdisc.s0:"));
        assert!(bad(MayConfig { kappa: -0.1, ..d() }).starts_with("packet config.qdisc.kappa:"));
        assert_eq!(
            bad(MayConfig {
                queue_target: 1.0,
                ..d()
            }),
            "packet config.qdisc.queue_target: must be in (0, 1), got 1"
        );
        assert_eq!(
            bad(MayConfig {
                table_entries: Some(0),
                ..d()
            }),
            "packet config.qdisc.table_entries: must be at least 1 entry"
        );
        assert!(bad(MayConfig {
            fingerprint_bits: Some(65),
            ..d()
        })
        .starts_with("packet config.qdisc.fingerprint_bits:"));
        for e in [
            bad(MayConfig { nu0: -1.0, ..d() }),
            bad(MayConfig {
                t0: Time::ZERO,
                ..d()
            }),
        ] {
            assert!(!e.contains('\n'), "{e}");
        }
        assert!(d().validate(at).is_ok(), "the paper's defaults are valid");
    }

    /// Offers one packet of `flow` and `wire` bytes at `t_ps`; queued packets stay queued
    /// when `keep` (the queue grows), else are sent at once.
    fn offer_sized(
        may: &mut May,
        pool: &mut PacketPool,
        flow: u32,
        wire: u32,
        t_ps: u64,
        keep: bool,
    ) -> Enqueued {
        let id = pool.alloc(Packet {
            flow: FlowId(flow),
            wire,
            ..Packet::default()
        });
        let out = may.enqueue(id, pool, Time(t_ps));
        if out == Enqueued::Dropped {
            pool.release(id);
        } else if !keep {
            let sent = may.dequeue(pool, Time(t_ps)).unwrap();
            pool.release(sent);
        }
        out
    }

    #[test]
    fn byte_based_counting_charges_flows_by_bytes_not_packets() {
        // §V's byte-based variant. Flows A (500-byte packets) and B (1000-byte, the port's
        // MTU) send the same bytes in one period: A 100,000 packets, B 50,000. Both are entered
        // at their first packet (S₀ = 1) and then dropped with probability ν·δ = 0.05 (κ = 0
        // keeps ν): about 5,000 of A's packets and 2,500 of B's, the same share of bytes.
        // Packet-based, ND counts packets: ND_A/ND_B ≈ 2 (A would be charged twice for the
        // same bytes). Byte-based, ND counts MTUs: ND_A/ND_B ≈ 1. σ of the ratio ≈ 2.4% of it
        // (binomial counts: 1.4% and 1.9%); we allow ±10% (4σ).
        let ratio = |bytes: bool| {
            let c = MayConfig {
                bytes,
                kappa: 0.0,
                ..cfg(1.0, 0.05)
            };
            let mut may = May::new(&c, &params(), None);
            let mut pool = PacketPool::new();
            let (mut lost_a, mut lost_b) = (0u64, 0u64);
            for k in 0..100_000u64 {
                let t = k * 800_000; // 0.8 µs apart: 80 ms in all, within one period
                if offer_sized(&mut may, &mut pool, 0, 500, t, false) == Enqueued::Dropped {
                    lost_a += 500;
                }
                if k % 2 == 0
                    && offer_sized(&mut may, &mut pool, 1, 1000, t, false) == Enqueued::Dropped
                {
                    lost_b += 1000;
                }
            }
            // Either way each flow loses about ν·δ = 5% of its bytes (±0.5%, over 5σ).
            for lost in [lost_a, lost_b] {
                let share = lost as f64 / 50_000_000.0;
                assert!((share - 0.05).abs() < 0.005, "{share} ({lost_a}, {lost_b})");
            }
            may.entry(FlowId(0)).unwrap().nd / may.entry(FlowId(1)).unwrap().nd
        };
        let packets = ratio(false);
        assert!(
            (packets - 2.0).abs() < 0.2,
            "packet-based ND_A/ND_B = {packets}"
        );
        let bytes = ratio(true);
        assert!((bytes - 1.0).abs() < 0.1, "byte-based ND_A/ND_B = {bytes}");
    }

    #[test]
    fn queue_control_moves_nu_by_the_mean_queue_against_its_target() {
        // §V's queue-based control (our form): ν ← ν + κ·(q̄/B − target), q̄ the mean queue
        // the period's arrivals found. S₀ = 10⁹: no flow is entered, so MAY drops nothing.
        // Period 1: 102 packets sent at once (q̄ = 0): ν = 0.1 + 0.1·(0 − 0.1) = 0.09.
        // Period 2: 4,000 packets kept (arrival k finds k·1000 B) and the update's arrival
        // finds 4 MB: q̄ = (1000·3999·4000/2 + 4·10⁶)/4001 = 2 MB, 0.2 of the 10 MB buffer:
        // ν = 0.09 + 0.1·(0.2 − 0.1) = 0.1.
        let c = MayConfig {
            control: super::super::NuControl::Queue,
            ..cfg(1e9, 0.1)
        };
        let mut may = May::new(&c, &params(), None);
        let mut pool = PacketPool::new();
        for t in 0..=101 {
            offer_sized(&mut may, &mut pool, 0, 1000, t * MS, false);
        }
        assert!((may.nu() - 0.09).abs() < 1e-12, "{}", may.nu());
        for k in 0..4000 {
            offer_sized(
                &mut may,
                &mut pool,
                0,
                1000,
                102 * MS + k * 10_000_000,
                true,
            );
        }
        offer_sized(&mut may, &mut pool, 0, 1000, 250 * MS, true);
        assert!((may.nu() - 0.1).abs() < 1e-12, "{}", may.nu());
    }
}
