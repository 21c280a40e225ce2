"""The model engine from Python: ``fairnet.model(name, **params)`` and the model part of a run.

A model scenario is ``engine.kind = "model"`` (see ``docs/model-engine.md``); its outputs are a
table with ``time_s`` and one column per named output (``model.parquet``), summarized in
``summary.json`` (``model``: per output its first, last, mean, min and max over the run), plotted
in ``model.png``/``.svg`` and shown in ``report.html``. Outputs that are a queue or a flow's
rate also land in ``queues.parquet`` and ``rates.parquet``, as for packet and flow runs.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fairnet import _core
from fairnet.errors import InputError
from fairnet.runner import check_finite

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

#: Outputs summarized in summary.json and drawn in the plot, at most (the first ones).
SUMMARY_OUTPUTS = 64
PLOT_OUTPUTS = 6


def list_models() -> list[dict[str, Any]]:
    """Every registered model: ``name``, ``paper``, ``equation`` and ``params`` (each with
    ``name``, ``unit``, ``default`` in base units (seconds, bit/s, bytes) and ``doc``)."""
    return list(_core.model_list())


def _duration(value: float | str, field: str) -> str:
    """A duration for the scenario: a number of seconds, or a string with its unit."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{field}: expected seconds or a duration such as '10ms', got {value!r}")
    if not math.isfinite(value):
        raise InputError(f"{field}: must be a finite number of seconds, got {value!r}")
    if value < 0:
        raise InputError(f"{field}: must not be negative, got {value!r}")
    return f"{float(value)!r}s"


def model_document(
    name: str,
    *,
    horizon: float | str,
    output_interval: float | str | None = None,
    initial: Mapping[str, float | list[float]] | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    max_step: float | str | None = None,
    seed: int = 1,
    **params: Any,
) -> dict[str, Any]:
    """The scenario document of a model run (see :func:`model`)."""
    known = {m["name"]: m for m in list_models()}
    if name not in known:
        raise InputError(f"engine.model: unknown model {name!r} (known: {', '.join(known)})")
    seconds = {p["name"] for p in known[name]["params"] if p["seconds"]}
    engine: dict[str, Any] = {
        "kind": "model",
        "model": name,
        "horizon": _duration(horizon, "engine.horizon"),
        "params": {
            k: _duration(v, f"engine.params.{k}") if k in seconds and not isinstance(v, str) else v
            for k, v in params.items()
        },
    }
    if output_interval is None:
        if isinstance(horizon, str):
            raise InputError("engine.output_interval: give it when horizon is a string")
        output_interval = horizon / 1000
    engine["output_interval"] = _duration(output_interval, "engine.output_interval")
    if initial:
        engine["initial"] = {
            k: list(v) if isinstance(v, list | tuple) else v for k, v in initial.items()
        }
    for key, value in (("rtol", rtol), ("atol", atol)):
        if value is not None:
            engine[key] = value
    if max_step is not None:
        engine["max_step"] = _duration(max_step, "engine.max_step")
    check_finite(engine, "engine")
    return {"name": name, "seed": seed, "engine": engine}


def model(
    name: str,
    *,
    horizon: float | str,
    output_interval: float | str | None = None,
    initial: Mapping[str, float | list[float]] | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    max_step: float | str | None = None,
    seed: int = 1,
    output: str | Path | None = None,
    **params: Any,
) -> pl.DataFrame:
    """Solves the registered model ``name`` with parameters ``params`` (numbers in base units —
    seconds for durations, bit/s, bytes — or strings with units such as ``"10Gbps"``) over
    ``horizon`` seconds, and returns its outputs as a polars DataFrame (``time_s`` and one
    column per output, every ``output_interval`` seconds; default ``horizon / 1000``).

    ``initial`` overrides the initial state by variable (one number for every entry, or a list);
    ``rtol``/``atol`` are the solver's tolerances; ``seed`` seeds a random model; ``output``
    writes every file of a run there (model.parquet, summary.json, plots, report.html). Bad input
    raises :class:`fairnet.errors.InputError` (a ``ValueError``) naming the field; a solution
    that blows up raises it too, naming the time and variable (``fairnet.run`` keeps what was
    computed).
    """
    from fairnet.runner import run

    doc = model_document(
        name,
        horizon=horizon,
        output_interval=output_interval,
        initial=initial,
        rtol=rtol,
        atol=atol,
        max_step=max_step,
        seed=seed,
        **params,
    )
    results = run(doc, output=output)
    if results.summary.get("failure"):
        raise InputError(f"model {name}: {results.summary['failure']}")
    table = results.model
    assert table is not None
    return table


def model_arrow(out: dict[str, Any]) -> pa.Table:
    """The engine's model outputs as an Arrow table: ``time_s`` then one column per output
    (units in the schema's metadata)."""
    import json

    import pyarrow as pa

    cols = {"time_s": out["time_s"], **{n: out["values"][n] for n in out["names"]}}
    units = dict(zip(out["names"], out["units"], strict=True))
    return pa.table(cols).replace_schema_metadata({"units": json.dumps(units)})


def model_summary(table: pa.Table) -> dict[str, Any]:
    """Per output (the first :data:`SUMMARY_OUTPUTS`): first and last value, mean over the
    run's second half (the steady state of a settling model), min and max."""
    names = [c for c in table.column_names if c != "time_s"]
    t = table.column("time_s").to_numpy()
    half = t >= t[-1] / 2 if len(t) else t
    outputs = {}
    for name in names[:SUMMARY_OUTPUTS]:
        v = table.column(name).to_numpy()
        if not len(v):
            continue
        outputs[name] = {
            "first": float(v[0]),
            "last": float(v[-1]),
            "mean_second_half": float(np.mean(v[half])),
            "min": float(np.min(v)),
            "max": float(np.max(v)),
        }
    return {
        "samples": int(len(t)),
        "outputs": len(names),
        "summarized": outputs,
    }


def write_model_outputs(
    table: pa.Table, summary: dict[str, Any], outdir: Path, title: str
) -> tuple[str, list[str]]:
    """Writes ``model.parquet`` and ``model.png``/``.svg`` (the first outputs over time) into
    ``outdir``; returns the report's model section (HTML) and the names of the files written."""
    import pyarrow.parquet as pq

    pq.write_table(table, outdir / "model.parquet")
    png = _plot(table, outdir, title)
    files = ["model.parquet"] + (["model.png", "model.svg"] if png is not None else [])
    rows = "".join(
        f"<tr><td>{name}</td><td>{s['first']:.6g}</td><td>{s['last']:.6g}</td>"
        f"<td>{s['mean_second_half']:.6g}</td><td>{s['min']:.6g}</td><td>{s['max']:.6g}</td></tr>"
        for name, s in summary["summarized"].items()
    )
    img = ""
    if png is not None:
        data = base64.b64encode(png.read_bytes()).decode()
        img = f'<img alt="model outputs" src="data:image/png;base64,{data}">'
    html = (
        f"<h2>Model outputs</h2><p>{summary['samples']} samples of {summary['outputs']} "
        "outputs (model.parquet).</p><table><tr><th>output</th><th>first</th><th>last</th>"
        f"<th>mean (2nd half)</th><th>min</th><th>max</th></tr>{rows}</table>{img}"
    )
    return html, files


def _plot(table: pa.Table, outdir: Path, title: str) -> Path | None:
    names = [c for c in table.column_names if c != "time_s"][:PLOT_OUTPUTS]
    if not names or not table.num_rows:
        return None
    from fairnet.report import pyplot, save_figure

    plt = pyplot()
    t = table.column("time_s").to_numpy()
    scale, unit = (1e3, "ms") if t[-1] < 10 else (1.0, "s")
    fig, axes = plt.subplots(len(names), 1, figsize=(7, 1.6 * len(names) + 0.6), sharex=True)
    for ax, name in zip(np.atleast_1d(axes), names, strict=True):
        ax.plot(t * scale, table.column(name).to_numpy(), lw=0.8)
        ax.set_ylabel(name)
    np.atleast_1d(axes)[-1].set_xlabel(f"time ({unit})")
    np.atleast_1d(axes)[0].set_title(title)
    fig.tight_layout()
    paths = [outdir / "model.png", outdir / "model.svg"]
    save_figure(fig, paths, dpi=110)
    return paths[0]


def print_run_line(summary: dict[str, Any], outdir: Path, wall_seconds: float) -> None:
    """The CLI's line for a finished model run (``wall_seconds`` from its provenance)."""
    from fairnet.report import console

    c = summary["counters"]
    m = summary.get("model", {})
    console.print(
        f"model engine: {summary['simulated_seconds'] * 1e3:.3f} ms simulated in "
        f"{wall_seconds:.3f} s wall, {c['steps']:,.0f} steps "
        f"({c['rejected_steps']:,.0f} rejected), {m.get('samples', 0):,} samples of "
        f"{m.get('outputs', 0):,} outputs"
    )
    console.print(f"wrote {outdir}/ ({', '.join(summary['files'])})", soft_wrap=True)
