"""Shared pieces of the MAY packet-level reproductions (§IV): the transports and queues of the
paper's ns-2 runs as fairnet scenario settings, its topologies as topology files, per-flow
throughput from the engine's time series and Jain's index against the oracle (Eq. 10).

Setup (§IV): "TCP version is the standard TCP-SACK, with a packet size 1000B and delayed
acknowledgements switched on"; "The MAY parameters used in the experiments are: Δ = 1s,
u₀ = 0.98, κ = 0.1, q_w = 0.05, T₀ = 64sec" (and S₀ = 1000, §IV.D); "The DRR parameters are
No_buckets_ = 100, blimit_ = 100Kbytes, quantum_ = 1000bytes"; "The self configuring Adaptive
RED [9] is used to determine the RED parameters". Ours: NewReno's window with SACK recovery,
delayed ACKs (ns-2's 100 ms timer), 1000 B payload + 40 B header, WAN timers (200 ms minimum
RTO, 1 s initial RTO); MAY as ``systems::may`` with the paper's defaults; DRR over 100
flow-hashed queues, a 1000-byte quantum of payload (1040 B on the wire) and ns-2's overflow
rule (one shared buffer, the longest queue's head dropped); Adaptive RED self-configured as
Floyd, Gummadi and Shenker (2001, §5) prescribe for each port's rate: the engine's RED with
``self_configure`` (target delay 5 ms, ``min_th = max(5, C·delay/2)`` packets,
``max_th = 3·min_th``, ``w_q = 1 − e^(−1/C)`` with C in packets per second, gentle, max_p
adapted every 0.5 s; ``schemes/red.rs``), dropping rather than marking. Every port runs the
scheme (the hosts' NICs pull from their flows, so no queue builds there), except MAY, which
runs at switch ports only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fairnet.alloc import allocate
from fairnet.paper.soze.common import run_series

#: §IV's packets: 1000 B of payload and a 40-byte TCP/IP header.
PAYLOAD, HEADER = 1000, 40
WIRE = PAYLOAD + HEADER
#: A flow that outlasts every run (bytes): 200 MB would take 13 Mb/s for two minutes, several
#: times what any long flow here gets (at most ~2 Mb/s). Not larger: the runner's reference
#: FCTs (the flow-level engine run to completion) took minutes with 1 GB flows on these links.
LONG = 2 * 10**8
#: The queue size of §IV.B ("a queue size of 100 packets") and of DRR's blimit_ (100 KB).
BUFFER_PACKETS = 100
#: Rate of :func:`one_link`'s access links (well above every flow's rate).
ACCESS_BPS = 100e6


def wan_engine(qdisc: dict[str, Any], seed: int, interval: str = "1s") -> dict[str, Any]:
    """The packet engine as §IV's ns-2 runs (module doc), recording every ``interval``."""
    return {
        "kind": "packet",
        "transport": "reno",
        "mtu": f"{PAYLOAD}B",
        "header": f"{HEADER}B",
        "tcp": {
            "sack": True,
            "delayed_ack": True,
            "delayed_ack_timeout": "100ms",
            "min_rto": "200ms",
            "initial_rto": "1s",
            "max_rto": "60s",
        },
        "qdisc": qdisc,
        "seed": seed,
        "record": {"interval": interval},
    }


def may(**options: Any) -> dict[str, Any]:
    """MAY with the paper's parameters (the defaults of ``qdisc = { kind = "may" }``), changed
    by ``options``."""
    return {"kind": "may", **options}


def drr_ns2() -> dict[str, Any]:
    """§IV's DRR: 100 hashed buckets, a 1000-byte quantum, ns-2's shared buffer."""
    return {
        "kind": "drr",
        "weights": [1.0] * 100,
        "classify": "flow_hash",
        "quantum": f"{WIRE}B",
        "overflow": "drop_longest",
    }


def adaptive_red() -> dict[str, Any]:
    """Adaptive RED self-configured (Floyd, Gummadi and Shenker 2001, §5): the engine's RED
    with ``self_configure`` derives each port's thresholds and weight from its rate (target
    delay 5 ms); drops rather than marks (§IV's TCP is not ECN-capable)."""
    return {"kind": "red", "self_configure": {}, "ecn": False}


def las() -> dict[str, Any]:
    """LAS (least attained service, Rai et al. 2005)."""
    return {"kind": "las"}


class TopologyFile:
    """A topology written as a fairnet topology file (JSON), remembering each directed link's
    id (duplex cables take two consecutive ids: ``a → b``, then ``b → a``) and capacity."""

    def __init__(self) -> None:
        self.nodes: list[dict[str, str]] = []
        self.links: list[dict[str, Any]] = []
        self.ids: dict[tuple[str, str], int] = {}
        self.capacities: list[float] = []

    def node(self, name: str, kind: str = "host") -> int:
        self.nodes.append({"name": name, "kind": kind})
        return len(self.nodes) - 1

    def duplex(self, a: str, b: str, rate_bps: float, delay_ms: float, buffer: int) -> None:
        self.links.append(
            {
                "src": a,
                "dst": b,
                "capacity": f"{rate_bps:.0f}bps",
                "delay": f"{delay_ms * 1000:g}us",
                "buffer": f"{buffer}B",
            }
        )
        for pair in ((a, b), (b, a)):
            self.ids[pair] = len(self.capacities)
            self.capacities.append(rate_bps)

    def path(self, *hops: str) -> list[int]:
        """The link ids along the node names ``hops``."""
        return [self.ids[(a, b)] for a, b in zip(hops, hops[1:], strict=False)]

    def write(self, path: Path) -> dict[str, Any]:
        """Writes the file; returns the scenario's ``topology`` entry."""
        path.write_text(json.dumps({"nodes": self.nodes, "links": self.links}, indent=1))
        return {"kind": "file", "path": str(path.resolve())}


def fig6(rate_bps: float = 10e6) -> tuple[TopologyFile, list[tuple[str, str, list[str]]]]:
    """Fig. 6's 24 nodes (n1–n5, m1–m5, p1–p5, q1–q5 hosts; c1–c4 routers in a chain), every
    link ``rate_bps`` with a 100-packet buffer, host i's link delay 40·i + 1 ms and the core's
    10 ms; and its 30 flows in §IV.B's order (n→p, n→q, m→p, m→q, n→m, p→q; i = 1…5) with
    each flow's route."""
    t = TopologyFile()
    groups = {"n": "c1", "m": "c2", "p": "c3", "q": "c4"}
    for g in groups:
        for i in range(1, 6):
            t.node(f"{g}{i}")
    for c in ("c1", "c2", "c3", "c4"):
        t.node(c, "switch")
    buffer = BUFFER_PACKETS * WIRE
    for a, b in (("c1", "c2"), ("c2", "c3"), ("c3", "c4")):
        t.duplex(a, b, rate_bps, 10, buffer)
    for g, router in groups.items():
        for i in range(1, 6):
            t.duplex(f"{g}{i}", router, rate_bps, 40 * i + 1, buffer)
    core = ["c1", "c2", "c3", "c4"]
    flows = []
    for a, b in (("n", "p"), ("n", "q"), ("m", "p"), ("m", "q"), ("n", "m"), ("p", "q")):
        ra, rb = core.index(groups[a]), core.index(groups[b])
        for i in range(1, 6):
            flows.append((f"{a}{i}", f"{b}{i}", [f"{a}{i}", *core[ra : rb + 1], f"{b}{i}"]))
    return t, flows


def bdp_packets(rate_bps: float, rtts_ms: Sequence[float]) -> int:
    """One bandwidth-delay product at the mean RTT, in full packets: the bottleneck buffer of
    the entries whose experiment gives none (Figs. 5 and 8; docs/systems/may.md)."""
    return round(rate_bps * float(np.mean(rtts_ms)) / 1000 / (WIRE * 8))


def one_link(
    rate_bps: float, rtts_ms: Sequence[float], buffer_packets: int = BUFFER_PACKETS
) -> tuple[TopologyFile, list[tuple[str, str, list[str]]]]:
    """One bottleneck ``a → b`` of ``rate_bps`` and 1 ms; sender ``si`` reaches ``a`` over a
    100 Mb/s link whose delay makes pair i's round trip ``rtts_ms[i]`` (``b → ri`` adds 1 ms
    each way). Returns the file and each pair's flow with its route."""
    t = TopologyFile()
    n = len(rtts_ms)
    for i in range(n):
        t.node(f"s{i}")
    for i in range(n):
        t.node(f"r{i}")
    t.node("a", "switch")
    t.node("b", "switch")
    t.duplex("a", "b", rate_bps, 1, buffer_packets * WIRE)
    fast, big = ACCESS_BPS, 1_000_000
    for i, rtt in enumerate(rtts_ms):
        t.duplex(f"s{i}", "a", fast, rtt / 2 - 2, big)
        t.duplex("b", f"r{i}", fast, 1, big)
    return t, [(f"s{i}", f"r{i}", [f"s{i}", "a", "b", f"r{i}"]) for i in range(n)]


def node_index(t: TopologyFile, name: str) -> int:
    return next(i for i, n in enumerate(t.nodes) if n["name"] == name)


def oracle_rates(t: TopologyFile, routes: Sequence[Sequence[str]]) -> np.ndarray:
    """The oracle's max-min rates (bit/s) of flows along ``routes`` (node names)."""
    paths = [t.path(*r) for r in routes]
    return np.asarray(allocate(t.capacities, paths, [1.0] * len(paths)).rates)


def jain(x: np.ndarray, want: np.ndarray | None = None) -> float:
    """Jain's index (Eq. 10) of ``x``, against ``want`` (each rate over its max-min share)."""
    r = x / want if want is not None else x
    return float(r.sum() ** 2 / (len(r) * (r**2).sum()))


def throughputs(doc: dict[str, Any], n_flows: int, start_s: float, end_s: float) -> np.ndarray:
    """Runs ``doc`` (a scenario recording rates) and returns each flow's mean wire throughput
    (bit/s) over ``(start_s, end_s]``."""
    return run_series(doc, n_flows).mean(start_s, end_s)
