"""Calmon & Fawaz [statistical-inference]: average and maximum information leakage of a channel."""

import numpy as np
import pytest

from leakage.experiments.statistical_inference.measures import (
    average_information_leakage,
    maximum_information_leakage,
)
from leakage.measures.information import entropy


# ----------------------------------------------------------------------------- Definitions 3, 4


def test_maximum_leakage_is_at_least_average_leakage():
    rng = np.random.default_rng(4)
    joint = rng.dirichlet(np.ones(12)).reshape(3, 4)
    for _ in range(5):
        m = rng.dirichlet(np.ones(3), size=4)
        assert maximum_information_leakage(m, joint) >= average_information_leakage(m, joint) - 1e-12


def test_maximum_leakage_direct_definition():
    # max_u H(S) - H(S|U=u) from posteriors computed by hand (Bayes) on a 2x2 example
    joint = np.diag([0.25, 0.75])
    m = np.array([[0.8, 0.2], [0.1, 0.9]])
    p_u = np.array([0.25 * 0.8 + 0.75 * 0.1, 0.25 * 0.2 + 0.75 * 0.9])
    post = [np.array([0.25 * 0.8, 0.75 * 0.1]) / p_u[0], np.array([0.25 * 0.2, 0.75 * 0.9]) / p_u[1]]
    expected = max(entropy([0.25, 0.75]) - entropy(q) for q in post)
    assert maximum_information_leakage(m, joint) == pytest.approx(expected, abs=1e-12)
