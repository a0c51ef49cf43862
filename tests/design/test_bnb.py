"""leakage.design.bnb: a search resumed from where it ran out ends as one run on the larger budget."""

import math

import numpy as np
import pytest

from design_instances import duals, eps_half, prior
from leakage.design.pricing.box import box_search
from leakage.design.pricing.staircase import heavy_two_level_search, staircase_search


def _searches(rng):
    """Seeded branch-and-bound pricings of every resumable kind, each as f(max_nodes, resume)."""
    n = int(rng.integers(8, 24))
    p = prior(rng, n)
    w = duals(rng, p)
    eps, half, _ = eps_half(rng, p)
    cap = float(rng.uniform(1.05, 20.0))
    kw = dict(tol=1e-10, collect=float(rng.choice([-math.inf, 0.0])), keep=int(rng.integers(1, 6)),
              target=float(rng.choice([-math.inf, 1e-3])))
    yield "box", lambda k, r: box_search(p, w, cap, max_nodes=k, resume=r, **kw)
    yield "staircase", lambda k, r: staircase_search(p, w, eps, max_nodes=k, resume=r, **kw)
    yield "heavy_two_level", lambda k, r: heavy_two_level_search(p, w, eps, half, max_nodes=k, resume=r, **kw)


def _same(a, b):
    assert (a.bound, a.best, a.nodes, a.exhausted) == (b.bound, b.best, b.nodes, b.exhausted)
    assert len(a.found) == len(b.found)
    for x, y in zip(a.found, b.found):
        assert np.array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize("seed", range(6))
def test_a_resumed_search_ends_as_one_run_on_the_larger_budget(seed):
    rng = np.random.default_rng([20261127, seed])
    resumed = 0
    for _ in range(6):
        for name, run in _searches(rng):
            small, large = int(rng.integers(1, 40)), int(rng.integers(40, 400))
            first = run(small, None)
            if not first.exhausted:
                assert first.frontier is None
                continue
            resumed += 1
            assert first.frontier is not None and first.frontier.nodes == first.nodes
            again = run(large, first.frontier)
            _same(again, run(large, None))
            # the frontier is not consumed: resuming twice gives the same result
            _same(run(large, first.frontier), again)
    assert resumed >= 6  # the family exercises resumption, not only searches that close at once
