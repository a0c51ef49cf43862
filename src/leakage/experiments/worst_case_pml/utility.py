"""Utilities of a mechanism's input-output pairs: the utility order matrix and the worst case.

A utility ``u[x, y]`` scores releasing ``y`` when the data is ``x`` (higher is better; all utilities
of a row distinct). The worst-case utility of a channel is the lowest utility of any pair that can
occur [worst-case-pml, Sec. II]; only the ascending order of the utilities within each
row matters for which pairs are excluded, which the utility order matrix ``O`` records.
"""

from __future__ import annotations

import numpy as np

from leakage.mechanisms.release import channel_outputs
from leakage.validation import (
    _as_float_array,
    check_array_size,
    check_channel_prior,
    check_count,
    check_rng,
    check_scalar,
)

#: Most pairs :func:`sample_pairs` draws in one call (two int64 arrays of that length).
MAX_PAIRS = 10**8


def utility_order_matrix(utility) -> np.ndarray:
    """The utility order matrix O of a utility matrix [worst-case-pml, Sec. II, before eq. (1)].

    O[x, y] = rank of u(x, y) among u(x, .) in ascending order: 1 = lowest utility of row x,
    N = highest. Dimensionless integers in 1..N. ``utility`` is an N x N real matrix whose rows
    hold distinct values (the paper's assumption; ties make the order undefined -> ValueError).
    """
    u = _as_float_array(utility, "utility", 2)
    if u.shape[0] != u.shape[1]:
        raise ValueError(f"utility must be square (N x N, |Y| = |X|), got shape {u.shape}")
    sorted_rows = np.sort(u, axis=1)
    if u.shape[1] > 1 and np.any(np.diff(sorted_rows, axis=1) == 0):
        row = int(np.flatnonzero(np.any(np.diff(sorted_rows, axis=1) == 0, axis=1))[0])
        raise ValueError(
            f"utility must have distinct values within each row (the order must be strict), "
            f"row {row} has a tie"
        )
    return np.argsort(np.argsort(u, axis=1, kind="stable"), axis=1, kind="stable") + 1


def check_order_matrix(order, name: str = "order") -> np.ndarray:
    """Return ``order`` as an integer N x N matrix after checking each row is a permutation of 1..N."""
    o = _as_float_array(order, name, 2)
    n_rows, n_cols = o.shape
    if n_rows != n_cols:
        raise ValueError(f"{name} must be square (N x N), got shape {o.shape}")
    if not np.all(o == np.round(o)) or np.any((o < 1) | (o > n_cols)):
        raise ValueError(f"{name} must hold integers (ranks 1..{n_cols})")
    o = o.astype(int)
    target = np.arange(1, n_cols + 1)
    for x in range(n_rows):
        if not np.array_equal(np.sort(o[x]), target):
            raise ValueError(
                f"{name} row {x} must be a permutation of 1..{n_cols}, got {o[x].tolist()}"
            )
    return o


def check_threshold(k, n_outputs: int, name: str = "k") -> int:
    """A worst-case order threshold: an integer in 1..N."""
    n_outputs = check_count(n_outputs, "n_outputs", low=1)
    k = check_count(k, name, low=1)
    if k > n_outputs:
        raise ValueError(f"{name} must be an integer in 1..{n_outputs} (N), got {k}")
    return k


def counting_query_utility(n_records: int, *, penalty: float = 1.0) -> np.ndarray:
    """Utility of a counting query over ``n_records`` records [worst-case-pml, eq. (11)].

    u(x, y) = -(x - y)^2 - penalty * 1[y < x], x, y in {0, ..., n_records}: quadratic loss plus a
    penalty for under-reporting. Dimensionless; ``penalty`` > 0 (the paper's is 1, which keeps the
    utilities of every row distinct; a penalty that creates ties is caught by
    ``utility_order_matrix``).
    """
    n = check_count(n_records, "n_records", low=1)
    check_array_size((n + 1, n + 1), "n_records")
    penalty = check_scalar(penalty, "penalty", low=0.0, low_inclusive=False, finite=True)
    x = np.arange(n + 1)[:, None]
    y = np.arange(n + 1)[None, :]
    return -((x - y) ** 2).astype(float) - float(penalty) * (y < x)


def circulant_order_matrix(n_outputs: int) -> np.ndarray:
    """The circulant utility order matrix of [worst-case-pml], eq. (13) (restated in the project spec).

    O[x, y] = N - ((y - x) mod N): row x ranks output x highest and x + 1 lowest; every cyclic
    relabelling of X and Y together leaves it unchanged. N >= 1.
    """
    n = check_count(n_outputs, "n_outputs", low=1)
    check_array_size((n, n), "n_outputs")
    x = np.arange(n)[:, None]
    y = np.arange(n)[None, :]
    return n - np.mod(y - x, n)


def worst_case_order(channel, prior, order) -> int:
    """k(C) = min over pairs with P(x) > 0 and P(y|x) > 0 of O[x, y] [worst-case-pml, eq. (1)].

    The rank of the lowest utility that the channel can produce; integer in 1..N.
    """
    c, p = check_channel_prior(channel, prior)
    o = check_order_matrix(order)
    if o.shape != c.shape:
        raise ValueError(f"order has shape {o.shape} but channel has shape {c.shape}; they must match")
    possible = (p[:, None] > 0) & (c > 0)
    return int(o[possible].min())


def worst_case_utility(channel, prior, utility) -> float:
    """The exact worst-case utility min { u(x, y) : P(x) > 0, P(y|x) > 0 } [worst-case-pml, Sec. II].

    Same units as ``utility``; the utility of the worst pair that can occur.
    """
    c, p = check_channel_prior(channel, prior)
    u = _as_float_array(utility, "utility", 2)
    if u.shape != c.shape:
        raise ValueError(f"utility has shape {u.shape} but channel has shape {c.shape}; they must match")
    possible = (p[:, None] > 0) & (c > 0)
    return float(u[possible].min())


def sample_pairs(channel, prior, size: int, rng: np.random.Generator):
    """Draw ``size`` pairs X ~ prior, Y ~ channel[X, :] (inverse-CDF sampling); returns (x, y)."""
    c, p = check_channel_prior(channel, prior)
    size = check_count(size, "size", low=1, high=MAX_PAIRS)
    check_rng(rng)
    x = np.minimum(np.searchsorted(np.cumsum(p), rng.random(size), side="right"), p.size - 1)
    return x, channel_outputs(c, x, rng.random(size))


def sampled_worst_case_utility(channel, prior, utility, repetitions: int, rng: np.random.Generator) -> float:
    """Monte Carlo worst case: the smallest u(X_i, Y_i) over ``repetitions`` draws [worst-case-pml, Sec. IV-A].

    Always >= ``worst_case_utility`` (a sample can only miss the worst pair, never go below it).
    ``repetitions`` <= :data:`MAX_PAIRS`.
    """
    u = _as_float_array(utility, "utility", 2)
    c, _ = check_channel_prior(channel, prior)
    if u.shape != c.shape:
        raise ValueError(f"utility has shape {u.shape} but channel has shape {c.shape}; they must match")
    repetitions = check_count(repetitions, "repetitions", low=1, high=MAX_PAIRS)
    x, y = sample_pairs(channel, prior, repetitions, rng)
    return float(u[x, y].min())
