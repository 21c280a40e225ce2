"""``fairnet compare``: several runs' FCT slowdowns side by side, in one table, plot and report;
and, for runs that recorded queues (a packet run's ``engine.record``, a model run's queue
outputs), their busiest queue over time overlaid (``compare_queues.png``), so a fluid model and a
simulation of the same link can be set side by side.

A run is an output directory of ``fairnet run`` (its ``flows.parquet``) or an ``fct.txt`` of
the HPCC ns-3 simulator (or ours, written with ``--fct-txt``), so a run of fairnet can be set
beside the simulator's run of the same flow list. Slowdown is FCT over the ideal (standalone)
FCT in both; the bins are :data:`fairnet.runner.SIZE_BINS`.

Two definitions of both exist (:data:`fairnet.hpcc.FCT_DEFINITIONS`): fairnet's (the last
byte delivered; a one-way ideal) and the simulator's, ``ns3`` (the sender's ACK of the last
byte; a base-RTT ideal). They differ by the return trip and the ideal: for small flows by 10%
to 2× at the median. Runs are never set side by side under two definitions:
an ``fct.txt`` holds one (the simulator's, or the one its fairnet run directory's summary
names), a packet run directory both (``slowdown`` and ``slowdown_ref``); when the runs' own
definitions differ, every run is converted to the simulator's where it can be (a packet run
directory), the conversion is said (:attr:`ComparedRun.converted`, a note), and a run that
cannot be converted (an ``fct.txt`` of fairnet's definition, a run of another engine) is
refused with the reason.

Runs are compared, never refused: :func:`differences` says when run directories came from
different fairnet versions (version, commit, Rust toolchain: their ``provenance.json``) or
different scenarios (which fields of their ``scenario.json`` differ).
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fairnet.errors import InputError
from fairnet.provenance import PROVENANCE_FILE, VERSION_FIELDS, version_of
from fairnet.runner import SIZE_BINS, slowdown_by_size

QUANTILES = ("p50", "p95", "p99")


@dataclass
class ComparedRun:
    """One run's label, source and slowdown by size bin."""

    label: str
    source: str
    flows: int
    finished: int
    by_size: list[dict[str, Any]]
    #: The FCT definition of ``by_size`` (``fairnet`` or ``ns3``).
    definition: str = "fairnet"
    #: Whether ``by_size`` was converted from the run's own definition.
    converted: bool = False
    #: The busiest recorded queue (``link``, ``mean_bytes``, ``p5_bytes``, ``p95_bytes``, and
    #: its samples ``time_s``/``queue_bytes`` for the plot), or None without queues.parquet.
    queue: dict[str, Any] | None = None
    #: A run directory's ``provenance.json`` (None for an ``fct.txt`` or an older run).
    provenance: dict[str, Any] | None = None
    #: A run directory's ``scenario.json`` (not written to ``compare.json``).
    scenario: dict[str, Any] | None = field(default=None, repr=False)
    #: Flow sizes and, per definition the run holds, every flow's slowdown (NaN: unfinished).
    sizes: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    slowdowns: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The run as written to ``compare.json``: without its scenario and flows, and its
        queue's statistics without the samples."""
        hidden = ("scenario", "sizes", "slowdowns")
        doc = {k: v for k, v in self.__dict__.items() if k not in hidden}
        if self.queue is not None:
            doc["queue"] = {
                k: v for k, v in self.queue.items() if k not in ("time_s", "queue_bytes")
            }
        return doc


def _read_object(path: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _leaves(doc: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted field path, value) of every leaf of a JSON document."""
    if isinstance(doc, Mapping) and doc:
        for k, v in doc.items():
            yield from _leaves(v, f"{prefix}.{k}" if prefix else str(k))
    else:
        yield prefix, doc


def differences(runs: list[ComparedRun]) -> list[str]:
    """One line per way the run directories differ in what made them: fairnet versions
    (version, commit, Rust toolchain) and scenarios (the differing fields, seed included)."""
    notes = []
    provs = [(r.label, r.provenance) for r in runs if r.provenance is not None]
    if len({json.dumps([p.get(f) for f in VERSION_FIELDS], sort_keys=True) for _, p in provs}) > 1:
        which = "; ".join(f"{label}: {version_of(p)}, {p.get('rustc', '?')}" for label, p in provs)
        notes.append(f"the runs come from different fairnet versions ({which})")
    scenarios = [(r.label, dict(_leaves(r.scenario))) for r in runs if r.scenario is not None]
    if len(scenarios) > 1:
        keys = sorted({k for _, leaves in scenarios for k in leaves})
        missing = object()
        differ = [k for k in keys if len({repr(s.get(k, missing)) for _, s in scenarios}) > 1]
        if differ:
            more = f" and {len(differ) - 8} more" if len(differ) > 8 else ""
            shown = ", ".join(differ[:8]) + more
            notes.append(f"the runs come from different scenarios (fields that differ: {shown})")
    return notes


def load_run(path: Path, label: str | None = None) -> ComparedRun:
    """Reads a run directory or an ``fct.txt``; errors name the path."""
    if path.is_dir():
        table = path / "flows.parquet"
        if not table.is_file():
            raise InputError(f"{path}: not a run directory (no flows.parquet)")
        import polars as pl

        flows = pl.read_parquet(table)
        size = flows["size"].to_numpy()
        slowdowns = {"fairnet": flows["slowdown"].fill_null(np.nan).to_numpy().astype(float)}
        if "slowdown_ref" in flows.columns:
            ref = flows["slowdown_ref"].fill_null(np.nan).to_numpy().astype(float)
            if np.isfinite(ref).any():
                slowdowns["ns3"] = ref
        definition = "fairnet"
        name = label or path.name
        prov = _read_object(path / PROVENANCE_FILE)
        scenario = _read_object(path / "scenario.json")
    elif path.is_file():
        from fairnet.hpcc import read_fct

        flows = read_fct(path)
        size = flows["size"].to_numpy()
        # The simulator's own file, unless a fairnet run directory's summary says otherwise.
        summary = _read_object(path.parent / "summary.json") or {}
        ours = path.name in (summary.get("files") or [])
        definition = str(summary.get("fct_txt_definition", "fairnet")) if ours else "ns3"
        slowdowns = {definition: flows["slowdown"].to_numpy()}
        name = label or (path.parent.name if path.name == "fct.txt" else path.stem)
        prov = scenario = None
    else:
        raise InputError(f"{path}: no such run directory or fct.txt")
    slowdown = slowdowns[definition]
    return ComparedRun(
        label=name,
        source=str(path),
        flows=len(size),
        finished=int(np.isfinite(slowdown).sum()),
        by_size=slowdown_by_size(size, slowdown),
        definition=definition,
        sizes=size,
        slowdowns=slowdowns,
        queue=_busiest_queue(path / "queues.parquet") if path.is_dir() else None,
        provenance=prov,
        scenario=scenario,
    )


def unify_definitions(runs: list[ComparedRun], definition: str | None = None) -> list[str]:
    """Puts every run under one FCT definition: ``definition`` if given, else the runs' own
    when they agree, else the simulator's (``ns3``, the one every convertible run holds).
    Converts where it can (in place) and returns a note per conversion; raises
    :class:`InputError` with the reason for a run it cannot convert."""
    from fairnet.hpcc import FCT_DEFINITIONS

    if definition is not None and definition not in FCT_DEFINITIONS:
        known = ", ".join(FCT_DEFINITIONS)
        raise InputError(f"--fct-def: unknown definition {definition!r} (known: {known})")
    own = {r.definition for r in runs}
    target = definition or (own.pop() if len(own) == 1 else "ns3")
    notes = []
    for r in runs:
        if r.definition == target:
            continue
        if target not in r.slowdowns:
            why = (
                "an fct.txt holds one definition (write it with --fct-def "
                f"{target} or compare its run directory)"
                if Path(r.source).is_file()
                else "only the packet engine's runs record the ACK times it needs"
            )
            raise InputError(
                f"compare: {r.label} has the {r.definition} FCT definition and cannot be "
                f"converted to {target} ({FCT_DEFINITIONS[target]}): {why}"
            )
        s = r.slowdowns[target]
        r.by_size = slowdown_by_size(r.sizes, s)
        r.finished = int(np.isfinite(s).sum())
        r.definition, r.converted = target, True
        notes.append(
            f"{r.label}: converted to the {target} FCT definition ({FCT_DEFINITIONS[target]})"
        )
    return notes


def _busiest_queue(table: Path) -> dict[str, Any] | None:
    """The link with the largest mean recorded queue, with its statistics and samples."""
    if not table.is_file():
        return None
    import polars as pl

    q = pl.read_parquet(table)
    if not q.height:
        return None
    link = q.group_by("link").agg(pl.col("queue_bytes").mean()).sort("queue_bytes")["link"][-1]
    one = q.filter(pl.col("link") == link).sort("time_s")
    v = one["queue_bytes"].to_numpy().astype(float)
    return {
        "link": int(link),
        "mean_bytes": float(v.mean()),
        "p5_bytes": float(np.percentile(v, 5)),
        "p95_bytes": float(np.percentile(v, 95)),
        "time_s": one["time_s"].to_list(),
        "queue_bytes": v.tolist(),
    }


def _plot_queues(runs: list[ComparedRun], outdir: Path) -> Path | None:
    with_queue = [r for r in runs if r.queue is not None]
    if not with_queue:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.4))
    for r in with_queue:
        q = r.queue
        assert q is not None
        ax.plot(np.array(q["time_s"]) * 1e3, q["queue_bytes"], lw=0.8, label=f"{r.label}")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("queue (bytes)")
    ax.set_title("busiest recorded queue of each run")
    ax.legend()
    fig.tight_layout()
    for suffix in ("png", "svg"):
        fig.savefig(outdir / f"compare_queues.{suffix}", dpi=120)
    plt.close(fig)
    return outdir / "compare_queues.png"


def _plot(runs: list[ComparedRun], outdir: Path) -> Path:
    from fairnet.report import pyplot, save_figure

    plt = pyplot()
    labels = [b[2] for b in SIZE_BINS]
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    width = 0.8 / len(runs)
    x = np.arange(len(labels))
    for ax, q in zip(axes, ("p50", "p99"), strict=True):
        for i, r in enumerate(runs):
            ys = [b.get(q, np.nan) for b in r.by_size]
            ax.bar(x - 0.4 + width * (i + 0.5), ys, width=width, label=r.label)
        ax.set_xticks(x, labels)
        ax.set_title(f"{q} FCT slowdown")
        ax.set_yscale("log")
        ax.set_ylim(bottom=1.0)
    axes[0].set_ylabel("FCT slowdown")
    axes[1].legend()
    fig.tight_layout()
    save_figure(fig, [outdir / "compare.png", outdir / "compare.svg"])
    return outdir / "compare.png"


def _report(
    runs: list[ComparedRun], png: Path, notes: list[str], queues_png: Path | None = None
) -> str:
    head = "".join(f"<th>{html.escape(r.label)} {q}</th>" for r in runs for q in QUANTILES)
    rows = ""
    for i, (_, _, label) in enumerate(SIZE_BINS):
        cells = "".join(
            f"<td>{r.by_size[i][q]:.2f}</td>" if q in r.by_size[i] else "<td>-</td>"
            for r in runs
            for q in QUANTILES
        )
        rows += f"<tr><td>{label}</td>{cells}</tr>"
    sources = "".join(
        f"<li>{html.escape(r.label)}: {html.escape(r.source)} "
        f"({r.finished:,} of {r.flows:,} flows finished)</li>"
        for r in runs
    )
    data = base64.b64encode(png.read_bytes()).decode()
    queues = ""
    if queues_png is not None:
        rows_q = "".join(
            f"<tr><td>{html.escape(r.label)}</td><td>{r.queue['link']}</td>"
            f"<td>{r.queue['mean_bytes']:.0f}</td><td>{r.queue['p5_bytes']:.0f}</td>"
            f"<td>{r.queue['p95_bytes']:.0f}</td></tr>"
            for r in runs
            if r.queue is not None
        )
        img = base64.b64encode(queues_png.read_bytes()).decode()
        queues = (
            "<h2>Queues</h2><table><tr><th>run</th><th>link</th><th>mean (B)</th>"
            f"<th>p5 (B)</th><th>p95 (B)</th></tr>{rows_q}</table>"
            f'<img alt="queues" src="data:image/png;base64,{img}">'
        )
    warnings = "".join(f"<p><b>Note:</b> {html.escape(n)}.</p>" for n in notes)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>fairnet compare</title>
<style>body{{font-family:sans-serif;max-width:70em;margin:2em auto}}
td,th{{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right}}</style></head><body>
<h1>FCT slowdown by flow size</h1><ul>{sources}</ul>{warnings}
<table><tr><th>size</th>{head}</tr>{rows}</table>
<img alt="slowdown by size" src="data:image/png;base64,{data}">
{queues}
</body></html>
"""


def compare(
    paths: list[Path],
    outdir: Path,
    labels: list[str] | None = None,
    definition: str | None = None,
) -> tuple[list[ComparedRun], list[str]]:
    """Loads the runs, puts them under one FCT definition (:func:`unify_definitions`),
    writes ``compare.json``, ``compare.png``/``.svg`` and ``compare.html`` into ``outdir``,
    and returns the loaded runs with the conversion notes and their :func:`differences`."""
    if not paths:
        raise InputError("compare: give at least one run directory or fct.txt")
    if labels and len(labels) != len(paths):
        raise InputError(f"--label: {len(labels)} labels for {len(paths)} runs")
    runs = [load_run(p, labels[i] if labels else None) for i, p in enumerate(paths)]
    converted = unify_definitions(runs, definition)
    outdir.mkdir(parents=True, exist_ok=True)
    (outdir / "compare.json").write_text(json.dumps([r.to_json() for r in runs], indent=1) + "\n")
    notes = converted + differences(runs)
    png = _plot(runs, outdir)
    (outdir / "compare.html").write_text(_report(runs, png, notes, _plot_queues(runs, outdir)))
    return runs, notes
