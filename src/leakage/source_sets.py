"""Source sets: sets of distributions on {1..M} known to contain the data's distribution.

A source set is given by a finite list of points (an ``n x M`` array, one distribution per row);
the set it stands for is their convex hull, which is all that matters for mechanism design under
a worst-case distortion constraint (Kalantari, Sankar & Sarwate, seed 002, Lemma 2).

Symbols are indexed from 0 here (the paper's symbol ``i`` is index ``i - 1``).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from scipy.optimize import linprog

from leakage.validation import check_count, check_distribution

#: The three classes of Definition 1 (seed 002).
CLASSES = ("I", "II", "III")


def check_source_set(points, name: str = "points") -> np.ndarray:
    """Return the points of a source set as an ``n x M`` float array after validation.

    Every row must be a probability distribution (entries in [0, 1] summing to 1) on the same
    alphabet of size M >= 2; a single distribution may be passed as a vector.
    """
    try:
        rows = [np.asarray(p, dtype=float) for p in points]
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a list of probability vectors, got {points!r}") from exc
    if len(rows) == 0:
        raise ValueError(f"{name} must contain at least one distribution")
    if all(r.ndim == 0 for r in rows):  # one distribution given as a flat vector
        rows = [np.asarray(rows, dtype=float)]
    sizes = {r.size if r.ndim == 1 else -1 for r in rows}
    if -1 in sizes:
        raise ValueError(f"{name} must be a list of 1-dimensional probability vectors")
    if len(sizes) != 1:
        raise ValueError(
            f"{name} must all have the same alphabet size M, got sizes {sorted(sizes)}"
        )
    (m,) = sizes
    if m < 2:
        raise ValueError(f"{name} must have alphabet size M >= 2, got M = {m}")
    return np.vstack([check_distribution(r, f"{name}[{k}]") for k, r in enumerate(rows)])


def uniform_point(M: int) -> np.ndarray:
    """The uniform distribution on M symbols (the Class I source set {uniform}), M >= 2."""
    M = check_count(M, "M", low=2)
    return np.full((1, M), 1.0 / M)


def contains_uniform(points, *, tol: float = 1e-9) -> bool:
    """Whether conv(points) contains the uniform distribution (the Class I test, Definition 1).

    Feasibility LP: lambda >= 0, sum lambda = 1, sum_k lambda_k P_k = (1/M, ..., 1/M), solved
    with a slack s >= 0 on every equation; the set is Class I iff the smallest total slack <= tol.
    """
    p = check_source_set(points)
    n, m = p.shape
    # variables: lambda (n), s_plus (m), s_minus (m)
    a_eq = np.zeros((m + 1, n + 2 * m))
    a_eq[:m, :n] = p.T
    a_eq[:m, n : n + m] = np.eye(m)
    a_eq[:m, n + m :] = -np.eye(m)
    a_eq[m, :n] = 1.0
    b_eq = np.append(np.full(m, 1.0 / m), 1.0)
    cost = np.concatenate([np.zeros(n), np.ones(2 * m)])
    res = linprog(cost, A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if res.status != 0:
        raise RuntimeError(f"contains_uniform: the Class I feasibility LP failed: {res.message}")
    return bool(res.fun <= tol)


def common_order(points, *, tol: float = 1e-12):
    """A permutation ordering every point of conv(points) decreasingly, or None if there is none.

    Returns indices ``order`` with P[order[0]] >= P[order[1]] >= ... for every listed point (and
    hence for their convex hull). Candidate order: by mean probability (stable); it orders every
    point iff some order does.
    """
    p = check_source_set(points)
    order = np.argsort(-p.mean(axis=0), kind="stable")
    ok = np.all(np.diff(p[:, order], axis=1) <= tol)
    return order if ok else None


def source_class(points) -> str:
    """The class of a source set (Definition 1, seed 002): "I", "II" or "III".

    I: conv(points) contains the uniform distribution; II: not I, and one permutation orders
    every member decreasingly; III: all others.
    """
    if contains_uniform(points):
        return "I"
    return "II" if common_order(points) is not None else "III"


def distortion_threshold(points, k: int) -> float:
    """D^(k): the least worst-case distortion of a mechanism with k all-zero output columns.

    D^(k) = min_{S subset of {1..M}, |S| = k} max_{P in conv(points)} sum_{i in S} P_i, for
    0 <= k <= M - 1 (D^(0) = 0). A symbol never output is always distorted, so no mechanism with k
    or more all-zero columns has worst-case Hamming distortion below D^(k). For a Class II set the
    minimising S is the k least likely symbols of the common order, and this is eq. (9),
    D^(k) = max_P sum_{i = M-k+1}^{M} P_(i) (seed 002, Theorem 2(a)). Unitless, in [0, 1].
    """
    p = check_source_set(points)
    m = p.shape[1]
    k = check_count(k, "k", low=0)
    if k > m - 1:
        raise ValueError(f"k must be in [0, M-1] = [0, {m - 1}], got {k}")
    if k == 0:
        return 0.0
    best = np.inf
    for subset in combinations(range(m), k):
        best = min(best, float(p[:, list(subset)].sum(axis=1).max()))
    return best


def distortion_thresholds(points) -> np.ndarray:
    """(D^(1), ..., D^(M-1)) of :func:`distortion_threshold` (non-decreasing in k)."""
    p = check_source_set(points)
    return np.array([distortion_threshold(p, k) for k in range(1, p.shape[1])])
