"""leakage.design.pricing.light_top: the light-top branch and bound against 3^N brute force."""

import math

import numpy as np
import pytest

from design_instances import duals, eps_half, light_top_columns, prior, values
from leakage.design.pricing.light_top import light_top_search
from leakage.design.vertices import lift_vectors


@pytest.mark.parametrize("seed", range(4))
def test_light_top_search_is_exact(seed):
    rng = np.random.default_rng(300 + seed)
    checked = 0
    for _ in range(15):
        n = int(rng.integers(3, 9))
        p = prior(rng, n)
        eps, half, _ = eps_half(rng, p)
        cols = light_top_columns(p, eps, half)
        if cols.shape[1] == 0:
            continue
        w = duals(rng, p)
        best = float(np.max(values(p, w, cols)))
        res = light_top_search(p, w, eps, half, tol=1e-10, collect=-math.inf, max_nodes=10**6, keep=4)
        assert not res.exhausted
        assert best - 1e-10 <= res.bound <= max(best, 0.0) + 1e-8
        # with the box's maximum (the mixture bound uses it) the bound still holds and is as tight
        E = math.exp(eps)
        box = float(np.max(values(p, w, lift_vectors(p, E / (1 + E * half)))))
        res2 = light_top_search(p, w, eps, half, tol=1e-10, collect=-math.inf, max_nodes=10**6, keep=4,
                                box_bound=box)
        assert best - 1e-10 <= res2.bound <= max(best, 0.0) + 1e-8
        checked += 1
    assert checked >= 8
