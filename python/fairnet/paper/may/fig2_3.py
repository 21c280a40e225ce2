"""MAY §III-D–E, Figs. 2–3: the table's expected memory in bits per flow and the share of
lossless short flows, for Pareto flow sizes, by numerical integration.

Paper (§III-D): a flow of ``l`` packets is entered in the table (it "experienced at least one
loss") with probability ``1 − (1 − 1/S₀)^l ≈ 1 − e^(−l/S₀)``, so the expected memory is
``M(G) = 80·∫ g(y)(1 − e^(−y/S₀)) dy`` bits per flow (10-byte entries); Fig. 2 plots it for
Pareto sizes with shape ``k ∈ [1, 2]``, mean ``μ = 10`` packets, ``500 ≤ S₀ ≤ 2000``.
§III-E: the share of short flows (``|f| < S₀``) that see no drop is
``L(k, μ, S₀) = P[z(f) = 0 | f < S₀]``, ``> 0.98`` for ``S₀ > 500`` and ``> 0.99`` for
``S₀ > 1000`` (Fig. 3, ``500 ≤ S₀ ≤ 10000``). The paper's text gives "around 1 bit per active
flow" for Fig. 2.

Ours: the same integrals on a log-spaced grid (the Pareto density
``g(y) = k·x_m^k / y^(k+1)`` for ``y ≥ x_m = μ(k − 1)/k``), with the exact ``(1 − 1/S₀)^y``
beside the paper's exponential. A Pareto law of shape 1 has no finite mean, so the shapes are
1.1 to 2 (the paper's interval without its end point, where ``x_m = 0``).

Scales: ``smoke`` 4 shapes × 4 values of S₀; ``full`` 10 shapes × 16 values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key

#: §III-D: "each hash-table entry have 10bytes = 80bits".
ENTRY_BITS = 80
#: §III-D–E: Pareto sizes of mean 10 packets.
MEAN = 10.0
SHAPES = {"smoke": [1.1, 1.3, 1.6, 2.0], "full": [1.1 + 0.1 * i for i in range(10)]}
S0_FIG2 = {"smoke": [500, 1000, 1500, 2000], "full": list(range(500, 2001, 100))}
S0_FIG3 = {"smoke": [500, 1000, 5000, 10000], "full": [500 + 633 * i for i in range(16)]}


def pareto_scale(shape: float, mean: float = MEAN) -> float:
    """The scale ``x_m`` of a Pareto law of ``shape`` > 1 with mean ``mean``."""
    return mean * (shape - 1) / shape


def _grid(shape: float) -> tuple[np.ndarray, np.ndarray]:
    """Sizes (log-spaced from ``x_m`` to where the tail mass is below 1e-12) and the density."""
    xm = pareto_scale(shape)
    top = xm * 1e12 ** (1 / shape)
    y = np.geomspace(xm, top, 200_000)
    return y, shape * xm**shape / y ** (shape + 1)


def _integral(f: np.ndarray, y: np.ndarray) -> float:
    """The trapezoid rule."""
    return float(((f[1:] + f[:-1]) * np.diff(y)).sum() / 2)


def memory_bits(shape: float, s0: float, exact: bool = False) -> float:
    """Fig. 2: expected table memory per flow, ``80·E[z(f)]`` bits (``exact``: the entry
    probability ``1 − (1 − 1/S₀)^y`` instead of the paper's ``1 − e^(−y/S₀)``)."""
    y, g = _grid(shape)
    keep = (1 - 1 / s0) ** y if exact else np.exp(-y / s0)
    return ENTRY_BITS * _integral(g * (1 - keep), y)


def lossless_short(shape: float, s0: float, exact: bool = False) -> float:
    """Fig. 3: ``P[z(f) = 0 | f < S₀]``, the share of short flows never entered (no drop)."""
    y, g = _grid(shape)
    short = y < s0
    keep = (1 - 1 / s0) ** y[short] if exact else np.exp(-y[short] / s0)
    return _integral(g[short] * keep, y[short]) / _integral(g[short], y[short])


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    rows: list[dict[str, Any]] = []
    shapes = SHAPES[scale]
    for k in shapes:
        for s0 in S0_FIG2[scale]:
            rows.append(
                {
                    "figure": "2",
                    "shape": round(k, 2),
                    "s0": s0,
                    "bits_per_flow": memory_bits(k, s0),
                    "bits_per_flow_exact": memory_bits(k, s0, exact=True),
                    "paper": "around 1 bit per flow",
                }
            )
        for s0 in S0_FIG3[scale]:
            rows.append(
                {
                    "figure": "3",
                    "shape": round(k, 2),
                    "s0": s0,
                    "lossless_short": lossless_short(k, s0),
                    "lossless_short_exact": lossless_short(k, s0, exact=True),
                    "paper": "> 0.98 for S0 > 500, > 0.99 for S0 > 1000",
                }
            )
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11.0, 3.8))
    for k in shapes:
        f2 = [r for r in rows if r["figure"] == "2" and r["shape"] == round(k, 2)]
        f3 = [r for r in rows if r["figure"] == "3" and r["shape"] == round(k, 2)]
        axes[0].plot([r["s0"] for r in f2], [r["bits_per_flow"] for r in f2], label=f"k = {k:.1f}")
        axes[1].plot([r["s0"] for r in f3], [r["lossless_short"] for r in f3], label=f"k = {k:.1f}")
    axes[0].set(xlabel="S₀ (packets)", ylabel="bits per flow", title="Fig. 2: expected memory")
    axes[1].set(xlabel="S₀ (packets)", ylabel="share", title="Fig. 3: short flows without loss")
    for ax in axes:
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    t2 = ResultTable(
        f"MAY Fig. 2 ({scale}): expected table memory, bits per flow (Pareto, mean 10 packets)",
        (
            key("shape k"),
            key("S₀"),
            Column("bits/flow", "ours"),
            Column("bits/flow", "ours, exact"),
            Column("bits/flow", "paper"),
        ),
        note="ours: 80·∫g(y)(1 − e^(−y/S₀))dy as §III-D; exact: (1 − 1/S₀)^y instead of the "
        "exponential. Paper: a plot; the text says 'around 1 bit per active flow'.",
        name="fig2",
    )
    t3 = ResultTable(
        f"MAY Fig. 3 ({scale}): share of short flows (< S₀ packets) without loss",
        (
            key("shape k"),
            key("S₀"),
            Column("lossless", "ours"),
            Column("lossless", "ours, exact"),
            Column("lossless", "paper"),
        ),
        note="P[z(f) = 0 | f < S₀] (§III-E). Paper: > 0.98 for S₀ > 500, > 0.99 for S₀ > 1000.",
        name="fig3",
    )
    for r in rows:
        if r["figure"] == "2":
            t2.add_row(
                f"{r['shape']:g}",
                str(r["s0"]),
                f"{r['bits_per_flow']:.3f}",
                f"{r['bits_per_flow_exact']:.3f}",
                "≈ 1",
            )
        else:
            paper = "> 0.99" if r["s0"] > 1000 else "> 0.98" if r["s0"] > 500 else "-"
            t3.add_row(
                f"{r['shape']:g}",
                str(r["s0"]),
                f"{r['lossless_short']:.4f}",
                f"{r['lossless_short_exact']:.4f}",
                paper,
            )
    t2.print(console)
    t3.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "may-fig2-3"), [t2, t3])


ENTRY = Entry(
    name="may-fig2-3",
    title="MAY: table memory per flow and lossless short flows for Pareto sizes",
    paper="MAY (Stanojević & Shorten), §III-D–E",
    figure="Figs. 2–3",
    scales={
        "smoke": "4 Pareto shapes (1.1–2) × 4 values of S₀, numerical integration",
        "full": "10 shapes × 16 values of S₀ (Fig. 2: 500–2000, Fig. 3: 500–10,000)",
    },
    run_fn=run,
)
