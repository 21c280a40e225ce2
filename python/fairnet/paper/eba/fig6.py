"""eBA §VI-A, Fig. 6: speed against overshoot. VM-flow Y sends alone over its host's 1 Gb/s
link; VM-flow X joins; LRC with (α, β) = (1, 2), (2, 4), (4, 4) s⁻¹.

Paper: "there exists a tradeoff between the convergence speed and the smoothness of VM-flow's
rate. Though increasing α and β can significantly improve the convergence speed, it will also
cause a large overshoot when the rate approaches the equilibrium" (the figure's values are not
in the text); §III-D: near the equilibrium one bottleneck is a second-order system with
damping ``ζ = ½√(α/β)`` — "as ζ decreases, the system becomes more swift while the overshoot
of rate becomes larger" — and the paper keeps ζ around 0.5.

What the linearization predicts (Eq. (12) with Eq. (11)'s sign corrected, docs/systems/eba.md;
``s² + αs + αβ``: ``ω_n = √(αβ)``, ``ζω_n = α/2``): a step's peak overshoot
``exp(−πζ/√(1 − ζ²))`` — 30.5% at (1, 2) and (2, 4) (ζ = 0.354), 16.3% at (4, 4) (ζ = 0.5) —
and a settling time ``∝ 1/(ζω_n) = 2/α``: (1, 2) slowest, (2, 4) twice as fast, (4, 4) four
times. So of the three, (4, 4) is both the fastest and the smoothest; (1, 2) and (2, 4)
overshoot alike, (2, 4) twice as fast. The packet run is held to that ordering; a join from
1 Mb/s is not a small step, so the sizes are the packet run's, not the linear formula's.

What a packet run shows of the overshoot: the paper plots rate limits; a link carries at most
its capacity, so a limit above the VM-flow's share is not seen in its throughput (X's limit
overshooting 450 Mb/s while Y's is above it too only gives each half the NIC, 500 Mb/s). A
limit *below* the share is seen exactly: with X backlogged and its limit above, Y sends at its
limit. So we measure the overshoot of the loop as Y's dip: how far Y's throughput falls below
450 Mb/s after X joins (the mirror of X's overshoot on the same link, where the linear
system's two deviations are equal and opposite).

Ours: the packet engine, equal VM weights (VM-flow weights 2 and 2: the equilibrium 450 /
450 Mb/s on μC = 900 Mb/s), no guarantees, §VII-C's τ_v = 50 ms, τ_r = 100 ms (the paper does
not give Fig. 6's), μ = 0.9 — at ``smoke`` under uniform increase (α, β ×100, τ ÷100:
:mod:`fairnet.paper.eba.common`). Y backlogged from 0, X from ``JOIN``. Convergence: from X's
start until both VM-flows' throughputs (means over 5 samples) stay within 10% of 450 Mb/s;
overshoot: Y's dip, how far its throughput (the same means) falls below 450 Mb/s after X
joins, relative to 450 (above).

Scales: ``smoke`` X joins at 0.1 s, 0.3 s in all, at 100-fold speed; ``full`` the paper's
parameters, X joins at 10 s, 30 s in all.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.eba.common import lrc, one_link_doc, undershoot, vm_flow_series
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.series import plot_rates
from fairnet.paper.tables import Column, ResultTable, key

#: Fig. 6's (α, β), s⁻¹.
SETTINGS = ((1.0, 2.0), (2.0, 4.0), (4.0, 4.0))
#: (X joins, run ends), s, per scale.
TIMES = {"smoke": (0.1, 0.3), "full": (10.0, 30.0)}
SAMPLES = 600  # record samples per run
WINDOW = 5  # samples per mean
TOL = 0.10
TARGET = np.array([450e6, 450e6])  # X, Y: equal weights on μC = 900 Mb/s
VMS = [
    {"name": "x", "host": 0, "tenant": 0},
    {"name": "y", "host": 0, "tenant": 1},
    {"name": "x2", "host": 1, "tenant": 0},
    {"name": "y2", "host": 2, "tenant": 1},
]


def damping(alpha: float, beta: float) -> float:
    """§III-D's ``ζ = ½√(α/β)``."""
    return 0.5 * math.sqrt(alpha / beta)


def linear_overshoot(zeta: float) -> float:
    """The peak overshoot of a second-order step response, ``exp(−πζ/√(1 − ζ²))``."""
    return math.exp(-math.pi * zeta / math.sqrt(1.0 - zeta * zeta))


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    join, stop = TIMES[scale]
    flows = [
        {"src": 0, "dst": 1, "size": "100GB", "tag": 0, "start": f"{join * 1e6:g}us"},
        {"src": 0, "dst": 2, "size": "100GB", "tag": 1},
    ]
    t = ResultTable(
        f"eBA Fig. 6 ({scale}): X joins Y on 1 Gb/s, equal weights, under three (α, β)",
        (
            key("α, β (s⁻¹)"),
            Column("ζ", "theory"),
            Column("overshoot", "theory"),
            Column("settling ∝ 2/α (s)", "theory"),
            Column("overshoot (Y's dip)", "ours"),
            Column("converged (s)", "ours"),
            Column("X, Y settled (Mb/s)", "ours", text=True),
            Column("paper", "paper", text=True),
        ),
        note="LRC. theory: the linearization's damping ζ = ½√(α/β), a step's peak overshoot "
        "exp(−πζ/√(1−ζ²)) and time constant 1/(ζω_n) = 2/α. ours: Y's throughput below "
        "450 Mb/s after X joins (means over 5 samples), relative (X's overshoot is clipped "
        "by the link); converged: both within 10% of 450 Mb/s from then on; settled: means "
        "over the last quarter.",
    )
    rows: list[dict[str, Any]] = []
    fig, axes = pyplot().subplots(1, len(SETTINGS), figsize=(11, 3.2), sharey=True)
    for ax, (alpha, beta) in zip(axes, SETTINGS, strict=True):
        table = lrc(alpha=alpha, beta=beta, tau_v_s=0.05, tau_r_s=0.1, scale=scale)
        name = f"eba-fig6 alpha {alpha:g} beta {beta:g} ({scale})"
        s = vm_flow_series(one_link_doc(name, VMS, flows, table, stop, stop / SAMPLES), [0, 1])
        zeta = damping(alpha, beta)
        over = undershoot(s, 1, join, TARGET[1], WINDOW)
        conv = s.convergence(join, stop, TARGET, tol=TOL, window=WINDOW)
        x, y = s.mean(join + 0.75 * (stop - join), stop)
        rows.append(
            {
                "scheme": "lrc",
                "alpha": alpha,
                "beta": beta,
                "zeta": zeta,
                "linear_overshoot": linear_overshoot(zeta),
                "linear_time_constant_s": 2.0 / alpha,
                "overshoot": over,
                "convergence_s": conv,
                "x_mbps": float(x) / 1e6,
                "y_mbps": float(y) / 1e6,
                "paper": "larger α, β: faster, more overshoot",
            }
        )
        t.add_row(
            f"{alpha:g}, {beta:g}",
            f"{zeta:.3f}",
            f"{linear_overshoot(zeta):.3f}",
            f"{2.0 / alpha:.2f}",
            f"{over:.3f}",
            f"{conv:.3f}",
            f"{x / 1e6:.0f}, {y / 1e6:.0f}",
            "faster, more overshoot" if alpha > 1 else "slowest",
        )
        plot_rates(ax, s.times, s.rates, ["X (joins)", "Y"], [(join, stop, TARGET)], WINDOW)
        ax.set_title(f"α = {alpha:g}, β = {beta:g} (ζ = {zeta:.2f})", fontsize=9)
    axes[0].legend(fontsize=7)
    t.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "eba-fig6"), [t])


ENTRY = Entry(
    name="eba-fig6",
    title="eBA: speed against overshoot, X joins Y under (α, β) = (1, 2), (2, 4), (4, 4)",
    paper="eBA (Liu et al., ToN 2017), §VI-A",
    figure="Fig. 6",
    scales={
        "smoke": "three (α, β); X joins at 0.1 s of 0.3 s, at 100-fold speed",
        "full": "three (α, β); the paper's parameters, X joins at 10 s of 30 s",
    },
    run_fn=run,
)
