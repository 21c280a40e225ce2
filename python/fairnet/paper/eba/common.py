"""What the eBA entries share: the one-link scenario of §VII-A (VMs X and Y on one host
behind a 1 Gb/s link, each sending to its own peer) on the packet engine with eBA's host
shim and per-port rate factors.

Time scale: the ``full`` scale runs the paper's parameters; ``smoke`` the same controller
under §VI-B's *uniform increase* (``ατ_v`` and ``βτ_r`` kept, τ_v and τ_r 100 times smaller),
which changes no step of Eq. (15) and shrinks every time constant 100-fold."""

from __future__ import annotations

from typing import Any

import numpy as np

from fairnet.paper.series import run_series

#: Uniform increase for the smoke scale: every period divided by this.
SMOKE_SPEEDUP = 100.0


def lrc(alpha: float, beta: float, tau_v_s: float, tau_r_s: float, scale: str) -> dict[str, Any]:
    """``[engine.eba.lrc]`` for parameters given at the paper's time scale; at ``smoke`` the
    periods shrink and α, β grow by :data:`SMOKE_SPEEDUP` (uniform increase)."""
    k = SMOKE_SPEEDUP if scale == "smoke" else 1.0
    return {
        "alpha": alpha * k,
        "beta": beta * k,
        "tau_v": f"{tau_v_s / k * 1e6:.6g}us",
        "tau_r": f"{tau_r_s / k * 1e6:.6g}us",
        "mu": 0.9,
    }


def one_link_doc(
    name: str,
    vms: list[dict[str, Any]],
    flows: list[dict[str, Any]],
    lrc_table: dict[str, Any],
    stop_s: float,
    interval_s: float,
    rate_control: str = "lrc",
) -> dict[str, Any]:
    """A star of three hosts on 1 Gb/s links (host 0 sends; 1 and 2 receive), 50 µs a link,
    Reno guests, eBA's shim and port agents, 74 B control packets (§VI-C)."""
    return {
        "name": name,
        "stop_at": f"{stop_s * 1e3:.6g}ms",
        "topology": {
            "kind": "star",
            "n_hosts": 3,
            "rate": "1Gbps",
            "delay": "50us",
            "buffer": "256KB",
        },
        "workload": {"kind": "flows", "flows": flows},
        "engine": {
            "kind": "packet",
            "transport": "reno",
            "host_shim": "eba",
            "port_agent": "eba",
            "routing": "host_pair",
            "control": {"size": "74B"},
            "record": {"interval": f"{interval_s * 1e6:.6g}us", "flows": True},
            "eba": {"rate_control": rate_control, "vms": vms, "lrc": lrc_table},
        },
    }


def vm_flow_means(doc: dict[str, Any], tags: list[int], start_s: float, end_s: float) -> np.ndarray:
    """Runs ``doc`` and returns the mean wire throughput (bit/s) over ``(start_s, end_s]`` of
    each VM-flow, the flows summed by tenant (``tags[i]`` is flow i's tenant)."""
    s = run_series(doc, len(tags))
    per_flow = s.mean(start_s, end_s)
    out = np.zeros(max(tags) + 1)
    for f, t in enumerate(tags):
        out[t] += per_flow[f]
    return out
