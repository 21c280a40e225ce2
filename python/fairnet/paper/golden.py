"""Golden digests of the paper entries' smoke results: proof that a change left every entry's
output digit for digit as it was.

An entry's digest is the SHA-256 of its ``results.json`` written canonically (keys sorted,
floats in Python's shortest round-trip form, so two digests agree exactly when every value
agrees digit for digit), without its ``provenance`` (versions, command line, start and
wall-clock time) and without the row fields the entry declares as wall-clock measurements
(:attr:`Entry.wall_clock`: they differ between two identical runs). The committed digests are
``tests/golden/paper_smoke.json``; ``scripts/golden.py check|update`` recomputes and compares
or rewrites them, and ``tests/test_paper.py`` compares the entries the suite runs anyway.
``docs/papers.md`` ("Golden check") gives the workflow.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from fairnet.paper import REGISTRY

#: The committed digests (the repository's ``tests/golden/``), for checkouts that have it.
GOLDEN_FILE = Path(__file__).resolve().parents[3] / "tests" / "golden" / "paper_smoke.json"


#: Top-level keys of ``results.json`` left out of its digest: what made the result, which
#: varies from one identical run to the next (:mod:`fairnet.provenance`).
UNDIGESTED = ("provenance",)


def ignored_fields() -> dict[str, list[str]]:
    """Per entry, the row fields left out of its digest (its wall-clock measurements)."""
    return {name: sorted(e.wall_clock) for name, e in REGISTRY.items() if e.wall_clock}


def digest(doc: dict[str, Any]) -> str:
    """The digest of one entry's ``results.json`` document (see the module doc)."""
    skip = set(REGISTRY[doc["entry"]].wall_clock)
    rows = [{k: v for k, v in row.items() if k not in skip} for row in doc["rows"]]
    kept = {k: v for k, v in doc.items() if k not in UNDIGESTED} | {"rows": rows}
    text = json.dumps(kept, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def digest_file(results_json: Path) -> str:
    """The digest of a ``results.json`` file."""
    return digest(json.loads(results_json.read_text()))


def load(path: Path = GOLDEN_FILE) -> dict[str, Any]:
    """The committed golden document: ``digests`` (entry → digest) and ``ignored`` (entry →
    the row fields its digest leaves out, as they were when the digests were made)."""
    return json.loads(path.read_text())


def mismatch(name: str, results_json: Path, path: Path = GOLDEN_FILE) -> str | None:
    """None when ``results_json`` (entry ``name`` at smoke scale) has the committed digest;
    otherwise a one-line explanation."""
    golden = load(path)
    if golden.get("ignored", {}).get(name, []) != ignored_fields().get(name, []):
        return (
            f"{name}: the entry's wall-clock fields changed since the digests were made; "
            "run scripts/golden.py update and say why in the commit"
        )
    want = golden["digests"].get(name)
    if want is None:
        return f"{name}: no committed digest; run scripts/golden.py update {name}"
    got = digest_file(results_json)
    if got != want:
        return (
            f"{name}: smoke results differ from the committed digest ({got[:12]} != "
            f"{want[:12]}); if the change is meant, run scripts/golden.py update {name} and "
            "say why in the commit"
        )
    return None
