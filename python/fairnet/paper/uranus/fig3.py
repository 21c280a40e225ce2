"""Uranus §2.4, Fig. 3: SCC's failures on toy networks, at flow level, with Uranus beside it.

(b) Two bottlenecks of equal capacity; slices A and B of weight 1, SCC's tunnels A₁ 0.1, A₂
0.9, B₁ = B₂ = 0.5 (Fig. 2). Paper: "A₁ gets 1/6 of L₁ and A₂ gets 9/14 of L₂ … 7 : 27
rather than 1 : 9 … 17 : 25 instead of 1 : 1". Ours: the weights from SCC's tunnels and from
Uranus's scheduler (one decision slot) on the same flows (CS, A₁'s flow nine times A₂'s
size, so ``r = 1/S`` gives 0.1 / 0.9), and the exact weighted max-min rates (the oracle).

(c) One virtual tunnel of f₁ and f₂ over two paths, f₁'s with background flows: the
tunnel's congestion control on aggregated ECN slows f₂ on its free path; Uranus (WVCC, one
weighted control per flow) does not. Ours: SCC's virtual tunnel as coupled progressive
filling (``fairnet::systems::uranus::scc``) against the oracle.

(b) at packet level: Uranus's scheduler every 1 ms driving WVCC, and SCC's tunnel weights
every 1 ms driving its virtual tunnels (``host_shim = "scc"``; one flow per tunnel here), DCTCP
guests, K = 20 packets, 25 µs links: goodput beside the exact ratios and the per-slot distance
from the oracle with the scheduler's weights.

(c) at packet level: f₁ and f₂ in one SCC virtual tunnel against one WVCC control per flow,
every weight 1, with the oracle's rates (f₁ = C/(n + 1) beside n background flows, f₂ = C)
in payload bits, and the two paths' round trips (a tunnel holding both flows to one window
split evenly gives f₂/f₁ = RTT₁/RTT₂).

The computation is ``fairnet::systems::uranus::fig3``; both scales are the paper's networks;
``full`` adds more background flows to (c) and a longer packet-level window.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from fairnet import _core
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import grouped_bars, pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key

#: Background flows beside f₁ in (c), per scale.
BACKGROUND = {"smoke": [4], "full": [1, 2, 4, 8, 16]}
#: The packet-level (b): decision slot, warm-up and end (seconds), per scale.
PACKET_B = {"smoke": (1e-3, 0.05, 0.25), "full": (1e-3, 0.05, 1.0)}
#: The packet-level (c): background flows on L₁, warm-up and end (seconds), per scale.
PACKET_C = {"smoke": ([4], 0.05, 0.25), "full": ([1, 4, 16], 0.05, 1.0)}
#: The schedulers run at packet level.
PACKET_SCHEMES = ("uranus", "scc")
#: The paper's numbers for SCC on (b).
PAPER_B = {"a1_share": 1 / 6, "a2_share": 9 / 14, "a1_to_a2": 7 / 27, "a_to_b": 17 / 25}


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    rows: list[dict[str, Any]] = []
    first = _core.uranus_fig3(BACKGROUND[scale][0])
    cap = first["capacity_bps"]
    tb = ResultTable(
        f"Uranus Fig. 3(b) ({scale}): two bottlenecks, slices A and B of weight 1",
        (
            key("scheme"),
            Column("weights A₁ A₂ B₁ B₂", "ours", text=True),
            Column("A₁ / L₁", "ours"),
            Column("A₂ / L₂", "ours"),
            Column("A₁ : A₂", "ours"),
            Column("A : B", "ours"),
            Column("Jain", "ours"),
            Column("SCC", "paper", text=True),
        ),
        note="Rates: the oracle's weighted max-min for each scheme's weights. Intended "
        "A₁ : A₂ = 1 : 9 and A : B = 1 : 1. Jain: congestion proportionality, Jain's index "
        "over the slices' throughput on the rack–core links (L₁, L₂) per unit of weight.",
    )
    for b in first["b"]:
        rows.append({"figure": "3b", **b})
        tb.add_row(
            b["scheme"],
            " ".join(f"{w:.3g}" for w in b["weights"]),
            f"{b['a1_share']:.4f}",
            f"{b['a2_share']:.4f}",
            f"{b['a1_to_a2']:.4f}",
            f"{b['a_to_b']:.4f}",
            f"{b['proportionality']:.4f}",
            "1/6, 9/14, 7:27, 17:25" if b["scheme"] == "scc" else "-",
        )
    tb.print(console)
    slot, warmup, end = PACKET_B[scale]
    goodput = cap * 1000 / 1048  # payload bits of a full packet (1000 B + 48 B of headers)
    pk = {scheme: _core.uranus_fig3_packet(slot, warmup, end, scheme) for scheme in PACKET_SCHEMES}
    for scheme, r in pk.items():
        rows.append(
            {
                "figure": "3b-packet",
                "scheme": scheme,
                "weights": r["weights"],
                "rates": r["rates"],
                "target": r["target"],
                "a1_share": r["rates"][0] / goodput,
                "a2_share": r["rates"][1] / goodput,
                "a1_to_a2": r["a1_to_a2"],
                "a_to_b": r["a_to_b"],
                "target_jain_mean": r["target_jain_mean"],
                "target_rel_error_mean": r["target_rel_error_mean"],
                "max_sum_error": r["max_sum_error"],
            }
        )
    tp = ResultTable(
        f"Uranus Fig. 3(b) at packet level ({scale}): each scheduler every {slot * 1e3:g} ms, "
        f"DCTCP guests, goodput over {warmup * 1e3:g}–{end * 1e3:g} ms",
        (
            key("quantity"),
            Column("Uranus (WVCC)", "ours"),
            Column("SCC (tunnels)", "ours"),
            Column("oracle (flow level)", "ours"),
            Column("SCC", "paper", text=True),
        ),
        note="Shares of a bottleneck's goodput (1000 B of payload per 1048 B packet). Every "
        "tunnel holds one flow here, so SCC's tunnels are WVCC's per-flow controls with the "
        "same weights. Distance from the target: per 1 ms slot, Jain's index of goodput / "
        "oracle rate with that slot's weights, and the mean relative gap, averaged over the "
        "slots.",
    )
    exact = next(b for b in first["b"] if b["scheme"] == "uranus")
    for label, field, ref, paper in (
        ("A₁ / L₁", "a1_share", exact["a1_share"], "1/6"),
        ("A₂ / L₂", "a2_share", exact["a2_share"], "9/14"),
        ("A₁ : A₂", "a1_to_a2", 7 / 27, "7 : 27"),
        ("A : B", "a_to_b", 17 / 25, "17 : 25"),
    ):
        ours = {r["scheme"]: r[field] for r in rows if r["figure"] == "3b-packet"}
        tp.add_row(label, f"{ours['uranus']:.4f}", f"{ours['scc']:.4f}", f"{ref:.4f}", paper)
    tp.add_row(
        "Jain vs target (per slot)",
        f"{pk['uranus']['target_jain_mean']:.4f}",
        f"{pk['scc']['target_jain_mean']:.4f}",
        "1",
        "-",
    )
    tp.add_row(
        "mean |gap| / target (per slot)",
        f"{pk['uranus']['target_rel_error_mean']:.4f}",
        f"{pk['scc']['target_rel_error_mean']:.4f}",
        "0",
        "-",
    )
    tp.print(console)
    tcp = _fig3c_packet(scale, goodput, rows)
    tcp.print(console)
    tc = ResultTable(
        f"Uranus Fig. 3(c) ({scale}): one virtual tunnel (f₁, f₂) over two paths",
        (
            key("background flows on L₁"),
            key("scheme"),
            Column("f₁ / C", "ours"),
            Column("f₂ / C", "ours"),
            Column("f₂", "paper", text=True),
        ),
        note="SCC: one congestion control for the tunnel on aggregated ECN (flow level: its "
        "flows rise together and stop at the first saturated link); Uranus: one weighted "
        "control per flow (the oracle). C: the bottlenecks' capacity.",
    )
    for n in BACKGROUND[scale]:
        res = first if n == BACKGROUND[scale][0] else _core.uranus_fig3(n)
        for c in res["c"]:
            rows.append(
                {
                    "figure": "3c",
                    "scheme": c["scheme"],
                    "background": n,
                    "f1_share": c["f1"] / cap,
                    "f2_share": c["f2"] / cap,
                }
            )
            tc.add_row(
                str(n),
                c["scheme"],
                f"{c['f1'] / cap:.4f}",
                f"{c['f2'] / cap:.4f}",
                "significantly decreased" if c["scheme"] == "scc" else "-",
            )
    tc.print(console)
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.2))
    labels = ["A₁ / L₁", "A₂ / L₂", "A₁ : A₂", "A : B"]
    fields = ["a1_share", "a2_share", "a1_to_a2", "a_to_b"]
    series = [(b["scheme"], [b[f] for f in fields]) for b in first["b"]]
    series.append(("paper (SCC)", [PAPER_B[f] for f in fields]))
    grouped_bars(axes[0], labels, series)
    axes[0].set_title("(b) two bottlenecks", fontsize=9)
    axes[0].legend(fontsize=7)
    c_rows = [r for r in rows if r["figure"] == "3c"]
    for scheme in ("scc", "uranus"):
        pts = [(r["background"], r["f2_share"]) for r in c_rows if r["scheme"] == scheme]
        axes[1].plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=scheme)
    axes[1].set_xlabel("background flows on L₁")
    axes[1].set_ylabel("f₂ / C (uncongested path)")
    axes[1].set_title("(c) virtual tunnel over two paths", fontsize=9)
    axes[1].legend(fontsize=7)
    return PaperResult(rows, save_figure(fig, outdir, "uranus-fig3"), [tb, tp, tcp, tc])


def _fig3c_packet(scale: str, goodput: float, rows: list[dict[str, Any]]) -> ResultTable:
    """Fig. 3(c) at packet level: each scheduler's f₁, f₂ and background goodputs as shares of
    a bottleneck's goodput beside the oracle's (f₁ = 1/(n + 1), f₂ = 1), appended to ``rows``
    as ``3c-packet``."""
    counts, warmup, end = PACKET_C[scale]
    t = ResultTable(
        f"Uranus Fig. 3(c) at packet level ({scale}): f₁ and f₂ over two paths, DCTCP "
        f"guests, goodput over {warmup * 1e3:g}–{end * 1e3:g} ms",
        (
            key("background flows on L₁"),
            key("scheme"),
            Column("f₁ / C", "ours"),
            Column("f₂ / C", "ours"),
            Column("background / C (min–max)", "ours", text=True),
            Column("f₂ / f₁", "ours"),
            Column("RTT₁ / RTT₂", "ours"),
            Column("f₂", "paper", text=True),
        ),
        note="C: a bottleneck's goodput (1000 B of payload per 1048 B packet). SCC: f₁ and f₂ "
        "in one virtual tunnel (one window on their aggregated ECN, split by weight); "
        "Uranus: one WVCC control per flow; oracle: the weighted max-min rates (every weight "
        "1). A tunnel's even split keeps equal windows, so f₂ / f₁ = RTT₁ / RTT₂.",
    )
    for n in counts:
        t.add_row(
            str(n),
            "oracle",
            f"{1 / (n + 1):.4f}",
            "1.0000",
            f"{1 / (n + 1):.3f}",
            f"{n + 1:.3f}",
            "—",
            "-",
        )
        for scheme in PACKET_SCHEMES:
            r = _core.uranus_fig3c_packet(scheme, n, warmup, end)
            bg = [b / goodput for b in r["background"]]
            row = {
                "figure": "3c-packet",
                "scheme": scheme,
                "background": n,
                "f1_share": r["f1"] / goodput,
                "f2_share": r["f2"] / goodput,
                "background_shares": bg,
                "rtt_s": r["rtt"],
                "oracle_f1_share": 1 / (n + 1),
                "oracle_f2_share": 1.0,
            }
            rows.append(row)
            t.add_row(
                str(n),
                scheme,
                f"{row['f1_share']:.4f}",
                f"{row['f2_share']:.4f}",
                f"{min(bg):.3f}–{max(bg):.3f}",
                f"{r['f2'] / r['f1']:.3f}",
                f"{r['rtt'][0] / r['rtt'][1]:.3f}",
                "significantly decreased" if scheme == "scc" else "-",
            )
    return t


ENTRY = Entry(
    name="uranus-fig3",
    title="Uranus: SCC breaks proportionality on two bottlenecks and a virtual tunnel slows "
    "its uncongested flow",
    paper="Uranus, §2.4",
    figure="Fig. 3(b)–(c)",
    scales={
        "smoke": "(b) as the paper, and at packet level (Uranus and SCC) over 50–250 ms; (c) "
        "with 4 background flows (flow level, exact, and packet level over 50–250 ms)",
        "full": "(b) as the paper, and at packet level over 50–1000 ms; (c) with 1, 2, 4, 8, 16 "
        "background flows (packet level: 1, 4, 16, over 50–1000 ms)",
    },
    run_fn=run,
)
