"""s-PERC §8.2.1, Fig. 7: convergence times of s-PERC* and RCP on a datacenter fat-tree when
40% of the long flows are replaced at once, on the packet engine.

Each change replaces 40% of the active flows; we report, per change, the RTTs until 95% of
the flows stay within 20% of their max-min rates, and until 99% stay within 10% (for 5
consecutive RTTs). The experiment runs in Rust (``fairnet::systems::sperc::fig7``; its module
doc lists our choices: topology, RTT, how a flow's rate is measured); ``docs/systems/sperc.md``
compares the numbers with the paper's.

The paper's medians (§8.2.1 text): s-PERC* 4 RTTs (95%/20%) and 14 RTTs (99%/10%); RCP 45 and
174 RTTs.

``smoke``: a k = 4 fat-tree of 16 servers, 4 flows per server, two changes (~30 s on one core).
``full``: the paper's 144 servers (k = 4, 18 servers per ToR), 20 flows per server, ten changes.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from fairnet import _core
from fairnet.paper.entry import Entry, PaperResult, pyplot, save_figure

SCHEMES = ("sperc", "rcp")
#: s-PERC §8.2.1 (text): median RTTs to converge, (95% within 20%, 99% within 10%).
PAPER = {"s-PERC*": (4.0, 14.0), "RCP": (45.0, 174.0)}
METRICS = (("t95_20", "95% within 20%"), ("t99_10", "99% within 10%"))


def _median(times: list[int | None], cap: int) -> float:
    """Median in RTTs, a change that never converged counting as the epoch length ``cap``."""
    return float(np.median([cap if t is None else t for t in times])) if times else float("nan")


def run_schemes(scale: str, seed: int = 1, **overrides: Any) -> list[dict[str, Any]]:
    """Runs both schemes (two threads; the Rust runs release the GIL)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(_core.sperc_fig7, s, scale, seed, **overrides) for s in SCHEMES]
        return [f.result() for f in futures]


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    runs = run_schemes(scale)
    rows = []
    for r in runs:
        cap = r["epoch_rtts"]
        paper = PAPER[r["scheme"]]
        row = {
            "scheme": r["scheme"],
            "servers": r["servers"],
            "flows": r["active_flows"],
            "rtt_us": r["rtt_us"],
            "changes": len(r["t95_20"]),
            "t95_20": r["t95_20"],
            "t99_10": r["t99_10"],
            "median_95_20": _median(r["t95_20"], cap),
            "median_99_10": _median(r["t99_10"], cap),
            "not_converged_95_20": sum(t is None for t in r["t95_20"]),
            "not_converged_99_10": sum(t is None for t in r["t99_10"]),
            "epoch_rtts": cap,
            "drops": r["drops"],
            "ctrl_drops": r["ctrl_drops"],
            "timeouts": r["timeouts"],
            "paper_median_95_20": paper[0],
            "paper_median_99_10": paper[1],
        }
        rows.append(row)
    t = Table(title="s-PERC Fig. 7: RTTs to converge after replacing 40% of the flows (median)")
    for col in ("scheme", "flows", "changes", "95%/20%", "paper", "99%/10%", "paper"):
        t.add_column(col, justify="right")
    for r in rows:

        def fmt(m: float, missed: int) -> str:
            return f"{m:g}" + (f" ({missed} never)" if missed else "")

        t.add_row(
            r["scheme"],
            str(r["flows"]),
            str(r["changes"]),
            fmt(r["median_95_20"], r["not_converged_95_20"]),
            f"{r['paper_median_95_20']:g}",
            fmt(r["median_99_10"], r["not_converged_99_10"]),
            f"{r['paper_median_99_10']:g}",
        )
    console.print(t)
    console.print(
        f"{rows[0]['servers']} servers, RTT {rows[0]['rtt_us']:.2f} us; a change that did not "
        f"converge within {rows[0]['epoch_rtts']} RTTs counts as {rows[0]['epoch_rtts']}."
    )

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.2))
    for ax, (key, label) in zip(axes, METRICS, strict=True):
        for r in rows:
            cap = r["epoch_rtts"]
            x = np.sort([cap if v is None else v for v in r[key]])
            y = np.arange(1, len(x) + 1) / max(len(x), 1)
            ax.step(x, y, where="post", label=r["scheme"])
        ax.set_xscale("log")
        ax.set_xlabel(f"RTTs until {label}")
        ax.set_ylabel("CDF of changes")
        ax.legend()
    fig.suptitle("s-PERC Fig. 7: convergence after replacing 40% of flows")
    return PaperResult(rows, save_figure(fig, outdir, "sperc-fig7"))


ENTRY = Entry(
    name="sperc-fig7",
    title="s-PERC* vs RCP: convergence after replacing 40% of flows on a fat-tree",
    paper="s-PERC (Jose et al.), §8.2.1",
    figure="Fig. 7",
    scales={
        "smoke": "k=4 fat-tree, 16 servers, 4 flows/server, 2 changes",
        "full": "144 servers (k=4, 18/ToR), 100/400 Gb/s, 20 flows/server, 10 changes",
    },
    run_fn=run,
)
