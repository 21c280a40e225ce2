"""Uranus (WVCC): the paper-registry entries reproducing §2.4 (SCC's failures, Fig. 3), §4.2
(AC/DC, Fig. 4), §4.4 (the fluid model, Fig. 5(a)), §5.1.1 (flows arriving one after another,
Fig. 5(b)), §5.1.2 (WVCC on the testbed, Figs. 6–7), §5.2.1 (network proportionality of bulk
senders, Fig. 9), §5.2.2 (intra-slice scheduling alone and in coexistence, Figs. 10–12, on the
scenarios of ``sec52``) and §5.2.3 (aggregate throughput, Fig. 13), and WVCC's accuracy against
the oracle beside Söze's (beyond the paper); ``common`` holds what they share."""

from __future__ import annotations

from fairnet.paper.entry import Entry
from fairnet.paper.uranus.accuracy import ENTRY as ACCURACY
from fairnet.paper.uranus.fig3 import ENTRY as FIG3
from fairnet.paper.uranus.fig4 import ENTRY as FIG4
from fairnet.paper.uranus.fig5a import ENTRY as FIG5A
from fairnet.paper.uranus.fig5b import ENTRY as FIG5B
from fairnet.paper.uranus.fig6_7 import ENTRY as FIG6_7
from fairnet.paper.uranus.fig9 import ENTRY as FIG9
from fairnet.paper.uranus.fig10 import ENTRY as FIG10
from fairnet.paper.uranus.fig11_12 import ENTRY as FIG11_12
from fairnet.paper.uranus.fig13 import ENTRY as FIG13

ENTRIES: list[Entry] = [FIG3, FIG4, FIG5A, FIG5B, FIG6_7, FIG9, FIG10, FIG11_12, FIG13, ACCURACY]
