"""The comparison tables of the paper entries: our numbers beside the paper's (and the
oracle's), printed readable in full at any console width, and written beside ``results.json``
as CSV and Markdown.

Every column but the key columns (those naming the row: scheme, phase, flow, …) says whose
value it holds — ``ours``, ``paper``, ``oracle``, … — as the second line of its header
(``95%/20% (ours)`` in the CSV and Markdown copies). No cell is ever cut: a table too wide for
the console (80 columns in a log) is printed in parts, each repeating the key columns, and a
long text cell wraps between words; a word is broken across lines only if it alone is wider
than the console.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from fairnet.runner import slowdown_by_size

#: Cells wider than this may wrap (between words, down to this width) before a table is split
#: into parts; narrower cells keep their line.
WRAP_WIDTH = 24


@dataclass(frozen=True)
class Column:
    """A column: the quantity it shows and whose value it is (``ours``, ``paper``,
    ``oracle``, …); ``whose=""`` makes a key column, naming the row and repeated in every
    part of a split table. Numbers are right-aligned, text (``text=True``) left-aligned."""

    header: str
    whose: str = ""
    text: bool = False

    @property
    def is_key(self) -> bool:
        return not self.whose

    @property
    def console_header(self) -> str:
        """The header on the console: whose value it is on a line of its own."""
        return f"{self.header}\n{self.whose}" if self.whose else self.header

    @property
    def file_header(self) -> str:
        """The header in the CSV and Markdown copies: ``header (whose)``."""
        return f"{self.header} ({self.whose})" if self.whose else self.header


def key(header: str) -> Column:
    """A key column (the row's name), left-aligned."""
    return Column(header, "", text=True)


@dataclass
class ResultTable:
    """One comparison table of an entry, with the note printed under it (what the columns
    mean, the paper's words where it gives no numbers). ``name`` names its CSV copy when an
    entry writes more than one table (``results-<name>.csv``)."""

    title: str
    columns: Sequence[Column]
    note: str = ""
    name: str = ""
    rows: list[list[str]] = field(default_factory=list)
    #: Indices of rows after which a rule is drawn (a summary below the data, …).
    section_ends: set[int] = field(default_factory=set)

    def add_row(self, *cells: str, end_section: bool = False) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{self.title}: {len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(list(cells))
        if end_section:
            self.section_ends.add(len(self.rows) - 1)

    def print(self, console: Console) -> None:
        """Prints the table (in parts if it is too wide for ``console``), then its note."""
        parts = self._parts(console.width)
        for k, (cols, widths) in enumerate(parts):
            title = (
                self.title if len(parts) == 1 else f"{self.title} (part {k + 1} of {len(parts)})"
            )
            t = Table(title=title)
            for i, w in zip(cols, widths, strict=True):
                c = self.columns[i]
                justify = "left" if c.text else "right"
                t.add_column(Text(c.console_header), justify=justify, width=w, overflow="fold")
            for j, row in enumerate(self.rows):
                # Text: a cell is shown as written, never read as console markup.
                t.add_row(*(Text(row[i]) for i in cols), end_section=j in self.section_ends)
            console.print(t)
        if self.note:
            console.print(self.note, markup=False)

    def _parts(self, console_width: int) -> list[tuple[list[int], list[int]]]:
        """The columns of each printed part and their widths: the key columns in every part,
        the others in order, as many per part as fit ``console_width`` at their narrowest,
        never parting adjacent columns of one quantity (the same header, whose values)."""
        natural, narrowest = [], []
        for i, c in enumerate(self.columns):
            head = c.console_header.split("\n")
            cells = [ln for r in self.rows for ln in r[i].split("\n")]
            words = [w for ln in head + cells for w in ln.split()]
            cell_width = max((cell_len(ln) for ln in cells), default=1)
            natural.append(max(cell_width, *(cell_len(ln) for ln in head), 1))
            # Headers wrap between words; cells too, but only those wider than WRAP_WIDTH.
            longest_word = max((cell_len(w) for w in words), default=1)
            narrowest.append(max(longest_word, min(cell_width, WRAP_WIDTH)))
        keys = [i for i, c in enumerate(self.columns) if c.is_key]
        values = [i for i, c in enumerate(self.columns) if not c.is_key]

        def room(cols: list[int]) -> int:  # characters left for text: borders and padding out
            return console_width - 3 * len(cols) - 1

        # Adjacent columns of one quantity (ours beside the paper's) stay in one part.
        quantities: list[list[int]] = []
        for i in values:
            if quantities and self.columns[quantities[-1][-1]].header == self.columns[i].header:
                quantities[-1].append(i)
            else:
                quantities.append([i])
        groups: list[list[int]] = []
        for q in quantities:
            if groups and sum(narrowest[j] for j in keys + groups[-1] + q) <= room(
                keys + groups[-1] + q
            ):
                groups[-1] += q
            else:
                groups.append(q)
        parts = []
        for group in groups or [[]]:
            cols = sorted(keys + group)
            parts.append(
                (cols, _fit([natural[i] for i in cols], [narrowest[i] for i in cols], room(cols)))
            )
        return parts

    def csv(self) -> str:
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(c.file_header for c in self.columns)
        w.writerows(self.rows)
        return out.getvalue()

    def markdown(self) -> str:
        def cell(s: str) -> str:
            return s.replace("|", "\\|").replace("\n", "<br>")

        lines = [f"## {self.title}", ""]
        lines.append("| " + " | ".join(cell(c.file_header) for c in self.columns) + " |")
        lines.append("|" + "|".join(":---" if c.text else "---:" for c in self.columns) + "|")
        lines += ["| " + " | ".join(cell(x) for x in r) + " |" for r in self.rows]
        if self.note:
            lines += ["", self.note]
        return "\n".join(lines) + "\n"


def _fit(natural: list[int], narrowest: list[int], room: int) -> list[int]:
    """Column widths within ``room``: every column at its natural width if that fits, else the
    widest ones narrowed to a common level (never below their narrowest), so text columns wrap
    and short numbers stay on one line."""
    if sum(natural) <= room:
        return natural
    lo, hi = 1, max(natural)
    while lo < hi:  # the highest level at which the table fits
        level = (lo + hi + 1) // 2
        if sum(max(m, min(n, level)) for n, m in zip(natural, narrowest, strict=True)) <= room:
            lo = level
        else:
            hi = level - 1
    return [max(m, min(n, lo)) for n, m in zip(natural, narrowest, strict=True)]


def write_results(outdir: Path, doc: dict[str, Any], tables: Sequence[ResultTable]) -> list[Path]:
    """Writes ``results.json`` (``doc``) and, beside it, each table as CSV (``results.csv``,
    or ``results-<name>.csv`` for each of several tables) and all of them as Markdown
    (``results.md``); returns the paths written."""
    path = outdir / "results.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    paths = [path]
    for k, t in enumerate(tables):
        stem = "results" if len(tables) == 1 else f"results-{t.name or k + 1}"
        paths.append(outdir / f"{stem}.csv")
        paths[-1].write_text(t.csv())
    if tables:
        md = outdir / "results.md"
        md.write_text(
            f"# {doc['entry']}: {doc['paper']}, {doc['figure']} ({doc['scale']})\n\n"
            + "\n".join(t.markdown() for t in tables)
        )
        paths.append(md)
    return paths


def slowdown_rows(
    size: np.ndarray,
    slowdowns: Mapping[str, np.ndarray],
    bins: Sequence[tuple[float, float, str]],
) -> list[dict[str, Any]]:
    """Slowdown by flow size for several schemes on the same flows: one row per scheme (in the
    order of ``slowdowns``) and size bin (``[lo, hi)`` bytes, label), ``{"scheme", "bin",
    "flows", "p50", "p95", "p99", "mean"}`` over the bin's finished flows
    (:func:`fairnet.runner.slowdown_by_size`; a bin without one has no percentiles)."""
    return [
        {"scheme": name, **b}
        for name, sd in slowdowns.items()
        for b in slowdown_by_size(size, sd, bins)
    ]


def slowdown_table(
    title: str,
    rows: Sequence[dict[str, Any]],
    quantiles: Sequence[str],
    note: str = "",
    bin_header: str = "bin",
    extra: Sequence[tuple[Column, Callable[[dict[str, Any]], str]]] = (),
) -> ResultTable:
    """The table of :func:`slowdown_rows`' rows: scheme, bin, flows, the ``quantiles`` (row
    fields such as ``"p50"``, ``"mean"``; "-" where the bin has none), then each ``extra``
    column with its cell made from the row."""
    t = ResultTable(
        title,
        (
            key("scheme"),
            key(bin_header),
            Column("flows", "ours"),
            *(Column(q, "ours") for q in quantiles),
            *(c for c, _ in extra),
        ),
        note=note,
    )
    for r in rows:
        t.add_row(
            r["scheme"],
            r["bin"],
            str(r["flows"]),
            *(f"{r[q]:.2f}" if q in r else "-" for q in quantiles),
            *(cell(r) for _, cell in extra),
        )
    return t
