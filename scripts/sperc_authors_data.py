"""Builds tests/data/sperc_authors/instances.json.gz from a run of the s-PERC authors' numerical
simulator (see tests/data/sperc_authors/README.md for how that run is made).

Reads, for every instance NAME in RUN_DIR:

- ``links-NAME.txt``: the authors' link file (header lines, then one capacity per line);
- ``flows-NAME.txt``: the authors' flow file (``0 1 <flow> <M> <link> <link> …`` per flow);
- ``rs_log-<alg>-NAME-flow-rates``: the simulator's per-flow rate log for ``alg`` in
  {``sperc_basic``, ``sperc_ignore``} (CSV: time, then Actual / Optimal / RelErr per flow,
  with ``# maxCpg1Level`` … comment lines),

and writes the paths (in the order the simulator sends the control packet: ascending link
index, as it stores a path as a 0/1 vector), capacities, the round-trip time, the log's sampling
interval and, per variant, the authors' convergence time computed with the rule of their
``get_convergence_times.py``: the time of the first log row after the last row where any flow's
``|RelErr|`` exceeds 1%, divided by the RTT (None if the last row still exceeds it).

Usage: python scripts/sperc_authors_data.py RUN_DIR OUT.json.gz NAME [NAME …]
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
from pathlib import Path
from typing import Any

#: The authors' variant names and ours.
VARIANTS = {"sperc_basic": "s_perc_basic", "sperc_ignore": "s_perc"}
THRESHOLD = 0.01


def read_links(path: Path) -> tuple[list[float], float]:
    """Capacities and the per-hop delay (µs) of a link file."""
    caps, delay = [], None
    for line in path.read_text().splitlines():
        word = line.split()[0] if line.split() else ""
        if word == "link_delay":
            delay = float(line.split()[1])
        elif word and (word[0].isdigit()) and len(line.split()) == 1:
            caps.append(float(word))
    if delay is None:
        raise ValueError(f"{path}: no link_delay line")
    return caps, delay


def read_paths(path: Path) -> list[list[int]]:
    """Every flow's links, ascending (the simulator keeps a path as a 0/1 vector)."""
    paths = []
    for line in path.read_text().splitlines():
        w = line.split()
        if not w or w[0] != "0" or w[1] != "1":
            continue
        if int(w[2]) != len(paths):
            raise ValueError(f"{path}: flow {w[2]} out of order")
        paths.append(sorted(int(x) for x in w[4:]))
    return paths


def convergence(path: Path) -> dict[str, Any]:
    """The authors' convergence rule on one flow-rate log; times in µs and RTTs."""
    meta: dict[str, float] = {}
    rows: list[tuple[float, float]] = []
    with path.open() as f:
        lines = [ln for ln in f if ln.strip()]
    for ln in lines:
        if ln.startswith("#"):
            w = ln[1:].split()
            if len(w) == 2 and w[0] in ("maxCpg1Level", "maxCpg2Level", "maxWfLevel", "maxRtt"):
                meta[w[0]] = float(w[1])
    body = [ln for ln in lines if not ln.startswith("#")]
    reader = csv.reader(body)
    header = [h.strip() for h in next(reader)]
    err_cols = [i for i, h in enumerate(header) if h.startswith("RelErr")]
    for r in reader:
        if not r or not r[0].strip():
            continue
        t = float(r[0])
        worst = max(abs(float(r[i])) for i in err_cols)
        rows.append((t, worst))
    last_over = max((i for i, (_, e) in enumerate(rows) if e > THRESHOLD), default=-1)
    rtt = meta["maxRtt"]
    if last_over + 1 >= len(rows):
        t_us = None
    else:
        t_us = rows[last_over + 1][0]
    interval = rows[1][0] - rows[0][0] if len(rows) > 1 else None
    return {
        "rtts": None if t_us is None else t_us / rtt,
        "us": t_us,
        "rtt_us": rtt,
        "sample_interval_us": interval,
        "rows": len(rows),
        "n1": int(meta["maxCpg1Level"]),
        "n2": int(meta["maxCpg2Level"]),
        "ninf": int(meta["maxWfLevel"]),
    }


def instance(run_dir: Path, name: str) -> dict[str, Any]:
    caps, delay = read_links(run_dir / f"links-{name}.txt")
    paths = read_paths(run_dir / f"flows-{name}.txt")
    m, n, p, s = (int(part[1:]) for part in name.split("_"))
    if len(caps) != m or len(paths) != n or any(len(x) != p for x in paths):
        raise ValueError(f"{name}: files do not match the name's shape")
    authors = {
        ours: convergence(run_dir / f"rs_log-{alg}-{name}-flow-rates")
        for alg, ours in VARIANTS.items()
    }
    return {
        "name": name,
        "links": m,
        "flows": n,
        "links_per_flow": p,
        "seed_path_links": s,
        "hop_delay_us": delay,
        "capacities": caps,
        "paths": paths,
        "authors": authors,
    }


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    run_dir, out, names = Path(argv[0]), Path(argv[1]), argv[2:]
    data = {"instances": [instance(run_dir, name) for name in names]}
    with gzip.open(out, "wt") as f:
        json.dump(data, f, separators=(",", ":"))
    print(f"{out}: {len(names)} instances")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
