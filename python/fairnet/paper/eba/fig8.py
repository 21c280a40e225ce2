"""eBA §VII-A, Fig. 8: bandwidth guarantee. VMs X and Y on one host, both guaranteed
450 Mb/s, each sending to its own peer (also guaranteed 450 Mb/s) over the host's 1 Gb/s
link; X has one TCP flow, Y a growing number. X's throughput with LRC and without any
guarantee (best effort).

Paper (testbed): "With no guarantee, the throughput of X decreases sharply since Y has more
flows than X. With LRC, the rate of X stays around 450Mbps irrespective of the flow-level
competition." (The figure's exact values and flow counts are not in the text.)

Ours: the packet engine, equal VM weights, α = 5, β = 10 s⁻¹, τ_v = 50 ms, τ_r = 100 ms
(the testbed's ``ατ_r = 0.5``, ``β = 2α``), μ = 0.9 — at ``smoke`` under uniform increase
(:mod:`fairnet.paper.eba.common`); best effort is the same run without limiter. Mean over the
last fifth of the run.

Scales: ``smoke`` Y with 1, 4, 16 flows, 0.3 s each at 100-fold speed; ``full`` 1, 2, 4, 8,
16 flows, the paper's parameters, 30 s each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from fairnet.paper.eba.common import lrc, one_link_doc, vm_flow_means
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.tables import Column, ResultTable, key

Y_FLOWS = {"smoke": [1, 4, 16], "full": [1, 2, 4, 8, 16]}
DURATION = {"smoke": 0.3, "full": 30.0}
#: The schemes compared, as ``rate_control`` values, with the paper's claim for X.
SCHEMES = {"lrc": "≈450 Mb/s", "best_effort": "falls sharply"}


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    stop = DURATION[scale]
    table = lrc(alpha=5.0, beta=10.0, tau_v_s=0.05, tau_r_s=0.1, scale=scale)
    vms = [
        {"name": "x", "host": 0, "tenant": 0, "guarantee": "450Mbps"},
        {"name": "y", "host": 0, "tenant": 1, "guarantee": "450Mbps"},
        {"name": "x2", "host": 1, "tenant": 0, "guarantee": "450Mbps"},
        {"name": "y2", "host": 2, "tenant": 1, "guarantee": "450Mbps"},
    ]
    t = ResultTable(
        f"eBA Fig. 8 ({scale}): X (450 Mb/s guarantee) against Y's TCP flows on 1 Gb/s",
        (
            key("scheme"),
            key("Y's flows"),
            Column("X (Mb/s)", "ours"),
            Column("Y (Mb/s)", "ours"),
            Column("X", "paper", text=True),
        ),
        note="lrc: eBA's LRC; best_effort: no limiter (plain TCP). Mean wire throughput "
        "over the last fifth of the run.",
    )
    rows: list[dict[str, Any]] = []
    for scheme, claim in SCHEMES.items():
        for n in Y_FLOWS[scale]:
            flows = [{"src": 0, "dst": 1, "size": "100GB", "tag": 0}]
            flows += [{"src": 0, "dst": 2, "size": "100GB", "tag": 1}] * n
            tags = [0] + [1] * n
            name = f"eba-fig8 {scheme} {n} ({scale})"
            doc = one_link_doc(name, vms, flows, table, stop, stop / 100, rate_control=scheme)
            x, y = vm_flow_means(doc, tags, 0.8 * stop, stop)
            rows.append(
                {
                    "scheme": scheme,
                    "y_flows": n,
                    "x_mbps": float(x) / 1e6,
                    "y_mbps": float(y) / 1e6,
                    "paper_x": claim,
                }
            )
            t.add_row(scheme, str(n), f"{x / 1e6:.1f}", f"{y / 1e6:.1f}", claim)
    t.print(console)
    return PaperResult(rows, [], [t])


ENTRY = Entry(
    name="eba-fig8",
    title="eBA: a VM's guarantee against another VM's growing number of TCP flows",
    paper="eBA (Liu et al., ToN 2017), §VII-A",
    figure="Fig. 8",
    scales={
        "smoke": "Y with 1, 4, 16 flows, LRC and best effort, 0.3 s each at 100-fold speed",
        "full": "Y with 1–16 flows, LRC and best effort, the paper's parameters, 30 s each",
    },
    run_fn=run,
)
