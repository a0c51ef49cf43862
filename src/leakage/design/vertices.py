"""The vertex families of the design loop in closed form (docs/design-engine.md, the table): what a
column of each looks like, and every vertex listed for ``method="enumerate"``.

Vertices of the normalised cross-section {v in K, P.v = 1} of the privacy cone, in closed form.

Families ([saeidian-optimal-pml, Thm 6] for the box, [kairouz2016] for LDP, [empirical-pml,
App. B] for the ball's g):

* lift vectors of the box {0 <= v <= cap}: rows at cap, one fractional row, the rest 0;
* two-level columns: ``low`` off a set T, ``high`` on T, privacy active (staircases for LDP, where
  high = e^eps low);
* for the ball, any beta: the all-ones column, 1/P(T) on T, two-level columns and three-level
  columns (h on T1, c on T2, 0 on T3, privacy active). On the region where the order of the
  entries of v is fixed g(v) is linear, so a vertex has at most two strict steps in that order
  (N - 1 active constraints among N - 1 order constraints, v_min >= 0 and privacy).

Which of them are extreme points of the (convex) cross-section of the ball: staircases on a set
lighter than beta/2, two-level columns whose top set has mass in [beta/2, beta/2 + e^-eps),
three-level columns (light or heavy top set) and 1/P(T) on T; a two-level column whose top set
has mass >= beta/2 + e^-eps is a mixture of the all-ones column and 1/P(T) on its top set.

Enumeration is exponential (2^N, N 2^(N-1) or 3^N columns): for small N only.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from leakage.design.cone import Cone
from leakage.design.polytope import design_epsilon


def subset_masks(n: int) -> np.ndarray:
    """Every proper non-empty subset of range(n) as the columns of an n x (2^n - 2) bool array."""
    idx = np.arange(1, 2**n - 1)
    return ((idx[None, :] >> np.arange(n)[:, None]) & 1).astype(bool)


def lift_level(p_f, cap: float, mass_top):
    """The level of the fractional row f of a lift vector of {0 <= v <= cap, P.v = 1}, cap on a set
    T of mass ``mass_top`` (f not in T): P.v = 1 gives v_f = (1 - cap P(T)) / P_f (a vertex when it
    lies in [0, cap]). Arrays broadcast."""
    return (1.0 - cap * mass_top) / p_f


def lift_vectors(prior, cap: float) -> np.ndarray:
    """Vertices of {0 <= v <= cap, P.v = 1}: rows at cap, one fractional row f, the rest 0
    (columns of an N x K array, K <= N 2^(N-1)). Vectorised over the subsets of the other rows."""
    n = prior.size
    out = []
    others = subset_masks(n) if n > 1 else np.zeros((1, 0), bool)
    full = np.concatenate([np.zeros((n, 1), bool), others, np.ones((n, 1), bool)], axis=1)
    for f in range(n):
        t = full[:, ~full[f]]  # subsets without f
        mass = prior @ t
        r = lift_level(prior[f], cap, mass)
        ok = (r >= -1e-12) & (r <= cap * (1 + 1e-12))
        v = np.where(t[:, ok], cap, 0.0)
        v[f] = np.clip(r[ok], 0.0, cap)
        out.append(v)
    cols = np.concatenate(out, axis=1)
    return np.unique(cols, axis=1)


def random_lift_vectors(prior, cap: float, columns: int, seed) -> np.ndarray:
    """``columns`` random lift vectors of {0 <= v <= cap, P.v = 1} (N x ``columns``): in a random
    order of the letters (seeded by ``seed``), each at ``cap`` while the mass at cap stays at most
    1/cap, the first that does not fit at the fractional level :func:`lift_level` (in [0, cap)),
    the rest 0. Where cap <= 1 every letter fits: the all-ones column."""
    p = np.asarray(prior, dtype=float)
    n = p.size
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((columns, n)), axis=1)  # a random permutation per column
    mass = np.cumsum(p[order], axis=1)  # prior mass of each prefix of the order
    whole = cap * mass <= 1.0  # the prefix at cap (monotone along the order)
    k = whole.sum(axis=1)  # the first letter that does not fit (n: every letter fits)
    v = np.zeros((columns, n))
    rows = np.arange(columns)[:, None]
    v[rows, order] = np.where(whole, cap, 0.0)
    part = k < n
    f = order[part, k[part]]
    top = np.where(k[part] > 0, mass[part, np.maximum(k[part] - 1, 0)], 0.0)
    v[np.flatnonzero(part), f] = lift_level(p[f], cap, top)
    v[~part] = 1.0
    return v.T


def two_level(cone: Cone, masks: np.ndarray) -> np.ndarray:
    """Two-level columns: m off T, m + d on T (masks N x K), the largest d allowed (closed form)."""
    p, E = cone.prior, cone.E
    s = p @ masks
    b = s if cone.kind == "ldp" else np.minimum(cone.half, s)
    with np.errstate(divide="ignore"):
        d = np.minimum((E - 1.0) / (1.0 - s + b * E), 1.0 / s)
    m = 1.0 - s * d
    return m[None, :] + d[None, :] * masks


def staircase_columns(prior, eps: float, masks) -> np.ndarray:
    """Normalised staircase columns (P.v = 1): a off the high set, a e^eps on it (masks N x K)."""
    m = np.asarray(masks, dtype=float)
    m = m if m.ndim == 2 else m[:, None]
    c = math.expm1(eps)
    a = 1.0 / (1.0 + c * (prior @ m))
    return a[None, :] * (1.0 + c * m)


def light_top_column(prior, half: float, E: float, t1, s):
    """The three-level vertex with a light top set: h on T1 (P(T1) < beta/2), c on T2 = S minus T1,
    0 off S, privacy active: the worst prior removes all of T1 and beta/2 - P(T1) of T2, so
    h = k c with k = e^eps (P(S) - beta/2), and P(T1) h + P(T2) c = 1. None when not such a
    vertex (T1 empty gives 1/P(S) on S, in K as k >= 1)."""
    p1, sig = float(prior[t1].sum()), float(prior[s].sum())
    k = E * (sig - half)
    if not (p1 < half and k >= 1.0 and s.sum() < prior.size):
        return None
    c = 1.0 / (k * p1 + sig - p1)
    v = np.where(s, c, 0.0)
    v[t1] = k * c
    return v


def ball_family(cone: Cone) -> np.ndarray:
    """Every vertex of the normalised cross-section of the ball cone (any beta), about 3^N columns:
    the all-ones column, two-level columns, 1/P(T) on T and the three-level columns

        P(T1) h + P(T2) c = 1,  h = e^eps ((P(T1) - r1) h + (P(T2) - r2) c),

    r1 = min(t, P(T1)), r2 = min(t - r1, P(T2)) the mass the worst prior removes, t = min(beta/2,
    1 - P(receiver)); candidates violating h >= c >= 0 are dropped."""
    n, p, E = cone.n, cone.prior, cone.E
    masks = subset_masks(n)
    cols = [np.ones((n, 1)), two_level(cone, masks)]
    s = p @ masks
    cols.append(masks / s[None, :])
    codes = np.arange(3**n)
    digits = (codes[None, :] // (3 ** np.arange(n))[:, None]) % 3  # 0: T3 (zero), 1: T1 (top), 2: T2 (mid)
    t1, t2, t3 = digits == 1, digits == 2, digits == 0
    ok = t1.any(axis=0) & t3.any(axis=0)
    t1, t2, t3 = t1[:, ok], t2[:, ok], t3[:, ok]
    p1, p2 = p @ t1, p @ t2
    recv = np.where(t3, p[:, None], np.inf).min(axis=0)
    t = np.minimum(cone.half, 1.0 - recv)
    r1 = np.minimum(t, p1)
    r2 = np.minimum(t - r1, p2)
    a, b = p1, p2
    c_, d = 1.0 - E * (p1 - r1), -E * (p2 - r2)
    det = a * d - b * c_
    good = np.abs(det) > 1e-14
    h = np.where(good, d / np.where(good, det, 1.0), -1.0)
    c = np.where(good, -c_ / np.where(good, det, 1.0), -1.0)
    keep = good & (c >= -1e-12) & (h >= c - 1e-12)
    cols.append(h[keep][None, :] * t1[:, keep] + np.maximum(c[keep], 0.0)[None, :] * t2[:, keep])
    return np.concatenate(cols, axis=1)


def brute_force_vertices(cone: Cone) -> np.ndarray:
    """Vertices of the normalised cross-section of K by brute force over active sets (N <= 4 only;
    an independent check of :func:`ball_family`): the extreme priors Q_k of B_beta(P) ∩ simplex,
    then {v >= 0, P.v = 1, v_i <= e^eps Q_k.v}."""
    n, p, E = cone.n, cone.prior, cone.E
    signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * n)).reshape(n, -1).T
    a_ub = np.concatenate([-np.eye(n), signs])
    b_ub = np.concatenate([np.zeros(n), 2 * cone.half + signs @ p])
    priors = _active_set_vertices(a_ub, b_ub, np.ones((1, n)), np.ones(1))
    rows = [-np.eye(n)] + [np.eye(n) - E * q[None, :] for q in priors]
    a = np.concatenate(rows)
    return _active_set_vertices(a, np.zeros(a.shape[0]), p[None, :], np.ones(1)).T


def _active_set_vertices(a_ub, b_ub, a_eq, b_eq, tol=1e-10):
    n = a_ub.shape[1]
    k = n - a_eq.shape[0]
    combos = np.array(list(combinations(range(a_ub.shape[0]), k)), dtype=int).reshape(-1, k)
    mats = np.concatenate([a_ub[combos], np.broadcast_to(a_eq, (len(combos),) + a_eq.shape)], axis=1)
    rhs = np.concatenate([b_ub[combos], np.broadcast_to(b_eq, (len(combos), b_eq.size))], axis=1)
    ok = np.abs(np.linalg.det(mats)) > 1e-12
    x = np.linalg.solve(mats[ok], rhs[ok][..., None])[..., 0]
    feas = np.all(x @ a_ub.T <= b_ub + tol, axis=1)
    return np.unique(np.round(x[feas], 12), axis=0)


#: Largest N of :func:`enumerate_vertices` for the wide ball (3^N columns).
BALL_ENUMERATE_LIMIT = 12


def enumerate_vertices(cone: Cone) -> np.ndarray:
    """Every vertex of the normalised cross-section of K where a closed-form family is known:
    lift vectors (box), staircases (LDP), staircases and lift vectors at eps' (beta <= 2 min P,
    [empirical-pml, Prop. 2]), the three-level family (wider ball, N <= BALL_ENUMERATE_LIMIT)."""
    n, p = cone.n, cone.prior
    if cone.kind == "box":
        return lift_vectors(p, cone.E)
    if cone.kind == "ball" and not cone.small_ball:
        if n > BALL_ENUMERATE_LIMIT:
            raise ValueError(f"method='enumerate' needs N <= {BALL_ENUMERATE_LIMIT} for beta > 2 min(prior) "
                             f"(3^N columns), got N = {n}")
        return ball_family(cone)
    masks = subset_masks(n)
    cols = [np.ones((n, 1)), two_level(cone, masks)]
    if cone.kind == "ball":
        eps_p = design_epsilon(cone.eps, 2 * cone.half)
        if eps_p >= 0:
            cols.append(lift_vectors(p, math.exp(eps_p)))
    return np.concatenate(cols, axis=1)


def channel_columns(cone: Cone, channel) -> np.ndarray:
    """The columns of a feasible channel as normalised rays of K (polished), unused outputs dropped."""
    mass = cone.prior @ channel
    cols = channel[:, mass > 0] / mass[mass > 0][None, :]
    return cone.polish(cols)

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
