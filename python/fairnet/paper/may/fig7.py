"""MAY §IV.B, Fig. 7: 30 long TCP flows on Fig. 6's three-bottleneck network (10 Mb/s links,
100-packet queues, access delays 40·i + 1 ms, core 10 ms) under RED, DRR and MAY: each flow's
throughput against its max-min share and Jain's index (Eq. 10).

Paper: "the max-min fair shares are 0.5Mbps for 20 flows that uses link c2 − c3, and 1Mbps for
other 10 flows"; over 2-minute simulations, j(U_RED) = 0.731, j(U_DRR) = 0.987,
j(U_MAY) = 0.985.

Ours: the scenario of :mod:`fairnet.paper.may.common` (transports, Adaptive RED, ns-2's DRR,
MAY with the paper's parameters), the shares from the oracle on the same routes (they are the
paper's 0.5 and 1 Mb/s of wire rate), each flow's throughput averaged over the whole run as the
paper's. A fourth row, MAY with ``overflow_counts`` (buffer overflows counted in ND: a choice
the paper leaves open), is ours. Why MAY stays below the paper's index here is measured in
docs/systems/may.md ("Fig. 7") with ``examples/may_fig7.rs``.

Scales: ``smoke`` 30 s; ``full`` the paper's 120 s. Seed 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.may.common import (
    LONG,
    adaptive_red,
    drr_ns2,
    fig6,
    jain,
    may,
    node_index,
    oracle_rates,
    throughputs,
    wan_engine,
)
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key

DURATION_S = {"smoke": 30, "full": 120}
RATE = 10e6
#: (label, queue, paper's Jain index)
SCHEMES: list[tuple[str, dict[str, Any], float | None]] = [
    ("RED", adaptive_red(), 0.731),
    ("DRR", drr_ns2(), 0.987),
    ("MAY", may(), 0.985),
    ("MAY, overflows in ND", may(overflow_counts=True), None),
]


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    d = DURATION_S[scale]
    topo, flows = fig6(RATE)
    topology = topo.write(outdir / "fig6-topology.json")
    want = oracle_rates(topo, [r for _, _, r in flows])
    spec = [
        {
            "src": node_index(topo, s),
            "dst": node_index(topo, t),
            "size": LONG,
            "start": f"{10 * k}ms",
        }
        for k, (s, t, _) in enumerate(flows)
    ]
    rows: list[dict[str, Any]] = []
    plt = pyplot()
    fig, axes = plt.subplots(1, len(SCHEMES), figsize=(4.0 * len(SCHEMES), 3.4), sharey=True)
    t = ResultTable(
        f"MAY Fig. 7 ({scale}): 30 flows on Fig. 6's network, {d} s",
        (
            key("scheme"),
            Column("Jain vs max-min", "ours"),
            Column("Jain vs max-min", "paper"),
            Column("c2→c3 flows Mb/s", "ours"),
            Column("other flows Mb/s", "ours"),
        ),
        note="Jain's index (Eq. 10) of each flow's mean throughput over its max-min share "
        "(oracle: 0.5 Mb/s for the 20 flows crossing c2 → c3, 1 Mb/s for the other 10). "
        "'MAY, overflows in ND' is our option, not the paper's.",
    )
    for ax, (label, qdisc, paper) in zip(axes, SCHEMES, strict=True):
        doc = {
            "name": f"may-fig7 {label} ({scale})",
            "topology": topology,
            "workload": {"kind": "flows", "flows": spec},
            "engine": wan_engine(qdisc, seed=1),
            "stop_at": f"{d}s",
        }
        x = throughputs(doc, len(flows), 0.0, d)
        j = jain(x, want)
        narrow = want < 0.75 * want.max()
        for i, (s, dst, _) in enumerate(flows):
            rows.append(
                {
                    "scheme": label,
                    "flow": i + 1,
                    "src": s,
                    "dst": dst,
                    "mbps": float(x[i] / 1e6),
                    "max_min_mbps": float(want[i] / 1e6),
                    "jain": j,
                    "paper_jain": paper,
                }
            )
        t.add_row(
            label,
            f"{j:.3f}",
            f"{paper:.3f}" if paper is not None else "-",
            f"{np.mean(x[narrow]) / 1e6:.3f}",
            f"{np.mean(x[~narrow]) / 1e6:.3f}",
        )
        ax.bar(np.arange(1, len(flows) + 1), x / 1e6)
        ax.step(np.arange(1, len(flows) + 1), want / 1e6, where="mid", color="k", ls=":")
        ax.set_title(f"{label}: Jain {j:.3f}", fontsize=9)
        ax.set_xlabel("flow")
    axes[0].set_ylabel("throughput (Mb/s)")
    t.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "may-fig7"), [t])


ENTRY = Entry(
    name="may-fig7",
    title="MAY: 30 TCP flows on three bottlenecks against max-min (RED, DRR, MAY)",
    paper="MAY (Stanojević & Shorten), §IV.B",
    figure="Fig. 7",
    scales={
        "smoke": "Fig. 6's network, 30 flows, 30 s; RED, DRR, MAY, MAY with overflows in ND",
        "full": "the same for the paper's 120 s",
    },
    run_fn=run,
)
