"""The paper registry: every entry runs at smoke scale and prints the paper's numbers."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from fairnet.errors import InputError
from fairnet.paper import REGISTRY, PaperResult, get, golden
from fairnet.paper.tables import Column, ResultTable, key

FAIRNET = [sys.executable, "-m", "fairnet.cli"]


def assert_golden(name: str, outdir: Path) -> None:
    """The smoke ``results.json`` of ``name`` in ``outdir`` is digit for digit the committed one
    (tests/golden/paper_smoke.json, less the entry's wall-clock fields; docs/papers.md)."""
    problem = golden.mismatch(name, outdir / "results.json")
    assert problem is None, problem


def assert_readable_at_80_columns(result: PaperResult) -> None:
    """Every table of ``result`` printed on an 80-column console (a log) shows every word of
    every header and cell whole, and every value column says whose value it holds."""
    console = Console(record=True, width=80)
    for t in result.tables:
        t.print(console)
    text = console.export_text()
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
    for t in result.tables:
        assert t.columns[0].is_key, t.title
        for c in t.columns:
            assert c.is_key or c.whose, (t.title, c.header)
            for word in f"{c.header} {c.whose}".split():
                assert word in text, (t.title, word)
        for row in t.rows:
            for word in " ".join(row).split():
                assert word in text, (t.title, word)


def check_smoke(name: str, result: PaperResult, outdir: Path) -> None:
    """The golden check and the 80-column check of a smoke run, and the tables' CSV and
    Markdown copies beside ``results.json``."""
    assert_golden(name, outdir)
    assert_readable_at_80_columns(result)
    assert result.tables and (outdir / "results.md").exists()
    csv_files = sorted(outdir.glob("results*.csv"))
    assert len(csv_files) == len(result.tables), csv_files


def test_list_names_every_entry() -> None:
    r = subprocess.run([*FAIRNET, "paper", "list"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for name in (
        "soze-fig2",
        "soze-fig14",
        "soze-fig15-16",
        "soze-fig17",
        "soze-fig18",
        "sperc-fig2",
    ):
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
    assert_golden("sperc-fig2", tmp_path)
    # The table's copies beside results.json, each header saying whose value it holds.
    header = (tmp_path / "results.csv").read_text().splitlines()[0]
    assert header == "flow,links,rate (ours),rate (paper),bottleneck (ours),bottleneck (paper)"
    assert (
        "| flow 1 | l20+l30 | 18 Gb/s | 18 Gb/s | l30 | l30 |"
        in (tmp_path / "results.md").read_text()
    )


def test_soze_fig19_smoke(tmp_path: Path) -> None:
    console = Console(record=True, width=132)
    result = get("soze-fig19").run("smoke", tmp_path, console)
    check_smoke("soze-fig19", result, tmp_path)
    a = [r for r in result.rows if r["panel"] == "a"]
    b = [r for r in result.rows if r["panel"] == "b"]
    assert [r["k"] for r in a] == [4, 8, 12, 16] and {r["flows"] for r in a} == {10_000}
    assert [r["flows"] for r in b] == [10, 100, 1_000, 10_000] and {r["k"] for r in b} == {16}
    assert all(r["check"] for r in a + b)  # every allocation verified independently
    # Söze on the packet engine: with 10 flows on k = 4 (flows rarely share a bottleneck) 90% of
    # the flows are within 10% of the oracle from some time within 1 ms on (the paper: "0.3
    # milliseconds"); the denser points are printed as measured (docs/systems/soze.md).
    soze = [r for r in result.rows if r["panel"].startswith("soze-")]
    assert [(r["panel"], r["k"], r["flows"]) for r in soze] == [
        ("soze-a", 4, 100),
        ("soze-a", 8, 100),
        ("soze-b", 4, 10),
        ("soze-b", 4, 100),
        ("soze-b", 4, 1_000),
    ]
    sparse = soze[2]
    assert sparse["converged_s"] is not None and sparse["converged_s"] < 1e-3, sparse
    assert sparse["final_within"] >= 0.9, sparse
    # The same by the sending rates (pacing capped by the host NIC's weighted share).
    assert sparse["rate_converged_s"] is not None and sparse["rate_converged_s"] < 1e-3, sparse
    assert sparse["rate_flows_converged"] >= 0.9, sparse
    assert sparse["rate_mean_flow_converged_s"] < 1e-3, sparse
    text = console.export_text()
    assert "1.81 ms" in text and "Söze Fig. 19(b): convergence" in text
    assert (tmp_path / "soze-fig19.png").exists()


def test_unknown_entry_and_scale() -> None:
    with pytest.raises(InputError, match="no entry 'nope'; known: .*soze-apps, soze-fig11"):
        get("nope")
    with pytest.raises(InputError, match="--scale"):
        get("sperc-fig2").run("huge", Path("unused"))


def test_soze_fig11_smoke(tmp_path: Path) -> None:
    console = Console(record=True, width=132)
    result = get("soze-fig11").run("smoke", tmp_path, console)
    check_smoke("soze-fig11", result, tmp_path)
    rows = [r for r in result.rows if r["query"] != "mean"]
    assert [r["query"] for r in result.rows][-1] == "mean"
    assert [r["query"] for r in rows] == list(range(1, 23))
    # Q1 (pricing summary) and Q6 (revenue forecast) are single scans: chains of flows.
    single = {r["query"] for r in rows if r["single_path"]}
    assert {1, 6} <= single and not {3, 5, 8, 9, 21} & single
    # Each ratio is the job's weighted JCT over its fair JCT, both finite and positive.
    for r in rows:
        assert r["ratio"] == pytest.approx(r["weighted_jct_s"] / r["fair_jct_s"], rel=1e-12), r
    # Longest-path weights shorten some multi-path job (the paper: best ratio 0.59). A
    # measured bound: smoke, seed 1, the best multi-path ratio is 0.97 (Q11); the jobs share
    # the fabric, so single-path jobs move too (Q6: 1.07) and the mean is near 1 (1.010).
    assert min(r["ratio"] for r in rows if not r["single_path"]) < 0.99
    assert "paper: 0.79, 0.59" in console.export_text()


def test_sperc_fig6_smoke_runs_through_the_sweep_and_keeps_the_bounds(tmp_path: Path) -> None:
    console = Console(record=True, width=132)
    result = get("sperc-fig6").run("smoke", tmp_path, console)
    check_smoke("sperc-fig6", result, tmp_path)
    rows = {(r["panel"], r["algorithm"]): r for r in result.rows}
    assert len(rows) == 8
    algs = ("fair", "s_perc_basic", "s_perc", "n_perc")
    sparse = {a: rows[("sparse (RTTs)", a)] for a in algs}
    # Every sparse run converged; the bound check ran on every run (the entry raises
    # otherwise). The 1% rate criterion is met no later than the strict one (a traversal with
    # every allocation within 1e-6 has its sending rate within 1%), so its median is not above.
    assert all(r["converged"] == r["runs"] == 9 for r in sparse.values())
    for r in sparse.values():
        assert r["median"] <= r["strict_median"], r
    # Fair (per-flow state) is at least as fast as n-PERC at the median, as in the paper.
    assert sparse["fair"]["median"] <= sparse["n_perc"]["median"]
    # The table says which variant is the paper's curve: only basic s-PERC has paper values.
    assert sparse["s_perc_basic"]["paper_median"] == 7.0
    assert sparse["s_perc"]["paper_median"] is None
    text = console.export_text()
    assert "within 6·N2" in text and "paper's s-PERC" in text
    assert (tmp_path / "sweep-0" / "sweep.parquet").exists()


def test_soze_fig2_smoke_reaches_weighted_shares_and_the_target_delay(tmp_path: Path) -> None:
    # Söze Fig. 2: weights 1-4 on one 100 Gb/s port → 10, 20, 30, 40 Gb/s; the queue settles
    # at T(10 Gb/s) = 20·ln(100/10)/ln(100/10) + 3 = 23 µs (Eq. 6, α = 100, β = 10 Gb/s).
    console = Console(record=True, width=132)
    result = get("soze-fig2").run("smoke", tmp_path, console)
    check_smoke("soze-fig2", result, tmp_path)
    rows = result.rows
    for r in rows[:4]:
        assert r["error"] < 0.05, r
    assert rows[4]["target_us"] == pytest.approx(23.0)
    assert rows[4]["error"] < 0.05, rows[4]
    assert rows[5]["ours_us"] < 500  # converged well within the 1 ms run
    assert (tmp_path / "soze-fig2.png").exists() and (tmp_path / "soze-fig2.svg").exists()


def test_soze_fig17_smoke_follows_the_oracle_as_the_bottleneck_moves(tmp_path: Path) -> None:
    # Söze Fig. 17: flow 1 at 40 Gb/s for weights 1 and 2 (switch 2 holds flows 2-4 at 20),
    # then 50, 57.1, 62.5 Gb/s as switch 1 becomes their bottleneck (100/(w+3) each).
    console = Console(record=True, width=160)
    result = get("soze-fig17").run("smoke", tmp_path, console)
    check_smoke("soze-fig17", result, tmp_path)
    rows = result.rows
    assert [r["weight"] for r in rows] == [1, 2, 3, 4, 5]
    for r in rows:
        assert r["soze_max_error"] < 0.05, r  # every static phase within 5% of the oracle
        assert r["wrr_max_error"] < 0.10, r
    assert [round(r["oracle_gbps"][0], 1) for r in rows] == [40.0, 40.0, 50.0, 57.1, 62.5]
    assert rows[0]["bottleneck_of_flows_2_4"] == "switch 2"
    for r in rows[2:]:
        assert r["bottleneck_of_flows_2_4"] == "switch 1", r  # moved past weight 2
        assert r["converged_rtts"] < 10, r  # §5.3.1: "within 10 RTTs"
    assert (tmp_path / "soze-fig17.png").exists()


def test_soze_fig14_smoke_soze_tracks_every_step_more_accurately_than_hpcc(
    tmp_path: Path,
) -> None:
    # Söze Fig. 14: 1 → 2 → 3 → 4 → 3 → 2 → 1 flows into one 100 Gb/s port. Söze: every phase
    # within 5% of 100/n Gb/s; HPCC: worse in the phases with 3 or 4 flows (the paper: "not
    # accurate nor stable").
    console = Console(record=True, width=132)
    result = get("soze-fig14").run("smoke", tmp_path, console)
    check_smoke("soze-fig14", result, tmp_path)
    rows = result.rows
    assert [r["active"] for r in rows] == [1, 2, 3, 4, 3, 2, 1]
    for r in rows:
        assert r["Söze_max_error"] < 0.05, r
    crowded = [r for r in rows if r["active"] >= 3]
    assert all(r["HPCC_max_error"] > r["Söze_max_error"] for r in crowded)
    assert (tmp_path / "soze-fig14.png").exists()


def test_soze_fig12_13_smoke_soze_converges_and_timely_does_not(tmp_path: Path) -> None:
    # Söze Figs. 12–13 (our 25 Gb/s stand-in for the eRPC testbed): 1 → 3 → 1 flows into one
    # port. Söze: every phase within 5% of 25/n Gb/s at full utilization. TIMELY: alone at line
    # rate too, but once a second flow joins it falls far below the link (the paper: "Söze
    # achieves higher utilization" and "converges ... faster than Timely"), and its largest
    # queue, at the joins, is above Söze's (the paper: "lower RTT than Timely").
    console = Console(record=True, width=160)
    result = get("soze-fig12-13").run("smoke", tmp_path, console)
    check_smoke("soze-fig12-13", result, tmp_path)
    rows = result.rows
    soze = [r for r in rows if r["scheme"] == "Söze"]
    timely = [r for r in rows if r["scheme"] == "TIMELY"]
    assert [r["active"] for r in soze] == [1, 2, 3, 2, 1]
    for r in soze:
        assert r["max_error"] < 0.05 and r["utilization"] > 0.99, r
    assert timely[0]["utilization"] > 0.99  # one flow: line rate
    assert timely[1]["utilization"] < 0.5 * soze[1]["utilization"], timely[1]
    assert max(r["max_qdelay_us"] for r in timely) > max(r["max_qdelay_us"] for r in soze)
    assert (tmp_path / "soze-fig12-13.png").exists()


def test_soze_fig15_16_smoke_soze_beats_dcqcn_on_short_flow_tails(tmp_path: Path) -> None:
    # Söze Figs. 15–16: Google RPC at 40% and 80% load on a fat-tree. The paper's claim that
    # holds in our runs: Söze's short flows (< 10 KB, far below "1000 packets") see a lower
    # 99th-percentile slowdown than with DCQCN, at both loads. (Its claim against HPCC holds at
    # 80% only, not asserted: measured 5.45 vs HPCC's 6.58; at 40% 3.16 vs 3.10, a tie; see
    # docs/systems/soze.md.) Every flow ends.
    console = Console(record=True, width=200)
    result = get("soze-fig15-16").run("smoke", tmp_path, console)
    check_smoke("soze-fig15-16", result, tmp_path)
    rows = result.rows
    assert [(r["load"], r["scheme"]) for r in rows] == [
        (load, s) for load in (0.4, 0.8) for s in ("Söze", "HPCC", "DCQCN")
    ]
    for r in rows:
        assert r["finished"] == r["flows"] == 20_000, r
        assert r["by_size"][0]["bin"] == "<10KB" and r["by_size"][0]["flows"] > 19_000
    for load in (0.4, 0.8):
        by = {r["scheme"]: r["by_size"][0] for r in rows if r["load"] == load}
        assert by["Söze"]["p99"] < by["DCQCN"]["p99"], (load, by)
    # Fig. 16's large-flow claim, "outperforms HPCC": at 80% the 100 KB-1 MB tail (85 flows)
    # is well below HPCC's (measured 6.70 vs 17.89; at full scale 13.01 vs 23.09).
    mid = {r["scheme"]: r["by_size"][2] for r in rows if r["load"] == 0.8}
    assert mid["Söze"]["bin"] == "100KB-1MB" and mid["Söze"]["flows"] > 50, mid
    assert mid["Söze"]["p99"] < 0.75 * mid["HPCC"]["p99"], mid
    # More load, longer tails: every scheme's short-flow p99 grows from 40% to 80%.
    for s in ("Söze", "HPCC", "DCQCN"):
        p99 = [r["by_size"][0]["p99"] for r in rows if r["scheme"] == s]
        assert p99[1] > p99[0], (s, p99)
    assert "Paper Fig. 15" in console.export_text()
    for stem in ("soze-fig15", "soze-fig16"):
        assert (tmp_path / f"{stem}.png").exists() and (tmp_path / f"{stem}.svg").exists()


def test_soze_fig18_smoke_resolves_fine_weights_and_connection_counts(tmp_path: Path) -> None:
    # Söze Fig. 18(b): flow 0's weight 1.005 ... 1.08 vs flow 1's 1 → flow 0 ahead by
    # 0.25 ... 3.85 Gb/s; every step within 0.5% (of the smaller rate) and flow 0 always ahead.
    # (c): k connections vs 1 → k/(k+1) of 100 Gb/s within 1%; (d) HPCC less accurate.
    console = Console(record=True, width=132)
    result = get("soze-fig18").run("smoke", tmp_path, console)
    check_smoke("soze-fig18", result, tmp_path)
    rows = result.rows
    b = [r for r in rows if r["panel"] == "b"]
    c = [r for r in rows if r["panel"] == "c"]
    d = [r for r in rows if r["panel"] == "d"]
    assert len(b) == 5 and len(c) == 4 and len(d) == 4
    for r in b:
        assert r["error"] < 0.005, r
        assert r["ours_gbps"][0] > r["ours_gbps"][1], r
    for r in c:
        assert r["error"] < 0.01, r
    assert max(r["error"] for r in d) > max(r["error"] for r in c)
    assert (tmp_path / "soze-fig18.png").exists()


def test_soze_fig18a_smoke_size_weights_end_a_coflow_together(tmp_path: Path) -> None:
    # Söze Fig. 18(a): with weight = flow size the ten flows of a coflow end nearly together;
    # integer connection counts (Multi-Conn) and 4 WRR queues (Physical Queue) cannot express
    # the sizes, so their flows end further apart. Every scheme keeps the port busy.
    console = Console(record=True, width=132)
    result = get("soze-fig18a").run("smoke", tmp_path, console)
    check_smoke("soze-fig18a", result, tmp_path)
    rows = result.rows
    assert len(rows) == 3 * 3
    for c in range(3):
        by = {r["scheme"]: r for r in rows if r["coflow"] == c}
        assert by["Söze"]["spread"] < 0.02, by["Söze"]
        assert by["Söze"]["spread"] < 0.5 * by["Multi-Conn"]["spread"], by
        assert by["Söze"]["spread"] < 0.5 * by["Physical Queue"]["spread"], by
        for r in by.values():
            assert 1.0 <= r["cct_over_ideal"] < 1.05, r
    assert "Söze Fig. 18(a)" in console.export_text()
    assert (tmp_path / "soze-fig18a.png").exists()


def test_soze_apps_smoke_matches_the_papers_ratios(tmp_path: Path) -> None:
    console = Console(record=True, width=160)
    result = get("soze-apps").run("smoke", tmp_path, console)
    check_smoke("soze-apps", result, tmp_path)
    cases = result.rows
    fig6, fig7, fig8, fig9, fig10 = cases
    text = console.export_text()
    # Fig. 8: the reweighting at 50 s keeps each job at half the bottleneck, ends f3 and f4
    # together and job 2 sooner (82 → 79.2 s; sizes solved from the paper's 82 → 79 s).
    assert fig8["figure"] == "Fig. 8"
    assert fig8["job_gbps_before"] == pytest.approx([12.5, 12.5], abs=0.01)
    assert fig8["job_gbps_after"] == pytest.approx([12.5, 12.5], abs=0.01)
    assert fig8["f3_f4_end_s"][0] == pytest.approx(fig8["f3_f4_end_s"][1], rel=0.01)
    assert fig8["policy_s"] < fig8["fair_s"] and fig8["job1_s"][1] <= fig8["job1_s"][0] + 1e-6
    assert "Fig. 8: jobs at 12.50 / 12.50 Gb/s" in text
    # Fig. 7 (packet level): fair sharing lands f2 (twice f1's size) at about twice f1's time;
    # with the straggler policy f2 ends within 15% of f1 and the coflow at least 35% sooner.
    assert fig7["fair_s"] > 1.8 * fig7["f1_fair_s"], fig7
    assert fig7["policy_s"] < 1.15 * fig7["f1_policy_s"] and fig7["ratio"] < 0.65, fig7
    assert "Fig. 7: fair f1" in text
    # Fig. 6: 60 → 50 units of GB / C (paper 117 → 96 s, 0.821); Fig. 9: 60 → 50 s exactly.
    assert fig6["ratio"] == pytest.approx(50 / 60, abs=1e-3)
    assert fig9["ratio"] == pytest.approx(50 / 60, abs=1e-3)
    assert fig9["f3_s"] * 60 / fig9["fair_s"] == pytest.approx(20.0, abs=0.01)
    # Fig. 10: shortest-first lowers the mean RPC time and most RPCs finish sooner.
    assert fig10["ratio"] < 1 and fig10["sooner"] > 0.5
    assert "paper: 20 s" in text


def test_sperc_fig9_smoke_rcp_tracks_max_min_on_long_flows_and_pfabric_wins_short_ones(
    tmp_path: Path,
) -> None:
    # s-PERC §8.2.2, Fig. 9 (web search, 60% load): the max-min schemes "are almost identical
    # for long flows"; pFabric "shines for short flows … at the expense of the largest flows".
    # RCP pays one RTT for its first rate (footnote 7), so its short flows are slower than the
    # ideal allocator's.
    console = Console(record=True, width=132)
    result = get("sperc-fig9").run("smoke", tmp_path, console)
    check_smoke("sperc-fig9", result, tmp_path)
    rows = result.rows
    by = {(r["scheme"], r["bin"][:5]): r for r in rows}
    assert {r["bin"][:5] for r in rows} == {"bin 1", "bin 2", "bin 3", "bin 4"}
    ideal, rcp, pfabric = (
        {b: by[(s, b)] for b in ("bin 1", "bin 4")} for s in ("ideal max-min", "RCP", "pFabric")
    )
    assert rcp["bin 4"]["p50"] < 1.25 * ideal["bin 4"]["p50"], (rcp, ideal)
    assert pfabric["bin 1"]["p50"] < ideal["bin 1"]["p50"] < rcp["bin 1"]["p50"]
    assert pfabric["bin 4"]["p50"] > ideal["bin 4"]["p50"]
    # Bin 1 carries 1% of the bytes and holds most of the flows.
    assert ideal["bin 1"]["flows"] > 0.4 * sum(
        by[("RCP", b)]["flows"] for b in ("bin 1", "bin 2", "bin 3", "bin 4")
    )
    text = console.export_text()
    assert "25–50% faster than RCP" in text
    # s-PERC* 'short' (§7.1, §8.2.2): the smallest flows start at line rate in the high class,
    # so they finish far sooner than with basic s-PERC*, which waits a control RTT for a rate
    # (paper: "a quarter of the time"; smoke: ~0.3 at the median, ~0.8 at the tail).
    short, basic = (
        {b: by[(s, b)] for b in ("bin 1", "bin 4")} for s in ("s-PERC* short", "s-PERC*")
    )
    assert short["bin 1"]["p50"] < 0.5 * basic["bin 1"]["p50"], (short, basic)
    assert short["bin 1"]["p99"] < basic["bin 1"]["p99"], (short, basic)
    assert "'short' / basic s-PERC*" in text
    assert (tmp_path / "sperc-fig9.png").exists()


def test_sperc_fig7_smoke_sperc_converges_faster_than_rcp(tmp_path: Path) -> None:
    # s-PERC §8.2.1: after 40% of the flows are replaced at once, s-PERC* converges an order
    # of magnitude faster than RCP at the median (4 vs 45 RTTs for 95%/20%, 14 vs 174 for
    # 99%/10%). At smoke scale (12 servers on a leaf-spine, 4 changes) every change converges
    # for s-PERC*, and its median is below RCP's for both criteria.
    console = Console(record=True, width=132)
    result = get("sperc-fig7").run("smoke", tmp_path, console)
    check_smoke("sperc-fig7", result, tmp_path)
    rows = {r["scheme"]: r for r in result.rows}
    assert set(rows) == {"s-PERC*", "RCP"}
    s, rcp = rows["s-PERC*"], rows["RCP"]
    assert s["servers"] == 12 and s["changes"] == rcp["changes"] == 4
    assert s["not_converged_95_20"] == s["not_converged_99_10"] == 0
    assert rcp["not_converged_95_20"] == 0
    assert s["median_95_20"] < rcp["median_95_20"]
    assert s["median_99_10"] < rcp["median_99_10"]
    assert "174" in console.export_text()  # the paper's RCP median, printed beside ours
    assert (tmp_path / "sperc-fig7.png").exists()


def test_sperc_fig8_smoke_sperc_converges_faster_than_rcp_on_the_wan(tmp_path: Path) -> None:
    # s-PERC §8.2.1, Fig. 8: on the B4 WAN s-PERC* is 1.3-1.7x faster than RCP at the median
    # when 40% of the flows are replaced, 1.8-2.5x when 70% are. At smoke scale (B4, one
    # server per site, 20 and 40 Mb/s cables, 2 changes) every change converges for s-PERC*
    # and its median is below RCP's for both criteria, at both rates and both fractions.
    console = Console(record=True, width=132)
    result = get("sperc-fig8").run("smoke", tmp_path, console)
    check_smoke("sperc-fig8", result, tmp_path)
    rows = result.rows
    assert len(rows) == 6
    by = {(r["rate_bps"], r["replace"], r["scheme"]): r for r in rows}
    for rate, replace in ((20e6, 0.4), (40e6, 0.4), (20e6, 0.7)):
        s, rcp = by[(rate, replace, "s-PERC*")], by[(rate, replace, "RCP")]
        assert s["changes"] == 2 and s["not_converged_99_10"] == 0
        assert s["median_95_20"] < rcp["median_95_20"], (rate, replace)
        assert s["median_99_10"] < rcp["median_99_10"], (rate, replace)
        # The unit is the mean base RTT of the flows: tens of milliseconds on B4.
        assert 50 < s["rtt_ms"] < 120
    assert "115" in console.export_text()  # the paper's RCP figure, printed beside ours
    assert (tmp_path / "sperc-fig8.png").exists()


def test_sperc_table5_smoke_sperc_converges_faster_than_rcp_from_the_start(
    tmp_path: Path,
) -> None:
    # s-PERC §8.2.1, Table 5: when all flows start at once on the WAN, s-PERC* converges about
    # five times faster than RCP on average (10 vs 53 RTTs for 95%/20% at 1 Gb/s). At smoke
    # scale every s-PERC* run converges and its mean is below RCP's at both rates.
    console = Console(record=True, width=132)
    result = get("sperc-table5").run("smoke", tmp_path, console)
    check_smoke("sperc-table5", result, tmp_path)
    rows = result.rows
    by = {(r["rate_bps"], r["scheme"]): r for r in rows}
    assert len(rows) == 4
    for rate in (20e6, 40e6):
        s, rcp = by[(rate, "s-PERC*")], by[(rate, "RCP")]
        assert s["runs"] == 2 and s["not_converged_99_10"] == 0
        assert s["mean_95_20"] < rcp["mean_95_20"]
        assert s["mean_99_10"] < rcp["mean_99_10"]
    assert "53" in console.export_text()  # the paper's RCP mean, printed beside ours


def test_sperc_convergence_two_way_override_changes_only_the_update_direction() -> None:
    # The binding's `two_way` override: Fig. 7's preset updates both ways (§2 assumption 6),
    # so `two_way=True` is the same run as the default and `False` (forward only, the WAN
    # runs' setting, §8.2.1) a different one; both converge at smoke scale.
    from fairnet import _core

    def run(**kw: bool) -> dict:
        return _core.sperc_convergence("fig7", "sperc", "smoke", 3, changes=1, epoch_rtts=100, **kw)

    default, both, forward = run(), run(two_way=True), run(two_way=False)
    assert default["events"] == both["events"]
    assert forward["events"] != both["events"]
    for r in (both, forward):
        assert r["start"]["final_within_10"] == 1.0 and r["t99_10"][0] is not None


def test_sperc_fig7_runs_repeat_the_experiment_over_seeds(tmp_path: Path) -> None:
    # `--runs N` (the paper's "ten changes per run, and 100 runs"): N seeded runs merged, so
    # each scheme reports N × 4 changes at smoke scale, recorded in results.json; an entry
    # that is one fixed run refuses a run count.
    import json

    from fairnet.errors import InputError

    rows = get("sperc-fig7").run("smoke", tmp_path, Console(width=132), runs=2).rows
    assert {r["scheme"]: (r["runs"], r["changes"]) for r in rows} == {
        "s-PERC*": (2, 8),
        "RCP": (2, 8),
    }
    assert json.loads((tmp_path / "results.json").read_text())["runs"] == 2
    with pytest.raises(InputError, match="--runs: sperc-fig9 is one fixed run"):
        get("sperc-fig9").run("smoke", tmp_path, runs=3)


def test_every_entry_has_a_committed_digest() -> None:
    # A new entry gets its digest with `scripts/golden.py update NAME`; the wall-clock fields
    # left out of the digests are those the entries declare (soze-fig19's solve and
    # simulation times), no more.
    committed = golden.load()
    assert list(committed["digests"]) == list(REGISTRY)
    assert committed["ignored"] == golden.ignored_fields()
    assert committed["ignored"] == {
        "soze-fig19": ["allocate_s", "oracle_solve_s", "sim_wall_s", "solve_s"]
    }


def test_golden_digest_leaves_out_only_wall_clock_fields() -> None:
    doc = {"entry": "soze-fig19", "paper": "p", "figure": "f", "scale": "smoke"}
    row = {"panel": "a", "k": 4, "solve_s": 0.001, "sim_wall_s": 2.0, "kinf": 31}
    base = golden.digest(doc | {"rows": [row]})
    # Another machine's times: the same digest.
    assert golden.digest(doc | {"rows": [row | {"solve_s": 0.5, "sim_wall_s": 9.0}]}) == base
    # Any other value, down to the last digit: another digest.
    assert golden.digest(doc | {"rows": [row | {"kinf": 32}]}) != base
    assert golden.digest(doc | {"rows": [row | {"k": 4.000000000000001}]}) != base
    # Wall-clock names are per entry: another entry's solve_s counts.
    other = {**doc, "entry": "sperc-fig2"}
    assert golden.digest(other | {"rows": [row]}) != golden.digest(
        other | {"rows": [row | {"solve_s": 0.5}]}
    )


def test_a_wide_table_prints_in_parts_with_every_cell_whole(tmp_path: Path) -> None:
    # Ten value columns of 11-character cells need 10 × 14 + 12 > 80 characters: printed at 80
    # columns the table comes in parts, each repeating the key column, each line at most 80
    # characters, and no cell cut or broken inside a word.
    t = ResultTable(
        "a wide comparison",
        (key("scheme"), *(Column(f"metric {i}", "ours" if i % 2 else "paper") for i in range(10))),
        note="what the columns mean",
    )
    for s in ("alpha", "beta"):
        t.add_row(s, *(f"{i}.123456 ms" for i in range(10)))
    console = Console(record=True, width=80)
    t.print(console)
    text = console.export_text()
    # 6 + 5 × 11 characters of text and 6 × 3 of borders and padding fill 79 columns.
    assert "(part 1 of 2)" in text and "(part 2 of 2)" in text
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    for i in range(10):
        assert f"{i}.123456 ms" in text  # number and unit on one line
    assert text.count("alpha") == 2
    assert text.rstrip().endswith("what the columns mean")
    # The copies: one header line naming whose value each column holds, the cells as shown.
    csv_lines = t.csv().splitlines()
    assert csv_lines[0].startswith("scheme,metric 0 (paper),metric 1 (ours),")
    assert csv_lines[1] == "alpha," + ",".join(f"{i}.123456 ms" for i in range(10))
    md = t.markdown()
    assert md.startswith("## a wide comparison\n") and "| beta | 0.123456 ms |" in md


def test_a_narrow_table_prints_whole_and_cells_are_not_markup() -> None:
    t = ResultTable("narrow", (key("flow"), Column("rate", "ours"), Column("rate", "paper")))
    t.add_row("[bold]1[/bold]", "18 Gb/s", "18 Gb/s")
    console = Console(record=True, width=80)
    t.print(console)
    text = console.export_text()
    assert "(part" not in text and "[bold]1[/bold]" in text
    with pytest.raises(ValueError, match="narrow: 2 cells for 3 columns"):
        t.add_row("1", "2")


def test_golden_script_checks_results_already_made(tmp_path: Path) -> None:
    # scripts/golden.py check --results DIR: 0 when the outputs are as committed, 1 naming the
    # entry when one value differs, 2 when there is nothing to check.
    script = Path(__file__).parents[1] / "scripts" / "golden.py"

    def check(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(script), "check", name, "--results", str(tmp_path)],
            capture_output=True,
            text=True,
        )

    out = tmp_path / "sperc-fig2"
    get("sperc-fig2").run("smoke", out, Console(file=io.StringIO()))
    r = check("sperc-fig2")
    assert r.returncode == 0 and "sperc-fig2: same" in r.stdout, r.stdout + r.stderr
    doc = json.loads((out / "results.json").read_text())
    doc["rows"][0]["rate_gbps"] += 1e-12
    (out / "results.json").write_text(json.dumps(doc))
    r = check("sperc-fig2")
    assert r.returncode == 1 and "sperc-fig2: DIFFERS" in r.stdout, r.stdout + r.stderr
    r = check("soze-fig2")
    assert r.returncode == 2 and "no results.json" in r.stderr, r.stderr


def test_a_figure_saved_twice_is_the_same_bytes(tmp_path: Path) -> None:
    # Same run, same outputs: the SVG carries no date and no random element ids.
    from fairnet.paper.plots import pyplot, save_figure

    plt = pyplot()
    saved = []
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        fig, ax = plt.subplots()
        ax.plot([0, 1, 2], [1, 3, 2], label="x")
        ax.legend()
        saved.append([p.read_bytes() for p in save_figure(fig, tmp_path / run, "fig")])
    assert saved[0] == saved[1]
    assert b"<dc:date>" not in saved[0][1]
