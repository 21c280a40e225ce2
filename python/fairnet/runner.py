"""``fairnet run``: from a scenario file to Parquet tables, a summary, plots and a report.

Output directory layout:

- ``scenario.json`` — the resolved scenario (every default filled in, overrides applied),
- ``flows.parquet`` — one row per flow: src, dst, size, weight, tag, start/end/fct/ideal (s),
  slowdown,
- ``summary.json`` — headline metrics: FCT slowdown percentiles by size bin, run time, events/s,
  completeness,
- ``slowdown.png`` / ``slowdown.svg`` — slowdown by flow-size bin,
- ``report.html`` — a self-contained page (plots inlined) that opens offline.
"""

from __future__ import annotations

import base64
import json
import tomllib
from pathlib import Path
from typing import Any

import numpy as np

from fairnet import _core
from fairnet.errors import InputError
from fairnet.flowsim import CDF_FILES, cdf_path

#: Flow-size bins of the summary and plots (bytes): the HPCC/pFabric convention.
SIZE_BINS = [
    (0, 10_000, "<10KB"),
    (10_000, 100_000, "10KB-100KB"),
    (100_000, 1_000_000, "100KB-1MB"),
    (1_000_000, float("inf"), ">1MB"),
]


def load_scenario(path: Path, overrides: tuple[str, ...] = ()) -> dict[str, Any]:
    """Reads a TOML scenario and applies ``key.path=value`` overrides (values in TOML syntax)."""
    try:
        doc = tomllib.loads(path.read_text())
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{path}: invalid TOML: {e}") from None
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise InputError(f"--set: expected KEY.PATH=VALUE, got {item!r}")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw  # a bare word is a string
        node = doc
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise InputError(f"--set {key}: {p} is not a table")
        node[parts[-1]] = value
    workload = doc.get("workload")
    if isinstance(workload, dict) and workload.get("cdf") in CDF_FILES:
        workload["cdf"] = cdf_path(workload["cdf"])
    return doc


def _summary(cols: dict[str, np.ndarray], out: dict[str, Any]) -> dict[str, Any]:
    finished = cols["end_ps"] >= 0
    slowdown = np.where(finished, cols["fct_s"] / cols["ideal_fct_s"], np.nan)
    bins = []
    for lo, hi, label in SIZE_BINS:
        sel = finished & (cols["size"] >= lo) & (cols["size"] < hi)
        s = slowdown[sel]
        bins.append(
            {
                "bin": label,
                "flows": int(sel.sum()),
                **({f"p{q}": float(np.percentile(s, q)) for q in (50, 95, 99)} if len(s) else {}),
                **({"mean": float(s.mean())} if len(s) else {}),
            }
        )
    wall = out["wall_seconds"]
    return {
        "engine": out["engine"],
        "flows": int(len(finished)),
        "finished": int(finished.sum()),
        "complete": bool(out["complete"]),
        "partial": not bool(out["complete"]),
        "simulated_seconds": out["end_time_ps"] / 1e12,
        "wall_seconds": wall,
        "events": int(out["events"]),
        "events_per_second": out["events"] / wall if wall > 0 else None,
        "slowdown": {
            "median": float(np.nanmedian(slowdown)) if finished.any() else None,
            "p99": float(np.nanpercentile(slowdown, 99)) if finished.any() else None,
            "by_size": bins,
        },
        "counters": dict(out["counters"]),
    }


def _plot(summary: dict[str, Any], outdir: Path, title: str) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bins = [b for b in summary["slowdown"]["by_size"] if b["flows"]]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    x = np.arange(len(bins))
    for offset, q in ((-0.25, "p50"), (0.0, "p95"), (0.25, "p99")):
        ax.bar(x + offset, [b[q] for b in bins], width=0.25, label=q)
    ax.set_xticks(x, [f"{b['bin']}\n({b['flows']} flows)" for b in bins])
    ax.set_ylabel("FCT slowdown")
    ax.set_yscale("log")
    ax.set_ylim(bottom=1.0)  # a slowdown is at least 1
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    paths = [outdir / "slowdown.png", outdir / "slowdown.svg"]
    for p in paths:
        fig.savefig(p, dpi=120)
    plt.close(fig)
    return paths


def _report(summary: dict[str, Any], scenario: dict[str, Any], png: Path | None) -> str:
    rows = "".join(
        f"<tr><td>{b['bin']}</td><td>{b['flows']}</td>"
        + "".join(f"<td>{b[q]:.2f}</td>" if q in b else "<td>-</td>" for q in ("p50", "p95", "p99"))
        + "</tr>"
        for b in summary["slowdown"]["by_size"]
    )
    img = ""
    if png is not None:
        data = base64.b64encode(png.read_bytes()).decode()
        img = f'<img alt="slowdown by size" src="data:image/png;base64,{data}">'
    state = "complete" if summary["complete"] else "<b>partial</b> (not every flow finished)"
    name = scenario.get("name", "scenario")
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{name}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}
td,th{{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:right}}</style></head><body>
<h1>{name}</h1>
<p>{summary["engine"]} engine, {summary["flows"]} flows ({summary["finished"]} finished, {state}),
{summary["simulated_seconds"] * 1e3:.3f} ms simulated in {summary["wall_seconds"]:.2f} s
({summary["events"]} events).</p>
<h2>FCT slowdown by flow size</h2>
<table><tr><th>size</th><th>flows</th><th>p50</th><th>p95</th><th>p99</th></tr>{rows}</table>
{img}
<h2>Scenario</h2><pre>{json.dumps(scenario, indent=1)}</pre>
</body></html>
"""


def run_scenario(path: Path, outdir: Path, overrides: tuple[str, ...] = ()) -> dict[str, Any]:
    """Runs the scenario at ``path`` and writes every output into ``outdir``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    doc = load_scenario(path, overrides)
    out = dict(_core.run_scenario(json.dumps(doc), str(path.resolve().parent)))
    resolved = json.loads(out.pop("resolved"))
    cols = {
        k: out.pop(k)
        for k in ("src", "dst", "size", "weight", "tag", "start_ps", "end_ps", "ideal_fct_ps")
    }
    finished = cols["end_ps"] >= 0
    cols["fct_s"] = np.where(finished, (cols["end_ps"] - cols["start_ps"]) / 1e12, np.nan)
    cols["ideal_fct_s"] = cols["ideal_fct_ps"] / 1e12
    summary = _summary(cols, out)
    outdir.mkdir(parents=True, exist_ok=True)
    (outdir / "scenario.json").write_text(json.dumps(resolved, indent=1) + "\n")
    table = pa.table(
        {
            "flow": np.arange(len(finished)),
            "src": cols["src"],
            "dst": cols["dst"],
            "size": cols["size"],
            "weight": cols["weight"],
            "tag": cols["tag"],
            "start_s": cols["start_ps"] / 1e12,
            "end_s": np.where(finished, cols["end_ps"] / 1e12, np.nan),
            "fct_s": cols["fct_s"],
            "ideal_fct_s": cols["ideal_fct_s"],
            "slowdown": cols["fct_s"] / cols["ideal_fct_s"],
        }
    )
    pq.write_table(table, outdir / "flows.parquet")
    (outdir / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    png = None
    if summary["finished"]:
        png = _plot(summary, outdir, resolved.get("name", "scenario"))[0]
    (outdir / "report.html").write_text(_report(summary, resolved, png))
    return summary
