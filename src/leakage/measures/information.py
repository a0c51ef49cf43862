"""Entropy, divergences, mutual information, channel capacity and rate-distortion, in nats."""

from __future__ import annotations

import numpy as np
from scipy.special import rel_entr, xlogy

from leakage.validation import (
    check_array,
    check_count,
    check_labels,
    check_tolerance,
    check_channel,
    check_channel_prior,
    check_distribution,
    check_scalar,
)

#: Most iterations a Blahut-Arimoto loop may be asked for (``max_iter``): beyond, it cannot finish.
MAX_ITERATIONS = 10**8


def entropy(p) -> float:
    """H(P) = -sum_x P(x) log P(x), nats."""
    p = check_distribution(p, "p")
    return float(-xlogy(p, p).sum())


def binary_entropy(q):
    """h(q) = -q log q - (1-q) log(1-q), nats, for q in [0, 1] (vectorised; not empty)."""
    q = check_array(q, "q", low=0.0, high=1.0)
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


def _capacity_bounds(c, p):
    """D(W_x || P W) for every input x, and I(P; W) = sum over the support of P of P(x) D(W_x || P W)."""
    d = rel_entr(c, (p @ c)[None, :]).sum(axis=1)
    support = p > 0
    return d, float(p[support] @ d[support])


def _face_ascent(c, p, d, face):
    """An ascent direction for I on the face of the simplex spanned by ``face``, and whether it is linear.

    The Hessian of I is -W diag(1/Q) W^T. On sum-zero moves it is -H with H = Z^T B Z, where
    B = (W - Q) diag(1/Q) (W - Q)^T (computed from differences, so it keeps its precision when the rows
    of W nearly agree). Where the gradient has a component in H's null space, I grows linearly along
    it (moves that keep Q fixed): that direction is returned, to be followed to the face's boundary.
    Otherwise the Newton direction Z H^+ Z^T d is returned.
    """
    if face.size == 1:
        return None, False
    from scipy.linalg import null_space

    q = p @ c
    seen = q > 0
    centred = (c[np.ix_(face, np.flatnonzero(seen))] - q[seen]) / np.sqrt(q[seen])
    z = null_space(np.ones((1, face.size)))
    grad = z.T @ d[face]
    u, sv, _ = np.linalg.svd(z.T @ centred, full_matrices=True)
    curvature = np.zeros(face.size - 1)
    curvature[: sv.size] = sv**2
    flat = curvature <= 1e-12 * max(float(curvature.max()), np.finfo(float).tiny)
    step = np.zeros_like(p)
    along_flat = u[:, flat].T @ grad
    if flat.any() and np.linalg.norm(along_flat) > 1e-9 * np.linalg.norm(grad):
        step[face] = z @ (u[:, flat] @ along_flat)
        return step, True
    step[face] = z @ (u[:, ~flat] @ ((u[:, ~flat].T @ grad) / curvature[~flat]))
    return step, False


def channel_capacity(channel, *, tol: float = 1e-12, max_iter: int = 100_000):
    """Capacity max_P I(X; Y) of a channel, nats, certified to ``tol``.

    Returns ``(capacity, optimal_input)``. The answer is certified by the standard bounds
    I(P; W) <= C <= max_x D(W_x || P W) [blahut1972, arimoto1972]: it stops when they are within
    ``tol``. The input P is found by an active-set Newton method on the optimality conditions
    (D(W_x || Q) = C on the support of P, <= C off it [blahut1972]): Newton steps on the current
    face of the simplex, linear steps to the face's boundary where I is flat in curvature (several
    inputs giving the same output law), and the input with the largest D(W_x || Q) brought in once the
    face is solved. Each accepted step increases I; where none does, a Blahut-Arimoto step is taken.
    Plain Blahut-Arimoto's rate degrades as the rows of W approach each other; Newton's does not.
    Cost per step: one SVD of a |support| x |Y| matrix.
    """
    tol = check_tolerance(tol)
    max_iter = check_count(max_iter, "max_iter", high=MAX_ITERATIONS)
    c = check_channel(channel)
    p = np.full(c.shape[0], 1.0 / c.shape[0])
    d, lower = _capacity_bounds(c, p)
    for _ in range(max_iter):
        upper = float(d.max())
        if upper - lower < tol:
            return max(0.0, lower), p
        on = p > 0
        face_gap = float(d[on].max()) - lower
        outside_gap = float(d[~on].max()) - lower if (~on).any() else -np.inf
        step = None
        if not (outside_gap > 0 and face_gap <= max(tol / 4, 1e-3 * outside_gap)):
            step, linear = _face_ascent(c, p, d, np.flatnonzero(on))
        if step is None:  # the face is solved: bring in the input that violates optimality most
            step = -p.copy()
            step[int(np.argmax(np.where(on, -np.inf, d)))] += 1.0
            reach = 1.0
        else:
            falling = step < 0
            reach = float(np.min(p[falling] / -step[falling])) if falling.any() else np.inf
            reach = reach if linear else min(reach, 1.0)
        accepted = False
        size = reach if np.isfinite(reach) and reach > 0 else 0.0
        for _ in range(60 if size > 0 else 0):
            trial = p + size * step
            if size == reach:  # the step reaches the face's boundary: leave it exactly
                trial[(step < 0) & (trial <= p * 1e-12)] = 0.0
            trial = np.maximum(trial, 0.0)
            trial /= trial.sum()
            d_trial, lower_trial = _capacity_bounds(c, trial)
            if lower_trial > lower:
                accepted = True
                break
            size /= 2
        if not accepted:  # Blahut-Arimoto step: never decreases I
            trial = p * np.exp(d - d.max())
            trial /= trial.sum()
            d_trial, lower_trial = _capacity_bounds(c, trial)
        p, d, lower = trial, d_trial, lower_trial
    raise RuntimeError(  # pragma: no cover - a few dozen steps suffice; guards a tol below rounding
        f"channel_capacity: bounds not within tol={tol} after {max_iter} steps"
    )


def rate_distortion_point(prior, distortion, slope: float, *, tol: float = 1e-12, max_iter: int = 100_000):
    """One point of the rate-distortion curve of ``prior`` by Blahut-Arimoto at a given ``slope``.

    Minimises I(X; Y) + slope * E d(X, Y) over test channels; returns ``(rate, mean_distortion,
    channel)``. Sweeping ``slope`` in (0, inf) traces R(D) from D_max down to D_min [blahut1972];
    ``slope = inf`` is that end exactly: the least rate among the channels of least distortion
    (each x only to its outputs of smallest d(x, y)). ``distortion`` is a finite, non-negative
    N x K matrix (an infinite distortion is a forbidden pair: leave that output out instead).
    """
    tol = check_tolerance(tol)
    max_iter = check_count(max_iter, "max_iter", high=MAX_ITERATIONS)
    p = check_distribution(prior)
    d = check_array(distortion, "distortion", ndim=2, low=0.0)
    if d.shape[0] != p.size:
        raise ValueError(f"distortion must be a {p.size} x K matrix (one row per prior entry), got shape {d.shape}")
    slope = check_scalar(slope, "slope", low=0.0)
    excess = d - d.min(axis=1, keepdims=True)
    if np.isinf(slope):
        a = (excess == 0).astype(float)
    else:
        with np.errstate(over="ignore"):
            a = np.exp(-slope * excess)
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
    vectorised over leading axes; each table needs m >= 1. Computed on the relative frequencies
    f/m, so that counts up to the float range do not overflow.
    """
    c = check_array(counts, "counts", low=0.0)
    if c.ndim < 2:
        raise ValueError(f"counts must be at least 2-D (..., |X|, |Y|), got shape {c.shape}")
    if c.shape[-1] == 0 or c.shape[-2] == 0:
        raise ValueError(f"counts must not be empty, got shape {c.shape}")
    m = c.sum(axis=(-2, -1), keepdims=True)
    if np.any(m < 1):
        raise ValueError("counts: every table needs m >= 1 samples")
    joint = c / m
    fx = joint.sum(axis=-1, keepdims=True)
    fy = joint.sum(axis=-2, keepdims=True)
    used = joint > 0
    with np.errstate(divide="ignore"):  # log 0 only where joint = 0, masked out
        log_ratio = np.log(np.where(used, joint, 1.0)) - np.log(np.where(used, fx, 1.0)) - np.log(np.where(used, fy, 1.0))
    mi = np.where(used, joint * log_ratio, 0.0).sum(axis=(-2, -1))
    mi = np.maximum(mi, 0.0)
    return float(mi) if mi.ndim == 0 else mi


def empirical_mutual_information(x, y) -> float:
    """Empirical MI Î(X; Y) of paired samples [empirical-pml, eq. (67)], nats: the 2-D table of (x_j, y_j)
    frequencies passed to :func:`empirical_mutual_information_counts`. Equal-length, non-empty;
    the values are labels (numbers or strings), a numeric label must be finite (NaN is no value)."""
    x = check_labels(x, "x", "sample labels")
    y = check_labels(y, "y", "sample labels")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have equal length (paired samples), got {x.size} and {y.size}")
    _, xi = np.unique(x, return_inverse=True)
    _, yi = np.unique(y, return_inverse=True)
    table = np.zeros((xi.max() + 1, yi.max() + 1))
    np.add.at(table, (xi, yi), 1.0)
    return empirical_mutual_information_counts(table)
