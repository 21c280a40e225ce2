"""The eBA flow-level paper entries (Figs. 10–11, Fig. 14) at smoke scale, and eBA at flow
level from a scenario file (``scenarios/eba_flow.toml``): each test states what the paper
claims or the mechanism gives and what our run must show."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from test_paper import check_smoke

from fairnet.paper import get
from fairnet.paper.eba import flowlevel as fl


def test_eba_fig10_11_smoke_uniform_increase_speeds_convergence_and_nothing_else_does(
    tmp_path: Path,
) -> None:
    # eBA §VII-B, Fig. 10: without uniform increase the convergence time hardly depends on
    # τ_v / τ_r ("the convergence of the rates is independent of time parameters", §III-C:
    # smaller τ, smaller steps); with it ατ_v and βτ_r stay fixed, so Eq. (15) takes the same
    # steps, only more often: the time scales with τ (0.2 at τ_v = 10 ms against 50 ms, up to
    # the 5 ms sampling). Without UI we allow 10% between the two τ (Eq. 15 tends to Eq. 6 as
    # τ shrinks, first order: a few percent here). Fig. 11's fluctuations are TCP's and the
    # measurement's; a fluid link measures exactly, so after convergence every sample is
    # within 5% (the paper: 98% of the time on its testbed).
    console = Console(record=True, width=132)
    result = get("eba-fig10-11").run("smoke", tmp_path, console)
    check_smoke("eba-fig10-11", result, tmp_path)
    for name in ("Y joins", "Y at 300 Mb/s"):

        def conv(ui: bool, s: float, name: str = name) -> float:
            (r,) = [
                r
                for r in result.rows
                if r["scenario"] == name and r["uniform_increase"] == ui and r["scale"] == s
            ]
            return float(r["convergence_s"])

        assert abs(conv(False, 0.2) / conv(False, 1.0) - 1.0) < 0.10, name
        assert conv(True, 1.0) == conv(False, 1.0), name  # the same parameters at s = 1
        ratio = conv(True, 0.2) / conv(True, 1.0)
        assert 0.15 < ratio < 0.25, (name, ratio)
    assert all(r["late_within_5pct"] == 1.0 for r in result.rows)
    # Every run's distance from the oracle (systems::eba::oracle, over the second half of the
    # last stretch: 25–40 s or 20–40 s) is that of a settled fluid LRC, exact to the
    # controller's residue: the late samples' error is below 1e-9 (late_max_error), so the
    # distance is below 1e-3 — also "Y at 300 Mb/s", where Y wants less than its 450 Mb/s
    # guarantee and the oracle owes it its 300.
    for r in result.rows:
        assert r["oracle_max_rel_error"] < 1e-3 and r["oracle_jain"] > 1 - 1e-6, r
    assert (tmp_path / "eba-fig10-11.png").exists()


def test_eba_fig14_smoke_lrc_sits_between_reservation_and_best_effort(tmp_path: Path) -> None:
    # eBA §VII-C, Fig. 14: LRC keeps each VM-flow's guarantee as a floor and uses the spare
    # bandwidth, so large shuffles finish faster than under reservation (in both networks);
    # small ones no slower than under reservation; and LRC's utilization is close to best
    # effort's (the paper: 96%). We assert LRC's utilization at least 90% of best effort's
    # (the paper's 96% less a margin for a different trace) and above reservation's.
    console = Console(record=True, width=132)
    result = get("eba-fig14").run("smoke", tmp_path, console)
    check_smoke("eba-fig14", result, tmp_path)
    for net in ("full bisection", "4× oversubscribed"):
        by = {r["control"]: r for r in result.rows if r["network"] == net}
        assert by["lrc"]["large_mean_s"] < by["reservation"]["large_mean_s"], net
        assert by["lrc"]["small_median_s"] <= by["reservation"]["small_median_s"], net
        u = by["lrc"]["utilization_vs_best_effort"]
        assert u >= 0.9 and u > by["reservation"]["utilization_vs_best_effort"], net
        assert by["best_effort"]["utilization_vs_best_effort"] == 1.0
        assert {r["jobs"] for r in by.values()} == {45}
    assert (tmp_path / "eba-fig14.png").exists()


def one_link_run(
    control: str,
    guarantees: tuple[float, float],
    y_size: int = 10**13,
    stop_at_s: float = 20.0,
) -> dict[str, Any]:
    """X (host 0 → 2) and Y (host 1 → 3), both backlogged from 0, weight 1, on a dumbbell of
    1 Gb/s links (one shared 1 Gb/s link), under ``control`` with §VII-C's parameters."""
    vms = fl.Vms()
    x, rx = vms.add(0, guarantees[0]), vms.add(2, guarantees[0])
    y, ry = vms.add(1, guarantees[1]), vms.add(3, guarantees[1])
    tr = fl.Transfers()
    tr.add(x, rx, 10**13)
    tr.add(y, ry, y_size)
    link = {"kind": "dumbbell", "n_pairs": 2, "access_rate": "1Gbps", "bottleneck_rate": "1Gbps"}
    return fl.run(link, vms, tr, control, fl.lrc_config(), stop_at_s=stop_at_s)


def test_the_binding_reports_the_distance_from_the_oracle_as_a_scenario_run_does() -> None:
    # _core.eba_flow_run (eba-fig10-11, eba-fig14) reports what a scenario's summary.json
    # does (systems::eba::oracle): the VM-flows over the second half of the last stretch
    # without arrivals or departures against the oracle with guarantees on μC = 900 Mb/s.
    # Equal weights (Eq. 1: 1/1 + 1/1 = 2 each), guarantees 300 and 100 Mb/s: the oracle gives
    # 450 / 450 (both above their guarantees), LRC's equilibrium (Theorem 2), so a 20 s LRC run,
    # settled within a few seconds (eba-fig10-11: 3.45 s), must be within 5% of it (the
    # issue's bar) with Jain's index above 0.99. Reservation caps them at 300 / 100: Jain's
    # index of (2/3, 2/9) is (8/9)² / (2·(4/9 + 4/81)) = 0.8 and the largest relative error
    # 1 − 100/450 = 7/9, closed forms. Both runs: window (10, 20] s, two VM-flows.
    lrc = one_link_run("lrc", (300e6, 100e6))["oracle_distance"]
    assert lrc["vm_flows"] == 2 and tuple(lrc["window_s"]) == (10.0, 20.0), lrc
    assert all(abs(o - 450e6) < 1.0 for o in lrc["oracle_bps"]), lrc
    assert lrc["max_rel_error"] < 0.05 and lrc["jain_vs_oracle"] > 0.99, lrc
    res = one_link_run("reservation", (300e6, 100e6))["oracle_distance"]
    assert tuple(res["window_s"]) == (10.0, 20.0), res
    assert abs(res["jain_vs_oracle"] - 0.8) < 1e-9, res
    assert abs(res["max_rel_error"] - 7 / 9) < 1e-9, res
    assert [round(r) for r in res["rate_bps"]] == [300_000_000, 100_000_000], res
    # The entries' columns come from the same dict.
    cols = fl.oracle_columns(one_link_run("reservation", (300e6, 100e6)))
    assert abs(cols["oracle_jain"] - 0.8) < 1e-9 and cols["oracle_window_s"] == [10.0, 20.0]


def test_the_binding_reports_no_distance_when_nothing_was_open_over_a_sampled_window() -> None:
    # Y sends 1 KB and is gone within microseconds; X alone from then on: the last stretch is
    # X alone, and the oracle gives it μC = 900 Mb/s. A run stopped before the first τ_r
    # sample after 0 (100 ms) has no sampled window at all: None, and the entries' columns NaN.
    alone = one_link_run("lrc", (450e6, 450e6), y_size=1000, stop_at_s=5.0)["oracle_distance"]
    assert alone["vm_flows"] == 1 and abs(alone["oracle_bps"][0] - 900e6) < 1.0, alone
    short = one_link_run("lrc", (450e6, 450e6), stop_at_s=0.05)
    assert short["oracle_distance"] is None
    cols = fl.oracle_columns(short)
    assert cols["oracle_window_s"] is None and cols["oracle_jain"] != cols["oracle_jain"]


def test_the_flow_level_eba_scenario_runs_from_the_cli_and_reports_its_oracle_distance(
    tmp_path: Path,
) -> None:
    # scenarios/eba_flow.toml: X (weight 1, B = 400 Mb/s) and Y (weight 2, B = 200 Mb/s, three
    # flows) on a 1 Gb/s bottleneck with μ = 0.9. The oracle (Theorem 2) gives X 400 and Y
    # 500 Mb/s; LRC settles there by the second half of the 20 s run, so summary.json's eBA
    # block reports both VM-flows within 5% (the bar) and the report says so. Under
    # best effort (per-flow max-min: 250 / 750 Mb/s) the distance is the closed form 0.5.
    repo = Path(__file__).resolve().parents[1]
    cli = [sys.executable, "-m", "fairnet.cli", "run", str(repo / "scenarios" / "eba_flow.toml")]
    r = subprocess.run([*cli, "-o", str(tmp_path / "lrc")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "lrc" / "summary.json").read_text())
    d = summary["eba"]["oracle_distance"]
    assert d["vm_flows"] == 2 and d["window_s"] == [10.0, 20.0], d
    assert d["max_rel_error"] < 0.05 and d["jain_vs_oracle"] > 0.99, d
    assert summary["eba"]["vm_updates"] > 0
    assert "largest relative error" in (tmp_path / "lrc" / "report.html").read_text()
    best = [*cli, "-o", str(tmp_path / "be"), "--set", "engine.eba.rate_control=best_effort"]
    r = subprocess.run(best, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    d = json.loads((tmp_path / "be" / "summary.json").read_text())["eba"]["oracle_distance"]
    assert abs(d["max_rel_error"] - 0.5) < 1e-6, d


def test_bad_flow_level_eba_input_exits_2_with_one_line_naming_the_field(tmp_path: Path) -> None:
    # Issue 23's bad input from the CLI: α·τ_v outside (0, 1) and μ outside (0, 1] are refused
    # before anything runs with exit code 2 and one line naming the field, no traceback.
    repo = Path(__file__).resolve().parents[1]
    base = [sys.executable, "-m", "fairnet.cli", "run", str(repo / "scenarios" / "eba_flow.toml")]
    for override, field in (
        ("engine.eba.lrc.alpha=40", "engine.eba.lrc.alpha"),
        ("engine.eba.lrc.mu=1.5", "engine.eba.lrc.mu"),
        ("engine.eba.rate_control=tcp_like", "engine.eba.rate_control"),
    ):
        r = subprocess.run(
            [*base, "-o", str(tmp_path / "bad"), "--set", override], capture_output=True, text=True
        )
        assert r.returncode == 2, (override, r.stderr)
        assert field in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
