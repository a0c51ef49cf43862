"""Calmon & Fawaz [statistical-inference]: the counting query (Examples 1, 2)."""

import math

import numpy as np
import pytest
from scipy.special import comb

from leakage.experiments.statistical_inference.counting_query import (
    counting_query_conditional_entropy,
    counting_query_joint,
    counting_query_prior,
)
from leakage.measures.information import binary_entropy, entropy


# ----------------------------------------------------------------------------- counting query


def test_counting_query_model():
    n, p = 5, 0.3
    joint = counting_query_joint(n, p)
    prior = counting_query_prior(n, p)
    assert joint.sum(axis=0) == pytest.approx(prior, abs=1e-15)
    assert entropy(joint.sum(axis=1)) == pytest.approx(n * binary_entropy(p), abs=1e-12)
    # H(S | Y=y) over the explicit joint = log C(n, y)
    for y in range(n + 1):
        col = joint[:, y] / joint[:, y].sum()
        assert entropy(col) == pytest.approx(math.log(comb(n, y)), abs=1e-12)
    assert counting_query_conditional_entropy(n) == pytest.approx(
        [math.log(comb(n, y)) for y in range(n + 1)], abs=1e-12
    )
    assert prior @ np.arange(n + 1) == pytest.approx(n * p)


# ----------------------------------------------------------------------------- bad input


def test_counting_query_bad_parameters():
    with pytest.raises(ValueError, match="p must be in"):
        counting_query_prior(5, 1.5)
    with pytest.raises(ValueError, match="n must be <= 16"):
        counting_query_joint(20, 0.3)
