"""``fairnet bench packet``: the packet engine's speed on the htsim yardstick, printed.

The yardstick: a k = 8 fat-tree (128 hosts), 100 Gb/s links, 1 µs per link, DCTCP with ECN
marking at K = 15 packets, 100-packet buffers, 1500 B packets, permutation traffic. htsim does
1.4-1.7 M data packet-hops/s and 5.7-7.0 M events/s on one core for it; ns-3 about 0.055 M
packet-hops/s. Speed is measured here, never asserted.
"""

from __future__ import annotations

import resource
import sys

from rich.console import Console
from rich.table import Table

from fairnet import _core

console = Console(width=None if sys.stdout.isatty() else 132)

HTSIM_DATA_HOPS_PER_S = (1.4e6, 1.7e6)
HTSIM_EVENTS_PER_S = (5.7e6, 7.0e6)
NS3_DATA_HOPS_PER_S = 0.055e6


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_packet(simulated_ms: float = 10.0, quick: bool = False) -> dict:
    """Runs the yardstick for ``simulated_ms`` (1 ms if ``quick``), prints and returns figures."""
    if quick:
        simulated_ms = min(simulated_ms, 1.0)
    r: dict = dict(_core.packet_bench(simulated_ms, 8, 1))
    wall = r["wall_seconds"]
    r["simulated_ms_per_wall_s"] = r["simulated_seconds"] * 1e3 / wall
    r["events_per_s"] = r["events"] / wall
    r["data_packet_hops_per_s"] = r["data_packet_hops"] / wall
    r["all_packet_hops_per_s"] = r["all_packet_hops"] / wall
    r["peak_rss_mib"] = _peak_rss_mib()

    console.print(
        f"fairnet {_core.__version__} packet engine, htsim yardstick: k=8 fat-tree, "
        f"{r['hosts']} hosts, DCTCP K=15, 100 Gb/s, {r['simulated_seconds'] * 1e3:g} ms simulated"
    )
    table = Table("figure", "fairnet", "htsim", "ns-3")
    table.add_row("wall", f"{wall:.2f} s", "", "")
    table.add_row("simulated time / wall s", f"{r['simulated_ms_per_wall_s']:.3f} ms", "", "")
    table.add_row(
        "events/s",
        f"{r['events_per_s'] / 1e6:.2f} M",
        f"{HTSIM_EVENTS_PER_S[0] / 1e6:.1f}-{HTSIM_EVENTS_PER_S[1] / 1e6:.1f} M",
        "",
    )
    table.add_row(
        "data packet-hops/s",
        f"{r['data_packet_hops_per_s'] / 1e6:.2f} M packet-hops/s",
        f"{HTSIM_DATA_HOPS_PER_S[0] / 1e6:.1f}-{HTSIM_DATA_HOPS_PER_S[1] / 1e6:.1f} M",
        f"{NS3_DATA_HOPS_PER_S / 1e6:.3f} M",
    )
    table.add_row("all packet-hops/s", f"{r['all_packet_hops_per_s'] / 1e6:.2f} M", "", "")
    table.add_row("peak live packets", f"{r['peak_live_packets']}", "", "")
    table.add_row("drops / marks", f"{r['drops']} / {r['marks']}", "", "")
    table.add_row("peak RSS", f"{r['peak_rss_mib']:.1f} MiB", "", "")
    console.print(table)
    return r
