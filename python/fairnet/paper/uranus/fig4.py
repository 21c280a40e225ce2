"""Uranus §4.2, Fig. 4: AC/DC's per-flow differentiation on one link, β = [1, 1, 2, 3]/4.

Paper: "after convergence the flows with the same priority get similar throughput, while
flows with higher priority obtain higher throughput. However, the priority value β cannot
provide proportional bandwidth allocation among these flows accurately" (NS3; plot only; rate
and RTT not given). Eq. (17)'s steady state gives a flow's window ∝ 1/(1 − β/2): shares
8/7 : 8/7 : 4/3 : 8/5, against β's own 1 : 1 : 2 : 3.

Ours: four senders into one receiver of a 10 Gb/s star (10 µs links), DCTCP's marking at
K = 65 packets, ``host_shim = "acdc"`` (β = each flow's weight) over NewReno guests; WVCC with
the same weights beside it. Shares: each flow's mean throughput over the run's second half.

Scales: ``smoke`` 50 ms, ``full`` 1 s (the paper gives no duration).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key
from fairnet.paper.uranus.common import LONG, plot_rates, run_series, shim_engine, us

BETAS = [0.25, 0.25, 0.5, 0.75]
DURATION_S = {"smoke": 0.05, "full": 1.0}
INTERVAL_S = {"smoke": 0.5e-3, "full": 1e-3}


def scenario(shim: str, scale: str) -> dict[str, Any]:
    """Four flows with weights (AC/DC: priorities) ``BETAS`` into host 4 of a 10 Gb/s star."""
    flows = [{"src": i, "dst": 4, "weight": b, "size": LONG} for i, b in enumerate(BETAS)]
    engine = shim_engine(shim, 10, us(INTERVAL_S[scale]), transport="reno")
    return {
        "name": f"uranus-fig4 {shim} ({scale})",
        "topology": {"kind": "star", "n_hosts": 5, "rate": "10Gbps", "delay": "10us"},
        "workload": {"kind": "flows", "flows": flows},
        "engine": engine,
        "stop_at": us(DURATION_S[scale]),
    }


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    d = DURATION_S[scale]
    model = np.array([1 / (1 - b / 2) for b in BETAS])
    model /= model.sum()
    prop = np.array(BETAS) / sum(BETAS)
    rows: list[dict[str, Any]] = []
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11.0, 3.6), sharey=True)
    for ax, shim in zip(axes, ("acdc", "wvcc"), strict=True):
        s = run_series(scenario(shim, scale), len(BETAS))
        got = s.mean(d / 2, d)
        share = got / got.sum()
        for i, b in enumerate(BETAS):
            rows.append(
                {
                    "shim": shim,
                    "flow": i + 1,
                    "beta": b,
                    "share": float(share[i]),
                    "gbps": float(got[i] / 1e9),
                    "model_eq17_share": float(model[i]),
                    "proportional_share": float(prop[i]),
                }
            )
        labels = [f"flow {i + 1} (β = {b:g})" for i, b in enumerate(BETAS)]
        plot_rates(ax, s.times, s.rates, labels, window=10)
        ax.set_title(f"({'a' if shim == 'acdc' else 'b'}) {shim.upper()}", fontsize=9)
    axes[0].legend(fontsize=7)
    t = ResultTable(
        f"Uranus Fig. 4 ({scale}): AC/DC with β = 1, 1, 2, 3 /4 on one 10 Gb/s link, "
        f"{d * 1e3:g} ms",
        (
            key("shim"),
            key("flow"),
            key("β"),
            Column("share", "ours"),
            Column("share", "Eq. 17 model"),
            Column("share", "proportional to β"),
            Column("share", "paper"),
        ),
        note="Share: mean throughput over the run's second half / the flows' total. Paper "
        "(§4.2, plot): ordered by β, equal β similar, not proportional. WVCC rows: the same "
        "weights under WVCC, for contrast (proportional is its target).",
    )
    for r in rows:
        t.add_row(
            r["shim"],
            str(r["flow"]),
            f"{r['beta']:g}",
            f"{r['share']:.3f}",
            f"{r['model_eq17_share']:.3f}" if r["shim"] == "acdc" else "-",
            f"{r['proportional_share']:.3f}",
            "ordered, not proportional" if r["shim"] == "acdc" else "-",
        )
    t.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "uranus-fig4"), [t])


ENTRY = Entry(
    name="uranus-fig4",
    title="Uranus: AC/DC's priorities β order the shares but do not make them proportional",
    paper="Uranus (WVCC), §4.2",
    figure="Fig. 4",
    scales={
        "smoke": "4 flows, β = [1, 1, 2, 3]/4, one 10 Gb/s link, 50 ms; AC/DC and WVCC",
        "full": "the same for 1 s",
    },
    run_fn=run,
)
