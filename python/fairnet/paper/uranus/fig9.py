"""Uranus §5.2.1, Fig. 9 (network proportionality): two slices of bulk senders on §5.2's
fat-tree, weights 1:4, 1:2, 3:4 and 1:1, Uranus against SCC.

Paper: "we setup two slices … the traffics we setup in each slice are uniformly distributed
across racks. Before we generate traffic for these two slices, we generate background traffic
randomly among racks, consuming around 10% bandwidth resource … at each host sending packets,
the client works as a *bulk-sender*, i.e., sending packets as fast as possible. We vary the
weight among these two slices from 1 : 4 to 1 : 1, with proportion values of [0.25, 0.50,
0.75, 1.00] … This work applies Jain's fairness index [21] as a metric to quantify network
proportionality." Fig. 9(a)/(b): "the normalized throughput curve of Uranus and SCC under
weight 1 : 2"; Fig. 9(c): Jain's index per proportion value; "Uranus always achieves much
better network proportionality than SCC. The improvement is around 21.25%–31.49%."

Ours (every choice the paper leaves open marked *ours*):

- Network, marking, timers, guests: §5.2's (:mod:`fairnet.paper.uranus.sec52`): the 4-ary
  fat-tree with 4:1 rack uplinks, ECN at 65 packets, RTO floor 10 ms; the slices' flows run
  L²DCT (§5.2: completion-sensitive traffic's guest; bulk flows have no deadline, so both
  slices are CS, *ours*), the background DCTCP. Routing: flowcells (§5.2: "equipped with
  flowcell load balancing module"; ``routing = "flowcell"``).
- Bulk senders (``workload.kind = "bulk"``): every host runs one long-lived flow per slice
  (*ours*: the paper does not give the count), to a host drawn uniformly among the other
  racks' hosts ("uniformly distributed across racks"), all from time 0, 100 GB each (they
  never finish: the run stops at ``stop_at``). A second table (beyond the paper's reading,
  :data:`PER_PAIR`) runs :data:`SEVERAL` flows per host pair and slice
  (``workload.per_pair``), where every SCC tunnel holds several flows — the case where SCC's
  virtual tunnels and Uranus's per-flow weights differ.
- Background: web-search sizes (*ours*: the paper does not name them) at 10% of the hosts'
  access capacity between racks, Poisson over the whole run, in a CS slice of its own of
  weight 0.1·(W_A + W_B) (*ours*: every flow under WVCC or SCC needs a weight; its share of
  the weight about its share of the traffic). It is not one of the two slices compared.
- Weights: ``W_A : W_B`` = the proportion value, with ``W_B`` = the number of hosts, 64, so
  that a slice's mean flow weight is 1 (*ours*: the paper gives only the proportions, and
  their size matters to the speed: WVCC's Eq. (7) grows a window by ``w`` packets a round
  trip, so with ``W_B = 1`` over 64 flows a flow would grow by 1/64 of a packet a round trip
  and move towards its share over seconds; with mean weight 1 it grows as DCTCP does).
- Schedulers: Uranus (``slice_scheduler = "uranus"``, WVCC shims) and SCC (``"scc"``, its
  virtual-tunnel shims), decision slot 1 ms (the scenario default).
- The metric (``fairnet::metrics::slice_proportionality``, defined once): per interval, each
  slice's throughput summed over the rack–core links (Uranus §2.2: every byte crossing them
  counts), ``T_s`` — from each flow's delivered rate × its share of each rack–core link
  (:mod:`fairnet.analysis`) — and Jain's index of ``T_s / W_s`` over the two slices; the
  entry reports the mean over the intervals after a warm-up (*ours*: the paper's averaging
  is not given). Normalized throughput (Fig. 9(a)/(b), *ours*: the paper's normalization is
  not given): ``(T_s / ΣT) / (W_s / ΣW)``, 1 = the slice's share of the congested links in
  proportion to its weight.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from rich.console import Console

import fairnet
from fairnet import _core
from fairnet.analysis import class_link_throughput, class_throughput_on, flow_link_shares
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import grouped_bars, pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key
from fairnet.paper.uranus.common import LONG
from fairnet.paper.uranus.sec52 import BACKGROUND, ECN_K, GUEST

#: The paper's proportion values W_A / W_B (§5.2.1).
PROPORTIONS = {"smoke": (0.5,), "full": (0.25, 0.5, 0.75, 1.0)}
#: Simulated time per run, and the warm-up left out of the means (slow start, the first
#: decision slots), per scale.
DURATION_MS = {"smoke": 30, "full": 1000}
WARMUP_MS = {"smoke": 10, "full": 100}
#: Recording interval of the flows' rates, and recording intervals per reported interval.
RECORD_MS = 1
EVERY = {"smoke": 2, "full": 10}
#: The proportion of Fig. 9(a)/(b)'s curves.
CURVE_PROPORTION = 0.5
SCHEDULERS = ("uranus", "scc")
#: ``W_B`` per flow of a host (the number of hosts: with one flow per host per slice, a
#: mean flow weight of 1; with ``per_pair`` flows, ``W_B = 64 · per_pair``).
WEIGHT_B = 64.0
#: Flows per host pair and slice (``workload.per_pair``), per scale: 1 is the paper's reading
#: (one bulk flow per host per slice: every SCC tunnel holds one flow, and SCC and Uranus
#: weight the same flows alike), :data:`SEVERAL` the second table's, where SCC's tunnels hold
#: several flows (§2.4: "a tunnel … the flows with the same source–destination pair").
SEVERAL = 4
PER_PAIR = {"smoke": (1, SEVERAL), "full": (1, SEVERAL)}
#: The paper's claim (§5.2.1; Fig. 9(c) is a plot).
PAPER = "Uranus's Jain index 21.25–31.49% above SCC's"


def scenario(
    proportion: float, scheduler: str, duration_ms: int, seed: int, per_pair: int = 1
) -> dict[str, Any]:
    """One Fig. 9 run: slices A (tag 0) and B (tag 1) of bulk senders with ``W_A : W_B`` =
    ``proportion``, ``per_pair`` flows per host pair and slice, the background (tag 2), under
    ``scheduler`` (``"uranus"`` or ``"scc"``)."""
    stop = f"{duration_ms}ms"
    weights = slice_weights(proportion, per_pair)
    workload: dict[str, Any] = {
        "kind": "bulk",
        "size": LONG,
        "tags": 2,
        "background": {"load": BACKGROUND, "cdf": "websearch", "until": stop},
    }
    if per_pair > 1:
        workload["per_pair"] = per_pair
    return {
        "name": f"Uranus Fig. 9: slices {proportion:g}:1, {per_pair} flow(s) per pair, "
        f"{scheduler} (seed {seed})",
        "seed": seed,
        "stop_at": stop,
        "topology": {"kind": "uranus_fat_tree"},
        "workload": workload,
        "engine": {
            "kind": "packet",
            "transport": "dctcp",
            "tag_transports": [{"tag": t, "transport": GUEST["cs"]} for t in (0, 1)],
            "qdisc": {"kind": "ecn", "k": {"packets": ECN_K}},
            "tcp": {"min_rto": "10ms"},
            "routing": "flowcell",
            "host_shim": "wvcc" if scheduler == "uranus" else "scc",
            "record": {"interval": f"{RECORD_MS}ms", "queues": "none"},
        },
        "slice_scheduler": scheduler,
        "slices": [
            {"name": "A", "objective": "cs", "weight": weights[0], "tags": [0]},
            {"name": "B", "objective": "cs", "weight": weights[1], "tags": [1]},
            {
                "name": "background",
                "objective": "cs",
                "weight": BACKGROUND * sum(weights),
                "tags": [2],
            },
        ],
    }


def slice_weights(proportion: float, per_pair: int = 1) -> tuple[float, float]:
    """``(W_A, W_B)`` for a proportion value and ``per_pair`` flows per host pair and slice
    (a mean flow weight of 1)."""
    w_b = WEIGHT_B * per_pair
    return (proportion * w_b, w_b)


def slice_series(
    r: Any, shares: pl.DataFrame, weights: tuple[float, float], every: int
) -> dict[str, np.ndarray]:
    """Per interval of a run: time, each slice's throughput over the rack–core links ``T_s``
    (bit/s, a flow once per such link it crosses), Jain's index of ``T_s / W_s`` and each
    slice's normalized throughput ``(T_s / ΣT) / (W_s / ΣW)``."""
    t = class_throughput_on(r.rates, shares, slice_of(r), rack_core_of(shares), every=every)
    times = np.unique(t["time_s"].to_numpy())
    tp = t["throughput_bps"].to_numpy().reshape(len(times), 2)
    w = np.asarray(weights)
    jain = np.array([_core.jain_index(np.ascontiguousarray(x), w) for x in tp])
    total = tp.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        normalized = (tp / total) / (w / w.sum())
    return {"time_s": times, "throughput_bps": tp, "jain": jain, "normalized": normalized}


def slice_of(r: Any) -> dict[int, int]:
    """The two compared slices' flows (tags 0 and 1; the background left out): flow → slice."""
    return {
        int(f): int(t)
        for f, t in zip(r.flows["flow"].to_list(), r.flows["tag"].to_list(), strict=True)
        if t in (0, 1)
    }


def rack_core_of(shares: pl.DataFrame) -> np.ndarray:
    """The rack–core links (``fairnet::metrics::rack_core_links``) of a membership table."""
    return np.unique(shares.filter(shares["rack_core"])["link"].to_numpy())


def per_link_jain(
    r: Any, shares: pl.DataFrame, weights: tuple[float, float], after_s: float
) -> float:
    """Beyond the network-wide index: the mean over the rack–core links of Jain's index of
    ``T_{l,s} / W_s``, each slice's mean throughput on link ``l`` after ``after_s`` — how
    proportional the slices are link by link (FairCloud's congestion proportionality is
    network-wide; a link can be off while the sums balance)."""
    per = class_link_throughput(r.rates, shares, slice_of(r), rack_core_of(shares))
    per = per.filter(pl.col("time_s") > after_s)
    samples = r.rates.filter(pl.col("time_s") > after_s)["time_s"].n_unique()
    mean = per.group_by("link", "class").agg(pl.col("throughput_bps").sum() / samples)
    w = np.asarray(weights)
    values = []
    for link in rack_core_of(shares):
        row = mean.filter(pl.col("link") == link)
        x = np.zeros(2)
        for c, v in zip(row["class"].to_list(), row["throughput_bps"].to_list(), strict=True):
            x[c] = v
        if x.sum() > 0:
            values.append(_core.jain_index(x, w))
    return float(np.mean(values))


def run_one(
    proportion: float, scheduler: str, scale: str, seed: int, per_pair: int = 1
) -> dict[str, Any]:
    """One run's row: mean Jain's index and normalized throughputs after the warm-up, each
    slice's mean ``T_s``, the per-link index, and (Uranus) Eq. (3)'s largest error;
    ``series`` the curves."""
    weights = slice_weights(proportion, per_pair)
    r = fairnet.run(scenario(proportion, scheduler, DURATION_MS[scale], seed, per_pair))
    shares = flow_link_shares(r.scenario, r.flows)
    s = slice_series(r, shares, weights, EVERY[scale])
    warmup_s = WARMUP_MS[scale] * 1e-3
    after = s["time_s"] > warmup_s
    mean_t = s["throughput_bps"][after].mean(axis=0)
    row: dict[str, Any] = {
        "proportion": proportion,
        "per_pair": per_pair,
        "scheduler": scheduler,
        "seed": seed,
        "jain_mean": float(s["jain"][after].mean()),
        "jain_of_means": _core.jain_index(np.ascontiguousarray(mean_t), np.asarray(weights)),
        "jain_per_link": per_link_jain(r, shares, weights, warmup_s),
        "throughput_a_bps": float(mean_t[0]),
        "throughput_b_bps": float(mean_t[1]),
        "normalized_a": float(s["normalized"][after, 0].mean()),
        "normalized_b": float(s["normalized"][after, 1].mean()),
        "intervals": int(after.sum()),
        "drops": int(r.summary["counters"].get("drops", 0)),
        "weight_sum_error": r.summary["counters"].get("slice_weight_sum_max_error"),
    }
    return {"row": row, "series": s}


def run(scale: str, outdir: Path, console: Console, runs: int) -> PaperResult:
    rows: list[dict[str, Any]] = []
    curves: dict[str, dict[str, np.ndarray]] = {}
    for n in PER_PAIR[scale]:
        for p in PROPORTIONS[scale]:
            for scheduler in SCHEDULERS:
                for seed in range(1, runs + 1):
                    out = run_one(p, scheduler, scale, seed, n)
                    rows.append(out["row"])
                    if (n, p, seed) == (1, CURVE_PROPORTION, 1):
                        curves[scheduler] = out["series"]
    summary = []
    for n in PER_PAIR[scale]:
        for p in PROPORTIONS[scale]:
            jain = {
                s: float(
                    np.mean(
                        [
                            r["jain_mean"]
                            for r in rows
                            if (r["per_pair"], r["proportion"], r["scheduler"]) == (n, p, s)
                        ]
                    )
                )
                for s in SCHEDULERS
            }
            summary.append(
                {
                    "proportion": p,
                    "per_pair": n,
                    "scheduler": "uranus vs scc",
                    "jain_uranus": jain["uranus"],
                    "jain_scc": jain["scc"],
                    "improvement": jain["uranus"] / jain["scc"] - 1,
                    "paper": PAPER,
                }
            )
    tables = [_table(rows, summary, scale, runs, n) for n in PER_PAIR[scale]]
    for t in tables:
        t.print(console)
    one = [x for x in summary if x["per_pair"] == 1]
    return PaperResult([*rows, *summary], _plot(curves, one, outdir), tables)


def _table(
    rows: list[dict[str, Any]],
    summary: list[dict[str, Any]],
    scale: str,
    runs: int,
    per_pair: int,
) -> ResultTable:
    rows = [r for r in rows if r["per_pair"] == per_pair]
    summary = [x for x in summary if x["per_pair"] == per_pair]
    pairs = (
        "one flow per host and slice"
        if per_pair == 1
        else f"{per_pair} flows per host pair and slice (SCC tunnels of {per_pair} flows)"
    )
    t = ResultTable(
        f"Uranus Fig. 9 ({scale}, {runs} seed{'s' if runs > 1 else ''}): two slices of bulk "
        f"senders, {pairs}, §5.2's fat-tree with 10% background, flowcells",
        (
            key("W_A : W_B"),
            key("scheduler"),
            Column("Jain", "ours"),
            Column("per link", "ours"),
            Column("T_A / T_B", "ours"),
            Column("norm. A", "ours"),
            Column("norm. B", "ours"),
            Column("drops", "ours"),
            Column("Uranus vs SCC", "paper", text=True),
        ),
        note="Jain: mean over intervals after the warm-up of Jain's index of T_s / W_s, T_s the "
        "slice's throughput over the rack–core links. per link: the mean over the rack–core "
        "links of Jain's index of each slice's mean throughput on the link over W_s. norm.: "
        "(T_s / ΣT) / (W_s / ΣW), 1 = proportional. Means over seeds; drops summed over seeds.",
    )
    for p in sorted({r["proportion"] for r in rows}):
        for s in SCHEDULERS:
            mine = [r for r in rows if (r["proportion"], r["scheduler"]) == (p, s)]
            ratio = np.mean([r["throughput_a_bps"] / r["throughput_b_bps"] for r in mine])
            t.add_row(
                f"{p:g} : 1",
                s,
                f"{np.mean([r['jain_mean'] for r in mine]):.4f}",
                f"{np.mean([r['jain_per_link'] for r in mine]):.4f}",
                f"{ratio:.3f} (target {p:g})",
                f"{np.mean([r['normalized_a'] for r in mine]):.3f}",
                f"{np.mean([r['normalized_b'] for r in mine]):.3f}",
                f"{sum(r['drops'] for r in mine)}",
                "—",
            )
        sm = next(x for x in summary if x["proportion"] == p)
        t.add_row(
            f"{p:g} : 1",
            "Uranus vs SCC",
            f"{sm['improvement']:+.2%}",
            "",
            "",
            "",
            "",
            "",
            "+21.25% to +31.49%",
            end_section=True,
        )
    return t


def _plot(
    curves: dict[str, dict[str, np.ndarray]], summary: list[dict[str, Any]], outdir: Path
) -> list[Path]:
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13.0, 3.4))
    for ax, s, letter in ((axes[0], "uranus", "a"), (axes[1], "scc", "b")):
        c = curves.get(s)
        if c is not None:
            for i, name in enumerate(("A", "B")):
                ax.plot(c["time_s"] * 1e3, c["normalized"][:, i], label=f"slice {name}")
        ax.axhline(1.0, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("normalized throughput")
        ax.set_title(f"({letter}) {s}, W_A : W_B = {CURVE_PROPORTION:g} : 1", fontsize=9)
        ax.legend(fontsize=7)
    labels = [f"{x['proportion']:g}" for x in summary]
    grouped_bars(
        axes[2],
        labels,
        [
            ("Uranus", [x["jain_uranus"] for x in summary]),
            ("SCC", [x["jain_scc"] for x in summary]),
        ],
    )
    axes[2].set_ylim(0.5, 1.0)
    axes[2].set_xlabel("proportion W_A / W_B")
    axes[2].set_ylabel("Jain's index")
    axes[2].set_title("(c) network proportionality", fontsize=9)
    axes[2].legend(fontsize=7)
    return save_figure(fig, outdir, "uranus-fig9")


ENTRY = Entry(
    name="uranus-fig9",
    title="Uranus: network proportionality of two slices of bulk senders, Uranus vs SCC",
    paper="Uranus, §5.2.1",
    figure="Fig. 9",
    scales={
        "smoke": f"proportion 0.5, {DURATION_MS['smoke']} ms per run",
        "full": f"proportions 0.25, 0.5, 0.75, 1, {DURATION_MS['full']} ms per run",
    },
    run_fn=run,
    runs={"smoke": 1, "full": 3},
)
