"""Source sets: sets of distributions on {1..M} known to contain the data's distribution.

A source set is given by a finite list of points (an ``n x M`` array, one distribution per row);
the set it stands for is their convex hull, which is all that matters for mechanism design under
a worst-case distortion constraint (Kalantari, Sankar & Sarwate, [robust-dp-hamming], Lemma 2).

Symbols are indexed from 0 here (the paper's symbol ``i`` is index ``i - 1``).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np
from scipy.optimize import linprog

from leakage.validation import check_array_size, check_count, check_distribution, check_tolerance

#: The three classes of Definition 1 [robust-dp-hamming].
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
    check_array_size((1, M), "M")
    return np.full((1, M), 1.0 / M)


def contains_uniform(points, *, tol: float = 1e-9) -> bool:
    """Whether conv(points) contains the uniform distribution (the Class I test, Definition 1).

    Feasibility LP: lambda >= 0, sum lambda = 1, sum_k lambda_k P_k = (1/M, ..., 1/M), solved
    with a slack s >= 0 on every equation; the set is Class I iff the smallest total slack <= tol.
    """
    tol = check_tolerance(tol)
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
    tol = check_tolerance(tol)
    p = check_source_set(points)
    order = np.argsort(-p.mean(axis=0), kind="stable")
    ok = np.all(np.diff(p[:, order], axis=1) <= tol)
    return order if ok else None


def source_class(points) -> str:
    """The class of a source set (Definition 1, [robust-dp-hamming]): "I", "II" or "III".

    I: conv(points) contains the uniform distribution; II: not I, and one permutation orders
    every member decreasingly; III: all others.
    """
    if contains_uniform(points):
        return "I"
    return "II" if common_order(points) is not None else "III"


#: Most (subsets x points) the exact enumeration of :func:`distortion_threshold` visits: its work is
#: C(M, k) subsets times the points, each an O(k) sum in Python; larger general (Class III) problems
#: are refused rather than left running for hours.
MAX_SUBSET_WORK = 200_000


def distortion_threshold(points, k: int) -> float:
    """D^(k): the least worst-case distortion of a mechanism with k all-zero output columns.

    D^(k) = min_{S subset of {1..M}, |S| = k} max_{P in conv(points)} sum_{i in S} P_i, for
    0 <= k <= M - 1 (D^(0) = 0). A symbol never output is always distorted, so no mechanism with k
    or more all-zero columns has worst-case Hamming distortion below D^(k). For a Class II set the
    minimising S is the k least likely symbols of the common order, and this is eq. (9),
    D^(k) = max_P sum_{i = M-k+1}^{M} P_(i) [robust-dp-hamming, Theorem 2(a)]. Unitless, in [0, 1].

    Cost: the general case enumerates all C(M, k) subsets for the n points, exponential in M
    (choosing the k columns that minimise the largest row sum is a combinatorial min-max problem).
    It is used while C(M, k) n <= :data:`MAX_SUBSET_WORK`; beyond, a single point or a set with a
    common order (Class II, and Class I sets of one point) is solved exactly in O(n M log M) (the k
    last symbols of the common order), and any other set is refused with a ValueError.
    """
    p = check_source_set(points)
    m = p.shape[1]
    k = check_count(k, "k", low=0)
    if k > m - 1:
        raise ValueError(f"k must be in [0, M-1] = [0, {m - 1}], got {k}")
    if k == 0:
        return 0.0
    work = comb(m, k) * p.shape[0]
    if work > MAX_SUBSET_WORK:
        order = common_order(p)
        if order is None:
            raise ValueError(
                f"points: D^(k) of a set without a common order (Class III) enumerates C(M, k) = "
                f"{comb(m, k)} subsets for {p.shape[0]} points, beyond the limit "
                f"{MAX_SUBSET_WORK:,} (exponential in M = {m}); use a smaller M or fewer points"
            )
        subset = np.sort(order[m - k :])
        return float(p[:, subset].sum(axis=1).max())
    best = np.inf
    for subset in combinations(range(m), k):
        best = min(best, float(p[:, list(subset)].sum(axis=1).max()))
    return best


def distortion_thresholds(points) -> np.ndarray:
    """(D^(1), ..., D^(M-1)) of :func:`distortion_threshold` (non-decreasing in k)."""
    p = check_source_set(points)
    return np.array([distortion_threshold(p, k) for k in range(1, p.shape[1])])


# ------------------------------------------------------------------ Class III: pieces and folding
# [robust-dp-hamming] Section III-C: the simplex is the union of the M! closed chambers
# C_T = {P : P_T(1) >= P_T(2) >= ... >= P_T(M)}, one per permutation T; S_P (eq. (12)) is the
# chamber of the identity. A Class III set P is cut into its pieces P|_T = P ∩ C_T (eq. (13)),
# each is folded into S_P by P -> T(P) = (P_T(1), ..., P_T(M)) (eq. (14)), and P^UB / P^LB are the
# union / intersection of the folded pieces (eq. (15)). Every polytope is handled exactly through
# its vertices (V-representation) and its H-representation in R^M; a permutation T is an index
# array, T(P) = P[T] is the numpy fancy index, and T^{-1}(Q) is the R with R[T] = Q.
# The pieces are always folded onto the identity chamber, also when P does not meet it (the
# paper's "appropriate change of indices"): the symmetrised sets U_T T^{-1}(P^LB) and
# U_T T^{-1}(P^UB), and so Theorem 3's bounds, do not depend on the chamber folded onto.

#: Geometric tolerance (probability units) of the polytope computations below.
GEOM_TOL = 1e-9
#: Largest coefficient of an H-representation :func:`polytope_vertices` accepts (its tolerances are
#: absolute: it is meant for polytopes of probability vectors, coefficients of order 1).
MAX_COEFFICIENT = 1e6
# a fixed generic direction: breaks the ties of a point that sits on a chamber wall (never random)
_GENERIC = np.sqrt(np.array([2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71], float))


def _affine_hull(points: np.ndarray, tol: float = GEOM_TOL):
    """(centre, basis): aff(points) = centre + span(basis columns), orthonormal basis (M x d)."""
    centre = points.mean(axis=0)
    if points.shape[0] == 1:
        return centre, np.zeros((points.shape[1], 0))
    _, s, vt = np.linalg.svd(points - centre, full_matrices=False)
    d = int(np.sum(s > tol * max(1.0, s[0] if s.size else 0.0)))
    return centre, vt[:d].T


def _finite_points(points, name: str = "points") -> np.ndarray:
    """``points`` as a non-empty ``n x M`` float array of finite numbers (rows: points of R^M)."""
    try:
        p = np.atleast_2d(np.asarray(points, dtype=float))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an n x M array of real numbers, got {points!r}") from exc
    if p.ndim != 2 or p.size == 0:
        raise ValueError(f"{name} must be a non-empty n x M array, got shape {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} must be finite")
    if np.abs(p).max() > MAX_COEFFICIENT:
        raise ValueError(
            f"{name} must have coordinates of magnitude <= {MAX_COEFFICIENT:g} (the geometric tolerances are "
            f"absolute: points of the probability simplex), got {np.abs(p).max():.3g}"
        )
    return p


def _dedupe(points: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    if points.shape[0] == 0:
        return points
    keys = np.round(points / tol).astype(np.int64)
    _, idx = np.unique(keys, axis=0, return_index=True)
    return points[np.sort(idx)]


def hull_vertices(points, *, tol: float = GEOM_TOL) -> np.ndarray:
    """The vertices (extreme points) of conv(points), rows of an ``k x M`` array, duplicates merged.

    Works in the affine hull of the points (any dimension d: a point, a segment's two ends, the
    qhull vertices for d >= 2).
    """
    tol = check_tolerance(tol)
    from scipy.spatial import ConvexHull

    p = _dedupe(_finite_points(points))
    centre, basis = _affine_hull(p, tol)
    d = basis.shape[1]
    if d == 0:
        return p[:1].copy()
    y = (p - centre) @ basis
    if d == 1:
        return p[[int(np.argmin(y[:, 0])), int(np.argmax(y[:, 0]))]]
    return p[np.sort(ConvexHull(y).vertices)]


def hull_halfspaces(points, *, tol: float = GEOM_TOL):
    """H-representation of conv(points) in R^M: ``(A_eq, b_eq, A_ub, b_ub)``.

    conv(points) = {x : A_eq x = b_eq, A_ub x <= b_ub}; A_eq spans the orthogonal complement of
    the affine hull, A_ub holds the facets within it (qhull for affine dimension >= 2).
    """
    tol = check_tolerance(tol)
    from scipy.spatial import ConvexHull

    p = _dedupe(_finite_points(points))
    m = p.shape[1]
    centre, basis = _affine_hull(p, tol)
    d = basis.shape[1]
    # orthogonal complement of span(basis)
    q, _ = np.linalg.qr(np.hstack([basis, np.eye(m)]))
    normal = q[:, d:m]
    a_eq, b_eq = normal.T, normal.T @ centre
    if d == 0:
        return a_eq, b_eq, np.zeros((0, m)), np.zeros(0)
    y = (p - centre) @ basis
    if d == 1:
        a = np.array([[1.0], [-1.0]])
        b = np.array([y[:, 0].max(), -y[:, 0].min()])
    else:
        eq = ConvexHull(y).equations  # eq[:, :d] y + eq[:, d] <= 0
        a, b = eq[:, :d], -eq[:, d]
    # y = basis^T (x - centre): a y <= b  <=>  (a basis^T) x <= b + a basis^T centre
    a_ub = a @ basis.T
    return a_eq, b_eq, a_ub, b + a_ub @ centre


def _chebyshev(a: np.ndarray, b: np.ndarray):
    """max r s.t. a z + r ||a_i|| <= b, r <= 1: the centre z and radius r (None if infeasible)."""
    k = a.shape[1]
    norms = np.linalg.norm(a, axis=1)
    cost = np.zeros(k + 1)
    cost[-1] = -1.0
    bounds = [(None, None)] * k + [(None, 1.0)]
    res = linprog(cost, A_ub=np.hstack([a, norms[:, None]]), b_ub=b, bounds=bounds, method="highs")
    if res.status == 2:
        return None, -np.inf
    if res.status != 0:
        raise RuntimeError(f"polytope_vertices: the Chebyshev-centre LP failed: {res.message}")
    return res.x[:k], float(res.x[-1])


def polytope_vertices(a_eq, b_eq, a_ub, b_ub, *, tol: float = GEOM_TOL) -> np.ndarray:
    """Vertices of the polytope {x in R^M : a_eq x = b_eq, a_ub x <= b_ub} (empty ``0 x M`` if none).

    The polytope must be bounded (refused otherwise: one LP on its recession cone). Works in the
    solution space of the equalities; inequalities that are tight on the whole polytope (implicit
    equalities, e.g. the piece of a segment on a chamber wall) are found by LP and moved to the
    equalities, so that the remaining system has an interior point (Chebyshev centre) and qhull's
    halfspace intersection applies (affine dimension >= 2; a point and an interval are done
    directly). Coefficients of magnitude <= 1e6 (the tolerances are absolute).
    """
    return _polytope_vertices(a_eq, b_eq, a_ub, b_ub, tol=tol, check_bounded=True)


def _polytope_vertices(a_eq, b_eq, a_ub, b_ub, *, tol: float = GEOM_TOL, check_bounded: bool = False) -> np.ndarray:
    """:func:`polytope_vertices`; the library's own polytopes (pieces of a hull of probability
    vectors) are bounded by construction and skip the recession-cone LP."""
    tol = check_tolerance(tol)
    from scipy.spatial import HalfspaceIntersection

    try:
        a_eq, b_eq = np.atleast_2d(np.asarray(a_eq, float)), np.atleast_1d(np.asarray(b_eq, float))
        a_ub, b_ub = np.atleast_2d(np.asarray(a_ub, float)), np.atleast_1d(np.asarray(b_ub, float))
    except (TypeError, ValueError) as exc:
        raise TypeError("a_eq, b_eq, a_ub, b_ub must be arrays of real numbers") from exc
    for name, arr, ndim in (("a_eq", a_eq, 2), ("b_eq", b_eq, 1), ("a_ub", a_ub, 2), ("b_ub", b_ub, 1)):
        if arr.ndim != ndim:
            raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
        if np.all(np.isfinite(arr)) and arr.size and np.abs(arr).max() > MAX_COEFFICIENT:
            raise ValueError(
                f"{name} must have entries of magnitude <= {MAX_COEFFICIENT:g} (the geometric tolerances are "
                f"absolute, {tol:g}: polytopes of probability vectors), got {np.abs(arr).max():.3g}"
            )
    m = max(a_eq.shape[1], a_ub.shape[1])
    if m == 0 or a_eq.size % m or a_ub.size % m or a_ub.size == 0:
        raise ValueError(
            f"a_eq and a_ub must be matrices with M columns (a_ub with >= 1 row), got shapes "
            f"{a_eq.shape} and {a_ub.shape}"
        )
    a_eq = a_eq.reshape(-1, m)
    a_ub = a_ub.reshape(-1, m)
    for name, a, b in (("eq", a_eq, b_eq), ("ub", a_ub, b_ub)):
        if b.size != a.shape[0]:
            raise ValueError(f"b_{name} must have one entry per row of a_{name} ({a.shape[0]}), got {b.size}")
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            raise ValueError(f"a_{name} and b_{name} must be finite")
    if check_bounded and not _bounded(a_eq, a_ub):
        raise ValueError(
            "a_eq, a_ub: the polyhedron {x : a_eq x = b_eq, a_ub x <= b_ub} is unbounded (it has a direction "
            "d != 0 with a_eq d = 0, a_ub d <= 0); polytope_vertices needs a bounded polytope"
        )
    empty = np.zeros((0, m))
    for _ in range(m + 1):
        # solution space of the equalities: x = x0 + N z
        if a_eq.shape[0]:
            x0, *_ = np.linalg.lstsq(a_eq, b_eq, rcond=None)
            if np.abs(a_eq @ x0 - b_eq).max() > 1e3 * tol:
                return empty
            _, s, vt = np.linalg.svd(a_eq)
            rank = int(np.sum(s > 1e-10 * max(1.0, s[0])))
            null = vt[rank:].T
        else:
            x0, null = np.zeros(m), np.eye(m)
        k = null.shape[1]
        a = a_ub @ null
        b = b_ub - a_ub @ x0
        norms = np.linalg.norm(a, axis=1)
        flat = norms <= 1e-12
        if np.any(b[flat] < -1e3 * tol):
            return empty
        a, b = a[~flat], b[~flat]
        if k == 0:
            return x0[None, :].copy()
        if a.shape[0] == 0:
            raise ValueError("polytope_vertices: the polytope is unbounded (no inequalities left)")
        scale = np.linalg.norm(a, axis=1)
        a, b = a / scale[:, None], b / scale
        z, r = _chebyshev(a, b)
        if r < -1e3 * tol or z is None:
            return empty
        if r > 1e3 * tol:
            if k == 1:
                lo = np.max(b[a[:, 0] < 0] / a[a[:, 0] < 0, 0])
                hi = np.min(b[a[:, 0] > 0] / a[a[:, 0] > 0, 0])
                zs = np.array([[lo], [hi]])
            else:
                hs = HalfspaceIntersection(np.hstack([a, -b[:, None]]), z)
                zs = hs.intersections
            return _dedupe(x0 + zs @ null.T)
        # no interior point: find the inequalities tight on the whole polytope
        tight = []
        for i in range(a.shape[0]):
            res = linprog(a[i], A_ub=a, b_ub=b, bounds=[(None, None)] * k, method="highs")
            if res.status != 0:
                raise RuntimeError(f"polytope_vertices: the implicit-equality LP failed: {res.message}")
            if b[i] - res.fun <= 1e2 * tol:
                tight.append(i)
        if not tight:  # pragma: no cover - round-off only
            raise RuntimeError("polytope_vertices: no interior point and no implicit equality found")
        a_eq = np.vstack([a_eq, a[tight] @ null.T])
        b_eq = np.concatenate([b_eq, b[tight] + a[tight] @ null.T @ x0])
    raise RuntimeError("polytope_vertices: too many implicit equalities")  # pragma: no cover


def _bounded(a_eq: np.ndarray, a_ub: np.ndarray) -> bool:
    """Whether {x : a_eq x = b_eq, a_ub x <= b_ub} is bounded whatever b (when not empty): its
    recession cone {d : a_eq d = 0, a_ub d <= 0} is {0}. No line: [a_eq; a_ub] has full column
    rank; then a non-zero d of the cone has sum(a_ub d) < 0, which one LP looks for."""
    both = np.vstack([a_eq, a_ub])
    m = both.shape[1]
    if np.linalg.matrix_rank(both) < m:
        return False
    cost = a_ub.sum(axis=0)  # minimise sum(a_ub d) over the cone, cut at -1
    a = np.vstack([a_ub, -cost[None, :]])
    b = np.concatenate([np.zeros(a_ub.shape[0]), [1.0]])
    res = linprog(cost, A_ub=a, b_ub=b, A_eq=a_eq if a_eq.shape[0] else None,
                  b_eq=np.zeros(a_eq.shape[0]) if a_eq.shape[0] else None, bounds=(None, None), method="highs")
    if res.status != 0:  # pragma: no cover - the cut cone is bounded below and contains 0
        raise RuntimeError(f"polytope_vertices: the recession-cone LP failed: {res.message}")
    return res.fun > -1e-9


def chamber_halfspaces(order, M: int | None = None):
    """The chamber C_T = {P : P_T(1) >= ... >= P_T(M)} as ``a_ub x <= 0`` (M-1 rows).

    ``order`` is the permutation T as an index array (0-based); its chamber is eq. (12)'s S_P for
    the identity, and the region that T folds onto S_P [robust-dp-hamming, Section III-C].
    """
    try:
        raw = np.asarray(order)
        with np.errstate(invalid="ignore"):  # inf/NaN cast to garbage, caught below
            t = raw.astype(int)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"order must be a permutation of 0..M-1 (integers), got {order!r}") from exc
    m = t.size if M is None else check_count(M, "M", low=1)
    check_array_size((max(m - 1, 1), m), "M" if M is not None else "order")
    if t.size == 0:
        raise ValueError("order must be a permutation of 0..M-1, got an empty order")
    if t.ndim != 1 or not np.array_equal(t, raw) or sorted(t.tolist()) != list(range(m)):
        raise ValueError(f"order must be a permutation of 0..{m - 1}, got {order!r}")
    a = np.zeros((m - 1, m))
    a[np.arange(m - 1), t[1:]] = 1.0
    a[np.arange(m - 1), t[:-1]] = -1.0
    return a, np.zeros(m - 1)


def _check_points_and_order(points, order, name: str):
    """(points as an n x M float array, order as a permutation of 0..M-1), or a ValueError/TypeError
    naming the parameter (a non-permutation would leave entries of the result unset)."""
    try:
        p = np.atleast_2d(np.asarray(points, dtype=float))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of real numbers (rows of length M), got {points!r}") from exc
    if p.ndim != 2 or p.shape[1] == 0 or p.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty vector or n x M matrix, got shape {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} must be finite")
    try:
        raw = np.asarray(order)
        with np.errstate(invalid="ignore"):  # inf/NaN cast to garbage, caught below
            t = raw.astype(int)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"order must be a permutation of 0..{p.shape[1] - 1}, got {order!r}") from exc
    m = p.shape[1]
    if t.ndim != 1 or not np.array_equal(t, raw) or sorted(t.tolist()) != list(range(m)):
        raise ValueError(
            f"order must be a permutation of 0..{m - 1} (M = {m}, the number of columns of {name}), got {order!r}"
        )
    return p, t


def fold(points, order) -> np.ndarray:
    """T(P) = (P_T(1), ..., P_T(M)) for every row P (eq. (14)); maps C_T onto S_P.
    ``order``: a permutation of 0..M-1."""
    p, t = _check_points_and_order(points, order, "points")
    return p[:, t]


def unfold(points, order) -> np.ndarray:
    """T^{-1}(Q): the R with R_T(i) = Q_i for every row Q (inverse of :func:`fold`).
    ``order``: a permutation of 0..M-1."""
    q, t = _check_points_and_order(points, order, "points")
    out = np.empty_like(q)
    out[:, t] = q
    return out


def _order_of(x: np.ndarray, *directions: np.ndarray, tol: float = GEOM_TOL) -> tuple:
    """Decreasing order of x, near-ties (consecutive sorted values within tol) broken by the
    directions in turn, then by index: the chamber entered by x + t d1 + t^2 d2 + ... (t -> 0+)."""
    m = x.size
    first = np.argsort(-x, kind="stable")
    group = np.concatenate([[0], np.cumsum(np.diff(-x[first]) > tol)])
    rank = np.empty(m, dtype=int)
    rank[first] = group  # tie groups, 0 = largest
    keys = [np.arange(m)] + [-np.round(d / 1e-12) for d in reversed(directions)] + [rank]
    return tuple(int(i) for i in np.lexsort(keys))


def _piece(h_rep, order, m: int) -> np.ndarray:
    a_eq, b_eq, a_ub, b_ub = h_rep
    ca, cb = chamber_halfspaces(order, m)
    return _polytope_vertices(a_eq, b_eq, np.vstack([a_ub, ca]), np.concatenate([b_ub, cb]))


def _dimension(points: np.ndarray) -> int:
    if points.shape[0] == 0:
        return -1
    return _affine_hull(points)[1].shape[1]


@dataclass(frozen=True)
class Folding:
    """The pieces of a source set and their folded equivalents [robust-dp-hamming, eqs. (13)-(15)].

    ``orders``: the folding permutations T (index arrays), ``pieces[k]``: vertices of
    P|_T = conv(points) ∩ C_T, ``folded[k]`` = T(pieces[k]) ⊂ S_P; ``upper``: vertices of
    conv(P^UB) (the union of the folded pieces), ``lower``: vertices of P^LB (their
    intersection; ``0 x M`` if empty).
    """

    orders: tuple
    pieces: tuple
    folded: tuple
    upper: np.ndarray
    lower: np.ndarray

    def lower_set(self) -> np.ndarray:
        """Vertices of the union over T of T^{-1}(P^LB): contained in conv(points)."""
        return _symmetrise(self.lower, self.orders)

    def upper_set(self) -> np.ndarray:
        """Vertices (a superset) of the union over T of T^{-1}(P^UB): contains conv(points)."""
        return _symmetrise(self.upper, self.orders)


def _symmetrise(points: np.ndarray, orders) -> np.ndarray:
    if points.shape[0] == 0:
        return points
    return _dedupe(np.vstack([unfold(points, t) for t in orders]))


def folding(points, *, max_pieces: int = 5000) -> Folding:
    """Cut conv(points) into its pieces P|_T, fold them into S_P, and form P^UB and P^LB.

    [robust-dp-hamming] Definition 5 (eq. (13)), Definition 6 (eq. (14)) and eq. (15). The folding
    permutations are those T whose chamber C_T meets conv(points) in a set of full dimension
    (the affine dimension of conv(points)); a piece of lower dimension lies in the union of the
    others, so P is still the union of the pieces kept, and dropping it only enlarges P^LB
    (the literal Definition 5 would shrink P^LB to a face whenever P merely touches a wall).
    The pieces are found by walking from chamber to neighbouring chamber through the facets the
    pieces share (the pieces of a convex set are connected through facets). Ties that hold on all
    of P (P_i = P_j for every member) are broken by index: one chamber per piece.

    Supports any polytope given by its points (any affine dimension >= 0); the pieces are exact
    (LP + qhull halfspace intersection), up to ``GEOM_TOL``. ValueError if more than
    ``max_pieces`` chambers are met.
    """
    p = check_source_set(points)
    max_pieces = check_count(max_pieces, "max_pieces")
    m = p.shape[1]
    p = hull_vertices(p)
    h_rep = hull_halfspaces(p)
    _, basis = _affine_hull(p)
    dim = basis.shape[1]
    # a generic interior point and direction of aff(P)
    generic = basis @ (basis.T @ _GENERIC[:m]) if dim else np.zeros(m)
    weights = 1.0 + _GENERIC[: p.shape[0]] % 1.0
    start = weights @ p / weights.sum()
    first = _order_of(start, generic, _GENERIC[:m])
    queue, seen, found = [first], {first}, {}
    while queue:
        t = queue.pop()
        verts = _piece(h_rep, t, m)
        if _dimension(verts) < dim:
            continue
        found[t] = verts
        if len(found) > max_pieces:
            raise ValueError(f"points: conv(points) meets more than max_pieces = {max_pieces} chambers")
        # neighbours through the facets of the piece lying on a chamber wall
        ca, _ = chamber_halfspaces(t, m)
        mid_piece = verts.mean(axis=0)
        for row in ca:
            on_wall = verts[np.abs(verts @ row) <= 1e3 * GEOM_TOL]
            if on_wall.shape[0] == 0 or _dimension(on_wall) != dim - 1:
                continue
            mid = on_wall.mean(axis=0)
            out = mid - mid_piece  # leaves the piece through this facet
            nb = _order_of(mid, out, generic, _GENERIC[:m])
            if nb not in seen:
                seen.add(nb)
                queue.append(nb)
    orders = tuple(sorted(found))
    pieces = tuple(found[t] for t in orders)
    # the pieces must cover P: every vertex of P is a vertex of some piece
    corners = _dedupe(np.vstack(pieces), 1e-7)
    missed = [v for v in p if np.min(np.abs(corners - v).max(axis=1)) > 1e-6]
    if missed:  # pragma: no cover - guards the chamber walk against round-off
        raise RuntimeError(f"folding: the chamber walk missed the pieces at the vertices {missed}")
    folded = tuple(fold(found[t], t) for t in orders)
    upper = hull_vertices(np.vstack(folded))
    # P^LB: intersection of the folded pieces, each in H-representation
    reps = [hull_halfspaces(f) for f in folded]
    lower = _polytope_vertices(
        np.vstack([r[0] for r in reps]), np.concatenate([r[1] for r in reps]),
        np.vstack([r[2] for r in reps]), np.concatenate([r[3] for r in reps]),
    )
    if lower.shape[0] > 1:
        lower = hull_vertices(lower)
    return Folding(orders, pieces, folded, upper, lower)


def class_iii_folding(points) -> Folding:
    """:func:`folding` of a Class III source set; ValueError naming ``points`` otherwise."""
    cls = source_class(points)
    if cls != "III":
        raise ValueError(
            f"points must be a Class III source set (no common order, uniform not in the hull; "
            f"[robust-dp-hamming], Definition 1), got a Class {cls} set"
        )
    return folding(points)
