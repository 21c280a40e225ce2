"""The benchmark commands print their figures (they are measured, never asserted on time)."""

from __future__ import annotations

import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fairnet.cli", "bench", *args], capture_output=True, text=True
    )


def cells(stdout: str, figure: str) -> list[str]:
    """The cells of the benchmark table's row for ``figure`` (its first column)."""
    for line in stdout.splitlines():
        parts = [c.strip() for c in line.strip("│┃ ").split("│")]
        if parts and parts[0] == figure:
            return parts[1:]
    raise AssertionError(f"no row {figure!r} in:\n{stdout}")


def test_bench_packet_prints_packet_hops_per_second() -> None:
    r = run("packet", "--ms", "0.2")
    assert r.returncode == 0, r.stderr
    assert "htsim" in r.stdout
    # A figure, not a placeholder: millions of data packet-hops per second of wall time.
    rate = cells(r.stdout, "data packet-hops/s")[0]
    assert rate.endswith("M packet-hops/s") and float(rate.split()[0]) > 0, rate
    # The yardstick is a permutation of 128 long flows: all start, none can finish.
    assert cells(r.stdout, "flows started / finished")[0] == "128 / 0"


def test_bench_allocate_quick_prints_the_fig19_series() -> None:
    r = run("allocate", "--quick")
    assert r.returncode == 0, r.stderr
    assert "Söze Fig. 19(a)" in r.stdout and "Söze Fig. 19(b)" in r.stdout
    assert "FAILED" not in r.stdout
    # The NumPy companion ran on both 100k-flow problems and found the same rates.
    table = r.stdout[r.stdout.index("NumPy + scipy.sparse") :]
    assert table.count("same (max rel. diff") == 2 and "DIFFER" not in table, table


def test_bench_packet_runs_web_search_beside_the_yardstick() -> None:
    r = run("packet", "--ms", "0.3")
    assert r.returncode == 0, r.stderr
    assert "web search 50%" in r.stdout
    # Web-search flows arrive all along and the short ones finish within 0.3 ms.
    started, finished = (int(x) for x in cells(r.stdout, "flows started / finished")[1].split("/"))
    assert started > finished > 0
