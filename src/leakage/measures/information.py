"""Entropy, divergences, mutual information, channel capacity and rate-distortion, in nats."""

from __future__ import annotations

import numpy as np
from scipy.special import rel_entr, xlogy

from leakage.validation import (
    check_tolerance,
    check_channel,
    check_channel_prior,
    check_distribution,
    check_scalar,
)


def entropy(p) -> float:
    """H(P) = -sum_x P(x) log P(x), nats."""
    p = check_distribution(p, "p")
    return float(-xlogy(p, p).sum())


def binary_entropy(q):
    """h(q) = -q log q - (1-q) log(1-q), nats, for q in [0, 1] (vectorised)."""
    try:
        q = np.asarray(q, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"q must be real numbers in [0, 1], got {q!r}") from exc
    if np.any(np.isnan(q) | (q < 0) | (q > 1)):
        raise ValueError(f"q must be in [0, 1], got {q!r}")
    h = -xlogy(q, q) - xlogy(1 - q, 1 - q)
    return float(h) if h.ndim == 0 else h


def binary_entropy_inverse(h) -> float:
    """The q in [0, 1/2] with h(q) = ``h``, for h in [0, log 2] (inverse of the increasing part)."""
    from scipy.optimize import brentq

    h = check_scalar(h, "h", low=0.0, high=float(np.log(2)))
    if h == 0.0:
        return 0.0
    if h >= np.log(2) - 1e-15:
        return 0.5
    return float(brentq(lambda q: binary_entropy(q) - h, 0.0, 0.5, xtol=1e-15, rtol=1e-15))


def kl_divergence(p, q) -> float:
    """D(P || Q) = sum_x P(x) log(P(x)/Q(x)), nats (inf where P is not absolutely continuous)."""
    p = check_distribution(p, "p")
    q = check_distribution(q, "q")
    if p.size != q.size:
        raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
    return float(rel_entr(p, q).sum())


def max_divergence(p, q) -> float:
    """D_inf(P || Q) = log max_{x: P(x)>0} P(x)/Q(x), nats (Renyi divergence of order infinity)."""
    p = check_distribution(p, "p")
    q = check_distribution(q, "q")
    if p.size != q.size:
        raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
    s = p > 0
    if np.any(q[s] <= 0):
        return float("inf")
    return float(np.log(np.max(p[s] / q[s])))


def total_variation(p, q) -> float:
    """Total variation distance TV(P, Q) = max_A |P(A) - Q(A)| = (1/2) sum_y |P(y) - Q(y)|,
    in [0, 1] [mi-dp, eq. 8: (0, delta)-closeness is TV <= delta]."""
    p = check_distribution(p, "p")
    q = check_distribution(q, "q")
    if p.size != q.size:
        raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
    return float(0.5 * np.abs(p - q).sum())


def mutual_information(channel, prior) -> float:
    """I(X; Y) = sum_{x,y} P(x) P(y|x) log( P(y|x) / P_Y(y) ), nats."""
    c, p = check_channel_prior(channel, prior)
    joint = p[:, None] * c
    p_y = joint.sum(axis=0)
    return float(max(0.0, rel_entr(joint, np.outer(p, p_y)).sum()))


def channel_capacity(channel, *, tol: float = 1e-12, max_iter: int = 100_000):
    """Capacity max_P I(X; Y) of a channel by Blahut-Arimoto [blahut1972, arimoto1972], nats.

    Returns ``(capacity, optimal_input)``. Iterates until the standard upper and lower bounds on the
    capacity (max_x D(W_x || Q) and I) are within ``tol``.
    """
    tol = check_tolerance(tol)
    c = check_channel(channel)
    n = c.shape[0]
    p = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        q = p @ c
        d = rel_entr(c, q[None, :]).sum(axis=1)  # D(W_x || Q)
        lower = float(p @ d)
        upper = float(d.max())
        if upper - lower < tol:
            break
        p = p * np.exp(d - d.max())
        p /= p.sum()
    else:  # pragma: no cover - BA converges for every channel; guard against tiny tol
        raise RuntimeError(f"channel_capacity: Blahut-Arimoto did not reach tol={tol} in {max_iter} steps")
    return max(0.0, lower), p


def rate_distortion_point(prior, distortion, slope: float, *, tol: float = 1e-12, max_iter: int = 100_000):
    """One point of the rate-distortion curve of ``prior`` by Blahut-Arimoto at a given ``slope``.

    Minimises I(X; Y) + slope * E d(X, Y) over test channels; returns ``(rate, mean_distortion,
    channel)``. Sweeping ``slope`` in (0, inf) traces R(D) from D_max down to D_min [blahut1972].
    """
    tol = check_tolerance(tol)
    p = check_distribution(prior)
    d = np.asarray(distortion, dtype=float)
    if d.ndim != 2 or d.shape[0] != p.size:
        raise ValueError(f"distortion must be a {p.size} x K matrix, got shape {d.shape}")
    if np.any(d < 0):
        raise ValueError("distortion must be non-negative")
    slope = check_scalar(slope, "slope", low=0.0)
    a = np.exp(-slope * (d - d.min(axis=1, keepdims=True)))
    q = np.full(d.shape[1], 1.0 / d.shape[1])
    for _ in range(max_iter):
        w = a * q[None, :]
        w /= w.sum(axis=1, keepdims=True)
        q_new = p @ w
        if np.max(np.abs(q_new - q)) < tol:
            q = q_new
            break
        q = q_new
    w = a * q[None, :]
    w /= w.sum(axis=1, keepdims=True)
    return mutual_information(w, p), float(p @ (w * d).sum(axis=1)), w


def empirical_mutual_information_counts(counts):
    """Empirical MI of a 2-D frequency table, nats [empirical-pml, eq. (67)].

    Î(X; Y) = sum_{i,k} f(x_i, y_k)/m log( m f(x_i, y_k) / (f(x_i) f(y_k)) ), m = total count (the
    "N" inside the log of (67) is the number of samples m). ``counts[..., i, k]`` = f(x_i, y_k) >= 0,
    vectorised over leading axes; each table needs m >= 1.
    """
    c = np.asarray(counts, dtype=float)
    if c.ndim < 2:
        raise ValueError(f"counts must be at least 2-D (..., |X|, |Y|), got shape {c.shape}")
    if np.any(c < 0) or not np.all(np.isfinite(c)):
        raise ValueError("counts must be finite and >= 0")
    m = c.sum(axis=(-2, -1), keepdims=True)
    if np.any(m < 1):
        raise ValueError("counts: every table needs m >= 1 samples")
    fx = c.sum(axis=-1, keepdims=True)
    fy = c.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(c > 0, m * c / (fx * fy), 1.0)
    mi = (xlogy(c, ratio) / m).sum(axis=(-2, -1))
    mi = np.maximum(mi, 0.0)
    return float(mi) if mi.ndim == 0 else mi


def empirical_mutual_information(x, y) -> float:
    """Empirical MI Î(X; Y) of paired samples [empirical-pml, eq. (67)], nats: the 2-D table of (x_j, y_j)
    frequencies passed to :func:`empirical_mutual_information_counts`. Equal-length, non-empty."""
    x = np.asarray(x)
    y = np.asarray(y)
    if x.ndim != 1 or x.shape != y.shape or x.size == 0:
        raise ValueError(f"x and y must be non-empty 1-D arrays of equal length, got {x.shape}, {y.shape}")
    _, xi = np.unique(x, return_inverse=True)
    _, yi = np.unique(y, return_inverse=True)
    table = np.zeros((xi.max() + 1, yi.max() + 1))
    np.add.at(table, (xi, yi), 1.0)
    return empirical_mutual_information_counts(table)
