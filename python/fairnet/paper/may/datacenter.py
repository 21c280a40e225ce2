"""MAY in a datacenter (issue 20, "Beyond the paper"): a leaf-spine fabric at 10/40 Gb/s with
web-search traffic, MAY against drop-tail, DRR and pFabric: FCT slowdown by flow size and Jain's
index of the flows' throughputs against the ideal max-min allocation.

Not in the paper, whose experiments are ns-2 runs on Internet RTTs (20–440 ms). Setting (our
choices): pFabric's two-tier leaf-spine (Alizadeh et al., SIGCOMM 2013, §5: 144 hosts, 9 leaves
of 16, 4 spines, 10 Gb/s host links, 40 Gb/s fabric links), 1 µs per link, 100-packet buffers
at every port for every scheme (the packet yardstick's and ``examples/may_cost.rs``'s; one
buffer for all, so the schemes differ only in what they drop and send), 1000-byte payloads with
the engine's 48-byte header, ECMP; web-search flow sizes (DCTCP's distribution) in Poisson
arrivals at 60% of the host links' capacity between random host pairs. Transports: TCP with
SACK and the engine's datacenter timers (1 ms minimum RTO, no delayed ACKs) under drop-tail, DRR
and MAY; pFabric's own transport with its queue (as the s-PERC entries run it).

**MAY's timers from §V's own rules** ("The update interval Δ should be taken to cover several
'typical' RTT values"; "q_w should be chosen to allow averaging over several update
intervals"), as ``examples/may_cost.rs`` derives them: a typical RTT here is the base RTT of a
host → leaf → spine → leaf → host path (:func:`base_rtt_s`, ~12 µs) plus one full 100-packet
queue at the host rate (84 µs), about 96 µs; Δ = 4 typical RTTs, rounded to 400 µs; q_w = 0.05
(the paper's, averaging over ~20 Δ); T₀ = 64·Δ = 25.6 ms (the paper's T₀/Δ). κ = 0.1 and
u₀ = 0.98 stay the paper's (ν's relative change per second does not depend on Δ; module doc of
``systems::may``), and so does S₀ = 1000 packets (1 MB here: web search's flows up to 1 MB are
the short ones). DRR: 100 hashed buckets, one full packet of quantum, ns-2's shared buffer
(§IV's settings, the wire packet here 1048 bytes).

Measured per scheme: the slowdown (FCT over the flow's FCT alone on the empty network) by the
runner's size bins (p50, p99, mean), and Jain's index of each flow's throughput over its
max-min throughput (the runner's ``fairness.jain_vs_maxmin``: max-min FCT over FCT, the
flow-level engine on the same flows and paths), also per size bin with the bin's mean
throughput over max-min throughput (flows faster than max-min lower the index too). Scales:
``smoke`` 3 leaves of 4 hosts, 2 spines, 400 flows; ``full`` the 144 hosts and 10,000 flows. Seed 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.may.common import jain
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, slowdown_rows, slowdown_table
from fairnet.runner import SIZE_BINS
from fairnet.runner import run as run_scenario

#: Leaf-spine shape and flow count per scale.
SCALE = {
    "smoke": {"hosts_per_leaf": 4, "leaves": 3, "spines": 2, "flows": 400},
    "full": {"hosts_per_leaf": 16, "leaves": 9, "spines": 4, "flows": 10_000},
}
HOST_RATE, FABRIC_RATE, DELAY_S = 10e9, 40e9, 1e-6
#: The engine's packets: payload and header (bytes); the buffer of every port, in packets.
PAYLOAD, HEADER, BUFFER_PACKETS = 1000, 48, 100
WIRE = PAYLOAD + HEADER
LOAD = 0.6


def base_rtt_s() -> float:
    """Round trip of a host → leaf → spine → leaf → host path without queues: four links each
    way, a full data packet's serialization one way and a bare header's back."""
    one_way = sum(DELAY_S + WIRE * 8 / r for r in (HOST_RATE, FABRIC_RATE) * 2)
    back = sum(DELAY_S + HEADER * 8 / r for r in (HOST_RATE, FABRIC_RATE) * 2)
    return one_way + back


def may_timers() -> dict[str, Any]:
    """MAY's parameters by §V's rules (module doc): Δ = 4 typical RTTs (the base RTT plus one
    full queue at the host rate) rounded to 100 µs, q_w = 0.05, T₀ = 64·Δ."""
    typical = base_rtt_s() + BUFFER_PACKETS * WIRE * 8 / HOST_RATE
    delta_us = round(4 * typical * 1e6 / 100) * 100
    return {"kind": "may", "delta": f"{delta_us}us", "q_w": 0.05, "t0": f"{64 * delta_us}us"}


def schemes() -> dict[str, dict[str, Any]]:
    """Each scheme's engine section."""
    tcp = {"kind": "packet", "transport": "reno"}
    return {
        "drop-tail": tcp | {"qdisc": {"kind": "drop_tail"}},
        "DRR": tcp
        | {
            "qdisc": {
                "kind": "drr",
                "weights": [1.0] * 100,
                "classify": "flow_hash",
                "quantum": f"{WIRE}B",
                "overflow": "drop_longest",
            }
        },
        "MAY": tcp | {"qdisc": may_timers()},
        "pFabric": {"kind": "packet", "transport": "pfabric", "qdisc": {"kind": "pfabric"}},
    }


def scenario(scale: str, engine: dict[str, Any]) -> dict[str, Any]:
    """The scenario document at ``scale`` on ``engine``."""
    shape = SCALE[scale]
    return {
        "name": f"may-datacenter ({scale})",
        "seed": 1,
        "topology": {
            "kind": "leaf_spine",
            "hosts_per_leaf": shape["hosts_per_leaf"],
            "leaves": shape["leaves"],
            "spines": shape["spines"],
            "host_rate": f"{HOST_RATE:.0f}bps",
            "fabric_rate": f"{FABRIC_RATE:.0f}bps",
            "delay": f"{DELAY_S * 1e6:g}us",
            "buffer": f"{BUFFER_PACKETS * WIRE}B",
        },
        "workload": {
            "kind": "poisson",
            "cdf": "websearch",
            "load": f"{LOAD * 100:g}%",
            "flows": shape["flows"],
        },
        "engine": {"mtu": f"{PAYLOAD}B", "header": f"{HEADER}B", **engine},
    }


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    slowdowns: dict[str, np.ndarray] = {}
    lossless: dict[str, np.ndarray] = {}
    over_maxmin: dict[str, np.ndarray] = {}
    per_scheme: dict[str, dict[str, Any]] = {}
    size = None
    for name, engine in schemes().items():
        r = run_scenario(scenario(scale, engine), output=outdir / name.replace(" ", "_"))
        f = r.flows
        sd = f["slowdown"].to_numpy()
        slowdowns[name] = sd
        size = f["size"].to_numpy()
        lossless[name] = f["retransmitted_bytes"].to_numpy() == 0
        # Each flow's throughput over its max-min throughput (the runner's x_i, the terms of
        # its jain_vs_maxmin), kept per flow to split the index by size below.
        over_maxmin[name] = f["maxmin_fct_s"].to_numpy() / f["fct_s"].to_numpy()
        per_scheme[name] = {
            "unfinished": int((~np.isfinite(sd)).sum()),
            "jain_vs_maxmin": r.summary["fairness"]["jain_vs_maxmin"],
            "drops": int(r.summary["links"]["drops"]),
        }
    assert size is not None
    bounds = {label: (lo, hi) for lo, hi, label in SIZE_BINS}
    rows = slowdown_rows(size, slowdowns, SIZE_BINS)
    for row in rows:
        # The share of the bin's flows (finished or not) that retransmitted nothing.
        lo, hi = bounds[row["bin"]]
        sel = (size >= lo) & (size < hi)
        row["lossless"] = float(lossless[row["scheme"]][sel].mean()) if sel.any() else None
        # The runner's Jain index restricted to the bin, and the bin's mean x_i: flows faster
        # than max-min (x_i > 1, e.g. short flows MAY or pFabric favours) lower the index as
        # much as slower ones.
        x = over_maxmin[row["scheme"]][sel]
        x = x[np.isfinite(x)]
        row["jain_vs_maxmin_bin"] = jain(x) if len(x) else None
        row["over_maxmin_mean"] = float(x.mean()) if len(x) else None
        row |= per_scheme[row["scheme"]]
        row["paper"] = "not in the paper (fairnet's experiment)"
    t = slowdown_table(
        f"MAY in a datacenter ({scale}): web search at {LOAD:.0%} load, leaf-spine "
        f"{HOST_RATE / 1e9:g}/{FABRIC_RATE / 1e9:g} Gb/s, {BUFFER_PACKETS}-packet buffers",
        rows,
        ("p50", "p99", "mean"),
        bin_header="size",
        extra=(
            (
                Column("lossless", "ours"),
                lambda r: f"{r['lossless']:.3f}" if r["lossless"] is not None else "-",
            ),
            (
                Column("Jain/maxmin bin", "ours"),
                lambda r: (
                    f"{r['jain_vs_maxmin_bin']:.3f}" if r["jain_vs_maxmin_bin"] is not None else "-"
                ),
            ),
            (
                Column("mean x/maxmin bin", "ours"),
                lambda r: (
                    f"{r['over_maxmin_mean']:.2f}" if r["over_maxmin_mean"] is not None else "-"
                ),
            ),
            (
                Column("Jain/maxmin", "ours"),
                lambda r: f"{r['jain_vs_maxmin']:.3f}" if r["jain_vs_maxmin"] is not None else "-",
            ),
        ),
        note="FCT slowdown (FCT over the flow alone on the empty network) by size; lossless: "
        "the share of the bin's flows that retransmitted nothing; Jain's index "
        "of throughput over max-min throughput (the flow-level engine on the same flows), "
        "of the bin's flows and of all; mean x/maxmin: the bin's mean throughput over max-min "
        "throughput. "
        f"MAY's timers by §V's rules: {may_timers()['delta']} Δ, T₀ = 64·Δ, q_w = 0.05. Not "
        "in the paper: no figure to compare with.",
    )
    t.print(console)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    labels = [b[2] for b in SIZE_BINS]
    x = np.arange(len(labels))
    width = 0.8 / len(slowdowns)
    for i, name in enumerate(slowdowns):
        p99 = [
            next(r.get("p99", np.nan) for r in rows if r["scheme"] == name and r["bin"] == lab)
            for lab in labels
        ]
        ax.bar(x + (i - (len(slowdowns) - 1) / 2) * width, p99, width=width, label=name)
    ax.set_xticks(x, labels)
    ax.set(ylabel="p99 FCT slowdown", yscale="log", title="MAY in a datacenter (web search)")
    ax.legend(fontsize=8)
    return PaperResult(rows, save_figure(fig, outdir, "may-datacenter"), [t])


ENTRY = Entry(
    name="may-datacenter",
    title="MAY in a datacenter: web search on a leaf-spine, against drop-tail, DRR and pFabric",
    paper="MAY (Stanojević & Shorten), beyond the paper (issue 20)",
    figure="none (not in the paper)",
    scales={
        "smoke": "3 leaves of 4 hosts, 2 spines, 10/40 Gb/s, 400 web-search flows at 60% load",
        "full": "pFabric's 144 hosts (9 leaves, 4 spines), 10/40 Gb/s, 10,000 flows at 60% load",
    },
    run_fn=run,
)
