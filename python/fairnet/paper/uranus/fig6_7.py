"""Uranus §5.1.2, Figs. 6–7: WVCC on the testbed, weights 1/4, 2/4, 3/4 → 1/6, 1/3, 1/2 of
the link.

Scenario 1 (Fig. 6): the three flows for the whole run (paper: 100 s). Scenario 2 (Fig. 7):
flows 1–2 from 0 to 100 s, flow 3 from 50 to 150 s. Both at 1 and 10 Gb/s. The paper shows
instantaneous, moving-average and overall throughput (plots) and states: "WVCC is able to
achieve the goal of congestion proportionality among various flows according to their
allocated weights"; flow 3 "consumes all available bandwidth quickly" when flows 1–2 end
(work conservation); "the convergence time of WVCC is similar to that of DCTCP, which is in
the order of 20–30 ms at 1Gbps, and 80–150 ms at 10 Gbps".

Ours: the testbed of :mod:`fairnet.paper.uranus.common` with ``host_shim = "wvcc"`` over CUBIC
guests. The scenario runner has no per-flow stop time, so in scenario 2 flows 1–2 are given
the bytes their weighted shares deliver from 0 to the end of their period (1/3 and 2/3 of the
link while alone, 1/6 and 1/3 with flow 3): they end at the paper's time if WVCC holds the
shares, and their actual end times are reported. Instantaneous throughput: the recorded
samples; moving average: over ``MOVING`` samples; overall: each flow's mean over its active
time. Convergence after each change (a start, a join, the departures): the time until every
active flow stays within 10% of its weighted max-min rate (the oracle), judged on means over
10 samples.

Scales: ``smoke`` shortens the paper's 100 s periods to 0.2 s (1 ms samples); ``full`` is the
paper's 100 s periods (10 ms samples; hours of simulation at 10 Gb/s).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key
from fairnet.paper.uranus.common import (
    LONG,
    PAYLOAD,
    TESTBED_RTT_S,
    WIRE,
    Series,
    max_err,
    oracle,
    plot_rates,
    run_series,
    shim_engine,
    testbed,
    us,
)

WEIGHTS = [0.25, 0.5, 0.75]
RATES_GBPS = [1, 10]
#: The paper's period (flows 1–2 run 0 → T, flow 3 T/2 → 3T/2 in scenario 2; all 0 → T in
#: scenario 1), seconds, and the sampling interval, per scale.
PERIOD_S = {"smoke": 0.2, "full": 100.0}
INTERVAL_S = {"smoke": 1e-3, "full": 10e-3}
#: Samples per moving-average window and per convergence judgement.
MOVING, CONV_WINDOW = 10, 10
#: The paper's convergence times (DCTCP's, §5.1.2), by rate.
PAPER_CONV = {1: "20-30 ms", 10: "80-150 ms"}


def _sizes_scenario2(bps: float, period: float) -> list[int]:
    """Payload bytes of flows 1–2 in scenario 2 such that, at their weighted shares (1/3, 2/3
    alone, then 1/6, 1/3 with flow 3), they end at ``period``."""
    half = period / 2
    shares = [(1 / 3) * half + (1 / 6) * half, (2 / 3) * half + (1 / 3) * half]
    return [round(bps * s / 8 * PAYLOAD / WIRE) for s in shares]


def scenario(number: int, gbps: int, scale: str) -> dict[str, Any]:
    """Scenario 1 or 2 at ``gbps`` as a scenario document."""
    t = PERIOD_S[scale]
    flows = [{"src": i, "dst": 3, "weight": w, "size": LONG} for i, w in enumerate(WEIGHTS)]
    stop = t
    if number == 2:
        for f, size in zip(flows, _sizes_scenario2(gbps * 1e9, t), strict=False):
            f["size"] = size
        flows[2]["start"] = us(t / 2)
        stop = 1.5 * t
    return {
        "name": f"uranus-fig{5 + number} {gbps} Gb/s ({scale})",
        "topology": testbed(3, gbps),
        "workload": {"kind": "flows", "flows": flows},
        "engine": shim_engine("wvcc", gbps, us(INTERVAL_S[scale]), rtt_s=TESTBED_RTT_S),
        "stop_at": us(stop),
    }


def _phases(number: int, s: Series, period: float) -> list[tuple[str, float, float, list[int]]]:
    """(what changed, start, end, active flows) of each phase of a run."""
    if number == 1:
        return [("all three start", 0.0, period, [0, 1, 2])]
    ends = np.nan_to_num(s.results.flows["end_s"].to_numpy(), nan=math.inf)
    t12 = float(max(ends[0], ends[1])) if math.isfinite(max(ends[0], ends[1])) else period
    return [
        ("flows 1-2 start", 0.0, period / 2, [0, 1]),
        ("flow 3 joins", period / 2, min(t12, 1.5 * period), [0, 1, 2]),
        ("flows 1-2 leave", t12, 1.5 * period, [2]),
    ]


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    period = PERIOD_S[scale]
    rows: list[dict[str, Any]] = []
    t = ResultTable(
        f"Uranus Figs. 6-7 ({scale}): WVCC, weights 1/4, 2/4, 3/4, periods of {period:g} s",
        (
            key("scenario"),
            key("rate"),
            key("phase"),
            Column("shares", "ours"),
            Column("shares", "oracle"),
            Column("max error", "ours vs oracle"),
            Column("utilization", "ours"),
            Column("converged", "ours"),
            Column("converged", "paper"),
        ),
        note="Shares: each active flow's mean throughput over the phase's second half, as a "
        "fraction of the link. Paper (§5.1.2): shares 1/6, 1/3, 1/2 (plots); convergence "
        "'similar to that of DCTCP ... 20-30 ms at 1Gbps, and 80-150 ms at 10 Gbps'.",
    )
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(11.0, 6.4))
    for number in (1, 2):
        for col, gbps in enumerate(RATES_GBPS):
            bps = gbps * 1e9
            s = run_series(scenario(number, gbps, scale), 3)
            ends = s.results.flows["end_s"].to_numpy()
            steps = []
            for what, a, b, active in _phases(number, s, period):
                paths = [[0] if i in active else [] for i in range(3)]
                want = oracle([bps], paths, WEIGHTS)
                steps.append((a, b, want))
                got = s.mean(a + (b - a) / 2, b)
                conv = s.convergence(a, b, want, window=CONV_WINDOW)
                rows.append(
                    {
                        "scenario": number,
                        "gbps": gbps,
                        "phase": what,
                        "start_s": a,
                        "end_s": b,
                        "shares": [float(x / bps) for x in got],
                        "oracle_shares": [float(x / bps) for x in want],
                        "max_error": max_err(got, want),
                        "utilization": float(got.sum() / bps),
                        "converged_ms": conv * 1e3,
                        "paper_converged": PAPER_CONV[gbps],
                        "flow_end_s": [None if math.isnan(e) else float(e) for e in ends],
                    }
                )
                r = rows[-1]
                t.add_row(
                    str(number),
                    f"{gbps} Gb/s",
                    what,
                    " ".join(f"{x:.3f}" for x in r["shares"]),
                    " ".join(f"{x:.3f}" for x in r["oracle_shares"]),
                    f"{r['max_error'] * 100:.1f}%",
                    f"{r['utilization'] * 100:.1f}%",
                    f"{r['converged_ms']:.0f} ms",
                    PAPER_CONV[gbps],
                )
            overall = []
            for i in range(3):
                on = s.rates[:, i] > 0
                overall.append(float(s.rates[on, i].mean() / bps) if on.any() else 0.0)
            rows.append({"scenario": number, "gbps": gbps, "phase": "overall", "shares": overall})
            ax = axes[number - 1][col]
            labels = [f"flow {i + 1} (w = {w:g})" for i, w in enumerate(WEIGHTS)]
            plot_rates(ax, s.times, s.rates, labels, steps, window=MOVING)
            ax.set_title(
                f"Fig. {5 + number}: scenario {number}, {gbps} Gb/s "
                f"(moving average of {MOVING} samples; dashed: oracle)",
                fontsize=8,
            )
            ax.set_xlabel("time (ms)")
    axes[0][0].legend(fontsize=7)
    t.print(console)
    o = ResultTable(
        f"Uranus Figs. 6(c), 7(c) ({scale}): overall average throughput, share of the link",
        (
            key("scenario"),
            key("rate"),
            Column("flows 1 / 2 / 3", "ours"),
            Column("flows 1 / 2 / 3", "paper"),
        ),
        note="Overall: each flow's mean over the samples where it sent. Paper: 1/6, 1/3, 1/2 "
        "(scenario 1; plots).",
    )
    for r in rows:
        if r["phase"] == "overall":
            o.add_row(
                str(r["scenario"]),
                f"{r['gbps']} Gb/s",
                " / ".join(f"{x:.3f}" for x in r["shares"]),
                "0.167 / 0.333 / 0.500" if r["scenario"] == 1 else "(plot)",
            )
    o.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "uranus-fig6-7"), [t, o])


ENTRY = Entry(
    name="uranus-fig6-7",
    title="Uranus: WVCC on the testbed, weights 1/4, 2/4, 3/4 give 1/6, 1/3, 1/2 of the link",
    paper="Uranus (WVCC), §5.1.2",
    figure="Figs. 6-7",
    scales={
        "smoke": "3 senders → 1 receiver, 1 and 10 Gb/s, RTT 1 ms; periods of 0.2 s",
        "full": "the same with the paper's 100 s periods",
    },
    run_fn=run,
)
