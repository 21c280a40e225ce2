"""Shared pieces of the Söze packet-level reproductions (Fig. 2, 14, 17): the engine settings of
Söze §4–§5 and the step-in/step-out workloads; the time-series helpers (runs with
``engine.record``, rate matrices, phase means, the oracle, convergence times, rate plots) are
:mod:`fairnet.paper.series`, re-exported here for the Söze entries.

Setup (Söze §5, "NS-3 simulator setup"): 100 Gb/s links, 1 µs link delay, 32 MB buffers,
1000 B payload — the defaults of fairnet's topologies and packet engine. Söze's parameters
are §4's (p = 20 µs, k = 3 µs, m = 0.25; per-packet updates from a per-RTT reference rate,
paced under the window rate·RTT; the engine's defaults), with the backlog queueing-delay
signal (the sojourn time describes the queue one sojourn late: Fig. 2 settles slower and
further off), no switch filter (with §4's 10 µs Tofino filter on the sojourn time Fig. 2's
rates stay ~15% off on average), host NICs that queue data so their
delay enters maxQD (``host_nic = "queue"``: a flow bottlenecked at its own uplink needs the
signal too) and ACKs ahead of data at every port (``ack_first``, as HPCC's ns-3 simulator
that Söze's builds on). Why: see ``docs/systems/soze.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fairnet.paper.series import (
    Series,
    max_err,
    oracle,
    plot_rates,
    run_series,
    us,
)

#: Line rate of every link (Söze §5: "100 Gbps links").
LINK_BPS = 100e9
#: Sampling interval of the rate and queue series.
INTERVAL = "10us"
INTERVAL_S = 10e-6
#: Payload and wire bytes of a full packet (Söze §5: 1000 B payload; the engine's 48 B header).
PAYLOAD, WIRE = 1000, 1048
#: A flow that never ends within a run (bytes).
LONG = 10**13
#: Söze §4's target-function parameters (seconds).
P_S, K_S = 20e-6, 3e-6


def weight_steps(flow: int, weights: Sequence[float], phase_s: float) -> list[dict[str, Any]]:
    """``weight_changes`` setting ``flow``'s weight to ``weights[k]`` at ``k·phase_s`` (for
    k ≥ 1; ``weights[0]`` is its weight from the start)."""
    return [
        {"at": us(k * phase_s), "flow": flow, "weight": w} for k, w in enumerate(weights) if k > 0
    ]


def soze_engine(**extra: Any) -> dict[str, Any]:
    """The packet engine running Söze as §4–§5 (see the module doc), recording every 10 µs."""
    return {
        "kind": "packet",
        "transport": "soze",
        "qdelay_signal": "backlog",
        "host_nic": "queue",
        "ack_first": True,
        "record": {"interval": INTERVAL},
    } | extra


def hpcc_engine() -> dict[str, Any]:
    """The packet engine running HPCC (Söze §4: W_AI = 80 B, maxStage = 5, η = 95%)."""
    return {
        "kind": "packet",
        "transport": "hpcc",
        "port_agent": "int",
        "record": {"interval": INTERVAL},
    }


def target_delay(rate_per_weight: float, alpha: float, beta: float) -> float:
    """Söze Eq. 6: ``T(r/w) = p·(ln α − ln(r/w))/(ln α − ln β) + k`` (seconds)."""
    return (
        P_S * (math.log(alpha) - math.log(rate_per_weight)) / (math.log(alpha) - math.log(beta))
        + K_S
    )


def step_sizes(n: int, rate_bps: float, phase: float) -> list[int]:
    """Payload bytes (1000 B payload per 1048 B on the wire) of ``n`` flows into one port of
    ``rate_bps`` such that, when flow i starts at i·phase and the port is shared equally, flow i
    ends at (n + i)·phase: the step-in & step-out of Figs. 12 and 14 (1 → n → 1 flows)."""
    counts = [min(k + 1, n, 2 * n - 1 - k) for k in range(2 * n - 1)]
    out = []
    for i in range(n):
        wire_bits = sum(rate_bps * phase / counts[k] for k in range(i, i + n))
        out.append(round(wire_bits / 8 * PAYLOAD / WIRE))
    return out


def step_flows(n: int, dst: int, rate_bps: float, phase: float) -> list[dict[str, Any]]:
    """The step-in & step-out flows of Figs. 12 and 14 as scenario entries: hosts 0 … n−1 send
    to ``dst``, flow i starting at i·phase with :func:`step_sizes`' size."""
    return [
        {"src": i, "dst": dst, "size": size, "start": us(i * phase)}
        for i, size in enumerate(step_sizes(n, rate_bps, phase))
    ]


def step_phases(s: Series, rate_bps: float) -> list[tuple[float, float, np.ndarray]]:
    """A run's phases (between consecutive flow starts and ends) with the oracle's rates, for
    flows that all cross one port of ``rate_bps`` (:func:`step_sizes`' experiments)."""
    f = s.results.flows
    starts = f["start_s"].to_numpy()
    ends = np.nan_to_num(f["end_s"].to_numpy(), nan=math.inf)
    n = len(starts)
    edges = sorted({*starts.tolist(), *[e for e in ends.tolist() if math.isfinite(e)]})
    out = []
    for a, b in zip(edges, edges[1:], strict=False):
        active = (starts <= a) & (ends >= b)
        paths = [[0] if active[i] else [] for i in range(n)]
        out.append((a, b, oracle([rate_bps], paths, [1.0] * n)))
    return out


def flow_list(flows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Inline flows (``workload.kind = "flows"``) of ``LONG`` bytes unless a size is given."""
    return [{"size": LONG} | dict(f) for f in flows]


__all__ = [
    "INTERVAL",
    "INTERVAL_S",
    "K_S",
    "LINK_BPS",
    "LONG",
    "PAYLOAD",
    "P_S",
    "WIRE",
    "Series",
    "flow_list",
    "hpcc_engine",
    "max_err",
    "oracle",
    "plot_rates",
    "run_series",
    "soze_engine",
    "step_flows",
    "step_phases",
    "step_sizes",
    "target_delay",
    "us",
    "weight_steps",
]
