"""leakage.design.pricing.frequency: the exhaustive pricing's maximum equals the maximum of the convex
quadratic over every vertex of the cross-section found by brute force (active sets), at random
positive semidefinite G and vectors w; the relaxation bounds it from above; local search's columns
lie in the cone and are priced correctly."""

import numpy as np
import pytest

from leakage.design.cone import Cone
from leakage.design.pricing.frequency import exhaustive_pricing, local_pricing
from leakage.design.pricing.lifted import relaxed_bound
from leakage.design.vertices import brute_force_vertices


def phi(G, w, cols):
    return np.einsum("ik,ik->k", G @ cols, cols) + w @ cols


@pytest.mark.parametrize("seed", range(12))
def test_exhaustive_maximum_is_the_vertex_maximum(seed):
    rng = np.random.default_rng(seed)
    n = 2 + seed % 3
    p = rng.dirichlet(np.ones(n))
    kind = ("box", "ball", "ldp")[seed % 3]
    beta = float(rng.uniform(0.05, 1.8)) if kind == "ball" else 0.0
    cone = Cone.of(p, float(rng.uniform(0.2, 2.5)), beta, "ldp" if kind == "ldp" else "pml")
    z = rng.normal(size=(n, n))
    G, w = z @ z.T, rng.normal(size=n) * 3
    v = brute_force_vertices(cone)
    v = v / (p @ v)[None, :]
    truth = float(np.max(phi(G, w, v)))
    pr = exhaustive_pricing(cone, G, w, keep=3, collect=-np.inf)
    assert pr.exact
    assert truth <= pr.bound <= truth + 1e-9 * (1 + abs(truth))
    assert pr.values[0] == pytest.approx(truth, rel=1e-9, abs=1e-9)
    best = pr.columns[:, 0]
    assert best.max() <= cone.E * cone.low(best[:, None])[0] + 1e-9  # in the cone
    assert relaxed_bound(cone, z, w) >= truth
    loc = local_pricing(cone, G, w, keep=4, collect=-np.inf)
    assert loc.columns.shape[1] >= 1
    assert loc.values == pytest.approx(phi(G, w, loc.columns), rel=1e-12, abs=1e-12)
    assert loc.values[0] <= truth + 1e-9 * (1 + abs(truth))
    assert np.all(loc.columns.max(axis=0) <= cone.E * cone.low(loc.columns) + 1e-9)


@pytest.mark.parametrize("seed", range(9))
def test_local_search_finds_the_exhaustive_maximum_at_master_duals(seed):
    """At the dual point of a master over the oracles' columns (the point the design loop prices
    first), the local search's best column is the exhaustive maximum over every family (two-level,
    lift, box-top, light-top), N = 10 to 14, in all three cones: its many starts reach the top."""
    from leakage.design.frequency_master import solve_master
    from leakage.design.vertices import staircase_columns

    rng = np.random.default_rng(100 + seed)
    n = 10 + seed % 5
    p = np.maximum(rng.dirichlet(np.full(n, rng.uniform(0.2, 1.0))), 2e-5)
    p /= p.sum()
    kind = ("box", "ball", "ldp")[seed % 3]
    eps = float(rng.uniform(0.5, 2.0))
    cone = Cone.of(p, eps, 0.05 if kind == "ball" else 0.0, "ldp" if kind == "ldp" else "pml")
    cols = staircase_columns(p, eps, np.eye(n, dtype=bool))
    ms = solve_master(cols / (p @ cols)[None, :])
    G, w = ms.Z @ ms.Z.T, ms.w
    ex = exhaustive_pricing(cone, G, w, keep=1, collect=-np.inf)
    truth = max(v["max"] for k, v in ex.stats.items() if k != "ones")
    loc = local_pricing(cone, G, w, keep=4, collect=-np.inf)
    assert loc.values[0] == pytest.approx(truth, rel=1e-9)
    assert loc.values == pytest.approx(phi(G, w, loc.columns), rel=1e-12, abs=1e-12)
