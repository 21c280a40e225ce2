//! Söze on the packet engine: the paper's Fig. 2 and Fig. 17 at smoke scale, and parameter
//! errors. Each test states the outcome it expects before asserting it.

use super::*;
use crate::engine::packet::{HostNic, PacketResults, QdelaySignal};
use crate::engine::packet::{DEFAULT_HEADER, DEFAULT_MTU};
use crate::ids::{FlowId, LinkId, NodeId};
use crate::registry::{PacketConfig, PacketSim, TransportKind};
use crate::test_support::{oracle_rates, wire_throughput};
use crate::topo::{star, LinkSpec, Routing, Topology};
use crate::units::{Rate, Time};
use crate::workload::routed_problem;

const LONG: Bytes = Bytes(1 << 50);

fn link() -> LinkSpec {
    // Söze §5 "NS-3 simulator setup": 100 Gb/s, 1 µs, 32 MB buffers.
    LinkSpec::new(Rate::gbps(100), Time::from_us(1), Bytes(32_000_000))
}

/// The Söze reproductions' engine settings ([`packet_config`]).
fn soze_config() -> PacketConfig {
    packet_config()
}

/// [`soze_config`] with §3.3's per-ACK compounding (`update = "per_packet_compound"`).
fn compounding_config() -> PacketConfig {
    let mut cfg = packet_config();
    cfg.soze.update = SozeUpdate::PerPacketCompound;
    cfg
}

/// Wire throughput (bit/s) of every flow between two snapshots.
fn throughput(a: &PacketResults, b: &PacketResults) -> Vec<f64> {
    wire_throughput(a, b, DEFAULT_MTU, DEFAULT_HEADER)
}

/// Mean queueing delay (seconds) of `link` between two snapshots.
fn mean_qdelay(a: &PacketResults, b: &PacketResults, link: LinkId, rate: Rate) -> f64 {
    let l = link.idx();
    let bytes_ps = (b.links[l].queue_integral - a.links[l].queue_integral) as f64;
    let mean_bytes = bytes_ps / (b.now - a.now).0 as f64;
    mean_bytes * 8.0 / rate.bps()
}

fn max_rel_err(got: &[f64], want: &[f64]) -> f64 {
    got.iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs() / w)
        .fold(0.0, f64::max)
}

/// Fig. 2 setup: four senders of a star into host 4 with weights 1, 2, 3, 4.
fn fig2() -> (Topology, Vec<FlowSpec>) {
    let topo = star(5, link()).unwrap();
    let flows = (0..4)
        .map(|i| {
            let mut f = FlowSpec::new(NodeId(i), NodeId(4), LONG, Time::ZERO);
            f.weight = (i + 1) as f64;
            f
        })
        .collect();
    (topo, flows)
}

/// Söze's target range for `flows` as the engine derives it (α = NIC rate / smallest weight,
/// β = lowest `capacity / Σ weights` over the links).
fn target_of(topo: &Topology, flows: &[FlowSpec], cfg: &PacketConfig) -> Target {
    let pairs: Vec<_> = flows.iter().map(|f| (f.src, f.dst)).collect();
    let weights: Vec<f64> = flows.iter().map(|f| f.weight).collect();
    let p = routed_problem(topo, &Routing::new(topo), &pairs, 0, weights.clone()).unwrap();
    let mut load = vec![0.0; topo.num_links()];
    for (i, w) in weights.iter().enumerate() {
        for &l in &p.path_links[p.path_ptr[i]..p.path_ptr[i + 1]] {
            load[l as usize] += w;
        }
    }
    let lowest = load
        .iter()
        .enumerate()
        .filter(|(_, &w)| w > 0.0)
        .map(|(l, &w)| topo.link(LinkId(l as u32)).capacity.bps() / w)
        .fold(f64::INFINITY, f64::min);
    let min_w = weights.iter().cloned().fold(f64::INFINITY, f64::min);
    let (alpha, beta) = default_range(Rate::gbps(100), min_w, lowest);
    Target {
        p: cfg.soze.p.as_secs_f64(),
        k: cfg.soze.k.as_secs_f64(),
        alpha,
        beta,
    }
}

/// Samples every `step` from `from` to `to`; returns the snapshots (first at `from`).
fn samples(sim: &mut PacketSim, from: Time, to: Time, step: Time) -> Vec<PacketResults> {
    let mut out = vec![sim.run_until(from).unwrap()];
    let mut t = from;
    while t < to {
        t = Time((t.0 + step.0).min(to.0));
        out.push(sim.run_until(t).unwrap());
    }
    out
}

/// Convergence time after a change at `snaps[0].now`: the end of the last 20 µs window (two
/// consecutive samples) in which some flow's throughput is more than `tol` away from `want`;
/// zero if none is.
fn convergence(snaps: &[PacketResults], want: &[f64], tol: f64) -> Time {
    let mut last_bad = snaps[0].now;
    for w in snaps.windows(3) {
        let t = throughput(&w[0], &w[2]);
        if max_rel_err(&t, want) > tol {
            last_bad = w[2].now;
        }
    }
    last_bad - snaps[0].now
}

#[test]
fn fig2_four_weighted_flows_reach_weighted_shares_and_the_target_delay() {
    // Söze Fig. 2: four flows with weights 1, 2, 3, 4 into one 100 Gb/s switch port. The
    // oracle gives 10, 20, 30, 40 Gb/s (weighted fair share B/Σw = 10 Gb/s per unit weight).
    // §3.1.4 / Appendix D predict the queueing delay settles at T(10 Gb/s); with α = 100 Gb/s
    // (link rate / smallest weight) and β = 10 Gb/s (the port's B/Σw), Eq. 6 gives
    // T = p·ln(α/s)/ln(α/β) + k = 20 + 3 = 23 µs. Expected: over 300–600 µs every rate within
    // 5% of the oracle, the mean queueing delay within 5% of 23 µs, and convergence from the
    // line-rate start (all rates within 10% in every later 20 µs window) within 10 RTTs, an
    // RTT being the base RTT (4.2 µs) plus the target queueing delay: the paper's "within 10
    // RTTs" (§5.3.3, §5.3.4).
    let (topo, flows) = fig2();
    let cfg = soze_config();
    let want = oracle_rates(&topo, &flows);
    let target = target_of(&topo, &flows, &cfg);
    let t_star = target.delay(100e9 / 10.0);
    assert!((t_star - 23e-6).abs() < 1e-9, "T = {t_star}");
    let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
    let snaps = samples(&mut sim, Time::ZERO, Time::from_us(300), Time::from_us(10));
    let conv = convergence(&snaps, &want, 0.10);
    let a = snaps.last().unwrap().clone();
    let b = sim.run_until(Time::from_us(600)).unwrap();
    let got = throughput(&a, &b);
    let bott = LinkId(9); // sw0 → host 4
    let q = mean_qdelay(&a, &b, bott, Rate::gbps(100));
    let err = max_rel_err(&got, &want);
    let base_rtt = 4.2e-6;
    println!(
        "Fig. 2: rates {:?} Gb/s (oracle {:?}), max error {:.2}%, queueing delay {:.2} us \
         (T = {:.2} us), converged after {} ({:.1} RTTs of base + T = {:.1} us)",
        got.iter()
            .map(|x| (x / 1e7).round() / 100.0)
            .collect::<Vec<_>>(),
        want.iter().map(|x| x / 1e9).collect::<Vec<_>>(),
        err * 100.0,
        q * 1e6,
        t_star * 1e6,
        conv,
        conv.as_secs_f64() / (base_rtt + t_star),
        (base_rtt + t_star) * 1e6
    );
    assert!(err < 0.05, "rates {got:?} vs {want:?}");
    assert!(
        (q - t_star).abs() < 0.05 * t_star,
        "queueing delay {q} vs T {t_star}"
    );
    assert!(
        conv.as_secs_f64() < 10.0 * (base_rtt + t_star),
        "converged only after {conv}"
    );
    assert_eq!(b.links[bott.idx()].drops, 0);
}

#[test]
fn fig2_per_rtt_window_mode_also_converges() {
    // The other corners of the options: Algorithm 1 as written (once per RTT) with the rate
    // enforced as a window (§3.3). Per-RTT updates are slower (m = 0.25 of the log gap per
    // RTT, and the RTT includes the 23 µs queue), so the run is longer: over 1.5–2.5 ms every
    // rate within 5% of the oracle and the queueing delay within 10% of T = 23 µs.
    let (topo, flows) = fig2();
    let mut cfg = soze_config();
    cfg.soze.update = SozeUpdate::PerRtt;
    cfg.soze.control = SozeControl::Window;
    let want = oracle_rates(&topo, &flows);
    let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
    let a = sim.run_until(Time::from_us(1500)).unwrap();
    let b = sim.run_until(Time::from_us(2500)).unwrap();
    let got = throughput(&a, &b);
    let q = mean_qdelay(&a, &b, LinkId(9), Rate::gbps(100));
    println!(
        "per-RTT, window: rates {:?} Gb/s, queueing delay {:.2} us",
        got.iter()
            .map(|x| (x / 1e7).round() / 100.0)
            .collect::<Vec<_>>(),
        q * 1e6
    );
    assert!(max_rel_err(&got, &want) < 0.05, "{got:?} vs {want:?}");
    assert!((q - 23e-6).abs() < 0.1 * 23e-6, "queueing delay {q}");
}

#[test]
fn fig17_weight_steps_move_the_bottleneck_and_rates_follow_the_oracle() {
    // Söze Fig. 17 at smoke scale: the six-flow, two-switch topology; flow 1's weight goes
    // 1 → 2 → 3 → 4 → 5, one step every 2 ms (the paper: every 10 ms). The oracle: flow 1 gets
    // 40 Gb/s at weights 1 and 2 (flows 2–4 are held to 20 Gb/s by switch 2's port, link 2),
    // then 50, 57.1, 62.5 Gb/s as switch 1's port (link 0) becomes the bottleneck of flows
    // 2–4 (100/(w+3) Gb/s each). Expected: over the second half of every phase, every rate
    // within 5% of the oracle; switch 2's port holds the larger queue (the maxQD of flows
    // 2–4) at weight 1, switch 1's at weights 3–5 (the bottleneck moved); and after every
    // change of the oracle's allocation (the steps to 3, 4, 5) all rates are back within 10%
    // (20 µs windows) within 10 RTTs (§5.3.1: "within 10 RTTs"), an RTT being the base RTT
    // (6.3 µs) plus the bottleneck's queueing delay. Not asserted, printed: the cold start
    // (weight 1, from line rate) and the step to weight 2, which leaves the allocation as it
    // is but makes both ports' weighted fair shares equal (20 Gb/s), so flows 2–4's maxQD
    // alternates between two equal target delays and their 20 µs rates wander for ~1 ms.
    let pt = crate::topo::builders::soze_fig17(link()).unwrap();
    let topo = pt.topology;
    let mut flows: Vec<FlowSpec> = pt
        .flows
        .iter()
        .map(|&(s, d)| FlowSpec::new(s, d, LONG, Time::ZERO))
        .collect();
    let cfg = soze_config();
    let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
    let phase = Time::from_ms(2);
    let base_rtt = 6.3e-6;
    let (l0, l2) = (LinkId(0), LinkId(2));
    let mut t0 = Time::ZERO;
    let mut report = Vec::new();
    let mut figure = Vec::new();
    for w in [1.0, 2.0, 3.0, 4.0, 5.0] {
        flows[0].weight = w;
        sim.set_weight(FlowId(0), w).unwrap();
        let want = oracle_rates(&topo, &flows);
        let end = t0 + phase;
        let snaps = samples(&mut sim, t0, end, Time::from_us(10));
        for s in snaps.windows(11).step_by(10) {
            figure.push((s[0].now, throughput(&s[0], &s[10])));
        }
        let conv = convergence(&snaps[..snaps.len() / 2], &want, 0.10);
        let (a, b) = (&snaps[snaps.len() / 2], snaps.last().unwrap());
        let got = throughput(a, b);
        let err = max_rel_err(&got, &want);
        let q0 = mean_qdelay(a, b, l0, Rate::gbps(100));
        let q2 = mean_qdelay(a, b, l2, Rate::gbps(100));
        report.push((w, got.clone(), want.clone(), err, q0, q2, conv));
        t0 = end;
    }
    println!("Fig. 17 (smoke): time, rates of flows 1-6 in Gb/s (100 us windows)");
    for (t, r) in &figure {
        println!(
            "{:>6.2} ms {}",
            t.as_secs_f64() * 1e3,
            r.iter()
                .map(|x| format!("{:6.1}", x / 1e9))
                .collect::<String>()
        );
    }
    for (w, got, want, err, q0, q2, conv) in &report {
        println!(
            "w1 = {w}: rates {:?} oracle {:?} max err {:.2}% qdelay sw1 {:.2} us sw2 {:.2} us \
             converged {} ({:.1} RTTs of {:.1} us)",
            got.iter()
                .map(|x| (x / 1e8).round() / 10.0)
                .collect::<Vec<_>>(),
            want.iter()
                .map(|x| (x / 1e8).round() / 10.0)
                .collect::<Vec<_>>(),
            err * 100.0,
            q0 * 1e6,
            q2 * 1e6,
            conv,
            conv.as_secs_f64() / (base_rtt + q0.max(*q2)),
            (base_rtt + q0.max(*q2)) * 1e6
        );
    }
    for (w, got, want, err, q0, q2, conv) in &report {
        // An RTT at the target: the base RTT plus the bottleneck's queueing delay.
        let rtt = base_rtt + q0.max(*q2);
        if *w >= 3.0 {
            assert!(
                conv.as_secs_f64() < 10.0 * rtt,
                "weight {w}: converged only after {conv} ({} RTTs)",
                conv.as_secs_f64() / rtt
            );
        }
        assert!(*err < 0.05, "weight {w}: {got:?} vs {want:?}");
        if *w == 1.0 {
            assert!(q2 > q0, "weight 1: switch 2 is the bottleneck of flows 2-4");
        }
        if *w >= 3.0 {
            assert!(
                q0 > q2,
                "weight {w}: switch 1 is the bottleneck of flows 2-4"
            );
        }
    }
    // Flow 1 keeps 40 Gb/s through the step to weight 2, then gains.
    let f1: Vec<f64> = report.iter().map(|r| r.1[0]).collect();
    assert!((f1[1] - f1[0]).abs() < 0.05 * 40e9, "{f1:?}");
    assert!(
        f1[2] > 1.2 * f1[1] && f1[4] > f1[3] && f1[3] > f1[2],
        "{f1:?}"
    );
}

#[test]
fn bad_parameters_are_named_errors() {
    // m outside (0, 2) (Lemma 3.1) and p below Lemma 3.2's bound are errors naming the field,
    // unless allow_unstable; so are unknown keys of the [soze] table.
    let e = PacketConfig::from_toml_str("transport = \"soze\"\n[soze]\nm = 2.5\n").unwrap_err();
    let s = e.to_string();
    assert!(
        s.starts_with("packet config.soze.m: must be in (0, 2)"),
        "{s}"
    );
    let e = PacketConfig::from_toml_str("[soze]\nm = 0.0\n").unwrap_err();
    assert!(e.to_string().starts_with("packet config.soze.m:"), "{e}");
    let c = PacketConfig::from_toml_str("[soze]\nm = 2.5\nallow_unstable = true\n").unwrap();
    assert_eq!(c.soze.m, 2.5);
    let e = PacketConfig::from_toml_str("[soze]\nq = \"1us\"\n").unwrap_err();
    assert!(e.to_string().contains("unknown field `q`"), "{e}");
    let e = PacketConfig::from_toml_str("[soze]\nupdate = \"per_ack\"\n").unwrap_err();
    assert!(e.to_string().contains("unknown variant `per_ack`"), "{e}");

    // Lemma 3.2 with per-RTT updates on the Fig. 2 star (base RTT ≈ 4.2 µs, ln(α/β) = ln 10):
    // p must exceed 4.2/2 · 2.30 ≈ 4.8 µs; p = 4 µs is refused when the sender is built.
    let (topo, flows) = fig2();
    let mut cfg = soze_config();
    cfg.soze.update = SozeUpdate::PerRtt;
    cfg.soze.p = Time::from_us(4);
    let e = PacketSim::from_config(&topo, &flows, cfg.clone())
        .err()
        .unwrap()
        .to_string();
    println!("{e}");
    assert!(
        e.starts_with("packet config.soze.p: 4us is below Söze Lemma 3.2's bound"),
        "{e}"
    );
    cfg.soze.allow_unstable = true;
    assert!(PacketSim::from_config(&topo, &flows, cfg.clone()).is_ok());
    cfg.soze.p = Time::from_us(5);
    cfg.soze.allow_unstable = false;
    assert!(
        PacketSim::from_config(&topo, &flows, cfg).is_ok(),
        "5 us is above the bound"
    );
}

#[test]
fn target_function_matches_eq6_and_its_inverse() {
    // Eq. 6 at its ends: T(α) = k, T(β) = p + k; T⁻¹ inverts it; and U (Eq. 7) moves a flow
    // whose rate-per-weight is above the signalled share down, by the m-th power of the gap.
    let t = Target {
        p: 20e-6,
        k: 3e-6,
        alpha: 100e9,
        beta: 0.1e9,
    };
    assert!((t.delay(100e9) - 3e-6).abs() < 1e-12);
    assert!((t.delay(0.1e9) - 23e-6).abs() < 1e-12);
    for s in [0.5e9, 7e9, 42e9] {
        assert!((t.share(t.delay(s)) / s - 1.0).abs() < 1e-9);
    }
    // Appendix D, Eq. 38: α/β = 1000 and per-packet Δt = p/3.45 is at the bound.
    assert!((t.p_bound(20e-6 / 3.4539) - 20e-6).abs() < 1e-8);
    let ctx = crate::engine::packet::CcContext {
        mss: 1000,
        header: 48,
        nic_rate: Rate::gbps(100),
        base_rtt: Time::from_us(5),
        weight: 2.0,
    };
    let mut s = Soze::new(&SozeConfig::default(), (100e9, 0.1e9), &ctx, "soze").unwrap();
    assert_eq!(s.rate(), 100e9, "starts at line rate");
    // Signal T(10 Gb/s): the share is 10 Gb/s per weight, the flow has 50: ratio (1/5)^0.25.
    s.apply(t.delay(10e9));
    assert!((s.rate() / (100e9 * 0.2f64.powf(0.25)) - 1.0).abs() < 1e-9);
}

#[test]
fn multi_connection_splits_by_nearest_integer_weight() {
    // §5.3.2: weight 2.4 → 2 connections, 2.6 → 3, 0.3 → 1; each of weight 1, bytes split.
    let mk = |w| {
        let mut f = FlowSpec::new(NodeId(0), NodeId(1), Bytes(1000), Time::ZERO);
        f.weight = w;
        f
    };
    let (c, owner) = multi_connection(&[mk(2.4), mk(2.6), mk(0.3)]).unwrap();
    assert_eq!(owner, vec![0, 0, 1, 1, 1, 2]);
    assert!(c.iter().all(|f| f.weight == 1.0));
    assert_eq!(c[0].size.0 + c[1].size.0, 1000);
    assert_eq!(c[2].size, Bytes(334));
    assert_eq!(c[4].size, Bytes(333));
}

/// The worst 50 µs throughput error of any flow against the oracle over 300–600 µs of Fig. 2
/// run with `cfg`.
fn fig2_worst_window_error(cfg: PacketConfig) -> f64 {
    let (topo, flows) = fig2();
    let want = oracle_rates(&topo, &flows);
    let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
    let snaps = samples(
        &mut sim,
        Time::from_us(300),
        Time::from_us(600),
        Time::from_us(50),
    );
    snaps
        .windows(2)
        .map(|w| max_rel_err(&throughput(&w[0], &w[1]), &want))
        .fold(0.0, f64::max)
}

#[test]
fn sojourn_signal_through_the_10us_filter_keeps_fig2_off_the_shares() {
    // The queue-signal choice (issue 31), kept as a test so a change of either signal's
    // semantics shows. §4's switch reads each hop's *sojourn time* (the Tofino's
    // `deq_timedelta`, our engine's default `qdelay_signal`) through a 10 µs filter. The
    // sojourn time describes the queue as it was one sojourn (~23 µs) ago and the filter adds
    // ~10 µs more, so the loop's delay is the base RTT plus ~33 µs against the base RTT alone
    // with the backlog signal (the bytes queued as the packet leaves); Eq. 6's gain
    // ln(α/β)/p = 0.115/µs makes gain × delay ~4 instead of ~0.5, past the π/2 at which a
    // delayed integrator loop loses stability. Expected: with the default control
    // (`rate_window`) the backlog signal holds every flow within 5% of the oracle in every
    // 50 µs window of 300–600 µs, §4's reading leaves some flow more than 20% off (measured:
    // 4.0% and 34.6%; over 2.5–5 ms of the 5 ms full-scale entry 1.1% and 44.7%). Printed,
    // not asserted: the sojourn time without the filter, under the window 7.3% and paced
    // alone 12.8% (97% paced alone before the release time followed a rate rise).
    let mut paper = soze_config();
    paper.qdelay_signal = QdelaySignal::Sojourn;
    paper.qdelay_lpf = Some(Time::from_us(10));
    let backlog = fig2_worst_window_error(soze_config());
    let filtered = fig2_worst_window_error(paper);
    let mut sojourn = soze_config();
    sojourn.qdelay_signal = QdelaySignal::Sojourn;
    let unfiltered = fig2_worst_window_error(sojourn.clone());
    sojourn.soze.control = SozeControl::Rate;
    let paced = fig2_worst_window_error(sojourn);
    println!(
        "Fig. 2, worst 50 us error over 300-600 us: backlog {:.1}%, sojourn + 10 us filter \
         {:.1}%, sojourn {:.1}% (paced alone {:.1}%)",
        backlog * 100.0,
        filtered * 100.0,
        unfiltered * 100.0,
        paced * 100.0
    );
    assert!(backlog < 0.05, "backlog: worst 50 us error {backlog}");
    assert!(
        filtered > 0.2,
        "sojourn + filter: worst 50 us error {filtered}"
    );
}

#[test]
fn multi_connection_weight_3_gets_three_quarters() {
    // §5.3.2 / Fig. 18(c): instead of weight 3, flow 0 opens round(3) = 3 unit-weight Söze
    // connections; flow 1 has one. Both send to host 2 of a star, so the oracle gives each of
    // the four connections 25 Gb/s. Expected over 1–1.5 ms: flow 0's connections together
    // within 5% of 75 Gb/s and flow 1 within 5% of 25 Gb/s.
    let topo = star(3, link()).unwrap();
    let mut f0 = FlowSpec::new(NodeId(0), NodeId(2), LONG, Time::ZERO);
    f0.weight = 3.0;
    let f1 = FlowSpec::new(NodeId(1), NodeId(2), LONG, Time::ZERO);
    let (conns, owner) = multi_connection(&[f0, f1]).unwrap();
    assert_eq!(owner, vec![0, 0, 0, 1]);
    let mut sim = PacketSim::from_config(&topo, &conns, soze_config()).unwrap();
    // From 1 ms: the three connections start at line rate into one queueing NIC, and the
    // start-up transient lasts ~0.7 ms (~0.2 ms with the pull NIC).
    let a = sim.run_until(Time::from_us(1000)).unwrap();
    let b = sim.run_until(Time::from_us(1500)).unwrap();
    let t = throughput(&a, &b);
    let mut per_flow = [0.0; 2];
    for (x, &o) in t.iter().zip(&owner) {
        per_flow[o] += x;
    }
    println!("multi-connection: {:?} Gb/s", per_flow.map(|x| x / 1e9));
    assert!(max_rel_err(&per_flow, &[75e9, 25e9]) < 0.05, "{per_flow:?}");
}

#[test]
fn fig17c_wrr_with_delay_aimd_follows_the_oracle_less_tightly() {
    // Söze Fig. 17(c): the same topology with weighted round robin at the switches (one queue
    // per flow, flow 1's queue weighted w, the others 1) and §5.3.1's queueing-delay AIMD at
    // the hosts (+1 packet per RTT below 20 µs, ×0.8 above). The paper: rates "maintained
    // correctly around the weighted max-min fair allocation", utilization lower than Söze's.
    // Static weights per run (1, 3, 5), 3 ms each, measured over the last 2 ms. Expected:
    // every rate within 10% of the oracle. The paper's lower utilization shows only when the
    // cut is read as "on every ACK above 20 µs" (then both ports < 99.5% busy; Söze's are
    // full): cut once per window, as we read it by default, the 20 µs queue (250 KB) is far
    // larger than a 20% cut of the window, so the ports never idle (measured 100%).
    let pt = crate::topo::builders::soze_fig17(link()).unwrap();
    let topo = pt.topology;
    for (w, every_ack) in [(1u32, false), (3, false), (5, false), (3, true)] {
        let flows: Vec<FlowSpec> = pt
            .flows
            .iter()
            .enumerate()
            .map(|(i, &(s, d))| {
                let mut f = FlowSpec::new(s, d, LONG, Time::ZERO);
                f.priority = i as u8;
                f.weight = if i == 0 { w as f64 } else { 1.0 };
                f
            })
            .collect();
        let want = oracle_rates(&topo, &flows);
        let mut weights = vec![1; 6];
        weights[0] = w;
        let cfg = PacketConfig {
            transport: TransportKind::DelayAimd,
            delay_aimd: crate::schemes::delay_aimd::DelayAimdConfig {
                cut_every_ack: every_ack,
                ..Default::default()
            },
            qdisc: crate::registry::QdiscConfig::Wrr {
                weights,
                classify: crate::schemes::sched::Classifier::Priority,
                k: None,
            },
            ..PacketConfig::default()
        };
        let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
        let a = sim.run_until(Time::from_ms(1)).unwrap();
        let b = sim.run_until(Time::from_ms(3)).unwrap();
        let got = throughput(&a, &b);
        let dt = (b.now - a.now).as_secs_f64();
        let util = |l: usize| (b.links[l].tx_bytes - a.links[l].tx_bytes) as f64 * 8.0 / dt / 100e9;
        let (u0, u2) = (util(0), util(2));
        let err = max_rel_err(&got, &want);
        println!(
            "WRR + AIMD (cut every ACK: {every_ack}), w1 = {w}: rates {:?} oracle {:?} max err {:.1}%, utilization sw1 {:.1}% \
             sw2 {:.1}%",
            got.iter().map(|x| (x / 1e8).round() / 10.0).collect::<Vec<_>>(),
            want.iter().map(|x| (x / 1e8).round() / 10.0).collect::<Vec<_>>(),
            err * 100.0,
            u0 * 100.0,
            u2 * 100.0
        );
        assert!(err < 0.10, "w1 = {w}: {got:?} vs {want:?}");
        if every_ack {
            assert!(u0 < 0.995 && u2 < 0.995, "utilization {u0} {u2}");
        }
    }
}

#[test]
fn fig18b_fine_weight_differences_are_resolved() {
    // Söze §5.3.2 / Fig. 18(b): weights that differ by a few per mille are enforced. Two
    // flows into one host of a star, flow 0's weight 1.01 then 1.05 (flow 1 keeps 1), 600 µs
    // each: the oracle splits 100 Gb/s as 50.25 / 49.75 and 51.22 / 48.78 Gb/s. Expected over
    // the last 300 µs of each phase: both rates within 0.5% of the oracle, and flow 0 ahead.
    let topo = star(3, link()).unwrap();
    let mut flows: Vec<FlowSpec> = (0..2)
        .map(|i| FlowSpec::new(NodeId(i), NodeId(2), LONG, Time::ZERO))
        .collect();
    flows[0].weight = 1.01;
    let mut sim = PacketSim::from_config(&topo, &flows, soze_config()).unwrap();
    let mut t0 = Time::ZERO;
    for w in [1.01, 1.05] {
        flows[0].weight = w;
        sim.set_weight(FlowId(0), w).unwrap();
        let want = oracle_rates(&topo, &flows);
        let a = sim.run_until(t0 + Time::from_us(300)).unwrap();
        let b = sim.run_until(t0 + Time::from_us(600)).unwrap();
        let got = throughput(&a, &b);
        println!(
            "w0 = {w}: {:?} Gb/s vs oracle {:?}",
            got.iter().map(|x| x / 1e9).collect::<Vec<_>>(),
            want.iter().map(|x| x / 1e9).collect::<Vec<_>>()
        );
        assert!(max_rel_err(&got, &want) < 0.005, "{got:?} vs {want:?}");
        assert!(got[0] > got[1]);
        t0 = b.now;
    }
}

#[test]
fn acks_carry_the_data_paths_max_qdelay_home_unchanged() {
    // A dumbbell with traffic both ways: flows 0 → 2 and 1 → 3 share the 100 Gb/s bottleneck
    // swA → swB (50 Gb/s each, its queue at Söze's target delay for 50 Gb/s), and flow 3 → 1
    // has swB → swA to itself (100 Gb/s, less the other flows' ACKs). Flow 3 → 1's ACKs queue
    // behind the bottleneck's data; if they folded that queue into the echoed maxQD, flow 3 → 1
    // would slow to the bottleneck's share. maxQD is a data-path value (Söze §3.2.3).
    let topo = crate::topo::dumbbell(2, link(), link()).unwrap();
    let pairs = [(0, 2), (1, 3), (3, 1)];
    let flows: Vec<FlowSpec> = pairs
        .iter()
        .map(|&(s, d)| FlowSpec::new(NodeId(s), NodeId(d), LONG, Time::ZERO))
        .collect();
    let mut sim = PacketSim::from_config(&topo, &flows, soze_config()).unwrap();
    let snaps = samples(
        &mut sim,
        Time::from_us(1500),
        Time::from_us(2500),
        Time::from_us(500),
    );
    let t = throughput(&snaps[0], &snaps[2]);
    // The two forward flows split what they get evenly (their sending rates oscillate with
    // the default 10 µs filter, so the bottleneck is not always full: see docs/systems/soze.md).
    assert!((t[0] / t[1] - 1.0).abs() < 0.1, "{t:?}");
    assert!(t[2] > 90e9, "the reverse flow is held back: {t:?}");
}

/// Mean and coefficient of variation of `flow`'s send rate over its samples after `from`.
fn send_rate_stats(sim: &PacketSim, flow: u32, from: Time) -> (f64, f64) {
    let r: Vec<f64> = sim
        .flow_samples()
        .iter()
        .filter(|s| s.flow == FlowId(flow) && s.time > from)
        .filter_map(|s| s.send_rate)
        .collect();
    assert!(r.len() > 10, "{} send-rate samples", r.len());
    let mean = r.iter().sum::<f64>() / r.len() as f64;
    let var = r.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / r.len() as f64;
    (mean, var.sqrt() / mean)
}

/// A two-flow run: per-flow send-rate (mean, CV), throughput, oracle, mean queueing delay of
/// the bottleneck, Eq. 6's target delay.
type TwoFlowRun = (Vec<(f64, f64)>, Vec<f64>, Vec<f64>, f64, f64);

/// Two unit-weight flows through one 100 Gb/s bottleneck `bott`, 2 ms; returns each flow's
/// send-rate (mean, CV) over 1–2 ms, their throughput, the oracle, the bottleneck's mean
/// queueing delay and Eq. 6's target delay for the fair share.
fn two_flow_run(
    topo: &Topology,
    pairs: [(u32, u32); 2],
    bott: LinkId,
    cfg: PacketConfig,
) -> TwoFlowRun {
    let flows: Vec<FlowSpec> = pairs
        .iter()
        .map(|&(s, d)| FlowSpec::new(NodeId(s), NodeId(d), LONG, Time::ZERO))
        .collect();
    let want = oracle_rates(topo, &flows);
    let t_star = target_of(topo, &flows, &cfg).delay(want[0]);
    let cfg = PacketConfig {
        record: Some(crate::engine::packet::RecordConfig {
            interval: Time::from_us(5),
            flows: true,
            queues: crate::engine::packet::QueueRecord::None,
        }),
        ..cfg
    };
    let mut sim = PacketSim::from_config(topo, &flows, cfg).unwrap();
    let a = sim.run_until(Time::from_ms(1)).unwrap();
    let b = sim.run_until(Time::from_ms(2)).unwrap();
    let got = throughput(&a, &b);
    let q = mean_qdelay(&a, &b, bott, Rate::gbps(100));
    let stats = (0..2)
        .map(|f| send_rate_stats(&sim, f, Time::from_ms(1)))
        .collect();
    (stats, got, want, q, t_star)
}

/// Checks a two-flow run: every send rate steady (CV below 5%: the old per-ACK compounding
/// swung 9–100 Gb/s, CV ≈ 0.5), its mean and the throughput within 5% of the oracle, and the
/// bottleneck's mean queueing delay within 10% of Eq. 6's target.
fn assert_stable(name: &str, run: TwoFlowRun) {
    let (stats, got, want, q, t_star) = run;
    println!(
        "{name}: send rate (mean Gb/s, CV) {:?}, throughput {:?} Gb/s (oracle {:?}), \
         queueing delay {:.2} us (T = {:.2} us)",
        stats
            .iter()
            .map(|(m, c)| ((m / 1e7).round() / 100.0, (c * 1e4).round() / 1e4))
            .collect::<Vec<_>>(),
        got.iter()
            .map(|x| (x / 1e7).round() / 100.0)
            .collect::<Vec<_>>(),
        want.iter().map(|x| x / 1e9).collect::<Vec<_>>(),
        q * 1e6,
        t_star * 1e6
    );
    for (i, &(mean, cv)) in stats.iter().enumerate() {
        assert!(cv < 0.05, "{name}: flow {i} send-rate CV {cv}");
        assert!(
            (mean - want[i]).abs() < 0.05 * want[i],
            "{name}: flow {i} send rate {mean}"
        );
    }
    assert!(
        max_rel_err(&got, &want) < 0.05,
        "{name}: {got:?} vs {want:?}"
    );
    assert!(
        (q - t_star).abs() < 0.1 * t_star,
        "{name}: queueing delay {q} vs T {t_star}"
    );
}

#[test]
fn star_two_flows_send_rates_are_steady_at_the_target_delay() {
    // Two unit-weight flows into one port of a star (link 5: sw0 → host 2). Oracle 50 Gb/s
    // each; α = 100 Gb/s, β = α/1000 (one port's B/Σw = 50 Gb/s is not below α/2), so Eq. 6
    // puts the queue at T(50 Gb/s) = 20·ln 2/ln 1000 + 3 ≈ 5.0 µs. Expected with the
    // per-packet reference-rate update (the default, one full step per RTT): send rates steady
    // (CV < 5% over 1–2 ms, 5 µs samples) at 50 Gb/s, and the queue within 10% of T. (§3.3's
    // compounding swings: `per_ack_compounding_oscillates_on_the_star`.)
    let topo = star(3, link()).unwrap();
    let run = two_flow_run(&topo, [(0, 2), (1, 2)], LinkId(5), soze_config());
    assert_stable("star", run);
}

#[test]
fn dumbbell_two_flows_send_rates_are_steady_and_fill_the_bottleneck() {
    // Two unit-weight flows across a dumbbell's 100 Gb/s middle link (link 0, swA → swB).
    // Same expectations as the star. (Lemma 3.2 with the reference rule's Δt = RTT ≈ 6.3 µs
    // and β = α/1000 asks for p > 21.6 µs; at p = 20 µs the loop is steady all the same.)
    let topo = crate::topo::builders::dumbbell(2, link(), link()).unwrap();
    let run = two_flow_run(&topo, [(0, 2), (1, 3)], LinkId(0), soze_config());
    assert_stable("dumbbell", run);
}

#[test]
fn per_ack_compounding_oscillates_on_the_star() {
    // §3.3's `update = "per_packet_compound"` applies every ACK's ratio to the
    // current rate, so one RTT's worth of ACKs, all reporting the queue the previous rates
    // built, compound the same correction: the loop's gain is a window's worth of updates
    // while Lemma 3.2's model (Appendix Eq. 23) has no feedback delay. Expected: the *send*
    // rate swings (CV above 20% in 5 µs samples), while the throughputs over 1–2 ms are the
    // oracle's within 5% (the queue absorbs the swing: what Figs. 2, 14, 17 and 18 measure).
    let topo = star(3, link()).unwrap();
    let cfg = compounding_config();
    let (stats, got, want, q, t_star) = two_flow_run(&topo, [(0, 2), (1, 2)], LinkId(5), cfg);
    println!(
        "compounding: send rate (mean, CV) {stats:?}, throughput {got:?}, queueing delay \
         {:.2} us (T = {:.2} us)",
        q * 1e6,
        t_star * 1e6
    );
    assert!(stats.iter().all(|&(_, cv)| cv > 0.2), "{stats:?}");
    assert!(max_rel_err(&got, &want) < 0.05, "{got:?} vs {want:?}");
}

/// `n` long flows from random hosts of pods 0–1 (hosts 0–7 of a k = 4 fat-tree) to random
/// hosts of pods 2–3 (8–15), weights 1–4, from a fixed xorshift stream. One direction only, so
/// no link carries both data and ACKs: ACKs take ~6% of a link's capacity that the oracle
/// does not know about (a host both sending and receiving gets that much less uplink).
fn random_flows(n: usize, seed: u64) -> Vec<FlowSpec> {
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|_| {
            let s = (next() % 8) as u32;
            let d = 8 + (next() % 8) as u32;
            let mut f = FlowSpec::new(NodeId(s), NodeId(d), LONG, Time::ZERO);
            f.weight = (1 + next() % 4) as f64;
            f
        })
        .collect()
}

/// The k = 4 fat-tree of the accuracy tests (100 Gb/s links everywhere).
fn k4_fat_tree() -> crate::topo::Topology {
    crate::topo::builders::fat_tree(crate::topo::builders::FatTreeSpec {
        k: 4,
        host_link: link(),
        fabric_link: link(),
        oversubscription: 1,
    })
    .unwrap()
}

/// Per-flow relative errors of a k = 4 fat-tree run of `flows` (mean throughput over 4–6 ms
/// against the oracle on the same ECMP paths), sorted.
fn fat_tree_errors(flows: &[FlowSpec], cfg: PacketConfig) -> Vec<f64> {
    let topo = k4_fat_tree();
    let want = oracle_rates(&topo, flows);
    let mut sim = PacketSim::from_config(&topo, flows, cfg).unwrap();
    let a = sim.run_until(Time::from_ms(4)).unwrap();
    let b = sim.run_until(Time::from_ms(6)).unwrap();
    let got = throughput(&a, &b);
    let mut err: Vec<f64> = got
        .iter()
        .zip(&want)
        .map(|(g, w)| (g - w).abs() / w)
        .collect();
    err.sort_by(f64::total_cmp);
    err
}

/// Mean, 95th percentile (nearest rank) and largest of sorted errors.
fn error_summary(err: &[f64]) -> (f64, f64, f64) {
    let n = err.len();
    let p95 = err[((0.95 * n as f64).ceil() as usize).clamp(1, n) - 1];
    (err.iter().sum::<f64>() / n as f64, p95, err[n - 1])
}

/// Söze on the weighted NIC: `host_nic = "weighted"` and a pacing credit of two packets
/// (`tcp.pacing_burst`), p = 40 µs.
fn weighted_nic_config() -> PacketConfig {
    let mut cfg = weighted_nic_packet_config();
    cfg.soze.p = Time::from_us(40);
    cfg
}

#[test]
fn random_weighted_fat_tree_reaches_weighted_max_min_with_the_weighted_nic() {
    // k = 4 fat-tree (16 hosts, 100 Gb/s everywhere), 24 long flows from random hosts of pods
    // 0–1 to random hosts of pods 2–3 with weights 1–4; several flows share a source host, so
    // some are bottlenecked at their own uplink. Söze with p = 40 µs (the paper's 20 µs leaves
    // the multi-bottleneck loop oscillating here, see docs/systems/soze.md) and the weighted
    // NIC: an uplink shared by flows whose rates add up to more than its line rate is split by
    // weight (start-time fair queueing) and a flow sending below its share leaves at once, so
    // nothing queues in front of the fabric; the two-packet pacing credit keeps a paced flow
    // that waited for the busy NIC at its rate. Issue 7's bar: over 4–6 ms every flow within
    // 5% of the oracle's weighted max-min rate, for two flow sets (measured, with the default
    // window `rate_window` and the release time following a rate rise: worst 1.80% and
    // 0.32%). Not reached for a third set (seed 777; measured mean 2.69%, p95 9.61%, worst
    // 15.32%: near-tied bottlenecks, see docs/systems/soze.md): asserted by the same bar, the
    // mean within 5% and the set off it (some flow beyond 5%: if it stops being off, the docs'
    // explanation is stale and this test says so).
    // The cause, shown on the first set under pacing alone (`control = "rate"`, how it was
    // found): with the queueing NIC (one FIFO per host) the same run is off by up to 11%
    // (14% before the release time followed a rate rise), the FIFO's delay sitting in front
    // of every downstream bottleneck and its noise in every maxQD of the host's flows. (With
    // the window the queueing NIC's run is 1.92 / 4.95% mean / worst: the window bounds what
    // the FIFO holds; not asserted, measured before the release change.)
    let cfg = weighted_nic_config();
    let mut summaries = Vec::new();
    for (seed, every_flow) in [(0x9e37_79b9_7f4a_7c15, true), (12345, true), (777, false)] {
        let flows = random_flows(24, seed);
        let err = fat_tree_errors(&flows, cfg.clone());
        let (mean, p95, max) = error_summary(&err);
        println!(
            "fat-tree, seed {seed}: mean error {:.2}%, p95 {:.2}%, max {:.2}%",
            mean * 100.0,
            p95 * 100.0,
            max * 100.0
        );
        if every_flow {
            assert!(max < 0.05, "seed {seed}: errors {err:?}");
        } else {
            assert!(mean < 0.05 && max >= 0.05, "seed {seed}: errors {err:?}");
        }
        summaries.push((mean, p95, max));
    }
    let mut queue = cfg;
    queue.host_nic = HostNic::Queue;
    queue.soze.control = SozeControl::Rate;
    let err = fat_tree_errors(&random_flows(24, 0x9e37_79b9_7f4a_7c15), queue);
    let (mean, p95, max) = error_summary(&err);
    println!(
        "fat-tree, queueing NIC: mean error {:.2}%, p95 {:.2}%, max {:.2}%",
        mean * 100.0,
        p95 * 100.0,
        max * 100.0
    );
    assert!(
        max > 0.1 && max > 5.0 * summaries[0].2,
        "queueing NIC errors {err:?}"
    );
}

/// Queue-delay series (µs) of `links` sampled every 2 µs over 4–6 ms of a k = 4 fat-tree run.
fn fat_tree_queues(flows: &[FlowSpec], mut cfg: PacketConfig, links: &[u32]) -> Vec<Vec<f64>> {
    let topo = k4_fat_tree();
    cfg.record = Some(crate::engine::packet::config::RecordConfig {
        interval: Time::from_us(2),
        flows: false,
        queues: crate::engine::packet::config::QueueRecord::All,
    });
    let mut sim = PacketSim::from_config(&topo, flows, cfg).unwrap();
    sim.run_until(Time::from_ms(6)).unwrap();
    let mut out = vec![Vec::new(); links.len()];
    for q in sim.queue_samples() {
        if q.time >= Time::from_ms(4) {
            if let Some(j) = links.iter().position(|&l| l == q.link.0) {
                out[j].push(q.delay.as_secs_f64() * 1e6);
            }
        }
    }
    out
}

/// Mean, standard deviation of `x`; correlation of `x` and `y`.
fn moments(x: &[f64], y: &[f64]) -> (f64, f64, f64) {
    let n = x.len().min(y.len()) as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sx = (x.iter().map(|a| (a - mx).powi(2)).sum::<f64>() / n).sqrt();
    let sy = (y.iter().map(|b| (b - my).powi(2)).sum::<f64>() / n).sqrt();
    let cov = x
        .iter()
        .zip(y)
        .map(|(a, b)| (a - mx) * (b - my))
        .sum::<f64>()
        / n;
    (mx, sx, cov / (sx * sy))
}

#[test]
fn dense_random_fat_trees_stay_off_weighted_max_min_by_series_bottleneck_swings() {
    // Denser sets than the test above: 32 and 64 long flows (4–8 per sending host) on the same
    // k = 4 fat-tree, weights 1–4, weighted NIC + pacing credit, p = 40 µs, mean throughput over
    // 4–6 ms against the oracle. What we established (docs/systems/soze.md, "Dense fat-trees"):
    // the 5% bar holds for some sets and not others, and where it fails the allocation is not
    // at rest. Measured (mean / worst error, the rate capped at the weighted NIC's share and
    // paced under the window, issue 31's defaults, the pending release following a rate
    // rise): 32 flows seed 777 0.59 / 1.97%; 12345 1.49 / 4.45%; seed A 3.19 / 11.34%; 64
    // flows seed A 3.86 / 15.00% (before the release change 0.60 / 2.01, 1.43 / 4.31, 3.04 /
    // 12.76, 5.80 / 23.96%; pacing alone, with the cap: 0.58 / 1.96, 2.52 / 7.52, 5.88 /
    // 20.31, 7.50 / 28.40%; before the cap: 0.58 / 2.13, 2.80 / 8.41, 4.31 / 17.29, 9.23 /
    // 53.07%). Asserted against issue 7's 5% bar, not
    // against these numbers: every flow within 5% for the first two sets, and the other two
    // off the bar (some flow beyond 5%: the outcome
    // the swings below explain; should one reach it, the explanation is stale). Nothing
    // derives how far off a set may be, so a regression guard stands in, stated as measured:
    // each set's mean error at most 1.5× the mean above (runs are deterministic per seed; the
    // margin allows a change of event order, as when host NICs stopped scanning paced flows and
    // the 64-flow mean went from 7.42% to 9.23%, or the NIC-share cap moved 32 flows A from
    // 4.31% to 5.88%).
    let cfg = weighted_nic_config();
    let a = 0x9e37_79b9_7f4a_7c15;
    for (n, seed, within_bar, measured_mean) in [
        (32, 777, true, 0.0059),
        (32, 12345, true, 0.0149),
        (32, a, false, 0.0319),
        (64, a, false, 0.0386),
    ] {
        let err = fat_tree_errors(&random_flows(n, seed), cfg.clone());
        let (mean, p95, max) = error_summary(&err);
        println!(
            "dense fat-tree, {n} flows, seed {seed}: mean {:.2}%, p95 {:.2}%, max {:.2}%",
            mean * 100.0,
            p95 * 100.0,
            max * 100.0
        );
        assert_eq!(
            max < 0.05,
            within_bar,
            "{n} flows, seed {seed}: errors {err:?}"
        );
        assert!(
            mean <= 1.5 * measured_mean,
            "{n} flows, seed {seed}: mean error {mean} above 1.5 x the measured {measured_mean}"
        );
    }
    // Why (32 flows, seed A): ports 78 (aggregation → core, pod 1) and 95 (core → aggregation,
    // pod 3) are saturated in series; flows 4, 11, 23, 29 cross both and are bottlenecked at 95
    // (target delay T = 40.7 µs), flow 26 at 78 (T = 35.0 µs). Both queues swing with a
    // ~400 µs period and a standard deviation of ~6 µs (more than the 5.7 µs between their
    // targets; the swing does not decay, 18–20 ms looks the same), and 95 replays 78's swing
    // about 120 µs later, about one RTT of the flows crossing both (their RTT holds both
    // standing queues): measured sd 4.8 / 4.3 µs, correlation 0.88 at that lag (−0.01 at none).
    // The flows crossing both see their maxQD move between the two ports.
    let q = fat_tree_queues(&random_flows(32, a), cfg, &[78, 95]);
    let (m78, s78, _) = moments(&q[0], &q[1]);
    let (m95, s95, _) = moments(&q[1], &q[0]);
    // Correlation of port 95's queue with port 78's `lag` samples (2 µs each) earlier.
    let lagged = |lag: usize| moments(&q[0], &q[1][lag..]).2;
    let (none, at_rtt) = (lagged(0), lagged(60));
    println!(
        "ports 78 / 95: mean {m78:.1} / {m95:.1} us, sd {s78:.1} / {s95:.1} us, correlation \
         {none:.2} at no lag, {at_rtt:.2} with 95 120 us later"
    );
    assert!(
        s78 > 3.0 && s95 > 3.0 && at_rtt > 0.7 && at_rtt > none + 0.5,
        "{m78} {s78} {m95} {s95} {none} {at_rtt}"
    );
}

/// A sender of weight 2 on a 100 Gb/s NIC with base RTT 4 µs, range α = 100 Gb/s, β = 10 Gb/s
/// (ln(α/β) = ln 10), p = 20 µs, k = 3 µs, m = 0.25 (§4), starting at `rate`.
fn hand_sender(update: SozeUpdate, rate: f64, min_rate: Option<Rate>) -> Soze {
    hand_sender_with(SozeConfig {
        update,
        init_rate: Some(Rate(rate as u64)),
        min_rate,
        ..SozeConfig::default()
    })
}

/// [`hand_sender`] with any `cfg`.
fn hand_sender_with(cfg: SozeConfig) -> Soze {
    let ctx = crate::engine::packet::cc::CcContext {
        mss: 1000,
        header: 48,
        nic_rate: Rate::gbps(100),
        base_rtt: Time::from_us(4),
        weight: 2.0,
    };
    Soze::new(&cfg, (100e9, 10e9), &ctx, "t").unwrap()
}

/// An ACK at `now_us` echoing `d_us` of maxQD (no RTT sample: the base RTT stays in use).
fn ack_at(sender: &mut Soze, now_us: u64, d_us: u64) {
    use crate::engine::packet::cc::{AckInfo, CongestionControl};
    sender.on_ack(&AckInfo {
        now: Time::from_us(now_us),
        acked: 1000,
        cum_ack: 0,
        snd_nxt: 0,
        in_flight: 0,
        ece: false,
        max_qdelay: Time::from_us(d_us),
        int: &[],
        rtt: None,
        in_recovery: false,
        word: 0,
    });
}

#[test]
fn one_update_step_matches_the_hand_worked_eq7() {
    // Worked by hand: weight 2 at 40 Gb/s is s = r/w = 20 Gb/s per unit weight. maxQD D = 13 µs
    // gives T⁻¹(D) = α·(β/α)^((D − k)/p) = 100·10^(−0.5) = 31.623 Gb/s (Eq. 25), so
    // U = (31.623/20)^0.25 = 1.12135 (Eq. 7) and r ← 40·1.12135 = 44.854 Gb/s (Algorithm 1
    // line 5). A second ACK with the same D 1 µs later (inside the 4 µs RTT):
    // - §3.3's compounding (`per_packet_compound`) steps again from 44.854 Gb/s: in log terms
    //   each step keeps (1 − m) of the gap to T⁻¹(D), so after two r = w·T⁻¹·(s/T⁻¹)^(0.75²) =
    //   48.878 Gb/s;
    // - the reference rate (`per_packet`, the default) recomputes from the 40 Gb/s it took this
    //   RTT: 44.854 again;
    // - once per RTT (Algorithm 1 line 3) skips it: 44.854, one update counted.
    let one = 44.854_135_678_8e9;
    for (update, two, updates) in [
        (SozeUpdate::PerPacketCompound, 48.877_543_198_9e9, 2),
        (SozeUpdate::PerPacket, one, 2),
        (SozeUpdate::PerRtt, one, 1),
    ] {
        let mut s = hand_sender(update, 40e9, None);
        ack_at(&mut s, 10, 13);
        assert!((s.rate() - one).abs() < 1.0, "{update:?}: {}", s.rate());
        ack_at(&mut s, 11, 13);
        assert!((s.rate() - two).abs() < 1.0, "{update:?}: {}", s.rate());
        assert_eq!(s.updates(), updates, "{update:?}");
    }
    // At the target delay of its own share the rate stays: T(20 Gb/s) = 20·ln 5/ln 10 + 3.
    let mut s = hand_sender(SozeUpdate::PerPacketCompound, 40e9, None);
    let t = s.target().delay(20e9);
    s.apply(t);
    assert!((s.rate() - 40e9).abs() < 1e-3 * 40e9, "{}", s.rate());
}

#[test]
fn lemma_3_2_check_counts_the_updates_made_at_rates_too_slow_for_p() {
    // Lemma 3.2: p > Δt/2·ln(α/β). Per ACK compounding, Δt = RTT/CWND = one packet
    // (8,384 bits) at the rate, so with p = 20 µs and ln(α/β) = ln 10 the bound holds above
    // 8,384 / (2·20 µs / ln 10) = 482.6 Mb/s. An update from 400 Mb/s violates it (counted),
    // one from 600 Mb/s does not. Once per RTT, Δt is the RTT (4 µs base): bound 4.6 µs,
    // not violated at p = 20 µs whatever the rate.
    let mut slow = hand_sender(SozeUpdate::PerPacketCompound, 400e6, None);
    ack_at(&mut slow, 10, 23);
    assert_eq!(slow.lemma_3_2_violations(), 1);
    let mut fast = hand_sender(SozeUpdate::PerPacketCompound, 600e6, None);
    ack_at(&mut fast, 10, 3);
    assert_eq!(fast.lemma_3_2_violations(), 0);
    let mut per_rtt = hand_sender(SozeUpdate::PerRtt, 400e6, None);
    ack_at(&mut per_rtt, 10, 23);
    assert_eq!(per_rtt.lemma_3_2_violations(), 0);
    // The best-case check when the sender is built: per RTT on a 40 µs base RTT the bound is
    // 40/2·ln 10 = 46 µs > 20 µs, refused; both per-ACK rules react to every ACK (best case
    // one packet at 100 Gb/s, 84 ns apart) and are accepted, but the reference rule's own Δt
    // is the RTT: each of its updates there is counted as a violation.
    let ctx = crate::engine::packet::cc::CcContext {
        mss: 1000,
        header: 48,
        nic_rate: Rate::gbps(100),
        base_rtt: Time::from_us(40),
        weight: 1.0,
    };
    for (update, ok) in [
        (SozeUpdate::PerRtt, false),
        (SozeUpdate::PerPacket, true),
        (SozeUpdate::PerPacketCompound, true),
    ] {
        let cfg = SozeConfig {
            update,
            ..SozeConfig::default()
        };
        let built = Soze::new(&cfg, (100e9, 10e9), &ctx, "packet config.soze");
        assert_eq!(built.is_ok(), ok, "{update:?}");
        match built {
            Err(e) => assert!(e.to_string().starts_with("packet config.soze.p:"), "{e}"),
            Ok(mut s) if update == SozeUpdate::PerPacket => {
                ack_at(&mut s, 10, 3);
                assert_eq!(s.lemma_3_2_violations(), 1);
            }
            Ok(_) => {}
        }
    }
}

#[test]
fn lemma_3_2_violations_are_reported_by_a_scenario_that_breaks_it() {
    // Fig. 2's star with the four flows' weights scaled by 1/100 and p = 2 µs (allowed with
    // allow_unstable): the weights do not change the shares (10–40 Gb/s), but with
    // compounding the bound p > Δt/2·ln(α/β) needs a packet time below 2·2 µs / ln 10 =
    // 1.74 µs, i.e. a rate above 4.8 Gb/s: every flow meets it at its share, so violations
    // come only from transients. With p = 0.2 µs the bound needs > 48 Gb/s: flows 1–3
    // (10–30 Gb/s) violate it at their shares, so most of their updates are counted.
    // Read through the engine's per-flow congestion control (`PacketSim::cc`).
    let (topo, flows) = fig2();
    let mut cfg = compounding_config();
    cfg.soze.p = Time::from_ns(200);
    cfg.soze.allow_unstable = true;
    let mut sim = PacketSim::from_config(&topo, &flows, cfg).unwrap();
    sim.run_until(Time::from_us(300)).unwrap();
    let share = |f: u32| match sim.cc(FlowId(f)) {
        Some(crate::registry::CcImpl::Soze(s)) => {
            s.lemma_3_2_violations() as f64 / s.updates().max(1) as f64
        }
        _ => panic!("flow {f} runs Söze"),
    };
    let shares: Vec<f64> = (0..4).map(share).collect();
    println!("p = 0.2 us: share of updates violating Lemma 3.2 per flow {shares:?}");
    assert!(shares[0] > 0.5, "{shares:?}");
    assert!(sim.cc(FlowId(9)).is_none(), "no flow 9");
}

#[test]
fn no_floor_unless_set_and_a_set_floor_is_reported() {
    // A large maxQD (200 µs, far above p + k) asks for far less than the rate: with m = 0.25
    // one step divides the rate by (s/T⁻¹(D))^0.25. Without a floor (the default: the paper
    // has none) 50 steps take 40 Gb/s below 1 Mb/s; with min_rate = 100 Mb/s the rate stops
    // there and the sender says it is held (`at_floor`).
    let mut free = hand_sender(SozeUpdate::PerPacketCompound, 40e9, None);
    let mut held = hand_sender(SozeUpdate::PerPacketCompound, 40e9, Some(Rate(100_000_000)));
    for i in 0..50 {
        ack_at(&mut free, 10 + i, 200);
        ack_at(&mut held, 10 + i, 200);
    }
    assert!(free.rate() < 1e6, "{}", free.rate());
    assert!(!free.at_floor());
    assert_eq!(held.rate(), 100e6);
    assert!(held.at_floor());
}

#[test]
fn rate_window_paces_and_bounds_the_bytes_in_flight() {
    // `control = "rate_window"`: the pacing rate is Söze's rate and the window is §3.3's
    // `rate·RTT/8` bytes: 40 Gb/s over the 4 µs base RTT = 20,000 B. "rate" has no window,
    // "window" no pacing.
    use crate::engine::packet::cc::CongestionControl;
    let with = |control| {
        let s = hand_sender_with(SozeConfig {
            control,
            init_rate: Some(Rate::gbps(40)),
            ..SozeConfig::default()
        });
        (s.cwnd(), s.pacing_rate())
    };
    let paced = Some(Rate::gbps(40));
    assert_eq!(with(SozeControl::RateWindow), (20_000, paced));
    assert_eq!(with(SozeControl::Rate), (u64::MAX, paced));
    assert_eq!(with(SozeControl::Window), (20_000, None));
}

#[test]
fn the_weighted_nics_share_caps_the_rate_and_the_update_works_from_it() {
    // The hand sender (weight 2, 40 Gb/s, α = 100, β = 10 Gb/s). The engine says its weighted
    // NIC can give it 30 Gb/s: the rate drops to 30 at once. An ACK with maxQD 3 µs (= k:
    // T⁻¹ = α = 100 Gb/s per weight, above its 15) asks for more, U = (100/15)^0.25 = 1.607,
    // but the rate stays at the share, 30 Gb/s; with the NIC share back at the line rate the
    // next update (compounding) starts from the 30 it sends at: 30·(100/15)^0.25 = 48.21 Gb/s.
    use crate::engine::packet::cc::CongestionControl;
    let mut s = hand_sender(SozeUpdate::PerPacketCompound, 40e9, None);
    assert!(s.wants_nic_share());
    s.on_nic_share(Rate::gbps(30));
    assert_eq!(s.rate(), 30e9);
    ack_at(&mut s, 10, 3);
    assert_eq!(s.rate(), 30e9);
    s.on_nic_share(Rate::gbps(100));
    ack_at(&mut s, 11, 3);
    let want = 30e9 * (100.0f64 / 15.0).powf(0.25);
    assert!((s.rate() - want).abs() < 1.0, "{} vs {want}", s.rate());
    // The reference-rate rule: the per-RTT reference rate is capped too.
    let mut r = hand_sender(SozeUpdate::PerPacket, 40e9, None);
    ack_at(&mut r, 10, 3); // reference 40, rate 40·1.49 = 59.8 Gb/s
    r.on_nic_share(Rate::gbps(30));
    assert_eq!(r.rate(), 30e9);
    r.on_nic_share(Rate::gbps(100));
    ack_at(&mut r, 11, 3); // inside the RTT: from the reference, now 30
    assert!((r.rate() - want).abs() < 1.0, "{} vs {want}", r.rate());
}

#[test]
fn no_flow_is_above_what_its_weighted_nic_can_give_it() {
    // A star: host 0 sends flow 0 (weight 0.5) to host 1 and flow 1 (weight 1.5) to host 2;
    // host 3 sends flow 2 (weight 0.5) to host 1. Weighted max-min (the oracle): host 0's
    // uplink is full at 50 Gb/s per weight, so flows 0 and 1 get 25 and 75 Gb/s, and flow 2
    // the 75 Gb/s flow 0 leaves at host 1. Flows 0 and 1 are held by their own weighted NIC
    // (start-time fair queueing); their paths downstream signal more (flow 0's maxQD is host
    // 1's queue at flow 2's target delay, T(150 Gb/s per weight); flow 1's path has no queue),
    // so without the cap their Söze rates would climb to the 100 Gb/s line rate. The engine
    // tells each flow its NIC share beside the other's demand (`on_nic_share`): expected, at
    // every 10 µs over 1–2 ms, flow 0's rate at most 25 Gb/s and flow 1's at most 75 Gb/s
    // (1% allowed for a moment where the other flow's rate dips below its share), while the
    // throughputs stay within 1% of the oracle (the cap costs no throughput).
    let topo = star(4, link()).unwrap();
    let flows: Vec<FlowSpec> = [(0, 1, 0.5), (0, 2, 1.5), (3, 1, 0.5)]
        .iter()
        .map(|&(s, d, w)| {
            let mut f = FlowSpec::new(NodeId(s), NodeId(d), LONG, Time::ZERO);
            f.weight = w;
            f
        })
        .collect();
    let want = oracle_rates(&topo, &flows);
    for (g, w) in want.iter().zip([25e9, 75e9, 75e9]) {
        assert!((g - w).abs() < 1e3, "oracle {want:?}");
    }
    let mut sim = PacketSim::from_config(&topo, &flows, weighted_nic_packet_config()).unwrap();
    let a = sim.run_until(Time::from_ms(1)).unwrap();
    let mut worst = [0.0f64; 2];
    for i in 1..=100 {
        sim.run_until(Time::from_ms(1) + Time::from_us(10 * i))
            .unwrap();
        for (f, cap) in [(0u32, 25e9), (1, 75e9)] {
            let Some(crate::registry::CcImpl::Soze(s)) = sim.cc(FlowId(f)) else {
                panic!("flow {f} runs Söze");
            };
            worst[f as usize] = worst[f as usize].max(s.rate() / cap);
        }
    }
    let b = sim.run_until(Time::from_ms(2)).unwrap();
    let got = throughput(&a, &b);
    println!(
        "NIC share: highest rate / share {worst:?}; throughput {:?} Gb/s",
        got.iter().map(|g| g / 1e9).collect::<Vec<_>>()
    );
    assert!(worst.iter().all(|&x| x <= 1.01), "rate / share {worst:?}");
    assert!(max_rel_err(&got, &want) < 0.01, "{got:?} vs {want:?}");
}
