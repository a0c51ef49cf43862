"""Hypothesis strategies shared by the property tests: valid and invalid channels, priors, sets."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

FINITE = st.floats(min_value=1e-3, max_value=1.0, allow_nan=False, allow_infinity=False)


@st.composite
def distributions(draw, n=None, min_n=2, max_n=5, full_support=True, tiny=False):
    """A probability vector; with ``tiny``, entries down to 1e-300 are allowed."""
    n = draw(st.integers(min_n, max_n)) if n is None else n
    lo = 1e-300 if tiny else 1e-3
    w = np.array(draw(st.lists(st.floats(min_value=lo, max_value=1.0), min_size=n, max_size=n)))
    if not full_support:
        mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        if mask.any() and not mask.all():
            w = np.where(mask, 0.0, w)
    return w / w.sum()


@st.composite
def channels(draw, n_in=None, n_out=None, max_n=5):
    """A row-stochastic matrix channel[x, y] = P(y|x) (zeros allowed)."""
    n_in = draw(st.integers(2, max_n)) if n_in is None else n_in
    n_out = draw(st.integers(2, max_n)) if n_out is None else n_out
    rows = [draw(distributions(n=n_out, full_support=False)) for _ in range(n_in)]
    return np.vstack(rows)


@st.composite
def channel_and_prior(draw, max_n=5):
    c = draw(channels(max_n=max_n))
    return c, draw(distributions(n=c.shape[0]))


BAD_NUMBERS = st.sampled_from([math.nan, -0.5, 1.5, math.inf, -math.inf])


@st.composite
def broken_channels(draw):
    """A matrix that is not a channel: a bad entry, a row not summing to one, or a wrong shape."""
    c = draw(channels(max_n=4))
    kind = draw(st.sampled_from(["entry", "row_sum", "ndim", "empty", "text"]))
    if kind == "entry":
        i, j = draw(st.integers(0, c.shape[0] - 1)), draw(st.integers(0, c.shape[1] - 1))
        c = c.copy()
        c[i, j] = draw(BAD_NUMBERS)
        return c
    if kind == "row_sum":
        return c * draw(st.sampled_from([0.5, 1.01, 2.0]))
    if kind == "ndim":
        return c.ravel()
    if kind == "empty":
        return np.zeros((0, 2))
    return [["a", "b"], ["c", "d"]]


@st.composite
def source_sets(draw, max_points=3, min_m=2, max_m=5, zeros=True):
    """A source set of robust-dp-hamming: 1..max_points distributions on M letters (rows), letters
    of probability zero in every point allowed (``zeros``)."""
    m = draw(st.integers(min_m, max_m))
    k = draw(st.integers(1, max_points))
    rows = [draw(distributions(n=m, full_support=not zeros)) for _ in range(k)]
    return np.vstack(rows)


@st.composite
def order_matrices(draw, n=None, min_n=2, max_n=5):
    """A utility order matrix of worst-case-pml: every row a permutation of 1..N."""
    n = draw(st.integers(min_n, max_n)) if n is None else n
    return np.array([draw(st.permutations(list(range(1, n + 1)))) for _ in range(n)])


BAD_SETTINGS = st.sampled_from([math.nan, math.inf, -math.inf, -1, 0, 10**13, 1e300, "x", [1, 2], [], None, {}])
