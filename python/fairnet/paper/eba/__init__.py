"""eBA (Liu, Guo, Huang & Lui, IEEE/ACM ToN 2017): the paper-registry entries reproducing its
§VII evaluation at packet level, in the order ``fairnet paper list`` shows them; ``common``
holds what they share."""

from __future__ import annotations

from fairnet.paper.eba.fig8 import ENTRY as FIG8
from fairnet.paper.eba.table3 import ENTRY as TABLE3
from fairnet.paper.entry import Entry

ENTRIES: list[Entry] = [TABLE3, FIG8]
