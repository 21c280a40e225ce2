"""MAY §IV.D, Fig. 9: flow completion times of short TCP flows sharing a 40 Mb/s link with 50
long ones, under RED, DRR, LAS and MAY.

Paper: "250 short-lived TCP flows share a 40Mbps bottleneck link with 50 long-lived TCP
flows. Each connection has no ssthresh_ nor cwnd_ limitations, delayed acknowledgements are
switched on and packet sizes are 1000bytes. RTT's of short-lived flows are 100ms ..., and RTT's
of long-lived flows are uniformly distributed in [20ms, 200ms]. The sizes of short-lived flows
are picked randomly with uniform distribution in the interval [1, 1000] packets, and are
initiated at rate of one per second". AFCT: RED 8.14 s, DRR 10.34 s, LAS 1.26 s, MAY 1.72 s.

Ours: the scenario of :mod:`fairnet.paper.may.common`; the long flows start in the first
second and the short ones from 5 s on, one a second (the paper gives no warm-up: ours lets the
long flows leave slow start first); sizes drawn with a fixed seed; the run lasts until every
short flow could finish (60 s after the last starts); the buffer is §IV.B's 100 packets. FCT:
from a flow's start to its last byte's arrival.

Scales: ``smoke`` 25 short flows, 10 long flows on 8 Mb/s (the same 0.8 Mb/s per long flow);
``full`` the paper's 250 and 50 on 40 Mb/s. Seed 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

import fairnet
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.may.common import (
    LONG,
    PAYLOAD,
    adaptive_red,
    drr_ns2,
    las,
    may,
    node_index,
    one_link,
    wan_engine,
)
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key

#: scale -> (short flows, long flows, link Mb/s)
SETTINGS = {"smoke": (25, 10, 8), "full": (250, 50, 40)}
PAPER_AFCT = {"RED": 8.14, "DRR": 10.34, "LAS": 1.26, "MAY": 1.72}
WARMUP_S = 5
TAIL_S = 60


def scenario(scale: str, outdir: Path) -> tuple[dict[str, Any], np.ndarray, int]:
    """The topology and flows (without the engine), the short flows' sizes (packets) and the
    number of long flows."""
    n_short, n_long, mbps = SETTINGS[scale]
    rtts = [20 + 180 * i / (n_long - 1) for i in range(n_long)] + [100.0] * n_short
    topo, flows = one_link(mbps * 1e6, rtts)
    sizes = np.random.default_rng(9).integers(1, 1001, n_short)
    spec = []
    for k, (s, t, _) in enumerate(flows):
        if k < n_long:
            size, start = LONG, f"{20 * k}ms"
        else:
            size, start = int(sizes[k - n_long]) * PAYLOAD, f"{WARMUP_S + k - n_long}s"
        spec.append(
            {"src": node_index(topo, s), "dst": node_index(topo, t), "size": size, "start": start}
        )
    doc = {
        "topology": topo.write(outdir / "fig9-topology.json"),
        "workload": {"kind": "flows", "flows": spec},
        "stop_at": f"{WARMUP_S + n_short + TAIL_S}s",
    }
    return doc, sizes, n_long


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    n_short, n_long, mbps = SETTINGS[scale]
    base, sizes, _ = scenario(scale, outdir)
    schemes: list[tuple[str, dict[str, Any]]] = [
        ("RED", adaptive_red()),
        ("DRR", drr_ns2()),
        ("LAS", las()),
        ("MAY", may()),
    ]
    rows: list[dict[str, Any]] = []
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8.0, 4.0))
    t = ResultTable(
        f"MAY Fig. 9 ({scale}): {n_short} short TCP flows (1–1000 packets) and {n_long} long "
        f"ones on {mbps} Mb/s",
        (
            key("scheme"),
            Column("AFCT s", "ours"),
            Column("AFCT s", "paper"),
            Column("finished", "ours"),
        ),
        note="AFCT: mean FCT of the short flows that finished within the run (the count "
        f"beside it; the run ends {TAIL_S} s after the last short flow starts). Paper: 250 "
        "short and 50 long flows on 40 Mb/s.",
    )
    for label, qdisc in schemes:
        doc = base | {"name": f"may-fig9 {label} ({scale})", "engine": wan_engine(qdisc, seed=1)}
        doc["engine"].pop("record")
        f = fairnet.run(doc).flows
        fct = (f["end_s"] - f["start_s"]).to_numpy()[n_long:]
        done = np.isfinite(fct)
        afct = float(np.mean(fct[done])) if done.any() else float("nan")
        for k in range(n_short):
            rows.append(
                {
                    "scheme": label,
                    "flow": k + 1,
                    "size_packets": int(sizes[k]),
                    "fct_s": float(fct[k]) if done[k] else None,
                    "afct_s": afct,
                    "paper_afct_s": PAPER_AFCT[label],
                }
            )
        t.add_row(label, f"{afct:.2f}", f"{PAPER_AFCT[label]:.2f}", f"{int(done.sum())}/{n_short}")
        ax.scatter(sizes[done], fct[done], s=8, label=f"{label} (AFCT {afct:.2f} s)")
    ax.set(xlabel="flow size (packets)", ylabel="FCT (s)", yscale="log")
    ax.legend(fontsize=8)
    t.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "may-fig9"), [t])


ENTRY = Entry(
    name="may-fig9",
    title="MAY: FCT of short TCP flows beside long ones (RED, DRR, LAS, MAY)",
    paper="MAY (Stanojević & Shorten), §IV.D",
    figure="Fig. 9",
    scales={
        "smoke": "25 short flows (1–1000 packets, one a second) and 10 long on 8 Mb/s",
        "full": "the paper's 250 short and 50 long flows on 40 Mb/s",
    },
    run_fn=run,
)
