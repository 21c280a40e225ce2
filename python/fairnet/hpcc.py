"""The HPCC ns-3 simulator's files: flow lists (``flow.txt``) and ``fct.txt``.

The formats are described (and parsed and written) once, in Rust (``fairnet::workload::hpcc``);
this module turns them into polars tables. A scenario reads a flow list with
``[workload] kind = "flow_file"``; ``fairnet run --fct-txt`` writes ``fct.txt`` next to
``flows.parquet``; ``fairnet compare`` accepts an ns-3 ``fct.txt`` as one of its runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from fairnet import _core
from fairnet.errors import InputError

if TYPE_CHECKING:
    import polars as pl


def read_flows(path: str | Path) -> pl.DataFrame:
    """A flow list as a table: ``src``, ``dst``, ``size`` (bytes), ``start_s``."""
    import polars as pl

    try:
        cols = _core.hpcc_read_flow_file(str(path))
    except ValueError as e:
        raise InputError(str(e)) from None
    return pl.DataFrame(
        {
            "src": cols["src"],
            "dst": cols["dst"],
            "size": cols["size"],
            "start_s": cols["start_ps"] / 1e12,
        }
    )


def write_flows(flows: pl.DataFrame, path: str | Path) -> Path:
    """Writes a table with ``src``, ``dst``, ``size`` and ``start_s`` as a flow list."""
    cols = {c: flows[c].to_numpy() for c in ("src", "dst", "size", "start_s")}
    text = _core.hpcc_flow_file_text(
        cols["src"].astype(np.int64),
        cols["dst"].astype(np.int64),
        cols["size"].astype(np.int64),
        np.rint(cols["start_s"] * 1e12).astype(np.int64),
    )
    path = Path(path)
    path.write_text(text)
    return path


#: The two definitions of a flow's FCT and of its ideal (``fairnet run --fct-def``), by name.
FCT_DEFINITIONS: dict[str, str] = {
    "fairnet": "FCT to the delivery of the last byte at the receiver; ideal FCT: the path's "
    "one-way propagation plus the flow's wire bytes at its slowest link",
    "ns3": "FCT to the sender's ACK of the last byte; ideal FCT: the pair's base RTT (two-way "
    "propagation plus one payload per hop) plus the wire bytes at the slowest link (the HPCC "
    "ns-3 simulator's qp_finish)",
}


def fct_text(exact: dict[str, np.ndarray], definition: str = "fairnet") -> str:
    """``fct.txt`` of a run, from its exact (picosecond) columns (``Results.exact``), under
    ``definition`` (:data:`FCT_DEFINITIONS`; ``ns3`` needs the packet engine's ACK times:
    a flow without one, e.g. UDP, gets no line, as an unfinished flow)."""
    if definition == "fairnet":
        end, ideal = exact["end_ps"], exact["ideal_fct_ps"]
    elif definition == "ns3":
        end, ideal = exact["acked_end_ps"], exact["ideal_fct_ref_ps"]
        if (exact["end_ps"] >= 0).any() and not (end >= 0).any():
            raise InputError(
                "--fct-def ns3: the run has no ACK times (only the packet engine's reliable "
                "transports have them); use --fct-def fairnet"
            )
    else:
        known = ", ".join(FCT_DEFINITIONS)
        raise InputError(f"--fct-def: unknown definition {definition!r} (known: {known})")
    return _core.hpcc_fct_text(*(exact[c] for c in ("src", "dst", "size", "start_ps")), end, ideal)


def read_fct(path: str | Path) -> pl.DataFrame:
    """``fct.txt`` (ours or the simulator's) as a table: ``src``, ``dst``, ``sport``,
    ``dport``, ``size``, ``start_s``, ``fct_s``, ``standalone_fct_s`` and ``slowdown``
    (FCT over standalone FCT, the HPCC scripts' definition)."""
    import polars as pl

    try:
        cols = _core.hpcc_read_fct(str(path))
    except ValueError as e:
        raise InputError(str(e)) from None
    fct = cols["fct_ps"] / 1e12
    alone = cols["standalone_fct_ps"] / 1e12
    return pl.DataFrame(
        {
            "src": cols["src"],
            "dst": cols["dst"],
            "sport": cols["sport"],
            "dport": cols["dport"],
            "size": cols["size"],
            "start_s": cols["start_ps"] / 1e12,
            "fct_s": fct,
            "standalone_fct_s": alone,
            "slowdown": fct / np.maximum(alone, 1e-12),
        }
    )


#: The congestion controls of the simulator's ``run.py --cc`` that :func:`run_py_engine`
#: reproduces, with what each runs there.
RUN_PY_CCS: dict[str, str] = {
    "hp": "HPCC (CC_MODE 3), INT on data packets",
    "dcqcn": "DCQCN (CC_MODE 1) with its NIC timers (preset hpcc_ns3)",
    "dcqcn_paper": "DCQCN (CC_MODE 1) with the DCQCN paper's timers (preset hpcc_ns3_paper)",
    "dctcp": "DCTCP (CC_MODE 8), step marking at 30·bw/10 KB",
    "timely": "TIMELY (CC_MODE 7)",
}


def run_py_engine(cc: str, *, bw_gbps: int = 100, max_rtt_ns: int) -> dict[str, object]:
    """The ``[engine]`` table that runs what the simulator's ``run.py --cc CC --bw BW`` runs
    (commit 9f4be2a), on a topology whose host pairs' largest base RTT is ``max_rtt_ns`` (the
    ``maxRtt`` the simulator prints at start: two-way propagation plus one 1000 B payload
    serialized per hop; ``GLOBAL_T 1`` makes it every flow's RTT and its BDP every window).

    Common to every ``cc``: 1000 B payloads and the simulator's 48 B header plus the INT header
    its data packets carry in that mode (``IntHeader::GetStaticSize``: 42 B for HPCC — five
    hops of 8 B and a 2 B count —, an 8 B timestamp for TIMELY, none otherwise; fairnet's ACKs
    are a bare header of the same size, as the simulator's ACKs echo the INT), ECMP per flow,
    a lossless fabric (``ENABLE_QCN 1``, ``USE_DYNAMIC_PFC_THRESHOLD 1``) over
    ``BUFFER_SIZE = 16·bw/50`` MiB of switch memory, RED marking at ``KMIN_MAP`` /
    ``KMAX_MAP`` / ``PMAX_MAP`` (100·bw/25 KB, 400·bw/25 KB, 0.2; DCTCP's step at 30·bw/10 KB),
    RED's mark decided as a packet leaves the queue (``mark_at = "dequeue"``: its
    ``SwitchNotifyDequeue``; DCTCP's step at 30·bw/10 KB the same way, as RED with ``kmax``
    one byte above ``kmin`` and ``pmax`` 1),
    ``MIN_RATE 1000Mb/s``, and ACKs queued with data at every switch (``ack_first = false``)
    whatever ``ACK_HIGH_PRIO`` says: that key sets only the host NICs' ACK class
    (``third.cc``: ``RdmaEgressQueue::ack_q_idx``; a NIC sends its ACKs first in any case),
    while the switches' ``AckHighPrio`` attribute is never set and stays 0, so at a switch an
    ACK goes to its flow's data queue. fairnet's pulling NIC sends a queued ACK next as well.
    Per ``cc`` (:data:`RUN_PY_CCS`):

    HPCC and TIMELY ignore ECN; the simulator still marks their packets, fairnet's RED would
    drop them (they are not ECN-capable: RFC 3168, as ``schemes/red.rs`` does), so they run
    over a FIFO (``drop_tail``, which drops only what PFC lets overflow: nothing).

    - ``hp``: ``MI_THRESH 0`` (``max_stage = 0``: every update is multiplicative),
      ``U_TARGET 0.95``, ``RATE_AI 10·bw/25`` Mb/s as a window step over ``maxRtt``
      (``w_ai``), ``base_rtt = maxRtt``, the INT fields in the simulator's units
      (``INT_MULTI = bw/25``: queue lengths in 80·multi B, byte counters in 128·multi B,
      rounded down; ``int-header.h``);
    - ``dcqcn`` / ``dcqcn_paper``: the presets ``hpcc_ns3`` / ``hpcc_ns3_paper``
      (:mod:`fairnet` ``schemes/dcqcn.rs``);
    - ``dctcp``: ``EWMA_GAIN 1/16``, the window starting at ``maxBdp`` (the simulator starts
      every flow at line rate with that window);
    - ``timely``: the variant ``hpcc_ns3`` (one update per RTT of data, every increase
      counting towards HAI; ``schemes/timely.rs``), ``RATE_AI 10·bw/10`` Mb/s (``delta``; its
      ``RATE_HAI`` 50·bw/10 is 5·δ, ``hai_n = 5``).
    """
    if cc not in RUN_PY_CCS:
        raise InputError(
            f"cc: unknown run.py congestion control {cc!r} (known: {', '.join(RUN_PY_CCS)})"
        )
    bw = int(bw_gbps)
    max_bdp = max_rtt_ns * bw // 8  # bytes: maxRtt (ns) × bw (Gb/s) / 8
    red = {
        "kind": "red",
        "mark_at": "dequeue",
        "thresholds": [
            {
                "rate": f"{r}Gbps",
                "kmin": f"{100 * r // 25}KB",
                "kmax": f"{400 * r // 25}KB",
                "pmax": 0.2,
            }
            for r in (bw, 4 * bw)
        ],
    }
    int_bytes = {"hp": 42, "timely": 8}.get(cc, 0)
    engine: dict[str, object] = {
        "kind": "packet",
        "mtu": "1000B",
        "header": f"{48 + int_bytes}B",
        "lossless": True,
        "shared_buffer": {"size": f"{16 * bw // 50}MiB"},
        "qdisc": red,
        "ack_first": False,
    }
    if cc == "hp":
        w_ai = round(10 * bw / 25 * 1e6 * max_rtt_ns * 1e-9 / 8)
        engine |= {
            "qdisc": {"kind": "drop_tail"},
            "transport": "hpcc",
            "port_agent": "int",
            "hpcc": {
                "eta": 0.95,
                "max_stage": 0,
                "w_ai": f"{w_ai}B",
                "base_rtt": f"{max_rtt_ns}ns",
                "min_rate": "1Gbps",
                "int_qlen_unit": f"{80 * (bw // 25)}B",
                "int_bytes_unit": f"{128 * (bw // 25)}B",
            },
        }
    elif cc in ("dcqcn", "dcqcn_paper"):
        preset = "hpcc_ns3" if cc == "dcqcn" else "hpcc_ns3_paper"
        engine |= {"transport": "dcqcn", "dcqcn": {"preset": preset}}
    elif cc == "dctcp":
        # Its switch marks when more than K bytes stay behind the departing packet (KMIN_MAP =
        # KMAX_MAP = K, PMAX 1: ShouldSendCN's `egress > kmax`); RED with kmax one byte above
        # kmin and pmax 1 marks exactly then.
        engine |= {
            "transport": "dctcp",
            "qdisc": {
                "kind": "red",
                "mark_at": "dequeue",
                "thresholds": [
                    {"rate": f"{r}Gbps", "kmin": f"{k}B", "kmax": f"{k + 1}B", "pmax": 1.0}
                    for r, k in ((bw, 30 * bw // 10 * 1000), (4 * bw, 30 * 4 * bw // 10 * 1000))
                ],
            },
            "tcp": {"init_cwnd": max(1, max_bdp // 1000), "dctcp_g": 1 / 16},
        }
    else:  # timely
        engine |= {
            "qdisc": {"kind": "drop_tail"},
            "transport": "timely",
            "timely": {"variant": "hpcc_ns3", "delta": f"{10 * bw // 10}Mbps", "min_rate": "1Gbps"},
        }
    return engine


def run_py_scenario(
    topology: str | Path,
    flows: str | Path,
    cc: str,
    *,
    bw_gbps: int = 100,
    max_rtt_ns: int,
    seed: int = 0,
) -> dict[str, object]:
    """A scenario running the simulator's topology file and flow list as its ``run.py --cc
    CC`` would (:func:`run_py_engine`): the links' buffers are the switch memory (the MMU
    decides admission), the run stops at the simulator's ``SIMULATOR_STOP_TIME`` (4 s)."""
    engine = run_py_engine(cc, bw_gbps=bw_gbps, max_rtt_ns=max_rtt_ns) | {"seed": seed}
    return {
        "name": f"run.py --cc {cc} on {Path(flows).name}",
        "topology": {
            "kind": "file",
            "path": str(topology),
            "buffer": engine["shared_buffer"]["size"],  # type: ignore[index]
        },
        "workload": {"kind": "flow_file", "path": str(flows)},
        "engine": engine,
        "stop_at": "4s",
    }


def match_fct(flows: pl.DataFrame, fct: pl.DataFrame) -> pl.DataFrame:
    """A run's flow table (``Results.flows`` of a packet run) beside the simulator's ``fct.txt``
    of the same flow list (:func:`read_fct`), flow by flow: the run's columns plus the
    simulator's ``fct_ns3_s`` and ``standalone_fct_s``, and ``slowdown_ns3`` = the run's
    ``fct_ack_s`` over the simulator's standalone FCT (one definition for both, even where
    the run's packets carry more header bytes than the simulator counts in its standalone
    FCT). Flows are matched by source, destination, size and start (to 2 ns: the simulator
    rounds the start seconds of its flow list to nanoseconds); a flow unfinished in either
    has a null there; a line of ``fct`` that matches no flow is an error (another flow
    list)."""
    import polars as pl

    theirs = fct.select(
        "src",
        "dst",
        "size",
        pl.col("start_s").alias("start_ns3_s"),
        pl.col("fct_s").alias("fct_ns3_s"),
        "standalone_fct_s",
    )
    j = flows.join(theirs, on=["src", "dst", "size"], how="left")
    close = (pl.col("start_s") - pl.col("start_ns3_s")).abs() < 2e-9
    j = j.filter(close | pl.col("start_ns3_s").is_null())
    matched = j.filter(pl.col("start_ns3_s").is_not_null()).height
    if j.height != flows.height or matched != fct.height:
        raise InputError(
            f"fct.txt: {fct.height - matched} of its {fct.height} lines match no flow of the "
            "run (same src, dst, size and start): is it the same flow list?"
        )
    return j.with_columns((pl.col("fct_ack_s") / pl.col("standalone_fct_s")).alias("slowdown_ns3"))
