"""MAY §IV.A, Fig. 5: 100 long TCP flows with round-trip times uniform in 40–440 ms on one
80 Mb/s link under RED, DRR and MAY: each flow's share of the throughput and Jain's index
against max-min (Eq. 10; here every share is equal).

Paper: "Share of the total throughput taken by each of 100 flows in these 3 schemes is
depicted in Figure 5 during 2-minute simulations": j(U_RED) = 0.606, j(U_DRR) = 0.997,
j(U_MAY) = 0.993; RED's shares go roughly as 1/RTT.

Ours: the scenario of :mod:`fairnet.paper.may.common`; RTTs evenly spread over 40–440 ms (the
paper draws them uniformly); the buffer is not given for this experiment, so §IV.B's 100
packets (DRR's blimit_ of 100 KB); max-min from the oracle; throughput averaged over the whole
run, as the paper's.

Scales: ``smoke`` 20 flows on 16 Mb/s (the same 0.8 Mb/s fair share), 30 s; ``full`` the
paper's 100 flows on 80 Mb/s for 120 s. Seed 1.
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
    jain,
    may,
    node_index,
    one_link,
    oracle_rates,
    throughputs,
    wan_engine,
)
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key

#: scale -> (flows, link Mb/s, seconds)
SETTINGS = {"smoke": (20, 16, 30), "full": (100, 80, 120)}
PAPER = {"RED": 0.606, "DRR": 0.997, "MAY": 0.993}


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    n, mbps, d = SETTINGS[scale]
    rate = mbps * 1e6
    rtts = [40 + 400 * i / (n - 1) for i in range(n)]
    topo, flows = one_link(rate, rtts)
    topology = topo.write(outdir / "fig5-topology.json")
    want = oracle_rates(topo, [r for _, _, r in flows])
    spec = [
        {"src": node_index(topo, s), "dst": node_index(topo, t), "size": LONG, "start": f"{k}ms"}
        for k, (s, t, _) in enumerate(flows)
    ]
    schemes: list[tuple[str, dict[str, Any]]] = [
        ("RED", adaptive_red()),
        ("DRR", drr_ns2()),
        ("MAY", may()),
    ]
    rows: list[dict[str, Any]] = []
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8.0, 3.6))
    t = ResultTable(
        f"MAY Fig. 5 ({scale}): {n} TCP flows, RTTs 40–440 ms, one {mbps} Mb/s link, {d} s",
        (
            key("scheme"),
            Column("Jain vs max-min", "ours"),
            Column("Jain vs max-min", "paper"),
            Column("link used", "ours"),
        ),
        note="Jain's index (Eq. 10) of each flow's mean throughput over its max-min share "
        "(the oracle's: equal shares). Paper: 100 flows, 80 Mb/s, 2 minutes.",
    )
    for label, qdisc in schemes:
        doc = {
            "name": f"may-fig5 {label} ({scale})",
            "topology": topology,
            "workload": {"kind": "flows", "flows": spec},
            "engine": wan_engine(qdisc, seed=1),
            "stop_at": f"{d}s",
        }
        x = throughputs(doc, n, 0.0, d)
        j = jain(x, want)
        for i in range(n):
            rows.append(
                {
                    "scheme": label,
                    "flow": i + 1,
                    "rtt_ms": rtts[i],
                    "share": float(x[i] / x.sum()),
                    "mbps": float(x[i] / 1e6),
                    "jain": j,
                    "paper_jain": PAPER[label],
                }
            )
        t.add_row(label, f"{j:.3f}", f"{PAPER[label]:.3f}", f"{x.sum() / rate:.3f}")
        ax.plot(np.arange(1, n + 1), x / x.sum(), marker="o", ms=3, lw=0.8, label=label)
    ax.axhline(1 / n, color="k", ls=":", lw=1)
    ax.set(xlabel="flow (RTT increasing)", ylabel="share of throughput")
    ax.legend(fontsize=8)
    t.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "may-fig5"), [t])


ENTRY = Entry(
    name="may-fig5",
    title="MAY: long TCP flows with RTTs 40–440 ms on one link (RED, DRR, MAY)",
    paper="MAY (Stanojević & Shorten), §IV.A",
    figure="Fig. 5",
    scales={
        "smoke": "20 flows on 16 Mb/s (0.8 Mb/s each, as the paper), 30 s",
        "full": "the paper's 100 flows on 80 Mb/s, 120 s",
    },
    run_fn=run,
)
