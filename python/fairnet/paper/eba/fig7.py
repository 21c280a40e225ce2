"""eBA §VI-C, Fig. 7: LRC with lost control packets. VM X sends alone over its host's 1 Gb/s
link; VM Y, on the same host, joins; VM weights ``w_X : w_Y = 1 : 2``; 50% and 2% of the
control packets lost.

Paper: "When the losses of control packets occur, the update of rate limit will be held until
the arrival of next control packet … losing one ICMP packet means that the time period between
two iterations is doubled, which will not have any impact on the convergence of the system,
but prolong the convergence time … Fig. 7(a) shows the convergence of eBA's rate control with a
severe loss rate of control packets (50%). The throughput of VMs can still converge … with
[2%] … the rate control of eBA is stable enough to offer bandwidth guarantee for VMs." (The
figure's values are not in the text.)

Ours: the packet engine with its lossy control channel (``engine.control.loss``: every port
drops each control packet with that probability). The paper's loss is per control packet (a
ping's round trip, its reference [6]); a control packet here crosses four links (host 0's NIC
and the switch's port out, the same two back), so each port loses ``1 − (1 − L)^(1/4)``
(:func:`fairnet.paper.eba.common.per_link_loss`) and a round trip is lost with probability
``L``. A lost packet costs its VM-flow one step of Eq. (15) (the shim applies ``ατ_v`` once per
returned packet), so the expected number of steps in a time ``t`` is ``(1 − L)·t/τ_v``: the
equilibrium is the same (X 300, Y 600 Mb/s: VM-flow weights 2 and 4 by Eq. (1) sharing
μC = 900 Mb/s) and the convergence about ``1/(1 − L)`` times slower — twice at 50%.

X backlogged from 0, Y from ``JOIN``; the testbed's α = 5, β = 10 s⁻¹ (``ατ_r = 0.5``,
``β = 2α``), τ_v = 50 ms, τ_r = 100 ms, μ = 0.9 — at ``smoke`` under uniform increase
(:mod:`fairnet.paper.eba.common`). Convergence: from Y's start until both VM-flows' throughputs
(means over 5 samples) stay within 10% of 300 and 600 Mb/s; settled: the mean over the last
quarter of the run.

Scales: ``smoke`` Y joins at 0.1 s, 0.4 s in all, at 100-fold speed; ``full`` the paper's
parameters, Y joins at 10 s, 40 s in all. Losses 0 (the reference), 2% and 50%.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.eba.common import lrc, one_link_doc, per_link_loss, vm_flow_series
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.series import plot_rates
from fairnet.paper.tables import Column, ResultTable, key

#: Round-trip control-packet losses: the reference, then Fig. 7(b) and 7(a).
LOSSES = (0.0, 0.02, 0.5)
#: (Y joins, run ends), s, per scale.
TIMES = {"smoke": (0.1, 0.4), "full": (10.0, 40.0)}
SAMPLES = 400  # record samples per run
WINDOW = 5  # samples per mean for convergence
TOL = 0.10
TARGET = np.array([300e6, 600e6])  # X, Y: weights 2 : 4 on μC = 900 Mb/s
VMS = [
    {"name": "x", "host": 0, "tenant": 0, "weight": 1.0},
    {"name": "y", "host": 0, "tenant": 1, "weight": 2.0},
    {"name": "x2", "host": 1, "tenant": 0, "weight": 1.0},
    {"name": "y2", "host": 2, "tenant": 1, "weight": 2.0},
]


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    join, stop = TIMES[scale]
    table = lrc(alpha=5.0, beta=10.0, tau_v_s=0.05, tau_r_s=0.1, scale=scale)
    flows = [
        {"src": 0, "dst": 1, "size": "100GB", "tag": 0},
        {"src": 0, "dst": 2, "size": "100GB", "tag": 1, "start": f"{join * 1e6:g}us"},
    ]
    t = ResultTable(
        f"eBA Fig. 7 ({scale}): Y (weight 2) joins X (weight 1) on 1 Gb/s with lost control "
        "packets",
        (
            key("loss"),
            Column("per port", "ours"),
            Column("X (Mb/s)", "ours"),
            Column("Y (Mb/s)", "ours"),
            Column("Y / X", "ours"),
            Column("converged (s)", "ours"),
            Column("paper", "paper", text=True),
        ),
        note="LRC. loss: a control packet's round trip (4 links); per port: the engine's "
        "control.loss giving it. "
        "X, Y: mean over the last quarter (expected 300, 600: weights 2 : 4 on μC); converged: "
        "after Y joins, both within 10% of those (means over 5 samples).",
    )
    rows: list[dict[str, Any]] = []
    fig, axes = pyplot().subplots(1, len(LOSSES), figsize=(11, 3.2), sharey=True)
    for ax, loss in zip(axes, LOSSES, strict=True):
        p = per_link_loss(loss)
        doc = one_link_doc(
            f"eba-fig7 loss {loss:g} ({scale})",
            VMS,
            flows,
            table,
            stop,
            stop / SAMPLES,
            control_loss=p,
        )
        s = vm_flow_series(doc, [0, 1])
        x, y = s.mean(0.75 * stop, stop)
        conv = s.convergence(join, stop, TARGET, tol=TOL, window=WINDOW)
        claim = "the reference" if loss == 0 else "still converges, more slowly"
        rows.append(
            {
                "scheme": "lrc",
                "round_trip_loss": loss,
                "port_loss": p,
                "x_mbps": float(x) / 1e6,
                "y_mbps": float(y) / 1e6,
                "ratio": float(y / x),
                "convergence_s": conv,
                "paper": claim,
            }
        )
        t.add_row(
            f"{loss:g}",
            f"{p:.4f}",
            f"{x / 1e6:.1f}",
            f"{y / 1e6:.1f}",
            f"{y / x:.3f}",
            f"{conv:.3f}",
            claim,
        )
        plot_rates(ax, s.times, s.rates, ["X (w 1)", "Y (w 2)"], [(join, stop, TARGET)], WINDOW)
        ax.set_title(f"control-packet loss {loss:.0%}", fontsize=9)
    axes[0].legend(fontsize=7)
    t.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "eba-fig7"), [t])


ENTRY = Entry(
    name="eba-fig7",
    title="eBA: LRC with 2% and 50% of the control packets lost (weights 1:2, Y joins X)",
    paper="eBA (Liu et al., ToN 2017), §VI-C",
    figure="Fig. 7",
    scales={
        "smoke": "losses 0, 2%, 50%; Y joins at 0.1 s of 0.4 s, at 100-fold speed",
        "full": "losses 0, 2%, 50%; the paper's parameters, Y joins at 10 s of 40 s",
    },
    run_fn=run,
)
