"""Hadamard response (the ``hr`` frequency oracle, [acharya2019]) against pure-ldp's implementation
(its high-privacy scheme ``Hadamard_Rand_high_priv``, the same protocol: pure-ldp uses it at
eps <= 1 and a block scheme above), against the Sylvester Hadamard matrix built by Kronecker
products, against the estimator and variance of any channel, and by Monte Carlo with tolerances
from the variance of the sample variance.

Units: pure-ldp's server estimates counts; ours frequencies.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy.stats import chisquare

from leakage.estimation.frequency import fisher_information, frequency_covariance, frequency_mse
from leakage.measures.dp import ldp_epsilon
from leakage.mechanisms.frequency_oracles import (
    FrequencyOracle,
    _hadamard_supports,
    hadamard_response_channel,
    oracle_estimate,
    oracle_fisher_information,
    oracle_mse,
    oracle_perturb,
    oracle_sample_support_counts,
    oracle_support_counts,
    oracle_variance,
)

#: pure-ldp's client calls random.randint with a float bound (deprecated since Python 3.10)
pytestmark = pytest.mark.filterwarnings("ignore:non-integer arguments to randrange:DeprecationWarning")

K, EPS = 5, 1.0
VALUE_COUNTS = np.array([800, 600, 300, 200, 100])  # m = 2000 records, fixed


def _sylvester(size):
    """The size x size Sylvester Hadamard matrix, H_{2n} = [[H, H], [H, -H]] (np.kron)."""
    h = np.ones((1, 1))
    while h.shape[0] < size:
        h = np.kron(np.array([[1.0, 1.0], [1.0, -1.0]]), h)
    return h


def _reference_channel(k, eps):
    """HR's channel from its definition: uniform on C_x = {y : H[x + 1, y] = +1} w.p. e^eps /
    (e^eps + 1), uniform on the complement otherwise, K the power of two above k."""
    size = 2 ** math.ceil(math.log2(k + 1))
    rows = _sylvester(size)[1 : k + 1]
    return np.where(rows > 0, math.exp(eps), 1.0) / (math.exp(eps) + 1) / (size / 2)


def _prior(k, seed):
    rng = np.random.default_rng(seed)
    f = np.maximum(rng.dirichlet(np.full(k, 0.5)), 1e-3)
    return f / f.sum()


def _pure_ldp(eps, k):
    from pure_ldp.frequency_oracles.hadamard_response import HadamardResponseClient, HadamardResponseServer

    server = HadamardResponseServer(eps, k, index_mapper=lambda x: x)
    client = HadamardResponseClient(eps, k, server.get_hash_funcs(), index_mapper=lambda x: x)
    return client, server


def _variance_tolerance(samples, sigmas=5.0):
    """sigmas standard errors of the sample variance of each column: sqrt((mu4 - s^4) / R), the
    fourth central moment estimated from the samples."""
    centred = samples - samples.mean(axis=0)
    mu4 = np.mean(centred**4, axis=0)
    s2 = np.mean(centred**2, axis=0)
    return sigmas * np.sqrt(np.maximum(mu4 - s2**2, 0) / samples.shape[0])


# --- the protocol: pure-ldp's parameters, the Hadamard matrix, LDP ------------------------------


@pytest.mark.parametrize("k", [2, 3, 5, 7, 8, 12, 42])
def test_output_size_and_probability_are_pure_ldps_high_privacy_scheme(k):
    """K = the smallest power of two above k and the flip probability 1 / (e^eps + 1), as pure-ldp's
    Hadamard_Rand_high_priv (its scheme at eps <= 1); above eps = 1 pure-ldp switches to its block
    scheme (another protocol, with another K): not compared."""
    from pure_ldp.frequency_oracles.hadamard_response.internal.k2k_hadamard import (
        Hadamard_Rand_general_original,
        Hadamard_Rand_high_priv,
    )

    for eps in (0.3, 0.5, 1.0):
        client, _ = _pure_ldp(eps, k)
        assert isinstance(client.hr, Hadamard_Rand_high_priv)
        hr = FrequencyOracle("hr", k, eps)
        assert hr.hadamard_size == client.hr.outsz
        assert hr.p == pytest.approx(1 - client.hr.pri_para, rel=1e-14) and hr.q == 0.5
    assert isinstance(_pure_ldp(2.0, k)[0].hr, Hadamard_Rand_general_original)


@pytest.mark.parametrize("k", [2, 3, 5, 8, 15, 42])
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0, 20.0])
def test_channel_is_the_sylvester_rows_and_exactly_eps_ldp(k, eps):
    c = hadamard_response_channel(k, eps)
    np.testing.assert_allclose(c, _reference_channel(k, eps), rtol=1e-13, atol=0)
    np.testing.assert_allclose(c.sum(axis=1), 1.0, rtol=1e-13)
    assert ldp_epsilon(c) == pytest.approx(eps, rel=1e-12)
    hr = FrequencyOracle("hr", k, eps)
    # every other value's codewords meet C_x in half of them: q = 1/2 (the protocol is pure)
    supports = _sylvester(c.shape[1])[1 : k + 1] > 0
    own = np.sum(c * supports, axis=1)
    other = (c @ supports.T)[~np.eye(k, dtype=bool)]
    np.testing.assert_allclose(own, hr.p, rtol=1e-13)
    np.testing.assert_allclose(other, hr.q, rtol=1e-13)


def test_channel_at_infinite_eps_is_uniform_on_the_codewords():
    c = hadamard_response_channel(5, math.inf)
    np.testing.assert_allclose(c, _reference_channel(5, 50.0), atol=1e-20)
    assert ldp_epsilon(c) == math.inf
    f = VALUE_COUNTS / VALUE_COUNTS.sum()
    np.testing.assert_allclose(oracle_variance(FrequencyOracle("hr", 5, math.inf), f, 10), (1 - f) / 10, rtol=1e-14)


@pytest.mark.parametrize("k, eps", [(5, 0.5), (12, 1.0), (3, 2.0)])
def test_our_client_draws_from_the_channel(k, eps):
    """Per input value, 20,000 outputs of oracle_perturb against the channel's row (chi-square)."""
    rng = np.random.default_rng(k)
    hr = FrequencyOracle("hr", k, eps)
    c = _reference_channel(k, eps)
    n = 20_000
    y = oracle_perturb(hr, np.repeat(np.arange(k), n), rng).reshape(k, n)
    assert y.dtype == np.int64
    for x in range(k):
        counts = np.bincount(y[x], minlength=c.shape[1])
        assert chisquare(counts, n * c[x]).pvalue > 1e-4, (x, counts)


@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_pure_ldps_client_draws_from_our_channel(eps):
    """pure-ldp's client, 4,000 outputs per input value (seeded), against our channel's row."""
    random.seed(int(10 * eps))
    client, _ = _pure_ldp(eps, K)
    c = hadamard_response_channel(K, eps)
    for x in range(K):
        counts = np.bincount([client.privatise(x) for _ in range(4000)], minlength=c.shape[1])
        assert chisquare(counts, 4000 * c[x]).pvalue > 1e-4, (x, counts)


# --- the server: pure-ldp's estimate, the support counts ----------------------------------------


@pytest.mark.parametrize("k", [5, 130])  # pure-ldp sums the codewords directly up to 128, by FWHT above
def test_estimate_is_pure_ldps_server_on_our_reports(k):
    rng = np.random.default_rng(k)
    values = rng.integers(0, k, size=3000)
    for eps in (0.5, 1.0):
        hr = FrequencyOracle("hr", k, eps)
        reports = oracle_perturb(hr, values, rng)
        _, server = _pure_ldp(eps, k)
        for r in reports.tolist():
            server.aggregate(r)
        theirs = server.estimate_all(range(k), suppress_warnings=True)
        ours = oracle_estimate(hr, oracle_support_counts(hr, reports), values.size)
        np.testing.assert_allclose(ours.counts, theirs, rtol=1e-10, atol=1e-8)
        assert ours.method == "hr"


def test_support_counts_by_transform_and_by_codewords_are_the_counts():
    """Both ways of counting S_v (the Walsh-Hadamard transform, and per category over the distinct
    outputs) against the Sylvester matrix's rows, k = 100 (K = 128)."""
    rng = np.random.default_rng(7)
    k, size = 100, 128
    y = rng.integers(0, size, size=5000)
    want = (_sylvester(size)[1 : k + 1] > 0).astype(np.int64) @ np.bincount(y, minlength=size)
    np.testing.assert_array_equal(_hadamard_supports(y, k, size, fwht_max=size), want)
    np.testing.assert_array_equal(_hadamard_supports(y, k, size, fwht_max=0), want)
    np.testing.assert_array_equal(oracle_support_counts(FrequencyOracle("hr", k, 1.0), y), want)


# --- the variance: closed form, the channel's estimators, Monte Carlo ---------------------------


@pytest.mark.parametrize("k, eps", [(2, 1.0), (5, 0.5), (7, 1.0), (12, 2.0), (42, 1.0)])
def test_closed_form_variance_is_the_channels_variance_of_the_standard_estimate(k, eps):
    """The standard estimate is the linear estimate g_v(y) = H[v + 1, y] / (2p - 1) of the reports:
    unbiased for the channel (C G = I), and its exact variance from the channel, records fixed
    (sum_x f_x Var_{C_x} g_v) and iid (Var_q g_v), is oracle_variance's closed form."""
    c = _reference_channel(k, eps)
    hr = FrequencyOracle("hr", k, eps)
    g = _sylvester(c.shape[1])[1 : k + 1].T / (2 * hr.p - 1)  # K x k
    np.testing.assert_allclose(c @ g, np.eye(k), atol=1e-12)
    f = _prior(k, k)
    m = 100
    second = c @ g**2  # E[g_v(Y)^2 | x]
    fixed = (f @ (second - (c @ g) ** 2)) / m
    iid = (f @ second - f**2) / m
    np.testing.assert_allclose(oracle_variance(hr, f, m), fixed, rtol=1e-12)
    np.testing.assert_allclose(oracle_variance(hr, f, m, records="iid"), iid, rtol=1e-12)


@pytest.mark.parametrize("k, eps", [(2, 1.0), (5, 0.5), (7, 1.0), (12, 2.0), (42, 1.0)])
def test_the_channels_best_linear_estimate_beats_the_standard_one(k, eps):
    """frequency_covariance (the best linear unbiased estimate of HR's channel, weighted at the true
    output distribution) has every category's variance at most the standard estimate's and a
    strictly smaller total, also at k = K - 1 (7): the k x K channel leaves K - k free directions
    and the standard estimate's weights ignore the output distribution. The oracle's Fisher matrix
    is the channel's; its BLUE total is tr J^-1 - 1."""
    hr = FrequencyOracle("hr", k, eps)
    c = _reference_channel(k, eps)
    for f in (_prior(k, 3), np.full(k, 1 / k)):
        blue = np.diag(frequency_covariance(c, f))
        standard = oracle_variance(hr, f)
        assert np.all(blue <= standard * (1 + 1e-12))
        assert blue.sum() < standard.sum() * (1 - 1e-3)
        j = oracle_fisher_information(hr, f)
        np.testing.assert_allclose(j, fisher_information(c, f), rtol=1e-12)
        assert np.trace(np.linalg.inv(j)) - 1 == pytest.approx(frequency_mse(c, f), rel=1e-10)


def test_exact_variance_by_monte_carlo_records_fixed_and_iid():
    """4,000 releases of m = 2,000 records through our per-record client: per category the mean of
    the estimate is the truth (5 standard errors of the mean) and its sample variance is the exact
    variance within 5 standard errors of the sample variance, with the records fixed and with the
    records drawn iid from f each release (the target then is f)."""
    hr = FrequencyOracle("hr", K, EPS)
    m = int(VALUE_COUNTS.sum())
    f = VALUE_COUNTS / m
    rng = np.random.default_rng(11)
    reps = 4000
    fixed = np.array([oracle_estimate(hr, oracle_sample_support_counts(hr, VALUE_COUNTS, rng), m).estimate
                      for _ in range(reps)])
    iid = np.array([oracle_estimate(hr, oracle_sample_support_counts(hr, rng.multinomial(m, f), rng), m).estimate
                    for _ in range(reps)])
    for est, records in ((fixed, "fixed"), (iid, "iid")):
        var = oracle_variance(hr, f, m, records=records)
        assert np.all(np.abs(est.mean(axis=0) - f) < 5 * np.sqrt(var / reps)), records
        assert np.all(np.abs(est.var(axis=0) - var) < _variance_tolerance(est)), (records, est.var(axis=0), var)
    assert not np.allclose(oracle_variance(hr, f, m), oracle_variance(hr, f, m, records="iid"), rtol=0.05)


@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_pure_ldps_client_and_server_are_unbiased_with_our_variance(eps):
    """300 releases of m = 400 fixed records through pure-ldp's client and server (seeded): its
    estimate (counts / m) is unbiased and has our exact fixed-records variance, per category
    within 5 standard errors of the mean and of the sample variance; its total squared error
    has mean oracle_mse within 5 standard errors."""
    k, m, reps = 4, 400, 300
    counts = np.array([200, 120, 60, 20])
    values = np.repeat(np.arange(k), counts).tolist()
    f = counts / m
    random.seed(int(100 * eps))
    client, server = _pure_ldp(eps, k)
    est = np.empty((reps, k))
    for r in range(reps):
        server.reset()
        for v in values:
            server.aggregate(client.privatise(v))
        est[r] = server.estimate_all(range(k), suppress_warnings=True) / m
    hr = FrequencyOracle("hr", k, eps)
    var = oracle_variance(hr, f, m)
    assert np.all(np.abs(est.mean(axis=0) - f) < 5 * np.sqrt(var / reps)), (est.mean(axis=0), f)
    assert np.all(np.abs(est.var(axis=0) - var) < _variance_tolerance(est)), (est.var(axis=0), var)
    sq = np.sum((est - f) ** 2, axis=1)
    assert abs(sq.mean() - oracle_mse(hr, f, m)) < 5 * sq.std() / math.sqrt(reps)


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, name",
    [((1, 1.0), "n_categories"), ((2.5, 1.0), "n_categories"), ((10**12, 1.0), "n_categories"),
     ((4, 0.0), "eps"), ((4, -1.0), "eps"), ((4, math.nan), "eps"), ((4, "1"), "eps")],
)
def test_bad_channel_arguments_are_refused(args, name):
    with pytest.raises((ValueError, TypeError), match=name):
        hadamard_response_channel(*args)


def test_bad_reports_are_refused():
    hr = FrequencyOracle("hr", 5, 1.0)  # K = 8
    for reports in ([0, 8], [-1, 0], [[0, 1]], [], [0.5]):
        with pytest.raises((ValueError, TypeError), match="reports"):
            oracle_support_counts(hr, reports)
    with pytest.raises(ValueError, match="support_counts"):
        oracle_estimate(hr, [1, 2, 3, 4, 11], 10)
