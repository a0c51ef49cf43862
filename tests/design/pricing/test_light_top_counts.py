"""The light-top search over the decoupled count programmes (``pricing.light_top_counts``) against two
independent computations: 3^N enumeration of every light-top column, and the enumeration of every
top set with one programme each (``counts.light_top_table``)."""

import math

import numpy as np
import pytest

from design_instances import duals, grid_prior, light_top_columns, light_top_grid_instance, values
from leakage.design.pricing import counts as tables
from leakage.design.pricing.light_top_counts import light_top_count_search
from leakage.design.vertices import light_top_column


def _search(counts, m, p, w, eps, half, keep=4, max_nodes=10_000):
    return light_top_count_search(counts, m, p, w, eps, half, tol=0.0, collect=-math.inf, max_nodes=max_nodes,
                                  keep=keep)


def _lifted(p, w, best, rng):
    """The duals shifted along P (every column's value moves by the same amount, P.v = 1) so that the
    family's maximum is positive: a search only has to bound what lies above 0."""
    return w + (best - rng.uniform(0.01, 0.5)) * p


def _assert_columns(res, p, w, eps, half, best):
    E = math.exp(eps)
    for t1, s in res.found:
        assert np.all(s[t1]) and not s.all() and p[t1].sum() < half
        col = light_top_column(p, half, E, t1, s)
        assert col is not None and p @ col == pytest.approx(1.0, abs=1e-12)
        assert float(values(p, w, col[:, None])[0]) <= best + 1e-9 * (1 + abs(best))
    if res.found:  # the best one found is the maximum
        col = light_top_column(p, half, E, *res.found[0])
        assert float(values(p, w, col[:, None])[0]) == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_light_top_count_search_is_exact_against_every_column(seed):
    rng = np.random.default_rng(700 + seed)
    checked = 0
    for _ in range(15):
        p, counts, m, eps, half = light_top_grid_instance(rng, 8)
        cols = light_top_columns(p, eps, half)
        if cols.shape[1] == 0:
            continue
        w = duals(rng, p)
        w = _lifted(p, w, float(np.max(values(p, w, cols))), rng)
        best = float(np.max(values(p, w, cols)))
        res = _search(counts, m, p, w, eps, half)
        assert not res.exhausted
        assert best - 1e-10 <= res.bound <= best + 1e-9 * (1 + abs(best))
        _assert_columns(res, p, w, eps, half, best)
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("seed", range(3))
def test_light_top_count_search_agrees_with_the_top_set_enumeration(seed):
    # ten to fourteen letters, most of them light: 3^N enumeration is out of reach, the table
    # enumerates the top sets (at most 2^14) with one programme each
    rng = np.random.default_rng(800 + seed)
    compared = 0
    for _ in range(4):
        n = int(rng.integers(10, 15))
        p, counts, m = grid_prior(rng, n)
        eps = float(rng.uniform(0.1, 4.0))
        half = float(np.quantile(p, rng.uniform(0.5, 1.0))) * rng.uniform(1.0, 3.0)
        w = duals(rng, p)
        ref = tables.light_top_table(counts, m, p, w, eps, half, 1, -math.inf)
        if ref is None:
            continue
        if ref.best > -math.inf:
            w = _lifted(p, w, ref.best, rng)
            ref = tables.light_top_table(counts, m, p, w, eps, half, 1, -math.inf)
        res = _search(counts, m, p, w, eps, half)
        assert not res.exhausted
        if ref.best == -math.inf:
            assert res.bound == -math.inf
            continue
        assert res.bound == pytest.approx(ref.bound, abs=1e-9 * (1 + abs(ref.bound)))
        _assert_columns(res, p, w, eps, half, ref.best)
        compared += 1
    assert compared >= 3


def test_a_spent_budget_still_bounds_the_family():
    rng = np.random.default_rng(901)
    p, counts, m = grid_prior(rng, 7)
    half = float(np.sort(p)[-2])
    for _ in range(5):
        w = duals(rng, p)
        cols = light_top_columns(p, 0.3, half)
        if cols.shape[1] == 0:
            continue
        res = _search(counts, m, p, w, 0.3, half, max_nodes=1)
        assert res.bound >= float(np.max(values(p, w, cols))) - 1e-12


@pytest.mark.parametrize("seed", range(3))
def test_one_heavy_letter_and_many_light_ones_close_in_few_nodes(seed):
    # native-country's shape: one letter holding 90 % of the records, ten light ones, a small
    # eps (k near 1), duals like a master's (light letters cheap, the heavy one dear): S must hold
    # the heavy letter, so relaxation A alone pairs a large T1 with an S that has few light records;
    # relaxation B pairs them consistently and the search closes at once
    rng = np.random.default_rng(950 + seed)
    for _ in range(3):
        light = 1 + rng.multinomial(int(rng.integers(150, 400)), rng.dirichlet(np.full(10, 0.5)))
        counts = np.concatenate([[int(9 * light.sum())], light])
        m = int(counts.sum())
        p = counts / m
        half = float(rng.uniform(0.3, 0.9)) * light.sum() / m
        eps = float(rng.uniform(0.1, 0.3))
        w = p * np.concatenate([[rng.uniform(0.05, 0.15)], rng.uniform(-0.9, -0.75, size=10)])
        ref = tables.light_top_table(counts, m, p, w, eps, half, 1, -math.inf)
        assert ref is not None and ref.best > -math.inf
        w = _lifted(p, w, ref.best, rng)
        ref = tables.light_top_table(counts, m, p, w, eps, half, 1, -math.inf)
        res = _search(counts, m, p, w, eps, half, max_nodes=25)
        assert not res.exhausted
        assert res.bound == pytest.approx(ref.bound, abs=1e-9 * (1 + abs(ref.bound)))
