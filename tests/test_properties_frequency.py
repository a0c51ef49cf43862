"""Property-based tests (Hypothesis) of frequency estimation from released data and of the LDP
frequency oracles: the unbiased estimate is unbiased (exact expectation by enumerating every
release of a few records) and sums to one, the MLE lies on the simplex and beats other points'
likelihood, variances are non-negative and ordered, intervals contain the estimate, invalid
input is refused inside ``leakage`` naming the parameter. Profile and example database:
tests/conftest.py."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import leakage
from strategies import channels, distributions
from test_properties_measures import assert_clear_error


@st.composite
def identifiable_channels(draw, max_n=4):
    """A channel whose rows are linearly independent (at least as many outputs as inputs)."""
    n_in = draw(st.integers(2, max_n))
    n_out = draw(st.integers(n_in, max_n + 1))
    c = draw(channels(n_in=n_in, n_out=n_out))
    assume(np.linalg.matrix_rank(c) == n_in)
    assume(np.linalg.cond(c @ c.T) < 1e8)
    return c


@st.composite
def channel_and_counts(draw):
    c = draw(identifiable_channels())
    used = np.flatnonzero(c.max(axis=0) > 0)
    counts = np.zeros(c.shape[1], dtype=np.int64)
    counts[used] = draw(st.lists(st.integers(0, 500), min_size=used.size, max_size=used.size))
    assume(counts.sum() > 0)
    return c, counts


def _loglik(c, counts, f):
    q = f @ c
    used = counts > 0
    return float(counts[used] @ np.log(np.maximum(q[used], 1e-300))) / counts.sum()


@given(channel_and_counts(), st.floats(0.5, 0.999))
def test_unbiased_estimate_sums_to_one_with_ordered_intervals(cc, confidence):
    c, counts = cc
    est = leakage.estimate_frequencies_from_counts(counts, c, confidence=confidence)
    assert np.all(np.isfinite(est.estimate)) and est.estimate.sum() == pytest.approx(1.0, abs=1e-9)
    assert np.all(est.stderr >= 0) and np.all(np.isfinite(est.stderr))
    assert np.all(est.lower <= est.estimate) and np.all(est.estimate <= est.upper)
    assert est.m == counts.sum()


@given(channel_and_counts())
def test_mle_lies_on_the_simplex_and_maximises_the_likelihood(cc):
    c, counts = cc
    est = leakage.estimate_frequencies_from_counts(counts, c, method="mle")
    f = est.estimate
    assert np.all(f >= 0) and f.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(0 <= est.lower) and np.all(est.lower <= f) and np.all(f <= est.upper) and np.all(est.upper <= 1)
    if est.converged:
        unbiased = leakage.estimate_frequencies_from_counts(counts, c).estimate
        projected = np.clip(unbiased, 0, None)
        projected = projected / projected.sum() if projected.sum() > 0 else np.full(f.size, 1 / f.size)
        for other in (np.full(f.size, 1 / f.size), projected):
            assert _loglik(c, counts, f) >= _loglik(c, counts, other) - 1e-9


@given(identifiable_channels(max_n=3), st.data())
def test_the_estimate_is_exactly_unbiased_over_every_release(c, data):
    """Fixed weights (a prior guess), a few fixed records: the mean of the estimate over every
    release, weighted by its probability, is the records' histogram."""
    n_in, n_out = c.shape
    m = data.draw(st.integers(1, 3))
    records = data.draw(st.lists(st.integers(0, n_in - 1), min_size=m, max_size=m))
    guess = data.draw(distributions(n=n_in))
    assume(np.all(guess @ c[:, c.max(axis=0) > 0] > 1e-6))
    mean = np.zeros(n_in)
    for ys in itertools.product(range(n_out), repeat=m):
        prob = math.prod(c[x, y] for x, y in zip(records, ys))
        if prob > 0:
            mean += prob * leakage.estimate_frequencies(list(ys), c, prior=guess).estimate
    np.testing.assert_allclose(mean, np.bincount(records, minlength=n_in) / m, atol=1e-8)


@given(identifiable_channels(), st.data(), st.integers(1, 10**6))
def test_variances_are_non_negative_and_iid_adds_the_sampling_term(c, data, m):
    prior = data.draw(distributions(n=c.shape[0]))
    fixed = leakage.frequency_mse(c, prior, m)
    iid = leakage.frequency_mse(c, prior, m, records="iid")
    assert 0.0 <= fixed < math.inf
    assert iid == pytest.approx(fixed + (1 - prior @ prior) / m, rel=1e-6, abs=1e-12)
    cov = leakage.frequency_covariance(c, prior, m)
    assert np.linalg.eigvalsh(cov).min() >= -1e-9 * max(1.0, np.abs(cov).max())


ORACLE = st.builds(
    leakage.FrequencyOracle,
    st.sampled_from(["grr", "oue", "olh", "ss", "hr"]),
    st.integers(2, 40),
    st.floats(1e-3, 12.0),
)


@given(ORACLE, st.data(), st.integers(1, 10**7))
def test_oracle_variances(oracle, data, m):
    prior = data.draw(distributions(n=oracle.n_categories, full_support=False))
    fixed = leakage.oracle_variance(oracle, prior, m)
    iid = leakage.oracle_variance(oracle, prior, m, records="iid")
    assert np.all(fixed >= 0) and np.all(np.isfinite(fixed))
    np.testing.assert_allclose(iid - fixed, prior * (1 - prior) / m, rtol=1e-6, atol=1e-300)
    approx = leakage.oracle_approximate_variance(oracle, m)
    p, q = oracle.p, oracle.q
    np.testing.assert_allclose(fixed - approx, prior * (1 - p - q) / (m * (p - q)), rtol=1e-6, atol=1e-12 * approx)
    assert leakage.oracle_mse(oracle, prior, m) == pytest.approx(fixed.sum())


@given(ORACLE, st.data())
def test_oracle_estimates_have_ordered_intervals(oracle, data):
    k = oracle.n_categories
    value_counts = np.array(data.draw(st.lists(st.integers(0, 50), min_size=k, max_size=k)))
    assume(value_counts.sum() > 0)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    s = leakage.oracle_sample_support_counts(oracle, value_counts, rng)
    est = leakage.oracle_estimate(oracle, s, int(value_counts.sum()))
    assert np.all(np.isfinite(est.estimate)) and np.all(est.stderr >= 0)
    assert np.all(est.lower <= est.estimate) and np.all(est.estimate <= est.upper)
    if oracle.name == "grr":
        assert est.estimate.sum() == pytest.approx(1.0, abs=1e-9)


BAD_REPORTS = st.sampled_from([[0, 9], [-1], [0.5], [math.nan], [], [[0]], "0", None, [True]])


@given(BAD_REPORTS)
def test_bad_reports_are_refused(bad):
    assert_clear_error(leakage.estimate_frequencies, bad, [[0.9, 0.1], [0.2, 0.8]], names=["reports"])


@given(st.sampled_from([math.nan, -1.0, 0.0, math.inf, "x", None]))
def test_bad_oracle_eps_is_refused(bad):
    assert_clear_error(leakage.FrequencyOracle, "olh", 4, bad, names=["eps"])
