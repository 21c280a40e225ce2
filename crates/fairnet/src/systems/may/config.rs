//! MAY's parameters (`qdisc = { kind = "may", ... }`): Table I of the paper with the §IV
//! defaults, the choices the paper leaves open, and the §II-A hardware options.

use crate::error::{Error, Result};
use crate::units::Time;
use serde::{Deserialize, Serialize};

/// Configuration of [`super::May`] (`qdisc = { kind = "may", delta = "1s", u0 = 0.98 }`).
///
/// Every default is the paper's: "The MAY parameters used in the experiments are: Δ = 1s,
/// u₀ = 0.98, κ = 0.1, q_w = 0.05, T₀ = 64sec" (§IV) and `S₀ = 1000` (§IV.D, "here we use
/// S₀ = 1000"). The rest are the choices the paper leaves open (see the module doc of
/// [`crate::systems::may`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct MayConfig {
    /// Δ, the length of the update period (Table I; default 1 s, §IV). §V: "Δ should be taken
    /// to cover several 'typical' RTT values".
    pub delta: Time,
    /// u₀, the desired utilization (Table I; default 0.98, §IV). In (0, 1].
    pub u0: f64,
    /// κ, the controller gain of ν (Table I, Fig. 1 line 19; default 0.1, §IV). Per update
    /// period and unit of utilization error; at least 0.
    pub kappa: f64,
    /// q_w, the weight of the drop-frequency average (Table I, Fig. 1 line 24; default 0.05,
    /// §IV). In (0, 1).
    pub q_w: f64,
    /// T₀, the time an entry may go without a drop before it is removed (Table I, Fig. 1
    /// line 21; default 64 s, §IV and §V "Standard value used in Internet measurements").
    pub t0: Time,
    /// S₀, packets: a new flow is entered in the table with probability `q₀ = 1/S₀` per packet
    /// (§II: "drop new-flow's packets with probability (of at most) q₀ = 1/S₀"; default 1000,
    /// §IV.D). At least 1.
    pub s0: f64,
    /// The initial ν (not given by the paper; default 0: no drops of flows already in the table
    /// until the measured utilization has exceeded u₀). At least 0.
    pub nu0: f64,
    /// Whether a packet lost to buffer overflow counts as a drop of its flow (ND + 1 and TS
    /// refreshed, or a new entry with δ = 1, ND = 1). Not said by the paper; default false:
    /// Fig. 1 counts only its own drops, and Theorem 3.3's fixed point (Eq. 9) needs
    /// ND = x·ν·δ.
    pub overflow_counts: bool,
    /// §II-A's bounded table: at most this many entries (16K fit in 1 Mbit of SRAM at
    /// 10 bytes each). When full, a flow drawn for entry is not entered and its packet is not
    /// dropped (a drop without an entry would be a loss the table cannot remember). Default
    /// none: unbounded. At least 1.
    pub table_entries: Option<u32>,
    /// §II-A's fingerprints: key the table by this many bits of a hash of the flow id (the
    /// paper's 30) instead of the flow id, so flows whose fingerprints collide share one
    /// entry. Default none: exact flow ids. 1 to 64.
    pub fingerprint_bits: Option<u8>,
    /// **fairnet's extension, not the paper's**: weighted MAY. A packet of a flow of weight
    /// `w` in the table is dropped with probability ν·δ/w, so the fixed point of Eq. (9)
    /// becomes x = w/ν — weighted max-min. Default false (the paper's MAY: every weight 1).
    pub weighted: bool,
    /// What "CurrentUtilization" (Fig. 1 lines 13 and 19) measures over an update period, over
    /// what the link could send in it. Not said by the paper beyond §V's "congestion indicator
    /// is arrival rate at the queue"; default [`Utilization::Admitted`] (see the module doc of
    /// [`crate::systems::may`] for the reason and the measurements behind it).
    pub utilization: Utilization,
    /// §V's byte-based variant ("The problem of variable packet size can be easily solved by
    /// employing byte-based approach instead packet-based approach"): the counters count
    /// bytes. A packet of `b` wire bytes counts as `b / MTU` packets — it is entered with
    /// probability `q₀·b/MTU` (S₀ in MTUs of bytes) and a drop adds `b/MTU` to ND — so δ and
    /// 1/ν are in MTU-sized packets and a flow of small packets is not charged more drops for
    /// the same bytes. Line 4's probability stays ν·δ (the share of a flow's bytes lost is
    /// ν·δ whatever its packet size). The MTU is the port's full data packet (`mtu + header`).
    /// Default false (the paper's packet-based MAY).
    pub bytes: bool,
    /// What drives ν (Fig. 1 line 19): `rate` (the paper's, "the control of ν is rate based")
    /// or `queue` (§V: "Queue based control of ν is possible as well"; our form, see
    /// [`NuControl::Queue`]). Default `rate`.
    pub control: NuControl,
    /// With `control = "queue"`: the target queue, a fraction of the port's buffer (default
    /// 0.1; our choice, the paper gives no form of the queue-based control). In (0, 1).
    pub queue_target: f64,
    /// ε of §V's estimate of the flows bottlenecked here, NB(l) = #{f ∈ H : δ_f > ε} ("for
    /// some ε > 0"; the value is not given). In drops per Δ, like δ; default 0.1, our choice:
    /// at the fixed point of Eq. (9) a bottlenecked flow's δ is its drops per Δ, which stay
    /// near 1 or more for TCP flows, while an entry that stopped losing decays by 1 − q_w per
    /// Δ and falls below 0.1 within ln(10)/q_w ≈ 46 periods (q_w = 0.05). Positive.
    pub nb_epsilon: f64,
}

/// What drives ν ([`MayConfig::control`]).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum NuControl {
    /// Fig. 1 line 19: `ν ← ν + κ·(CurrentUtilization − u₀)`; line 13's entry drop when the
    /// utilization exceeds u₀.
    #[default]
    Rate,
    /// `ν ← ν + κ·(q̄/B − queue_target)`, q̄ the mean queue seen by the period's arrivals and
    /// B the buffer (line 19 with the queue's error in place of the utilization's, both
    /// fractions); line 13's entry drop when q̄/B exceeds the target.
    Queue,
}

/// The three readings of MAY's "CurrentUtilization" ([`MayConfig::utilization`]), each a rate
/// over one update period divided by the link's capacity.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Utilization {
    /// The bytes MAY let through to the FIFO (queued or lost to buffer overflow): the
    /// arrival rate at the queue behind MAY's own drops.
    #[default]
    Admitted,
    /// Every byte arriving at the port, MAY's drops included (the arrival rate in front of
    /// MAY).
    Arrivals,
    /// The bytes the link sent: its utilization in the usual sense (at most 1).
    Departures,
}

impl Default for MayConfig {
    fn default() -> MayConfig {
        MayConfig {
            delta: Time::from_ms(1000),
            u0: 0.98,
            kappa: 0.1,
            q_w: 0.05,
            t0: Time::from_ms(64_000),
            s0: 1000.0,
            nu0: 0.0,
            overflow_counts: false,
            table_entries: None,
            fingerprint_bits: None,
            weighted: false,
            utilization: Utilization::Admitted,
            bytes: false,
            control: NuControl::Rate,
            queue_target: 0.1,
            nb_epsilon: 0.1,
        }
    }
}

impl MayConfig {
    /// Checks value ranges; `at` is the field path of this table (errors name the field).
    pub fn validate(&self, at: &str) -> Result<()> {
        let field = |f: &str| format!("{at}.{f}");
        if self.delta.0 == 0 {
            return Err(Error::invalid(field("delta"), "must be positive"));
        }
        if !(self.u0 > 0.0 && self.u0 <= 1.0) {
            return Err(Error::invalid(
                field("u0"),
                format!("must be in (0, 1], got {}", self.u0),
            ));
        }
        if !(self.kappa.is_finite() && self.kappa >= 0.0) {
            return Err(Error::invalid(
                field("kappa"),
                format!("must be finite and at least 0, got {}", self.kappa),
            ));
        }
        if !(self.q_w > 0.0 && self.q_w < 1.0) {
            return Err(Error::invalid(
                field("q_w"),
                format!("must be in (0, 1), got {}", self.q_w),
            ));
        }
        if self.t0.0 == 0 {
            return Err(Error::invalid(field("t0"), "must be positive"));
        }
        if !(self.s0.is_finite() && self.s0 >= 1.0) {
            return Err(Error::invalid(
                field("s0"),
                format!("must be at least 1 packet, got {}", self.s0),
            ));
        }
        if !(self.nu0.is_finite() && self.nu0 >= 0.0) {
            return Err(Error::invalid(
                field("nu0"),
                format!("must be finite and at least 0, got {}", self.nu0),
            ));
        }
        if !(self.queue_target > 0.0 && self.queue_target < 1.0) {
            return Err(Error::invalid(
                field("queue_target"),
                format!("must be in (0, 1), got {}", self.queue_target),
            ));
        }
        if !(self.nb_epsilon.is_finite() && self.nb_epsilon > 0.0) {
            return Err(Error::invalid(
                field("nb_epsilon"),
                format!("must be finite and positive, got {}", self.nb_epsilon),
            ));
        }
        if self.table_entries == Some(0) {
            return Err(Error::invalid(
                field("table_entries"),
                "must be at least 1 entry",
            ));
        }
        if let Some(b) = self.fingerprint_bits {
            if !(1..=64).contains(&b) {
                return Err(Error::invalid(
                    field("fingerprint_bits"),
                    format!("must be 1 to 64, got {b}"),
                ));
            }
        }
        Ok(())
    }
}
