"""eBA §VII-C, Fig. 14: MapReduce shuffles on a two-level datacenter under LRC, reservation and
best effort — shuffle-time CDFs, and LRC's utilization against best effort's.

The paper: 600 servers with 4 VMs each and 1 Gb/s links, 40 servers a rack, 15 ToRs under one
root; ToR uplinks of 40 Gb/s (full bisection) or 10 Gb/s (4× oversubscribed); VM guarantees
250 or 62.5 Mb/s; a Facebook MapReduce trace of "up to 900 jobs", "about 600 jobs have small
shuffle size less than 128MB, among which 140 jobs are very short with < 1MB", largest
32.3 GB. Claims: small jobs under LRC as under reservation (and faster than best effort);
large jobs faster than reservation (more so at 4×), a bit slower than best effort under full
bisection; "LRC still achieves 96% performance of the best effort manner".

Ours, on the flow engine (``systems::eba::flow_level``, the paper's own simulator "to model VM
bandwidth sharing" is a VM-level one too):

- Topology ``leaf_spine`` with one spine (the paper's two levels: ToRs under one root).
- VMs: 4 per server, each with the guarantee above and weight 1; VM-flow guarantees and
  weights by Eqs. (1)–(2), kept current by Algorithm 1 as jobs' VM-flows open and close.
- The trace is not available. Jobs (``workload::shuffle``): sizes from a piecewise log-uniform
  distribution through the paper's statistics — knots 1 KB (0), 1 MB (140/900), 128 MB
  (600/900), 32.3 GB (1) — drawn stratified, so 900 jobs have exactly 140 under 1 MB, 600
  under 128 MB and the largest at 32.3 GB (the paper's 0-byte jobs have no shuffle and are
  left out; 1 KB is our smallest). A job of s bytes has k = clamp(⌈s / 128 MB⌉, 1, 40) mappers
  and as many reducers (one per 128 MB block, at most a rack's worth), on 2k random distinct
  servers, one random VM each; every mapper sends s/k² to every reducer. Jobs arrive as a
  Poisson process, one per second on average (the trace's arrival times are not given).
- Controls: LRC (§VII-C's α = β = 2 s⁻¹, τ_v = 50 ms, τ_r = 100 ms; μ = 0.9 and idle
  relaxation as §VI-B); reservation (each VM-flow capped at its guarantee, Oktopus); best
  effort (no limiter, per-flow max-min: TCP's ideal).
- Shuffle time: a job's last transfer end minus its arrival. Utilization: total shuffle bytes
  over the time to the last shuffle's end (the run's mean throughput); "LRC / best effort" is
  the ratio of the two runs', beside the paper's 96%. We also give the ratio of mean job
  throughputs (Σ bytes / Σ shuffle time).

Scales: ``smoke`` 3 racks of 8 servers (uplinks 8 and 2 Gb/s, the same 1× and 4×), 45 jobs,
largest 2 GB, at most 8 tasks; ``full`` the paper's network and 900 jobs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet import _core
from fairnet.paper.eba import flowlevel as fl
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import plot_cdf, pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key

MB = 1_000_000
#: Per scale: servers per rack, racks, uplink rates (full bisection, 4×), jobs, largest job
#: (bytes), most tasks per side.
SCALE: dict[str, dict[str, Any]] = {
    "smoke": {
        "per_rack": 8,
        "racks": 3,
        "uplinks": (8, 2),
        "jobs": 45,
        "largest": 2e9,
        "max_tasks": 8,
    },
    "full": {
        "per_rack": 40,
        "racks": 15,
        "uplinks": (40, 10),
        "jobs": 900,
        "largest": 32.3e9,
        "max_tasks": 40,
    },
}
VMS_PER_SERVER = 4
#: VM guarantees (bit/s) for full bisection and 4× oversubscription (§VII-C).
GUARANTEES = (250e6, 62.5e6)
BYTES_PER_TASK = 128 * MB
MEAN_INTERARRIVAL_S = 1.0
SEED = 1
CONTROLS = ("lrc", "reservation", "best_effort")
PAPER_UTILIZATION = 0.96


def knots(largest: float) -> list[tuple[float, float]]:
    """The job-size distribution through the paper's statistics."""
    return [(1e3, 0.0), (1.0 * MB, 140 / 900), (128.0 * MB, 600 / 900), (largest, 1.0)]


def network(scale: str, oversubscribed: bool) -> dict[str, Any]:
    s = SCALE[scale]
    return {
        "kind": "leaf_spine",
        "hosts_per_leaf": s["per_rack"],
        "leaves": s["racks"],
        "spines": 1,
        "host_rate": "1Gbps",
        "fabric_rate": f"{s['uplinks'][1 if oversubscribed else 0]}Gbps",
    }


def workload(scale: str) -> tuple[list[int], dict[str, Any]]:
    """Every VM's host, and the jobs with their transfers."""
    s = SCALE[scale]
    vm_host = [h for h in range(s["per_rack"] * s["racks"]) for _ in range(VMS_PER_SERVER)]
    w = _core.shuffle_workload(
        knots(s["largest"]),
        s["jobs"],
        round(MEAN_INTERARRIVAL_S * 1e12),
        BYTES_PER_TASK,
        s["max_tasks"],
        SEED,
        vm_host,
    )
    return vm_host, dict(w)


def shuffle_run(scale: str, oversubscribed: bool, control: str) -> dict[str, Any]:
    vm_host, w = workload(scale)
    vms = fl.Vms()
    g = GUARANTEES[1 if oversubscribed else 0]
    for h in vm_host:
        vms.add(h, g)
    tr = fl.Transfers(
        src_vm=w["src_vm"].tolist(),
        dst_vm=w["dst_vm"].tolist(),
        size=w["bytes"].tolist(),
        start_s=(w["start_ps"] * 1e-12).tolist(),
        tag=w["job"].tolist(),
        demand=[float("inf")] * len(w["bytes"]),
    )
    res = fl.run(network(scale, oversubscribed), vms, tr, control, fl.lrc_config())
    start = res["group_start_ps"] * 1e-12
    end = res["group_end_ps"] * 1e-12
    size = w["job_size"][res["group_tag"]]
    return {"shuffle_s": end - start, "size": size, "end": end, "res": res}


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    rows: list[dict[str, Any]] = []
    runs: dict[tuple[bool, str], dict[str, Any]] = {}
    for over in (False, True):
        for control in CONTROLS:
            runs[(over, control)] = shuffle_run(scale, over, control)
    tb = ResultTable(
        f"eBA Fig. 14 ({scale}, flow level): shuffle times (s) under LRC, reservation, best effort",
        (
            key("network"),
            key("control"),
            Column("jobs", "ours"),
            Column("median", "ours"),
            Column("p90", "ours"),
            Column("max", "ours"),
            Column("small (<128 MB) median", "ours"),
            Column("large mean", "ours"),
            Column("utilization / BE", "ours"),
            Column("job throughput / BE", "ours"),
            Column("Jain vs oracle", "ours"),
            Column("max error vs oracle", "ours"),
            Column("utilization / BE", "paper"),
        ),
        note="Utilization: total shuffle bytes over the time to the last shuffle's end; job "
        "throughput: Σ bytes / Σ shuffle times; both as a ratio to best effort's (BE). Paper: "
        "LRC 96% of best effort (which network, and which measure, not said). Vs oracle: the "
        "VM-flows open over the second half of the run's last stretch without arrivals or "
        "departures (the last shuffles' tail) against the oracle's allocation with guarantees "
        "on μC, as every eBA run reports.",
    )
    for over in (False, True):
        net = "4× oversubscribed" if over else "full bisection"
        be = runs[(over, "best_effort")]
        be_util = be["size"].sum() / be["end"].max()
        be_thr = be["size"].sum() / be["shuffle_s"].sum()
        for control in CONTROLS:
            r = runs[(over, control)]
            t, size = r["shuffle_s"], r["size"]
            small = size < 128 * MB
            util = size.sum() / r["end"].max() / be_util
            thr = size.sum() / t.sum() / be_thr
            row = {
                "network": net,
                "control": control,
                "jobs": int(t.size),
                "median_s": float(np.median(t)),
                "p90_s": float(np.percentile(t, 90)),
                "max_s": float(t.max()),
                "small_median_s": float(np.median(t[small])),
                "large_mean_s": float(t[~small].mean()),
                "utilization_vs_best_effort": float(util),
                "job_throughput_vs_best_effort": float(thr),
                **fl.oracle_columns(r["res"]),
            }
            rows.append(row)
            tb.add_row(
                net,
                control,
                str(row["jobs"]),
                f"{row['median_s']:.3f}",
                f"{row['p90_s']:.2f}",
                f"{row['max_s']:.1f}",
                f"{row['small_median_s']:.3f}",
                f"{row['large_mean_s']:.2f}",
                f"{util:.3f}",
                f"{thr:.3f}",
                f"{row['oracle_jain']:.4f}",
                f"{row['oracle_max_rel_error']:.3f}",
                f"{PAPER_UTILIZATION:.2f}" if control == "lrc" else "-",
                end_section=control == CONTROLS[-1],
            )
    tb.print(console)
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(12.0, 3.4))
    for ax, over, title in (
        (axes[0], False, "(a) full bisection"),
        (axes[1], True, "(b) 4× oversubscription"),
    ):
        for control in CONTROLS:
            plot_cdf(ax, runs[(over, control)]["shuffle_s"], control)
        ax.set_xscale("log")
        ax.set_xlabel("shuffle time (s)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    for control in CONTROLS:
        r = runs[(False, control)]
        plot_cdf(axes[2], r["shuffle_s"][r["size"] < 128 * MB], control)
    axes[2].set_xscale("log")
    axes[2].set_xlabel("shuffle time (s)")
    axes[2].set_title("(c) small jobs (< 128 MB), full bisection", fontsize=9)
    axes[2].legend(fontsize=7)
    axes[0].set_ylabel("CDF of jobs")
    return PaperResult(rows, save_figure(fig, outdir, "eba-fig14"), [tb])


ENTRY = Entry(
    name="eba-fig14",
    title="eBA: MapReduce shuffle times under LRC, reservation and best effort (flow level)",
    paper="eBA, §VII-C",
    figure="Fig. 14",
    scales={
        "smoke": "3 racks × 8 servers × 4 VMs, uplinks 8 / 2 Gb/s, 45 shuffle jobs up to 2 GB",
        "full": "the paper's 15 racks × 40 servers × 4 VMs, uplinks 40 / 10 Gb/s, 900 jobs up "
        "to 32.3 GB",
    },
    run_fn=run,
)
