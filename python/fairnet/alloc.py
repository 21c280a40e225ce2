"""The weighted max-min oracle from Python.

``allocate`` computes the exact weighted max-min fair rates (with optional per-flow caps and
minimum guarantees); ``check_allocation`` verifies any rate vector against the same problem with
an independent checker. Rates and capacities are bits per second.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from fairnet import _core

PathsLike = Sequence[Sequence[int]] | tuple[npt.ArrayLike, npt.ArrayLike]


def _float_array(name: str, values: npt.ArrayLike | None, n: int | None) -> np.ndarray | None:
    if values is None:
        return None
    try:
        a = np.ascontiguousarray(values, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name}: expected numbers ({e})") from None
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-d array, got shape {a.shape}")
    if n is not None and a.shape[0] != n:
        raise ValueError(f"{name}: has {a.shape[0]} entries but there are {n} flows")
    return a


def paths_to_csr(paths: PathsLike) -> tuple[np.ndarray, np.ndarray]:
    """Turns a list of link-index lists, or a CSR pair ``(indptr, indices)``, into int64 arrays."""
    if isinstance(paths, tuple) and len(paths) == 2 and not isinstance(paths[0], list | tuple):
        indptr = np.ascontiguousarray(paths[0], dtype=np.int64)
        indices = np.ascontiguousarray(paths[1], dtype=np.int64)
        return indptr, indices
    lengths = np.fromiter((len(p) for p in paths), dtype=np.int64, count=len(paths))
    indptr = np.zeros(len(paths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    try:
        indices = np.fromiter(
            itertools.chain.from_iterable(paths), dtype=np.int64, count=int(indptr[-1])
        )
    except (TypeError, ValueError) as e:
        raise ValueError(
            f"paths: every path must be a list of integer link indices ({e})"
        ) from None
    return indptr, indices


class Allocation:
    """The result of :func:`allocate`.

    Attributes are computed once; ``iterations`` runs k-Water-filling for k = 1 and 2 on first
    access (``kinf`` comes free with the solve).
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._rates: np.ndarray | None = None

    @property
    def rates(self) -> np.ndarray:
        """Rate of every flow, bits per second."""
        if self._rates is None:
            self._rates = self._inner.rates
        return self._rates

    @property
    def bottleneck(self) -> np.ndarray:
        """Index of each flow's bottleneck link, -1 if the flow is limited by its demand."""
        return self._inner.bottleneck

    @property
    def link_level(self) -> np.ndarray:
        """Per link, the level (bits/s per unit weight) at which it saturated; NaN if never."""
        return self._inner.link_level

    @property
    def solve_seconds(self) -> float:
        """Wall time of the solve itself (excluding input conversion and validation)."""
        return float(self._inner.solve_seconds)

    @property
    def solve_cpu_seconds(self) -> float:
        """CPU time of the thread that ran the solve (NaN where the OS does not report it);
        steadier than :attr:`solve_seconds` on a loaded machine."""
        cpu = self._inner.solve_cpu_seconds
        return float("nan") if cpu is None else float(cpu)

    @property
    def kinf(self) -> int:
        """N_inf, the number of iterations of standard water-filling (free with the solve)."""
        return int(self._inner.kinf)

    @property
    def iterations(self) -> dict[str, int]:
        """Iterations of k-Water-filling: ``{"k1": N_1, "k2": N_2, "kinf": N_inf}``."""
        return dict(self._inner.iterations)

    def removal_iteration(self, k: int | float) -> np.ndarray:
        """Iteration (1-based) in which k-Water-filling removes each link, -1 if never.

        ``k`` is 1, 2 or ``math.inf``.
        """
        code = 0 if k == float("inf") else int(k)
        return self._inner.removal_iteration(code)

    def __repr__(self) -> str:
        return f"Allocation({len(self.rates)} flows)"


@dataclass(frozen=True)
class CheckReport:
    """What :func:`check_allocation` found; ``ok`` is true iff there is no violation."""

    ok: bool
    max_overload: float
    worst_link: int | None
    max_bound_violation: float
    unfair_flows: int
    worst_flow: int | None
    worst_unfairness: float | None
    message: str


def _problem_arrays(
    capacities: npt.ArrayLike,
    paths: PathsLike,
    weights: npt.ArrayLike | None,
    demands: npt.ArrayLike | None,
    guarantees: npt.ArrayLike | None,
) -> dict[str, Any]:
    caps = _float_array("capacities", capacities, None)
    assert caps is not None
    indptr, indices = paths_to_csr(paths)
    n = len(indptr) - 1
    return {
        "capacities": caps,
        "path_ptr": indptr,
        "path_links": indices,
        "weights": _float_array("weights", weights, n),
        "demands": _float_array("demands", demands, n),
        "guarantees": _float_array("guarantees", guarantees, n),
    }


def allocate(
    capacities: npt.ArrayLike,
    paths: PathsLike,
    weights: npt.ArrayLike | None = None,
    demands: npt.ArrayLike | None = None,
    guarantees: npt.ArrayLike | None = None,
    *,
    flow_names: Sequence[str] | None = None,
    link_names: Sequence[str] | None = None,
) -> Allocation:
    """Exact weighted max-min fair allocation of single-path flows.

    Args:
        capacities: capacity of every link, bits/s.
        paths: per flow, the link indices it crosses (a list of lists), or a CSR pair
            ``(indptr, indices)``.
        weights: per-flow positive weights (default all 1).
        demands: per-flow rate caps, bits/s (``inf`` for none; default uncapped).
        guarantees: per-flow minimum rates, bits/s (default 0). Each flow gets
            ``clamp(w·t, guarantee, demand)`` at the common level ``t``.
        flow_names, link_names: names used in error messages instead of indices.

    Raises:
        ValueError: naming the offending flow or link for invalid input.
    """
    args = _problem_arrays(capacities, paths, weights, demands, guarantees)
    inner = _core.allocate(
        **args,
        flow_names=list(flow_names) if flow_names is not None else None,
        link_names=list(link_names) if link_names is not None else None,
    )
    return Allocation(inner)


def check_allocation(
    capacities: npt.ArrayLike,
    paths: PathsLike,
    rates: npt.ArrayLike,
    weights: npt.ArrayLike | None = None,
    demands: npt.ArrayLike | None = None,
    guarantees: npt.ArrayLike | None = None,
    *,
    tolerance: float | None = None,
    flow_names: Sequence[str] | None = None,
    link_names: Sequence[str] | None = None,
) -> CheckReport:
    """Verifies feasibility and the weighted max-min property of ``rates``.

    Independent of the solver: it sums link loads and checks that every flow below its demand
    has a saturated link where no flow above its guarantee has a larger rate/weight. Reports the
    worst violation. ``tolerance`` is relative (default 1e-6). ``flow_names`` and
    ``link_names`` name items in the message instead of indices.
    """
    args = _problem_arrays(capacities, paths, weights, demands, guarantees)
    r = _float_array("rates", rates, len(args["path_ptr"]) - 1)
    d = _core.check_allocation(
        rates=r,
        tolerance=tolerance,
        flow_names=list(flow_names) if flow_names is not None else None,
        link_names=list(link_names) if link_names is not None else None,
        **args,
    )
    return CheckReport(**d)
