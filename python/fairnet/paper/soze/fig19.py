"""Söze §5.3.4, Fig. 19: the centralised solver's time and Söze's convergence time as the
topology and the flow count grow.

Fig. 19(a): 10,000 flows on fat-trees k = 4, 8, 12, 16; Fig. 19(b): 10 … 1,000,000 flows on a
k = 16 fat-tree (1,024 hosts). Flows go between random host pairs on ECMP paths with weights
uniform in [0.1, 10] (:func:`fairnet.workload.fat_tree_problem`).

- **Oracle**: each point is the best of ``repeat`` oracle solves, checked independently
  (:func:`fairnet.bench.time_allocation`). The paper prints two numbers for its water-filling
  solver, both in Fig. 19(b): 1.81 ms for 10 flows and 31.1 s for 1M flows; its plotted curves
  are not tabulated, so only those are compared. ``smoke`` stops Fig. 19(b) at 10k flows and
  solves each point once.
- **Söze**: the same kind of flows on the packet engine (``fairnet::systems::soze::scaling``,
  whose module doc gives the definitions): long-lived flows starting together at line rate, on
  the weighted NIC. A flow's rate is its pacing rate capped by its weighted share of its host
  NIC, sampled every 10 µs (delivered throughput over 50 µs windows is printed too, but at the
  paper's density, ~160 Mb/s a flow on k = 4, a window holds about one packet); converged when
  90% of the flows' rates stay within 10% of the oracle's, and each flow's own convergence time
  (the paper's "average convergence time") is averaged over the flows that converged. The
  paper: "around the same magnitude" for every k, "0.3 milliseconds, which is around 10 RTTs",
  and "within 10 RTTs" for every flow count. Packet-level runs at k = 16 are out of reach at
  smoke scale: ``smoke`` runs k = 4 and 8 with 100 flows (a) and 10 … 1,000 flows on k = 4
  (b); ``full`` the paper's points, up to 1,000,000 flows on k = 16 (about 6 minutes and
  1.6 GB for that point alone).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from fairnet import _core
from fairnet.bench import SOZE_FIG19B, time_allocation
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key

TOPOLOGY_KS = (4, 8, 12, 16)
FLOW_COUNTS = {
    "smoke": (10, 100, 1_000, 10_000),
    "full": (10, 100, 1_000, 10_000, 100_000, 1_000_000),
}
REPEAT = {"smoke": 1, "full": 3}
#: Söze's packet-level points (k, flows) per panel and scale (see the module doc).
SOZE_POINTS = {
    "smoke": {"a": [(4, 100), (8, 100)], "b": [(4, 10), (4, 100), (4, 1_000)]},
    "full": {
        "a": [(k, 10_000) for k in TOPOLOGY_KS],
        "b": [(16, n) for n in (10, 100, 1_000, 10_000, 100_000, 1_000_000)],
    },
}
SOZE_COLUMNS = (
    key("k"),
    key("flows"),
    Column("rate: 90% within 10%", "ours"),
    Column("RTTs", "ours"),
    Column("rate: mean flow", "ours"),
    Column("flows converged", "ours"),
    Column("throughput: 90% within 10%", "ours"),
    Column("throughput err p50 / p95", "ours"),
    Column("Lemma 3.2 fails", "ours"),
    Column("oracle solve", "ours"),
    Column("sim wall", "ours"),
    Column("convergence", "paper", text=True),
)
SOZE_NOTE = (
    "rate: each flow's pacing rate capped by its weighted share of its host NIC, every 10 µs; "
    "90% within 10%: from then on, 90% of the flows within 10% of the oracle; RTTs: of the "
    "longest base RTT (no queueing); mean flow: the mean over the flows that converged of "
    "the time from which each stays within 10% (flows converged: their share); throughput: "
    "delivered over 50 µs windows (a packet-count floor below ~3 Gb/s a flow); err: over the "
    "last quarter of the run; Lemma 3.2 fails: the share of flows with p <= Δt/2·ln(α/β) at "
    "their oracle rate, with the Δt of the update rule in force (the default reference rate: "
    "the RTT, here the longest base RTT; per-ACK compounding: RTT/CWND, one packet's time at "
    "that rate). No rate floor (Söze's default)."
)
#: Söze's own figure: "0.3 milliseconds, which is around 10 RTTs" (§5.3.4).
SOZE_PAPER_S = 0.3e-3


def soze_points(scale: str, seed: int, console: Console) -> tuple[list[dict], list[ResultTable]]:
    """Söze's convergence on the packet engine at each of ``scale``'s points, and a table per
    panel."""
    rows = []
    tables = []
    measured: dict[tuple[int, int], dict] = {}  # full scale: k = 16, 10k flows is in both panels
    panels = SOZE_POINTS[scale]
    for panel, points in panels.items():
        t = ResultTable(
            f"Söze Fig. 19({panel}): convergence on the packet engine ({scale})",
            SOZE_COLUMNS,
            note=SOZE_NOTE if panel == list(panels)[-1] else "",
            name=f"soze-{panel}",
        )
        for k, n in points:
            if (k, n) not in measured:
                measured[(k, n)] = dict(_core.soze_scaling(k, n, seed))
                wall = measured[(k, n)]["sim_wall_s"]
                console.print(f"[dim]Söze k = {k}, {n:,} flows: {wall:.0f} s[/dim]")
            r = measured[(k, n)]
            rows.append({"panel": f"soze-{panel}", **r})
            conv, flow = r["rate_converged_s"], r["rate_mean_flow_converged_s"]
            never = f"> {r['horizon_s'] * 1e3:g} ms"

            def ms(x: float | None, never: str = never) -> str:
                return f"{x * 1e3:.3f} ms" if x is not None else never

            t.add_row(
                str(k),
                f"{n:,}",
                ms(conv),
                f"{conv / r['max_base_rtt_s']:.0f}" if conv is not None else "",
                ms(flow, "none"),
                f"{r['rate_flows_converged'] * 100:.0f}%",
                ms(r["converged_s"]),
                f"{r['delivered_median_error'] * 100:.1f}% / {r['delivered_p95_error'] * 100:.1f}%",
                f"{r['lemma_3_2_violated'] * 100:.0f}%",
                f"{r['oracle_solve_s'] * 1e3:.3f} ms",
                f"{r['sim_wall_s']:.1f} s",
                "0.3 ms, ~10 RTTs",
            )
        t.print(console)
        tables.append(t)
    return rows, tables


def run(scale: str, outdir: Path, console: Console, seed: int = 1) -> PaperResult:
    repeat = REPEAT[scale]
    series = {
        "a": [(k, 10_000) for k in TOPOLOGY_KS],
        "b": [(16, n) for n in FLOW_COUNTS[scale]],
    }
    rows = []
    measured: dict[tuple[int, int], dict] = {}  # k = 16 at 10k flows is in both panels
    tables = []
    for panel, points in series.items():
        t = ResultTable(
            f"Söze Fig. 19({panel}): oracle solve time ({scale})",
            (
                key("k"),
                key("hosts"),
                key("flows"),
                Column("solve", "ours"),
                Column("check", "ours"),
                Column("solve: water-filling", "paper"),
            ),
            name=f"oracle-{panel}",
        )
        for k, n in points:
            r = measured.get((k, n)) or time_allocation(k, n, seed, repeat)
            measured[(k, n)] = r
            paper = SOZE_FIG19B.get(n) if panel == "b" else None
            rows.append({"panel": panel, **r, "paper_s": paper})
            t.add_row(
                str(k),
                f"{r['hosts']:,}",
                f"{n:,}",
                f"{r['solve_s'] * 1e3:.3f} ms",
                "ok" if r["check"] else "FAILED",
                f"{paper * 1e3:,.2f} ms" if paper else "",
            )
        t.print(console)
        tables.append(t)

    soze, soze_tables = soze_points(scale, seed, console)
    rows.extend(soze)
    tables.extend(soze_tables)

    plt = pyplot()
    fig, (ax_a, ax_b) = plt.subplots(1, 2, figsize=(9.0, 3.4))
    a = [r for r in rows if r["panel"] == "a"]
    ax_a.plot([r["hosts"] for r in a], [r["solve_s"] for r in a], "o-", label="fairnet oracle")
    ax_a.set_xlabel("hosts (fat-tree k = 4, 8, 12, 16)")
    ax_a.set_title("(a) 10k flows, growing topology")
    b = [r for r in rows if r["panel"] == "b"]
    ax_b.plot([r["flows"] for r in b], [r["solve_s"] for r in b], "o-", label="fairnet oracle")
    ax_b.plot(
        list(SOZE_FIG19B), list(SOZE_FIG19B.values()), "s", label="Söze paper (water-filling)"
    )
    for ax, panel, x in ((ax_a, "soze-a", "hosts"), (ax_b, "soze-b", "flows")):
        pts = [r for r in soze if r["panel"] == panel]
        # Converged points at their time; the others, hollow, at the run's length.
        for converged, y, style, label in (
            (True, "rate_converged_s", {"color": "C2"}, "Söze: 90% of rates within 10%"),
            (
                False,
                "horizon_s",
                {"color": "C3", "mfc": "none"},
                "Söze: not within the run (at its length)",
            ),
        ):
            sel = [r for r in pts if (r["rate_converged_s"] is not None) == converged]
            if sel:
                ax.plot([r[x] for r in sel], [r[y] for r in sel], "^", label=label, **style)
        ax.axhline(SOZE_PAPER_S, ls=":", color="grey", label="Söze paper: 0.3 ms")
    ax_b.set_xscale("log")
    ax_b.set_xlabel("flows (k = 16 fat-tree)")
    ax_b.set_title("(b) growing flow count")
    for ax in (ax_a, ax_b):
        ax.set_yscale("log")
        ax.set_ylabel("oracle solve / Söze convergence (s)")
        ax.legend()
    return PaperResult(rows, save_figure(fig, outdir, "soze-fig19"), tables)


ENTRY = Entry(
    name="soze-fig19",
    title="Oracle solve time and Söze's convergence as the topology and the flow count grow",
    paper="Söze, §5.3.4",
    figure="Fig. 19",
    scales={
        "smoke": "oracle: 10k flows on k = 4..16, 10..10k flows on k = 16, one solve per point; "
        "Söze: 100 flows on k = 4, 8 and 10..1k flows on k = 4",
        "full": "oracle: 10k flows on k = 4..16, 10..1M flows on k = 16, best of 3; "
        "Söze: 10k flows on k = 4..16 and 10..1M flows on k = 16",
    },
    run_fn=run,
    # Seconds of the oracle's solves and of the packet-level simulations on this machine.
    wall_clock=("solve_s", "allocate_s", "oracle_solve_s", "sim_wall_s"),
)
