"""eBA (Liu, Guo, Huang & Lui, IEEE/ACM ToN 2017): the paper-registry entries reproducing its
§VI–VII evaluation, in the order ``fairnet paper list`` shows them — at packet level (Figs.
6–9, Table III, Figs. 12–13; ``common`` holds what they share) and at flow level (§VII-B's time
parameters, Figs. 10–11, and §VII-C's MapReduce shuffle study, Fig. 14; ``flowlevel`` holds
the flow-level runs they share)."""

from __future__ import annotations

from fairnet.paper.eba.fig6 import ENTRY as FIG6
from fairnet.paper.eba.fig7 import ENTRY as FIG7
from fairnet.paper.eba.fig8 import ENTRY as FIG8
from fairnet.paper.eba.fig9 import ENTRY as FIG9
from fairnet.paper.eba.fig10_11 import ENTRY as FIG10_11
from fairnet.paper.eba.fig12 import ENTRY as FIG12
from fairnet.paper.eba.fig13 import ENTRY as FIG13
from fairnet.paper.eba.fig14 import ENTRY as FIG14
from fairnet.paper.eba.table3 import ENTRY as TABLE3
from fairnet.paper.entry import Entry

ENTRIES: list[Entry] = [FIG6, FIG7, FIG8, FIG9, TABLE3, FIG10_11, FIG12, FIG13, FIG14]
