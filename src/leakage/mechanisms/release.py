"""Releasing data through a channel: every record's output drawn from its row of the channel."""

from __future__ import annotations

import numpy as np

from leakage.validation import check_array, check_array_size, check_channel, check_counts, check_rng


def channel_outputs(channel, x, uniforms) -> np.ndarray:
    """Outputs y_i ~ channel[x_i, :] by inverse-CDF sampling from given uniforms u_i in [0, 1).

    y_i is the first output whose cumulative probability in row x_i exceeds u_i (times the row's
    total, against rounding), so an output of probability zero is never drawn. The same uniforms
    through different channels give common random numbers (adult-design, fig1). Returns int64.
    ``channel`` row-stochastic, ``x`` integer indexes of its rows, ``uniforms`` in [0, 1) (empty x: no outputs).
    """
    c = check_channel(channel)
    x = check_array(x, "x", ndim=1, low=0, high=c.shape[0] - 1, empty=True)
    if not np.all(x == np.round(x)):
        raise ValueError(f"x must hold integer row indexes 0..{c.shape[0] - 1} of the channel")
    x = x.astype(np.int64)
    u = check_array(uniforms, "uniforms", ndim=1, low=0.0, empty=True)
    if np.any(u >= 1.0):
        raise ValueError(f"uniforms must be in [0, 1), got max {u.max()!r}")
    if u.shape != x.shape:
        raise ValueError(f"x and uniforms must have equal length (one uniform per record), got {x.size} and {u.size}")
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
    check_rng(rng)
    check_array_size(c.shape, "channel")
    # multinomial needs rows summing to one in floating point: renormalise rounding only
    rows = c / c.sum(axis=1, keepdims=True)
    return rng.multinomial(counts, rows).sum(axis=0).astype(np.int64)
