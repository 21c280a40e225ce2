//! The scenario's `[eba]` section (VMs, the rate control the host shims run, LRC's
//! parameters) and the plan the host shims share: which VM-flow (ordered VM pair, §II-A)
//! each flow belongs to, and Algorithm 1's guarantee table.
//!
//! ```toml
//! [engine]
//! host_shim = "eba"
//! port_agent = "eba"          # the switch part (Algorithm 2 lines 15–26) on every port
//! routing = "host_pair"       # §VI-C: a VM-flow's packets, control included, on one path
//! control = { size = "74B" }  # §VI-C: "the 74Bytes ICMP control packet"
//! [engine.eba]
//! rate_control = "lrc"        # lrc | reservation | best_effort | tcp_like
//! vms = [
//!   { name = "x",  host = 0, guarantee = "450Mbps", weight = 1 },
//!   { name = "y",  host = 0, tenant = 1, weight = 2 },
//!   { name = "x2", host = 2, guarantee = "450Mbps", weight = 1 },
//!   { name = "y2", host = 3, tenant = 1, weight = 2 },
//! ]
//! [engine.eba.lrc]            # crate::systems::eba::config::LrcConfig
//! alpha = 2.0
//! ```
//!
//! **Flows to VM-flows.** A VM is placed on a host and belongs to a tenant, a number; a flow's
//! `tag` (the workload's free-form group number) names its tenant. The flow's sender VM is its
//! tenant's VM on its source host, its receiver VM its tenant's VM on its destination host.
//! So a tenant has at most one VM per host, and several tenants share a host (X and Y of
//! §VII-A are two tenants' VMs on one host). This needs no new field on flows and covers the
//! paper's experiments; a flow whose host has no VM of its tenant is an error naming it.
//!
//! **Algorithm 1 over a run.** The guarantee table is shared by every host's shim: a VM-flow
//! opens (`OnEstablishConnection`) when its first flow starts and closes
//! (`OnCloseConnection`) when its last started flow has handed all its bytes to the NIC, and
//! each shim reads its VM-flows' current weight (Eq. 1) and guarantee (Eq. 2) from it at
//! every use. (Algorithm 1 runs wherever the connections are tracked; the paper does not say
//! how updates reach other hosts, so here they are seen at once.)

use super::config::LrcConfig;
use super::guarantee::{GuaranteeTable, Placement, Vm};
use crate::error::{Error, Result};
use crate::ids::NodeId;
use crate::topo::Topology;
use crate::units::Rate;
use crate::workload::FlowSpec;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Which rate control the eBA host shims run (`[eba] rate_control`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RateControl {
    /// eBA's logistic rate control (Algorithm 2): every VM-flow limited to `max(B, v)`, `v`
    /// from Eq. (15) on the rate factors its control packets bring back. Needs
    /// `port_agent = "eba"`.
    #[default]
    Lrc,
    /// Static reservation (Oktopus, Ballani et al., SIGCOMM 2011, as eBA §VII-C uses it):
    /// every VM-flow limited to its guarantee `B` (Eq. 2), never more.
    Reservation,
    /// Best effort: no limiter, the guests' transports alone.
    BestEffort,
    /// ElasticSwitch's TCP-like rate allocation (Popa et al., SIGCOMM 2013), guarantee
    /// decoupled from weight as eBA §VII-C does ([`super::shim`] has the algorithm and marks
    /// what is recalled).
    TcpLike,
}

/// One VM of the scenario (§II-A: "throughput B and weight w for each VM").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VmSpec {
    /// Name, unique (used in every message about it).
    pub name: String,
    /// The host (topology node id) it is placed on.
    pub host: u32,
    /// Its tenant: the flows whose `tag` is this number are this tenant's (default 0).
    #[serde(default)]
    pub tenant: u32,
    /// Hose-model guarantee `B` for its egress and ingress alike (default 0).
    #[serde(default)]
    pub guarantee: Rate,
    /// Weight `w` (> 0) for its share beyond the guarantee (default 1).
    #[serde(default = "one")]
    pub weight: f64,
}

fn one() -> f64 {
    1.0
}

/// The TCP-like baseline's parameters ([`RateControl::TcpLike`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TcpLikeConfig {
    /// The rate-allocation period (default 15 ms: eBA §VII-C, "the rate allocation period is
    /// the same for TCP-like algorithm and LRC, both at 15ms").
    pub period: crate::units::Time,
    /// The multiplicative decrease on congestion (default 0.3, the rate falls to 70%: CUBIC's
    /// β as Linux uses it; recalled).
    pub decrease: f64,
    /// CUBIC's constant `C` in the rate domain, Mb/s per period³ (default 0.4, CUBIC's value
    /// with our units; recalled).
    pub cubic_c: f64,
}

impl Default for TcpLikeConfig {
    fn default() -> TcpLikeConfig {
        TcpLikeConfig {
            period: crate::units::Time::from_ms(15),
            decrease: 0.3,
            cubic_c: 0.4,
        }
    }
}

/// The `[engine.eba]` section of a packet scenario (used with `host_shim = "eba"`) or of a
/// flow scenario (eBA at flow level, [`super::flow_level::run_flows`]; `tcp_like` and its
/// table are packet level only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct EbaPacketConfig {
    /// The rate control every host shim runs (default `lrc`).
    pub rate_control: RateControl,
    /// The VMs (at least one).
    pub vms: Vec<VmSpec>,
    /// LRC's parameters (α, β, τ_v, τ_r, μ, idle relaxation), defaults the paper's.
    pub lrc: LrcConfig,
    /// The TCP-like baseline's parameters (`rate_control = "tcp_like"`).
    pub tcp_like: TcpLikeConfig,
    /// `v(0)` of every VM-flow, before its first control packet returns (default 1 Mb/s, the
    /// model's `initial_rate`: Proposition 1 starts well below C; Algorithm 2 gives none).
    pub initial_rate: Rate,
}

impl Default for EbaPacketConfig {
    fn default() -> EbaPacketConfig {
        EbaPacketConfig {
            rate_control: RateControl::Lrc,
            vms: Vec::new(),
            lrc: LrcConfig::default(),
            initial_rate: Rate(1_000_000),
            tcp_like: TcpLikeConfig::default(),
        }
    }
}

impl EbaPacketConfig {
    /// Checks what can be checked without the topology; `at` is the table's path.
    pub fn validate(&self, at: &str) -> Result<()> {
        self.lrc.validate(&format!("{at}.lrc"))?;
        if self.initial_rate.0 == 0 {
            return Err(Error::invalid(
                format!("{at}.initial_rate"),
                "must be positive",
            ));
        }
        let t = &self.tcp_like;
        if t.period.0 == 0 {
            return Err(Error::invalid(
                format!("{at}.tcp_like.period"),
                "must be positive",
            ));
        }
        if !(t.decrease > 0.0 && t.decrease < 1.0) {
            return Err(Error::invalid(
                format!("{at}.tcp_like.decrease"),
                format!("must be in (0, 1), got {}", t.decrease),
            ));
        }
        if !(t.cubic_c > 0.0 && t.cubic_c.is_finite()) {
            return Err(Error::invalid(
                format!("{at}.tcp_like.cubic_c"),
                format!("must be positive, got {}", t.cubic_c),
            ));
        }
        for (i, vm) in self.vms.iter().enumerate() {
            if !(vm.weight > 0.0 && vm.weight.is_finite()) {
                return Err(Error::invalid(
                    format!("{at}.vms[{i}] ({:?}).weight", vm.name),
                    format!("must be positive, got {}", vm.weight),
                ));
            }
        }
        Ok(())
    }
}

/// One VM-flow of the run: its sender and receiver VMs (indices into the placement) and the
/// host that sends it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VmPair {
    /// Sender VM.
    pub src: usize,
    /// Receiver VM.
    pub dst: usize,
    /// The sender VM's host.
    pub host: NodeId,
    /// That host's line rate, bits/s (a control packet starts with `r = C_l`, Algorithm 2
    /// line 4).
    pub line_rate: f64,
}

/// What every host's shim shares: the VM-flow of each flow and Algorithm 1's table.
#[derive(Debug)]
pub struct VmPlan {
    /// The VM-flow of each flow, by flow id.
    pub pair_of: Vec<u32>,
    /// The VM-flows, in order of their first flow.
    pub pairs: Vec<VmPair>,
    /// Algorithm 1's state, updated as VM-flows open and close.
    pub table: RefCell<GuaranteeTable>,
}

impl VmPlan {
    /// Each flow's VM-flow as (sender VM, receiver VM), by flow id.
    pub fn vm_pair_of_flows(&self) -> Vec<(usize, usize)> {
        self.pair_of
            .iter()
            .map(|&p| {
                let pair = &self.pairs[p as usize];
                (pair.src, pair.dst)
            })
            .collect()
    }

    /// Places `cfg.vms` on `topo` (checks as [`Placement::new`]) and maps every flow to its
    /// VM-flow; errors name the VM or the flow.
    pub fn new(cfg: &EbaPacketConfig, topo: &Topology, flows: &[FlowSpec]) -> Result<VmPlan> {
        if cfg.vms.is_empty() {
            return Err(Error::invalid(
                "packet config.eba.vms",
                "host_shim = \"eba\" needs at least one VM",
            ));
        }
        let line_rate = |host: u32| -> Option<f64> {
            let node = NodeId(host);
            (topo.contains(node) && topo.is_host(node))
                .then(|| topo.out_links(node).first())
                .flatten()
                .map(|&l| topo.link(l).capacity.bps())
        };
        let vms = cfg
            .vms
            .iter()
            .map(|v| Vm {
                name: v.name.clone(),
                tenant: v.tenant.to_string(),
                host: v.host,
                guarantee: v.guarantee.bps(),
                weight: v.weight,
            })
            .collect();
        let placement = Placement::new(vms, line_rate)?;
        let mut by_place: BTreeMap<(u32, u32), usize> = BTreeMap::new();
        for (i, v) in cfg.vms.iter().enumerate() {
            if let Some(&j) = by_place.get(&(v.host, v.tenant)) {
                return Err(Error::invalid(
                    format!("vm {:?}.tenant", v.name),
                    format!(
                        "tenant {} already has VM {:?} on host {} (flows find their VMs by \
                         host and tenant)",
                        v.tenant, cfg.vms[j].name, v.host
                    ),
                ));
            }
            by_place.insert((v.host, v.tenant), i);
        }
        let mut index: BTreeMap<(usize, usize), u32> = BTreeMap::new();
        let mut pairs = Vec::new();
        let mut pair_of = Vec::with_capacity(flows.len());
        for (f, spec) in flows.iter().enumerate() {
            let vm = |host: NodeId, end: &str| {
                by_place.get(&(host.0, spec.tag)).copied().ok_or_else(|| {
                    Error::invalid(
                        format!("flow {f}"),
                        format!(
                            "its {end} host {} has no VM of tenant {} (the flow's tag) in \
                             eba.vms",
                            host.0, spec.tag
                        ),
                    )
                })
            };
            let (x, y) = (vm(spec.src, "source")?, vm(spec.dst, "destination")?);
            let p = *index.entry((x, y)).or_insert_with(|| {
                pairs.push(VmPair {
                    src: x,
                    dst: y,
                    host: spec.src,
                    line_rate: line_rate(spec.src.0).unwrap_or(0.0),
                });
                pairs.len() as u32 - 1
            });
            pair_of.push(p);
        }
        Ok(VmPlan {
            pair_of,
            pairs,
            table: RefCell::new(GuaranteeTable::new(placement)),
        })
    }

    /// The VM-flow's current weight (Eq. 1) and guarantee (Eq. 2, bits/s), or `None` while it
    /// is closed.
    pub fn current(&self, pair: u32) -> Option<(f64, f64)> {
        let p = self.pairs[pair as usize];
        self.table
            .borrow()
            .flow(p.src, p.dst)
            .map(|f| (f.weight, f.guarantee))
    }

    /// Opens VM-flow `pair` (Algorithm 1, `OnEstablishConnection`); opening an open one does
    /// nothing.
    pub fn open(&self, pair: u32) {
        let p = self.pairs[pair as usize];
        // Pairs were checked in `new` (distinct, existing VMs), so this cannot fail.
        let _ = self.table.borrow_mut().connect(p.src, p.dst);
    }

    /// Closes VM-flow `pair` (Algorithm 1, `OnCloseConnection`); closing a closed one does
    /// nothing.
    pub fn close(&self, pair: u32) {
        let p = self.pairs[pair as usize];
        let mut t = self.table.borrow_mut();
        if t.flow(p.src, p.dst).is_some() {
            let _ = t.close(p.src, p.dst);
        }
    }
}
