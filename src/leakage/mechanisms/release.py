"""Releasing data through a channel: every record's output drawn from its row of the channel."""

from __future__ import annotations

import numpy as np

from leakage.validation import check_array_size, check_channel, check_counts


def channel_outputs(channel, x, uniforms) -> np.ndarray:
    """Outputs y_i ~ channel[x_i, :] by inverse-CDF sampling from given uniforms u_i in [0, 1).

    y_i is the first output whose cumulative probability in row x_i exceeds u_i (times the row's
    total, against rounding), so an output of probability zero is never drawn. The same uniforms
    through different channels give common random numbers (adult-design, fig1). Returns int64.
    """
    c = np.asarray(channel, dtype=float)
    x = np.asarray(x)
    u = np.asarray(uniforms, dtype=float)
    if c.ndim != 2 or x.ndim != 1 or u.shape != x.shape:
        raise ValueError(f"need a 2-D channel and 1-D x, uniforms of equal length, got {c.shape}, {x.shape}, {u.shape}")
    if x.size and (x.min() < 0 or x.max() >= c.shape[0]):
        raise ValueError(f"x must index the channel's {c.shape[0]} rows, got values in [{x.min()}, {x.max()}]")
    cdf = np.cumsum(c[x], axis=1)
    # y = first index whose CDF exceeds the uniform draw: never an output of probability zero
    return (cdf <= u[:, None] * cdf[:, -1:]).sum(axis=1).astype(np.int64)


def channel_output_counts(channel, input_counts, rng) -> np.ndarray:
    """How many records are released as each output, drawn exactly: ``sum_x Multinomial(n_x,
    channel[x, :])`` for ``input_counts[x] = n_x`` records with value x.

    The same distribution as counting the outputs of :func:`channel_outputs` for those records
    (each record's output is independent given the records), in O(N M) instead of O(m M):
    a fast exact sampler for the output counts of a release with the records fixed.
    ``rng``: a ``numpy.random.Generator``. Returns int64, one count per output (column).
    """
    c = check_channel(channel)
    counts = check_counts(input_counts, "input_counts", size=c.shape[0], positive_total=False)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    check_array_size(c.shape, "channel")
    # multinomial needs rows summing to one in floating point: renormalise rounding only
    rows = c / c.sum(axis=1, keepdims=True)
    return rng.multinomial(counts, rows).sum(axis=0).astype(np.int64)
