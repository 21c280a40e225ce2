"""eBA §VII-A, Table III: proportional share. VMs X and Y on one host, each sending one TCP
flow to its own peer over the host's 1 Gb/s link; weight ratios ``w_X : w_Y`` of 1:1, 1:2,
1:4, 1:8; the throughputs of X and Y.

Paper (testbed, Open vSwitch and ``tc``; ``β = 2α``, ``ατ_r = 0.5``, τ_v = 50 ms, μ = 0.9):
ratios 1:1.01, 1:1.89, 1:3.61, 1:6.62, the larger ratios below the weights, which the
authors trace to "the measurement error of link throughput in our testbed … non-uniformly
magnified by the weights". A simulation has no such error: its ports count bytes exactly.

Ours: the packet engine, X and Y of weights 1 and k with peers of the same weights (VM-flow
weights 2 and 2k by Eq. (1), ratio 1:k), no guarantees; α = 5, β = 10 s⁻¹, τ_v = 50 ms,
τ_r = 100 ms (so ``ατ_r = 0.5``, ``β = 2α``) — at ``smoke`` under uniform increase
(:mod:`fairnet.paper.eba.common`). Mean throughput over the last fifth of the run.

Scales: ``smoke`` 0.3 s of simulated time per ratio at 100-fold speed; ``full`` the paper's
parameters, 30 s per ratio.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from fairnet.paper.eba.common import lrc, one_link_doc, vm_flow_means
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.tables import Column, ResultTable, key

#: Table III: (X, Y) throughput in Mb/s and the ratio v_Y / v_X, by w_Y / w_X.
PAPER = {
    1: (441.0, 444.1, 1.01),
    2: (306.9, 580.2, 1.89),
    4: (190.5, 687.9, 3.61),
    8: (112.9, 747.9, 6.62),
}
#: Simulated seconds per ratio.
DURATION = {"smoke": 0.3, "full": 30.0}


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    stop = DURATION[scale]
    table = lrc(alpha=5.0, beta=10.0, tau_v_s=0.05, tau_r_s=0.1, scale=scale)
    t = ResultTable(
        f"eBA Table III ({scale}): weight ratios on one 1 Gb/s link, LRC",
        (
            key("w_X : w_Y"),
            Column("X (Mb/s)", "ours"),
            Column("Y (Mb/s)", "ours"),
            Column("v_Y / v_X", "ours"),
            Column("X (Mb/s)", "paper"),
            Column("Y (Mb/s)", "paper"),
            Column("v_Y / v_X", "paper"),
        ),
        note="Scheme: eBA's LRC (host shim and per-port rate factors, μ = 0.9). Ours: mean "
        "wire throughput over the last fifth of the run; the paper's: its testbed.",
    )
    rows: list[dict[str, Any]] = []
    for k, (px, py, pr) in PAPER.items():
        vms = [
            {"name": "x", "host": 0, "tenant": 0, "weight": 1.0},
            {"name": "y", "host": 0, "tenant": 1, "weight": float(k)},
            {"name": "x2", "host": 1, "tenant": 0, "weight": 1.0},
            {"name": "y2", "host": 2, "tenant": 1, "weight": float(k)},
        ]
        flows = [
            {"src": 0, "dst": 1, "size": "100GB", "tag": 0},
            {"src": 0, "dst": 2, "size": "100GB", "tag": 1},
        ]
        doc = one_link_doc(f"eba-table3 1:{k} ({scale})", vms, flows, table, stop, stop / 100)
        x, y = vm_flow_means(doc, [0, 1], 0.8 * stop, stop)
        ratio = float(y / x)
        rows.append(
            {
                "scheme": "lrc",
                "weight_ratio": k,
                "x_mbps": float(x) / 1e6,
                "y_mbps": float(y) / 1e6,
                "ratio": ratio,
                "paper_x_mbps": px,
                "paper_y_mbps": py,
                "paper_ratio": pr,
            }
        )
        ours = (f"{x / 1e6:.1f}", f"{y / 1e6:.1f}", f"{ratio:.2f}")
        t.add_row(f"1:{k}", *ours, f"{px}", f"{py}", f"{pr}")
    t.print(console)
    return PaperResult(rows, [], [t])


ENTRY = Entry(
    name="eba-table3",
    title="eBA: throughput ratios of two VMs under weight ratios 1:1 to 1:8 (LRC)",
    paper="eBA (Liu et al., ToN 2017), §VII-A",
    figure="Table III",
    scales={
        "smoke": "four ratios, 0.3 s each under 100-fold uniform increase",
        "full": "four ratios, the paper's parameters, 30 s each",
    },
    run_fn=run,
)
