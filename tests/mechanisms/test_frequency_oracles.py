"""The LDP frequency oracles (leakage.mechanisms.frequency_oracles) against two independent
libraries, pure-ldp and multi-freq-ldpy (the same probabilities and variance formulas, the same
estimates on the same reports, their clients' supports), against the estimator for any channel
(GRR is randomized response), against subset selection's probabilities by enumerating the
subsets, against the SplitMix64 reference outputs, and by Monte Carlo: the per-record clients
against the exact variances and the exact fast samplers against the per-record clients.

Units: the libraries' servers estimate counts (pure-ldp) or frequencies normalised onto the
simplex (multi-freq-ldpy's ``*_Aggregator_MI``); ours estimates frequencies, unnormalised.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import xxhash

from leakage.estimation.frequency import estimate_frequencies, frequency_mse
from leakage.measures.dp import randomized_response
from leakage.mechanisms.frequency_oracles import (
    ORACLES,
    FrequencyOracle,
    olh_hash,
    olh_hash_range,
    oracle_approximate_variance,
    oracle_estimate,
    oracle_mse,
    oracle_perturb,
    oracle_sample_support_counts,
    oracle_support_counts,
    oracle_variance,
)

K, EPS = 5, 1.0
VALUE_COUNTS = np.array([800, 600, 300, 200, 100])  # n = 2000 records, fixed


def _values():
    return np.repeat(np.arange(K), VALUE_COUNTS)


def _clip_normalise(f):
    """multi-freq-ldpy's post-processing of its estimates (``MI``): clip at 0, divide by the sum."""
    f = np.clip(f, 0, None)
    return f / f.sum()


def _xxhash_supports(reports, k, g):
    """Support counts of (value, seed) local-hashing reports as both libraries hash: xxh32 of
    str(category) with the report's seed, modulo g."""
    s = np.zeros(k, dtype=np.int64)
    for y, seed in reports:
        for v in range(k):
            s[v] += xxhash.xxh32(str(v), seed=seed).intdigest() % g == y
    return s


# --- the protocols' parameters -------------------------------------------------------------------


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 4.0])
def test_probabilities_and_hash_range_are_pure_ldps(eps):
    from pure_ldp.frequency_oracles.direct_encoding import DEClient
    from pure_ldp.frequency_oracles.local_hashing import LHClient
    from pure_ldp.frequency_oracles.unary_encoding import UEClient

    de = DEClient(eps, K, index_mapper=lambda x: x)
    grr = FrequencyOracle("grr", K, eps)
    assert (grr.p, grr.q) == pytest.approx((de.p, de.q), rel=1e-12)
    ue = UEClient(eps, K, use_oue=True, index_mapper=lambda x: x)
    oue = FrequencyOracle("oue", K, eps)
    assert (oue.p, oue.q) == pytest.approx((ue.p, ue.q), rel=1e-12)
    lh = LHClient(eps, K, use_olh=True, index_mapper=lambda x: x)
    olh = FrequencyOracle("olh", K, eps)
    assert olh.hash_range == lh.g == olh_hash_range(eps)
    # pure-ldp's client q is GRR's on g values; the support probability of another value is 1/g
    assert olh.p == pytest.approx(lh.p, rel=1e-12) and olh.q == pytest.approx(1 / lh.g, rel=1e-15)


@pytest.mark.parametrize("name", ORACLES)
@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_variances_are_multi_freq_ldpys_formula(name, eps):
    """``VAR_Pure(p, q, n, f)`` of multi-freq-ldpy is the exact variance with the records fixed;
    with f = 0 it is [wang2017]'s approximation."""
    from multi_freq_ldpy.pure_frequency_oracles.Variance_PURE import VAR_Pure

    oracle = FrequencyOracle(name, K, eps)
    f = VALUE_COUNTS / VALUE_COUNTS.sum()
    n = int(VALUE_COUNTS.sum())
    theirs = np.array([VAR_Pure(oracle.p, oracle.q, n, fv) for fv in f])
    np.testing.assert_allclose(oracle_variance(oracle, f, n), theirs, rtol=1e-12)
    assert oracle_approximate_variance(oracle, n) == pytest.approx(VAR_Pure(oracle.p, oracle.q, n, 0), rel=1e-12)


def test_the_mse_numbers_of_the_issue_in_counts_squared_per_record():
    """k = 5, eps = 1: n * total variance = 19.41 (OUE) and 19.68 (OLH), the totals the issue's
    Monte Carlo numbers compare with; [wang2017]'s approximation gives k q(1-q)/(p-q)^2."""
    f = VALUE_COUNTS / VALUE_COUNTS.sum()
    for name, total in (("oue", (0.25 + 4 * _oue_q() * (1 - _oue_q())) / (0.5 - _oue_q()) ** 2),):
        assert oracle_mse(FrequencyOracle(name, K, EPS), f, 1) == pytest.approx(total, rel=1e-12)
    olh = FrequencyOracle("olh", K, EPS)
    g = round(math.e) + 1
    p, q = math.e / (math.e + g - 1), 1 / g
    assert oracle_mse(olh, f, 1) == pytest.approx((p * (1 - p) + 4 * q * (1 - q)) / (p - q) ** 2, rel=1e-12)
    # the approximation misses (1 - p - q) / (p - q) in total
    gap = oracle_mse(olh, f, 1) - K * oracle_approximate_variance(olh, 1)
    assert gap == pytest.approx((1 - p - q) / (p - q), rel=1e-12)


def _oue_q():
    return 1 / (math.e + 1)


def test_grr_is_randomized_response_and_its_estimate_is_the_channels_inverse():
    """GRR's oracle estimate and standard errors equal the unbiased estimate for the randomized-
    response channel (square: its inverse), and its variance is that channel's (tr J^-1 - 1)/m."""
    oracle = FrequencyOracle("grr", K, EPS)
    reports = oracle_perturb(oracle, _values(), np.random.default_rng(0))
    ours = oracle_estimate(oracle, oracle_support_counts(oracle, reports), reports.size)
    general = estimate_frequencies(reports, randomized_response(K, EPS))
    np.testing.assert_allclose(ours.estimate, general.estimate, atol=1e-12)
    np.testing.assert_allclose(ours.stderr, general.stderr, rtol=1e-9)
    f = VALUE_COUNTS / VALUE_COUNTS.sum()
    n = int(VALUE_COUNTS.sum())
    assert oracle_mse(oracle, f, n) == pytest.approx(frequency_mse(randomized_response(K, EPS), f, n), rel=1e-10)
    assert oracle_mse(oracle, f, n, records="iid") == pytest.approx(
        frequency_mse(randomized_response(K, EPS), f, n, records="iid"), rel=1e-10
    )


# --- the same estimates on the same reports ------------------------------------------------------


def test_grr_and_oue_estimates_are_pure_ldps_servers_on_our_reports():
    from pure_ldp.frequency_oracles.direct_encoding import DEServer
    from pure_ldp.frequency_oracles.unary_encoding import UEServer

    rng = np.random.default_rng(1)
    n = int(VALUE_COUNTS.sum())
    grr = FrequencyOracle("grr", K, EPS)
    reports = oracle_perturb(grr, _values(), rng)
    server = DEServer(EPS, K, index_mapper=lambda x: x)
    server.aggregate_all(reports.tolist())
    theirs = server.estimate_all(range(K), suppress_warnings=True)
    ours = oracle_estimate(grr, oracle_support_counts(grr, reports), n)
    np.testing.assert_allclose(ours.counts, theirs, rtol=1e-10)

    oue = FrequencyOracle("oue", K, EPS)
    bits = oracle_perturb(oue, _values(), rng)
    server = UEServer(EPS, K, use_oue=True, index_mapper=lambda x: x)
    server.aggregate_all(list(bits.astype(int)))
    theirs = server.estimate_all(range(K), suppress_warnings=True)
    ours = oracle_estimate(oue, oracle_support_counts(oue, bits), n)
    np.testing.assert_allclose(ours.counts, theirs, rtol=1e-10)


def test_grr_and_oue_estimates_are_multi_freq_ldpys_after_its_normalisation():
    """multi-freq-ldpy's ``*_Aggregator_MI`` clip at 0 and renormalise: ours, post-processed the
    same way, on the same reports."""
    from multi_freq_ldpy.pure_frequency_oracles.GRR import GRR_Aggregator_MI
    from multi_freq_ldpy.pure_frequency_oracles.UE import UE_Aggregator_MI

    rng = np.random.default_rng(2)
    n = int(VALUE_COUNTS.sum())
    for eps in (0.2, 1.0):  # at 0.2 some estimates are negative: the clip matters
        grr = FrequencyOracle("grr", K, eps)
        reports = oracle_perturb(grr, _values(), rng)
        ours = oracle_estimate(grr, oracle_support_counts(grr, reports), n).estimate
        np.testing.assert_allclose(_clip_normalise(ours), GRR_Aggregator_MI(reports.tolist(), K, eps), atol=1e-12)
        oue = FrequencyOracle("oue", K, eps)
        bits = oracle_perturb(oue, _values(), rng)
        ours = oracle_estimate(oue, oracle_support_counts(oue, bits), n).estimate
        np.testing.assert_allclose(_clip_normalise(ours), UE_Aggregator_MI(bits.astype(int), eps), atol=1e-12)


def test_olh_estimate_is_both_libraries_on_their_own_reports():
    """OLH reports of pure-ldp's client (xxhash): the support counts hashed here as the libraries
    hash, our estimator gives pure-ldp's server's counts and, normalised, multi-freq-ldpy's."""
    from multi_freq_ldpy.pure_frequency_oracles.LH import LH_Aggregator_MI
    from pure_ldp.frequency_oracles.local_hashing import LHClient, LHServer

    random.seed(3)
    np.random.seed(3)
    client = LHClient(EPS, K, use_olh=True, index_mapper=lambda x: x)
    reports = [client.privatise(int(v)) for v in _values()]
    server = LHServer(EPS, K, use_olh=True, index_mapper=lambda x: x)
    server.aggregate_all(reports)
    theirs = server.estimate_all(range(K), suppress_warnings=True)
    olh = FrequencyOracle("olh", K, EPS)
    supports = _xxhash_supports(reports, K, olh.hash_range)
    ours = oracle_estimate(olh, supports, len(reports))
    np.testing.assert_allclose(ours.counts, theirs, rtol=1e-10)
    np.testing.assert_allclose(_clip_normalise(ours.estimate), LH_Aggregator_MI(reports, K, EPS), atol=1e-12)


def test_the_libraries_clients_support_what_the_formulas_say():
    """pure-ldp's OUE and OLH clients on 20,000 records: every category's support count has the
    exact mean m (f p + (1 - f) q) and variance of our formulas (z-scores below 5 at a fixed seed)."""
    from pure_ldp.frequency_oracles.local_hashing import LHClient
    from pure_ldp.frequency_oracles.unary_encoding import UEClient

    random.seed(4)
    np.random.seed(4)
    values = np.repeat(_values(), 10)
    m = values.size
    f = VALUE_COUNTS / VALUE_COUNTS.sum()
    ue = UEClient(EPS, K, use_oue=True, index_mapper=lambda x: x)
    lh = LHClient(EPS, K, use_olh=True, index_mapper=lambda x: x)
    oue, olh = FrequencyOracle("oue", K, EPS), FrequencyOracle("olh", K, EPS)
    supports = {
        oue: np.sum([ue.privatise(int(v)) for v in values], axis=0),
        olh: _xxhash_supports([lh.privatise(int(v)) for v in values], K, olh.hash_range),
    }
    for oracle, s in supports.items():
        mean = m * (f * oracle.p + (1 - f) * oracle.q)
        var = m * (f * oracle.p * (1 - oracle.p) + (1 - f) * oracle.q * (1 - oracle.q))
        assert np.all(np.abs(s - mean) / np.sqrt(var) < 5), (oracle.name, (s - mean) / np.sqrt(var))


# --- Monte Carlo: our clients, the fast samplers -------------------------------------------------


def _mc_squared_errors(oracle, reps, rng, sampler):
    f = VALUE_COUNTS / VALUE_COUNTS.sum()
    n = int(VALUE_COUNTS.sum())
    out = np.empty(reps)
    for r in range(reps):
        if sampler:
            s = oracle_sample_support_counts(oracle, VALUE_COUNTS, rng)
        else:
            s = oracle_support_counts(oracle, oracle_perturb(oracle, _values(), rng))
        out[r] = np.sum((oracle_estimate(oracle, s, n).estimate - f) ** 2)
    return n * out  # counts^2 per record, the issue's unit


@pytest.mark.parametrize("name", ORACLES)
def test_per_record_clients_have_the_exact_mse(name):
    """k = 5, n = 2,000, eps = 1, 1,000 releases of the same records through our client: the mean
    of n * sum_v (f_hat_v - f_v)^2 agrees with n * oracle_mse within 5 standard errors."""
    oracle = FrequencyOracle(name, K, EPS)
    sq = _mc_squared_errors(oracle, 1000, np.random.default_rng(5), sampler=False)
    theory = oracle_mse(oracle, VALUE_COUNTS / VALUE_COUNTS.sum(), 1)
    assert abs(sq.mean() - theory) < 5 * sq.std() / math.sqrt(sq.size), (sq.mean(), theory)


@pytest.mark.parametrize("name", ["grr", "oue", "olh"])
def test_the_fast_sampler_agrees_with_the_per_record_client(name):
    """Support counts from the exact fast sampler (multinomial / binomial counts) and from the
    per-record client: per category the same mean and variance, both the exact ones (5 standard
    errors at fixed seeds), and the same MSE."""
    oracle = FrequencyOracle(name, K, EPS)
    rng = np.random.default_rng(6)
    reps = 2000
    fast = np.array([oracle_sample_support_counts(oracle, VALUE_COUNTS, rng) for _ in range(reps)])
    slow = np.array([oracle_support_counts(oracle, oracle_perturb(oracle, _values(), rng)) for _ in range(reps)])
    n = int(VALUE_COUNTS.sum())
    f = VALUE_COUNTS / n
    mean = n * (f * oracle.p + (1 - f) * oracle.q)
    var = n * (f * oracle.p * (1 - oracle.p) + (1 - f) * oracle.q * (1 - oracle.q))
    for s in (fast, slow):
        assert np.all(np.abs(s.mean(axis=0) - mean) < 5 * np.sqrt(var / reps))
        # the sample variance of 2000 draws: relative standard error about sqrt(2/2000) = 3 %
        assert np.all(np.abs(s.var(axis=0, ddof=1) / var - 1) < 5 * math.sqrt(2 / reps))
    if name == "grr":
        assert np.all(fast.sum(axis=1) == n) and np.all(slow.sum(axis=1) == n)


def test_olh_supports_of_different_categories_are_uncorrelated_per_record():
    """The fast OLH sampler draws the categories' support counts independently (the ideal hash
    family's model): the per-record client's counts of different categories are uncorrelated
    (2,000 releases: every correlation within 5 standard errors, 1 / sqrt(2000) each)."""
    oracle = FrequencyOracle("olh", K, EPS)
    rng = np.random.default_rng(9)
    slow = np.array([oracle_support_counts(oracle, oracle_perturb(oracle, _values(), rng)) for _ in range(2000)])
    corr = np.corrcoef(slow.T)
    off = corr[~np.eye(K, dtype=bool)]
    assert np.all(np.abs(off) < 5 / math.sqrt(2000)), off


def test_coverage_of_the_oracle_intervals():
    rng = np.random.default_rng(10)
    n = int(VALUE_COUNTS.sum())
    f = VALUE_COUNTS / n
    for name in ("grr", "oue"):
        oracle = FrequencyOracle(name, K, EPS)
        covered = np.array([
            (lambda e: (e.lower <= f) & (f <= e.upper))(oracle_estimate(oracle, oracle_sample_support_counts(oracle, VALUE_COUNTS, rng), n))
            for _ in range(2000)
        ])
        assert np.all(np.abs(covered.mean(axis=0) - 0.95) < 5 * math.sqrt(0.95 * 0.05 / 2000)), covered.mean(axis=0)


# --- subset selection ---------------------------------------------------------------------------

SS_K = 12  # at eps = 1 the subsets have d = round(12 / (e + 1)) = 3 categories


@pytest.mark.parametrize("k, eps", [(5, 0.3), (12, 1.0), (7, 0.05), (12, 3.0)])
def test_subset_selection_probabilities_by_enumerating_the_subsets(k, eps):
    """P(v in Z) for the reporter's value and another, summing over every d-subset Z its
    probability, proportional to e^eps if it contains the value and 1 if not [ye2018]."""
    from itertools import combinations

    ss = FrequencyOracle("ss", k, eps)
    d = ss.subset_size
    assert d == max(1, int(np.rint(k / (math.exp(eps) + 1))))
    weights = {z: math.exp(eps) if 0 in z else 1.0 for z in combinations(range(k), d)}
    total = sum(weights.values())
    assert ss.p == pytest.approx(sum(w for z, w in weights.items() if 0 in z) / total, rel=1e-12)
    assert ss.q == pytest.approx(sum(w for z, w in weights.items() if 1 in z) / total, rel=1e-12)


def test_subset_selection_is_multi_freq_ldpys_on_the_same_reports():
    """Our SS reports through multi-freq-ldpy's ``SS_Aggregator_MI`` (its d, p, q; clip and
    renormalise) equal our estimate post-processed the same way; its client (``SS_Client``, as
    plain Python) supports what our formulas say."""
    from multi_freq_ldpy.pure_frequency_oracles.SS import SS_Aggregator_MI, SS_Client

    values = np.repeat(np.arange(SS_K), np.arange(SS_K, 0, -1) * 20)
    m = values.size
    f = np.bincount(values, minlength=SS_K) / m
    rng = np.random.default_rng(13)
    for eps in (0.3, 1.0):
        ss = FrequencyOracle("ss", SS_K, eps)
        reports = oracle_perturb(ss, values, rng)
        ours = oracle_estimate(ss, oracle_support_counts(ss, reports), m).estimate
        np.testing.assert_allclose(_clip_normalise(ours), SS_Aggregator_MI(list(reports), SS_K, eps), atol=1e-12)
    np.random.seed(14)
    ss = FrequencyOracle("ss", SS_K, 1.0)
    theirs = np.bincount(np.concatenate([SS_Client.py_func(int(v), SS_K, 1.0) for v in np.tile(values, 5)]), minlength=SS_K)
    n = 5 * m
    mean = n * (f * ss.p + (1 - f) * ss.q)
    var = n * (f * ss.p * (1 - ss.p) + (1 - f) * ss.q * (1 - ss.q))
    assert np.all(np.abs(theirs - mean) / np.sqrt(var) < 5)


def test_subset_selection_client_has_the_exact_mse():
    ss = FrequencyOracle("ss", SS_K, 1.0)
    values = np.repeat(np.arange(SS_K), np.arange(SS_K, 0, -1) * 20)
    m = values.size
    f = np.bincount(values, minlength=SS_K) / m
    rng = np.random.default_rng(15)
    sq = np.array([
        np.sum((oracle_estimate(ss, oracle_sample_support_counts(ss, np.bincount(values, minlength=SS_K), rng), m).estimate - f) ** 2)
        for _ in range(1000)
    ])
    assert abs(sq.mean() - oracle_mse(ss, f, m)) < 5 * sq.std() / math.sqrt(sq.size)
    reports = oracle_perturb(ss, values, rng)
    assert reports.shape == (m, 3) and np.all(np.diff(np.sort(reports, axis=1), axis=1) > 0)


# --- the OLH hash --------------------------------------------------------------------------------


def test_olh_hash_is_splitmix64():
    """The first five outputs of SplitMix64 seeded with 1234567 (the published reference values,
    e.g. Rosetta Code's "Pseudo-random numbers/Splitmix64"), modulo g."""
    reference = [6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431, 16408922859458223821]
    for g in (2, 3, 4, 7, 1000, 2**31):
        got = olh_hash(np.uint64(1234567), np.arange(5), g)
        assert got.tolist() == [r % g for r in reference]


def test_olh_hash_collides_with_probability_one_over_g():
    """Over 200,000 random seeds: H(0) is uniform on [0, g) (chi-square) and H(u) = H(v) for
    u != v with frequency 1/g (5 standard errors)."""
    from scipy.stats import chisquare

    rng = np.random.default_rng(12)
    seeds = rng.integers(0, 2**64, size=200_000, dtype=np.uint64)
    g = 4
    h = [olh_hash(seeds, v, g) for v in range(6)]
    assert chisquare(np.bincount(h[0], minlength=g)).pvalue > 1e-4
    se = math.sqrt((1 / g) * (1 - 1 / g) / seeds.size)
    for u in range(6):
        for v in range(u + 1, 6):
            assert abs(np.mean(h[u] == h[v]) - 1 / g) < 5 * se


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, name",
    [
        (("rr", 5, 1.0), "name"),
        (("grr", 1, 1.0), "n_categories"),
        (("grr", 2.5, 1.0), "n_categories"),
        (("oue", 5, 0.0), "eps"),
        (("oue", 5, math.nan), "eps"),
        (("oue", 5, "1"), "eps"),
        (("olh", 5, math.inf), "eps"),
        (("olh", 5, 30.0), "eps"),
    ],
)
def test_bad_oracles_are_refused(args, name):
    with pytest.raises((ValueError, TypeError), match=name):
        FrequencyOracle(*args)


def test_infinite_eps():
    """eps = inf: GRR reports the truth (exact estimate, zero variance); OUE keeps its 1 with
    probability 1/2 and never flips a 0 (q = 0)."""
    n = int(VALUE_COUNTS.sum())
    f = VALUE_COUNTS / n
    grr = FrequencyOracle("grr", K, math.inf)
    s = oracle_sample_support_counts(grr, VALUE_COUNTS, np.random.default_rng(0))
    np.testing.assert_array_equal(s, VALUE_COUNTS)
    np.testing.assert_allclose(oracle_estimate(grr, s, n).estimate, f)
    assert oracle_mse(grr, f, n) == 0.0
    oue = FrequencyOracle("oue", K, math.inf)
    assert (oue.p, oue.q) == (0.5, 0.0)
    assert oracle_mse(oue, f, n) == pytest.approx(1 / n)  # sum_v f_v (1/4) / (1/4) / n


def test_bad_reports_values_and_counts_are_refused():
    rng = np.random.default_rng(0)
    grr, oue, olh, ss, hr = (FrequencyOracle(n, K, EPS) for n in ORACLES)
    cases = [
        (lambda: oracle_perturb(grr, [0, 5], rng), "values"),
        (lambda: oracle_perturb(grr, [0, 1], "rng"), "rng"),
        (lambda: oracle_perturb("grr", [0, 1], rng), "oracle"),
        (lambda: oracle_support_counts(grr, [0, 7]), "reports"),
        (lambda: oracle_support_counts(oue, np.zeros((3, 4))), "reports"),
        (lambda: oracle_support_counts(oue, np.full((3, 5), 2)), "reports"),
        (lambda: oracle_support_counts(olh, np.zeros((3, 3), dtype=np.uint64)), "reports"),
        (lambda: oracle_support_counts(olh, np.array([[1, 9]], dtype=np.uint64)), "reports"),
        (lambda: oracle_support_counts(ss, [[0, 1]]), "reports"),
        (lambda: oracle_support_counts(ss, [[7]]), "reports"),
        (lambda: oracle_support_counts(FrequencyOracle("ss", 12, EPS), [[1, 1, 2]]), "reports"),
        (lambda: oracle_support_counts(hr, [0, 8]), "reports"),  # K = 8 outputs for k = 5
        (lambda: oracle_support_counts(hr, [[0, 1]]), "reports"),
        (lambda: oracle_sample_support_counts(oue, [1, 2, 3], rng), "value_counts"),
        (lambda: oracle_estimate(oue, [1, 2, 3, 4, 50], 10), "support_counts"),
        (lambda: oracle_estimate(grr, [1, 2, 3, 4, 5], 10), "support_counts"),
        (lambda: oracle_estimate(oue, [1, 2, 3, 4, 5], 0), "m"),
        (lambda: oracle_estimate(oue, [1, 2, 3, 4, 5], 10, confidence=1.5), "confidence"),
        (lambda: oracle_variance(oue, [0.5, 0.5], 10), "prior"),
        (lambda: oracle_variance(oue, [0.2] * 5, 10, records="all"), "records"),
        (lambda: olh_hash(np.uint64(1), [-1], 4), "values"),
        (lambda: olh_hash(np.uint64(1), [1], 0), "hash_range"),
        (lambda: olh_hash([-3], [1], 4), "seeds"),
    ]
    for call, name in cases:
        with pytest.raises((ValueError, TypeError), match=name):
            call()


# --- the oracles' Fisher matrices (the design engine's blocks) -----------------------------------


def _enumerated_subset_channel(k, eps, d):
    """SS_d's channel with its C(k, d) outputs listed: P(S | x) proportional to e^eps on S."""
    import itertools

    subsets = list(itertools.combinations(range(k), d))
    ch = np.ones((k, len(subsets)))
    for i, s in enumerate(subsets):
        ch[list(s), i] = math.exp(eps)
    return ch / ch.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("k, eps", [(5, 0.7), (7, 2.0), (6, 5.0)])
def test_subset_fisher_informations_are_the_enumerated_channels(k, eps):
    from leakage.estimation.frequency import fisher_information
    from leakage.mechanisms.frequency_oracles import subset_fisher_informations

    rng = np.random.default_rng(k)
    p = np.maximum(rng.dirichlet(np.full(k, 0.3)), 2e-5)
    p /= p.sum()
    js = subset_fisher_informations(p, eps)
    for d in range(k + 1):
        want = fisher_information(_enumerated_subset_channel(k, eps, d), p)
        np.testing.assert_allclose(js[d], want, rtol=1e-11, atol=1e-12 * np.abs(want).max())


def test_subset_fisher_informations_at_real_sizes_satisfy_j_prior_is_one():
    """J f = C diag(q)^-1 q = 1 for the channel's own prior: every size, k = 42, a heavy tail."""
    from leakage.mechanisms.frequency_oracles import subset_fisher_informations

    rng = np.random.default_rng(42)
    p = np.maximum(rng.dirichlet(np.full(42, 0.2)), 2e-5)
    p /= p.sum()
    js = subset_fisher_informations(p, 2.0)
    np.testing.assert_allclose(js @ p, 1.0, rtol=1e-11)
    assert np.all(np.linalg.eigvalsh(js[1:-1]) > 0)


def test_oracle_fisher_information_is_the_enumerated_oracle_and_beats_its_standard_estimate():
    """OUE's 2^k outputs enumerated (a bit vector, P = prod of the bits' probabilities); GRR is
    randomized response; with a uniform prior SS's best linear unbiased variance is its standard
    one (symmetry), otherwise at most it, like every oracle's."""
    import itertools

    from leakage.estimation.frequency import fisher_information
    from leakage.mechanisms.frequency_oracles import oracle_fisher_information

    k, eps = 5, 1.3
    rng = np.random.default_rng(5)
    p = np.maximum(rng.dirichlet(np.full(k, 0.4)), 2e-5)
    p /= p.sum()
    oue = FrequencyOracle("oue", k, eps)
    bits = np.array(list(itertools.product([0, 1], repeat=k)), dtype=bool)  # outputs x letters
    ch = np.ones((k, bits.shape[0]))
    for x in range(k):
        own = np.where(bits[:, x], oue.p, 1 - oue.p)
        others = np.prod(np.where(bits, oue.q, 1 - oue.q), axis=1) / np.where(bits[:, x], oue.q, 1 - oue.q)
        ch[x] = own * others
    np.testing.assert_allclose(ch.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(oracle_fisher_information(oue, p), fisher_information(ch, p), rtol=1e-10)
    grr = FrequencyOracle("grr", k, eps)
    np.testing.assert_allclose(oracle_fisher_information(grr, p), fisher_information(randomized_response(k, eps), p),
                               rtol=1e-10)
    for name in ORACLES:
        o = FrequencyOracle(name, 9, eps)
        u = np.full(9, 1 / 9)
        q = np.maximum(rng.dirichlet(np.full(9, 0.3)), 2e-5)
        q /= q.sum()
        blue = np.trace(np.linalg.inv(oracle_fisher_information(o, q))) - 1
        assert blue <= oracle_mse(o, q) * (1 + 1e-10)
        if name in ("grr", "ss"):
            assert np.trace(np.linalg.inv(oracle_fisher_information(o, u))) - 1 == pytest.approx(oracle_mse(o, u),
                                                                                                  rel=1e-9)
