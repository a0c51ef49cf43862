"""Local differential privacy (LDP) of a channel.

A channel is eps-LDP if P(y|x) <= e^eps P(y|x') for all inputs x, x' and outputs y
([robust-dp-hamming, Definition 3]; [mi-dp, Definition 1] with every pair of inputs
neighbours). The smallest such eps is ``ldp_epsilon``.
"""

from __future__ import annotations

import math

import numpy as np

from leakage.validation import check_array_size, check_channel, check_count, check_epsilon, check_tolerance


def ldp_epsilon(channel) -> float:
    """eps_DP(channel) = max_y log( max_x P(y|x) / min_x P(y|x) ), in nats.

    An all-zero column never occurs and is ignored; a column mixing zero and non-zero entries makes
    the leakage infinite [robust-dp-hamming, Sec. II].
    """
    c = check_channel(channel)
    top = c.max(axis=0)
    low = c.min(axis=0)
    used = top > 0
    if np.any(low[used] <= 0):
        return float("inf")
    if not np.any(used):  # pragma: no cover - a row-stochastic matrix has a used column
        return 0.0
    return float(max(0.0, np.max(np.log(top[used] / low[used]))))


def is_ldp(channel, eps, *, tol: float = 1e-9) -> bool:
    """Whether ``channel`` is eps-LDP (up to ``tol`` nats)."""
    tol = check_tolerance(tol)
    eps = check_epsilon(eps)
    return ldp_epsilon(channel) <= eps + tol


def randomized_response(n_outputs, eps) -> np.ndarray:
    """N-ary randomized response, the canonical eps-LDP mechanism (eps: its LDP level) ([kairouz2016];
    [worst-case-pml, Sec. IV-A]; for N = 2 the binary symmetric channel of [mi-dp], Property 1's extreme pair).

    P(y|x) = e^eps / (e^eps + N - 1) if y = x, else 1 / (e^eps + N - 1); eps >= 0 in nats
    (``inf`` gives the identity). N >= 1. Its LDP leakage is exactly eps (beyond ~745 nats the
    off-diagonal entries e^-eps / (1 + (N-1) e^-eps) underflow to 0: the float matrix is the identity).
    """
    n = check_count(n_outputs, "n_outputs", low=1)
    check_array_size((n, n), "n_outputs")
    keep, other = randomized_response_probabilities(n, eps)
    return np.where(np.eye(n, dtype=bool), keep, other)


def randomized_response_probabilities(n_outputs, eps) -> tuple[float, float]:
    """The two entries of N-ary randomized response (:func:`randomized_response`): P(y = x) =
    e^eps / (e^eps + N - 1) and P(y = y') = 1 / (e^eps + N - 1) for each y' != x.

    eps >= 0 in nats (``inf``: 1 and 0); N >= 1. Computed divided through by e^eps, stable at
    large eps. O(1), for a large N whose N x N channel is not needed (the GRR frequency oracle).
    """
    n = check_count(n_outputs, "n_outputs", low=1)
    eps = check_epsilon(eps, "eps")
    if math.isinf(eps):
        return 1.0, 0.0
    off = math.exp(-eps)
    norm = 1.0 + (n - 1) * off
    return 1.0 / norm, off / norm
