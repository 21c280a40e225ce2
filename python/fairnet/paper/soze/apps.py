"""Söze §5.1, Figs. 6–10: the application cases.

The paper ran them on its eRPC testbed (4 hosts, one switch); we run Figs. 6, 8, 9 and 10 as the
exact weighted max-min allocation they converge to (flow-level engine), on one 25 Gb/s switch,
and Fig. 7, whose policy watches progress, on the packet engine with Söze senders
(``fairnet::systems::soze::apps`` documents each case). The testbed's effective rate is not
given, so the ratio of the policy's time to fair sharing's is what compares, and our times
are also shown rescaled to the paper's fair-sharing time.

- Fig. 6, critical path: f1 → f2 → f3 in sequence, f4 beside f1; f1 : f4 weighted 2 : 1.
  Paper: 117 s → 96 s.
- Fig. 7, straggler mitigation: f2 (twice f1's size) shares its bottleneck with background
  flows; the policy raises f2's weight until it keeps pace with f1. Paper: rates only, "f2 ...
  can finish at the same time as f1".
- Fig. 8, job-level reweighting: two jobs of two parallel flows through one bottleneck; at
  50 s each job splits its unchanged weight sum by remaining bytes. Paper: job 2 82 s → 79 s,
  each job "around 5 Gbps" before and after. The paper gives no sizes: ours are solved from
  its two times (``fairnet::systems::soze::apps::fig8_job_level``), so what the entry checks
  is the mechanism (job rates unchanged, job 2's flows ending together, job 1 not later).
- Fig. 9, altruistic sharing: f2 takes only the 25% it needs; paper: job 2 60 s → 50 s, f3 at
  20 s.
- Fig. 10, shortest-flow first (weight = max size / size) for RPC writes of 700–7000 MB from
  three senders to one; paper: no times, "more than 80% of the flows benefit".
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from fairnet import _core
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import grouped_bars, pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key

RPCS = {"smoke": 20, "full": 200}
#: What the paper says where it gives no times.
PAPER_CLAIM = {
    "Fig. 7": "f2 finishes with f1 (rates only)",
    "Fig. 10": "> 80% of flows sooner",
}


def seconds(t: float) -> str:
    """A time in s, or in ms below one second."""
    return f"{t:.2f} s" if t >= 1 else f"{t * 1e3:.3f} ms"


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    cases = [dict(c) for c in _core.soze_app_cases(RPCS[scale], 1)]
    t = ResultTable(
        f"Söze §5.1 application cases (flow level, {scale})",
        (
            key("figure"),
            key("what"),
            Column("fair", "ours"),
            Column("policy", "ours"),
            Column("fair → policy", "paper", text=True),
            Column("policy / fair", "ours"),
            Column("policy / fair", "paper"),
        ),
    )
    for c in cases:
        pf, pp = c["paper_fair_s"], c["paper_policy_s"]
        scale_to_paper = pf / c["fair_s"] if pf else None
        ours_policy = (
            f"{seconds(c['policy_s'])} ({c['policy_s'] * scale_to_paper:.1f} s in paper units)"
            if scale_to_paper
            else seconds(c["policy_s"])
        )
        paper = f"{pf:g} s → {pp:g} s" if pf else PAPER_CLAIM[c["figure"]]
        t.add_row(
            c["figure"],
            c["what"],
            seconds(c["fair_s"]),
            ours_policy,
            paper,
            f"{c['ratio']:.3f}",
            f"{pp / pf:.3f}" if pf else "",
        )
    t.print(console)
    by = {c["figure"]: c for c in cases}
    fig7 = by["Fig. 7"]
    console.print(
        f"Fig. 7: fair f1 {fig7['f1_fair_s'] * 1e3:.3f} ms, f2 {fig7['fair_s'] * 1e3:.3f} ms; "
        f"mitigated f1 {fig7['f1_policy_s'] * 1e3:.3f} ms, f2 {fig7['policy_s'] * 1e3:.3f} ms "
        f"(f2's weight up to {fig7['f2_max_weight']:.2f}; background beside f2 "
        f"{fig7['background_bps'] / 1e9:.1f} Gb/s each)"
    )
    fig8 = by["Fig. 8"]
    before, after = fig8["job_gbps_before"], fig8["job_gbps_after"]
    console.print(
        f"Fig. 8: jobs at {before[0]:.2f} / {before[1]:.2f} Gb/s before the change and "
        f"{after[0]:.2f} / {after[1]:.2f} after (each half of our 25 Gb/s bottleneck; paper: "
        f"~5 Gb/s each); f3 and f4 end at {fig8['f3_f4_end_s'][0]:.1f} / "
        f"{fig8['f3_f4_end_s'][1]:.1f} s; job 1 {fig8['job1_s'][0]:.1f} → "
        f"{fig8['job1_s'][1]:.1f} s (sizes solved from the paper's 82 → 79 s)"
    )
    fig9 = by["Fig. 9"]
    console.print(
        f"Fig. 9: f3 ends at {fig9['f3_s'] * fig9['paper_fair_s'] / fig9['fair_s']:.1f} s in the "
        "paper's units (paper: 20 s)"
    )
    fig10 = by["Fig. 10"]
    console.print(
        f"Fig. 10: {fig10['sooner'] * 100:.0f}% of RPCs finish sooner with shortest-first "
        "weights (paper: more than 80%)"
    )
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 3.0))
    paper = [c["paper_policy_s"] / c["paper_fair_s"] if c["paper_fair_s"] else 0 for c in cases]
    grouped_bars(
        ax,
        [c["figure"] for c in cases],
        [("fairnet", [c["ratio"] for c in cases]), ("paper", paper)],
    )
    ax.set_ylabel("policy / fair completion time")
    ax.legend()
    return PaperResult(cases, save_figure(fig, outdir, "soze-apps"), [t])


ENTRY = Entry(
    name="soze-apps",
    title="Application cases: critical path, stragglers, job-level reweighting, altruistic "
    "sharing, shortest-flow first",
    paper="Söze §5.1",
    figure="Figs. 6–10",
    scales={
        "smoke": "Figs. 6–9 as specified; Fig. 10 with 20 RPCs per sender",
        "full": "Figs. 6–9 as specified; Fig. 10 with 200 RPCs per sender",
    },
    run_fn=run,
)
