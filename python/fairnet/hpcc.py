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
