"""Söze §3.1.4–3.1.5, Fig. 2: "Convergence for 4 flows on a single switch" — (a) to the target
queueing delay, (b) to the weighted fair share.

Four senders of a star send to one host through one 100 Gb/s switch port, with weights 1, 2, 3,
4. The paper gives the figure only; its claims are that the flows converge to the weighted
fair shares (the oracle: 10, 20, 30, 40 Gb/s, 10 Gb/s per unit weight) and that the queue
converges to the target delay of that share, Eq. 6: ``T(r/w) = p·(ln α − ln(r/w))/(ln α − ln β)
+ k`` with §4's p = 20 µs, k = 3 µs and the engine's default range α = 100 Gb/s (line rate /
smallest weight), β = 10 Gb/s (capacity / Σ weights), so T(10 Gb/s) = 23 µs.

Scales: ``smoke`` 1 ms, ``full`` 5 ms; rates and delay are measured over the second half.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.soze.common import (
    LINK_BPS,
    flow_list,
    max_err,
    oracle,
    plot_rates,
    run_series,
    soze_engine,
    target_delay,
    us,
)
from fairnet.paper.tables import Column, ResultTable, key

WEIGHTS = [1.0, 2.0, 3.0, 4.0]
#: The star's switch → host 4 link (link 2i + 1 for host i): the bottleneck port.
BOTTLENECK = 9
DURATION_S = {"smoke": 1e-3, "full": 5e-3}


def scenario(scale: str) -> dict[str, Any]:
    """Fig. 2 as a scenario document."""
    return {
        "name": f"soze-fig2 ({scale})",
        "topology": {"kind": "star", "n_hosts": 5},
        "workload": {
            "kind": "flows",
            "flows": flow_list([{"src": i, "dst": 4, "weight": w} for i, w in enumerate(WEIGHTS)]),
        },
        "engine": soze_engine(),
        "stop_at": us(DURATION_S[scale]),
    }


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    end = DURATION_S[scale]
    s = run_series(scenario(scale), len(WEIGHTS))
    # Each sender's NIC link, then the shared port.
    links = [LINK_BPS] * 5
    want = oracle(links, [[i, 4] for i in range(4)], WEIGHTS)
    got = s.mean(end / 2, end)
    qd = s.mean_qdelay(BOTTLENECK, end / 2, end)
    share = LINK_BPS / sum(WEIGHTS)
    target = target_delay(share, LINK_BPS / min(WEIGHTS), share)
    conv = s.convergence(0.0, end, want)
    rows: list[dict[str, Any]] = []
    for f, w in enumerate(WEIGHTS):
        rows.append(
            {
                "what": f"flow {f + 1} (weight {w:g}) rate",
                "ours_gbps": got[f] / 1e9,
                "oracle_gbps": want[f] / 1e9,
                "error": abs(got[f] - want[f]) / want[f],
                "paper": "converges to the weighted share (figure only)",
            }
        )
    rows.append(
        {
            "what": "queueing delay at the port",
            "ours_us": qd * 1e6,
            "target_us": target * 1e6,
            "error": abs(qd - target) / target,
            "paper": "converges to the target delay T (figure only)",
        }
    )
    rows.append(
        {
            "what": "time to within 10% (20 us windows) from a line-rate start",
            "ours_us": conv * 1e6,
            "max_error": max_err(got, want),
            "paper": "Fig. 2: converges (no number)",
        }
    )
    t = ResultTable(
        f"Söze Fig. 2 ({scale}): 4 flows, weights 1-4, one 100 Gb/s port",
        (
            key("quantity"),
            Column("value", "ours"),
            Column("value", "oracle / Eq. 6 target"),
            Column("error", "ours vs oracle"),
            Column("§3.1, Fig. 2", "paper", text=True),
        ),
    )
    for r in rows[:4]:
        t.add_row(
            r["what"],
            f"{r['ours_gbps']:.2f} Gb/s",
            f"{r['oracle_gbps']:.2f} Gb/s",
            f"{r['error'] * 100:.2f}%",
            r["paper"],
        )
    t.add_row(
        rows[4]["what"],
        f"{rows[4]['ours_us']:.2f} us",
        f"T = {rows[4]['target_us']:.2f} us",
        f"{rows[4]['error'] * 100:.2f}%",
        rows[4]["paper"],
    )
    t.add_row(rows[5]["what"], f"{rows[5]['ours_us']:.0f} us", "", "", rows[5]["paper"])
    t.print(console)

    plt = pyplot()
    fig, (ax_q, ax_r) = plt.subplots(1, 2, figsize=(10.0, 3.4))
    q = s.queues.get(BOTTLENECK, np.zeros(len(s.times)))
    ax_q.plot(s.times * 1e3, q * 1e6, lw=1.0, label="queueing delay")
    ax_q.axhline(
        target * 1e6, ls="--", color="k", lw=0.9, label=f"target T = {target * 1e6:.0f} µs"
    )
    ax_q.set_xlabel("time (ms)")
    ax_q.set_ylabel("queueing delay (µs)")
    ax_q.set_title("(a) convergence to the target queueing delay")
    ax_q.legend(fontsize=8)
    labels = [f"flow {i + 1} (w = {w:g})" for i, w in enumerate(WEIGHTS)]
    plot_rates(ax_r, s.times, s.rates, labels, [(0.0, end, want)], window=2)
    ax_r.set_title("(b) convergence to the weighted fair share")
    ax_r.legend(fontsize=8)
    return PaperResult(rows, save_figure(fig, outdir, "soze-fig2"), [t])


ENTRY = Entry(
    name="soze-fig2",
    title="Söze: 4 weighted flows on one switch converge to weighted shares and the target delay",
    paper="Söze (Wang & Ng), §3.1.4-3.1.5",
    figure="Fig. 2",
    scales={
        "smoke": "star, 4 flows (weights 1-4) into one 100 Gb/s port, 1 ms",
        "full": "the same, 5 ms",
    },
    run_fn=run,
)
