import numpy as np
import pytest
from paper_values import EXAMPLE1_MECHANISM, EXAMPLE1_PRIOR

from leakage.measures.pml import (
    epsilon_max,
    epsilon_min,
    is_pml,
    output_distribution,
    pointwise_maximal_leakage,
)


def brute_force_pml(channel, prior):
    """Straight from the definition, with explicit loops."""
    n, k = channel.shape
    out = []
    for y in range(k):
        py = sum(prior[x] * channel[x, y] for x in range(n))
        if py == 0:
            continue
        out.append(np.log(max(channel[x, y] for x in range(n) if prior[x] > 0) / py))
    return max(out)


def test_matches_definition_on_random_channels():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n, k = rng.integers(2, 7, size=2)
        c = rng.dirichlet(np.ones(k), size=n)
        p = rng.dirichlet(np.ones(n))
        assert epsilon_min(c, p) == pytest.approx(brute_force_pml(c, p), abs=1e-12)


def test_identity_channel_leaks_eps_max():
    p = np.array([0.5, 0.3, 0.2])
    assert epsilon_min(np.eye(3), p) == pytest.approx(epsilon_max(p))
    assert epsilon_max(p) == pytest.approx(-np.log(0.2))


def test_constant_channel_leaks_nothing():
    c = np.tile([0.2, 0.8], (3, 1))
    assert epsilon_min(c, [0.2, 0.3, 0.5]) == pytest.approx(0.0, abs=1e-15)


def test_example_1_of_empirical_pml():
    # Seed 000, Example 1: mechanism (34) is log(9/8)-PML for P_X = (0.4, 0.2, 0.2, 0.2).
    c, p = EXAMPLE1_MECHANISM, EXAMPLE1_PRIOR
    assert epsilon_min(c, p) == pytest.approx(np.log(9 / 8), abs=1e-12)
    assert is_pml(c, p, np.log(9 / 8))
    assert not is_pml(c, p, np.log(9 / 8) - 1e-6)


def test_unused_output_and_zero_prior_entry():
    c = np.array([[0.5, 0.5, 0.0], [0.1, 0.9, 0.0]])
    leak = pointwise_maximal_leakage(c, [1.0, 0.0])
    assert leak.tolist() == [0.0, 0.0, 0.0]  # only x=0 is possible: nothing to learn
    assert output_distribution(c, [0.5, 0.5]).tolist() == pytest.approx([0.3, 0.7, 0.0])
