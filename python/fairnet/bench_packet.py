"""``fairnet bench packet``: the packet engine's speed, printed.

Two scenarios on the same fabric and transport:

- the htsim yardstick: a k = 8 fat-tree (128 hosts), 100 Gb/s links, 1 µs per link, DCTCP with
  ECN marking at K = 15 packets, 100-packet buffers, 1500 B packets, permutation traffic (one
  long flow per host). htsim does 1.4-1.7 M data packet-hops/s and 5.7-7.0 M events/s on one
  core for it; ns-3 about 0.055 M packet-hops/s;
- web search at 50% load: the same fabric with Poisson web-search flows (DCTCP paper's size
  distribution) offering half the host links' capacity, so flow arrivals and completions count.

Speed is measured here, never asserted.
"""

from __future__ import annotations

import resource
import sys

from rich.console import Console
from rich.table import Table

from fairnet import _core
from fairnet.flowsim import cdf_path

console = Console(width=None if sys.stdout.isatty() else 132)

HTSIM_DATA_HOPS_PER_S = (1.4e6, 1.7e6)
HTSIM_EVENTS_PER_S = (5.7e6, 7.0e6)
NS3_DATA_HOPS_PER_S = 0.055e6
WEBSEARCH_LOAD = 0.5


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _rates(r: dict) -> dict:
    wall = r["wall_seconds"]
    r["simulated_ms_per_wall_s"] = r["simulated_seconds"] * 1e3 / wall
    r["events_per_s"] = r["events"] / wall
    r["data_packet_hops_per_s"] = r["data_packet_hops"] / wall
    r["all_packet_hops_per_s"] = r["all_packet_hops"] / wall
    return r


def bench_packet(simulated_ms: float = 10.0, quick: bool = False) -> dict:
    """Runs both scenarios for ``simulated_ms`` (1 ms if ``quick``), prints and returns their
    figures (``{"yardstick": ..., "websearch": ...}``)."""
    if quick:
        simulated_ms = min(simulated_ms, 1.0)
    yard = _rates(dict(_core.packet_bench(simulated_ms, 8, 1)))
    web = _rates(
        dict(
            _core.packet_bench_websearch(simulated_ms, 8, WEBSEARCH_LOAD, cdf_path("websearch"), 1)
        )
    )
    rss = _peak_rss_mib()

    console.print(
        f"fairnet {_core.__version__} packet engine: k=8 fat-tree, {yard['hosts']} hosts, "
        f"DCTCP K=15, 100 Gb/s, {yard['simulated_seconds'] * 1e3:g} ms simulated"
    )
    table = Table(
        "figure", "fairnet: permutation (yardstick)", "fairnet: web search 50%", "htsim", "ns-3"
    )
    table.add_row("wall", f"{yard['wall_seconds']:.2f} s", f"{web['wall_seconds']:.2f} s", "", "")
    table.add_row(
        "simulated time / wall s",
        f"{yard['simulated_ms_per_wall_s']:.3f} ms",
        f"{web['simulated_ms_per_wall_s']:.3f} ms",
        "",
        "",
    )
    table.add_row(
        "events/s",
        f"{yard['events_per_s'] / 1e6:.2f} M",
        f"{web['events_per_s'] / 1e6:.2f} M",
        f"{HTSIM_EVENTS_PER_S[0] / 1e6:.1f}-{HTSIM_EVENTS_PER_S[1] / 1e6:.1f} M",
        "",
    )
    table.add_row(
        "data packet-hops/s",
        f"{yard['data_packet_hops_per_s'] / 1e6:.2f} M packet-hops/s",
        f"{web['data_packet_hops_per_s'] / 1e6:.2f} M packet-hops/s",
        f"{HTSIM_DATA_HOPS_PER_S[0] / 1e6:.1f}-{HTSIM_DATA_HOPS_PER_S[1] / 1e6:.1f} M",
        f"{NS3_DATA_HOPS_PER_S / 1e6:.3f} M",
    )
    table.add_row(
        "all packet-hops/s",
        f"{yard['all_packet_hops_per_s'] / 1e6:.2f} M",
        f"{web['all_packet_hops_per_s'] / 1e6:.2f} M",
        "",
        "",
    )
    table.add_row(
        "flows started / finished",
        f"{yard['flows_started']} / {yard['flows_finished']}",
        f"{web['flows_started']:,} / {web['flows_finished']:,}",
        "",
        "",
    )
    table.add_row(
        "peak live packets", f"{yard['peak_live_packets']}", f"{web['peak_live_packets']}", "", ""
    )
    table.add_row(
        "drops / marks",
        f"{yard['drops']} / {yard['marks']}",
        f"{web['drops']} / {web['marks']}",
        "",
        "",
    )
    table.add_row("peak RSS (process)", f"{rss:.1f} MiB", "", "", "")
    console.print(table)
    return {"yardstick": yard, "websearch": web, "peak_rss_mib": rss}
