"""Running a scenario on a worker thread with a progress bar, and stopping it with Ctrl-C.

The Rust engines update a shared :class:`fairnet._core.RunProgress` every 16,384 events
(simulated time, events, flows finished) and stop at the next update once it is cancelled,
returning what finished. Here the main thread waits for the worker, draws a rich progress bar
once the run has taken more than :data:`SHOW_AFTER_S` seconds, and turns Ctrl-C into a cancel,
so the caller gets partial results to write instead of a traceback.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from fairnet import _core

#: Runs shorter than this show no progress bar.
SHOW_AFTER_S = 2.0
POLL_S = 0.2


def run_scenario_json(
    doc_json: str, base_dir: str, *, show: bool, total_flows: int | None = None
) -> tuple[dict[str, Any], bool]:
    """Runs ``_core.run_scenario`` on a worker thread; returns its output and whether it was
    interrupted (Ctrl-C). Errors of the run are raised here, in the caller's thread."""
    progress = _core.RunProgress()
    box: dict[str, Any] = {}
    # An Event, not Thread.join: a join interrupted by Ctrl-C can return early when called
    # again (CPython's thread-state lock), an Event's wait cannot.
    done = threading.Event()

    def work() -> None:
        try:
            box["out"] = dict(_core.run_scenario(doc_json, base_dir, progress))
        except BaseException as e:  # re-raised in the caller's thread
            box["error"] = e
        finally:
            done.set()

    worker = threading.Thread(target=work, name="fairnet-run", daemon=True)
    t0 = time.monotonic()
    worker.start()
    interrupted = False
    bar = None
    try:
        while not done.wait(POLL_S):
            if show and bar is None and time.monotonic() - t0 > SHOW_AFTER_S:
                bar = _Bar(total_flows)
            if bar is not None:
                bar.update(progress.snapshot(), time.monotonic() - t0)
    except KeyboardInterrupt:
        interrupted = True
        progress.cancel()
        while True:  # the engine stops within 16k events; a second Ctrl-C changes nothing
            try:
                done.wait()
                break
            except KeyboardInterrupt:
                continue
    finally:
        if bar is not None:
            bar.close()
    if "error" in box:
        raise box["error"]
    return box["out"], interrupted


class _Bar:
    """flows finished (of the total when known), simulated time, events/s, elapsed, ETA."""

    def __init__(self, total_flows: int | None) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        from fairnet.report import console

        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("flows"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[sim]}"),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=True,
        )
        self._task = self._progress.add_task("run", total=total_flows, sim="", rate="")
        self._progress.start()

    def update(self, snap: tuple[float, int, int, bool], elapsed: float) -> None:
        sim_s, events, finished, _ = snap
        self._progress.update(
            self._task,
            completed=finished,
            sim=f"{sim_s * 1e3:.3f} ms simulated",
            rate=f"{events / max(elapsed, 1e-9) / 1e6:.2f} M events/s",
        )

    def close(self) -> None:
        self._progress.stop()
