import numpy as np
import pytest

from leakage.measures.dp import is_ldp, ldp_epsilon


def test_randomized_response():
    for eps in (0.1, 1.0, 3.0):
        for n in (2, 5):
            c = np.full((n, n), 1.0)
            np.fill_diagonal(c, np.exp(eps))
            c /= c.sum(axis=1, keepdims=True)
            assert ldp_epsilon(c) == pytest.approx(eps, abs=1e-12)
            assert is_ldp(c, eps) and not is_ldp(c, eps - 1e-6)


def test_zero_columns():
    # an all-zero column is allowed; a column mixing zeros and non-zeros is infinitely leaky
    assert ldp_epsilon([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0]]) == pytest.approx(np.log(2))
    assert ldp_epsilon([[1.0, 0.0], [0.5, 0.5]]) == float("inf")


def test_brute_force_pairs():
    rng = np.random.default_rng(1)
    c = rng.dirichlet(np.ones(4), size=5)
    expected = max(np.log(c[i, j] / c[k, j]) for i in range(5) for k in range(5) for j in range(4))
    assert ldp_epsilon(c) == pytest.approx(expected)
