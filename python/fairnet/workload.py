"""Generated problems for the oracle: topologies from the Rust builders, random host pairs,
ECMP paths (per-flow hash) and random weights."""

from __future__ import annotations

import numpy as np

from fairnet import _core
from fairnet.problem_file import ProblemSpec


def fat_tree_problem(
    k: int,
    n_flows: int,
    *,
    seed: int = 1,
    weights: tuple[float, float] = (0.1, 10.0),
    link_rate: str = "100Gbps",
) -> ProblemSpec:
    """``n_flows`` flows between uniformly random distinct host pairs of a k-ary fat-tree.

    Every link runs at ``link_rate``; paths are shortest paths chosen by a seeded per-flow ECMP
    hash; weights are uniform in ``weights``. Deterministic for a given seed.
    """
    d = _core.fat_tree_problem(k, n_flows, seed, weights[0], weights[1], link_rate)
    n_links = len(d["capacities"])
    return ProblemSpec(
        link_ids=list(range(n_links)),
        flow_ids=list(range(n_flows)),
        capacities=d["capacities"],
        paths=(d["path_ptr"], d["path_links"]),
        weights=d["weights"],
        demands=None,
        guarantees=None,
    )


def describe(spec: ProblemSpec) -> str:
    """One line about a generated problem."""
    indptr = spec.paths[0]
    mean_len = float(np.diff(indptr).mean()) if len(indptr) > 1 else 0.0
    return (
        f"{len(spec.flow_ids):,} flows on {len(spec.link_ids):,} links, "
        f"mean path {mean_len:.2f} links"
    )
