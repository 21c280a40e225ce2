"""Uranus §5.2.2, Figs. 11–12 (coexistence): a deadline-sensitive (DS) slice over D²TCP and a
completion-sensitive (CS) slice over L²DCT together on §5.2's fat-tree, web search.

Paper: "We start the deadline-sensitive slice first and collect the deadline-miss ratio as
benchmark. Then we start the completion-sensitive slice …" and the same the other way round.
"The deadline-miss ratio of DS traffic increases over 4X while AFCT of CS flows increases 5X
on average. With Uranus, the deadline-missing ratio of DS is reduced by 30% and AFCT of CS
flows reduces about 10% under medium load pressure" (Fig. 11); across loads "Uranus reduces
the deadline-miss ratio by about 18% on average … in terms of AFCT … the effectiveness becomes
less significant when the load gets high" (Fig. 12).

Ours (the scenarios of :mod:`fairnet.paper.uranus.sec52`): at each load L, the two slices
split one Poisson process (each L/2, ``workload.tags = 2``); the benchmark of a slice is the
same flows of that slice and the same background without the other slice's flows, over its
guest (:func:`alone_scenario`: the coexistence run's flows as flow rows), so the interference —
coexistence over the guests against the benchmark — compares the same flows; Uranus's effect
is coexistence with Uranus against coexistence over the guests. Medium load (Fig. 11): 0.5.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

import fairnet
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import grouped_bars, pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key
from fairnet.paper.uranus.fig10 import mean_of, row_where, run_one, shown, slice_metrics
from fairnet.paper.uranus.sec52 import scenario

#: Loads (total of the two slices) and flows per run (both slices), per scale.
LOADS = {"smoke": (0.5,), "full": (0.1, 0.3, 0.5, 0.7, 0.9)}
FLOWS = {"smoke": 300, "full": 1000}
#: Fig. 11's "medium load".
MEDIUM = 0.5
METRIC = {"ds": "miss_ratio", "cs": "afct_s"}
#: The paper's numbers (§5.2.2).
PAPER = {
    "interference": {"ds": 4.0, "cs": 5.0},
    "uranus_medium": {"ds": -0.30, "cs": -0.10},
    "uranus_loads_ds": -0.18,
}
SETTINGS = ("alone", "coexist", "coexist+uranus")
#: The slices in tag order (tag 0 DS, tag 1 CS; the background is tag 2).
OBJECTIVES = ("ds", "cs")


def _time(seconds: float) -> str:
    """A duration for a scenario, to the picosecond."""
    return f"{round(seconds * 1e12)}ps"


def alone_scenario(coexist: dict[str, Any], flows: Any, objective: str) -> dict[str, Any]:
    """The benchmark of ``objective``'s slice in the coexistence run ``coexist`` whose flow
    table is ``flows``: the same slice's flows and the same background flows (same hosts,
    sizes, starts, deadlines), without the other slice's, over the guests."""
    tag = OBJECTIVES.index(objective)
    background = len(OBJECTIVES)
    kept = flows.filter(flows["tag"].is_in([tag, background]))
    rows = []
    for f in kept.iter_rows(named=True):
        row = {
            "src": f["src"],
            "dst": f["dst"],
            "size": f"{f['size']}B",
            "start": _time(f["start_s"]),
            "tag": f["tag"],
        }
        if objective == "ds" and f["tag"] == tag:
            row["deadline"] = _time(f["deadline_s"])
        rows.append(row)
    engine = dict(coexist["engine"])
    engine["tag_transports"] = [t for t in engine["tag_transports"] if t["tag"] == tag]
    return {
        **coexist,
        "name": f"{coexist['name']}: {objective} alone",
        "workload": {"kind": "flows", "flows": rows},
        "engine": engine,
    }


def run(scale: str, outdir: Path, console: Console, runs: int) -> PaperResult:
    rows: list[dict[str, Any]] = []
    seeds = range(1, runs + 1)
    for load in LOADS[scale]:
        n = FLOWS[scale]
        per: dict[tuple[str, str], list[dict[str, Any]]] = {
            (obj, setting): [] for obj in OBJECTIVES for setting in SETTINGS
        }
        for seed in seeds:
            doc = scenario(load, OBJECTIVES, False, n, seed)
            r = fairnet.run(doc)
            for tag, obj in enumerate(OBJECTIVES):
                per[(obj, "coexist")].append(slice_metrics(r.flows, tag))
                # The benchmark: the same slice's flows without the other slice's.
                solo = fairnet.run(alone_scenario(doc, r.flows, obj))
                per[(obj, "alone")].append(slice_metrics(solo.flows, tag))
            withu = run_one(load, OBJECTIVES, True, n, seed)
            for obj in OBJECTIVES:
                per[(obj, "coexist+uranus")].append(withu[obj])
        for obj in ("ds", "cs"):
            values = {
                setting: mean_of([m[METRIC[obj]] for m in per[(obj, setting)]])
                for setting in SETTINGS
            }
            for setting in SETTINGS:
                row: dict[str, Any] = {
                    "objective": obj,
                    "load": load,
                    "setting": setting,
                    "metric": METRIC[obj],
                    "value": values[setting],
                    "seeds": per[(obj, setting)],
                }
                alone, coexist = values["alone"], values["coexist"]
                if setting == "coexist" and alone and coexist is not None:
                    row["vs_alone"] = coexist / alone
                    row["paper_vs_alone"] = PAPER["interference"][obj]
                if setting == "coexist+uranus" and coexist and values[setting] is not None:
                    row["vs_coexist"] = values[setting] / coexist - 1
                    if load == MEDIUM:
                        row["paper_vs_coexist"] = PAPER["uranus_medium"][obj]
                    elif obj == "ds":
                        row["paper_vs_coexist"] = PAPER["uranus_loads_ds"]
                rows.append(row)
    ds_changes = [r["vs_coexist"] for r in rows if r["objective"] == "ds" and "vs_coexist" in r]
    rows.append(
        {
            "objective": "ds",
            "setting": "mean over loads",
            "metric": "miss_ratio change, coexist+uranus vs coexist",
            "value": mean_of(ds_changes),
            "paper": PAPER["uranus_loads_ds"],
        }
    )
    table = _table(rows, scale, runs)
    table.print(console)
    return PaperResult(rows, _plot(rows, outdir), [table])


def _table(rows: list[dict[str, Any]], scale: str, runs: int) -> ResultTable:
    t = ResultTable(
        f"Uranus Figs. 11–12 ({scale}, {runs} seed{'s' if runs > 1 else ''}): a DS and a CS "
        "slice together, web search, §5.2's fat-tree with 10% background",
        (
            key("slice"),
            key("load"),
            Column("alone", "ours"),
            Column("coexist", "ours"),
            Column("× alone", "ours"),
            Column("× alone", "paper"),
            Column("coexist + Uranus", "ours"),
            Column("change", "ours"),
            Column("change", "paper"),
        ),
        note="DS: deadline-miss ratio (D²TCP); CS: average FCT in ms (L²DCT). Alone: the slice's "
        "flows and the background without the other slice's; coexist: both slices over "
        "their guests; change: with Uranus against coexist. Paper: ×4 / ×5 and −30% / "
        "−10% at medium load (Fig. 11), −18% misses averaged over loads (Fig. 12).",
    )
    for obj in ("ds", "cs"):
        for load in sorted({r["load"] for r in rows if "load" in r}):
            by = {r["setting"]: r for r in rows if r.get("load") == load and r["objective"] == obj}
            fmt = shown(obj)
            co, ur = by["coexist"], by["coexist+uranus"]
            t.add_row(
                f"{obj.upper()}",
                f"{load:g}",
                fmt(by["alone"]["value"]),
                fmt(co["value"]),
                f"{co['vs_alone']:.2f}" if "vs_alone" in co else "—",
                f"{PAPER['interference'][obj]:g}",
                fmt(ur["value"]),
                f"{ur['vs_coexist']:+.1%}" if "vs_coexist" in ur else "—",
                f"{ur['paper_vs_coexist']:+.0%}" if "paper_vs_coexist" in ur else "—",
            )
    mean = rows[-1]
    t.add_row(
        "DS",
        "mean",
        "",
        "",
        "",
        "",
        "",
        "—" if mean["value"] is None else f"{mean['value']:+.1%}",
        f"{PAPER['uranus_loads_ds']:+.0%}",
    )
    return t


def _plot(rows: list[dict[str, Any]], outdir: Path) -> list[Path]:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.4))
    loads = sorted({r["load"] for r in rows if "load" in r})
    for ax, obj, ylabel in (
        (axes[0], "ds", "deadline-miss ratio"),
        (axes[1], "cs", "AFCT (ms)"),
    ):
        scale_by = 1.0 if obj == "ds" else 1e3
        series = []
        for setting in SETTINGS:
            vals = []
            for load in loads:
                r = row_where(rows, load=load, objective=obj, setting=setting)
                vals.append((r["value"] or 0.0) * scale_by)
            series.append((setting, vals))
        grouped_bars(ax, [f"{load:g}" for load in loads], series)
        ax.set_xlabel("load (both slices)")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{obj.upper()} slice", fontsize=9)
        ax.legend(fontsize=7)
    return save_figure(fig, outdir, "uranus-fig11-12")


ENTRY = Entry(
    name="uranus-fig11-12",
    title="Uranus: a DS and a CS slice together — the interference, and what Uranus recovers",
    paper="Uranus, §5.2.2",
    figure="Figs. 11–12",
    scales={
        "smoke": f"load {MEDIUM}, {FLOWS['smoke']} flows per run",
        "full": f"loads {', '.join(map(str, LOADS['full']))}, {FLOWS['full']} flows per run",
    },
    run_fn=run,
    runs={"smoke": 1, "full": 3},
)
