"""leakage.experiments.worst_case_pml.utility: order matrix, worst-case utility, Monte Carlo worst case [worst-case-pml, Sec. II]."""

import numpy as np
import pytest

from leakage.experiments.worst_case_pml.utility import (
    check_order_matrix,
    circulant_order_matrix,
    counting_query_utility,
    sample_pairs,
    sampled_worst_case_utility,
    utility_order_matrix,
    worst_case_order,
    worst_case_utility,
)


def brute_force_rank(u):
    """O[x, y] = 1 + number of outputs of row x with a strictly lower utility."""
    n, m = u.shape
    return np.array([[1 + sum(u[x, z] < u[x, y] for z in range(m)) for y in range(m)] for x in range(n)])


def test_order_matrix_matches_brute_force_ranks():
    rng = np.random.default_rng(1)
    for _ in range(20):
        n = int(rng.integers(1, 8))
        u = rng.normal(size=(n, n))
        np.testing.assert_array_equal(utility_order_matrix(u), brute_force_rank(u))


def test_counting_query_utility_and_order_eq_11():
    u = counting_query_utility(7)
    # eq. (11) written out by hand for a few pairs
    assert u[3, 3] == 0 and u[3, 4] == -1 and u[3, 2] == -2 and u[7, 0] == -50 and u[0, 7] == -49
    o = utility_order_matrix(u)
    np.testing.assert_array_equal(o, brute_force_rank(u))
    # each row ranks the true value highest; the lowest utility of row 0 is y = 7, of row 7 is y = 0
    assert np.all(np.diag(o) == 8) and o[0, 7] == 1 and o[7, 0] == 1


def test_circulant_order_matrix_eq_13():
    np.testing.assert_array_equal(
        circulant_order_matrix(4), [[4, 3, 2, 1], [1, 4, 3, 2], [2, 1, 4, 3], [3, 2, 1, 4]]
    )
    o = circulant_order_matrix(5)
    shift = np.roll(np.roll(o, 1, axis=0), 1, axis=1)  # relabel X and Y cyclically
    np.testing.assert_array_equal(shift, o)


def test_ties_and_bad_order_matrices_raise():
    with pytest.raises(ValueError, match="utility must have distinct values"):
        utility_order_matrix([[0.0, 1.0], [2.0, 2.0]])
    with pytest.raises(ValueError, match=r"order row 1 must be a permutation of 1\.\.3"):
        check_order_matrix([[1, 2, 3], [1, 1, 3], [3, 2, 1]])
    with pytest.raises(ValueError, match="order must be square"):
        check_order_matrix([[1, 2, 3], [3, 2, 1]])
    with pytest.raises(ValueError, match="penalty"):
        counting_query_utility(3, penalty=0)


def test_worst_case_utility_and_order_match_loops():
    rng = np.random.default_rng(2)
    for _ in range(30):
        n = int(rng.integers(2, 7))
        u = rng.normal(size=(n, n))
        c = rng.dirichlet(np.ones(n), size=n) * (rng.random((n, n)) < 0.6)
        c[np.arange(n), rng.integers(0, n, n)] += 0.1  # keep every row non-empty
        c /= c.sum(axis=1, keepdims=True)
        p = rng.dirichlet(np.ones(n))
        pairs = [(x, y) for x in range(n) for y in range(n) if p[x] > 0 and c[x, y] > 0]
        assert worst_case_utility(c, p, u) == min(u[x, y] for x, y in pairs)
        o = brute_force_rank(u)
        assert worst_case_order(c, p, o) == min(o[x, y] for x, y in pairs)


def test_monte_carlo_never_below_exact_and_reaches_it():
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(2, 6))
        u = rng.normal(size=(n, n))
        c = rng.dirichlet(np.ones(n), size=n) * (rng.random((n, n)) < 0.5)
        c[np.arange(n), rng.integers(0, n, n)] += 0.2
        c /= c.sum(axis=1, keepdims=True)
        p = rng.dirichlet(np.ones(n))
        exact = worst_case_utility(c, p, u)
        assert sampled_worst_case_utility(c, p, u, 50, rng) >= exact
    # with many draws on a small well-spread example the sample finds the worst pair
    c = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])
    p = np.array([0.3, 0.3, 0.4])
    u = -np.arange(9.0).reshape(3, 3)
    assert sampled_worst_case_utility(c, p, u, 5000, rng) == worst_case_utility(c, p, u) == -8


def test_sample_pairs_follow_the_joint_distribution():
    rng = np.random.default_rng(4)
    c = np.array([[0.7, 0.0, 0.3], [0.0, 1.0, 0.0], [0.2, 0.3, 0.5]])
    p = np.array([0.5, 0.2, 0.3])
    x, y = sample_pairs(c, p, 200_000, rng)
    freq = np.zeros((3, 3))
    np.add.at(freq, (x, y), 1)
    freq /= freq.sum()
    joint = p[:, None] * c
    assert np.all(freq[joint == 0] == 0)  # impossible pairs never drawn
    np.testing.assert_allclose(freq, joint, atol=4e-3)
