"""MAY §IV.A, Fig. 5: 100 long TCP flows with round-trip times uniform in 40–440 ms on one
80 Mb/s link under RED, DRR and MAY: each flow's share of the throughput and Jain's index
against max-min (Eq. 10; here every share is equal).

Paper: "Share of the total throughput taken by each of 100 flows in these 3 schemes is
depicted in Figure 5 during 2-minute simulations": j(U_RED) = 0.606, j(U_DRR) = 0.997,
j(U_MAY) = 0.993; RED's shares go roughly as 1/RTT.

Ours: the scenario of :mod:`fairnet.paper.may.common`; RTTs evenly spread over 40–440 ms (the
paper draws them uniformly); max-min from the oracle; throughput averaged over the whole run,
as the paper's. The buffer is not given for this experiment: §IV.B's 100 packets (DRR's
blimit_ of 100 KB) for the paper's three schemes; with it the 100 TCP flows leave the link
below u₀ = 0.98 and MAY hardly acts (docs/systems/may.md, "Fig. 5"). Two rows of ours show
the buffer's part: MAY and drop-tail with one bandwidth-delay product at the mean RTT, the
rule of ``may-fig8`` (2,308 packets at 80 Mb/s and 240 ms).

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
    BUFFER_PACKETS,
    LONG,
    adaptive_red,
    bdp_packets,
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
PAPER = {"RED": 0.606, "DRR": 0.997, "MAY": 0.993, "MAY, one BDP": 0.993}


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    n, mbps, d = SETTINGS[scale]
    rate = mbps * 1e6
    rtts = [40 + 400 * i / (n - 1) for i in range(n)]
    # The buffer (module doc): §IV.B's 100 packets (DRR's blimit_ of 100 KB); and, in the
    # last two rows, one bandwidth-delay product at the mean RTT.
    bdp = bdp_packets(rate, rtts)
    topologies = {}
    for buffer in (BUFFER_PACKETS, bdp):
        topo, flows = one_link(rate, rtts, buffer)
        topologies[buffer] = topo.write(outdir / f"fig5-topology-{buffer}.json")
    want = oracle_rates(topo, [r for _, _, r in flows])
    spec = [
        {"src": node_index(topo, s), "dst": node_index(topo, t), "size": LONG, "start": f"{k}ms"}
        for k, (s, t, _) in enumerate(flows)
    ]
    schemes: list[tuple[str, dict[str, Any], int]] = [
        ("RED", adaptive_red(), BUFFER_PACKETS),
        ("DRR", drr_ns2(), BUFFER_PACKETS),
        ("MAY", may(), BUFFER_PACKETS),
        ("drop-tail, one BDP", {"kind": "drop_tail"}, bdp),
        ("MAY, one BDP", may(), bdp),
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
            Column("buffer, packets", "ours"),
        ),
        note="Jain's index (Eq. 10) of each flow's mean throughput over its max-min share "
        "(the oracle's: equal shares). Paper: 100 flows, 80 Mb/s, 2 minutes, buffer not "
        "given. The 'one BDP' rows are ours (the buffer's part, docs/systems/may.md).",
    )
    for label, qdisc, buffer in schemes:
        doc = {
            "name": f"may-fig5 {label} ({scale})",
            "topology": topologies[buffer],
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
                    "paper_jain": PAPER.get(label),
                    "buffer_packets": buffer,
                }
            )
        paper = PAPER.get(label)
        t.add_row(
            label,
            f"{j:.3f}",
            f"{paper:.3f}" if paper is not None else "-",
            f"{x.sum() / rate:.3f}",
            str(buffer),
        )
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
