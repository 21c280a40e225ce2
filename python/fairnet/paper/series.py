"""Time-series helpers shared by the paper entries that run packet simulations with
``engine.record``: a run's rate and queue samples as matrices (:class:`Series`: phase means,
convergence times), the oracle's weighted max-min rates of a set of paths, relative errors,
scenario times and rate plots. Used by the Söze and Uranus entries; nothing here is specific
to a paper."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import fairnet
from fairnet.alloc import allocate


def us(seconds: float) -> str:
    """A scenario time (``start``, ``at``, ``stop_at``) of ``seconds``, in microseconds."""
    return f"{seconds * 1e6:g}us"


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
        of it (means over ``window`` samples) up to ``t1``; ``inf`` if it never
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
