"""s-PERC (Jose et al.): the paper-registry entries reproducing its figures and tables (§2.1,
§8), in the order ``fairnet paper list`` shows them; ``convergence`` holds what the §8.2.1
convergence entries share, ``fct`` the four §8.2.2 FCT entries."""

from __future__ import annotations

from fairnet.paper.entry import Entry
from fairnet.paper.sperc.fct import ENTRIES as FCT
from fairnet.paper.sperc.fig2 import ENTRY as FIG2
from fairnet.paper.sperc.fig6 import ENTRY as FIG6
from fairnet.paper.sperc.fig7 import ENTRY as FIG7
from fairnet.paper.sperc.fig8 import ENTRY as FIG8
from fairnet.paper.sperc.table5 import ENTRY as TABLE5

ENTRIES: list[Entry] = [FIG2, FIG6, FIG7, FIG8, TABLE5, *FCT]
