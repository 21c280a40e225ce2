"""HPCC simulator files (flow.txt in, fct.txt out) and ``fairnet compare``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import fairnet
from fairnet.compare import load_run
from fairnet.hpcc import read_fct, read_flows, write_flows

FAIRNET = [sys.executable, "-m", "fairnet.cli"]

SCENARIO = """
name = "from an ns-3 flow list"
[topology]
kind = "fat_tree"
k = 4
[workload]
kind = "flow_file"
path = "flow.txt"
[engine]
kind = "flow"
"""


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*FAIRNET, *args], capture_output=True, text=True)


def _flow_list(tmp_path: Path) -> Path:
    rng = np.random.default_rng(4)
    n = 200
    src = rng.integers(0, 16, n)
    dst = (src + rng.integers(1, 16, n)) % 16  # never equal to src
    flows = pl.DataFrame(
        {
            "src": src,
            "dst": dst,
            "size": rng.integers(1_000, 2_000_000, n),
            "start_s": np.sort(rng.uniform(0, 1e-3, n)),
        }
    )
    return write_flows(flows, tmp_path / "flow.txt")


def test_reads_the_simulators_own_fct_txt_written_by_hand(tmp_path: Path) -> None:
    # Three lines as the HPCC simulator's qp_finish writes them: "sip dip sport dport size
    # start_ns fct_ns standalone_fct_ns", addresses 0x0b000001 + (n / 256) << 16 +
    # (n % 256) << 8 for node n (its node_id_to_ip): nodes 0, 1, 2 and 257.
    path = tmp_path / "fct.txt"
    path.write_text(
        "0b000001 0b000101 10000 100 200000 2000000000 18240 17440\n"
        "0b000201 0b010101 10001 100 1000 2000001000 3000 1500\n"
        "0b010101 0b000001 10000 100 5000000 2000002500 500000 400000\n"
    )
    t = read_fct(path)
    assert t["src"].to_list() == [0, 2, 257] and t["dst"].to_list() == [1, 257, 0]
    assert t["sport"].to_list() == [10000, 10001, 10000] and set(t["dport"]) == {100}
    assert t["size"].to_list() == [200_000, 1_000, 5_000_000]
    assert t["start_s"].to_list() == pytest.approx([2.0, 2.000001, 2.0000025])
    assert t["fct_s"].to_list() == pytest.approx([18.24e-6, 3e-6, 500e-6])
    # The HPCC scripts' slowdown: FCT over the standalone FCT.
    assert t["slowdown"].to_list() == pytest.approx([18240 / 17440, 2.0, 1.25])


def test_reads_the_simulators_own_flow_list_written_by_hand(tmp_path: Path) -> None:
    # The simulator's flow.txt (read by its third.cc): the flow count, then "src dst pg dport
    # size start_s" per flow, with the generator's pg 3 and dport 100.
    path = tmp_path / "flow.txt"
    path.write_text("2\n0 1 3 100 200000 2.0\n2 1 3 100 1000 2.000001\n")
    t = read_flows(path)
    assert t["src"].to_list() == [0, 2] and t["dst"].to_list() == [1, 1]
    assert t["size"].to_list() == [200_000, 1_000]
    assert t["start_s"].to_list() == pytest.approx([2.0, 2.000001])


def test_flow_list_round_trips(tmp_path: Path) -> None:
    path = _flow_list(tmp_path)
    assert path.read_text().splitlines()[0] == "200"
    flows = read_flows(path)
    again = read_flows(write_flows(flows, tmp_path / "again.txt"))
    assert flows.equals(again)
    assert (flows["src"] != flows["dst"]).all()


def test_run_from_a_flow_list_writes_fct_txt_matching_the_flow_table(tmp_path: Path) -> None:
    _flow_list(tmp_path)
    (tmp_path / "s.toml").write_text(SCENARIO)
    out = tmp_path / "out"
    r = run("run", str(tmp_path / "s.toml"), "-o", str(out), "--fct-txt")
    assert r.returncode == 0, r.stderr
    assert "fct.txt" in r.stdout
    table = pl.read_parquet(out / "flows.parquet")
    fct = read_fct(out / "fct.txt")
    assert len(fct) == len(table) == 200
    # Flows come back in order (source port 10000 + flow index), with the flow list's
    # endpoints and sizes, and FCTs equal to the Parquet table's to the nanosecond.
    assert fct["sport"].to_list() == list(range(10_000, 10_200))
    assert fct["src"].to_list() == table["src"].to_list()
    assert fct["size"].to_list() == table["size"].to_list()
    assert np.allclose(fct["fct_s"], table["fct_s"], rtol=0, atol=1.01e-9)
    assert np.allclose(fct["standalone_fct_s"], table["ideal_fct_s"], rtol=0, atol=1.01e-9)


def test_bad_flow_list_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "flow.txt").write_text("2\n0 1 3 100 5000 0\n0 99 3 100 5000 0\n")
    (tmp_path / "s.toml").write_text(SCENARIO)
    r = run("run", str(tmp_path / "s.toml"), "-o", str(tmp_path / "out"))
    assert r.returncode == 2
    assert r.stderr.strip().endswith("flow.txt: flow 1: dst 99 is not a host of the topology")
    assert r.stderr.startswith("fairnet: error: workload.path: ")
    assert "Traceback" not in r.stderr


def test_compare_overlays_runs_and_an_fct_txt(tmp_path: Path) -> None:
    _flow_list(tmp_path)
    (tmp_path / "s.toml").write_text(SCENARIO)
    a = fairnet.run(tmp_path / "s.toml")
    a.write(tmp_path / "a", fct_txt=True)
    b = fairnet.run(tmp_path / "s.toml", overrides=["weights.kind=shortest_first"])
    b.write(tmp_path / "b")
    out = tmp_path / "cmp"
    r = run(
        "compare",
        str(tmp_path / "a"),
        str(tmp_path / "b"),
        str(tmp_path / "a" / "fct.txt"),
        "-o",
        str(out),
        "--label",
        "fair",
        "--label",
        "sff",
        "--label",
        "fair (fct.txt)",
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "compare.json").read_text())
    assert [d["label"] for d in doc] == ["fair", "sff", "fair (fct.txt)"]
    # The run directory and its own fct.txt give the same percentiles (ns rounding aside).
    for x, y in zip(doc[0]["by_size"], doc[2]["by_size"], strict=True):
        assert x["flows"] == y["flows"]
        if x["flows"]:
            assert abs(x["p50"] - y["p50"]) < 1e-3 * x["p50"]
    # Shortest-flow-first favours small flows: their median slowdown is not worse.
    assert doc[1]["by_size"][0]["p50"] <= doc[0]["by_size"][0]["p50"] + 1e-9
    for f in ("compare.png", "compare.svg", "compare.html"):
        assert (out / f).stat().st_size > 0
    bad = run("compare", str(tmp_path / "missing"), "-o", str(out))
    assert bad.returncode == 2
    assert "missing: no such run directory or fct.txt" in bad.stderr


def _packet_scenario(tmp_path: Path) -> Path:
    _flow_list(tmp_path)
    path = tmp_path / "p.toml"
    path.write_text(SCENARIO.replace('kind = "flow"', 'kind = "packet"\ntransport = "dctcp"'))
    return path


def test_fct_txt_under_the_simulators_definition(tmp_path: Path) -> None:
    # --fct-def ns3 writes the sender's ACK of the last byte and the simulator's base-RTT
    # ideal (flows.parquet's fct_ack_s and ideal_fct_ref_s, to the nanosecond of the format);
    # the ACK comes back after the delivery, and the base-RTT ideal exceeds the one-way ideal
    # by at least the return propagation (k = 4 fat-tree, 1 us links: 2 us within a rack).
    out = tmp_path / "out"
    r = run("run", str(_packet_scenario(tmp_path)), "-o", str(out), "--fct-txt", "--fct-def", "ns3")
    assert r.returncode == 0, r.stderr
    table = pl.read_parquet(out / "flows.parquet")
    fct = read_fct(out / "fct.txt")
    assert len(fct) == len(table) == 200
    assert np.allclose(fct["fct_s"], table["fct_ack_s"], rtol=0, atol=1.01e-9)
    assert np.allclose(fct["standalone_fct_s"], table["ideal_fct_ref_s"], rtol=0, atol=1.01e-9)
    assert (table["ack_s"] > table["end_s"]).all()
    assert (table["ideal_fct_ref_s"] >= table["ideal_fct_s"] + 2e-6 - 1e-12).all()
    assert json.loads((out / "summary.json").read_text())["fct_txt_definition"] == "ns3"


def test_compare_converts_to_the_simulators_definition_or_refuses(tmp_path: Path) -> None:
    # A packet run directory beside an fct.txt of the simulator's definition (standing for the
    # simulator's own file: outside any fairnet run directory) is converted to that
    # definition, and says so; its percentiles then equal the fct.txt's (the same flows,
    # ns rounding aside). A flow-level run cannot be converted (no ACK times): refused, exit 2.
    p = _packet_scenario(tmp_path)
    a = fairnet.run(p)
    a.write(tmp_path / "a", fct_txt=True, fct_def="ns3")
    ns3 = tmp_path / "ns3" / "fct.txt"
    ns3.parent.mkdir()
    ns3.write_text((tmp_path / "a" / "fct.txt").read_text())
    out = tmp_path / "cmp"
    r = run("compare", str(tmp_path / "a"), str(ns3), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "a: converted to the ns3 FCT definition" in r.stderr
    doc = json.loads((out / "compare.json").read_text())
    assert [(d["definition"], d["converted"]) for d in doc] == [("ns3", True), ("ns3", False)]
    for x, y in zip(doc[0]["by_size"], doc[1]["by_size"], strict=True):
        assert x["flows"] == y["flows"]
        if x["flows"]:
            assert abs(x["p50"] - y["p50"]) < 1e-3 * x["p50"]
    # Under fairnet's definition the same run's small-flow median differs by more than 10%
    # (the measurement: the definitions alone move p50 by 9-18% and more in the
    # tail; here the base-RTT ideal, over twice the one-way one, outweighs the ACK's trip).
    fairnet_def = load_run(tmp_path / "a")
    a_p50, ns3_p50 = fairnet_def.by_size[0]["p50"], doc[0]["by_size"][0]["p50"]
    assert abs(a_p50 - ns3_p50) > 0.1 * ns3_p50, (a_p50, ns3_p50)
    (tmp_path / "s.toml").write_text(SCENARIO)
    fairnet.run(tmp_path / "s.toml").write(tmp_path / "fluid")
    bad = run("compare", str(tmp_path / "fluid"), str(ns3), "-o", str(out))
    assert bad.returncode == 2
    assert "fluid has the fairnet FCT definition and cannot be converted to ns3" in bad.stderr
    assert "packet engine" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    fluid_ns3 = run(
        "run", str(tmp_path / "s.toml"), "-o", str(out), "--fct-txt", "--fct-def", "ns3"
    )
    assert fluid_ns3.returncode == 2
    assert "--fct-def ns3: needs the packet engine's ACK times" in fluid_ns3.stderr


LOSSLESS = """
name = "incast with PFC"
[topology]
kind = "star"
n_hosts = 8
buffer = "1MB"
[workload]
kind = "incast"
senders = 7
size = "500KB"
[engine]
kind = "packet"
transport = "udp"
lossless = true
shared_buffer = { size = "1MB" }
"""


def test_lossless_run_writes_pfc_txt_and_pause_counters(tmp_path: Path) -> None:
    # A 7-to-1 UDP incast at line rate into 1 MB of switch memory (the Rust test's case):
    # with PFC nothing is dropped, the summary counts the pauses, links.parquet has them per
    # link (only the senders' uplinks are paused), and pfc.txt lists every frame as the
    # simulator writes it: `time_ns node node_type if_index type`, the paused ports being
    # hosts (node type 0, their one device 1), pauses (1) and resumes (0) in time order.
    (tmp_path / "s.toml").write_text(LOSSLESS)
    out = tmp_path / "out"
    r = run("run", str(tmp_path / "s.toml"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["links"]["drops"] == 0
    assert summary["pfc"]["pauses"] > 0 and summary["pfc"]["paused_links"] == 7
    links = pl.read_parquet(out / "links.parquet")
    assert links["pfc_pauses_received"].sum() == summary["pfc"]["pauses"]
    rows = [line.split() for line in (out / "pfc.txt").read_text().splitlines()]
    assert sum(x[4] == "1" for x in rows) == summary["pfc"]["pauses"]
    assert all(x[2] == "0" and x[3] == "1" and x[4] in ("0", "1") for x in rows)
    times = [int(x[0]) for x in rows]
    assert times == sorted(times)


def test_bad_lossless_scenario_is_one_line_exit_2(tmp_path: Path) -> None:
    # xon above xoff names the field; no traceback.
    bad = LOSSLESS.replace(
        'shared_buffer = { size = "1MB" }',
        'shared_buffer = { size = "1MB" }\npfc = { xoff = "100KB", xon = "200KB" }',
    )
    (tmp_path / "s.toml").write_text(bad)
    r = run("run", str(tmp_path / "s.toml"), "-o", str(tmp_path / "out"))
    assert r.returncode == 2
    assert "packet config.pfc.xon: 200000B is above xoff 100000B" in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_unknown_dcqcn_preset_and_a_bad_pinned_path_are_one_line_exit_2(tmp_path: Path) -> None:
    # Issue 28's bad input through the CLI: an unknown DCQCN preset names engine.dcqcn and the
    # presets there are; a pinned path (engine.paths) that does not start at its flow's source
    # names the entry. Each: exit code 2, one line on stderr, no traceback.
    cases = {
        "preset": (
            LOSSLESS.replace('transport = "udp"', 'transport = "dcqcn"')
            + 'dcqcn = { preset = "mellanox" }\n',
            "engine.dcqcn: preset: unknown DCQCN preset `mellanox` (known: dcqcn_paper, "
            "hpcc_ns3, hpcc_ns3_paper)",
        ),
        "path": (
            LOSSLESS + "paths = [{ flow = 0, nodes = [1, 0] }]\n",
            "packet config.paths[0].nodes: starts at node 1, not at flow 0's src",
        ),
    }
    for name, (text, expected) in cases.items():
        (tmp_path / f"{name}.toml").write_text(text)
        r = run("run", str(tmp_path / f"{name}.toml"), "-o", str(tmp_path / name))
        assert r.returncode == 2, (name, r.stderr)
        assert expected in r.stderr, (name, r.stderr)
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
