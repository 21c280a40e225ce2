"""Shared pieces of the Söze packet-level reproductions (Fig. 2, 14, 17): the engine settings of
Söze §4–§5, runs through :func:`fairnet.run` with the packet engine's time series
(``engine.record``), rate matrices, phase means, the oracle and convergence times.

Setup (Söze §5, "NS-3 simulator setup"): 100 Gb/s links, 1 µs link delay, 32 MB buffers,
1000 B payload — the defaults of fairnet's topologies and packet engine. Söze's parameters
are §4's (p = 20 µs, k = 3 µs, m = 0.25; per-packet updates from a per-RTT reference rate; the
engine's defaults), with the backlog queueing-delay signal (with the sojourn-time signal the
loop oscillates), no switch filter (§4's 10 µs Tofino filter adds lag that makes the loop
oscillate), host NICs that queue data so their delay enters maxQD (``host_nic = "queue"``:
a flow bottlenecked at its own uplink needs the signal too) and ACKs ahead of data at every
port (``ack_first``, as HPCC's ns-3 simulator that Söze's builds on). Why: see
``docs/systems/soze.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import fairnet
from fairnet.alloc import allocate

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


def us(seconds: float) -> str:
    """A scenario time (``start``, ``at``, ``stop_at``) of ``seconds``, in microseconds."""
    return f"{seconds * 1e6:g}us"


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


@dataclass
class Series:
    """A run's samples as matrices: ``rates[i, f]`` wire throughput (bit/s) of flow ``f`` in
    the interval ending at ``times[i]`` (0 when inactive), ``queues[link][i]`` queue delay (s)."""

    times: np.ndarray
    rates: np.ndarray
    queues: dict[int, np.ndarray]
    results: fairnet.Results

    def mean(self, a: float, b: float) -> np.ndarray:
        """Each flow's mean throughput over the samples in ``(a, b]``."""
        sel = (self.times > a + 1e-12) & (self.times <= b + 1e-12)
        return self.rates[sel].mean(axis=0)

    def mean_qdelay(self, link: int, a: float, b: float) -> float:
        """Mean queueing delay (s) of ``link`` over the samples in ``(a, b]`` (0: never queued)."""
        if link not in self.queues:
            return 0.0
        sel = (self.times > a + 1e-12) & (self.times <= b + 1e-12)
        return float(self.queues[link][sel].mean())

    def convergence(
        self, t0: float, t1: float, want: np.ndarray, tol: float = 0.10, window: int = 2
    ) -> float:
        """Time after ``t0`` until every flow with a positive oracle rate stays within ``tol``
        of it (means over ``window`` samples, i.e. 20 µs) up to ``t1``; ``inf`` if it never
        gets there, 0 if it is never off, ``nan`` if the phase holds fewer than ``window``
        samples."""
        sel = np.nonzero((self.times > t0 + 1e-12) & (self.times <= t1 + 1e-12))[0]
        if len(sel) < window:
            return math.nan  # a phase too short to judge
        active = want > 0
        last_bad = t0
        for j in range(len(sel) - window + 1):
            idx = sel[j : j + window]
            got = self.rates[idx].mean(axis=0)
            err = np.abs(got[active] - want[active]) / want[active]
            if err.max(initial=0.0) > tol:
                last_bad = float(self.times[idx[-1]])
        if last_bad >= float(self.times[sel[-1]]) - 1e-12 and last_bad > t0:
            return math.inf
        return last_bad - t0


def run_series(doc: Mapping[str, Any], n_flows: int) -> Series:
    """Runs a scenario document whose engine records (``engine.record``) and returns its
    samples as matrices."""
    r = fairnet.run(dict(doc))
    rates = r.rates
    if rates is None:
        raise RuntimeError("the run recorded no rate samples (engine.record missing?)")
    times = np.unique(rates["time_s"].to_numpy())
    idx = np.searchsorted(times, rates["time_s"].to_numpy())
    mat = np.zeros((len(times), n_flows))
    mat[idx, rates["flow"].to_numpy()] = rates["rate_bps"].to_numpy()
    queues: dict[int, np.ndarray] = {}
    q = r.queues
    if q is not None:
        for link in np.unique(q["link"].to_numpy()):
            sub = q.filter(q["link"] == int(link))
            series = np.zeros(len(times))
            pos = np.searchsorted(times, sub["time_s"].to_numpy())
            ok = pos < len(times)
            series[pos[ok]] = sub["qdelay_s"].to_numpy()[ok]
            queues[int(link)] = series
    return Series(times, mat, queues, r)


def oracle(
    links: Sequence[float], paths: Sequence[Sequence[int]], weights: Sequence[float]
) -> np.ndarray:
    """The exact weighted max-min rates (bit/s) of ``paths`` over ``links`` (:func:`allocate`);
    a flow with an empty path is inactive (rate 0)."""
    active = [i for i, p in enumerate(paths) if p]
    out = np.zeros(len(paths))
    if active:
        a = allocate(list(links), [list(paths[i]) for i in active], [weights[i] for i in active])
        out[active] = a.rates
    return out


def max_err(got: np.ndarray, want: np.ndarray) -> float:
    """Largest relative error over the flows the oracle gives a positive rate."""
    m = want > 0
    return float((np.abs(got[m] - want[m]) / want[m]).max(initial=0.0))


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


def plot_rates(
    ax: Any,
    times: np.ndarray,
    rates: np.ndarray,
    labels: Sequence[str],
    oracle_steps: Sequence[tuple[float, float, np.ndarray]] = (),
    window: int = 5,
) -> None:
    """Each flow's throughput (``rates[i, f]`` bit/s at ``times[i]`` s; drawn in Gb/s, means
    over ``window`` samples) against time (ms), with the oracle's rates per phase as dashed
    lines in the same colours."""
    k = max(1, window)
    n = len(times) // k * k
    t = times[:n].reshape(-1, k)[:, -1] * 1e3
    r = rates[:n].reshape(-1, k, rates.shape[1]).mean(axis=1) / 1e9
    colours = [f"C{i}" for i in range(len(labels))]
    for f, label in enumerate(labels):
        ax.plot(t, r[:, f], color=colours[f], lw=1.0, label=label)
    for a, b, want in oracle_steps:
        for f in range(len(labels)):
            if want[f] > 0:
                ax.plot([a * 1e3, b * 1e3], [want[f] / 1e9] * 2, "--", color=colours[f], lw=0.9)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("throughput (Gb/s)")
