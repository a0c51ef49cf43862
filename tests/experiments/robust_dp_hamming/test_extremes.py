"""Numerical extremes and malformed input of the robust-dp-hamming programs: the right answer, or a
clear error naming the parameter and what is out of reach (never NaN, never a silent wrong value)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from leakage.experiments.robust_dp_hamming.leakage_distortion import (
    EPS_REACH,
    class_i_dp_leakage,
    closed_form_reach,
    dp_leakage_curve,
    dp_leakage_distortion,
    dp_mechanism,
    min_distortion_dp,
)
from leakage.experiments.robust_dp_hamming.source_sets import (
    MAX_SUBSET_WORK,
    distortion_threshold,
    distortion_thresholds,
    fold,
    unfold,
)
from leakage.measures.dp import ldp_epsilon

UNIFORM2 = [[0.5, 0.5]]


@pytest.mark.parametrize("eps", [0.0, 5.0, 12.0, EPS_REACH])
def test_min_distortion_matches_randomized_response_up_to_the_reach(eps):
    # one uniform point: D_min(eps) = (M-1)/(e^eps + M - 1), reached by randomized response
    for m in (2, 5):
        d, q = min_distortion_dp(np.full((1, m), 1.0 / m), eps)
        exact = (m - 1) / (math.exp(eps) + m - 1)
        assert d == pytest.approx(exact, rel=1e-7)
        assert np.all(np.isfinite(q)) and np.allclose(q.sum(axis=1), 1.0)
        assert ldp_epsilon(q) <= eps + 1e-6


def test_eps_inf_gives_the_identity_and_beyond_the_lp_reach_the_closed_form():
    d, q = min_distortion_dp(UNIFORM2, math.inf)
    assert d == 0.0 and np.array_equal(q, np.eye(2))
    # beyond the LP's reach: Theorem 1's D = (M-1)/(e^eps + M-1) [robust-dp-hamming], randomized response
    for eps in (30.0, 300.0):
        d, q = min_distortion_dp(UNIFORM2, eps)
        assert d == pytest.approx(1.0 / (math.exp(eps) + 1.0), rel=1e-12)
        assert ldp_epsilon(q) <= eps * (1 + 1e-12) and np.allclose(q.sum(axis=1), 1.0)
    # e^-1e300 underflows: D_min = 0 in floats (the true value is below 1e-300), the identity
    assert min_distortion_dp(UNIFORM2, 1e300)[0] == 0.0
    # a mechanism exists exactly when D >= D_min(eps): at eps = 25, D_min = 1/(e^25 + 1) = 1.4e-11
    assert np.allclose(dp_mechanism(UNIFORM2, 0.1, 25.0).sum(axis=1), 1.0)
    with pytest.raises(ValueError, match=r"distortion must be in \[D_min\(eps\), 1\]"):
        dp_mechanism(UNIFORM2, 1e-12, 25.0)


def test_the_closed_form_beyond_the_lp_holds_for_class_ii_iii_and_absent_letters():
    class_ii = [[0.70, 0.15, 0.06, 0.04, 0.03, 0.02]]  # Table I: pi* = 0.02, eps_c = log(50 - 5)
    class_iii = class_ii + [[0.15, 0.70, 0.06, 0.04, 0.03, 0.02]]
    absent = [[0.5, 0.5, 0.0]]  # the third letter never occurs: M' = 2
    assert closed_form_reach(class_ii) == (pytest.approx(math.log(45.0)), 6)
    assert closed_form_reach(absent) == (0.0, 2)
    for points, m in ((class_ii, 6), (class_iii, 6), (absent, 2)):
        eps_c = closed_form_reach(points)[0]
        # where both apply the LP agrees with the closed form, which is proved, not fitted
        for eps in (eps_c, 0.5 * (eps_c + EPS_REACH), EPS_REACH):
            assert min_distortion_dp(points, eps)[0] == pytest.approx((m - 1) / (math.exp(eps) + m - 1), rel=1e-6)
        for eps in (20.0, 60.0):
            assert min_distortion_dp(points, eps)[0] == pytest.approx((m - 1) / (math.exp(eps) + m - 1), rel=1e-12)
        # a tiny distortion: eps* = log((M'-1)(1-D)/D), beyond the LP's 18 nats
        for dist in (1e-9, 1e-12, 1e-300):
            assert dp_leakage_distortion(points, dist).eps == pytest.approx(math.log((m - 1) * (1 - dist) / dist))
        got = dp_leakage_curve(points, [0.3, 1e-12, 1e-9])
        assert got[1:] == pytest.approx([math.log((m - 1) * (1 - d) / d) for d in (1e-12, 1e-9)])
        assert got[0] == pytest.approx(dp_leakage_distortion(points, 0.3).eps, abs=1e-7)


def test_a_letter_rarer_than_the_lp_resolves_is_refused_between_18_nats_and_its_closed_form():
    rare = [[0.5, 0.5 - 1e-12, 1e-12]]  # eps_c = log(1e12 - 2) = 27.6 nats
    eps_c = closed_form_reach(rare)[0]
    assert eps_c == pytest.approx(math.log(1e12 - 2))
    with pytest.raises(ValueError, match=r"eps = 20 nats is out of reach .* eps must be in \[0, 18\] or >= 27.6"):
        min_distortion_dp(rare, 20.0)
    assert min_distortion_dp(rare, 30.0)[0] == pytest.approx(2 / (math.exp(30.0) + 2), rel=1e-12)
    assert dp_leakage_distortion(rare, 1e-13).eps == pytest.approx(math.log(2 * (1 - 1e-13) / 1e-13))


def test_a_tiny_distortion_is_met_relatively():
    # Theorem 1 (Class I): eps* = log((M-1)(1-D)/D); D = 1e-7 needs 16.1 nats, within the LP's reach
    sol = dp_leakage_distortion(UNIFORM2, 1e-7)
    assert sol.eps == pytest.approx(class_i_dp_leakage(2, 1e-7), abs=1e-6)
    distortion = 0.5 * (1 - np.diag(sol.mechanism)).sum()
    assert distortion <= 1e-7 * (1 + 1e-5)
    # D = 1e-12 needs 27.6 nats: the closed form, with a mechanism that meets the budget
    sol = dp_leakage_distortion(UNIFORM2, 1e-12)
    assert sol.eps == pytest.approx(class_i_dp_leakage(2, 1e-12), rel=1e-12)
    q = sol.mechanism  # distortion as the off-diagonal mass (1 - Q(i|i) would round at 1e-16)
    assert 0.5 * (q.sum() - np.trace(q)) <= 1e-12 * (1 + 1e-9)


@pytest.mark.parametrize("tol", [0.0, -1.0, math.nan, "x"])
def test_the_search_tolerance_is_checked(tol):
    with pytest.raises((ValueError, TypeError), match="tol"):
        dp_leakage_distortion(UNIFORM2, 0.1, tol=tol)


def test_no_state_is_kept_between_calls():
    a = dp_leakage_curve([[0.6, 0.3, 0.1]], [0.05, 0.2, 0.4])
    b = dp_leakage_curve([[0.6, 0.3, 0.1]], [0.4, 0.2, 0.05])
    assert np.array_equal(a, b[::-1])
    singles = [dp_leakage_distortion([[0.6, 0.3, 0.1]], d).eps for d in (0.05, 0.2, 0.4)]
    assert np.allclose(a, singles, atol=1e-7)


@pytest.mark.parametrize("order", [[0, 0, 1], [0, 1, 5], [0.5, 1, 2], [[0, 1, 2]], [0, 1]])
def test_fold_and_unfold_refuse_a_non_permutation(order):
    for f in (fold, unfold):
        with pytest.raises(ValueError, match=r"order must be a permutation of 0\.\.2"):
            f([[0.5, 0.3, 0.2]], order)


def test_fold_unfold_roundtrip():
    p = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3]])
    assert np.array_equal(unfold(fold(p, [2, 0, 1]), [2, 0, 1]), p)


def test_thresholds_of_a_large_alphabet_are_polynomial_or_refused():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(30))
    got = distortion_thresholds([p])  # was 2^30 subsets
    assert np.allclose(got, np.cumsum(np.sort(p))[:29])
    assert np.all(np.diff(got) >= 0)
    three = rng.dirichlet(np.ones(30), size=3)  # no common order: exponential, refused
    with pytest.raises(ValueError, match="exponential in M = 30"):
        distortion_threshold(three, 10)
    assert MAX_SUBSET_WORK <= 10**6


@pytest.mark.parametrize("points", [None, [[math.nan, 1.0]], [], "x"])
def test_hull_helpers_refuse_non_finite_points(points):
    from leakage.experiments.robust_dp_hamming.source_sets import hull_halfspaces, hull_vertices

    for f in (hull_vertices, hull_halfspaces):
        with pytest.raises((ValueError, TypeError), match="points"):
            f(points)


@pytest.mark.parametrize(
    "args, named",
    [
        ((np.zeros((0, 2)), [], np.eye(2), [1.0]), "b_ub must have one entry per row of a_ub"),
        ((np.zeros((0, 2)), [], [[math.nan, 1.0]], [1.0]), "a_ub and b_ub must be finite"),
        (([[1.0, 1.0]], [1.0, 2.0], -np.eye(2), [0.0, 0.0]), "b_eq must have one entry per row"),
        ((None, None, None, None), "must be finite"),
        (([], [], [], []), "a_eq and a_ub must be matrices"),
    ],
)
def test_polytope_vertices_refuses_a_malformed_h_representation(args, named):
    from leakage.experiments.robust_dp_hamming.source_sets import polytope_vertices

    with pytest.raises((ValueError, TypeError), match=named):
        polytope_vertices(*args)


def test_chamber_refuses_non_integer_orders():
    from leakage.experiments.robust_dp_hamming.source_sets import chamber_halfspaces

    for order in ([math.inf, 0], [0.5, 1], [[0, 1]]):
        with pytest.raises((ValueError, TypeError), match="order must be a permutation"):
            chamber_halfspaces(order)


def test_every_set_of_the_paper_is_answered_exactly_beyond_the_lp_reach(repo_root):
    """docs/papers/robust-dp-hamming.md: every source set of the data file has eps_c < EPS_REACH, so
    no eps and no distortion is refused for them."""
    from leakage.experiments.robust_dp_hamming.figures import load_source_sets

    data = load_source_sets(repo_root / "workflow" / "data" / "robust-dp-hamming" / "source_sets.yaml")
    sets = [pts for table in data["tables"].values() for pts in table.values()] + list(data["fig1"].values())
    for points in sets:
        assert closed_form_reach(points)[0] < EPS_REACH
        assert math.isfinite(dp_leakage_distortion(points, 1e-300).eps)
