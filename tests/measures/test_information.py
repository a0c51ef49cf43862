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


def _binary_input_capacity(c):
    """Capacity of a two-input channel by bounded scalar maximisation of I over P = (t, 1 - t)."""
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(
        lambda t: -mutual_information(c, [t, 1 - t]), bounds=(0.0, 1.0), method="bounded",
        options={"xatol": 1e-12},
    )
    return -res.fun


@pytest.mark.parametrize("gap", [0.0065, 1e-3, 1e-5, 0.3])
def test_capacity_of_nearly_useless_two_input_channels(gap):
    # Found by Hypothesis: rows 0.0065 apart took Blahut-Arimoto past 100,000 steps.
    c = np.array([[0.36, 0.64], [0.36 - gap, 0.64 + gap]])
    cap, p = channel_capacity(c)
    assert cap == pytest.approx(_binary_input_capacity(c), abs=1e-13)
    assert mutual_information(c, p) == pytest.approx(cap, abs=1e-15)


def _channel_family(rng):
    """Channels a user may pass: near-identical rows (spread 1e-8 to 3), duplicated rows, a dead
    output, many more inputs than outputs and the reverse, and deterministic channels."""
    n, m = int(rng.integers(2, 25)), int(rng.integers(2, 25))
    base = rng.dirichlet(np.full(m, rng.uniform(0.1, 2)))
    spread = 10 ** rng.uniform(-8, 0.5)
    c = base + spread * rng.dirichlet(np.full(m, rng.uniform(0.1, 2)), size=n)
    if rng.random() < 0.3:
        c[rng.integers(n)] = c[0]
    if rng.random() < 0.2:
        c[:, rng.integers(m)] = 0.0
    if rng.random() < 0.1:
        c = np.eye(max(n, m))[:n, :m]
        c[c.sum(axis=1) == 0, 0] = 1.0
    return c / c.sum(axis=1, keepdims=True)


def test_capacity_is_certified_and_agrees_with_a_convex_solver_on_a_family():
    import cvxpy as cp
    from scipy.special import entr, rel_entr

    rng = np.random.default_rng(20261124)
    for _ in range(40):
        c = _channel_family(rng)
        cap, p = channel_capacity(c)
        # the certificate, recomputed here: I(P; W) <= C <= max_x D(W_x || P W)
        upper = rel_entr(c, (p @ c)[None, :]).sum(axis=1).max()
        assert p.min() >= 0 and p.sum() == pytest.approx(1.0, abs=1e-12)
        assert mutual_information(c, p) == pytest.approx(cap, abs=1e-14)
        assert upper - cap < 1e-12
        x = cp.Variable(c.shape[0], nonneg=True)
        program = cp.Problem(
            cp.Maximize(cp.sum(cp.entr(x @ c)) - entr(c).sum(axis=1) @ x), [cp.sum(x) == 1]
        )
        program.solve(solver=cp.CLARABEL)
        assert cap == pytest.approx(program.value, abs=1e-7)


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
