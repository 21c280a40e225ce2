//! MAY on the packet engine at small scale: the checks (a CBR flow below and above its
//! fair share, TCP flows with RTTs spread tenfold on one link, long flows on several
//! bottlenecks against the oracle, weighted MAY against the weighted oracle, determinism).
//! Each test states the outcome it expects before asserting it.
//!
//! Timers: the paper's (§IV: Δ = 1 s, u₀ = 0.98, κ = 0.1, q_w = 0.05, T₀ = 64 s, S₀ = 1000)
//! satisfy §V's rules for the RTTs used here (20–200 ms: "Δ should be taken to cover several
//! 'typical' RTT values"), and minutes of simulated time at 10 Mb/s take well under a second,
//! so they are not scaled down. (Scaled down by §V's rules — Δ = 250 ms, q_w = 0.1, T₀ = 64·Δ —
//! on 10 flows of 2 Mb/s, ν, driven by a utilization measured over a quarter second, swung
//! between 0 and three times its mean, and Jain's index stayed near 0.85; see
//! docs/systems/may.md.) The one change: q_w = 0.1 (the upper end of §V's range
//! "q_w ∈ [0.01, 0.1]") in the CBR test, so the shut-out CBR flow's δ, which grows by the factor
//! 1 − q_w + q_w·x·ν per Δ (Theorem 3.2), reaches 1/ν within the run.
//!
//! Fair shares are kept near the paper's (Fig. 5: 0.8 Mb/s, about 100 packets a second): 12
//! flows on 10 Mb/s.

use super::MayConfig;
use crate::engine::packet::PacketResults;
use crate::ids::NodeId;
use crate::metrics::jain_index;
use crate::registry::{FlowTransport, PacketConfig, PacketSim, QdiscConfig, TransportKind};
use crate::test_support::{oracle_rates, wire_throughput};
use crate::topo::{may_fig6, LinkSpec, Topology};
use crate::units::{Bytes, Rate, Time};
use crate::workload::FlowSpec;

const LONG: Bytes = Bytes(1 << 50);
/// Payload and header of §IV's 1000-byte packets (TCP-SACK, "a packet size 1000B").
const MTU: Bytes = Bytes(1000);
const HEADER: Bytes = Bytes(40);

/// MAY with the paper's parameters and the averaging weight `q_w`.
fn may_paper(q_w: f64) -> MayConfig {
    MayConfig {
        q_w,
        ..MayConfig::default()
    }
}

/// §IV's transports: TCP with SACK and delayed ACKs (NewReno's window, no ECN), 1000-byte
/// packets; WAN timers (200 ms minimum RTO, ns-2's 100 ms delayed-ACK timer).
fn wan_config(may: MayConfig, seed: u64) -> PacketConfig {
    let mut c = PacketConfig {
        mtu: MTU,
        header: HEADER,
        transport: TransportKind::Reno,
        qdisc: QdiscConfig::May(may),
        seed,
        ..PacketConfig::default()
    };
    c.tcp.sack = true;
    c.tcp.delayed_ack = true;
    c.tcp.delayed_ack_timeout = Time::from_ms(100);
    c.tcp.min_rto = Time::from_ms(200);
    c.tcp.initial_rto = Time::from_ms(1000);
    c.tcp.max_rto = Time::from_ms(60_000);
    c
}

/// One bottleneck `a → b` of `rate` with a 100-packet buffer; host pair `i` reaches it over
/// access links (100 Mb/s) whose delays make its RTT `rtts[i]` (the bottleneck and the
/// receiver's link add 1 ms each way).
fn one_link(rate: Rate, rtts: &[Time]) -> Topology {
    one_link_with_buffer(rate, rtts, 100)
}

/// [`one_link`] with a bottleneck buffer of `packets` full packets.
fn one_link_with_buffer(rate: Rate, rtts: &[Time], packets: u64) -> Topology {
    let mut t = Topology::new();
    let senders: Vec<NodeId> = (0..rtts.len())
        .map(|i| t.add_host(format!("s{i}")))
        .collect();
    let receivers: Vec<NodeId> = (0..rtts.len())
        .map(|i| t.add_host(format!("r{i}")))
        .collect();
    let a = t.add_switch("a");
    let b = t.add_switch("b");
    let buffer = Bytes(packets * (MTU.0 + HEADER.0));
    t.add_duplex(a, b, LinkSpec::new(rate, Time::from_ms(1), buffer))
        .unwrap();
    for (i, rtt) in rtts.iter().enumerate() {
        let access = Time(rtt.0 / 2 - Time::from_ms(2).0);
        let fast = Rate(100_000_000);
        t.add_duplex(senders[i], a, LinkSpec::new(fast, access, Bytes(1_000_000)))
            .unwrap();
        t.add_duplex(
            b,
            receivers[i],
            LinkSpec::new(fast, Time::from_ms(1), Bytes(1_000_000)),
        )
        .unwrap();
    }
    t
}

/// `n` RTTs evenly spread from 20 ms to 200 ms (tenfold).
fn rtts(n: usize) -> Vec<Time> {
    (0..n)
        .map(|i| Time::from_ms(20 + (180 * i as u64) / (n as u64 - 1).max(1)))
        .collect()
}

/// Runs `flows` on `topo` (the flows listed in `cbr` at a constant rate, the engine's UDP, by
/// their own transport: §IV.C mixes one CBR flow with TCP flows) and returns the records at
/// `from` and at `to`.
fn run(
    topo: &Topology,
    flows: &[FlowSpec],
    mut cfg: PacketConfig,
    cbr: Vec<(usize, Rate)>,
    from: Time,
    to: Time,
) -> (PacketResults, PacketResults) {
    cfg.flow_transports = vec![None; flows.len()];
    for (i, rate) in cbr {
        cfg.flow_transports[i] = Some(FlowTransport {
            kind: TransportKind::Udp,
            udp_rate: Some(rate),
        });
    }
    let mut sim = PacketSim::from_config(topo, flows, cfg).unwrap();
    let a = sim.run_until(from).unwrap();
    let b = sim.run_until(to).unwrap();
    assert!(b.conservation.holds(), "{:?}", b.conservation);
    (a, b)
}

/// Wire throughput (bit/s) of every flow between two snapshots.
fn throughput(a: &PacketResults, b: &PacketResults) -> Vec<f64> {
    wire_throughput(a, b, MTU, HEADER)
}

/// Flows from sender `i` to receiver `n + i` of [`one_link`], all long, starting within the
/// first 100 ms.
fn pair_flows(n: usize) -> Vec<FlowSpec> {
    (0..n)
        .map(|i| {
            FlowSpec::new(
                NodeId(i as u32),
                NodeId((n + i) as u32),
                LONG,
                Time::from_ms(10 * i as u64),
            )
        })
        .collect()
}

#[test]
fn a_cbr_flow_below_the_fair_share_keeps_its_rate_and_one_above_is_shut_out() {
    // Theorem 3.2 on one 10 Mb/s MAY link: 11 TCP flows (RTTs 20–200 ms) and one CBR flow; the
    // fair share is u₀·C/12 ≈ 0.82 Mb/s. At half of it the CBR flow's δ decays (factor
    // 1 − q_w + q_w·x·ν ≈ 0.95 per Δ), so it loses only a few packets after each entry:
    // expected ≥ 95% of its rate delivered over 100–200 s. At 1.5 times it δ grows by ≈ 1.05 per
    // Δ until ν·δ ≥ 1 (within ~90 s of its entry), after which its packets are dropped
    // whenever ν is near its mean: expected ≤ 15% of its rate delivered over 100–200 s (a
    // measured bound, seed 1: ~8%; packets pass while ν dips below 1/δ).
    let n = 12;
    let c = Rate(10_000_000);
    let topo = one_link(c, &rtts(n));
    let flows = pair_flows(n);
    let fair = 0.98 * c.bps() / n as f64;
    for (factor, keeps) in [(0.5, true), (1.5, false)] {
        let rate = Rate((factor * fair) as u64);
        let (a, b) = run(
            &topo,
            &flows,
            wan_config(may_paper(0.1), 1),
            vec![(0, rate)],
            Time::from_ms(100_000),
            Time::from_ms(200_000),
        );
        let got = throughput(&a, &b)[0] / rate.bps();
        if keeps {
            assert!(
                got >= 0.95,
                "CBR at 0.5× fair share delivered {got} of its rate"
            );
        } else {
            assert!(
                got <= 0.15,
                "CBR at 1.5× fair share delivered {got} of its rate"
            );
        }
    }
}

#[test]
fn tcp_flows_with_rtts_spread_tenfold_share_one_may_link_fairly() {
    // Corollary 3.1 (§IV.A's experiment at a tenth of the flows): 12 long TCP flows with RTTs
    // 20–200 ms on one 10 Mb/s MAY link. Under drop-tail TCP's rate goes as 1/RTT (the
    // square-root formula); MAY's drops make every flow's rate u₀C/N whatever its RTT.
    // Expected: Jain's index of the throughputs over 50–150 s ≥ 0.95 (the bound; the
    // paper measured 0.993 for 100 flows), and the link at least 90% busy.
    let n = 12;
    let c = Rate(10_000_000);
    let topo = one_link(c, &rtts(n));
    let flows = pair_flows(n);
    let (a, b) = run(
        &topo,
        &flows,
        wan_config(may_paper(0.05), 1),
        vec![],
        Time::from_ms(50_000),
        Time::from_ms(150_000),
    );
    let x = throughput(&a, &b);
    let j = jain_index(&x, None);
    assert!(j >= 0.95, "Jain {j}: {x:?}");
    let total: f64 = x.iter().sum();
    assert!(total >= 0.9 * c.bps(), "total {total}");
}

/// Fig. 6's network (24 nodes, 10 Mb/s, 100-packet buffers) with 2 flows per pattern instead
/// of 5 (hosts 1 and 2 of each group: RTTs 0.2–0.5 s), so the test stays short; the shares are
/// still set by three bottlenecks in a chain.
fn fig6_flows(weights: impl Fn(usize) -> f64) -> (Topology, Vec<FlowSpec>) {
    let fig = may_fig6().unwrap();
    let flows = fig
        .flows
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 5 < 2)
        .enumerate()
        .map(|(k, (_, &(s, d)))| {
            let mut f = FlowSpec::new(s, d, LONG, Time::from_ms(10 * k as u64));
            f.weight = weights(k);
            f
        })
        .collect();
    (fig.topology, flows)
}

/// Rates (bit/s) over 60–180 s of `flows` on `topo` with queueing discipline `qdisc`.
fn rates(topo: &Topology, flows: &[FlowSpec], qdisc: QdiscConfig) -> Vec<f64> {
    let mut cfg = wan_config(MayConfig::default(), 3);
    cfg.qdisc = qdisc;
    let (a, b) = run(
        topo,
        flows,
        cfg,
        vec![],
        Time::from_ms(60_000),
        Time::from_ms(180_000),
    );
    throughput(&a, &b)
}

/// MAY with the paper's parameters, counting buffer overflows in ND (an option; with Fig. 6's
/// 100-packet buffers and RTTs up to 0.5 s most losses are overflows, and without them the
/// link's utilization stays below u₀ so ν stays near 0), weighted or not.
fn may_fig6_cfg(weighted: bool) -> QdiscConfig {
    QdiscConfig::May(MayConfig {
        overflow_counts: true,
        weighted,
        ..MayConfig::default()
    })
}

#[test]
fn long_flows_on_several_bottlenecks_get_near_the_oracles_max_min_rates() {
    // Theorem 3.3: with MAY at every link, each flow's rate is 1/ν at its bottleneck, i.e.
    // max-min fair. On Fig. 6's chain (2 flows per pattern) the oracle gives 1.25 Mb/s to the 8
    // flows crossing c2 → c3 and 2.5 Mb/s to the 4 that cross only c1 → c2 or c3 → c4 — rates
    // that differ by flow, so Jain's index against them (Eq. 10) checks the allocation, not
    // just equality. Expected: MAY's index closer to 1 than drop-tail's on the same network
    // (the claim of Fig. 7, where RED gets 0.731), and at least 0.85 (a measured bound, seed 3:
    // ~0.91; the paper's 0.985 is for all 30 flows, which we do not reach: see
    // docs/systems/may.md).
    let (topo, flows) = fig6_flows(|_| 1.0);
    let want = oracle_rates(&topo, &flows);
    let x = rates(&topo, &flows, may_fig6_cfg(false));
    let j = jain_index(&x, Some(&want));
    let tail = rates(&topo, &flows, QdiscConfig::DropTail);
    let j_tail = jain_index(&tail, Some(&want));
    assert!(j > j_tail, "MAY {j} vs drop-tail {j_tail}");
    assert!(j >= 0.85, "Jain vs oracle {j}: got {x:?}, oracle {want:?}");
}

#[test]
fn weighted_may_moves_the_rates_towards_the_weighted_oracle() {
    // fairnet's extension: dropping with probability ν·δ/w makes the fixed point x = w/ν.
    // Weights 1, 2, 3 cycled over the flows of Fig. 6's chain (2 flows per pattern); the
    // weighted oracle's rates differ from the unweighted ones. Expected: against the weighted
    // oracle, weighted MAY's rates have a higher Jain index than unweighted MAY's on the same
    // flows (the weights moved the allocation towards weighted max-min), and at least 0.8 (a
    // measured bound, seed 3: ~0.85).
    let w = |k: usize| [1.0, 2.0, 3.0][k % 3];
    let (topo, flows) = fig6_flows(w);
    let want = oracle_rates(&topo, &flows);
    let x = rates(&topo, &flows, may_fig6_cfg(true));
    let j = jain_index(&x, Some(&want));
    let plain = rates(&topo, &flows, may_fig6_cfg(false));
    let j_plain = jain_index(&plain, Some(&want));
    assert!(j > j_plain, "weighted {j} vs unweighted {j_plain}");
    assert!(
        j >= 0.8,
        "Jain vs weighted oracle {j}: got {x:?}, oracle {want:?}"
    );
}

#[test]
fn same_seed_same_output_and_a_different_seed_differs() {
    // MAY draws from one seeded generator per port: the same inputs and seed give identical
    // records; another seed changes the drops.
    let topo = one_link(Rate(20_000_000), &rtts(4));
    let flows = pair_flows(4);
    let go = |seed| {
        run(
            &topo,
            &flows,
            wan_config(may_paper(0.05), seed),
            vec![],
            Time::from_ms(1_000),
            Time::from_ms(8_000),
        )
        .1
    };
    let (a, b, c) = (go(5), go(5), go(6));
    assert_eq!(a, b);
    assert_ne!(a.links, c.links);
}

#[test]
fn the_scenario_names_may_and_bad_parameters_are_one_line_errors() {
    let c = PacketConfig::from_toml_str(
        "qdisc = { kind = \"may\", delta = \"500ms\", u0 = 0.95, s0 = 500 }",
    )
    .unwrap();
    let QdiscConfig::May(m) = c.qdisc else {
        panic!("not MAY: {:?}", c.qdisc)
    };
    assert_eq!(m.delta, Time::from_ms(500));
    assert_eq!((m.u0, m.s0, m.q_w), (0.95, 500.0, 0.05));
    let e = PacketConfig::from_toml_str("qdisc = { kind = \"may\", u0 = 1.5 }").unwrap_err();
    assert_eq!(
        e.to_string(),
        "packet config.qdisc.u0: must be in (0, 1], got 1.5"
    );
    let e =
        PacketConfig::from_toml_str("qdisc = { kind = \"may\", table_entries = 0 }").unwrap_err();
    assert_eq!(
        e.to_string(),
        "packet config.qdisc.table_entries: must be at least 1 entry"
    );
    let e = PacketConfig::from_toml_str("qdisc = { kind = \"may\", nu = 1 }").unwrap_err();
    assert!(e.to_string().contains("unknown field `nu`"), "{e}");
}

/// The one-link scenario of the tests above (12 TCP flows, RTTs 20–200 ms, 10 Mb/s) with MAY
/// probed at the bottleneck `a → b`, sampled every second to `until`.
fn probed_one_link(may: MayConfig, until: Time) -> (super::probe::MayProbes, PacketResults) {
    let n = 12;
    let topo = one_link(Rate(10_000_000), &rtts(n));
    let flows = pair_flows(n);
    let cfg = wan_config(may.clone(), 1);
    let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
    let a = topo.find_node("a").unwrap();
    let b = topo.find_node("b").unwrap();
    let link = topo.find_link(a, b).unwrap();
    let mut probes = super::probe::MayProbes::install(
        &mut sim,
        &topo,
        &[link],
        &may,
        Bytes(MTU.0 + HEADER.0),
        1,
        0.1,
    )
    .unwrap();
    let r = probes
        .run_until(&mut sim, Time::from_ms(1000), until)
        .unwrap();
    (probes, r)
}

#[test]
fn the_section_v_estimates_find_the_fair_share_and_the_bottlenecked_flows() {
    // §V: x* = 1/ν estimates the max-min fair share, and NB(l) = #{f ∈ H : δ_f > ε} the flows
    // bottlenecked at l. On one 10 Mb/s link with 12 long TCP flows (all bottlenecked there),
    // sampled every second over 50–150 s: NB(l) (ε = 0.1 drops per Δ) should be 12 in most
    // samples (median 12: every flow keeps losing packets to MAY, so its δ stays above ε), and
    // never more than 12; 1/mean(ν) should be near the fair share u₀C/N = 0.98·10⁷/(1040·8)/12
    // ≈ 98 packets per Δ (within 25%: ν swings around its mean, see the Fig. 7 analysis in
    // docs/systems/may.md; a measured bound, seed 1: 104).
    let (probes, _) = probed_one_link(MayConfig::default(), Time::from_ms(150_000));
    let late: Vec<_> = probes
        .samples
        .iter()
        .filter(|s| s.time >= Time::from_ms(50_000))
        .collect();
    assert_eq!(late.len(), 101);
    let mut nb: Vec<usize> = late.iter().map(|s| s.bottlenecked).collect();
    nb.sort_unstable();
    assert!(nb[nb.len() - 1] <= 12, "{nb:?}");
    assert_eq!(nb[nb.len() / 2], 12, "{nb:?}");
    let mean_nu = late.iter().map(|s| s.nu).sum::<f64>() / late.len() as f64;
    let fair = 0.98 * 1e7 / (1040.0 * 8.0) / 12.0;
    let estimate = 1.0 / mean_nu;
    assert!(
        estimate > fair / 1.25 && estimate < fair * 1.25,
        "1/mean(ν) = {estimate}, fair share {fair}"
    );
    // The memory series is the table's size at 80 bits an entry (§II-A).
    assert!(late.iter().all(|s| s.memory_bits == 80 * s.entries as u64));
}

#[test]
fn queue_based_control_of_nu_keeps_the_flows_fair() {
    // §V: "Queue based control of ν is possible as well without affecting the main features
    // of MAY". Our form (ν moved by the mean queue against a target share of the buffer) on
    // the link of the RTT test, over 50–150 s. Expected with the default target (10% of the
    // buffer): Jain's index ≥ 0.95, as with the paper's rate control. The price is the
    // link's use — a queue held near 10 packets leaves it idle between sawteeth (measured,
    // seed 1: 0.67 of the link, against over 0.9 with rate control) — so a higher target
    // must keep it busier (0.3: measured 0.83, Jain 0.94).
    let n = 12;
    let topo = one_link(Rate(10_000_000), &rtts(n));
    let flows = pair_flows(n);
    let go = |target: f64| {
        let may = MayConfig {
            control: super::NuControl::Queue,
            queue_target: target,
            ..MayConfig::default()
        };
        let (a, b) = run(
            &topo,
            &flows,
            wan_config(may, 1),
            vec![],
            Time::from_ms(50_000),
            Time::from_ms(150_000),
        );
        throughput(&a, &b)
    };
    let x = go(0.1);
    let j = jain_index(&x, None);
    assert!(j >= 0.95, "Jain {j}: {x:?}");
    let busy = |x: &[f64]| x.iter().sum::<f64>() / 1e7;
    let higher = go(0.3);
    assert!(
        busy(&higher) > busy(&x),
        "{} vs {}",
        busy(&higher),
        busy(&x)
    );
}

#[test]
fn the_runs_recorded_gauges_are_what_the_probe_reads() {
    // The engine's records carry each MAY port's own gauges (`Qdisc::gauges`), so a run with
    // `record` writes §V's series without the probe. The same run twice — once with the probe
    // at the bottleneck, once recording every second — must give the same ν, NB(l) (ε = 0.1,
    // the default `nb_epsilon`), entries and memory at the same times: the queues are built
    // from the same configuration and seed, and both read the port after every event at or
    // before the sample time. x* = 1/ν (and its bit rate at 1040-byte packets per Δ = 1 s) is
    // present exactly when ν > 0.
    let until = Time::from_ms(30_000);
    let (probes, _) = probed_one_link(MayConfig::default(), until);
    let n = 12;
    let topo = one_link(Rate(10_000_000), &rtts(n));
    let mut cfg = wan_config(MayConfig::default(), 1);
    cfg.record = Some(crate::engine::packet::RecordConfig {
        interval: Time::from_ms(1000),
        flows: false,
        queues: crate::engine::packet::QueueRecord::None,
    });
    let mut sim = PacketSim::from_config(&topo, &pair_flows(n), cfg).unwrap();
    sim.run_until(until).unwrap();
    let link = topo
        .find_link(topo.find_node("a").unwrap(), topo.find_node("b").unwrap())
        .unwrap();
    let gauge = |name: &str, at: Time| {
        sim.qdisc_gauge_samples()
            .iter()
            .find(|g| g.link == link && g.time == at && g.name == name)
            .map(|g| g.value)
    };
    assert_eq!(probes.samples.len(), 30);
    let mut positive = 0;
    for s in &probes.samples {
        assert_eq!(gauge("nu", s.time), Some(s.nu), "at {}", s.time);
        assert_eq!(gauge("bottlenecked", s.time), Some(s.bottlenecked as f64));
        assert_eq!(gauge("entries", s.time), Some(s.entries as f64));
        assert_eq!(gauge("memory_bits", s.time), Some(s.memory_bits as f64));
        assert_eq!(gauge("utilization", s.time), Some(s.utilization));
        assert_eq!(gauge("fair_share", s.time), s.fair_share);
        match (gauge("fair_share_bps", s.time), s.fair_share) {
            (Some(bps), Some(x)) => assert!((bps / (x * 1040.0 * 8.0) - 1.0).abs() < 1e-9),
            (got, x) => assert_eq!((got, x), (None, None)),
        }
        positive += (s.nu > 0.0) as usize;
    }
    assert!(positive > 0, "ν rose above 0 within 30 s");
}

#[test]
fn a_host_nic_sending_at_line_rate_is_not_a_may_queue() {
    // MAY manages a router's FIFO. Host `a` sends two long TCP flows, to `b` and `c`, through
    // one switch; every link is 100 Mb/s. `a`'s NIC pulls from its two flows at its line rate
    // (u ≈ 1 > u₀, but no queue builds), and each switch → receiver link carries half of it
    // (u ≈ 0.5 < u₀), so no link is congested and nothing should be lost: MAY's line 19 would
    // raise ν at the NIC and its lines 2–7 drop the host's own packets there. Expected: no
    // packet dropped anywhere in 3 s, the NIC link's port publishing no MAY gauges, and the
    // two flows together sending at least 90% of the NIC's rate. (Timers scaled so that
    // several hundred updates run: Δ = 10 ms, T₀ = 640 ms, S₀ = 100.)
    let mut t = Topology::new();
    let a = t.add_host("a");
    let b = t.add_host("b");
    let c = t.add_host("c");
    let s = t.add_switch("s");
    let spec = LinkSpec::new(Rate(100_000_000), Time::from_us(50), Bytes(100 * 1040));
    for h in [a, b, c] {
        t.add_duplex(h, s, spec).unwrap();
    }
    let flows = [
        FlowSpec::new(a, b, LONG, Time::ZERO),
        FlowSpec::new(a, c, LONG, Time::ZERO),
    ];
    let may = MayConfig {
        delta: Time::from_ms(10),
        t0: Time::from_ms(640),
        s0: 100.0,
        ..MayConfig::default()
    };
    let mut cfg = wan_config(may, 1);
    cfg.record = Some(crate::engine::packet::RecordConfig {
        interval: Time::from_ms(100),
        flows: false,
        queues: crate::engine::packet::QueueRecord::None,
    });
    let mut sim = PacketSim::from_config(&t, &flows, cfg).unwrap();
    let r = sim.run_until(Time::from_ms(3000)).unwrap();
    assert_eq!(r.conservation.dropped, 0, "{:?}", r.links);
    let nic = t.find_link(a, s).unwrap();
    assert!(sim.qdisc_gauge_samples().iter().all(|g| g.link != nic));
    let sent: u64 = r.flows.iter().map(|f| f.delivered).sum();
    assert!(
        sent as f64 * 8.0 >= 0.9 * 100e6 * 3.0 * (1000.0 / 1040.0),
        "delivered {sent} bytes"
    );
}

#[test]
fn figure_7s_rtt_bias_goes_when_delta_is_noise_free_and_never_reset() {
    // Fig. 7's residual RTT bias (docs/systems/may.md, "Fig. 7: the residual RTT bias"):
    // Fig. 6's network with all 30 flows and 1000-packet buffers (so MAY's drops, not
    // overflows, set the shares), throughput over 100–600 s against the oracle's max-min
    // rates (0.5 and 1 Mb/s). With Fig. 1 as written, δ restarts at 1 on every entry (line 10)
    // and an entry is removed after T₀ = 64 s without a drop (lines 21–22) — the fate of flows
    // whose drops are rare: long RTTs at their bottleneck (δ* ∝ 1/RTT²) and every flow at a
    // saturated link that is not its bottleneck (δ → 0 there, Theorem 3.3) — and ND, a count
    // of 0 or 1 per Δ for those flows, makes δ noisy. Expected: (1) the paper's MAY leaves an
    // RTT bias: the 0.5 Mb/s flows with the longer RTTs (≥ 0.5 s) get less than those with
    // the shorter, and Jain's index (Eq. 10) stays below 0.95 (measured, seeds 1–5:
    // 0.870–0.892); (2) with line 24 averaging the expected drops (`with_expected_drops`) and
    // T₀ beyond the run, δ follows Eq. (9) at every link, so each flow should reach
    // x = 1/ν at its bottleneck, the oracle's max-min rate (Theorem 3.3): Jain ≥ 0.98 (the
    // fixed point gives 1; measured, seeds 1–5: 0.994–0.996) and the two RTT halves within
    // 10% of each other.
    let fig = may_fig6().unwrap();
    let mut topo = Topology::new();
    for n in fig.topology.nodes() {
        match n.kind {
            crate::topo::NodeKind::Host => topo.add_host(n.name.clone()),
            _ => topo.add_switch(n.name.clone()),
        };
    }
    let buffer = Bytes(1000 * (MTU.0 + HEADER.0));
    for l in fig.topology.links() {
        topo.add_link(l.src, l.dst, LinkSpec::new(l.capacity, l.delay, buffer))
            .unwrap();
    }
    let flows: Vec<FlowSpec> = fig
        .flows
        .iter()
        .enumerate()
        .map(|(k, &(s, d))| FlowSpec::new(s, d, LONG, Time::from_ms(10 * k as u64)))
        .collect();
    let want = oracle_rates(&topo, &flows);
    let c: Vec<NodeId> = (1..=4)
        .map(|i| topo.find_node(&format!("c{i}")).unwrap())
        .collect();
    let run = |diagnostic: bool| {
        let may = MayConfig {
            t0: if diagnostic {
                Time::from_ms(10_000_000)
            } else {
                MayConfig::default().t0
            },
            ..MayConfig::default()
        };
        let mut sim = PacketSim::from_config(&topo, &flows, wan_config(may.clone(), 1)).unwrap();
        for w in c.windows(2) {
            let link = topo.find_link(w[0], w[1]).unwrap();
            let spec = topo.link(link);
            let params = crate::engine::packet::QdiscParams {
                link,
                buffer: spec.buffer,
                rate: spec.capacity,
                mtu_wire: Bytes(MTU.0 + HEADER.0),
                seed: 1,
            };
            let mut q = super::May::new(&may, &params, None);
            if diagnostic {
                q = q.with_expected_drops();
            }
            let shared = super::probe::SharedMay(std::sync::Arc::new(std::sync::Mutex::new(q)));
            sim.set_qdisc(link, Box::new(shared)).unwrap();
        }
        let a = sim.run_until(Time::from_ms(100_000)).unwrap();
        let b = sim.run_until(Time::from_ms(600_000)).unwrap();
        throughput(&a, &b)
    };
    // The 20 flows of 0.5 Mb/s (those crossing c2 → c3: the first 20 of Fig. 6's list), split
    // by RTT: access delays 40·i + 1 ms with i ≥ 3 at both ends give RTTs ≥ 0.5 s.
    let halves = |x: &[f64]| {
        let (mut short, mut long) = (0.0, 0.0);
        for (k, v) in x.iter().enumerate().take(20) {
            if k % 5 < 2 {
                short += v / 8.0;
            } else {
                long += v / 12.0;
            }
        }
        (short, long)
    };
    let paper = run(false);
    let j_paper = jain_index(&paper, Some(&want));
    let (short, long) = halves(&paper);
    assert!(
        long < short,
        "paper's MAY: RTT ≥ 0.5 s {long}, shorter {short}"
    );
    assert!(j_paper < 0.95, "paper's MAY: Jain {j_paper}, {paper:?}");
    let free = run(true);
    let j_free = jain_index(&free, Some(&want));
    let (short, long) = halves(&free);
    assert!(j_free >= 0.98, "noise-free δ: Jain {j_free}, {free:?}");
    assert!(
        (long / short - 1.0).abs() <= 0.1,
        "noise-free δ: RTT ≥ 0.5 s {long}, shorter {short}"
    );
}
