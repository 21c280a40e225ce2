"""Uranus §4.4, Fig. 5(a): WVCC's fluid model (Eq. 12), four flows with weights [1, 2, 3, 4]/5
from random initial windows, on one bottleneck: "these four flows get their throughput share
proportionally in steady state" (the authors solved Eq. 12 with MATLAB's ``dde23``; plot only,
parameters not given).

Ours: the model engine's ``wvcc_fluid`` (``crates/fairnet/src/systems/uranus/model.rs``) with
its defaults — DCTCP's 10 Gb/s, K = 65 packets and g = 1/16, d = 100 µs, 1048-byte packets —
and initial windows drawn uniformly from 1–60 packets (seed ``SEED``). Shares: each flow's
mean throughput over the last fifth of the run over the total, beside Eq. (16)'s
``w_i / Σw`` (0.1, 0.2, 0.3, 0.4). Convergence: the time after which every flow's throughput
stays within 5% of its Eq. 16 share of the delivered total. The AC/DC model (Eq. 17's cut in
Eq. 12, ``acdc_fluid``) with β = the same weights is run beside it, for contrast.

Scales: ``smoke`` 0.5 s of model time, ``full`` 2 s (the model is cheap at both).
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

WEIGHTS = [0.2, 0.4, 0.6, 0.8]
#: Seed of the random initial windows (packets, uniform in [1, 60]).
SEED = 5
HORIZON_S = {"smoke": 0.5, "full": 2.0}
INTERVAL_S = {"smoke": 1e-4, "full": 2e-4}
#: Convergence: every flow within this fraction of its Eq. 16 share of the delivered total.
TOL = 0.05


def initial_windows() -> list[float]:
    """Fig. 5(a)'s "random initial window", packets."""
    rng = np.random.default_rng(SEED)
    return [float(x) for x in np.round(rng.uniform(1.0, 60.0, len(WEIGHTS)), 1)]


def solve(name: str, scale: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Times (s), rates (bit/s, one column per flow) and windows (packets) of model ``name``."""
    table = fairnet.model(
        name,
        horizon=HORIZON_S[scale],
        output_interval=INTERVAL_S[scale],
        flows=len(WEIGHTS),
        weights=WEIGHTS,
        initial={"W": initial_windows()},
    )
    n = len(WEIGHTS)
    t = table["time_s"].to_numpy()
    rates = np.column_stack([table[f"rate[{i}]"].to_numpy() for i in range(n)])
    windows = np.column_stack([table[f"W[{i}]"].to_numpy() for i in range(n)])
    return t, rates, windows


def convergence(t: np.ndarray, rates: np.ndarray, want: np.ndarray) -> float:
    """Time after which every flow's share of the total rate stays within ``TOL`` of ``want``
    (``inf`` if it never settles)."""
    share = rates / rates.sum(axis=1, keepdims=True)
    bad = np.nonzero((np.abs(share - want) / want).max(axis=1) > TOL)[0]
    if not len(bad):
        return 0.0
    return float(t[bad[-1]]) if bad[-1] < len(t) - 1 else float("inf")


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    horizon = HORIZON_S[scale]
    eq16 = np.array(WEIGHTS) / sum(WEIGHTS)
    eq17 = 1 / (1 - np.array(WEIGHTS) / 2)
    eq17 /= eq17.sum()
    rows: list[dict[str, Any]] = []
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11.0, 3.6), sharey=True)
    for ax, name, closed in zip(axes, ("wvcc_fluid", "acdc_fluid"), (eq16, eq17), strict=True):
        t, rates, windows = solve(name, scale)
        tail = t >= 0.8 * horizon
        got = rates[tail].mean(axis=0)
        share = got / got.sum()
        w_ratio = windows[tail].mean(axis=0) / windows[tail].mean(axis=0)[0]
        conv = convergence(t, rates, eq16) if name == "wvcc_fluid" else float("nan")
        for i, w in enumerate(WEIGHTS):
            rows.append(
                {
                    "model": name,
                    "flow": i + 1,
                    "weight": w,
                    "initial_window": initial_windows()[i],
                    "share": float(share[i]),
                    "closed_form_share": float(closed[i]),
                    "window_ratio_to_flow1": float(w_ratio[i]),
                    "gbps": float(got[i] / 1e9),
                    "converged_s": conv,
                }
            )
        for i, w in enumerate(WEIGHTS):
            ax.plot(t * 1e3, rates[:, i] / 1e9, lw=0.8, label=f"flow {i + 1} (w = {w:g})")
            ax.axhline(closed[i] * got.sum() / 1e9, ls="--", lw=0.7, color=f"C{i}")
        ax.set_xlabel("time (ms)")
        ax.set_title(
            "(a) WVCC fluid model (Eq. 12); dashed: Eq. 16"
            if name == "wvcc_fluid"
            else "AC/DC model (Eq. 17's cut in Eq. 12), β = w; dashed: Eq. 17",
            fontsize=8,
        )
    axes[0].set_ylabel("throughput (Gb/s)")
    axes[0].legend(fontsize=7)
    table = ResultTable(
        f"Uranus Fig. 5(a) ({scale}): fluid model, weights 1, 2, 3, 4 /5, {horizon:g} s",
        (
            key("model"),
            key("flow"),
            key("w"),
            Column("share", "ours"),
            Column("share", "closed form"),
            Column("W / W1", "ours"),
            Column("share", "paper"),
        ),
        note="Share: mean throughput over the last fifth of the run / the total. Closed form: "
        "Eq. 16 (w / sum w) for WVCC, Eq. 17 (1/(1 - b/2), normalized) for AC/DC. Paper (Fig. "
        "5(a), plot): shares proportional to the weights. WVCC within 5% of Eq. 16 after "
        f"{rows[0]['converged_s'] * 1e3:.0f} ms from windows "
        f"{', '.join(f'{w:g}' for w in initial_windows())} packets.",
    )
    for r in rows:
        table.add_row(
            r["model"],
            str(r["flow"]),
            f"{r['weight']:g}",
            f"{r['share']:.4f}",
            f"{r['closed_form_share']:.4f}",
            f"{r['window_ratio_to_flow1']:.3f}",
            "proportional" if r["model"] == "wvcc_fluid" else "-",
        )
    table.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "uranus-fig5a"), [table])


ENTRY = Entry(
    name="uranus-fig5a",
    title="Uranus: WVCC's fluid model gives shares proportional to the weights (Eq. 16)",
    paper="Uranus (WVCC), §4.4",
    figure="Fig. 5(a)",
    scales={
        "smoke": "fluid model (Eq. 12), 4 flows, weights [1, 2, 3, 4]/5, random start, 0.5 s",
        "full": "the same over 2 s",
    },
    run_fn=run,
)
