"""Additive-noise mechanisms [empirical-pml, Section VI] against independent computations."""

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.optimize import brentq
from scipy.special import erfcinv

from leakage.measures.information import (
    empirical_mutual_information,
    empirical_mutual_information_counts,
    entropy,
    mutual_information,
)
from leakage.mechanisms.additive import (
    ball_interval,
    ball_min_probability,
    gaussian_delta1,
    gaussian_delta_star,
    gaussian_epsilon_star,
    gaussian_leakage,
    gaussian_violation_probability,
    gaussian_violation_set,
    laplace_epsilon,
    laplace_epsilon_estimated,
    laplace_flip_probability,
    laplace_ldp_scale,
    laplace_mechanism,
    laplace_scale,
    laplace_scale_for,
    pldp_gaussian_delta,
    pldp_gaussian_sigma,
    threshold_release,
)


def beta45(delta, m):
    """(45) written out independently of leakage.estimation.concentration."""
    return np.sqrt(2 * (np.log(2) - np.log(delta)) / m)


# ----------------------------------------------------------------------------- Laplace


@pytest.mark.parametrize("b", [0.3, 1.0, 2.0, 7.0])
@pytest.mark.parametrize("p_min", [0.05, 0.25, 0.5])
def test_laplace_epsilon_is_sup_of_pointwise_leakage(b, p_min):
    # Proposition 3: eps(b) is the sup over y of log max_x f(y|x) / f_Y(y) (eq. (46)), any labelling
    y = np.linspace(-12, 12, 200_001)
    for p1 in (p_min, 1 - p_min):  # P_X(-1)
        f_minus = stats.laplace.pdf(y, loc=-1, scale=b)
        f_plus = stats.laplace.pdf(y, loc=1, scale=b)
        leak = np.log(np.maximum(f_minus, f_plus) / (p1 * f_minus + (1 - p1) * f_plus))
        assert laplace_epsilon(b, p_min) == pytest.approx(leak.max(), rel=1e-9, abs=1e-12)


def test_laplace_epsilon_estimated_is_eq_50():
    for b in (0.5, 2.0, 4.0):
        for p_hat_min, delta, m in ((0.24, 1e-9, 48842), (0.33, 1e-3, 5000), (0.45, 1e-6, 1000)):
            q = p_hat_min - beta45(delta, m) / 2
            assert q > 0
            expected = 2 / b - np.log(q * (np.exp(2 / b) - 1) + 1)
            assert laplace_epsilon_estimated(b, p_hat_min, delta, m) == pytest.approx(expected, rel=1e-12)


def test_remark_4_ldp_limit():
    # Remark 4: p̂_min = 1/2 and beta*(delta) = 1 give eps(b, delta) = 2/b (eq. (51)).
    m = 10
    delta = 2 * np.exp(-m / 2)  # beta45(delta, m) == 1
    assert beta45(delta, m) == pytest.approx(1.0)
    for b in (0.1, 0.5, 1.0, 3.0, 20.0):
        assert laplace_epsilon_estimated(b, 0.5, delta, m) == pytest.approx(2 / b, rel=1e-9)
        assert laplace_ldp_scale(2 / b) == pytest.approx(b)


@pytest.mark.parametrize("eps", [0.05, 0.5, 1.0, 1.4])
@pytest.mark.parametrize("p_min", [0.0, 0.1, 0.22])
def test_laplace_scale_inverts_eq_49(eps, p_min):
    b = laplace_scale(eps, p_min)
    assert laplace_epsilon(b, p_min) == pytest.approx(eps, rel=1e-10)
    # independent: root of (49) in b by bracketing
    root = brentq(lambda bb: 2 / bb - np.log(np.exp(2 / bb) * p_min + 1 - p_min) - eps, 1e-2, 1e4, xtol=1e-14)
    assert b == pytest.approx(root, rel=1e-8)


def test_laplace_scale_for_round_trip_fallback_and_no_noise():
    for eps in (0.5, 1.0, 1.1):  # below -log(p̂_min - beta/2) for both
        for p_hat_min, delta, m in ((0.24, 1e-9, 48842), (0.33, 1e-12, 20000)):
            b = laplace_scale_for(eps, p_hat_min, delta, m)
            assert 0 < b < 2 / eps  # less noise than LDP
            assert laplace_epsilon_estimated(b, p_hat_min, delta, m) == pytest.approx(eps, rel=1e-10)
    # p̂_min - beta/2 <= 0: the ball holds degenerate priors, fall back to LDP's 2/eps
    assert beta45(1e-9, 100) / 2 > 0.24
    assert laplace_scale_for(0.5, 0.24, 1e-9, 100) == pytest.approx(4.0)
    # eps >= -log(q): every mechanism is eps-PML, no noise needed
    q = 0.24 - beta45(1e-9, 48842) / 2
    assert laplace_scale_for(-np.log(q) + 0.01, 0.24, 1e-9, 48842) == 0.0
    assert ball_min_probability(0.3, 0.2) == pytest.approx(0.2)
    assert ball_min_probability(0.3, 0.8) == 0.0


def test_laplace_flip_probability_and_release():
    for b in (0.2, 1.0, 4.0):
        # X = -1 flips iff L >= 1; X = +1 iff L < -1
        assert laplace_flip_probability(b) == pytest.approx(stats.laplace.sf(1, scale=b), rel=1e-12)
        assert laplace_flip_probability(b) == pytest.approx(stats.laplace.cdf(-1, scale=b), rel=1e-12)
    assert laplace_flip_probability(0.0) == 0.0
    assert threshold_release([-0.1, 0.0, 2.0]).tolist() == [-1, 1, 1]
    rng = np.random.default_rng(0)
    x = np.where(rng.random(200_000) < 0.3, -1, 1)
    y = threshold_release(laplace_mechanism(x, 2.0, rng))
    rate = np.mean(y != x)
    assert abs(rate - 0.5 * np.exp(-0.5)) < 4 * np.sqrt(0.15 / 200_000)


# ----------------------------------------------------------------------------- Gaussian


@pytest.mark.parametrize("sigma", [0.7, 1.5, 2.0])
@pytest.mark.parametrize("p", [0.0, 0.1, 0.3, 0.5, 0.9])
def test_gaussian_leakage_matches_densities(sigma, p):
    y = np.linspace(-6, 6, 1001)
    f_minus = stats.norm.pdf(y, -1, sigma)
    f_plus = stats.norm.pdf(y, 1, sigma)
    direct = np.log(np.maximum(f_minus, f_plus) / (p * f_minus + (1 - p) * f_plus))
    assert np.allclose(gaussian_leakage(y, sigma, p), direct, atol=1e-12)


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.4, 0.8, 1.5])
@pytest.mark.parametrize("sigma", [1.5, 2.0])
@pytest.mark.parametrize("p", [0.0, 0.2, 0.5, 0.7])
def test_gaussian_violation_set_is_two_half_lines(eps, sigma, p):
    y_minus, y_plus = gaussian_violation_set(eps, sigma, p)
    y = np.linspace(-15, 15, 60_001)
    inside = gaussian_leakage(y, sigma, p) > eps
    predicted = (y < y_minus) | (y > y_plus)
    # disagreement only within one grid step of the ends
    near = np.minimum(np.abs(y - y_minus), np.abs(y - y_plus)) < 1e-3
    assert np.all((inside == predicted) | near)
    for end in (y_minus, y_plus):
        if np.isfinite(end):
            assert gaussian_leakage(end, sigma, p) == pytest.approx(eps, abs=1e-10)


@pytest.mark.parametrize("eps", [0.05, 0.3, 0.6, 1.0])
@pytest.mark.parametrize("sigma", [1.5, 2.0])
@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.8])
def test_gaussian_violation_probability_vs_integration(eps, sigma, p):
    def f_y(y):
        return p * stats.norm.pdf(y, -1, sigma) + (1 - p) * stats.norm.pdf(y, 1, sigma)

    # the ends of {l > eps}, found by root finding on the leakage (not the closed-form ends);
    # l is monotone on each side of 0, so each side is a half-line or empty
    def g(y):
        return gaussian_leakage(y, sigma, p) - eps

    total = 0.0
    for far in (40.0, -40.0):
        if g(far) > 0:
            start = 0.0 if far > 0 else -1e-300  # y = 0 belongs to the y >= 0 branch of (54)
            end = start if g(start) > 0 else brentq(g, start, far, xtol=1e-13)
            lo, hi = (end, np.inf) if far > 0 else (-np.inf, end)
            total += integrate.quad(f_y, lo, hi, epsabs=1e-13)[0]
    assert gaussian_violation_probability(eps, sigma, p) == pytest.approx(total, abs=1e-9)


def test_gaussian_violation_probability_vs_monte_carlo():
    rng = np.random.default_rng(3)
    n = 400_000
    for eps, sigma, p in ((0.3, 1.5, 0.3), (0.6, 2.0, 0.5), (0.9, 1.5, 0.1)):
        x = np.where(rng.random(n) < p, -1.0, 1.0)
        y = x + sigma * rng.standard_normal(n)
        freq = np.mean(gaussian_leakage(y, sigma, p) > eps)
        exact = gaussian_violation_probability(eps, sigma, p)
        assert abs(freq - exact) < 5 * np.sqrt(exact * (1 - exact) / n) + 1e-6


@pytest.mark.parametrize("sigma", [1.5, 2.0])
@pytest.mark.parametrize("p_hat,beta", [(0.5, 0.539), (0.3, 0.539), (0.5, 0.17), (0.3, 0.054), (0.1, 0.3)])
def test_gaussian_delta1_matches_dense_grid(sigma, p_hat, beta):
    low, high = ball_interval(p_hat, beta)
    grid = np.linspace(low, high, 100_001)
    for eps in np.linspace(0.02, np.log(2 / beta) - 0.02, 9):
        dense = gaussian_violation_probability(eps, sigma, grid).max()
        d1, p_worst = gaussian_delta1(eps, sigma, p_hat, beta)
        assert low <= p_worst <= high
        assert d1 == pytest.approx(gaussian_violation_probability(eps, sigma, p_worst), abs=1e-15)
        assert d1 >= dense - 1e-12
        assert d1 <= dense + 1e-7 * max(dense, 1e-3)


def test_gaussian_epsilon_and_delta_star():
    beta = beta45(1e-6, 1000)
    eps = np.linspace(0.01, np.log(2 / beta) - 0.01, 50)
    es = gaussian_epsilon_star(eps, beta)
    assert np.all(es > eps) and np.all(np.diff(es) > 0)
    assert np.allclose(np.exp(eps - es), 1 - beta * np.exp(eps) / 2)
    d1 = np.array([0.0, 1e-9, 0.3, 1.0])
    assert np.allclose(gaussian_delta_star(d1, 1e-6), 1 - (1 - d1) * (1 - 1e-6))
    with pytest.raises(ValueError, match="beta"):
        gaussian_epsilon_star(np.log(2 / beta) + 0.1, beta)


# ----------------------------------------------------------------------------- pLDP


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 1e-3, 0.1, 1.0])
def test_pldp_sigma_round_trip_and_guarantee(eps, delta):
    sigma = pldp_gaussian_sigma(eps, delta)
    f = erfcinv(delta)
    assert sigma == pytest.approx(np.sqrt(2) * (f + np.sqrt(f * f + eps)) / eps)
    assert pldp_gaussian_delta(eps, sigma) == pytest.approx(delta, rel=1e-9)
    # (69): for Y = x + N(0, sigma^2) the likelihood ratio max_{x,x'} is exp(2|y|/sigma^2);
    # its exceedance probability, computed directly, stays below delta.
    t = sigma**2 * eps / 2
    for x in (-1, 1):
        exceed = stats.norm.sf(t, loc=x, scale=sigma) + stats.norm.cdf(-t, loc=x, scale=sigma)
        assert exceed <= delta * (1 + 1e-9)


def test_pldp_delta_decreases_in_eps_and_caps_at_one():
    eps = np.linspace(0.01, 10, 500)
    d = pldp_gaussian_delta(eps, 1.5)
    assert np.all(np.diff(d) <= 0) and d.max() == 1.0 and d.min() < 1e-9


# ----------------------------------------------------------------------------- empirical MI (67)


def test_empirical_mutual_information_vs_plug_in_entropies():
    rng = np.random.default_rng(5)
    for _ in range(20):
        x = rng.choice([-1, 1], size=rng.integers(1, 300))
        y = np.where(rng.random(x.size) < 0.3, -x, x)
        joint = np.array([[np.sum((x == a) & (y == b)) for b in (-1, 1)] for a in (-1, 1)]) / x.size
        px, py = joint.sum(1), joint.sum(0)
        plug_in = entropy(px) + entropy(py) - entropy(joint.ravel())
        assert empirical_mutual_information(x, y) == pytest.approx(max(plug_in, 0), abs=1e-12)
        if np.all(px > 0):
            channel = joint / px[:, None]
            assert empirical_mutual_information(x, y) == pytest.approx(mutual_information(channel, px), abs=1e-12)
    # vectorised counts; independence -> 0, identity -> H(X)
    t = np.array([[[10, 0], [0, 30]], [[5, 15], [10, 30]]])
    assert np.allclose(empirical_mutual_information_counts(t), [entropy([0.25, 0.75]), 0.0])


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: laplace_epsilon(0.0, 0.2), r"b must be in \(0"),
        (lambda: laplace_epsilon(-1.0, 0.2), r"b must be in \(0"),
        (lambda: laplace_scale(-0.1, 0.2), r"eps must be in \[0"),
        (lambda: laplace_scale_for(0.5, 0.2, 0.0, 100), r"delta must be in \(0, 1\]"),
        (lambda: laplace_scale_for(0.5, 0.2, 1.5, 100), r"delta must be in \(0, 1\]"),
        (lambda: laplace_scale_for(0.5, 0.2, 1e-3, 0), r"m must be an integer >= 1"),
        (lambda: laplace_scale_for(-1.0, 0.2, 1e-3, 10), r"eps must be in \[0"),
        (lambda: laplace_epsilon_estimated(1.0, 0.0, 1e-3, 10), r"p_hat_min must be in \(0"),
        (lambda: gaussian_leakage(0.0, 0.0, 0.5), r"sigma must be in \(0"),
        (lambda: gaussian_violation_probability(0.5, -1.0, 0.5), r"sigma must be in \(0"),
        (lambda: gaussian_delta1(0.5, 1.5, 1.0, 0.1), r"p_hat must be in \(0, 1\)"),
        (lambda: gaussian_delta1(0.5, 1.5, 0.0, 0.1), r"p_hat must be in \(0, 1\)"),
        (lambda: gaussian_delta1(-0.5, 1.5, 0.5, 0.1), r"eps must be in \[0"),
        (lambda: pldp_gaussian_sigma(0.5, 0.0), r"delta must be in \(0, 1\]"),
        (lambda: pldp_gaussian_sigma(0.5, 2.0), r"delta must be in \(0, 1\]"),
        (lambda: pldp_gaussian_delta(0.5, 0.0), r"sigma must be in \(0"),
    ],
)
def test_bad_input_names_parameter_and_range(call, match):
    with pytest.raises(ValueError, match=match):
        call()
