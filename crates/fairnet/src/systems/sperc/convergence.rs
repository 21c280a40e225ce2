//! s-PERC §8.2.1's convergence-time experiment on the packet engine, shared by Fig. 7 (the
//! datacenter, [`super::fig7`]), Fig. 8 and Table 5 (the WAN, [`super::wan`]).
//!
//! The experiment (§8.2.1, lines 532–536 of `s-perc.txt`): long-lived flows between random
//! pairs of servers, `N` per server on average; "we wait for the rates to converge, then
//! replace 40% of the flows with new ones. We replace all flows at once"; Table 5 instead
//! measures the start of the run, "when all flows start at once". Metric (line 536): "the flow
//! rates have converged when most of the flows remain within a small distance of the ideal
//! max-min values for at least N consecutive RTTs … when 95% of flows are within 20% of ideal,
//! or when 99% of flows are within 10% of ideal."
//!
//! Our choices (the paper does not give them), one place for DC and WAN:
//! - **Episodes**: the start of the run (all flows start at time 0; Table 5) and each change
//!   (Figs. 7, 8), each measured for `epoch_rtts` RTTs; the next change comes then, instead of
//!   detecting convergence ("we wait for the rates to converge").
//! - **RTT unit** ([`RttUnit`]): each flow's base RTT is a full data packet out and a bare ACK
//!   back on its path, without queues. Fig. 8's caption gives the WAN unit: "the average RTT
//!   of all flows seen during the run" ([`RttUnit::Mean`]). The DC paragraph gives none; there
//!   all inter-rack RTTs are equal and we use the largest ([`RttUnit::Max`]). Rates are sampled
//!   once per unit.
//! - **Ideal, per scheme**: the max-min rates ([`crate::alloc`]) of the active flows on their
//!   ECMP paths, on the capacity each scheme is designed to allocate. RCP's routers drive the
//!   arrival rate to the line rate `C` (its equation has no reserve), so its ideal is on `C`.
//!   s-PERC*'s links compute max-min rates on `C · (1 − headroom − control share)` (§7.1
//!   "Headroom", "Limiting control overhead"; Table 6: 2% and 4% for the convergence
//!   experiments; [`crate::systems::sperc::packet::SPercAgent::new`]): that, not `C`, is the
//!   max-min allocation s-PERC* converges to, so its ideal is on that capacity. Judging
//!   s-PERC* against `C` would measure its deliberate 6% reserve, not its convergence (with a
//!   10% tolerance, 6% of it is gone before the first packet).
//! - **A flow's rate** ([`RateMeasure`]), by default [`RateMeasure::Sending`]: the rate the
//!   sender transmits at — its pacing rate (what the scheme told it: s-PERC*'s smallest
//!   allocation `x`, RCP's smallest advertised `R`), limited by its share of its host's NIC.
//!   Our hosts serve their flows round robin at the NIC, so that share is the water-fill of
//!   the NIC's line rate over the flows' pacing rates (computed with [`crate::alloc`], the
//!   pacing rates as demands). The NIC term matters for RCP only: an RCP port at a host NIC
//!   sees its link exactly full and no queue (our hosts never queue more than one packet), so
//!   its `R` stays at the line rate and flows sharing a NIC pace above what the NIC gives them;
//!   s-PERC* never paces a NIC above its reserve. Why not delivered bytes: at 20 flows per
//!   server in the DC a flow delivers 2–3 packets per RTT, so a rate counted over a few RTTs
//!   is off by 7–17% from one packet more or less — more than the 10% tolerance — and a
//!   window long enough to hide that adds ~half its length in lag to both schemes. The
//!   delivered-bytes measure is kept as [`RateMeasure::Delivered`] for comparison.
//! - **Converged**: the first sample after the episode's start from which the fraction of
//!   flows within the tolerance stays at or above the target for `stable_rtts` consecutive
//!   samples ("for at least N consecutive RTTs"; N is not given, default 5). An episode that
//!   never converges within its `epoch_rtts` is `None` (censored).
//! - **RCP** ([`RcpSettings`]): `d` (a router's average RTT) is, at every port, the mean base
//!   RTT of the run's flows crossing it (RCP routers average the RTT field of their packets;
//!   on the WAN RTTs range over two orders of magnitude, and one `d` for all made RCP
//!   oscillate on links carrying long-RTT flows); the control
//!   interval `T` is `d` ([`RcpInterval::Rtt`]: §8.2.1 "every link computes a fair share rate
//!   every RTT") or fixed (Table 6's WAN "update interval=20ms"). Its floor `min_rate` is one
//!   packet per RTT unit, or the engine's 10 Mb/s if lower (on the WAN 10 Mb/s is above a
//!   flow's share at the smoke rates; a much lower floor starves: a flow paced at a few kb/s
//!   sends a packet, hence hears a new rate, every few seconds).
//! - **s-PERC\*'s update direction** ([`SPercSettings::two_way`]): both ways in the datacenter
//!   (§2 assumption 6; the reflected control packet retraces the data path and every link
//!   processes it again), forward only on the WAN (§8.2.1: "control packets are only updated
//!   in the forward direction"). At Fig. 7's smoke scale both give the same medians (5 and 9
//!   RTTs over seeds 1–5); at full scale two-way gave 5 / 14 against 6 / 11 over 5 changes
//!   (`docs/systems/sperc.md`).

use crate::alloc::{solve, Problem, ProblemInput};
use crate::error::{Error, Result};
use crate::ids::{FlowId, LinkId};
use crate::registry::{PacketConfig, PacketSim, PortAgentConfig, TransportKind};
use crate::schemes::rcp::RcpAgent;
use crate::topo::{b4, leaf_spine, LeafSpineSpec, LinkSpec, PathSelector, Routing, Topology};
use crate::units::{Bytes, Rate, Time};
use crate::workload::FlowSpec;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Which scheme runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// s-PERC* (`transport = "sperc"`).
    SPercStar,
    /// RCP (`transport = "rcp"`).
    Rcp,
}

impl Scheme {
    /// The name printed in tables.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::SPercStar => "s-PERC*",
            Scheme::Rcp => "RCP",
        }
    }

    /// Parses `"sperc"` or `"rcp"` (the transport names); the error names `at`.
    pub fn parse(s: &str, at: &str) -> Result<Scheme> {
        match s {
            "sperc" => Ok(Scheme::SPercStar),
            "rcp" => Ok(Scheme::Rcp),
            _ => Err(Error::invalid(
                at,
                format!("unknown scheme {s:?}; expected \"sperc\" or \"rcp\""),
            )),
        }
    }
}

/// The network the experiment runs on; link buffers come from the scheme's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Net {
    /// A two-tier leaf–spine ([`leaf_spine`]): the datacenter of Fig. 7.
    LeafSpine {
        /// Servers per leaf.
        hosts_per_leaf: u32,
        /// Leaves (racks).
        leaves: u32,
        /// Spines.
        spines: u32,
        /// Server ↔ leaf links.
        host_rate: Rate,
        /// Leaf ↔ spine links.
        fabric_rate: Rate,
        /// Propagation delay of every link.
        delay: Time,
    },
    /// The B4-like WAN ([`b4`]) of Fig. 8 and Table 5.
    B4 {
        /// Servers attached to each of the 12 sites.
        hosts_per_site: u32,
        /// The inter-site cables (delays from their lengths).
        wan_rate: Rate,
        /// Server ↔ site links.
        access_rate: Rate,
        /// Propagation delay of a server ↔ site link.
        access_delay: Time,
    },
}

impl Net {
    /// Builds the topology with `buffer` bytes at every port.
    pub fn build(&self, buffer: Bytes) -> Result<Topology> {
        match *self {
            Net::LeafSpine {
                hosts_per_leaf,
                leaves,
                spines,
                host_rate,
                fabric_rate,
                delay,
            } => leaf_spine(LeafSpineSpec {
                hosts_per_leaf,
                leaves,
                spines,
                host_link: LinkSpec::new(host_rate, delay, buffer),
                fabric_link: LinkSpec::new(fabric_rate, delay, buffer),
            }),
            Net::B4 {
                hosts_per_site,
                wan_rate,
                access_rate,
                access_delay,
            } => b4(
                hosts_per_site,
                LinkSpec::new(access_rate, access_delay, buffer),
                // `b4` computes each cable's delay from its length.
                LinkSpec::new(wan_rate, Time::ZERO, buffer),
            ),
        }
    }

    /// Number of servers.
    pub fn servers(&self) -> u32 {
        match *self {
            Net::LeafSpine {
                hosts_per_leaf,
                leaves,
                ..
            } => hosts_per_leaf * leaves,
            Net::B4 { hosts_per_site, .. } => {
                hosts_per_site * crate::topo::builders::B4_SITES.len() as u32
            }
        }
    }
}

/// The unit of the convergence times (and the sampling period).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttUnit {
    /// The largest base RTT of the run's flows.
    Max,
    /// The mean base RTT of all the run's flows (Fig. 8: "the average RTT of all flows seen
    /// during the run").
    Mean,
}

/// How a flow's rate is measured at each sample (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateMeasure {
    /// Its pacing rate, limited by its round-robin share of its host's NIC.
    Sending,
    /// Wire bytes it delivered over the last `window_rtts` units (fewer right after the
    /// episode's start).
    Delivered {
        /// Window length in RTT units.
        window_rtts: u32,
    },
}

/// RCP's control interval `T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RcpInterval {
    /// `T = d`, the RTT unit (§8.2.1: "every link computes a fair share rate every RTT").
    Rtt,
    /// A fixed interval (Table 6, WAN: 20 ms).
    Fixed(Time),
}

/// RCP's settings (Table 6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RcpSettings {
    /// Buffer per port.
    pub buffer: Bytes,
    /// Gain of the spare-capacity term.
    pub alpha: f64,
    /// Gain of the queue term.
    pub beta: f64,
    /// Control interval.
    pub interval: RcpInterval,
}

/// s-PERC*'s settings (Table 6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SPercSettings {
    /// Buffer per port.
    pub buffer: Bytes,
    /// Share of each link reserved for control packets ("ctrl rate").
    pub ctrl_rate: f64,
    /// Wire size of a control packet.
    pub ctrl_size: Bytes,
    /// Share of each link left unallocated.
    pub headroom: f64,
    /// A link's round before it learns one.
    pub initial_round: Time,
    /// Links update control packets both ways (§2 assumption 6; true in the datacenter) or
    /// forward only (§8.2.1's WAN runs) — [`crate::systems::sperc::packet::SPercPacketConfig::two_way`].
    pub two_way: bool,
}

impl SPercSettings {
    /// Table 6's s-PERC* row for the convergence-time experiments: 128 KB buffers, 64 B
    /// control packets at 4% ("ctrl rate ... 4% (CT)"), 2% headroom, and the setting's initial
    /// round (20 µs DC, 100 ms WAN), with links updating control packets both ways
    /// (`two_way`, §2 assumption 6: the DC runs) or forward only (§8.2.1: the WAN runs).
    pub fn table6(initial_round: Time, two_way: bool) -> SPercSettings {
        SPercSettings {
            buffer: Bytes(128 * 1024),
            ctrl_rate: 0.04,
            ctrl_size: Bytes(64),
            headroom: 0.02,
            initial_round,
            two_way,
        }
    }
}

/// The experiment's parameters (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvSpec {
    /// The network.
    pub net: Net,
    /// Average flows per server (flows = this × servers).
    pub flows_per_server: f64,
    /// Flow replacements per run (0: only the start, Table 5).
    pub changes: u32,
    /// Fraction of the active flows replaced at each change.
    pub replace: f64,
    /// RTTs each episode is measured for (the start and each change).
    pub epoch_rtts: u32,
    /// Consecutive RTTs the criterion must hold.
    pub stable_rtts: u32,
    /// The unit of the results.
    pub rtt_unit: RttUnit,
    /// How a flow's rate is measured.
    pub measure: RateMeasure,
    /// Payload bytes per data packet.
    pub mtu: Bytes,
    /// Retransmission timeouts of both schemes' reliable senders: the minimum and the one
    /// before the first RTT sample (the engine's 1 ms defaults are for datacenter RTTs).
    pub rto: (Time, Time),
    /// RCP's settings.
    pub rcp: RcpSettings,
    /// s-PERC*'s settings.
    pub sperc: SPercSettings,
    /// Seed of the flow pairs, the replacements and ECMP.
    pub seed: u64,
}

/// Convergence of one episode (the start, or one change).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Episode {
    /// RTTs until 95% of flows stay within 20% of the ideal (`None`: not within the epoch).
    pub t95_20: Option<u32>,
    /// RTTs until 99% of flows stay within 10% of the ideal.
    pub t99_10: Option<u32>,
    /// Fraction of flows within 10% at the end of the epoch (a sanity check).
    pub final_within_10: f64,
}

/// One scheme's run.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvRun {
    /// The scheme.
    pub scheme: Scheme,
    /// The RTT unit.
    pub rtt: Time,
    /// Smallest and largest base RTT of the run's flows.
    pub rtt_range: (Time, Time),
    /// Flows active at once.
    pub active_flows: usize,
    /// The start of the run (all flows start at once).
    pub start: Episode,
    /// Each change, in order.
    pub changes: Vec<Episode>,
    /// Packet-engine events handled.
    pub events: u64,
    /// Data and ACK packets dropped by the queues (all links, whole run).
    pub drops: u64,
    /// Control packets dropped (control FIFOs full).
    pub ctrl_drops: u64,
    /// Retransmission timeouts (all flows).
    pub timeouts: u64,
}

/// The flows of a run: the initial set, then per change the flows stopped and the new ones.
struct Plan {
    flows: Vec<FlowSpec>,
    initial: Vec<usize>,
    changes: Vec<(Time, Vec<usize>, Vec<usize>)>,
}

fn plan(spec: &ConvSpec, topo: &Topology, epoch: Time) -> Plan {
    let hosts = topo.hosts().to_vec();
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let n = (spec.flows_per_server * hosts.len() as f64)
        .round()
        .max(2.0) as usize;
    let mut flows = Vec::new();
    let pair = |rng: &mut ChaCha8Rng, start: Time, flows: &mut Vec<FlowSpec>| -> usize {
        let s = hosts[rng.gen_range(0..hosts.len())];
        let mut d = s;
        while d == s {
            d = hosts[rng.gen_range(0..hosts.len())];
        }
        // Long-lived: far more bytes than any run sends.
        flows.push(FlowSpec::new(s, d, Bytes(1 << 50), start));
        flows.len() - 1
    };
    let initial: Vec<usize> = (0..n)
        .map(|_| pair(&mut rng, Time::ZERO, &mut flows))
        .collect();
    let mut active = initial.clone();
    let mut changes = Vec::new();
    for c in 1..=spec.changes {
        let at = Time(epoch.0 * c as u64);
        active.shuffle(&mut rng);
        let m = ((active.len() as f64) * spec.replace).round() as usize;
        let stopped: Vec<usize> = active.drain(..m).collect();
        let started: Vec<usize> = (0..m).map(|_| pair(&mut rng, at, &mut flows)).collect();
        active.extend(&started);
        changes.push((at, stopped, started));
    }
    Plan {
        flows,
        initial,
        changes,
    }
}

/// The path of flow `i` as the packet engine routes it (ECMP hash of `seed` and the flow).
fn flow_path(
    routing: &Routing,
    flows: &[FlowSpec],
    i: usize,
    seed: u64,
    out: &mut Vec<LinkId>,
) -> Result<()> {
    out.clear();
    let sel = PathSelector::FlowHash {
        seed,
        flow: i as u64,
    };
    routing.path_into(flows[i].src, flows[i].dst, sel, out)
}

/// Max-min rates of `active` flows on their paths, each link at `share` of its capacity.
fn ideal(
    topo: &Topology,
    flows: &[FlowSpec],
    active: &[usize],
    seed: u64,
    share: f64,
) -> Result<Vec<f64>> {
    let routing = Routing::new(topo);
    let mut paths = Vec::with_capacity(active.len());
    let mut path: Vec<LinkId> = Vec::new();
    for &i in active {
        flow_path(&routing, flows, i, seed, &mut path)?;
        paths.push(path.iter().map(|l| l.0).collect::<Vec<u32>>());
    }
    let caps = topo
        .links()
        .iter()
        .map(|l| l.capacity.bps() * share)
        .collect();
    let p = Problem::new(ProblemInput::from_paths(caps, &paths))?;
    Ok(solve(&p).rates)
}

/// Base RTT of every flow: a full data packet along its path, a bare ACK back along the same
/// links (all links are duplex with equal rate and delay both ways).
fn base_rtts(topo: &Topology, flows: &[FlowSpec], cfg: &PacketConfig) -> Result<Vec<Time>> {
    let routing = Routing::new(topo);
    let mut path = Vec::new();
    (0..flows.len())
        .map(|i| {
            flow_path(&routing, flows, i, cfg.seed, &mut path)?;
            let t = path
                .iter()
                .map(|&l| {
                    let link = topo.link(l);
                    2 * link.delay.0
                        + link.capacity.tx_time(cfg.mtu_wire()).0
                        + link.capacity.tx_time(cfg.header).0
                })
                .sum();
            Ok(Time(t))
        })
        .collect()
}

/// RCP's `d` at every link that carries flows: the mean base RTT (`rtts`, per flow) of the
/// flows crossing it. RCP routers estimate `d` as a running average of the RTT field of the
/// packets they forward; one `d` for the whole WAN would make a link carrying only long-RTT
/// flows (up to 3× the mean) react three times too fast for its feedback delay, and oscillate.
fn link_rtts(
    topo: &Topology,
    flows: &[FlowSpec],
    cfg: &PacketConfig,
    rtts: &[Time],
) -> Result<Vec<(LinkId, Time)>> {
    let routing = Routing::new(topo);
    let mut sum = vec![(0u128, 0u64); topo.num_links()];
    let mut path = Vec::new();
    for (i, t) in rtts.iter().enumerate() {
        flow_path(&routing, flows, i, cfg.seed, &mut path)?;
        for l in &path {
            sum[l.idx()].0 += t.0 as u128;
            sum[l.idx()].1 += 1;
        }
    }
    Ok(sum
        .iter()
        .enumerate()
        .filter(|(_, (_, n))| *n > 0)
        .map(|(l, (t, n))| (LinkId(l as u32), Time((*t / *n as u128) as u64)))
        .collect())
}

/// Each flow's sending rate: `pace[i]` limited by a round-robin share of its NIC. `nic[i]` is
/// the index of flow `i`'s NIC in `nic_caps` (line rates, bit/s). The share is the water-fill
/// of the NIC's rate over its flows with their pacing rates as demands.
pub fn sending_rates(pace: &[f64], nic: &[usize], nic_caps: &[f64]) -> Result<Vec<f64>> {
    let paths: Vec<Vec<u32>> = nic.iter().map(|&n| vec![n as u32]).collect();
    let mut input = ProblemInput::from_paths(nic_caps.to_vec(), &paths);
    input.demands = Some(pace.iter().map(|p| p.max(0.0)).collect());
    Ok(solve(&Problem::new(input)?).rates)
}

/// The packet config of `scheme` for an RTT unit of `rtt`.
fn config(spec: &ConvSpec, scheme: Scheme, rtt: Time) -> PacketConfig {
    let mut cfg = PacketConfig {
        seed: spec.seed,
        mtu: spec.mtu,
        ..PacketConfig::default()
    };
    // Both schemes pace; hosts share their NIC among many flows: two packets of pacing
    // credit, without which flows waiting for the NIC lose that time.
    cfg.tcp.pacing_burst = Bytes(2 * cfg.mtu_wire().0);
    (cfg.tcp.min_rto, cfg.tcp.initial_rto) = spec.rto;
    cfg.tcp.max_rto = cfg.tcp.max_rto.max(Time(spec.rto.1 .0 * 4));
    match scheme {
        Scheme::SPercStar => {
            cfg.transport = TransportKind::Sperc;
            cfg.port_agent = PortAgentConfig::Sperc;
            cfg.control.rate = spec.sperc.ctrl_rate;
            cfg.control.size = spec.sperc.ctrl_size;
            cfg.sperc.headroom = spec.sperc.headroom;
            cfg.sperc.initial_round = spec.sperc.initial_round;
            cfg.sperc.two_way = spec.sperc.two_way;
        }
        Scheme::Rcp => {
            cfg.transport = TransportKind::Rcp;
            cfg.port_agent = PortAgentConfig::Rcp;
            cfg.rcp.alpha = spec.rcp.alpha;
            cfg.rcp.beta = spec.rcp.beta;
            cfg.rcp.interval = match spec.rcp.interval {
                RcpInterval::Rtt => rtt,
                RcpInterval::Fixed(t) => t,
            };
            cfg.rcp.rtt = Some(rtt);
            // A flow at the floor still sends one packet per RTT, so it hears new rates.
            let one_per_rtt = (cfg.mtu_wire().0 * 8) as f64 / rtt.as_secs_f64().max(1e-12);
            cfg.rcp.min_rate = Rate((one_per_rtt as u64).clamp(1, cfg.rcp.min_rate.0));
        }
    }
    cfg
}

/// The share of each link's capacity `scheme` is designed to allocate (see the module doc).
pub fn allocated_share(cfg: &PacketConfig, scheme: Scheme) -> f64 {
    match scheme {
        Scheme::SPercStar => 1.0 - cfg.sperc.headroom - cfg.control.reserved(),
        Scheme::Rcp => 1.0,
    }
}

/// The first sample index from which `ok` holds for `stable` consecutive samples, counted in
/// samples since the episode's start (sample `j` is taken `j + 1` RTTs after it).
pub fn settle(ok: &[bool], stable: usize) -> Option<u32> {
    let (mut run, mut start) = (0, 0);
    for (j, &o) in ok.iter().enumerate() {
        if !o {
            run = 0;
            continue;
        }
        if run == 0 {
            start = j;
        }
        run += 1;
        if run >= stable.max(1) {
            return Some(start as u32 + 1);
        }
    }
    None
}

/// Fraction of `rates` within `tol` (relative) of `ideal`.
pub fn within(rates: &[f64], ideal: &[f64], tol: f64) -> f64 {
    let ok = rates
        .iter()
        .zip(ideal)
        .filter(|(r, i)| (*r - *i).abs() <= tol * *i)
        .count();
    ok as f64 / rates.len().max(1) as f64
}

/// Samples every RTT unit for `spec.epoch_rtts` units from `at` (the episode's start), with
/// `active` the flows and `want` their ideal rates.
struct Sampler<'a> {
    spec: &'a ConvSpec,
    rtt: Time,
    /// NIC index of every flow of the plan, and the NICs' line rates.
    nic: Vec<usize>,
    nic_caps: Vec<f64>,
}

impl Sampler<'_> {
    fn episode(
        &self,
        sim: &mut PacketSim,
        at: Time,
        active: &[usize],
        want: &[f64],
    ) -> Result<Episode> {
        let (mut ok95, mut ok99) = (Vec::new(), Vec::new());
        let delivered =
            |sim: &PacketSim, f: usize| sim.received_wire(FlowId(f as u32)).unwrap_or(0);
        let mut hist: Vec<Vec<u64>> = Vec::new();
        if let RateMeasure::Delivered { .. } = self.spec.measure {
            hist.push(active.iter().map(|&f| delivered(sim, f)).collect());
        }
        let nic: Vec<usize> = active.iter().map(|&f| self.nic[f]).collect();
        let mut rates = Vec::new();
        for j in 1..=self.spec.epoch_rtts as usize {
            sim.run_until(Time(at.0 + j as u64 * self.rtt.0))?;
            rates = match self.spec.measure {
                RateMeasure::Sending => {
                    let pace: Vec<f64> = active
                        .iter()
                        .map(|&f| sim.pacing_rate(FlowId(f as u32)).unwrap_or(0.0))
                        .collect();
                    sending_rates(&pace, &nic, &self.nic_caps)?
                }
                RateMeasure::Delivered { window_rtts } => {
                    hist.push(active.iter().map(|&f| delivered(sim, f)).collect());
                    let w = (window_rtts as usize).min(j).max(1);
                    let (now, then) = (&hist[j], &hist[j - w]);
                    let secs = (w as u64 * self.rtt.0) as f64 * 1e-12;
                    now.iter()
                        .zip(then)
                        .map(|(a, b)| (a - b) as f64 * 8.0 / secs)
                        .collect()
                }
            };
            ok95.push(within(&rates, want, 0.2) >= 0.95);
            ok99.push(within(&rates, want, 0.1) >= 0.99);
        }
        let stable = self.spec.stable_rtts as usize;
        Ok(Episode {
            t95_20: settle(&ok95, stable),
            t99_10: settle(&ok99, stable),
            final_within_10: within(&rates, want, 0.1),
        })
    }
}

/// Runs the experiment for one scheme.
pub fn run(spec: &ConvSpec, scheme: Scheme) -> Result<ConvRun> {
    if !(spec.replace > 0.0 && spec.replace <= 1.0) {
        return Err(Error::invalid(
            "convergence.replace",
            format!("must be in (0, 1], got {}", spec.replace),
        ));
    }
    if spec.epoch_rtts == 0 {
        return Err(Error::invalid("convergence.epoch_rtts", "must be positive"));
    }
    if !(spec.flows_per_server.is_finite() && spec.flows_per_server > 0.0) {
        return Err(Error::invalid(
            "convergence.flows_per_server",
            format!("must be positive, got {}", spec.flows_per_server),
        ));
    }
    let buffer = match scheme {
        Scheme::SPercStar => spec.sperc.buffer,
        Scheme::Rcp => spec.rcp.buffer,
    };
    let topo = spec.net.build(buffer)?;
    // The flows do not depend on the RTT except through the change times; plan once with a
    // unit epoch to get the pairs, then again with the real epoch.
    let probe = config(spec, scheme, Time(Time::US));
    let pairs = plan(spec, &topo, Time(1));
    let rtts = base_rtts(&topo, &pairs.flows, &probe)?;
    let lo = rtts.iter().copied().min().unwrap_or(Time::ZERO);
    let hi = rtts.iter().copied().max().unwrap_or(Time::ZERO);
    let rtt = match spec.rtt_unit {
        RttUnit::Max => hi,
        RttUnit::Mean => Time(rtts.iter().map(|t| t.0).sum::<u64>() / rtts.len().max(1) as u64),
    };
    let cfg = config(spec, scheme, rtt);
    let share = allocated_share(&cfg, scheme);
    let epoch = Time(rtt.0 * spec.epoch_rtts as u64);
    let plan = plan(spec, &topo, epoch);

    // Each host's NIC: the first link of its flows' paths.
    let routing = Routing::new(&topo);
    let mut path = Vec::new();
    let mut nic = Vec::with_capacity(plan.flows.len());
    for i in 0..plan.flows.len() {
        flow_path(&routing, &plan.flows, i, spec.seed, &mut path)?;
        nic.push(path[0].0 as usize);
    }
    let nic_caps: Vec<f64> = topo.links().iter().map(|l| l.capacity.bps()).collect();
    let sampler = Sampler {
        spec,
        rtt,
        nic,
        nic_caps,
    };

    let mut sim = PacketSim::from_config(&topo, &plan.flows, cfg.clone())?;
    if scheme == Scheme::Rcp {
        for (l, d) in link_rtts(&topo, &plan.flows, &cfg, &rtts)? {
            let mut rcp = cfg.rcp;
            rcp.rtt = Some(d);
            if spec.rcp.interval == RcpInterval::Rtt {
                rcp.interval = d;
            }
            let rate = topo.link(l).capacity;
            sim.set_port_agent(l, Box::new(RcpAgent::new(&rcp, rate)))?;
        }
    }
    let mut active = plan.initial.clone();
    let want = ideal(&topo, &plan.flows, &active, spec.seed, share)?;
    let start = sampler.episode(&mut sim, Time::ZERO, &active, &want)?;
    let mut changes = Vec::with_capacity(plan.changes.len());
    for (at, stopped, started) in &plan.changes {
        sim.run_until(*at)?;
        for &f in stopped {
            sim.stop_flow(FlowId(f as u32))?;
        }
        active.retain(|f| !stopped.contains(f));
        active.extend(started);
        let want = ideal(&topo, &plan.flows, &active, spec.seed, share)?;
        changes.push(sampler.episode(&mut sim, *at, &active, &want)?);
    }
    let rec = sim.records();
    let ctrl_drops = rec.links.iter().map(|l| l.ctrl_drops).sum();
    let out = ConvRun {
        scheme,
        rtt,
        rtt_range: (lo, hi),
        active_flows: active.len(),
        start,
        changes,
        events: rec.events,
        ctrl_drops,
        drops: rec.links.iter().map(|l| l.drops).sum::<u64>() - ctrl_drops,
        timeouts: rec.flows.iter().map(|f| f.timeouts).sum(),
    };
    sim.check_invariants()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settle_finds_the_first_stable_stretch() {
        assert_eq!(
            settle(&[false, true, true, false, true, true, true], 3),
            Some(5)
        );
        assert_eq!(settle(&[true, true, true], 3), Some(1));
        assert_eq!(settle(&[true, false], 2), None);
    }

    #[test]
    fn within_counts_relative_distance() {
        // 9.5 and 11 are within 10% of 10; 8.9 is not: two of three.
        let f = within(&[9.5, 11.0, 8.9], &[10.0, 10.0, 10.0], 0.1);
        assert!((f - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn sending_rates_water_fill_each_nic() {
        // NIC 0 (10 b/s) carries three flows paced at 1, 8 and 8: the first keeps 1, the
        // other two split the remaining 9 (4.5 each). NIC 1 (10 b/s) carries one flow paced at
        // 3: it keeps 3. A flow with no rate yet (0) sends nothing.
        let r = sending_rates(&[1.0, 8.0, 8.0, 3.0, 0.0], &[0, 0, 0, 1, 1], &[10.0, 10.0]).unwrap();
        let want = [1.0, 4.5, 4.5, 3.0, 0.0];
        for (g, w) in r.iter().zip(want) {
            assert!((g - w).abs() < 1e-9, "got {r:?}");
        }
    }

    #[test]
    fn rcp_d_is_the_mean_rtt_of_the_flows_on_each_link() {
        // Two leaves of two servers under one spine: h0 → h1 stays in leaf 0 (2 links),
        // h0 → h2 crosses the spine (4 links). h0's uplink (link 0) carries both, so its `d`
        // is the mean of their RTTs; leaf 0 → spine carries only the long one.
        let link = LinkSpec::new(Rate::gbps(10), Time(Time::US), Bytes(100_000));
        let topo = leaf_spine(LeafSpineSpec {
            hosts_per_leaf: 2,
            leaves: 2,
            spines: 1,
            host_link: link,
            fabric_link: link,
        })
        .unwrap();
        let h = topo.hosts().to_vec();
        let flows = [
            FlowSpec::new(h[0], h[1], Bytes(1), Time::ZERO),
            FlowSpec::new(h[0], h[2], Bytes(1), Time::ZERO),
        ];
        let cfg = PacketConfig::default();
        let rtts = base_rtts(&topo, &flows, &cfg).unwrap();
        let hop = 2 * Time::US
            + Rate::gbps(10).tx_time(cfg.mtu_wire()).0
            + Rate::gbps(10).tx_time(cfg.header).0;
        assert_eq!(rtts, vec![Time(2 * hop), Time(4 * hop)]);
        let d: std::collections::HashMap<LinkId, Time> = link_rtts(&topo, &flows, &cfg, &rtts)
            .unwrap()
            .into_iter()
            .collect();
        assert_eq!(d[&LinkId(0)], Time(3 * hop));
        let uplink = Routing::new(&topo)
            .path(h[0], h[2], PathSelector::First)
            .unwrap()[1];
        assert_eq!(d[&uplink], Time(4 * hop));
        assert_eq!(d.len(), 5, "links without flows get no agent");
    }

    #[test]
    fn sperc_ideal_is_on_its_reserved_capacity() {
        let mut cfg = PacketConfig::default();
        cfg.sperc.headroom = 0.02;
        cfg.control.rate = 0.04;
        assert!((allocated_share(&cfg, Scheme::SPercStar) - 0.94).abs() < 1e-12);
        assert_eq!(allocated_share(&cfg, Scheme::Rcp), 1.0);
    }

    #[test]
    fn bad_specs_are_errors_naming_the_field() {
        let mut spec = crate::systems::sperc::fig7::smoke(1);
        spec.replace = 0.0;
        let e = run(&spec, Scheme::Rcp).unwrap_err().to_string();
        assert!(e.contains("replace"), "{e}");
        assert!(Scheme::parse("tcp", "x.scheme")
            .unwrap_err()
            .to_string()
            .contains("x.scheme"));
    }
}
