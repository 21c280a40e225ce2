"""What the eBA entries share: the one-link scenario of §VII-A (VMs X and Y on one host
behind a 1 Gb/s link, each sending to its own peer) on the packet engine with eBA's host
shim and per-port rate factors.

Time scale: the ``full`` scale runs the paper's parameters; ``smoke`` the same controller
under §VI-B's *uniform increase* (``ατ_v`` and ``βτ_r`` kept, τ_v and τ_r 100 times smaller),
which changes no step of Eq. (15) and shrinks every time constant 100-fold."""

from __future__ import annotations

from typing import Any

import numpy as np

from fairnet.paper.series import Series, run_series

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


#: Links a control packet crosses on its round trip in :func:`one_link_doc`'s star: host 0's
#: NIC and the switch's port to the receiver, then the same two back.
ROUND_TRIP_LINKS = 4


def per_link_loss(round_trip_loss: float, links: int = ROUND_TRIP_LINKS) -> float:
    """The engine's per-port control-packet loss (``engine.control.loss``) that loses a control
    packet crossing ``links`` links with probability ``round_trip_loss``:
    ``1 − (1 − L)^(1/links)``."""
    return 1.0 - (1.0 - round_trip_loss) ** (1.0 / links)


def one_link_doc(
    name: str,
    vms: list[dict[str, Any]],
    flows: list[dict[str, Any]],
    lrc_table: dict[str, Any],
    stop_s: float,
    interval_s: float,
    rate_control: str = "lrc",
    *,
    delay: str = "50us",
    control_loss: float = 0.0,
    tcp_like: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A star of three hosts on 1 Gb/s links (host 0 sends; 1 and 2 receive), ``delay`` a link,
    Reno guests, eBA's shim and port agents, 74 B control packets (§VI-C), each port losing a
    control packet with probability ``control_loss``; ``tcp_like`` is
    ``[engine.eba.tcp_like]``."""
    eba: dict[str, Any] = {"rate_control": rate_control, "vms": vms, "lrc": lrc_table}
    if tcp_like is not None:
        eba["tcp_like"] = tcp_like
    control: dict[str, Any] = {"size": "74B"}
    if control_loss > 0:
        control["loss"] = control_loss
    return {
        "name": name,
        "stop_at": f"{stop_s * 1e3:.6g}ms",
        "topology": {
            "kind": "star",
            "n_hosts": 3,
            "rate": "1Gbps",
            "delay": delay,
            "buffer": "256KB",
        },
        "workload": {"kind": "flows", "flows": flows},
        "engine": {
            "kind": "packet",
            "transport": "reno",
            "host_shim": "eba",
            "port_agent": "eba",
            "routing": "host_pair",
            "control": control,
            "record": {"interval": f"{interval_s * 1e6:.6g}us", "flows": True},
            "eba": eba,
        },
    }


def vm_flow_series(doc: dict[str, Any], tags: list[int]) -> Series:
    """Runs ``doc`` and returns its samples with one column per VM-flow (tenant), the flows
    summed by tenant (``tags[i]`` is flow i's tenant)."""
    s = run_series(doc, len(tags))
    rates = np.zeros((len(s.times), max(tags) + 1))
    for f, t in enumerate(tags):
        rates[:, t] += s.rates[:, f]
    return Series(s.times, rates, s.queues, s.results)


def vm_flow_means(doc: dict[str, Any], tags: list[int], start_s: float, end_s: float) -> np.ndarray:
    """Runs ``doc`` and returns the mean wire throughput (bit/s) over ``(start_s, end_s]`` of
    each VM-flow, the flows summed by tenant (``tags[i]`` is flow i's tenant)."""
    return vm_flow_series(doc, tags).mean(start_s, end_s)


def smoothed(s: Series, window: int) -> tuple[np.ndarray, np.ndarray]:
    """Means over ``window`` consecutive samples (non-overlapping): times at each block's end
    and the rates, one column per VM-flow."""
    n = len(s.times) // window * window
    t = s.times[:n].reshape(-1, window)[:, -1]
    r = s.rates[:n].reshape(-1, window, s.rates.shape[1]).mean(axis=1)
    return t, r


def undershoot(s: Series, flow: int, t0: float, target: float, window: int) -> float:
    """How far VM-flow ``flow``'s throughput (means over ``window`` samples) falls below
    ``target`` after ``t0``, relative to ``target`` (0 if it never does)."""
    t, r = smoothed(s, window)
    after = r[t > t0 + 1e-12, flow]
    return float(max(0.0, 1.0 - after.min(initial=target) / target))
