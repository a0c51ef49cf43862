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


@pytest.mark.parametrize("n", [1, 2, 5, 100])
@pytest.mark.parametrize("eps", [0.0, 0.3, 2.0, 40.0, 800.0, float("inf")])
def test_randomized_response_probabilities_are_its_entries(n, eps):
    """The two probabilities are the channel's diagonal and off-diagonal entries, and equal
    e^eps / (e^eps + n - 1) and 1 / (e^eps + n - 1) where e^eps is finite."""
    from leakage.measures.dp import randomized_response, randomized_response_probabilities

    keep, other = randomized_response_probabilities(n, eps)
    c = randomized_response(n, eps)
    assert np.all(np.diag(c) == keep)
    assert np.all(c[~np.eye(n, dtype=bool)] == other)
    assert keep + (n - 1) * other == pytest.approx(1.0, abs=1e-15)
    if eps < 700:
        e = np.exp(eps)
        assert (keep, other) == pytest.approx((e / (e + n - 1), 1 / (e + n - 1)), rel=1e-12)
    with pytest.raises(ValueError, match="eps"):
        randomized_response_probabilities(n, -1.0)
    with pytest.raises((ValueError, TypeError), match="n_outputs"):
        randomized_response_probabilities(0, eps)
