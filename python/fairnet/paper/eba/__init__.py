"""eBA: the paper-registry entries at flow level — §VII-B's time parameters (Figs. 10–11) and
§VII-C's MapReduce shuffle study (Fig. 14) — and ``flowlevel``, the flow-level runs they
share."""

from __future__ import annotations

from fairnet.paper.eba.fig10_11 import ENTRY as FIG10_11
from fairnet.paper.eba.fig14 import ENTRY as FIG14
from fairnet.paper.entry import Entry

ENTRIES: list[Entry] = [FIG10_11, FIG14]
