"""The bulk-sender workload (``workload.kind = "bulk"``, Uranus §5.2.1) through the Python
runner and the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import fairnet


def doc(background: dict | None) -> dict:
    workload: dict = {"kind": "bulk", "size": "100MB", "tags": 2}
    if background is not None:
        workload["background"] = background
    return {
        "seed": 2,
        "stop_at": "2ms",
        "topology": {"kind": "uranus_fat_tree"},
        "workload": workload,
        "engine": {"kind": "packet", "transport": "dctcp", "routing": "flowcell"},
    }


def test_bulk_senders_run_with_a_named_background_distribution() -> None:
    # §5.2's 64 hosts, one bulk flow per host of each of 2 tags: 128 flows of 100 MB (none can
    # finish in 2 ms at 1 Gb/s: 100 MB takes 0.8 s), listed host by host, tags 0 then 1, then
    # the background (tag 2) with sizes from the shipped web-search CDF named by its name,
    # which the resolved scenario keeps (so that it reruns on any machine). Its arrivals until
    # 20 ms are Poisson of mean 0.1 · 64 Gb/s · 20 ms / (8 · 1.71 MB) ≈ 9.4 flows (none with
    # probability e^-9.4 ≈ 8e-5; seed 2 fixed); those after the 2 ms stop are listed unstarted.
    r = fairnet.run(doc({"load": 0.1, "cdf": "websearch", "until": "20ms"}))
    f = r.flows
    assert f["tag"][:128].to_list() == [0, 1] * 64
    assert f["src"][:4].to_list() == [0, 0, 1, 1]
    assert (f["size"][:128] == 100_000_000).all()
    assert f["end_s"][:128].is_nan().all()
    assert len(f) > 128 and (f["tag"][128:] == 2).all()
    assert r.scenario["workload"]["background"]["cdf"] == "websearch"


def test_bulk_background_without_sizes_is_one_line_exit_2(tmp_path: Path) -> None:
    # The bulk flows have no size distribution of their own: the background must name one.
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc({"load": 0.1, "until": "2ms"})))
    r = subprocess.run(
        [sys.executable, "-m", "fairnet.cli", "run", str(path), "-o", str(tmp_path / "out")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "workload.background.cdf: needed beside a bulk workload" in lines[0]
    assert "Traceback" not in r.stderr
