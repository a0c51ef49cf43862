"""Property-based tests (Hypothesis) of mechanism design and the robust-DP programs: random valid
inputs, including the numerical extremes (eps up to inf, tiny distortions), give stochastic
mechanisms whose guarantees are verified independently; invalid inputs raise a clear error inside
``leakage``; never NaN. Profile and example database: tests/conftest.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import leakage
from leakage.experiments.robust_dp_hamming.leakage_distortion import (
    EPS_REACH,
    class_i_dp_leakage,
    dp_leakage_distortion,
    min_distortion_dp,
    worst_case_distortion,
)
from leakage.experiments.robust_dp_hamming.source_sets import distortion_thresholds
from strategies import distributions
from test_properties_measures import assert_clear_error

EPS = st.one_of(st.floats(0.0, 60.0), st.just(math.inf))


@st.composite
def design_inputs(draw):
    p_hat = draw(distributions(min_n=2, max_n=4))
    eps = draw(EPS)
    beta = draw(st.floats(0.0, 0.999)) * 2.0 * float(p_hat.min())
    return p_hat, eps, beta


@given(design_inputs(), st.sampled_from(["compact", "literal"]))
def test_designed_mechanism_is_a_channel_that_is_private_on_the_ball_estimate(inputs, form):
    p_hat, eps, beta = inputs
    design = leakage.design_mechanism(p_hat, eps, beta, np.eye(p_hat.size), form=form)
    q = design.mechanism
    assert np.all(np.isfinite(q)) and np.allclose(q.sum(axis=1), 1.0) and np.all(q >= 0)
    assert math.isfinite(design.expected_utility) and 0.0 <= design.expected_utility <= 1.0 + 1e-9
    assert design.mutual_information >= -1e-12
    # guarantee, checked independently: eps-PML for p_hat itself (a member of the ball)
    assert leakage.epsilon_min(q, p_hat) <= eps + 1e-6
    if eps == math.inf or eps >= -math.log(p_hat.min() - beta / 2):
        assert design.expected_utility == pytest.approx(1.0, abs=1e-7)  # every channel allowed


@given(design_inputs())
def test_design_epsilon_is_finite_and_below_eps(inputs):
    _, eps, beta = inputs
    e = leakage.design_epsilon(eps, beta)
    assert not math.isnan(e) and e <= eps


@given(distributions(min_n=2, max_n=4), st.sampled_from([math.nan, -1.0, "x"]))
def test_design_refuses_bad_eps_or_beta(p_hat, bad):
    assert_clear_error(leakage.design_mechanism, p_hat, bad, 0.0, np.eye(p_hat.size), names=["eps"])
    assert_clear_error(leakage.design_mechanism, p_hat, 1.0, bad, np.eye(p_hat.size), names=["beta"])
    too_big = 2.0 * float(p_hat.min())
    assert_clear_error(leakage.design_mechanism, p_hat, 1.0, too_big, np.eye(p_hat.size), names=["beta"])


@st.composite
def source_sets(draw):
    m = draw(st.integers(2, 4))
    n = draw(st.integers(1, 3))
    return np.vstack([draw(distributions(n=m, full_support=False)) for _ in range(n)])


@given(source_sets(), st.one_of(st.floats(0.0, EPS_REACH), st.just(math.inf)))
def test_min_distortion_mechanism_is_dp_and_reaches_its_distortion(points, eps):
    d, q = min_distortion_dp(points, eps)
    assert 0.0 <= d <= 1.0 and np.all(np.isfinite(q)) and np.allclose(q.sum(axis=1), 1.0)
    assert leakage.ldp_epsilon(q) <= eps + 1e-6
    assert worst_case_distortion(q, points) <= d + 1e-7
    # the symmetric (randomized response) mechanism is eps-DP: D_min(eps) is at most its distortion
    m = points.shape[1]
    rr = 0.0 if math.isinf(eps) else (m - 1) / (math.exp(eps) + m - 1)
    assert d <= rr + 1e-9


@given(source_sets(), st.floats(1e-3, 1.0))
def test_dp_leakage_distortion_is_valid_and_below_theorem1(points, D):
    sol = dp_leakage_distortion(points, D)
    assert math.isfinite(sol.eps) and sol.eps >= 0.0
    assert worst_case_distortion(sol.mechanism, points) <= D * (1 + 1e-6) + 1e-12
    assert leakage.ldp_epsilon(sol.mechanism) <= sol.eps + 1e-6
    assert sol.eps <= class_i_dp_leakage(points.shape[1], D) + 1e-6  # Theorem 1 is the worst case


@given(source_sets())
def test_thresholds_are_ordered_in_the_unit_interval(points):
    t = distortion_thresholds(points)
    assert t.shape == (points.shape[1] - 1,)
    assert np.all((t >= 0) & (t <= 1)) and np.all(np.diff(t) >= -1e-15)


@given(source_sets(), st.sampled_from([0.0, -0.1, 1.5, math.nan, math.inf, "x"]))
def test_invalid_distortion_is_refused_naming_it(points, bad):
    assert_clear_error(dp_leakage_distortion, points, bad, names=["distortion"])


@given(st.sampled_from(["ragged", "nan", "sum", "one_symbol", "empty"]))
def test_invalid_source_sets_are_refused_naming_them(kind):
    bad = {
        "ragged": [[0.5, 0.5], [0.2, 0.3, 0.5]],
        "nan": [[math.nan, 1.0]],
        "sum": [[0.5, 0.6]],
        "one_symbol": [[1.0]],
        "empty": [],
    }[kind]
    assert_clear_error(min_distortion_dp, bad, 1.0, names=["points"])
