"""s-PERC §8.2.1, Fig. 8: convergence times of s-PERC* and RCP on the B4 WAN after replacing
40% (and 70%, Fig. 8a) of the long flows at once, on the packet engine.

Setup (§8.2.1; Table 6, WAN): B4 with 1 and 10 Gb/s links, N = 100 flows per server, ten
changes per run; s-PERC*: 128 KB buffers, 64 B control packets at 4%, 2% headroom, initial
round 100 ms; RCP: 256 KB buffers, α = 0.9, β = 0.1, update interval 20 ms. Times are in
units of the average base RTT of the run's flows (Fig. 8's caption). The experiment runs in
Rust (``fairnet::systems::sperc::convergence``; the WAN setup and our choices — one server
per site on a 10× access link, RCP's interval — in ``…::wan``).

The paper's numbers (Fig. 8 captions), 40% replaced, (median, 99th percentile) in RTTs:
1 Gb/s: s-PERC* 7, 9 (95%/20%) and 12, 18 (99%/10%); RCP 9, 14 and 21, 115.
10 Gb/s: s-PERC* 7, 9 and 13, 19; RCP 9, 13 and 20, 114.
70% replaced (text): s-PERC* 1.8–2.5× faster than RCP at the median, 2.4–7.2× at the tail.

``smoke``: cables at 20 and 40 Mb/s standing in for 1 and 10 Gb/s (the paper: the rate does
not change the convergence time in RTTs), 10 flows per server, two changes of 100 RTTs; 40%
at both rates and 70% at the first. ``full``: 1 and 10 Gb/s, 100 flows per server, ten
changes of 200 RTTs (40% at both rates, 70% at 1 Gb/s).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.sperc.convergence import (
    METRICS,
    episode_summary,
    fmt,
    plot_cdfs,
    run_seeds,
    tail,
)
from fairnet.paper.tables import Column, ResultTable, key

#: Fig. 8 captions: (rate label, scheme) -> (median, p99) for 95%/20% then 99%/10%, in RTTs.
PAPER: dict[tuple[str, str], tuple[float, float, float, float]] = {
    ("1Gb/s", "s-PERC*"): (7, 9, 12, 18),
    ("1Gb/s", "RCP"): (9, 14, 21, 115),
    ("10Gb/s", "s-PERC*"): (7, 9, 13, 19),
    ("10Gb/s", "RCP"): (9, 13, 20, 114),
}

#: Per scale: (cable rate in bit/s, the paper's rate it stands for, fraction replaced).
CASES = {
    "smoke": ((20e6, "1Gb/s", 0.4), (40e6, "10Gb/s", 0.4), (20e6, "1Gb/s", 0.7)),
    "full": ((1e9, "1Gb/s", 0.4), (10e9, "10Gb/s", 0.4), (1e9, "1Gb/s", 0.7)),
}


def rows_of(
    scale: str, runs: int = 1, console: Console | None = None, **overrides: Any
) -> list[dict[str, Any]]:
    """One row per (case, scheme) over ``runs`` seeds: medians and 99th percentiles beside the
    paper's."""
    rows = []
    for rate, paper_rate, replace in CASES[scale]:
        for r in run_seeds(
            "fig8", scale, runs, console, rate_bps=int(rate), replace=replace, **overrides
        ):
            cap = r["epoch_rtts"]
            paper = PAPER.get((paper_rate, r["scheme"])) if replace == 0.4 else None
            rows.append(
                {
                    "scheme": r["scheme"],
                    "rate_bps": rate,
                    "paper_rate": paper_rate,
                    "replace": replace,
                    "flows": r["active_flows"],
                    "rtt_ms": r["rtt_us"] / 1e3,
                    "rtt_range_ms": (r["rtt_min_us"] / 1e3, r["rtt_max_us"] / 1e3),
                    **episode_summary(r, cap),
                    "p99_95_20": tail(r["t95_20"], cap),
                    "p99_99_10": tail(r["t99_10"], cap),
                    "paper": paper,
                }
            )
    return rows


def run(scale: str, outdir: Path, console: Console, runs: int) -> PaperResult:
    rows = rows_of(scale, runs, console)
    r0 = rows[0]
    t = ResultTable(
        "s-PERC Fig. 8 (B4 WAN): RTTs to converge after a change, median / p99",
        (
            key("rate (paper's)"),
            key("replaced"),
            key("scheme"),
            Column("95%/20%", "ours"),
            Column("95%/20%", "paper"),
            Column("99%/10%", "ours"),
            Column("99%/10%", "paper"),
        ),
        note=f"{r0['flows']} flows; RTT unit (mean base RTT of the run's flows) "
        f"{r0['rtt_ms']:.1f} ms (flows {r0['rtt_range_ms'][0]:.1f}-{r0['rtt_range_ms'][1]:.1f} "
        f"ms); a change that did not converge within {r0['epoch_rtts']} RTTs counts as "
        f"{r0['epoch_rtts']}. Paper, 70% replaced: s-PERC* 1.8-2.5x faster than RCP at the "
        "median, 2.4-7.2x at the tail.",
    )
    for r in rows:
        p = r["paper"]
        t.add_row(
            f"{r['rate_bps'] / 1e6:g} Mb/s ({r['paper_rate']})",
            f"{r['replace']:.0%}",
            r["scheme"],
            fmt(r["median_95_20"], r["not_converged_95_20"]) + f" / {r['p99_95_20']:.0f}",
            f"{p[0]:g} / {p[1]:g}" if p else "-",
            fmt(r["median_99_10"], r["not_converged_99_10"]) + f" / {r['p99_99_10']:.0f}",
            f"{p[2]:g} / {p[3]:g}" if p else "-",
        )
    t.print(console)

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.4))
    for ax, (metric, label) in zip(axes, METRICS, strict=True):
        plot_cdfs(
            ax,
            [
                (
                    f"{r['scheme']} {r['rate_bps'] / 1e6:g}Mb/s {r['replace']:.0%}",
                    r[metric],
                    r["epoch_rtts"],
                )
                for r in rows
            ],
            label,
        )
    fig.suptitle("s-PERC Fig. 8: convergence on the B4 WAN after replacing flows")
    return PaperResult(rows, save_figure(fig, outdir, "sperc-fig8"), [t])


ENTRY = Entry(
    name="sperc-fig8",
    title="s-PERC* vs RCP: convergence after replacing 40%/70% of flows on the B4 WAN",
    paper="s-PERC (Jose et al.), §8.2.1",
    figure="Fig. 8",
    scales={
        "smoke": "B4, 1 server/site, cables 20 and 40 Mb/s, 10 flows/server, 2 changes",
        "full": "B4, 1 server/site, cables 1 and 10 Gb/s, 100 flows/server, 10 changes",
    },
    run_fn=run,
    # The paper's 100 runs: a full run at 1 Gb/s takes minutes to tens of minutes here.
    runs={"smoke": 1, "full": 1},
)
