"""leakage.design.pricing.cover: near-exact zero sets against enumeration, lift vectors in the cone,
and the design that uses them against the optimum over every vertex."""

import itertools
import math

import numpy as np
import pytest

from leakage.design import optimal_mechanism
from leakage.design.colgen import heavy_letters
from leakage.design.cone import Cone
from leakage.design.pricing.cover import cover_columns, lift_columns, near_exact_zero_sets
from leakage.estimation.concentration import beta_star


def _draw(n, seed):
    """A heavy-tailed prior of the engine's family: Dirichlet(alpha), alpha in [0.2, 1], clipped at 2e-5."""
    rng = np.random.default_rng(seed)
    p = np.maximum(rng.dirichlet(np.full(n, rng.uniform(0.2, 1.0))), 2e-5)
    return p / p.sum()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_nearest_zero_set_is_the_nearest_subset_sum(seed):
    p = _draw(14, seed)
    light = np.arange(2, 14)  # 12 letters: the pool holds them all, so the meet in the middle is exact
    target = 0.3 * p[light].sum()
    zero = near_exact_zero_sets(p, light, target, rounds=1, keep=5)
    assert zero.shape[1] == p.size and not zero[:, :2].any()
    sums = sorted(abs(sum(p[list(c)]) - target) for k in range(13) for c in itertools.combinations(light, k))
    found = sorted(np.abs(zero.astype(float) @ p - target))
    assert found[0] == pytest.approx(sums[0], abs=1e-15)
    assert len(set(map(bytes, zero))) == zero.shape[0]


def test_lift_columns_are_box_vertices_of_mass_one():
    p = _draw(20, 7)
    cap = math.exp(0.15)
    target = 1 - 1 / cap
    light = np.flatnonzero(p < target)
    zero = near_exact_zero_sets(p, light, target, rounds=4, keep=16)
    v = lift_columns(p, cap, zero, target)
    assert np.allclose(p @ v, 1.0, atol=1e-12)
    assert v.min() >= 0.0 and v.max() <= cap * (1 + 1e-15)
    fractional = (v > 1e-12) & (v < cap * (1 - 1e-12))
    assert fractional.sum(axis=0).max() <= 1  # at most one letter between 0 and the cap
    cone = Cone.of(p, 0.15, 0.0, "pml")
    cols = cover_columns(cone, cap, heavy_letters(cone), rounds=4, keep=16)
    assert np.all(cols.max(axis=0) <= cone.E * cone.low(cols) * (1 + 1e-12))  # in the box cone


@pytest.mark.parametrize("n, seed, eps", [(9, 11, 0.12), (9, 17, 0.2), (10, 17, 0.2)])
def test_small_eps_design_matches_enumeration(n, seed, eps):
    # a ball at small eps with heavy letters (draws where the cover enters the master): column
    # generation against one LP over every vertex; both certified, each value within the other's bound
    p = _draw(n, seed)
    beta = beta_star(1e-6, 48842, n)
    cone = Cone.of(p, eps, beta, "pml")
    cg = optimal_mechanism(p, eps, beta=beta, method="colgen")
    en = optimal_mechanism(p, eps, beta=beta, method="enumerate")
    assert cg.certified and en.certified
    assert cg.value <= en.bound + 1e-12 and en.value <= cg.bound + 1e-12
    assert abs(cg.value - en.value) <= 2e-9 * (1 + en.value)
    assert heavy_letters(cone) is not None and cg.stats["cover"]["columns"] > 0  # the cover entered
