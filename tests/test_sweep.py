"""``fairnet sweep``: grid × seeds into one sweep.parquet; resumable; bad points reported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from fairnet.errors import InputError
from fairnet.sweep import load_sweep, run_sweep, run_task

SCENARIO = """
name = "tiny"
[topology]
kind = "fat_tree"
k = 4
[workload]
kind = "poisson"
cdf = "websearch"
load = 0.5
flows = 200
[engine]
kind = "flow"
"""


def _sweep(tmp_path: Path, body: str) -> Path:
    (tmp_path / "tiny.toml").write_text(SCENARIO)
    path = tmp_path / "sweep.toml"
    path.write_text('base = "tiny.toml"\nseeds = [1, 2]\n' + body)
    return path


GRID = '[grid]\n"workload.load" = [0.3, 0.6]\n'


def test_grid_runs_every_point_and_seed_once(tmp_path: Path) -> None:
    path = _sweep(tmp_path, GRID)
    out = tmp_path / "out"
    first = run_sweep(path, out, workers=2)
    assert (first.total, first.ran, first.skipped) == (4, 4, 0)
    table = pl.read_parquet(out / "sweep.parquet")
    assert table.height == 4
    assert sorted(zip(table["workload.load"], table["seed"], strict=True)) == [
        (0.3, 1),
        (0.3, 2),
        (0.6, 1),
        (0.6, 2),
    ]
    assert table["complete"].all() and (table["status"] == "ok").all()
    assert (table["slowdown_median"] >= 1.0).all()
    assert {"slowdown_p99", "p50_<10KB", "p99_>1MB", "wall_seconds", "events_per_second"} <= set(
        table.columns
    )
    # Each run directory holds the full set of run outputs.
    for key in table["run"]:
        assert (out / "runs" / key / "flows.parquet").exists()
    stamps = {p: p.stat().st_mtime_ns for p in (out / "runs").glob("*/summary.json")}
    assert len(stamps) == 4

    again = run_sweep(path, out, workers=2)  # resumed: nothing runs again
    assert (again.ran, again.skipped) == (0, 4)
    assert stamps == {p: p.stat().st_mtime_ns for p in (out / "runs").glob("*/summary.json")}
    assert pl.read_parquet(out / "sweep.parquet").height == 4


def test_bad_point_is_one_line_and_the_rest_finish(tmp_path: Path) -> None:
    path = _sweep(tmp_path, '[[points]]\n"workload.load" = 0.4\n[[points]]\nworkload.load = 1.4\n')
    r = subprocess.run(
        [sys.executable, "-m", "fairnet.cli", "sweep", str(path), "-o", str(tmp_path / "o")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1, r.stderr  # the others ran; the exit code says one was bad
    bad = [line for line in r.stderr.splitlines() if "bad point" in line]
    assert len(bad) == 2  # one line per seed of the bad point
    assert all("workload.load=1.4" in line and "expected a fraction" in line for line in bad)
    table = pl.read_parquet(tmp_path / "o" / "sweep.parquet")
    ok = table.filter(pl.col("status") == "ok")
    assert ok.height == 2 and (ok["workload.load"] == 0.4).all()
    assert table.filter(pl.col("status") == "error").height == 2


def crash_once(doc: dict, base_dir: Path, outdir: Path) -> str | None:
    """A task whose worker process dies the first time it sees a run."""
    marker = outdir.parent / f"crashed-{outdir.name}"
    if not marker.exists():
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
        os._exit(1)
    return run_task(doc, base_dir, outdir)


def test_a_dead_worker_fails_its_run_only_and_resume_reruns_it(tmp_path: Path) -> None:
    path = _sweep(tmp_path, GRID)
    outcome = run_sweep(path, tmp_path / "o", workers=1, task_fn=crash_once)
    # Each run's first attempt kills its worker: every run fails with the cause, and the sweep
    # goes on with a new worker each time.
    assert outcome.ran == 0 and len(outcome.failed) == 4
    assert all("exited with code 1" in line for line in outcome.failed)
    assert outcome.exit_code == 1
    table = pl.read_parquet(tmp_path / "o" / "sweep.parquet")
    assert (table["status"] == "failed").all()
    again = run_sweep(path, tmp_path / "o", workers=1, task_fn=crash_once)
    assert (again.ran, again.skipped, again.exit_code) == (4, 0, 0)
    assert pl.read_parquet(tmp_path / "o" / "sweep.parquet")["complete"].all()


def test_resume_reruns_an_interrupted_run(tmp_path: Path) -> None:
    # A run directory whose summary says the run was interrupted is not done.
    from fairnet.sweep import is_done

    path = _sweep(tmp_path, GRID)
    out = tmp_path / "o"
    run_sweep(path, out, workers=1)
    dirs = sorted((out / "runs").iterdir())
    summary = dirs[0] / "summary.json"
    doc = json.loads(summary.read_text())
    doc["interrupted"] = True
    summary.write_text(json.dumps(doc))
    assert not is_done(dirs[0]) and is_done(dirs[1])
    (dirs[0].parent / (dirs[0].name + ".running")).touch()  # a stale marker of an old version
    again = run_sweep(path, out, workers=1)
    assert (again.ran, again.skipped) == (1, 3)
    assert is_done(dirs[0])
    assert not list((out / "runs").glob("*.running"))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[grid]\n"workload.load" = 0.3\n', "grid.workload.load: expected a non-empty list"),
        ("[grid]\na = [1]\n[[points]]\nb = 1\n", "either [grid] or [[points]]"),
        ("colour = 1\n", "unknown field `colour`"),
    ],
)
def test_bad_sweep_file(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_sweep(_sweep(tmp_path, body))


def test_ray_local(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    path = _sweep(tmp_path, GRID)
    outcome = run_sweep(path, tmp_path / "o", ray_address="local")
    assert outcome.ran == 4 and outcome.exit_code == 0
    table = pl.read_parquet(tmp_path / "o" / "sweep.parquet")
    assert table.height == 4 and (table["status"] == "ok").all()


def test_run_key_is_the_resolved_scenario() -> None:
    # Writing a default out explicitly (seed = 1, weights = equal) names the same run; a real
    # change does not.
    from fairnet.sweep import _key

    base = {
        "topology": {"kind": "star", "n_hosts": 4},
        "workload": {"kind": "permutation", "size": "1MB"},
        "engine": {"kind": "flow"},
    }
    explicit = base | {"seed": 1, "weights": {"kind": "equal"}}
    other = base | {"seed": 2}
    assert _key(base, Path(".")) == _key(explicit, Path("."))
    assert _key(base, Path(".")) != _key(other, Path("."))
