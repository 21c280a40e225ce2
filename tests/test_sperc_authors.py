"""The standing check of fairnet's s-PERC against the s-PERC authors' numerical simulator.

``tests/data/sperc_authors/instances.json.gz`` holds routing matrices made by the authors'
generator with their seeds and Fig. 6 settings, and the convergence times their simulator
measured on each for both variants (``sperc_basic``, the curve Fig. 6 plots, and
``sperc_ignore``, Algorithm 4); its README says exactly how. Here fairnet's rounds engine runs
the same variants on the same capacities and paths, as the authors' simulator does: every RTT
equal (1 round = 1 RTT), links updating the packet out and back, ``MaxE`` reset every RTT,
convergence = the last time any flow's sending rate is more than 1% from its max-min rate,
in RTTs. The authors log rates every 0.25–0.4 RTT and report the first log row after the
last violation, so fairnet's times are rounded up to the same grid before comparing.

Tolerances, and why. The two simulators run the same algorithm on the same instance; what
differs is only *which* of the many equally valid packet orders they see (the random
tie-breaking jitter and the links' timer phases come from different random number
generators) and where the return to the source falls in the cycle (RTT = 2P hops there,
2P + 1 here). That is per-instance noise with no direction, so:

- the median over instances of fairnet / authors is within [0.85, 1.15] (a mis-modelled
  variant — the basic variant's times against Algorithm 4's are 0.76 — lands outside). Measured
  on the 40 small instances: 0.95 (basic) and 0.88 (Algorithm 4): fairnet's Algorithm 4 is about
  one RTT faster at the median, which the noise does not explain (fairnet with another seed:
  ratio 1.00); the cause is not established (candidates: the authors' links reset ``MaxE`` first
  after 1–2 RTTs, ours within the first; the turnaround slot). The bound admits it;
- fairnet's median and 95th percentile over instances are within 20% and 25% of the
  authors' (the tail moves more with few instances);
- the per-instance times correlate with the authors' about as well as fairnet's own times
  under another seed do (no more than 0.25 below): the order noise alone limits the
  correlation — on the small sparse shapes, whose times span a narrow range, fairnet against
  itself correlates at only 0.55 (basic) and 0.21 (Algorithm 4), and against the authors at
  0.59 and 0.22 — so a fixed threshold would test the noise, not the model (with the two
  dense instances, 42 in all: 0.71 and 0.40 against the authors, 0.66 and 0.39 against itself;
  median ratios 0.95 and 0.88);
- N₁ / N₂ / N∞ (the authors' k-Water-filling levels) are the same on at least 95% of the
  instances (measured: 39 of 40; one differs in N₂ by 1);
- every instance converges in both, no ratio exceeds 2.5 either way, and both variants stay
  within s-PERC's 6·N₂ bound (Theorem 4; the paper says so of its runs, §8.1.1);
- the basic variant is faster than Algorithm 4 at the median in both simulators (the
  authors' notebook: "faster in practice").
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fairnet.rounds import run_instance

DATA = Path(__file__).parent / "data" / "sperc_authors" / "instances.json.gz"
VARIANTS = ("s_perc_basic", "s_perc")


def _instances() -> list[dict[str, Any]]:
    with gzip.open(DATA, "rt") as f:
        return list(json.load(f)["instances"])


def _on_authors_grid(rtts: float, authors: dict[str, Any]) -> float:
    """fairnet's time rounded up to the authors' log rows (every ``sample_interval_us``)."""
    step = authors["sample_interval_us"] / authors["rtt_us"]
    return math.ceil(rtts / step - 1e-9) * step


@pytest.fixture(scope="module")
def times() -> dict[str, dict[str, np.ndarray]]:
    """Per variant: the authors' times, fairnet's on their grid, and fairnet's bound checks."""
    out: dict[str, dict[str, list[float]]] = {
        v: {"authors": [], "fairnet": [], "reseeded": [], "strict_rounds": [], "same_n": []}
        for v in VARIANTS
    }
    for inst in _instances():
        for v in VARIANTS:
            theirs = inst["authors"][v]
            assert theirs["rtts"] is not None, f"{inst['name']} {v}: authors did not converge"
            # The engine's seed (delay jitter, timer phases): the instance's; and another one,
            # for the noise fairnet has against itself.
            r, again = (
                run_instance(
                    inst["capacities"],
                    inst["paths"],
                    algorithm=v,
                    delay="equal",
                    criterion="rate",
                    timer="round",
                    max_rounds=200,
                    seed=inst["seed_path_links"] + offset,
                )
                for offset in (0, 1000)
            )
            for x in (r, again):
                assert x.rtts is not None, f"{inst['name']} {v}: fairnet did not converge"
                assert x.max_rel_error <= 1e-6, f"{inst['name']} {v}: {x.max_rel_error}"
                assert not x.exceeds_6n2, f"{inst['name']} {v}: beyond 6·N2 = {6 * x.n2} rounds"
            out[v]["authors"].append(theirs["rtts"])
            out[v]["fairnet"].append(_on_authors_grid(r.rtts, theirs))
            out[v]["reseeded"].append(_on_authors_grid(again.rtts, theirs))
            out[v]["strict_rounds"].append(r.strict_rounds)
            same = (r.n1, r.n2, r.ninf) == (theirs["n1"], theirs["n2"], theirs["ninf"])
            out[v]["same_n"].append(float(same))
    return {v: {k: np.asarray(x, dtype=float) for k, x in d.items()} for v, d in out.items()}


def test_the_data_is_the_authors_fig6_setting() -> None:
    insts = _instances()
    assert len(insts) >= 42
    for inst in insts:
        m, p = inst["links"], inst["links_per_flow"]
        assert len(inst["capacities"]) == m and set(inst["capacities"]) == {10.0}
        assert len(inst["paths"]) == inst["flows"]
        assert all(len(x) == p and len(set(x)) == p and max(x) < m for x in inst["paths"])
        for v in VARIANTS:
            assert inst["authors"][v]["rtt_us"] == 2 * p * inst["hop_delay_us"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_fairnet_matches_the_authors_simulator_per_instance(
    variant: str, times: dict[str, dict[str, np.ndarray]]
) -> None:
    theirs, ours = times[variant]["authors"], times[variant]["fairnet"]
    reseeded = times[variant]["reseeded"]
    ratio = ours / theirs
    corr = np.corrcoef(theirs, ours)[0, 1]
    self_corr = np.corrcoef(ours, reseeded)[0, 1]
    summary = (
        f"{variant}: authors p50/p95/max {np.median(theirs):.2f}/"
        f"{np.percentile(theirs, 95):.2f}/{theirs.max():.2f}, fairnet "
        f"{np.median(ours):.2f}/{np.percentile(ours, 95):.2f}/{ours.max():.2f} RTTs; "
        f"median ratio {np.median(ratio):.3f}, ratio range {ratio.min():.2f}-{ratio.max():.2f}, "
        f"corr {corr:.3f} (fairnet against itself, another seed: {self_corr:.3f}); "
        f"same N1/N2/Ninf on {times[variant]['same_n'].mean():.0%}"
    )
    print(summary)
    assert 0.85 <= np.median(ratio) <= 1.15, summary
    assert abs(np.median(ours) / np.median(theirs) - 1) <= 0.20, summary
    assert abs(np.percentile(ours, 95) / np.percentile(theirs, 95) - 1) <= 0.25, summary
    assert corr >= self_corr - 0.25, summary
    assert times[variant]["same_n"].mean() >= 0.95, summary
    assert ratio.max() <= 2.5 and ratio.min() >= 1 / 2.5, summary


def test_the_basic_variant_is_faster_than_algorithm_4_in_both_simulators(
    times: dict[str, dict[str, np.ndarray]],
) -> None:
    for who in ("authors", "fairnet"):
        basic = np.median(times["s_perc_basic"][who])
        ignore = np.median(times["s_perc"][who])
        assert basic < ignore, f"{who}: basic {basic} vs Algorithm 4 {ignore}"


def test_the_1pct_rate_criterion_is_met_before_the_strict_one(
    times: dict[str, dict[str, np.ndarray]],
) -> None:
    # Same runs: the strict time (rounds = RTTs here, to 1e-5) is never before the 1% time
    # (before rounding up to the authors' grid, which can add at most one grid step).
    for v in VARIANTS:
        strict, rate = times[v]["strict_rounds"], times[v]["fairnet"]
        assert np.all(strict >= rate - 0.41), v
        assert np.median(strict) >= np.median(rate) - 0.41, v
