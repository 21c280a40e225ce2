//! eBA's tests: the guarantee part on hand-worked tenant graphs (Eqs. 1–2, Algorithm 1) and
//! every bad input a user can meet.

use super::config::LrcConfig;
use super::guarantee::{GuaranteeTable, Placement, Vm, VmFlow};
use crate::units::Time;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const G: f64 = 1e9;
const M: f64 = 1e6;

fn vm(name: &str, host: u32, guarantee: f64, weight: f64) -> Vm {
    Vm {
        name: name.into(),
        tenant: "A".into(),
        host,
        guarantee,
        weight,
    }
}

/// Hosts 0–3 with 1 Gb/s links; any other node is not a host.
fn gigabit_hosts(node: u32) -> Option<f64> {
    (node < 4).then_some(G)
}

fn close_to(f: VmFlow, weight: f64, guarantee: f64) -> bool {
    (f.weight - weight).abs() < 1e-12 && (f.guarantee - guarantee).abs() < 1e-3
}

#[test]
fn eqs_1_2_and_algorithm_1_on_a_hand_worked_tenant_graph() {
    // Tenant A: a1 (B = 300 Mb/s, w = 1), a2 (300 Mb/s, w = 2), a3 (200 Mb/s, w = 1), each on
    // its own host. Connections a1→a2, a3→a2, then a1→a3. Then
    //   V_a1^out = {a2, a3} (Σw = 3), V_a2^in = {a1, a3} (Σw = 2), V_a3^in = {a1} (Σw = 1),
    //   V_a3^out = {a2} (Σw = 2), and by Eqs. (1)–(2):
    //   a1→a2: w = 1/2 + 2/2 = 1.5, B = min(300·2/3, 300·1/2) = 150 Mb/s
    //   a1→a3: w = 1/2 + 1/1 = 1.5, B = min(300·1/3, 200·1/1) = 100 Mb/s
    //   a3→a2: w = 1/1 + 2/2 = 2,   B = min(200·2/2, 300·1/2) = 150 Mb/s
    let p = Placement::new(
        vec![
            vm("a1", 0, 300.0 * M, 1.0),
            vm("a2", 1, 300.0 * M, 2.0),
            vm("a3", 2, 200.0 * M, 1.0),
        ],
        gigabit_hosts,
    )
    .unwrap();
    let mut t = GuaranteeTable::new(p);
    let (a1, a2, a3) = (0, 1, 2);
    t.connect(a1, a2).unwrap();
    t.connect(a3, a2).unwrap();
    // Opening a1→a3 touches V_a1^out and V_a3^in only: the flows leaving a1 (a1→a2, a1→a3)
    // are recomputed; a3→a2 is not (a3's out-set and a2's in-set did not change).
    let changed = t.connect(a1, a3).unwrap();
    let pairs: Vec<_> = changed.iter().map(|f| (f.src, f.dst)).collect();
    assert_eq!(pairs, vec![(a1, a2), (a1, a3)]);
    assert!(
        close_to(t.flow(a1, a2).unwrap(), 1.5, 150.0 * M),
        "{:?}",
        t.flow(a1, a2)
    );
    assert!(
        close_to(t.flow(a1, a3).unwrap(), 1.5, 100.0 * M),
        "{:?}",
        t.flow(a1, a3)
    );
    assert!(
        close_to(t.flow(a3, a2).unwrap(), 2.0, 150.0 * M),
        "{:?}",
        t.flow(a3, a2)
    );
    // Opening it again changes nothing.
    assert!(t.connect(a1, a3).unwrap().is_empty());

    // a1 closes its connection to a3. V_a1^out = {a2} (Σw = 2), V_a3^in = {}:
    //   a1→a2: w = 1/1 + 2/2 = 2, B = min(300·2/2, 300·1/2) = 150 Mb/s (a2's ingress binds)
    //   a3→a2: unchanged, w = 2, B = 150 Mb/s; a1→a3 is gone.
    let changed = t.close(a1, a3).unwrap();
    let pairs: Vec<_> = changed.iter().map(|f| (f.src, f.dst)).collect();
    assert_eq!(pairs, vec![(a1, a2)]);
    assert!(t.flow(a1, a3).is_none());
    assert!(
        close_to(t.flow(a1, a2).unwrap(), 2.0, 150.0 * M),
        "{:?}",
        t.flow(a1, a2)
    );
    assert!(
        close_to(t.flow(a3, a2).unwrap(), 2.0, 150.0 * M),
        "{:?}",
        t.flow(a3, a2)
    );
    assert_eq!(t.flows().count(), 2);
}

#[test]
fn a_vm_sending_to_one_peer_gets_its_whole_guarantee_unless_the_receiver_binds() {
    // Two tenants on one 1 Gb/s host pair: x (450 Mb/s, w = 1) sends to y (450 Mb/s, w = 1)
    // alone: w = 1/1 + 1/1 = 2, B = min(450·1/1, 450·1/1) = 450 Mb/s — the hose guarantee
    // passes whole to the only VM-flow (§VII-A's setting). When z (100 Mb/s, w = 3) also
    // sends to y, y's ingress is split by the senders' weights: x→y gets
    // min(450·1/1, 450·1/4) = 112.5 Mb/s and w = 1 + 1/2 = 1.5; z→y gets
    // min(100·1/1, 450·3/4) = 100 Mb/s (z's own egress binds) and w = 3 + 1/2 = 3.5.
    let p = Placement::new(
        vec![
            vm("x", 0, 450.0 * M, 1.0),
            vm("y", 1, 450.0 * M, 1.0),
            vm("z", 0, 100.0 * M, 3.0),
        ],
        gigabit_hosts,
    )
    .unwrap();
    let mut t = GuaranteeTable::new(p);
    t.connect(0, 1).unwrap();
    assert!(close_to(t.flow(0, 1).unwrap(), 2.0, 450.0 * M));
    let changed = t.connect(2, 1).unwrap();
    assert_eq!(changed.len(), 2, "both flows into y move: {changed:?}");
    assert!(
        close_to(t.flow(0, 1).unwrap(), 1.5, 112.5 * M),
        "{:?}",
        t.flow(0, 1)
    );
    assert!(
        close_to(t.flow(2, 1).unwrap(), 3.5, 100.0 * M),
        "{:?}",
        t.flow(2, 1)
    );
}

/// Eqs. (1)–(2) computed from scratch from the set of open VM-flows (a second, direct
/// reading of the equations, independent of Algorithm 1's incremental bookkeeping).
fn from_scratch(vms: &[Vm], open: &[(usize, usize)], x: usize, y: usize) -> (f64, f64) {
    let outs: Vec<usize> = open.iter().filter(|p| p.0 == x).map(|p| p.1).collect();
    let ins: Vec<usize> = open.iter().filter(|p| p.1 == y).map(|p| p.0).collect();
    let w = vms[x].weight / outs.len() as f64 + vms[y].weight / ins.len() as f64;
    let s_out: f64 = outs.iter().map(|&z| vms[z].weight).sum();
    let s_in: f64 = ins.iter().map(|&z| vms[z].weight).sum();
    let b = (vms[x].guarantee * vms[y].weight / s_out).min(vms[y].guarantee * vms[x].weight / s_in);
    (w, b)
}

#[test]
fn algorithm_1_matches_eqs_1_2_from_scratch_after_random_opens_and_closes() {
    // Eight VMs of random weights (0.2–4, below 1 included) and guarantees, 400 random opens
    // and closes (seed 7). After each, every open VM-flow's weight and guarantee equal
    // Eqs. (1)–(2) recomputed from the open set, and every flow Algorithm 1 did not return
    // kept its previous values (the update set is complete).
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let vms: Vec<Vm> = (0..8)
        .map(|i| {
            vm(
                &format!("v{i}"),
                i % 4,
                rng.gen_range(0.0..120.0) * M,
                rng.gen_range(0.2..4.0),
            )
        })
        .collect();
    let mut t = GuaranteeTable::new(Placement::new(vms.clone(), gigabit_hosts).unwrap());
    let mut open: Vec<(usize, usize)> = Vec::new();
    for _ in 0..400 {
        let before: Vec<VmFlow> = t.flows().copied().collect();
        let (x, y) = (rng.gen_range(0..8), rng.gen_range(0..8));
        if x == y {
            continue;
        }
        let changed = if let Some(k) = open.iter().position(|&p| p == (x, y)) {
            open.remove(k);
            t.close(x, y).unwrap()
        } else {
            open.push((x, y));
            t.connect(x, y).unwrap()
        };
        assert_eq!(t.flows().count(), open.len());
        for &(a, b) in &open {
            let f = t.flow(a, b).unwrap();
            let (w, g) = from_scratch(&vms, &open, a, b);
            assert!(
                (f.weight - w).abs() < 1e-9 * w,
                "{a}->{b}: {} vs {w}",
                f.weight
            );
            assert!(
                (f.guarantee - g).abs() <= 1e-9 * g.max(1.0),
                "{a}->{b}: {} vs {g}",
                f.guarantee
            );
        }
        for old in before {
            let was_updated = changed.iter().any(|c| (c.src, c.dst) == (old.src, old.dst));
            if let (false, Some(now)) = (was_updated, t.flow(old.src, old.dst)) {
                assert_eq!(
                    now, old,
                    "{} -> {} changed without being returned",
                    old.src, old.dst
                );
            }
        }
    }
}

#[test]
fn bad_placements_are_one_line_errors_naming_the_vm_or_host() {
    // Every message is one line, naming the VM (or host) and the field.
    let err = |vms: Vec<Vm>| {
        let e = Placement::new(vms, gigabit_hosts).unwrap_err().to_string();
        assert!(!e.contains('\n'), "{e}");
        e
    };
    let e = err(vec![vm("big", 0, 1.2 * G, 1.0)]);
    assert!(
        e.starts_with("vm \"big\".guarantee:") && e.contains("above its host's link"),
        "{e}"
    );
    let e = err(vec![vm("p", 2, 600.0 * M, 1.0), vm("q", 2, 500.0 * M, 1.0)]);
    assert!(
        e.starts_with("host 2:") && e.contains("p, q") && e.contains("line rate"),
        "{e}"
    );
    let e = err(vec![vm("zero", 0, 0.0, 0.0)]);
    assert!(e.starts_with("vm \"zero\".weight: must be positive"), "{e}");
    let e = err(vec![vm("neg", 0, 0.0, -1.0)]);
    assert!(e.starts_with("vm \"neg\".weight"), "{e}");
    let e = err(vec![vm("nan", 0, f64::NAN, 1.0)]);
    assert!(e.starts_with("vm \"nan\".guarantee"), "{e}");
    let e = err(vec![vm("lost", 9, 0.0, 1.0)]);
    assert!(
        e.starts_with("vm \"lost\".host: node 9 is not a host"),
        "{e}"
    );
    let e = err(vec![vm("twin", 0, 0.0, 1.0), vm("twin", 1, 0.0, 1.0)]);
    assert!(e.starts_with("vm \"twin\".name"), "{e}");

    let mut t = GuaranteeTable::new(
        Placement::new(
            vec![vm("a", 0, 0.0, 1.0), vm("b", 1, 0.0, 1.0)],
            gigabit_hosts,
        )
        .unwrap(),
    );
    let e = t.close(0, 1).unwrap_err().to_string();
    assert!(e.starts_with("vm-flow \"a\" -> \"b\": cannot close"), "{e}");
    let e = t.connect(1, 1).unwrap_err().to_string();
    assert!(e.starts_with("vm-flow \"b\" -> \"b\""), "{e}");
    let e = t.connect(0, 5).unwrap_err().to_string();
    assert!(e.contains("no such VM"), "{e}");
    assert_eq!(
        t.placement().index("c").unwrap_err().to_string(),
        "vm \"c\": no such VM"
    );
}

#[test]
fn bad_lrc_parameters_are_errors_naming_the_field() {
    // §VI-B: α·τ_v in (0, 1), μ in (0, 1]; α, β > 0. The defaults (α = β = 2 s⁻¹,
    // τ_v = 50 ms: α·τ_v = 0.1) pass.
    LrcConfig::default().validate("eba").unwrap();
    let err = |c: LrcConfig| c.validate("eba").unwrap_err().to_string();
    let d = LrcConfig::default;
    assert!(err(LrcConfig { alpha: 0.0, ..d() }).starts_with("eba.alpha: must be positive"));
    assert!(err(LrcConfig { beta: -1.0, ..d() }).starts_with("eba.beta: must be positive"));
    let e = err(LrcConfig { alpha: 20.0, ..d() });
    assert!(
        e.starts_with("eba.alpha: alpha·tau_v must be in (0, 1)") && e.contains("got 1"),
        "{e}"
    );
    let e = err(LrcConfig {
        tau_v: Time::from_ms(600),
        ..d()
    });
    assert!(e.contains("alpha·tau_v must be in (0, 1)"), "{e}");
    assert!(err(LrcConfig { mu: 0.0, ..d() }).starts_with("eba.mu: must be in (0, 1]"));
    assert!(err(LrcConfig { mu: 1.5, ..d() }).starts_with("eba.mu: must be in (0, 1]"));
    LrcConfig { mu: 1.0, ..d() }.validate("eba").unwrap();
    assert!(err(LrcConfig {
        tau_r: Time(0),
        ..d()
    })
    .starts_with("eba.tau_r"));
    assert!(err(LrcConfig {
        idle_utilization: 0.0,
        ..d()
    })
    .starts_with("eba.idle_utilization"));
}

#[test]
fn uniform_increase_keeps_the_per_update_steps() {
    // §VI-B: α·τ_v and β·τ_r stay constant as the intervals change. From the defaults
    // (α·τ_v = 2·0.05 = 0.1, β·τ_r = 2·0.1 = 0.2) to τ_v = 10 ms, τ_r = 20 ms: α = 10,
    // β = 10; the damping ½√(α/β) is unchanged (0.5).
    let c = LrcConfig::default().with_uniform_increase(Time::from_ms(10), Time::from_ms(20));
    assert!(
        (c.alpha - 10.0).abs() < 1e-9 && (c.beta - 10.0).abs() < 1e-9,
        "{c:?}"
    );
    assert!((c.damping() - 0.5).abs() < 1e-12);
    c.validate("eba").unwrap();
}
