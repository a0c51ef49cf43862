"""Calmon & Fawaz [statistical-inference]: leakage programs, counting query, information privacy, Theorem 4."""

import itertools
import math

import numpy as np
import pytest
from scipy.special import comb

from leakage.experiments.statistical_inference import programs as inf
from leakage.measures.information import binary_entropy, entropy, mutual_information, rate_distortion_point

HAMMING2 = 1 - np.eye(2)


# ----------------------------------------------------------------------------- Theorem 1 / Cor. 1


@pytest.mark.parametrize("p,delta", [(0.3, 0.05), (0.3, 0.2), (0.5, 0.1), (0.11, 0.1)])
def test_theorem1_rate_distortion_bernoulli_hamming(p, delta):
    # Theorem 1 with Y = S (Corollary 1): R(D) = h(p) - h(D) for D <= min(p, 1-p) (Cover & Thomas 10.3.1)
    sol = inf.min_average_leakage(np.diag([1 - p, p]), HAMMING2, delta)
    assert sol.leakage == pytest.approx(binary_entropy(p) - binary_entropy(delta), abs=1e-6)
    assert sol.distortion <= delta + 1e-7
    assert inf.rate_distortion_convex([1 - p, p], HAMMING2, p).leakage == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("slope", [0.5, 1.5, 4.0])
def test_corollary1_matches_blahut_arimoto_on_counting_query(slope):
    # Corollary 1: for Y = f(S) the minimum average leakage is the rate-distortion function of Y;
    # Blahut-Arimoto (an independent algorithm) gives a point (D, R(D)) of that curve.
    n, p = 6, 0.3
    prior = inf.counting_query_prior(n, p)
    d = inf.squared_error(n)
    rate, dist, _ = rate_distortion_point(prior, d, slope)
    assert inf.rate_distortion_convex(prior, d, dist).leakage == pytest.approx(rate, abs=2e-6)


def test_theorem1_full_database_equals_corollary1():
    # I(S; U) over the 2^n database states (Theorem 1) = I(Y; U) (Corollary 1, (24)-(26)).
    n, p = 4, 0.3
    joint, prior, d = inf.counting_query_joint(n, p), inf.counting_query_prior(n, p), inf.squared_error(n)
    for delta in (0.1, 0.6):
        full = inf.min_average_leakage(joint, d, delta)
        assert full.leakage == pytest.approx(inf.rate_distortion_convex(prior, d, delta).leakage, abs=1e-6)
        # and the solution's I(S; U) computed independently over the joint (s, u)
        su = joint @ full.channel
        assert mutual_information(su / su.sum(1, keepdims=True), su.sum(1)) == pytest.approx(full.leakage, abs=1e-12)


def test_remark3_access_to_s_never_worse_and_equal_when_y_is_function_of_s():
    n, p = 3, 0.4
    joint, d = inf.counting_query_joint(n, p), inf.squared_error(n)
    a = inf.min_average_leakage(joint, d, 0.3).leakage
    b = inf.min_average_leakage_joint_access(joint, d, 0.3).leakage
    assert b == pytest.approx(a, abs=1e-6)
    # a noisy Y: S binary, Y = S through a binary symmetric channel; Hamming distortion on Y
    joint = np.array([[0.6 * 0.9, 0.6 * 0.1], [0.4 * 0.2, 0.4 * 0.8]])
    for delta in (0.05, 0.2):
        assert inf.min_average_leakage_joint_access(joint, HAMMING2, delta).leakage <= (
            inf.min_average_leakage(joint, HAMMING2, delta).leakage + 1e-7
        )


# ----------------------------------------------------------------------------- Theorem 2 / Cor. 2


def test_maximum_leakage_is_at_least_average_leakage():
    rng = np.random.default_rng(4)
    joint = rng.dirichlet(np.ones(12)).reshape(3, 4)
    for _ in range(5):
        m = rng.dirichlet(np.ones(3), size=4)
        assert inf.maximum_information_leakage(m, joint) >= inf.average_information_leakage(m, joint) - 1e-12


def test_maximum_leakage_direct_definition():
    # max_u H(S) - H(S|U=u) from posteriors computed by hand (Bayes) on a 2x2 example
    joint = np.diag([0.25, 0.75])
    m = np.array([[0.8, 0.2], [0.1, 0.9]])
    p_u = np.array([0.25 * 0.8 + 0.75 * 0.1, 0.25 * 0.2 + 0.75 * 0.9])
    post = [np.array([0.25 * 0.8, 0.75 * 0.1]) / p_u[0], np.array([0.25 * 0.2, 0.75 * 0.9]) / p_u[1]]
    expected = max(entropy([0.25, 0.75]) - entropy(q) for q in post)
    assert inf.maximum_information_leakage(m, joint) == pytest.approx(expected, abs=1e-12)


def test_corollary2_formula_equals_direct_maximum_leakage():
    # (40): H(S|U=u) = log sum_y e^{H(S|Y=y)} - D(p_{Y|U=u} || zeta), checked over 2^n states
    n, p = 5, 0.3
    rng = np.random.default_rng(0)
    joint, prior = inf.counting_query_joint(n, p), inf.counting_query_prior(n, p)
    h = inf.counting_query_conditional_entropy(n)
    for _ in range(3):
        m = rng.dirichlet(np.ones(n + 1), size=n + 1)
        assert inf.maximum_leakage_deterministic(m, prior, h) == pytest.approx(
            inf.maximum_information_leakage(m, joint), abs=1e-10
        )


def test_theorem2_full_database_equals_corollary2_line_search():
    n, p = 4, 0.3
    joint, prior, d = inf.counting_query_joint(n, p), inf.counting_query_prior(n, p), inf.squared_error(n)
    h = inf.counting_query_conditional_entropy(n)
    for delta in (0.2, 0.5):
        full = inf.min_max_leakage(joint, d, delta, tol=1e-5)
        cor = inf.min_max_leakage_deterministic(prior, h, d, delta, tol=1e-5)
        assert full.leakage == pytest.approx(cor.leakage, abs=3e-5)
        # the returned mapping meets the budget and its measured leakage is the reported level
        assert full.distortion <= delta * (1 + 1e-6) + 1e-7
        assert inf.maximum_information_leakage(full.channel, joint) == pytest.approx(full.leakage, abs=1e-4)
        # minmax >= min average at the same budget
        assert full.leakage >= inf.rate_distortion_convex(prior, d, delta).leakage - 1e-6


def test_theorem2_minimum_distortion_is_non_increasing_in_leakage():
    joint = np.diag([0.2, 0.3, 0.5])
    d = 1 - np.eye(3)
    h_s = entropy([0.2, 0.3, 0.5])
    dists = [inf.min_distortion_at_max_leakage(joint, d, e).distortion for e in np.linspace(0, h_s, 6)]
    assert np.all(np.diff(dists) <= 1e-7)
    assert dists[-1] == pytest.approx(0.0, abs=1e-7)  # eps = H(S): U = Y is allowed
    assert dists[0] == pytest.approx(0.5, abs=1e-6)  # eps = 0: U independent, best constant guess


def test_minmax_extremes_on_counting_query():
    n, p = 6, 0.3
    prior, h, d = inf.counting_query_prior(n, p), inf.counting_query_conditional_entropy(n), inf.squared_error(n)
    # zero distortion forces U = Y; the outputs u = 0, n reveal S entirely: leakage H(S) = n h(p)
    assert inf.min_max_leakage_deterministic(prior, h, d, 0.0).leakage == pytest.approx(n * binary_entropy(p), abs=1e-4)
    # np = 1.8: the constant u = 2 costs Var(Y) + 0.2^2 and leaks nothing
    big = n * p * (1 - p) + 0.04
    assert inf.min_max_leakage_deterministic(prior, h, d, big + 1e-6).leakage == pytest.approx(0.0, abs=1e-9)


def test_example2_least_leaking_posterior_is_binomial_coefficients():
    # Example 2: the posterior minimising the leakage of an output is proportional to C(n, y);
    # computed over the 2^n database states, independently of Corollary 2's zeta.
    n, p = 6, 0.3
    q, h_post = inf.least_leaking_posterior(inf.counting_query_joint(n, p))
    expected = np.array([comb(n, y) for y in range(n + 1)]) / 2**n
    assert q == pytest.approx(expected, abs=1e-4)  # entropy is flat at its maximum: q to ~sqrt(solver tol)
    assert h_post == pytest.approx(n * math.log(2), abs=1e-7)
    assert inf.zeta_distribution(inf.counting_query_conditional_entropy(n)) == pytest.approx(expected, rel=1e-12)


# ----------------------------------------------------------------------------- counting query


def test_counting_query_model():
    n, p = 5, 0.3
    joint = inf.counting_query_joint(n, p)
    prior = inf.counting_query_prior(n, p)
    assert joint.sum(axis=0) == pytest.approx(prior, abs=1e-15)
    assert entropy(joint.sum(axis=1)) == pytest.approx(n * binary_entropy(p), abs=1e-12)
    # H(S | Y=y) over the explicit joint = log C(n, y)
    for y in range(n + 1):
        col = joint[:, y] / joint[:, y].sum()
        assert entropy(col) == pytest.approx(math.log(comb(n, y)), abs=1e-12)
    assert inf.counting_query_conditional_entropy(n) == pytest.approx(
        [math.log(comb(n, y)) for y in range(n + 1)], abs=1e-12
    )
    assert prior @ np.arange(n + 1) == pytest.approx(n * p)


# ----------------------------------------------------------------------------- Theorem 3


def test_information_privacy_definition_by_bayes():
    prior = np.array([0.5, 0.3, 0.2])
    ch = np.array([[0.6, 0.4], [0.3, 0.7], [0.5, 0.5]])
    p_u = prior @ ch
    ratios = [(prior[s] * ch[s, u] / p_u[u]) / prior[s] for s, u in itertools.product(range(3), range(2))]
    assert inf.information_privacy_epsilon(ch, prior) == pytest.approx(max(abs(math.log(r)) for r in ratios))
    assert inf.information_privacy_epsilon([[1.0, 0.0], [0.5, 0.5]], [0.5, 0.5]) == float("inf")


def test_theorem3_on_random_channels():
    rng = np.random.default_rng(3)
    for _ in range(200):
        k, m = rng.integers(2, 7, size=2)
        ch = rng.dirichlet(np.full(m, rng.choice([0.5, 2.0, 10.0])), size=k)
        prior = rng.dirichlet(np.ones(k))
        r = inf.information_privacy_implications(ch, prior)
        eps = r["eps_ip"]
        # 2 eps-DP: P(u|s1) / P(u|s2) <= e^{2 eps} for every pair, computed directly here
        worst_ratio = max(np.max(ch[i] / ch[j]) for i in range(k) for j in range(k))
        assert math.log(worst_ratio) <= 2 * eps + 1e-12
        assert r["eps_dp"] == pytest.approx(math.log(worst_ratio), abs=1e-12)
        assert mutual_information(ch, prior) <= eps + 1e-12
        assert r["max_divergence_posterior"] <= eps + 1e-12


# ----------------------------------------------------------------------------- Theorem 4


def test_truncated_geometric_is_eps_dp_and_stochastic():
    n, eps = 12, 0.7
    ch = inf.truncated_geometric_channel(n, eps)
    assert ch.sum(axis=1) == pytest.approx(np.ones(n + 1), abs=1e-14)
    # clamping Y + N: simulate the distribution of the two-sided geometric noise exactly
    a = math.exp(-eps)
    z = np.arange(-200, 201)
    noise = (1 - a) / (1 + a) * a ** np.abs(z)
    for y in (0, 5, 12):
        expected = np.bincount(np.clip(y + z, 0, n), weights=noise, minlength=n + 1)
        assert ch[y] == pytest.approx(expected, abs=1e-12)
    neighbour = np.abs(np.diff(np.log(ch), axis=0)).max()
    assert neighbour == pytest.approx(eps, abs=1e-12)
    assert inf.truncated_geometric_channel(n, float("inf")) == pytest.approx(np.eye(n + 1))


def test_geometric_epsilon_for_distortion_hits_the_budget():
    n = 10
    prior, d = inf.counting_query_prior(n, 0.3), inf.squared_error(n)
    for delta in (0.1, 1.0, 2.1):
        eps = inf.geometric_epsilon_for_distortion(prior, d, delta)
        assert inf.expected_distortion(inf.truncated_geometric_channel(n, eps), prior, d) == pytest.approx(delta, rel=1e-9)


@pytest.mark.parametrize("n,k,eps", [(10, 10, 1.0), (100, 10, 1.0), (1000, 10, 1.0), (120, 4, 0.5), (60, 20, 0.2)])
def test_theorem4_bound_below_exact(n, k, eps):
    lower = inf.theorem4_lower_bound(n, k, eps)
    assert lower == pytest.approx((1 - math.exp(-k * eps / 2)) * math.log(1 + n / k) - math.log(2))
    exact = inf.theorem4_exact_leakage(n, k, eps)
    # exact I(Y;U) recomputed with the full channel and the comb prior
    prior = inf.comb_prior(n, k)
    assert exact == pytest.approx(mutual_information(inf.truncated_geometric_channel(n, eps), prior), abs=1e-10)
    assert lower <= exact <= math.log(1 + n / k) + 1e-12


def test_theorem4_leakage_grows_without_bound():
    exact = [inf.theorem4_exact_leakage(n, 10, 1.0) for n in (10, 100, 1000)]
    assert np.all(np.diff(exact) > 1.5)  # about log 10 per decade


# ----------------------------------------------------------------------------- bad input


def test_joint_must_sum_to_one():
    with pytest.raises(ValueError, match="joint must sum to 1"):
        inf.min_average_leakage([[0.3, 0.3], [0.3, 0.3]], HAMMING2, 0.1)
    with pytest.raises(ValueError, match="joint"):
        inf.min_max_leakage([[0.6, -0.1], [0.3, 0.2]], HAMMING2, 0.1)


def test_distortion_must_be_non_negative():
    with pytest.raises(ValueError, match="distortion_measure must be non-negative"):
        inf.min_average_leakage(np.diag([0.5, 0.5]), [[0.0, -1.0], [1.0, 0.0]], 0.1)
    with pytest.raises(ValueError, match="distortion_measure must be a 2 x"):
        inf.min_average_leakage(np.diag([0.5, 0.5]), np.zeros((3, 2)), 0.1)


def test_infeasible_distortion_budget():
    d = np.array([[1.0, 2.0], [2.0, 1.0]])  # every output costs at least 1
    for fn in (inf.min_average_leakage, inf.min_max_leakage):
        with pytest.raises(ValueError, match="distortion must be >= 1.*infeasible"):
            fn(np.diag([0.5, 0.5]), d, 0.5)
    with pytest.raises(ValueError, match="distortion must be in"):
        inf.min_average_leakage(np.diag([0.5, 0.5]), HAMMING2, -0.1)


def test_other_bad_parameters():
    with pytest.raises(ValueError, match="n must be a multiple of k"):
        inf.comb_prior(15, 10)
    with pytest.raises(ValueError, match="eps must be in"):
        inf.theorem4_lower_bound(10, 10, 0.0)
    with pytest.raises(ValueError, match="p must be in"):
        inf.counting_query_prior(5, 1.5)
    with pytest.raises(ValueError, match="n must be <= 16"):
        inf.counting_query_joint(20, 0.3)


def test_solver_failure_is_reported(monkeypatch):
    monkeypatch.setattr(inf, "_available_solvers", lambda: ())
    with pytest.raises(RuntimeError, match="minimum average leakage \\(Theorem 1\\).*solver failed"):
        inf.min_average_leakage(np.diag([0.5, 0.5]), HAMMING2, 0.1)
