"""The flow-level (fluid) engine from Python.

Flows share links at their exact weighted max-min fair rates, recomputed (incrementally) at
every arrival, completion and weight change. See docs/flow-engine.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fairnet import _core
from fairnet.alloc import paths_to_csr

#: Named flow-size distributions, files of the shared data folder (see its README).
CDF_FILES = {
    "websearch": "WebSearch_distribution.txt",
    "datamining": "DataMining_VL2.txt",
    "hadoop": "FbHdp_distribution.txt",
    "googlerpc": "GoogleRPC2008.txt",
    "alistorage": "AliStorage2019.txt",
}


#: The package's copy of the shared flow-size distributions (and their README, with origins).
CDF_DIR = Path(__file__).resolve().parent / "data" / "flow-size-cdf"


def cdf_path(name_or_path: str) -> str:
    """The file of a named distribution (``websearch``, ``datamining``, ``hadoop``,
    ``googlerpc``, ``alistorage``) or the path given."""
    if name_or_path in CDF_FILES:
        return str(CDF_DIR / CDF_FILES[name_or_path])
    return name_or_path


def poisson_flows(
    topology: dict[str, Any], cdf: str, load: float, n_flows: int, *, seed: int = 1
) -> dict[str, np.ndarray]:
    """``n_flows`` flows between random host pairs, sizes from ``cdf``, Poisson arrivals
    offering ``load`` of the hosts' access capacity. Arrays: src, dst, size, start_ps."""
    return dict(_core.poisson_workload(json.dumps(topology), cdf_path(cdf), load, n_flows, seed))


@dataclass
class FlowSimResult:
    """What a fluid run produced: per-flow columns, per-group (tag) completion, rate samples."""

    flows: dict[str, np.ndarray]
    groups: dict[str, np.ndarray]
    rates: dict[str, np.ndarray]
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def fct_seconds(self) -> np.ndarray:
        """FCT of every flow in seconds (NaN if unfinished)."""
        end = self.flows["end_ps"].astype(float)
        fct = (end - self.flows["start_ps"]) / 1e12
        return np.where(end >= 0, fct, np.nan)


def run(
    topology: dict[str, Any],
    flows: dict[str, Any],
    *,
    weight_changes: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
    policy: str | None = None,
) -> FlowSimResult:
    """Simulates ``flows`` on ``topology`` (a spec dict).

    ``flows`` has arrays ``src``, ``dst`` (host node ids), ``size`` (bytes), ``start_ps``, and
    optionally ``weight`` (default 1), ``tag`` (default 0), ``demand`` (bits/s, ``inf`` = none),
    ``guarantee`` (bits/s), ``path`` (per flow a list of link ids, empty = ECMP) and ``deps``
    (per flow a list of flow indices that must end first). ``weight_changes`` has arrays
    ``time_ps``, ``flow``, ``weight``. ``config`` keys: ``start_latency``, ``header_bytes``,
    ``mtu``, ``ecmp_seed``, ``rate_interval``, ``stop_at`` (durations as ``"1us"`` strings or
    integer picoseconds), ``allocator`` (``"incremental"`` or ``"recompute"``), ``classes``
    (``True``: flows of one path, weight and cap share one rate and clock; docs/flow-engine.md,
    "Classes"). ``policy``
    (``"job_sum_preserving"``, Söze §5.1) rescales the weights of each job's (tag's) active
    flows at every arrival and departure to sum to their number, keeping the ratios of
    ``weight``.
    """
    src = np.ascontiguousarray(flows["src"], dtype=np.int64)
    n = len(src)
    weight = np.ascontiguousarray(flows.get("weight", np.ones(n)), dtype=np.float64)
    tag = np.ascontiguousarray(flows.get("tag", np.zeros(n)), dtype=np.int64)
    changes: dict[str, Any] = {}
    if weight_changes is not None:
        changes = {
            "change_time_ps": np.ascontiguousarray(weight_changes["time_ps"], dtype=np.int64),
            "change_flow": np.ascontiguousarray(weight_changes["flow"], dtype=np.int64),
            "change_weight": np.ascontiguousarray(weight_changes["weight"], dtype=np.float64),
        }
    extra: dict[str, Any] = {}
    for key in ("demand", "guarantee"):
        if key in flows:
            extra[key] = np.ascontiguousarray(flows[key], dtype=np.float64)
    for key, (ptr_name, values_name) in {
        "path": ("path_ptr", "path_links"),
        "deps": ("deps_ptr", "deps"),
    }.items():
        if key in flows:
            extra[ptr_name], extra[values_name] = paths_to_csr(flows[key])
    out = dict(
        _core.flow_run(
            json.dumps(topology),
            src,
            np.ascontiguousarray(flows["dst"], dtype=np.int64),
            np.ascontiguousarray(flows["size"], dtype=np.int64),
            np.ascontiguousarray(flows["start_ps"], dtype=np.int64),
            weight,
            tag,
            json.dumps(config or {}),
            **changes,
            **extra,
            policy=policy,
        )
    )
    flow_cols = {
        "flow": np.arange(n),
        "src": src,
        "dst": np.asarray(flows["dst"]),
        "size": np.asarray(flows["size"]),
        "tag": tag,
    }
    for key in ("start_ps", "end_ps", "ideal_fct_ps", "slowdown"):
        flow_cols[key] = out.pop(key)
    groups = {k.removeprefix("group_"): out.pop(k) for k in list(out) if k.startswith("group_")}
    rates = {k.removeprefix("rate_"): out.pop(k) for k in list(out) if k.startswith("rate_")}
    return FlowSimResult(flows=flow_cols, groups=groups, rates=rates, stats=out)
