"""Min-entropy leakage [smith2009] and maximal leakage [issa2020] against computations written
independently here: guessing probabilities by enumeration, PML's exponential average, random
priors, closed forms, and the qif library."""

import itertools

import numpy as np
import pytest

from leakage.measures.dp import randomized_response
from leakage.measures.min_entropy import maximal_leakage, min_entropy_leakage
from leakage.measures.pml import output_distribution, pointwise_maximal_leakage


def _random_channel(rng, n_in, n_out):
    c = rng.random((n_in, n_out)) ** 3  # skewed rows: some near-zero entries
    return c / c.sum(axis=1, keepdims=True)


def _guessing_leakage(channel, prior):
    """log(P[correct one-try guess after Y] / P[correct guess before]) by enumerating guesses."""
    n_in, n_out = channel.shape
    before = max(prior)
    after = 0.0
    for y in range(n_out):
        best = 0.0
        for guess in range(n_in):  # the adversary's best guess of X given y
            best = max(best, prior[guess] * channel[guess, y])
        after += best
    return np.log(after / before)


@pytest.mark.parametrize("shape", [(2, 2), (3, 5), (6, 4)])
def test_min_entropy_leakage_is_the_guessing_advantage(shape):
    rng = np.random.default_rng(sum(shape))
    for _ in range(20):
        c = _random_channel(rng, *shape)
        p = rng.dirichlet(np.ones(shape[0]))
        assert min_entropy_leakage(c, p) == pytest.approx(_guessing_leakage(c, p), abs=1e-12)


@pytest.mark.parametrize("shape", [(2, 3), (4, 4), (5, 2)])
def test_maximal_leakage_bounds_min_entropy_leakage_and_is_attained_at_uniform(shape):
    rng = np.random.default_rng(10 + sum(shape))
    c = _random_channel(rng, *shape)
    ml = maximal_leakage(c)
    values = [min_entropy_leakage(c, rng.dirichlet(0.3 * np.ones(shape[0]))) for _ in range(2000)]
    assert max(values) <= ml + 1e-12
    assert min(values) >= 0.0
    assert min_entropy_leakage(c, np.full(shape[0], 1 / shape[0])) == pytest.approx(ml, abs=1e-12)


def test_maximal_leakage_is_the_supremum_over_a_prior_grid():
    """Brute force over a grid of the 3-input simplex: the largest min-entropy leakage found is
    maximal leakage (attained on the grid at the uniform prior)."""
    c = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    best = 0.0
    steps = 30
    for i, j in itertools.product(range(1, steps), repeat=2):
        if i + j < steps:
            best = max(best, _guessing_leakage(c, np.array([i, j, steps - i - j]) / steps))
    assert best == pytest.approx(np.log(0.6 + 0.5 + 0.8), abs=1e-12)
    assert maximal_leakage(c) == pytest.approx(best, abs=1e-12)


def test_maximal_leakage_is_the_exponential_average_of_pml():
    """log E_Y[exp l(X -> Y)] = maximal leakage for every full-support prior [saeidian-pml]."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        c = _random_channel(rng, 4, 6)
        p = rng.dirichlet(np.ones(4))
        average = np.log(np.sum(output_distribution(c, p) * np.exp(pointwise_maximal_leakage(c, p))))
        assert average == pytest.approx(maximal_leakage(c), abs=1e-12)


@pytest.mark.parametrize("k", [2, 3, 7])
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_randomized_response_closed_form(k, eps):
    """k-ary randomized response: maximal leakage log(k e^eps / (e^eps + k - 1)); min-entropy
    leakage the same at the uniform prior, zero once one input is likelier than e^eps times any
    other (the MAP guess is that input whatever the output)."""
    c = randomized_response(k, eps)
    closed = np.log(k * np.exp(eps) / (np.exp(eps) + k - 1))
    assert maximal_leakage(c) == pytest.approx(closed, abs=1e-12)
    assert min_entropy_leakage(c, np.full(k, 1 / k)) == pytest.approx(closed, abs=1e-12)
    skewed = np.full(k, 1.0)
    skewed[0] = 2 * np.exp(eps)
    assert min_entropy_leakage(c, skewed / skewed.sum()) == pytest.approx(0.0, abs=1e-12)


def test_extreme_channels():
    n = 5
    assert maximal_leakage(np.eye(n)) == pytest.approx(np.log(n))  # identity: all of log |X|
    assert maximal_leakage(np.full((n, 3), 1 / 3)) == pytest.approx(0.0)  # Y independent of X
    deterministic = np.zeros((n, 3))
    deterministic[np.arange(n), [0, 0, 1, 2, 2]] = 1.0  # a function of X with 3 values
    assert maximal_leakage(deterministic) == pytest.approx(np.log(3))
    p = np.array([0.5, 0.2, 0.1, 0.1, 0.1])
    # posterior vulnerability: the likeliest input of each output class
    assert min_entropy_leakage(deterministic, p) == pytest.approx(np.log((0.5 + 0.1 + 0.1) / 0.5))


def test_input_validation():
    with pytest.raises(ValueError):
        maximal_leakage([[0.5, 0.6], [0.5, 0.5]])  # a row that is not a distribution
    with pytest.raises(ValueError):
        min_entropy_leakage(np.eye(2), [0.5, 0.6])
    with pytest.raises(ValueError):
        min_entropy_leakage(np.eye(2), [0.2, 0.3, 0.5])  # prior of the wrong length


def test_agrees_with_the_qif_library():
    """qif (the test extra): multiplicative Bayes leakage and capacity, as ratios."""
    qif = pytest.importorskip("qif")
    rng = np.random.default_rng(7)
    for _ in range(10):
        c = _random_channel(rng, 4, 3)
        p = rng.dirichlet(np.ones(4))
        assert min_entropy_leakage(c, p) == pytest.approx(np.log(qif.measure.bayes_vuln.mult_leakage(p, c)), abs=1e-10)
        assert maximal_leakage(c) == pytest.approx(np.log(qif.measure.bayes_vuln.mult_capacity(c)), abs=1e-10)
