"""Releasing records through a channel (leakage.mechanisms.release): every output is drawn from its
record's row by inverse-CDF sampling, checked against a plain-Python loop and against the channel's
probabilities on evenly spaced uniforms; the per-record sampler and the exact count sampler agree in
distribution with each other and with the multinomial moments written out here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from leakage.mechanisms.release import channel_output_counts, channel_outputs
from leakage.measures.dp import randomized_response

from strategies import channels


def _loop(channel, x, uniforms):
    """Inverse CDF by hand: the first output whose running sum of the row exceeds u * (row total)."""
    out = []
    for xi, u in zip(x, uniforms):
        row = [float(v) for v in channel[xi]]
        target, total = u * sum(row), 0.0
        for y, p in enumerate(row):
            total += p
            if total > target:
                out.append(y)
                break
    return out


@given(channels(), st.data())
def test_outputs_equal_the_inverse_cdf_by_hand(channel, data):
    n_rows = channel.shape[0]
    x = np.array(data.draw(st.lists(st.integers(0, n_rows - 1), min_size=1, max_size=30)))
    u = np.array(data.draw(st.lists(st.floats(0, 1, exclude_max=True), min_size=x.size, max_size=x.size)))
    y = channel_outputs(channel, x, u)
    assert y.dtype == np.int64 and y.shape == x.shape
    assert y.tolist() == _loop(channel, x, u)
    assert (channel[x, y] > 0).all()  # never an output of probability zero


def test_frequencies_on_evenly_spaced_uniforms_are_the_row():
    """n uniforms (k + 1/2)/n through one row: output y is drawn n * P(y | x) times, up to rounding."""
    channel = randomized_response(5, 1.0)
    channel[2] = [0.0, 0.5, 0.0, 0.25, 0.25]
    n = 10_000
    u = (np.arange(n) + 0.5) / n
    for x in range(5):
        counts = np.bincount(channel_outputs(channel, np.full(n, x), u), minlength=5)
        assert np.all(np.abs(counts - n * channel[x]) <= 1), (x, counts)
    assert np.bincount(channel_outputs(channel, np.full(n, 2), u), minlength=5)[[0, 2]].tolist() == [0, 0]


def test_common_random_numbers_and_the_identity():
    x = np.array([0, 1, 2, 2, 1, 0])
    u = np.linspace(0, 0.99, x.size)
    assert channel_outputs(np.eye(3), x, u).tolist() == x.tolist()  # the identity releases the data
    a = channel_outputs(randomized_response(3, 0.5), x, u)
    assert a.tolist() == channel_outputs(randomized_response(3, 0.5), x, u).tolist()  # same uniforms, same outputs


@pytest.mark.parametrize(
    "channel, x, u, message",
    [
        (np.ones(3) / 3, [0], [0.5], r"channel must be 2-dimensional, got shape \(3,\)"),
        (np.eye(2), [[0]], [0.5], r"x must be 1-dimensional"),
        (np.eye(2), [0, 1], [0.5], "x and uniforms must have equal length"),
        (np.eye(2), [2], [0.5], "x must have entries <= 1"),  # the channel's 2 rows
        (np.eye(2), [-1], [0.5], "x must have entries >= 0"),
    ],
)
def test_bad_shapes_and_indexes_are_refused(channel, x, u, message):
    with pytest.raises(ValueError, match=message):
        channel_outputs(channel, x, u)


def test_output_counts_have_the_moments_of_the_per_record_release():
    """Mean sum_x n_x C[x, :] and covariance sum_x n_x (diag C_x - C_x C_x^T), both samplers,
    2000 releases at fixed seeds, within 5 standard errors."""
    rng = np.random.default_rng(0)
    c = rng.dirichlet(np.ones(4), size=3)
    counts = np.array([50, 30, 20])
    x = np.repeat(np.arange(3), counts)
    mean = counts @ c
    var = sum(n * (c[i] - c[i] ** 2) for i, n in enumerate(counts))
    reps = 2000
    fast = np.array([channel_output_counts(c, counts, rng) for _ in range(reps)])
    slow = np.array([np.bincount(channel_outputs(c, x, rng.random(x.size)), minlength=4) for _ in range(reps)])
    for draws in (fast, slow):
        assert np.all(draws.sum(axis=1) == counts.sum())
        assert np.all(np.abs(draws.mean(axis=0) - mean) < 5 * np.sqrt(var / reps))
        assert np.all(np.abs(draws.var(axis=0, ddof=1) / var - 1) < 5 * math.sqrt(2 / reps))


def test_output_counts_never_use_an_impossible_output_and_validate():
    c = np.array([[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]])
    out = channel_output_counts(c, [10, 7], np.random.default_rng(1))
    assert out[1] == 7 and out.sum() == 17 and out.dtype == np.int64
    with pytest.raises(ValueError, match="input_counts"):
        channel_output_counts(c, [1, 2, 3], np.random.default_rng(1))
    with pytest.raises(TypeError, match="rng"):
        channel_output_counts(c, [1, 2], 1)
    with pytest.raises(ValueError, match="channel"):
        channel_output_counts([[0.5, 0.6]], [1], np.random.default_rng(1))
