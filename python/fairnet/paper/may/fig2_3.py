"""MAY §III-D–E, Figs. 2–3: the table's expected memory in bits per flow and the share of
lossless short flows, for Pareto flow sizes, by numerical integration.

Paper (§III-D): a flow of ``l`` packets is entered in the table (it "experienced at least one
loss") with probability ``1 − (1 − 1/S₀)^l ≈ 1 − e^(−l/S₀)``, so the expected memory is
``M(G) = 80·∫ g(y)(1 − e^(−y/S₀)) dy`` bits per flow (10-byte entries); Fig. 2 plots it for
Pareto sizes with shape ``k ∈ [1, 2]``, mean ``μ = 10`` packets, ``500 ≤ S₀ ≤ 2000``.
§III-E: the share of short flows (``|f| < S₀``) that see no drop is
``L(k, μ, S₀) = P[z(f) = 0 | f < S₀]``, ``> 0.98`` for ``S₀ > 500`` and ``> 0.99`` for
``S₀ > 1000`` (Fig. 3, ``500 ≤ S₀ ≤ 10000``). The paper's text gives "around 1 bit per active
flow" for Fig. 2.

Ours: the same integrals on a log-spaced grid (the Pareto density
``g(y) = k·x_m^k / y^(k+1)`` for ``y ≥ x_m = μ(k − 1)/k``), with the exact ``(1 − 1/S₀)^y``
beside the paper's exponential. A Pareto law of shape 1 has no finite mean, so the shapes are
1.1 to 2 (the paper's interval without its end point, where ``x_m = 0``).

Beyond the paper, the same two quantities measured in a packet simulation (rows
``figure = "2-3 packet"``): a MAY link kept congested by long TCP flows (the link's utilization
above u₀, so an entered flow's packet is dropped, Fig. 1 line 13) carries Poisson arrivals of
Pareto short flows (mean 10 packets, ceil'd to whole 1000-byte packets, from their own hosts at
a 100 ms RTT). Measured: the flows the table hashed, Z(n) — its ``entries_created`` gauge, the
run's ``qdisc_gauges.parquet`` — over the flows that crossed the link, times 80 bits (Fig. 2's
``M(G) = 80·E[Z(n)]/n``), and the share of the short flows (< S₀ packets) that finished without
a retransmission (Fig. 3's lossless flows; ``retransmitted_bytes`` of ``flows.parquet``).
Beside them: the same model evaluated on the flows the run drew (``expected``: ``80·Σ p_i / n``
and ``Σ (1 − p_i) / n_short`` over the short flows, ``p_i = 1 − (1 − 1/S₀)^l_i``), and the
integral for the law. Also written: the table's memory over time per active flow (flows started
and not finished T₀ ago, the paper's "active flow ... with timeout value of 64 seconds"),
``80·mean entries / mean active flows`` over the second half of the run. Tolerance against
``expected``: four standard deviations of the binomial counts (``√Σ p_i(1 − p_i)``), plus what
the model leaves out, bounded from the run itself — a flow's retransmissions are extra draws
for the table, overflow drops are losses without an entry, and an entry made while the
utilization is below u₀ drops nothing (see docs/systems/may.md).

Scales: ``smoke`` 4 shapes × 4 values of S₀ (integration), and the packet simulation for shapes
1.2, 1.6 × S₀ 500, 1000 (10 Mb/s, 4 long flows, short flows at 30% of the link, 200 s); ``full``
10 shapes × 16 values (integration), and shapes 1.1, 1.3, 1.6, 2 × S₀ 500, 1000, 2000 in the
packet simulation (40 Mb/s, 8 long flows, 300 s). Seed 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

import fairnet
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.may.common import LONG, PAYLOAD, WIRE, may, node_index, one_link, wan_engine
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key

#: What the paper says of Figs. 2 and 3 (§II-A, §III-D–E; the figures give no table).
PAPER_FIG2 = "around 1 bit per flow"
PAPER_FIG3 = "> 0.98 for S0 > 500, > 0.99 for S0 > 1000"
#: §III-D: "each hash-table entry have 10bytes = 80bits".
ENTRY_BITS = 80
#: §III-D–E: Pareto sizes of mean 10 packets.
MEAN = 10.0
SHAPES = {"smoke": [1.1, 1.3, 1.6, 2.0], "full": [1.1 + 0.1 * i for i in range(10)]}
S0_FIG2 = {"smoke": [500, 1000, 1500, 2000], "full": list(range(500, 2001, 100))}
S0_FIG3 = {"smoke": [500, 1000, 5000, 10000], "full": [500 + 633 * i for i in range(16)]}


def pareto_scale(shape: float, mean: float = MEAN) -> float:
    """The scale ``x_m`` of a Pareto law of ``shape`` > 1 with mean ``mean``."""
    return mean * (shape - 1) / shape


def _grid(shape: float) -> tuple[np.ndarray, np.ndarray]:
    """Sizes (log-spaced from ``x_m`` to where the tail mass is below 1e-12) and the density."""
    xm = pareto_scale(shape)
    top = xm * 1e12 ** (1 / shape)
    y = np.geomspace(xm, top, 200_000)
    return y, shape * xm**shape / y ** (shape + 1)


def _integral(f: np.ndarray, y: np.ndarray) -> float:
    """The trapezoid rule."""
    return float(((f[1:] + f[:-1]) * np.diff(y)).sum() / 2)


def memory_bits(shape: float, s0: float, exact: bool = False) -> float:
    """Fig. 2: expected table memory per flow, ``80·E[z(f)]`` bits (``exact``: the entry
    probability ``1 − (1 − 1/S₀)^y`` instead of the paper's ``1 − e^(−y/S₀)``)."""
    y, g = _grid(shape)
    keep = (1 - 1 / s0) ** y if exact else np.exp(-y / s0)
    return ENTRY_BITS * _integral(g * (1 - keep), y)


def lossless_short(shape: float, s0: float, exact: bool = False) -> float:
    """Fig. 3: ``P[z(f) = 0 | f < S₀]``, the share of short flows never entered (no drop)."""
    y, g = _grid(shape)
    short = y < s0
    keep = (1 - 1 / s0) ** y[short] if exact else np.exp(-y[short] / s0)
    return _integral(g[short] * keep, y[short]) / _integral(g[short], y[short])


#: The packet simulation: scale -> (shapes, S₀ values, link Mb/s, long flows, seconds).
PACKET: dict[str, tuple[list[float], list[int], float, int, float]] = {
    "smoke": ([1.2, 1.6], [500, 1000], 10, 4, 200),
    "full": ([1.1, 1.3, 1.6, 2.0], [500, 1000, 2000], 40, 8, 300),
}
#: Short flows' share of the link (their Poisson arrivals), their RTT and host pairs.
SHORT_LOAD, SHORT_RTT_MS, SHORT_PAIRS = 0.3, 100.0, 8
#: §IV: T₀ = 64 s, the entries' lifetime without a drop and the flows' activity timeout.
T0_S = 64.0
#: The link ``a → b`` of :func:`fairnet.paper.may.common.one_link` (its first duplex).
BOTTLENECK = 0


def pareto_packets(shape: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` Pareto sizes of ``shape`` and mean :data:`MEAN` packets, ceil'd to whole packets."""
    return np.ceil((rng.pareto(shape, n) + 1) * pareto_scale(shape)).astype(np.int64)


def packet_scenario(
    shape: float, s0: int, mbps: float, n_long: int, seconds: float, outdir: Path
) -> tuple[dict[str, Any], np.ndarray, int]:
    """One congested MAY link (module doc): ``n_long`` long TCP flows (RTTs 20–200 ms) and
    Poisson arrivals of Pareto short flows at :data:`SHORT_LOAD` of the link until 10 s
    before the end. Returns the scenario, the short flows' sizes (packets) and ``n_long``."""
    rtts = [20 + 180 * i / (n_long - 1) for i in range(n_long)] + [SHORT_RTT_MS] * SHORT_PAIRS
    # One bandwidth-delay product at 100 ms (as Fig. 8's buffer): TCP keeps the link above u₀.
    bdp = round(mbps * 1e6 * 0.1 / (WIRE * 8))
    topo, routes = one_link(mbps * 1e6, rtts, bdp)
    rng = np.random.default_rng(1)
    rate = SHORT_LOAD * mbps * 1e6 / (MEAN * WIRE * 8)
    starts = np.cumsum(rng.exponential(1 / rate, int(rate * seconds * 2)))
    starts = starts[starts < seconds - 10]
    sizes = pareto_packets(shape, len(starts), rng)
    spec: list[dict[str, Any]] = []
    for k in range(n_long):
        s, t, _ = routes[k]
        spec.append(
            {
                "src": node_index(topo, s),
                "dst": node_index(topo, t),
                "size": LONG,
                "start": f"{10 * k}ms",
            }
        )
    for i, (start, size) in enumerate(zip(starts, sizes, strict=True)):
        s, t, _ = routes[n_long + i % SHORT_PAIRS]
        spec.append(
            {
                "src": node_index(topo, s),
                "dst": node_index(topo, t),
                "size": int(size) * PAYLOAD,
                "start": f"{start * 1e6:.0f}us",
            }
        )
    doc = {
        "name": f"may-fig2-3 packet k={shape:g} S0={s0}",
        "topology": topo.write(outdir / "fig2-3-topology.json"),
        "workload": {"kind": "flows", "flows": spec},
        "engine": wan_engine(may(s0=float(s0)), seed=1),
        "stop_at": f"{seconds:g}s",
    }
    doc["engine"]["record"] = {"interval": "1s", "flows": False, "queues": "none"}
    return doc, sizes, n_long


def packet_row(shape: float, s0: int, scale: str, outdir: Path) -> dict[str, Any]:
    """Runs :func:`packet_scenario` and measures Figs. 2–3's quantities (module doc)."""
    _, _, mbps, n_long, seconds = PACKET[scale]
    doc, sizes, n_long = packet_scenario(shape, s0, mbps, n_long, seconds, outdir)
    res = fairnet.run(doc)
    flows = res.flows
    g = res.qdisc_gauges
    assert g is not None
    at = g.filter(g["link"] == BOTTLENECK)

    def series(name: str) -> tuple[np.ndarray, np.ndarray]:
        x = at.filter(at["gauge"] == name).sort("time_s")
        return x["time_s"].to_numpy(), x["value"].to_numpy()

    _, created = series("entries_created")
    _, overflow = series("overflow_drops")
    times, entries = series("entries")
    _, util = series("utilization")
    n = n_long + len(sizes)
    # Every flow crossed the link (the short ones start 10 s before the end).
    p_long = np.ones(n_long)  # long flows send far more than S₀ packets: hashed
    p_short = 1 - (1 - 1 / s0) ** sizes.astype(float)
    p = np.concatenate([p_long, p_short])
    hashed = float(created[-1])
    short = sizes < s0
    retx = flows["retransmitted_bytes"].to_numpy()[n_long:]
    # What the model leaves out (module doc), bounded from the run: each retransmitted packet
    # of a short flow is one more draw for the table (at most 1/S₀ of an entry each); each
    # overflow drop can make at most one short flow lossy; an entry made while the utilization
    # was below u₀ drops nothing, which at most the updates below u₀ times the expected
    # entries make lossless.
    extra_draws = float(np.ceil(retx / PAYLOAD).sum()) / s0
    done = np.isfinite(flows["end_s"].to_numpy()[n_long:])
    lossless = float(((retx == 0) & done)[short].sum() / short.sum())
    # Active flows over time: started and not finished T₀ ago (unfinished: active).
    start = flows["start_s"].to_numpy()
    end = np.nan_to_num(flows["end_s"].to_numpy(), nan=np.inf)
    half = times > seconds / 2
    active = np.array([((start <= t) & (t < end + T0_S)).sum() for t in times[half]])
    return {
        "figure": "2-3 packet",
        "scheme": "MAY (packet simulation)",
        "paper": f"{PAPER_FIG2}; lossless {PAPER_FIG3}",
        "shape": round(shape, 2),
        "s0": s0,
        "flows": n,
        "short_flows": int(short.sum()),
        "bits_per_flow_sim": ENTRY_BITS * hashed / n,
        "bits_per_flow_expected": ENTRY_BITS * float(p.sum()) / n,
        "bits_per_flow_tolerance": ENTRY_BITS * 4 * float(np.sqrt((p * (1 - p)).sum())) / n,
        "bits_per_flow_extra_draws": ENTRY_BITS * extra_draws / n,
        "bits_per_flow": memory_bits(shape, s0, exact=True),
        "bits_per_active_flow": ENTRY_BITS * float(entries[half].mean() / active.mean()),
        "lossless_short_sim": lossless,
        "lossless_short_expected": float((1 - p_short[short]).mean()),
        "lossless_short_tolerance": 4
        * float(np.sqrt((p_short[short] * (1 - p_short[short])).sum()))
        / float(short.sum()),
        "lossless_short_overflow_bound": float(overflow[-1]) / float(short.sum()),
        "lossless_short_below_u0_bound": float((util[1:] <= 0.98).mean())
        * float(p_short[short].mean()),
        "lossless_short": lossless_short(shape, s0, exact=True),
        "overflow_drops": int(overflow[-1]),
        "short_unfinished": int((~done & short).sum()),
        "retransmitting_flows": int((retx > 0).sum()),
        "utilization_above_u0": float((util[1:] > 0.98).mean()),
        "link_mbps": mbps,
        "seconds": seconds,
    }


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    rows: list[dict[str, Any]] = []
    shapes = SHAPES[scale]
    for k in shapes:
        for s0 in S0_FIG2[scale]:
            rows.append(
                {
                    "figure": "2",
                    "scheme": "MAY (model, §III-D)",
                    "shape": round(k, 2),
                    "s0": s0,
                    "bits_per_flow": memory_bits(k, s0),
                    "bits_per_flow_exact": memory_bits(k, s0, exact=True),
                    "paper": PAPER_FIG2,
                }
            )
        for s0 in S0_FIG3[scale]:
            rows.append(
                {
                    "figure": "3",
                    "scheme": "MAY (model, §III-E)",
                    "shape": round(k, 2),
                    "s0": s0,
                    "lossless_short": lossless_short(k, s0),
                    "lossless_short_exact": lossless_short(k, s0, exact=True),
                    "paper": PAPER_FIG3,
                }
            )
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11.0, 3.8))
    for k in shapes:
        f2 = [r for r in rows if r["figure"] == "2" and r["shape"] == round(k, 2)]
        f3 = [r for r in rows if r["figure"] == "3" and r["shape"] == round(k, 2)]
        axes[0].plot([r["s0"] for r in f2], [r["bits_per_flow"] for r in f2], label=f"k = {k:.1f}")
        axes[1].plot([r["s0"] for r in f3], [r["lossless_short"] for r in f3], label=f"k = {k:.1f}")
    axes[0].set(xlabel="S₀ (packets)", ylabel="bits per flow", title="Fig. 2: expected memory")
    axes[1].set(xlabel="S₀ (packets)", ylabel="share", title="Fig. 3: short flows without loss")
    for ax in axes:
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    t2 = ResultTable(
        f"MAY Fig. 2 ({scale}): expected table memory, bits per flow (Pareto, mean 10 packets)",
        (
            key("shape k"),
            key("S₀"),
            Column("bits/flow", "ours"),
            Column("bits/flow", "ours, exact"),
            Column("bits/flow", "paper"),
        ),
        note="ours: 80·∫g(y)(1 − e^(−y/S₀))dy as §III-D; exact: (1 − 1/S₀)^y instead of the "
        "exponential. Paper: a plot; the text says 'around 1 bit per active flow'.",
        name="fig2",
    )
    t3 = ResultTable(
        f"MAY Fig. 3 ({scale}): share of short flows (< S₀ packets) without loss",
        (
            key("shape k"),
            key("S₀"),
            Column("lossless", "ours"),
            Column("lossless", "ours, exact"),
            Column("lossless", "paper"),
        ),
        note="P[z(f) = 0 | f < S₀] (§III-E). Paper: > 0.98 for S₀ > 500, > 0.99 for S₀ > 1000.",
        name="fig3",
    )
    for r in rows:
        if r["figure"] == "2":
            t2.add_row(
                f"{r['shape']:g}",
                str(r["s0"]),
                f"{r['bits_per_flow']:.3f}",
                f"{r['bits_per_flow_exact']:.3f}",
                "≈ 1",
            )
        else:
            paper = "> 0.99" if r["s0"] > 1000 else "> 0.98" if r["s0"] > 500 else "-"
            t3.add_row(
                f"{r['shape']:g}",
                str(r["s0"]),
                f"{r['lossless_short']:.4f}",
                f"{r['lossless_short_exact']:.4f}",
                paper,
            )
    t2.print(console)
    t3.print(console)
    shapes_p, s0s_p, mbps, n_long, seconds = PACKET[scale]
    tp = ResultTable(
        f"MAY Figs. 2–3 ({scale}) in a packet simulation: {mbps:g} Mb/s MAY link, {n_long} "
        f"long TCP flows, Pareto short flows at {SHORT_LOAD:g} of the link, {seconds:g} s",
        (
            key("shape k"),
            key("S₀"),
            Column("bits/flow", "sim"),
            Column("bits/flow", "model"),
            Column("bits/flow", "integral"),
            Column("bits/active", "sim"),
            Column("lossless", "sim"),
            Column("lossless", "model"),
            Column("lossless", "integral"),
        ),
        note="sim: 80·(flows hashed)/(flows), and the short flows that finished without a "
        "retransmission; model: §III-D–E on the sizes the run drew (tolerance: 4σ of the "
        "binomial counts and what the model leaves out, docs/systems/may.md); integral: the "
        "law's. bits/active: 80·mean entries / mean active flows (64 s timeout), 2nd half.",
        name="packet",
    )
    for k in shapes_p:
        for s0 in s0s_p:
            r = packet_row(k, s0, scale, outdir)
            rows.append(r)
            tp.add_row(
                f"{k:g}",
                str(s0),
                f"{r['bits_per_flow_sim']:.3f}",
                f"{r['bits_per_flow_expected']:.3f}",
                f"{r['bits_per_flow']:.3f}",
                f"{r['bits_per_active_flow']:.3f}",
                f"{r['lossless_short_sim']:.4f}",
                f"{r['lossless_short_expected']:.4f}",
                f"{r['lossless_short']:.4f}",
            )
    tp.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "may-fig2-3"), [t2, t3, tp])


ENTRY = Entry(
    name="may-fig2-3",
    title="MAY: table memory per flow and lossless short flows for Pareto sizes",
    paper="MAY (Stanojević & Shorten), §III-D–E",
    figure="Figs. 2–3",
    scales={
        "smoke": "4 Pareto shapes (1.1–2) × 4 values of S₀, numerical integration; packet "
        "simulation of shapes 1.2, 1.6 × S₀ 500, 1000 on a congested 10 Mb/s MAY link, 200 s",
        "full": "10 shapes × 16 values of S₀ (Fig. 2: 500–2000, Fig. 3: 500–10,000); packet "
        "simulation of 4 shapes × S₀ 500, 1000, 2000 on 40 Mb/s, 300 s",
    },
    run_fn=run,
)
