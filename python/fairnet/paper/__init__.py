"""The paper registry: reproductions of published figures, each at a fast ``smoke`` scale (CI)
and the paper's ``full`` scale.

One subpackage per paper (``soze``, ``sperc``, ``uranus``, ``may``, ``eba``), each module one
:class:`Entry` (or a family of them): a title, the paper and figure it reproduces, what each
scale runs, and a run function that writes a plot mirroring the paper's figure (PNG and SVG) and
``results.json``, and prints tables with the paper's own numbers beside ours (copied beside
``results.json`` as CSV and Markdown). What the entries share: ``entry`` (the types),
``tables``, ``plots``, and ``golden`` (the digests that pin every entry's smoke output).
``docs/papers.md`` has the entries and how to add one.
"""

from __future__ import annotations

from fairnet.errors import InputError
from fairnet.paper.eba import ENTRIES as EBA
from fairnet.paper.entry import SCALES, Entry, PaperResult
from fairnet.paper.may import ENTRIES as MAY
from fairnet.paper.soze import ENTRIES as SOZE
from fairnet.paper.sperc import ENTRIES as SPERC
from fairnet.paper.uranus import ENTRIES as URANUS

#: Every reproduction, by name.
REGISTRY: dict[str, Entry] = {e.name: e for e in (*SOZE, *SPERC, *URANUS, *MAY, *EBA)}


def get(name: str) -> Entry:
    """The entry called ``name``; an unknown name is an :class:`InputError` listing the names."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(
            f"paper: no entry {name!r}; known: {', '.join(sorted(REGISTRY))}"
        ) from None


__all__ = ["REGISTRY", "SCALES", "Entry", "PaperResult", "get"]
