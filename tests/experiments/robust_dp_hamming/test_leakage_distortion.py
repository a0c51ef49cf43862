"""DP and MI leakage vs Hamming distortion over source sets [robust-dp-hamming]: the exact solvers against
the paper's closed forms (Theorem 1, Lemma 5, Lemma 6), Blahut-Arimoto rate-distortion, and the
validity of the optimal mechanisms."""

import numpy as np
import pytest

import leakage.experiments.robust_dp_hamming.leakage_distortion as hamming
from leakage.measures.dp import ldp_epsilon
from leakage.experiments.robust_dp_hamming.leakage_distortion import (
    class_i_dp_leakage,
    class_i_mi_leakage,
    dp_leakage_curve,
    dp_leakage_distortion,
    dp_mechanism,
    mi_leakage_curve,
    mi_leakage_distortion,
    min_distortion_dp,
    theorem3_bounds,
    theorem3_bounds_curve,
    worst_case_distortion,
)
from leakage.measures.information import rate_distortion_point
from leakage.experiments.robust_dp_hamming.source_sets import folding, source_class

TRIANGLE = np.array([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.2, 0.5]])  # Class I, M = 3
P6 = np.array([[0.70, 0.15, 0.06, 0.04, 0.03, 0.02]])  # Table I, Class II
SEG10 = np.array(  # Table II, Class II segment
    [
        [0.30, 0.20, 0.15, 0.08, 0.07, 0.06, 0.05, 0.04, 0.03, 0.02],
        [0.35, 0.16, 0.12, 0.10, 0.09, 0.09, 0.05, 0.02, 0.01, 0.01],
    ]
)
CROSSING = np.array([[0.6, 0.3, 0.1], [0.3, 0.6, 0.1]])  # Class III, M = 3


def theorem1(M, D):
    """[robust-dp-hamming], Theorem 1, written out independently of the library."""
    return np.log((M - 1) * (1 - D) / D) if D < (M - 1) / M else 0.0


def lemma5(M, D):
    """[robust-dp-hamming], Lemma 5 (Fano), written out independently of the library."""
    if D >= (M - 1) / M:
        return 0.0
    h = -D * np.log(D) - (1 - D) * np.log(1 - D)
    return np.log(M) - h - D * np.log(M - 1)


@pytest.mark.parametrize("points", [TRIANGLE, np.full((1, 6), 1 / 6)])
def test_class_i_dp_is_theorem_1(points):
    M = points.shape[1]
    ds = np.array([0.01, 0.1, 0.3, 0.5, (M - 1) / M - 1e-3, (M - 1) / M, 0.95])
    got = dp_leakage_curve(points, ds)
    want = [theorem1(M, d) for d in ds]
    assert got == pytest.approx(want, abs=1e-6)
    assert class_i_dp_leakage(M, ds) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("points", [TRIANGLE, np.full((1, 6), 1 / 6)])
def test_class_i_mi_is_lemma_5(points):
    # the triangle takes the general (SLSQP over the weights) branch of the outer maximisation
    M = points.shape[1]
    for d in (0.1, 0.4, (M - 1) / M):
        sol = mi_leakage_distortion(points, d)
        assert sol.eps == pytest.approx(lemma5(M, d), abs=1e-6)
        assert class_i_mi_leakage(M, d) == pytest.approx(lemma5(M, d), abs=1e-12)


@pytest.mark.parametrize("points, D", [(P6, 0.1), (SEG10, 0.3), (CROSSING, 0.2), (TRIANGLE, 0.25)])
def test_optimal_dp_mechanism_is_valid_and_reaches_the_leakage(points, D):
    sol = dp_leakage_distortion(points, D)
    q = sol.mechanism
    assert np.all(q >= 0) and q.sum(axis=1) == pytest.approx(1.0, abs=1e-12)
    # (P, D)-validity at every listed point, computed here from the definition
    assert max(p @ (1 - np.diag(q)) for p in points) <= D + 1e-9
    assert worst_case_distortion(q, points) <= D + 1e-9
    assert ldp_epsilon(q) == pytest.approx(sol.eps, abs=1e-6)


def test_dp_never_below_mi():
    for points in (P6, SEG10, CROSSING):
        for d in (0.05, 0.2, 0.45):
            assert mi_leakage_distortion(points, d).eps <= dp_leakage_distortion(points, d).eps + 1e-7


def test_single_distribution_mi_is_rate_distortion():
    # for one distribution the valid set is E d <= D, so eps*_I = R(D) (Blahut-Arimoto)
    prior = P6[0]
    hamming_d = 1 - np.eye(6)
    for slope in (1.5, 3.0, 6.0):
        rate, dist, _ = rate_distortion_point(prior, hamming_d, slope)
        assert 0 < dist < 0.3
        assert mi_leakage_distortion(P6, dist).eps == pytest.approx(rate, abs=2e-6)


def test_dp_jump_at_last_threshold_is_resolved():
    # M = 2, P = (0.7, 0.3): D^(1) = 0.3. Below it both outputs must be used and binary randomized
    # response is optimal, eps = log((1-D)/D) -> log(7/3); from D^(1) on, one output (eps = 0).
    p = np.array([[0.7, 0.3]])
    below, above = dp_leakage_curve(p, [0.3 - 1e-7, 0.3])
    assert below == pytest.approx(np.log((1 - (0.3 - 1e-7)) / (0.3 - 1e-7)), abs=1e-6)
    assert above == 0.0
    # Table I: D^(5) = 1 - 0.70; the jump is a step, not a ramp over the grid spacing
    t = 0.3
    far, near, at = dp_leakage_curve(P6, [t - 1e-3, t - 1e-7, t])
    assert at == 0.0
    assert near > 0.5
    assert abs(far - near) < 0.05 * near


def test_no_k_zero_columns_below_threshold_theorem_2a():
    # Theorem 2(a): below D^(k) every valid mechanism has fewer than k all-zero columns
    thresholds = np.cumsum(P6[0][::-1])  # D^(k) = sum of the k smallest entries
    for k in (2, 4):
        q = dp_leakage_distortion(P6, thresholds[k - 1] - 1e-3).mechanism
        assert np.sum(q.max(axis=0) < 1e-9) < k
    # D_min(0) is the one-output mechanism's distortion D^(M-1) (Lemma 6's threshold)
    assert min_distortion_dp(P6, 0.0)[0] == pytest.approx(thresholds[4], abs=1e-9)


@pytest.mark.parametrize("points, threshold", [(P6, 0.30), (SEG10, 0.70)])
def test_lemma_6_mi_zero_from_threshold_on(points, threshold):
    # D^(M-1) = max_P (1 - P_1) for these Class II sets
    at, above, below = mi_leakage_curve(points, [threshold, threshold + 0.01, threshold - 0.01])
    assert at < 1e-7 and above < 1e-7
    assert below > 1e-4


def test_nested_sets_order():
    sub = SEG10[:1]
    for d in (0.1, 0.4):
        small, big = dp_leakage_curve(sub, [d])[0], dp_leakage_curve(SEG10, [d])[0]
        assert small <= big + 1e-7 <= theorem1(10, d) + 2e-7


@pytest.mark.parametrize("D", [0.0, -0.1, 1.5])
def test_distortion_out_of_range(D):
    with pytest.raises(ValueError, match=r"distortion must be in \(0, 1\]"):
        dp_leakage_distortion(P6, D)
    with pytest.raises(ValueError, match=r"distortion must be in \(0, 1\]"):
        mi_leakage_distortion(P6, D)
    with pytest.raises(ValueError, match="distortion must be a real number"):
        dp_leakage_distortion(P6, float("nan"))


def test_bad_points():
    with pytest.raises(ValueError, match="sum to 1"):
        dp_leakage_distortion([[0.5, 0.6]], 0.2)
    with pytest.raises(ValueError, match="same alphabet size"):
        mi_leakage_distortion([[0.5, 0.5], [0.2, 0.3, 0.5]], 0.2)


def test_no_valid_mechanism():
    with pytest.raises(ValueError, match=r"no \(P, D\)-valid mechanism with eps_DP <= eps"):
        dp_mechanism(P6, 0.01, 0.5)
    q = dp_mechanism(P6, 0.3, 0.0)  # the one-output mechanism
    assert ldp_epsilon(q) == 0.0


def test_solver_failure_is_named(monkeypatch):
    class Failed:
        status, message, x, fun = 4, "numerical difficulties", None, None

    monkeypatch.setattr(hamming, "linprog", lambda *a, **k: Failed())
    with pytest.raises(RuntimeError, match="min_distortion_dp: the LP .* failed: numerical"):
        dp_leakage_distortion(P6, 0.2)


def test_bench_dp_curve_m10_class_ii(benchmark):
    # one fig5 curve is 200+ of these; `pytest --benchmark-enable -k bench` measures
    ds = np.linspace(0.9 / 40, 0.9, 40)
    out = benchmark(dp_leakage_curve, SEG10, ds)
    assert np.all(np.diff(out) <= 1e-9)  # non-increasing in D


def test_bench_mi_curve_m10_segment(benchmark):
    ds = np.linspace(0.9 / 10, 0.9, 10)
    out = benchmark(mi_leakage_curve, SEG10, ds)
    assert np.all(np.diff(out) <= 1e-7)


def test_newton_search_matches_plain_bisection_of_the_lp():
    # eps*_DP = min{eps : D_min(eps) <= D}: 40 halvings of [0, 12] (< 1e-11 nats) against the
    # safeguarded-Newton search of the curve, across kinks and just below the jump
    pts = np.array([[0.70, 0.15, 0.06, 0.04, 0.03, 0.02], [0.15, 0.70, 0.06, 0.04, 0.03, 0.02]])
    ds = [0.02, 0.13, 0.2, 0.29999, 0.45]
    got = dp_leakage_curve(pts, ds)
    for d, g in zip(ds, got):
        lo, hi = 0.0, 12.0
        if min_distortion_dp(pts, 0.0)[0] <= d:
            hi = 0.0
        for _ in range(40):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if min_distortion_dp(pts, mid)[0] <= d + 1e-10 else (mid, hi)
        assert g == pytest.approx(hi, abs=1e-6), d


def test_mi_outer_maximisation_over_three_points_beats_a_weight_grid():
    # the SLSQP branch (> 2 points) against a grid over the simplex of weights, each grid point
    # solved as a single distribution (a lower bound on the max over the hull)
    pts = np.array([[0.6, 0.3, 0.1], [0.3, 0.6, 0.1], [0.45, 0.2, 0.35]])
    D = 0.2
    sol = mi_leakage_distortion(pts, D)
    valid = lambda q: max(p @ (1 - np.diag(q)) for p in pts)  # noqa: E731
    assert valid(sol.mechanism) <= D + 1e-6
    grid = [
        np.array([a, b, 10 - a - b]) / 10 for a in range(11) for b in range(11 - a)
    ]
    prog = hamming._MinInformationProgram(pts)
    best = max(prog.solve(w @ pts, D)[0] for w in grid)
    assert sol.eps >= best - 1e-7


# ----------------------------------------------------- Class III: Theorem 3's bounds [robust-dp-hamming]

BOUND_TOL = 1e-7


def _random_class_iii(rng, M, n_points):
    while True:
        base = np.sort(rng.dirichlet(np.ones(M)))[::-1]
        pts = [base] + [base[rng.permutation(M)] + 0.05 * rng.dirichlet(np.ones(M)) for _ in range(n_points - 1)]
        pts = np.array([p / p.sum() for p in pts])
        if source_class(pts) == "III":
            return pts


def _assert_sandwich(points, ds):
    lower, upper = theorem3_bounds_curve(points, ds)
    exact = np.array([dp_leakage_distortion(points, d).eps for d in ds])
    assert np.all(lower <= exact + BOUND_TOL), (lower, exact)
    assert np.all(exact <= upper + BOUND_TOL), (exact, upper)
    return lower, exact, upper


@pytest.mark.parametrize("M", [6, 10])
@pytest.mark.parametrize("name", ["class_III_a", "class_III_b", "class_III_c"])
def test_theorem_3_sandwich_on_the_paper_sets(repo_root, M, name):
    from leakage.experiments.robust_dp_hamming.figures import load_source_sets

    pts = load_source_sets(repo_root / "workflow/data/robust-dp-hamming/source_sets.yaml")["tables"][M][name]
    ds = np.array([0.02, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8]) * (M - 1) / M / 0.8
    _assert_sandwich(pts, ds[ds <= 1])


@pytest.mark.parametrize("M,n_points", [(3, 2), (3, 3), (4, 2), (4, 3), (4, 5), (5, 2), (5, 3), (5, 6)])
def test_theorem_3_sandwich_on_random_class_iii_sets(M, n_points):
    rng = np.random.default_rng(7 * M + n_points)
    ds = [0.05, 0.15, 0.3, 0.5, (M - 1) / M - 0.01]
    for _ in range(3 if n_points <= 3 else 1):  # full-dimensional polytopes: one each
        _assert_sandwich(_random_class_iii(rng, M, n_points), ds)


@pytest.mark.parametrize("p", [CROSSING[0], P6[0], SEG10[1]])
def test_remark_6_bounds_match_when_lb_equals_ub(p):
    # a point and its 1-2 swap: both pieces fold onto [p, midpoint], so P^LB = P^UB
    swapped = p.copy()
    swapped[[0, 1]] = swapped[[1, 0]]
    pts = np.array([p, swapped])
    ds = [0.05, 0.2, 0.4, 0.6]
    lower, exact, upper = _assert_sandwich(pts, ds)
    assert lower == pytest.approx(exact, abs=BOUND_TOL)
    assert upper == pytest.approx(exact, abs=BOUND_TOL)


def test_remark_4_lower_bound_when_lb_is_empty():
    # (0.6, 0.3, 0.1) -> (0.2, 0.1, 0.7) crosses P2 = P3 at (0.5, 0.25, 0.25) and P1 = P3 at
    # (0.4, 0.2, 0.4): the folded first piece [(0.6, 0.3, 0.1), (0.5, 0.25, 0.25)] and last piece
    # [(0.4, 0.4, 0.2), (0.7, 0.2, 0.1)] do not meet (P3 = 0.1 only at (0.7, 0.2, 0.1)), so P^LB = {}
    pts = np.array([[0.6, 0.3, 0.1], [0.2, 0.1, 0.7]])
    assert folding(pts).lower.shape[0] == 0
    ds = [0.05, 0.2, 0.4, 0.6]
    lower, _, _ = _assert_sandwich(pts, ds)
    # the first piece alone is a subset of P (Remark 4's P ∩ S_P)
    first = np.array([[0.6, 0.3, 0.1], [0.5, 0.25, 0.25]])
    assert np.all(lower >= dp_leakage_curve(first, ds) - BOUND_TOL)


def test_theorem_3_single_d_and_bad_input():
    lo, up = theorem3_bounds(CROSSING, 0.2)
    assert lo <= dp_leakage_distortion(CROSSING, 0.2).eps + BOUND_TOL <= up + 2 * BOUND_TOL
    with pytest.raises(ValueError, match="points must be a Class III source set"):
        theorem3_bounds(P6, 0.2)
    with pytest.raises(ValueError, match="points must be a Class III source set"):
        theorem3_bounds(TRIANGLE, 0.2)
    with pytest.raises(ValueError, match="distortion must be in"):
        theorem3_bounds(CROSSING, 1.5)


def test_theorem_3_bounds_do_not_depend_on_the_labels():
    # relabelling the symbols changes neither eps*_DP nor the bounds (the folding target is fixed)
    rng = np.random.default_rng(3)
    pts = _random_class_iii(rng, 4, 3)
    ds = [0.1, 0.3, 0.5]
    lo, up = theorem3_bounds_curve(pts, ds)
    for sigma in ([3, 2, 1, 0], [1, 3, 0, 2]):
        lo2, up2 = theorem3_bounds_curve(pts[:, sigma], ds)
        assert lo2 == pytest.approx(lo, abs=BOUND_TOL) and up2 == pytest.approx(up, abs=BOUND_TOL)
