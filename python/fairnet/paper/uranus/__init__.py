"""Uranus (WVCC): the paper-registry entries reproducing §2.4 (SCC's failures, Fig. 3), §4.2
(AC/DC, Fig. 4) and §5.1.2 (WVCC on the testbed, Figs. 6–7); ``common`` holds what they
share."""

from __future__ import annotations

from fairnet.paper.entry import Entry
from fairnet.paper.uranus.fig3 import ENTRY as FIG3
from fairnet.paper.uranus.fig4 import ENTRY as FIG4
from fairnet.paper.uranus.fig6_7 import ENTRY as FIG6_7

ENTRIES: list[Entry] = [FIG3, FIG4, FIG6_7]
