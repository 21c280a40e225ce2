"""Uranus §4.2, Fig. 4: AC/DC's per-flow differentiation on one link, β = [1, 1, 2, 3]/4.

Paper: "after convergence the flows with the same priority get similar throughput, while
flows with higher priority obtain higher throughput. However, the priority value β cannot
provide proportional bandwidth allocation among these flows accurately" (NS3; plot only; rate
and RTT not given). Eq. (17)'s steady state gives a flow's window ∝ 1/(1 − β/2): shares
8/7 : 8/7 : 4/3 : 8/5, against β's own 1 : 1 : 2 : 3.

Ours: four senders into one receiver of a 10 Gb/s star (10 µs links), DCTCP's marking at
K = 65 packets, ``host_shim = "acdc"`` (β = each flow's weight) over NewReno guests; WVCC with
the same weights beside it. Shares: each flow's mean throughput over the run's second half.
Beside them, AC/DC's fluid model (``acdc_fluid``: Eq. 17's cut in Eq. 12, integrated) on the
same link: C = 10 Gb/s, K = 65, d = ``FLUID_RTT`` (the star's 40 µs of propagation plus the
serialization of a data packet and an ACK at each of two hops), shares over its last 0.1 s.

Scales: ``smoke`` 50 ms, ``full`` 1 s (the paper gives no duration).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

import fairnet
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key
from fairnet.paper.uranus.common import LONG, plot_rates, run_series, shim_engine, us

BETAS = [0.25, 0.25, 0.5, 0.75]
DURATION_S = {"smoke": 0.05, "full": 1.0}
INTERVAL_S = {"smoke": 0.5e-3, "full": 1e-3}
#: The star's base RTT for the fluid model: 4 × 10 µs + 2 × (1048 B + 48 B) at 10 Gb/s.
FLUID_RTT = "41.75us"
#: Model time of the fluid model, and the tail its shares are taken over (s).
FLUID_HORIZON_S, FLUID_TAIL_S = 0.5, 0.1


def fluid_shares() -> np.ndarray:
    """AC/DC's shares in the integrated fluid model (``acdc_fluid``) of this link."""
    table = fairnet.model(
        "acdc_fluid",
        horizon=FLUID_HORIZON_S,
        output_interval=1e-4,
        flows=len(BETAS),
        weights=BETAS,
        rtt=FLUID_RTT,
        capacity="10Gbps",
        k=65,
    )
    tail = table["time_s"].to_numpy() >= FLUID_HORIZON_S - FLUID_TAIL_S
    got = np.array([table[f"rate[{i}]"].to_numpy()[tail].mean() for i in range(len(BETAS))])
    return got / got.sum()


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
    fluid = fluid_shares()
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
                    "fluid_model_share": float(fluid[i]),
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
            Column("share", "Eq. 17"),
            Column("share", "fluid model"),
            Column("share", "proportional to β"),
            Column("claim", "paper", text=True),
        ),
        note="Share: mean throughput over the run's second half / the flows' total. Paper "
        "(§4.2, plot): ordered by β, equal β similar, not proportional. WVCC rows: the same "
        "weights under WVCC, for contrast (proportional is its target). Fluid model: acdc_fluid "
        "(Eq. 17's cut in Eq. 12) integrated on the same link, shares over its last 0.1 s.",
    )
    for r in rows:
        t.add_row(
            r["shim"],
            str(r["flow"]),
            f"{r['beta']:g}",
            f"{r['share']:.3f}",
            f"{r['model_eq17_share']:.3f}" if r["shim"] == "acdc" else "-",
            f"{r['fluid_model_share']:.3f}" if r["shim"] == "acdc" else "-",
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
