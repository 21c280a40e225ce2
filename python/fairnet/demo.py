"""The README's main job (for now): a weighted max-min allocation on a k = 8 fat-tree.

20,000 flows between random host pairs on ECMP paths with weights uniform in [0.1, 10] are
solved exactly, verified by the independent checker, and written to the output directory as
``problem.json``, ``result.json`` and ``summary.json``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from fairnet import alloc, problem_file, workload
from fairnet.report import console, print_allocation_summary

DEMO_K = 8
DEMO_FLOWS = 20_000
DEMO_SEED = 1


def run_demo(output: Path) -> dict:
    """Runs the demo and writes its files into ``output``; returns the summary."""
    spec = workload.fat_tree_problem(DEMO_K, DEMO_FLOWS, seed=DEMO_SEED)
    console.print(f"k={DEMO_K} fat-tree, 100 Gb/s links: {workload.describe(spec)}")
    t0 = time.perf_counter()
    result = alloc.allocate(spec.capacities, spec.paths, spec.weights)
    elapsed = time.perf_counter() - t0
    report = alloc.check_allocation(spec.capacities, spec.paths, result.rates, spec.weights)
    summary = print_allocation_summary(spec, result, report, elapsed, iterations=True)
    summary["scenario"] = {
        "topology": f"fat_tree k={DEMO_K}",
        "flows": DEMO_FLOWS,
        "seed": DEMO_SEED,
        "weights": [0.1, 10.0],
        "routing": "ecmp flow hash",
    }
    output.mkdir(parents=True, exist_ok=True)
    (output / "problem.json").write_text(json.dumps(problem_file.problem_document(spec)))
    (output / "result.json").write_text(
        json.dumps(problem_file.result_document(spec, result, iterations=True))
    )
    (output / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    console.print(f"wrote {output}/problem.json, result.json, summary.json")
    return summary
