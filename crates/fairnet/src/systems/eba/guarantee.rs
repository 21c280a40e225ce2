//! eBA's guarantee part: tenants' VMs placed on hosts, each with a hose-model guarantee `B`
//! and weight `w` (§II-A, Fig. 2(a)); the VM-flows between them with their weight, Eq. (1),
//! and guarantee, Eq. (2); and Algorithm 1, which keeps both current as VM connections open
//! and close (§V-B).
//!
//! ```text
//! w_{x→y} = w_x / |V_x^out| + w_y / |V_y^in|                                         (1)
//! B_{x→y} = min{ B_x · w_y / Σ_{z ∈ V_x^out} w_z ,  B_y · w_x / Σ_{z ∈ V_y^in} w_z }   (2)
//! ```
//!
//! `V_x^out` is the set of VMs that `x` sends to, `V_y^in` the set of VMs that send to `y`.
//! Opening or closing `x → y` changes `V_x^out` and `V_y^in` only, so the VM-flows whose
//! weight or guarantee can move are those leaving `x` and those entering `y`: Algorithm 1's
//! `UpdateGuarantee` recomputes exactly these ("the minimum set of VM-flows associated with the
//! changed connection", §V-B) and [`GuaranteeTable::connect`] / [`GuaranteeTable::close`]
//! return them.

use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};

/// One VM: its tenant, the host it is placed on, its hose-model guarantee and weight (§II-A:
/// "we use throughput B and weight w for each VM").
#[derive(Clone, Debug, PartialEq)]
pub struct Vm {
    /// Name, unique across tenants (used in every message about it).
    pub name: String,
    /// The tenant that rents it.
    pub tenant: String,
    /// The host (topology node id) it is placed on.
    pub host: u32,
    /// Hose-model guarantee `B`, bits/s, for its egress and its ingress alike (Fig. 2(a)).
    pub guarantee: f64,
    /// Weight `w` (> 0) for its share of bandwidth beyond the guarantee.
    pub weight: f64,
}

/// Validated VMs and their placement: every VM's guarantee fits its host's link, and the
/// guarantees on each host together fit its line rate (the hose model's promise can be kept at
/// the host's own link, as a placement such as Oktopus's ensures, §II-A).
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    vms: Vec<Vm>,
    by_name: BTreeMap<String, usize>,
}

impl Placement {
    /// Checks `vms` against the hosts' line rates (`line_rate(host)` in bits/s, `None` for a
    /// node that is not a host). Errors name the VM and field: `vm "a1".guarantee: …`.
    pub fn new(vms: Vec<Vm>, line_rate: impl Fn(u32) -> Option<f64>) -> Result<Placement> {
        let mut by_name = BTreeMap::new();
        let mut per_host: BTreeMap<u32, f64> = BTreeMap::new();
        for (i, vm) in vms.iter().enumerate() {
            let at = |field: &str| format!("vm {:?}.{field}", vm.name);
            if vm.name.is_empty() {
                return Err(Error::invalid(
                    format!("vms[{i}].name"),
                    "must not be empty",
                ));
            }
            if by_name.insert(vm.name.clone(), i).is_some() {
                return Err(Error::invalid(at("name"), "is used by two VMs"));
            }
            if !(vm.weight > 0.0 && vm.weight.is_finite()) {
                return Err(Error::invalid(
                    at("weight"),
                    format!("must be positive, got {}", vm.weight),
                ));
            }
            if !(vm.guarantee >= 0.0 && vm.guarantee.is_finite()) {
                return Err(Error::invalid(
                    at("guarantee"),
                    format!("must be a rate ≥ 0, got {}", vm.guarantee),
                ));
            }
            let Some(rate) = line_rate(vm.host) else {
                return Err(Error::invalid(
                    at("host"),
                    format!("node {} is not a host", vm.host),
                ));
            };
            if vm.guarantee > rate {
                return Err(Error::invalid(
                    at("guarantee"),
                    format!(
                        "{} b/s is above its host's link ({} b/s, node {})",
                        vm.guarantee, rate, vm.host
                    ),
                ));
            }
            *per_host.entry(vm.host).or_default() += vm.guarantee;
        }
        for (&host, &sum) in &per_host {
            let rate = line_rate(host).expect("checked above");
            if sum > rate * (1.0 + 1e-12) {
                let names: Vec<_> = vms
                    .iter()
                    .filter(|v| v.host == host)
                    .map(|v| v.name.as_str())
                    .collect();
                return Err(Error::invalid(
                    format!("host {host}"),
                    format!(
                        "the guarantees of its VMs ({}) add up to {sum} b/s, above its line \
                         rate {rate} b/s",
                        names.join(", ")
                    ),
                ));
            }
        }
        Ok(Placement { vms, by_name })
    }

    /// The VMs, in the order given.
    pub fn vms(&self) -> &[Vm] {
        &self.vms
    }

    /// The index of the VM called `name`, or an error naming it.
    pub fn index(&self, name: &str) -> Result<usize> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| Error::invalid(format!("vm {name:?}"), "no such VM"))
    }
}

/// A VM-flow's weight (Eq. 1) and guarantee (Eq. 2, bits/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VmFlow {
    /// Sender VM (index into [`Placement::vms`]).
    pub src: usize,
    /// Receiver VM.
    pub dst: usize,
    /// `w_{x→y}`, Eq. (1).
    pub weight: f64,
    /// `B_{x→y}`, Eq. (2), bits/s.
    pub guarantee: f64,
}

/// Algorithm 1's state on every VM: the sets `V_x^out`, `V_x^in`, and the current weight and
/// guarantee of every open VM-flow.
#[derive(Clone, Debug)]
pub struct GuaranteeTable {
    placement: Placement,
    out: Vec<BTreeSet<usize>>,
    inn: Vec<BTreeSet<usize>>,
    flows: BTreeMap<(usize, usize), VmFlow>,
}

impl GuaranteeTable {
    /// No connections yet (Algorithm 1's input: every set empty, every sum 0).
    pub fn new(placement: Placement) -> GuaranteeTable {
        let n = placement.vms.len();
        GuaranteeTable {
            placement,
            out: vec![BTreeSet::new(); n],
            inn: vec![BTreeSet::new(); n],
            flows: BTreeMap::new(),
        }
    }

    /// The placement the table was built on.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// `OnEstablishConnection` (Algorithm 1 lines 7–13): `x` starts sending to `y`. Returns the
    /// VM-flows whose weight or guarantee was recomputed (those leaving `x` and those entering
    /// `y`). Opening a VM-flow that is open already changes nothing and returns no flows; a
    /// VM sending to itself is an error (its traffic never leaves the host).
    pub fn connect(&mut self, x: usize, y: usize) -> Result<Vec<VmFlow>> {
        self.check_pair(x, y)?;
        if !self.out[x].insert(y) {
            return Ok(Vec::new());
        }
        self.inn[y].insert(x);
        Ok(self.update(x, y))
    }

    /// `OnCloseConnection` (Algorithm 1 lines 14–20): `x` stops sending to `y`. Returns the
    /// VM-flows that remain and were recomputed; closing a VM-flow that is not open is an
    /// error naming it.
    pub fn close(&mut self, x: usize, y: usize) -> Result<Vec<VmFlow>> {
        self.check_pair(x, y)?;
        if !self.out[x].remove(&y) {
            return Err(Error::invalid(
                self.pair_name(x, y),
                "cannot close a VM-flow that is not open",
            ));
        }
        self.inn[y].remove(&x);
        self.flows.remove(&(x, y));
        Ok(self.update(x, y))
    }

    /// The open VM-flow `x → y`, if any.
    pub fn flow(&self, x: usize, y: usize) -> Option<VmFlow> {
        self.flows.get(&(x, y)).copied()
    }

    /// Every open VM-flow, ordered by (sender, receiver).
    pub fn flows(&self) -> impl Iterator<Item = &VmFlow> {
        self.flows.values()
    }

    /// `x → y` by name, for messages.
    pub fn pair_name(&self, x: usize, y: usize) -> String {
        format!(
            "vm-flow {:?} -> {:?}",
            self.placement.vms[x].name, self.placement.vms[y].name
        )
    }

    fn check_pair(&self, x: usize, y: usize) -> Result<()> {
        let n = self.placement.vms.len();
        if x >= n || y >= n {
            return Err(Error::invalid(
                format!("vm-flow {x} -> {y}"),
                format!("no such VM (there are {n})"),
            ));
        }
        if x == y {
            return Err(Error::invalid(
                self.pair_name(x, y),
                "a VM cannot be a VM-flow's sender and receiver",
            ));
        }
        Ok(())
    }

    /// `UpdateGuarantee` (Algorithm 1 lines 1–6) after `x → y` opened or closed: Eqs. (1)–(2)
    /// for every VM-flow `x → z` (`z ∈ V_x^out`) and `z → y` (`z ∈ V_y^in`).
    fn update(&mut self, x: usize, y: usize) -> Vec<VmFlow> {
        let mut pairs: Vec<(usize, usize)> = self.out[x].iter().map(|&z| (x, z)).collect();
        pairs.extend(self.inn[y].iter().filter(|&&z| z != x).map(|&z| (z, y)));
        pairs
            .into_iter()
            .map(|(a, b)| {
                let f = self.compute(a, b);
                self.flows.insert((a, b), f);
                f
            })
            .collect()
    }

    /// Eqs. (1) and (2) for the open VM-flow `a → b`, from the current sets.
    fn compute(&self, a: usize, b: usize) -> VmFlow {
        let vms = &self.placement.vms;
        let (va, vb) = (&vms[a], &vms[b]);
        // The sums S_a^out and S_b^in of Algorithm 1 (lines 10–11, 17–18), taken over the sets
        // themselves rather than kept as running sums, so a VM whose connections all close is
        // back at exactly 0 whatever the order of additions (same cost as the update loop).
        let s_out: f64 = self.out[a].iter().map(|&z| vms[z].weight).sum();
        let s_in: f64 = self.inn[b].iter().map(|&z| vms[z].weight).sum();
        let weight = va.weight / self.out[a].len() as f64 + vb.weight / self.inn[b].len() as f64;
        let guarantee = (va.guarantee * vb.weight / s_out).min(vb.guarantee * va.weight / s_in);
        VmFlow {
            src: a,
            dst: b,
            weight,
            guarantee,
        }
    }
}
