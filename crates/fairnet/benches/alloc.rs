//! Criterion benchmarks of the oracle on the Söze Fig. 19 problems (k = 16 fat-tree, random host
//! pairs, ECMP paths, weights in [0.1, 10]). `fairnet bench allocate` prints the full series;
//! this keeps the solver's own cost under criterion's statistics: `cargo bench -p fairnet`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fairnet::alloc::{k_waterfilling, solve, Problem, Radius};
use fairnet::units::Rate;
use fairnet::workload::fat_tree_problem;

fn problem(k: u32, flows: usize) -> Problem {
    Problem::new(fat_tree_problem(k, flows, 1, (0.1, 10.0), Rate::gbps(100)).unwrap()).unwrap()
}

fn oracle(c: &mut Criterion) {
    let mut g = c.benchmark_group("solve_k16");
    g.sample_size(10);
    for flows in [10_000, 100_000, 1_000_000] {
        let p = problem(16, flows);
        g.bench_with_input(BenchmarkId::from_parameter(flows), &p, |b, p| {
            b.iter(|| solve(p))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("k_waterfilling_k16_100k");
    g.sample_size(10);
    let p = problem(16, 100_000);
    for (name, k) in [("k1", Radius::One), ("k2", Radius::Two)] {
        g.bench_function(name, |b| b.iter(|| k_waterfilling(&p, k)));
    }
    g.finish();
}

criterion_group!(benches, oracle);
criterion_main!(benches);
