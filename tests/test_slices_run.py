"""Uranus's slices and deadline accounting through ``fairnet.run`` and ``fairnet run``: each
test states the outcome it expects and why."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import fairnet

#: Two slices on a 10 Gb/s star (one rack): a DS slice ("web", W_S = 3) with one 10 MB flow
#: host 0 → 1, deadline 12 ms, and a CS slice ("bulk", W_S = 1) with one 10 MB flow host 2 →
#: 1. Both cross host 1's link. Each slice has one rack-flow holding its one flow, so the
#: weights are 3 and 1 at the first slot, and Algorithm 1 keeps the DS flow's weight at W_S
#: (it is alone in its rack-flow): 7.5 and 2.5 Gb/s. The DS flow ends at 80 Mb / 7.5 Gb/s =
#: 10.667 ms (+2 µs), before its 12 ms deadline; the CS flow at 16 ms and has no deadline.
SCENARIO: dict[str, Any] = {
    "decision_slot": "1ms",
    "slices": [
        {"name": "web", "objective": "ds", "weight": 3, "tags": [0]},
        {"name": "bulk", "objective": "cs", "weight": 1, "tags": [1]},
    ],
    "topology": {"kind": "star", "n_hosts": 3, "rate": "10Gbps", "delay": "1us"},
    "workload": {
        "kind": "flows",
        "flows": [
            {"src": 0, "dst": 1, "size": "10MB", "tag": 0, "deadline": "12ms"},
            {"src": 2, "dst": 1, "size": "10MB", "tag": 1},
        ],
    },
    "engine": {"kind": "flow"},
}


def test_slices_and_deadlines_reach_the_summary_and_flow_table() -> None:
    r = fairnet.run(SCENARIO)
    ends = r.flows["end_s"].to_list()
    assert abs(ends[0] * 1e3 - (80 / 7.5 + 0.002)) < 1e-6
    assert abs(ends[1] * 1e3 - 16.002) < 1e-6
    assert r.summary["deadlines"] == {"flows": 1, "decided": 1, "missed": 0, "miss_ratio": 0.0}
    assert r.flows["deadline_missed"].to_list() == [False, None]
    assert abs(r.flows["deadline_s"].to_list()[0] - 0.012) < 1e-12
    web, bulk = r.summary["slices"]
    assert (web["name"], web["flows"], web["deadline_miss_ratio"]) == ("web", 1, 0.0)
    assert (bulk["name"], bulk["deadline_miss_ratio"]) == ("bulk", None)
    assert abs(bulk["mean_fct_s"] - 0.016002) < 1e-9
    # A 10 ms deadline is missed (the flow needs 10.667 ms even at its 7.5 Gb/s).
    tight = copy.deepcopy(SCENARIO)
    tight["workload"]["flows"][0]["deadline"] = "10ms"
    assert fairnet.run(tight).summary["deadlines"]["miss_ratio"] == 1.0


def test_a_run_without_deadlines_has_no_deadline_columns() -> None:
    doc = copy.deepcopy(SCENARIO)
    del doc["slices"], doc["decision_slot"]
    del doc["workload"]["flows"][0]["deadline"]
    r = fairnet.run(doc)
    assert r.summary["deadlines"] is None and r.summary["slices"] is None
    assert "deadline_missed" not in r.flows.columns


def test_bad_slices_are_one_line_errors_with_exit_code_2(tmp_path: Path) -> None:
    # A DS flow without a deadline is refused before anything runs, naming the flow.
    doc = copy.deepcopy(SCENARIO)
    del doc["workload"]["flows"][0]["deadline"]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    r = subprocess.run(
        [sys.executable, "-m", "fairnet.cli", "run", str(path), "-o", str(tmp_path / "out")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert 'flow 0: in deadline-sensitive slice "web" but has no deadline' in lines[0]


def test_bad_deadline_bounds_and_per_pair_are_one_line_errors_with_exit_code_2(
    tmp_path: Path,
) -> None:
    # A lower bound on drawn deadlines without a `deadline_mean` to draw them, and bulk
    # senders with zero flows per pair: each refused before anything runs, in one line naming
    # the field, exit code 2.
    poisson = {
        "topology": {"kind": "uranus_fat_tree"},
        "workload": {
            "kind": "poisson",
            "cdf": "websearch",
            "load": 0.1,
            "flows": 10,
            "deadline_min": "3ms",
        },
        "engine": {"kind": "flow"},
    }
    bulk = {
        "topology": {"kind": "uranus_fat_tree"},
        "workload": {"kind": "bulk", "size": "1GB", "per_pair": 0},
        "engine": {"kind": "flow"},
        "stop_at": "1ms",
    }
    for i, (doc, message) in enumerate(
        (
            (poisson, "workload.deadline_min: bounds drawn deadlines: set deadline_mean too"),
            (bulk, "workload.per_pair: expected at least 1 flow, got 0"),
        )
    ):
        path = tmp_path / f"s{i}.json"
        path.write_text(json.dumps(doc))
        r = subprocess.run(
            [sys.executable, "-m", "fairnet.cli", "run", str(path), "-o", str(tmp_path / "o")],
            capture_output=True,
            text=True,
        )
        assert r.returncode == 2
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, r.stderr
        assert message in lines[0]
