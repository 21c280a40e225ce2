"""What a paper-registry entry is and what its run returns; ``Entry.run`` checks the scale and
writes ``results.json`` with a CSV and Markdown copy of each table (:mod:`fairnet.paper.tables`).

``results.json`` carries, under ``provenance``, what made it (:mod:`fairnet.provenance`) and
``reproduce``, the one command that reruns it at its scale; the golden digests leave that key
out (it varies from run to run)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from fairnet.paper.tables import ResultTable, write_results
from fairnet.provenance import now, provenance

SCALES = ("smoke", "full")


@dataclass
class PaperResult:
    """What a reproduction produced: rows of ours beside the paper's (``results.json``), the
    files it wrote (plots) and the tables it printed (copied beside ``results.json``)."""

    rows: list[dict[str, Any]]
    files: list[Path] = field(default_factory=list)
    tables: list[ResultTable] = field(default_factory=list)


@dataclass(frozen=True)
class Entry:
    """One reproduction of a published figure."""

    name: str
    title: str
    paper: str  # the paper (and section) it reproduces
    figure: str
    scales: dict[str, str]  # scale -> what it runs
    run_fn: Callable[..., PaperResult]  # (scale, outdir, console[, runs]) -> result
    #: Entries that repeat their experiment over seeds: the number of runs per scale (the
    #: paper's count may be out of reach; ``--runs`` overrides it). None: one fixed run.
    runs: dict[str, int] | None = None
    #: Fields of ``results.json``'s rows that measure wall-clock time (a solver's or a
    #: simulation's): they differ between two identical runs, so the golden check
    #: (``fairnet.paper.golden``) leaves them out; every other value repeats digit for digit.
    wall_clock: tuple[str, ...] = ()

    def command(self, scale: str, runs: int | None = None) -> str:
        """The command that reproduces this entry at ``scale`` (with ``runs`` seeded runs)."""
        more = f" --runs {runs}" if self.runs is not None and runs is not None else ""
        return f"fairnet paper run {self.name} --scale {scale}{more}"

    def run(
        self, scale: str, outdir: Path, console: Console | None = None, runs: int | None = None
    ) -> PaperResult:
        """Runs at ``scale`` (``smoke`` or ``full``), writing into ``outdir``; ``runs``
        overrides the number of seeded runs of an entry that repeats its experiment."""
        from fairnet.errors import InputError

        if scale not in self.scales:
            raise InputError(f"--scale: expected one of {', '.join(self.scales)}, got {scale!r}")
        if runs is not None and self.runs is None:
            raise InputError(f"--runs: {self.name} is one fixed run; it takes no run count")
        if runs is not None and runs < 1:
            raise InputError(f"--runs: expected a positive number of runs, got {runs}")
        outdir.mkdir(parents=True, exist_ok=True)
        console = console or Console()
        started, t0 = now(), time.perf_counter()
        if self.runs is None:
            result = self.run_fn(scale, outdir, console)
        else:
            runs = runs or self.runs[scale]
            result = self.run_fn(scale, outdir, console, runs)
        doc = {"entry": self.name, "paper": self.paper, "figure": self.figure, "scale": scale}
        if self.runs is not None:
            doc["runs"] = runs
        doc["provenance"] = provenance(
            started,
            reproduce=self.command(scale, runs),
            wall_seconds=time.perf_counter() - t0,
        )
        result.files += write_results(outdir, doc | {"rows": result.rows}, result.tables)
        return result
