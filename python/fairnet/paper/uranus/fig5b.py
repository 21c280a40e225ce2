"""Uranus §5.1.1, Fig. 5(b): WVCC in a packet simulation (the paper's NS3), a dumbbell with
three flows that "start one after another, sending packets as fast as they can in different
hosts with weights [1, 2, 3]/4.0, competing on the same bottleneck link": "each time a new flow
arrives, all flows converge to a new steady state with bandwidth share proportional to their
weights" (plot only; rates, delays and start times not given).

Ours: a dumbbell of three pairs, 10 Gb/s access and bottleneck links with 10 µs each (base RTT
60 µs), DCTCP's marking at K = 65 packets (DCTCP §3.4 at 10 Gb/s) on every port,
``host_shim = "wvcc"`` over NewReno guests (as :mod:`fairnet.paper.uranus.fig4`); flow i starts
at i·T. Per phase: the shares over its second half against the oracle's weighted max-min rates
(1; 1/3, 2/3; 1/6, 1/3, 1/2 of the link) and the convergence time (every active flow within 10%
of the oracle, judged on means over 10 samples).

Scales: ``smoke`` T = 0.1 s (1 ms samples), ``full`` T = 1 s (5 ms samples).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key
from fairnet.paper.uranus.common import (
    LONG,
    max_err,
    oracle,
    plot_rates,
    run_series,
    shim_engine,
    us,
)

WEIGHTS = [0.25, 0.5, 0.75]
LINK_BPS = 10e9
PHASE_S = {"smoke": 0.1, "full": 1.0}
INTERVAL_S = {"smoke": 1e-3, "full": 5e-3}
#: Samples per convergence judgement.
CONV_WINDOW = 10


def scenario(scale: str) -> dict[str, Any]:
    """Three WVCC flows across the dumbbell's bottleneck (link 0), flow i from i·T."""
    t = PHASE_S[scale]
    n = len(WEIGHTS)
    flows = [
        {"src": i, "dst": n + i, "weight": w, "size": LONG, "start": us(i * t)}
        for i, w in enumerate(WEIGHTS)
    ]
    engine = shim_engine("wvcc", 10, us(INTERVAL_S[scale]), transport="reno")
    engine.pop("tcp")  # the engine's µs-RTT timers suit the 60 µs RTT (common's are for 1 ms)
    return {
        "name": f"uranus-fig5b ({scale})",
        "topology": {
            "kind": "dumbbell",
            "n_pairs": n,
            "access_rate": "10Gbps",
            "bottleneck_rate": "10Gbps",
            "delay": "10us",
        },
        "workload": {"kind": "flows", "flows": flows},
        "engine": engine,
        "stop_at": us(n * t),
    }


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    t = PHASE_S[scale]
    n = len(WEIGHTS)
    s = run_series(scenario(scale), n)
    rows: list[dict[str, Any]] = []
    steps = []
    table = ResultTable(
        f"Uranus Fig. 5(b) ({scale}): WVCC, dumbbell, weights 1, 2, 3 /4 arriving every "
        f"{t * 1e3:g} ms",
        (
            key("phase"),
            Column("shares", "ours"),
            Column("shares", "oracle"),
            Column("max error", "ours vs oracle"),
            Column("utilization", "ours"),
            Column("converged", "ours"),
            Column("shares", "paper"),
        ),
        note="Shares: each active flow's mean throughput over the phase's second half / the "
        "link. Converged: every active flow within 10% of the oracle (means over "
        f"{CONV_WINDOW} samples) from then to the phase's end. Paper (plot): after each "
        "arrival, shares proportional to the weights.",
    )
    for k in range(n):
        a, b = k * t, (k + 1) * t
        paths = [[0] if i <= k else [] for i in range(n)]
        want = oracle([LINK_BPS], paths, WEIGHTS)
        steps.append((a, b, want))
        got = s.mean(a + t / 2, b)
        conv = s.convergence(a, b, want, window=CONV_WINDOW)
        rows.append(
            {
                "phase": k + 1,
                "active": k + 1,
                "start_s": a,
                "end_s": b,
                "shares": [float(x / LINK_BPS) for x in got[: k + 1]],
                "oracle_shares": [float(x / LINK_BPS) for x in want[: k + 1]],
                "max_error": max_err(got, want),
                "utilization": float(got.sum() / LINK_BPS),
                "converged_ms": conv * 1e3,
            }
        )
        r = rows[-1]
        table.add_row(
            f"{k + 1} flow{'s' if k else ''}",
            " ".join(f"{x:.3f}" for x in r["shares"]),
            " ".join(f"{x:.3f}" for x in r["oracle_shares"]),
            f"{r['max_error'] * 100:.1f}%",
            f"{r['utilization'] * 100:.1f}%",
            f"{r['converged_ms']:.1f} ms",
            "proportional",
        )
    table.print(console)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 3.6))
    labels = [f"flow {i + 1} (w = {w:g})" for i, w in enumerate(WEIGHTS)]
    plot_rates(ax, s.times, s.rates, labels, steps, window=4)
    ax.set_title("Fig. 5(b): WVCC, flows arriving one after another (dashed: oracle)", fontsize=8)
    ax.legend(fontsize=7)
    return PaperResult(rows, save_figure(fig, outdir, "uranus-fig5b"), [table])


ENTRY = Entry(
    name="uranus-fig5b",
    title="Uranus: WVCC flows arriving one after another converge to weighted shares",
    paper="Uranus (WVCC), §5.1.1",
    figure="Fig. 5(b)",
    scales={
        "smoke": "dumbbell, 10 Gb/s, 3 WVCC flows (w = 1, 2, 3 /4) arriving every 0.1 s",
        "full": "the same, arriving every 1 s",
    },
    run_fn=run,
)
