"""MAY §IV.C, Fig. 8: one non-responsive CBR (UDP) flow beside 19 long TCP flows on a 40 Mb/s
MAY link: the CBR flow's throughput against its sending rate (Theorem 3.2's phase transition).

Paper: "N = 19 TCP flows with RTTs uniformly distributed in [20ms, 220ms] share a MAY link with
capacity 40Mbps with a single CBR flow with sending rate x₁. We vary x₁ in the interval
[0.5Mbps, 8Mbps] ... Each simulation lasted for 5 minutes, with first minute neglected. ...
fair share is simply x_f = 40/20Mbps = 2Mbps. ... for x₁ less than x_f = 2Mbps throughput is
identical to the sending rate, while for x₁ > x_f CBR flow is shut down, by receiving (almost)
zero throughput."

Ours: the scenario of :mod:`fairnet.paper.may.common` (TCP as §IV, MAY with the paper's
parameters); the buffer, which the paper does not give here, is one bandwidth-delay product at
the mean RTT (577 packets at 40 Mb/s and 120 ms: with §IV.B's 100 packets the TCP flows leave
the link below u₀ = 0.98, ν stays near 0 and a CBR flow at 1.5 times the fair share kept
99.4% of its rate, as analysed for Fig. 7 in docs/systems/may.md); the CBR flow is the packet
engine's constant-rate sender, given by its own flow row (``transport = "udp"``, ``udp_rate``),
and starts with the TCP flows; RTTs evenly spread over 20–220 ms (the paper draws them
uniformly; the CBR flow's is the middle one, 120 ms). Rates are wire rates (1040-byte packets).
Throughput: the mean delivered rate after the first fifth of the run (the paper neglects the
first minute of five). A CBR flow entering the table at rate x has δ growing by the factor
1 − q_w + q_w·x·ν per Δ (Theorem 3.2's proof) until ν·δ reaches 1, so near the fair share the
shut-out takes minutes with q_w = 0.05: the table gives the rate at which it happens.

Scales: ``smoke`` 11 TCP flows and the CBR flow on 10 Mb/s (fair share u₀C/12 ≈ 0.82 Mb/s,
near the paper's 2 Mb/s in packets per Δ), the CBR flow at 0.5, 1.5 and 3 times the fair share
C/N, 200 s; ``full`` the paper's 19 TCP flows on 40 Mb/s, x₁ from 0.5 to 8 Mb/s, 300 s.
Seed 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.may.common import (
    LONG,
    PAYLOAD,
    WIRE,
    bdp_packets,
    may,
    node_index,
    one_link,
    wan_engine,
)
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.series import run_series
from fairnet.paper.tables import Column, ResultTable, key

#: scale -> (TCP flows, link Mb/s, CBR rates as multiples of the fair share C/N, seconds)
SETTINGS: dict[str, tuple[int, float, list[float], float]] = {
    "smoke": (11, 10, [0.5, 1.5, 3.0], 200),
    "full": (19, 40, [0.25, 0.5, 0.75, 0.9, 1.1, 1.25, 1.5, 2.0, 3.0, 4.0], 300),
}


def scenario(n_tcp: int, mbps: float, cbr_bps: float, d: float, outdir: Path) -> dict[str, Any]:
    """The topology and flows: ``n_tcp`` long TCP flows and, last, the CBR flow (its row
    carries its own transport); the CBR flow's size outlasts the run."""
    n = n_tcp + 1
    rtts = [20 + 200 * i / (n - 1) for i in range(n)]
    # The CBR flow takes the middle RTT; the TCP flows keep the others in order.
    middle = rtts.pop(n // 2)
    topo, flows = one_link(mbps * 1e6, [*rtts, middle], bdp_packets(mbps * 1e6, rtts))
    spec: list[dict[str, Any]] = [
        {"src": node_index(topo, s), "dst": node_index(topo, t), "size": LONG, "start": f"{k}ms"}
        for k, (s, t, _) in enumerate(flows)
    ]
    # Payload bytes the CBR flow sends in the run (its rate is a wire rate), and more.
    spec[-1] |= {
        "size": int(cbr_bps * d / 8 * PAYLOAD / WIRE) + 10 * PAYLOAD,
        "transport": "udp",
        "udp_rate": f"{cbr_bps:.0f}bps",
    }
    return {
        "topology": topo.write(outdir / "fig8-topology.json"),
        "workload": {"kind": "flows", "flows": spec},
        "stop_at": f"{d:g}s",
    }


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    n_tcp, mbps, factors, d = SETTINGS[scale]
    fair = mbps * 1e6 / (n_tcp + 1)
    rows: list[dict[str, Any]] = []
    t = ResultTable(
        f"MAY Fig. 8 ({scale}): one CBR flow beside {n_tcp} TCP flows on {mbps:g} Mb/s (fair "
        f"share {fair / 1e6:.2f} Mb/s), {d:g} s",
        (
            key("CBR Mb/s"),
            Column("× fair share", "ours"),
            Column("CBR delivered", "ours"),
            Column("last fifth", "ours"),
            Column("TCP mean Mb/s", "ours"),
            Column("paper", "paper"),
        ),
        note=f"Delivered: the CBR flow's mean throughput over {d / 5:g}–{d:g} s (and over the "
        f"last fifth, {0.8 * d:g}–{d:g} s) over its sending rate. Paper (Fig. 8, 19 TCP "
        "flows, 40 Mb/s): the rate kept below the 2 Mb/s fair share, (almost) zero above it.",
    )
    for factor in factors:
        x = factor * fair
        doc = scenario(n_tcp, mbps, x, d, outdir) | {
            "name": f"may-fig8 CBR {x / 1e6:.2f} Mb/s ({scale})",
            "engine": wan_engine(may(), seed=1),
        }
        series = run_series(doc, n_tcp + 1)
        got = series.mean(d / 5, d)
        delivered = float(got[-1] / x)
        late = float(series.mean(0.8 * d, d)[-1] / x)
        tcp = float(got[:-1].mean())
        paper = "kept" if factor < 1 else "shut out"
        rows.append(
            {
                "scheme": "MAY",
                "cbr_mbps": x / 1e6,
                "fair_share_mbps": fair / 1e6,
                "factor": factor,
                "cbr_throughput_mbps": float(got[-1] / 1e6),
                "delivered": delivered,
                "delivered_last_fifth": late,
                "tcp_mean_mbps": tcp / 1e6,
                "paper": paper,
            }
        )
        t.add_row(
            f"{x / 1e6:.2f}",
            f"{factor:g}",
            f"{delivered:.3f}",
            f"{late:.3f}",
            f"{tcp / 1e6:.2f}",
            paper,
        )
    t.print(console)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.0, 4.0))
    xs = np.array([r["cbr_mbps"] for r in rows])
    ax.plot(xs, [r["cbr_throughput_mbps"] for r in rows], marker="o", label="MAY (ours)")
    ax.plot(xs, np.where(xs < fair / 1e6, xs, 0.0), ls=":", color="k", label="Theorem 3.2")
    ax.axvline(fair / 1e6, color="grey", lw=0.8)
    ax.set(xlabel="CBR sending rate (Mb/s)", ylabel="CBR throughput (Mb/s)")
    ax.legend(fontsize=8)
    return PaperResult(rows, save_figure(fig, outdir, "may-fig8"), [t])


ENTRY = Entry(
    name="may-fig8",
    title="MAY: one CBR flow among TCP flows, kept below the fair share and shut out above",
    paper="MAY (Stanojević & Shorten), §IV.C",
    figure="Fig. 8",
    scales={
        "smoke": "11 TCP flows and one CBR flow at 0.5, 1.5, 3 × the fair share on 10 Mb/s, 200 s",
        "full": "the paper's 19 TCP flows and one CBR flow at 0.5–8 Mb/s on 40 Mb/s, 300 s",
    },
    run_fn=run,
)
