"""eBA §VII-C, Fig. 13: frequent short flows. VM X sends one long flow with a 450 Mb/s
guarantee and fills its bottleneck; from 15 s to 60 s another tenant's short flows cross the
same link, 5 or 20 a second, sizes exponential with mean 200 KB. X's rate under LRC and under
ElasticSwitch's TCP-like rate allocation.

Paper (simulation, 900 Mb/s link, α = β = 2 s⁻¹, τ_r = 100 ms, τ_v = 50 ms, TCP-like period
15 ms): "The short flows are generated uniformly at random in each second from 15th s to 60th
s … The TCP-like algorithm suffers severe drops in rate limit. The short flows create bursty
traffic (17.4Mbps for 5 flows/s and 66.2Mbps for 20 flows/s, measured by 15ms) … our
algorithm is less sensitive to short flows. Even with 20 flows per seconds, the rate limit
can stay flat and the decrement is about the rate of all short flows." (The figure's values
are not in the text.)

Ours: the packet engine on a dumbbell (hosts 0, 1 → 2, 3; 1 Gb/s links of 10 µs): X on host
0 sends to its peer on host 2; the short flows are tenant Y's, from host 1 to host 3
(:func:`fairnet.workload.window_arrivals`, ``rate · 1 s`` flows at uniformly random times in
every second, as the paper says). They meet X at the switch, whose 1 Gb/s middle link is the
bottleneck (a congestion signal needs a queue in the network: a host's own NIC never queues
in the engine), μ = 0.9 so LRC steers it to 900 Mb/s, the paper's simulated capacity. ECN
marks above 20 packets, Reno-ECN guests (TCP-like reacts to the marks, LRC ignores them).
Every VM is guaranteed 450 Mb/s (§VII-A's hose), Y too: the paper lets the short flows run
unthrottled ("bursty traffic"), and Y's limit ``max(450 Mb/s, v)`` never holds a short flow
back where a zero guarantee would start each burst at ``initial_rate``. We measure X's
throughput (the engine records throughput, not the limit the paper plots: the limit bounds
it) every τ_r.

Scales: ``full`` the paper's: 60 s, short flows from 15 s, 5 and 20 a second, mean 200 KB,
§VII-C's parameters. ``smoke``: the same run 100 times faster — LRC and TCP-like under §VI-B's
*uniform increase* (:data:`~fairnet.paper.eba.common.SMOKE_SPEEDUP`: τ_v = 500 µs,
τ_r = 1 ms, α = β = 200 s⁻¹, TCP-like period 150 µs), the run 0.6 s with short flows from
150 ms; the short flows 100 times more frequent (500 and 2,000 a second, in every 10 ms) and
100 times smaller (mean 2 KB), which keeps both their offered load (8 and 32 Mb/s) and the
number of them per τ_r (0.5 and 2), i.e. what a port measures in each interval, as in the
paper.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.eba.common import SMOKE_SPEEDUP, lrc
from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.series import run_series
from fairnet.paper.tables import Column, ResultTable, key
from fairnet.workload import window_arrivals

#: Short flows a second (the paper's two groups) and their mean size (bytes).
SHORT_RATES = [5, 20]
MEAN_SIZE = 200_000
#: The paper's time line (s): short flows from 15 s to the end at 60 s.
SHORT_FROM, STOP = 15.0, 60.0
#: The paper's claims, by scheme.
CLAIMS = {"lrc": "flat; drops by about the short flows' rate", "tcp_like": "severe drops"}
GUARANTEE_MBPS = 450.0
#: ElasticSwitch's allocation period in eBA's simulations (§VII-C: 15 ms).
TCP_LIKE_PERIOD_S = 0.015
#: Seed of the short flows' arrivals and sizes.
SEED = 13


def scenario(scheme: str, rate: float, scale: str) -> tuple[dict[str, Any], list[int]]:
    """The run for ``scheme`` (``lrc`` or ``tcp_like``) with ``rate`` short flows a second
    (the paper's time), and each flow's tenant (0: X's long flow, 1: Y's short flows)."""
    k = SMOKE_SPEEDUP if scale == "smoke" else 1.0
    stop, start = STOP / k, SHORT_FROM / k
    vms = [
        {"name": "x", "host": 0, "tenant": 0, "guarantee": "450Mbps"},
        {"name": "y", "host": 1, "tenant": 1, "guarantee": "450Mbps"},
        {"name": "x2", "host": 2, "tenant": 0, "guarantee": "450Mbps"},
        {"name": "y2", "host": 3, "tenant": 1, "guarantee": "450Mbps"},
    ]
    flows: list[dict[str, Any]] = [{"src": 0, "dst": 2, "size": "100GB", "tag": 0}]
    flows += window_arrivals(
        1,
        3,
        rate=rate * k,
        mean_size=round(MEAN_SIZE / k),
        start_s=start,
        end_s=stop,
        tag=1,
        period_s=1.0 / k,
        seed=SEED,
    )
    doc = {
        "name": f"eba-fig13 {scheme} {rate}/s ({scale})",
        "stop_at": f"{stop * 1e6:.6g}us",
        "topology": {
            "kind": "dumbbell",
            "n_pairs": 2,
            "access_rate": "1Gbps",
            "bottleneck_rate": "1Gbps",
            "delay": "10us",
            "buffer": "256KB",
        },
        "workload": {"kind": "flows", "flows": flows},
        "engine": {
            "kind": "packet",
            "transport": "reno_ecn",
            "qdisc": {"kind": "ecn", "k": {"packets": 20}},
            "host_shim": "eba",
            "port_agent": "eba",
            "routing": "host_pair",
            "control": {"size": "74B"},
            "record": {"interval": f"{0.1 / k * 1e6:.6g}us", "flows": True},
            "eba": {
                "rate_control": scheme,
                "vms": vms,
                # §VII-C's simulation parameters.
                "lrc": lrc(alpha=2.0, beta=2.0, tau_v_s=0.05, tau_r_s=0.1, scale=scale),
                "tcp_like": {"period": f"{TCP_LIKE_PERIOD_S / k * 1e6:.6g}us"},
            },
        },
    }
    return doc, [f["tag"] for f in flows]


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    plt = pyplot()
    k = SMOKE_SPEEDUP if scale == "smoke" else 1.0
    t = ResultTable(
        f"eBA Fig. 13 ({scale}): X (450 Mb/s guarantee) under another tenant's short flows "
        "from 15 s to 60 s",
        (
            key("scheme"),
            key("short flows/s"),
            Column("X before (Mb/s)", "ours"),
            Column("X during (Mb/s)", "ours"),
            Column("X p5 during (Mb/s)", "ours"),
            Column("short flows (Mb/s)", "ours"),
            Column("total during (Mb/s)", "ours"),
            Column("X", "paper", text=True),
        ),
        note="Times in the paper's seconds (smoke runs 100 times faster, see the entry's doc). "
        "X before: mean over 7.5–15 s; during: mean over 15–60 s, and the 5th percentile of "
        "its 100 ms (τ_r) samples; short flows: their mean throughput during.",
    )
    rows: list[dict[str, Any]] = []
    fig, axes = plt.subplots(1, len(SHORT_RATES), figsize=(11, 3.6), sharey=True)
    for ax, rate in zip(np.atleast_1d(axes), SHORT_RATES, strict=True):
        for scheme, claim in CLAIMS.items():
            doc, tags = scenario(scheme, rate, scale)
            s = run_series(doc, len(tags))
            tag = np.asarray(tags)
            x_series = s.rates[:, tag == 0].sum(axis=1) / 1e6
            short_series = s.rates[:, tag == 1].sum(axis=1) / 1e6
            times = s.times * k  # in the paper's seconds
            before = (times > SHORT_FROM / 2 + 1e-9) & (times <= SHORT_FROM + 1e-9)
            during = (times > SHORT_FROM + 1e-9) & (times <= STOP + 1e-9)
            x_before = float(x_series[before].mean())
            x_during = float(x_series[during].mean())
            x_p5 = float(np.percentile(x_series[during], 5))
            short = float(short_series[during].mean())
            rows.append(
                {
                    "scheme": scheme,
                    "short_per_s": rate,
                    "short_flows": int((tag == 1).sum()),
                    "x_before_mbps": x_before,
                    "x_during_mbps": x_during,
                    "x_p5_during_mbps": x_p5,
                    "short_mbps": short,
                    "total_during_mbps": x_during + short,
                    "paper_x": claim,
                }
            )
            t.add_row(
                scheme,
                str(rate),
                f"{x_before:.1f}",
                f"{x_during:.1f}",
                f"{x_p5:.1f}",
                f"{short:.1f}",
                f"{x_during + short:.1f}",
                claim,
            )
            ax.plot(times, x_series, label=f"X, {scheme}", lw=1)
        ax.axhline(GUARANTEE_MBPS, color="grey", ls=":", lw=1, label="X's guarantee")
        ax.axvline(SHORT_FROM, color="grey", ls="--", lw=0.8)
        ax.set_title(f"{rate} short flows/s")
        ax.set_xlabel("time (s, the paper's)")
    np.atleast_1d(axes)[0].set_ylabel("X's throughput (Mb/s)")
    np.atleast_1d(axes)[0].legend(fontsize=8, loc="lower left")
    files = save_figure(fig, outdir, "eba_fig13")
    t.print(console)
    return PaperResult(rows, files, [t])


ENTRY = Entry(
    name="eba-fig13",
    title="eBA: a VM's long flow under another tenant's frequent short flows, LRC and TCP-like",
    paper="eBA (Liu et al., ToN 2017), §VII-C",
    figure="Fig. 13",
    scales={
        "smoke": "5 and 20 short flows/s (in the paper's time), LRC and TCP-like, 0.6 s each "
        "at 100-fold speed (uniform increase; short flows 100× as frequent, 100× smaller)",
        "full": "5 and 20 short flows/s of mean 200 KB from 15 s to 60 s, LRC and TCP-like, "
        "the paper's parameters",
    },
    run_fn=run,
)
