"""Property-based tests (Hypothesis) of the leakage measures of the public API: random valid
inputs satisfy the invariants (leakage >= 0, the PML <= LDP <= inf order, bounds, stochastic
outputs, never NaN); random invalid inputs raise a ValueError/TypeError raised inside ``leakage``
that names the parameter. Profile and example database: tests/conftest.py."""

from __future__ import annotations

import math
import traceback

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import leakage
from strategies import broken_channels, channel_and_prior, channels, distributions


def raised_in_leakage(exc: BaseException) -> bool:
    """Whether the exception was raised by code of the leakage package (not numpy/scipy)."""
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and "/leakage/" in frames[-1].filename.replace("\\", "/")


def assert_clear_error(fn, *args, names, **kwargs):
    with pytest.raises((ValueError, TypeError)) as info:
        fn(*args, **kwargs)
    assert raised_in_leakage(info.value), f"raised outside leakage: {info.value!r}"
    assert any(n in str(info.value) for n in names), f"{info.value} does not name {names}"


@given(channel_and_prior())
def test_pml_is_nonnegative_finite_and_below_the_prior_bound(cp):
    channel, prior = cp
    leak = leakage.pointwise_maximal_leakage(channel, prior)
    out = leakage.output_distribution(channel, prior)
    assert np.all(np.isfinite(out)) and out.sum() == pytest.approx(1.0)
    used = out > 0
    assert np.all(leak[used] >= -1e-12) and not np.any(np.isnan(leak))
    eps = leakage.epsilon_min(channel, prior)
    assert 0.0 <= eps <= leakage.epsilon_max(prior) + 1e-9
    assert leakage.is_pml(channel, prior, eps)


@given(channel_and_prior())
def test_mutual_information_is_between_zero_and_the_entropies(cp):
    channel, prior = cp
    mi = leakage.mutual_information(channel, prior)
    assert math.isfinite(mi)
    assert -1e-12 <= mi <= min(leakage.entropy(prior), math.log(channel.shape[1])) + 1e-9


@given(channel_and_prior())
def test_leakage_order_mi_le_pml_le_ldp(cp):
    """I(X;Y) <= max_y PML (an average of the per-output divergences) <= LDP level."""
    channel, prior = cp
    pml = leakage.epsilon_min(channel, prior)
    ldp = leakage.ldp_epsilon(channel)
    assert ldp >= 0 and not math.isnan(ldp)
    assert pml <= ldp + 1e-9
    assert leakage.mutual_information(channel, prior) <= pml + 1e-9


@given(st.integers(1, 8), st.one_of(st.floats(0, 50), st.just(math.inf)))
def test_randomized_response_is_a_channel_with_ldp_level_eps(n, eps):
    rr = leakage.randomized_response(n, eps)
    assert np.all(np.isfinite(rr)) and np.allclose(rr.sum(axis=1), 1.0)
    if n >= 2 and math.isfinite(eps) and eps < 30:
        assert leakage.ldp_epsilon(rr) == pytest.approx(eps, abs=1e-9)
    assert leakage.is_ldp(rr, eps)


@given(distributions(tiny=True, max_n=6))
def test_tiny_probabilities_give_finite_answers(prior):
    """Entries down to 1e-300 (valid extremes): entropy and epsilon_max finite, no NaN."""
    assert math.isfinite(leakage.entropy(prior)) and leakage.entropy(prior) >= 0
    assert math.isfinite(leakage.epsilon_max(prior))
    rr = leakage.randomized_response(prior.size, 1.0)
    assert 0.0 <= leakage.epsilon_min(rr, prior) <= 1.0 + 1e-9


@given(channels(), st.data())
def test_capacity_is_below_log_alphabets_and_above_mi(channel, data):
    cap = leakage.channel_capacity(channel)[0]
    prior = data.draw(distributions(n=channel.shape[0]))
    assert math.isfinite(cap)
    assert leakage.mutual_information(channel, prior) <= cap + 1e-6
    assert cap <= math.log(min(channel.shape)) + 1e-9


@given(broken_channels(), st.data())
def test_an_invalid_channel_is_refused_naming_it(bad, data):
    prior = data.draw(distributions(n=2))
    for fn in (leakage.ldp_epsilon, leakage.channel_capacity):
        assert_clear_error(fn, bad, names=["channel"])
    assert_clear_error(leakage.pointwise_maximal_leakage, bad, prior, names=["channel", "prior"])
    assert_clear_error(leakage.mutual_information, bad, prior, names=["channel", "prior"])


@given(channels(), st.sampled_from(["nan", "neg", "sum", "len", "2d"]))
def test_an_invalid_prior_is_refused_naming_it(channel, kind):
    n = channel.shape[0]
    prior = np.full(n, 1.0 / n)
    bad = {
        "nan": np.where(np.arange(n) == 0, math.nan, prior),
        "neg": prior + np.where(np.arange(n) == 0, -2.0, 2.0 / (n - 1)),
        "sum": prior * 1.5,
        "len": np.full(n + 1, 1.0 / (n + 1)),
        "2d": np.atleast_2d(prior),
    }[kind]
    for fn in (leakage.pointwise_maximal_leakage, leakage.mutual_information, leakage.epsilon_min):
        assert_clear_error(fn, channel, bad, names=["prior"])


@given(channel_and_prior(), st.sampled_from([math.nan, -0.5, 0.0, math.inf, -math.inf, "x"]))
def test_an_invalid_tolerance_is_refused(cp, bad):
    channel, prior = cp
    assert_clear_error(leakage.is_pml, channel, prior, 1.0, tol=bad, names=["tol"])
    assert_clear_error(leakage.is_ldp, channel, 1.0, tol=bad, names=["tol"])
    assert_clear_error(leakage.channel_capacity, channel, tol=bad, names=["tol"])


@given(channel_and_prior(), st.sampled_from([math.nan, -0.5, -math.inf, "x", None]))
def test_an_invalid_eps_is_refused(cp, bad):
    channel, prior = cp
    assert_clear_error(leakage.is_pml, channel, prior, bad, names=["eps"])
    assert_clear_error(leakage.is_ldp, channel, bad, names=["eps"])
    assert_clear_error(leakage.randomized_response, 3, bad, names=["eps"])


@given(st.one_of(st.just(0), st.just(-3), st.just(2.5), st.just(math.nan), st.just("3"), st.just(True)))
def test_an_invalid_count_is_refused(n):
    assert_clear_error(leakage.randomized_response, n, 1.0, names=["n_outputs"])


@given(st.sampled_from([10**6, 10**9]))
def test_a_size_that_cannot_fit_is_refused_before_allocating(n):
    from leakage.experiments.statistical_inference.counting_query import squared_error
    from leakage.experiments.statistical_inference.theorem4 import truncated_geometric_channel

    assert_clear_error(leakage.randomized_response, n, 1.0, names=["n_outputs"])
    assert_clear_error(leakage.k_singular_mechanism, n, 2, names=["n_symbols"])
    assert_clear_error(squared_error, n, names=["n"])
    assert_clear_error(truncated_geometric_channel, n, 1.0, names=["n"])
