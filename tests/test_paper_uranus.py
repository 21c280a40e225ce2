"""The Uranus (WVCC) paper entries at smoke scale: each test states what the paper claims and
what our run must show."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from test_paper import check_smoke

from fairnet.paper import get


def test_uranus_fig4_smoke_acdc_orders_shares_by_beta_but_not_proportionally(
    tmp_path: Path,
) -> None:
    # Uranus §4.2 / Fig. 4: with β = 1, 1, 2, 3 (/4), AC/DC's equal-β flows get similar shares
    # and higher β more, but not in proportion (Eq. 17's model: 0.217, 0.217, 0.253, 0.304;
    # proportional: 1/7, 1/7, 2/7, 3/7). WVCC with the same weights meets the proportional
    # shares within 10% (Eq. 16).
    console = Console(record=True, width=132)
    result = get("uranus-fig4").run("smoke", tmp_path, console)
    check_smoke("uranus-fig4", result, tmp_path)
    acdc = [r for r in result.rows if r["shim"] == "acdc"]
    wvcc = [r for r in result.rows if r["shim"] == "wvcc"]
    s = [r["share"] for r in acdc]
    assert abs(s[0] / s[1] - 1) < 0.10, s
    assert max(s[0], s[1]) < s[2] < s[3], s
    assert s[3] < 0.35, s  # far from the proportional 3/7 ≈ 0.43
    for r in wvcc:
        assert abs(r["share"] / r["proportional_share"] - 1) < 0.10, r
    assert (tmp_path / "uranus-fig4.png").exists()


def test_uranus_fig6_7_smoke_wvcc_holds_the_weighted_shares_at_1_gbps(tmp_path: Path) -> None:
    # Uranus §5.1.2: weights 1/4, 2/4, 3/4 → 1/6, 1/3, 1/2 of the link. At 1 Gb/s (BDP ≈ 119
    # packets at the 1 ms RTT), scenario 1's shares over the second half of the 0.2 s smoke
    # period are within 10% of the oracle's and the link is busy. What does NOT hold at smoke
    # scale (docs/systems/uranus.md): at 10 Gb/s the BDP is ≈ 1,190 packets and Eq. (7) adds
    # Σw = 1.5 packets per RTT, so regrowing after a cut takes hundreds of RTTs (ms) — longer
    # than the 0.2 s periods; scenario 2's phases are not settled either. Those rows are pinned
    # by the golden digest, not asserted against the paper.
    console = Console(record=True, width=160)
    result = get("uranus-fig6-7").run("smoke", tmp_path, console)
    check_smoke("uranus-fig6-7", result, tmp_path)
    phases = [r for r in result.rows if r["phase"] != "overall"]
    assert len(phases) == 8  # (1 + 3 phases) × 2 rates
    s1 = next(r for r in phases if r["scenario"] == 1 and r["gbps"] == 1)
    assert s1["max_error"] < 0.10, s1
    assert s1["utilization"] > 0.90, s1
    shares = s1["shares"]
    assert shares[0] < shares[1] < shares[2], s1  # ordered by weight
    assert (tmp_path / "uranus-fig6-7.png").exists()
