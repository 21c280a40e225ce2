"""Söze §5.3.2–5.3.3, Fig. 18(b)–(d): granularity of weights and of multiple connections.

"We create a simple in-cast scenario, where two flows are sent to the same destination host. In
Figure 18(b), we increase the weight for flow 0 every 2 milliseconds by 5‰, 10‰, 20‰, etc. The
figure shows that the rate allocation can be accurately stabilized around any level, even when
the weight difference is relatively small. ... In Figure 18(c), Söze adds one connection for
flow 0 every 5 milliseconds. The rate allocation changes accurately accordingly to the number of
connections, but the allocation granularity is limited to weights with integer numbers. For HPCC
with multi-connection in Figure 18(d), the flow rates are also maintained around the weighted
allocation, but the rate enforcement is less accurate" (§5.3.2). No numbers are given.

Our reading of "by 5‰, 10‰, 20‰, etc.": flow 0's weight is 1.005, 1.01, 1.02, 1.04, 1.08 (the
difference to flow 1 doubling each step). (c)/(d): flow 0 is 1, 2, 3, 4 unit-weight connections
(one more every step), flow 1 one connection; the oracle gives flow 0 k/(k + 1) of the port.
Phases are checked against the oracle (:func:`fairnet.allocate`) over their second half.

Scales: ``smoke`` 0.6 ms (b) and 1 ms (c, d) per step; ``full`` the paper's 2 ms and 5 ms.
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
    hpcc_engine,
    oracle,
    plot_rates,
    run_series,
    soze_engine,
    us,
    weight_steps,
)
from fairnet.paper.tables import Column, ResultTable, key

WEIGHTS = [1.005, 1.01, 1.02, 1.04, 1.08]
CONNECTIONS = [1, 2, 3, 4]
STEP_S = {"smoke": (0.6e-3, 1e-3), "full": (2e-3, 5e-3)}
DST = 2


def weights_scenario(scale: str) -> dict[str, Any]:
    """Fig. 18(b): two flows into host 2 of a star; flow 0's weight stepped."""
    p = STEP_S[scale][0]
    return {
        "name": f"soze-fig18b ({scale})",
        "topology": {"kind": "star", "n_hosts": 3},
        "workload": {
            "kind": "flows",
            "flows": flow_list(
                [{"src": 0, "dst": DST, "weight": WEIGHTS[0]}, {"src": 1, "dst": DST}]
            ),
        },
        "weight_changes": weight_steps(0, WEIGHTS, p),
        "engine": soze_engine(),
        "stop_at": us(len(WEIGHTS) * p),
    }


def connections_scenario(scale: str, engine: dict[str, Any]) -> dict[str, Any]:
    """Fig. 18(c)/(d): flow 1 (one connection) and flow 0's connections, one more per step
    (connection j of flow 0 starts at j·step; all connections run on host 0's NIC)."""
    p = STEP_S[scale][1]
    flows = [{"src": 1, "dst": DST, "tag": 1}] + [
        {"src": 0, "dst": DST, "start": us(j * p), "tag": 0} for j in range(len(CONNECTIONS))
    ]
    return {
        "name": f"soze-fig18cd ({scale})",
        "topology": {"kind": "star", "n_hosts": 3},
        "workload": {"kind": "flows", "flows": flow_list(flows)},
        "engine": engine,
        "stop_at": us(len(CONNECTIONS) * p),
    }


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    pb, pc = STEP_S[scale]
    rows: list[dict[str, Any]] = []
    # Oracle links: the two senders' NICs (0, 1), the shared port (2).
    b = run_series(weights_scenario(scale), 2)
    b_steps = []
    for k, w in enumerate(WEIGHTS):
        want = oracle([LINK_BPS] * 3, [[0, 2], [1, 2]], [w, 1.0])
        got = b.mean(k * pb + pb / 2, (k + 1) * pb)
        b_steps.append((k * pb, (k + 1) * pb, want))
        rows.append(
            {
                "panel": "b",
                "setting": f"w0 = {w:g}",
                "ours_gbps": [x / 1e9 for x in got],
                "oracle_gbps": [x / 1e9 for x in want],
                "error": float(np.abs(got - want).max() / want.min()),
                "paper": "stable at any level",
            }
        )
    cd = {
        "c": run_series(connections_scenario(scale, soze_engine()), 1 + len(CONNECTIONS)),
        "d": run_series(connections_scenario(scale, hpcc_engine()), 1 + len(CONNECTIONS)),
    }
    cd_rates: dict[str, list[tuple[float, float, np.ndarray, np.ndarray]]] = {"c": [], "d": []}
    for panel, s in cd.items():
        for k, n in enumerate(CONNECTIONS):
            # Every connection on host 0's NIC, then the shared port: one unit weight each.
            paths = [[1, 2]] + [[0, 2] if j < n else [] for j in range(len(CONNECTIONS))]
            want_each = oracle([LINK_BPS] * 3, paths, [1.0] * len(paths))
            want = np.array([want_each[1:].sum(), want_each[0]])
            per = s.mean(k * pc + pc / 2, (k + 1) * pc)
            got = np.array([per[1:].sum(), per[0]])
            cd_rates[panel].append((k * pc, (k + 1) * pc, got, want))
            rows.append(
                {
                    "panel": panel,
                    "setting": f"{'Söze' if panel == 'c' else 'HPCC'}, {n} connection(s)",
                    "ours_gbps": [x / 1e9 for x in got],
                    "oracle_gbps": [x / 1e9 for x in want],
                    "error": float(np.abs(got - want).max() / want.min()),
                    "paper": "accurate" if panel == "c" else "less accurate",
                }
            )
    t = ResultTable(
        f"Söze Fig. 18(b)-(d) ({scale}): flow 0 vs flow 1 into one 100 Gb/s port",
        (
            key("panel"),
            key("setting"),
            Column("flow 0 / flow 1 Gb/s", "ours"),
            Column("flow 0 / flow 1 Gb/s", "oracle"),
            Column("error", "ours vs oracle"),
            Column("§5.3.2", "paper", text=True),
        ),
        note="error: largest |ours - oracle| over the smaller oracle rate, second half of each "
        "step.",
    )
    for r in rows:
        t.add_row(
            r["panel"],
            r["setting"],
            " / ".join(f"{x:.2f}" for x in r["ours_gbps"]),
            " / ".join(f"{x:.2f}" for x in r["oracle_gbps"]),
            f"{r['error'] * 100:.2f}%",
            r["paper"],
        )
    t.print(console)

    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13.0, 3.4))
    labels = ["flow 0", "flow 1"]
    plot_rates(axes[0], b.times, b.rates, labels, b_steps, window=10)
    axes[0].set_title("(b) Söze, flow 0: weight 1.005, 1.01, ...")
    for ax, panel, name in ((axes[1], "c", "Söze"), (axes[2], "d", "HPCC")):
        s = cd[panel]
        # Flow 0's connections summed, then flow 1.
        rates = np.stack([s.rates[:, 1:].sum(axis=1), s.rates[:, 0]], axis=1)
        steps = [(a, e, want) for a, e, _, want in cd_rates[panel]]
        plot_rates(ax, s.times, rates, labels, steps, window=10)
        ax.set_title(f"({panel}) {name}, flow 0: +1 connection per step")
    for ax in axes:
        ax.legend(fontsize=7)
    return PaperResult(rows, save_figure(fig, outdir, "soze-fig18"), [t])


ENTRY = Entry(
    name="soze-fig18",
    title="Söze: fine weight steps vs integer multi-connection (Söze and HPCC)",
    paper="Söze (Wang & Ng), §5.3.2-5.3.3",
    figure="Fig. 18(b)-(d)",
    scales={
        "smoke": "2-flow incast; weight steps every 0.6 ms, a connection added every 1 ms",
        "full": "the paper's 2 ms weight steps and 5 ms connection steps",
    },
    run_fn=run,
)
