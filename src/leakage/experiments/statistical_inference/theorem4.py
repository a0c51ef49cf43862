"""Theorem 4 of [statistical-inference], in nats: the truncated geometric eps-DP mechanism on the
counting query with the comb prior (45) leaks without bound as n grows (its lower bound and exact
leakage); and the eps at which that mechanism meets a distortion budget.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import rel_entr

from leakage.experiments.statistical_inference.common import check_distortion
from leakage.experiments.statistical_inference.measures import expected_distortion
from leakage.measures.information import mutual_information
from leakage.validation import (
    check_array_size,
    check_count,
    check_distribution,
    check_epsilon,
    check_positive,
    check_scalar,
)


def truncated_geometric_channel(n, eps) -> np.ndarray:
    """The truncated geometric (discrete Laplace) eps-DP mechanism on a count y in {0..n}:
    U = min(max(Y + N, 0), n), P(N = z) = (1-a)/(1+a) a^{|z|}, a = e^{-eps} (Ghosh, Roughgarden &
    Sundararajan 2009; the discrete twin of (43)-(44) of [statistical-inference]).

    channel[y, u] = (1-a)/(1+a) a^{|u-y|} for 0 < u < n, a^{y}/(1+a) at u = 0, a^{n-y}/(1+a) at
    u = n. eps-DP for neighbouring counts |y - y'| = 1; eps = inf gives the identity.
    """
    n = check_count(n, "n")
    check_array_size((n + 1, n + 1), "n")
    return _geometric_rows(np.arange(n + 1), n, eps)


def _geometric_rows(ys, n, eps) -> np.ndarray:
    """Rows y in ``ys`` of :func:`truncated_geometric_channel` (the one formula)."""
    eps = check_epsilon(eps)
    n = int(n)
    if math.isinf(eps):
        out = np.zeros((len(ys), n + 1))
        out[np.arange(len(ys)), ys] = 1.0
        return out
    a = math.exp(-eps)
    u = np.arange(n + 1)
    dist = np.abs(u[None, :] - np.asarray(ys)[:, None])
    out = (1 - a) / (1 + a) * a**dist
    out[:, 0] = a ** np.asarray(ys) / (1 + a)
    out[:, n] = a ** (n - np.asarray(ys)) / (1 + a)
    if n == 0:  # pragma: no cover - n >= 1 is checked
        out[:, 0] = 1.0
    return out


def geometric_epsilon_for_distortion(prior_y, distortion_measure, distortion) -> float:
    """The eps at which the truncated geometric mechanism on {0..n} has E d(Y, U) = distortion.

    Solved by Brent's method on log eps (the expected distortion decreases from its eps -> 0 limit
    to its eps -> inf limit sum_y p(y) d(y, y), 0 for a distortion measure zero on the diagonal).
    distortion in (D_inf, E_eps->0 d]; distortion = D_inf gives inf; eps is searched up to 745 nats
    (where e^-eps leaves the float range), a budget needing more is refused. Nats.
    """
    p = check_distribution(prior_y, "prior_y")
    n = p.size - 1
    d = check_distortion(distortion_measure, p.size)
    distortion = check_scalar(distortion, "distortion", low=0.0)
    if distortion == 0.0:
        return float("inf")

    def excess(log_eps):
        return expected_distortion(truncated_geometric_channel(n, math.exp(log_eps)), p, d) - distortion

    if d.shape != (p.size, p.size):
        raise ValueError(f"distortion_measure must be {p.size} x {p.size} (U = Y = {{0..n}}), got shape {d.shape}")
    d_inf = float(p @ np.diag(d))  # eps = inf: the identity
    if distortion <= d_inf:
        if distortion == d_inf:
            return float("inf")
        raise ValueError(
            f"distortion must be >= {d_inf:.6g} = sum_y p(y) distortion_measure[y, y], the distortion of the "
            f"geometric mechanism as eps -> inf; got {distortion!r}"
        )
    lo, hi = math.log(1e-8), math.log(60.0)
    if excess(lo) < 0:
        raise ValueError(
            f"distortion must be <= {distortion + excess(lo):.6g}, the distortion of the geometric mechanism "
            f"as eps -> 0; got {distortion!r}"
        )
    while excess(hi) > 0:  # the root lies beyond: widen the bracket up to 745 nats
        if hi >= math.log(745.0):
            raise ValueError(
                f"distortion = {distortion!r} is reached by the geometric mechanism only beyond eps = 745 nats "
                f"(distortion_measure up to {d.max():.3g}): out of the float range"
            )
        lo, hi = hi, min(hi + math.log(4.0), math.log(745.0))
    return float(math.exp(brentq(excess, lo, hi, xtol=1e-12)))


def comb_prior(n, k) -> np.ndarray:
    """The comb prior (45) of [statistical-inference]: p_Y(y) = 1/(1 + n/k) if y mod k = 0, else 0, y = 0..n.
    n, k >= 1 integers with n mod k = 0."""
    n, k = check_count(n, "n"), check_count(k, "k")
    if n % k:
        raise ValueError(f"n must be a multiple of k (n mod k = 0), got n={n}, k={k}")
    check_array_size((n + 1,), "n")
    p = np.zeros(n + 1)
    p[::k] = 1.0 / (1 + n // k)
    return p


def theorem4_lower_bound(n, k, eps) -> float:
    """Leakage lower bound of Theorem 4 [statistical-inference], nats:

    I(Y; U) >= (1 - e^{-k eps/2}) log(1 + n/k) - log 2 (the paper's "- 1" is one bit, H(E) <= log 2),
    for the eps-DP Laplace mechanism (43) on the counting query with the comb prior (45).
    n, k >= 1 with n mod k = 0, eps > 0.
    """
    n, k = check_count(n, "n"), check_count(k, "k")
    if n % k:
        raise ValueError(f"n must be a multiple of k (n mod k = 0), got n={n}, k={k}")
    eps = check_positive(eps, "eps")
    return float(-math.expm1(-k * eps / 2) * math.log1p(n / k) - math.log(2))


def theorem4_exact_leakage(n, k, eps) -> float:
    """Exact I(Y; U) = I(S; U), nats, of the truncated geometric eps-DP mechanism on {0..n} with the
    comb prior (45) [statistical-inference, Theorem 4's construction with the discrete mechanism].

    I = sum_{y,u} p(y) p(u|y) log(p(u|y)/p(u)) over the prior's 1 + n/k support points. For large
    n only the band |u - y| <= B of each row is formed, B with e^{-eps B} < 1e-30 (the noise is
    clipped to [-B, B], a change of total variation < 1e-30, far below float precision).
    """
    prior = comb_prior(n, k)
    eps = check_positive(eps, "eps")
    support = np.flatnonzero(prior)
    band = math.ceil(69.1 / eps) if math.isfinite(eps) else 0
    if 2 * band + 1 >= n + 1:
        return mutual_information(_geometric_rows(support, n, eps), prior[support])
    from scipy.sparse import coo_matrix

    a = math.exp(-eps)
    z = np.arange(-band, band + 1)
    noise = (1 - a) / (1 + a) * a ** np.abs(z.astype(float))
    noise[0] = noise[-1] = a**band / (1 + a)  # P(N <= -B), P(N >= B): clip(N, -B, B)
    rows = np.repeat(np.arange(support.size), z.size)
    cols = np.clip(support[:, None] + z[None, :], 0, n).ravel()
    channel = coo_matrix((np.tile(noise, support.size), (rows, cols)), shape=(support.size, n + 1)).tocsr()
    channel.sum_duplicates()
    w = prior[support]
    p_u = np.asarray(channel.T @ w).ravel()
    coo = channel.tocoo()
    joint = w[coo.row] * coo.data
    return float(max(0.0, rel_entr(joint, w[coo.row] * p_u[coo.col]).sum()))
