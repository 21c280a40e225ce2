"""Human-readable summaries printed by the CLI, and the one way plots are saved."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from fairnet.alloc import Allocation, CheckReport
from fairnet.problem_file import ProblemSpec

console = Console()


def pyplot() -> ModuleType:
    """``matplotlib.pyplot`` on the non-interactive Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(
    fig: Any, paths: Sequence[Path], dpi: int = 120, salt: str = "fairnet"
) -> None:
    """Saves ``fig`` to each path (format by suffix) and closes it. The same figure gives the
    same bytes: SVG element ids come from a fixed hash ``salt`` instead of a random one, and no
    SVG carries a date (PNGs carry neither)."""
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": salt}):
        for p in paths:
            metadata = {"Date": None} if Path(p).suffix == ".svg" else None
            fig.savefig(p, dpi=dpi, metadata=metadata)
    pyplot().close(fig)


def _gbps(x: float) -> str:
    return f"{x / 1e9:.3f} Gb/s"


def allocation_summary(
    spec: ProblemSpec, result: Allocation, report: CheckReport, seconds: float, iterations: bool
) -> dict:
    """Headline numbers of an allocation, as a JSON-ready dict."""
    rates = result.rates
    bottleneck = result.bottleneck
    saturated = int(np.isfinite(result.link_level).sum())
    summary = {
        "flows": len(rates),
        "links": len(spec.capacities),
        "solve_seconds": seconds,
        "total_rate_bps": float(rates.sum()),
        "rate_min_bps": float(rates.min()) if len(rates) else 0.0,
        "rate_median_bps": float(np.median(rates)) if len(rates) else 0.0,
        "rate_max_bps": float(rates.max()) if len(rates) else 0.0,
        "demand_limited_flows": int((bottleneck < 0).sum()),
        "saturated_links": saturated,
        "check_ok": report.ok,
        "check_message": report.message,
    }
    if iterations:
        summary["iterations"] = result.iterations
    return summary


def print_allocation_summary(
    spec: ProblemSpec, result: Allocation, report: CheckReport, seconds: float, iterations: bool
) -> dict:
    """Prints and returns :func:`allocation_summary`."""
    s = allocation_summary(spec, result, report, seconds, iterations)
    t = Table(title="weighted max-min allocation", show_header=False)
    t.add_row("flows / links", f"{s['flows']:,} / {s['links']:,}")
    t.add_row("solve time (incl. input conversion)", f"{seconds * 1e3:.1f} ms")
    t.add_row("total allocated", _gbps(s["total_rate_bps"]))
    t.add_row(
        "rate min / median / max",
        f"{_gbps(s['rate_min_bps'])} / {_gbps(s['rate_median_bps'])} / {_gbps(s['rate_max_bps'])}",
    )
    t.add_row("saturated links", f"{s['saturated_links']:,}")
    t.add_row("demand-limited flows", f"{s['demand_limited_flows']:,}")
    if iterations:
        it = s["iterations"]
        t.add_row(
            "water-filling iterations N1 / N2 / Ninf", f"{it['k1']} / {it['k2']} / {it['kinf']}"
        )
    t.add_row(
        "independent check", "[green]ok[/green]" if report.ok else f"[red]{report.message}[/red]"
    )
    console.print(t)
    return s
