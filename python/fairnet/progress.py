"""Running a scenario on a worker thread, showing its progress, and stopping it with Ctrl-C.

The Rust engines update a shared :class:`fairnet._core.RunProgress` every 16,384 events
(simulated time, events, flows finished; the run's horizon, its ``stop_at``, is set before it
starts) and stop at the next update once it is cancelled, returning what finished. Here the
main thread waits for the worker and turns Ctrl-C into a cancel, so the caller gets partial
results to write instead of a traceback. Progress goes to stderr:

- on a terminal, a rich progress bar once the run has taken more than :data:`SHOW_AFTER_S`;
- anywhere else (a log file, CI, ``nohup``), a plain line every :func:`log_interval` seconds
  (10 s; the environment variable ``FAIRNET_PROGRESS_INTERVAL`` changes it)::

    fairnet: progress: 1,234/5,000 flows finished, 1.200 ms of 10.000 ms simulated,
    2.31 M events/s, 12 s elapsed, ETA 40 s

(one line; wrapped here).

The ETA extrapolates the elapsed time from the fraction done, the larger of the flows finished
(of the total, when known) and the simulated time (of the horizon, when known): a run ends at
whichever comes first, so a packet run with a ``stop_at`` has an ETA even before any flow
finishes.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from fairnet import _core

#: Runs shorter than this show no progress bar on a terminal.
SHOW_AFTER_S = 2.0
#: Off a terminal, one progress line every this many seconds (unless the environment says).
LOG_INTERVAL_S = 10.0
POLL_S = 0.2


def log_interval() -> float:
    """Seconds between two plain progress lines: ``FAIRNET_PROGRESS_INTERVAL`` or 10."""
    try:
        value = float(os.environ.get("FAIRNET_PROGRESS_INTERVAL", LOG_INTERVAL_S))
    except ValueError:
        return LOG_INTERVAL_S
    return value if value > 0 else LOG_INTERVAL_S


def stderr_is_terminal() -> bool:
    """Whether progress can be drawn as a bar (stderr is a terminal)."""
    return sys.stderr.isatty()


def format_duration(seconds: float) -> str:
    """``42 s``, ``3 min 20 s``, ``2 h 05 min``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def eta_seconds(fraction: float, elapsed: float) -> float | None:
    """Time left if the rest goes as fast as what is done; None before anything is done."""
    if fraction <= 0:
        return None
    return elapsed * (1 - min(fraction, 1.0)) / fraction


def _parts(
    snap: tuple[float, int, int, bool, float | None], total_flows: int | None, elapsed: float
) -> tuple[float, dict[str, str]]:
    """The fraction done, and the pieces of a progress report: flows, simulated time,
    events/s, elapsed, ETA."""
    sim_s, events, finished, _, horizon_s = snap
    fraction = max(
        finished / total_flows if total_flows else 0.0,
        sim_s / horizon_s if horizon_s else 0.0,
    )
    eta = eta_seconds(fraction, elapsed)
    return min(fraction, 1.0), {
        "flows": f"{finished:,}/{total_flows:,}" if total_flows else f"{finished:,}",
        "sim": f"{sim_s * 1e3:.3f} ms" + (f" of {horizon_s * 1e3:.3f} ms" if horizon_s else ""),
        "rate": f"{events / max(elapsed, 1e-9) / 1e6:.2f} M events/s",
        "elapsed": format_duration(elapsed),
        "eta": format_duration(eta) if eta is not None else "unknown",
    }


def progress_line(
    snap: tuple[float, int, int, bool, float | None], total_flows: int | None, elapsed: float
) -> str:
    """The plain progress line of a run (see the module doc)."""
    _, p = _parts(snap, total_flows, elapsed)
    return (
        f"fairnet: progress: {p['flows']} flows finished, {p['sim']} simulated, {p['rate']}, "
        f"{p['elapsed']} elapsed, ETA {p['eta']}"
    )


class PeriodicLine:
    """Prints a line on stderr every :func:`log_interval` seconds (off a terminal)."""

    def __init__(self) -> None:
        self._interval = log_interval()
        self._next = time.monotonic() + self._interval

    def due(self) -> bool:
        """Whether it is time for the next line (and if so, the one after is scheduled)."""
        now = time.monotonic()
        if now < self._next:
            return False
        self._next = now + self._interval
        return True

    @staticmethod
    def say(line: str) -> None:
        """One line on stderr, flushed at once (a log is read while the run goes)."""
        print(line, file=sys.stderr, flush=True)


def run_scenario_json(
    doc_json: str,
    base_dir: str,
    *,
    show: bool,
    total_flows: int | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[dict[str, Any], bool]:
    """Runs ``_core.run_scenario`` on a worker thread; returns its output and whether it was
    interrupted (Ctrl-C, or ``should_stop()`` turning true: a sweep being stopped). Errors of
    the run are raised here, in the caller's thread. ``show``: progress on stderr."""
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
    lines = PeriodicLine() if show and not stderr_is_terminal() else None
    try:
        while not done.wait(POLL_S):
            if should_stop is not None and should_stop():
                raise KeyboardInterrupt
            elapsed = time.monotonic() - t0
            if lines is not None:
                if lines.due():
                    lines.say(progress_line(progress.snapshot(), total_flows, elapsed))
            elif show and bar is None and elapsed > SHOW_AFTER_S:
                bar = _Bar(total_flows)
            if bar is not None:
                bar.update(progress.snapshot(), elapsed)
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
    """A rich bar on stderr: flows finished (of the total when known) or, before any flow
    finishes, simulated time of the horizon; events/s, elapsed, ETA."""

    def __init__(self, total_flows: int | None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn

        self._total_flows = total_flows
        self._progress = Progress(
            SpinnerColumn(),
            BarColumn(),
            TextColumn("{task.fields[text]}"),
            console=Console(stderr=True),
            transient=True,
        )
        self._task = self._progress.add_task("run", total=1.0, text="")
        self._progress.start()

    def update(self, snap: tuple[float, int, int, bool, float | None], elapsed: float) -> None:
        # Short enough for an 80-column terminal: the ETA must not be cut off.
        fraction, p = _parts(snap, self._total_flows, elapsed)
        text = f"{p['flows']} flows, {p['sim']}, ETA {p['eta']}"
        self._progress.update(self._task, completed=fraction, text=text)

    def close(self) -> None:
        self._progress.stop()
