"""Property-based tests (Hypothesis) of estimation and the additive-noise mechanisms: bounds are
ordered and invert each other, scales and leakages are finite and non-negative at the extremes
(delta down to 1e-300, eps up to inf), invalid input is refused inside ``leakage`` naming the
parameter. Profile and example database: tests/conftest.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import leakage
from strategies import distributions
from test_properties_measures import assert_clear_error

DELTA = st.floats(1e-300, 1.0)
M = st.integers(1, 10**9)
N = st.integers(2, 60)


@given(DELTA, M, N)
def test_beta_star_and_delta_for_beta_are_inverse_and_ordered(delta, m, n):
    beta = leakage.beta_star(delta, m, n)
    assert math.isfinite(beta) and beta > 0
    back = leakage.delta_for_beta(beta, m, n)
    assert 0.0 < back <= 1.0
    if delta < 1.0:
        assert back == pytest.approx(delta, rel=1e-6)
    assert leakage.beta_star(delta, m + 1, n) <= beta  # more samples, smaller ball


@given(distributions(min_n=2, max_n=12, full_support=False))
def test_kappa_is_a_subset_mass_at_most_one_half(prior):
    kappa = leakage.weissman_kappa(prior)
    assert 0.0 <= kappa <= 0.5 + 1e-12
    assert leakage.weissman_phi(kappa) >= 2.0 - 1e-12


@given(st.one_of(st.floats(0.0, 700.0), st.just(math.inf)), st.floats(0.0, 0.5))
def test_laplace_scale_inverts_the_leakage(eps, p_min):
    b = leakage.laplace_scale(eps, p_min)
    assert not math.isnan(b) and b >= 0
    if 0 < b < math.inf and b > 1e-3:
        assert leakage.laplace_epsilon(b, p_min) == pytest.approx(eps, rel=1e-6, abs=1e-9)


@given(st.floats(1e-3, 50.0), st.floats(1e-3, 0.5), DELTA, M)
def test_estimated_laplace_leakage_is_at_least_the_known_prior_one(b, p_hat_min, delta, m):
    est = leakage.laplace_epsilon_estimated(b, p_hat_min, delta, m)
    known = leakage.laplace_epsilon(b, p_hat_min)
    assert math.isfinite(est) and known - 1e-12 <= est <= 2.0 / b + 1e-12


@given(st.sampled_from([math.nan, -1.0, 0.0, 1.5, "x"]))
def test_bad_delta_is_refused(bad):
    assert_clear_error(leakage.beta_star, bad, 100, names=["delta"])


@given(st.sampled_from([0, -5, 2.5, math.nan, math.inf, "7"]))
def test_bad_sample_size_is_refused(bad):
    assert_clear_error(leakage.beta_star, 0.1, bad, names=["m"])


@given(st.integers(41, 200))
def test_exponential_kappa_refuses_large_alphabets_before_allocating(n):
    assert_clear_error(leakage.weissman_kappa, np.full(n, 1.0 / n), names=["prior"])


@given(st.floats(1e-6, 1.0))
def test_pldp_sigma_at_the_extremes_is_finite(delta):
    assert leakage.pldp_gaussian_sigma(math.inf, delta) == 0.0  # was inf/inf = NaN
    assert_clear_error(leakage.pldp_gaussian_delta, 1.0, math.inf, names=["sigma"])
    assert_clear_error(leakage.pldp_gaussian_sigma, 1.0, delta, sensitivity=math.inf, names=["sensitivity"])


@given(st.sampled_from([None, 3, "seed", np.random.RandomState(0)]))
def test_laplace_mechanism_needs_a_generator_and_finite_input(rng):
    assert_clear_error(leakage.laplace_mechanism, [1.0, -1.0], 1.0, rng, names=["rng"])
    assert_clear_error(leakage.laplace_mechanism, [math.nan], 1.0, np.random.default_rng(0), names=["x"])
    assert_clear_error(leakage.gaussian_leakage, [math.nan], 1.0, 0.3, names=["y"])
    assert_clear_error(leakage.binary_entropy, [math.nan], names=["q"])
