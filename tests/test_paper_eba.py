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
