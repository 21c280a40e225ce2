//! The congestion controls a scenario can name (`transport = "dctcp"`) and their static
//! dispatch.

use crate::engine::packet::cc::{AckInfo, CongestionControl};
use crate::engine::packet::pkt::{CtrlArea, Packet};
use crate::units::{Rate, Time};

/// The registered congestion controls (static dispatch) plus a boxed one for any other.
pub enum CcImpl {
    /// [`crate::schemes::dctcp::Dctcp`].
    Dctcp(crate::schemes::dctcp::Dctcp),
    /// [`crate::schemes::dctcp::Reno`].
    Reno(crate::schemes::dctcp::Reno),
    /// [`crate::schemes::cubic::Cubic`].
    Cubic(crate::schemes::cubic::Cubic),
    /// [`crate::schemes::hpcc::Hpcc`].
    Hpcc(crate::schemes::hpcc::Hpcc),
    /// [`crate::schemes::delay_aimd::DelayAimd`].
    DelayAimd(crate::schemes::delay_aimd::DelayAimd),
    /// [`crate::schemes::dcqcn::Dcqcn`].
    Dcqcn(crate::schemes::dcqcn::Dcqcn),
    /// [`crate::systems::soze::Soze`].
    Soze(crate::systems::soze::Soze),
    /// [`crate::schemes::pfabric::Pfabric`].
    Pfabric(crate::schemes::pfabric::Pfabric),
    /// [`crate::schemes::rcp::Rcp`].
    Rcp(crate::schemes::rcp::Rcp),
    /// [`crate::schemes::timely::Timely`].
    Timely(crate::schemes::timely::Timely),
    /// [`crate::systems::sperc::packet::SPercSender`].
    Sperc(crate::systems::sperc::packet::SPercSender),
    /// [`crate::schemes::d2tcp::D2tcp`].
    D2tcp(crate::schemes::d2tcp::D2tcp),
    /// [`crate::schemes::l2dct::L2dct`].
    L2dct(crate::schemes::l2dct::L2dct),
    /// Any other [`CongestionControl`].
    Custom(Box<dyn CongestionControl>),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            CcImpl::Dctcp($c) => $e,
            CcImpl::Reno($c) => $e,
            CcImpl::Cubic($c) => $e,
            CcImpl::Hpcc($c) => $e,
            CcImpl::DelayAimd($c) => $e,
            CcImpl::Dcqcn($c) => $e,
            CcImpl::Soze($c) => $e,
            CcImpl::Pfabric($c) => $e,
            CcImpl::Rcp($c) => $e,
            CcImpl::Timely($c) => $e,
            CcImpl::Sperc($c) => $e,
            CcImpl::D2tcp($c) => $e,
            CcImpl::L2dct($c) => $e,
            CcImpl::Custom($c) => $e,
        }
    };
}

impl CongestionControl for CcImpl {
    #[inline]
    fn on_ack(&mut self, ack: &AckInfo<'_>) {
        dispatch!(self, c => c.on_ack(ack))
    }
    fn on_loss(&mut self, now: Time, in_flight: u64) {
        dispatch!(self, c => c.on_loss(now, in_flight))
    }
    fn on_timeout(&mut self, now: Time, in_flight: u64) {
        dispatch!(self, c => c.on_timeout(now, in_flight))
    }
    fn on_weight(&mut self, weight: f64) {
        dispatch!(self, c => c.on_weight(weight))
    }
    fn wants_nic_share(&self) -> bool {
        dispatch!(self, c => c.wants_nic_share())
    }
    fn on_nic_share(&mut self, share: Rate) {
        dispatch!(self, c => c.on_nic_share(share))
    }
    fn control_at(&self) -> Option<Time> {
        dispatch!(self, c => c.control_at())
    }
    fn make_control(&mut self, now: Time, unsent: u64, area: &mut CtrlArea) -> bool {
        dispatch!(self, c => c.make_control(now, unsent, area))
    }
    fn make_fin(&mut self, now: Time, area: &mut CtrlArea) -> bool {
        dispatch!(self, c => c.make_fin(now, area))
    }
    fn on_control(&mut self, pkt: &Packet, area: &CtrlArea, now: Time) {
        dispatch!(self, c => c.on_control(pkt, area, now))
    }
    #[inline]
    fn may_send(&self) -> bool {
        dispatch!(self, c => c.may_send())
    }
    #[inline]
    fn cwnd(&self) -> u64 {
        dispatch!(self, c => c.cwnd())
    }
    #[inline]
    fn pacing_rate(&self) -> Option<Rate> {
        dispatch!(self, c => c.pacing_rate())
    }
    #[inline]
    fn release_follows_rate_rise(&self) -> bool {
        dispatch!(self, c => c.release_follows_rate_rise())
    }
    #[inline]
    fn release_follows_rate_fall(&self) -> bool {
        dispatch!(self, c => c.release_follows_rate_fall())
    }
    #[inline]
    fn header_word(&self, remaining: u64) -> u32 {
        dispatch!(self, c => c.header_word(remaining))
    }
    #[inline]
    fn ecn_capable(&self) -> bool {
        dispatch!(self, c => c.ecn_capable())
    }
    fn priority(&self) -> Option<u8> {
        dispatch!(self, c => c.priority())
    }
}

/// The congestion controls' own counters after a packet run of `flows` flows, for the run's
/// summary (`RunOutput::counters`): today Söze's ([`crate::systems::soze::run_counters`]);
/// empty when no flow runs a scheme that reports any.
pub fn scheme_counters(sim: &super::PacketSim, flows: usize) -> Vec<(&'static str, f64)> {
    let soze = (0..flows).filter_map(|i| match sim.cc(crate::ids::FlowId(i as u32)) {
        Some(CcImpl::Soze(s)) => Some(s),
        _ => None,
    });
    crate::systems::soze::run_counters(soze)
}

impl From<Box<dyn CongestionControl>> for CcImpl {
    fn from(c: Box<dyn CongestionControl>) -> CcImpl {
        CcImpl::Custom(c)
    }
}
