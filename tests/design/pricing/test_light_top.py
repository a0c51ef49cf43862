"""leakage.design.pricing.light_top: the light-top branch and bound against 3^N brute force, and its
bound at duals 0 against the enumerated columns and an independent maximisation of the relaxation."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from design_instances import duals, eps_half, light_top_columns, prior, values
from leakage.design.pricing.light_top import light_top_flat, light_top_search
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


def _relaxation_max(p, eps, half):
    """max of V(p1, s) = p1 k log k / D - log D (k = e^eps (s - beta/2) >= 1, D = s + (k - 1) p1) over
    s in [beta/2 + e^-eps, 1 - min P] and p1 in [0, min(beta/2, light mass, s)]: a dense grid, then a
    bounded quasi-Newton polish from its best points (independent of the search's cell bounds)."""
    E = math.exp(eps)
    s_lo, s_hi = half + 1 / E, 1 - p.min()
    p1_hi = min(half, float(p[p < half].sum()))

    def v(x):
        s, p1 = x[0], min(x[1], x[0])
        k = E * (s - half)
        d = s + (k - 1) * p1
        return p1 * k * math.log(k) / d - math.log(d)

    ss, qq = np.meshgrid(np.linspace(s_lo, s_hi, 301), np.linspace(0, p1_hi, 301), indexing="ij")
    grid = np.vectorize(lambda a, b: v((a, b)))(ss, qq)
    best = float(grid.max())
    for i in np.argsort(-grid.ravel())[:5]:
        r = minimize(lambda x: -v(x), [ss.ravel()[i], qq.ravel()[i]], bounds=[(s_lo, s_hi), (0, p1_hi)],
                     method="L-BFGS-B")
        best = max(best, -float(r.fun))
    return best


@pytest.mark.parametrize("seed", range(3))
def test_light_top_flat_bounds_the_family_at_duals_zero(seed):
    """At duals 0 the bound holds for every light-top column (3^N enumeration) and for the relaxation's
    maximum over the masses (found independently); when the search closes, it is within its
    tolerance of that maximum."""
    rng = np.random.default_rng(700 + seed)
    checked = closed = 0
    for _ in range(12):
        n = int(rng.integers(3, 9))
        p = prior(rng, n)
        eps, half, _ = eps_half(rng, p)
        if half + math.exp(-eps) >= 1 - p.min():
            continue
        res = light_top_flat(p, eps, half, tol=1e-7, max_nodes=3000)
        assert res.found == []
        cols = light_top_columns(p, eps, half)
        if cols.shape[1]:
            assert float(np.max(values(p, np.zeros(n), cols))) <= res.bound
        relaxed = _relaxation_max(p, eps, half)
        assert relaxed - 1e-12 <= res.bound
        if not res.exhausted:
            assert res.bound <= relaxed + 1.1e-7
            closed += 1
        checked += 1
    assert checked >= 6 and closed >= checked // 2


@pytest.mark.parametrize("seed", range(2))
def test_light_top_flat_closes_fast_at_the_radii_of_real_sample_sizes(seed):
    """Radii beta*(1e-6) of samples of 10^3 to 10^5 on 10 to 80 letters, heavy-tailed priors, eps in
    [0.1, 4]: the maximum sits where the columns meet the box's (an end of the s-range), and the
    search closes to 1e-10 of the independently found maximum within 300 intervals."""
    from leakage.estimation.concentration import beta_star

    rng = np.random.default_rng(710 + seed)
    for _ in range(8):
        n = int(rng.integers(10, 81))
        p = np.maximum(rng.dirichlet(np.full(n, rng.uniform(0.2, 1.0))), 2e-5)
        p /= p.sum()
        eps = float(rng.uniform(0.1, 4.0))
        half = beta_star(1e-6, int(rng.integers(1000, 100_000)), n) / 2
        res = light_top_flat(p, eps, half, tol=1e-10, max_nodes=300)
        assert not res.exhausted
        relaxed = _relaxation_max(p, eps, half)
        assert relaxed - 1e-12 <= res.bound <= relaxed + 1e-9
        # at s = beta/2 + e^-eps (k = 1) the column is 1/P(S) on S: the box's log H
        assert abs(relaxed + math.log(half + math.exp(-eps))) <= 1e-9
