"""eBA §VII-A, Fig. 9: work conservation. VMs X and Y on one host, both guaranteed 450 Mb/s,
each sending to its own peer over the host's 1 Gb/s link: X with one TCP flow, Y with UDP
background traffic at a constant rate from 0 to 900 Mb/s. X's throughput and the link's
total under LRC.

Paper (testbed): "when the rate of Y is below 450Mpbs, the rate limit of X is above 450Mbps.
The total throughput on the link, which is around 900Mbps, indicates that X utilizes the
spared bandwidth and the allocation is work-conserving. Note that X's throughput maintains at
about 450Mbps." (The figure's values are not in the text.)

Ours: the packet engine, Y's flow on its own transport (``workload.flows[i].transport =
"udp"`` at ``udp_rate``), everything else as :mod:`fairnet.paper.eba.fig8` (equal VM weights,
the testbed's ``ατ_r = 0.5``, ``β = 2α``, μ = 0.9; ``smoke`` under uniform increase). What the
mechanism gives: Y's limit is ``max(450 Mb/s, v_Y)``, so Y sends ``min(rate, limit)``, and LRC
fills the link to μ·C = 900 Mb/s: X should get about ``900 − min(rate, 450)`` Mb/s, never
below its 450 Mb/s guarantee. Mean wire throughput over the last fifth of the run.

Scales: ``smoke`` Y at 0, 300, 600, 900 Mb/s, 0.3 s each at 100-fold speed; ``full`` Y from
0 to 900 Mb/s in steps of 100, the paper's parameters, 30 s each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from fairnet.paper.eba.common import lrc, one_link_doc, vm_flow_means
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.tables import Column, ResultTable, key

Y_RATES_MBPS = {"smoke": [0, 300, 600, 900], "full": list(range(0, 1000, 100))}
DURATION = {"smoke": 0.3, "full": 30.0}
VMS = [
    {"name": "x", "host": 0, "tenant": 0, "guarantee": "450Mbps"},
    {"name": "y", "host": 0, "tenant": 1, "guarantee": "450Mbps"},
    {"name": "x2", "host": 1, "tenant": 0, "guarantee": "450Mbps"},
    {"name": "y2", "host": 2, "tenant": 1, "guarantee": "450Mbps"},
]


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    stop = DURATION[scale]
    table = lrc(alpha=5.0, beta=10.0, tau_v_s=0.05, tau_r_s=0.1, scale=scale)
    t = ResultTable(
        f"eBA Fig. 9 ({scale}): X (one TCP flow) beside Y's UDP traffic, both guaranteed "
        "450 Mb/s, on 1 Gb/s",
        (
            key("Y's rate (Mb/s)"),
            Column("X (Mb/s)", "ours"),
            Column("Y (Mb/s)", "ours"),
            Column("total (Mb/s)", "ours"),
            Column("X expected (Mb/s)", "mechanism"),
        ),
        note="LRC. Expected X = 900 − min(Y's rate, 450): the link filled to μC, X never below "
        "its guarantee (the paper: total around 900, X at least about 450). Mean wire "
        "throughput over the last fifth of the run.",
    )
    rows: list[dict[str, Any]] = []
    for rate in Y_RATES_MBPS[scale]:
        flows: list[dict[str, Any]] = [{"src": 0, "dst": 1, "size": "100GB", "tag": 0}]
        if rate > 0:
            flows.append(
                {
                    "src": 0,
                    "dst": 2,
                    "size": "100GB",
                    "tag": 1,
                    "transport": "udp",
                    "udp_rate": f"{rate}Mbps",
                }
            )
        tags = [f["tag"] for f in flows]
        name = f"eba-fig9 Y at {rate} Mb/s ({scale})"
        doc = one_link_doc(name, VMS, flows, table, stop, stop / 100)
        means = vm_flow_means(doc, tags, 0.8 * stop, stop)
        x = float(means[0]) / 1e6
        y = float(means[1]) / 1e6 if rate > 0 else 0.0
        expected = 900.0 - min(rate, 450)
        rows.append(
            {
                "y_rate_mbps": rate,
                "x_mbps": x,
                "y_mbps": y,
                "total_mbps": x + y,
                "x_expected_mbps": expected,
            }
        )
        t.add_row(str(rate), f"{x:.1f}", f"{y:.1f}", f"{x + y:.1f}", f"{expected:.0f}")
    t.print(console)
    return PaperResult(rows, [], [t])


ENTRY = Entry(
    name="eba-fig9",
    title="eBA: work conservation, X's TCP beside Y's UDP traffic from 0 to 900 Mb/s",
    paper="eBA (Liu et al., ToN 2017), §VII-A",
    figure="Fig. 9",
    scales={
        "smoke": "Y's UDP at 0, 300, 600, 900 Mb/s, LRC, 0.3 s each at 100-fold speed",
        "full": "Y's UDP from 0 to 900 Mb/s in steps of 100, LRC, the paper's parameters, "
        "30 s each",
    },
    run_fn=run,
)
