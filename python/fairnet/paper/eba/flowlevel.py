"""eBA at flow level from Python: VM-to-VM transfers on the fluid engine under LRC, reservation
or best effort (``fairnet::systems::eba::flow_level``, bound as ``_core.eba_flow_run``), and the
measures the flow-level entries share."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairnet import _core
from fairnet.errors import InputError

#: The paper's simulation parameters (§VII-C): α = β = 2 s⁻¹, τ_v = 50 ms, τ_r = 100 ms; μ =
#: 0.9 (§VI-B, the testbed's).
TAU_V_S = 0.05
TAU_R_S = 0.1
ALPHA = 2.0
BETA = 2.0
MU = 0.9


@dataclass
class Vms:
    """VMs as parallel lists: host node id, guarantee (bit/s), weight."""

    host: list[int] = field(default_factory=list)
    guarantee: list[float] = field(default_factory=list)
    weight: list[float] = field(default_factory=list)

    def add(self, host: int, guarantee: float, weight: float = 1.0) -> int:
        """Adds a VM; returns its index."""
        self.host.append(host)
        self.guarantee.append(guarantee)
        self.weight.append(weight)
        return len(self.host) - 1


@dataclass
class Transfers:
    """Transfers between VMs as parallel lists."""

    src_vm: list[int] = field(default_factory=list)
    dst_vm: list[int] = field(default_factory=list)
    size: list[int] = field(default_factory=list)
    start_s: list[float] = field(default_factory=list)
    tag: list[int] = field(default_factory=list)
    demand: list[float] = field(default_factory=list)

    def add(
        self,
        src_vm: int,
        dst_vm: int,
        size: int,
        start_s: float = 0.0,
        tag: int = 0,
        demand: float = float("inf"),
    ) -> None:
        self.src_vm.append(src_vm)
        self.dst_vm.append(dst_vm)
        self.size.append(size)
        self.start_s.append(start_s)
        self.tag.append(tag)
        self.demand.append(demand)


def lrc_config(
    tau_v_s: float = TAU_V_S,
    tau_r_s: float = TAU_R_S,
    alpha: float = ALPHA,
    beta: float = BETA,
    mu: float = MU,
    uniform_increase: bool = False,
) -> dict[str, Any]:
    """LRC's ``[eba]`` table. With ``uniform_increase`` (§VI-B) α and β are rescaled from the
    paper's base intervals (τ_v = 50 ms, τ_r = 100 ms) so that ατ_v and βτ_r stay the same."""
    if uniform_increase:
        alpha = alpha * TAU_V_S / tau_v_s
        beta = beta * TAU_R_S / tau_r_s
    return {
        "alpha": alpha,
        "beta": beta,
        "tau_v": round(tau_v_s * 1e12),
        "tau_r": round(tau_r_s * 1e12),
        "mu": mu,
    }


def run(
    topology: dict[str, Any],
    vms: Vms,
    transfers: Transfers,
    control: str,
    lrc: dict[str, Any] | None = None,
    *,
    rate_interval_s: float | None = None,
    stop_at_s: float | None = None,
    initial_rate: float = 1e6,
) -> dict[str, Any]:
    """One flow-level run; the engine's dict (``end_ps``, ``group_*``, ``rate_*``, …, and
    ``oracle_distance``: the VM-flows' distance from the oracle's allocation with guarantees
    over the run's last settled stretch, or None; :func:`oracle_columns`)."""
    config: dict[str, Any] = {}
    if rate_interval_s is not None:
        config["rate_interval"] = round(rate_interval_s * 1e12)
    if stop_at_s is not None:
        config["stop_at"] = round(stop_at_s * 1e12)
    try:
        return dict(
            _core.eba_flow_run(
                json.dumps(topology),
                np.asarray(vms.host, dtype=np.int64),
                np.asarray(vms.guarantee, dtype=np.float64),
                np.asarray(vms.weight, dtype=np.float64),
                np.asarray(transfers.src_vm, dtype=np.int64),
                np.asarray(transfers.dst_vm, dtype=np.int64),
                np.asarray(transfers.size, dtype=np.int64),
                np.round(np.asarray(transfers.start_s, dtype=np.float64) * 1e12).astype(np.int64),
                np.asarray(transfers.tag, dtype=np.int64),
                np.asarray(transfers.demand, dtype=np.float64),
                control,
                json.dumps(lrc or {}),
                json.dumps(config),
                initial_rate,
            )
        )
    except ValueError as e:
        raise InputError(str(e)) from None


def oracle_columns(res: dict[str, Any]) -> dict[str, Any]:
    """A run's distance from the oracle (``fairnet::systems::eba::oracle``, as a scenario's
    ``summary.json`` ``eba.oracle_distance``): Jain's index of the VM-flows' rates against the
    oracle's weighted max-min allocation with guarantees on μC, the largest relative error, and
    the window compared (the second half of the last stretch without arrivals or departures).
    NaN and None when no VM-flow was open over a sampled window."""
    d = res["oracle_distance"]
    if d is None:
        return {
            "oracle_jain": float("nan"),
            "oracle_max_rel_error": float("nan"),
            "oracle_window_s": None,
        }
    return {
        "oracle_jain": float(d["jain_vs_oracle"]),
        "oracle_max_rel_error": float(d["max_rel_error"]),
        "oracle_window_s": [float(t) for t in d["window_s"]],
    }


def rate_series(res: dict[str, Any], flow: int) -> tuple[np.ndarray, np.ndarray]:
    """Sample times (s) and rates (bit/s) of one transfer."""
    sel = res["rate_flow"] == flow
    return res["rate_time_ps"][sel] * 1e-12, res["rate_bps"][sel]


def settling_time(t: np.ndarray, rate: np.ndarray, target: float, tol: float) -> float:
    """The first time after which ``rate`` stays within ``tol`` of ``target`` (``t[0]`` if it
    always is; NaN if it is outside at the last sample)."""
    outside = np.nonzero(np.abs(rate / target - 1.0) > tol)[0]
    if outside.size == 0:
        return float(t[0])
    last = int(outside[-1])
    return float("nan") if last + 1 >= t.size else float(t[last + 1])
