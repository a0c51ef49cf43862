"""Calmon & Fawaz [statistical-inference]: Theorem 4, the truncated geometric mechanism and the comb prior."""

import math

import numpy as np
import pytest

from leakage.experiments.statistical_inference.counting_query import counting_query_prior, squared_error
from leakage.experiments.statistical_inference.measures import expected_distortion
from leakage.experiments.statistical_inference.theorem4 import (
    comb_prior,
    geometric_epsilon_for_distortion,
    theorem4_exact_leakage,
    theorem4_lower_bound,
    truncated_geometric_channel,
)
from leakage.measures.information import mutual_information


# ----------------------------------------------------------------------------- Theorem 4


def test_truncated_geometric_is_eps_dp_and_stochastic():
    n, eps = 12, 0.7
    ch = truncated_geometric_channel(n, eps)
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
    assert truncated_geometric_channel(n, float("inf")) == pytest.approx(np.eye(n + 1))


def test_geometric_epsilon_for_distortion_hits_the_budget():
    n = 10
    prior, d = counting_query_prior(n, 0.3), squared_error(n)
    for delta in (0.1, 1.0, 2.1):
        eps = geometric_epsilon_for_distortion(prior, d, delta)
        assert expected_distortion(truncated_geometric_channel(n, eps), prior, d) == pytest.approx(delta, rel=1e-9)


@pytest.mark.parametrize("n,k,eps", [(10, 10, 1.0), (100, 10, 1.0), (1000, 10, 1.0), (120, 4, 0.5), (60, 20, 0.2)])
def test_theorem4_bound_below_exact(n, k, eps):
    lower = theorem4_lower_bound(n, k, eps)
    assert lower == pytest.approx((1 - math.exp(-k * eps / 2)) * math.log(1 + n / k) - math.log(2))
    exact = theorem4_exact_leakage(n, k, eps)
    # exact I(Y;U) recomputed with the full channel and the comb prior
    prior = comb_prior(n, k)
    assert exact == pytest.approx(mutual_information(truncated_geometric_channel(n, eps), prior), abs=1e-10)
    assert lower <= exact <= math.log(1 + n / k) + 1e-12


def test_theorem4_leakage_grows_without_bound():
    exact = [theorem4_exact_leakage(n, 10, 1.0) for n in (10, 100, 1000)]
    assert np.all(np.diff(exact) > 1.5)  # about log 10 per decade


# ----------------------------------------------------------------------------- bad input


def test_theorem4_bad_parameters():
    with pytest.raises(ValueError, match="n must be a multiple of k"):
        comb_prior(15, 10)
    with pytest.raises(ValueError, match="eps must be in"):
        theorem4_lower_bound(10, 10, 0.0)
