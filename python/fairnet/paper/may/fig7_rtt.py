"""Per-flow throughput against RTT on Fig. 6's network, from ``examples/may_fig7.rs --csv`` runs
(docs/systems/may.md, "Fig. 7: the residual RTT bias"). The paper describes the shape for
Fig. 5: RED's share is "approximately proportional to the inverse of RTT" (§IV.A), while DRR's
and MAY's are flat at the max-min share (Figs. 5 and 7's dotted line).

Usage (each LABEL names one setting; several CSVs, one per seed, are averaged flow by flow)::

    python -m fairnet.paper.may.fig7_rtt OUT.png LABEL=RUN1.csv,RUN2.csv [LABEL=...]

Prints, per setting, each flow's throughput over its max-min rate averaged over the flows of
one RTT step (Fig. 6's access delays 40·i + 1 ms make five RTT steps, i = 1…5, 0.16 s apart),
and plots the same per flow.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from fairnet.paper.plots import pyplot

#: Fig. 6: access delays 40·i + 1 ms on both ends make RTTs 0.16 s apart from ≈ 0.2 s.
RTT_STEP_S = 0.16
FIRST_RTT_S = 0.2
COLUMNS = ("base_rtt_s", "throughput_bps", "maxmin_bps")


class InputError(ValueError):
    """A one-line message naming the file or argument that is wrong."""


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every flow's base RTT (s), max-min rate (bit/s) and throughput over its max-min rate,
    averaged over ``paths`` (runs of the same flows, e.g. one per seed)."""
    ratios = []
    rtt = maxmin = None
    for p in paths:
        try:
            lines = p.read_text().strip().splitlines()
        except OSError as e:
            raise InputError(f"{p}: {e.strerror}") from None
        head = lines[0].split(",") if lines else []
        missing = [c for c in COLUMNS if c not in head]
        if missing:
            raise InputError(f"{p}: not a may_fig7 --csv file (no column {missing[0]})")
        idx = [head.index(c) for c in COLUMNS]
        try:
            rows = np.array([[float(r.split(",")[i]) for i in idx] for r in lines[1:]])
        except (ValueError, IndexError):
            raise InputError(f"{p}: a row is not numbers in {', '.join(COLUMNS)}") from None
        if rows.size == 0:
            raise InputError(f"{p}: no flows")
        if rtt is not None and (len(rows) != len(rtt) or not np.allclose(rows[:, 0], rtt)):
            raise InputError(f"{p}: not the same flows as {paths[0]}")
        rtt, maxmin = rows[:, 0], rows[:, 2]
        ratios.append(rows[:, 1] / rows[:, 2])
    assert rtt is not None and maxmin is not None
    return rtt, maxmin, np.mean(ratios, axis=0)


def by_rtt_step(rtt: np.ndarray, ratio: np.ndarray) -> dict[float, float]:
    """Mean throughput over max-min of the flows of each RTT step (keyed by the step's nominal
    RTT, s)."""
    step = np.rint((rtt - FIRST_RTT_S) / RTT_STEP_S).astype(int)
    return {
        round(FIRST_RTT_S + RTT_STEP_S * int(k), 2): float(np.mean(ratio[step == k]))
        for k in sorted(set(step.tolist()))
    }


def parse(args: list[str]) -> tuple[Path, dict[str, list[Path]]]:
    """``OUT.png LABEL=CSV[,CSV...] ...`` into the output path and the settings."""
    if len(args) < 2:
        raise InputError(
            "usage: python -m fairnet.paper.may.fig7_rtt OUT.png LABEL=CSV[,CSV...] ..."
        )
    settings: dict[str, list[Path]] = {}
    for a in args[1:]:
        label, sep, files = a.partition("=")
        if not sep or not label or not files:
            raise InputError(f"{a!r}: expected LABEL=CSV[,CSV...]")
        settings[label] = [Path(f) for f in files.split(",")]
    return Path(args[0]), settings


def main(argv: list[str] | None = None) -> int:
    try:
        out, settings = parse(sys.argv[1:] if argv is None else argv)
        data = {label: load(paths) for label, paths in settings.items()}
    except InputError as e:
        print(f"fig7_rtt: {e}", file=sys.stderr)
        return 2
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for label, (rtt, maxmin, ratio) in data.items():
        steps = by_rtt_step(rtt, ratio)
        cells = "  ".join(f"{r:.2f} s: {v:.2f}" for r, v in steps.items())
        print(f"{label}: x / max-min by RTT  {cells}")
        narrow = maxmin < 0.75 * maxmin.max()
        line = ax.plot(rtt[narrow], ratio[narrow], "o", ms=4, label=label)[0]
        ax.plot(rtt[~narrow], ratio[~narrow], "^", ms=4, color=line.get_color())
        ax.plot(list(steps), list(steps.values()), "-", color=line.get_color(), lw=1)
    ax.axhline(1.0, color="k", ls=":", lw=1)
    ax.set_xlabel("base RTT (s)")
    ax.set_ylabel("throughput / max-min rate")
    ax.set_title(
        "Fig. 6's network: o 0.5 Mb/s flows, ^ 1 Mb/s flows; line: mean per RTT", fontsize=8
    )
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
