"""Golden check of the paper entries' smoke outputs (docs/papers.md, "Golden check").

    .venv/bin/python scripts/golden.py check [NAME ...] [--results DIR]
    .venv/bin/python scripts/golden.py update [NAME ...] [--results DIR]

``check`` runs every entry (or the NAMEs) at smoke scale in a temporary directory, or reads
``DIR/<name>/results.json`` from runs already made (``fairnet paper run NAME -o DIR/NAME``),
and compares each ``results.json`` with its committed digest in tests/golden/paper_smoke.json,
leaving out the fields the entry declares as wall-clock measurements. Exit 0 when every entry
matches, 1 when one differs, 2 for bad input (an unknown name, a missing results.json).
``update`` rewrites the digests of those entries (say why in the commit: an output change
must be meant).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from fairnet.paper import REGISTRY
from fairnet.paper.golden import GOLDEN_FILE, digest_file, ignored_fields, load

NOTE = (
    "SHA-256 of each paper entry's smoke results.json (keys sorted, without the entry's "
    "wall-clock fields listed under 'ignored'); scripts/golden.py check|update, "
    "docs/papers.md 'Golden check'."
)


def results_of(names: list[str], results: Path | None, workdir: Path) -> dict[str, Path]:
    """Each entry's smoke ``results.json``: from ``results`` if given, else a fresh run."""
    out = {}
    for name in names:
        if results is not None:
            out[name] = results / name / "results.json"
            continue
        started = time.monotonic()
        quiet = Console(file=io.StringIO(), width=80)
        REGISTRY[name].run("smoke", workdir / name, quiet)
        print(f"ran {name} ({time.monotonic() - started:.1f} s)", file=sys.stderr)
        out[name] = workdir / name / "results.json"
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("check", "update"))
    parser.add_argument("names", nargs="*", metavar="NAME", help="entries (default: all)")
    parser.add_argument("--results", type=Path, help="read DIR/<name>/results.json")
    parser.add_argument("--golden", type=Path, default=GOLDEN_FILE, help="the digests file")
    args = parser.parse_intermixed_args()
    unknown = [n for n in args.names if n not in REGISTRY]
    if unknown:
        print(f"golden: error: no entry {', '.join(unknown)}", file=sys.stderr)
        return 2
    names = args.names or list(REGISTRY)
    if args.results is not None:
        missing = [n for n in names if not (args.results / n / "results.json").is_file()]
        if missing:
            print(
                f"golden: error: no results.json under {args.results} for {', '.join(missing)}",
                file=sys.stderr,
            )
            return 2
    with tempfile.TemporaryDirectory() as tmp:
        digests = {n: digest_file(p) for n, p in results_of(names, args.results, Path(tmp)).items()}
    golden = load(args.golden) if args.golden.exists() else {"digests": {}}
    if args.action == "update":
        old = golden["digests"]
        for n, d in digests.items():
            print(f"{n}: {'unchanged' if old.get(n) == d else 'updated'}")
        doc = {
            "note": NOTE,
            "ignored": ignored_fields(),
            "digests": {n: digests.get(n) or old[n] for n in REGISTRY if n in digests or n in old},
        }
        args.golden.parent.mkdir(parents=True, exist_ok=True)
        args.golden.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        return 0
    fields_changed = golden.get("ignored", {}) != ignored_fields()
    if fields_changed:
        print("the entries' wall-clock fields differ from those the digests were made without")
    differ = 0
    for n, d in digests.items():
        want = golden["digests"].get(n)
        status = "same" if d == want else ("no digest" if want is None else "DIFFERS")
        differ += status != "same"
        print(f"{n}: {status}")
    print(f"{len(digests) - differ} of {len(digests)} entries as committed")
    bad = differ or fields_changed
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
