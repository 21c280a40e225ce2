"""Beyond the paper (issue 21): WVCC's accuracy against the oracle on a multi-bottleneck network
with random weights, at the paper's 10 Gb/s and at datacenter speed (100 Gb/s), beside Söze's
on the same flows.

The paper evaluates WVCC on one bottleneck only (Figs. 5–7). Ours: a parking lot of 3 hops
with ``PER_HOP`` cross flows per hop and one long flow crossing every hop, and the same with
1 hop (three flows on one link: the paper's claim) (``topology.kind = "parking_lot"``: hop j
is link 2j; every flow's path is fixed, so the oracle needs no routing), weights uniform in
[1, 4] (Söze's accuracy tests' range), a fresh draw per seed. The oracle
(:func:`fairnet.paper.series.oracle`) gives each flow's weighted max-min rate over the hops; a
flow's error is |mean throughput over the run's second half − its rate| / its rate, and the
table gives the distribution over every flow of every seed.

- WVCC: ``host_shim = "wvcc"`` over NewReno guests, DCTCP's step marking at every port with
  K = C·RTT/7 (DCTCP §4.1's guideline, RTT the long flow's base round trip: 17 packets on 3
  hops, 11 on 1 hop, at both speeds), links of 10 µs at 10 Gb/s and 1 µs at 100 Gb/s (base
  RTTs of the long flow 100 and 10 µs on 3 hops, 60 and 6 µs on 1).
- Söze (100 Gb/s): the Söze entries' engine (:func:`fairnet.paper.soze.common.soze_engine`,
  §4's parameters) on the same flows and links.

Scales: ``smoke`` 3 seeds, 20 ms at 10 Gb/s and 5 ms at 100 Gb/s; ``full`` 20 seeds, 200 and
50 ms.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import plot_cdf, pyplot, save_figure
from fairnet.paper.series import oracle, run_series, us
from fairnet.paper.soze.common import soze_engine
from fairnet.paper.tables import Column, ResultTable, key
from fairnet.paper.uranus.common import LONG, WIRE

PER_HOP = 2
SEEDS = {"smoke": 3, "full": 20}
#: Per configuration: scheme, hops, link rate (Gb/s), link delay (µs), run length per scale (s).
CONFIGS = (
    ("WVCC", 1, 10, 10, {"smoke": 0.02, "full": 0.2}),
    ("WVCC", 1, 100, 1, {"smoke": 0.005, "full": 0.05}),
    ("Söze", 1, 100, 1, {"smoke": 0.005, "full": 0.05}),
    ("WVCC", 3, 10, 10, {"smoke": 0.02, "full": 0.2}),
    ("WVCC", 3, 100, 1, {"smoke": 0.005, "full": 0.05}),
    ("Söze", 3, 100, 1, {"smoke": 0.005, "full": 0.05}),
)


def paths(hops: int) -> list[list[int]]:
    """Each flow's hops (link ids): the long flow every hop, cross flow p hop (p − 1)/PER_HOP."""
    return [[2 * j for j in range(hops)]] + [
        [2 * ((p - 1) // PER_HOP)] for p in range(1, hops * PER_HOP + 1)
    ]


def dctcp_k(gbps: int, delay_us: float, hops: int) -> int:
    """DCTCP's K = C·RTT/7 in packets, RTT the long flow's base round trip (2·(hops + 2) links)."""
    rtt = 2 * (hops + 2) * delay_us * 1e-6
    return math.ceil(gbps * 1e9 * rtt / 7 / (8 * WIRE))


def scenario(
    scheme: str, hops: int, gbps: int, delay_us: float, weights: list[float], seconds: float
) -> dict[str, Any]:
    """The parking lot with one flow per host pair (pair p: hosts 2p → 2p + 1)."""
    flows = [
        {"src": 2 * p, "dst": 2 * p + 1, "weight": w, "size": LONG} for p, w in enumerate(weights)
    ]
    interval = us(seconds / 200)
    if scheme == "WVCC":
        engine: dict[str, Any] = {
            "kind": "packet",
            "transport": "reno",
            "host_shim": "wvcc",
            "qdisc": {"kind": "ecn", "k": {"packets": dctcp_k(gbps, delay_us, hops)}},
            "record": {"interval": interval},
        }
    else:
        engine = soze_engine(record={"interval": interval})
    return {
        "name": f"uranus-accuracy {scheme} {hops} hops {gbps} Gb/s",
        "topology": {
            "kind": "parking_lot",
            "n_hops": hops,
            "per_hop_hosts": PER_HOP,
            "rate": f"{gbps}Gbps",
            "delay": f"{delay_us:g}us",
        },
        "workload": {"kind": "flows", "flows": flows},
        "engine": engine,
        "stop_at": us(seconds),
    }


def run(scale: str, outdir: Path, console: Console) -> PaperResult:
    rows: list[dict[str, Any]] = []
    errors: dict[str, list[float]] = {}
    for seed in range(1, SEEDS[scale] + 1):
        for scheme, hops, gbps, delay, length in CONFIGS:
            n = len(paths(hops))
            rng = np.random.default_rng(seed)
            weights = [float(w) for w in rng.uniform(1.0, 4.0, n)]
            seconds = length[scale]
            s = run_series(scenario(scheme, hops, gbps, delay, weights, seconds), n)
            want = oracle([gbps * 1e9] * (2 * hops), paths(hops), weights)
            got = s.mean(seconds / 2, seconds)
            err = np.abs(got - want) / want
            label = f"{scheme}, {hops} hop{'s' if hops > 1 else ''}, {gbps} Gb/s"
            errors.setdefault(label, []).extend(float(e) for e in err)
            for f in range(n):
                rows.append(
                    {
                        "scheme": scheme,
                        "hops": hops,
                        "gbps": gbps,
                        "seed": seed,
                        "flow": f,
                        "weight": weights[f],
                        "gbps_got": float(got[f] / 1e9),
                        "gbps_oracle": float(want[f] / 1e9),
                        "error": float(err[f]),
                    }
                )
    table = ResultTable(
        f"Uranus accuracy ({scale}): parking lots of 1 and 3 hops, {PER_HOP} cross flows per "
        f"hop, weights in [1, 4], {SEEDS[scale]} seeds",
        (
            key("scheme"),
            Column("mean error", "ours"),
            Column("p95 error", "ours"),
            Column("max error", "ours"),
            Column("within 10%", "ours"),
        ),
        note="Error: |mean throughput over the run's second half - the oracle's weighted "
        "max-min rate| / that rate, over every flow of every seed. The paper reports no "
        "multi-bottleneck accuracy for WVCC; on one link (1 hop) it claims the weighted shares.",
    )
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    for label, errs in errors.items():
        e = np.sort(np.array(errs))
        p95 = float(e[min(len(e) - 1, math.ceil(0.95 * len(e)) - 1)])
        table.add_row(
            label,
            f"{e.mean() * 100:.1f}%",
            f"{p95 * 100:.1f}%",
            f"{e.max() * 100:.1f}%",
            f"{(e <= 0.10).mean() * 100:.0f}%",
        )
        plot_cdf(ax, e * 100, label)
    ax.set_xlabel("relative error vs weighted max-min (%)")
    ax.set_ylabel("CDF over flows")
    ax.legend(fontsize=7)
    table.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "uranus-accuracy"), [table])


ENTRY = Entry(
    name="uranus-accuracy",
    title="WVCC against the oracle on a parking lot with random weights, at 10 and 100 Gb/s, "
    "beside Söze",
    paper="Uranus (WVCC), beyond the paper",
    figure="-",
    scales={
        "smoke": "parking lots of 1 hop (3 flows) and 3 hops (7 flows), weights in [1, 4], "
        "3 seeds; 20 ms at 10 Gb/s, 5 ms at 100 Gb/s",
        "full": "20 seeds; 200 ms at 10 Gb/s, 50 ms at 100 Gb/s",
    },
    run_fn=run,
)
