//! The 22 TPC-H queries as job DAGs, for Söze's Fig. 11 ("TPC-H Benchmark Acceleration",
//! §5.1.6): "each job is an execution DAG with tasks. Each task is randomly placed on a host
//! within a fat-tree topology."
//!
//! The paper gives neither the DAGs nor their data volumes, so we build them from the TPC-H
//! query texts (TPC-H specification 3.0, §2.4) and document every choice here:
//!
//! - **Tasks.** One task per scan of a base table, one per join (inner, semi or anti), one per
//!   aggregation, and one `result` task (the client). A query's plan is the join tree its SQL
//!   suggests (foreign-key joins, dimension tables joined first, subqueries as their own
//!   branches); a view or subquery read twice (Q15's revenue view) feeds two tasks, so a DAG is
//!   not always a tree. The plans are written below, one function per query.
//! - **Flows.** Every edge of the DAG is a flow from the producing task's host to the consuming
//!   task's host, carrying the producer's output. A flow starts when every flow into its
//!   producer has ended (a task starts when all its inputs have arrived; compute time is not
//!   modelled). Scans read their table locally, so their output flows start at time 0.
//! - **Volumes.** A scan sends `table bytes × selectivity × PROJECTION` (`PROJECTION` = 0.5:
//!   queries read a few of each table's columns); table bytes are dbgen's `.tbl` sizes at scale
//!   factor 1 (`TABLE_MB`) times the scale factor; selectivities are estimates from each
//!   predicate's value range in the specification (e.g. one year out of seven of `o_orderdate`:
//!   0.15). A join sends as many bytes as its larger input (a foreign-key join keeps the fact
//!   side's rows); an aggregation sends 1% of its input (at least `MIN_AGG_BYTES`).
//! - **Placement** ([`Placement`]). Each task goes to a host drawn at random (seeded): either
//!   distinct hosts per job (no flow is host-local; a topology with fewer hosts than a job's
//!   tasks is an error), or independently uniform, where tasks may share a host and an edge
//!   inside one host is no flow.
//!
//! Weights for Fig. 11 come from [`super::dag::longest_path_to_sink`]: "For every flow in the
//! DAG, we calculate the longest distance from this flow to the end of the DAG and use this
//! distance to determine the flow's weight."

use super::FlowSpec;
use crate::error::{Error, Result};
use crate::ids::NodeId;
use crate::units::{Bytes, Time};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The eight TPC-H tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// LINEITEM.
    Lineitem,
    /// ORDERS.
    Orders,
    /// PARTSUPP.
    Partsupp,
    /// PART.
    Part,
    /// CUSTOMER.
    Customer,
    /// SUPPLIER.
    Supplier,
    /// NATION.
    Nation,
    /// REGION.
    Region,
}

/// Approximate size of each table's dbgen `.tbl` file at scale factor 1, in MB (10^6 bytes).
pub const fn table_mb(t: Table) -> f64 {
    match t {
        Table::Lineitem => 760.0,
        Table::Orders => 172.0,
        Table::Partsupp => 119.0,
        Table::Part => 24.1,
        Table::Customer => 24.3,
        Table::Supplier => 1.41,
        Table::Nation => 0.0022,
        Table::Region => 0.0004,
    }
}

/// Fraction of a scanned table's columns a query sends on.
pub const PROJECTION: f64 = 0.5;
/// Fraction of its input an aggregation sends on.
pub const AGG_FRACTION: f64 = 0.01;
/// Smallest output of an aggregation.
pub const MIN_AGG_BYTES: f64 = 1_000.0;

/// One task of a query plan.
#[derive(Clone, Debug, PartialEq)]
pub enum Task {
    /// Reads a fraction (the predicate's selectivity) of a table.
    Scan(Table, f64),
    /// Joins its inputs.
    Join(Vec<usize>),
    /// Aggregates its input(s).
    Agg(Vec<usize>),
    /// Receives the query's answer.
    Result(usize),
}

/// A query plan: tasks in an order where inputs come first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// The tasks.
    pub tasks: Vec<Task>,
}

impl Plan {
    fn add(&mut self, t: Task) -> usize {
        self.tasks.push(t);
        self.tasks.len() - 1
    }
    fn scan(&mut self, t: Table, selectivity: f64) -> usize {
        self.add(Task::Scan(t, selectivity))
    }
    fn join(&mut self, inputs: &[usize]) -> usize {
        self.add(Task::Join(inputs.to_vec()))
    }
    fn agg(&mut self, inputs: &[usize]) -> usize {
        self.add(Task::Agg(inputs.to_vec()))
    }
    fn result(mut self, top: usize) -> Plan {
        self.add(Task::Result(top));
        self
    }

    /// Bytes each task sends on, at scale factor `sf` (0 for the result task).
    pub fn output_bytes(&self, sf: f64) -> Vec<f64> {
        let mut out = vec![0.0; self.tasks.len()];
        for (i, t) in self.tasks.iter().enumerate() {
            out[i] = match t {
                Task::Scan(table, sel) => table_mb(*table) * 1e6 * sf * sel * PROJECTION,
                Task::Join(ins) => ins.iter().map(|&j| out[j]).fold(0.0, f64::max),
                Task::Agg(ins) => {
                    (ins.iter().map(|&j| out[j]).sum::<f64>() * AGG_FRACTION).max(MIN_AGG_BYTES)
                }
                Task::Result(_) => 0.0,
            };
        }
        out
    }

    /// The inputs of task `i`.
    pub fn inputs(&self, i: usize) -> &[usize] {
        match &self.tasks[i] {
            Task::Scan(..) => &[],
            Task::Join(ins) | Task::Agg(ins) => ins,
            Task::Result(top) => std::slice::from_ref(top),
        }
    }
}

use Table::*;

/// The plan of TPC-H query `q` (1–22); see the module doc for how they were derived.
pub fn query_plan(q: u32) -> Result<Plan> {
    let mut p = Plan::default();
    let top = match q {
        // Pricing summary: one scan of LINEITEM (shipdate <= 1998-09-02: nearly all), group-by.
        1 => {
            let l = p.scan(Lineitem, 0.98);
            p.agg(&[l])
        }
        // Minimum-cost supplier: PART (size, type: 1/50 × 1/5) ⋈ PARTSUPP ⋈ SUPPLIER ⋈
        // (NATION ⋈ REGION = EUROPE), joined with the correlated min(ps_supplycost) subquery
        // over PARTSUPP ⋈ SUPPLIER ⋈ NATION ⋈ REGION.
        2 => {
            let (pt, ps, s) = (
                p.scan(Part, 0.004),
                p.scan(Partsupp, 1.0),
                p.scan(Supplier, 1.0),
            );
            let (n, r) = (p.scan(Nation, 1.0), p.scan(Region, 0.2));
            let nr = p.join(&[n, r]);
            let pps = p.join(&[pt, ps]);
            let main = p.join(&[pps, s]);
            let main = p.join(&[main, nr]);
            let (ps2, s2) = (p.scan(Partsupp, 1.0), p.scan(Supplier, 1.0));
            let (n2, r2) = (p.scan(Nation, 1.0), p.scan(Region, 0.2));
            let nr2 = p.join(&[n2, r2]);
            let sub = p.join(&[ps2, s2]);
            let sub = p.join(&[sub, nr2]);
            let sub = p.agg(&[sub]);
            let j = p.join(&[main, sub]);
            p.agg(&[j])
        }
        // Shipping priority: CUSTOMER (segment 1/5) ⋈ ORDERS (date < X: ~0.48) ⋈ LINEITEM
        // (shipdate > X: ~0.54).
        3 => {
            let (c, o, l) = (
                p.scan(Customer, 0.2),
                p.scan(Orders, 0.48),
                p.scan(Lineitem, 0.54),
            );
            let co = p.join(&[c, o]);
            let col = p.join(&[co, l]);
            p.agg(&[col])
        }
        // Order priority checking: ORDERS (one quarter: 0.038) semi-join LINEITEM
        // (commitdate < receiptdate: ~0.63).
        4 => {
            let (o, l) = (p.scan(Orders, 0.038), p.scan(Lineitem, 0.63));
            let ol = p.join(&[o, l]);
            p.agg(&[ol])
        }
        // Local supplier volume: REGION ⋈ NATION ⋈ CUSTOMER ⋈ ORDERS (one year: 0.15) ⋈
        // LINEITEM ⋈ SUPPLIER.
        5 => {
            let (r, n) = (p.scan(Region, 0.2), p.scan(Nation, 1.0));
            let (c, o) = (p.scan(Customer, 1.0), p.scan(Orders, 0.15));
            let (l, s) = (p.scan(Lineitem, 1.0), p.scan(Supplier, 1.0));
            let rn = p.join(&[r, n]);
            let rnc = p.join(&[rn, c]);
            let rnco = p.join(&[rnc, o]);
            let x = p.join(&[rnco, l]);
            let x = p.join(&[x, s]);
            p.agg(&[x])
        }
        // Forecasting revenue change: one scan of LINEITEM (one year, discount and quantity
        // ranges: ~0.02), a sum.
        6 => {
            let l = p.scan(Lineitem, 0.02);
            p.agg(&[l])
        }
        // Volume shipping: (SUPPLIER ⋈ NATION n1) ⋈ LINEITEM (two years: 0.3) ⋈ ORDERS ⋈
        // (CUSTOMER ⋈ NATION n2).
        7 => {
            let (s, n1, l) = (
                p.scan(Supplier, 1.0),
                p.scan(Nation, 0.08),
                p.scan(Lineitem, 0.3),
            );
            let (o, c, n2) = (
                p.scan(Orders, 1.0),
                p.scan(Customer, 1.0),
                p.scan(Nation, 0.08),
            );
            let sn = p.join(&[s, n1]);
            let snl = p.join(&[sn, l]);
            let x = p.join(&[snl, o]);
            let cn = p.join(&[c, n2]);
            let x = p.join(&[x, cn]);
            p.agg(&[x])
        }
        // National market share: PART (one type: 1/150) ⋈ LINEITEM ⋈ SUPPLIER ⋈ ORDERS (two
        // years: 0.3) ⋈ (CUSTOMER ⋈ NATION n1 ⋈ REGION) ⋈ NATION n2.
        8 => {
            let (pt, l, s) = (
                p.scan(Part, 0.0067),
                p.scan(Lineitem, 1.0),
                p.scan(Supplier, 1.0),
            );
            let (o, c, n1) = (
                p.scan(Orders, 0.3),
                p.scan(Customer, 1.0),
                p.scan(Nation, 1.0),
            );
            let (r, n2) = (p.scan(Region, 0.2), p.scan(Nation, 1.0));
            let pl = p.join(&[pt, l]);
            let pls = p.join(&[pl, s]);
            let x = p.join(&[pls, o]);
            let cn = p.join(&[c, n1]);
            let cnr = p.join(&[cn, r]);
            let x = p.join(&[x, cnr]);
            let x = p.join(&[x, n2]);
            p.agg(&[x])
        }
        // Product type profit: PART (name like '%green%': ~0.05) ⋈ LINEITEM ⋈ PARTSUPP ⋈
        // SUPPLIER ⋈ ORDERS ⋈ NATION.
        9 => {
            let (pt, l, ps) = (
                p.scan(Part, 0.05),
                p.scan(Lineitem, 1.0),
                p.scan(Partsupp, 1.0),
            );
            let (s, o, n) = (
                p.scan(Supplier, 1.0),
                p.scan(Orders, 1.0),
                p.scan(Nation, 1.0),
            );
            let x = p.join(&[pt, l]);
            let x = p.join(&[x, ps]);
            let x = p.join(&[x, s]);
            let x = p.join(&[x, o]);
            let x = p.join(&[x, n]);
            p.agg(&[x])
        }
        // Returned item reporting: ORDERS (one quarter: 0.038) ⋈ LINEITEM (returnflag 'R':
        // ~0.25) ⋈ CUSTOMER ⋈ NATION.
        10 => {
            let (o, l, c, n) = (
                p.scan(Orders, 0.038),
                p.scan(Lineitem, 0.25),
                p.scan(Customer, 1.0),
                p.scan(Nation, 1.0),
            );
            let ol = p.join(&[o, l]);
            let olc = p.join(&[ol, c]);
            let x = p.join(&[olc, n]);
            p.agg(&[x])
        }
        // Important stock identification: PARTSUPP ⋈ SUPPLIER ⋈ NATION (one of 25), grouped,
        // filtered by the same sum over the whole nation (a second branch).
        11 => {
            let (ps, s, n) = (
                p.scan(Partsupp, 1.0),
                p.scan(Supplier, 1.0),
                p.scan(Nation, 0.04),
            );
            let x = p.join(&[ps, s]);
            let x = p.join(&[x, n]);
            let grouped = p.agg(&[x]);
            let (ps2, s2, n2) = (
                p.scan(Partsupp, 1.0),
                p.scan(Supplier, 1.0),
                p.scan(Nation, 0.04),
            );
            let y = p.join(&[ps2, s2]);
            let y = p.join(&[y, n2]);
            let total = p.agg(&[y]);
            p.join(&[grouped, total])
        }
        // Shipping modes: ORDERS ⋈ LINEITEM (two ship modes, one year, date order: ~0.005).
        12 => {
            let (o, l) = (p.scan(Orders, 1.0), p.scan(Lineitem, 0.005));
            let x = p.join(&[o, l]);
            p.agg(&[x])
        }
        // Customer distribution: CUSTOMER left-join ORDERS (comment not like: ~0.99), counted
        // per customer, then counted per count.
        13 => {
            let (c, o) = (p.scan(Customer, 1.0), p.scan(Orders, 0.99));
            let x = p.join(&[c, o]);
            let per_customer = p.agg(&[x]);
            p.agg(&[per_customer])
        }
        // Promotion effect: LINEITEM (one month: 0.0125) ⋈ PART.
        14 => {
            let (l, pt) = (p.scan(Lineitem, 0.0125), p.scan(Part, 1.0));
            let x = p.join(&[l, pt]);
            p.agg(&[x])
        }
        // Top supplier: the revenue view over LINEITEM (one quarter: 0.038) is read twice: joined
        // with SUPPLIER, and for its maximum.
        15 => {
            let (l, s) = (p.scan(Lineitem, 0.038), p.scan(Supplier, 1.0));
            let revenue = p.agg(&[l]);
            let max = p.agg(&[revenue]);
            let x = p.join(&[s, revenue]);
            p.join(&[x, max])
        }
        // Parts/supplier relationship: PARTSUPP ⋈ PART (brand, type, sizes: ~0.15) anti-join
        // SUPPLIER (complaints: ~0.0005).
        16 => {
            let (ps, pt, s) = (
                p.scan(Partsupp, 1.0),
                p.scan(Part, 0.15),
                p.scan(Supplier, 0.0005),
            );
            let x = p.join(&[ps, pt]);
            let x = p.join(&[x, s]);
            p.agg(&[x])
        }
        // Small-quantity-order revenue: LINEITEM ⋈ PART (brand and container: 1/1000), joined
        // with the per-part average quantity over LINEITEM.
        17 => {
            let (l, pt, l2) = (
                p.scan(Lineitem, 1.0),
                p.scan(Part, 0.001),
                p.scan(Lineitem, 1.0),
            );
            let avg = p.agg(&[l2]);
            let x = p.join(&[l, pt]);
            let x = p.join(&[x, avg]);
            p.agg(&[x])
        }
        // Large volume customer: CUSTOMER ⋈ ORDERS ⋈ LINEITEM, semi-joined with the orders of
        // quantity > 300 (an aggregation over LINEITEM).
        18 => {
            let (c, o, l, l2) = (
                p.scan(Customer, 1.0),
                p.scan(Orders, 1.0),
                p.scan(Lineitem, 1.0),
                p.scan(Lineitem, 1.0),
            );
            let big = p.agg(&[l2]);
            let x = p.join(&[c, o]);
            let x = p.join(&[x, l]);
            let x = p.join(&[x, big]);
            p.agg(&[x])
        }
        // Discounted revenue: LINEITEM (ship mode and instruction, quantities: ~0.02) ⋈ PART.
        19 => {
            let (l, pt) = (p.scan(Lineitem, 0.02), p.scan(Part, 1.0));
            let x = p.join(&[l, pt]);
            p.agg(&[x])
        }
        // Potential part promotion: (SUPPLIER ⋈ NATION) semi-join (PARTSUPP ⋈ PART (name like
        // 'forest%': ~0.01) ⋈ the per-part-supplier quantity over LINEITEM (one year: 0.15)).
        20 => {
            let (s, n) = (p.scan(Supplier, 1.0), p.scan(Nation, 0.04));
            let (ps, pt, l) = (
                p.scan(Partsupp, 1.0),
                p.scan(Part, 0.01),
                p.scan(Lineitem, 0.15),
            );
            let qty = p.agg(&[l]);
            let x = p.join(&[ps, pt]);
            let x = p.join(&[x, qty]);
            let sn = p.join(&[s, n]);
            p.join(&[sn, x])
        }
        // Suppliers who kept orders waiting: (SUPPLIER ⋈ NATION) ⋈ LINEITEM l1 (receipt >
        // commit: ~0.63) ⋈ ORDERS (status 'F': ~0.49), semi-join LINEITEM l2, anti-join
        // LINEITEM l3.
        21 => {
            let (s, n, l1) = (
                p.scan(Supplier, 1.0),
                p.scan(Nation, 0.04),
                p.scan(Lineitem, 0.63),
            );
            let (o, l2, l3) = (
                p.scan(Orders, 0.49),
                p.scan(Lineitem, 1.0),
                p.scan(Lineitem, 0.63),
            );
            let sn = p.join(&[s, n]);
            let x = p.join(&[sn, l1]);
            let x = p.join(&[x, o]);
            let x = p.join(&[x, l2]);
            let x = p.join(&[x, l3]);
            p.agg(&[x])
        }
        // Global sales opportunity: CUSTOMER (7 country codes: ~0.28) joined with their average
        // balance (an aggregation over CUSTOMER), anti-join ORDERS.
        22 => {
            let (c, c2, o) = (
                p.scan(Customer, 0.28),
                p.scan(Customer, 0.28),
                p.scan(Orders, 1.0),
            );
            let avg = p.agg(&[c2]);
            let x = p.join(&[c, avg]);
            let x = p.join(&[x, o]);
            p.agg(&[x])
        }
        _ => {
            return Err(Error::invalid(
                "queries",
                format!("TPC-H has queries 1 to 22, got {q}"),
            ))
        }
    };
    Ok(p.result(top))
}

/// Flows of DAG jobs with their dependencies.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DagJobs {
    /// The flows; `tag` is the job (here the query number).
    pub flows: Vec<FlowSpec>,
    /// `deps[i]`: the flows that must end before flow `i` starts.
    pub deps: Vec<Vec<u32>>,
}

/// Where a job's tasks run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    /// Each task on its own host (the job needs at least as many hosts as tasks).
    #[default]
    Distinct,
    /// Each task on a host drawn uniformly at random: tasks may share a host, and an edge
    /// between two tasks on one host moves no data over the network (no flow: the consumer
    /// waits for the producer's own inputs instead).
    Uniform,
}

/// The TPC-H `queries` at scale factor `sf`, each job's tasks placed on `hosts` as
/// `placement` says (seeded), all jobs released at time 0. Flow `tag` = query number.
pub fn tpch_jobs(
    hosts: &[NodeId],
    queries: &[u32],
    sf: f64,
    placement: Placement,
    seed: u64,
) -> Result<DagJobs> {
    if !(sf.is_finite() && sf > 0.0) {
        return Err(Error::invalid(
            "scale_factor",
            format!("expected a positive number, got {sf}"),
        ));
    }
    if hosts.len() < 2 {
        return Err(Error::invalid(
            "topology",
            "TPC-H jobs need at least 2 hosts",
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7bc4_0022);
    let mut jobs = DagJobs::default();
    for &q in queries {
        let plan = query_plan(q)?;
        let place: Vec<NodeId> = match placement {
            Placement::Distinct => {
                if plan.tasks.len() > hosts.len() {
                    return Err(Error::invalid(
                        "topology",
                        format!(
                            "TPC-H query {q} has {} tasks, more than the {} hosts (each task \
                             gets its own host)",
                            plan.tasks.len(),
                            hosts.len()
                        ),
                    ));
                }
                hosts
                    .choose_multiple(&mut rng, plan.tasks.len())
                    .copied()
                    .collect()
            }
            Placement::Uniform => (0..plan.tasks.len())
                .map(|_| *hosts.choose(&mut rng).expect("hosts checked non-empty"))
                .collect(),
        };
        let bytes = plan.output_bytes(sf);
        // The network flows a task must wait for before it can start (its input flows, and
        // for a host-local input, that input's own wait set), filled as tasks are visited;
        // inputs come before their consumers, so a producer's set is complete when its output
        // flows are made.
        let mut wait: Vec<Vec<u32>> = vec![Vec::new(); plan.tasks.len()];
        for consumer in 0..plan.tasks.len() {
            for &producer in plan.inputs(consumer) {
                if place[producer] == place[consumer] {
                    let inherited = wait[producer].clone();
                    wait[consumer].extend(inherited);
                    continue;
                }
                let id = jobs.flows.len() as u32;
                let mut f = FlowSpec::new(
                    place[producer],
                    place[consumer],
                    Bytes(bytes[producer].round().max(1.0) as u64),
                    Time::ZERO,
                );
                f.tag = q;
                jobs.flows.push(f);
                jobs.deps.push(wait[producer].clone());
                wait[consumer].push(id);
            }
            wait[consumer].sort_unstable();
            wait[consumer].dedup();
        }
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::super::dag::{longest_path_to_sink, topological_order};
    use super::*;

    fn hosts(n: u32) -> Vec<NodeId> {
        (0..n).map(NodeId).collect()
    }

    #[test]
    fn every_query_is_a_dag_ending_in_one_result_flow() {
        let all: Vec<u32> = (1..=22).collect();
        let jobs = tpch_jobs(&hosts(128), &all, 1.0, Placement::Distinct, 1).unwrap();
        topological_order(&jobs.deps).unwrap();
        let depth = longest_path_to_sink(&jobs.deps).unwrap();
        for q in 1..=22 {
            let ids: Vec<usize> = (0..jobs.flows.len())
                .filter(|&i| jobs.flows[i].tag == q)
                .collect();
            assert!(!ids.is_empty(), "query {q}");
            // Exactly one flow (into the result task) has nothing after it.
            let last: Vec<usize> = ids.iter().copied().filter(|&i| depth[i] == 1).collect();
            assert_eq!(last.len(), 1, "query {q}");
            // Dependencies stay inside the job, and no flow is host-local.
            for &i in &ids {
                assert!(jobs.deps[i]
                    .iter()
                    .all(|&d| jobs.flows[d as usize].tag == q));
                assert_ne!(jobs.flows[i].src, jobs.flows[i].dst);
                // A flow leaves the host its dependencies arrived at.
                for &d in &jobs.deps[i] {
                    assert_eq!(jobs.flows[d as usize].dst, jobs.flows[i].src, "query {q}");
                }
            }
        }
        // Single-path queries (Q1, Q6: scan -> aggregate -> result) are chains of 2 flows; Q15's
        // revenue view feeds two tasks.
        let q = |n: u32| -> Vec<usize> {
            (0..jobs.flows.len())
                .filter(|&i| jobs.flows[i].tag == n)
                .collect()
        };
        assert_eq!(
            q(1).iter().map(|&i| depth[i]).collect::<Vec<_>>(),
            vec![2, 1]
        );
        assert_eq!(q(6).len(), 2);
        let plan15 = query_plan(15).unwrap();
        let consumers_of_view = (0..plan15.tasks.len())
            .filter(|&t| plan15.inputs(t).contains(&2))
            .count();
        assert_eq!(consumers_of_view, 2);
    }

    #[test]
    fn volumes_follow_the_documented_rules() {
        let plan = query_plan(3).unwrap();
        let b = plan.output_bytes(2.0);
        // CUSTOMER scan: 24.3 MB × 2 × 0.2 × 0.5.
        assert!((b[0] - 24.3e6 * 2.0 * 0.2 * 0.5).abs() < 1.0);
        // The joins send their larger input; the aggregation 1% of its input.
        assert_eq!(b[3], b[0].max(b[1]));
        assert_eq!(b[4], b[3].max(b[2]));
        assert!((b[5] - b[4] * 0.01).abs() < 1e-6);
    }

    #[test]
    fn host_local_edges_pass_their_waits_on() {
        // Two hosts for a 17-task query: many edges are host-local. Every flow still leaves
        // the host its dependencies arrived at, and waits only for flows of its own job.
        let jobs = tpch_jobs(&hosts(2), &[8, 21], 1.0, Placement::Uniform, 3).unwrap();
        topological_order(&jobs.deps).unwrap();
        for (i, f) in jobs.flows.iter().enumerate() {
            assert_ne!(f.src, f.dst);
            for &d in &jobs.deps[i] {
                let d = &jobs.flows[d as usize];
                assert_eq!(d.tag, f.tag);
                assert_eq!(d.dst, f.src);
            }
        }
        let distinct = tpch_jobs(&hosts(64), &[8], 1.0, Placement::Distinct, 3).unwrap();
        let local = jobs.flows.iter().filter(|f| f.tag == 8).count();
        assert!(
            local < distinct.flows.len(),
            "some edges of Q8 are host-local"
        );
    }

    #[test]
    fn bad_requests_are_errors() {
        assert_eq!(
            query_plan(23).unwrap_err().to_string(),
            "queries: TPC-H has queries 1 to 22, got 23"
        );
        let e = tpch_jobs(&hosts(16), &[8], 1.0, Placement::Distinct, 1)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("topology: TPC-H query 8 has 17 tasks"), "{e}");
        let e = tpch_jobs(&hosts(16), &[1], 0.0, Placement::Distinct, 1)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "scale_factor: expected a positive number, got 0");
    }
}
