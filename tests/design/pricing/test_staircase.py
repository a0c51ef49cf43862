"""leakage.design.pricing.staircase: the two-level searches against brute force over every set."""

import math

import numpy as np
import pytest

from design_instances import duals, eps_half, heavy_columns, prior, values
from leakage.design.pricing.staircase import heavy_two_level_search, staircase_search
from leakage.design.vertices import staircase_columns, subset_masks


def _brute_staircases(p, w, eps):
    cols = staircase_columns(p, eps, subset_masks(p.size))
    return float(np.max(values(p, w, cols)))


@pytest.mark.parametrize("seed", range(4))
def test_staircase_search_is_exact(seed):
    rng = np.random.default_rng(seed)
    for _ in range(15):
        n = int(rng.integers(2, 11))
        p = prior(rng, n)
        eps = float(rng.uniform(0.05, 4.0))
        w = duals(rng, p)
        best = _brute_staircases(p, w, eps)
        res = staircase_search(p, w, eps, tol=1e-10, collect=-math.inf, max_nodes=10**6, keep=4)
        assert not res.exhausted
        assert best - 1e-10 <= res.bound <= max(best, 0.0) + 1e-9
        if best > 1e-9:  # the best column found is the best there is
            v = staircase_columns(p, eps, res.found[0])
            assert float(values(p, w, v)[0]) == pytest.approx(best, abs=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_heavy_two_level_search_is_exact_and_its_columns_are_in_the_cone(seed):
    from leakage.design.cone import Cone

    rng = np.random.default_rng(100 + seed)
    checked = 0
    for _ in range(20):
        n = int(rng.integers(3, 10))
        p = prior(rng, n)
        eps, half, E = eps_half(rng, p)
        cols = heavy_columns(p, eps, half)
        if cols.shape[1] == 0:
            continue
        cone = Cone(p, eps, "ball", half)
        assert np.all(cols.max(axis=0) <= E * cone.low(cols) * (1 + 1e-10))  # feasible: in the cone
        w = duals(rng, p)
        best = float(np.max(values(p, w, cols)))
        res = heavy_two_level_search(p, w, eps, half, tol=1e-10, collect=-math.inf, max_nodes=10**6, keep=4)
        assert not res.exhausted
        assert best - 1e-10 <= res.bound <= max(best, 0.0) + 1e-8
        checked += 1
    assert checked >= 10
