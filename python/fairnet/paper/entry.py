"""What a paper-registry entry is, and the helpers entries share (output files, tables)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

SCALES = ("smoke", "full")


@dataclass
class PaperResult:
    """What a reproduction produced: rows of ours beside the paper's, and the files written."""

    rows: list[dict[str, Any]]
    files: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Entry:
    """One reproduction of a published figure."""

    name: str
    title: str
    paper: str  # the paper (and section) it reproduces
    figure: str
    scales: dict[str, str]  # scale -> what it runs
    run_fn: Callable[[str, Path, Console], PaperResult]

    def run(self, scale: str, outdir: Path, console: Console | None = None) -> PaperResult:
        """Runs at ``scale`` (``smoke`` or ``full``), writing into ``outdir``."""
        from fairnet.errors import InputError

        if scale not in self.scales:
            raise InputError(f"--scale: expected one of {', '.join(self.scales)}, got {scale!r}")
        outdir.mkdir(parents=True, exist_ok=True)
        result = self.run_fn(scale, outdir, console or Console())
        path = outdir / "results.json"
        doc = {"entry": self.name, "paper": self.paper, "figure": self.figure, "scale": scale}
        path.write_text(json.dumps(doc | {"rows": result.rows}, indent=1) + "\n")
        result.files.append(path)
        return result


def results_table(title: str, columns: tuple[str, ...] | list[str]) -> Table:
    """A table of an entry's results: right-aligned columns, ours beside the paper's."""
    t = Table(title=title)
    for col in columns:
        t.add_column(col, justify="right")
    return t


def save_figure(fig: Any, outdir: Path, stem: str) -> list[Path]:
    """Saves a matplotlib figure as PNG and SVG and closes it."""
    import matplotlib.pyplot as plt

    paths = [outdir / f"{stem}.png", outdir / f"{stem}.svg"]
    fig.tight_layout()
    for p in paths:
        fig.savefig(p, dpi=120)
    plt.close(fig)
    return paths


def pyplot() -> Any:
    """matplotlib.pyplot on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
