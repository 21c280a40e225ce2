"""``fairnet sweep``: many runs of one scenario (a grid or a list of points × seeds), on local
cores or a Ray cluster, resumable, collected into one ``sweep.parquet``.

A sweep file (TOML)::

    base = "scenario.toml"          # relative to the sweep file
    seeds = [1, 2, 3]               # optional; default: the scenario's own seed
    [grid]                          # cartesian product of dotted field path -> values
    "workload.load" = [0.4, 0.6]
    # or, instead of [grid], explicit override tables:
    # [[points]]
    # "workload.load" = 0.4

Each run writes into ``OUTDIR/runs/<hash>/`` (the hash of the scenario document it runs, overrides
and seed applied); a directory with ``summary.json`` is a finished run and is not run again. A
worker that crashes has its run retried once; a point that fails validation is reported on one
line and the others still run.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import multiprocessing
import os
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from fairnet import _core
from fairnet.errors import InputError
from fairnet.runner import SIZE_BINS, prepare, read_toml, run_document

console = Console(stderr=True)


@dataclass
class Sweep:
    """A parsed sweep file: the base scenario, the seeds and the points (dotted path -> value)."""

    base: Path
    seeds: list[int | None]
    points: list[dict[str, Any]]


@dataclass
class Task:
    """One run: a point, a seed, the document to run and where its outputs go."""

    point: dict[str, Any]
    seed: int | None
    doc: dict[str, Any]
    base_dir: Path
    key: str
    attempts: int = 0


@dataclass
class SweepOutcome:
    """What a sweep did: counts, one-line errors, and the collected table's path."""

    total: int = 0
    ran: int = 0
    skipped: int = 0
    failed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    table: Path | None = None


def _flatten(table: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Dotted paths of a TOML table's leaves (``workload.load = 1`` parses as nested tables)."""
    for key, value in table.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from _flatten(value, path + ".")
        else:
            yield path, value


def load_sweep(path: Path) -> Sweep:
    """Reads and validates a sweep file; errors name the field."""
    doc = read_toml(path)
    unknown = set(doc) - {"base", "seeds", "grid", "points"}
    if unknown:
        raise InputError(f"{path}: unknown field `{sorted(unknown)[0]}`")
    base = doc.get("base")
    if not isinstance(base, str):
        raise InputError(f"{path}: base: expected the scenario file's path (a string)")
    seeds = doc.get("seeds", [None])
    if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) for s in seeds):
        raise InputError(f"{path}: seeds: expected a non-empty list of integers, got {seeds!r}")
    if "grid" in doc and "points" in doc:
        raise InputError(f"{path}: give either [grid] or [[points]], not both")
    if "grid" in doc:
        grid = dict(_flatten(doc["grid"]))
        for key, values in grid.items():
            if not isinstance(values, list) or not values:
                raise InputError(f"{path}: grid.{key}: expected a non-empty list of values")
        keys = list(grid)
        points = [
            dict(zip(keys, combo, strict=True)) for combo in itertools.product(*grid.values())
        ]
    elif "points" in doc:
        if not isinstance(doc["points"], list):
            raise InputError(f"{path}: points: expected [[points]] tables")
        points = [dict(_flatten(p)) for p in doc["points"]]
    else:
        points = [{}]
    return Sweep(base=(path.parent / base), seeds=list(seeds), points=points)


def _key(doc: Mapping[str, Any], base_dir: Path) -> str:
    # Hash the resolved scenario (every default filled in), so that writing a default out
    # explicitly names the same run. A point that does not validate keeps its raw form; it is
    # reported as bad when it runs.
    try:
        resolved: Any = json.loads(_core.resolve_scenario(json.dumps(doc)))
    except ValueError:
        resolved = doc
    canon = json.dumps({"scenario": resolved, "base_dir": str(base_dir)}, sort_keys=True)
    return hashlib.sha256(canon.encode()).hexdigest()[:16]


def _label(point: Mapping[str, Any], seed: int | None) -> str:
    parts = [f"{k}={v}" for k, v in point.items()] + ([f"seed={seed}"] if seed is not None else [])
    return ", ".join(parts) or "base"


def plan(sweep: Sweep) -> tuple[list[Task], list[str]]:
    """The runs of a sweep, and one line per point whose overrides cannot even be applied."""
    tasks, errors = [], []
    for point in sweep.points:
        for seed in sweep.seeds:
            overrides = {**point, **({"seed": seed} if seed is not None else {})}
            try:
                doc, base_dir = prepare(sweep.base, overrides)
            except InputError as e:
                errors.append(f"{_label(point, seed)}: {e}")
                continue
            tasks.append(Task(point, seed, doc, base_dir, _key(doc, base_dir)))
    return tasks, errors


def run_task(doc: dict[str, Any], base_dir: Path, outdir: Path) -> str | None:
    """Runs one scenario document into ``outdir``. Returns None, or the one-line input error."""
    try:
        run_document(doc, base_dir).write(outdir)
    except ValueError as e:
        return str(e)
    return None


TaskFn = Callable[[dict[str, Any], Path, Path], "str | None"]


def _guarded(fn: TaskFn, doc: dict[str, Any], base_dir: Path, outdir: Path) -> str | None:
    """Runs ``fn`` with a marker file beside ``outdir`` while it runs: if the pool breaks, the
    runs with a marker were in flight (one of them crashed it); the others never started."""
    marker = outdir.with_name(outdir.name + ".running")
    marker.touch()
    result = fn(doc, base_dir, outdir)
    marker.unlink()
    return result


def _run_local(
    tasks: list[Task], runs: Path, workers: int, fn: TaskFn, done: Callable[[Task, Any], None]
) -> None:
    """Runs tasks on a process pool. A crashed worker breaks the whole pool: the runs that were in
    flight are charged an attempt and retried once, the rest go again uncharged, in a new pool."""
    pending = tasks
    ctx = multiprocessing.get_context("spawn")
    while pending:
        retry: list[Task] = []
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            futures: dict[Future, Task] = {
                pool.submit(_guarded, fn, t.doc, t.base_dir, runs / t.key): t for t in pending
            }
            for fut in as_completed(futures):
                task = futures[fut]
                try:
                    result = fut.result()
                except Exception as e:  # a crashed worker or an engine bug
                    marker = runs / (task.key + ".running")
                    if not isinstance(e, BrokenProcessPool) or marker.exists():
                        task.attempts += 1
                    marker.unlink(missing_ok=True)
                    if task.attempts < 2:
                        retry.append(task)
                    else:
                        done(task, e)
                    continue
                done(task, result)
        pending = retry


def _run_ray(
    tasks: list[Task], runs: Path, address: str, fn: TaskFn, done: Callable[[Task, Any], None]
) -> None:
    """Runs tasks on a Ray cluster (``address`` as for ``ray.init``; ``local`` starts one here).
    Ray retries a task whose worker died once (``max_retries=1``)."""
    try:
        import ray
    except ImportError:
        raise InputError("--ray needs Ray: pip install 'fairnet[ray]'") from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, log_to_driver=False, include_dashboard=False)
    try:
        remote = ray.remote(max_retries=1)(fn)
        refs = {remote.remote(t.doc, t.base_dir, runs / t.key): t for t in tasks}
        waiting = list(refs)
        while waiting:
            ready, waiting = ray.wait(waiting, num_returns=1)
            task = refs[ready[0]]
            try:
                done(task, ray.get(ready[0]))
            except Exception as e:  # the run failed twice
                done(task, e)
    finally:
        if started:
            ray.shutdown()


def _say(con: Console, line: str) -> None:
    """One line on stderr, never wrapped or marked up."""
    con.print(f"fairnet: sweep: {line}", markup=False, highlight=False, soft_wrap=True)


def _row(task: Task, runs: Path, status: str, message: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {**task.point, "seed": task.seed, "run": task.key, "status": status}
    row["error"] = message
    summary_path = runs / task.key / "summary.json"
    s = json.loads(summary_path.read_text()) if status == "ok" else None
    sd = s["slowdown"] if s else {}
    row["slowdown_median"] = sd.get("median")
    row["slowdown_p99"] = sd.get("p99")
    by_size = {b["bin"]: b for b in sd.get("by_size", [])}
    for _, _, label in SIZE_BINS:
        for q in ("p50", "p99"):
            row[f"{q}_{label}"] = by_size.get(label, {}).get(q)
    row["jain_vs_maxmin"] = (s.get("fairness") or {}).get("jain_vs_maxmin") if s else None
    row["wall_seconds"] = s["wall_seconds"] if s else None
    row["events_per_second"] = s["events_per_second"] if s else None
    row["complete"] = s["complete"] if s else None
    # Rounds-engine runs: convergence rounds, N1/N2/N∞ and the bound checks.
    for k, v in ((s or {}).get("rounds") or {}).items():
        row[f"rounds_{k}"] = v
    return row


def _write_table(rows: list[dict[str, Any]], path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: dict[str, list[Any]] = {}
    for row in rows:
        for k in row:
            columns.setdefault(k, [])
    for row in rows:
        for k, values in columns.items():
            values.append(row.get(k))
    for k, values in columns.items():
        types = {type(v) for v in values if v is not None}
        if types == {int, float}:
            columns[k] = [None if v is None else float(v) for v in values]
        elif len(types) > 1:  # e.g. "40%" and 0.6: keep them comparable as text
            columns[k] = [None if v is None else str(v) for v in values]
    pq.write_table(pa.table(columns), path)


def run_sweep(
    path: Path,
    outdir: Path,
    *,
    workers: int | None = None,
    ray_address: str | None = None,
    task_fn: TaskFn = run_task,
) -> SweepOutcome:
    """Runs the sweep file at ``path`` into ``outdir`` and writes ``outdir/sweep.parquet``."""
    sweep = load_sweep(path)
    tasks, errors = plan(sweep)
    runs = outdir / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    outcome = SweepOutcome(total=len(tasks) + len(errors), errors=list(errors))
    for line in errors:
        _say(console, f"bad point {line}")
    status: dict[str, tuple[str, str | None]] = {}
    todo: list[Task] = []
    seen: set[str] = set()
    for t in tasks:
        if (runs / t.key / "summary.json").exists():
            status[t.key] = ("ok", None)
            outcome.skipped += 1
        elif t.key not in seen:  # two points may resolve to the same scenario
            todo.append(t)
        seen.add(t.key)
    with Progress(
        TextColumn("sweep"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=not console.is_terminal,
    ) as progress:
        bar = progress.add_task("runs", total=outcome.total, completed=outcome.total - len(todo))

        def done(task: Task, result: Any) -> None:
            label = _label(task.point, task.seed)
            if isinstance(result, BaseException):
                line = f"{label}: run failed twice: {type(result).__name__}: {result}"
                status[task.key] = ("failed", line)
                outcome.failed.append(line)
                _say(progress.console, line)
            elif result is not None:
                status[task.key] = ("error", str(result))
                outcome.errors.append(f"{label}: {result}")
                _say(progress.console, f"bad point {label}: {result}")
            else:
                status[task.key] = ("ok", None)
                outcome.ran += 1
            progress.advance(bar)

        if todo:
            if ray_address is not None:
                _run_ray(todo, runs, ray_address, task_fn, done)
            else:
                n = workers or os.cpu_count() or 1
                _run_local(todo, runs, max(1, min(n, len(todo))), task_fn, done)
    rows = [_row(t, runs, *status[t.key]) for t in tasks if t.key in status]
    rows += [
        {"status": "error", "error": line} for line in errors
    ]  # points whose overrides did not apply
    outcome.table = outdir / "sweep.parquet"
    _write_table(rows, outcome.table)
    return outcome
