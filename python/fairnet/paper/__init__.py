"""The paper registry: reproductions of published figures, each at a fast ``smoke`` scale (CI)
and the paper's ``full`` scale.

Each entry is one module holding an :class:`Entry`: a title, the paper and figure it reproduces,
what each scale runs, and a run function that writes a plot mirroring the paper's figure (PNG and
SVG) and ``results.json``, and prints a table with the paper's own numbers beside ours.
"""

from __future__ import annotations

from fairnet.errors import InputError
from fairnet.paper.entry import SCALES, Entry, PaperResult
from fairnet.paper.soze_apps import ENTRY as SOZE_APPS
from fairnet.paper.soze_fig2 import ENTRY as SOZE_FIG2
from fairnet.paper.soze_fig11 import ENTRY as SOZE_FIG11
from fairnet.paper.soze_fig12_13 import ENTRY as SOZE_FIG12_13
from fairnet.paper.soze_fig14 import ENTRY as SOZE_FIG14
from fairnet.paper.soze_fig15_16 import ENTRY as SOZE_FIG15_16
from fairnet.paper.soze_fig17 import ENTRY as SOZE_FIG17
from fairnet.paper.soze_fig18 import ENTRY as SOZE_FIG18
from fairnet.paper.soze_fig18a import ENTRY as SOZE_FIG18A
from fairnet.paper.soze_fig19 import ENTRY as SOZE_FIG19
from fairnet.paper.sperc_fct import ENTRIES as SPERC_FCT
from fairnet.paper.sperc_fig2 import ENTRY as SPERC_FIG2
from fairnet.paper.sperc_fig6 import ENTRY as SPERC_FIG6
from fairnet.paper.sperc_fig7 import ENTRY as SPERC_FIG7
from fairnet.paper.sperc_fig8 import ENTRY as SPERC_FIG8
from fairnet.paper.sperc_table5 import ENTRY as SPERC_TABLE5

#: Every reproduction, by name.
REGISTRY: dict[str, Entry] = {
    e.name: e
    for e in (
        SOZE_APPS,
        SOZE_FIG2,
        SOZE_FIG11,
        SOZE_FIG12_13,
        SOZE_FIG14,
        SOZE_FIG15_16,
        SOZE_FIG17,
        SOZE_FIG18,
        SOZE_FIG18A,
        SOZE_FIG19,
        SPERC_FIG2,
        SPERC_FIG6,
        SPERC_FIG7,
        SPERC_FIG8,
        SPERC_TABLE5,
        *SPERC_FCT,
    )
}


def get(name: str) -> Entry:
    """The entry called ``name``; an unknown name is an :class:`InputError` listing the names."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(
            f"paper: no entry {name!r}; known: {', '.join(sorted(REGISTRY))}"
        ) from None


__all__ = ["REGISTRY", "SCALES", "Entry", "PaperResult", "get"]
