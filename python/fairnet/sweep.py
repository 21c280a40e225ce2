"""``fairnet sweep``: many runs of one scenario (a grid or a list of points × seeds), on local
cores or a Ray cluster, resumable, collected into one ``sweep.parquet``.

A sweep file (TOML)::

    base = "scenario.toml"          # relative to the sweep file (TOML or JSON)
    seeds = [1, 2, 3]               # optional; default: the scenario's own seed
    [grid]                          # cartesian product of dotted field path -> values
    "workload.load" = [0.4, 0.6]
    # or, instead of [grid], explicit override tables:
    # [[points]]
    # "workload.load" = 0.4

Everything about the sweep file is checked before anything runs: a missing base scenario, a
malformed file, or a sweep none of whose points is a valid scenario is an :class:`InputError`
(exit 2). A point that alone is invalid is reported on one line and the others still run.

Each run writes into ``OUTDIR/runs/<hash>/`` (the hash of the scenario document it runs,
overrides and seed applied). A run is **done** when its directory holds a ``summary.json`` of a
run that is not partial: neither interrupted nor failed (``"partial": false``,
``"interrupted": false``, ``"failure": null``); a run that stopped at its ``stop_at`` with flows
unfinished is done (``complete`` says so). A
resumed sweep skips the done runs and runs every other one again from an emptied directory.

Runs go to worker processes (or Ray tasks) and come back with a status: ``ok``,
``interrupted`` (stopped by Ctrl-C; its partial outputs are kept), ``error`` (the point is bad
input), ``failed`` (the worker died: killed, out of memory, an engine abort; or the engine broke
an invariant) or ``not run`` (the sweep was stopped first). A dead worker fails its own run only;
the sweep goes on with a new worker. Ctrl-C starts no further run, stops the runs in flight
(they write what finished) and writes ``sweep.parquet`` with every point's status.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import multiprocessing
import os
import shutil
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from fairnet import _core
from fairnet.errors import InputError
from fairnet.progress import PeriodicLine, eta_seconds, format_duration, stderr_is_terminal
from fairnet.provenance import PROVENANCE_FILE
from fairnet.runner import (
    SIZE_BINS,
    check_finite,
    check_output_dir,
    prepare,
    read_scenario,
    read_toml,
    run_document,
)

#: A run's outcome as a worker reports it: a status and its one-line message.
Status = tuple[str, "str | None"]

OK, INTERRUPTED, ERROR, FAILED, NOT_RUN = "ok", "interrupted", "error", "failed", "not run"


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


@dataclass
class SweepOutcome:
    """What a sweep did: counts, one-line messages, and the collected table's path."""

    total: int = 0
    ran: int = 0
    skipped: int = 0
    failed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    interrupted: list[str] = field(default_factory=list)
    not_run: int = 0
    #: Ctrl-C (or SIGTERM) stopped the sweep.
    stopped: bool = False
    table: Path | None = None

    @property
    def exit_code(self) -> int:
        """130 stopped, 1 some point bad or failed, 0 every run done."""
        if self.stopped:
            return 130
        return 1 if self.errors or self.failed else 0

    def describe(self) -> str:
        """``8 runs: 5 done (2 already), 1 interrupted, 2 not run, 0 bad, 0 failed``."""
        done = self.ran + self.skipped
        return (
            f"{self.total} runs: {done} done ({self.skipped} already), "
            f"{len(self.interrupted)} interrupted, {self.not_run} not run, "
            f"{len(self.errors)} bad, {len(self.failed)} failed"
        )


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
    if not (path.parent / base).is_file():
        raise InputError(f"{path}: base: no scenario file {path.parent / base}")
    seeds: list[int | None] = [None]  # each point once, with the scenario's own seed
    if "seeds" in doc:
        seeds = doc["seeds"]
        if (
            not isinstance(seeds, list)
            or not seeds
            or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds)
        ):
            raise InputError(
                f"{path}: seeds: expected a non-empty list of non-negative integers, got {seeds!r}"
            )
    if "grid" in doc and "points" in doc:
        raise InputError(f"{path}: give either [grid] or [[points]], not both")
    if "grid" in doc:
        grid = dict(_flatten(doc["grid"]))
        for key, values in grid.items():
            if not isinstance(values, list) or not values:
                raise InputError(f"{path}: grid.{key}: expected a non-empty list of values")
            check_finite(values, f"grid.{key}")
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
    read_scenario(path.parent / base)  # a malformed base scenario is the sweep's error
    return Sweep(base=(path.parent / base), seeds=list(seeds), points=points)


def _resolve(doc: Mapping[str, Any]) -> Any:
    """The scenario with every default filled in; bad input raises :class:`InputError`."""
    try:
        return json.loads(_core.resolve_scenario(json.dumps(doc, allow_nan=False)))
    except ValueError as e:
        raise InputError(str(e)) from None


def _key(doc: Mapping[str, Any], base_dir: Path) -> str:
    # Hash the resolved scenario (every default filled in), so that writing a default out
    # explicitly names the same run.
    canon = json.dumps({"scenario": _resolve(doc), "base_dir": str(base_dir)}, sort_keys=True)
    return hashlib.sha256(canon.encode()).hexdigest()[:16]


def _label(point: Mapping[str, Any], seed: int | None) -> str:
    parts = [f"{k}={v}" for k, v in point.items()] + ([f"seed={seed}"] if seed is not None else [])
    return ", ".join(parts) or "base"


def plan(sweep: Sweep) -> tuple[list[Task], list[str]]:
    """The runs of a sweep, and one line per point that is not a valid scenario (checked
    here, before anything runs; what only building finds, such as a missing flow file, is
    reported by the run)."""
    tasks, errors = [], []
    for point in sweep.points:
        for seed in sweep.seeds:
            overrides = {**point, **({"seed": seed} if seed is not None else {})}
            try:
                doc, base_dir = prepare(sweep.base, overrides)
                key = _key(doc, base_dir)
            except InputError as e:
                errors.append(f"{_label(point, seed)}: {e}")
                continue
            tasks.append(Task(point, seed, doc, base_dir, key))
    return tasks, errors


#: Set in a local worker process: the sweep asks its runs to stop (Ctrl-C on the sweep).
_STOP: Any = None


def stop_requested() -> bool:
    """Whether the sweep this worker serves is being stopped."""
    return _STOP is not None and _STOP.is_set()


def run_task(doc: dict[str, Any], base_dir: Path, outdir: Path) -> str | None:
    """Runs one scenario document into ``outdir``. Returns None, or the one-line input error.
    Stops early (writing what finished) when the sweep is stopped."""
    try:
        run_document(doc, base_dir, should_stop=stop_requested).write(outdir)
    except ValueError as e:
        return str(e)
    return None


def run_task_unchecked(doc: dict[str, Any], base_dir: Path, outdir: Path) -> str | None:
    """:func:`run_task` without the memory check (``--no-memory-check``)."""
    try:
        run_document(doc, base_dir, should_stop=stop_requested, memory_check=False).write(outdir)
    except ValueError as e:
        return str(e)
    return None


TaskFn = Callable[[dict[str, Any], Path, Path], "str | None"]


def is_done(rundir: Path) -> bool:
    """A run directory holds a done run: a summary of a run that is not partial (neither
    interrupted nor failed; the last two are read too, for summaries of older versions)."""
    try:
        summary = json.loads((rundir / "summary.json").read_text())
    except (OSError, ValueError):
        return False
    return not (summary.get("interrupted") or summary.get("failure"))


def execute(fn: TaskFn, doc: dict[str, Any], base_dir: Path, outdir: Path) -> Status:
    """Runs one task in a worker: into an emptied ``outdir`` (it may hold an interrupted or
    crashed attempt), unless the sweep is already stopping. Returns its status."""
    if stop_requested():
        return (NOT_RUN, None)
    shutil.rmtree(outdir, ignore_errors=True)
    try:
        error = fn(doc, base_dir, outdir)
    except KeyboardInterrupt:  # a Ray task cancelled before its run started
        return (NOT_RUN, None)
    except Exception as e:  # a fairnet bug: this run fails, the worker goes on
        return (FAILED, f"{type(e).__name__}: {e}")
    if error is not None:
        return (ERROR, error)
    return _status_on_disk(outdir)


def _status_on_disk(outdir: Path) -> Status:
    try:
        summary = json.loads((outdir / "summary.json").read_text())
    except (OSError, ValueError):
        return (NOT_RUN, None)
    if summary.get("failure"):
        return (FAILED, f"the engine failed part-way: {summary['failure']}")
    if summary.get("interrupted"):
        return (INTERRUPTED, None)
    return (OK, None)


def _death(exitcode: int | None) -> str:
    """Why a worker process ended, in words."""
    if exitcode is not None and exitcode < 0:
        name = signal.Signals(-exitcode).name
        why = {
            "SIGKILL": " (killed: out of memory, or by someone)",
            "SIGABRT": " (aborted: a failed allocation or an engine abort)",
            "SIGSEGV": " (a crash in native code)",
        }.get(name, "")
        return f"the worker process died of {name}{why}"
    return f"the worker process exited with code {exitcode} before finishing the run"


class _Worker:
    """One local worker process and the task it is running."""

    def __init__(self, ctx: Any, stop: Any) -> None:
        self.conn, child = ctx.Pipe()
        # Workers ignore SIGINT (inherited through spawn: they start with it ignored): Ctrl-C
        # reaches the whole process group, and the sweep's main process alone decides, by
        # setting `stop`, which the runs check every 0.2 s.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            self.process = ctx.Process(target=_worker_main, args=(child, stop), daemon=True)
            self.process.start()
        finally:
            signal.signal(signal.SIGINT, previous)
        child.close()
        self.task: Task | None = None


def _worker_main(conn: Connection, stop: Any) -> None:
    global _STOP
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STOP = stop
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        conn.send(execute(*job))


def _receive(conn: Connection) -> Status | None:
    """A worker's answer if there is one; None if not yet, or if the worker died."""
    try:
        return conn.recv() if conn.poll() else None
    except (EOFError, OSError):
        return None


def _run_local(
    tasks: list[Task],
    runs: Path,
    workers: int,
    fn: TaskFn,
    done: Callable[[Task, Status], None],
    stopping: Callable[[], bool],
    tick: Callable[[int], None],
) -> None:
    """Runs tasks on ``workers`` processes. A worker that dies fails its own run and is
    replaced. Once ``stopping()``, no task starts, and the runs in flight are told to stop."""
    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    queue = deque(tasks)
    pool = [_Worker(ctx, stop) for _ in range(min(workers, len(tasks)))]
    try:
        while True:
            if stopping():
                stop.set()
            for i, w in enumerate(pool):
                if w.task is None and queue and not stop.is_set():
                    if not w.process.is_alive():  # died idle: a fresh one takes the task
                        pool[i] = w = _Worker(ctx, stop)
                    w.task = queue.popleft()
                    try:
                        w.conn.send((fn, w.task.doc, w.task.base_dir, runs / w.task.key))
                    except OSError:
                        pass  # it died just now: found below
            busy = [w for w in pool if w.task is not None]
            if not busy:
                break
            tick(len(busy))
            wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=0.2)
            for i, w in enumerate(pool):
                if w.task is None:
                    continue
                status = _receive(w.conn)
                if status is not None:
                    task, w.task = w.task, None
                    done(task, status)
                elif not w.process.is_alive():
                    w.process.join()
                    done(w.task, (FAILED, _death(w.process.exitcode)))
                    w.conn.close()
                    pool[i] = _Worker(ctx, stop)
    finally:
        for w in pool:
            try:
                w.conn.send(None)
            except OSError:
                pass
        for w in pool:
            w.process.join(timeout=5)
            if w.process.is_alive():
                w.process.kill()
    for task in queue:
        done(task, (NOT_RUN, None))


def _run_ray(
    tasks: list[Task],
    runs: Path,
    address: str,
    fn: TaskFn,
    done: Callable[[Task, Status], None],
    stopping: Callable[[], bool],
    tick: Callable[[int], None],
) -> None:
    """Runs tasks on a Ray cluster (``address`` as for ``ray.init``; ``local`` starts one here).
    A task whose worker dies fails (no retry: an out-of-memory run would only die again).
    Once ``stopping()``, every task is cancelled: those not started never start, those running
    get a KeyboardInterrupt and write what finished."""
    try:
        import ray
        from ray.exceptions import TaskCancelledError
    except ImportError:
        raise InputError("--ray needs Ray: pip install 'fairnet[ray]'") from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, log_to_driver=False, include_dashboard=False)
    try:
        remote = ray.remote(max_retries=0)(execute)
        refs = {remote.remote(fn, t.doc, t.base_dir, runs / t.key): t for t in tasks}
        waiting = list(refs)
        cancelled = False
        while waiting:
            if stopping() and not cancelled:
                cancelled = True
                for ref in waiting:
                    ray.cancel(ref)
            tick(len(waiting))
            ready, waiting = ray.wait(waiting, num_returns=len(waiting), timeout=0.2)
            for ref in ready:
                task = refs[ref]
                try:
                    status = ray.get(ref)
                except TaskCancelledError:
                    status = _status_on_disk(runs / task.key)
                    if status[0] == OK:  # finished just before the cancel
                        status = (OK, None)
                except Exception as e:  # the worker died, or a fairnet bug
                    status = (FAILED, f"{type(e).__name__}: {str(e).splitlines()[0]}")
                done(task, status)
    finally:
        if started:
            ray.shutdown()


def _say(line: str) -> None:
    """One line on stderr, never wrapped or marked up."""
    PeriodicLine.say(f"fairnet: sweep: {line}")


def _read_json(path: Path) -> dict[str, Any]:
    """A JSON object from ``path``; empty if it is missing or unreadable."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


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
    # Timings vary from run to run: they are in provenance.json, not the summary.
    prov = _read_json(runs / task.key / PROVENANCE_FILE) if s else {}
    row["wall_seconds"] = prov.get("wall_seconds")
    row["events_per_second"] = prov.get("events_per_second")
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
    task_fn: TaskFn | None = None,
    memory_check: bool = True,
) -> SweepOutcome:
    """Runs the sweep file at ``path`` into ``outdir`` and writes ``outdir/sweep.parquet``
    (also when stopped by Ctrl-C: then ``outcome.stopped``). A bad sweep file raises
    :class:`InputError` before anything runs."""
    sweep = load_sweep(path)
    tasks, errors = plan(sweep)
    if not tasks:
        raise InputError(f"{path}: no point of the sweep is a valid scenario; {errors[0]}")
    check_output_dir(outdir)
    runs = outdir / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    for marker in runs.glob("*.running"):  # left by earlier versions of fairnet
        marker.unlink(missing_ok=True)
    fn = task_fn or (run_task if memory_check else run_task_unchecked)
    outcome = SweepOutcome(total=len(tasks) + len(errors), errors=list(errors))
    for line in errors:
        _say(f"bad point {line}")
    status: dict[str, Status] = {}
    todo: list[Task] = []
    seen: set[str] = set()
    for t in tasks:
        if t.key in seen:
            continue  # two points may resolve to the same scenario
        seen.add(t.key)
        if is_done(runs / t.key):
            status[t.key] = (OK, None)
            outcome.skipped += 1
        else:
            todo.append(t)
    n_workers = max(1, min(workers or os.cpu_count() or 1, len(todo) or 1))
    _say(
        f"{outcome.total} runs: {outcome.skipped} already done, {len(errors)} bad, "
        f"{len(todo)} to run"
        + (f" on Ray ({ray_address})" if ray_address is not None else f" on {n_workers} workers")
    )
    stop = threading.Event()
    t0 = time.monotonic()
    lines = None if stderr_is_terminal() else PeriodicLine()
    bar = _SweepBar(len(todo)) if todo and lines is None else None
    finished = 0

    def done(task: Task, result: Status) -> None:
        nonlocal finished
        state, message = result
        status[task.key] = result
        label = _label(task.point, task.seed)
        if state == OK:
            outcome.ran += 1
        elif state == ERROR:
            outcome.errors.append(f"{label}: {message}")
            _say(f"bad point {label}: {message}")
        elif state == FAILED:
            outcome.failed.append(f"{label}: {message}")
            _say(f"run failed {label}: {message}")
        elif state == INTERRUPTED:
            outcome.interrupted.append(label)
        else:
            outcome.not_run += 1
        if state != NOT_RUN:
            finished += 1
        if bar is not None:
            bar.advance()

    def tick(running: int) -> None:
        if lines is not None and lines.due():
            elapsed = time.monotonic() - t0
            if stop.is_set():
                _say(f"stopping: waiting for {running} run(s) to write what finished")
                return
            eta = eta_seconds(finished / len(todo), elapsed) if running else 0.0
            _say(
                f"progress: {finished}/{len(todo)} runs finished, {running} running, "
                f"{format_duration(elapsed)} elapsed, "
                f"ETA {format_duration(eta) if eta is not None else 'unknown'}"
            )

    if todo:
        with _stop_on_signals(stop):
            try:
                if ray_address is not None:
                    _run_ray(todo, runs, ray_address, fn, done, stop.is_set, tick)
                else:
                    _run_local(todo, runs, n_workers, fn, done, stop.is_set, tick)
            finally:
                if bar is not None:
                    bar.close()
    outcome.stopped = stop.is_set()
    rows = [_row(t, runs, *status.get(t.key, (NOT_RUN, None))) for t in tasks]
    rows += [{"status": ERROR, "error": line} for line in errors]  # points not even valid
    outcome.table = outdir / "sweep.parquet"
    _write_table(rows, outcome.table)
    return outcome


class _stop_on_signals:
    """While a sweep runs, Ctrl-C (SIGINT) and SIGTERM set ``stop`` instead of raising: the
    sweep stops starting runs, lets the runs in flight write what finished, and writes its
    table. Only the main thread can install handlers; elsewhere this does nothing."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self.previous[sig] = signal.signal(sig, self._handle)

    def _handle(self, signum: int, frame: Any) -> None:
        if not self.stop.is_set():
            _say("stopping: no further run starts; the runs in flight write what finished")
        self.stop.set()

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)


class _SweepBar:
    """A rich bar of finished runs, on a terminal."""

    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("sweep"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._task = self._progress.add_task("runs", total=total)
        self._progress.start()

    def advance(self) -> None:
        self._progress.advance(self._task)

    def close(self) -> None:
        self._progress.stop()
