import numpy as np
import pytest

from leakage.measures.information import (
    binary_entropy,
    binary_entropy_inverse,
    channel_capacity,
    entropy,
    kl_divergence,
    max_divergence,
    mutual_information,
    rate_distortion_point,
)


def test_entropy_and_binary_entropy():
    assert entropy([0.25] * 4) == pytest.approx(np.log(4))
    assert binary_entropy(0.5) == pytest.approx(np.log(2))
    assert binary_entropy(0.0) == 0.0
    for q in (0.01, 0.2, 0.4999):
        assert binary_entropy_inverse(binary_entropy(q)) == pytest.approx(q, abs=1e-10)


def test_divergences():
    p, q = np.array([0.5, 0.5]), np.array([0.25, 0.75])
    assert kl_divergence(p, q) == pytest.approx(0.5 * np.log(2) + 0.5 * np.log(2 / 3))
    assert max_divergence(p, q) == pytest.approx(np.log(2))
    assert max_divergence([0.5, 0.5], [1.0, 0.0]) == float("inf")


def test_mutual_information_identity_and_independent():
    p = np.array([0.2, 0.3, 0.5])
    assert mutual_information(np.eye(3), p) == pytest.approx(entropy(p))
    assert mutual_information(np.tile(p, (3, 1)), p) == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("flip", [0.01, 0.1, 0.3])
def test_bsc_capacity_closed_form(flip):
    c = np.array([[1 - flip, flip], [flip, 1 - flip]])
    cap, p = channel_capacity(c)
    assert cap == pytest.approx(np.log(2) - binary_entropy(flip), abs=1e-10)
    assert p == pytest.approx([0.5, 0.5], abs=1e-6)


def test_erasure_channel_capacity():
    # Cuff & Yu, Example 3.3: capacity (1 - e) log|X|
    e, n = 0.3, 3
    c = np.zeros((n, n + 1))
    c[np.arange(n), np.arange(n)] = 1 - e
    c[:, n] = e
    assert channel_capacity(c)[0] == pytest.approx((1 - e) * np.log(n), abs=1e-10)


def test_rate_distortion_binary_hamming():
    # R(D) = h(p) - h(D) for a Bernoulli(p) source with Hamming distortion, D <= p
    p = 0.3
    d = 1 - np.eye(2)
    for slope in (1.0, 3.0, 6.0):
        rate, dist, _ = rate_distortion_point([1 - p, p], d, slope)
        if 0 < dist < p:
            assert rate == pytest.approx(binary_entropy(p) - binary_entropy(dist), abs=1e-7)
