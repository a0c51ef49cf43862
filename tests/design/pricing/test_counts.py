"""leakage.design.pricing.counts: the dynamic programmes over counts against brute force over every
set, on empirical priors counts / m drawn from seeded families."""

import itertools
import math

import numpy as np
import pytest

from design_instances import duals, grid_prior, heavy_columns, light_top_columns, light_top_grid_instance, prior, values
from leakage.design.pricing import counts as tables
from leakage.design.vertices import lift_vectors, staircase_columns, subset_masks


def test_grid_counts_recovers_empirical_priors_and_refuses_others():
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(2, 40))
        p, counts, m = grid_prior(rng, n)
        found = tables.grid_counts(p)
        assert found is not None
        got, got_m = found
        g = math.gcd(*counts.tolist())  # the smallest denominator
        assert got_m == m // g and np.array_equal(got, counts // g)
        assert tables.grid_counts(rng.dirichlet(np.full(n, 0.5)) * (1 - 1e-9) + 1e-9 / n) is None


def test_least_weight_by_count_is_the_least_sum_over_every_subset():
    rng = np.random.default_rng(8)
    for _ in range(20):
        n = int(rng.integers(1, 9))
        counts = rng.integers(1, 12, size=n)
        m = int(counts.sum())
        w = rng.normal(size=n)
        letters = np.arange(n)
        dp, take = tables.least_weight_by_count(counts, w, letters, m)
        brute = np.full(m + 1, np.inf)
        for r in range(n + 1):
            for sub in itertools.combinations(range(n), r):
                c = int(counts[list(sub)].sum())
                brute[c] = min(brute[c], float(w[list(sub)].sum()))
        np.testing.assert_allclose(dp, brute, atol=1e-12)
        for c in np.flatnonzero(np.isfinite(dp)):
            mask = tables.rebuild(take, counts, letters, int(c), n)
            assert counts[mask].sum() == c and w[mask].sum() == pytest.approx(dp[c], abs=1e-12)


def _check(res, best, columns_of_found):
    assert best - 1e-10 <= res.bound <= best + 1e-9 * (1 + abs(best))
    if res.found:  # the best column found is the best there is
        assert float(values(*columns_of_found(res.found[0]))) == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_two_level_tables_are_exact(seed):
    rng = np.random.default_rng(400 + seed)
    for _ in range(10):
        n = int(rng.integers(2, 10))
        p, counts, m = grid_prior(rng, n)
        eps = float(rng.uniform(0.05, 4.0))
        w = duals(rng, p)
        best = float(np.max(values(p, w, staircase_columns(p, eps, subset_masks(n)))))
        cm1 = math.expm1(eps)
        res = tables.two_level_table(counts, m, w, lambda s: (1 / (1 + cm1 * s), (1 + cm1) / (1 + cm1 * s)),
                                     (0.0, 1.0), 4, -math.inf)
        _check(res, best, lambda mask: (p, w, staircase_columns(p, eps, mask[:, None])[:, 0]))
        half = float(rng.uniform(1.01 * p.min(), 0.45))
        cols = heavy_columns(p, eps, half)
        if cols.shape[1]:
            E = math.exp(eps)
            H, kap = E / (1 + E * half), 1 - E / (1 + E * half) * half
            res = tables.two_level_table(
                counts, m, w, lambda s: ((1 - H * s) / (1 - kap * s), H * (1 + half - s) / (1 - kap * s)),
                (half, 1 / H), 4, -math.inf)
            assert float(np.max(values(p, w, cols))) - 1e-10 <= res.bound
            assert res.bound <= float(np.max(values(p, w, cols))) + 1e-9


@pytest.mark.parametrize("seed", range(3))
def test_box_table_is_exact(seed):
    rng = np.random.default_rng(500 + seed)
    for _ in range(10):
        n = int(rng.integers(2, 9))
        p, counts, m = grid_prior(rng, n)
        cap = float(rng.uniform(1.05, 20.0))
        w = duals(rng, p)
        best = float(np.max(values(p, w, lift_vectors(p, cap))))
        res = tables.box_table(counts, m, p, w, cap, 4, -math.inf)
        _check(res, best, lambda col: (p, w, col))
        col = res.found[0]
        assert p @ col == pytest.approx(1.0, abs=1e-12) and np.all((col >= 0) & (col <= cap * (1 + 1e-12)))


@pytest.mark.parametrize("seed", range(3))
def test_light_top_table_is_exact(seed):
    from leakage.design.vertices import light_top_column

    rng = np.random.default_rng(600 + seed)
    checked = 0
    for _ in range(15):
        p, counts, m, eps, half = light_top_grid_instance(rng, 8)
        cols = light_top_columns(p, eps, half)
        if cols.shape[1] == 0:
            continue
        w = duals(rng, p)
        res = tables.light_top_table(counts, m, p, w, eps, half, 4, -math.inf)
        assert res is not None  # at most 2^7 top sets
        E = math.exp(eps)
        _check(res, float(np.max(values(p, w, cols))),
               lambda ts: (p, w, light_top_column(p, half, E, ts[0], ts[1])))
        checked += 1
    assert checked >= 10


def test_programmes_by_rows_are_one_programme_per_row_bit_for_bit():
    # each row of the joint programmes is the single programme over its letters, the same floats
    # (duals rounded to two decimals: sums tie, and a tie must keep the same value)
    rng = np.random.default_rng(11)
    for _ in range(20):
        n = int(rng.integers(1, 12))
        counts = rng.integers(1, 25, size=n)
        m = int(rng.integers(1, counts.sum() + 5))
        w = np.round(rng.normal(size=n), 2)
        allowed = rng.random((int(rng.integers(1, 9)), n)) < 0.6
        got = tables._least_weight_by_rows(counts, w, allowed, m)
        for row, mask in zip(got, allowed):
            assert np.array_equal(row, tables.least_weight_by_count(counts, w, np.flatnonzero(mask), m)[0])


def _light_top_one_set_at_a_time(counts, m, p, w, eps, half, keep, collect):
    """The light-top table as first written: one programme per top set, each set's best ``keep``
    counts, then the best ``keep`` of all (ties: the earlier set, then the smaller count)."""
    E = math.exp(eps)
    tops = tables._subsets_below(counts, np.flatnonzero(p < half), math.ceil(half * m) - 1, 10**6)
    best, entries = -math.inf, []
    for t1 in tops:
        c1 = int(counts[t1].sum())
        p1, w1 = c1 / m, float(w[t1].sum())
        others = np.flatnonzero(~t1)
        dp, take = tables.least_weight_by_count(counts, w, others, m - c1)
        sig = (c1 + np.arange(dp.size)) / m
        ok = np.isfinite(dp) & (sig >= half + 1.0 / E) & (c1 + np.arange(dp.size) < m) & (p1 < half)
        with np.errstate(divide="ignore", invalid="ignore"):
            kk = np.where(ok, E * (sig - half), 1.0)
            d = sig + (kk - 1.0) * p1
            val = np.where(ok, (p1 * kk * np.log(kk) - (kk - 1.0) * w1 - (w1 + dp)) / d - np.log(d), -np.inf)
        best = max(best, float(val.max()))
        entries += [(float(val[j]), t1, t1 | tables.rebuild(take, counts, others, int(j), p.size))
                    for j in np.argsort(-val, kind="stable")[:keep] if np.isfinite(val[j]) and val[j] > collect]
    entries.sort(key=lambda e: -e[0])
    return best, [(t1, s) for _, t1, s in entries[:keep]]


@pytest.mark.parametrize("cells", [1 << 21, 64])  # 64: many blocks of programmes, each a few sets
def test_light_top_table_lists_what_one_programme_per_set_lists(cells, monkeypatch):
    # the joint programmes keep the same best value and list the same sets in the same order as one
    # programme per top set, ties included (duals rounded), whatever the blocks
    monkeypatch.setattr(tables, "_ROWS_CELLS", cells)
    rng = np.random.default_rng(612)
    checked = 0
    for _ in range(40):
        p, counts, m, eps, half = light_top_grid_instance(rng, 10)
        w = np.round(duals(rng, p), 2) if rng.random() < 0.5 else duals(rng, p)
        keep = int(rng.choice([1, 3, 12]))
        collect = -math.inf if rng.random() < 0.5 else float(rng.normal(scale=0.3))
        res = tables.light_top_table(counts, m, p, w, eps, half, keep, collect)
        best, found = _light_top_one_set_at_a_time(counts, m, p, w, eps, half, keep, collect)
        if best == -math.inf:
            assert res.best == -math.inf and res.found == []
            continue
        assert res.best == best and len(res.found) == len(found)
        assert all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(res.found, found))
        checked += 1
    assert checked >= 20


def test_light_top_table_declines_too_many_top_sets():
    counts = np.ones(20, int)  # 20 letters of mass 1/40 below beta/2 = 0.4: 2^20 top sets
    counts = np.concatenate([counts, [20]])
    p = counts / counts.sum()
    assert tables.light_top_table(counts, int(counts.sum()), p, -p, 1.0, 0.4, 4, -math.inf) is None


def test_least_weight_without_each_letter_equals_a_programme_without_it():
    rng = np.random.default_rng(9)
    for _ in range(10):
        n = int(rng.integers(2, 12))
        counts = rng.integers(1, 30, size=n)
        m = int(counts.sum())
        w = rng.normal(size=n)
        for f, (dp, steps) in enumerate(tables.least_weight_without_each(counts, w, m)):
            others = np.array([x for x in range(n) if x != f])
            np.testing.assert_allclose(dp, tables.least_weight_by_count(counts, w, others, m)[0], atol=1e-12)
            assert sorted(x for x, _ in steps) == others.tolist()
            for c in np.flatnonzero(np.isfinite(dp)):
                mask = tables._rebuild_steps(steps, counts, int(c), n)
                assert not mask[f] and counts[mask].sum() == c
                assert w[mask].sum() == pytest.approx(dp[c], abs=1e-12)


# ----------------------------------------------------------------------------- benchmarks
# The light-top table at the Monte Carlo designs' size (education: N = 16, a subset of m = 820
# records): all top sets' programmes at once against one programme per set, the way it was first
# written. Run with -n0 --benchmark-enable; the group compares them in the same run.
def _bench_instance():
    rng = np.random.default_rng(3)
    counts = rng.multinomial(820 - 16, rng.dirichlet(np.full(16, 0.4))) + 1
    p = counts / 820
    return counts, 820, p, duals(rng, p), 1.0, 0.06, 16, -math.inf


@pytest.mark.benchmark(group="light-top table")
def test_bench_light_top_table_joint_programmes(benchmark):
    res = benchmark(tables.light_top_table, *_bench_instance())
    assert res is not None and res.nodes > 100


@pytest.mark.benchmark(group="light-top table")
def test_bench_light_top_table_one_programme_per_set(benchmark):
    best, _ = benchmark(_light_top_one_set_at_a_time, *_bench_instance())
    assert best == tables.light_top_table(*_bench_instance()).best
