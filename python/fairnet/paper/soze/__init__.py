"""Söze (Wang & Ng): the paper-registry entries reproducing its figures (§3.1, §5), in the
order ``fairnet paper list`` shows them; ``common`` holds what the packet-level entries share."""

from __future__ import annotations

from fairnet.paper.entry import Entry
from fairnet.paper.soze.apps import ENTRY as APPS
from fairnet.paper.soze.fig2 import ENTRY as FIG2
from fairnet.paper.soze.fig11 import ENTRY as FIG11
from fairnet.paper.soze.fig12_13 import ENTRY as FIG12_13
from fairnet.paper.soze.fig14 import ENTRY as FIG14
from fairnet.paper.soze.fig15_16 import ENTRY as FIG15_16
from fairnet.paper.soze.fig17 import ENTRY as FIG17
from fairnet.paper.soze.fig18 import ENTRY as FIG18
from fairnet.paper.soze.fig18a import ENTRY as FIG18A
from fairnet.paper.soze.fig19 import ENTRY as FIG19

ENTRIES: list[Entry] = [APPS, FIG2, FIG11, FIG12_13, FIG14, FIG15_16, FIG17, FIG18, FIG18A, FIG19]
