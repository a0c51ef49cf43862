"""Calmon & Fawaz [statistical-inference]: the shared checks of the programs (a joint distribution, a
distortion measure, a feasible budget), through the programs that use them."""

import numpy as np
import pytest

from leakage.experiments.statistical_inference.convex import min_average_leakage, min_max_leakage


HAMMING2 = 1 - np.eye(2)


# ----------------------------------------------------------------------------- bad input


def test_joint_must_sum_to_one():
    with pytest.raises(ValueError, match="joint must sum to 1"):
        min_average_leakage([[0.3, 0.3], [0.3, 0.3]], HAMMING2, 0.1)
    with pytest.raises(ValueError, match="joint"):
        min_max_leakage([[0.6, -0.1], [0.3, 0.2]], HAMMING2, 0.1)


def test_distortion_must_be_non_negative():
    with pytest.raises(ValueError, match="distortion_measure must be non-negative"):
        min_average_leakage(np.diag([0.5, 0.5]), [[0.0, -1.0], [1.0, 0.0]], 0.1)
    with pytest.raises(ValueError, match="distortion_measure must be a 2 x"):
        min_average_leakage(np.diag([0.5, 0.5]), np.zeros((3, 2)), 0.1)


def test_infeasible_distortion_budget():
    d = np.array([[1.0, 2.0], [2.0, 1.0]])  # every output costs at least 1
    for fn in (min_average_leakage, min_max_leakage):
        with pytest.raises(ValueError, match="distortion must be >= 1.*infeasible"):
            fn(np.diag([0.5, 0.5]), d, 0.5)
    with pytest.raises(ValueError, match="distortion must be in"):
        min_average_leakage(np.diag([0.5, 0.5]), HAMMING2, -0.1)
