"""The eBA paper entries at smoke scale: each test states what the paper claims and what our
run must show."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from test_paper import check_smoke

from fairnet.paper import get


def test_eba_fig9_smoke_lrc_is_work_conserving_and_keeps_xs_guarantee(tmp_path: Path) -> None:
    # eBA §VII-A / Fig. 9: X (one TCP flow) beside Y's UDP at 0–900 Mb/s, both guaranteed
    # 450 Mb/s on 1 Gb/s. The paper: the link total stays around 900 Mb/s (work conserving)
    # and X keeps about 450. The mechanism (Theorem 2: weighted max-min with guarantees on
    # μC = 900 Mb/s, equal weights) gives X = 900 − min(Y's rate, 450) exactly; the packet run
    # is held to it within 5%, the bar for settled rates, and X never below 95% of its
    # guarantee.
    console = Console(record=True, width=132)
    result = get("eba-fig9").run("smoke", tmp_path, console)
    check_smoke("eba-fig9", result, tmp_path)
    assert [r["y_rate_mbps"] for r in result.rows] == [0, 300, 600, 900]
    for r in result.rows:
        assert abs(r["x_mbps"] / r["x_expected_mbps"] - 1) < 0.05, r
        assert abs(r["total_mbps"] / 900 - 1) < 0.05, r
        assert r["x_mbps"] > 0.95 * 450, r


def test_eba_fig7_smoke_lrc_converges_with_lost_control_packets(tmp_path: Path) -> None:
    # eBA §VI-C / Fig. 7: Y (weight 2) joins X (weight 1) with 2% and 50% of the control
    # packets lost on their round trip. The paper: the rates still converge, a lost packet
    # only delays an update. The mechanism: a lost packet costs its VM-flow one step of
    # Eq. (15) and changes no fixed point, so the settled rates keep the weights' ratio 1:2
    # (the bar: within 5%), and since a lossy run takes a subset of the lossless run's
    # steps (about half of them at 50%), it cannot converge faster than with no loss.
    console = Console(record=True, width=132)
    result = get("eba-fig7").run("smoke", tmp_path, console)
    check_smoke("eba-fig7", result, tmp_path)
    by_loss = {r["round_trip_loss"]: r for r in result.rows}
    assert sorted(by_loss) == [0.0, 0.02, 0.5]
    for loss in (0.02, 0.5):
        r = by_loss[loss]
        assert abs(r["ratio"] / 2 - 1) < 0.05, r
        assert r["convergence_s"] < float("inf"), r
    assert by_loss[0.5]["convergence_s"] >= by_loss[0.0]["convergence_s"], by_loss


def test_eba_fig6_smoke_speed_and_overshoot_follow_the_damping(tmp_path: Path) -> None:
    # eBA §VI-A / Fig. 6 with §III-D's linearization (s² + αs + αβ: ζ = ½√(α/β), time
    # constant 1/(ζω_n) = 2/α): (α, β) = (1, 2), (2, 4), (4, 4) have ζ = 0.354, 0.354, 0.5 and
    # time constants 2, 1, 0.5 s. The theory's ordering: convergence (1, 2) slowest, then
    # (2, 4), then (4, 4); and (4, 4), the best damped, overshoots least. The packet run (X
    # joining Y, equal weights) is held to that ordering — the overshoot seen as Y's dip below
    # its share, the part of the limits' excursion a link shows (fig6.py) — and each settles
    # at the equal shares 450 / 450 Mb/s within 5%. The theory predicts no order between
    # (1, 2) and (2, 4)'s overshoots (the same ζ), so none is asserted.
    console = Console(record=True, width=132)
    result = get("eba-fig6").run("smoke", tmp_path, console)
    check_smoke("eba-fig6", result, tmp_path)
    r = {(row["alpha"], row["beta"]): row for row in result.rows}
    slow, mid, fast = r[(1.0, 2.0)], r[(2.0, 4.0)], r[(4.0, 4.0)]
    assert slow["convergence_s"] > mid["convergence_s"] > fast["convergence_s"], r
    assert fast["overshoot"] < min(slow["overshoot"], mid["overshoot"]), r
    for row in result.rows:
        assert abs(row["x_mbps"] / 450 - 1) < 0.05 and abs(row["y_mbps"] / 450 - 1) < 0.05, row


def test_eba_fig12_smoke_lrc_holds_the_guarantee_tcp_like_favours_x(tmp_path: Path) -> None:
    # eBA §VII-C / Fig. 12: X guaranteed 600 Mb/s, Y (none, same weight) joins halfway.
    # LRC: X's limit is max(B, v) ≥ 600 Mb/s and the rate factors steer the load to μC, so once
    # the loop has settled after Y joins (the last half of the run) X holds its guarantee:
    # held at ≥ 95% of it (the oracle with guarantees gives X exactly 600). Not asserted, and
    # reported: the dip while Y's limit ramps past its share and the full link's ECN marks
    # make X's guest TCP yield (fig12.py, docs/systems/eba.md). TCP-like (ElasticSwitch as
    # recalled): X's limit never falls below its guarantee either, but the limits do not
    # keep the link below capacity, so X's guest TCP backs off on the marks Y's traffic
    # causes and X's throughput may stay below 600 (564 Mb/s at smoke scale, measured);
    # what the baseline still promises is that X, with the floor, gets more than Y.
    console = Console(record=True, width=132)
    result = get("eba-fig12").run("smoke", tmp_path, console)
    check_smoke("eba-fig12", result, tmp_path)
    r = {row["scheme"]: row for row in result.rows}
    assert r["lrc"]["x_mbps"] >= 0.95 * 600, r["lrc"]
    assert r["tcp_like"]["x_mbps"] > r["tcp_like"]["y_mbps"], r["tcp_like"]
def test_eba_fig13_smoke_lrc_stays_flat_under_short_flows_and_tcp_like_drops(
    tmp_path: Path,
) -> None:
    # eBA §VII-C / Fig. 13: X (450 Mb/s guarantee) fills its 1 Gb/s bottleneck; from 15 s to
    # 60 s another tenant's short flows (5 or 20 a second, mean 200 KB; at smoke 100 times as
    # frequent and 100 times smaller under 100-fold uniform increase) cross it.
    #
    # LRC: the bar, X keeps at least 95% of its guarantee during the short flows at
    # both rates. Beyond it, the mechanism: LRC steers the link's load to μC = 900 Mb/s
    # (Theorem 2, X backlogged beside the short flows' demand), so X's mean is within 5% of
    # 900 minus what the short flows carried — the paper's "the decrement is about the rate
    # of all short flows" — and it stays flat: its 5th percentile over τ_r samples above 90%
    # of that (a measured bound, seed 13: 0.988 and 0.962 of it).
    #
    # TCP-like must show the paper's "severe drops in rate limit": a short flow's burst marks
    # X's packets and X's rate is cut by 30% at a time, so its 5th percentile during the
    # short flows falls below 60% of its mean before them (measured, seed 13: 0.47 and 0.48),
    # while its guarantee floor max(B, R) keeps that percentile above 95% of 450 Mb/s.
    console = Console(record=True, width=132)
    result = get("eba-fig13").run("smoke", tmp_path, console)
    check_smoke("eba-fig13", result, tmp_path)
    rows = {(r["scheme"], r["short_per_s"]): r for r in result.rows}
    assert set(rows) == {(s, n) for s in ("lrc", "tcp_like") for n in (5, 20)}
    for n in (5, 20):
        lrc, tcp = rows[("lrc", n)], rows[("tcp_like", n)]
        assert lrc["short_flows"] > 0 and lrc["short_mbps"] > 0, lrc
        assert lrc["x_during_mbps"] >= 0.95 * 450, lrc
        expected = 900 - lrc["short_mbps"]
        assert abs(lrc["x_during_mbps"] / expected - 1) < 0.05, lrc
        assert lrc["x_p5_during_mbps"] > 0.9 * expected, lrc
        assert tcp["x_p5_during_mbps"] < 0.6 * tcp["x_before_mbps"], tcp
        assert tcp["x_p5_during_mbps"] > 0.95 * 450, tcp
