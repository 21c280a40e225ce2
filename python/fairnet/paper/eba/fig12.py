"""eBA §VII-C, Fig. 12: dynamic requirements. VM X with a 600 Mb/s guarantee sends alone; at
15 s VM Y (no guarantee, the same weight) joins; the rate limits of LRC against the TCP-like
allocation of ElasticSwitch, over 30 s.

Paper (simulation, 900 Mb/s link, α = β = 2 s⁻¹, τ_r = 100 ms, τ_v = 50 ms, the TCP-like
period 15 ms): "Both LRC and the TCP-like algorithms have fast convergence speed to high
utilization (4s) and fairness (3s). LRC is smooth during the whole period. However, in the
TCP-like algorithm, when the VM-flow from Y joins in, the rate limit for X becomes fluctuating
until it gets below the guarantee, and the rate limit for Y keeps fluctuating." (The figure's
values are not in the text.)

Ours: the packet engine. X and Y on host 0 of a dumbbell whose 1 Gb/s middle link is the
bottleneck (10 Gb/s host links, 10 µs a link, 256 KB buffers): the TCP-like allocation reacts to
congestion, and a host's own NIC never queues in the engine, so the bottleneck must be in the
network (the packet test of the baseline makes the same choice). Reno guests with ECN, the
switch marking above 20 packets (congestion for the TCP-like allocation is a loss or an ECN
echo). LRC with μ = 0.9 (so the link's 1 Gb/s less 10% is the paper's 900 Mb/s): X 900 Mb/s
alone, then the oracle with guarantees, X 600 (its guarantee) and Y 300 Mb/s. The TCP-like
allocation is ElasticSwitch's as recalled (``systems/eba/shim.rs``): per VM-flow
``max(B, R)``, ``R`` CUBIC-like with rate-caution, every period.

Measured, as the paper plots rate limits and we plot what the limits let through (wire
throughput, means over 5 samples): X before Y joins; X and Y over the last half after;
X's lowest throughput after Y joins; and Y's fluctuation, the standard deviation of its
throughput over the last half relative to its mean.

What the packet run adds to the paper's picture: LRC's *limit* for X never falls below
600 Mb/s, but its *throughput* can, while Y's limit ramps up from 1 Mb/s toward its target
``w·r`` (the rate factor is still X-alone's) faster than the factors fall: the link is full,
the switch marks, and X's guest TCP yields to Y's. Once the loop settles X is back at its
guarantee. The paper's simulator plots limits, where this cannot show.

Scales: ``smoke`` Y joins at 0.15 s, 0.3 s in all: every period (τ_v, τ_r, the TCP-like
15 ms) 100 times shorter and α, β 100 times larger (§VI-B's uniform increase, as the packet
tests do); ``full`` the paper's 15 s and 30 s with its parameters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.eba.common import (
    SMOKE_SPEEDUP,
    lrc,
    one_link_doc,
    smoothed,
    vm_flow_series,
)
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.series import plot_rates
from fairnet.paper.tables import Column, ResultTable, key

#: (Y joins, run ends), s, per scale.
TIMES = {"smoke": (0.15, 0.3), "full": (15.0, 30.0)}
SAMPLES = 600  # record samples per run
WINDOW = 5  # samples per mean
GUARANTEE = 600e6
#: The mechanism's rates (LRC: the oracle with guarantees on μC = 900 Mb/s), before and after.
ALONE = np.array([900e6, 0.0])
SHARED = np.array([600e6, 300e6])
TCP_LIKE_PERIOD_S = 0.015  # §VII-C
SCHEMES = {
    "tcp_like": "X fluctuates until below its guarantee; Y keeps fluctuating",
    "lrc": "smooth; X at its guarantee",
}
VMS = [
    {"name": "x", "host": 0, "tenant": 0, "guarantee": "600Mbps"},
    {"name": "y", "host": 0, "tenant": 1},
    {"name": "x2", "host": 2, "tenant": 0, "guarantee": "600Mbps"},
    {"name": "y2", "host": 3, "tenant": 1},
]


def scenario(scheme: str, scale: str) -> dict[str, Any]:
    """Fig. 12's run of ``scheme`` (``lrc`` or ``tcp_like``) at ``scale``."""
    join, stop = TIMES[scale]
    speed = SMOKE_SPEEDUP if scale == "smoke" else 1.0
    flows = [
        {"src": 0, "dst": 2, "size": "100GB", "tag": 0},
        {"src": 0, "dst": 3, "size": "100GB", "tag": 1, "start": f"{join * 1e6:g}us"},
    ]
    doc = one_link_doc(
        f"eba-fig12 {scheme} ({scale})",
        VMS,
        flows,
        lrc(alpha=2.0, beta=2.0, tau_v_s=0.05, tau_r_s=0.1, scale=scale),
        stop,
        stop / SAMPLES,
        rate_control=scheme,
        tcp_like={"period": f"{TCP_LIKE_PERIOD_S / speed * 1e6:g}us"},
    )
    doc["topology"] = {
        "kind": "dumbbell",
        "n_pairs": 2,
        "access_rate": "10Gbps",
        "bottleneck_rate": "1Gbps",
        "delay": "10us",
        "buffer": "256KB",
    }
    doc["engine"]["transport"] = "reno_ecn"
    doc["engine"]["qdisc"] = {"kind": "ecn", "k": {"packets": 20}}
    return doc


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    join, stop = TIMES[scale]
    half = join + 0.5 * (stop - join)
    t = ResultTable(
        f"eBA Fig. 12 ({scale}): X (600 Mb/s guarantee) alone, then Y (none) joins; 1 Gb/s",
        (
            key("scheme"),
            Column("X alone (Mb/s)", "ours"),
            Column("X after (Mb/s)", "ours"),
            Column("Y after (Mb/s)", "ours"),
            Column("X lowest after", "ours"),
            Column("Y fluctuation", "ours"),
            Column("paper", "paper", text=True),
        ),
        note="Wire throughput, means over 5 samples. X alone: the last half before Y joins; "
        "after: the last half of the run; X lowest: after Y joins; Y fluctuation: std / mean "
        "over the last half. LRC's mechanism: X 900 alone, then X 600 and Y 300 Mb/s.",
    )
    rows: list[dict[str, Any]] = []
    fig, axes = pyplot().subplots(1, len(SCHEMES), figsize=(9, 3.2), sharey=True)
    for ax, (scheme, claim) in zip(axes, SCHEMES.items(), strict=True):
        s = vm_flow_series(scenario(scheme, scale), [0, 1])
        x_alone = float(s.mean(0.5 * join, join)[0])
        x, y = (float(v) for v in s.mean(half, stop))
        tm, r = smoothed(s, WINDOW)
        x_low = float(r[tm > join + 1e-12, 0].min())
        y_late = r[tm > half + 1e-12, 1]
        y_fluct = float(y_late.std() / y_late.mean())
        rows.append(
            {
                "scheme": scheme,
                "x_alone_mbps": x_alone / 1e6,
                "x_mbps": x / 1e6,
                "y_mbps": y / 1e6,
                "x_lowest_mbps": x_low / 1e6,
                "y_fluctuation": y_fluct,
                "guarantee_mbps": GUARANTEE / 1e6,
                "paper": claim,
            }
        )
        t.add_row(
            scheme,
            f"{x_alone / 1e6:.1f}",
            f"{x / 1e6:.1f}",
            f"{y / 1e6:.1f}",
            f"{x_low / 1e6:.1f}",
            f"{y_fluct:.3f}",
            claim,
        )
        steps = [(0.0, join, ALONE), (join, stop, SHARED)] if scheme == "lrc" else []
        plot_rates(ax, s.times, s.rates, ["X (B = 600 Mb/s)", "Y (B = 0)"], steps, WINDOW)
        ax.axhline(GUARANTEE / 1e9, color="grey", lw=0.6, ls=":")
        ax.set_title({"lrc": "LRC", "tcp_like": "TCP-like"}[scheme], fontsize=9)
    axes[0].legend(fontsize=7)
    t.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "eba-fig12"), [t])


ENTRY = Entry(
    name="eba-fig12",
    title="eBA: X guaranteed 600 Mb/s, Y joins at 15 s; LRC against the TCP-like allocation",
    paper="eBA (Liu et al., ToN 2017), §VII-C",
    figure="Fig. 12",
    scales={
        "smoke": "LRC and TCP-like; Y joins at 0.15 s of 0.3 s, at 100-fold speed",
        "full": "LRC and TCP-like; the paper's parameters, Y joins at 15 s of 30 s",
    },
    run_fn=run,
)
