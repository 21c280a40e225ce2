"""s-PERC §8.2.1, Fig. 7: convergence times of s-PERC* and RCP in the datacenter when 40% of
the long flows are replaced at once, on the packet engine.

Each change replaces 40% of the active flows; we report, per change, the RTTs until 95% of
the flows stay within 20% of their max-min rates, and until 99% stay within 10% (for 5
consecutive RTTs). The experiment runs in Rust (``fairnet::systems::sperc::convergence``, the
setup in ``…::fig7``; their module docs list our choices: the topology reading, the ideal per
scheme, how a flow's rate is measured); ``docs/systems/sperc.md`` compares the numbers with
the paper's.

Topology: pFabric's [4] 144-server leaf–spine (9 leaves of 16 servers, 4 spines) at 100 Gb/s
server and 400 Gb/s fabric links, the same as the FCT entries (``paper.sperc.fct``): "3-level" read
as servers / leaves / spines.

The paper's medians (§8.2.1 text): s-PERC* 4 RTTs (95%/20%) and 14 RTTs (99%/10%); RCP 45 and
174 RTTs.

``smoke``: 3 leaves of 4 servers, 2 spines, 8 flows per server, four changes (~5 s), one run.
``full``: the paper's 144 servers, 20 flows per server, ten changes per run; ten runs (100
changes per scheme) by default, the paper's 100 runs (1,000 changes) with ``--runs 100``.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.sperc.convergence import METRICS, episode_summary, fmt, plot_cdfs, run_seeds
from fairnet.paper.tables import Column, ResultTable, key

#: s-PERC §8.2.1 (text): median RTTs to converge, (95% within 20%, 99% within 10%).
PAPER = {"s-PERC*": (4.0, 14.0), "RCP": (45.0, 174.0)}


def run(scale: str, outdir: Path, console: Console, runs: int) -> PaperResult:
    rows = []
    for r in run_seeds("fig7", scale, runs, console):
        cap = r["epoch_rtts"]
        paper = PAPER[r["scheme"]]
        row = {
            "scheme": r["scheme"],
            "servers": r["servers"],
            "flows": r["active_flows"],
            "rtt_us": r["rtt_us"],
            **episode_summary(r, cap),
            "paper_median_95_20": paper[0],
            "paper_median_99_10": paper[1],
        }
        rows.append(row)
    t = ResultTable(
        "s-PERC Fig. 7: RTTs to converge after replacing 40% of the flows (median)",
        (
            key("scheme"),
            Column("flows", "ours"),
            Column("runs", "ours"),
            Column("changes", "ours"),
            Column("95%/20%", "ours"),
            Column("95%/20%", "paper"),
            Column("99%/10%", "ours"),
            Column("99%/10%", "paper"),
        ),
        note=f"{rows[0]['servers']} servers; RTT unit: the largest base RTT (a data packet out, "
        f"an ACK back, no queues), {rows[0]['rtt_us']:.2f} us; a change that did "
        f"not converge within {rows[0]['epoch_rtts']} RTTs counts as {rows[0]['epoch_rtts']}.",
    )
    for r in rows:
        t.add_row(
            r["scheme"],
            str(r["flows"]),
            str(r["runs"]),
            str(r["changes"]),
            fmt(r["median_95_20"], r["not_converged_95_20"]),
            f"{r['paper_median_95_20']:g}",
            fmt(r["median_99_10"], r["not_converged_99_10"]),
            f"{r['paper_median_99_10']:g}",
        )
    t.print(console)

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.2))
    for ax, (metric, label) in zip(axes, METRICS, strict=True):
        plot_cdfs(ax, [(r["scheme"], r[metric], r["epoch_rtts"]) for r in rows], label)
    fig.suptitle("s-PERC Fig. 7: convergence after replacing 40% of flows")
    return PaperResult(rows, save_figure(fig, outdir, "sperc-fig7"), [t])


ENTRY = Entry(
    name="sperc-fig7",
    title="s-PERC* vs RCP: convergence after replacing 40% of flows in the datacenter",
    paper="s-PERC (Jose et al.), §8.2.1",
    figure="Fig. 7",
    scales={
        "smoke": "leaf-spine 3x4 servers, 2 spines, 8 flows/server, 4 changes",
        "full": "pFabric leaf-spine: 144 servers (9x16, 4 spines), 100/400 Gb/s, "
        "20 flows/server, 10 changes per run, 10 runs (paper: 100, --runs 100)",
    },
    run_fn=run,
    runs={"smoke": 1, "full": 10},
)
