"""Topologies from Python and the CLI: builders, file formats, generated problems."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fairnet
from fairnet import workload

FAIRNET = [sys.executable, "-m", "fairnet.cli"]


def test_fat_tree_counts() -> None:
    # A k-ary fat-tree has k^3/4 hosts and 5k^2/4 switches; every host and switch-switch link is
    # duplex: k^3/4 host links + k^3/4 edge-agg + k^3/4 agg-core, times 2 directions.
    for k in (4, 8):
        info = workload.topology_info({"kind": "fat_tree", "k": k})
        assert info["hosts"] == k**3 // 4
        assert info["switches"] == 5 * k * k // 4
        assert info["links"] == 2 * 3 * k**3 // 4


def test_formats_round_trip_to_the_same_allocation(tmp_path: Path) -> None:
    spec = {"kind": "leaf_spine", "hosts_per_leaf": 4, "leaves": 4, "spines": 2}
    a = workload.topology_problem(spec, 300, seed=4)
    for ext in ("txt", "toml", "json"):
        path = tmp_path / f"topo.{ext}"
        workload.write_topology(spec, str(path))
        b = workload.topology_problem(workload.topology_from_path(str(path)), 300, seed=4)
        np.testing.assert_array_equal(a.capacities, b.capacities)
        np.testing.assert_array_equal(a.paths[1], b.paths[1])
        ra = fairnet.allocate(a.capacities, a.paths, a.weights).rates
        rb = fairnet.allocate(b.capacities, b.paths, b.weights).rates
        np.testing.assert_array_equal(ra, rb)


def test_ecmp_paths_have_fat_tree_lengths() -> None:
    # Paths are 2 links under one edge switch, 4 within a pod, 6 across pods.
    spec = workload.fat_tree_problem(4, 2000, seed=2)
    lengths = set(np.diff(spec.paths[0]).tolist())
    assert lengths <= {2, 4, 6} and 6 in lengths


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["fat_tree", "k=5"], "fat_tree.k: must be an even number >= 4, got 5"),
        (["fat_tree", "k=4", "colour=red"], "unknown field `colour`"),
        (["mesh"], "unknown variant `mesh`"),
        (["missing.txt"], "missing.txt"),
        (["fat_tree", "k"], "expected KEY=VALUE"),
    ],
)
def test_bad_topology_is_one_line_exit_2(args: list[str], message: str) -> None:
    r = subprocess.run([*FAIRNET, "topology", "info", *args], capture_output=True, text=True)
    assert r.returncode == 2
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_cli_builds_and_allocates_on_a_topology_file(tmp_path: Path) -> None:
    out = tmp_path / "ft.txt"
    r = subprocess.run(
        [*FAIRNET, "topology", "build", "fat_tree", "k=4", "host_rate=25Gbps", "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert out.read_text().splitlines()[0] == "36 20 48"
    result = tmp_path / "r.json"
    r = subprocess.run(
        [*FAIRNET, "allocate", "--topology", str(out), "--flows", "50", "-o", str(result)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
