"""Uranus §5.2.3, Fig. 13 (network utilization): aggregate throughput under Uranus and under
SCC — (a) web search across loads, (b) web search, data mining and MapReduce at medium load.

Paper: "We set WebSearch traffics as deadline-sensitive and the other two as
completion-sensitive. Aggregated throughput is used as the metric … only WebSearch traffics
exist in the network. Traffics are generated with different load pressure. Under each network
load, we run SCC and Uranus as the scheduler separately … Uranus gets higher aggregated
throughput than SCC under any load pressure [Fig. 13(a)] … all three traffic patterns under
medium load pressure … [Fig. 13(b)] … packet-drop rate of SCC is higher than that of Uranus …
Uranus improves overall network utilization by around 10%."

Ours (every choice the paper leaves open marked *ours*):

- The §5.2 runs of :mod:`fairnet.paper.uranus.sec52` (fat-tree with 4:1 rack uplinks, ECN at
  65 packets, RTO floor 10 ms, one slice of the workload's objective over its guest —
  D²TCP for DS, L²DCT for CS — with ``W_S = 1``, and 10% background between racks in a CS
  slice of its own), with flowcell routing (§5.2's "flowcell load balancing module") and the
  scheduler Uranus (WVCC shims) or SCC (its virtual-tunnel shims, ``slice_scheduler =
  "scc"``).
- One workload at a time in (b), as in (a) (*ours*: the paper does not say whether the three
  ran together). MapReduce's sizes: the shipped Facebook Hadoop CDF (``hadoop``,
  ``FbHdp_distribution.txt``, *ours*): the paper's [10] (Chen et al., MASCOTS'11) builds
  MapReduce workload suites from Facebook's and Yahoo's Hadoop traces, which describe jobs,
  not flows; FbHdp is the flow sizes measured in a Facebook Hadoop cluster (Roy et al.,
  SIGCOMM 2015), the nearest flow-level distribution the repository has.
- "Medium load": 0.5 (*ours*). Loads are of the links :mod:`~fairnet.paper.uranus.sec52`
  names (``sec52.LOAD_ON``: the racks' uplinks).
- Aggregate throughput (*ours*: the paper's window is not given): the bits delivered to every
  receiver per second (every flow's recorded rate, background included), averaged over the
  run after a warm-up, while arrivals continue — the run stops at ``stop_at`` with flows
  still arriving, so the network is measured under its offered load, not while a backlog
  drains. The drops (every port) and the retransmitted bytes are reported beside it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from rich.console import Console

import fairnet
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import grouped_bars, pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key
from fairnet.paper.uranus.sec52 import scenario as sec52_scenario

#: Loads of Fig. 13(a) per scale, and the medium load of Fig. 13(b).
LOADS = {"smoke": (0.5,), "full": (0.1, 0.3, 0.5, 0.7, 0.9)}
MEDIUM = 0.5
#: Fig. 13(b)'s workloads: (label, CDF name, objective).
WORKLOADS = (
    ("web search", "websearch", "ds"),
    ("data mining", "datamining", "cs"),
    ("MapReduce (FbHdp)", "hadoop", "cs"),
)
#: Mean flow size of each CDF (bytes; the trapezoid mean of the shipped files, as the
#: generator samples them), to size the flow count so that arrivals outlast the run.
MEAN_SIZE = {"websearch": 1_711_250.0, "datamining": 7_470_236.0, "hadoop": 120_420.75}
#: Simulated time per run and the warm-up left out of the mean, per scale (ms).
DURATION_MS = {"smoke": 40, "full": 1000}
WARMUP_MS = {"smoke": 10, "full": 100}
RECORD_MS = 1
SCHEDULERS = ("uranus", "scc")
#: §5.2's hosts and their access rate (bit/s), for the arrival rate.
HOSTS, HOST_BPS = 64, 1e9
PAPER = "Uranus above SCC at every load and workload; ≈ +10%"


def flows_for(cdf: str, load: float, duration_ms: int) -> int:
    """Flows enough that Poisson arrivals at ``load`` last beyond ``duration_ms`` (twice the
    expected count over the run, at least 20). Sized on the hosts' access capacity, the
    largest reading of ``load`` (the racks' uplinks offer 0.28 of it on §5.2's fat-tree), so
    that arrivals outlast the run under either."""
    rate = load * HOST_BPS * HOSTS / (8 * MEAN_SIZE[cdf])
    return max(20, math.ceil(2 * rate * duration_ms * 1e-3))


def scenario(
    cdf: str, objective: str, load: float, scheduler: str, duration_ms: int, seed: int
) -> dict[str, Any]:
    """One Fig. 13 run: the §5.2 one-slice scenario of ``cdf`` at ``load`` under Uranus or
    SCC, flowcells, rates recorded every :data:`RECORD_MS`, stopped at ``duration_ms``."""
    doc = sec52_scenario(load, (objective,), True, flows_for(cdf, load, duration_ms), seed)
    doc["name"] = f"Uranus Fig. 13: {cdf} ({objective}) at load {load:g}, {scheduler} (seed {seed})"
    doc["workload"]["cdf"] = cdf
    doc["stop_at"] = f"{duration_ms}ms"
    doc["slice_scheduler"] = scheduler
    engine = doc["engine"]
    engine["routing"] = "flowcell"
    engine["host_shim"] = "wvcc" if scheduler == "uranus" else "scc"
    engine["record"] = {"interval": f"{RECORD_MS}ms", "queues": "none"}
    return doc


def run_one(
    cdf: str, objective: str, load: float, scheduler: str, scale: str, seed: int
) -> dict[str, Any]:
    """One run's aggregate throughput (bit/s, mean over the samples after the warm-up), drops
    and retransmitted bytes."""
    r = fairnet.run(scenario(cdf, objective, load, scheduler, DURATION_MS[scale], seed))
    # Every sample time of the run (k · RECORD_MS up to the stop), 0 where no flow delivered.
    samples = np.arange(1, DURATION_MS[scale] // RECORD_MS + 1) * RECORD_MS * 1e-3
    sums = r.rates.group_by("time_s").agg(pl.col("rate_bps").sum())
    # Keyed by whole microseconds: the samples' times are exact multiples of the interval.
    delivered = {
        round(t * 1e6): b
        for t, b in zip(sums["time_s"].to_list(), sums["rate_bps"].to_list(), strict=True)
    }
    bps = np.array([delivered.get(round(t * 1e6), 0.0) for t in samples])
    after = bps[samples > WARMUP_MS[scale] * 1e-3]
    retx = r.flows["retransmitted_bytes"].to_numpy()
    return {
        "workload": cdf,
        "objective": objective,
        "load": load,
        "scheduler": scheduler,
        "seed": seed,
        "aggregate_bps": float(after.mean()),
        "samples": len(after),
        "drops": int(r.summary["counters"].get("drops", 0)),
        "retransmitted_bytes": int(retx[retx > 0].sum()),
        "flows_started": int((r.flows["start_s"] < DURATION_MS[scale] * 1e-3).sum()),
    }


def run(scale: str, outdir: Path, console: Console, runs: int) -> PaperResult:
    rows: list[dict[str, Any]] = []
    cases = [("websearch", "ds", load) for load in LOADS[scale]] + [
        (cdf, obj, MEDIUM) for _, cdf, obj in WORKLOADS if cdf != "websearch"
    ]
    for cdf, obj, load in cases:
        for scheduler in SCHEDULERS:
            for seed in range(1, runs + 1):
                rows.append(run_one(cdf, obj, load, scheduler, scale, seed))
    summary = [_gain(rows, cdf, load) for cdf, _, load in cases]
    table = _table(rows, summary, scale, runs)
    table.print(console)
    return PaperResult([*rows, *summary], _plot(summary, outdir), [table])


def _mean(rows: list[dict[str, Any]], cdf: str, load: float, scheduler: str, field: str) -> float:
    return float(
        np.mean(
            [
                r[field]
                for r in rows
                if (r.get("workload"), r.get("load"), r.get("scheduler")) == (cdf, load, scheduler)
            ]
        )
    )


def _gain(rows: list[dict[str, Any]], cdf: str, load: float) -> dict[str, Any]:
    """Uranus's aggregate throughput over SCC's (means over seeds) for one case."""
    u, s = (_mean(rows, cdf, load, x, "aggregate_bps") for x in SCHEDULERS)
    return {
        "workload": cdf,
        "load": load,
        "scheduler": "uranus vs scc",
        "uranus_bps": u,
        "scc_bps": s,
        "gain": u / s - 1,
        "paper": PAPER,
    }


def _table(
    rows: list[dict[str, Any]], summary: list[dict[str, Any]], scale: str, runs: int
) -> ResultTable:
    t = ResultTable(
        f"Uranus Fig. 13 ({scale}, {runs} seed{'s' if runs > 1 else ''}): aggregate throughput, "
        "§5.2's fat-tree with 10% background, flowcells",
        (
            key("workload"),
            key("load"),
            Column("Uranus (Gb/s)", "ours"),
            Column("SCC (Gb/s)", "ours"),
            Column("gain", "ours"),
            Column("drops U / S", "ours"),
            Column("Uranus vs SCC", "paper", text=True),
        ),
        note="Aggregate throughput: bits delivered to all receivers per second (background "
        "included), mean over 1 ms samples after the warm-up, while flows keep arriving. "
        "Drops: packets dropped at any port over the run. Means over seeds.",
    )
    for g in summary:
        cdf, load = g["workload"], g["load"]
        drops = [
            sum(
                r["drops"]
                for r in rows
                if (r.get("workload"), r.get("load"), r.get("scheduler")) == (cdf, load, s)
            )
            for s in SCHEDULERS
        ]
        t.add_row(
            cdf,
            f"{load:g}",
            f"{g['uranus_bps'] / 1e9:.3f}",
            f"{g['scc_bps'] / 1e9:.3f}",
            f"{g['gain']:+.1%}",
            f"{drops[0]} / {drops[1]}",
            "Uranus higher; ≈ +10%",
        )
    return t


def _plot(summary: list[dict[str, Any]], outdir: Path) -> list[Path]:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.4))
    web = sorted((g for g in summary if g["workload"] == "websearch"), key=lambda g: g["load"])
    for s, label in (("uranus", "Uranus"), ("scc", "SCC")):
        axes[0].plot(
            [g["load"] for g in web], [g[f"{s}_bps"] / 1e9 for g in web], marker="o", label=label
        )
    axes[0].set_xlabel("load")
    axes[0].set_ylabel("aggregate throughput (Gb/s)")
    axes[0].set_title("(a) web search", fontsize=9)
    axes[0].legend(fontsize=7)
    medium = [
        next(g for g in summary if (g["workload"], g["load"]) == (cdf, MEDIUM))
        for _, cdf, _ in WORKLOADS
    ]
    grouped_bars(
        axes[1],
        [label for label, _, _ in WORKLOADS],
        [
            ("Uranus", [g["uranus_bps"] / 1e9 for g in medium]),
            ("SCC", [g["scc_bps"] / 1e9 for g in medium]),
        ],
    )
    axes[1].set_ylabel("aggregate throughput (Gb/s)")
    axes[1].set_title(f"(b) workloads at load {MEDIUM:g}", fontsize=9)
    axes[1].legend(fontsize=7)
    return save_figure(fig, outdir, "uranus-fig13")


ENTRY = Entry(
    name="uranus-fig13",
    title="Uranus: aggregate throughput, Uranus vs SCC (web search across loads; web search, "
    "data mining and MapReduce at medium load)",
    paper="Uranus, §5.2.3",
    figure="Fig. 13",
    scales={
        "smoke": f"load 0.5, three workloads, {DURATION_MS['smoke']} ms per run",
        "full": f"loads 0.1–0.9 (web search), three workloads at 0.5, {DURATION_MS['full']} ms "
        "per run",
    },
    run_fn=run,
    runs={"smoke": 1, "full": 3},
)
