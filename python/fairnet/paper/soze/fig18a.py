"""Söze §5.3.2, Fig. 18(a): how finely each scheme can weight the flows of a coflow.

"each coflow is consist of 10 flows, and the flow size is randomly chosen from a range of [1 GB,
3 GB]. In Söze, ... the weight is equal to the flow size. For the multi-connection solution, we
will choose the closest integer number with the flow size ... For the switch-based weighted
round-robin solutions, ... each switch has 4 physical queues. We try to pack the 10 different
flows into 4 physical queues and set a certain weight for each physical queue. The flows with
similar data size will be packed into the same queue ... The sum of the flow data size within
a queue will be used to calculate the weight of each queue" (§5.3.2). Fig. 18(a): "Söze allows
all the flows within a coflow to finish at nearly the same time, so that it has the minimum FCT
difference among all the alternative solutions." The figure has no numbers.

Our choices where the paper is silent:

- **Placement**: the paper does not say where the coflow's flows go; ours is an in-cast, ten
  senders on a 100 Gb/s star into one receiver, so the receiver's port is every flow's
  bottleneck and the ideal is that all ten end together at total bytes / line rate.
- **Multi-Conn**: Söze with unit weights; a flow of s GB opens round(s) connections (at least
  one) from its host, each carrying s/round(s) of the bytes (``systems::soze::multi_connection``
  with weight = size); the flow ends with its last connection.
- **Physical Queue**: the flows sorted by size and cut into 4 contiguous groups with the least
  within-group squared deviation ("similar data size"); WRR at the switches with queue i's
  weight the group's total size in tenths of the size unit (WRR weights are whole packets per
  round); the hosts run the queueing-delay AIMD of §5.3.1 (as Fig. 17(c)).
- **Metric**: a coflow's FCT spread, (latest − earliest flow end) / latest end; and its
  completion time over the ideal (all bytes on the wire at line rate).
- **Scale**: ``full`` is the paper's 1–3 GB and 5 coflows; ``smoke`` shrinks the sizes to
  10–30 MB (the unit 10 MB; 16 ms per coflow) and runs 3 coflows.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

import fairnet
from fairnet import _core
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.soze.common import LINK_BPS, PAYLOAD, WIRE, soze_engine
from fairnet.paper.tables import Column, ResultTable, key

#: Flows per coflow and WRR queues per port (§5.3.2).
FLOWS, QUEUES = 10, 4
#: Bytes of one size unit (the paper's GB) and coflows run, per scale.
UNIT = {"smoke": 10_000_000, "full": 1_000_000_000}
COFLOWS = {"smoke": 3, "full": 5}
SCHEMES = ("Söze", "Multi-Conn", "Physical Queue")


def coflow_sizes(rng: np.random.Generator) -> np.ndarray:
    """Ten flow sizes in units (the paper's GB), uniform in [1, 3]."""
    return rng.uniform(1.0, 3.0, FLOWS)


def pack_queues(sizes: np.ndarray, queues: int = QUEUES) -> list[int]:
    """Each flow's queue: the flows sorted by size, cut into ``queues`` contiguous groups with
    the least total within-group squared deviation (exhaustive over the cut points)."""
    order = np.argsort(sizes)
    s = sizes[order]
    best, best_cuts = np.inf, ()
    for cuts in itertools.combinations(range(1, len(s)), queues - 1):
        groups = np.split(s, cuts)
        cost = sum(float(((g - g.mean()) ** 2).sum()) for g in groups)
        if cost < best:
            best, best_cuts = cost, cuts
    queue = np.zeros(len(s), dtype=int)
    for q, idx in enumerate(np.split(order, best_cuts)):
        queue[idx] = q
    return queue.tolist()


def scenario(scheme: str, sizes: np.ndarray, unit: int) -> tuple[dict[str, Any], list[int]]:
    """The coflow as a scenario document for ``scheme``, and each scenario flow's coflow flow
    (Multi-Conn runs several connections per flow)."""
    engine = soze_engine()
    del engine["record"]  # only flow completion times are needed
    flows: list[dict[str, Any]] = []
    owner: list[int] = []
    if scheme == "Söze":
        for i, s in enumerate(sizes):
            flows.append({"src": i, "dst": FLOWS, "size": round(s * unit), "weight": float(s)})
            owner.append(i)
    elif scheme == "Multi-Conn":
        # Söze's own splitting (``systems::soze::multi_connection``): weight = size.
        conn_sizes, owner = _core.soze_multi_connection(
            [float(s) for s in sizes], [round(s * unit) for s in sizes]
        )
        flows = [
            {"src": i, "dst": FLOWS, "size": b} for b, i in zip(conn_sizes, owner, strict=True)
        ]
    elif scheme == "Physical Queue":
        queue = pack_queues(sizes)
        weights = [0.0] * QUEUES
        for i, s in enumerate(sizes):
            weights[queue[i]] += float(s)
            flows.append({"src": i, "dst": FLOWS, "size": round(s * unit), "priority": queue[i]})
            owner.append(i)
        engine = {
            "kind": "packet",
            "transport": "delay_aimd",
            "qdisc": {"kind": "wrr", "weights": [max(1, round(10 * w)) for w in weights]},
        }
    else:
        raise ValueError(f"unknown scheme {scheme!r}")
    doc = {
        "name": f"soze-fig18a {scheme}",
        "topology": {"kind": "star", "n_hosts": FLOWS + 1},
        "workload": {"kind": "flows", "flows": flows},
        "engine": engine,
    }
    return doc, owner


def coflow_fcts(scheme: str, sizes: np.ndarray, unit: int) -> np.ndarray:
    """Each coflow flow's completion time (s) under ``scheme``; an error if any never ends."""
    doc, owner = scenario(scheme, sizes, unit)
    ends = fairnet.run(doc).flows["end_s"].to_numpy()
    if np.isnan(ends).any():
        raise RuntimeError(f"soze-fig18a: a {scheme} flow did not finish")
    fct = np.zeros(FLOWS)
    for j, i in enumerate(owner):
        fct[i] = max(fct[i], ends[j])
    return fct


def ideal_cct(sizes: np.ndarray, unit: int) -> float:
    """Every byte of the coflow on the wire at line rate through the receiver's port (s)."""
    packets = np.ceil(np.round(sizes * unit) / PAYLOAD)
    return float(packets.sum() * WIRE * 8 / LINK_BPS)


def run(scale: str, outdir: Path, console: Console, seed: int = 1) -> PaperResult:
    unit = UNIT[scale]
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    fcts: dict[str, list[np.ndarray]] = {s: [] for s in SCHEMES}
    for c in range(COFLOWS[scale]):
        sizes = coflow_sizes(rng)
        ideal = ideal_cct(sizes, unit)
        for scheme in SCHEMES:
            fct = coflow_fcts(scheme, sizes, unit)
            fcts[scheme].append(fct / ideal)
            rows.append(
                {
                    "coflow": c,
                    "scheme": scheme,
                    "sizes_units": sizes.round(3).tolist(),
                    "fct_s": fct.tolist(),
                    "spread": float((fct.max() - fct.min()) / fct.max()),
                    "cct_over_ideal": float(fct.max() / ideal),
                }
            )
    t = ResultTable(
        f"Söze Fig. 18(a) ({scale}): one coflow of 10 flows into one port",
        (
            key("scheme"),
            Column("FCT spread: mean", "ours"),
            Column("FCT spread: max", "ours"),
            Column("CCT / ideal: mean", "ours"),
            Column("§5.3.2", "paper", text=True),
        ),
        note="FCT spread: (latest - earliest flow end) / latest end within a coflow; ideal: all "
        "bytes through the receiver's port at line rate.",
    )
    paper = {
        "Söze": "minimum FCT difference",
        "Multi-Conn": "integer weights only",
        "Physical Queue": "degrades with > 4 flows",
    }
    for scheme in SCHEMES:
        mine = [r for r in rows if r["scheme"] == scheme]
        spread = [r["spread"] for r in mine]
        cct = [r["cct_over_ideal"] for r in mine]
        t.add_row(
            scheme,
            f"{np.mean(spread) * 100:.1f}%",
            f"{max(spread) * 100:.1f}%",
            f"{np.mean(cct):.3f}",
            paper[scheme],
        )
    t.print(console)

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for k, scheme in enumerate(SCHEMES):
        norm = np.concatenate(fcts[scheme])
        ax.boxplot(norm, positions=[k], widths=0.6)
    ax.set_xticks(range(len(SCHEMES)), SCHEMES)
    ax.set_ylabel("flow completion time / ideal CCT")
    ax.set_title("(a) flows of a coflow: the closer together, the better")
    return PaperResult(rows, save_figure(fig, outdir, "soze-fig18a"), [t])


ENTRY = Entry(
    name="soze-fig18a",
    title="Söze: a coflow's flows end together under size weights, not under integer weights",
    paper="Söze (Wang & Ng), §5.3.2",
    figure="Fig. 18(a)",
    scales={
        "smoke": "3 coflows of 10 flows of 10-30 MB into one 100 Gb/s port",
        "full": "5 coflows of 10 flows of 1-3 GB (the paper's sizes)",
    },
    run_fn=run,
)
