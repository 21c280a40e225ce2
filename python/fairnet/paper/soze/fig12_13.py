"""Söze §5.2.1, Figs. 12–13: step-in & step-out on the eRPC testbed, Söze against TIMELY.

"We connect four servers with DPDK-capable CX-4 NIC to a Tofino-1 programmable switches in a
star topology ... When multiple hosts send write requests to the same host, the switch egress
port to that destination host will become the bottleneck ... we compare our scheme with Timely
[39], the default CC used in eRPC." "The bandwidth is 25 Gbps." Claims (plots, no numbers):
"When there is only one flow, Söze achieves higher utilization than Timely; and when a new flow
arrives or an existing flow completes, Söze converges to the new optimal allocation faster than
Timely" (Fig. 12); "Söze still achieves lower RTT than Timely" (Fig. 13).

Ours: a packet-engine stand-in for the testbed, not eRPC: a 25 Gb/s star of four hosts (1 µs
links, 32 MB buffers), hosts 0–2 each send one long stream (the testbed's back-to-back 7 MB RPC
writes) to host 3. Flow i starts at i·P; its size is what the ideal allocation delivers if it
ends at (3 + i)·P, so the run steps 1 → 2 → 3 → 2 → 1 flows (as Fig. 14). Söze as in the other
entries (``paper.soze.common.soze_engine``: §4's parameters, no filter — the per-RTT
reference-rate update — backlog signal, queueing host NIC); TIMELY with its defaults
(``transport = "timely"``, ``docs/packet-engine.md``). Per phase (cut at each run's own starts
and ends): utilization of the bottleneck and the largest error against the oracle's 25/n Gb/s
over the phase's second half, the time until every flow stays within 10% of its share (20 µs
windows), and the mean queueing delay of the bottleneck port — the RTT less the base RTT
(4.7 µs), Fig. 13's quantity.

Scales: ``smoke`` P = 2 ms, ``full`` P = 20 ms (the paper gives no timeline).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.soze.common import (
    INTERVAL,
    Series,
    max_err,
    plot_rates,
    run_series,
    soze_engine,
    step_flows,
    step_phases,
    us,
)
from fairnet.paper.tables import Column, ResultTable, key

N = 3
DST = 3
RATE_BPS = 25e9
#: The star's switch → host 3 link (link 2i + 1 for host i): the bottleneck port.
BOTTLENECK = 7
PHASE_S = {"smoke": 2e-3, "full": 20e-3}
SCHEMES = ("Söze", "TIMELY")


def engine(scheme: str) -> dict[str, Any]:
    """The packet-engine table of ``scheme``, recording every 10 µs."""
    if scheme == "Söze":
        return soze_engine()
    return {"kind": "packet", "transport": "timely", "record": {"interval": INTERVAL}}


def scenario(scale: str, scheme: str) -> dict[str, Any]:
    """Figs. 12–13's run of ``scheme`` as a scenario document."""
    p = PHASE_S[scale]
    flows = step_flows(N, DST, RATE_BPS, p)
    return {
        "name": f"soze-fig12-13 ({scale}, {scheme})",
        "topology": {"kind": "star", "n_hosts": N + 1, "rate": "25Gbps"},
        "workload": {"kind": "flows", "flows": flows},
        "engine": engine(scheme),
        "stop_at": us((2 * N + 1) * p),
    }


def _max_qdelay(s: Series, a: float, b: float) -> float:
    """Largest sampled queueing delay (s) of the bottleneck in ``(a, b]``."""
    q = s.queues.get(BOTTLENECK)
    sel = (s.times > a + 1e-12) & (s.times <= b + 1e-12)
    return float(q[sel].max(initial=0.0)) if q is not None else 0.0


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    runs = {name: run_series(scenario(scale, name), N) for name in SCHEMES}
    steps = {name: step_phases(s, RATE_BPS) for name, s in runs.items()}
    rows: list[dict[str, Any]] = []
    for name, s in runs.items():
        for k, (a, b, want) in enumerate(steps[name]):
            mid = (a + b) / 2
            got = s.mean(mid, b)
            rows.append(
                {
                    "scheme": name,
                    "phase": k + 1,
                    "active": int((want > 0).sum()),
                    "from_ms": a * 1e3,
                    "to_ms": b * 1e3,
                    "utilization": float(got.sum()) / RATE_BPS,
                    "max_error": max_err(got, want),
                    "converged_us": s.convergence(a, b, want) * 1e6,
                    "qdelay_us": s.mean_qdelay(BOTTLENECK, mid, b) * 1e6,
                    "max_qdelay_us": _max_qdelay(s, a, b) * 1e6,
                    "paper": "Söze: higher utilization, faster convergence, lower RTT (plots)",
                }
            )
    t = ResultTable(
        f"Söze Figs. 12–13 ({scale}): 1 → 3 → 1 flows into one 25 Gb/s port",
        (
            key("scheme"),
            key("phase"),
            key("flows"),
            Column("utilization", "ours"),
            Column("max error", "ours vs oracle"),
            Column("converged", "ours"),
            Column("queue mean", "ours"),
            Column("queue max", "ours"),
        ),
        note="Paper (§5.2.1, Figs. 12–13, eRPC testbed, no numbers): 'When there is only one "
        "flow, Söze achieves higher utilization than Timely'; after arrivals and completions "
        "'Söze converges to the new optimal allocation faster than Timely'; 'Söze still "
        "achieves lower RTT than Timely'. Utilization, errors and the mean queue over each "
        "phase's second half, the largest queue over the whole phase; queue: queueing delay of "
        "the bottleneck (RTT − 4.7 us base RTT); converged inf: never within 10%.",
    )
    for r in rows:
        t.add_row(
            r["scheme"],
            str(r["phase"]),
            str(r["active"]),
            f"{r['utilization'] * 100:.1f}%",
            f"{r['max_error'] * 100:.1f}%",
            f"{r['converged_us']:.0f} us",
            f"{r['qdelay_us']:.1f} us",
            f"{r['max_qdelay_us']:.1f} us",
        )
    t.print(console)

    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(11.0, 6.4), sharex=True)
    for col, name in enumerate(("TIMELY", "Söze")):
        s = runs[name]
        ax = axes[0][col]
        plot_rates(
            ax, s.times, s.rates, [f"flow {i + 1}" for i in range(N)], steps[name], window=10
        )
        ax.set_title(f"Fig. 12({'ab'[col]}) {name}: throughput (dashed: oracle)")
        ax.legend(fontsize=7)
        ax = axes[1][col]
        q = s.queues.get(BOTTLENECK, np.zeros(len(s.times)))
        ax.plot(s.times * 1e3, (q + 4.7e-6) * 1e6, lw=0.8)
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("RTT (µs)")
        ax.set_title(f"Fig. 13({'ab'[col]}) {name}: base RTT + queueing delay")
    return PaperResult(rows, save_figure(fig, outdir, "soze-fig12-13"), [t])


ENTRY = Entry(
    name="soze-fig12-13",
    title="Söze vs TIMELY: step-in & step-out of 3 flows into one 25 Gb/s port",
    paper="Söze (Wang & Ng), §5.2.1",
    figure="Figs. 12–13",
    scales={
        "smoke": "25 Gb/s star, 3 senders to one host, 2 ms steps; Söze and TIMELY",
        "full": "the same with 20 ms steps",
    },
    run_fn=run,
)
