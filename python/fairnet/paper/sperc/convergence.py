"""Shared helpers of the s-PERC §8.2.1 convergence entries (``sperc-fig7``, ``sperc-fig8``,
``sperc-table5``): running both schemes on the Rust experiment
(``fairnet::systems::sperc::convergence``, whose module doc holds the metric and our choices),
summarizing convergence times, and drawing their CDFs.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from fairnet import _core
from fairnet.paper.plots import plot_cdf

SCHEMES = ("sperc", "rcp")
#: The two criteria of §8.2.1 ("95% of flows are within 20% of ideal, or … 99% of flows are
#: within 10% of ideal"), as keys of the Rust results and labels.
METRICS = (("t95_20", "95% within 20%"), ("t99_10", "99% within 10%"))


def run_schemes(figure: str, scale: str, seed: int = 1, **overrides: Any) -> list[dict[str, Any]]:
    """Runs ``figure`` (``fig7``, ``fig8`` or ``table5``) for s-PERC* and RCP on two threads
    (the Rust runs release the GIL)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [
            pool.submit(_core.sperc_convergence, figure, s, scale, seed, **overrides)
            for s in SCHEMES
        ]
        return [f.result() for f in futures]


def run_seeds(
    figure: str, scale: str, runs: int, console: Console | None = None, **overrides: Any
) -> list[dict[str, Any]]:
    """Runs ``figure`` for both schemes over seeds 1 … ``runs`` (the paper's "100 runs", each
    of several changes) and merges each scheme's runs: the per-change convergence times and
    final fractions concatenated (run by run), the start episodes as ``starts``, the loss and
    event counters summed, the RTT unit averaged. With ``console`` and more than one run, a
    progress bar."""
    per_scheme: dict[str, list[dict[str, Any]]] = {}
    with Progress(
        TextColumn(f"{figure} runs"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=console is None or runs == 1,
    ) as bar:
        task = bar.add_task("runs", total=runs)
        for seed in range(1, runs + 1):
            for r in run_schemes(figure, scale, seed, **overrides):
                per_scheme.setdefault(r["scheme"], []).append(r)
            bar.advance(task)
    merged = []
    for rs in per_scheme.values():
        m = dict(rs[0])
        for key in ("t95_20", "t99_10", "final_within_10"):
            m[key] = [x for r in rs for x in r[key]]
        for key in ("drops", "ctrl_drops", "timeouts", "events"):
            m[key] = sum(r[key] for r in rs)
        m["starts"] = [r["start"] for r in rs]
        m["rtt_us"] = float(np.mean([r["rtt_us"] for r in rs]))
        m["runs"] = len(rs)
        merged.append(m)
    return merged


def censored(times: list[int | None], cap: int) -> list[int]:
    """Convergence times with an episode that never converged counted as the epoch ``cap``."""
    return [cap if t is None else t for t in times]


def median(times: list[int | None], cap: int) -> float:
    """Median in RTTs (never converged = ``cap``); NaN without episodes."""
    return float(np.median(censored(times, cap))) if times else float("nan")


def tail(times: list[int | None], cap: int) -> float:
    """99th percentile in RTTs (never converged = ``cap``); NaN without episodes."""
    return float(np.percentile(censored(times, cap), 99)) if times else float("nan")


def missed(times: list[int | None]) -> int:
    """Episodes that never converged."""
    return sum(t is None for t in times)


def episode_summary(r: dict[str, Any], cap: int) -> dict[str, Any]:
    """The fields every entry reports of one scheme's run ``r``: convergence times per
    criterion, their medians (never converged = ``cap``), the misses and the run's losses."""
    return {
        "runs": r.get("runs", 1),
        "changes": len(r["t95_20"]),
        "t95_20": r["t95_20"],
        "t99_10": r["t99_10"],
        "median_95_20": median(r["t95_20"], cap),
        "median_99_10": median(r["t99_10"], cap),
        "not_converged_95_20": missed(r["t95_20"]),
        "not_converged_99_10": missed(r["t99_10"]),
        "epoch_rtts": cap,
        "drops": r["drops"],
        "ctrl_drops": r["ctrl_drops"],
        "timeouts": r["timeouts"],
    }


def fmt(value: float, missed: int = 0, spec: str = "g") -> str:
    """A number of RTTs (format ``spec``), with how many episodes never converged."""
    return f"{value:{spec}}" + (f" ({missed} never)" if missed else "")


def plot_cdfs(ax: Any, runs: list[tuple[str, list[int | None], int]], label: str) -> None:
    """Draws on ``ax`` the CDF of each ``(legend, times, cap)`` in ``runs``."""
    for legend, times, cap in runs:
        plot_cdf(ax, censored(times, cap), legend, step=True)
    ax.set_xscale("log")
    ax.set_xlabel(f"RTTs until {label}")
    ax.set_ylabel("CDF of changes")
    ax.legend(fontsize="small")
