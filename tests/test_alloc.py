"""The oracle through the Python API. Each case states the expected share in prose first."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fairnet

G = 1e9


def test_sperc_running_example_lists_and_csr_agree() -> None:
    # s-PERC §2.1 Fig. 2: links 20, 30, 12 Gb/s; flow 1 on l20+l30, flow 2 on l30+l12.
    # Flow 2 is held to 12 by l12, flow 1 gets the rest of l30: 18.
    caps = [20 * G, 30 * G, 12 * G]
    a = fairnet.allocate(caps, [[0, 1], [1, 2]])
    np.testing.assert_allclose(a.rates, [18 * G, 12 * G])
    assert a.bottleneck.tolist() == [1, 2]
    b = fairnet.allocate(caps, (np.array([0, 2, 4]), np.array([0, 1, 1, 2])))
    np.testing.assert_array_equal(a.rates, b.rates)
    assert np.isnan(a.link_level[0])  # l20 has spare capacity


def test_weights_scale_shares_and_demands_cap_them() -> None:
    # One 10 Gb/s link, weights 1, 2, 2, the last capped at 1 Gb/s: the cap frees 3 Gb/s,
    # the other two split 9 Gb/s 1:2.
    a = fairnet.allocate(
        [10 * G], [[0], [0], [0]], weights=[1, 2, 2], demands=[math.inf, math.inf, G]
    )
    np.testing.assert_allclose(a.rates, [3 * G, 6 * G, 1 * G])
    assert a.bottleneck.tolist() == [0, 0, -1]


def test_guarantee_is_max_of_guarantee_and_share() -> None:
    # eBA Eq. 16: one 10 Gb/s link, three equal flows, one guaranteed 6: it keeps 6, others get 2.
    a = fairnet.allocate([10 * G], [[0], [0], [0]], guarantees=[6 * G, 0, 0])
    np.testing.assert_allclose(a.rates, [6 * G, 2 * G, 2 * G])


def test_iteration_counts_are_ordered_and_removal_iterations_consistent() -> None:
    rng = np.random.default_rng(7)
    n_links, n_flows = 40, 300
    paths = [
        sorted(rng.choice(n_links, size=rng.integers(1, 5), replace=False).tolist())
        for _ in range(n_flows)
    ]
    caps = rng.uniform(1, 100, n_links) * G
    w = rng.uniform(0.1, 10, n_flows)
    a = fairnet.allocate(caps, paths, w)
    it = a.iterations
    assert set(it) == {"k1", "k2", "kinf"}
    assert 1 <= it["k1"] <= it["k2"] <= it["kinf"]
    assert a.removal_iteration(math.inf).max() == it["kinf"]
    assert a.removal_iteration(1).max() == it["k1"]
    assert a.removal_iteration(2).max() == it["k2"]
    # Every flow's bottleneck link was removed by standard water-filling.
    removed = a.removal_iteration(math.inf)
    assert (removed[a.bottleneck] >= 1).all()
    report = fairnet.check_allocation(caps, paths, a.rates, w)
    assert report.ok, report.message


def test_checker_on_a_larger_random_problem_and_on_perturbed_rates() -> None:
    rng = np.random.default_rng(3)
    n_links, n_flows = 200, 5000
    lengths = rng.integers(1, 7, n_flows)
    paths = [rng.choice(n_links, size=k, replace=False).tolist() for k in lengths]
    caps = rng.uniform(10, 100, n_links) * G
    w = rng.uniform(0.1, 10, n_flows)
    d = np.where(rng.random(n_flows) < 0.2, rng.uniform(0.01, 1, n_flows) * G, np.inf)
    a = fairnet.allocate(caps, paths, w, demands=d)
    assert fairnet.check_allocation(caps, paths, a.rates, w, demands=d).ok
    bad = a.rates.copy()
    i = int(np.argmax(bad))
    bad[i] *= 0.95
    report = fairnet.check_allocation(caps, paths, bad, w, demands=d)
    assert not report.ok and report.worst_flow is not None


def test_checker_names_a_rate_above_its_demand() -> None:
    # One 10 Gb/s link, two equal flows, flow 1 capped at 2 Gb/s: the max-min rates are 8 and
    # 2 (checked ok). Giving flow 1 3 Gb/s and flow 0 7 keeps the link full but puts flow 1
    # 50% above its demand: the bound violation is reported, naming flow 1.
    caps, paths, d = [10 * G], [[0], [0]], [np.inf, 2 * G]
    assert fairnet.check_allocation(caps, paths, [8 * G, 2 * G], demands=d).ok
    report = fairnet.check_allocation(caps, paths, [7 * G, 3 * G], demands=d)
    assert not report.ok
    assert report.max_bound_violation == pytest.approx(0.5)
    assert "flows[1] has rate" in report.message and "demand" in report.message


def test_checker_tolerance_decides_a_small_overload() -> None:
    # Two equal flows on one 10 Gb/s link at 5.00002 Gb/s each: 4e-6 over capacity. The
    # default tolerance (1e-6, relative) reports the overload; a tolerance of 1e-5 accepts it.
    caps, paths = [10 * G], [[0], [0]]
    rates = [5.00002 * G, 5.00002 * G]
    strict = fairnet.check_allocation(caps, paths, rates)
    assert not strict.ok and strict.worst_link == 0
    assert strict.max_overload == pytest.approx(4e-6, rel=1e-6)
    assert fairnet.check_allocation(caps, paths, rates, tolerance=1e-5).ok


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"capacities": [0.0, 1.0]}, "links[0]: capacity must be a positive"),
        ({"capacities": [float("nan"), 1.0]}, "links[0]: capacity"),
        ({"paths": [[0], [2]]}, "flows[1]: path goes through unknown link index 2"),
        ({"paths": [[0], []]}, "flows[1]: path is empty"),
        ({"paths": [[0], [-1]]}, "flows[1]: path has invalid link index -1"),
        ({"weights": [1.0, -1.0]}, "flows[1]: weight must be a positive"),
        ({"weights": [1.0, float("nan")]}, "flows[1]: weight"),
        ({"weights": [1.0]}, "weights: has 1 entries but there are 2 flows"),
        ({"guarantees": [0.6, 0.6]}, "links[0]: guarantees of its flows sum to 1.2"),
        ({"demands": [0.1, 0.1], "guarantees": [0.2, 0.0]}, "flows[0]: guarantee 0.2"),
    ],
)
def test_bad_input_raises_value_error_naming_the_item(kwargs: dict, message: str) -> None:
    args = {"capacities": [1.0, 1.0], "paths": [[0], [0, 1]]} | kwargs
    with pytest.raises(ValueError) as e:
        fairnet.allocate(**args)
    assert message in str(e.value)


def test_names_are_used_in_errors() -> None:
    with pytest.raises(ValueError, match='flow "web-1": weight'):
        fairnet.allocate([1.0], [[0], [0]], weights=[1, 0], flow_names=["web-0", "web-1"])
