"""The counting query of [statistical-inference] (Examples 1, 2): S_i iid Bernoulli(p),
Y = sum_i S_i, H(S | Y=y) = log C(n, y); and the squared-error distortion on the count.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import gammaln, xlogy

from leakage.validation import check_array_size, check_count, check_probability


#: Largest database size of the explicit counting-query joint (2^n private states).
MAX_EXPLICIT_N = 16


def counting_query_prior(n, p) -> np.ndarray:
    """p_Y(y) = C(n, y) p^y (1-p)^{n-y}, y = 0..n: Y = sum of n iid Bernoulli(p) [statistical-inference,
    Examples 1, 2]. n >= 1, p in [0, 1]."""
    n = check_count(n, "n")
    check_array_size((n + 1,), "n")
    p = check_probability(p, "p", open_low=False)
    y = np.arange(n + 1)
    log_c = gammaln(n + 1) - gammaln(y + 1) - gammaln(n - y + 1)
    return np.exp(log_c + xlogy(y, p) + xlogy(n - y, 1 - p))


def counting_query_conditional_entropy(n) -> np.ndarray:
    """H(S | Y=y) = log C(n, y) nats, y = 0..n [statistical-inference, Example 2]: given the count, the iid
    database is uniform on the C(n, y) vectors with y ones. n >= 1."""
    n = check_count(n, "n")
    check_array_size((n + 1,), "n")
    y = np.arange(n + 1)
    return gammaln(n + 1) - gammaln(y + 1) - gammaln(n - y + 1)


def counting_query_joint(n, p) -> np.ndarray:
    """The explicit joint p(s, y) of the counting query [statistical-inference, Example 1, (7)]: s ranges over
    {0,1}^n (row index = binary digits), y = sum(s); p(s) = p^{|s|} (1-p)^{n-|s|}.
    1 <= n <= 16 (2^n rows)."""
    n = check_count(n, "n")
    if n > MAX_EXPLICIT_N:
        raise ValueError(f"n must be <= {MAX_EXPLICIT_N} for the explicit joint (2^n rows), got {n}")
    p = check_probability(p, "p", open_low=False)
    ones = np.array([sum(bits) for bits in itertools.product((0, 1), repeat=n)])
    joint = np.zeros((2**n, n + 1))
    joint[np.arange(2**n), ones] = np.exp(xlogy(ones, p) + xlogy(n - ones, 1 - p))
    return joint


def squared_error(n) -> np.ndarray:
    """d(y, u) = (y - u)^2 on {0..n} x {0..n} (units: squared counts)."""
    n = check_count(n, "n")
    check_array_size((n + 1, n + 1), "n")
    v = np.arange(n + 1, dtype=float)
    return (v[:, None] - v[None, :]) ** 2
