"""Shared pieces of the Uranus (WVCC) reproductions: the §5.1.2 testbed as a scenario (three
senders and one receiver through one switch, RTT ≈ 1 ms, DCTCP's marking threshold), and the
shared time-series helpers (:mod:`fairnet.paper.series`: runs with ``engine.record``, phase
means, the oracle, convergence times), re-exported for the Uranus entries.

Testbed (§5.1.2, Fig. 8): "3 senders and 1 receiver … connected to the OvS switch via 10 Gbps
link which can run at speed of 1 Gbps or 10 Gbps. The average RTT in the network is ≈ 1 ms …
RED AQM with marking threshold matching the DCTCP settings". Ours: a star of four hosts with
250 µs links (four link crossings per RTT: 1 ms base RTT), and DCTCP's step marking (RED with
min = max = K marks the same way) at DCTCP §3.4's K = 20 packets at 1 Gb/s and 65 at 10 Gb/s,
raised to DCTCP §4.1's guideline K > C·RTT/7 where the RTT asks for more: at the testbed's
1 ms, 171 packets at 10 Gb/s (§3.4's values are for its ~100 µs testbed; with 65 the 10 Gb/s
link drains after every cut). The guests run CUBIC, Ubuntu 16.04's default, under the WVCC shim.
"""

from __future__ import annotations

import math
from typing import Any

from fairnet.paper.series import (
    Series,
    max_err,
    oracle,
    plot_rates,
    run_series,
    us,
)

#: A flow that outlasts every run (bytes; 100 GB: 150 s at half of 10 Gb/s is 94 GB). Not the
#: Söze entries' 10 TB: with these weights and 10 TB (or 1 TB at 1 Gb/s) flows, the runner's
#: ideal-FCT reference (the flow-level engine run to completion) did not finish within
#: minutes; with 100 GB it takes milliseconds.
LONG = 10**11
#: DCTCP §3.4's marking thresholds (packets) by link rate (Gb/s).
DCTCP_K = {1: 20, 10: 65}
#: The testbed's base RTT (§5.1.2: "≈ 1 ms"), seconds.
TESTBED_RTT_S = 1e-3
#: One-way delay of each link: four crossings make the testbed's ≈ 1 ms RTT.
LINK_DELAY = "250us"
#: Payload and wire bytes of a full packet (the engine's 1000 B + 48 B header).
PAYLOAD, WIRE = 1000, 1048


def testbed(n_senders: int, gbps: int) -> dict[str, Any]:
    """The §5.1.2 testbed: hosts ``0 … n_senders − 1`` send to host ``n_senders``."""
    return {"kind": "star", "n_hosts": n_senders + 1, "rate": f"{gbps}Gbps", "delay": LINK_DELAY}


def dctcp_k(gbps: int, rtt_s: float | None = None) -> int:
    """DCTCP's marking threshold (packets) at ``gbps``: §3.4's value, raised to §4.1's guideline
    K > C·RTT/7 when a base RTT ``rtt_s`` is given that needs more."""
    k = DCTCP_K[gbps]
    if rtt_s is None:
        return k
    return max(k, math.ceil(gbps * 1e9 * rtt_s / 7 / (8 * WIRE)))


def shim_engine(
    shim: str, gbps: int, interval: str, transport: str = "cubic", rtt_s: float | None = None
) -> dict[str, Any]:
    """The packet engine with host shim ``shim`` over guests ``transport``, DCTCP's marking
    (:func:`dctcp_k`, for base RTT ``rtt_s`` if given) at the switch (and every port),
    recording every ``interval``."""
    return {
        "kind": "packet",
        "transport": transport,
        "host_shim": shim,
        "qdisc": {"kind": "ecn", "k": {"packets": dctcp_k(gbps, rtt_s)}},
        # Linux's RTO floor (TCP_RTO_MIN, 200 ms) and initial RTO (1 s, RFC 6298), as on the
        # testbed's hosts: the engine's 1 ms defaults are for µs RTTs and fire spuriously at
        # the testbed's 1 ms RTT.
        "tcp": {"min_rto": "200ms", "initial_rto": "1s"},
        "record": {"interval": interval},
    }


__all__ = [
    "DCTCP_K",
    "TESTBED_RTT_S",
    "LONG",
    "PAYLOAD",
    "WIRE",
    "Series",
    "dctcp_k",
    "max_err",
    "oracle",
    "plot_rates",
    "run_series",
    "shim_engine",
    "testbed",
    "us",
]
