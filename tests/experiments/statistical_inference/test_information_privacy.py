"""Calmon & Fawaz [statistical-inference]: information privacy and Theorem 3."""

import itertools
import math

import numpy as np
import pytest

from leakage.experiments.statistical_inference.information_privacy import (
    information_privacy_epsilon,
    information_privacy_implications,
)
from leakage.measures.information import mutual_information


# ----------------------------------------------------------------------------- Theorem 3


def test_information_privacy_definition_by_bayes():
    prior = np.array([0.5, 0.3, 0.2])
    ch = np.array([[0.6, 0.4], [0.3, 0.7], [0.5, 0.5]])
    p_u = prior @ ch
    ratios = [(prior[s] * ch[s, u] / p_u[u]) / prior[s] for s, u in itertools.product(range(3), range(2))]
    assert information_privacy_epsilon(ch, prior) == pytest.approx(max(abs(math.log(r)) for r in ratios))
    assert information_privacy_epsilon([[1.0, 0.0], [0.5, 0.5]], [0.5, 0.5]) == float("inf")


def test_theorem3_on_random_channels():
    rng = np.random.default_rng(3)
    for _ in range(200):
        k, m = rng.integers(2, 7, size=2)
        ch = rng.dirichlet(np.full(m, rng.choice([0.5, 2.0, 10.0])), size=k)
        prior = rng.dirichlet(np.ones(k))
        r = information_privacy_implications(ch, prior)
        eps = r["eps_ip"]
        # 2 eps-DP: P(u|s1) / P(u|s2) <= e^{2 eps} for every pair, computed directly here
        worst_ratio = max(np.max(ch[i] / ch[j]) for i in range(k) for j in range(k))
        assert math.log(worst_ratio) <= 2 * eps + 1e-12
        assert r["eps_dp"] == pytest.approx(math.log(worst_ratio), abs=1e-12)
        assert mutual_information(ch, prior) <= eps + 1e-12
        assert r["max_divergence_posterior"] <= eps + 1e-12
