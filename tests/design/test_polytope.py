"""leakage.design: Theorem 5, Proposition 2 (both forms), LP design and the route of eq. (44)."""

import time

import numpy as np
import pytest
from scipy.optimize import OptimizeResult

import leakage.design.polytope as design_module
from leakage.design import (
    design_epsilon,
    design_mechanism,
    design_mechanism_for_estimate,
    design_polytope,
    in_design_polytope,
    k_singular_mechanism,
    optimal_binary_mechanism,
)
from leakage.measures.information import mutual_information
from leakage.measures.pml import epsilon_min
from leakage.estimation.uncertainty import (
    is_private_on_ball,
    leakage_capacity_bound,
    local_leakage_capacity_on_ball,
)


def distortion_utility(n):
    """u(x, y) = -|x - y|: minus the expected absolute distortion."""
    idx = np.arange(n)
    return -np.abs(np.subtract.outer(idx, idx)).astype(float)


def test_remark_3_randomized_response():
    # p1 = 1/2, beta = 1: (41) becomes Warner's randomized response (42)
    for eps in (0.0, 0.3, 1.0, 3.0):
        e = np.exp(eps)
        rr = np.array([[e, 1.0], [1.0, e]]) / (1 + e)
        assert optimal_binary_mechanism([0.5, 0.5], eps, 1.0) == pytest.approx(rr, abs=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_theorem_5_is_extremal_on_the_ball_and_the_lp_optimum(seed):
    rng = np.random.default_rng(seed)
    p1 = rng.uniform(0.5, 0.9)
    p = np.array([p1, 1 - p1])
    beta = rng.uniform(0, 2 * p[1])
    eps = rng.uniform(0, -np.log(p1 - beta / 2))
    mech = optimal_binary_mechanism(p, eps, beta)
    assert mech.sum(axis=1) == pytest.approx([1, 1])
    # eps-PML on the whole ball, attained (extremal): capacity exactly eps
    assert local_leakage_capacity_on_ball(mech, p, beta, method="lp") == pytest.approx(eps, abs=1e-9)
    # the LP maximising P(y1|x1) - P(y1|x2) over Proposition 2's polytope finds the same vertex
    u = np.array([[1 / p[0], 0.0], [0.0, 1 / p[1]]]) - np.array([[0, 1 / p[0]], [1 / p[1], 0]])
    for form in ("compact", "literal"):
        d = design_mechanism(p, eps, beta, u / 2, form=form)
        assert d.mechanism == pytest.approx(mech, abs=1e-8)
    # relabelling x1 <-> x2 relabels the mechanism
    assert optimal_binary_mechanism(p[::-1], eps, beta) == pytest.approx(mech[::-1, ::-1])


def test_theorem_5_maximises_mutual_information_over_a_grid():
    # sub-convex utility (MI): no mechanism of M(eps, B_beta) on a dense grid beats (41)
    p, eps, beta = np.array([0.65, 0.35]), 0.6, 0.3  # eps <= -log(0.5)
    best = mutual_information(optimal_binary_mechanism(p, eps, beta), p)
    grid = np.linspace(0, 1, 121)
    for a in grid:
        for b in grid:
            c = np.array([[a, 1 - a], [b, 1 - b]])
            if local_leakage_capacity_on_ball(c, p, beta) <= eps + 1e-12:
                assert mutual_information(c, p) <= best + 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_compact_and_literal_polytopes_give_the_same_optimum(seed):
    rng = np.random.default_rng(10 + seed)
    n = int(rng.integers(2, 7))
    p = rng.dirichlet(np.ones(n) * 3)
    beta = rng.uniform(0, 2 * p.min())
    eps = rng.uniform(0.05, 3)
    u = rng.standard_normal((n, int(rng.integers(2, n + 2))))
    compact = design_mechanism(p, eps, beta, u, form="compact")
    literal = design_mechanism(p, eps, beta, u, form="literal")
    assert compact.expected_utility == pytest.approx(literal.expected_utility, abs=1e-8)
    for d in (compact, literal):
        # independent check of membership: exact capacity on the ball (closed form)
        assert is_private_on_ball(d.mechanism, p, beta, eps, tol=1e-7)
        assert d.mutual_information == pytest.approx(mutual_information(d.mechanism, p))


def test_polytope_membership_equals_exact_capacity_on_ball():
    rng = np.random.default_rng(21)
    for _ in range(60):
        n = int(rng.integers(2, 6))
        p = rng.dirichlet(np.ones(n) * 3)
        beta = rng.uniform(0, 2 * p.min())
        c = rng.dirichlet(np.ones(n) * 4, size=n)
        cap = local_leakage_capacity_on_ball(c, p, beta)
        for eps, inside in ((cap + 1e-6, True), (max(cap - 1e-3, 0.0), False)):
            if not inside and cap < 1e-3:
                continue
            assert in_design_polytope(c, p, eps, beta, form="compact") is inside
            assert in_design_polytope(c, p, eps, beta, form="literal") is inside


def test_route_44_is_inside_the_ball_polytope_and_no_better():
    rng = np.random.default_rng(3)
    for _ in range(5):
        n = int(rng.integers(2, 6))
        p = rng.dirichlet(np.ones(n) * 3)
        beta = rng.uniform(0, 2 * p.min())
        eps = rng.uniform(0.5, 3)
        u = rng.standard_normal((n, n))
        est = design_mechanism_for_estimate(p, eps, beta, u)
        # M(eps', P̂) ⊆ M(eps, B_beta(P̂)) (44)
        assert epsilon_min(est.mechanism, p) <= design_epsilon(eps, beta) + 1e-8
        assert is_private_on_ball(est.mechanism, p, beta, eps, tol=1e-7)
        assert est.expected_utility <= design_mechanism(p, eps, beta, u).expected_utility + 1e-9


def test_design_epsilon_inverts_corollary_2():
    for eps in (0.1, 1.0, 2.5):
        for beta in (0.01, 0.1, 0.3):
            e2 = design_epsilon(eps, beta)
            assert np.exp(e2) == pytest.approx(np.exp(eps) / (1 + beta / 2 * np.exp(eps)))  # (43)
            if e2 >= 0:
                assert leakage_capacity_bound(e2, beta) == pytest.approx(eps)


def test_k_singular_mechanism_example_2():
    c = k_singular_mechanism(10, 2)
    assert c.sum(axis=0) == pytest.approx(np.ones(10)) and c.sum(axis=1) == pytest.approx(np.ones(10))
    assert c[3, 3] == c[3, 4] == 0.5 and c[9, 0] == 0.5
    assert epsilon_min(c, np.full(10, 0.1)) == pytest.approx(np.log(5))


def test_bad_input_and_infeasible_design(monkeypatch):
    u = np.eye(3)
    with pytest.raises(ValueError, match="p_hat must have full support"):
        design_mechanism([0.5, 0.5, 0.0], 1.0, 0.1, u)
    with pytest.raises(ValueError, match=r"eps must be in \[0"):
        design_mechanism([0.4, 0.3, 0.3], -1.0, 0.1, u)
    with pytest.raises(ValueError, match=r"beta must be in \[0, 0.6\)"):
        design_mechanism([0.4, 0.3, 0.3], 1.0, 0.6, u)
    with pytest.raises(ValueError, match="utility must be"):
        design_mechanism([0.4, 0.3, 0.3], 1.0, 0.1, np.eye(2))
    with pytest.raises(ValueError, match="form must be one of"):
        design_polytope([0.4, 0.3, 0.3], 1.0, 0.1, form="cubic")
    with pytest.raises(ValueError, match="M\\(eps', p_hat\\) is empty"):
        design_mechanism_for_estimate([0.4, 0.3, 0.3], 0.01, 0.5, u)
    with pytest.raises(ValueError, match=r"eps must be in \[0, -log\(p1 - beta/2\)"):
        optimal_binary_mechanism([0.7, 0.3], 1.0, 0.2)
    with pytest.raises(ValueError, match=r"beta must be in \[0, 0.6\]"):
        optimal_binary_mechanism([0.7, 0.3], 0.1, 0.7)
    with pytest.raises(ValueError, match="row-stochastic"):
        in_design_polytope([[0.5, 0.6], [0.5, 0.5]], [0.5, 0.5], 1.0, 0.1)

    def infeasible(*args, **kwargs):
        return OptimizeResult(status=2, message="The problem is infeasible.", x=None)

    monkeypatch.setattr(design_module, "linprog", infeasible)
    with pytest.raises(ValueError, match=r"eps=1.*beta=0.1.*infeasible"):
        design_mechanism([0.4, 0.3, 0.3], 1.0, 0.1, u)


def test_bench_design_n100(benchmark):
    """Optimal mechanism under l1 uncertainty for N = 100 (minus expected |x - y| distortion)."""
    rng = np.random.default_rng(0)
    n = 100
    p = rng.dirichlet(np.ones(n) * 5)
    beta = 1.5 * p.min()
    start = time.perf_counter()
    d = benchmark(design_mechanism, p, 1.0, beta, distortion_utility(n))
    elapsed = time.perf_counter() - start
    assert d.mechanism.shape == (n, n)
    assert is_private_on_ball(d.mechanism, p, beta, 1.0, tol=1e-7)
    if benchmark.enabled:
        assert benchmark.stats.stats.mean < 2.0
    else:
        assert elapsed < 6.0  # one run inside the normal suite; the 2 s target is measured above
