"""MAY (Stanojević & Shorten, "Drop counters are enough"): the paper-registry entries
reproducing its §III analysis and §IV experiments, in the order ``fairnet paper list`` shows
them; ``common`` holds what the packet-level entries share."""

from __future__ import annotations

from fairnet.paper.entry import Entry
from fairnet.paper.may.datacenter import ENTRY as DATACENTER
from fairnet.paper.may.fig2_3 import ENTRY as FIG2_3
from fairnet.paper.may.fig4 import ENTRY as FIG4
from fairnet.paper.may.fig5 import ENTRY as FIG5
from fairnet.paper.may.fig7 import ENTRY as FIG7
from fairnet.paper.may.fig8 import ENTRY as FIG8
from fairnet.paper.may.fig9 import ENTRY as FIG9
from fairnet.paper.may.fig10 import ENTRY as FIG10
from fairnet.paper.may.model import ENTRY as MODEL

ENTRIES: list[Entry] = [MODEL, FIG2_3, FIG4, FIG5, FIG7, FIG8, FIG9, FIG10, DATACENTER]
