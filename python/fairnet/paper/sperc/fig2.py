"""s-PERC §2.1, Fig. 2: the running example, solved by the oracle.

Three links of 20, 30 and 12 Gb/s; flow 1 crosses l20 and l30, flow 2 crosses l30 and l12. The
paper's max-min fair allocation: flow 2 gets 12 Gb/s (bottlenecked at l12), flow 1 gets 18 Gb/s
(bottlenecked at l30); l20 keeps spare capacity. Both scales are the same three-link network.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from fairnet.alloc import allocate
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import grouped_bars, pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key

LINKS = {"l20": 20e9, "l30": 30e9, "l12": 12e9}
FLOWS = {"flow 1": ["l20", "l30"], "flow 2": ["l30", "l12"]}
#: s-PERC §2.1: "12Gb/s for (green) flow 2 … bottlenecked at link l12, and 18Gb/s for (blue)
#: flow 1, which is bottlenecked at link l30".
PAPER = {"flow 1": (18e9, "l30"), "flow 2": (12e9, "l12")}


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    names = list(LINKS)
    paths = [[names.index(link) for link in links] for links in FLOWS.values()]
    a = allocate(list(LINKS.values()), paths)
    rows = []
    for i, flow in enumerate(FLOWS):
        rate, bottleneck = PAPER[flow]
        rows.append(
            {
                "flow": flow,
                "links": "+".join(FLOWS[flow]),
                "rate_gbps": float(a.rates[i]) / 1e9,
                "bottleneck": names[int(a.bottleneck[i])],
                "paper_rate_gbps": rate / 1e9,
                "paper_bottleneck": bottleneck,
            }
        )
    t = ResultTable(
        "s-PERC Fig. 2: max-min fair rates of the running example",
        (
            key("flow"),
            key("links"),
            Column("rate", "ours"),
            Column("rate", "paper"),
            Column("bottleneck", "ours"),
            Column("bottleneck", "paper"),
        ),
    )
    for r in rows:
        t.add_row(
            r["flow"],
            r["links"],
            f"{r['rate_gbps']:g} Gb/s",
            f"{r['paper_rate_gbps']:g} Gb/s",
            r["bottleneck"],
            r["paper_bottleneck"],
        )
    t.print(console)

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.0, 3.0))
    grouped_bars(
        ax,
        [f"{r['flow']} ({r['links']})" for r in rows],
        [
            ("fairnet", [r["rate_gbps"] for r in rows]),
            ("paper", [r["paper_rate_gbps"] for r in rows]),
        ],
        horizontal=True,
    )
    ax.set_xlabel("max-min fair rate (Gb/s)")
    ax.set_title("s-PERC Fig. 2 running example")
    ax.legend()
    return PaperResult(rows, save_figure(fig, outdir, "sperc-fig2"), [t])


ENTRY = Entry(
    name="sperc-fig2",
    title="s-PERC running example: max-min fair rates on three links",
    paper="s-PERC (Jose et al.), §2.1",
    figure="Fig. 2",
    scales={"smoke": "the 3-link, 2-flow example", "full": "the 3-link, 2-flow example"},
    run_fn=run,
)
