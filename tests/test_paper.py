"""The paper registry: every entry runs at smoke scale and prints the paper's numbers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from fairnet.errors import InputError
from fairnet.paper import REGISTRY, get

FAIRNET = [sys.executable, "-m", "fairnet.cli"]


def test_list_names_every_entry() -> None:
    r = subprocess.run([*FAIRNET, "paper", "list"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for name in ("soze-fig19", "sperc-fig2"):
        assert name in r.stdout
    for e in REGISTRY.values():
        assert e.title and e.paper and e.figure and set(e.scales) == {"smoke", "full"}


def test_sperc_fig2_matches_the_paper(tmp_path: Path) -> None:
    # s-PERC §2.1: flow 2 is bottlenecked at l12 (12 Gb/s); flow 1 then gets the rest of l30,
    # 30 - 12 = 18 Gb/s; l20 keeps 2 Gb/s spare.
    r = subprocess.run(
        [*FAIRNET, "paper", "run", "sperc-fig2", "-o", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert "18 Gb/s" in r.stdout and "12 Gb/s" in r.stdout
    rows = json.loads((tmp_path / "results.json").read_text())["rows"]
    for row in rows:
        assert row["rate_gbps"] == pytest.approx(row["paper_rate_gbps"], rel=1e-9)
        assert row["bottleneck"] == row["paper_bottleneck"]
    assert (tmp_path / "sperc-fig2.png").exists() and (tmp_path / "sperc-fig2.svg").exists()


def test_soze_fig19_smoke(tmp_path: Path) -> None:
    console = Console(record=True, width=132)
    result = get("soze-fig19").run("smoke", tmp_path, console)
    a = [r for r in result.rows if r["panel"] == "a"]
    b = [r for r in result.rows if r["panel"] == "b"]
    assert [r["k"] for r in a] == [4, 8, 12, 16] and {r["flows"] for r in a} == {10_000}
    assert [r["flows"] for r in b] == [10, 100, 1_000, 10_000] and {r["k"] for r in b} == {16}
    assert all(r["check"] for r in result.rows)  # every allocation verified independently
    assert b[0]["paper_s"] == pytest.approx(1.81e-3)  # the paper's own number, beside ours
    assert "1.81 ms" in console.export_text()
    assert (tmp_path / "soze-fig19.png").exists()


def test_unknown_entry_and_scale() -> None:
    with pytest.raises(InputError, match="no entry .nope.; known: soze-fig11, soze-fig19"):
        get("nope")
    with pytest.raises(InputError, match="--scale"):
        get("sperc-fig2").run("huge", Path("unused"))


def test_soze_fig11_smoke(tmp_path: Path) -> None:
    console = Console(record=True, width=132)
    result = get("soze-fig11").run("smoke", tmp_path, console)
    rows = [r for r in result.rows if r["query"] != "mean"]
    summary = next(r for r in result.rows if r["query"] == "mean")
    assert [r["query"] for r in rows] == list(range(1, 23))
    # Every job finished under both allocations.
    assert all(r["fair_jct_s"] > 0 and r["weighted_jct_s"] > 0 for r in rows)
    # Q1 (pricing summary) and Q6 (revenue forecast) are single scans: chains of flows.
    single = {r["query"] for r in rows if r["single_path"]}
    assert {1, 6} <= single and not {3, 5, 8, 9, 21} & single
    # The mean is the mean of the rows, printed beside the paper's.
    assert summary["ratio"] == pytest.approx(sum(r["ratio"] for r in rows) / 22)
    assert summary["paper_mean_ratio"] == 0.79
    assert "paper: 0.79, 0.59" in console.export_text()


def test_sperc_fig6_smoke_runs_through_the_sweep_and_keeps_the_bounds(tmp_path: Path) -> None:
    console = Console(record=True, width=132)
    result = get("sperc-fig6").run("smoke", tmp_path, console)
    rows = {(r["panel"], r["algorithm"]): r for r in result.rows}
    assert len(rows) == 6
    sparse = {a: rows[("sparse (RTTs)", a)] for a in ("fair", "s_perc", "n_perc")}
    # Every sparse run converged; Fair (per-flow state) is at least as fast as n-PERC at the
    # median, as in the paper; the bound check ran on every run (the entry raises otherwise).
    assert all(r["converged"] == r["runs"] == 9 for r in sparse.values())
    assert sparse["fair"]["median"] <= sparse["n_perc"]["median"]
    assert "within 6·N2" in console.export_text()
    assert (tmp_path / "sweep-0" / "sweep.parquet").exists()
