"""Söze §5.3.1, Fig. 17: weighted max-min fairness when a bottleneck moves.

Two switches, six flows (``topology.kind = "soze_fig17"``): flows 1–4 share switch 1's port
towards switch 2 (link 0); flows 2–6 share switch 2's port towards their common destination
(link 2). Flow 1's weight steps 1 → 2 → 3 → 4 → 5, one step per phase ("During time 0 ms to time
50 ms, we increase the weight of flow 1 from 1 to 5 every 10 ms", Fig. 17 caption), through
the scenario's ``weight_changes``.

The paper's claims (§5.3.1 and the Fig. 17 caption): "When the weight of flow 1 is smaller than
2, flow 1 remains at 40 Gbps since switch 2 is the most congested hop; but when the weight is
higher than 2, flow 1's rate increases because the congested hop has become switch 1"; "the
bottleneck hop changes at time 20 ms, and Söze handles the changing bottleneck rapidly within 10
RTTs". Fig. 17(c): WRR at the switches with a queueing-delay AIMD at the hosts (+1 per RTT
below 20 µs, −20% above) keeps rates "maintained correctly around the weighted max-min fair
allocation", with "link utilization ... lower than with Söze".

Ours: the same weight schedule (``weight_changes``) for Söze and for WRR + delay AIMD
(``transport = "delay_aimd"``, ``qdisc = { kind = "wrr" }``, one queue per flow by priority
class; a weight change re-weights the flow's WRR queue at every switch, as an operator
reconfiguring the switches would). Each phase is checked against the oracle
(:func:`fairnet.allocate`) over its second half.

Scales: ``smoke`` 2 ms phases (10 ms in all), ``full`` the paper's 10 ms phases (50 ms).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.soze.common import (
    INTERVAL,
    LINK_BPS,
    flow_list,
    max_err,
    oracle,
    plot_rates,
    run_series,
    soze_engine,
    us,
    weight_steps,
)
from fairnet.paper.tables import Column, ResultTable, key

WEIGHTS = [1.0, 2.0, 3.0, 4.0, 5.0]
PHASE_S = {"smoke": 2e-3, "full": 10e-3}
#: (src, dst) node ids of flows 1–6 on the ``soze_fig17`` topology.
PAIRS = [(0, 6), (1, 7), (2, 7), (3, 7), (4, 7), (5, 7)]
#: Engine link ids of switch 1's and switch 2's congested ports.
SW1, SW2 = 0, 2
#: Oracle links: switch 1's port, switch 2's port, switch 2 → dst1, then the six senders' NICs.
LINKS = [LINK_BPS] * 9
PATHS = [[3, 0, 2], [4, 0, 1], [5, 0, 1], [6, 0, 1], [7, 1], [8, 1]]
#: Base RTT of the paths (3 hops each way at 1 µs plus serialization), for "RTTs".
BASE_RTT_S = 6.3e-6
#: Fig. 17(b)'s flow 1 rates as the caption states them (40 Gb/s for weights 1 and 2).
PAPER_FLOW1 = {1.0: "40 Gb/s", 2.0: "40 Gb/s", 3.0: "increases", 4.0: "increases", 5.0: "increases"}


def scenario(scale: str, wrr: bool = False) -> dict[str, Any]:
    """Fig. 17 as a scenario document: flow 1's weight stepped every phase, with Söze (b) or
    (``wrr``) with WRR switches (one queue per flow, reweighted with the flow) and the
    queueing-delay AIMD at the hosts (c)."""
    p = PHASE_S[scale]
    flows = [{"src": s, "dst": d, "priority": i} for i, (s, d) in enumerate(PAIRS)]
    engine = soze_engine()
    if wrr:
        engine = {
            "kind": "packet",
            "transport": "delay_aimd",
            "qdisc": {"kind": "wrr", "weights": [1] * len(PAIRS)},
            "record": {"interval": INTERVAL},
        }
    return {
        "name": f"soze-fig17{'c' if wrr else ''} ({scale})",
        "topology": {"kind": "soze_fig17"},
        "workload": {"kind": "flows", "flows": flow_list(flows)},
        "weight_changes": weight_steps(0, WEIGHTS, p),
        "engine": engine,
        "stop_at": us(len(WEIGHTS) * p),
    }


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    p = PHASE_S[scale]
    s = run_series(scenario(scale), len(PAIRS))
    c = run_series(scenario(scale, wrr=True), len(PAIRS))
    rows: list[dict[str, Any]] = []
    steps = []
    for k, w in enumerate(WEIGHTS):
        a, b = k * p, (k + 1) * p
        weights = [w] + [1.0] * 5
        want = oracle(LINKS, PATHS, weights)
        steps.append((a, b, want))
        got = s.mean(a + p / 2, b)
        q1 = s.mean_qdelay(SW1, a + p / 2, b)
        q2 = s.mean_qdelay(SW2, a + p / 2, b)
        rtt = BASE_RTT_S + max(q1, q2)
        conv = s.convergence(a, b, want)
        w_got = c.mean(a + p / 2, b)
        w_conv = c.convergence(a, b, want)
        rows.append(
            {
                "weight": w,
                "soze_gbps": [x / 1e9 for x in got],
                "oracle_gbps": [x / 1e9 for x in want],
                "soze_max_error": max_err(got, want),
                "qdelay_sw1_us": q1 * 1e6,
                "qdelay_sw2_us": q2 * 1e6,
                "bottleneck_of_flows_2_4": "switch 1" if q1 > q2 else "switch 2",
                "oracle_bottleneck_of_flows_2_4": "switch 1" if w > 2 else "switch 2 (tie at 2)",
                "converged_us": conv * 1e6,
                "converged_rtts": conv / rtt if math.isfinite(conv) else math.inf,
                "wrr_gbps": [x / 1e9 for x in w_got],
                "wrr_max_error": max_err(w_got, want),
                "wrr_converged_us": w_conv * 1e6,
                "soze_util_sw1": float(got[:4].sum() / LINK_BPS),
                "soze_util_sw2": float(got[1:].sum() / LINK_BPS),
                "wrr_util_sw1": float(w_got[:4].sum() / LINK_BPS),
                "wrr_util_sw2": float(w_got[1:].sum() / LINK_BPS),
                "paper_flow1": PAPER_FLOW1[w],
                "paper_convergence": "within 10 RTTs (§5.3.1)",
            }
        )
    t = ResultTable(
        f"Söze Fig. 17 ({scale}): flow 1's weight 1 → 5, {p * 1e3:g} ms phases",
        (
            key("w1"),
            Column("flow 1 Gb/s", "ours"),
            Column("flow 1 Gb/s", "oracle"),
            Column("flow 1", "paper", text=True),
            Column("flows 2-6 Gb/s", "ours"),
            Column("max error Söze", "ours vs oracle"),
            Column("converged Söze", "ours"),
            Column("qdelay sw1 / sw2", "ours"),
            Column("util sw1 / sw2 Söze", "ours"),
            Column("max error WRR+AIMD", "ours vs oracle"),
            Column("converged WRR+AIMD", "ours"),
            Column("util sw1 / sw2 WRR+AIMD", "ours"),
        ),
        note="Paper (§5.3.1): bottleneck of flows 2-4 moves to switch 1 above weight 2 and Söze "
        "converges 'within 10 RTTs'; WRR+AIMD rates 'maintained correctly around' the "
        "allocation with lower utilization. WRR: each switch's WRR weight of flow 1's queue "
        "follows its weight.",
    )
    for r in rows:
        t.add_row(
            f"{r['weight']:g}",
            f"{r['soze_gbps'][0]:.1f}",
            f"{r['oracle_gbps'][0]:.1f}",
            r["paper_flow1"],
            " ".join(f"{x:.1f}" for x in r["soze_gbps"][1:]),
            f"{r['soze_max_error'] * 100:.2f}%",
            f"{r['converged_us']:.0f} us ({r['converged_rtts']:.1f} RTTs)",
            f"{r['qdelay_sw1_us']:.1f} / {r['qdelay_sw2_us']:.1f} us",
            f"{r['soze_util_sw1'] * 100:.1f} / {r['soze_util_sw2'] * 100:.1f}%",
            f"{r['wrr_max_error'] * 100:.2f}%",
            f"{r['wrr_converged_us']:.0f} us",
            f"{r['wrr_util_sw1'] * 100:.1f} / {r['wrr_util_sw2'] * 100:.1f}%",
        )
    t.print(console)

    plt = pyplot()
    fig, (ax_b, ax_c) = plt.subplots(1, 2, figsize=(11.0, 3.6), sharey=True)
    labels = [f"flow {i + 1}" for i in range(len(PAIRS))]
    plot_rates(ax_b, s.times, s.rates, labels, steps, window=10)
    ax_b.set_title("(b) Söze (dashed: oracle)")
    ax_b.legend(fontsize=7, ncol=2)
    plot_rates(ax_c, c.times, c.rates, labels, steps, window=10)
    ax_c.set_title("(c) WRR + delay AIMD (dashed: oracle)")
    return PaperResult(rows, save_figure(fig, outdir, "soze-fig17"), [t])


ENTRY = Entry(
    name="soze-fig17",
    title="Söze: flow 1's weight 1 → 5 moves the bottleneck; rates follow the oracle",
    paper="Söze (Wang & Ng), §5.3.1",
    figure="Fig. 17",
    scales={
        "smoke": "2-switch 6-flow topology, 2 ms per weight (10 ms); Söze and WRR+AIMD",
        "full": "the same with the paper's 10 ms per weight (50 ms)",
    },
    run_fn=run,
)
