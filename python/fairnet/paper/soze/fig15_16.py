"""Söze §5.2.3, Figs. 15–16: FCT slowdown of the Google RPC workload at 40% and 80% load on the
fat-tree, Söze against HPCC and DCQCN.

"We run the Google RPC workload [53] with randomly selected sender and receiver. And we compare
with two datacenter congestion control solutions — HPCC and DCQCN." The paper's claims (no
numbers; both figures are plots): "under both 40% and 80% load, Söze achieves lower FCT slowdown
than HPCC and DCQCN, especially for the short flows" (Fig. 15); "Söze provides more benefits for
flows with less than 1000 packets. While for flows with larger data size (> 100k packets), Söze
also provides comparable performance with DCQCN and outperforms HPCC, leading to shorter tail
FCT slowdown in Figure 15" (Fig. 16). (The Google RPC sizes we have end at 15 MB, 15k packets
of 1000 B: no flow is above 100k packets.)

Setup (§5 "NS-3 simulator setup"): a fat-tree of 100 Gb/s links, 1 µs per link, 32 MB buffers,
1000 B payload; the paper's is k = 16 (1024 servers, 320 switches). Flows arrive as a Poisson
process offering the load on the hosts' links, between random distinct hosts, sizes from
``GoogleRPC2008.txt`` (the scenario workload ``poisson``, ``cdf = "googlerpc"``). One ECMP path
per flow. The three schemes on the same flows (same seed):

- Söze: §4's parameters, the backlog signal, no switch filter (``paper.soze.common``), the weighted
  NIC with a two-packet pacing credit (``host_nic = "weighted"``, ``tcp.pacing_burst``: the
  configuration of ``soze::weighted_nic_packet_config``, under which Söze reaches weighted
  max-min on random fat-trees; the other schemes pull round robin over the host's flows);
- Every scheme sends ACKs ahead of data at every port (``ack_first``: HPCC's ns-3 simulator, which
  Söze's builds on, gives ACKs the highest priority).
- HPCC: §5's settings (W_AI = 80 B, maxStage = 5, η = 95%) with INT at every port;
- DCQCN: the engine's reaction point, default preset ``dcqcn_paper`` (the DCQCN paper's
  algorithm and values as we recall them; ``docs/systems/soze.md`` says why this preset and
  what ``hpcc_ns3_paper`` changes) with RED/ECN marking at DCQCN's K_min = 5 KB,
  K_max = 200 KB, P_max = 1%.

Slowdown is the FCT over the flow's FCT alone on an idle network (the runner's ``slowdown``
column), binned by :data:`fairnet.runner.SIZE_BINS` through
:func:`fairnet.runner.slowdown_by_size` (the runner's and ``fairnet compare``'s bins).
Fig. 15 is drawn as the CDF of every flow's slowdown, Fig. 16 as the median and 99th percentile
per size bin. Flows unfinished at the stop time are counted, never binned.

Scales: ``smoke`` k = 4 (16 hosts), 20,000 flows per load; ``full`` the paper's k = 16 with
2,000,000 flows per load (the paper gives no count). The Google RPC sizes average 2.9 KB (97%
below 10 KB, 0.4% above 100 KB), so it takes that many flows to fill the larger bins and to
offer the load for longer than the largest flow lasts: 20,000 flows arrive within 0.7 ms at 40%
on k = 4 (0.36 ms at 80%), 2,000,000 within 1.1 ms at 40% on k = 16.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

import fairnet
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import plot_cdf, pyplot, save_figure
from fairnet.paper.soze.common import WIRE, soze_engine
from fairnet.paper.tables import Column, ResultTable, key
from fairnet.runner import SIZE_BINS, slowdown_by_size

LOADS = (0.4, 0.8)
SCALE = {"smoke": {"k": 4, "flows": 20_000}, "full": {"k": 16, "flows": 2_000_000}}
#: Simulated-time bound of one run (a flow still running then is reported unfinished).
STOP = {"smoke": "50ms", "full": "1s"}
SEED = 1
SCHEMES = ("Söze", "HPCC", "DCQCN")

#: The paper's claims per figure, printed beside our numbers.
PAPER = {
    "Fig. 15": "Söze lower slowdown than HPCC and DCQCN at 40% and 80%, especially short flows",
    "Fig. 16": "Söze better below 1000 packets; comparable to DCQCN and better than HPCC above",
}


def engine(scheme: str) -> dict[str, Any]:
    """The packet-engine table of ``scheme`` (see the module doc)."""
    if scheme == "Söze":
        # The other Söze entries' engine, without their time series (flow records suffice),
        # with the weighted NIC and a two-packet pacing credit (`soze::weighted_nic_packet_config`,
        # the configuration that reaches weighted max-min on fat-trees): nothing waits in a NIC
        # FIFO, where a short flow's packets would queue behind the long flows' (queueing NIC:
        # short-flow p99 slowdown 18.8 vs 9.6 at 80% load, docs/systems/soze.md).
        eng = {k: v for k, v in soze_engine().items() if k != "record"}
        return eng | {"host_nic": "weighted", "tcp": {"pacing_burst": f"{2 * WIRE}B"}}
    if scheme == "HPCC":
        return {"kind": "packet", "transport": "hpcc", "port_agent": "int", "ack_first": True}
    if scheme == "DCQCN":
        return {
            "kind": "packet",
            "transport": "dcqcn",
            "ack_first": True,
            "qdisc": {
                "kind": "red",
                "thresholds": [{"rate": "100Gbps", "kmin": "5KB", "kmax": "200KB", "pmax": 0.01}],
            },
        }
    raise ValueError(scheme)


def scenario(scale: str, load: float, scheme: str) -> dict[str, Any]:
    """Figs. 15–16's run of ``scheme`` at ``load`` as a scenario document."""
    s = SCALE[scale]
    return {
        "name": f"soze-fig15-16 ({scale}, {load:.0%}, {scheme})",
        "seed": SEED,
        "topology": {"kind": "fat_tree", "k": s["k"]},
        "workload": {"kind": "poisson", "cdf": "googlerpc", "load": load, "flows": s["flows"]},
        "engine": engine(scheme),
        "stop_at": STOP[scale],
    }


def _pct(x: np.ndarray, q: float) -> float:
    x = x[np.isfinite(x)]
    return float(np.percentile(x, q)) if len(x) else float("nan")


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    rows: list[dict[str, Any]] = []
    slowdowns: dict[tuple[float, str], np.ndarray] = {}
    for load in LOADS:
        for scheme in SCHEMES:
            started = time.monotonic()
            # A progress bar for runs over two seconds (the full scale: 1.5–10 min each).
            r = fairnet.run(scenario(scale, load, scheme), show_progress=True)
            console.print(
                f"[dim]{scheme} at {load:.0%} load: {time.monotonic() - started:.0f} s[/dim]"
            )
            f = r.flows
            size = f["size"].to_numpy()
            sd = f["slowdown"].fill_null(np.nan).to_numpy().astype(float)
            slowdowns[(load, scheme)] = sd
            rows.append(
                {
                    "load": load,
                    "scheme": scheme,
                    "flows": len(sd),
                    "finished": int(np.isfinite(sd).sum()),
                    "p50": _pct(sd, 50),
                    "p95": _pct(sd, 95),
                    "p99": _pct(sd, 99),
                    "by_size": slowdown_by_size(size, sd),
                    "paper": PAPER["Fig. 15"],
                }
            )
    t = _table(rows, scale)
    t.print(console)
    files = _plot_fig15(slowdowns, outdir) + _plot_fig16(rows, outdir)
    return PaperResult(rows, files, [t])


def _table(rows: list[dict[str, Any]], scale: str) -> ResultTable:
    k = SCALE[scale]["k"]
    t = ResultTable(
        f"Söze Figs. 15–16 ({scale}): Google RPC on a k = {k} fat-tree, FCT slowdown",
        (
            key("load"),
            key("scheme"),
            Column("done", "ours"),
            Column("all p50", "ours"),
            Column("all p99", "ours"),
            *(Column(f"{label} p50 / p99", "ours") for _, _, label in SIZE_BINS),
        ),
        note="\n".join(f"Paper {fig} (plots, no numbers): {c}." for fig, c in PAPER.items()),
    )
    for r in rows:
        cells = [f"{b['p50']:.2f} / {b['p99']:.2f}" if b["flows"] else "—" for b in r["by_size"]]
        t.add_row(
            f"{r['load']:.0%}",
            r["scheme"],
            f"{r['finished']}/{r['flows']}",
            f"{r['p50']:.2f}",
            f"{r['p99']:.2f}",
            *cells,
        )
    return t


def _plot_fig15(slowdowns: dict[tuple[float, str], np.ndarray], outdir: Path) -> list[Path]:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.6), sharey=True)
    for ax, panel, load in zip(axes, "ab", LOADS, strict=True):
        for scheme in SCHEMES:
            plot_cdf(ax, slowdowns[(load, scheme)], scheme, lw=1.2)
        ax.set_xscale("log")
        ax.set_xlabel("FCT slowdown")
        ax.set_title(f"({panel}) {load:.0%} load")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("CDF")
    return save_figure(fig, outdir, "soze-fig15")


def _plot_fig16(rows: list[dict[str, Any]], outdir: Path) -> list[Path]:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11.0, 3.8), sharey=True)
    labels = [label for _, _, label in SIZE_BINS]
    x = np.arange(len(labels))
    width = 0.8 / len(SCHEMES)
    for ax, panel, load in zip(axes, "ab", LOADS, strict=True):
        for j, scheme in enumerate(SCHEMES):
            (row,) = [r for r in rows if r["load"] == load and r["scheme"] == scheme]
            p50 = [b.get("p50", np.nan) for b in row["by_size"]]
            p99 = [b.get("p99", np.nan) for b in row["by_size"]]
            pos = x - 0.4 + width * (j + 0.5)
            ax.bar(pos, p99, width, color=f"C{j}", alpha=0.35)
            ax.bar(pos, p50, width, color=f"C{j}", label=f"{scheme} (dark p50, light p99)")
        ax.set_xticks(x, labels)
        ax.set_yscale("log")
        top = max(b.get("p99", 1.0) for r in rows for b in r["by_size"])
        ax.set_ylim(0.9, top * 4)  # room for the legend above the bars
        ax.set_xlabel("flow size")
        ax.set_title(f"({panel}) {load:.0%} load")
        ax.legend(fontsize=7, loc="upper left", ncol=2)
    axes[0].set_ylabel("FCT slowdown")
    return save_figure(fig, outdir, "soze-fig16")


ENTRY = Entry(
    name="soze-fig15-16",
    title="FCT slowdown, Google RPC at 40% and 80% load: Söze vs HPCC vs DCQCN",
    paper="Söze (Wang & Ng), §5.2.3",
    figure="Figs. 15–16",
    scales={
        "smoke": "k = 4 fat-tree, 20,000 Google RPC flows per load (40%, 80%), three schemes",
        "full": "the paper's k = 16 fat-tree, 2,000,000 flows per load, three schemes",
    },
    run_fn=run,
)
