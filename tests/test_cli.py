"""The command line: outputs, exit codes and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FAIRNET = [sys.executable, "-m", "fairnet.cli"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*FAIRNET, *args], capture_output=True, text=True, cwd=cwd)


def write(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc))
    return path


SPERC = {
    "links": [
        {"id": "l20", "capacity": "20Gbps"},
        {"id": "l30", "capacity": 30e9},
        {"id": "l12", "capacity": 12e9},
    ],
    "flows": [
        {"id": "blue", "path": ["l20", "l30"]},
        {"id": "green", "path": ["l30", "l12"], "weight": 1},
    ],
}


def test_help_lists_subcommands() -> None:
    r = run("--help")
    assert r.returncode == 0
    for cmd in ("allocate", "check", "bench", "demo"):
        assert cmd in r.stdout


def test_allocate_writes_result_and_check_accepts_it(tmp_path: Path) -> None:
    problem = write(tmp_path / "p.json", SPERC)
    out = tmp_path / "r.json"
    r = run("allocate", str(problem), "-o", str(out))
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["rates"] == pytest.approx({"blue": 18e9, "green": 12e9})
    assert doc["bottleneck"] == {"blue": "l30", "green": "l12"}
    assert doc["iterations"]["kinf"] == 2 and doc["iterations"]["k1"] <= doc["iterations"]["k2"]
    assert run("check", str(problem), str(out)).returncode == 0
    doc["rates"]["blue"] = 15e9
    bad = write(tmp_path / "bad.json", doc)
    r = run("check", str(problem), str(bad))
    assert r.returncode == 1 and "blue" in r.stdout


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda d: d["flows"][0]["path"].append("nope"),
            "flows[0].path[2]: unknown link id 'nope'",
        ),
        (lambda d: d["flows"].append(dict(d["flows"][0])), "flows[2].id: duplicate flow id 'blue'"),
        (lambda d: d["links"][0].update(capacity=-5), 'link "l20": capacity must be a positive'),
        (
            lambda d: d["links"][1].update(capacity="30 parsecs"),
            "links[1].capacity: expected a rate",
        ),
        (lambda d: d["flows"][1].update(weight=0), 'flow "green": weight must be a positive'),
        (lambda d: d["flows"][1].update(path=[]), 'flow "green": path is empty'),
        (lambda d: d["flows"][1].update(colour="green"), "flows[1]: unknown key 'colour'"),
        (
            lambda d: (
                d["flows"][0].update(guarantee="15Gbps") or d["flows"][1].update(guarantee="16Gbps")
            ),
            'link "l30": guarantees of its flows sum to',
        ),
    ],
)
def test_bad_problem_is_one_line_exit_2(tmp_path: Path, mutate, message: str) -> None:
    doc = json.loads(json.dumps(SPERC))
    mutate(doc)
    r = run("allocate", str(write(tmp_path / "p.json", doc)))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert message in lines[0]
    assert "Traceback" not in r.stderr


def test_missing_and_malformed_files(tmp_path: Path) -> None:
    r = run("allocate", str(tmp_path / "missing.json"))
    assert r.returncode == 2 and "cannot read" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"links": [')
    r = run("allocate", str(bad))
    assert r.returncode == 2 and "invalid JSON at line 1" in r.stderr


def test_generated_fat_tree_problem(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    saved = tmp_path / "p.json"
    r = run(
        "allocate",
        "--fat-tree",
        "4",
        "--flows",
        "200",
        "--seed",
        "5",
        "--save-problem",
        str(saved),
        "-o",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    assert len(json.loads(out.read_text())["rates"]) == 200
    assert run("check", str(saved), str(out)).returncode == 0
    r = run("allocate", "--fat-tree", "5")
    assert r.returncode == 2 and "k" in r.stderr


def test_demo_writes_summary(tmp_path: Path) -> None:
    r = run("demo", "-o", str(tmp_path / "demo"))
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "demo" / "summary.json").read_text())
    assert summary["check_ok"] is True and summary["flows"] == 20_000
