"""Söze §5.1.6, Fig. 11: TPC-H job completion time with critical-path weights.

The 22 TPC-H queries as job DAGs (``fairnet::workload::tpch`` in the Rust core documents how
the DAGs and their volumes are built from the query plans), each task placed on a host drawn at
random from the §5 fat-tree (100 Gb/s, 1 µs links; tasks may share a host), all jobs released
together. Each flow's base weight is the length of the longest chain of flows from it to the end
of its DAG ("the longest distance from this flow to the end of the DAG", §5.1.6), and the
job-level sum-preserving policy of §3 keeps each job's active weights summing to its number of
active flows (``fairnet::systems::soze::policy``), so jobs share the fabric as under fair
sharing and only the order inside a job changes; a single-path job keeps weight 1. The baseline
shares fairly (all weights 1). Both runs use the flow-level engine, i.e. the exact weighted
max-min allocation at every instant, which Söze converges to (the paper ran Söze in ns-3).

The paper reports the average job completion time reduced to 0.79× and the best to 0.59×, and
that jobs with a single execution path do not benefit. It gives neither its DAGs, volumes,
placement nor how weights combine across jobs; with DAGs from the query plans, where the large
LINEITEM scans dominate each job and rarely share a link with a flow of another depth, we
measure a much smaller gain (a few percent at most); see ``docs/systems/soze.md``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from rich.console import Console

from fairnet import _core, flowsim
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import grouped_bars, pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key

#: Söze §5.1.6: "the average job completion time is reduced by 0.79×, and the maximum
#: reduction is 0.59×".
PAPER_MEAN_RATIO = 0.79
PAPER_BEST_RATIO = 0.59
QUERIES = list(range(1, 23))
SETUP = {
    # k, TPC-H scale factor, placements (seeds) averaged
    "smoke": (8, 0.1, 1),
    "full": (16, 1.0, 5),
}


def topology(k: int) -> dict:
    """The §5 fat-tree: 100 Gb/s, 1 µs links."""
    return {"kind": "fat_tree", "k": k, "host_rate": "100Gbps", "delay": "1us"}


def job_completion_times(k: int, sf: float, seed: int) -> dict[str, np.ndarray]:
    """JCT (seconds) per query, fair and weighted, for one random placement."""
    topo = topology(k)
    jobs = dict(_core.tpch_jobs(json.dumps(topo), QUERIES, sf, "uniform", seed))
    flows = {
        "src": jobs["src"],
        "dst": jobs["dst"],
        "size": jobs["size"],
        "start_ps": jobs["start_ps"],
        "tag": jobs["tag"],
        "deps": (jobs["deps_ptr"], jobs["deps"]),
    }
    out: dict[str, np.ndarray] = {"query": np.array(QUERIES)}
    runs = (
        ("fair", np.ones(len(jobs["src"])), None),
        ("weighted", jobs["longest_path"].astype(float), "job_sum_preserving"),
    )
    for name, weight, policy in runs:
        r = flowsim.run(topo, flows | {"weight": weight}, config={"ecmp_seed": seed}, policy=policy)
        g = r.groups
        if (g["end_ps"] < 0).any():
            raise RuntimeError(f"{name}: a TPC-H job did not finish")
        # A job whose tasks all landed on one host moves nothing over the network: JCT 0.
        seconds = (g["end_ps"] - g["start_ps"]) / 1e12
        jct = dict(zip(g["tag"].tolist(), seconds.tolist(), strict=True))
        out[name] = np.array([jct.get(q, 0.0) for q in QUERIES])
    # A query is single-path when its DAG is a chain (every flow has at most one dependency
    # and one dependant): no weight can speed it up.
    chain = []
    ptr = jobs["deps_ptr"]
    for q in out["query"]:
        ids = np.flatnonzero(jobs["tag"] == q)
        fan_in = max((ptr[i + 1] - ptr[i] for i in ids), default=0)
        chain.append(fan_in <= 1 and jobs["longest_path"][ids].max() == len(ids))
    out["single_path"] = np.array(chain)
    return out


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    k, sf, placements = SETUP[scale]
    per_seed = [job_completion_times(k, sf, seed) for seed in range(1, placements + 1)]
    queries = per_seed[0]["query"]
    fair = np.mean([s["fair"] for s in per_seed], axis=0)
    weighted = np.mean([s["weighted"] for s in per_seed], axis=0)
    ratio = np.divide(weighted, fair, out=np.ones_like(fair), where=fair > 0)
    single = per_seed[0]["single_path"]
    rows = [
        {
            "query": int(q),
            "fair_jct_s": float(fair[i]),
            "weighted_jct_s": float(weighted[i]),
            "ratio": float(ratio[i]),
            "single_path": bool(single[i]),
        }
        for i, q in enumerate(queries)
    ]
    summary = {
        "query": "mean",
        "ratio": float(ratio.mean()),
        "best_ratio": float(ratio.min()),
        "paper_mean_ratio": PAPER_MEAN_RATIO,
        "paper_best_ratio": PAPER_BEST_RATIO,
    }
    t = ResultTable(
        f"Söze Fig. 11: TPC-H JCT, weighted / fair (k = {k}, SF {sf}, {scale})",
        (
            key("query"),
            Column("fair JCT", "ours"),
            Column("weighted JCT", "ours"),
            Column("single path", "ours"),
            Column("weighted / fair", "ours"),
            Column("weighted / fair", "paper"),
        ),
        note=f"ours: mean ratio {summary['ratio']:.3f}, best {summary['best_ratio']:.3f} "
        f"(paper: {PAPER_MEAN_RATIO}, {PAPER_BEST_RATIO})",
    )
    for r in rows:
        t.add_row(
            f"Q{r['query']}",
            f"{r['fair_jct_s'] * 1e3:.2f} ms",
            f"{r['weighted_jct_s'] * 1e3:.2f} ms",
            "yes" if r["single_path"] else "",
            f"{r['ratio']:.3f}",
            "",
            end_section=r is rows[-1],
        )
    t.add_row("mean", "", "", "", f"{summary['ratio']:.3f}", f"{PAPER_MEAN_RATIO}")
    t.add_row("best", "", "", "", f"{summary['best_ratio']:.3f}", f"{PAPER_BEST_RATIO}")
    t.print(console)

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9.0, 3.2))
    grouped_bars(
        ax,
        [f"Q{r['query']}" for r in rows],
        [("fair sharing", np.ones(len(rows))), ("Söze weights (longest path)", ratio)],
        fontsize=7,
    )
    ax.axhline(PAPER_MEAN_RATIO, color="gray", ls="--", lw=1, label="paper's mean ratio")
    ax.set_ylabel("normalized JCT")
    ax.legend(fontsize=8)
    return PaperResult([*rows, summary], save_figure(fig, outdir, "soze-fig11"), [t])


ENTRY = Entry(
    name="soze-fig11",
    title="TPC-H job completion time with longest-path weights vs fair sharing (flow level)",
    paper="Söze §5.1.6",
    figure="Fig. 11",
    scales={
        "smoke": "22 TPC-H DAGs, k = 8 fat-tree, scale factor 0.1, one placement",
        "full": "22 TPC-H DAGs, k = 16 fat-tree, scale factor 1, five placements averaged",
    },
    run_fn=run,
)
