"""leakage.design.pricing.box: the spatial branch and bound against every lift vector."""

import math

import numpy as np
import pytest

from design_instances import duals, prior, values
from leakage.design.pricing.box import box_search
from leakage.design.vertices import lift_vectors


@pytest.mark.parametrize("seed", range(4))
def test_box_search_is_exact(seed):
    rng = np.random.default_rng(200 + seed)
    for _ in range(15):
        n = int(rng.integers(2, 10))
        p = prior(rng, n)
        cap = float(rng.uniform(1.05, 20.0))
        w = duals(rng, p)
        best = float(np.max(values(p, w, lift_vectors(p, cap))))
        res = box_search(p, w, cap, tol=1e-10, collect=-math.inf, max_nodes=10**6, keep=4)
        assert not res.exhausted
        assert best - 1e-10 <= res.bound <= max(best, 0.0) + 1e-9
        col = res.found[0]
        assert p @ col == pytest.approx(1.0, abs=1e-12) and np.all(col <= cap * (1 + 1e-12)) and np.all(col >= 0)


def test_equal_masses_are_branched_as_a_group():
    # 12 letters of equal mass with equal duals: the optimum only depends on how many are at the cap,
    # so the search needs a handful of nodes, not 2^12
    p = np.full(12, 1 / 12)
    w = 0.3 * p
    res = box_search(p, w, 2.5, tol=1e-10, collect=-math.inf, max_nodes=10**6, keep=1)
    best = float(np.max(values(p, w, lift_vectors(p, 2.5))))
    assert res.bound == pytest.approx(max(best, 0.0), abs=1e-9)
    assert res.nodes < 200
