"""``fairnet bench allocate``: the oracle's speed, printed, never asserted.

The headline is 1,000,000 flows between random host pairs on a k = 16 fat-tree (1,024 hosts,
ECMP paths, weights uniform in [0.1, 10]); the series mirror Söze Fig. 19 (§5.3.4): 10k flows on
k = 4, 8, 12, 16, and 10 … 1M flows on k = 16. The Söze paper reports 1.81 ms (10 flows) to
31.1 s (1M flows) for its water-filling solver on that topology.
"""

from __future__ import annotations

import gc
import resource
import sys
import time

import numpy as np
from rich.console import Console
from rich.table import Table

from fairnet import _core, alloc, workload

# Wide enough for the tables when the output is a file or a pipe.
console = Console(width=None if sys.stdout.isatty() else 132)

SOZE_FIG19B = {10: 1.81e-3, 1_000_000: 31.1}


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def time_allocation(k: int, n_flows: int, seed: int, repeat: int) -> dict:
    """Best-of-`repeat` oracle time on `n_flows` random flows on a k-ary fat-tree, checked."""
    spec = workload.fat_tree_problem(k, n_flows, seed=seed)
    best_total = best_solve = float("inf")
    result = None
    for _ in range(repeat):
        result = None
        gc.collect()
        t0 = time.perf_counter()
        result = alloc.allocate(spec.capacities, spec.paths, spec.weights)
        best_total = min(best_total, time.perf_counter() - t0)
        best_solve = min(best_solve, result.solve_seconds)
    assert result is not None
    report = alloc.check_allocation(spec.capacities, spec.paths, result.rates, spec.weights)
    return {
        "k": k,
        "hosts": k**3 // 4,
        "links": len(spec.capacities),
        "flows": n_flows,
        "solve_s": best_solve,
        "allocate_s": best_total,
        "kinf": result.kinf,
        "check": report.ok,
    }


def compare_with_numpy(k: int, n_flows: int, seed: int, repeat: int) -> dict:
    """The oracle's solve against the NumPy + scipy.sparse water-filling
    (:mod:`fairnet.numpy_waterfill`) on the same arrays, alternated in one sitting (best of
    ``repeat`` each, CPU seconds: both run on one thread, and CPU time is steadier than wall
    time on a shared machine), and the largest relative difference between their rates."""
    from fairnet import numpy_waterfill

    spec = workload.fat_tree_problem(k, n_flows, seed=seed)
    indptr, indices = spec.paths
    ours = theirs = float("inf")
    result = reference = None
    for _ in range(repeat):
        result = reference = None
        gc.collect()
        result = alloc.allocate(spec.capacities, spec.paths, spec.weights)
        ours = min(ours, result.solve_cpu_seconds)
        gc.collect()
        t0 = time.process_time()
        reference = numpy_waterfill.waterfill(spec.capacities, indptr, indices, spec.weights)
        theirs = min(theirs, time.process_time() - t0)
    assert result is not None and reference is not None
    diff = float(np.max(np.abs(result.rates - reference.rates) / reference.rates))
    return {
        "k": k,
        "flows": n_flows,
        "solve_s": ours,
        "numpy_s": theirs,
        "ratio": theirs / ours,
        "kinf": result.kinf,
        "numpy_iterations": reference.iterations,
        "max_rel_diff": diff,
        "same_rates": diff <= 1e-9,
    }


def print_numpy_comparison(quick: bool, seed: int) -> list[dict]:
    """Prints the table of :func:`compare_with_numpy` on the 1M-flow problem (100k with
    ``quick``) and the 100k-flow problems on k = 8 and k = 16 fat-trees."""
    try:
        import scipy  # noqa: F401
    except ImportError:
        console.print("NumPy reference skipped: it needs scipy (pip install 'fairnet[bench]')")
        return []
    problems = [(16, 100_000), (8, 100_000)] + ([] if quick else [(16, 1_000_000)])
    t = Table(
        title="Against a vectorized NumPy + scipy.sparse water-filling "
        "(same arrays, alternated, best of 3 CPU times each)"
    )
    for col in ("k", "flows", "fairnet solve", "NumPy solve", "ratio", "N_inf (both)", "rates"):
        t.add_column(col, justify="right")
    rows = []
    for k, n in problems:
        r = compare_with_numpy(k, n, seed, 3)
        rows.append(r)
        t.add_row(
            str(k),
            f"{n:,}",
            f"{r['solve_s'] * 1e3:.1f} ms",
            f"{r['numpy_s'] * 1e3:.1f} ms",
            f"{r['ratio']:.1f}x",
            f"{r['kinf']} / {r['numpy_iterations']}",
            f"same (max rel. diff {r['max_rel_diff']:.1e})"
            if r["same_rates"]
            else f"DIFFER (max rel. diff {r['max_rel_diff']:.1e})",
        )
    console.print(t)
    return rows


def bench_allocate(quick: bool = False, seed: int = 1) -> list[dict]:
    """Runs the oracle benchmark and prints its tables. Returns the rows."""
    console.print(f"fairnet {_core.__version__} oracle benchmark (best of 3, one core)")
    rows = []
    head = time_allocation(16, 100_000 if quick else 1_000_000, seed, 3)
    rss = _peak_rss_mib()
    rows.append(head)
    console.print(
        f"[bold]k=16 fat-tree, {head['flows']:,} flows:[/bold] "
        f"solve {head['solve_s'] * 1e3:.1f} ms, "
        f"allocate() incl. input conversion {head['allocate_s'] * 1e3:.1f} ms, "
        f"N_inf={head['kinf']}, checker {'ok' if head['check'] else 'FAILED'}, "
        f"peak RSS {rss:.0f} MiB"
    )
    sizes = [(k, 10_000) for k in (4, 8, 12, 16)]
    counts = [10, 100, 1_000, 10_000, 100_000] + ([] if quick else [1_000_000])
    for title, series in (
        ("Söze Fig. 19(a): 10k flows, growing fat-tree", sizes),
        ("Söze Fig. 19(b): k=16 fat-tree, growing flow count", [(16, n) for n in counts]),
    ):
        t = Table(title=title)
        for col in (
            "k",
            "hosts",
            "links",
            "flows",
            "solve",
            "allocate()",
            "N_inf",
            "check",
            "Söze paper (water-filling)",
        ):
            t.add_column(col, justify="right")
        for k, n in series:
            r = head if (k, n) == (16, head["flows"]) else time_allocation(k, n, seed, 3)
            rows.append(r)
            paper = SOZE_FIG19B.get(n) if k == 16 else None
            t.add_row(
                str(k),
                f"{r['hosts']:,}",
                f"{r['links']:,}",
                f"{n:,}",
                f"{r['solve_s'] * 1e3:.3f} ms",
                f"{r['allocate_s'] * 1e3:.3f} ms",
                str(r["kinf"]),
                "ok" if r["check"] else "FAILED",
                f"{paper * 1e3:,.2f} ms" if paper else "",
            )
        console.print(t)
    rows.extend(print_numpy_comparison(quick, seed))
    return rows


PARKING_LOADS = (0.6, 0.8, 0.9, 0.95)


def bench_parking_lot(n_flows: int = 100_000, seed: int = 1) -> list[dict]:
    """Prints the fluid engine on m3's two-layer parking lot (scenario ``m3_parking_lot``: 8
    hosts, 10 Gb/s host links, 40 Gb/s chain, web search, 48 B of header per 1000 B) at 60, 80,
    90 and 95% load: CPU time, cost per event and the time-average number of active flows, with
    the flows of a host pair in one class (the scenario's setting) and each flow on its own."""
    from fairnet import flowsim

    cdf = flowsim.cdf_path("websearch")
    t = Table(title=f"fluid engine on m3's parking lot, {n_flows:,} web-search flows (CPU time)")
    for col in (
        "load",
        "events",
        "mean active",
        "CPU, classes",
        "per event",
        "CPU, per flow",
        "per event ",
    ):
        t.add_column(col, justify="right")
    rows = []
    for load in PARKING_LOADS:
        on = _core.flow_parking_lot_bench(n_flows, load, seed, cdf, "incremental", True)
        off = _core.flow_parking_lot_bench(n_flows, load, seed, cdf, "incremental", False)
        t.add_row(
            f"{load:.0%}",
            f"{on['events']:,}",
            f"{on['mean_active']:.1f}",
            f"{on['cpu_seconds']:.3f} s",
            f"{on['cpu_seconds'] / on['events'] * 1e6:.2f} us",
            f"{off['cpu_seconds']:.3f} s",
            f"{off['cpu_seconds'] / off['events'] * 1e6:.2f} us",
        )
        rows.append({"load": load, "classes": on, "per_flow": off})
    console.print(t)
    # What an event's cost follows: the allocator's entries and the flow entries it reads.
    for r in rows:
        on, off = r["classes"], r["per_flow"]
        console.print(
            f"  {r['load']:.0%}: per rate update {on['mean_entries']:.1f} classes "
            f"({off['mean_entries']:.1f} flows), {on['visits_per_update']:.0f} flow entries read "
            f"with classes, {off['visits_per_update']:.0f} without"
        )
    return rows


def bench_flow(
    n_flows: int = 1_000_000,
    load: float = 0.6,
    seed: int = 1,
    active: int = 100_000,
    parking_flows: int = 100_000,
) -> dict:
    """Fluid engine speed: m3's parking lot at 60-95% load (:func:`bench_parking_lot`), web search
    flows at ``load`` on a k = 16 fat-tree (100 Gb/s), and the per-event cost of the
    incremental allocator against a full recompute at ``active`` concurrently active flows."""
    from fairnet import flowsim

    parking = bench_parking_lot(parking_flows, seed) if parking_flows else []
    c = _core.flow_incremental_bench(16, active, 200, 3, seed)
    console.print(
        f"[bold]{active:,} active flows on a k=16 fat-tree (random pairs, weights 0.1-10):"
        f"[/bold] incremental {c['incremental_seconds'] * 1e3:.3f} ms/event "
        f"({c['changed_flows']:,.0f} rates and {c['link_updates']:,.0f} link levels changed per "
        f"event), full recompute {c['recompute_seconds'] * 1e3:.3f} ms/event, ratio "
        f"{c['recompute_seconds'] / c['incremental_seconds']:.2f}x"
    )

    s = _core.flow_fat_tree_bench(16, n_flows, load, seed, flowsim.cdf_path("websearch"))
    rss = _peak_rss_mib()
    console.print(
        f"[bold]fluid engine, web search at {load:.0%} load, k=16 fat-tree, {n_flows:,} flows:"
        f"[/bold] {s['cpu_seconds']:.2f} s CPU ({s['wall_seconds']:.2f} s wall), "
        f"{s['events']:,} events, {s['cpu_seconds'] / s['events'] * 1e6:.2f} us CPU per event "
        f"at {s['mean_active']:,.0f} active flows on average "
        f"({s['mean_entries']:,.0f} per rate update, {s['visits_per_update']:,.0f} flow entries "
        f"read and {s['rates_changed_per_update']:.0f} rates changed per update), "
        f"{s['simulated_seconds'] * 1e3:.2f} ms simulated, {s['finished']:,} finished, "
        f"median slowdown {s['median_slowdown']:.2f}, end-time hash {s['end_hash']}, "
        f"peak RSS {rss:.0f} MiB"
    )
    return {
        "wall_seconds": s["wall_seconds"],
        "cpu_seconds": s["cpu_seconds"],
        "events": s["events"],
        "finished": s["finished"],
        "parking_lot": parking,
    } | c


def bench_model(flows: int = 1000, rtts: int = 10_000, iterations: int = 1_000_000) -> dict:
    """Model engine speed: the DCTCP fluid model (Alizadeh et al. 2011) with ``flows`` flows
    over ``rtts`` round trips, the Chiu–Jain AIMD map (100 users, random feedback) and MAY's
    mean-field map (100 flows, §III-A Eq. 4) over ``iterations`` iterations each. Wall and
    CPU seconds of the solve, printed (goal for the fluid model at 1,000 flows and 10,000
    RTTs: under a second)."""
    from fairnet.model import model_document
    from fairnet.runner import run

    rtt = 100e-6
    # 400 Gb/s with K = 700 packets (DCTCP §3.4's guideline K > C·RTT/7 = 680 packets): windows
    # of several packets per flow and a marking limit cycle, not a degenerate fixed point.
    fluid = model_document(
        "dctcp_fluid",
        flows=flows,
        capacity="400Gbps",
        k=700,
        rtt=rtt,
        per_flow=0,
        horizon=rtts * rtt,
        output_interval=100 * rtt,
        initial={"W": list(np.linspace(1.0, 20.0, flows))},
    )
    aimd = model_document(
        "chiu_jain_aimd",
        users=100,
        feedback=0.5,
        period=rtt,
        per_user=0,
        horizon=iterations * rtt,
        output_interval=1000 * rtt,
    )
    # MAY §III-A's mean-field map (Eq. 4), 100 AIMD flows, one iteration per 1 s update period.
    may = model_document(
        "may_mean_field",
        flows=100,
        capacity=100_000.0,
        horizon=float(iterations),
        output_interval=1000.0,
    )
    figures = {}
    for key, doc, what in (
        ("fluid", fluid, f"DCTCP fluid model, {flows:,} flows over {rtts:,} RTTs (400 Gb/s)"),
        ("map", aimd, f"Chiu-Jain AIMD map, 100 users, random feedback, {iterations:,} iterations"),
        ("may", may, f"MAY mean-field map, 100 flows, {iterations:,} iterations"),
    ):
        cpu0 = time.process_time()
        r = run(doc)
        cpu = time.process_time() - cpu0
        s = r.summary
        c = s["counters"]
        wall = r.provenance["wall_seconds"]
        figures[key] = {"wall_seconds": wall, "cpu_seconds": cpu, **c}
        console.print(
            f"[bold]{what}:[/bold] {wall:.3f} s wall (solve), {cpu:.3f} s CPU "
            f"(whole run), {c['steps']:,.0f} steps, {c['rejected_steps']:,.0f} rejected, "
            f"{c['switch_crossings']:,.0f} switch crossings, complete: {s['complete']}"
        )
    return figures
