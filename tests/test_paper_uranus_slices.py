"""The Uranus slice-scheduler paper entries at smoke scale: each test states what the paper
claims and what our run must show."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from test_paper import check_smoke

from fairnet.paper import get


def test_uranus_fig3_smoke_scc_gives_the_papers_ratios(tmp_path: Path) -> None:
    # Uranus §2.4 / Fig. 3(b): with tunnel weights A1 0.1, A2 0.9, B1 = B2 = 0.5 on two equal
    # bottlenecks, A1 gets 0.1/0.6 = 1/6 of L1 and A2 0.9/1.4 = 9/14 of L2, so A1 : A2 = 7 : 27
    # and A : B = 17 : 25 (exact at flow level). Uranus's weights on these flows are the same
    # (each rack is in one rack-flow, so Eq. (5) divides W_S as SCC does), so its ratios too.
    # Fig. 3(c), 4 background flows on L1: in one virtual tunnel f2 is held to f1's C/5;
    # with one control per flow it gets all of L2.
    console = Console(record=True, width=132)
    result = get("uranus-fig3").run("smoke", tmp_path, console)
    check_smoke("uranus-fig3", result, tmp_path)
    b = {r["scheme"]: r for r in result.rows if r["figure"] == "3b"}
    for scheme in ("scc", "uranus"):
        assert abs(b[scheme]["a1_share"] - 1 / 6) < 1e-9
        assert abs(b[scheme]["a2_share"] - 9 / 14) < 1e-9
        assert abs(b[scheme]["a1_to_a2"] - 7 / 27) < 1e-9
        assert abs(b[scheme]["a_to_b"] - 17 / 25) < 1e-9
        # Jain over the slices' weight-normalised throughput (34/42, 50/42): 7056/7312.
        assert abs(b[scheme]["proportionality"] - 7056 / 7312) < 1e-9
    # At packet level (Uranus's scheduler driving WVCC): the ratios within 20% of the exact
    # ones, as the Rust test fig3b_at_packet_level_lands_near_the_exact_ratios asserts (a
    # measured margin: A1 : A2 measured 0.213 against 7/27 = 0.259).
    pk = {r["scheme"]: r for r in result.rows if r["figure"] == "3b-packet"}
    for p in pk.values():
        assert abs(p["a1_to_a2"] / (7 / 27) - 1) < 0.2
        assert abs(p["a_to_b"] / (17 / 25) - 1) < 0.2
        assert 0.9 < p["target_jain_mean"] <= 1
        assert p["max_sum_error"] < 1e-9
    # Every SCC tunnel holds one flow on (b), with the same weights as Uranus's: the two
    # packet runs are the same control on the same flows, each flow within 1% (as the Rust
    # test fig3b_at_packet_level_under_scc_lands_near_7_27_and_17_25).
    for a, b in zip(pk["scc"]["rates"], pk["uranus"]["rates"], strict=True):
        assert abs(a / b - 1) < 0.01
    # (c) at packet level, 4 background flows, oracle f1 = C/5 and f2 = C: with one control per
    # flow f2 keeps nearly all of its free path (above 0.85 of the goodput); SCC's tunnel keeps
    # f1 and f2 at one window each, so f2/f1 = RTT1/RTT2 (within 10%) and f2 falls below
    # Uranus's, farther from the oracle (§2.4's "significantly decreased"); the Rust test
    # fig3c_at_packet_level_scc_slows_the_flow_on_the_free_path states the same.
    pc = {r["scheme"]: r for r in result.rows if r["figure"] == "3c-packet"}
    assert pc["uranus"]["f2_share"] > 0.85
    scc = pc["scc"]
    rtt1, rtt2 = scc["rtt_s"]
    assert abs(scc["f2_share"] / scc["f1_share"] / (rtt1 / rtt2) - 1) < 0.1
    assert scc["f2_share"] < pc["uranus"]["f2_share"]
    assert all(r["oracle_f1_share"] == 1 / 5 for r in pc.values())
    c = {r["scheme"]: r for r in result.rows if r["figure"] == "3c"}
    assert abs(c["scc"]["f2_share"] - 1 / 5) < 1e-9
    assert abs(c["uranus"]["f2_share"] - 1) < 1e-9
    assert (tmp_path / "uranus-fig3.png").exists()


def _floors_hold(seeds: list[dict], objective: str) -> None:
    """What every run must give whatever the scheduler: no flow beats its FCT alone on the
    empty network, so the mean FCT of the finished flows is at least the mean of their FCTs
    alone; a deadline shorter than the FCT alone cannot be met, so at least those flows
    miss."""
    for m in seeds:
        assert m["flows"] > 0
        assert m["afct_s"] >= m["ideal_afct_s"] > 0
        if objective == "ds":
            assert m["infeasible"] <= m["missed"] <= m["decided"] <= m["flows"]
        else:
            # No stop time: every CS flow finishes (the packet engine's 10 s horizon is far).
            assert m["finished"] == m["flows"]


def test_uranus_fig10_smoke_runs_each_slice_with_and_without_uranus(tmp_path: Path) -> None:
    # Uranus §5.2.2 / Fig. 10: a DS slice over D2TCP and a CS slice over L2DCT, each alone,
    # with and without Uranus, at the smoke loads. What the mechanism must give (the paper's
    # −25% / −20% do not follow from it and are reported, not asserted): the floors of
    # _floors_hold in every run; Eq. (3) after every decision slot (each slice's weights sum
    # to W_S: rounding only); a miss ratio in [0, 1] and a positive AFCT for every row.
    console = Console(record=True, width=132)
    result = get("uranus-fig10").run("smoke", tmp_path, console)
    check_smoke("uranus-fig10", result, tmp_path)
    rows = [r for r in result.rows if "seeds" in r]
    assert {(r["objective"], r["scheme"]) for r in rows} == {
        ("ds", "d2tcp"),
        ("ds", "uranus"),
        ("cs", "l2dct"),
        ("cs", "uranus"),
    }
    for r in rows:
        _floors_hold(r["seeds"], r["objective"])
        if r["objective"] == "ds":
            assert 0 <= r["value"] <= 1
        else:
            assert r["value"] > 0
        if r["scheme"] == "uranus":
            assert r["weight_sum_error"] < 1e-9
            assert "change_vs_guest" in r
    # The last row: the mean over loads of the DS rows' changes.
    ds = [r["change_vs_guest"] for r in rows if r["objective"] == "ds" and "change_vs_guest" in r]
    assert abs(result.rows[-1]["value"] - sum(ds) / len(ds)) < 1e-12
    assert (tmp_path / "uranus-fig10.png").exists()


def test_uranus_fig11_12_smoke_measures_interference_and_recovery(tmp_path: Path) -> None:
    # Uranus §5.2.2 / Figs. 11-12 at medium load: each slice's flows alone (with the
    # background), both slices together over their guests, both under Uranus. What the
    # mechanism must give: the floors of _floors_hold in every run, the benchmark on the
    # same flows, and the ratios the table reports computed from the rows (coexist / alone,
    # Uranus / coexist − 1). The paper's ×4 / ×5 and −30% / −10% are printed beside ours,
    # not asserted: they are measurements of the paper's testbed.
    console = Console(record=True, width=132)
    result = get("uranus-fig11-12").run("smoke", tmp_path, console)
    check_smoke("uranus-fig11-12", result, tmp_path)
    by = {(r["objective"], r["setting"]): r for r in result.rows if "load" in r}
    for obj in ("ds", "cs"):
        for setting in ("alone", "coexist", "coexist+uranus"):
            _floors_hold(by[(obj, setting)]["seeds"], obj)
        # The benchmark runs the same flows of the slice as the coexistence runs (the
        # coexistence run's flows as flow rows): same count, same FCTs alone.
        seeds = [by[(obj, s)]["seeds"][0] for s in ("alone", "coexist", "coexist+uranus")]
        assert len({m["flows"] for m in seeds}) == 1
        assert max(m["ideal_afct_s"] for m in seeds) - min(m["ideal_afct_s"] for m in seeds) < 1e-9
        alone, co, ur = (by[(obj, s)]["value"] for s in ("alone", "coexist", "coexist+uranus"))
        assert abs(by[(obj, "coexist")]["vs_alone"] - co / alone) < 1e-12
        assert abs(by[(obj, "coexist+uranus")]["vs_coexist"] - (ur / co - 1)) < 1e-12
    assert (tmp_path / "uranus-fig11-12.png").exists()


def test_uranus_slot_sweep_runs_each_slot() -> None:
    # The decision slot's sensitivity at packet level (fig10.slot_sweep, documented in
    # docs/systems/uranus.md): with 1 ms and 4 ms slots the same run decides about four times
    # as often with the shorter slot (the slot count is the run's length over the slot,
    # rounded up; the lengths differ only by the scheduler's effect on the last flow's end, so
    # the ratio is in [3, 5]); the guest row has no slot; every value is a miss ratio in [0, 1]
    # (DS) or a positive AFCT (CS).
    from fairnet.paper.uranus.fig10 import slot_sweep

    rows = slot_sweep(loads=(0.5,), slots=("1ms", "4ms"), seeds=(1,), flows=20)
    for obj in ("ds", "cs"):
        mine = {r["slot"]: r for r in rows if r["objective"] == obj}
        assert set(mine) == {"—", "1ms", "4ms"}
        assert mine["—"]["scheme"] != "uranus" and mine["—"]["slots"] == [None]
        ratio = mine["1ms"]["slots"][0] / mine["4ms"]["slots"][0]
        assert 3 <= ratio <= 5, ratio
        for r in mine.values():
            assert (0 <= r["value"] <= 1) if obj == "ds" else r["value"] > 0
