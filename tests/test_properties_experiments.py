"""Property-based tests (Hypothesis) of the experiments modules: the papers' programs keep their
invariants on random instances (checked against independent computations: closed forms, the
other solver, brute force), and random bad settings values are refused inside ``leakage`` naming
the key. Profile and example database: tests/conftest.py; strategies: tests/strategies.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from strategies import BAD_SETTINGS, distributions, order_matrices, source_sets
from test_properties_measures import assert_clear_error

from leakage.experiments.empirical_pml.adult import first_m_counts, nested_flip_counts
from leakage.experiments.robust_dp_hamming import leakage_distortion as rdh
from leakage.experiments.robust_dp_hamming.source_sets import distortion_threshold
from leakage.experiments.statistical_inference.counting_query import counting_query_prior
from leakage.experiments.statistical_inference.information_privacy import information_privacy_implications
from leakage.experiments.statistical_inference.theorem4 import truncated_geometric_channel
from leakage.experiments.worst_case_pml import programs as wc
from leakage.experiments.worst_case_pml.utility import worst_case_order
from leakage.measures.dp import ldp_epsilon
from leakage.measures.pml import epsilon_min

EPS = st.floats(0.0, 12.0)

# ----------------------------------------------------------------------------- robust-dp-hamming


def _rr(m, eps):
    return (m - 1) / (math.exp(eps) + m - 1)


@given(source_sets(), EPS)
def test_d_min_is_below_randomized_response_and_equals_it_from_the_closed_forms_reach(points, eps):
    """D_min(eps) <= (M'-1)/(e^eps + M'-1) (randomized response on the present letters is valid for
    every set), with equality from closed_form_reach's eps_c on (proved by a dual point there): the
    LP and the closed form are independent computations of the same number."""
    eps_c, m = rdh.closed_form_reach(points)
    d, q = rdh.min_distortion_dp(points, eps)
    assert np.allclose(q.sum(axis=1), 1.0) and ldp_epsilon(q) <= eps + 1e-6
    assert d <= _rr(m, eps) + 1e-9
    worst = float((points @ (1.0 - np.diag(q))).max())  # the mechanism meets the value it reports
    assert worst == pytest.approx(d, abs=1e-7)
    if eps >= eps_c:
        assert d == pytest.approx(_rr(m, eps), rel=1e-6, abs=1e-12)
    # a letter censored costs its largest probability: D_min is never below D^(k) when k columns are zero
    zero_cols = int(np.sum(q.max(axis=0) <= 1e-12))
    if 0 < zero_cols < points.shape[1]:
        assert d >= distortion_threshold(points, zero_cols) - 1e-7


@given(source_sets(), st.floats(1e-300, 0.9))
def test_eps_dp_meets_the_budget_and_is_the_least(points, distortion):
    """eps*_DP(P, D): D_min there is <= D (the mechanism is (P, D)-valid) and, below it, > D."""
    lp_eps = rdh.dp_leakage_distortion(points, distortion)
    eps = lp_eps.eps
    assert 0.0 <= eps < math.inf
    worst = float((points @ (lp_eps.mechanism.sum(axis=1) - np.diag(lp_eps.mechanism))).max())
    assert worst <= distortion * (1 + 1e-5) + 1e-10
    if eps > 1e-6 and eps <= rdh.EPS_REACH:
        assert rdh.min_distortion_dp(points, eps * (1 - 1e-3) - 1e-6)[0] > distortion * (1 - 1e-6) - 1e-10


# ----------------------------------------------------------------------------- worst-case-pml


@given(st.integers(3, 5).flatmap(lambda n: st.tuples(distributions(n=n), order_matrices(n=n), st.integers(1, n))))
def test_the_optimum_is_at_most_the_utility_safe_level_and_keeps_the_order(args):
    prior, order, k = args
    eps_us = wc.utility_safe_epsilon(prior, order, k)
    eps_opt, channel = wc.optimal_mechanism(prior, order, k, tol=1e-6)
    assert 0.0 <= eps_opt <= eps_us + 1e-9
    assert worst_case_order(channel, prior, order) >= k
    assert epsilon_min(channel, prior) <= eps_opt + 1e-6  # eps-PML, measured independently
    safe = wc.utility_safe_mechanism(order, k)
    assert worst_case_order(safe, prior, order) == k
    assert epsilon_min(safe, prior) == pytest.approx(eps_us, abs=1e-9)  # Corollary 1


@given(distributions(min_n=2, max_n=6), EPS)
def test_proposition_1_makes_randomized_response_eps_pml(prior, eps):
    channel = wc.pml_randomized_response(prior, eps)
    assert np.allclose(channel.sum(axis=1), 1.0)
    assert epsilon_min(channel, prior) <= eps + 1e-9


# ----------------------------------------------------------------------------- statistical-inference


@given(st.integers(1, 30), st.floats(0.0, 1.0))
def test_counting_query_prior_is_the_binomial(n, p):
    got = counting_query_prior(n, p)
    assert got.sum() == pytest.approx(1.0)
    exact = [math.comb(n, y) * p**y * (1 - p) ** (n - y) for y in range(n + 1)]  # plain Python floats
    assert np.allclose(got, exact, rtol=1e-9, atol=1e-300)


@given(st.integers(1, 25), st.floats(0.0, 25.0))  # e^(-eps n) stays a float
def test_the_truncated_geometric_channel_is_eps_dp_for_neighbouring_counts(n, eps):
    c = truncated_geometric_channel(n, eps)
    assert np.allclose(c.sum(axis=1), 1.0) and np.all(c >= 0)
    with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 where both entries underflow
        ratio = np.abs(np.diff(np.log(c), axis=0))
    assert np.nanmax(ratio) <= eps + 1e-9


@given(st.integers(2, 5), st.integers(2, 5), st.data())
def test_theorem_3_information_privacy_bounds_dp_and_average_leakage(n_in, n_out, data):
    channel = np.vstack([data.draw(distributions(n=n_out)) for _ in range(n_in)])  # full support: eps_IP finite
    prior = data.draw(distributions(n=n_in))
    r = information_privacy_implications(channel, prior)
    assert math.isfinite(r["eps_ip"])
    assert r["eps_dp"] <= 2 * r["eps_ip"] + 1e-9
    assert r["average_leakage"] <= r["eps_ip"] + 1e-9
    assert r["max_divergence_posterior"] <= r["eps_ip"] + 1e-9


# ----------------------------------------------------------------------------- empirical-pml


@given(st.lists(st.sampled_from([-1, 1]), min_size=5, max_size=40), st.data())
def test_first_m_counts_are_counts_of_the_first_m_records(bits, data):
    m_values = sorted(set(data.draw(st.lists(st.integers(1, len(bits)), min_size=1, max_size=4))))
    counts = first_m_counts(bits, m_values, 3, np.random.default_rng(data.draw(st.integers(0, 99))))
    assert np.all(counts >= 0) and np.all(counts <= np.asarray(m_values))
    assert np.all(np.diff(counts, axis=1) >= 0) and np.all(counts <= bits.count(-1))


@given(st.lists(st.integers(0, 50), min_size=1, max_size=4), st.data())
def test_nested_flip_counts_are_nested(n, data):
    k = data.draw(st.integers(1, 4))
    pi = np.array([data.draw(st.lists(st.floats(0.0, 0.5), min_size=k, max_size=k)) for _ in n])
    got = nested_flip_counts(n, pi, np.random.default_rng(0))
    assert np.all(got >= 0) and np.all(got <= np.asarray(n)[:, None])
    order = np.argsort(pi, axis=1, kind="stable")  # a larger flip probability flips a superset
    assert np.all(np.diff(np.take_along_axis(got, order, axis=1), axis=1) >= 0)


# ----------------------------------------------------------------------------- bad settings


SECTIONS = {
    ("worst-case-pml", "fig1"): {"n_records": 3, "success_probability": 0.5, "under_report_penalty": 1.0,
                                 "eps_step": 0.5, "repetitions": 20},
    ("statistical-inference", "fig2"): {"eps": 1.0, "k": 2, "n_min": 2, "n_max": 8, "n_points": 2},
    ("mi-dp", "fig2"): {"eps_mi_max": 0.5, "n_points": 3},
    ("empirical-pml", "fig3b"): {"n_symbols": 5, "delta": 1e-3, "eps": [1.0], "m_min": 100, "m_max": 1000,
                                 "grid_points": 3},
}


@given(st.sampled_from(sorted(SECTIONS)), st.data(), BAD_SETTINGS)
def test_a_bad_settings_value_is_refused_naming_its_key(where, data, bad):
    from leakage.experiments import paper_module

    paper, figure = where
    section = SECTIONS[where]
    key = data.draw(st.sampled_from(sorted(section)))
    fig = paper_module(paper).FIGURES[figure]
    settings = {**section, key: bad}
    try:
        table = fig(settings, np.random.default_rng(0), {})
    except (ValueError, TypeError):
        assert_clear_error(fig, settings, np.random.default_rng(0), {}, names=(key,))
    else:  # a value that is valid after all (a huge grid end, a large count within its cap): a clean table
        assert not table.empty and not table.select_dtypes("float").isna().to_numpy().any()
