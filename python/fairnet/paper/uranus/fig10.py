"""Uranus §5.2.2, Fig. 10 (isolation): one slice at a time on §5.2's fat-tree, web search at
loads 0.1–0.9 — a deadline-sensitive (DS) slice over D²TCP and a completion-sensitive (CS)
slice over L²DCT, each with and without Uranus (the slice scheduler's weights every decision
slot, enforced by WVCC over the same guests).

Paper: "Uranus reduces the deadline-miss ratio by around 25% on average under different load
pressure" (Fig. 10(a)); "Uranus reduces AFCT by 20% at high load pressure … under lower load
pressure, Uranus is only slightly better than L²DCT" (Fig. 10(b)); three runs per load.

Ours: the scenarios of :mod:`fairnet.paper.uranus.sec52` (10% background traffic between
racks, 65-packet ECN, deadlines exponential of mean 20 ms), run by the packet engine. DS miss
ratio: missed / decided over the slice's flows (a flow decided when it finished, or the run
stopped after its deadline); CS AFCT: the mean FCT of the slice's flows (all finish). The
relative change is Uranus's over the guests' of the mean over seeds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

import fairnet
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key
from fairnet.paper.uranus.sec52 import DEADLINE_FLOOR, GUEST, scenario

#: Loads and flows per run, per scale (full: the paper's loads).
LOADS = {"smoke": (0.3, 0.7), "full": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)}
FLOWS = {"smoke": 300, "full": 1000}
#: The paper's claims (§5.2.2; Fig. 10 is a plot).
PAPER = {
    "ds": "−25% misses on average over loads",
    "cs": "−20% AFCT at high load; slightly better at low load",
}


def slice_metrics(flows: Any, tag: int) -> dict[str, Any]:
    """The slice of ``tag``'s outcome in a run's flow table: flows, finished, mean FCT (s,
    finished flows) beside the mean of the same flows' FCTs alone on the empty network (a
    floor no scheduler beats), and, with deadlines, missed / decided and ``infeasible``: the
    flows whose deadline is shorter than their FCT alone (they miss under any scheduler)."""
    f = flows.filter(flows["tag"] == tag)
    fct = f["fct_s"].fill_null(np.nan).to_numpy().astype(float)
    ideal = f["ideal_fct_s"].to_numpy().astype(float)
    done = np.isfinite(fct)
    out: dict[str, Any] = {
        "flows": len(f),
        "finished": int(done.sum()),
        "afct_s": float(fct[done].mean()) if done.any() else None,
        "ideal_afct_s": float(ideal[done].mean()) if done.any() else None,
    }
    if "deadline_missed" in f.columns:
        decided = f.filter(f["deadline_missed"].is_not_null())
        out["decided"] = len(decided)
        out["missed"] = int(decided["deadline_missed"].sum())
        out["miss_ratio"] = out["missed"] / len(decided) if len(decided) else None
        out["infeasible"] = int((decided["deadline_s"] < decided["ideal_fct_s"]).sum())
        feasible = len(decided) - out["infeasible"]
        # Missing a feasible deadline (every infeasible one is missed): what a scheduler can
        # change.
        out["feasible_miss_ratio"] = (
            (out["missed"] - out["infeasible"]) / feasible if feasible else None
        )
    return out


def run_one(
    load: float,
    objectives: tuple[str, ...],
    uranus: bool,
    flows: int,
    seed: int,
    decision_slot: str | None = None,
    deadline_floor: str | None = DEADLINE_FLOOR,
) -> dict[str, Any]:
    """One run's per-slice metrics (by objective), and under Uranus the largest error of
    Eq. (3) (each slice's weights sum to ``W_S``) after any decision slot and the number of
    slots. ``decision_slot`` (e.g. ``"4ms"``) replaces the scenario's default (1 ms);
    ``deadline_floor`` bounds the DS deadlines below (:data:`~.sec52.DEADLINE_FLOOR`)."""
    doc = scenario(load, objectives, uranus, flows, seed, deadline_floor=deadline_floor)
    if decision_slot is not None:
        doc["decision_slot"] = decision_slot
    r = fairnet.run(doc)
    out: dict[str, Any] = {obj: slice_metrics(r.flows, tag) for tag, obj in enumerate(objectives)}
    if uranus:
        out["weight_sum_error"] = r.summary["counters"]["slice_weight_sum_max_error"]
        out["slots"] = r.summary["counters"]["decision_slots"]
    return out


def row_where(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    """The one row of ``rows`` whose fields equal ``match`` (an entry's rows of results are
    looked up by objective, load and scheme or setting)."""
    return next(r for r in rows if all(r.get(k) == v for k, v in match.items()))


def slot_sweep(
    loads: tuple[float, ...] = (0.3, 0.7),
    slots: tuple[str, ...] = ("0.25ms", "1ms", "4ms"),
    seeds: tuple[int, ...] = (1, 2),
    flows: int = 300,
    console: Console | None = None,
) -> list[dict[str, Any]]:
    """The decision slot's sensitivity at packet level (issue 22; the paper gives no slot):
    Fig. 10's one-slice runs under Uranus with each slot in ``slots``, beside the guest alone,
    means over ``seeds``. Rows: objective, load, scheme, slot, the metric's mean and, for DS,
    the feasible miss ratio. Not an entry: docs/systems/uranus.md has the table and the
    command."""
    metric = {"ds": "miss_ratio", "cs": "afct_s"}
    rows: list[dict[str, Any]] = []
    for obj in ("ds", "cs"):
        for load in loads:
            runs: list[tuple[str, str, bool, str | None]] = [(GUEST[obj], "—", False, None)]
            runs += [("uranus", slot, True, slot) for slot in slots]
            for scheme, label, uranus, slot in runs:
                outs = [run_one(load, (obj,), uranus, flows, seed, slot) for seed in seeds]
                per_seed = [o[obj] for o in outs]
                row: dict[str, Any] = {
                    "objective": obj,
                    "load": load,
                    "scheme": scheme,
                    "slot": label,
                    "value": mean_of([m[metric[obj]] for m in per_seed]),
                    "slots": [o.get("slots") for o in outs],
                }
                if obj == "ds":
                    row["feasible_miss_ratio"] = mean_of(
                        [m["feasible_miss_ratio"] for m in per_seed]
                    )
                rows.append(row)
    t = ResultTable(
        f"Uranus: the decision slot at packet level (Fig. 10's runs, {flows} flows, seeds "
        f"{', '.join(map(str, seeds))})",
        (
            key("slice"),
            key("load"),
            key("scheme"),
            key("slot"),
            Column("value", "ours"),
            Column("feasible misses", "ours"),
        ),
        note="DS: deadline-miss ratio; CS: AFCT in ms; means over seeds.",
    )
    for r in rows:
        fmt = shown(r["objective"])
        t.add_row(
            r["objective"].upper(),
            f"{r['load']:g}",
            r["scheme"],
            r["slot"],
            fmt(r["value"]),
            fmt(r.get("feasible_miss_ratio")),
        )
    t.print(console or Console())
    return rows


def deadline_floor_sweep(
    loads: tuple[float, ...] = (0.3, 0.7),
    floors: tuple[str | None, ...] = (None, "3ms", "fct_alone", "fct_alone:redraw"),
    seeds: tuple[int, ...] = (1, 2),
    flows: int = 300,
    console: Console | None = None,
) -> list[dict[str, Any]]:
    """The DS miss ratio with and without a lower bound on the deadlines (issue 22: about 28%
    of the exponential deadlines are shorter than the flow's FCT alone): Fig. 10's DS runs
    under D²TCP and under Uranus for each bound in ``floors`` (``None``: none; a duration:
    PDQ's fixed floor; ``"fct_alone"``: the flow's FCT alone; ``":redraw"``: a draw below the
    bound redrawn rather than clamped), means over ``seeds``. Rows:
    load, floor, scheme, miss ratio, feasible miss ratio, the share of infeasible deadlines,
    and Uranus's change. Not an entry: docs/systems/uranus.md has the table and the command."""
    rows: list[dict[str, Any]] = []
    for load in loads:
        for floor in floors:
            label = floor or "none"
            for scheme, uranus in ((GUEST["ds"], False), ("uranus", True)):
                per_seed = [
                    run_one(load, ("ds",), uranus, flows, seed, deadline_floor=floor)["ds"]
                    for seed in seeds
                ]
                rows.append(
                    {
                        "load": load,
                        "floor": label,
                        "scheme": scheme,
                        "miss_ratio": mean_of([m["miss_ratio"] for m in per_seed]),
                        "feasible_miss_ratio": mean_of(
                            [m["feasible_miss_ratio"] for m in per_seed]
                        ),
                        "infeasible": mean_of(
                            [m["infeasible"] / m["decided"] for m in per_seed if m["decided"]]
                        ),
                    }
                )
            base, ours = rows[-2], rows[-1]
            if base["miss_ratio"] and ours["miss_ratio"] is not None:
                ours["change_vs_guest"] = ours["miss_ratio"] / base["miss_ratio"] - 1
    t = ResultTable(
        f"Uranus: DS deadlines bounded below (Fig. 10's DS runs, {flows} flows, seeds "
        f"{', '.join(map(str, seeds))})",
        (
            key("load"),
            key("floor"),
            key("scheme"),
            Column("misses", "ours"),
            Column("feasible misses", "ours"),
            Column("infeasible", "ours"),
            Column("change", "ours"),
        ),
        note="Deadline-miss ratio, means over seeds; infeasible: the share of deadlines "
        "shorter than the flow's FCT alone; change: Uranus over D²TCP.",
    )
    for r in rows:
        change = r.get("change_vs_guest")
        t.add_row(
            f"{r['load']:g}",
            r["floor"],
            r["scheme"],
            shown("ds")(r["miss_ratio"]),
            shown("ds")(r["feasible_miss_ratio"]),
            shown("ds")(r["infeasible"]),
            "" if change is None else f"{change:+.1%}",
        )
    t.print(console or Console())
    return rows


def shown(objective: str) -> Any:
    """How a value of ``objective``'s metric is printed: a miss ratio as is, an AFCT in ms."""
    scale_by = 1.0 if objective == "ds" else 1e3
    return lambda v: "—" if v is None else f"{v * scale_by:.3f}"


def mean_of(values: list[float | None]) -> float | None:
    """The mean of the values that exist (None when none does)."""
    v = [x for x in values if x is not None]
    return float(np.mean(v)) if v else None


def run(scale: str, outdir: Path, console: Console, runs: int) -> PaperResult:
    rows: list[dict[str, Any]] = []
    metric = {"ds": "miss_ratio", "cs": "afct_s"}
    for obj in ("ds", "cs"):
        for load in LOADS[scale]:
            for uranus in (False, True):
                scheme = "uranus" if uranus else GUEST[obj]
                outs = [
                    run_one(load, (obj,), uranus, FLOWS[scale], seed) for seed in range(1, runs + 1)
                ]
                per_seed = [o[obj] for o in outs]
                row = {
                    "objective": obj,
                    "load": load,
                    "scheme": scheme,
                    "metric": metric[obj],
                    "value": mean_of([m[metric[obj]] for m in per_seed]),
                    "seeds": per_seed,
                    "paper": PAPER[obj],
                }
                if obj == "ds":
                    row["feasible_miss_ratio"] = mean_of(
                        [m["feasible_miss_ratio"] for m in per_seed]
                    )
                if uranus:
                    row["weight_sum_error"] = max(o["weight_sum_error"] for o in outs)
                rows.append(row)
    for obj in ("ds", "cs"):
        for load in LOADS[scale]:
            base, ours = (
                row_where(rows, objective=obj, load=load, scheme=s) for s in (GUEST[obj], "uranus")
            )
            if base["value"] and ours["value"] is not None:
                ours["change_vs_guest"] = ours["value"] / base["value"] - 1
            if obj == "ds" and base["feasible_miss_ratio"] and ours["feasible_miss_ratio"]:
                ours["feasible_change_vs_guest"] = (
                    ours["feasible_miss_ratio"] / base["feasible_miss_ratio"] - 1
                )
    changes = [
        r["change_vs_guest"] for r in rows if r["objective"] == "ds" and "change_vs_guest" in r
    ]
    summary = {
        "objective": "ds",
        "scheme": "uranus",
        "metric": "miss_ratio change vs d2tcp, mean over loads",
        "value": mean_of(changes),
        "paper": -0.25,
    }
    table = _table(rows, scale, runs, summary)
    table.print(console)
    return PaperResult([*rows, summary], _plot(rows, outdir), [table])


def _table(
    rows: list[dict[str, Any]], scale: str, runs: int, summary: dict[str, Any]
) -> ResultTable:
    t = ResultTable(
        f"Uranus Fig. 10 ({scale}, {runs} seed{'s' if runs > 1 else ''}): one slice at a time, "
        "web search, §5.2's fat-tree with 10% background",
        (
            key("slice"),
            key("load"),
            Column("guest", "ours"),
            Column("Uranus", "ours"),
            Column("change", "ours"),
            Column("Uranus vs guest", "paper", text=True),
        ),
        note="DS: deadline-miss ratio (guest D²TCP); CS: average FCT in ms (guest L²DCT). "
        "Change: Uranus over the guest alone, means over seeds. DS (feasible): the miss "
        "ratio among the flows whose deadline is at least their FCT alone (the others miss "
        "under any scheduler).",
    )
    for obj in ("ds", "cs"):
        for load in sorted({r["load"] for r in rows}):
            base, ours = (
                row_where(rows, objective=obj, load=load, scheme=s) for s in (GUEST[obj], "uranus")
            )
            fmt = shown(obj)
            change = ours.get("change_vs_guest")
            t.add_row(
                f"{obj.upper()} ({GUEST[obj]})",
                f"{load:g}",
                fmt(base["value"]),
                fmt(ours["value"]),
                "—" if change is None else f"{change:+.1%}",
                PAPER[obj],
            )
            if obj == "ds":
                change = ours.get("feasible_change_vs_guest")
                t.add_row(
                    "DS (feasible)",
                    f"{load:g}",
                    fmt(base["feasible_miss_ratio"]),
                    fmt(ours["feasible_miss_ratio"]),
                    "—" if change is None else f"{change:+.1%}",
                    "—",
                )
    mean = summary["value"]
    t.add_row("DS (d2tcp)", "mean", "", "", "—" if mean is None else f"{mean:+.1%}", "−25%")
    return t


def _plot(rows: list[dict[str, Any]], outdir: Path) -> list[Path]:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.4))
    for ax, obj, ylabel in (
        (axes[0], "ds", "deadline-miss ratio"),
        (axes[1], "cs", "AFCT (ms)"),
    ):
        scale_by = 1.0 if obj == "ds" else 1e3
        for scheme in (GUEST[obj], "uranus"):
            pts = [
                (r["load"], r["value"] * scale_by)
                for r in rows
                if r["objective"] == obj and r["scheme"] == scheme and r["value"] is not None
            ]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=scheme)
        ax.set_xlabel("load")
        ax.set_ylabel(ylabel)
        ax.set_title(f"({'a' if obj == 'ds' else 'b'}) {obj.upper()} slice", fontsize=9)
        ax.legend(fontsize=7)
    return save_figure(fig, outdir, "uranus-fig10")


ENTRY = Entry(
    name="uranus-fig10",
    title="Uranus: intra-slice scheduling in isolation (DS misses over D²TCP, CS AFCT over "
    "L²DCT, with and without Uranus)",
    paper="Uranus, §5.2.2",
    figure="Fig. 10",
    scales={
        "smoke": f"loads {', '.join(map(str, LOADS['smoke']))}, {FLOWS['smoke']} flows per run",
        "full": f"loads 0.1–0.9, {FLOWS['full']} flows per run",
    },
    run_fn=run,
    runs={"smoke": 1, "full": 3},
)
