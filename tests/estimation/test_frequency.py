"""Frequency estimation from released data (leakage.estimation.frequency) against computations
written independently here: exact enumeration of every release of a few records (mean and
covariance of the estimate, Gauss-Markov), the inverse channel, Monte Carlo, a convex solver
(cvxpy) for the maximum likelihood, and multi-freq-ldpy's iterative Bayesian update."""

from __future__ import annotations

import itertools
import math

import cvxpy as cp
import numpy as np
import pytest

from leakage.estimation.frequency import (
    FrequencyEstimate,
    estimate_frequencies,
    estimate_frequencies_from_counts,
    fisher_information,
    frequency_covariance,
    frequency_mse,
)
from leakage.measures.dp import randomized_response
from leakage.mechanisms.release import channel_output_counts, channel_outputs


def _random_channel(rng, n_in, n_out, power=2.0):
    c = rng.random((n_in, n_out)) ** power
    return c / c.sum(axis=1, keepdims=True)


def _release_moments(channel, records, **kwargs):
    """Mean and covariance of the unbiased estimate over every release of the fixed ``records``
    (each record's output enumerated with its probability), and the mean of the variance estimate
    written out here, A probed column by column (the estimate from a single report of output y,
    exact for fixed weights): ``(sum_y A_xy^2 q_hat_y - f_hat_x) / m`` for ``interval="wald"``,
    ``(sum_y A_xy^2 (C^T f_hat)_y - f_hat_x) / m`` for the default (fitted); each release's
    standard error is checked to be its square root (cut at 0)."""
    n_out = channel.shape[1]
    m = len(records)
    probe = np.column_stack([estimate_frequencies([y], channel, **kwargs).estimate for y in range(n_out)])
    probs, est, var = [], [], []
    for ys in itertools.product(range(n_out), repeat=m):
        prob = math.prod(channel[x, y] for x, y in zip(records, ys))
        if prob > 0:
            result = estimate_frequencies(list(ys), channel, **kwargs)
            q_hat = np.bincount(ys, minlength=n_out) / m
            np.testing.assert_allclose(result.estimate, probe @ q_hat, atol=1e-12)  # linear
            fitted = q_hat if kwargs.get("interval") == "wald" else result.estimate @ channel
            v = ((probe**2) @ fitted - result.estimate) / m
            np.testing.assert_allclose(result.stderr, np.sqrt(np.maximum(v, 0)), atol=1e-12)
            probs.append(prob)
            est.append(result.estimate)
            var.append(v)
    probs, est = np.array(probs), np.array(est)
    mean = probs @ est
    dev = est - mean
    cov = (dev * probs[:, None]).T @ dev
    return mean, cov, probs @ np.array(var)


@pytest.mark.parametrize("shape, records", [((2, 3), [0, 1, 1]), ((3, 3), [0, 1, 2, 2]), ((3, 4), [0, 0, 1, 2])])
def test_with_weights_at_the_truth_the_estimate_is_unbiased_with_the_blue_covariance(shape, records):
    """Exact enumeration of every release: E f_hat = f and Cov f_hat = (J^-1 - diag f) / m."""
    rng = np.random.default_rng(sum(shape) + len(records))
    c = _random_channel(rng, *shape, power=1.0)
    m = len(records)
    f = np.bincount(records, minlength=shape[0]) / m
    mean, cov, var = _release_moments(c, records, prior=f)
    np.testing.assert_allclose(mean, f, atol=1e-12)
    np.testing.assert_allclose(cov, frequency_covariance(c, f, m), atol=1e-12)
    # the covariance formula itself, written out: J^-1 from its definition, minus diag f
    q = f @ c
    j = sum(np.outer(c[:, y], c[:, y]) / q[y] for y in range(shape[1]))
    np.testing.assert_allclose(cov, (np.linalg.inv(j) - np.diag(f)) / m, atol=1e-12)
    # the variance estimate (before its cut at 0) is unbiased
    np.testing.assert_allclose(var, np.diag(cov), atol=1e-12)


def test_any_fixed_weights_stay_unbiased_and_the_blue_weights_are_best():
    """Gauss-Markov by enumeration: other fixed weights keep E f_hat = f, the estimate's covariance
    exceeds the BLUE's by a positive semi-definite matrix."""
    rng = np.random.default_rng(7)
    c = _random_channel(rng, 3, 4, power=1.0)
    records = [0, 1, 2, 2]
    f = np.bincount(records, minlength=3) / len(records)
    _, blue, _ = _release_moments(c, records, prior=f)
    for guess in ([1 / 3, 1 / 3, 1 / 3], [0.7, 0.2, 0.1]):
        mean, cov, var = _release_moments(c, records, prior=guess)
        np.testing.assert_allclose(mean, f, atol=1e-12)
        np.testing.assert_allclose(var, np.diag(cov), atol=1e-12)
        assert np.linalg.eigvalsh(cov - blue).min() >= -1e-12


def test_iid_records_have_the_covariance_with_f_f_transposed():
    """Records drawn iid from P, estimate compared with P: E (f_hat - P)(f_hat - P)^T =
    (J^-1 - P P^T) / m, by enumerating every (record, output) sequence."""
    rng = np.random.default_rng(3)
    c = _random_channel(rng, 2, 3, power=1.0)
    prior = np.array([0.3, 0.7])
    m = 3
    second = np.zeros((2, 2))
    mean = np.zeros(2)
    for xs in itertools.product(range(2), repeat=m):
        px = math.prod(prior[x] for x in xs)
        for ys in itertools.product(range(3), repeat=m):
            prob = px * math.prod(c[x, y] for x, y in zip(xs, ys))
            est = estimate_frequencies(list(ys), c, prior=prior).estimate
            mean += prob * est
            second += prob * np.outer(est - prior, est - prior)
    np.testing.assert_allclose(mean, prior, atol=1e-12)
    np.testing.assert_allclose(second, frequency_covariance(c, prior, m, records="iid"), atol=1e-12)
    assert frequency_mse(c, prior, m, records="iid") == pytest.approx(np.trace(second), abs=1e-12)


def test_a_square_channel_is_inverted_whatever_the_weights():
    """Square invertible channel: the estimate is channel^-T q_hat exactly, so plug-in weights
    are unbiased too (checked by enumeration)."""
    rng = np.random.default_rng(11)
    c = _random_channel(rng, 3, 3, power=1.0)
    counts = np.array([5, 0, 9])
    inverse = np.linalg.solve(c.T, counts / counts.sum())
    for prior in (None, [0.2, 0.3, 0.5]):
        got = estimate_frequencies_from_counts(counts, c, prior=prior).estimate
        np.testing.assert_allclose(got, inverse, atol=1e-12)
    records = [0, 2, 2]
    mean, _, _ = _release_moments(c, records)
    np.testing.assert_allclose(mean, np.bincount(records, minlength=3) / 3, atol=1e-12)


def test_randomized_response_is_inverted_by_the_textbook_formula():
    """k-ary randomized response: f_hat = (q_hat - q) / (p - q) [warner1965]."""
    k, eps = 5, 0.8
    c = randomized_response(k, eps)
    p, q = math.exp(eps) / (math.exp(eps) + k - 1), 1 / (math.exp(eps) + k - 1)
    counts = np.array([40, 3, 17, 0, 25])
    got = estimate_frequencies_from_counts(counts, c).estimate
    np.testing.assert_allclose(got, (counts / counts.sum() - q) / (p - q), atol=1e-12)


def test_monte_carlo_mse_and_coverage_of_the_plug_in_estimate():
    """Non-square channel, plug-in weights, records fixed: the empirical MSE over releases agrees
    with (tr J^-1 - 1) / m and the 95 % intervals cover the truth about 95 % of the time."""
    rng = np.random.default_rng(2024)
    c = _random_channel(rng, 4, 7)
    value_counts = np.array([1200, 500, 250, 50])
    m = int(value_counts.sum())
    f = value_counts / m
    reps = 2000
    sq, covered = np.empty(reps), np.empty((reps, 4))
    for r in range(reps):
        est = estimate_frequencies_from_counts(channel_output_counts(c, value_counts, rng), c)
        sq[r] = np.sum((est.estimate - f) ** 2)
        covered[r] = (est.lower <= f) & (f <= est.upper)
    theory = frequency_mse(c, f, m)
    # the squared-error sum over 2000 releases: its standard error is about 3 % of the mean
    assert sq.mean() == pytest.approx(theory, rel=5 * sq.std() / math.sqrt(reps) / theory)
    coverage = covered.mean(axis=0)
    assert np.all(np.abs(coverage - 0.95) < 5 * math.sqrt(0.95 * 0.05 / reps)), coverage


def test_the_mse_is_the_trace_and_j_times_the_prior_is_one():
    rng = np.random.default_rng(5)
    c = _random_channel(rng, 4, 6)
    prior = rng.dirichlet(np.ones(4))
    j = fisher_information(c, prior)
    np.testing.assert_allclose(j @ prior, np.ones(4), atol=1e-12)
    q = prior @ c
    np.testing.assert_allclose(j, (c / q) @ c.T, atol=1e-12)
    inv = np.linalg.inv(j)
    assert frequency_mse(c, prior, 10) == pytest.approx((np.trace(inv) - 1) / 10, rel=1e-10)
    iid = frequency_mse(c, prior, 10, records="iid")
    assert iid == pytest.approx((np.trace(inv) - prior @ prior) / 10, rel=1e-10)
    # the identity channel (no noise): nothing to estimate with the records fixed
    assert frequency_mse(np.eye(3), [0.2, 0.3, 0.5], 7) == pytest.approx(0.0, abs=1e-15)


def test_unused_outputs_are_ignored_and_impossible_reports_refused():
    c = np.array([[0.5, 0.0, 0.5], [0.2, 0.0, 0.8]])
    est = estimate_frequencies([0, 2, 2, 0, 2], c)
    assert est.estimate.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="output_counts has reports of output 1"):
        estimate_frequencies([0, 1], c)
    assert frequency_mse(c, [0.5, 0.5]) > 0


def test_a_channel_with_dependent_rows_is_refused():
    c = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.1, 0.2, 0.7]])
    for call in (
        lambda: estimate_frequencies([0, 1, 2], c),
        lambda: estimate_frequencies([0, 1, 2], c, method="mle"),
        lambda: frequency_mse(c, [0.2, 0.3, 0.5]),
    ):
        with pytest.raises(ValueError, match="channel has linearly dependent rows"):
            call()
    with pytest.raises(ValueError, match="not identifiable"):
        estimate_frequencies([0], randomized_response(3, 0.0))


def _loglik(channel, counts, f):
    q = f @ channel
    used = counts > 0
    return float(counts[used] @ np.log(q[used])) / counts.sum()


@pytest.mark.parametrize("seed", range(4))
def test_mle_maximises_the_likelihood_on_the_simplex(seed):
    """Against cvxpy (CLARABEL): the EM estimate's log-likelihood is at least the solver's."""
    rng = np.random.default_rng(seed)
    n_in, n_out = 4, 6
    c = _random_channel(rng, n_in, n_out)
    truth = np.array([0.6, 0.3, 0.1, 0.0])
    counts = channel_output_counts(c, rng.multinomial(300, truth), rng)
    est = estimate_frequencies_from_counts(counts, c, method="mle")
    assert est.converged and est.iterations > 0
    assert np.all(est.estimate >= 0) and est.estimate.sum() == pytest.approx(1.0, abs=1e-12)
    f = cp.Variable(n_in, nonneg=True)
    used = counts > 0
    problem = cp.Problem(cp.Maximize(counts[used] @ cp.log(c[:, used].T @ f) / counts.sum()), [cp.sum(f) == 1])
    problem.solve(solver="CLARABEL")
    assert _loglik(c, counts, est.estimate) >= problem.value - 1e-8
    np.testing.assert_allclose(est.estimate, f.value, atol=2e-3)
    # and at least every other point we try
    for other in (np.full(n_in, 1 / n_in), truth):
        assert _loglik(c, counts, est.estimate) >= _loglik(c, counts, other) - 1e-12


def test_mle_is_the_inverse_when_that_lies_inside_the_simplex():
    """Square channel, unbiased estimate inside the simplex: it maximises the likelihood (q = q_hat
    is reachable), so the MLE equals it."""
    c = randomized_response(4, 1.5)
    counts = channel_output_counts(c, [400, 300, 200, 100], np.random.default_rng(1))
    unbiased = estimate_frequencies_from_counts(counts, c)
    assert np.all(unbiased.estimate > 0.01)
    mle = estimate_frequencies_from_counts(counts, c, method="mle", tol=1e-13)
    np.testing.assert_allclose(mle.estimate, unbiased.estimate, atol=1e-6)
    np.testing.assert_allclose(mle.stderr, unbiased.stderr)  # the same standard error
    assert np.all(mle.lower >= 0) and np.all(mle.upper <= 1)


def test_mle_agrees_with_multi_freq_ldpy_iterative_bayesian_update():
    """multi-freq-ldpy's IBU (plain EM from the uniform histogram, run to its fixed point) on the
    same randomized-response reports; its numba kernel called as plain Python (.py_func)."""
    from multi_freq_ldpy.estimators.Histogram_estimator import IBU

    k, eps = 6, 1.0
    rng = np.random.default_rng(8)
    c = randomized_response(k, eps)
    values = np.repeat(np.arange(k), [500, 300, 100, 60, 30, 10])
    reports = channel_outputs(c, values, rng.random(values.size))
    counts = np.bincount(reports, minlength=k)
    theirs = IBU.py_func(k, c, counts / counts.sum(), 200_000, 1e-14, "max_abs")
    ours = estimate_frequencies(reports, c, method="mle", tol=1e-13)
    assert ours.converged
    np.testing.assert_allclose(ours.estimate, theirs, atol=1e-6)


def test_the_em_budget_is_counted_and_reported():
    c = randomized_response(8, 0.3)
    counts = channel_output_counts(c, [100, 80, 60, 40, 20, 10, 5, 1], np.random.default_rng(2))
    short = estimate_frequencies_from_counts(counts, c, method="mle", max_iter=2, tol=1e-14)
    assert short.iterations == 2 and not short.converged
    again = estimate_frequencies_from_counts(counts, c, method="mle", max_iter=2, tol=1e-14)
    np.testing.assert_array_equal(short.estimate, again.estimate)  # deterministic
    long = estimate_frequencies_from_counts(counts, c, method="mle")
    assert long.converged and 0 < long.iterations <= 10_000


def test_result_fields_and_intervals():
    c = randomized_response(3, 1.0)
    est = estimate_frequencies([0, 0, 1, 2, 2, 2, 0], c, confidence=0.9, interval="fitted")
    assert isinstance(est, FrequencyEstimate)
    assert est.method == "unbiased" and est.m == 7 and est.confidence == 0.9
    assert est.iterations == 0 and est.converged
    np.testing.assert_allclose(est.counts, 7 * est.estimate)
    z = 1.6448536269514722  # the standard normal 95 % quantile, for a 90 % two-sided interval
    # z se plus the rounding allowance ROUNDING sum_y |A_xy| q_hat_y (at most 1e-12 times the
    # largest |A| here)
    np.testing.assert_allclose(est.upper - est.estimate, z * est.stderr, rtol=0, atol=1e-10)
    assert np.all(est.upper - est.estimate >= z * est.stderr)
    with pytest.raises(ValueError):
        est.estimate[0] = 1.0  # read-only
    with pytest.raises(AttributeError):
        est.m = 3  # frozen


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(reports=[0, 3]), "reports"),
        (dict(reports=[0, -1]), "reports"),
        (dict(reports=[0.5, 1]), "reports"),
        (dict(reports=[np.nan]), "reports"),
        (dict(reports=[]), "reports"),
        (dict(reports=[[0, 1]]), "reports"),
        (dict(reports="01"), "reports"),
        (dict(reports=[True, False]), "reports"),
        (dict(channel=[[0.5, 0.6], [0.5, 0.5]]), "channel"),
        (dict(channel=[[np.nan, 1.0], [0.5, 0.5]]), "channel"),
        (dict(method="median"), "method"),
        (dict(confidence=1.0), "confidence"),
        (dict(confidence=math.nan), "confidence"),
        (dict(max_iter=0), "max_iter"),
        (dict(tol=0.0), "tol"),
        (dict(tol=math.inf), "tol"),
        (dict(prior=[0.5, 0.5, 0.0]), "prior"),
        (dict(prior=[0.5, 0.6]), "prior"),
    ],
)
def test_bad_input_is_refused_naming_the_parameter(kwargs, name):
    args = dict(reports=[0, 1, 1], channel=[[0.8, 0.2], [0.3, 0.7]]) | kwargs
    reports, channel = args.pop("reports"), args.pop("channel")
    with pytest.raises((ValueError, TypeError), match=name):
        estimate_frequencies(reports, channel, **args)


def test_bad_counts_and_m_are_refused():
    c = [[0.8, 0.2], [0.3, 0.7]]
    for counts in ([1, 2, 3], [0, 0], [-1, 2], [1.5, 2]):
        with pytest.raises((ValueError, TypeError), match="output_counts"):
            estimate_frequencies_from_counts(counts, c)
    for m in (0, 1.5, "x"):
        with pytest.raises((ValueError, TypeError), match="m must"):
            frequency_mse(c, [0.5, 0.5], m)
    with pytest.raises(ValueError, match="records"):
        frequency_mse(c, [0.5, 0.5], records="both")
    with pytest.raises(ValueError, match="prior gives output 1 probability 0"):
        fisher_information([[1.0, 0.0], [0.5, 0.5]], [1.0, 0.0])


def test_identifiable_means_rows_of_full_rank():
    from leakage.estimation.frequency import identifiable

    assert identifiable(np.eye(3)) and identifiable([[0.7, 0.3], [0.2, 0.8]])
    merged = [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.2, 0.8]]  # two categories with one row
    assert not identifiable(merged)
    assert not identifiable([[0.6, 0.4], [0.6, 0.4]]) and not identifiable([[1.0], [1.0]])


def test_default_intervals_cover_on_a_near_singular_channel_where_plain_wald_does_not():
    """A channel that releases category 0 exactly (its estimate is n_0 / m up to rounding, its
    variance 0) and mixes the others: 400 releases with a fixed seed. The default interval covers
    every category within [0.925, 0.975] (about 4 standard errors of the simulation); the plain
    Wald interval f_hat ± z se (computed here from the returned estimate and standard error) misses
    category 0 whenever the rounding of the estimate is not exactly zero."""
    from scipy.stats import norm

    from leakage.mechanisms.release import channel_output_counts

    channel = np.array([[1, 0, 0, 0, 0], [0, .5, .2, .2, .1], [0, .2, .5, .2, .1], [0, .2, .2, .5, .1]])
    counts = np.array([1234, 300, 500, 700])
    m = counts.sum()
    f = counts / m
    rng = np.random.default_rng(3)
    z = norm.ppf(0.975)
    default, wald, plain = [], [], []
    for _ in range(400):
        out = channel_output_counts(channel, counts, rng)
        est = estimate_frequencies_from_counts(out, channel)
        w = estimate_frequencies_from_counts(out, channel, interval="wald")
        default.append((est.lower <= f) & (f <= est.upper))
        wald.append((w.lower <= f) & (f <= w.upper))
        plain.append(np.abs(w.estimate - f) <= z * w.stderr)
    cover = np.mean(default, axis=0)
    assert cover[0] == 1.0 and np.all((cover[1:] >= 0.925) & (cover[1:] <= 0.975)), cover
    assert np.all(np.mean(wald, axis=0)[1:] >= 0.925)
    assert np.mean(plain, axis=0)[0] < 0.9  # the collapse the default avoids


def test_fitted_variance_is_the_formula_at_the_true_histogram():
    """At the true histogram and with the BLUE's weights, the fitted variance is the diagonal of
    frequency_covariance (records fixed), computed there from J^-1."""
    from leakage.estimation.frequency import _linear_estimator, _fitted_variance

    rng = np.random.default_rng(8)
    channel = rng.dirichlet(np.ones(7), size=4)
    f = np.array([0.4, 0.3, 0.2, 0.1])
    a = _linear_estimator(channel, np.ones(7, dtype=bool), f @ channel)
    np.testing.assert_allclose(_fitted_variance(a, channel, f, 50), np.diag(frequency_covariance(channel, f, 50)),
                               rtol=1e-10)


# ------------------------------------------------------------------ score intervals (the default)


def _rare_output_channel(mu):
    """Two categories of 5,000 records each that one common output cannot tell apart; a second
    output, used by category 0 with probability mu / (4 n) and by category 1 with 3 mu / (4 n),
    tells them apart: its count has mean mu and carries every category's variance."""
    n = 5000
    d0, d1 = mu / 4 / n, 3 * mu / 4 / n
    return np.array([[1 - d0, d0], [1 - d1, d1]]), np.array([n, n])


def _exact_coverage(channel, records, **kwargs):
    """Coverage of category 1's interval over every count of the rare output (the convolution of
    the two categories' binomials, exact to 1e-12), records fixed."""
    from scipy.stats import binom

    m = records.sum()
    f1 = records[1] / m
    top = 400
    pmf = np.convolve(binom.pmf(np.arange(top), records[0], channel[0, 1]),
                      binom.pmf(np.arange(top), records[1], channel[1, 1]))[:top]
    assert pmf.sum() > 1 - 1e-12
    covered = 0.0
    for c1 in np.flatnonzero(pmf > 1e-14):
        est = estimate_frequencies_from_counts(np.array([m - c1, c1]), channel, **kwargs)
        covered += pmf[c1] * float(est.lower[1] <= f1 <= est.upper[1])
    return covered


def test_score_intervals_cover_where_an_output_of_few_reports_carries_the_variance():
    """The under-coverage of near-singular designs, exactly (no simulation): the rare output's count
    is nearly Poisson with mean mu, from 0.3 to 100 (stratified on a log scale, seeded). A count's
    coverage jumps with mu (no interval of counts holds 0.95 exactly at every mu), so the band is
    widest where the count is smallest: the default score interval covers within [0.89, 0.98] below
    mu = 1, [0.93, 0.98] below 5, and [0.935, 0.97] from 5 on. The Wald intervals, whose variance
    sees the rare output only through its count, fall to a third at small mu and below 0.9 up to
    a mean of a few reports."""
    rng = np.random.default_rng(20261128)
    edges = np.log([0.3, 1, 3, 10, 30, 100])
    for lo, hi in zip(edges[:-1], edges[1:]):
        for mu in np.exp(rng.uniform(lo, hi, 2)):
            channel, records = _rare_output_channel(mu)
            score = _exact_coverage(channel, records)
            low, high = (0.89, 0.98) if mu < 1 else (0.93, 0.98) if mu < 5 else (0.935, 0.97)
            assert low <= score <= high, (mu, score)
            if mu < 4:
                assert _exact_coverage(channel, records, interval="fitted") < 0.9, mu
                assert _exact_coverage(channel, records, interval="wald") < 0.9, mu


def test_score_interval_ends_are_where_the_profile_statistic_reaches_z_squared():
    """Independent check of the profile (cvxpy, exponential cone): at each end theta of the default
    interval, the Poisson likelihood's maximum subject to sum_y A_xy q_y = theta gives the
    records-fixed variance V = (sum_y A_xy^2 q_y - theta) / m with (f_hat_x - theta)^2 / V = z^2,
    and halfway between the estimate and the end the statistic is below z^2; an end cut at 0 or 1
    is one the statistic never reached. Randomized response with an extra output of its own for a
    category of 20 records out of 300 (or 2 of 30), used with probability 0.01 to 0.05 (its count
    often 0: the mass of an unreported output is exercised), a fixed prior so that A is exactly
    linear, probed output by output."""
    from scipy.stats import norm

    z2 = norm.ppf(0.975) ** 2
    rng = np.random.default_rng(44)
    checked = capped = rare_zero = 0
    for _ in range(12):
        n = int(rng.integers(2, 5))
        rare = int(rng.integers(n))  # a category of few records with an output of its own
        small = np.where(np.arange(n) == rare, rng.uniform(0.01, 0.05), 0.0)
        channel = np.column_stack([randomized_response(n, rng.uniform(0.5, 8)) * (1 - small)[:, None], small])
        prior = np.full(n, 1 / n)
        weights = rng.dirichlet(np.ones(n))
        weights[rare] = 0.0
        few = int(rng.choice([20, 2]))  # 2: so few reports that the unreported outputs lead the profile
        records = rng.multinomial(15 * few - few, weights / weights.sum()) + few * (np.arange(n) == rare)
        counts = channel_output_counts(channel, records, rng)
        rare_zero += counts[-1] == 0
        m = int(counts.sum())
        est = estimate_frequencies_from_counts(counts, channel, prior=prior)
        a = np.column_stack([estimate_frequencies([y], channel, prior=prior).estimate for y in range(n + 1)])

        def statistic(x, theta):
            q = cp.Variable(n + 1, nonneg=True)
            seen = counts > 0
            objective = cp.Maximize(counts[seen] @ cp.log(q[seen]) - m * cp.sum(q))
            cp.Problem(objective, [a[x] @ q == theta]).solve(solver=cp.CLARABEL)
            return m * (est.estimate[x] - theta) ** 2 / (a[x] ** 2 @ q.value - theta)

        for x in range(n):
            f_hat = est.estimate[x]
            for end, cap in ((est.lower[x], min(f_hat, 0.0)), (est.upper[x], max(f_hat, 1.0))):
                if end == f_hat:  # the estimate itself lies beyond [0, 1] on this side
                    continue
                if end == cap:  # cut at [0, 1]: the test keeps every value up to the cap
                    assert statistic(x, cap + 1e-6 * np.sign(f_hat - cap)) < z2
                    capped += 1
                else:
                    assert statistic(x, end) == pytest.approx(z2, rel=2e-3)
                    assert statistic(x, (end + est.estimate[x]) / 2) < z2
                    checked += 1
    assert checked >= 20 and rare_zero >= 3, (checked, capped, rare_zero)


def test_score_interval_is_the_wald_interval_when_every_output_is_reported_often():
    """Many reports of every output: the score interval's ends agree with the fitted Wald ones to
    within a few percent of the width (the two differ at order 1 / sqrt(count))."""
    rng = np.random.default_rng(9)
    channel = randomized_response(5, 1.0)
    counts = channel_output_counts(channel, [40_000, 30_000, 20_000, 8_000, 2_000], rng)
    score = estimate_frequencies_from_counts(counts, channel)
    wald = estimate_frequencies_from_counts(counts, channel, interval="fitted")
    width = wald.upper - wald.lower
    np.testing.assert_allclose(score.lower, wald.lower, atol=0.03 * width.min())
    np.testing.assert_allclose(score.upper, wald.upper, atol=0.03 * width.min())
    np.testing.assert_array_equal(score.estimate, wald.estimate)
    np.testing.assert_array_equal(score.stderr, wald.stderr)
