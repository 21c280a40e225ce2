"""Söze §5.2.2, Fig. 14: step-in & step-out in the NS-3 simulator, Söze against HPCC.

"In the NS-3 simulator, we also conducted a step-in and step-out experiment with hosts under
different ToRs sending traffic to the same destination. ... 4 flows are added every 10
milliseconds, and each flow completes every 10 milliseconds in sequence." The claim (no numbers):
"Compared to HPCC, the bandwidth allocation in Söze is very accurate and stable", while HPCC's
"is not accurate nor stable ... due to the binary status provided by its in-network signal".

Ours: a leaf–spine with one host per leaf (five leaves, one spine; 100 Gb/s, 1 µs, 32 MB), hosts
0–3 send to host 4. Flow i starts at i·P; its size is what the ideal allocation delivers if it
ends at (4 + i)·P (flows leave in the order they came), so the run steps 1 → 2 → 3 → 4 → 3 → 2 → 1
flows. Phases are taken from the run's own start and end times. In each phase the oracle
(:func:`fairnet.allocate`) gives every active flow 100/n Gb/s; we print the largest error over
the phase's second half and the time after each step until every flow stays within 10% of its
share (20 µs windows), for Söze and HPCC (§4's settings: W_AI = 80 B, maxStage = 5, η = 95%).

Scales: ``smoke`` P = 1 ms, ``full`` the paper's P = 10 ms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.soze.common import (
    LINK_BPS,
    hpcc_engine,
    max_err,
    plot_rates,
    run_series,
    soze_engine,
    step_flows,
    step_phases,
    us,
)
from fairnet.paper.tables import Column, ResultTable, key

N = 4
DST = 4
PHASE_S = {"smoke": 1e-3, "full": 10e-3}


def scenario(scale: str, engine: dict[str, Any]) -> dict[str, Any]:
    """Fig. 14 as a scenario document on ``engine``."""
    p = PHASE_S[scale]
    flows = step_flows(N, DST, LINK_BPS, p)
    return {
        "name": f"soze-fig14 ({scale})",
        "topology": {"kind": "leaf_spine", "hosts_per_leaf": 1, "leaves": 5, "spines": 1},
        "workload": {"kind": "flows", "flows": flows},
        "engine": engine,
        "stop_at": us((2 * N + 1) * p),
    }


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    runs = {
        "Söze": run_series(scenario(scale, soze_engine()), N),
        "HPCC": run_series(scenario(scale, hpcc_engine()), N),
    }
    rows: list[dict[str, Any]] = []
    steps = {name: step_phases(s, LINK_BPS) for name, s in runs.items()}
    for k in range(min(len(v) for v in steps.values())):
        row: dict[str, Any] = {}
        for name, s in runs.items():
            a, b, want = steps[name][k]
            got = s.mean((a + b) / 2, b)
            row |= {
                "active": int((want > 0).sum()),
                "share_gbps": float(want.max()) / 1e9,
                f"{name}_from_ms": a * 1e3,
                f"{name}_gbps": [x / 1e9 for x in got],
                f"{name}_max_error": max_err(got, want),
                f"{name}_converged_us": s.convergence(a, b, want) * 1e6,
            }
        row["paper"] = "Söze accurate and stable; HPCC neither (figure only)"
        rows.append(row)
    t = ResultTable(
        f"Söze Fig. 14 ({scale}): step-in & step-out, {PHASE_S[scale] * 1e3:g} ms steps",
        (
            key("phase"),
            key("flows"),
            Column("share", "oracle"),
            Column("Söze max error", "ours vs oracle"),
            Column("Söze converged", "ours"),
            Column("HPCC max error", "ours vs oracle"),
            Column("HPCC converged", "ours"),
        ),
        note="Paper (§5.2.2, Fig. 14): 'Compared to HPCC, the bandwidth allocation in Söze is "
        "very accurate and stable'; no numbers. Errors over each phase's second half; "
        "'converged': within 10% (20 us windows) until the next step (inf: never).",
    )
    for k, r in enumerate(rows):
        t.add_row(
            str(k + 1),
            str(r["active"]),
            f"{r['share_gbps']:.1f} Gb/s",
            f"{r['Söze_max_error'] * 100:.2f}%",
            f"{r['Söze_converged_us']:.0f} us",
            f"{r['HPCC_max_error'] * 100:.2f}%",
            f"{r['HPCC_converged_us']:.0f} us",
        )
    t.print(console)

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11.0, 3.6), sharey=True)
    for ax, panel, name in zip(axes, "ab", ("HPCC", "Söze"), strict=True):
        s, labels = runs[name], [f"flow {i + 1}" for i in range(N)]
        plot_rates(ax, s.times, s.rates, labels, steps[name], window=10)
        ax.set_title(f"({panel}) {name} (dashed: oracle)")
        ax.legend(fontsize=7)
    return PaperResult(rows, save_figure(fig, outdir, "soze-fig14"), [t])


ENTRY = Entry(
    name="soze-fig14",
    title="Söze vs HPCC: step-in & step-out of 4 flows to one destination",
    paper="Söze (Wang & Ng), §5.2.2",
    figure="Fig. 14",
    scales={
        "smoke": "leaf-spine, 4 flows added every 1 ms then leaving every 1 ms; Söze and HPCC",
        "full": "the same with the paper's 10 ms steps",
    },
    run_fn=run,
)
