"""Calmon & Fawaz [statistical-inference]: Corollary 2 (Y = f(S)) and the least leaking posterior."""

import math

import numpy as np
import pytest
from scipy.special import comb

from leakage.experiments.statistical_inference.convex import min_max_leakage, rate_distortion_convex
from leakage.experiments.statistical_inference.corollary2 import (
    least_leaking_posterior,
    maximum_leakage_deterministic,
    min_max_leakage_deterministic,
    zeta_distribution,
)
from leakage.experiments.statistical_inference.counting_query import (
    counting_query_conditional_entropy,
    counting_query_joint,
    counting_query_prior,
    squared_error,
)
from leakage.experiments.statistical_inference.measures import maximum_information_leakage
from leakage.measures.information import binary_entropy


# ----------------------------------------------------------------------------- Theorem 2 / Cor. 2


def test_corollary2_formula_equals_direct_maximum_leakage():
    # (40): H(S|U=u) = log sum_y e^{H(S|Y=y)} - D(p_{Y|U=u} || zeta), checked over 2^n states
    n, p = 5, 0.3
    rng = np.random.default_rng(0)
    joint, prior = counting_query_joint(n, p), counting_query_prior(n, p)
    h = counting_query_conditional_entropy(n)
    for _ in range(3):
        m = rng.dirichlet(np.ones(n + 1), size=n + 1)
        assert maximum_leakage_deterministic(m, prior, h) == pytest.approx(
            maximum_information_leakage(m, joint), abs=1e-10
        )


def test_theorem2_full_database_equals_corollary2_line_search():
    n, p = 4, 0.3
    joint, prior, d = counting_query_joint(n, p), counting_query_prior(n, p), squared_error(n)
    h = counting_query_conditional_entropy(n)
    for delta in (0.2, 0.5):
        full = min_max_leakage(joint, d, delta, tol=1e-5)
        cor = min_max_leakage_deterministic(prior, h, d, delta, tol=1e-5)
        assert full.leakage == pytest.approx(cor.leakage, abs=3e-5)
        # the returned mapping meets the budget and its measured leakage is the reported level
        assert full.distortion <= delta * (1 + 1e-6) + 1e-7
        assert maximum_information_leakage(full.channel, joint) == pytest.approx(full.leakage, abs=1e-4)
        # minmax >= min average at the same budget
        assert full.leakage >= rate_distortion_convex(prior, d, delta).leakage - 1e-6


def test_minmax_extremes_on_counting_query():
    n, p = 6, 0.3
    prior, h, d = counting_query_prior(n, p), counting_query_conditional_entropy(n), squared_error(n)
    # zero distortion forces U = Y; the outputs u = 0, n reveal S entirely: leakage H(S) = n h(p)
    assert min_max_leakage_deterministic(prior, h, d, 0.0).leakage == pytest.approx(n * binary_entropy(p), abs=1e-4)
    # np = 1.8: the constant u = 2 costs Var(Y) + 0.2^2 and leaks nothing
    big = n * p * (1 - p) + 0.04
    assert min_max_leakage_deterministic(prior, h, d, big + 1e-6).leakage == pytest.approx(0.0, abs=1e-9)


def test_example2_least_leaking_posterior_is_binomial_coefficients():
    # Example 2: the posterior minimising the leakage of an output is proportional to C(n, y);
    # computed over the 2^n database states, independently of Corollary 2's zeta.
    n, p = 6, 0.3
    q, h_post = least_leaking_posterior(counting_query_joint(n, p))
    expected = np.array([comb(n, y) for y in range(n + 1)]) / 2**n
    assert q == pytest.approx(expected, abs=1e-4)  # entropy is flat at its maximum: q to ~sqrt(solver tol)
    assert h_post == pytest.approx(n * math.log(2), abs=1e-7)
    assert zeta_distribution(counting_query_conditional_entropy(n)) == pytest.approx(expected, rel=1e-12)
