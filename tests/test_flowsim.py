"""The fluid engine through Python: processor sharing, weights, errors, the benchmark command."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from fairnet import flowsim

DUMBBELL = {"kind": "dumbbell", "n_pairs": 4, "bottleneck_rate": "10Gbps"}


def test_equal_flows_share_the_bottleneck_like_processor_sharing() -> None:
    # Four 1 MB flows start together on a 10 Gb/s bottleneck: each gets 2.5 Gb/s and all end at
    # 4 * 1 MB * 8 / 10 Gb/s = 3.2 ms, plus 3 us of propagation (1 us per link).
    flows = {"src": [0, 1, 2, 3], "dst": [4, 5, 6, 7], "size": [1_000_000] * 4, "start_ps": [0] * 4}
    r = flowsim.run(DUMBBELL, flows)
    np.testing.assert_allclose(r.fct_seconds, 3.2e-3 + 3e-6, rtol=1e-9)
    assert r.stats["complete"]


def test_weights_and_weight_changes() -> None:
    # Weights 1 and 3 on 10 Gb/s: 2.5 and 7.5 Gb/s; at 4 ms flow 0 becomes weight 3 (5 and 5):
    # flow 1 ends at 14 ms, flow 0 at 16 ms (see the Rust test for the arithmetic).
    flows = {
        "src": [0, 1],
        "dst": [4, 5],
        "size": [10_000_000] * 2,
        "start_ps": [0, 0],
        "weight": [1.0, 3.0],
    }
    changes = {"time_ps": [4_000_000_000], "flow": [0], "weight": [3.0]}
    r = flowsim.run(DUMBBELL, flows, weight_changes=changes)
    np.testing.assert_allclose(r.fct_seconds, [16e-3 + 3e-6, 14e-3 + 3e-6], rtol=1e-9)


def test_rate_samples_and_groups() -> None:
    flows = {
        "src": [0, 1],
        "dst": [4, 5],
        "size": [1_000_000] * 2,
        "start_ps": [0, 0],
        "tag": [3, 3],
    }
    r = flowsim.run(DUMBBELL, flows, config={"rate_interval": "100us"})
    assert set(r.rates["flow"].tolist()) == {0, 1}
    np.testing.assert_allclose(r.rates["bps"][r.rates["time_ps"] == 0], [5e9, 5e9])
    assert r.groups["tag"].tolist() == [3] and r.groups["flows"].tolist() == [2]


@pytest.mark.parametrize(
    ("flows", "config", "message"),
    [
        ({"size": [0]}, {}, "flows[0]: size must be at least one byte"),
        ({"size": [-5]}, {}, "flows[0]: size must not be negative"),
        ({"dst": [0]}, {}, "flows[0]:"),
        ({"dst": [99]}, {}, "flows[0]: dst is unknown node 99"),
        ({"weight": [0.0]}, {}, "flows[0]: weight must be a positive number"),
        ({}, {"allocator": "magic"}, "config: unknown variant `magic`"),
        ({}, {"colour": 1}, "config: unknown field `colour`"),
    ],
)
def test_bad_input_names_the_flow(flows: dict, config: dict, message: str) -> None:
    base = {"src": [0], "dst": [4], "size": [1000], "start_ps": [0]} | flows
    with pytest.raises(ValueError) as e:
        flowsim.run(DUMBBELL, base, config=config)
    assert message in str(e.value)


def test_bench_flow_prints_its_figures() -> None:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "fairnet.cli",
            "bench",
            "flow",
            "--flows",
            "2000",
            "--active",
            "500",
            "--parking-flows",
            "1000",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert "2,000 flows" in r.stdout and "events" in r.stdout
    assert "500 active flows" in r.stdout and "full recompute" in r.stdout
    # The parking-lot table: every one of the 1,000 flows arrives and completes at each load.
    assert "m3's parking lot, 1,000 web-search flows" in r.stdout
    for load in ("60%", "80%", "90%", "95%"):
        assert f"│  {load} │  2,000 │" in r.stdout, load


def test_classes_end_identical_flows_together() -> None:
    # Two identical 1 MB flows and a 2 MB flow of another pair share the 10 Gb/s bottleneck:
    # 3.33 Gb/s each, so the twins (one class) end together after 8 Mb / (10/3) Gb/s = 2.4 ms
    # (+ 3 us of propagation), then the 2 MB flow has 8 Mb left alone: + 0.8 ms.
    flows = {
        "src": [0, 0, 1],
        "dst": [4, 4, 5],
        "size": [10**6, 10**6, 2 * 10**6],
        "start_ps": [0, 0, 0],
    }
    r = flowsim.run(DUMBBELL, flows, config={"classes": True})
    end = r.flows["end_ps"]
    assert end[0] == end[1]
    assert abs(end[0] - (2.4e9 + 3e6)) <= 2
    assert abs(end[2] - (3.2e9 + 3e6)) <= 2


def test_caps_explicit_paths_and_dependencies() -> None:
    # Flow 0 is capped at 2 Gb/s on the 10 Gb/s bottleneck, so flow 1 gets 8 Gb/s: 1 MB takes
    # 1 ms. Flow 2 waits for flow 1's end, then takes flow 1's place beside the capped flow 0:
    # 8 Gb/s again, 1 ms (plus its own 3 us of propagation).
    flows = {
        "src": [0, 1, 2],
        "dst": [4, 5, 6],
        "size": [10_000_000, 1_000_000, 1_000_000],
        "start_ps": [0, 0, 0],
        "demand": [2e9, np.inf, np.inf],
        "deps": [[], [], [1]],
    }
    r = flowsim.run(DUMBBELL, flows)
    np.testing.assert_allclose(r.fct_seconds[1], 1e-3 + 3e-6, rtol=1e-9)
    np.testing.assert_allclose(r.flows["start_ps"][2], r.flows["end_ps"][1])
    np.testing.assert_allclose(r.fct_seconds[2], 1e-3 + 3e-6, rtol=1e-9)
    bad = flows | {"deps": [[2], [], [0]]}
    with pytest.raises(ValueError, match="dependency cycle"):
        flowsim.run(DUMBBELL, bad)
    with pytest.raises(ValueError, match=r"flows\[0\]: path"):
        flowsim.run(DUMBBELL, flows | {"path": [[5], [], []]})
