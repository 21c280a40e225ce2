//! The registry: the one place that maps the names a scenario uses to the schemes that
//! implement them, and owns the static dispatch of the per-packet path.
//!
//! The packet engine is generic over a [`SchemeSet`]; [`Builtin`] is the set of every
//! registered scheme — baselines from `crate::schemes`, the papers' parts from
//! `crate::systems` — as enums ([`CcImpl`], [`QdiscImpl`], [`AgentImpl`]), each with a
//! `Custom(Box<dyn …>)` variant for anything else. [`PacketSim`] is the engine on that set, and
//! [`PacketConfig`] the scenario's `[engine]` table that chooses and parameterizes it.
//!
//! Adding a scheme: write its file (its type, its config with defaults citing their source,
//! its tests), then here one variant of the enum of its kind, one arm of that enum's
//! `dispatch!`, its name in [`PacketConfig`]'s choice (`TransportKind`, `QdiscConfig` or
//! `PortAgentConfig`) and one arm in [`Builtin`]'s constructor; a host shim (boxed, no enum)
//! its name in [`HostShimKind`] and one arm in [`Builtin`]'s `host_shim`. Nothing under
//! `crate::engine` changes.

pub mod agent;
pub mod bench;
pub mod cc;
pub mod packet_config;
pub mod qdisc;
pub mod rounds;
pub mod shim;

#[cfg(test)]
mod tests_control;
#[cfg(test)]
mod tests_guests;
#[cfg(test)]
mod tests_packet;
#[cfg(test)]
mod tests_pfc;

pub use agent::{AgentImpl, PortAgentConfig};
pub use cc::CcImpl;
pub use packet_config::{
    FlowTransport, PacketConfig, PinnedPath, TagTransport, TcpConfig, TransportKind,
};
pub use qdisc::{QdiscConfig, QdiscImpl};
pub use shim::HostShimKind;

use crate::engine::packet::host::HostShim;
use crate::engine::packet::{CcContext, FlowPaths, PortInfo, SchemeSet, Transport};
use crate::error::Result;
use crate::ids::{LinkId, NodeId};
use crate::schemes::cubic::Cubic;
use crate::schemes::d2tcp::D2tcp;
use crate::schemes::dcqcn::Dcqcn;
use crate::schemes::dctcp::{Dctcp, Reno};
use crate::schemes::delay_aimd::DelayAimd;
use crate::schemes::hpcc::Hpcc;
use crate::schemes::int::IntStamp;
use crate::schemes::l2dct::L2dct;
use crate::schemes::pfabric::Pfabric;
use crate::schemes::rcp::{Rcp, RcpAgent};
use crate::schemes::timely::Timely;
use crate::systems::eba::agent::RateFactorAgent;
use crate::systems::eba::shim::{EbaShim, SharedPlan};
use crate::systems::eba::vms::{RateControl, VmPlan};
use crate::systems::may::{FlowWeights, May};
use crate::systems::soze::{self, Soze};
use crate::systems::sperc::packet::{SPercAgent, SPercSender};
use crate::units::Rate;
use crate::workload::FlowSpec;

/// The packet engine on every registered scheme.
pub type PacketSim = crate::engine::packet::PacketSim<Builtin>;

/// Every registered scheme, chosen and parameterized by a [`PacketConfig`].
pub struct Builtin {
    cfg: PacketConfig,
    /// Söze's `(α, β)` shared by every flow, derived in [`SchemeSet::prepare`].
    soze_range: Option<(f64, f64)>,
    /// The flows' weights by flow id, for weighted MAY's ports: filled in
    /// [`SchemeSet::prepare`] (which runs before the ports are built), one vector shared by
    /// every port.
    may_weights: FlowWeights,
    /// eBA's VM-flows and guarantee table, shared by every host's shim: filled in
    /// [`SchemeSet::prepare`] from the whole flow list (the engine builds host shims before
    /// it, so they hold the cell).
    eba_plan: SharedPlan,
}

impl Builtin {
    /// The schemes `cfg` names (validated).
    pub fn new(cfg: PacketConfig) -> Result<Builtin> {
        cfg.validate()?;
        Ok(Builtin {
            cfg,
            soze_range: None,
            may_weights: FlowWeights::default(),
            eba_plan: SharedPlan::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PacketConfig {
        &self.cfg
    }

    /// Flow `index`'s transport: its own ([`PacketConfig::flow_transports`]) or the run's.
    fn kind_of(&self, index: usize) -> TransportKind {
        match self.cfg.flow_transports.get(index) {
            Some(Some(t)) => t.kind,
            _ => self.cfg.transport,
        }
    }

    /// Söze's `(α, β)` shared by every flow (bit/s per unit weight, Eq. 6: the configured
    /// values or the defaults derived from the flows), if the transport is Söze.
    pub fn soze_range(&self) -> Option<(f64, f64)> {
        self.soze_range
    }
}

impl Builtin {
    /// eBA's plan: VMs placed, flows mapped to VM-flows; under static reservation every VM
    /// with flows needs a guarantee (its VM-flows are limited to it).
    fn prepare_eba(&self, net: &FlowPaths<'_>) -> Result<VmPlan> {
        let eba = &self.cfg.eba;
        let plan = VmPlan::new(eba, net.topo, net.flows)?;
        if eba.rate_control == RateControl::Reservation {
            for p in &plan.pairs {
                for vm in [p.src, p.dst] {
                    let spec = &eba.vms[vm];
                    if spec.guarantee.0 == 0 {
                        return Err(crate::error::Error::invalid(
                            format!("vm {:?}.guarantee", spec.name),
                            "static reservation limits every VM-flow to its guarantee (Eq. 2), \
                             and this VM has flows but no guarantee",
                        ));
                    }
                }
            }
        }
        Ok(plan)
    }
}

impl PacketSim {
    /// The packet engine on the schemes `cfg` names: validates `cfg`, then builds as
    /// [`crate::engine::packet::PacketSim::new`].
    pub fn from_config(
        topo: &crate::topo::Topology,
        flows: &[FlowSpec],
        cfg: PacketConfig,
    ) -> Result<PacketSim> {
        let engine = cfg.engine();
        let pinned = cfg.pinned_paths(topo, flows)?;
        crate::engine::packet::PacketSim::with_paths(
            topo,
            flows,
            engine,
            Builtin::new(cfg)?,
            &pinned,
        )
    }
}

impl SchemeSet for Builtin {
    type Cc = CcImpl;
    type Qdisc = QdiscImpl;
    type Agent = AgentImpl;

    fn prepare(&mut self, net: &FlowPaths<'_>) -> Result<()> {
        if matches!(&self.cfg.qdisc, QdiscConfig::May(m) if m.weighted) {
            let _ = self
                .may_weights
                .set(net.flows.iter().map(|f| f.weight).collect());
        }
        if self.cfg.host_shim == HostShimKind::Acdc {
            self.cfg.acdc.check_flows(net.flows)?;
        }
        if self.cfg.flow_transports.len() <= net.flows.len() {
            self.cfg.resolve_tag_transports(net.flows)?;
        }
        if self.cfg.flow_transports.len() > net.flows.len() {
            return Err(crate::error::Error::invalid(
                "packet config.flow_transports",
                format!(
                    "{} entries for {} flows",
                    self.cfg.flow_transports.len(),
                    net.flows.len()
                ),
            ));
        }
        if self.cfg.host_shim == HostShimKind::Eba {
            let plan = self.prepare_eba(net)?;
            let _ = self.eba_plan.set(plan);
        }
        if !(0..net.flows.len()).any(|i| self.kind_of(i) == TransportKind::Soze) {
            return Ok(());
        }
        // Söze §3.1.4: every flow shares one (α, β); by default derived from the flows.
        let (topo, flows) = (net.topo, net.flows);
        let max_nic = flows
            .iter()
            .map(|f| topo.link(topo.out_links(f.src)[0]).capacity)
            .max()
            .unwrap_or(Rate(1));
        let min_weight = flows.iter().map(|f| f.weight).fold(f64::INFINITY, f64::min);
        let mut load = vec![0.0f64; topo.num_links()];
        for (i, f) in flows.iter().enumerate() {
            for l in net.data_path(i) {
                load[l.idx()] += f.weight;
            }
        }
        let lowest = load
            .iter()
            .enumerate()
            .filter(|(_, &w)| w > 0.0)
            .map(|(l, &w)| topo.link(LinkId(l as u32)).capacity.bps() / w)
            .fold(f64::INFINITY, f64::min);
        let (a, b) = soze::default_range(max_nic, min_weight, lowest);
        self.soze_range = Some((
            self.cfg.soze.alpha.map_or(a, |r| r.bps()),
            self.cfg.soze.beta.map_or(b, |r| r.bps()),
        ));
        Ok(())
    }

    fn transport(
        &self,
        index: usize,
        flow: &FlowSpec,
        ctx: &CcContext,
    ) -> Result<Transport<CcImpl>> {
        let cfg = &self.cfg;
        let mss = ctx.mss;
        let init_cwnd = cfg.tcp.init_cwnd as u64 * mss;
        let own = cfg.flow_transports.get(index).copied().flatten();
        let cc = match self.kind_of(index) {
            TransportKind::Udp => {
                let rate = own.and_then(|t| t.udp_rate).or(cfg.udp_rate);
                return Ok(Transport::ConstantRate(rate.unwrap_or(ctx.nic_rate)));
            }
            TransportKind::Dctcp => CcImpl::Dctcp(Dctcp::new(mss, init_cwnd, cfg.tcp.dctcp_g)),
            TransportKind::D2tcp => CcImpl::D2tcp(D2tcp::new(
                mss,
                init_cwnd,
                cfg.tcp.dctcp_g,
                flow.size.0,
                flow.deadline.map(|d| flow.start + d),
                ctx.base_rtt,
                &cfg.d2tcp,
            )),
            TransportKind::L2dct => {
                CcImpl::L2dct(L2dct::new(mss, init_cwnd, cfg.tcp.dctcp_g, &cfg.l2dct))
            }
            TransportKind::Reno => CcImpl::Reno(Reno::new(mss, init_cwnd, false)),
            TransportKind::RenoEcn => CcImpl::Reno(Reno::new(mss, init_cwnd, true)),
            TransportKind::Cubic => CcImpl::Cubic(Cubic::new(mss, init_cwnd)),
            TransportKind::Hpcc => CcImpl::Hpcc(Hpcc::new(&cfg.hpcc, ctx)),
            TransportKind::Dcqcn => CcImpl::Dcqcn(Dcqcn::new(&cfg.dcqcn, ctx)),
            TransportKind::Pfabric => CcImpl::Pfabric(Pfabric::new(mss, &cfg.pfabric)),
            TransportKind::Rcp => CcImpl::Rcp(Rcp::new(mss)),
            TransportKind::Timely => CcImpl::Timely(Timely::new(&cfg.timely, ctx)),
            TransportKind::Sperc => {
                CcImpl::Sperc(SPercSender::new(&cfg.sperc, ctx, flow.start, flow.size))
            }
            TransportKind::DelayAimd => {
                CcImpl::DelayAimd(DelayAimd::new(mss, init_cwnd, &cfg.delay_aimd))
            }
            TransportKind::Soze => CcImpl::Soze(Soze::new(
                &cfg.soze,
                self.soze_range.unwrap_or((0.0, 0.0)),
                ctx,
                "packet config.soze",
            )?),
        };
        Ok(Transport::Reliable(cc))
    }

    fn qdisc(&self, port: &PortInfo) -> Result<QdiscImpl> {
        if let QdiscConfig::May(m) = &self.cfg.qdisc {
            // MAY is a router's AQM (§II: "one FIFO queue" of a router): a host's NIC gets a
            // plain FIFO. The NIC pulls from its own flows, so no queue builds there, but a
            // NIC sending at line rate measures u ≈ 1 > u₀ and MAY would drop the host's own
            // packets on a link that loses nothing under drop-tail (measured on
            // `may-datacenter`: half of MAY's drops were at host NICs; docs/systems/may.md).
            if port.host_nic {
                return QdiscConfig::DropTail.build(&port.queue);
            }
            let weights = Some(self.may_weights.clone());
            return Ok(QdiscImpl::May(Box::new(May::new(m, &port.queue, weights))));
        }
        self.cfg.qdisc.build(&port.queue)
    }

    fn port_agent(&self, port: &PortInfo) -> Result<Option<AgentImpl>> {
        let rate = port.queue.rate;
        Ok(match self.cfg.port_agent {
            PortAgentConfig::None => None,
            // INT is stamped by switches only, as in HPCC's ns-3 code (hosts add no record);
            // with the host NIC stamping too, the 5 records ran out before the receiver's
            // downlink on inter-pod fat-tree paths.
            PortAgentConfig::Int if port.host_nic => None,
            PortAgentConfig::Int => Some(AgentImpl::Int(IntStamp)),
            PortAgentConfig::Rcp => Some(AgentImpl::Rcp(RcpAgent::new(&self.cfg.rcp, rate))),
            PortAgentConfig::Eba => Some(AgentImpl::Eba(RateFactorAgent::new(
                &self.cfg.eba.lrc,
                rate,
            ))),
            PortAgentConfig::Sperc => Some(AgentImpl::Sperc(SPercAgent::new(
                &self.cfg.sperc,
                self.cfg.control.reserved(),
                rate,
            )?)),
        })
    }

    fn host_shim(&self, node: NodeId) -> Result<Option<Box<dyn HostShim>>> {
        let cfg = &self.cfg;
        let (mss, init_cwnd) = (cfg.mtu.0, cfg.tcp.init_cwnd as u64 * cfg.mtu.0);
        Ok(match cfg.host_shim {
            HostShimKind::None => None,
            HostShimKind::Wvcc => Some(Box::new(cfg.wvcc.build(mss, init_cwnd))),
            HostShimKind::Acdc => Some(Box::new(cfg.acdc.build(mss, init_cwnd))),
            HostShimKind::Scc => Some(Box::new(cfg.scc.build(mss, init_cwnd))),
            HostShimKind::Eba => EbaShim::for_host(&self.eba_plan, &cfg.eba, node)
                .map(|s| Box::new(s) as Box<dyn HostShim>),
        })
    }
}
