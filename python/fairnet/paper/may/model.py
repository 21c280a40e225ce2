"""MAY §III: the analysis as models — the mean-field map of Eqs. (3)–(5) converging to Theorem
3.1's fixed point, Corollary 3.1 (every AIMD flow gets u₀C/N whatever its parameters), the AIMD
Markov chain under MAY's drops, and Theorem 3.2's phase transition for a CBR flow.

Paper: Theorem 3.1: from any positive start z_i = δ_i·u₀C/a_i² → N, so δ_i* = N·a_i²/(u₀C) and
ν* = N/(u₀C); Corollary 3.1: the throughput of flow i tends to u₀C/N, "does not depend on AIMD
parameters, β_i and γ_i"; Theorem 3.2: a CBR flow sending x_j < 1/ν* is asymptotically not
dropped (T_j* = x_j), one sending more is shut out (T_j* = 0).

Ours: the model engine's ``may_mean_field`` (Eq. 4 with ν from Eq. 3, and the proof's map for
the CBR flow) and ``may_aimd_chain`` (§III-A's Markov chain, each packet dropped with
probability δ_i·ν, δ_i averaged as Fig. 1 line 24 once per period, ν from Eq. 3; see
``crates/fairnet/src/systems/may/chain.rs``). Units: packets per update period Δ. AIMD
parameters spread linearly over the flows. The map's speed (10⁶ iterations) is printed by
``fairnet bench model``.

Scales: ``smoke`` 10 flows on C = 10,000 packets per period (the map for 1,000 iterations, the
chain for 600 periods); ``full`` 100 flows on C = 100,000 (10,000 iterations, the chain for
2,000 periods). The CBR sweep: 19 AIMD flows and the CBR flow on C = 4,000 for 2,000
iterations, at both scales. Seed 1.
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

#: scale -> (flows, capacity in packets per period, map iterations, chain periods)
SETTINGS = {"smoke": (10, 10_000, 1_000, 600), "full": (100, 100_000, 10_000, 2_000)}
U0 = 0.98
#: Corollary 3.1's parameter spreads: (label, γ range, β range).
SPREADS = [
    ("identical", (1.0, 1.0), (0.5, 0.5)),
    ("γ 1–4, β .5–.875", (1.0, 4.0), (0.5, 0.875)),
    ("γ .25–16, β .1–.95", (0.25, 16.0), (0.1, 0.95)),
]
#: Theorem 3.2's sweep: CBR rate over the fair share u₀C/(N + 1).
CBR_FACTORS = [0.25, 0.5, 0.75, 0.9, 1.1, 1.25, 1.5, 2.0, 4.0]
CBR_FLOWS, CBR_CAPACITY, CBR_ITERATIONS = 19, 4_000, 2_000


def a_spread(n: int, gammas: tuple[float, float], betas: tuple[float, float]) -> np.ndarray:
    """Eq. (2)'s a_i = β_i/(1 − β_i)·√γ_i (A = 1) for the flows' linear spread."""
    g = np.linspace(*gammas, n)
    b = np.linspace(*betas, n)
    return b / (1 - b) * np.sqrt(g)


def mean_field(iterations: int, **params: Any) -> Any:
    return fairnet.model("may_mean_field", horizon=float(iterations), output_interval=1.0, **params)


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    n, c, iterations, periods = SETTINGS[scale]
    share = U0 * c / n
    rows: list[dict[str, Any]] = []
    tables = []

    # Theorem 3.1 and Corollary 3.1 on the map.
    t1 = ResultTable(
        f"MAY §III (map, {scale}): {n} AIMD flows, C = {c:,} packets per period, "
        f"{iterations:,} iterations",
        (
            key("AIMD"),
            Column("a spread", "Eq. 2"),
            Column("ν/ν*", "ours"),
            Column("z₁/z_N", "ours"),
            Column("x/share", "ours"),
            Column("to .99", "ours"),
        ),
        note="ν* = N/(u₀C) and every throughput x the share u₀C/N (Theorem 3.1, Corollary "
        "3.1): x/share is the flows' min–max; a spread: a_max/a_min, how unequal the rates "
        "would be under one drop probability for all (Eq. 1); to .99: iterations until "
        "z₁/z_N ≥ 0.99.",
    )
    curves = {}
    for label, gammas, betas in SPREADS:
        m = mean_field(
            iterations,
            flows=n,
            capacity=float(c),
            gamma_min=gammas[0],
            gamma_max=gammas[1],
            beta_min=betas[0],
            beta_max=betas[1],
        )
        nu = m["nu"].to_numpy()
        z = m["z_ratio"].to_numpy()
        x = np.array([m[f"x[{i}]"][-1] for i in range(n)]) / share
        a = a_spread(n, gammas, betas)
        reached = np.flatnonzero(z >= 0.99)
        to99 = int(reached[0]) if reached.size else None
        nu_ratio = float(nu[-1] / (n / (U0 * c)))
        curves[label] = z
        rows.append(
            {
                "scheme": "MAY mean-field map",
                "part": "theorem-3.1",
                "aimd": label,
                "a_ratio": float(a.max() / a.min()),
                "nu_over_nu_star": nu_ratio,
                "z_ratio": float(z[-1]),
                "x_over_share_min": float(x.min()),
                "x_over_share_max": float(x.max()),
                "iterations_to_z_0_99": to99,
                "paper": "z → N, ν → N/(u₀C), x → u₀C/N",
            }
        )
        t1.add_row(
            label,
            f"{a.max() / a.min():.1f}",
            f"{nu_ratio:.4f}",
            f"{z[-1]:.4f}",
            f"{x.min():.3f}–{x.max():.3f}",
            "—" if to99 is None else f"{to99:,}",
        )
    tables.append(t1)

    # The AIMD Markov chain under MAY's drops.
    chain = fairnet.model(
        "may_aimd_chain", horizon=float(periods), output_interval=1.0, flows=n, capacity=float(c)
    )
    half = periods // 2
    xs = np.array([chain[f"x[{i}]"].to_numpy()[half:].mean() for i in range(n)]) / share
    jain = float(xs.sum() ** 2 / (n * (xs**2).sum()))
    a = a_spread(n, (1.0, 4.0), (0.5, 0.875))
    t2 = ResultTable(
        f"MAY §III-A (AIMD Markov chain, {scale}): {n} flows, γ 1–4, β 0.5–0.875, "
        f"{periods:,} periods",
        (
            key("quantity"),
            Column("ours", "ours"),
            Column("paper", "paper"),
        ),
        note=f"Each flow's mean over periods {half:,}–{periods:,} of the packets it sent, over "
        "u₀C/N; 100 chain steps per period; one seed.",
    )
    t2.add_row("x/(u₀C/N), min–max", f"{xs.min():.3f}–{xs.max():.3f}", "1")
    t2.add_row("Jain's index", f"{jain:.4f}", "1")
    t2.add_row("a_max/a_min (Eq. 2)", f"{a.max() / a.min():.1f}", "")
    tables.append(t2)
    rows.append(
        {
            "scheme": "MAY AIMD chain",
            "part": "chain",
            "aimd": "γ 1–4, β 0.5–0.875",
            "x_over_share_min": float(xs.min()),
            "x_over_share_max": float(xs.max()),
            "jain": jain,
            "paper": "x → u₀C/N (Corollary 3.1)",
        }
    )

    # Theorem 3.2: one CBR flow beside 19 AIMD flows.
    fair = U0 * CBR_CAPACITY / (CBR_FLOWS + 1)
    t3 = ResultTable(
        f"MAY Theorem 3.2 (map): one CBR flow beside {CBR_FLOWS} AIMD flows, "
        f"C = {CBR_CAPACITY:,}, {CBR_ITERATIONS:,} iterations",
        (
            key("CBR / fair share"),
            Column("delivered", "ours"),
            Column("delivered", "paper"),
            Column("shut out at iter.", "ours"),
        ),
        note=f"Fair share u₀C/(N + 1) = {fair:.0f} packets per period; delivered: the CBR "
        "flow's throughput at the end over its rate.",
    )
    cbr_curve = []
    for f in CBR_FACTORS:
        m = mean_field(CBR_ITERATIONS, flows=CBR_FLOWS, capacity=float(CBR_CAPACITY), cbr=f * fair)
        tp = m["cbr_throughput"].to_numpy()
        delivered = float(tp[-1] / (f * fair))
        off = np.flatnonzero(tp == 0.0)
        shut = int(off[0]) if off.size else None
        paper = 1.0 if f < 1 else 0.0
        cbr_curve.append(delivered)
        rows.append(
            {
                "scheme": "MAY mean-field map",
                "part": "theorem-3.2",
                "cbr_factor": f,
                "delivered": delivered,
                "paper_delivered": paper,
                "shut_out_iteration": shut,
            }
        )
        t3.add_row(f"{f:g}", f"{delivered:.3f}", f"{paper:g}", "—" if shut is None else f"{shut:,}")
    tables.append(t3)

    for t in tables:
        t.print(console)
    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9.0, 3.6))
    for label, z in curves.items():
        ax1.plot(np.arange(len(z)), z, label=label)
    ax1.set(xlabel="iteration (update period)", ylabel="z₁/z_N (Lemma 3.1)", xscale="log")
    ax1.legend(fontsize=7)
    ax2.plot(CBR_FACTORS, cbr_curve, marker="o", label="map")
    ax2.plot(CBR_FACTORS, [1.0 if f < 1 else 0.0 for f in CBR_FACTORS], ls=":", color="k")
    ax2.set(xlabel="CBR rate / fair share", ylabel="delivered / sent")
    return PaperResult(rows, save_figure(fig, outdir, "may-model"), tables)


ENTRY = Entry(
    name="may-model",
    title="MAY §III: mean-field map, AIMD Markov chain, CBR phase transition",
    paper="MAY (Stanojević & Shorten), §III (Theorems 3.1–3.2, Corollary 3.1)",
    figure="§III",
    scales={
        "smoke": "10 flows, C = 10,000 packets per period; map 1,000 iterations, chain 600",
        "full": "100 flows, C = 100,000; map 10,000 iterations, chain 2,000 periods",
    },
    run_fn=run,
)
