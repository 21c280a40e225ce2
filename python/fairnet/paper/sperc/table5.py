"""s-PERC §8.2.1, Table 5: average convergence time of s-PERC* and RCP on the B4 WAN when all
flows start at once, on the packet engine.

Same setup as Fig. 8 (``paper.sperc.fig8``; Table 6's WAN settings, one server per B4 site) but no
flow changes: the start of each run is measured, and the times (in units of the mean base RTT
of the run's flows) are averaged over runs with different seeds (the paper: 100 runs, 200 for
RCP at 10 Gb/s). A run that never converged within the epoch counts as the epoch length.

The paper's averages (RTTs), 95% of flows within 20% / 99% within 10%:
1 Gb/s: RCP 53 / 91, s-PERC 10 / 15; 10 Gb/s: RCP 50 / 91, s-PERC 10 / 16.

``smoke``: cables at 20 and 40 Mb/s (standing in for 1 and 10 Gb/s), 10 flows per server, two
runs of 150 RTTs each. ``full``: 1 and 10 Gb/s, 100 flows per server, 100 runs of 300 RTTs
(hours of CPU at 10 Gb/s; see ``docs/systems/sperc.md`` for the samples we ran).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.sperc.convergence import censored, fmt, missed, run_seeds
from fairnet.paper.tables import Column, ResultTable, key

#: Table 5: (rate label, scheme) -> average RTTs (95%/20%, 99%/10%).
PAPER = {
    ("1Gb/s", "RCP"): (53.0, 91.0),
    ("1Gb/s", "s-PERC*"): (10.0, 15.0),
    ("10Gb/s", "RCP"): (50.0, 91.0),
    ("10Gb/s", "s-PERC*"): (10.0, 16.0),
}

#: Per scale: the cable rates, with the paper's rate each stands for.
CASES = {
    "smoke": ((20e6, "1Gb/s"), (40e6, "10Gb/s")),
    "full": ((1e9, "1Gb/s"), (10e9, "10Gb/s")),
}
#: Runs per scale (the paper: 100).
RUNS = {"smoke": 2, "full": 100}


def rows_of(
    scale: str, runs: int | None = None, console: Console | None = None, **overrides: Any
) -> list[dict[str, Any]]:
    """One row per (rate, scheme): mean convergence times over ``runs`` seeds."""
    rows = []
    for rate, paper_rate in CASES[scale]:
        for r in run_seeds(
            "table5", scale, runs or RUNS[scale], console, rate_bps=int(rate), **overrides
        ):
            scheme, cap = r["scheme"], r["epoch_rtts"]
            t95 = [s["t95_20"] for s in r["starts"]]
            t99 = [s["t99_10"] for s in r["starts"]]
            rows.append(
                {
                    "scheme": scheme,
                    "rate_bps": rate,
                    "paper_rate": paper_rate,
                    "runs": r["runs"],
                    "flows": r["active_flows"],
                    "rtt_ms": r["rtt_us"] / 1e3,
                    "t95_20": t95,
                    "t99_10": t99,
                    "mean_95_20": float(np.mean(censored(t95, cap))),
                    "mean_99_10": float(np.mean(censored(t99, cap))),
                    "not_converged_95_20": missed(t95),
                    "not_converged_99_10": missed(t99),
                    "epoch_rtts": cap,
                    "drops": r["drops"],
                    "timeouts": r["timeouts"],
                    "paper_mean_95_20": PAPER[(paper_rate, scheme)][0],
                    "paper_mean_99_10": PAPER[(paper_rate, scheme)][1],
                }
            )
    return rows


def run(scale: str, outdir: Path, console: Console, runs: int) -> PaperResult:
    rows = rows_of(scale, runs, console)
    t = ResultTable(
        "s-PERC Table 5 (B4 WAN): mean RTTs to converge when all flows start at once",
        (
            key("rate (paper's)"),
            key("scheme"),
            Column("runs", "ours"),
            Column("95%/20%", "ours"),
            Column("95%/20%", "paper"),
            Column("99%/10%", "ours"),
            Column("99%/10%", "paper"),
        ),
        note=f"{rows[0]['flows']} flows; RTT unit (mean base RTT of the run's flows) "
        f"{rows[0]['rtt_ms']:.1f} ms; a run that did "
        f"not converge within {rows[0]['epoch_rtts']} RTTs counts as {rows[0]['epoch_rtts']}.",
    )
    for r in rows:
        t.add_row(
            f"{r['rate_bps'] / 1e6:g} Mb/s ({r['paper_rate']})",
            r["scheme"],
            str(r["runs"]),
            fmt(r["mean_95_20"], r["not_converged_95_20"], ".1f"),
            f"{r['paper_mean_95_20']:g}",
            fmt(r["mean_99_10"], r["not_converged_99_10"], ".1f"),
            f"{r['paper_mean_99_10']:g}",
        )
    t.print(console)
    return PaperResult(rows, [], [t])


ENTRY = Entry(
    name="sperc-table5",
    title="s-PERC* vs RCP: convergence when all flows start at once on the B4 WAN",
    paper="s-PERC (Jose et al.), §8.2.1",
    figure="Table 5",
    scales={
        "smoke": "B4, 1 server/site, cables 20 and 40 Mb/s, 10 flows/server, 2 runs",
        "full": "B4, 1 server/site, cables 1 and 10 Gb/s, 100 flows/server, 100 runs",
    },
    run_fn=run,
    runs=RUNS,
)
