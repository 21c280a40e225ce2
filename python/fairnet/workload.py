"""Generated problems for the oracle: topologies from the Rust builders, random host pairs,
ECMP paths (per-flow hash) and random weights.

Topologies are described by a spec dict with a ``kind``, exactly as in scenario files:
``{"kind": "fat_tree", "k": 8}``, ``{"kind": "leaf_spine", "hosts_per_leaf": 16, ...}``,
``{"kind": "file", "path": "topology.txt"}`` (HPCC ``.txt``, ``.toml`` or ``.json``). See
docs/topology.md for every kind and field.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from fairnet import _core
from fairnet.errors import InputError
from fairnet.problem_file import ProblemSpec


def _check_arguments(n_flows: int, seed: int, weights: tuple[float, float]) -> None:
    """Arguments the core takes as unsigned integers or a weight range: an
    :class:`InputError` naming the argument instead of an OverflowError."""
    if isinstance(n_flows, bool) or not isinstance(n_flows, int) or n_flows < 1:
        raise InputError(f"n_flows: expected a positive number of flows, got {n_flows!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise InputError(f"seed: expected an integer in [0, 2^64), got {seed!r}")
    lo, hi = weights
    if not (0 < lo <= hi < float("inf")):
        raise InputError(f"weights: expected 0 < lo <= hi (finite), got {weights!r}")


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
    _check_arguments(n_flows, seed, weights)
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise InputError(f"k: must be an even number >= 4, got {k!r}")
    d = _core.fat_tree_problem(k, n_flows, seed, weights[0], weights[1], link_rate)
    return _spec(d, n_flows)


def topology_problem(
    topology: dict[str, Any],
    n_flows: int,
    *,
    seed: int = 1,
    weights: tuple[float, float] = (0.1, 10.0),
) -> ProblemSpec:
    """``n_flows`` flows between random distinct host pairs of the topology ``topology`` (a spec
    dict), on ECMP paths (per-flow hash), with weights uniform in ``weights``."""
    _check_arguments(n_flows, seed, weights)
    d = _core.topology_problem(json.dumps(topology), n_flows, seed, weights[0], weights[1])
    return _spec(d, n_flows)


def topology_info(topology: dict[str, Any]) -> dict[str, Any]:
    """Node, host, switch and link counts of a topology spec, and its distinct link rates."""
    return dict(_core.topology_info(json.dumps(topology)))


def write_topology(topology: dict[str, Any], path: str, fmt: str | None = None) -> None:
    """Builds ``topology`` and writes it as HPCC text, TOML or JSON (default: by extension)."""
    _core.write_topology(json.dumps(topology), str(path), fmt)


def topology_from_path(path: str) -> dict[str, Any]:
    """The spec of a topology file."""
    return {"kind": "file", "path": str(path)}


def _spec(d: dict, n_flows: int) -> ProblemSpec:
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


def window_arrivals(
    src: int,
    dst: int,
    *,
    rate: float,
    mean_size: int,
    start_s: float,
    end_s: float,
    tag: int = 0,
    period_s: float | None = None,
    seed: int = 1,
) -> list[dict[str, Any]]:
    """Flows from host ``src`` to host ``dst`` starting in ``[start_s, end_s)`` at ``rate``
    flows a second, sizes exponential with mean ``mean_size`` bytes, as inline flow rows
    (``src``, ``dst``, ``size``, ``start``, ``tag``) for a ``kind = "flows"`` workload.

    Arrivals are a Poisson process, or with ``period_s`` exactly ``rate · period_s`` flows
    (a whole number) at uniformly random times in every period (eBA §VII-C's short flows:
    "generated uniformly at random in each second"). Deterministic for a given seed
    (``fairnet::workload::window_arrivals``)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise InputError(f"seed: expected an integer in [0, 2^64), got {seed!r}")
    for name, v in (("src", src), ("dst", dst), ("tag", tag), ("mean_size", mean_size)):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**32:
            raise InputError(f"{name}: expected a non-negative integer, got {v!r}")
    for name, s in (("start_s", start_s), ("end_s", end_s), ("period_s", period_s or 0.0)):
        if not (0.0 <= s < float("inf")):
            raise InputError(f"{name}: expected a non-negative time in seconds, got {s!r}")
    period = 0 if period_s is None else round(period_s * 1e12)
    try:
        d = _core.window_arrival_flows(
            src,
            dst,
            tag,
            rate,
            mean_size,
            round(start_s * 1e12),
            round(end_s * 1e12),
            period,
            seed,
        )
    except ValueError as e:
        raise InputError(str(e)) from None
    return [
        {"src": src, "dst": dst, "size": f"{int(size)}B", "start": f"{int(t)}ps", "tag": tag}
        for size, t in zip(d["size"], d["start_ps"], strict=True)
    ]
