//! WVCC with unequal round trips: where does the bias come from? (docs/systems/uranus.md,
//! "Unequal RTTs").
//!
//! Two long flows into one receiver of a 10 Gb/s star (the tests' testbed: sender links of
//! `d0`, `d1` µs, receiver link 10 µs, DCTCP's step marking at K = 65 packets), NewReno guests
//! under the WVCC shim. For each pair of RTTs, weights and start offset of flow 1, over 20–60 ms:
//! each flow's throughput, its time-averaged `cwnd*` (packets) and `α`, its cuts per ms and the
//! fraction of its ACKs that echoed CE; beside them, what the fluid model (Eq. 8 per flow,
//! `systems::uranus::model`) predicts: windows ∝ w, rates ∝ w/R.
//!
//! With `-- red`: the same with RED's random marking instead of the step at K (instantaneous
//! queue, probability rising from 0 at 20 to 0.2 at 110 packets, gentle above), to see whether
//! the bias follows the step's deterministic marking.
//!
//! `cargo run --release -p fairnet --example wvcc_unequal_rtt [-- red]`

use fairnet::engine::packet::host::HostShim;
use fairnet::engine::packet::pkt::{Packet, PacketKind};
use fairnet::ids::{FlowId, NodeId};
use fairnet::registry::{HostShimKind, PacketConfig, PacketSim, QdiscConfig, TransportKind};
use fairnet::schemes::acdc::VccShim;
use fairnet::schemes::fifo::EcnThreshold;
use fairnet::schemes::red::{MarkAt, RedConfig, RedThreshold};
use fairnet::systems::uranus::wvcc::{WvccConfig, WvccLaw};
use fairnet::topo::{LinkSpec, Topology};
use fairnet::units::{Bytes, Rate, Time};
use fairnet::workload::FlowSpec;
use std::cell::RefCell;
use std::rc::Rc;

const MSS: f64 = 1000.0;
const FROM: Time = Time::from_ms(20);
const TO: Time = Time::from_ms(60);

/// Per flow, over `FROM..TO`: time integrals of `cwnd*` and `α`, cuts, ACKs, ACKs with CE.
#[derive(Default, Clone, Debug)]
struct Acc {
    last: Option<(Time, f64, f64)>,
    cwnd_dt: f64,
    alpha_dt: f64,
    span: f64,
    cuts_at_from: u64,
    cuts: u64,
    acks: u64,
    ece: u64,
}

/// The WVCC shim of one host, recording its flow's state on every ACK.
struct Observed {
    inner: VccShim<WvccLaw>,
    acc: Rc<RefCell<Vec<Acc>>>,
}

impl HostShim for Observed {
    fn on_egress(&mut self, pkt: &mut Packet, now: Time) {
        self.inner.on_egress(pkt, now);
    }
    fn on_ingress(&mut self, pkt: &mut Packet, now: Time) {
        let ece = pkt.ece && pkt.kind == PacketKind::Ack;
        self.inner.on_ingress(pkt, now);
        if pkt.kind != PacketKind::Ack {
            return;
        }
        let Some(s) = self.inner.flow(pkt.flow) else {
            return;
        };
        let mut all = self.acc.borrow_mut();
        let a = &mut all[pkt.flow.0 as usize];
        if now < FROM {
            a.cuts_at_from = s.window.cuts;
        } else if now <= TO {
            if let Some((t, c, al)) = a.last {
                let dt = (now - t).as_secs_f64();
                a.cwnd_dt += c * dt;
                a.alpha_dt += al * dt;
                a.span += dt;
            }
            a.cuts = s.window.cuts - a.cuts_at_from;
            a.acks += 1;
            a.ece += ece as u64;
        }
        a.last = Some((now, s.window.cwnd / MSS, s.alpha));
    }
    fn on_flow_start(&mut self, flow: FlowId, spec: &FlowSpec, now: Time) {
        self.inner.on_flow_start(flow, spec, now);
    }
    fn on_weight(&mut self, flow: FlowId, weight: f64) {
        self.inner.on_weight(flow, weight);
    }
}

fn link(delay_us: u64) -> LinkSpec {
    LinkSpec::new(Rate::gbps(10), Time::from_us(delay_us), Bytes(2_000_000))
}

/// One run: (throughput Gb/s, mean cwnd* pkts, mean α, cuts/ms, CE fraction) per flow.
fn run(
    delays: [u64; 2],
    weights: [f64; 2],
    offset_us: u64,
    red: bool,
) -> Vec<(f64, f64, f64, f64, f64)> {
    let mut t = Topology::with_capacity(4, 6);
    let h: Vec<NodeId> = (0..3).map(|i| t.add_host(format!("h{i}"))).collect();
    let sw = t.add_switch("sw0");
    for (i, &d) in delays.iter().enumerate() {
        t.add_duplex(h[i], sw, link(d)).unwrap();
    }
    t.add_duplex(h[2], sw, link(10)).unwrap();
    let flows: Vec<FlowSpec> = (0..2)
        .map(|i| {
            let start = if i == 1 { offset_us } else { 0 };
            let mut f = FlowSpec::new(h[i], h[2], Bytes(1 << 50), Time::from_us(start));
            f.weight = weights[i];
            f
        })
        .collect();
    let cfg = PacketConfig {
        transport: TransportKind::Reno,
        host_shim: HostShimKind::Wvcc,
        qdisc: if red {
            QdiscConfig::Red(RedConfig {
                thresholds: vec![RedThreshold {
                    rate: Rate::gbps(10),
                    kmin: Bytes(20 * 1048),
                    kmax: Bytes(110 * 1048),
                    pmax: 0.2,
                }],
                w_q: 1.0,
                ecn: true,
                gentle: true,
                adaptive: false,
                interval: Time::from_ms(500),
                self_configure: None,
                mark_at: MarkAt::Enqueue,
            })
        } else {
            QdiscConfig::Ecn {
                k: EcnThreshold::Packets(65),
            }
        },
        ..PacketConfig::default()
    };
    let mut sim = PacketSim::from_config(&t, &flows, cfg.clone()).unwrap();
    let acc = Rc::new(RefCell::new(vec![Acc::default(); 2]));
    for host in h.iter().take(2) {
        let shim = Observed {
            inner: WvccConfig::default().build(cfg.mtu.0, 10 * cfg.mtu.0),
            acc: acc.clone(),
        };
        sim.set_host_shim(*host, Box::new(shim)).unwrap();
    }
    let a = sim.run_until(FROM).unwrap();
    let b = sim.run_until(TO).unwrap();
    let secs = (TO - FROM).as_secs_f64();
    let acc = acc.borrow();
    (0..2)
        .map(|i| {
            let bytes = (b.flows[i].delivered - a.flows[i].delivered) as f64 * 1048.0 / 1000.0;
            let x = &acc[i];
            (
                bytes * 8.0 / secs / 1e9,
                x.cwnd_dt / x.span,
                x.alpha_dt / x.span,
                x.cuts as f64 / (secs * 1e3),
                x.ece as f64 / x.acks.max(1) as f64,
            )
        })
        .collect()
}

fn main() {
    let red = std::env::args().any(|a| a == "red");
    let offsets: &[u64] = if red { &[0, 43] } else { &[0, 7, 19, 43, 101] };
    println!(
        "marking: {}",
        if red {
            "RED, random (20-110 packets, pmax 0.2)"
        } else {
            "step at K = 65 packets"
        }
    );
    println!(
        "RTTs (µs)  weights    offset | Gb/s          | cwnd* (pkts)  | W ratio (fluid) | alpha       | cuts/ms     | CE frac"
    );
    for delays in [[10, 10], [10, 15], [10, 30]] {
        let rtts = [2 * (delays[0] + 10), 2 * (delays[1] + 10)];
        for weights in [[0.5, 0.5], [1.0 / 3.0, 2.0 / 3.0]] {
            for &offset in offsets {
                let r = run(delays, weights, offset, red);
                println!(
                    "{:>3}/{:<3}    {:.2}/{:.2}  {:>4} | {:.2} / {:.2}   | {:6.1} {:6.1} | {:.3} ({:.3})   | {:.3} {:.3} | {:.2} {:.2} | {:.3} {:.3}",
                    rtts[0], rtts[1], weights[0], weights[1], offset,
                    r[0].0, r[1].0, r[0].1, r[1].1, r[0].1 / r[1].1, weights[0] / weights[1],
                    r[0].2, r[1].2, r[0].3, r[1].3, r[0].4, r[1].4
                );
            }
        }
    }
}
