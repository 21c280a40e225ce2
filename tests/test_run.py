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
    import os
    import re
    import signal

    scenario = tmp_path / "long.toml"
    # Far more work than the test lets it do: 60k web-search flows at the packet level.
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
        # Progress lines every 0.2 s (stderr is not a terminal): the interrupt is sent once
        # the run's own progress shows a finished flow, never after a guessed sleep.
        env={**os.environ, "FAIRNET_PROGRESS_INTERVAL": "0.2"},
        start_new_session=True,
        # A shell's background job ignores SIGINT, and children inherit that; restore it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        m = re.match(r"fairnet: progress: ([\d,]+)/60,000 flows finished", line)
        if m and int(m.group(1).replace(",", "")) > 0:
            break
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
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


def _two_flows_packet(record: dict | None = None) -> dict:
    engine: dict = {"kind": "packet", "transport": "soze", "qdelay_signal": "backlog"}
    if record is not None:
        engine["record"] = record
    return {
        "topology": {"kind": "star", "n_hosts": 3},
        "workload": {
            "kind": "flows",
            "flows": [
                {"src": 0, "dst": 2, "size": "8MB"},
                {"src": 1, "dst": 2, "size": "8MB", "weight": 3},
            ],
        },
        "weight_changes": [{"at": "400us", "flow": 0, "weight": 3}],
        "engine": engine,
    }


def test_packet_time_series_reach_results_and_parquet(tmp_path: Path) -> None:
    # Two Söze flows (weights 1 and 3, then 3 and 3 from 400 µs) into one 100 Gb/s port,
    # sampled every 10 µs: per-flow throughputs sum to at most the port's capacity (plus one
    # packet per interval), the congestion control's rate is there, and the port's queue series
    # is written as queues.parquet.
    import fairnet

    r = fairnet.run(_two_flows_packet({"interval": "10us"}), output=tmp_path)
    rates = r.rates
    assert rates is not None and set(rates.columns) == {
        "time_s",
        "flow",
        "rate_bps",
        "send_rate_bps",
    }
    import polars as pl

    per_time = rates.group_by("time_s").agg(pl.col("rate_bps").sum().alias("total"))
    assert per_time["total"].max() <= 100e9 + 1048 * 8 / 10e-6
    queues = r.queues
    assert queues is not None and 5 in set(queues["link"].to_list())  # switch → host 2
    assert (tmp_path / "rates.parquet").exists() and (tmp_path / "queues.parquet").exists()
    assert pq.read_table(tmp_path / "queues.parquet").column_names == [
        "time_s",
        "link",
        "queue_bytes",
        "qdelay_s",
    ]

    # Before the change flow 1 (weight 3) gets ~3x flow 0; after it, about the same. (Söze's
    # per-RTT reference rate closes the weighted gap by a factor 1 - m per RTT, so the phases
    # are 400 µs and the second is measured from 200 µs after the change.)
    def mean(flow: int, a: float, b: float) -> float:
        sel = rates.filter((rates["flow"] == flow) & (rates["time_s"] > a) & (rates["time_s"] <= b))
        return float(sel["rate_bps"].mean())

    assert mean(1, 200e-6, 400e-6) > 2.5 * mean(0, 200e-6, 400e-6)
    assert mean(1, 600e-6, 700e-6) < 1.3 * mean(0, 600e-6, 700e-6)


def test_soze_lemma_3_2_count_reaches_the_summary_and_the_report(tmp_path: Path) -> None:
    # Two Söze flows into one port (weights 1 and 3: 25 and 75 Gb/s) with §3.3's compounding
    # rule. Lemma 3.2 needs p > Δt/2·ln(α/β) with Δt one packet (8,384 bits) at the flow's
    # rate; α = 100 Gb/s, β = 25 Gb/s (the port: 100 / (1 + 3)), ln(α/β) = ln 4, so a rate
    # above 8,384 bits · ln 4 / (2p). At p = 50 ns (allow_unstable) that is 116 Gb/s, above
    # the line rate: every update violates it, in both flows; the summary's soze block counts
    # them, a warning names the lemma and the report says so. At the paper's p = 20 µs the
    # bound is 0.29 Gb/s, far below both shares: fewer than 1% of the updates (transients).
    import fairnet

    doc = _two_flows_packet()
    doc.pop("weight_changes")
    doc["stop_at"] = "300us"
    doc["engine"]["soze"] = {"update": "per_packet_compound"}
    paper = fairnet.run(doc).summary["soze"]
    assert paper["flows"] == 2 and paper["held_at_floor"] == 0
    assert paper["lemma_3_2_violated_share"] < 0.01, paper
    doc["engine"]["soze"] |= {"p": "50ns", "allow_unstable": True}
    r = fairnet.run(doc, output=tmp_path)
    s = r.summary["soze"]
    assert s["lemma_3_2_violated_share"] == 1.0 and s["lemma_3_2_flows"] == 2, s
    counters = r.summary["counters"]
    assert s["lemma_3_2_violated_updates"] == counters["soze_lemma_3_2_violated_updates"]
    assert any("Lemma 3.2" in w for w in r.summary["warnings"])
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["soze"] == s
    assert "Lemma 3.2" in (tmp_path / "report.html").read_text()


def test_bad_weight_change_names_the_entry() -> None:
    import fairnet

    doc = _two_flows_packet()
    doc["weight_changes"].append({"at": "1ms", "flow": 9, "weight": 2})
    with pytest.raises(
        ValueError, match=r"weight_changes\[1\]\.flow: no flow 9 \(the workload has 2\)"
    ):
        fairnet.run(doc)
    doc = _two_flows_packet({"interval": 0})
    with pytest.raises(ValueError, match=r"record\.interval"):
        fairnet.run(doc)


def test_soze_fig17_scenario_file_runs_with_its_weight_schedule() -> None:
    # scenarios/soze_fig17.toml, cut to 300 µs: six flows sampled every 10 µs (30 samples
    # each), Söze's pacing rate in every sample, both congested ports (links 0 and 2) queued.
    import fairnet

    r = fairnet.run(REPO / "scenarios" / "soze_fig17.toml", overrides={"stop_at": "300us"})
    rates = r.rates
    assert rates is not None and rates.height == 6 * 30
    assert rates["send_rate_bps"].null_count() == 0
    queues = r.queues
    assert queues is not None and {0, 2} <= set(queues["link"].to_list())
    assert r.scenario["weight_changes"][3] == {"at": "40ms", "flow": 0, "weight": 5.0}


def test_summary_convergence_against_the_max_min_reference() -> None:
    # Söze settles on the weighted max-min rates (1 : 3, then 3 : 3 after 400 µs) and stays
    # there to the end; Reno under drop-tail ignores weights, so its flows end far from them.
    import fairnet

    soze = fairnet.run(_two_flows_packet({"interval": "10us"})).summary["convergence"]
    assert soze["samples"] > 20 and soze["time_s"] is not None
    assert soze["final_max_error"] < 0.1
    reno_doc = _two_flows_packet({"interval": "10us"})
    reno_doc["engine"]["transport"] = "reno"
    reno = fairnet.run(reno_doc).summary["convergence"]
    assert reno["time_s"] is None and reno["final_max_error"] > 0.1
    # Without recorded samples there is nothing to measure.
    assert fairnet.run(_two_flows_packet()).summary["convergence"] is None
