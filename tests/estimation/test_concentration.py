import numpy as np
import pytest

from leakage.estimation.concentration import beta_star, delta_for_beta, empirical_distribution


def test_empirical_distribution_counts():
    p = empirical_distribution([-1, 1, 1, 1], [-1, 1])
    assert p.tolist() == [0.25, 0.75]
    assert empirical_distribution(["a", "a"], ["a", "b"]).tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="not in alphabet"):
        empirical_distribution([0, 2], [0, 1])


def test_beta_star_binary_matches_eq_45():
    # (45): N = 2 gives log(2^2 - 2) = log 2
    m, delta = 1000, 1e-6
    assert beta_star(delta, m) == pytest.approx(np.sqrt(2 * (np.log(2) - np.log(delta)) / m))


def test_beta_star_general_and_inverse():
    for n in (2, 5, 20, 200):
        for m in (100, 10**6):
            for delta in (1e-12, 1e-3, 0.5):
                b = beta_star(delta, m, n)
                assert delta_for_beta(b, m, n) == pytest.approx(delta, rel=1e-9)
    assert beta_star(1e-5, 1000, 20) == pytest.approx(np.sqrt(2 / 1000 * (np.log(2**20 - 2) - np.log(1e-5))))


def test_bad_input():
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\]"):
        beta_star(0.0, 10)
    with pytest.raises(ValueError, match="m must be an integer >= 1"):
        beta_star(0.1, 0)
