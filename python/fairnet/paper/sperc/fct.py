"""s-PERC §8.2.2, Figs. 9, 10, 12 and 13: flow completion times of explicit-rate and
SRPT-like schemes, by flow-size bin.

"We simulated two workloads, one for search, the other for data mining with loads of 60% and
80%. We assume Poisson flow arrivals and flow size distributions from prior measurements of
actual workloads [4]." FCTs are normalized by the FCT in an empty network (the slowdown) and
binned by the bytes the flows carry: "The first bin contains the smallest flows that contribute
1% of the total bytes. … The remaining bins contain equal fractions (by bytes contributed) of
the remaining flows." Four bins, as the figures' four panels.

Schemes (settings of Table 6): RCP (128 KB buffers, α = 0.4, β = 0.2), pFabric (360 KB
buffers, initial window 120, RTO 45 µs) and the ideal max-min allocator (the flow-level engine
on the same flows and paths: every run's ``maxmin_fct_s``), and basic s-PERC* (64 B control
packets at 2% of each link, 2% headroom, first round 20 µs; flows wait one control RTT for
their first rate; the FIN on the first control packet after the last byte was sent; a
two-packet pacing credit, ``PACING`` below), and s-PERC* 'short' (§7.1 "Optimizing latency
for short flows": flows under one BDP — NIC line rate × the flow's base RTT, ~110 KB here —
start at line rate in a strict-priority class above the other data and send no control
packets; the other flows' control packets carry the virtual link l0 = remaining bytes / RTT;
the same 128 KB buffers, split between the two data classes by the engine's priority qdisc;
host NICs serve the higher class first, ``host_nic = "pull_priority"``; the FIN after the last
ACK).

Topology (a choice: the paper says only "[4]" and gives the rates): pFabric's [4] 144-server
two-tier leaf–spine — 9 leaves of 16 hosts, 4 spines — at s-PERC's 100 Gb/s host links and
400 Gb/s fabric links, 1 µs per link. ``smoke`` scale: 3 leaves of 4 hosts, 2 spines, 400 flows;
``full``: the 144 servers, 20,000 flows.

What the paper reports (read off its text; the figures are not in our copy): the max-min
schemes "are almost identical for long flows"; "for very short flows basic s-PERC* flows
complete 25-50% sooner than RCP"; with s-PERC* 'short' "the smallest flows start at line rate
and see no queues … hence they complete in a quarter of the time as the basic s-PERC*"; "for
the smallest flows, optimized s-PERC* is slightly better than p-Fabric at the tail, and both are
close to the minimum possible at the median"; "pFabric shines for short flows … at the expense
of the largest flows; the largest flows get almost 200% worse throughput"; for data mining
"s-PERC* 'short' tracks ideal max-min very closely".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import plot_cdf, pyplot, save_figure
from fairnet.paper.tables import slowdown_rows, slowdown_table
from fairnet.runner import run as run_scenario

#: (workload, load, figure) of each entry.
FIGURES = {
    "sperc-fig9": ("websearch", 0.6, "Fig. 9"),
    "sperc-fig10": ("datamining", 0.6, "Fig. 10"),
    "sperc-fig12": ("websearch", 0.8, "Fig. 12"),
    "sperc-fig13": ("datamining", 0.8, "Fig. 13"),
}

#: Leaf–spine shape and flow count per scale.
SCALE = {
    "smoke": {"hosts_per_leaf": 4, "leaves": 3, "spines": 2, "flows": 400},
    "full": {"hosts_per_leaf": 16, "leaves": 9, "spines": 4, "flows": 20_000},
}

HOST_RATE, FABRIC_RATE, DELAY_S = 100e9, 400e9, 1e-6
#: Header and payload of a full packet (the engine's defaults).
HEADER, PAYLOAD = 48, 1000
#: The paper's bins: the smallest flows carrying 1% of the bytes, then three equal shares.
FIRST_BIN_BYTES, LATER_BINS = 0.01, 3


def base_rtt_s() -> float:
    """Round-trip time of a host → leaf → spine → leaf → host path without queues: four links
    each way, each a full data packet's serialization one way and a bare header's back."""
    one_way = sum(DELAY_S + (HEADER + PAYLOAD) * 8 / r for r in (HOST_RATE, FABRIC_RATE) * 2)
    back = sum(DELAY_S + HEADER * 8 / r for r in (HOST_RATE, FABRIC_RATE) * 2)
    return one_way + back


#: Pacing credit of s-PERC*'s senders: a paced packet that left late because its host's NIC
#: was busy with another flow's packet lets the next go up to two packets' time sooner, so a
#: flow sharing its NIC still averages the rate the links allocated it (the engine's
#: ``tcp.pacing_burst``; without it, at full scale, s-PERC* flows delivered 87% of their
#: host-link max-min rates instead of 93%). Not for RCP: its rate follows the traffic it
#: measures, so a shortfall comes back through a higher R, and the credit's bursts raised its
#: 80%-load tail (bin 1 p99 16.5 → 48.4; docs/systems/sperc.md).
PACING = {"tcp": {"pacing_burst": f"{2 * (HEADER + PAYLOAD)}B"}}


def schemes() -> dict[str, tuple[dict[str, Any], str]]:
    """Engine section and per-port buffer of each packet-level scheme (Table 6)."""
    rtt_us = f"{base_rtt_s() * 1e6:.3f}us"
    return {
        "RCP": (
            {
                "kind": "packet",
                "transport": "rcp",
                "port_agent": "rcp",
                # Table 6's DC α and β; the routers' average RTT is the fabric's (RCP routers
                # estimate it from the senders' headers).
                "rcp": {"alpha": 0.4, "beta": 0.2, "rtt": rtt_us, "interval": rtt_us},
            },
            "128KB",
        ),
        "s-PERC*": (
            {
                "kind": "packet",
                "transport": "sperc",
                "port_agent": "sperc",
                # Table 6: 64 B control packets at 2% of each link (FCT), 2% headroom,
                # initial round 20 µs (DC).
                "control": {"size": "64B", "rate": 0.02},
                "sperc": {"headroom": 0.02, "initial_round": "20us"},
            }
            | PACING,
            "128KB",
        ),
        "s-PERC* short": (
            {
                "kind": "packet",
                "transport": "sperc",
                "port_agent": "sperc",
                "control": {"size": "64B", "rate": 0.02},
                # §7.1: three priority levels — control packets (the engine's control queue),
                # short flows (class 0), the rest (class 1).
                # l0 (remaining bytes / RTT) already hands a finishing flow's share over, so
                # the FIN waits for the last ACK: with "sent" the run dropped 5x more packets
                # and its mean FCT was 6% longer (docs/systems/sperc.md).
                "sperc": {
                    "headroom": 0.02,
                    "initial_round": "20us",
                    "short_flows": True,
                    "fin_at": "acked",
                },
                "qdisc": {"kind": "priority", "classes": 2},
                # "prioritizes them at every link": the hosts' uplinks too.
                "host_nic": "pull_priority",
            }
            | PACING,
            "128KB",
        ),
        "pFabric": (
            {"kind": "packet", "transport": "pfabric", "qdisc": {"kind": "pfabric"}},
            "360KB",
        ),
    }


def scenario(entry: str, scale: str, engine: dict[str, Any], buffer: str) -> dict[str, Any]:
    """The scenario document of ``entry`` at ``scale`` on ``engine``."""
    workload, load, _ = FIGURES[entry]
    shape = SCALE[scale]
    return {
        "name": f"{entry} ({scale})",
        "seed": 1,
        "topology": {
            "kind": "leaf_spine",
            "hosts_per_leaf": shape["hosts_per_leaf"],
            "leaves": shape["leaves"],
            "spines": shape["spines"],
            "host_rate": "100Gbps",
            "fabric_rate": "400Gbps",
            "delay": "1us",
            "buffer": buffer,
        },
        "workload": {
            "kind": "poisson",
            "cdf": workload,
            "load": f"{load * 100:g}%",
            "flows": shape["flows"],
        },
        "engine": engine,
    }


def byte_bins(size: np.ndarray) -> list[tuple[float, float, str]]:
    """The paper's size bins for these flows: ``[lo, hi)`` byte bounds and labels. Bin 1 holds
    the smallest flows that together carry 1% of the bytes; bins 2–4 split the remaining flows
    (by size) into equal shares of the remaining bytes. A bin starts at the size of the flow
    whose cumulative share of the bytes (smallest flows first) first reaches its target, so
    flows of equal size always share a bin."""
    s = np.sort(size.astype(float))
    share = np.cumsum(s) / s.sum()
    rest = 1 - FIRST_BIN_BYTES
    targets = [FIRST_BIN_BYTES + rest * k / LATER_BINS for k in range(LATER_BINS)]
    starts = sorted({float(s[np.searchsorted(share, t)]) for t in targets})
    edges = [0.0, *starts, float("inf")]
    return [
        (lo, hi, f"bin {k + 1}: " + (f"< {_size(hi)}" if hi < float("inf") else "largest"))
        for k, (lo, hi) in enumerate(zip(edges, edges[1:], strict=False))
    ]


def _size(b: float) -> str:
    return f"{b / 1e3:.0f} KB" if b < 1e6 else f"{b / 1e6:.1f} MB"


def run_entry(entry: str, scale: str, outdir: Path, console: Console) -> PaperResult:
    """Runs every scheme of ``entry`` at ``scale`` and prints slowdown percentiles per bin."""
    workload, load, figure = FIGURES[entry]
    slowdowns: dict[str, np.ndarray] = {}
    size = ideal = None
    for name, (engine, buffer) in schemes().items():
        r = run_scenario(scenario(entry, scale, engine, buffer), output=outdir / name)
        f = r.flows
        slowdowns[name] = f["slowdown"].to_numpy()
        if size is None:
            size = f["size"].to_numpy()
            ideal = f["ideal_fct_s"].to_numpy()
            # The flow-level engine on the same flows, paths and headers.
            slowdowns["ideal max-min"] = f["maxmin_fct_s"].to_numpy() / ideal
    assert size is not None
    bins = byte_bins(size)
    rows = slowdown_rows(size, slowdowns, bins)
    ratio = _short_vs_basic(rows)
    t = slowdown_table(
        f"s-PERC {figure} ({scale}): FCT slowdown, {workload} at {load:.0%} load",
        rows,
        ("p50", "p95", "p99"),
        note="Paper (§8.2.2): max-min schemes almost identical for long flows; basic s-PERC* "
        "25–50% faster than RCP on very short flows; pFabric best on short flows, its largest "
        "flows 'almost 200% worse'; s-PERC* 'short': smallest flows in 'a quarter of the time "
        "as the basic s-PERC*', 'slightly better than p-Fabric at the tail'."
        + (
            "\nSmallest bin, s-PERC* 'short' / basic s-PERC*: "
            + ", ".join(f"{q} {v:.2f}" for q, v in ratio.items())
            + " (paper: ~0.25)"
            if ratio
            else ""
        ),
    )
    t.print(console)
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(9.0, 6.0))
    for k, ax in enumerate(axes.flat):
        if k >= len(bins):
            ax.axis("off")
            continue
        lo, hi, label = bins[k]
        sel = (size >= lo) & (size < hi)
        for name, sd in slowdowns.items():
            plot_cdf(ax, sd[sel], name)
        ax.set_xscale("log")
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("normalized FCT")
        ax.set_ylabel("CDF")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle(f"s-PERC {figure}: {workload}, {load:.0%} load ({scale})")
    return PaperResult(rows, save_figure(fig, outdir, entry), [t])


def _short_vs_basic(rows: list[dict[str, Any]]) -> dict[str, float]:
    """The smallest bin's slowdown percentiles of s-PERC* 'short' over basic s-PERC*'s."""
    first = {r["scheme"]: r for r in rows if r["bin"].startswith("bin 1")}
    short, basic = first.get("s-PERC* short"), first.get("s-PERC*")
    if not short or not basic:
        return {}
    return {q: short[q] / basic[q] for q in ("p50", "p95", "p99") if q in short and q in basic}


def _entry(name: str) -> Entry:
    workload, load, figure = FIGURES[name]
    return Entry(
        name=name,
        title=(
            f"FCTs by size bin, {workload} at {load:.0%} load: RCP, s-PERC* (basic, 'short'), "
            "pFabric, max-min"
        ),
        paper="s-PERC (Jose et al.), §8.2.2" + (", App. D" if load > 0.7 else ""),
        figure=figure,
        scales={
            "smoke": "3 leaves x 4 hosts, 2 spines, 100/400 Gb/s, 400 flows",
            "full": "9 leaves x 16 hosts, 4 spines, 100/400 Gb/s, 20,000 flows",
        },
        run_fn=lambda scale, outdir, console: run_entry(name, scale, outdir, console),
    )


ENTRIES = [_entry(name) for name in FIGURES]
