"""The Uranus §5.2.1 and §5.2.3 entries (Figs. 9 and 13, Uranus against SCC) at smoke scale:
each test states what the paper claims, which part of it the mechanism implies (asserted) and
which it does not (reported beside the paper's number, not asserted)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from test_paper import check_smoke

from fairnet.paper import get

#: §5.2's fat-tree: 8 racks, each with 2 uplinks and 2 downlinks of 1 Gb/s — the rack–core
#: links — so the slices' throughput summed over them is at most 32 Gb/s.
RACK_CORE_BPS = 8 * 4 * 1e9
#: Its 64 hosts' access links of 1 Gb/s: at most 64 Gb/s can reach the receivers.
RECEIVE_BPS = 64 * 1e9


def test_uranus_fig9_smoke_weights_move_the_slices_shares(tmp_path: Path) -> None:
    # Uranus §5.2.1 / Fig. 9: two slices of bulk senders, W_A : W_B = 1 : 2 at smoke scale.
    # What the mechanism implies, under both schedulers: every host runs one bulk flow per
    # slice, so every rack uplink (4:1 oversubscribed) is a bottleneck shared by 8 flows of
    # each slice; Uranus's WVCC gives each flow its rack-flow's share of W_S, SCC's tunnels
    # (one flow each: a host's one flow of a slice is the slice's only flow to its
    # destination) W_S / 64 — either way slice B's flows weigh more than A's on every uplink,
    # so B carries more over the rack–core links than A. Jain's index of two slices lies in
    # [1/2, 1]; the slices together carry at most the rack–core links' 32 Gb/s; under Uranus
    # each slice's weights sum to W_S after every slot (Eq. 3). The paper's "Uranus 21–31%
    # above SCC" is not implied here (with one flow per tunnel SCC's per-flow weights are
    # proportional on every uplink too) and is reported, not asserted.
    # The second table, 4 flows per host pair and slice (SCC tunnels of 4 flows, W_S scaled
    # by 4 so that the mean flow weight stays 1): the same per-uplink argument holds (each
    # uplink carries 4 times as many flows of each slice, B's weighing more), so the same
    # assertions; where SCC and Uranus part is reported, not asserted.
    console = Console(record=True, width=132)
    result = get("uranus-fig9").run("smoke", tmp_path, console)
    check_smoke("uranus-fig9", result, tmp_path)
    runs = {
        (r["per_pair"], r["scheduler"]): r
        for r in result.rows
        if r["scheduler"] in ("uranus", "scc")
    }
    assert set(runs) == {(n, s) for n in (1, 4) for s in ("uranus", "scc")}
    for r in runs.values():
        assert r["proportion"] == 0.5 and r["intervals"] > 0
        assert 0 < r["throughput_a_bps"] < r["throughput_b_bps"]
        assert r["throughput_a_bps"] + r["throughput_b_bps"] <= RACK_CORE_BPS
        assert 0.5 <= r["jain_mean"] <= 1 and 0.5 <= r["jain_of_means"] <= 1
        assert 0.5 <= r["jain_per_link"] <= 1
    assert runs[(1, "uranus")]["weight_sum_error"] < 1e-9
    assert runs[(4, "uranus")]["weight_sum_error"] < 1e-9
    summaries = [r for r in result.rows if r["scheduler"] == "uranus vs scc"]
    assert sorted(r["per_pair"] for r in summaries) == [1, 4]
    for summary in summaries:
        assert summary["improvement"] == summary["jain_uranus"] / summary["jain_scc"] - 1
    assert (tmp_path / "uranus-fig9.png").exists()


def test_uranus_fig13_smoke_measures_aggregate_throughput_of_each_workload(
    tmp_path: Path,
) -> None:
    # Uranus §5.2.3 / Fig. 13: aggregate throughput under Uranus and SCC, web search, data
    # mining and MapReduce (FbHdp) at load 0.5. What the mechanism implies: a positive
    # throughput, at most what the 64 receivers' 1 Gb/s links can take, flows arriving
    # throughout the run (the flow count is sized for it). The paper's "Uranus ≈ 10% above
    # SCC" rests on SCC's tunnels aggregating ECN over several flows; with Poisson flows
    # between random pairs of 64 hosts a tunnel (slice, destination host) rarely holds more
    # than one flow, so the mechanism does not imply the gap here: reported, not asserted.
    console = Console(record=True, width=132)
    result = get("uranus-fig13").run("smoke", tmp_path, console)
    check_smoke("uranus-fig13", result, tmp_path)
    runs = [r for r in result.rows if r["scheduler"] in ("uranus", "scc")]
    assert {(r["workload"], r["scheduler"]) for r in runs} == {
        (w, s) for w in ("websearch", "datamining", "hadoop") for s in ("uranus", "scc")
    }
    for r in runs:
        assert 0 < r["aggregate_bps"] <= RECEIVE_BPS
        assert r["samples"] > 0 and r["drops"] >= 0 and r["retransmitted_bytes"] >= 0
    gains = [r for r in result.rows if r["scheduler"] == "uranus vs scc"]
    assert len(gains) == 3
    for g in gains:
        assert g["gain"] == g["uranus_bps"] / g["scc_bps"] - 1
    assert (tmp_path / "uranus-fig13.png").exists()
