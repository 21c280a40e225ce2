//! eBA at packet level (issue 23's checks): the host shim ([`super::shim`]) and the switch
//! part ([`super::agent`]) on the packet engine, against closed forms, the oracle and the
//! models.
//!
//! **Time scale.** The paper's parameters (§VII-C: α = β = 2 s⁻¹, τ_v = 50 ms, τ_r = 100 ms)
//! settle in seconds, i.e. millions of packets per run. These tests use the same controller at
//! datacenter speed by §VI-B's *uniform increase*: τ_v = 500 µs and τ_r = 1 ms with
//! α = β = 200 s⁻¹, so the per-update steps ατ_v = 0.1 and βτ_r = 0.2 — all that Eq. (15)
//! uses — are the paper's, and every time constant shrinks 100-fold (the paper's ~4 s to
//! converge becomes ~40 ms). τ_v stays an order of magnitude above the RTT (~50 µs here), as
//! §VI-A asks.

use super::config::LrcConfig;
use super::vms::{EbaPacketConfig, RateControl, VmSpec};
use crate::engine::packet::ControlConfig;
use crate::engine::packet::RoutingMode;
use crate::ids::NodeId;
use crate::registry::{HostShimKind, PacketConfig, PacketSim, PortAgentConfig, TransportKind};
use crate::test_support::wire_throughput;
use crate::topo::{LinkSpec, Topology};
use crate::units::{Bytes, Rate, Time};
use crate::workload::FlowSpec;
use std::collections::BTreeMap;

/// §VII-C's controller under uniform increase to τ_v = 500 µs, τ_r = 1 ms.
pub(super) fn fast_lrc() -> LrcConfig {
    LrcConfig::default().with_uniform_increase(Time::from_us(500), Time::from_ms(1))
}

/// A VM.
pub(super) fn vm(name: &str, host: u32, tenant: u32, guarantee_mbps: u64, weight: f64) -> VmSpec {
    VmSpec {
        name: name.into(),
        host,
        tenant,
        guarantee: Rate(guarantee_mbps * 1_000_000),
        weight,
    }
}

/// A backlogged flow of tenant `tag` from `src` to `dst`, starting at `start_ms`.
pub(super) fn flow(src: u32, dst: u32, tag: u32, start_ms: u64) -> FlowSpec {
    FlowSpec {
        tag,
        ..FlowSpec::new(
            NodeId(src),
            NodeId(dst),
            Bytes(10_000_000_000),
            Time::from_ms(start_ms),
        )
    }
}

/// The packet configuration of an eBA run: Reno guests (no ECN: "plain TCP"), the rate
/// control `control` with `vms` and [`fast_lrc`], 74 B control packets (§VI-C).
pub(super) fn eba_config(control: RateControl, vms: Vec<VmSpec>) -> PacketConfig {
    PacketConfig {
        transport: TransportKind::Reno,
        host_shim: HostShimKind::Eba,
        port_agent: PortAgentConfig::Eba,
        routing: RoutingMode::HostPair,
        control: ControlConfig {
            size: Bytes(74),
            ..ControlConfig::default()
        },
        eba: EbaPacketConfig {
            rate_control: control,
            vms,
            lrc: fast_lrc(),
            ..EbaPacketConfig::default()
        },
        ..PacketConfig::default()
    }
}

/// Runs to `until_ms` and returns the wire throughput (bit/s) over the last `window_ms`,
/// summed by VM-flow key `(src host, tag, dst host)`.
pub(super) fn vm_flow_rates(
    topo: &Topology,
    flows: &[FlowSpec],
    cfg: PacketConfig,
    until_ms: u64,
    window_ms: u64,
) -> BTreeMap<(u32, u32, u32), f64> {
    let (mtu, header) = (cfg.mtu, cfg.header);
    let mut sim = PacketSim::from_config(topo, flows, cfg).unwrap();
    let a = sim.run_until(Time::from_ms(until_ms - window_ms)).unwrap();
    let b = sim.run_until(Time::from_ms(until_ms)).unwrap();
    let mut out = BTreeMap::new();
    for (f, r) in flows.iter().zip(wire_throughput(&a, &b, mtu, header)) {
        *out.entry((f.src.0, f.tag, f.dst.0)).or_insert(0.0) += r;
    }
    out
}

/// One host (0) behind a 1 Gb/s NIC, `receivers` hosts (1..) behind their own 1 Gb/s links
/// on one switch; propagation 10 µs a link, 256 KB buffers.
pub(super) fn one_link(receivers: u32) -> Topology {
    let link = LinkSpec::new(Rate::gbps(1), Time::from_us(10), Bytes(256 * 1024));
    crate::topo::star(receivers + 1, link).unwrap()
}

#[test]
fn weights_one_to_two_give_rates_one_to_two() {
    // X (tenant 0) and Y (tenant 1) on host 0 send to their peers on hosts 1 and 2; VM weights
    // 1 (X, X') and 2 (Y, Y') give VM-flow weights 2 and 4 (Eq. 1), no guarantees. Eq. (15)'s
    // fixed point is v_i = w_i·r with Σv = μC on host 0's NIC, so X gets μC/3 = 300 and Y
    // 2μC/3 = 600 Mb/s (μ = 0.9, C = 1 Gb/s). Issue 23: 1:2 within 5% once settled.
    let topo = one_link(2);
    let vms = vec![
        vm("x", 0, 0, 0, 1.0),
        vm("y", 0, 1, 0, 2.0),
        vm("x2", 1, 0, 0, 1.0),
        vm("y2", 2, 1, 0, 2.0),
    ];
    let flows = vec![flow(0, 1, 0, 0), flow(0, 2, 1, 0)];
    let r = vm_flow_rates(&topo, &flows, eba_config(RateControl::Lrc, vms), 150, 50);
    let (x, y) = (r[&(0, 0, 1)], r[&(0, 1, 2)]);
    assert!((y / x / 2.0 - 1.0).abs() < 0.05, "x {x} y {y}");
}

#[test]
fn a_guarantee_holds_whatever_the_other_vms_flow_count() {
    // X (guarantee 450 Mb/s, weight 1; its peer X' the same) and Y (weight 4, peer Y' weight
    // 4, no guarantee) share host 0's 1 Gb/s NIC; Y opens 1, 4 or 16 TCP flows. VM-flow
    // weights 2 and 8 (Eq. 1) would give X only 0.9·1000·2/10 = 180 Mb/s, so Eq. (16)'s floor
    // binds: X sends at its guarantee 450 and Y takes the rest of μC, 450 (the oracle with
    // guarantees; §VII-A Fig. 8's claim "the rate of X stays around 450Mbps irrespective of
    // the flow-level competition"). Within 5%. Without eBA (best effort) X's one TCP flow gets
    // about 1/(n+1) of the link: with 16 flows of Y far below 450 Mb/s (below half of it).
    let topo = one_link(2);
    let vms = || {
        vec![
            vm("x", 0, 0, 450, 1.0),
            vm("y", 0, 1, 0, 4.0),
            vm("x2", 1, 0, 450, 1.0),
            vm("y2", 2, 1, 0, 4.0),
        ]
    };
    for n in [1, 4, 16] {
        let mut flows = vec![flow(0, 1, 0, 0)];
        flows.extend((0..n).map(|_| flow(0, 2, 1, 0)));
        let r = vm_flow_rates(&topo, &flows, eba_config(RateControl::Lrc, vms()), 400, 100);
        let (x, y) = (r[&(0, 0, 1)], r[&(0, 1, 2)]);
        assert!(
            (x / 450e6 - 1.0).abs() < 0.05,
            "{n} flows of Y: x {x} y {y}"
        );
        assert!(
            (y / 450e6 - 1.0).abs() < 0.05,
            "{n} flows of Y: x {x} y {y}"
        );
        if n == 16 {
            let be = eba_config(RateControl::BestEffort, vms());
            let r = vm_flow_rates(&topo, &flows, be, 150, 50);
            assert!(r[&(0, 0, 1)] < 225e6, "best effort: x {}", r[&(0, 0, 1)]);
        }
    }
}

/// Hosts and switches of the multi-bottleneck tests: `s0 – s1 – s2` in a chain (s0–s1 at
/// 1 Gb/s, s1–s2 at `mid_mbps`), hosts 0 and 1 on s0, host 2 on s1, hosts 3 and 4 on s2, and
/// host 5 on s2 behind a 200 Mb/s link; host links 1 Gb/s, 10 µs a link.
fn chain(mid_mbps: u64) -> Topology {
    let spec =
        |mbps: u64| LinkSpec::new(Rate(mbps * 1_000_000), Time::from_us(10), Bytes(256 * 1024));
    let mut t = Topology::new();
    let hosts: Vec<NodeId> = (0..6).map(|i| t.add_host(format!("h{i}"))).collect();
    let s: Vec<NodeId> = (0..3).map(|i| t.add_switch(format!("s{i}"))).collect();
    t.add_duplex(s[0], s[1], spec(1000)).unwrap();
    t.add_duplex(s[1], s[2], spec(mid_mbps)).unwrap();
    for (h, sw, mbps) in [
        (0, 0, 1000),
        (1, 0, 1000),
        (2, 1, 1000),
        (3, 2, 1000),
        (4, 2, 1000),
        (5, 2, 200),
    ] {
        t.add_duplex(hosts[h], s[sw], spec(mbps)).unwrap();
    }
    t
}

#[test]
fn spare_bandwidth_goes_to_the_vm_that_wants_it() {
    // X and Y on host 0, both guaranteed 450 Mb/s (weights 1). Y's peer sits behind a
    // 200 Mb/s link (guarantee 150 Mb/s), so Y can use at most μ·200 = 180 Mb/s; X's VM-flow
    // takes what Y leaves of host 0's μC: 900 − 180 = 720 Mb/s, well above its guarantee
    // (work conservation, §VII-A Fig. 9). The oracle gives the same; within 5%.
    let topo = chain(1000);
    let vms = vec![
        vm("x", 0, 0, 450, 1.0),
        vm("y", 0, 1, 450, 1.0),
        vm("x2", 3, 0, 450, 1.0),
        vm("y2", 5, 1, 150, 1.0),
    ];
    let flows = vec![flow(0, 3, 0, 0), flow(0, 5, 1, 0)];
    let r = vm_flow_rates(&topo, &flows, eba_config(RateControl::Lrc, vms), 150, 50);
    let (x, y) = (r[&(0, 0, 3)], r[&(0, 1, 5)]);
    assert!((x / 720e6 - 1.0).abs() < 0.05, "x {x} y {y}");
    assert!((y / 180e6 - 1.0).abs() < 0.05, "x {x} y {y}");
}

#[test]
fn a_multi_bottleneck_network_settles_on_the_oracles_allocation() {
    // Four tenants on the chain with s1–s2 at 600 Mb/s, each VM with one peer:
    //   a: host 0 → host 3 (B = 300 Mb/s, VM weights 1, 1: VM-flow weight 2), over s0–s1, s1–s2;
    //   b: host 1 → host 2 (weights 2, 2: 4), over s0–s1, two TCP flows;
    //   c: host 2 → host 4 (weights 1, 3: 4), over s1–s2;
    //   d: host 0 → host 4 (weights 1, 1: 2), over s0–s1, s1–s2.
    // The oracle on capacities μC (900 and 540 Mb/s), weights by Eq. (1), guarantees by Eq. (2)
    // (a: min(300·1/1, 300·1/1) = 300, the others 0): s1–s2 is the first bottleneck, a at its
    // guarantee 300 and c, d sharing 240 at 4:2 (160, 80); then b takes the rest of s0–s1,
    // 900 − 300 − 80 = 520. The settled packet-level rates match within 5% (issue 23).
    let topo = chain(600);
    let vms = vec![
        vm("a", 0, 0, 300, 1.0),
        vm("a2", 3, 0, 300, 1.0),
        vm("b", 1, 1, 0, 2.0),
        vm("b2", 2, 1, 0, 2.0),
        vm("c", 2, 2, 0, 1.0),
        vm("c2", 4, 2, 0, 3.0),
        vm("d", 0, 3, 0, 1.0),
        vm("d2", 4, 3, 0, 1.0),
    ];
    let flows = vec![
        flow(0, 3, 0, 0),
        flow(1, 2, 1, 0),
        flow(1, 2, 1, 0),
        flow(2, 4, 2, 0),
        flow(0, 4, 3, 0),
    ];
    let cfg = eba_config(RateControl::Lrc, vms.clone());
    let mu = cfg.eba.lrc.mu;
    // The oracle, from the engine's routes and Algorithm 1's table.
    let plan = super::vms::VmPlan::new(&cfg.eba, &topo, &flows).unwrap();
    for p in 0..plan.pairs.len() as u32 {
        plan.open(p);
    }
    let pairs: Vec<_> = plan
        .pairs
        .iter()
        .map(|p| (NodeId(vms[p.src].host), NodeId(vms[p.dst].host)))
        .collect();
    let (weights, guarantees): (Vec<f64>, Vec<f64>) = (0..pairs.len() as u32)
        .map(|p| plan.current(p).unwrap())
        .unzip();
    let mut input = crate::workload::routed_problem(
        &topo,
        &crate::topo::Routing::new(&topo),
        &pairs,
        0,
        weights,
    )
    .unwrap();
    input.capacities.iter_mut().for_each(|c| *c *= mu);
    input.guarantees = Some(guarantees);
    let oracle = crate::alloc::waterfill::solve(&crate::alloc::Problem::new(input).unwrap()).rates;
    let want = [300e6, 520e6, 160e6, 80e6];
    for (o, w) in oracle.iter().zip(want) {
        assert!(
            (o / w - 1.0).abs() < 1e-9,
            "oracle {oracle:?} against the hand-worked {want:?}"
        );
    }
    let r = vm_flow_rates(&topo, &flows, cfg, 400, 100);
    for (p, o) in plan.pairs.iter().zip(&oracle) {
        let key = (vms[p.src].host, vms[p.src].tenant, vms[p.dst].host);
        let got = r[&key];
        assert!(
            (got / o - 1.0).abs() < 0.05,
            "{key:?}: {got} against the oracle's {o}; {r:?}"
        );
    }
}

#[test]
fn the_recursion_the_fluid_model_and_the_packet_run_agree() {
    // One link, X and Y of weights 2 and 4 (the 1:2 test), no guarantees, both from 1 Mb/s
    // with the rate factors at C, α = β = 200 s⁻¹, τ_v = 500 µs, τ_r = 1 ms, μ = 0.9. Eq. (6)
    // (the fluid model), Eq. (15) (the recursion) and the packet run (the shim and the ports)
    // share the fixed point X = 300, Y = 600 Mb/s; each settles there within 5% over
    // 150–200 ms (the models to 1e-3).
    //
    // On the way they differ, for a reason the paper gives (§VI-B): in the models a link's
    // load is the sum of the rate limits, which overshoots to ~2 Gb/s here, so the rate
    // factor falls fast (the models settle by ~60 ms); a real link carries at most C, so the
    // port measures at most C and its factor falls at most β(1 − 1/μ) = 22 s⁻¹ (2.2% a ms),
    // and the packet run, TCP filling the link meanwhile, settles by ~120 ms
    // (`docs/systems/eba.md`).
    use super::model::{LogisticModel, LrcNetwork, LrcRecursion};
    use crate::engine::model::{iterate, solve_continuous, Model, ModelRun, SolverOptions};
    use crate::engine::Progress;
    let lrc = fast_lrc();
    let mut net = LrcNetwork::new(vec![1e9], vec![vec![0], vec![0]]);
    net.weights = vec![2.0, 4.0];
    let opts = SolverOptions {
        horizon: 0.2,
        output_interval: 0.005,
        ..SolverOptions::default()
    };
    let fluid = LogisticModel::new(net.clone(), lrc.alpha, lrc.beta, lrc.mu, 1e6).unwrap();
    let fl = solve_continuous(&fluid, &fluid.initial_state(), &opts, &Progress::default()).unwrap();
    let mut rec =
        LrcRecursion::new(net, lrc.alpha, lrc.beta, lrc.tau_v, lrc.tau_r, lrc.mu, 1e6).unwrap();
    let y0 = rec.initial_state();
    let re = iterate(&mut rec, &y0, &opts, &Progress::default()).unwrap();
    let last = |run: &ModelRun, i: usize| {
        let k = run.outputs.len();
        run.values[(run.times.len() - 1) * k + i]
    };

    let topo = one_link(2);
    let vms = vec![
        vm("x", 0, 0, 0, 1.0),
        vm("y", 0, 1, 0, 2.0),
        vm("x2", 1, 0, 0, 1.0),
        vm("y2", 2, 1, 0, 2.0),
    ];
    let flows = vec![flow(0, 1, 0, 0), flow(0, 2, 1, 0)];
    let r = vm_flow_rates(&topo, &flows, eba_config(RateControl::Lrc, vms), 200, 50);
    let packet = [r[&(0, 0, 1)], r[&(0, 1, 2)]];
    for (i, want) in [300e6, 600e6].into_iter().enumerate() {
        let (f, q) = (last(&fl, i), last(&re, i));
        assert!((f / want - 1.0).abs() < 1e-3, "fluid {i}: {f}");
        assert!((q / want - 1.0).abs() < 1e-3, "recursion {i}: {q}");
        assert!(
            (packet[i] / q - 1.0).abs() < 0.05,
            "packet {i}: {} against {q}",
            packet[i]
        );
    }
}

#[test]
fn static_reservation_holds_each_vm_flow_at_its_guarantee() {
    // Oktopus's static reservation (the baseline of eBA §VII): X guaranteed 300 Mb/s alone on
    // host 0's 1 Gb/s NIC is limited to 300 Mb/s (within 5%) although the link is idle
    // otherwise: not work-conserving, where LRC gives X the whole μC = 900 Mb/s.
    let topo = one_link(1);
    let vms = || vec![vm("x", 0, 0, 300, 1.0), vm("x2", 1, 0, 300, 1.0)];
    let flows = vec![flow(0, 1, 0, 0)];
    let r = vm_flow_rates(
        &topo,
        &flows,
        eba_config(RateControl::Reservation, vms()),
        60,
        40,
    );
    assert!((r[&(0, 0, 1)] / 300e6 - 1.0).abs() < 0.05, "{r:?}");
    let r = vm_flow_rates(&topo, &flows, eba_config(RateControl::Lrc, vms()), 150, 50);
    assert!((r[&(0, 0, 1)] / 900e6 - 1.0).abs() < 0.05, "{r:?}");
}

#[test]
fn bad_eba_input_gets_one_line_errors_naming_the_vm_or_field() {
    // Issue 23's bad inputs: a guarantee above the VM's host link, a host's guarantees above
    // its line rate, weights ≤ 0, α or β ≤ 0, ατ_v outside (0, 1), μ outside (0, 1]; and the
    // eBA-specific ones: a flow without a VM, LRC without the ports' agents or with per-flow
    // ECMP, a reservation for a VM without a guarantee.
    let topo = one_link(2);
    let flows = vec![flow(0, 1, 0, 0), flow(0, 2, 1, 0)];
    let good = || {
        vec![
            vm("x", 0, 0, 400, 1.0),
            vm("y", 0, 1, 400, 1.0),
            vm("x2", 1, 0, 0, 1.0),
            vm("y2", 2, 1, 0, 1.0),
        ]
    };
    let err = |cfg: PacketConfig| match PacketSim::from_config(&topo, &flows, cfg) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    let with = |f: &dyn Fn(&mut PacketConfig)| {
        let mut c = eba_config(RateControl::Lrc, good());
        f(&mut c);
        err(c)
    };
    let cases: Vec<(String, &str)> = vec![
        (
            with(&|c| c.eba.vms[0].guarantee = Rate::gbps(2)),
            "vm \"x\".guarantee: 2000000000 b/s is above its host's link",
        ),
        (
            with(&|c| c.eba.vms[1].guarantee = Rate(700_000_000)),
            "host 0: the guarantees of its VMs (x, y) add up to",
        ),
        (
            with(&|c| c.eba.vms[1].weight = 0.0),
            "packet config.eba.vms[1] (\"y\").weight: must be positive, got 0",
        ),
        (
            with(&|c| c.eba.vms[2].weight = -1.0),
            "packet config.eba.vms[2] (\"x2\").weight: must be positive",
        ),
        (
            with(&|c| c.eba.lrc.alpha = 0.0),
            "packet config.eba.lrc.alpha: must be positive",
        ),
        (
            with(&|c| c.eba.lrc.beta = -2.0),
            "packet config.eba.lrc.beta: must be positive",
        ),
        (
            with(&|c| c.eba.lrc.alpha = 2000.0),
            "packet config.eba.lrc.alpha: alpha·tau_v must be in (0, 1)",
        ),
        (
            with(&|c| c.eba.lrc.mu = 1.5),
            "packet config.eba.lrc.mu: must be in (0, 1], got 1.5",
        ),
        (
            with(&|c| c.eba.lrc.mu = 0.0),
            "packet config.eba.lrc.mu: must be in (0, 1], got 0",
        ),
        (
            with(&|c| c.eba.vms.truncate(3)),
            "flow 1: its destination host 2 has no VM of tenant 1",
        ),
        (
            with(&|c| c.port_agent = PortAgentConfig::None),
            "packet config.port_agent: eBA's LRC reads the switches' rate factors",
        ),
        (
            with(&|c| c.routing = RoutingMode::Ecmp),
            "packet config.routing: eBA's control packets must follow",
        ),
        (
            with(&|c| c.eba.rate_control = RateControl::Reservation),
            "vm \"x2\".guarantee: static reservation limits",
        ),
        (
            with(&|c| c.eba.vms.clear()),
            "packet config.eba.vms: host_shim = \"eba\" needs at least one VM",
        ),
    ];
    for (got, want) in cases {
        assert!(got.starts_with(want), "{got:?} should start with {want:?}");
        assert!(!got.contains('\n'), "one line: {got:?}");
    }
}

#[test]
fn the_tcp_like_baseline_keeps_the_guarantee_and_fills_the_link() {
    // ElasticSwitch's TCP-like allocation (eBA §VII-C's baseline) in Fig. 12's setting: X
    // guaranteed 600 Mb/s, Y none, equal weights, both on host 0 of a dumbbell whose 1 Gb/s
    // middle link is the bottleneck (10 Gb/s host links: a congestion signal needs a queue in
    // the network, and a host's own NIC never queues, the host pulls only when it is idle);
    // the period 15 ms shrunk 100-fold as the tests' LRC (150 µs). Congestion is ECN: the
    // switch marks above 20 packets, the guests (Reno with ECN) echo it. Checked: the rates
    // fill the link (together above 80% of C) and X, whose limit never falls below its
    // guarantee, gets more than Y. X does not reach its 600 Mb/s exactly (measured, seed 0:
    // 564 against Y's 417): its own guest TCP backs off on the marks Y's traffic causes, and
    // Y's rate is cut only until the queue stops marking — unlike LRC, whose limits alone
    // keep the link below μC.
    let access = LinkSpec::new(Rate::gbps(10), Time::from_us(10), Bytes(256 * 1024));
    let middle = LinkSpec::new(Rate::gbps(1), Time::from_us(10), Bytes(256 * 1024));
    let topo = crate::topo::dumbbell(2, access, middle).unwrap();
    let vms = vec![
        vm("x", 0, 0, 600, 1.0),
        vm("y", 0, 1, 0, 1.0),
        vm("x2", 2, 0, 600, 1.0),
        vm("y2", 3, 1, 0, 1.0),
    ];
    let flows = vec![flow(0, 2, 0, 0), flow(0, 3, 1, 0)];
    let mut cfg = eba_config(RateControl::TcpLike, vms);
    cfg.eba.tcp_like.period = Time::from_us(150);
    cfg.transport = TransportKind::RenoEcn;
    cfg.qdisc = crate::registry::QdiscConfig::Ecn {
        k: crate::schemes::fifo::EcnThreshold::Packets(20),
    };
    let r = vm_flow_rates(&topo, &flows, cfg, 300, 150);
    let (x, y) = (r[&(0, 0, 2)], r[&(0, 1, 3)]);
    assert!(x > y, "x {x} y {y}");
    assert!(x + y > 0.8e9, "x {x} y {y}");
}
