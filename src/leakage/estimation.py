"""Distribution estimation from samples and its l1 uncertainty (empirical-pml, seed 000, Sec. II-B).

The true distribution P_X lies, with probability at least 1 - delta, in the l1-ball of radius
beta*(delta) around the empirical estimate (Weissman et al.'s bound, distribution-free form).
"""

from __future__ import annotations

import numpy as np

from leakage.validation import check_count, check_probability, check_scalar


def empirical_distribution(samples, alphabet) -> np.ndarray:
    """P̂_X(x) = (1/m) sum_i 1{d_i = x} for x in ``alphabet`` (seed 000, eq. (13)).

    Every sample must belong to ``alphabet``; the result is ordered as ``alphabet``.
    """
    samples = np.asarray(samples)
    alphabet = np.asarray(alphabet)
    if samples.ndim != 1 or samples.size == 0:
        raise ValueError(f"samples must be a non-empty 1-D array, got shape {samples.shape}")
    if len(np.unique(alphabet)) != alphabet.size:
        raise ValueError(f"alphabet must list distinct symbols, got {alphabet.tolist()!r}")
    index = {v: i for i, v in enumerate(alphabet.tolist())}
    counts = np.zeros(alphabet.size)
    values, n = np.unique(samples, return_counts=True)
    for v, c in zip(values.tolist(), n):
        if v not in index:
            raise ValueError(f"sample value {v!r} is not in alphabet {alphabet.tolist()!r}")
        counts[index[v]] = c
    return counts / samples.size


def beta_star(delta, m, n_symbols: int = 2) -> float:
    """beta*(delta) = sqrt( (2/m) (log(2^N - 2) - log delta) ) (seed 000, eqs. (21), (37); (45) for N = 2).

    The radius of the l1-ball around P̂_X (from m samples over N symbols) that holds the true P_X
    with probability at least 1 - delta. Valid for delta in (0, 1], m >= 1, N >= 2.
    """
    delta = check_probability(delta, "delta")
    m = check_count(m, "m")
    n_symbols = check_count(n_symbols, "n_symbols", low=2)
    return float(np.sqrt(2.0 / m * (_log_two_pow_minus_two(n_symbols) - np.log(delta))))


def delta_for_beta(beta, m, n_symbols: int = 2) -> float:
    """The failure probability delta with beta*(delta) = beta: (2^N - 2) exp(-m beta^2 / 2), capped at 1.

    Inverse of :func:`beta_star` (seed 000, eq. (17) with the distribution-free phi >= 2).
    """
    beta = check_scalar(beta, "beta", low=0.0)
    m = check_count(m, "m")
    n_symbols = check_count(n_symbols, "n_symbols", low=2)
    return float(min(1.0, np.exp(_log_two_pow_minus_two(n_symbols) - m * beta**2 / 2.0)))


def _log_two_pow_minus_two(n: int) -> float:
    """log(2^N - 2), computed without overflow for large N."""
    return float(n * np.log(2.0) + np.log1p(-2.0 ** (1 - n)))
