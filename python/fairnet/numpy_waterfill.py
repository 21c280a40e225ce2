"""A vectorized NumPy + scipy.sparse weighted water-filling: the yardstick the oracle is
measured against in ``fairnet bench allocate`` (issue 25), never used to compute results.

Textbook progressive filling (Bertsekas & Gallager, *Data Networks*, max-min flow control),
with weights: raise a common level ``t`` (bits/s per unit of weight); every link's level is its
remaining capacity over the weight of its unfrozen flows; in each iteration every link whose
level is within a relative 1e-9 of the lowest (the tolerance of the oracle's own iterations,
``fairnet::alloc::REL_TOL``) is saturated at once, and every unfrozen flow crossing one of them
is frozen at ``w_f`` times the lowest level among the saturated links on its path. The frozen
flows' rates and weights are then taken off every link on their paths with ``np.bincount``.

Written the way a researcher would write a fast NumPy solver: the routing matrix as a CSR
incidence matrix (flows × links) and its transpose (links × flows), built once by scipy;
per-iteration work is whole-array operations over the links and over the incidences of the
flows frozen in that iteration. Weights only (no caps or guarantees: the benchmark problems have
none). Needs scipy (``pip install 'fairnet[bench]'``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: Links whose level is within this relative distance of the lowest saturate in the same
#: iteration (the oracle's ``REL_TOL``).
TIE_TOL = 1e-9


@dataclass
class NumpyWaterfill:
    """Rates (bits/s) and the number of iterations (``N_inf``) of the NumPy water-filling."""

    rates: np.ndarray
    iterations: int


def _rows(ptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions in a CSR's index array of the entries of ``rows``, and each row's length."""
    starts = ptr[rows]
    counts = ptr[rows + 1] - starts
    first = np.cumsum(counts) - counts  # where each row begins in the output
    return np.repeat(starts - first, counts) + np.arange(first[-1] + counts[-1]), counts


def waterfill(
    capacities: npt.ArrayLike,
    indptr: npt.ArrayLike,
    indices: npt.ArrayLike,
    weights: npt.ArrayLike,
) -> NumpyWaterfill:
    """Weighted max-min rates of single-path flows: flow ``f`` crosses the links
    ``indices[indptr[f]:indptr[f + 1]]`` (CSR); ``weights`` are positive."""
    from scipy import sparse

    cap = np.asarray(capacities, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    ptr = np.asarray(indptr, dtype=np.int64)
    idx = np.asarray(indices, dtype=np.int64)
    n_flows, n_links = len(ptr) - 1, len(cap)

    incidence = sparse.csr_matrix(
        (np.ones(len(idx), dtype=np.int8), idx, ptr), shape=(n_flows, n_links)
    )
    by_link = incidence.T.tocsr()  # links × flows
    flow_ptr, flow_links = incidence.indptr.astype(np.int64), incidence.indices
    link_ptr, link_flows = by_link.indptr.astype(np.int64), by_link.indices

    remaining = cap.copy()  # capacity minus the rates of frozen flows
    weight = np.bincount(flow_links, weights=np.repeat(w, np.diff(flow_ptr)), minlength=n_links)
    unfrozen_on = np.diff(link_ptr)  # unfrozen flows per link
    frozen = np.zeros(n_flows, dtype=bool)
    first_seen = np.zeros(n_flows, dtype=np.int64)  # scratch to drop duplicates without a sort
    rates = np.zeros(n_flows)
    level = np.empty(n_links)
    iterations = 0
    while True:
        # A link with no unfrozen flow has level inf.
        live = unfrozen_on > 0
        level.fill(np.inf)
        np.divide(remaining, weight, out=level, where=live)
        t = level.min()
        if t == np.inf:
            break
        iterations += 1
        tied = np.flatnonzero(level <= t + TIE_TOL * abs(t))
        # The unfrozen flows crossing a tied link (a flow on two tied links once).
        at, _ = _rows(link_ptr, tied)
        candidates = link_flows[at]
        candidates = candidates[~frozen[candidates]]
        order = np.arange(len(candidates))
        first_seen[candidates[::-1]] = order[::-1]
        flows = candidates[first_seen[candidates] == order]
        # Each freezes at the lowest level among the (tied) links on its path.
        at, counts = _rows(flow_ptr, flows)
        links_of = flow_links[at]
        r = w[flows] * np.minimum.reduceat(level[links_of], np.cumsum(counts) - counts)
        rates[flows] = r
        frozen[flows] = True
        remaining -= np.bincount(links_of, weights=np.repeat(r, counts), minlength=n_links)
        weight -= np.bincount(links_of, weights=np.repeat(w[flows], counts), minlength=n_links)
        unfrozen_on -= np.bincount(links_of, minlength=n_links)
    return NumpyWaterfill(rates=rates, iterations=iterations)
