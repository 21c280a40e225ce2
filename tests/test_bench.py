"""The benchmark commands print their figures (they are measured, never asserted on time)."""

from __future__ import annotations

import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fairnet.cli", "bench", *args], capture_output=True, text=True
    )


def test_bench_packet_prints_packet_hops_per_second() -> None:
    r = run("packet", "--ms", "0.2")
    assert r.returncode == 0, r.stderr
    assert "packet-hops/s" in r.stdout and "htsim" in r.stdout


def test_bench_allocate_quick_prints_the_fig19_series() -> None:
    r = run("allocate", "--quick")
    assert r.returncode == 0, r.stderr
    assert "Söze Fig. 19(a)" in r.stdout and "Söze Fig. 19(b)" in r.stdout
    assert "FAILED" not in r.stdout


def test_bench_packet_runs_web_search_beside_the_yardstick() -> None:
    r = run("packet", "--ms", "0.3")
    assert r.returncode == 0, r.stderr
    assert "web search 50%" in r.stdout
    assert "flows started / finished" in r.stdout
