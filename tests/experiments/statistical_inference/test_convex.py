"""Calmon & Fawaz [statistical-inference]: the convex programs of Theorems 1 and 2 (Corollary 1, Remark 3)."""

import numpy as np
import pytest

import leakage.experiments.statistical_inference.convex as convex
from leakage.experiments.statistical_inference.convex import (
    min_average_leakage,
    min_average_leakage_joint_access,
    min_distortion_at_max_leakage,
    rate_distortion_convex,
)
from leakage.experiments.statistical_inference.counting_query import (
    counting_query_joint,
    counting_query_prior,
    squared_error,
)
from leakage.measures.information import binary_entropy, entropy, mutual_information, rate_distortion_point


HAMMING2 = 1 - np.eye(2)


# ----------------------------------------------------------------------------- Theorem 1 / Cor. 1


@pytest.mark.parametrize("p,delta", [(0.3, 0.05), (0.3, 0.2), (0.5, 0.1), (0.11, 0.1)])
def test_theorem1_rate_distortion_bernoulli_hamming(p, delta):
    # Theorem 1 with Y = S (Corollary 1): R(D) = h(p) - h(D) for D <= min(p, 1-p) (Cover & Thomas 10.3.1)
    sol = min_average_leakage(np.diag([1 - p, p]), HAMMING2, delta)
    assert sol.leakage == pytest.approx(binary_entropy(p) - binary_entropy(delta), abs=1e-6)
    assert sol.distortion <= delta + 1e-7
    assert rate_distortion_convex([1 - p, p], HAMMING2, p).leakage == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("slope", [0.5, 1.5, 4.0])
def test_corollary1_matches_blahut_arimoto_on_counting_query(slope):
    # Corollary 1: for Y = f(S) the minimum average leakage is the rate-distortion function of Y;
    # Blahut-Arimoto (an independent algorithm) gives a point (D, R(D)) of that curve.
    n, p = 6, 0.3
    prior = counting_query_prior(n, p)
    d = squared_error(n)
    rate, dist, _ = rate_distortion_point(prior, d, slope)
    assert rate_distortion_convex(prior, d, dist).leakage == pytest.approx(rate, abs=2e-6)


def test_theorem1_full_database_equals_corollary1():
    # I(S; U) over the 2^n database states (Theorem 1) = I(Y; U) (Corollary 1, (24)-(26)).
    n, p = 4, 0.3
    joint, prior, d = counting_query_joint(n, p), counting_query_prior(n, p), squared_error(n)
    for delta in (0.1, 0.6):
        full = min_average_leakage(joint, d, delta)
        assert full.leakage == pytest.approx(rate_distortion_convex(prior, d, delta).leakage, abs=1e-6)
        # and the solution's I(S; U) computed independently over the joint (s, u)
        su = joint @ full.channel
        assert mutual_information(su / su.sum(1, keepdims=True), su.sum(1)) == pytest.approx(full.leakage, abs=1e-12)


def test_remark3_access_to_s_never_worse_and_equal_when_y_is_function_of_s():
    n, p = 3, 0.4
    joint, d = counting_query_joint(n, p), squared_error(n)
    a = min_average_leakage(joint, d, 0.3).leakage
    b = min_average_leakage_joint_access(joint, d, 0.3).leakage
    assert b == pytest.approx(a, abs=1e-6)
    # a noisy Y: S binary, Y = S through a binary symmetric channel; Hamming distortion on Y
    joint = np.array([[0.6 * 0.9, 0.6 * 0.1], [0.4 * 0.2, 0.4 * 0.8]])
    for delta in (0.05, 0.2):
        assert min_average_leakage_joint_access(joint, HAMMING2, delta).leakage <= (
            min_average_leakage(joint, HAMMING2, delta).leakage + 1e-7
        )


# ----------------------------------------------------------------------------- Theorem 2


def test_theorem2_minimum_distortion_is_non_increasing_in_leakage():
    joint = np.diag([0.2, 0.3, 0.5])
    d = 1 - np.eye(3)
    h_s = entropy([0.2, 0.3, 0.5])
    dists = [min_distortion_at_max_leakage(joint, d, e).distortion for e in np.linspace(0, h_s, 6)]
    assert np.all(np.diff(dists) <= 1e-7)
    assert dists[-1] == pytest.approx(0.0, abs=1e-7)  # eps = H(S): U = Y is allowed
    assert dists[0] == pytest.approx(0.5, abs=1e-6)  # eps = 0: U independent, best constant guess


# ----------------------------------------------------------------------------- bad input


def test_solver_failure_is_reported(monkeypatch):
    monkeypatch.setattr(convex, "_available_solvers", lambda: ())
    with pytest.raises(RuntimeError, match="minimum average leakage \\(Theorem 1\\).*solver failed"):
        min_average_leakage(np.diag([0.5, 0.5]), HAMMING2, 0.1)
