"""``fairnet run``: scenario files to Parquet, summary, plots and report; errors with paths."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

REPO = Path(__file__).resolve().parents[1]
FAIRNET = [sys.executable, "-m", "fairnet.cli"]

SMALL = """
name = "small"
[topology]
kind = "fat_tree"
k = 4
[workload]
kind = "poisson"
cdf = "websearch"
load = "50%"
flows = 400
[weights]
kind = "uniform"
lo = 1
hi = 4
[engine]
kind = "flow"
"""


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*FAIRNET, *args], capture_output=True, text=True)


def test_run_writes_every_output(tmp_path: Path) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL)
    out = tmp_path / "out"
    r = run("run", str(scenario), "-o", str(out), "--set", "workload.flows=300")
    assert r.returncode == 0, r.stderr
    table = pq.read_table(out / "flows.parquet")
    assert table.num_rows == 300  # the override applied
    slowdown = table.column("slowdown").to_pylist()
    assert min(slowdown) >= 1.0 - 1e-9  # nothing beats its ideal FCT
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] and summary["finished"] == 300
    assert [b["bin"] for b in summary["slowdown"]["by_size"]][0] == "<10KB"
    resolved = json.loads((out / "scenario.json").read_text())
    assert resolved["seed"] == 1 and resolved["workload"]["flows"] == 300
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html and "small" in html
    assert (out / "slowdown.svg").exists()


def test_default_scenario_runs(tmp_path: Path) -> None:
    r = run(
        "run",
        str(REPO / "scenarios" / "default.toml"),
        "-o",
        str(tmp_path / "d"),
        "--set",
        "workload.flows=500",
    )
    assert r.returncode == 0, r.stderr
    assert "500/500 flows finished" in r.stdout


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("workload.load=1.4", "workload.load: expected a fraction in (0, 1]"),
        ("topology.k=5", "topology.k: must be an even number >= 4, got 5"),
        ("engine.colour=1", "engine.colour: unknown field `colour`"),
        ("workload.cdf='missing.txt'", "workload.cdf"),
        ("weights.lo=-1", "weights: expected 0 < lo <= hi"),
    ],
)
def test_bad_scenario_is_one_line_with_the_field_path(
    tmp_path: Path, override: str, message: str
) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL)
    r = run("run", str(scenario), "-o", str(tmp_path / "o"), "--set", override)
    assert r.returncode == 2, r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr


def test_malformed_toml(tmp_path: Path) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text("[topology\nkind = 1")
    r = run("run", str(scenario))
    assert r.returncode == 2 and "invalid TOML" in r.stderr


def test_ctrl_c_writes_the_finished_flows_marked_partial(tmp_path: Path) -> None:
    import signal
    import time

    scenario = tmp_path / "long.toml"
    # Far more work than the test waits for: 60k web-search flows at the packet level.
    scenario.write_text(
        SMALL.replace("flows = 400", "flows = 60000")
        .replace('kind = "flow"', 'kind = "packet"')
        .replace("k = 4", "k = 8")
    )
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [*FAIRNET, "run", str(scenario), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell's background job ignores SIGINT, and children inherit that; restore it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(5)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "interrupted" in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] and summary["partial"] and not summary["complete"]
    assert 0 < summary["finished"] < summary["flows"] == 60000
    table = pq.read_table(out / "flows.parquet")
    assert table.num_rows == 60000


def test_rounds_scenario_reports_rates_and_the_6n2_check(tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = run("run", str(REPO / "scenarios" / "sperc-fig6-smoke.toml"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    table = pq.read_table(out / "flows.parquet")
    assert table.num_rows == 1000
    rate = table.column("rate_bps").to_pylist()
    oracle = table.column("oracle_rate_bps").to_pylist()
    assert all(abs(a - b) <= 1e-6 * b for a, b in zip(rate, oracle, strict=True))
    summary = json.loads((out / "summary.json").read_text())
    rounds = summary["rounds"]
    assert rounds["algorithm"] == "s_perc" and rounds["converged"] and rounds["within_6n2"]
    assert rounds["n1"] <= rounds["n2"] <= rounds["ninf"]
    assert 0 < rounds["convergence_rounds"] <= 6 * rounds["n2"]
    assert summary["warnings"] == []


def test_rounds_bad_option_names_the_field(tmp_path: Path) -> None:
    out = tmp_path / "out"
    smoke = str(REPO / "scenarios" / "sperc-fig6-smoke.toml")
    r = run("run", smoke, "-o", str(out), "--set", "engine.drop_probability=1.5")
    assert r.returncode != 0
    assert "engine.drop_probability" in r.stderr
    assert "Traceback" not in r.stderr
