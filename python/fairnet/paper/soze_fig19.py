"""Söze §5.3.4, Fig. 19: the centralised solver's time as the topology and the flow count grow.

Fig. 19(a): 10,000 flows on fat-trees k = 4, 8, 12, 16; Fig. 19(b): 10 … 1,000,000 flows on a
k = 16 fat-tree (1,024 hosts). Flows go between random host pairs on ECMP paths with weights
uniform in [0.1, 10] (:func:`fairnet.workload.fat_tree_problem`); each point is the best of
``repeat`` oracle solves, checked independently (:func:`fairnet.bench.time_allocation`). The
paper prints two numbers for its water-filling solver, both in Fig. 19(b): 1.81 ms for 10 flows
and 31.1 s for 1M flows; its plotted curves are not tabulated, so only those are compared.
``smoke`` stops Fig. 19(b) at 10k flows and solves each point once.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from fairnet.bench import SOZE_FIG19B, time_allocation
from fairnet.paper.entry import Entry, PaperResult, pyplot, save_figure

TOPOLOGY_KS = (4, 8, 12, 16)
FLOW_COUNTS = {
    "smoke": (10, 100, 1_000, 10_000),
    "full": (10, 100, 1_000, 10_000, 100_000, 1_000_000),
}
REPEAT = {"smoke": 1, "full": 3}


def run(scale: str, outdir: Path, console: Console, seed: int = 1) -> PaperResult:
    repeat = REPEAT[scale]
    series = {
        "a": [(k, 10_000) for k in TOPOLOGY_KS],
        "b": [(16, n) for n in FLOW_COUNTS[scale]],
    }
    rows = []
    measured: dict[tuple[int, int], dict] = {}  # k = 16 at 10k flows is in both panels
    for panel, points in series.items():
        t = Table(title=f"Söze Fig. 19({panel}): oracle solve time ({scale})")
        for col in ("k", "hosts", "flows", "solve", "check", "paper (water-filling)"):
            t.add_column(col, justify="right")
        for k, n in points:
            r = measured.get((k, n)) or time_allocation(k, n, seed, repeat)
            measured[(k, n)] = r
            paper = SOZE_FIG19B.get(n) if panel == "b" else None
            rows.append({"panel": panel, **r, "paper_s": paper})
            t.add_row(
                str(k),
                f"{r['hosts']:,}",
                f"{n:,}",
                f"{r['solve_s'] * 1e3:.3f} ms",
                "ok" if r["check"] else "FAILED",
                f"{paper * 1e3:,.2f} ms" if paper else "",
            )
        console.print(t)

    plt = pyplot()
    fig, (ax_a, ax_b) = plt.subplots(1, 2, figsize=(9.0, 3.4))
    a = [r for r in rows if r["panel"] == "a"]
    ax_a.plot([r["hosts"] for r in a], [r["solve_s"] for r in a], "o-", label="fairnet oracle")
    ax_a.set_xlabel("hosts (fat-tree k = 4, 8, 12, 16)")
    ax_a.set_title("(a) 10k flows, growing topology")
    b = [r for r in rows if r["panel"] == "b"]
    ax_b.plot([r["flows"] for r in b], [r["solve_s"] for r in b], "o-", label="fairnet oracle")
    ax_b.plot(
        list(SOZE_FIG19B), list(SOZE_FIG19B.values()), "s", label="Söze paper (water-filling)"
    )
    ax_b.set_xscale("log")
    ax_b.set_xlabel("flows (k = 16 fat-tree)")
    ax_b.set_title("(b) growing flow count")
    for ax in (ax_a, ax_b):
        ax.set_yscale("log")
        ax.set_ylabel("solve time (s)")
        ax.legend()
    return PaperResult(rows, save_figure(fig, outdir, "soze-fig19"))


ENTRY = Entry(
    name="soze-fig19",
    title="Oracle solve time as the topology and the flow count grow",
    paper="Söze, §5.3.4",
    figure="Fig. 19",
    scales={
        "smoke": "10k flows on k = 4..16; 10..10k flows on k = 16; one solve per point",
        "full": "10k flows on k = 4..16; 10..1M flows on k = 16; best of 3",
    },
    run_fn=run,
)
