"""Releasing records through a channel: the per-record sampler and the exact count sampler agree
in distribution with each other and with the multinomial moments written out here."""

import math

import numpy as np
import pytest

from leakage.mechanisms.release import channel_output_counts, channel_outputs


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
