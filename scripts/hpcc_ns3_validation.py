"""fairnet beside the HPCC ns-3 simulator: runs fairnet on the simulator's own inputs in
tests/data/hpcc_ns3/ (README.md there says how the reference's outputs were made) and prints
the side-by-side tables of docs/validation.md — FCT slowdown p50 / p95 / p99 and mean per size
bucket, under the simulator's definition (the ACK of the last byte at the sender over its
standalone FCT, both clamped at 1 as its fct_analysis.py does) — and the PFC pause counts of
the incast.

Usage: python scripts/hpcc_ns3_validation.py [CASE ...] [--seeds N] [--extra CC=JSON ...]

CASE is a name of :data:`CASES` (default: all). ``--seeds N`` runs fairnet with ECMP seeds
0..N-1 and prints the spread of each figure (the seed noise the test's tolerances come from).
``--extra LABEL=JSON`` runs one more fairnet variant of every case, its engine table updated
with JSON (a key holding a table updates that table: ``--extra 'hp exact INT={"cc": "hp",
"hpcc": {"int_bytes_unit": "1B"}}'``; a table of another ``kind`` replaces it; ``"cc"``
limits the variant to that ``--cc``), to
measure one modelling difference at a time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import fairnet
from fairnet.hpcc import match_fct, read_fct, run_py_scenario
from fairnet.runner import slowdown_by_size

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "hpcc_ns3"
#: maxRtt of the k = 4 fat-tree at 100 Gb/s and 1 µs (the simulator prints it): 6 hops out
#: and back at 1 µs, plus one 1000 B payload serialized per hop (80 ns).
MAX_RTT_NS = 12_480
#: Case name → (flow list, the run.py ccs it was run with; the reference's fct file is
#: fct_<case>_<cc>.txt, its pfc.txt pfc_<case>_<cc>.txt).
CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "smoke30": ("smoke30.txt", ("hp", "dcqcn", "dcqcn_paper", "dctcp", "timely")),
    "smoke50": ("smoke50.txt", ("hp", "dcqcn", "dcqcn_paper", "dctcp", "timely")),
    "flows30": ("flows30.txt", ("hp", "dcqcn", "dcqcn_paper", "dctcp", "timely")),
    "flows50": ("flows50.txt", ("hp", "dcqcn", "dcqcn_paper", "dctcp", "timely")),
}


def clamped(x: np.ndarray) -> np.ndarray:
    """Slowdowns below 1 are 1 (the simulator's fct_analysis.py: ``slow<1?1:slow``)."""
    return np.where(np.isfinite(x), np.maximum(x, 1.0), np.nan)


def buckets(size: np.ndarray, slowdown: np.ndarray) -> list[dict[str, Any]]:
    """Per size bucket (:data:`fairnet.runner.SIZE_BINS`) and over all flows: flows, p50, p95,
    p99 and mean of the clamped slowdown."""
    sd = clamped(slowdown)
    rows = slowdown_by_size(size, sd)
    done = np.isfinite(sd)
    rows.append(
        {
            "bin": "all",
            "flows": int(done.sum()),
            **{f"p{q}": float(np.percentile(sd[done], q)) for q in (50, 95, 99)},
            "mean": float(sd[done].mean()),
        }
    )
    return rows


def reference(case: str, cc: str) -> Any:
    """The simulator's fct.txt of ``case`` under ``run.py --cc cc``."""
    return read_fct(DATA / f"fct_{case}_{cc}.txt")


def fairnet_run(case: str, cc: str, seed: int = 0, engine: dict | None = None) -> Any:
    flows, _ = CASES[case]
    sc = run_py_scenario(DATA / "fat4.txt", DATA / flows, cc, max_rtt_ns=MAX_RTT_NS, seed=seed)
    for key, value in (engine or {}).items():
        table = sc["engine"].get(key)  # type: ignore[union-attr]
        # A table given (``hpcc``, ``qdisc``) updates the one run_py_engine wrote, unless it
        # names another ``kind`` (another queueing discipline): then it replaces it.
        same = isinstance(table, dict) and isinstance(value, dict)
        same = same and value.get("kind", table.get("kind")) == table.get("kind")
        merged = table | value if same else value
        sc["engine"][key] = merged  # type: ignore[index]
    return fairnet.run(sc)


def ours(r: Any, fct: Any) -> list[dict[str, Any]]:
    """A fairnet run's buckets, each flow's FCT (to the ACK of its last byte) over the
    simulator's standalone FCT of the same flow (:func:`fairnet.hpcc.match_fct`)."""
    f = match_fct(r.flows, fct)
    return buckets(f["size"].to_numpy(), f["slowdown_ns3"].fill_null(np.nan).to_numpy())


def fmt(row: dict[str, Any]) -> str:
    if "p50" not in row:
        return "— / — / — | —"
    return f"{row['p50']:.2f} / {row['p95']:.2f} / {row['p99']:.2f} | {row['mean']:.2f}"


def table(case: str, cc: str, theirs: list[dict], mine: dict[str, list[dict]]) -> str:
    head = "| bucket | flows | ns-3 p50 / p95 / p99 | mean | " + " | ".join(
        f"{k} p50 / p95 / p99 | mean" for k in mine
    )
    lines = [f"**{case}, `--cc {cc}`**", "", head, "|" + " --- |" * (4 + 2 * len(mine))]
    for i, t in enumerate(theirs):
        cells = [t["bin"], str(t["flows"]), fmt(t)] + [fmt(m[i]) for m in mine.values()]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=list(CASES))
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--extra", action="append", default=[])
    ap.add_argument("--json", type=Path, help="also write every figure to this file")
    args = ap.parse_args(argv)
    extras = {}
    for e in args.extra:
        label, _, js = e.partition("=")
        extras[label] = json.loads(js)
    out: dict[str, Any] = {}
    for case in args.cases:
        for cc in CASES[case][1]:
            fct = reference(case, cc)
            theirs = buckets(fct["size"].to_numpy(), fct["slowdown"].to_numpy())
            mine: dict[str, list[dict]] = {}
            for seed in range(args.seeds):
                t0 = time.monotonic()
                mine[f"fairnet s{seed}" if args.seeds > 1 else "fairnet"] = ours(
                    fairnet_run(case, cc, seed), fct
                )
                print(f"[{case} {cc} seed {seed}: {time.monotonic() - t0:.1f} s]", file=sys.stderr)
            for label, eng in extras.items():
                if eng.get("cc", cc) != cc:
                    continue
                eng = {k: v for k, v in eng.items() if k != "cc"}
                mine[label] = ours(fairnet_run(case, cc, 0, eng), fct)
            print(table(case, cc, theirs, mine), "\n")
            out[f"{case}/{cc}"] = {"ns3": theirs, **mine}
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
