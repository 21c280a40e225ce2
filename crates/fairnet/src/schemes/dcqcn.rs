//! DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015),
//! a baseline of Söze §5.2.3, in two variants chosen by `preset` and every knob in between.
//!
//! **Presets** (`[dcqcn] preset = "…"`; any field given beside the preset overrides it):
//!
//! - `dcqcn_paper` (the default): the DCQCN paper's algorithm as we know it (the paper is not
//!   in `../shared/papers/`; its values are as we remember them, all configurable).
//! - `hpcc_ns3`: the DCQCN of HPCC's ns-3 simulator (alibaba-edu/High-Precision-Congestion-
//!   Control, commit 9f4be2a, `rdma-hw.cc`'s "Mellanox's version of DCQCN", with the values its
//!   `run.py` writes for `--cc dcqcn`): the NIC behaviour that simulator models.
//! - `hpcc_ns3_paper`: the same simulator with its `run.py --cc dcqcn_paper` values (the
//!   reference's reading of the DCQCN paper's timers on the same NIC model).
//!
//! | knob | `dcqcn_paper` | `hpcc_ns3` | `hpcc_ns3_paper` |
//! | --- | --- | --- | --- |
//! | `g` | 1/256 | 1/256 (`EWMA_GAIN`) | 1/256 |
//! | `cnp_interval` (NP spacing) | 50 µs | 0: every marked packet's ACK carries a CNP (`L2_ACK_INTERVAL 1`) | 0 |
//! | `decrease_interval` | 0: cut on each CNP | 4 µs (`RATE_DECREASE_INTERVAL`) | 50 µs |
//! | `alpha_update` | `on_cnp` | `timer` | `timer` |
//! | `alpha_timer` | 55 µs | 1 µs (`ALPHA_RESUME_INTERVAL`) | 50 µs |
//! | `rate_timer` | 55 µs | 300 µs (`RP_TIMER`) | 55 µs |
//! | `byte_counter` | 10 MB | none (0: the reference has no byte counter) | none |
//! | `increase` | `paper` | `stages` | `stages` |
//! | `f` | 5 | 1 (`FAST_RECOVERY_TIMES`) | 1 |
//! | `r_ai`, `r_hai` | 40, 400 Mb/s | 5, 50 Mb/s at 25 Gb/s, scaled with the NIC rate (`run.py`: `ai = 5·bw/25`, `hai = 50·bw/25`): 20, 200 Mb/s at 100 Gb/s | the same |
//! | `clamp_target_rate` | true | false (`CLAMP_TARGET_RATE 0`) | false |
//! | `rate_on_first_cnp` | 1 | 1 (`RateOnFirstCnp`'s default; `third.cc` does not set it) | 1 |
//! | `min_rate` | 100 Mb/s | 1 Gb/s (`MIN_RATE`) | 1 Gb/s |
//!
//! The reference also marks differently: RED/ECN at `kmin = 100·bw/25` KB, `kmax = 400·bw/25`
//! KB, `pmax = 0.2` (400 KB / 1,600 KB / 20% at 100 Gb/s; `run.py`'s `KMIN_MAP` etc.), against
//! the DCQCN paper's 5 KB / 200 KB / 1%; marking is the queue's (`qdisc = { kind = "red", … }`),
//! not this module's, and a scenario sets it beside the preset.
//!
//! **The mechanism**, with the knobs that change it:
//!
//! - **CP** (switch): RED-style ECN marking on the egress queue (the `red` qdisc).
//! - **NP** (receiver): a CNP when a CE-marked packet arrives and none was sent for the flow in
//!   the last `cnp_interval`. Emulated at the sender: the engine echoes CE in every ACK (ECE),
//!   and an ECE ACK counts as a CNP if the last one was at least `cnp_interval` ago — the same
//!   events at the same times as a receiver's CNP on the ACK path.
//! - **RP, first CNP**: `R_T ← R_C ← rate_on_first_cnp·R_C` (the reference's `RateOnFirstCnp`;
//!   1 leaves the rate alone). With `alpha_update = "timer"` (the reference) `α` is set to 1
//!   here and the α and decrease timers start; with `on_cnp` (the paper) `α` starts at 1 when
//!   the flow starts.
//! - **RP, rate decrease**: `R_T ← R_C` (*clamping*; see below), `R_C ← max(min_rate,
//!   R_C·(1 − α/2))`, the increase counters restart. With `decrease_interval = 0` (the paper)
//!   every CNP cuts at once; otherwise (the reference) a timer checks every `decrease_interval`
//!   from the first CNP and cuts once if a CNP came since the last check. *Clamping*: with
//!   `clamp_target_rate = false` (the reference's default `CLAMP_TARGET_RATE 0`) `R_T` is left
//!   alone when no increase event happened since the last cut, so repeated cuts keep the
//!   target and the flow recovers towards it; `true` always sets `R_T ← R_C` (the paper).
//! - **RP, α**: `on_cnp` (the paper): `α ← (1 − g)·α + g` at each CNP, `α ← (1 − g)·α` after
//!   each `alpha_timer` without one. `timer` (the reference): every `alpha_timer`,
//!   `α ← (1 − g)·α + g` if a CNP came in the period, else `α ← (1 − g)·α`.
//! - **RP, rate increase**: events from a timer (every `rate_timer`) and a byte counter (every
//!   `byte_counter` bytes sent; 0 = none). `increase = "paper"`: with `i` the smaller and `j`
//!   the larger of the two event counts since the last cut, fast recovery while `j < F`
//!   (`R_C ← (R_T + R_C)/2`), additive increase otherwise (`R_T ← R_T + R_AI`, then the same
//!   averaging), hyper increase once `i > F` (`R_T ← R_T + (i − F)·R_HAI`); without a byte
//!   counter `i` stays 0 and hyper increase never comes (the paper's rule with `B = ∞`).
//!   `increase = "stages"` (the reference): timer events only, counted by a stage `s` since
//!   the last cut (the timer restarts at each cut): fast recovery while `s < F`, one additive
//!   step at `s = F`, a hyper step (`R_T ← R_T + R_HAI`) at every later event; `R_T` never
//!   exceeds the line rate.
//!
//! Our choices: timers are evaluated when ACKs arrive, in time order (α tick, then decrease
//! check, then increase tick on ties: the reference offsets its first decrease check by 1 ns so
//! that it follows the α update); a sending flow receives ACKs every packet time, so the error
//! is at most one packet time. The byte counter counts acknowledged bytes; rates stay within
//! `[min_rate, line rate]`; flows start at line rate (as DCQCN does); loss and timeouts leave
//! the rate alone (DCQCN runs over lossless PFC).

use crate::engine::packet::cc::{AckInfo, CcContext, CongestionControl};
use crate::error::{Error, Result};
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};

/// The named parameter sets of [`DcqcnConfig`] (the module doc's table).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DcqcnPreset {
    /// The DCQCN paper's algorithm and values (as we remember them).
    #[default]
    DcqcnPaper,
    /// HPCC's ns-3 simulator, `run.py --cc dcqcn`.
    HpccNs3,
    /// HPCC's ns-3 simulator, `run.py --cc dcqcn_paper`.
    HpccNs3Paper,
}

/// How `α` is updated (module doc, "RP, α").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AlphaUpdate {
    /// Up at each CNP, down after each `alpha_timer` without one (the paper).
    OnCnp,
    /// Once per `alpha_timer`: up if a CNP came in the period, else down (the reference).
    Timer,
}

/// Which rate-increase schedule runs (module doc, "RP, rate increase").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IncreaseSchedule {
    /// Timer and byte counter, `i`/`j` rule, hyper steps of `(i − F)·R_HAI` (the paper).
    Paper,
    /// Timer stages: `F` fast-recovery events, one additive, then hyper (the reference).
    Stages,
}

/// DCQCN's parameters (`[dcqcn]` table of the packet config). In a scenario, `preset` picks
/// the starting values and any other field given overrides it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "DcqcnSpec", into = "DcqcnSpec")]
pub struct DcqcnConfig {
    /// The preset the values started from (default `dcqcn_paper`).
    pub preset: DcqcnPreset,
    /// `α` gain `g`.
    pub g: f64,
    /// NP's minimum CNP spacing `N` (0: every marked packet's ACK is a CNP).
    pub cnp_interval: Time,
    /// Period of the RP's rate-decrease check (0: cut at each CNP).
    pub decrease_interval: Time,
    /// How `α` is updated.
    pub alpha_update: AlphaUpdate,
    /// `α` timer `K`.
    pub alpha_timer: Time,
    /// Rate-increase timer `T`.
    pub rate_timer: Time,
    /// Rate-increase byte counter `B` (0: none).
    pub byte_counter: Bytes,
    /// Which increase schedule runs.
    pub increase: IncreaseSchedule,
    /// Fast-recovery steps `F`.
    pub f: u32,
    /// Additive increase `R_AI` (at `increase_at_rate`, when set).
    pub r_ai: Rate,
    /// Hyper increase `R_HAI` (at `increase_at_rate`, when set).
    pub r_hai: Rate,
    /// The NIC rate at which `r_ai` and `r_hai` hold; they scale in proportion to the flow's
    /// NIC rate (0: no scaling).
    pub increase_at_rate: Rate,
    /// `R_T ← R_C` at every cut (true), or only after an increase event since the last cut.
    pub clamp_target_rate: bool,
    /// `R_T ← R_C ← rate_on_first_cnp·R_C` at the flow's first CNP.
    pub rate_on_first_cnp: f64,
    /// Lowest rate.
    pub min_rate: Rate,
}

impl DcqcnPreset {
    /// The preset's values (module doc's table; each cites its source there).
    pub fn config(self) -> DcqcnConfig {
        match self {
            // The DCQCN paper as we remember it (not in `../shared/papers/`): g = 1/256,
            // N = 50 µs, K = T = 55 µs, B = 10 MB, F = 5, R_AI = 40 Mb/s, R_HAI = 400 Mb/s;
            // the 100 Mb/s floor is the reference's `MinRate` attribute default.
            DcqcnPreset::DcqcnPaper => DcqcnConfig {
                preset: self,
                g: 1.0 / 256.0,
                cnp_interval: Time::from_us(50),
                decrease_interval: Time::ZERO,
                alpha_update: AlphaUpdate::OnCnp,
                alpha_timer: Time::from_us(55),
                rate_timer: Time::from_us(55),
                byte_counter: Bytes(10_000_000),
                increase: IncreaseSchedule::Paper,
                f: 5,
                r_ai: Rate(40_000_000),
                r_hai: Rate(400_000_000),
                increase_at_rate: Rate(0),
                clamp_target_rate: true,
                rate_on_first_cnp: 1.0,
                min_rate: Rate(100_000_000),
            },
            // HPCC ns-3 `run.py`, `--cc dcqcn`: ALPHA_RESUME_INTERVAL 1, RATE_DECREASE_INTERVAL
            // 4, RP_TIMER 300, EWMA_GAIN 1/256, FAST_RECOVERY_TIMES 1, CLAMP_TARGET_RATE 0,
            // RATE_AI 5·bw/25 and RATE_HAI 50·bw/25 Mb/s, MIN_RATE 1000 Mb/s, L2_ACK_INTERVAL
            // 1; `rdma-hw.cc`: no byte counter, RateOnFirstCnp 1.0.
            DcqcnPreset::HpccNs3 => DcqcnConfig {
                preset: self,
                g: 1.0 / 256.0,
                cnp_interval: Time::ZERO,
                decrease_interval: Time::from_us(4),
                alpha_update: AlphaUpdate::Timer,
                alpha_timer: Time::from_us(1),
                rate_timer: Time::from_us(300),
                byte_counter: Bytes(0),
                increase: IncreaseSchedule::Stages,
                f: 1,
                r_ai: Rate(5_000_000),
                r_hai: Rate(50_000_000),
                increase_at_rate: Rate::gbps(25),
                clamp_target_rate: false,
                rate_on_first_cnp: 1.0,
                min_rate: Rate(1_000_000_000),
            },
            // HPCC ns-3 `run.py`, `--cc dcqcn_paper`: as `dcqcn` but ALPHA_RESUME_INTERVAL 50,
            // RATE_DECREASE_INTERVAL 50, RP_TIMER 55.
            DcqcnPreset::HpccNs3Paper => DcqcnConfig {
                preset: self,
                alpha_timer: Time::from_us(50),
                decrease_interval: Time::from_us(50),
                rate_timer: Time::from_us(55),
                ..DcqcnPreset::HpccNs3.config()
            },
        }
    }
}

impl Default for DcqcnConfig {
    fn default() -> DcqcnConfig {
        DcqcnPreset::DcqcnPaper.config()
    }
}

/// The `[dcqcn]` table as written: a preset and the fields that override it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DcqcnSpec {
    /// Starting values: `dcqcn_paper` (default), `hpcc_ns3`, `hpcc_ns3_paper` (a name, so
    /// that an unknown one is an error naming this field).
    #[schemars(with = "Option<DcqcnPreset>")]
    pub preset: Option<String>,
    /// `α` gain `g`.
    pub g: Option<f64>,
    /// NP's minimum CNP spacing (0: every marked packet's ACK is a CNP).
    pub cnp_interval: Option<Time>,
    /// Period of the rate-decrease check (0: cut at each CNP).
    pub decrease_interval: Option<Time>,
    /// `on_cnp` (the paper) or `timer` (the reference).
    pub alpha_update: Option<AlphaUpdate>,
    /// `α` timer.
    pub alpha_timer: Option<Time>,
    /// Rate-increase timer.
    pub rate_timer: Option<Time>,
    /// Rate-increase byte counter (0: none).
    pub byte_counter: Option<Bytes>,
    /// `paper` or `stages`.
    pub increase: Option<IncreaseSchedule>,
    /// Fast-recovery steps.
    pub f: Option<u32>,
    /// Additive increase.
    pub r_ai: Option<Rate>,
    /// Hyper increase.
    pub r_hai: Option<Rate>,
    /// NIC rate at which `r_ai`, `r_hai` hold (0: no scaling).
    pub increase_at_rate: Option<Rate>,
    /// Clamp the target rate at every cut.
    pub clamp_target_rate: Option<bool>,
    /// Fraction of the rate kept at the first CNP.
    pub rate_on_first_cnp: Option<f64>,
    /// Lowest rate.
    pub min_rate: Option<Rate>,
}

impl DcqcnPreset {
    /// Every preset's name, in the module doc's order.
    pub const NAMES: [&'static str; 3] = ["dcqcn_paper", "hpcc_ns3", "hpcc_ns3_paper"];

    /// The preset called `name`.
    pub fn from_name(name: &str) -> Option<DcqcnPreset> {
        match name {
            "dcqcn_paper" => Some(DcqcnPreset::DcqcnPaper),
            "hpcc_ns3" => Some(DcqcnPreset::HpccNs3),
            "hpcc_ns3_paper" => Some(DcqcnPreset::HpccNs3Paper),
            _ => None,
        }
    }

    /// The preset's name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

impl TryFrom<DcqcnSpec> for DcqcnConfig {
    type Error = String;

    fn try_from(s: DcqcnSpec) -> std::result::Result<DcqcnConfig, String> {
        let preset = match s.preset.as_deref() {
            None => DcqcnPreset::default(),
            Some(name) => DcqcnPreset::from_name(name).ok_or_else(|| {
                format!(
                    "preset: unknown DCQCN preset `{name}` (known: {})",
                    DcqcnPreset::NAMES.join(", ")
                )
            })?,
        };
        let p = preset.config();
        Ok(DcqcnConfig {
            preset: p.preset,
            g: s.g.unwrap_or(p.g),
            cnp_interval: s.cnp_interval.unwrap_or(p.cnp_interval),
            decrease_interval: s.decrease_interval.unwrap_or(p.decrease_interval),
            alpha_update: s.alpha_update.unwrap_or(p.alpha_update),
            alpha_timer: s.alpha_timer.unwrap_or(p.alpha_timer),
            rate_timer: s.rate_timer.unwrap_or(p.rate_timer),
            byte_counter: s.byte_counter.unwrap_or(p.byte_counter),
            increase: s.increase.unwrap_or(p.increase),
            f: s.f.unwrap_or(p.f),
            r_ai: s.r_ai.unwrap_or(p.r_ai),
            r_hai: s.r_hai.unwrap_or(p.r_hai),
            increase_at_rate: s.increase_at_rate.unwrap_or(p.increase_at_rate),
            clamp_target_rate: s.clamp_target_rate.unwrap_or(p.clamp_target_rate),
            rate_on_first_cnp: s.rate_on_first_cnp.unwrap_or(p.rate_on_first_cnp),
            min_rate: s.min_rate.unwrap_or(p.min_rate),
        })
    }
}

impl From<DcqcnConfig> for DcqcnSpec {
    fn from(c: DcqcnConfig) -> DcqcnSpec {
        DcqcnSpec {
            preset: Some(c.preset.name().to_string()),
            g: Some(c.g),
            cnp_interval: Some(c.cnp_interval),
            decrease_interval: Some(c.decrease_interval),
            alpha_update: Some(c.alpha_update),
            alpha_timer: Some(c.alpha_timer),
            rate_timer: Some(c.rate_timer),
            byte_counter: Some(c.byte_counter),
            increase: Some(c.increase),
            f: Some(c.f),
            r_ai: Some(c.r_ai),
            r_hai: Some(c.r_hai),
            increase_at_rate: Some(c.increase_at_rate),
            clamp_target_rate: Some(c.clamp_target_rate),
            rate_on_first_cnp: Some(c.rate_on_first_cnp),
            min_rate: Some(c.min_rate),
        }
    }
}

impl DcqcnConfig {
    /// Checks value ranges; `at` is the table's path (`packet config.dcqcn`).
    pub fn validate(&self, at: &str) -> Result<()> {
        let f = |n: &str| format!("{at}.{n}");
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(Error::invalid(
                f("g"),
                format!("must be in (0, 1], got {}", self.g),
            ));
        }
        for (n, t) in [
            ("alpha_timer", self.alpha_timer),
            ("rate_timer", self.rate_timer),
        ] {
            if t.0 == 0 {
                return Err(Error::invalid(f(n), "must be positive"));
            }
        }
        if self.min_rate.0 == 0 {
            return Err(Error::invalid(f("min_rate"), "must be positive"));
        }
        if !(self.rate_on_first_cnp > 0.0 && self.rate_on_first_cnp <= 1.0) {
            return Err(Error::invalid(
                f("rate_on_first_cnp"),
                format!("must be in (0, 1], got {}", self.rate_on_first_cnp),
            ));
        }
        if self.increase == IncreaseSchedule::Stages && self.byte_counter.0 > 0 {
            return Err(Error::invalid(
                f("byte_counter"),
                "must be 0 with increase = \"stages\" (its stages count timer events only)",
            ));
        }
        Ok(())
    }
}

/// DCQCN's reaction point (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Dcqcn {
    cfg: DcqcnConfig,
    line: f64,
    /// `R_AI`, `R_HAI` at this flow's NIC rate, bit/s.
    r_ai: f64,
    r_hai: f64,
    /// Current rate `R_C`, bit/s.
    rc: f64,
    /// Target rate `R_T`, bit/s.
    rt: f64,
    alpha: f64,
    /// When the last CNP counted (the NP's spacing).
    last_cnp: Option<u64>,
    /// A CNP came since the last α tick / decrease check (timer-driven variants).
    cnp_for_alpha: bool,
    cnp_for_decrease: bool,
    next_alpha: Option<u64>,
    next_decrease: Option<u64>,
    next_timer: Option<u64>,
    bytes: u64,
    /// Increase events since the last cut: timer (the stage `s` of the stages schedule) and
    /// byte counter.
    timer_events: u32,
    byte_events: u32,
    started: bool,
}

/// Which timer fires next (on ties in this order: α, decrease check, rate increase).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Timer {
    Alpha,
    Decrease,
    Increase,
}

impl Dcqcn {
    /// DCQCN with `cfg` for the flow described by `ctx`, starting at line rate.
    pub fn new(cfg: &DcqcnConfig, ctx: &CcContext) -> Dcqcn {
        let line = ctx.nic_rate.bps();
        let scale = if cfg.increase_at_rate.0 > 0 {
            line / cfg.increase_at_rate.bps()
        } else {
            1.0
        };
        Dcqcn {
            cfg: *cfg,
            line,
            r_ai: cfg.r_ai.bps() * scale,
            r_hai: cfg.r_hai.bps() * scale,
            rc: line,
            rt: line,
            alpha: 1.0,
            last_cnp: None,
            cnp_for_alpha: false,
            cnp_for_decrease: false,
            next_alpha: None,
            next_decrease: None,
            next_timer: None,
            bytes: 0,
            timer_events: 0,
            byte_events: 0,
            started: false,
        }
    }

    /// Current rate `R_C`, bit/s.
    pub fn rate(&self) -> f64 {
        self.rc
    }

    /// Target rate `R_T`, bit/s.
    pub fn target_rate(&self) -> f64 {
        self.rt
    }

    /// `α`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    fn floor(&self) -> f64 {
        self.cfg.min_rate.bps().min(self.line)
    }

    /// `R_C ← (R_T + R_C)/2` after `R_T` moved up by `step` (at most to the line rate).
    fn raise(&mut self, step: f64) {
        self.rt = (self.rt + step).min(self.line);
        self.rc = ((self.rt + self.rc) / 2.0).clamp(self.floor(), self.line);
    }

    /// One rate-increase event of the paper's schedule.
    fn increase_paper(&mut self) {
        let (i, j) = (
            self.timer_events.min(self.byte_events),
            self.timer_events.max(self.byte_events),
        );
        let f = self.cfg.f;
        if i > f {
            self.raise((i - f) as f64 * self.r_hai);
        } else if j >= f {
            self.raise(self.r_ai);
        } else {
            self.raise(0.0);
        }
    }

    /// One timer event of the stages schedule, at stage `s` (then `s ← s + 1`).
    fn increase_stage(&mut self) {
        let s = self.timer_events;
        if s < self.cfg.f {
            self.raise(0.0);
        } else if s == self.cfg.f {
            self.raise(self.r_ai);
        } else {
            self.raise(self.r_hai);
        }
        self.timer_events = s.saturating_add(1);
    }

    /// The rate cut at `now` (module doc, "RP, rate decrease").
    fn cut(&mut self, now: u64) {
        if self.cfg.clamp_target_rate || self.timer_events > 0 || self.byte_events > 0 {
            self.rt = self.rc;
        }
        self.rc = (self.rc * (1.0 - self.alpha / 2.0)).max(self.floor());
        self.timer_events = 0;
        self.byte_events = 0;
        self.bytes = 0;
        self.next_timer = Some(now + self.cfg.rate_timer.0);
    }

    /// A CNP at `now` (module doc, "RP, first CNP", "rate decrease", "α").
    fn cnp(&mut self, now: u64) {
        let first = self.last_cnp.is_none();
        self.last_cnp = Some(now);
        if first {
            self.rc = (self.rc * self.cfg.rate_on_first_cnp).max(self.floor());
            self.rt = self.rc;
        }
        if self.cfg.alpha_update == AlphaUpdate::Timer {
            if first {
                self.alpha = 1.0;
                self.next_alpha = Some(now + self.cfg.alpha_timer.0);
            } else {
                self.cnp_for_alpha = true;
            }
        }
        if self.cfg.decrease_interval.0 == 0 {
            self.cut(now);
        } else {
            self.cnp_for_decrease = true;
            if first {
                self.next_decrease = Some(now + self.cfg.decrease_interval.0);
            }
        }
        if self.cfg.alpha_update == AlphaUpdate::OnCnp {
            self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g;
            self.next_alpha = Some(now + self.cfg.alpha_timer.0);
        }
    }

    /// The time up to which ticks of `which` are fired at once (inclusive): the next due time
    /// of any other timer (α and the decrease check go first on ties), or `now`. With the
    /// paper's α (read only at a CNP, after every timer) α's ticks all go at once.
    fn limit(&self, which: Timer, now: u64) -> u64 {
        if which == Timer::Alpha
            && self.cfg.alpha_update == AlphaUpdate::OnCnp
            && self.cfg.decrease_interval.0 == 0
        {
            return now;
        }
        [
            (self.next_alpha, Timer::Alpha),
            (self.next_decrease, Timer::Decrease),
            (self.next_timer, Timer::Increase),
        ]
        .into_iter()
        .filter(|&(_, w)| w != which)
        .filter_map(|(t, _)| t)
        // The increase tick goes last on ties: only its ticks before the others' go at once.
        .map(|t| if which == Timer::Increase { t - 1 } else { t })
        .fold(now, u64::min)
    }

    /// Fires every timer due by `now`, in time order.
    fn run_timers(&mut self, now: u64) {
        loop {
            let mut next: Option<(u64, Timer)> = None;
            for (t, which) in [
                (self.next_alpha, Timer::Alpha),
                (self.next_decrease, Timer::Decrease),
                (self.next_timer, Timer::Increase),
            ] {
                if let Some(t) = t.filter(|&t| t <= now) {
                    if next.is_none_or(|(n, _)| t < n) {
                        next = Some((t, which));
                    }
                }
            }
            let Some((t, which)) = next else { break };
            match which {
                Timer::Alpha => {
                    // The first tick sees the CNP flag; the rest of a run of ticks with no
                    // other event between them only decay.
                    let k = self.cfg.alpha_timer.0;
                    let n = (self.limit(Timer::Alpha, now) - t) / k + 1;
                    let g = self.cfg.g;
                    let decay = |m: u64| (1.0 - g).powi(m.min(i32::MAX as u64) as i32);
                    if self.cnp_for_alpha {
                        self.alpha = (1.0 - g) * self.alpha + g;
                        self.alpha *= decay(n - 1);
                    } else {
                        self.alpha *= decay(n);
                    }
                    self.cnp_for_alpha = false;
                    self.next_alpha = Some(t + n * k);
                }
                Timer::Decrease => {
                    let d = self.cfg.decrease_interval.0;
                    let mut n = 1;
                    if self.cnp_for_decrease {
                        self.cnp_for_decrease = false;
                        self.cut(t);
                    } else {
                        n = (self.limit(Timer::Decrease, now) - t) / d + 1;
                    }
                    self.next_decrease = Some(t + n * d);
                }
                Timer::Increase => {
                    self.next_timer = Some(t + self.cfg.rate_timer.0);
                    if self.rt >= self.line && self.rc >= self.line {
                        // Nothing left to raise: later ticks only advance the counters'
                        // time (the stage and the paper's `j` keep counting).
                        let tt = self.cfg.rate_timer.0;
                        let n = (self.limit(Timer::Increase, now) - t) / tt + 1;
                        self.timer_events = self
                            .timer_events
                            .saturating_add(n.min(u32::MAX as u64) as u32);
                        self.next_timer = Some(t + n * tt);
                        continue;
                    }
                    match self.cfg.increase {
                        IncreaseSchedule::Paper => {
                            self.timer_events = self.timer_events.saturating_add(1);
                            self.increase_paper();
                        }
                        IncreaseSchedule::Stages => self.increase_stage(),
                    }
                }
            }
        }
    }
}

impl CongestionControl for Dcqcn {
    fn on_ack(&mut self, a: &AckInfo<'_>) {
        let now = a.now.0;
        if !self.started {
            self.started = true;
            // The paper's timers run from the flow's start; the reference's start at the
            // first CNP (α, decrease check) and the first cut (rate increase).
            if self.cfg.alpha_update == AlphaUpdate::OnCnp {
                self.next_alpha = Some(now + self.cfg.alpha_timer.0);
            }
            if self.cfg.increase == IncreaseSchedule::Paper {
                self.next_timer = Some(now + self.cfg.rate_timer.0);
            }
        }
        self.run_timers(now);
        let b = self.cfg.byte_counter.0;
        if b > 0 {
            self.bytes += a.acked;
            while self.bytes >= b {
                self.bytes -= b;
                self.byte_events = self.byte_events.saturating_add(1);
                self.increase_paper();
            }
        }
        if a.ece
            && self
                .last_cnp
                .is_none_or(|t| now.saturating_sub(t) >= self.cfg.cnp_interval.0)
        {
            self.cnp(now);
        }
    }

    fn on_loss(&mut self, _now: Time, _in_flight: u64) {}

    fn on_timeout(&mut self, _now: Time, _in_flight: u64) {}

    fn cwnd(&self) -> u64 {
        u64::MAX
    }

    fn pacing_rate(&self) -> Option<Rate> {
        Some(Rate(self.rc as u64))
    }

    fn ecn_capable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn ack(now_us: u64, ece: bool) -> AckInfo<'static> {
        ack_bytes(now_us, ece, 1000)
    }

    pub(super) fn ack_bytes(now_us: u64, ece: bool, acked: u64) -> AckInfo<'static> {
        AckInfo {
            now: Time::from_us(now_us),
            ..crate::test_support::ecn_ack(acked, 0, 0, ece)
        }
    }

    pub(super) fn ctx() -> CcContext {
        CcContext {
            mss: 1000,
            header: 48,
            nic_rate: Rate::gbps(100),
            base_rtt: Time::from_us(5),
            weight: 1.0,
        }
    }

    /// `a` and `b` (bit/s) agree to 1e-9 relative (hand-worked values in Gb/s, f64 sums).
    pub(super) fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn cnp_cuts_by_half_alpha_then_fast_recovery_halves_the_gap() {
        // α starts at 1: the first CNP halves the rate (R_T = 100, R_C = 50 Gb/s) and moves
        // α to (1 − g) + g = 1. A second ECE within 50 µs is not a CNP. Then each 55 µs timer
        // event (fast recovery, < F = 5 events) averages R_C with R_T: 75, then 87.5 Gb/s.
        let mut d = Dcqcn::new(&DcqcnConfig::default(), &ctx());
        d.on_ack(&ack(0, true));
        assert_eq!(d.rate(), 50e9);
        d.on_ack(&ack(10, true));
        assert_eq!(d.rate(), 50e9, "within the 50 us CNP interval");
        d.on_ack(&ack(56, false));
        assert_eq!(d.rate(), 75e9);
        d.on_ack(&ack(111, false));
        assert_eq!(d.rate(), 87.5e9);
    }
}

#[cfg(test)]
mod stage_tests {
    use super::tests::{ack, ack_bytes, close, ctx};
    use super::*;

    #[test]
    fn paper_schedule_fast_recovery_additive_then_hyper_by_the_smaller_count() {
        // The paper's schedule, with a 1,000-byte byte counter (one byte event per ACK), a
        // 10 µs rate timer, F = 2 and R_HAI = 100 Mb/s; rates in Gb/s, α stays 1 (every CNP
        // adds g to (1 − g)·1; the 1 ms α timer never fires).
        // t = 0 (ECE): one byte event (at line rate, nothing moves), then the CNP: R_T = 100,
        //   R_C = 50. t = 50 (ECE): timer events T = 1..5 at 10..50 µs: T = 1 fast recovery
        //   (j = 1 < F): R_C = 75; T = 2..5 additive (j ≥ F, i = 0; R_T stays at the line rate):
        //   87.5, 93.75, 96.875, 98.4375; the byte event (i = 1, j = 5): additive, 99.21875;
        //   the CNP (50 µs after the last): R_T = 99.21875, R_C = 49.609375.
        // t = 51: B = 1 (j = 1): fast recovery, R_C = 74.4140625.
        // t = 52: B = 2 (j = 2, i = 0): additive, R_T = 99.25875, R_C = 86.83640625.
        // t = 60: T = 1 (i = 1, j = 2): additive, R_T = 99.29875, R_C = 93.067578125; B = 3:
        //   additive, R_T = 99.33875, R_C = 96.2031640625.
        // t = 80, no bytes: T = 2 (i = 2 = F): additive, R_T = 99.37875, R_C = 97.79095703125;
        //   T = 3 (i = 3 > F): hyper by (i − F)·R_HAI = 0.1: R_T = 99.47875,
        //   R_C = 98.634853515625.
        // t = 81: B = 4, i = 3: hyper 0.1, R_T = 99.57875, R_C = 99.1068017578125.
        // t = 90, no bytes: T = 4, i = 4: hyper 2·0.1, R_T = 99.77875, R_C = 99.44277587890625.
        let cfg = DcqcnConfig {
            byte_counter: Bytes(1000),
            f: 2,
            rate_timer: Time::from_us(10),
            alpha_timer: Time::from_ms(1),
            r_hai: Rate(100_000_000),
            ..DcqcnConfig::default()
        };
        let mut d = Dcqcn::new(&cfg, &ctx());
        let expect = |d: &Dcqcn, rt: f64, rc: f64| {
            assert!(
                close(d.target_rate(), rt * 1e9) && close(d.rate(), rc * 1e9),
                "R_T {} R_C {}, expected {rt} {rc}",
                d.target_rate() / 1e9,
                d.rate() / 1e9
            );
        };
        d.on_ack(&ack(0, true));
        expect(&d, 100.0, 50.0);
        d.on_ack(&ack(50, true));
        expect(&d, 99.21875, 49.609375);
        d.on_ack(&ack(51, false));
        expect(&d, 99.21875, 74.4140625);
        d.on_ack(&ack(52, false));
        expect(&d, 99.25875, 86.83640625);
        d.on_ack(&ack(60, false));
        expect(&d, 99.33875, 96.2031640625);
        d.on_ack(&ack_bytes(80, false, 0));
        expect(&d, 99.47875, 98.634853515625);
        d.on_ack(&ack(81, false));
        expect(&d, 99.57875, 99.1068017578125);
        d.on_ack(&ack_bytes(90, false, 0));
        expect(&d, 99.77875, 99.44277587890625);
    }

    #[test]
    fn reference_stages_first_cnp_rate_then_one_additive_step_then_hyper_steps() {
        // `hpcc_ns3` at 100 Gb/s (R_AI = 5·100/25 = 20 Mb/s, R_HAI = 200 Mb/s, F = 1, rate
        // timer 300 µs, decrease check every 4 µs, α timer 1 µs) with rate_on_first_cnp = 0.5.
        // t = 0 (ECE), the first CNP: R_T = R_C = 50 Gb/s, α = 1, no cut yet.
        // t = 4 µs: α ticks at 1..4 µs with no CNP since: α = (1 − g)^4; the decrease check at
        //   4 µs sees the CNP: no increase event since the last cut (none yet) and no clamping,
        //   so R_T stays 50; R_C = 50·(1 − α/2).
        // Rate timer from the cut: 304 µs stage 0 < F: fast recovery R_C = (R_C + 50)/2;
        //   604 µs stage 1 = F: R_T = 50.02, R_C = (R_C + R_T)/2; 904 µs stage 2: hyper,
        //   R_T = 50.22; 1,204 µs: 50.42.
        let cfg = DcqcnConfig {
            rate_on_first_cnp: 0.5,
            ..DcqcnPreset::HpccNs3.config()
        };
        let g = cfg.g;
        let mut d = Dcqcn::new(&cfg, &ctx());
        d.on_ack(&ack(0, true));
        assert_eq!((d.target_rate(), d.rate(), d.alpha()), (50e9, 50e9, 1.0));
        d.on_ack(&ack(4, false));
        let a4 = (1.0 - g).powi(4);
        assert!(close(d.alpha(), a4), "{}", d.alpha());
        let mut rc = 50e9 * (1.0 - a4 / 2.0);
        assert_eq!(
            d.target_rate(),
            50e9,
            "no clamping before an increase event"
        );
        assert!(close(d.rate(), rc));
        d.on_ack(&ack(303, false));
        assert!(close(d.rate(), rc), "no increase before the 300 us timer");
        d.on_ack(&ack(304, false));
        rc = (rc + 50e9) / 2.0;
        assert!(
            close(d.rate(), rc) && d.target_rate() == 50e9,
            "fast recovery"
        );
        let mut rt = 50e9;
        for (t, step) in [(604, 20e6), (904, 200e6), (1204, 200e6)] {
            d.on_ack(&ack(t, false));
            rt += step;
            rc = (rc + rt) / 2.0;
            assert!(
                close(d.target_rate(), rt) && close(d.rate(), rc),
                "t = {t} us: R_T {} R_C {}",
                d.target_rate(),
                d.rate()
            );
        }
        assert!(
            close(d.alpha(), (1.0 - g).powi(1204)),
            "α decays 1,204 ticks"
        );
    }

    #[test]
    fn reference_clamping_off_keeps_the_target_across_repeated_cuts() {
        // `hpcc_ns3`: the first CNP at 0 (α = 1), another at 4 µs (after the 4 µs check has
        // cut once: α1 = (1 − g)^4, R_C1 = 100·(1 − α1/2)), a check at 8 µs cuts again
        // (α2 = ((1 − g)·α1 + g)·(1 − g)^3: the 5 µs tick sees the 4 µs CNP). With no increase
        // event between the cuts, clamping off leaves R_T at 100 Gb/s (the reference's
        // CLAMP_TARGET_RATE 0), clamping on sets R_T = R_C1. The first fast-recovery step at
        // 308 µs then averages towards 100 or towards R_C1.
        for clamp in [false, true] {
            let cfg = DcqcnConfig {
                clamp_target_rate: clamp,
                ..DcqcnPreset::HpccNs3.config()
            };
            let g = cfg.g;
            let mut d = Dcqcn::new(&cfg, &ctx());
            d.on_ack(&ack(0, true));
            d.on_ack(&ack(4, true));
            let a1 = (1.0 - g).powi(4);
            let rc1 = 100e9 * (1.0 - a1 / 2.0);
            assert!(close(d.rate(), rc1));
            d.on_ack(&ack(8, false));
            let a2 = ((1.0 - g) * a1 + g) * (1.0 - g).powi(3);
            assert!(close(d.alpha(), a2), "{} vs {a2}", d.alpha());
            let rc2 = rc1 * (1.0 - a2 / 2.0);
            let rt = if clamp { rc1 } else { 100e9 };
            assert!(close(d.rate(), rc2), "clamp {clamp}");
            assert!(
                close(d.target_rate(), rt),
                "clamp {clamp}: R_T {}",
                d.target_rate()
            );
            d.on_ack(&ack(308, false));
            assert!(close(d.rate(), (rc2 + rt) / 2.0), "clamp {clamp}");
        }
    }

    #[test]
    fn presets_parse_override_and_reject_bad_values() {
        // A preset gives its table; a field beside it overrides only that field; an unknown
        // preset and a byte counter under the stages schedule are one-line errors naming
        // the field.
        let c: DcqcnConfig = toml::from_str("preset = \"hpcc_ns3_paper\"").unwrap();
        assert_eq!(c, DcqcnPreset::HpccNs3Paper.config());
        assert_eq!(c.rate_timer, Time::from_us(55));
        assert_eq!(c.min_rate, Rate(1_000_000_000));
        let c: DcqcnConfig =
            toml::from_str("preset = \"hpcc_ns3\"\nrate_timer = \"100us\"").unwrap();
        assert_eq!(c.rate_timer, Time::from_us(100));
        assert_eq!(c.decrease_interval, Time::from_us(4));
        let c: DcqcnConfig = toml::from_str("f = 3").unwrap();
        assert_eq!((c.preset, c.f), (DcqcnPreset::DcqcnPaper, 3));
        let e = toml::from_str::<DcqcnConfig>("preset = \"mellanox\"")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("preset: unknown DCQCN preset `mellanox`") && e.contains("hpcc_ns3"),
            "{e}"
        );
        let c: DcqcnConfig =
            toml::from_str("preset = \"hpcc_ns3\"\nbyte_counter = \"10MB\"").unwrap();
        let e = c.validate("engine.dcqcn").unwrap_err().to_string();
        assert!(
            e.contains("engine.dcqcn.byte_counter") && !e.contains('\n'),
            "{e}"
        );
        // Round trip: the written table reads back as the same configuration.
        let s = toml::to_string(&DcqcnPreset::HpccNs3.config()).unwrap();
        assert_eq!(
            toml::from_str::<DcqcnConfig>(&s).unwrap(),
            DcqcnPreset::HpccNs3.config()
        );
    }
}
