"""Every result says how it was made and reruns anywhere (issue 27): provenance.json beside the
data, a run directory that reruns itself bit for bit (from another working directory, after the
whole tree moved), JSON scenarios, named errors for moved user files, ``compare`` naming
version and scenario differences, and paper entries' provenance outside their golden digests."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import platform
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from fairnet.provenance import git_state

REPO = Path(__file__).resolve().parents[1]
FAIRNET = [sys.executable, "-m", "fairnet.cli"]
WEBSEARCH = REPO / "python" / "fairnet" / "data" / "flow-size-cdf" / "WebSearch_distribution.txt"

#: Smoke size: 200 flows on a k=4 fat-tree, fluid engine (well under a second).
SCENARIO = {
    "name": "provenance smoke",
    "seed": 3,
    "topology": {"kind": "fat_tree", "k": 4},
    "workload": {"kind": "poisson", "cdf": "websearch", "load": "50%", "flows": 200},
    "weights": {"kind": "uniform", "lo": 1, "hi": 4},
    "engine": {"kind": "flow", "rate_interval": "100us"},
}

#: The files that must repeat bit for bit for the same scenario and seed.
DATA_FILES = ("flows.parquet", "rates.parquet", "summary.json", "scenario.json")


def fairnet(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*FAIRNET, *args], capture_output=True, text=True, cwd=cwd)


def toml_scenario(cdf: str) -> str:
    """SCENARIO as TOML, with ``workload.cdf`` set to ``cdf``."""
    w = SCENARIO["workload"]
    return f"""name = "{SCENARIO["name"]}"
seed = {SCENARIO["seed"]}
[topology]
kind = "fat_tree"
k = 4
[workload]
kind = "poisson"
cdf = "{cdf}"
load = "{w["load"]}"
flows = {w["flows"]}
[weights]
kind = "uniform"
lo = 1
hi = 4
[engine]
kind = "flow"
rate_interval = "100us"
"""


def lab(root: Path, cdf: str) -> Path:
    """A project tree: ``inputs/my.cdf`` (a user CDF), ``exp/s.toml`` naming ``cdf``, and the
    run ``results/a`` made from ``exp/``; returns the run directory."""
    (root / "inputs").mkdir(parents=True)
    shutil.copy(WEBSEARCH, root / "inputs" / "my.cdf")
    (root / "exp").mkdir()
    (root / "exp" / "s.toml").write_text(toml_scenario(cdf))
    r = fairnet("run", "s.toml", "-o", "../results/a", cwd=root / "exp")
    assert r.returncode == 0, r.stderr
    return root / "results" / "a"


def assert_same_data(a: Path, b: Path) -> None:
    for name in DATA_FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.parametrize("cdf", ["websearch", "../inputs/my.cdf"])
def test_a_run_directory_reruns_bit_for_bit_from_anywhere(tmp_path: Path, cdf: str) -> None:
    a = lab(tmp_path / "lab", cdf)
    written = json.loads((a / "scenario.json").read_text())["workload"]["cdf"]
    # A shipped distribution by its name; a user file relative to the run directory (which
    # sits one level deeper than exp/): never an install or absolute path.
    assert written == ("websearch" if cdf == "websearch" else "../../inputs/my.cdf")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = fairnet("run", str(a), "-o", str(tmp_path / "lab" / "results" / "b"), cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    assert_same_data(a, tmp_path / "lab" / "results" / "b")
    # The whole tree moved (another machine): DIR/scenario.json reruns it too.
    moved = tmp_path / "moved"
    shutil.copytree(tmp_path / "lab", moved)
    c = moved / "results" / "c"
    r = fairnet("run", str(moved / "results" / "a" / "scenario.json"), "-o", str(c), cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    assert_same_data(a, c)


def test_rerun_default_output_never_overwrites_the_run(tmp_path: Path) -> None:
    a = lab(tmp_path / "lab", "websearch")
    before = (a / "provenance.json").read_bytes()
    r = fairnet("run", str(a), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert_same_data(a, tmp_path / "results" / "a-rerun")
    assert (a / "provenance.json").read_bytes() == before


def test_json_scenarios_run_by_extension_or_content(tmp_path: Path) -> None:
    import fairnet as api

    (tmp_path / "s.json").write_text(json.dumps(SCENARIO))
    (tmp_path / "noext").write_text(json.dumps(SCENARIO))
    (tmp_path / "s.toml").write_text(toml_scenario("websearch"))
    for name in ("s.json", "noext", "s.toml"):
        r = fairnet("run", name, "-o", f"out-{name}", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    # One scenario, three spellings: the same run.
    assert_same_data(tmp_path / "out-s.json", tmp_path / "out-s.toml")
    assert_same_data(tmp_path / "out-noext", tmp_path / "out-s.toml")
    assert api.run(tmp_path / "s.json").summary["flows"] == 200  # the Python API too
    (tmp_path / "s.cfg").write_text("this is [neither\n")
    r = fairnet("run", "s.cfg", "-o", "x", cwd=tmp_path)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert "neither a TOML nor a JSON scenario" in lines[0] and "Traceback" not in r.stderr


def test_a_sweep_takes_a_json_base_scenario(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(json.dumps(SCENARIO))
    (tmp_path / "sw.toml").write_text('base = "s.json"\n[grid]\n"workload.flows" = [50, 60]\n')
    r = fairnet("sweep", "sw.toml", "-o", "sw", "--workers", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    import polars as pl

    table = pl.read_parquet(tmp_path / "sw" / "sweep.parquet")
    assert table["status"].to_list() == ["ok", "ok"]
    assert table["wall_seconds"].null_count() == 0  # read from each run's provenance.json


def test_a_moved_user_cdf_is_a_one_line_error_naming_field_and_path(tmp_path: Path) -> None:
    a = lab(tmp_path / "lab", "../inputs/my.cdf")
    cdf = tmp_path / "lab" / "inputs" / "my.cdf"
    cdf.rename(tmp_path / "lab" / "inputs" / "moved.cdf")
    r = fairnet("run", str(a), "-o", str(tmp_path / "b"), cwd=tmp_path)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    tried = a / "../../inputs/my.cdf"
    assert lines[0].startswith("fairnet: error: workload.cdf: "), lines[0]
    assert f"no such file {tried};" in lines[0]
    assert not (tmp_path / "b" / "summary.json").exists()


def test_provenance_says_what_made_the_run(tmp_path: Path) -> None:
    a = lab(tmp_path / "lab", "websearch")
    summary = json.loads((a / "summary.json").read_text())
    assert "provenance.json" in summary["files"]
    assert "wall_seconds" not in summary  # what varies lives in provenance.json
    prov = json.loads((a / "provenance.json").read_text())
    assert prov["fairnet"] == metadata.version("fairnet")
    assert prov["rustc"].startswith("rustc ")
    assert prov["python"] == platform.python_version()
    assert prov["platform"] == platform.platform()
    assert prov["command"] == "fairnet run s.toml -o ../results/a"
    canonical = json.dumps(
        json.loads((a / "scenario.json").read_text()), sort_keys=True, separators=(",", ":")
    )
    assert prov["scenario_sha256"] == hashlib.sha256(canonical.encode()).hexdigest()
    assert prov["seed"] == SCENARIO["seed"]
    started = dt.datetime.fromisoformat(prov["started"])
    assert abs((dt.datetime.now(dt.UTC) - started).total_seconds()) < 3600
    assert prov["wall_seconds"] > 0
    # From a checkout (this one), the commit is the checkout's HEAD and dirty is its status.
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    status = subprocess.run(
        ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert prov["git"] == {"commit": head, "dirty": bool(status)}
    html = (a / "report.html").read_text()
    assert f"fairnet {prov['fairnet']} at {head[:12]}" in html and "<footer" in html


def test_no_git_state_outside_a_checkout(tmp_path: Path) -> None:
    assert git_state(tmp_path) is None  # not a repository at all
    other = tmp_path / "project"
    (other / "lib" / "fairnet").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    # An install inside some other repository is not a fairnet checkout.
    assert git_state(other / "lib" / "fairnet") is None


def test_compare_names_version_and_scenario_differences(tmp_path: Path) -> None:
    a = lab(tmp_path / "lab", "websearch")
    exp = tmp_path / "lab" / "exp"
    assert fairnet("run", str(a), "-o", "../results/b", cwd=exp).returncode == 0
    r = fairnet("compare", "../results/a", "../results/b", "-o", "../cmp", cwd=exp)
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
    b = tmp_path / "lab" / "results" / "b"
    prov = json.loads((b / "provenance.json").read_text())
    (b / "provenance.json").write_text(json.dumps(prov | {"fairnet": "0.0.1"}))
    r = fairnet("compare", "../results/a", "../results/b", "-o", "../cmp", cwd=exp)
    assert r.returncode == 0, r.stderr  # said, not refused
    assert "different fairnet versions" in r.stderr and "fairnet 0.0.1" in r.stderr
    assert "different scenarios" not in r.stderr
    assert "different fairnet versions" in (tmp_path / "lab" / "cmp" / "compare.html").read_text()
    r = fairnet("run", "s.toml", "-o", "../results/c", "--set", "workload.load=0.4", cwd=exp)
    assert r.returncode == 0, r.stderr
    r = fairnet("compare", "../results/a", "../results/c", "-o", "../cmp", cwd=exp)
    assert r.returncode == 0 and "fields that differ: workload.load)" in r.stderr, r.stderr


def test_paper_results_carry_provenance_outside_the_golden_digest(tmp_path: Path) -> None:
    from fairnet.paper import golden

    r = fairnet("paper", "run", "sperc-fig2", "-o", str(tmp_path / "p"))
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "p" / "results.json").read_text())
    prov = doc["provenance"]
    assert prov["reproduce"] == "fairnet paper run sperc-fig2 --scale smoke"
    assert prov["fairnet"] == metadata.version("fairnet") and prov["rustc"].startswith("rustc ")
    assert golden.mismatch("sperc-fig2", tmp_path / "p" / "results.json") is None
    # The digest would see any change of the data, but not of the provenance.
    doc["provenance"]["started"] = "1970-01-01T00:00:00+00:00"
    assert golden.digest(doc) == golden.digest_file(tmp_path / "p" / "results.json")
    doc["figure"] = "another"
    assert golden.digest(doc) != golden.digest_file(tmp_path / "p" / "results.json")
