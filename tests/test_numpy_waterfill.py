"""The NumPy + scipy.sparse water-filling that ``fairnet bench allocate`` measures the oracle
against: it must compute the same allocation, or the speed comparison means nothing."""

from __future__ import annotations

import numpy as np

import fairnet
from fairnet import numpy_waterfill, workload

G = 1e9


def test_sperc_running_example() -> None:
    # s-PERC §2.1 Fig. 2: links 20, 30, 12 Gb/s; flow 1 on l20+l30, flow 2 on l30+l12. Flow 2 is
    # held to 12 by l12 (first iteration), flow 1 gets the rest of l30, 18 (second iteration).
    r = numpy_waterfill.waterfill([20 * G, 30 * G, 12 * G], [0, 2, 4], [0, 1, 1, 2], [1.0, 1.0])
    np.testing.assert_allclose(r.rates, [18 * G, 12 * G], rtol=1e-12)
    assert r.iterations == 2


def test_weights_split_a_link_in_proportion() -> None:
    # One 30 Gb/s link, weights 1 and 2: 10 and 20 Gb/s, one iteration.
    r = numpy_waterfill.waterfill([30 * G], [0, 1, 2], [0, 0], [1.0, 2.0])
    np.testing.assert_allclose(r.rates, [10 * G, 20 * G], rtol=1e-12)
    assert r.iterations == 1


def test_same_rates_and_iterations_as_the_oracle_on_fat_trees() -> None:
    # Both are exact water-filling with the same 1e-9 tie rule, so on random weighted flows they
    # agree to rounding (relative 1e-9 is the tie tolerance itself) and count the same N_inf.
    for k, n in ((4, 300), (8, 5_000), (16, 20_000)):
        spec = workload.fat_tree_problem(k, n, seed=3)
        ours = fairnet.allocate(spec.capacities, spec.paths, spec.weights)
        ref = numpy_waterfill.waterfill(spec.capacities, *spec.paths, spec.weights)
        np.testing.assert_allclose(ref.rates, ours.rates, rtol=1e-9)
        assert ref.iterations == ours.kinf
