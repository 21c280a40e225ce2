"""The plots the paper entries share: matplotlib off-screen, figures saved as PNG and SVG,
CDFs, and our values beside the paper's as paired bars."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fairnet import report

#: matplotlib.pyplot off-screen (the one definition is in :mod:`fairnet.report`).
pyplot = report.pyplot


def save_figure(fig: Any, outdir: Path, stem: str) -> list[Path]:
    """Saves a matplotlib figure as ``stem.png`` and ``stem.svg`` in ``outdir`` and closes it,
    the same figure as the same bytes (:func:`fairnet.report.save_figure`, salted by
    ``stem``)."""
    paths = [outdir / f"{stem}.png", outdir / f"{stem}.svg"]
    fig.tight_layout()
    report.save_figure(fig, paths, salt=stem)
    return paths


def plot_cdf(ax: Any, values: Any, label: str, *, step: bool = False, **style: Any) -> None:
    """The empirical CDF of the finite ``values`` on ``ax`` (a staircase with ``step``);
    nothing, not even a legend entry, when there are none."""
    x = np.sort(np.asarray(values, dtype=float))
    x = x[np.isfinite(x)]
    if not len(x):
        return
    y = np.arange(1, len(x) + 1) / len(x)
    if step:
        ax.step(x, y, where="post", label=label, **style)
    else:
        ax.plot(x, y, label=label, **style)


def grouped_bars(
    ax: Any,
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float]]],
    *,
    horizontal: bool = False,
    **tick_style: Any,
) -> None:
    """Bars of each ``(legend, values)`` series side by side for every label (ours beside the
    paper's, …): each group 0.8 wide, the first series leftmost (topmost when
    ``horizontal``), the labels as ticks."""
    pos = np.arange(len(labels))
    width = 0.8 / len(series)
    for j, (legend, values) in enumerate(series):
        offset = (j - (len(series) - 1) / 2) * width
        if horizontal:
            ax.barh(pos - offset, values, height=width, label=legend)
        else:
            ax.bar(pos + offset, values, width=width, label=legend)
    if horizontal:
        ax.set_yticks(pos, labels, **tick_style)
    else:
        ax.set_xticks(pos, labels, **tick_style)
