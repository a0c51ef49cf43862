"""leakage.experiments.worst_case_pml.programs: utility-safe mechanism, eps*(k), Proposition 1 [worst-case-pml]."""

import itertools
import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.optimize import nnls

import leakage.experiments.worst_case_pml.programs as wc
from leakage.measures.dp import ldp_epsilon, randomized_response
from leakage.measures.pml import epsilon_max, epsilon_min, pointwise_maximal_leakage
from leakage.experiments.worst_case_pml.utility import circulant_order_matrix, worst_case_order
from leakage.experiments.worst_case_pml.programs import (
    allowed_pairs,
    column_leakage_lower_bound,
    exponential_mechanism,
    feasible_mechanism,
    largest_worst_case_order,
    ldp_epsilon_for_pml,
    optimal_epsilon,
    optimal_mechanism,
    pml_exponential_mechanism,
    pml_randomized_response,
    utility_safe_epsilon,
    utility_safe_mechanism,
    utility_safe_mechanism_for,
)


def random_order(rng, n):
    return np.array([rng.permutation(n) + 1 for _ in range(n)])


def random_cases(seed, count, sizes=(2, 3, 4, 5, 6)):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.choice(sizes))
        prior = rng.dirichlet(np.full(n, 0.7))
        prior = np.maximum(prior, 1e-3)
        yield rng, prior / prior.sum(), random_order(rng, n)


def brute_force_mass(prior, order, k):
    """P(A_y) with explicit loops: the prior mass of the inputs allowed to release y."""
    n = len(prior)
    return [sum(prior[x] for x in range(n) if order[x][y] >= k) for y in range(n)]


# ------------------------------------------------------------------ utility-safe (Thm 1, Cor 1)


def test_utility_safe_mechanism_structure_and_its_pml_is_eps_us():
    for _, prior, order in random_cases(10, 40):
        n = len(prior)
        for k in range(1, n + 1):
            c = utility_safe_mechanism(order, k)
            assert np.all(c >= 0)
            np.testing.assert_allclose(c.sum(axis=1), 1.0, atol=1e-12)
            assert np.all((c == 0) == (order < k))  # zeros exactly below the threshold
            np.testing.assert_allclose(c[order >= k], 1.0 / (n - k + 1))
            assert worst_case_order(c, prior, order) == k
            mass = [m for m in brute_force_mass(prior, order, k) if m > 0]
            expected = -math.log(min(mass))
            assert epsilon_min(c, prior) == pytest.approx(expected, abs=1e-12)
            assert utility_safe_epsilon(prior, order, k) == pytest.approx(expected, abs=1e-12)


def test_counting_query_thresholds_of_the_spec():
    """eps_US(k), k = 1..8, of the counting query (n = 7, Binomial(7, 1/2), eq. (11)), recomputed
    from the prior by brute force, against the spec's list."""
    n = 7
    prior = [math.comb(n, x) / 2**n for x in range(n + 1)]
    u = [[-((x - y) ** 2) - (1 if y < x else 0) for y in range(n + 1)] for x in range(n + 1)]
    rank = [[1 + sum(u[x][z] < u[x][y] for z in range(n + 1)) for y in range(n + 1)] for x in range(n + 1)]
    brute = [-math.log(min(brute_force_mass(prior, rank, k))) for k in range(1, n + 2)]
    spec = [0, math.log(2), 1.485, 1.485, math.log(16), math.log(16), math.log(128), math.log(128)]
    np.testing.assert_allclose(brute, spec, atol=1e-3)
    np.testing.assert_allclose(brute[:2] + brute[4:], spec[:2] + spec[4:], atol=1e-12)
    lib = [utility_safe_epsilon(prior, np.array(rank), k) for k in range(1, n + 2)]
    np.testing.assert_allclose(lib, brute, atol=1e-12)
    # the utility-safe mechanism at eps picks the largest k with eps_US(k) <= eps
    for eps, k in [(0.0, 1), (0.69, 1), (0.7, 2), (1.45, 2), (1.5, 4), (2.75, 4), (2.8, 6), (4.85, 6)]:
        assert largest_worst_case_order(prior, rank, eps, method="utility_safe") == k
        c = utility_safe_mechanism_for(prior, np.array(u, dtype=float), eps)
        assert worst_case_order(c, prior, np.array(rank)) == k
        assert epsilon_min(c, prior) <= eps + 1e-12


def test_lemma_3_no_mechanism_beats_the_column_bound():
    """Seed 003, Lemma 3: any mechanism with zeros below the threshold has l(X -> y) >= -log P(A_y)
    on each used column, with equality for columns constant over A_y."""
    for rng, prior, order in random_cases(11, 30):
        n = len(prior)
        for k in range(1, n + 1):
            bound = column_leakage_lower_bound(prior, order, k)
            mass = brute_force_mass(prior, order, k)
            for y in range(n):
                assert bound[y] == (math.inf if mass[y] == 0 else pytest.approx(-math.log(mass[y]), abs=1e-12))
            for _ in range(10):
                c = rng.exponential(size=(n, n)) * (rng.random((n, n)) < 0.7) * allowed_pairs(order, k)
                rows = np.flatnonzero(c.sum(axis=1) == 0)
                for x in rows:  # an allowed output for every empty row
                    c[x, rng.choice(np.flatnonzero(order[x] >= k))] = 1.0
                c /= c.sum(axis=1, keepdims=True)
                used = prior @ c > 0
                leak = pointwise_maximal_leakage(c, prior)
                assert np.all(leak[used] >= bound[used] - 1e-12)


# ------------------------------------------------------------------ general optimum (Sec. III-B)


def test_optimum_never_worse_than_utility_safe_and_is_a_real_mechanism():
    for _, prior, order in random_cases(12, 12, sizes=(3, 4, 5)):
        n = len(prior)
        for k in range(2, n + 1):
            eps_star, c = optimal_mechanism(prior, order, k)
            assert eps_star <= utility_safe_epsilon(prior, order, k) + 1e-12
            assert np.all(c >= 0)
            np.testing.assert_allclose(c.sum(axis=1), 1.0, atol=1e-9)
            assert np.all(c[order < k] == 0)
            # the mechanism really is eps*-PML (measured by leakage.measures.pml, up to the LP tolerance)
            assert epsilon_min(c, prior) <= eps_star + 1e-7
            # and nothing is feasible clearly below eps*
            if eps_star > 1e-5:
                with pytest.raises(ValueError, match=r"eps must be >= eps\*\(k\)"):
                    feasible_mechanism(prior, order, k, eps_star - 1e-5)


def _hull_feasible(prior, order, k, t):
    """Independent test of problem (10): an eps-PML mechanism with the forced zeros exists iff the
    prior is a convex combination of posteriors pi_y supported on A_y with pi_y <= t P. Each set
    {pi_y} is a box cut by the simplex, whose vertices have every coordinate but one at a bound;
    membership of P in the hull of all vertices is tested by non-negative least squares."""
    n = len(prior)
    vertices = []
    for y in range(n):
        a = [x for x in range(n) if order[x][y] >= k]
        for free in a:
            others = [x for x in a if x != free]
            for at_top in itertools.product((0, 1), repeat=len(others)):
                pi = np.zeros(n)
                for x, top in zip(others, at_top):
                    pi[x] = t * prior[x] * top
                rest = 1.0 - pi.sum()
                if -1e-15 <= rest <= t * prior[free] + 1e-15:
                    pi[free] = max(rest, 0.0)
                    vertices.append(pi)
    if not vertices:
        return False
    v = np.vstack([np.array(vertices).T, np.ones(len(vertices))])
    _, residual = nnls(v, np.append(prior, 1.0), maxiter=50 * len(vertices))
    return residual <= 1e-10


def _hull_optimal_epsilon(prior, order, k, tol=1e-9):
    lo, hi = 0.0, epsilon_max(prior)
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if _hull_feasible(prior, order, k, math.exp(mid)):
            hi = mid
        else:
            lo = mid
    return hi


def test_optimum_matches_an_independent_convex_hull_formulation():
    cases = list(random_cases(13, 8, sizes=(3, 4)))
    o4 = circulant_order_matrix(4)
    for p in (0.02, 0.2):
        cases.append((None, np.array([p, p, p, 1 - 3 * p]), o4))
        cases.append((None, np.array([p] + [(1 - p) / 3] * 3), o4))
    for _, prior, order in cases:
        for k in range(2, len(prior) + 1):
            assert optimal_epsilon(prior, order, k) == pytest.approx(
                _hull_optimal_epsilon(prior, order, k), abs=1e-6
            ), (prior, order, k)


def test_three_low_one_high_closed_form_for_k_2():
    """P = (p, p, p, 1 - 3p), circulant O (eq. (13)), k = 2: eps*(2) = min(-log 3p, log 3/2).

    A_2 = {0, 1, 2} has mass 3p, so a mechanism using output 2 leaks >= -log 3p (Lemma 3). Without
    output 2, rows 0, 1, 2 each put mass one on two outputs of {0, 1, 3}, each output shared by two
    of these rows: 3 <= sum_y 2 e^eps P_Y(y) = 2 e^eps, so eps >= log 3/2; the mechanism below
    (rows halved, x = 3 uniform on {0, 1, 3}) attains log 3/2 for every p."""
    o = circulant_order_matrix(4)
    half = np.array([[0.5, 0.5, 0, 0], [0, 0.5, 0, 0.5], [0.5, 0, 0, 0.5], [1 / 3, 1 / 3, 0, 1 / 3]])
    for p in (0.01, 0.1, 0.22, 0.23, 0.25):
        prior = np.array([p, p, p, 1 - 3 * p])
        assert epsilon_min(half, prior) == pytest.approx(math.log(1.5), abs=1e-12)
        expected = min(-math.log(3 * p), math.log(1.5))
        assert optimal_epsilon(prior, o, 2) == pytest.approx(expected, abs=1e-8)
        assert utility_safe_epsilon(prior, o, 2) == pytest.approx(-math.log(3 * p), abs=1e-12)


def test_largest_order_is_monotone_and_optimal_dominates_utility_safe():
    for _, prior, order in random_cases(14, 6, sizes=(3, 4)):
        prev = 0
        for eps in np.linspace(0, epsilon_max(prior), 7):
            k_opt = largest_worst_case_order(prior, order, eps)
            k_us = largest_worst_case_order(prior, order, eps, method="utility_safe")
            assert k_opt >= k_us >= 1 and k_opt >= prev
            prev = k_opt
            # the order reached is feasible at eps (LP), the next one is not
            assert feasible_mechanism(prior, order, k_opt, eps + 1e-7).shape == order.shape
            if k_opt < len(prior):
                assert optimal_epsilon(prior, order, k_opt + 1) > eps


# ------------------------------------------------------------------ Proposition 1


def test_ldp_level_inverts_the_proposition_1_bound():
    """eps' solves log( r / (p_min r + 1 - p_min) ) = eps with r = e^eps' (spec derivation)."""
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    for eps in np.linspace(0, epsilon_max(prior) - 1e-3, 17):
        r = math.exp(ldp_epsilon_for_pml(prior, eps))
        assert math.log(r / (0.1 * r + 0.9)) == pytest.approx(eps, abs=1e-10)
        assert ldp_epsilon_for_pml(prior, eps) >= eps - 1e-15
    assert ldp_epsilon_for_pml(prior, epsilon_max(prior)) == math.inf


def test_ldp_mechanisms_made_pml_are_eps_pml():
    rng = np.random.default_rng(15)
    for _ in range(15):
        n = int(rng.integers(2, 8))
        prior = rng.dirichlet(np.ones(n)) * 0.95 + 0.05 / n
        u = rng.normal(size=(n, n))
        for eps in np.linspace(0, epsilon_max(prior) * 1.1, 12):
            eps_ldp = ldp_epsilon_for_pml(prior, eps)
            rr = pml_randomized_response(prior, eps)
            ex = pml_exponential_mechanism(prior, u, eps)
            for c in (rr, ex):
                np.testing.assert_allclose(c.sum(axis=1), 1.0, atol=1e-12)
                assert epsilon_min(c, prior) <= eps + 1e-9  # measured, not assumed
            if math.isfinite(eps_ldp):
                assert ldp_epsilon(rr) == pytest.approx(eps_ldp, abs=1e-9)
                assert ldp_epsilon(ex) <= eps_ldp + 1e-9
                # full support: their worst case is the global minimum utility
                assert np.all(rr > 0) and np.all(ex > 0)


def test_randomized_response_and_exponential_formulas():
    c = randomized_response(3, math.log(2))
    np.testing.assert_allclose(c, [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]])
    np.testing.assert_array_equal(randomized_response(3, math.inf), np.eye(3))
    u = np.array([[0.0, -1.0], [-2.0, 0.0]])  # Du = max(2, 1) = 2
    e = exponential_mechanism(u, 4.0)
    w = np.exp(4.0 * u / 4.0)
    np.testing.assert_allclose(e, w / w.sum(axis=1, keepdims=True))


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: utility_safe_epsilon([0.5, 0.5, 0.0], circulant_order_matrix(3), 2), "prior must have full support"),
        (lambda: utility_safe_epsilon([0.5, 0.4, 0.2], circulant_order_matrix(3), 2), "prior must sum to 1"),
        (lambda: optimal_epsilon([0.5, 0.3, 0.2], [[1, 2, 3], [1, 2, 2], [3, 2, 1]], 2), r"order row 1 must be a permutation of 1\.\.3"),
        (lambda: optimal_epsilon([0.5, 0.3, 0.2], circulant_order_matrix(3), 0), r"k must be an integer >= 1"),
        (lambda: optimal_epsilon([0.5, 0.3, 0.2], circulant_order_matrix(3), 4), r"k must be an integer in 1\.\.3"),
        (lambda: utility_safe_mechanism(circulant_order_matrix(3), 4), r"k must be an integer in 1\.\.3"),
        (lambda: feasible_mechanism([0.5, 0.3, 0.2], circulant_order_matrix(3), 2, -0.1), r"eps must be in \[0, inf\)"),
        (lambda: largest_worst_case_order([0.5, 0.3, 0.2], circulant_order_matrix(3), -1), r"eps must be in \[0, inf\)"),
        (lambda: ldp_epsilon_for_pml([0.5, 0.5], -1e-3), r"eps must be in \[0, inf\)"),
        (lambda: optimal_epsilon([0.5, 0.5], circulant_order_matrix(3), 2), "order is 3 x 3 but prior has 2 entries"),
        (lambda: largest_worst_case_order([0.5, 0.5], circulant_order_matrix(2), 1, method="lp"), "method must be"),
    ],
)
def test_bad_input_raises_clear_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_lp_failure_is_reported_clearly(monkeypatch):
    def broken(*args, **kwargs):
        return SimpleNamespace(status=4, x=None, message="numerical difficulties")

    monkeypatch.setattr(wc, "linprog", broken)
    prior = np.array([0.05, 0.05, 0.05, 0.85])
    with pytest.raises(RuntimeError, match=r"LP feasibility .* failed at eps = .*status 4: numerical difficulties"):
        optimal_epsilon(prior, circulant_order_matrix(4), 2)
