//! Progress of a running simulation, shared with another thread (a progress bar), and the way
//! to stop a run early (Ctrl-C) while keeping what it computed.
//!
//! An engine calls [`Progress::update`] every [`Progress::EVERY`] events or so; it costs three
//! relaxed atomic stores. When [`Progress::cancel`] has been called, `update` returns `false`
//! and the engine stops as if it had reached its stop time: flows not finished are reported
//! unfinished and the run is marked incomplete.
//!
//! The caller sets the run's simulated-time horizon ([`Progress::set_horizon`]: the scenario's
//! `stop_at`, or the packet engine's default horizon) before the engine starts, so a progress
//! display can show simulated time against it, with an ETA, even while no flow has finished.

use crate::units::Time;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Shared progress counters and a cancel flag.
#[derive(Debug, Default)]
pub struct Progress {
    sim_time_ps: AtomicU64,
    events: AtomicU64,
    flows_finished: AtomicU64,
    /// The simulated time at which the run stops at the latest; 0 while unknown.
    horizon_ps: AtomicU64,
    cancelled: AtomicBool,
}

/// One reading of a [`Progress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgressSnapshot {
    /// Simulated time reached.
    pub sim_time: Time,
    /// Events processed.
    pub events: u64,
    /// Flows finished.
    pub flows_finished: u64,
    /// The simulated time at which the run stops at the latest, if known.
    pub horizon: Option<Time>,
    /// Whether the run was asked to stop.
    pub cancelled: bool,
}

impl Progress {
    /// How many events an engine processes between two updates (a power of two, so the check
    /// is a mask).
    pub const EVERY: u64 = 1 << 14;

    /// Records where the run is; `false` if the run should stop now.
    #[inline]
    pub fn update(&self, now: Time, events: u64, flows_finished: u64) -> bool {
        self.sim_time_ps.store(now.0, Ordering::Relaxed);
        self.events.store(events, Ordering::Relaxed);
        self.flows_finished.store(flows_finished, Ordering::Relaxed);
        !self.cancelled.load(Ordering::Relaxed)
    }

    /// Records the simulated time at which the run stops at the latest (its `stop_at`).
    pub fn set_horizon(&self, horizon: Time) {
        self.horizon_ps.store(horizon.0, Ordering::Relaxed);
    }

    /// Asks the run to stop at its next update.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether [`Progress::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// The latest update.
    pub fn snapshot(&self) -> ProgressSnapshot {
        ProgressSnapshot {
            sim_time: Time(self.sim_time_ps.load(Ordering::Relaxed)),
            events: self.events.load(Ordering::Relaxed),
            flows_finished: self.flows_finished.load(Ordering::Relaxed),
            horizon: match self.horizon_ps.load(Ordering::Relaxed) {
                0 => None,
                ps => Some(Time(ps)),
            },
            cancelled: self.is_cancelled(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_is_seen_at_the_next_update() {
        let p = Progress::default();
        assert!(p.update(Time::from_us(3), 10, 1));
        assert_eq!(
            p.snapshot(),
            ProgressSnapshot {
                sim_time: Time::from_us(3),
                events: 10,
                flows_finished: 1,
                horizon: None,
                cancelled: false
            }
        );
        p.set_horizon(Time::from_ms(10));
        assert_eq!(p.snapshot().horizon, Some(Time::from_ms(10)));
        p.cancel();
        assert!(!p.update(Time::from_us(4), 20, 2));
        assert!(p.snapshot().cancelled);
    }
}
