"""Optimal privacy mechanisms by linear programming over the extreme rays of the privacy cone.

Problem [empirical-pml, eq. (40)]: maximise a utility over all channels ``channel[x, y] = P(y|x)``
that are eps-PML for every prior in the closed l1-ball B_beta(P) ∩ simplex [empirical-pml,
eq. (31)], or eps-LDP. Privacy is a condition on each output column v = channel[:, y] alone:

* PML on the ball: max_x v_x <= e^eps g(v), g(v) = min_{Q in B_beta(P)} Q.v. The worst prior moves
  t = min(beta/2, 1 - P(x_min)) of mass from the rows where v is largest (each row gives at most
  its P(x)) to a row where v is smallest [empirical-pml, App. B], so g is concave, piecewise linear,
  and by LP duality (fractional knapsack)
      g(v) = P.v - min { (beta/2) lam + P.mu : lam + mu_x >= v_x - m, lam, mu >= 0 },  m = min v;
  beta = 0 is the known prior (g = P.v), beta = 2 the whole simplex (g = min v, i.e. eps-LDP).
* LDP: max_x v_x <= e^eps min_x v_x [kairouz2016].

The feasible columns form a convex cone K. The utility is a sum over columns of a positively
homogeneous function (mutual information: mu(v) = sum_x P_x v_x log(v_x / P.v), convex; a linear
utility u: (P * u[:, y]).v for label y), so the optimum is the LP

    max sum_r lam_r mu(r)   s.t.   sum_r lam_r r = 1 (N rows),  lam >= 0

over the extreme rays r of K normalised by P.r = 1 [saeidian-optimal-pml, Thm 6; kairouz2016].
It is solved by column generation (HiGHS master LP; pricing max_{r in K, P.r = 1} mu(r) - w.r for
the master duals w). Any upper bound U on the pricing maximum certifies: w + U P is dual feasible,
so ``bound = sum(w) + max(U, 0)`` bounds the optimum from above, whatever the solver accuracy.

Pricing (rigorous upper bounds always; exact where stated):

* beta = 0 (exact): the cross-section is the box {0 <= v <= e^eps, P.v = 1}; spatial branch and
  bound with the chord (concave envelope) of each convex term P_x r log r - w_x r as a
  fractional-knapsack relaxation, solved by sorting (no LP); only the one fractional row has a gap.
* LDP (exact): the vertices are staircase columns (a off S, a e^eps on S, a = 1/(1 + c P(S)),
  c = e^eps - 1) and the pricing value is -log(1 + c t) + (eps e^eps t - W - c w(S))/(1 + c t),
  t = P(S). Branch and bound over items in/out of S with a closed-form bound: w(S) >= the
  fractional knapsack L(t) (convex piecewise linear), and on each piece the bound is unimodal in t
  with its maximiser in closed form (see ``_bb_ldp``). Certified at N = 74 in about a second.
* beta > 0, N <= 10 (exact): the vertices of the cross-section are known in closed form for any
  beta (all-ones, 1/P(T) on T, two-level and three-level columns h/c/0, ``_ball_family``, about
  3^N columns), so ``"auto"`` enumerates them and solves one LP (certified).
* beta > 0, any N (exact, ``_ball_pricing``): every vertex of the cross-section is in one of three
  families, each with its own exact branch and bound. (a) Staircases (two levels a / a e^eps on
  a set of mass < beta/2, the worst prior removes all of it): the LDP search above. (b) Light-top
  three-level columns: h on T1 with P(T1) < beta/2, c on T2, 0 elsewhere, h = k c,
  k = e^eps (P(S) - beta/2), S = T1 ∪ T2; value (p1 k log k - (k - 1) w(T1) - w(S)) / D - log D,
  D = P(S) + (k - 1) p1, p1 = P(T1); branch and bound over the items (in / out of T1, of S) with
  w(T1) >= L1(p1), w(S) >= L12(P(S)) (fractional knapsacks), T1 ⊆ S as a mass constraint, k and D
  bounded on intervals of P(S) (the interval of the bound's argmax is refined in place), and the
  remaining function of p1 unimodal with its maximiser in closed form (``_bb_light_top``).
  (c) Everything else lies in the boxes {m <= v <= H (1 + (beta/2) m), P.v = 1},
  H = e^eps / (1 + e^eps beta/2), which are inside the cone: branch and bound over m = min v with
  the box search above bounding each interval (``_bb_heavy_top``). Cheap columns first (two-level
  columns by local search, lift vectors at eps' of eq. (43)); the exact search runs when they find
  nothing. The master LP is always seeded with the route-(44) optimum and the eps-LDP optimum
  (both feasible for the ball), so the result is at least as good as both whatever the budgets.
* linear utilities: pricing per label is linear, in closed form for beta = 0 (fractional knapsack),
  beta <= 2 min P (vertices are lift vectors at eps' and two-level columns over prefixes), LDP
  (staircase columns over prefixes, [kairouz2016]); an LP per label otherwise.

Linear utilities with an exact compact LP of K (known prior, LDP, beta <= 2 min P) are solved by
*label generation* (``method="labels"``, the ``"auto"`` choice): column generation over rays stalls
there (its master is a set-partitioning LP: every row must be covered exactly), while optimal
mechanisms use few outputs. So the compact LP (per label: v = m + q, q >= 0, the N rows of
eq. (98) [empirical-pml, App. D]; v <= e^eps P.v for beta = 0; q <= (e^eps - 1) m for LDP) is
solved restricted to a growing set of labels (warm-started HiGHS); the row-sum duals w of each
restricted LP are priced over all N labels in closed form, which is the certified bound above,
and the labels of positive price are added (the best max(1, L/4) per iteration) until certified.
Starting from the best constant channel (one label) it is feasible throughout; its worst case
(every label used) is the full compact LP after O(log N) growth steps (24 at N = 200).

Small alphabets with a known vertex family (beta = 0: lift vectors [saeidian-optimal-pml, Thm 6];
LDP: staircase vectors [kairouz2016]; beta <= 2 min P: both kinds at eps and eps'; any beta: the
three-level family above) are solved by plain enumeration and one LP (``method="enumerate"``),
about N 2^(N-1) (3^N) columns; ``"auto"`` uses it up to the measured crossovers (N <= 14 known
prior, N <= 12 LDP, N <= 12 for beta <= 2 min P, N <= 10 for a wider ball), except for linear
utilities with the known prior, LDP or beta <= 2 min P, where label generation is faster from N = 6.

Stopping rules are counted work only (column- and label-generation iterations, branch-and-bound
nodes per pricing call), so the same inputs give the same bytes on any machine; ``max_seconds`` adds an
opt-in wall-clock limit that makes results machine-dependent. The master LP is warm-started
HiGHS; on a numerical failure it is solved cold, then by scipy's dual simplex / interior point.

Exactness: every column is built in closed form or *polished* (normalised, then mixed with the
all-ones column, which is strictly inside K, just enough to satisfy the exact closed-form test);
the final weights are recomputed by a linear solve on the basis, the rows renormalised, and the
returned channel verified with the exact closed form of the sup of PML over the ball (or the LDP
ratio). A violation above 1e-9 nats raises RuntimeError.

Limits (measured with tools/design_benchmark.py, 2 shared cores): known prior and LDP certified to
1e-9 at N = 42-74 in about a second (Adult's age, N = 74, LDP: 91 s). The ball beyond 2 min P at
eps = 1, beta = beta*(1e-6) for m = 48,842: certified at N = 42 (heavy-tailed Zipf and Adult's
native-country: gap <= 1e-6 (1 + value) in 7-22 s with 5000 nodes per search, <= 1e-9 in 17-79 s
with 50000); not at N = 74 (Zipf: gap 4e-5 in 44 s; Adult's age: 1.6e-3). What limits it: many
rare rows with equal duals (often exactly 0) -- subsets of them reach almost any mass, so the box
and light-top searches close their bound only by enumerating near-equivalent subsets.
The value is >= the
route-(44) and LDP optima by construction. Linear utilities at N = 200, beta = 1.5 min P, eps = 1
(label generation, certified, equal to the compact LP of design_mechanism to 1e-13): 0.08 s vs
2.2 s for the identity utility (3 labels), 0.13 s vs 28 s for -|x - y| (9 labels; the optimum
uses 4); with a uniform random utility (40 labels) 2.1 s vs 50 s; the worst case, every label
used (known prior, eps = 6, identity), 1.6 s vs 0.8 s. Column generation over rays does not
certify these in 240 s; an interior-point solve of the compact LP without crossover was slower
than simplex (15.7 s vs 3.2 s for the identity).
Branch and bound is exponential in the worst case; its node budget bounds the work, and an
unfinished search still yields a valid (looser) bound, reported with ``certified=False``.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from leakage.design.polytope import design_epsilon
from leakage.measures.dp import ldp_epsilon
from leakage.measures.information import entropy, mutual_information
from leakage.estimation.uncertainty import local_leakage_capacity_on_ball
from leakage.validation import check_distribution, check_scalar

PRIVACY = ("pml", "ldp")
UTILITIES = ("mutual_information",)
VERIFY_TOL = 1e-9
#: "auto" enumerates the exact ball vertex family (about 3^N columns, ``_ball_family``) up to this N
_BALL_ENUMERATE_MAX_N = 10
#: nodes of the short box pricing search tried before the full budget (partial pricing)
_BOX_SHORT_NODES = 2000
#: parts the s-range of the light-top bound's argmax cell is cut into (``_bb_light_top``)
_LIGHT_TOP_SPLIT = 8
#: rounds of that refinement of the argmax cell per node
_LIGHT_TOP_ROUNDS = 16
#: node budget of each of the ball's exact pricing searches per call (``_ball_pricing``)
_BALL_NODES = 5000
_HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


@dataclass(frozen=True)
class OptimalDesign:
    """An optimal mechanism with a certified upper bound on the optimum.

    ``channel`` is N x M row-stochastic; ``value`` its utility (recomputed from ``channel``);
    ``bound`` >= the optimum over all feasible channels; ``certified`` when
    bound - value <= 1e-9 (1 + |value|). ``stats``: solver statistics.
    """

    channel: np.ndarray
    value: float
    bound: float
    certified: bool
    prior: np.ndarray
    eps: float
    beta: float
    privacy: str
    utility: str
    method: str
    columns_generated: int
    iterations: int
    seconds: float
    stats: dict = field(default_factory=dict)

    @property
    def gap(self) -> float:
        return float(self.bound - self.value)


# --------------------------------------------------------------------------- helpers


@dataclass(frozen=True)
class _Budget:
    """Stopping rules of one solve: counted work (deterministic) and an optional wall clock.

    ``max_iterations``: column-generation iterations (master solves, each followed by one pricing);
    ``max_nodes``: nodes of each pricing branch and bound (None: each search's own default);
    ``deadline``: time.perf_counter() value after which the solve stops (None: never; set only when
    a caller passes ``max_seconds``, which makes results machine-dependent).
    """

    max_iterations: int
    max_nodes: int | None
    deadline: float | None

    def nodes(self, default: int, per: int = 1) -> int:
        """Node budget of one search: its default, or max_nodes // per (at least 1)."""
        return default if self.max_nodes is None else max(1, int(self.max_nodes) // per)

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline


def _xlogx(r):
    r = np.asarray(r, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(r > 0, r * np.log(np.where(r > 0, r, 1.0)), 0.0)


def _mu(p, v):
    """mu(v) = sum_x P_x v_x log(v_x / P.v) for columns v (vector or N x K matrix)."""
    s = p @ v
    return p @ _xlogx(v) - _xlogx(s)


def _ball_min(v, p, half):
    """min_{Q in B_beta(P)} Q.v for columns of v (N x K), half = beta/2; closed form (App. B)."""
    order = np.argsort(-v, axis=0, kind="stable")
    vs = np.take_along_axis(v, order, axis=0)
    ps = p[order]
    vmin = vs[-1]
    t = np.minimum(half, 1.0 - ps[-1])
    before = np.cumsum(ps, axis=0) - ps
    removed = np.clip(t[None, :] - before, 0.0, ps)
    removed[-1] = 0.0
    return p @ v - (removed * (vs - vmin[None, :])).sum(axis=0)


class _Cone:
    """The privacy cone K: 'box' (PML, beta = 0), 'ball' (PML, beta > 0) or 'ldp'."""

    def __init__(self, p, eps, beta, privacy):
        self.p = p
        self.n = p.size
        self.eps = eps
        self.E = math.exp(eps)
        if privacy == "ldp":
            self.kind, self.half = "ldp", 1.0
        elif beta == 0.0:
            self.kind, self.half = "box", 0.0
        else:
            self.kind, self.half = "ball", beta / 2.0
        self.small_ball = self.kind == "ball" and beta <= 2.0 * p.min()

    def low(self, v):
        """g(v) for columns (N x K)."""
        if self.kind == "box":
            return self.p @ v
        if self.kind == "ldp":
            return v.min(axis=0)
        return _ball_min(v, self.p, self.half)

    def polish(self, v):
        """Columns (N x K) -> normalised columns exactly in K (mixed with the all-ones column)."""
        v = np.clip(np.atleast_2d(v.T).T if v.ndim == 1 else v, 0.0, None)
        v = v / (self.p @ v)[None, :]
        top = v.max(axis=0)
        excess = top - self.E * self.low(v)
        theta = np.where(excess > 0, excess / (excess + self.E - 1.0 + 1e-300), 0.0)
        theta = np.where(excess > 0, np.minimum(1.0, theta * (1 + 1e-9) + 1e-15), 0.0)
        v = (1.0 - theta)[None, :] * v + theta[None, :]
        return v / (self.p @ v)[None, :]


# --------------------------------------------------------------------------- vertex families


def _lift_vectors(p, cap):
    """Vertices of {0 <= v <= cap, P.v = 1}: rows at cap, one fractional row, the rest 0."""
    n = p.size
    out = []
    for f in range(n):
        others = [i for i in range(n) if i != f]
        for k in range(n):
            for t in combinations(others, k):
                mass = p[list(t)].sum()
                r = (1.0 - cap * mass) / p[f]
                if -1e-12 <= r <= cap * (1 + 1e-12):
                    v = np.zeros(n)
                    v[list(t)] = cap
                    v[f] = min(max(r, 0.0), cap)
                    out.append(v)
    return np.array(out).T


def _subset_masks(n):
    idx = np.arange(1, 2**n - 1)
    return ((idx[None, :] >> np.arange(n)[:, None]) & 1).astype(bool)


def _two_level(cone, masks):
    """Two-level columns: m off T, m + d on T, the largest d allowed (closed form); masks N x K."""
    p, E = cone.p, cone.E
    s = p @ masks
    b = s if cone.kind == "ldp" else np.minimum(cone.half, s)
    with np.errstate(divide="ignore"):
        d = np.minimum((E - 1.0) / (1.0 - s + b * E), 1.0 / s)
    m = 1.0 - s * d
    return m[None, :] + d[None, :] * masks


def _active_set_vertices(a_ub, b_ub, a_eq, b_eq, tol=1e-10):
    """All vertices of {x: a_ub x <= b_ub, a_eq x = b_eq} by brute force over active sets (tiny sizes)."""
    n = a_ub.shape[1]
    k = n - a_eq.shape[0]
    combos = np.array(list(combinations(range(a_ub.shape[0]), k)), dtype=int).reshape(-1, k)
    mats = np.concatenate([a_ub[combos], np.broadcast_to(a_eq, (len(combos),) + a_eq.shape)], axis=1)
    rhs = np.concatenate([b_ub[combos], np.broadcast_to(b_eq, (len(combos), b_eq.size))], axis=1)
    ok = np.abs(np.linalg.det(mats)) > 1e-12
    x = np.linalg.solve(mats[ok], rhs[ok][..., None])[..., 0]
    feas = np.all(x @ a_ub.T <= b_ub + tol, axis=1)
    return np.unique(np.round(x[feas], 12), axis=0)


def _ball_vertices(cone):
    """Vertices of the normalised cross-section of K for any beta, by brute force (N <= 4):
    the extreme priors Q_k of B_beta(P) ∩ simplex, then v >= 0, P.v = 1, v_i <= e^eps Q_k.v."""
    n, p, E = cone.n, cone.p, cone.E
    signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * n)).reshape(n, -1).T
    a_ub = np.concatenate([-np.eye(n), signs])
    b_ub = np.concatenate([np.zeros(n), 2 * cone.half + signs @ p])
    priors = _active_set_vertices(a_ub, b_ub, np.ones((1, n)), np.ones(1))
    rows = [-np.eye(n)]
    for q in priors:
        rows.append(np.eye(n) - E * q[None, :])
    a = np.concatenate(rows)
    verts = _active_set_vertices(a, np.zeros(a.shape[0]), p[None, :], np.ones(1))
    return verts.T


def _ball_family(cone):
    """Every vertex of the normalised cross-section of the ball cone (any beta), in closed form.

    On the region where the order of the entries of v is fixed, g(v) is linear (the worst prior
    removes mass from the largest entries in that order), so the cross-section is a union of
    polytopes {v ordered, v >= 0, P.v = 1, max v <= e^eps g(v)} with N + 1 inequalities in dimension
    N - 1. A vertex of a convex union of pieces is a vertex of a piece, and a vertex of a piece has
    N - 1 active constraints, i.e. at most two strict steps in the order: (i) the all-ones column;
    (ii) 1/P(T) on a set T, 0 elsewhere (privacy slack); (iii) two levels m < m + d with privacy
    active (``_two_level``); (iv) three levels h on T1, c on T2, 0 on T3 with privacy active,
        P(T1) h + P(T2) c = 1,  h = e^eps ((P(T1) - r1) h + (P(T2) - r2) c),
    r1 = min(t, P(T1)), r2 = min(t - r1, P(T2)) the mass the worst prior removes, t = min(beta/2,
    1 - P(receiver)). Candidates that violate h >= c >= 0 are dropped; the rest are polished.
    About 3^N columns (N <= 10 is cheap).
    """
    n, p, E = cone.n, cone.p, cone.E
    masks = _subset_masks(n)
    cols = [np.ones((n, 1)), _two_level(cone, masks)]
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
    # [[p1, p2], [1 - E (p1 - r1), -E (p2 - r2)]] (h, c) = (1, 0)
    a, b = p1, p2
    c_, d = 1.0 - E * (p1 - r1), -E * (p2 - r2)
    det = a * d - b * c_
    good = np.abs(det) > 1e-14
    h = np.where(good, d / np.where(good, det, 1.0), -1.0)
    c = np.where(good, -c_ / np.where(good, det, 1.0), -1.0)
    keep = good & (c >= -1e-12) & (h >= c - 1e-12)
    three = h[keep][None, :] * t1[:, keep] + np.maximum(c[keep], 0.0)[None, :] * t2[:, keep]
    cols.append(three)
    return np.concatenate(cols, axis=1)


def _enumerate(cone):
    """All vertices of the normalised cross-section of K, where a closed-form family is known."""
    n, p = cone.n, cone.p
    if cone.kind == "box":
        return _lift_vectors(p, cone.E)
    masks = _subset_masks(n)
    cols = [np.ones((n, 1)), _two_level(cone, masks)]
    if cone.kind == "ball":
        if not cone.small_ball:
            if n > 12:
                raise ValueError(f"method='enumerate' needs N <= 12 for beta > 2 min(prior) (3^N columns), got N = {n}")
            return _ball_family(cone)
        eps_p = design_epsilon(cone.eps, 2 * cone.half)
        if eps_p >= 0:
            cols.append(_lift_vectors(p, math.exp(eps_p)))
    return np.concatenate(cols, axis=1)


# --------------------------------------------------------------------------- pricing: box


def _bb_box(p, w, cap, *, tol=1e-10, max_nodes=20000, collect=1e-9, find=None, floor=0.0, enough=-np.inf):
    """max_{0 <= r <= cap, P.r = 1} sum_x P_x r_x log r_x - w_x r_x by spatial branch and bound.

    Returns (upper bound, list of columns with value > collect, nodes). The chord relaxation of
    each term on [lo_x, hi_x] is a fractional knapsack; only its fractional row has a gap.
    ``enough``: stop once the bound is <= enough (the caller needs no better bound than that).
    """
    n = p.size
    pl, wl = p.tolist(), w.tolist()

    def h(r):
        return p * _xlogx(r) - w * r

    def h1(i, x):  # one term, in floats (the per-node work is a few of these, not vectors)
        return pl[i] * x * math.log(x) - wl[i] * x if x > 0 else -wl[i] * x

    def solve(lo, hi, hlo, hhi):
        # hlo, hhi: the terms at lo and hi, carried from the parent (one coordinate changes per node)
        rem = 1.0 - p @ lo
        width = hi - lo
        capm = p * width
        if rem < -1e-14 or rem > capm.sum() + 1e-14:
            return None
        slope = np.where(width > 0, (hhi - hlo) / np.where(width > 0, width, 1.0), 0.0)
        order = np.argsort(-(slope / p), kind="stable")
        cum = np.cumsum(capm[order])
        k = int(np.searchsorted(cum, rem))
        r = lo.copy()
        hr = hlo.copy()
        full = order[:k]
        r[full] = hi[full]
        hr[full] = hhi[full]
        frac = -1
        if k < n:
            f = int(order[k])
            r[f] = min(hi[f], lo[f] + (rem - (cum[k - 1] if k else 0.0)) / p[f])
            hr[f] = h1(f, float(r[f]))
            if lo[f] < r[f] < hi[f]:
                frac = f
        ub = hlo.sum() + (slope * (r - lo)).sum()
        return ub, float(hr.sum()), r, frac, hlo, hhi

    found = []
    best = -np.inf
    lo0 = np.full(n, float(floor))
    hi0 = np.broadcast_to(np.asarray(cap, dtype=float), (n,)).copy()
    root = solve(lo0, hi0, h(lo0), h(hi0))
    if root is None:
        return -np.inf, [], 0
    heap = [(-root[0], 0, lo0, hi0, root)]
    cnt, nodes = 1, 1
    ub_global = root[0]
    while heap:
        negub, _, lo, hi, node = heapq.heappop(heap)
        ub, val, r, frac, hlo, hhi = node
        ub_global = -negub
        if val > best:
            best = val
        if val > collect:
            found.append(r)
            if find is not None and val > find:
                return np.inf, found, nodes
        if ub <= max(best, 0.0, enough) + tol:
            ub_global = max(ub, best)
            break
        if frac < 0 or nodes >= max_nodes:
            if frac < 0:
                continue
            heapq.heappush(heap, (negub, -1, lo, hi, node))  # -1: unique key, no array compare
            break
        a, b_, x = lo[frac], hi[frac], r[frac]
        split = x if (a + 0.1 * (b_ - a) < x < b_ - 0.1 * (b_ - a)) else 0.5 * (a + b_)
        hsplit = h1(frac, float(split))
        for clo, chi, side in ((lo[frac], split, 0), (split, hi[frac], 1)):
            lo2, hi2 = lo.copy(), hi.copy()
            lo2[frac], hi2[frac] = clo, chi
            hlo2, hhi2 = (hlo, hhi.copy()) if side == 0 else (hlo.copy(), hhi)
            if side == 0:
                hhi2[frac] = hsplit
            else:
                hlo2[frac] = hsplit
            res = solve(lo2, hi2, hlo2, hhi2)
            nodes += 1
            if res is None:
                continue
            if res[1] > best:
                best = res[1]
            if res[0] > max(best, 0.0) + tol or res[1] > collect:
                cnt += 1
                heapq.heappush(heap, (-res[0], cnt, lo2, hi2, res))
    else:
        ub_global = max(best, 0.0)
    if heap:
        ub_global = max(ub_global, max(-e[0] for e in heap), best)
    return float(ub_global) + 1e-12 * (1 + abs(ub_global)), found, nodes


# --------------------------------------------------------------------------- pricing: LDP staircase


def _staircase_value(p, w, eps, mask):
    """sum_x P_x v_x log v_x - w.v for the staircase column with high set ``mask`` (P.v = 1)."""
    c = math.expm1(eps)
    t = float(p[mask].sum())
    a = 1.0 / (1.0 + c * t)
    return -math.log1p(c * t) + (eps * (c + 1.0) * t - w.sum() - c * float(w[mask].sum())) * a


def _bb_ldp(p, w, eps, *, tol=1e-10, collect=1e-9, max_nodes=200000, deadline=None, keep=64):
    """Exact MI pricing for eps-LDP: max over staircase columns of sum_x P_x v_x log v_x - w.v.

    Staircase ray with high set S, t = P(S), c = e^eps - 1, a = 1/(1 + c t):
        value(S) = -log(1 + c t) + (eps e^eps t - W - c W_S) / (1 + c t),   W = sum w, W_S = w(S).
    Branch and bound on items (x in S / x not in S). At a node, W_S >= L(t), the fractional knapsack
    min {w.z : P.z = t, 0 <= z <= 1, fixed items respected}, convex piecewise linear in t (greedy by
    w_x / P_x). On a piece L = alpha + r t the bound g(t) = -log(1 + c t) + (A + B t)/(1 + c t),
    A = -W - c alpha, B = eps e^eps - c r, has derivative numerator B - c A - c (1 + c t), decreasing
    in t: g is unimodal, maximised at the clipped 1 + c t* = (B - c A) / c. Closed form, rigorous.
    Returns (upper bound, list of high-set masks with value > collect (best first), nodes).
    """
    n = p.size
    c = math.expm1(eps)
    k1 = eps * math.exp(eps)
    wt = float(w.sum())
    order = np.argsort(w / p, kind="stable")
    po, wo = p[order], w[order]

    def evaluate(status):
        # status over sorted items: 1 in, -1 out, 0 free
        inn = status == 1
        free = status == 0
        t0 = float(po[inn].sum())
        w_in = float(wo[inn].sum())
        pf, wf = po[free], wo[free]
        fidx = np.flatnonzero(free)
        if pf.size == 0:
            val = -math.log1p(c * t0) + (k1 * t0 - wt - c * w_in) / (1.0 + c * t0)
            return val, val, inn.copy(), -1
        cp = np.concatenate([[0.0], np.cumsum(pf)])
        cw = np.concatenate([[0.0], np.cumsum(wf)])
        lo = t0 + cp[:-1]
        hi = t0 + cp[1:]
        r = wf / pf
        alpha = w_in + cw[:-1] - r * lo
        a_ = -wt - c * alpha
        b_ = k1 - c * r
        ts = np.clip(((b_ - c * a_) / c - 1.0) / c, lo, hi)
        d = 1.0 + c * ts
        g = -np.log1p(c * ts) + (a_ + b_ * ts) / d
        k = int(np.argmax(g))
        ub = float(g[k])
        ub += 1e-12 * (1.0 + abs(ub))
        # integral candidates at the maximiser: prefix without / with the fractional item
        base = inn.copy()
        base[fidx[:k]] = True
        v0 = _val(base)
        with_k = base.copy()
        with_k[fidx[k]] = True
        v1 = _val(with_k)
        best_mask, best_val = (base, v0) if v0 >= v1 else (with_k, v1)
        frac = (ts[k] - lo[k]) / pf[k]
        branch = fidx[k] if 1e-12 < frac < 1 - 1e-12 else -1
        if branch < 0:  # relaxation integral at its maximiser: the node is solved
            ub = max(best_val, float(g[k]))
        return ub, best_val, best_mask, branch

    def _val(mask):
        t = float(po[mask].sum())
        return -math.log1p(c * t) + (k1 * t - wt - c * float(wo[mask].sum())) / (1.0 + c * t)

    found = {}
    best = closed = -np.inf
    status0 = np.zeros(n, np.int8)
    ub0, v, mk, br = evaluate(status0)
    heap = [(-ub0, 0, status0, v, mk, br)]
    cnt = nodes = 1
    while heap:
        negub, _, status, v, mk, br = heap[0]
        if v > best:
            best = v
        if v > collect:
            found[mk.tobytes()] = (v, mk)
        if -negub <= max(best, 0.0) + tol or nodes >= max_nodes:
            break
        if deadline is not None and time.perf_counter() > deadline:
            break
        heapq.heappop(heap)
        if br < 0:  # solved node (integral relaxation): its bound stays in the global bound
            closed = max(closed, -negub)
            continue
        for s in (1, -1):
            st = status.copy()
            st[br] = s
            ub, v2, mk2, br2 = evaluate(st)
            nodes += 1
            if v2 > best:
                best = v2
            if v2 > collect:
                found[mk2.tobytes()] = (v2, mk2)
            if ub > max(best, 0.0) + tol:
                cnt += 1
                heapq.heappush(heap, (-ub, cnt, st, v2, mk2, br2))
    ub_global = max([best, closed, 0.0] + [-e[0] for e in heap])
    if not heap:
        ub_global = max(best, closed, 0.0) + tol
    cols = sorted(found.values(), key=lambda e: -e[0])[:keep]
    masks = []
    for _, mk in cols:
        m = np.zeros(n, bool)
        m[order[mk]] = True
        masks.append(m)
    return float(ub_global), masks, nodes


# --------------------------------------------------------------------------- pricing: ball (exact)


def _light_top_column(p, half, E, t1, s):
    """The three-level vertex with a light top set: h on T1 (P(T1) < beta/2), c on T2 = S minus T1,
    0 off S, privacy active: the worst prior removes all of T1 and beta/2 - P(T1) of T2, so
    h = k c with k = e^eps (P(S) - beta/2), and P(T1) h + P(T2) c = 1. None when not such a vertex.
    T1 empty gives 1/P(S) on S, in the cone as k >= 1 (the limit P(T1) -> 0 of the family)."""
    p1, sig = float(p[t1].sum()), float(p[s].sum())
    k = E * (sig - half)
    if not (p1 < half and k >= 1.0 and s.sum() < p.size):
        return None
    c = 1.0 / (k * p1 + sig - p1)
    v = np.where(s, c, 0.0)
    v[t1] = k * c
    return v


def _bb_light_top(p, w, eps, half, *, tol=1e-10, collect=1e-9, max_nodes=20000, deadline=None, keep=64,
                  find=np.inf):
    """Exact MI pricing over the three-level ball vertices whose top set is light (P(T1) < beta/2).

    Such a vertex (``_light_top_column``) has value, with p1 = P(T1), s = P(S), S = T1 ∪ T2,
    k = e^eps (s - beta/2) >= 1, D = s + (k - 1) p1, W1 = w(T1), W12 = w(S):
        V = (p1 k log k - (k - 1) W1 - W12) / D - log D.
    Branch and bound over the items (in T1 / not, in S / not) and over intervals of s. At a node,
    W1 >= L1(p1) and W12 >= L12(s), the fractional knapsacks over the free items (convex piecewise
    linear, greedy by w_x / P_x), so V <= G(p1, s). On each cell (a piece of L1 in p1 times a piece
    of L12 within the node's s-interval [s_lo, s_hi]), k, D and L12 are bounded by their values at
    the interval's ends (monotone), which leaves (a + b p1) / (s_lo + kappa p1) - log(s_lo + kappa p1)
    plus a constant, unimodal in p1 with its maximiser in closed form (kappa = k(s_lo) - 1 >= 0).
    The bound converges as the s-intervals shrink and the items are fixed. Rigorous (floating-point
    margin 1e-12 relative). Returns (upper bound, columns with value > collect (best first), nodes);
    once a column is worth more than ``find`` the search stops and returns the bound inf.
    """
    n = p.size
    E = math.exp(eps)
    incumbent = [-np.inf]  # the best value found so far (refining a node that will be pruned is wasted)
    order = np.argsort(w / p, kind="stable")
    po, wo = p[order], w[order]
    ro = wo / po
    small = po < half
    s_min = half + 1.0 / E
    found = {}

    def value(t1, s):
        """V(T1, S) from the aggregates (see above); -inf when (T1, S) is not such a vertex."""
        p1, sig = float(po[t1].sum()), float(po[s].sum())
        k = E * (sig - half)
        if not (p1 < half and k >= 1.0 and sig < 1.0 and not s.all()):
            return -np.inf
        d = sig + (k - 1.0) * p1
        return (p1 * k * math.log(k) - (k - 1.0) * float(wo[t1].sum()) - float(wo[s].sum())) / d - math.log(d)

    def pieces(free, base_mass, base_w, lo, hi):
        """Pieces of L(t) = base_w + greedy over ``free`` items, restricted to t in [lo, hi]:
        (start, end, alpha, slope, item, item start, item end) with L = alpha + slope t on
        [start, end], the item fractional strictly between its start and end."""
        idx = np.flatnonzero(free)
        cm = base_mass + np.concatenate([[0.0], np.cumsum(po[idx])])
        cw = base_w + np.concatenate([[0.0], np.cumsum(wo[idx])])
        a, b = np.maximum(cm[:-1], lo), np.minimum(cm[1:], hi)
        ok = b >= a
        r = ro[idx]
        alpha = cw[:-1] - r * cm[:-1]
        return a[ok], b[ok], alpha[ok], r[ok], idx[ok], cm[:-1][ok], cm[1:][ok]

    def cells(a2, b2, al2, r2, a1, b1, al1, r1, cap1):
        """Bounds on every cell (s-piece i on [a2, b2] x p1-piece j on [a1, b1], p1 <= cap1[i]) and
        their maximisers; an empty cell gets -inf."""
        klo, khi = E * (a2 - half), E * (b2 - half)
        l12min = np.minimum(al2 + r2 * a2, al2 + r2 * b2)
        kap = (klo - 1.0)[:, None]
        q_lo = np.broadcast_to(a1[None, :], (a2.size, a1.size))
        q_hi = np.minimum(b1[None, :], cap1[:, None])
        empty = q_hi < q_lo
        q_hi = np.maximum(q_hi, q_lo)
        neg = np.maximum(0.0, np.maximum(-(al1 + r1 * q_lo), -(al1 + r1 * q_hi)))
        aa = -kap * al1[None, :] - l12min[:, None] + (khi - klo)[:, None] * neg
        bb = (khi * np.log(khi))[:, None] - kap * r1[None, :]
        slo = a2[:, None]
        nn = np.maximum(0.0, np.maximum(-(aa + bb * q_lo), -(aa + bb * q_hi)))
        extra = nn * ((b2 - a2)[:, None] + (khi - klo)[:, None] * q_hi) / (slo + kap * q_lo) ** 2
        safe = np.where(kap > 0, kap, 1.0)
        star = np.where(kap > 0, ((bb * slo - kap * aa) / safe - slo) / safe, np.where(bb >= 0, q_hi, q_lo))
        pstar = np.clip(star, q_lo, q_hi)
        d = slo + kap * pstar
        return np.where(empty, -np.inf, (aa + bb * pstar) / d - np.log(d) + extra), pstar

    def fill(base, pool, target):
        """Two sets: ``base`` plus the items of ``pool`` (in w / P order) that fit in mass ``target``,
        the first item that does not fit skipped but later items of the same ratio (ties, largest
        first) added where they fit; and that set with the skipped item."""
        cum = np.cumsum(po[pool])
        k = int(np.searchsorted(cum, target + 1e-15, side="right"))
        lo = base.copy()
        lo[pool[:k]] = True
        if k == pool.size:
            return [lo]
        hi = lo.copy()
        hi[pool[k]] = True
        left = target - (cum[k - 1] if k else 0.0)
        ties = pool[k + 1:][ro[pool[k + 1:]] <= ro[pool[k]] + 1e-12 * (1 + abs(ro[pool[k]]))]
        for x in ties[np.argsort(-po[ties], kind="stable")]:
            if po[x] <= left + 1e-15:
                lo[x] = True
                left -= po[x]
        return [lo, hi]

    def evaluate(in_s, in_t1, lo, hi):
        fixed_t1 = in_t1 == 1
        fixed_s = in_s == 1
        f1, wf1 = float(po[fixed_t1].sum()), float(wo[fixed_t1].sum())
        fs, wfs = float(po[fixed_s].sum()), float(wo[fixed_s].sum())
        f3 = float(po[in_s == -1].sum())
        free_s = in_s == 0
        elig = (in_t1 == 0) & small
        if f1 >= half:  # T1 must be light
            return None
        s_lo = max(fs, s_min, lo)
        # S leaves at least one row out (T3 is not empty): if none is fixed out, a free one stays out
        pf = np.sort(po[free_s])
        if f3 == 0 and pf.size == 0:
            return None
        s_top = fs + float(pf.sum() if f3 > 0 else pf[1:].sum())
        s_hi = min(s_top, hi)
        if s_hi < s_lo:
            return None
        a1, b1, al1, r1, it1, c1, d1 = pieces(elig, f1, wf1, f1, half)
        a2, b2, al2, r2, it2, _, _ = pieces(free_s, fs, wfs, s_lo, s_hi)
        if a1.size == 0:  # nothing free for T1: only p1 = f1
            a1, b1 = np.array([f1]), np.array([f1])
            al1, r1, it1, c1, d1 = np.array([wf1]), np.zeros(1), np.array([-1]), a1, b1
        if a2.size == 0:  # S is fixed: only s = fs
            if not (s_lo <= fs <= s_hi):
                return None
            a2, b2, al2, r2, it2 = np.array([fs]), np.array([fs]), np.array([wfs]), np.zeros(1), np.array([-1])
        # T1 lies in S: the mass p1 - f1 of its free items is at most what S has beyond its fixed
        # items, s - fs, plus the free items of T1 already fixed in S
        c0 = f1 - fs + float(po[elig & fixed_s].sum())
        u, pstar = cells(a2, b2, al2, r2, a1, b1, al1, r1, c0 + b2)
        if not np.isfinite(u).any():
            return None
        # refine the s-range of the argmax cell (the interval bound's slack is linear in its width):
        # replace it by _LIGHT_TOP_SPLIT sub-cells, a few rounds
        top = float(u.max())
        for _ in range(_LIGHT_TOP_ROUNDS):
            i = int(np.argmax(u.max(axis=1)))
            if b2[i] - a2[i] <= 1e-13 or top <= max(incumbent[0], 0.0) + tol:
                break
            sv = np.linspace(a2[i], b2[i], _LIGHT_TOP_SPLIT + 1)
            rep = np.full(_LIGHT_TOP_SPLIT, i)
            us, ps_ = cells(sv[:-1], sv[1:], al2[rep], r2[rep], a1, b1, al1, r1, c0 + sv[1:])
            keep = np.arange(a2.size) != i
            a2, b2 = np.concatenate([a2[keep], sv[:-1]]), np.concatenate([b2[keep], sv[1:]])
            al2, r2, it2 = (np.concatenate([x[keep], x[rep]]) for x in (al2, r2, it2))
            u, pstar = np.concatenate([u[keep], us]), np.concatenate([pstar[keep], ps_])
            top, last = float(u.max()), top
            if last - top < 1e-2 * (top - max(incumbent[0], 0.0)):  # diminishing returns
                break
        i, j = np.unravel_index(int(np.argmax(u)), u.shape)
        ub = float(u[i, j])
        ub += 1e-12 * (1.0 + abs(ub))
        # integral candidates near the maximiser: the cell's best sampled s and its p1, then T1 and S
        # filled greedily to those masses (``fill``)
        sv = np.linspace(a2[i], b2[i], 5)
        us, ps_s = cells(sv, sv, np.repeat(al2[i], 5), np.repeat(r2[i], 5), a1[j:j + 1], b1[j:j + 1],
                         al1[j:j + 1], r1[j:j + 1], c0 + sv)
        m = int(np.argmax(us[:, 0]))
        s_star, p_star = float(sv[m]), float(ps_s[m, 0])
        best_val, best = -np.inf, None
        for t1 in fill(fixed_t1, np.flatnonzero(elig), p_star - f1):
            base = fixed_s | t1
            for s in fill(base, np.flatnonzero(free_s & ~t1), s_star - float(po[base].sum())):
                val = value(t1, s)
                if val > best_val:
                    best_val, best = val, (t1, s)
                if val > collect:
                    found[(t1.tobytes(), s.tobytes())] = (val, t1, s)
        # branching options: T1's fractional item at the maximiser, the cell's item of S, and
        # halving the s-interval at the middle of the argmax cell
        ps = float(pstar[i, j])
        frac1 = it1[j] if (it1[j] >= 0 and c1[j] + 1e-15 < ps < d1[j] - 1e-15) else -1
        frac2 = it2[i] if it2[i] >= 0 else -1
        cut = 0.5 * (a2[i] + b2[i])
        if not (b2[i] - a2[i] > 1e-12 and s_lo < cut < s_hi):
            cut = -1.0
        return ub, best_val, best, frac1, frac2, cut

    def children(state, option):
        """The two children of a split: ("s", cut) halves the s-interval; (item, 1) puts the item in /
        out of T1; (item, 2) in / out of S."""
        in_s, in_t1, lo, hi = state
        what, kind = option
        if what == "s":
            pairs = [(in_s, in_t1, lo, kind), (in_s, in_t1, kind, hi)]
        else:
            a_s, a_t, b_s, b_t = in_s.copy(), in_t1.copy(), in_s.copy(), in_t1.copy()
            if kind == 1:
                a_s[what], a_t[what], b_t[what] = 1, 1, -1
            else:
                a_s[what], b_s[what], b_t[what] = 1, -1, -1
            pairs = [(a_s, a_t, lo, hi), (b_s, b_t, lo, hi)]
        return [(st, evaluate(*st)) for st in pairs]

    nodes = 1
    state0 = (np.zeros(n, np.int8), np.where(small, 0, -1).astype(np.int8), s_min, 1.0)
    root = evaluate(*state0)
    if root is None:
        return -np.inf, [], nodes
    best = incumbent[0] = root[1]
    heap = [(-root[0], 0, state0, root)]
    cnt = 1
    closed = -np.inf
    while heap and best <= find:
        negub, _, state, node = heap[0]
        ub, val, _, frac1, frac2, cut = node
        if -negub <= max(best, 0.0) + tol or nodes >= max_nodes:
            break
        if deadline is not None and time.perf_counter() > deadline:
            break
        heapq.heappop(heap)
        # strong branching between T1's and S's fractional items (the pair of children whose larger
        # bound is smaller); the s-interval is halved only when no item is fractional
        options = [children(state, (item, kind)) for item, kind in ((frac1, 1), (frac2, 2)) if item >= 0]
        if not options and cut > 0:
            options = [children(state, ("s", cut))]
        nodes += 2 * len(options)
        if not options:  # integral: the node's bound is attained (up to the margin)
            closed = max(closed, ub)
            continue
        for st, res in (kid for o in options for kid in o):
            if res is not None and res[1] > best:
                best = incumbent[0] = res[1]
        if best > find:
            break
        kids = min(options, key=lambda o: max(-np.inf if r is None else r[0] for _, r in o))
        for st, res in kids:
            if res is not None and res[0] > max(best, 0.0) + tol:
                cnt += 1
                heapq.heappush(heap, (-res[0], cnt, st, res))
    if best > find:
        ub_global = np.inf
    elif heap:
        ub_global = max([best, closed, 0.0] + [-e[0] for e in heap])
    else:
        ub_global = max(best, closed, 0.0) + tol
    out = []
    for _, t1, s in sorted(found.values(), key=lambda e: -e[0])[:keep]:
        col = np.empty(n)
        col[order] = _light_top_column(po, half, E, t1, s)
        out.append(col)
    return float(ub_global), out, nodes


def _ball_pricing(cone, w, *, tol, collect, keep, max_nodes, deadline=None):
    """Exact MI pricing on the ball: max over the vertices of the cross-section of mu(v) - w.v.

    The vertices (``_ball_family``) fall in three families, each with its own exact branch and
    bound: staircases (two levels, light top set: ``_bb_ldp``), three-level columns with a light
    top set (``_bb_light_top``), and columns inside the boxes {m <= v <= H (1 + (beta/2) m)}
    (``_bb_heavy_top``). Each later search only has to beat the best column found before it.
    Returns (upper bound, columns with value > collect, nodes)."""
    p = cone.p
    ub_s, masks, nodes = _bb_ldp(p, w, cone.eps, tol=tol, collect=collect, keep=keep, max_nodes=max_nodes,
                                 deadline=deadline)
    found = list(_staircase_columns(p, cone.eps, masks).T) if masks else []
    if found:  # improving columns: the master moves on; the bound is only needed once none is left
        return np.inf, found, nodes
    ub_l, cols, k = _bb_light_top(p, w, cone.eps, cone.half, tol=tol, collect=collect, keep=keep,
                                  max_nodes=max_nodes, deadline=deadline, find=collect)
    nodes += k
    if cols:
        return np.inf, cols, nodes
    ub_h, cols, k = _bb_heavy_top(cone, w, tol=tol, collect=collect, max_nodes=max_nodes)
    return max(ub_s, ub_l, ub_h), cols, nodes + k


def _bb_heavy_top(cone, w, *, tol=1e-10, collect=1e-9, enough=-np.inf, max_nodes=20000, pieces=16):
    """max of sum_x P_x v_x log v_x - w.v over the ball's columns other than staircases and light tops.

    With H = e^eps / (1 + e^eps beta/2) and m = min v, the box {m <= v <= H (1 + (beta/2) m),
    P.v = 1} lies in the cross-section of the ball cone (g(v) >= 1 - (beta/2)(max v - m)), and it
    holds every remaining vertex: the all-ones column, 1/P(T) on T (then 1/P(T) <= H), the
    three-level columns whose top set has P(T1) >= beta/2 (top level H, m = 0) and the two-level
    columns m / H (1 + (beta/2) m) with P(T) >= beta/2. Branch and bound over m: an interval
    [m_lo, m_hi] is bounded by the box [m_lo, H (1 + (beta/2) m_hi)], where the chord branch and
    bound of the known prior is exact (``_bb_box``); intervals are halved until their bound is
    <= max(enough, 0) + tol. Returns (upper bound, columns of the boxes with value > collect, nodes).
    """
    p, E, half = cone.p, cone.E, cone.half
    top = E / (1.0 + E * half)
    found, nodes = [], 0
    best = -np.inf  # best exact value among the polished box columns (feasible)

    def bound(m_lo, m_hi):
        nonlocal nodes, best
        u, cols, k = _bb_box(p, w, top * (1.0 + half * m_hi), tol=tol, collect=max(best, collect), floor=m_lo,
                             enough=max(enough, best, 0.0), max_nodes=max_nodes)
        nodes += max(k, 1)
        if cols:
            v = cone.polish(np.array(cols).T)
            vals = p @ _xlogx(v) - w @ v
            best = max(best, float(vals.max()))
            found.extend(v[:, vals > collect].T)
        return u

    edges = np.linspace(0.0, 1.0, pieces + 1)
    heap = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        heapq.heappush(heap, (-bound(lo, hi), lo, hi))
    closed = -np.inf
    while heap and -heap[0][0] > max(enough, best, 0.0) + tol and nodes < max_nodes:
        negub, lo, hi = heapq.heappop(heap)
        if hi - lo <= 1e-13:
            closed = max(closed, -negub)
            continue
        mid = 0.5 * (lo + hi)
        for a, b in ((lo, mid), (mid, hi)):
            heapq.heappush(heap, (-bound(a, b), a, b))
    ub = max([closed, -np.inf] + [-e[0] for e in heap])
    return float(max(ub, -np.inf)), found, nodes


# --------------------------------------------------------------------------- pricing: LP B&B


class _LiftedLP:
    """Lifted linear description of the cross-section of K for beta > 0 (or LDP), for the linear
    pricing of a wide ball (one LP per label).

    Variables x = [m, G, lam, q (N), mu (N)]: v = m + q, m <= min v, G <= g(v) via the knapsack dual
    (G + (beta/2) lam + P.mu = 1, lam + mu_x >= q_x), v_x <= e^eps G, m + P.q = 1.
    """

    def __init__(self, cone):
        self.cone = cone
        n, p, E = cone.n, cone.p, cone.E
        self.n = n
        self.nv = 3 + 2 * n
        iq, imu = 3, 3 + n
        x = np.arange(n)
        a_eq = np.zeros((2, self.nv))
        a_eq[0, 0] = 1.0
        a_eq[0, iq : iq + n] = p
        a_eq[1, 1] = 1.0
        a_eq[1, 2] = 1.0 if cone.kind == "ldp" else cone.half
        a_eq[1, imu : imu + n] = p
        self.a_eq = sp.csr_matrix(a_eq)
        # m + q_x - E G <= 0 ; q_x - lam - mu_x <= 0
        rows = np.concatenate([x, x, x, n + x, n + x, n + x])
        cols = np.concatenate([np.zeros(n, int), iq + x, np.ones(n, int), iq + x, np.full(n, 2), imu + x])
        vals = np.concatenate([np.ones(n), np.ones(n), np.full(n, -E), np.ones(n), -np.ones(n), -np.ones(n)])
        self.a_ub = sp.csr_matrix((vals, (rows, cols)), shape=(2 * n, self.nv))
        self.bounds = [(0.0, 1.0), (1.0 / E, 1.0), (0.0, None)] + [(0.0, E)] * n + [(0.0, None)] * n
        self.iq = iq

    def solve_linear(self, c_v):
        """max c_v . v over the cross-section. Returns (value, v) or None."""
        n = self.n
        cost = np.zeros(self.nv)
        cost[0] = -c_v.sum()
        cost[self.iq : self.iq + n] = -c_v
        res = linprog(cost, A_ub=self.a_ub, b_ub=np.zeros(2 * n), A_eq=self.a_eq, b_eq=[1.0, 1.0],
                      bounds=self.bounds, method="highs", options=_HIGHS)
        if res.status != 0:
            return None
        return -res.fun, res.x[0] + res.x[self.iq : self.iq + n]


# --------------------------------------------------------------------------- linear pricing


def _linear_pricing(cone, c, lifted=None):
    """max_{v in K, P.v = 1} c[:, y] . v for every label y (c: N x L). Returns (values, columns)."""
    p, E, n = cone.p, cone.E, cone.n
    ratio = c / p[:, None]
    order = np.argsort(-ratio, axis=0, kind="stable")
    ps = p[order]
    cum = np.cumsum(ps, axis=0)  # P(prefix_k), k = 1..n
    labels = c.shape[1]
    cand_vals, cand_cols = [], []

    def lift(cap):
        # greedy fractional knapsack: rows in ratio order at cap until the mass 1 is reached
        capm = ps * cap
        cm = np.cumsum(capm, axis=0)
        before = cm - capm
        fill = np.clip(1.0 - before, 0.0, capm)
        vs = fill / ps
        v = np.empty_like(vs)
        np.put_along_axis(v, order, vs, axis=0)
        return v

    if cone.kind == "box":
        v = lift(E)
        return (c * v).sum(axis=0), v
    if cone.kind == "ldp" or cone.small_ball:
        # prefixes T_k (k = 1..n-1) of the ratio order: two-level columns, plus v = 1
        s = cum[:-1]  # L-columns: (n-1) x L
        if cone.kind == "ldp":
            a = 1.0 / (1.0 + (E - 1.0) * s)
            lev_lo, lev_hi = a, a * E
        else:
            k = 1.0 + cone.half * E
            m = (k - s * E) / (k - s)
            ok = m >= 0
            m = np.where(ok, m, np.nan)
            lev_lo, lev_hi = m, m + (E - m) / k
        csum = np.cumsum(np.take_along_axis(c, order, axis=0), axis=0)[:-1]
        total = c.sum(axis=0)
        vals = lev_lo * total[None, :] + (lev_hi - lev_lo) * csum
        vals = np.where(np.isnan(vals), -np.inf, vals)
        kbest = np.argmax(vals, axis=0)
        best = vals[kbest, np.arange(labels)]
        ones_val = total
        cols = np.ones((n, labels))
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(n)[:, None].repeat(labels, 1), axis=0)
        lo_b = lev_lo[kbest, np.arange(labels)]
        hi_b = lev_hi[kbest, np.arange(labels)]
        two = np.where(rank <= kbest[None, :], hi_b[None, :], lo_b[None, :])
        use_two = best > ones_val
        cols = np.where(use_two[None, :], two, cols)
        out = np.maximum(best, ones_val)
        if cone.kind == "ball":
            eps_p = design_epsilon(cone.eps, 2 * cone.half)
            if eps_p >= 0:
                vl = lift(math.exp(eps_p))
                lv = (c * vl).sum(axis=0)
                better = lv > out
                cols = np.where(better[None, :], vl, cols)
                out = np.maximum(out, lv)
        return out, cols
    # general ball: one LP per label
    out = np.empty(labels)
    cols = np.empty((n, labels))
    for y in range(labels):
        res = lifted.solve_linear(c[:, y])
        if res is None:
            raise RuntimeError(f"linear pricing LP failed for label {y}")
        out[y] = res[0] + 1e-9 * (1 + abs(res[0]))
        cols[:, y] = res[1]
    return out, cols


# --------------------------------------------------------------------------- master LP


class _Master:
    """The restricted master LP max obj.lam s.t. cols lam = 1, lam >= 0 in HiGHS, warm-started."""

    def __init__(self, n):
        import highspy

        self.h = highspy.Highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("primal_feasibility_tolerance", 1e-10)
        self.h.setOptionValue("dual_feasibility_tolerance", 1e-10)
        self.h.setOptionValue("presolve", "off")
        self.h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        inf = highspy.kHighsInf
        self.h.addRows(n, np.ones(n), np.ones(n), 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
        self.inf = inf
        self.k = 0
        self.cols, self.obj = [], []
        self.fallbacks = 0

    def add(self, cols, obj):
        k = cols.shape[1]
        if k == 0:
            return
        self.cols.append(np.array(cols, dtype=float))
        self.obj.append(np.array(obj, dtype=float))
        csc = sp.csc_matrix(cols)
        self.h.addCols(k, obj.astype(float), np.zeros(k), np.full(k, self.inf),
                       csc.nnz, csc.indptr[:-1].astype(np.int32), csc.indices.astype(np.int32), csc.data)
        self.k += k

    def solve(self):
        """Solve the master warm-started; on failure cold (HiGHS after clearSolver), then scipy's dual
        simplex and interior point on the same columns. The master is always feasible (the all-ones
        column, lam = 1, is in it from the start): a failure is numerical, typically the warm-started
        simplex on nearly parallel columns (columns close to the all-ones column at eps -> 0)."""
        self.h.run()
        status = self.h.modelStatusToString(self.h.getModelStatus())
        if status != "Optimal":
            self.fallbacks += 1
            self.h.clearSolver()
            self.h.run()
            status = self.h.modelStatusToString(self.h.getModelStatus())
        if status == "Optimal":
            sol = self.h.getSolution()
            return self.h.getInfo().objective_function_value, np.array(sol.col_value), np.array(sol.row_dual)
        cols, obj = np.concatenate(self.cols, axis=1), np.concatenate(self.obj)
        errors = [f"HiGHS warm and cold: {status}"]
        for method in ("highs-ds", "highs-ipm"):
            try:
                return _master(cols, obj, method)
            except RuntimeError as exc:
                errors.append(f"{method}: {exc}")
        raise RuntimeError("optimal_mechanism: master LP failed: " + "; ".join(errors))


def _master(cols, obj, method="highs-ds"):
    res = linprog(-obj, A_eq=cols, b_eq=np.ones(cols.shape[0]), bounds=(0, None), method=method,
                  options=_HIGHS)
    if res.status != 0 and method == "highs-ds":  # numerical trouble: interior point on the same LP
        res = linprog(-obj, A_eq=cols, b_eq=np.ones(cols.shape[0]), bounds=(0, None), method="highs-ipm",
                      options=_HIGHS)
    if res.status != 0:
        raise RuntimeError(f"optimal_mechanism: master LP failed: {res.message}")
    return -res.fun, res.x, -res.eqlin.marginals


def _mi_heuristic(cone, w, lifted_cap):
    """Cheap candidate columns for the MI pricing (beta > 0 or LDP): two-level columns and lift vectors."""
    p, n = cone.p, cone.n
    order = np.argsort(w / p, kind="stable")
    masks = np.zeros((n, 2 * (n - 1)), bool)
    for k in range(1, n):  # prefixes and suffixes of the w / P order
        masks[order[:k], k - 1] = True
        masks[order[k:], n - 2 + k] = True
    cands = [_two_level(cone, masks)]
    vals = _mu(p, cands[0]) - w @ cands[0]
    k = int(np.argmax(vals))
    cur = masks[:, k].copy()
    cur_val = vals[k]
    for _ in range(n):
        flips = np.repeat(cur[:, None], n, axis=1)
        flips[np.arange(n), np.arange(n)] ^= True
        okc = flips.any(axis=0) & ~flips.all(axis=0)
        if not okc.any():
            break
        fl = flips[:, okc]
        vv = _two_level(cone, fl)
        fv = _mu(p, vv) - w @ vv
        j = int(np.argmax(fv))
        cands.append(vv[:, fv > 1e-9])
        if fv[j] <= cur_val + 1e-12:
            break
        cur, cur_val = fl[:, j].copy(), fv[j]
    if lifted_cap is not None:
        _, f, _ = _bb_box(p, w, lifted_cap, tol=1e-6, max_nodes=200, find=None)
        if f:
            cands.append(np.array(f).T)
    return cone.polish(np.concatenate(cands, axis=1))


# --------------------------------------------------------------------------- main entry


def _check_inputs(prior, eps, beta, privacy, utility):
    p = check_distribution(prior, "prior", full_support=True)
    if p.size < 1:
        raise ValueError("prior must have at least one entry")
    eps = check_scalar(eps, "eps", low=0.0)
    beta = check_scalar(beta, "beta", low=0.0, high=2.0)
    if not isinstance(privacy, str) or privacy not in PRIVACY:
        raise ValueError(f"privacy must be one of {PRIVACY}, got {privacy!r}")
    if privacy == "ldp" and beta != 0.0:
        raise ValueError(f"beta must be 0 for privacy='ldp' (LDP does not depend on the prior), got {beta!r}")
    if isinstance(utility, str):
        if utility not in UTILITIES:
            raise ValueError(f"utility must be one of {UTILITIES} or an (N, N) array, got {utility!r}")
        u = None
    else:
        try:
            u = np.asarray(utility, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"utility must be a finite ({p.size}, {p.size}) array, got {utility!r}") from exc
        if u.shape != (p.size, p.size) or not np.all(np.isfinite(u)):
            raise ValueError(f"utility must be a finite ({p.size}, {p.size}) array u[x, y], got shape {u.shape}")
    return p, eps, beta, u


def _verify(channel, p, eps, beta, privacy):
    if privacy == "ldp":
        leak = ldp_epsilon(channel)
    else:
        leak = local_leakage_capacity_on_ball(channel, p, beta)
    if not leak <= eps + VERIFY_TOL:
        raise RuntimeError(
            f"optimal_mechanism: the designed channel leaks {leak:.12g} nats > eps = {eps:.12g} "
            f"(privacy={privacy!r}, beta={beta:.6g}); refusing to return it"
        )
    return leak


def _assemble(cols, lam, n):
    """Recompute the weights of the support by a linear solve, renormalise; returns (weights, support)."""
    sup = np.flatnonzero(lam > 1e-14)
    r = cols[:, sup]
    if sup.size <= n and np.linalg.matrix_rank(r) == sup.size:  # unique weights: solve exactly
        sol, *_ = np.linalg.lstsq(r, np.ones(n), rcond=None)
        if np.all(sol >= 0) and np.max(np.abs(r @ sol - 1.0)) < 1e-12:
            return sol, sup
    return np.clip(lam[sup], 0.0, None), sup


def _identity_private(p, eps, beta, privacy):
    if math.isinf(eps):
        return True
    if privacy == "ldp" or p.size == 1:
        return p.size == 1
    low = p - beta / 2.0
    return bool(np.all(low > 0) and eps >= -math.log(low.min()))


#: Memo of the most recent known-prior and LDP MI designs: a ball design is seeded with exactly
#: those solves (route (44) and LDP), which a study also asks for on their own. Keyed by every
#: input of the (deterministic) solve; never used with a wall-clock limit or warm_start.
_MEMO: dict = {}
_MEMO_SIZE = 64


def optimal_mechanism(prior, eps, *, privacy="pml", beta=0.0, utility="mutual_information",
                      method="auto", max_iterations=200, max_nodes=None, max_seconds=None, tol=1e-9,
                      warm_start=()) -> OptimalDesign:
    memo = (isinstance(utility, str) and utility == "mutual_information" and max_seconds is None
            and len(warm_start) == 0 and isinstance(beta, (int, float)) and beta == 0)
    if memo:
        try:
            key = (np.asarray(prior, dtype=float).tobytes(), float(eps), privacy, method,
                   int(max_iterations), max_nodes, float(tol))
        except (TypeError, ValueError):
            memo = False
    if memo and key in _MEMO:
        hit = _MEMO[key]
        return replace(hit, channel=hit.channel.copy(), stats=dict(hit.stats))
    result = _optimal_mechanism(prior, eps, privacy=privacy, beta=beta, utility=utility, method=method,
                                max_iterations=max_iterations, max_nodes=max_nodes, max_seconds=max_seconds,
                                tol=tol, warm_start=warm_start)
    # one memory layout for every returned channel: a memo hit (a C-ordered copy) must give the
    # same bytes downstream as the cold solve (matmul rounding depends on the layout)
    result = replace(result, channel=np.ascontiguousarray(result.channel))
    if memo:
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = replace(result, channel=result.channel.copy(), stats=dict(result.stats))
    return result


optimal_mechanism.__doc__ = None  # set below from _optimal_mechanism


def _optimal_mechanism(prior, eps, *, privacy, beta, utility, method, max_iterations, max_nodes,
                       max_seconds, tol, warm_start) -> OptimalDesign:
    """max utility over channels eps-private on B_beta(prior) ([empirical-pml, eq. (40)]) or eps-LDP.

    ``privacy="pml"``: max_x P(y|x) <= e^eps min_{Q in B_beta(prior)} Q_Y(y) for every y, any beta in
    [0, 2] (beta = 0: known prior; beta = 2: the whole simplex, equal to eps-LDP).
    ``privacy="ldp"``: eps-LDP ([kairouz2016]), beta must be 0.
    ``utility``: ``"mutual_information"`` (I(X;Y) under ``prior``, nats; at most N outputs, unused
    ones dropped) or an (N, N) array u[x, y] (expected utility sum_x P(x) sum_y P(y|x) u(x, y),
    labels fixed, M = N).

    ``method``: ``"auto"`` (linear utilities with the known prior, LDP or beta <= 2 min P: label
    generation; otherwise enumeration for small N where a vertex family is known, column
    generation for larger N), ``"enumerate"``, ``"colgen"`` or ``"labels"`` (label generation: the
    exact compact LP restricted to a growing set of outputs, linear utilities and those cones only;
    falls back to column generation if HiGHS fails on it). The result carries a certified upper
    bound (``bound``); ``certified`` when bound - value <= 1e-9 (1 + |value|).

    Stopping rules (deterministic: same inputs, same bytes on any machine): column and label
    generation stop when bound - value <= ``tol`` (1 + |value|) or after ``max_iterations``
    iterations (master / restricted LP solve plus pricing), with the best valid bound;
    each pricing branch and bound stops at its gap or after ``max_nodes`` nodes (None: its own
    default, 50000 box / 200000 LDP per pricing call, 5000 for each of the ball's exact searches),
    still giving a valid (looser) bound.
    The seed solves (route (44), LDP) get the same budgets. ``max_seconds`` (default None) adds a
    wall-clock limit for interactive use: results then depend on the machine and its load.

    ``warm_start``: channels (N x M_i, row-stochastic) already known to satisfy the same privacy
    constraint (verified here; ValueError otherwise); their columns seed the LP, so the result is at
    least as good as each of them (MI only). For beta > 0 the LP is always seeded with the route-(44)
    optimum (M(eps', P) ⊆ M(eps, B_beta(P))) and the eps-LDP optimum (LDP columns lie in every
    ball cone), so value >= both by construction, whatever the pricing quality.

    Complexity: enumeration N 2^(N-1) columns; column generation one master LP per iteration plus
    pricing (branch and bound with closed-form bounds, O(N log N) per node: chords for beta = 0,
    staircases for LDP, three searches for beta > 0; exponential in the worst case); label generation one warm-started LP with (N + 2) L variables for L labels plus
    an O(N^2 log N) closed-form pricing per iteration.
    Valid for a full-support prior, eps >= 0 (inf allowed), beta in [0, 2].
    """
    t0 = time.perf_counter()
    p, eps, beta, u = _check_inputs(prior, eps, beta, privacy, utility)
    n = p.size
    uname = "mutual_information" if u is None else "linear"
    base = dict(prior=p, eps=eps, beta=beta, privacy=privacy, utility=uname)

    if u is None and _identity_private(p, eps, beta, privacy):
        ch = np.eye(n)
        if not math.isinf(eps):
            _verify(ch, p, eps, beta, privacy)
        h = entropy(p)
        return OptimalDesign(channel=ch, value=h, bound=h, certified=True, method="identity",
                             columns_generated=0, iterations=0, seconds=time.perf_counter() - t0, **base)
    if u is not None and math.isinf(eps):
        ch = np.zeros((n, n))
        ch[np.arange(n), np.argmax(u, axis=1)] = 1.0
        val = float(p @ (ch * u).sum(axis=1))
        return OptimalDesign(channel=ch, value=val, bound=val, certified=True, method="argmax",
                             columns_generated=0, iterations=0, seconds=time.perf_counter() - t0, **base)

    cone = _Cone(p, eps, beta, privacy)
    compact = cone.kind != "ball" or cone.small_ball  # an exact compact LP of K exists (``_LabelLP``)
    if method == "auto" and u is not None and compact:
        # linear utilities: label generation beats enumeration from N = 6 on and column generation
        # everywhere measured (tools/design_benchmark.py; N = 200: 10-50x the compact LP's speed)
        method = "labels"
    elif method == "auto":
        # measured crossovers (tools/design_benchmark.py): enumeration + one LP beats column generation
        # up to N = 14 for the known prior (N 2^(N-1) lift vectors) and N = 12 for LDP (2^N staircases)
        limit = {"box": 14, "ldp": 12, "ball": 12 if cone.small_ball else _BALL_ENUMERATE_MAX_N}[cone.kind]
        method = "enumerate" if n <= limit else "colgen"
    if method not in ("enumerate", "colgen", "labels"):
        raise ValueError(f"method must be 'auto', 'enumerate', 'colgen' or 'labels', got {method!r}")
    if method == "labels" and (u is None or not compact):
        raise ValueError("method='labels' needs a linear utility (an array) and the known prior, LDP or a small "
                         f"ball beta <= 2 min P (got utility={uname!r}, beta={beta:.6g}, min P={p.min():.6g})")

    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) or max_iterations < 1:
        raise ValueError(f"max_iterations must be an integer >= 1, got {max_iterations!r}")
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, (int, np.integer))
                                  or max_nodes < 1):
        raise ValueError(f"max_nodes must be None or an integer >= 1, got {max_nodes!r}")
    if max_seconds is not None:
        max_seconds = check_scalar(max_seconds, "max_seconds", low=0.0)
    budget = _Budget(int(max_iterations), None if max_nodes is None else int(max_nodes),
                     None if max_seconds is None else t0 + max_seconds)
    if u is None:
        seeds, seed_stats = _seed_channels(p, eps, beta, cone, warm_start, tol, budget, max_seconds)
        ch, bound, stats = _solve_mi(cone, method, tol, budget, [s for s, _ in seeds])
        stats.update(seed_stats)
        value = mutual_information(ch, p)
        # value >= every seed, whatever the solver's numerics: the master contains the seed's
        # columns; should the assembled channel still fall short, the seed itself is returned
        best = max(seeds, key=lambda e: e[1], default=None)
        if best is not None and best[1] > value:
            ch, value = best[0] / best[0].sum(axis=1, keepdims=True), best[1]
            stats["seed_returned"] = True
    else:
        out = _solve_labels(cone, u, tol, budget) if method == "labels" else None
        if method == "labels" and out is None:  # HiGHS failed on the restricted LP: column generation
            method = "colgen"
        ch, bound, stats = out if out is not None else _solve_linear(cone, u, method, tol, budget)
        value = float(p @ (ch * u).sum(axis=1))
    stats["leakage"] = _verify(ch, p, eps, beta, privacy)
    bound = max(bound, value) if bound >= value - 1e-9 * (1 + abs(value)) else bound
    if value > bound:
        raise RuntimeError(f"optimal_mechanism: value {value!r} exceeds the certified bound {bound!r}")
    certified = bool(bound - value <= 1e-9 * (1 + abs(value)))
    return OptimalDesign(channel=ch, value=float(value), bound=float(bound), certified=certified,
                         method=method, columns_generated=stats.pop("columns"), iterations=stats.pop("iterations"),
                         seconds=time.perf_counter() - t0, stats=stats, **base)


optimal_mechanism.__doc__ = _optimal_mechanism.__doc__


def _staircase_columns(p, eps, masks):
    """Normalised staircase columns (P.v = 1): a off the high set, a e^eps on it."""
    m = np.array(masks, dtype=float).T
    c = math.expm1(eps)
    a = 1.0 / (1.0 + c * (p @ m))
    return a[None, :] * (1.0 + c * m)


def _channel_columns(cone, channel):
    """Columns of a feasible channel as normalised rays of K (polished), dropping unused outputs."""
    mass = cone.p @ channel
    cols = channel[:, mass > 0] / mass[mass > 0][None, :]
    return cone.polish(cols)


def _seed_channels(p, eps, beta, cone, warm_start, tol, budget, max_seconds):
    """Feasible channels whose columns seed the master LP (see ``warm_start``), with their MI.

    The route-(44) and LDP seeds are solved with the caller's counted budgets (a seed solve that
    stops early still returns a verified feasible channel); a wall-clock limit, if any, gives each
    a quarter of it."""
    seeds, stats = [], {}
    for i, ch in enumerate(warm_start):
        ch = np.asarray(ch, dtype=float)
        if ch.ndim != 2 or ch.shape[0] != p.size or np.any(ch < 0) or \
                not np.allclose(ch.sum(axis=1), 1.0, atol=1e-9):
            raise ValueError(f"warm_start[{i}] must be a row-stochastic ({p.size}, M) channel")
        try:
            _verify(ch / ch.sum(axis=1, keepdims=True), p, cone.eps, beta, "ldp" if cone.kind == "ldp" else "pml")
        except RuntimeError as exc:
            raise ValueError(f"warm_start[{i}] does not satisfy the privacy constraint: {exc}") from None
        seeds.append((ch, mutual_information(ch / ch.sum(axis=1, keepdims=True), p)))
    if cone.kind == "ball":
        sub = dict(tol=tol, max_iterations=budget.max_iterations, max_nodes=budget.max_nodes,
                   max_seconds=None if max_seconds is None else max_seconds / 4)
        eps_p = design_epsilon(eps, beta)
        for name, kw in (("route44", dict(eps=eps_p, beta=0.0)), ("ldp", dict(eps=eps, privacy="ldp"))):
            if name == "route44" and eps_p < 0:
                continue
            r = optimal_mechanism(p, **kw, **sub)
            try:  # feasible for the ball in exact arithmetic; checked numerically here
                _verify(r.channel, p, eps, beta, "pml")
            except RuntimeError:
                continue
            seeds.append((r.channel, r.value))
            stats[f"{name}_value"] = r.value
            stats[f"{name}_certified"] = r.certified
    return seeds, stats


def _solve_mi(cone, method, tol, budget, seeds=()):
    p, n = cone.p, cone.n
    if method == "enumerate":
        cols = cone.polish(_enumerate(cone))
        if seeds:
            cols = np.concatenate([cols] + [_channel_columns(cone, ch) for ch in seeds], axis=1)
        obj = _mu(p, cols)
        val, lam, w = _master(cols, obj)
        u_max = float(np.max(obj - w @ cols))
        bound = w.sum() + max(u_max, 0.0)
        lam_b, sup = _assemble(cols, lam, n)
        ch = cols[:, sup] * lam_b[None, :]
        ch /= ch.sum(axis=1, keepdims=True)
        return ch, float(bound), {"columns": cols.shape[1], "iterations": 1}
    eps_p = design_epsilon(cone.eps, 2 * cone.half) if cone.kind == "ball" else -1.0
    lift_cap = math.exp(eps_p) if eps_p >= 0 else None
    cols = np.concatenate([np.ones((n, 1))] + [_channel_columns(cone, ch) for ch in seeds], axis=1)
    master = _Master(n)
    master.add(cols, _mu(p, cols))
    best_bound = np.inf
    iters, generated, nodes_total = 0, cols.shape[1], 0
    while True:
        iters += 1
        val, lam, w = master.solve()
        scale = tol * (1 + abs(val))
        # last iteration: no new columns, only the pricing's bound
        out_of_time = iters >= budget.max_iterations or budget.out_of_time()
        new = None
        extra = None
        if cone.kind == "box" and not out_of_time:
            # two-level columns alongside the exact pricing: at small eps the box master otherwise
            # stalls at the all-ones column (a lift vector alone is useless without a partner)
            cand = _mi_heuristic(cone, w, None)
            rc = _mu(p, cand) - w @ cand
            keep = rc > scale
            if keep.any():
                idx = np.argsort(-rc)[:n]
                extra = cand[:, idx[keep[idx]]]
        if cone.kind == "ball" and not out_of_time:
            cand = _mi_heuristic(cone, w, lift_cap)
            rc = _mu(p, cand) - w @ cand
            keep = rc > max(scale, 1e-7 * (1 + abs(val)))
            if keep.any():
                idx = np.argsort(-rc)[: 2 * n]
                new = cand[:, idx[keep[idx]]]
        if new is None:
            if cone.kind == "box":
                # partial pricing: a short search usually finds improving columns; the full node
                # budget only when it finds none (or on the last iteration, for the bound)
                full = budget.nodes(50000)
                nodes = 0
                for cap_nodes in ((full,) if out_of_time else (min(full, _BOX_SHORT_NODES), full)):
                    ub, found, k = _bb_box(p, w, cone.E, tol=scale / 4, collect=scale, find=None,
                                           max_nodes=cap_nodes)
                    nodes += k
                    if found or k < cap_nodes or cap_nodes == full:
                        break
            elif cone.kind == "ldp":
                ub, masks, nodes = _bb_ldp(p, w, cone.eps, tol=scale / 4, collect=scale, keep=2 * n,
                                           max_nodes=budget.nodes(200000), deadline=budget.deadline)
                found = list(_staircase_columns(p, cone.eps, masks).T) if masks else []
            else:
                ub, found, nodes = _ball_pricing(cone, w, tol=scale / 4, collect=scale, keep=2 * n,
                                                 max_nodes=budget.nodes(_BALL_NODES), deadline=budget.deadline)
            nodes_total += nodes
            best_bound = min(best_bound, w.sum() + max(ub, 0.0))
            if found:
                cand = cone.polish(np.array(found).T)
                rc = _mu(p, cand) - w @ cand
                keep = rc > scale
                if keep.any():
                    idx = np.argsort(-rc)[: 2 * n]
                    new = cand[:, idx[keep[idx]]]
            if extra is not None and best_bound - val > scale:
                new = extra if new is None else np.concatenate([new, extra], axis=1)
            if new is None or best_bound - val <= scale or out_of_time:
                break
        cols = np.concatenate([cols, new], axis=1)
        master.add(new, _mu(p, new))
        generated += new.shape[1]
    lam_b, sup = _assemble(cols, lam, n)
    ch = cols[:, sup] * lam_b[None, :]
    ch /= ch.sum(axis=1, keepdims=True)
    return ch, float(best_bound), {"columns": generated, "iterations": iters, "nodes": nodes_total,
                                   "master_fallbacks": master.fallbacks}


def _solve_linear(cone, u, method, tol, budget):
    p, n = cone.p, cone.n
    c = p[:, None] * u  # objective of label y: c[:, y] . v
    lifted = None if (cone.kind == "box" or cone.kind == "ldp" or cone.small_ball) else _LiftedLP(cone)
    if method == "enumerate":
        base = cone.polish(_enumerate(cone))
        k = base.shape[1]
        cols = np.tile(base, (1, n))
        labels = np.repeat(np.arange(n), k)
        obj = np.einsum("xk,xk->k", c[:, labels], cols)
        val, lam, w = _master(cols, obj)
        u_max = float(np.max(c.T @ base - (w @ base)[None, :]))
        bound = w.sum() + max(u_max, 0.0)
        ch = _linear_channel(cols, labels, lam, n)
        return ch, float(bound), {"columns": cols.shape[1], "iterations": 1}
    cols = np.ones((n, n))
    labels = np.arange(n)
    master = _Master(n)
    master.add(cols, c.sum(axis=0))
    best_bound = np.inf
    w_best = None
    iters = 0
    while True:
        iters += 1
        val, lam, w = master.solve()
        scale = tol * (1 + abs(val))
        # Wentges smoothing: price at a point between the best dual so far and the current one
        # (any dual vector gives a valid bound); fall back to the current duals on mispricing
        for alpha in ((0.7, 0.0) if w_best is not None else (0.0,)):
            w_s = w if alpha == 0.0 else alpha * w_best + (1 - alpha) * w
            vals, new = _linear_pricing(cone, c - w_s[:, None], lifted)
            b_s = w_s.sum() + max(float(np.max(vals)), 0.0)
            if b_s < best_bound:
                best_bound, w_best = b_s, w_s
            rc = np.einsum("xk,xk->k", c - w[:, None], new)
            good = np.flatnonzero(rc > scale)
            if good.size or alpha == 0.0:
                break
        if best_bound - val <= scale or iters >= budget.max_iterations or budget.out_of_time():
            break
        if good.size == 0:
            break
        newc = cone.polish(new[:, good])
        master.add(newc, np.einsum("xk,xk->k", c[:, good], newc))
        cols = np.concatenate([cols, newc], axis=1)
        labels = np.concatenate([labels, good])
    ch = _linear_channel(cols, labels, lam, n)
    return ch, float(best_bound), {"columns": cols.shape[1] - n, "iterations": iters}


class _LabelLP:
    """The design LP restricted to a set of labels (outputs), in HiGHS, grown label by label.

    Each label y gets the compact description of the cone K for its column v = channel[:, y]
    (exact for the known prior, LDP and the small ball beta <= 2 min P):

    * box (beta = 0): variables v_i >= 0 and s = P.v; rows v_i - e^eps s <= 0, s - P.v = 0;
    * small ball (Appendix D, eq. (98), as in ``design_polytope(form="compact")``): v = m + q with
      q_i >= 0, m >= 0, t = P.q; rows (1 + e^eps beta/2) q_i + (1 - e^eps) m - e^eps t <= 0,
      t - P.q = 0;
    * LDP: v = m + q, q_i >= 0, m >= 0; rows q_i - (e^eps - 1) m <= 0.

    The N rows sum_y v_iy = 1 are shared. Adding a label appends its columns and rows; HiGHS keeps
    the basis (the old optimum stays feasible with the new variables at 0), so the solve is warm.
    """

    def __init__(self, cone, c):
        import highspy

        self.cone, self.c, self.n = cone, c, cone.n
        self.h = highspy.Highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("primal_feasibility_tolerance", 1e-10)
        self.h.setOptionValue("dual_feasibility_tolerance", 1e-10)
        self.h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self.inf = highspy.kHighsInf
        n = self.n
        self.h.addRows(n, np.ones(n), np.ones(n), 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
        self.labels = []  # in the order added
        self.first = []  # index of each label's first variable
        self.k = 0  # variables so far

    def add(self, labels):
        cone, n, p, E = self.cone, self.n, self.cone.p, self.cone.E
        if cone.kind != "ldp" and p.min() > cone.half:
            # K is the whole orthant once e^eps >= 1/(min P - beta/2) (max v <= g(v)/(min P - beta/2)):
            # the same cone with moderate coefficients (as in design_polytope)
            E = min(E, 1.0 / (p.min() - cone.half))
        for y in labels:
            y = int(y)
            cy = self.c[:, y]
            k0 = self.k
            ar = np.arange(n)
            if cone.kind == "box":  # v (n), s
                obj = np.concatenate([cy, [0.0]])
                col_rows = [ar, np.zeros(0, int)]
                rows = sp.csr_matrix(
                    (np.concatenate([np.ones(n), np.full(n, -E), [1.0], -p]),
                     (np.concatenate([ar, ar, [n], np.full(n, n)]),
                      np.concatenate([ar, np.full(n, n), [n], ar]))), shape=(n + 1, n + 1))
                lo = np.concatenate([np.full(n, -self.inf), [0.0]])
                up = np.zeros(n + 1)
                nv = n + 1
            elif cone.kind == "ldp":  # q (n), m
                obj = np.concatenate([cy, [cy.sum()]])
                col_rows = [ar, ar]
                rows = sp.csr_matrix(
                    (np.concatenate([np.ones(n), np.full(n, 1.0 - E)]),
                     (np.concatenate([ar, ar]), np.concatenate([ar, np.full(n, n)]))), shape=(n, n + 1))
                lo, up = np.full(n, -self.inf), np.zeros(n)
                nv = n + 1
            else:  # small ball: q (n), m, t
                obj = np.concatenate([cy, [cy.sum(), 0.0]])
                col_rows = [ar, ar, np.zeros(0, int)]
                rows = sp.csr_matrix(
                    (np.concatenate([np.full(n, 1.0 + cone.half * E), np.full(n, 1.0 - E), np.full(n, -E),
                                     [1.0], -p]),
                     (np.concatenate([ar, ar, ar, [n], np.full(n, n)]),
                      np.concatenate([ar, np.full(n, n), np.full(n, n + 1), [n + 1], ar]))),
                    shape=(n + 1, n + 2))
                lo = np.concatenate([np.full(n, -self.inf), [0.0]])
                up = np.zeros(n + 1)
                nv = n + 2
            # the new variables: q / v entries in the row-sum rows (and m in every row-sum row)
            starts, idx = [], []
            pos = 0
            for j in range(nv):
                r = col_rows[0][j:j + 1] if j < n else (col_rows[1] if j == n else col_rows[2])
                starts.append(pos)
                idx.append(r)
                pos += r.size
            idx = np.concatenate(idx).astype(np.int32)
            self.h.addCols(nv, obj.astype(float), np.zeros(nv), np.full(nv, self.inf), idx.size,
                           np.array(starts, np.int32), idx, np.ones(idx.size))
            rows = rows.tocsr()
            self.h.addRows(rows.shape[0], lo, up, rows.nnz, rows.indptr[:-1].astype(np.int32),
                           (rows.indices + k0).astype(np.int32), rows.data)
            self.labels.append(y)
            self.first.append(k0)
            self.k += nv

    def solve(self):
        """(value, columns N x L of the channel for ``labels``, row duals w); None on failure."""
        import highspy

        self.h.run()
        if self.h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            self.h.clearSolver()
            self.h.run()
            if self.h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                return None
        sol = self.h.getSolution()
        x = np.array(sol.col_value)
        n = self.n
        cols = np.empty((n, len(self.labels)))
        for j, k0 in enumerate(self.first):
            v = x[k0:k0 + n]
            cols[:, j] = v if self.cone.kind == "box" else v + x[k0 + n]
        return self.h.getInfo().objective_function_value, cols, np.array(sol.row_dual[:n])


def _solve_labels(cone, u, tol, budget):
    """Linear utility by label generation: the exact compact LP restricted to a growing set of labels.

    Start with the best constant channel (one label, always feasible); at the duals w of the
    restricted LP's row sums, price every label in closed form (``_linear_pricing``), which gives
    the certified bound sum(w) + max(0, max_y price_y); add the labels of positive price (most
    positive first, up to max(1, a quarter of the current count) per iteration) until certified. Optimal
    mechanisms of linear utilities use few outputs (N = 200: 3 for the identity, 4 for -|x-y|), so
    the LPs stay small. Returns None when HiGHS fails (the caller falls back to column generation).
    """
    p, n = cone.p, cone.n
    c = p[:, None] * u
    lp = _LabelLP(cone, c)
    lp.add([int(np.argmax(c.sum(axis=0)))])
    best_bound = np.inf
    iters = 0
    while True:
        iters += 1
        out = lp.solve()
        if out is None:
            return None
        val, cols, w = out
        scale = tol * (1 + abs(val))
        price, _ = _linear_pricing(cone, c - w[:, None])
        best_bound = min(best_bound, w.sum() + max(float(np.max(price)), 0.0))
        if best_bound - val <= scale or iters >= budget.max_iterations or budget.out_of_time():
            break
        have = np.zeros(n, bool)
        have[lp.labels] = True
        cand = np.flatnonzero((price > scale) & ~have)
        if cand.size == 0:
            break
        cand = cand[np.argsort(-price[cand], kind="stable")][:max(1, len(lp.labels) // 4)]
        lp.add(cand)
    labels = np.array(lp.labels)
    mass = p @ cols
    keep = mass > 0
    rays = cone.polish(cols[:, keep])
    ch = _linear_channel(rays, labels[keep], mass[keep], n)
    return ch, float(best_bound), {"columns": len(lp.labels), "iterations": iters, "labels": len(lp.labels)}


def _linear_channel(cols, labels, lam, n):
    lam_b, sup = _assemble(cols, lam, n)
    ch = np.zeros((n, n))
    np.add.at(ch.T, labels[sup], (cols[:, sup] * lam_b[None, :]).T)
    ch /= ch.sum(axis=1, keepdims=True)
    return ch


def optimal_mechanism_for_estimate(prior, eps, beta, utility="mutual_information", **kwargs) -> OptimalDesign:
    """The route of [empirical-pml, eq. (44)]: design for eps' = log(e^eps / (1 + beta e^eps / 2)) w.r.t.
    the estimate ``prior`` (beta = 0), which is eps-PML on the whole ball B_beta(prior) because
    M(eps', P) ⊆ M(eps, B_beta(P)) for every beta in [0, 2] (g(v) >= P.v - (beta/2) max v).

    Its value is at most that of :func:`optimal_mechanism` with the same beta. The result's ``eps`` is
    eps', ``beta`` 0. Raises ValueError when eps' < 0 (then M(eps', P) is empty).
    """
    p, eps, beta, _ = _check_inputs(prior, eps, beta, "pml", utility)
    eps_p = design_epsilon(eps, beta) if not math.isinf(eps) else math.inf
    if eps_p < 0:
        raise ValueError(
            f"the route of eq. (44) needs eps' = log(e^eps/(1 + beta e^eps/2)) >= 0; got eps={eps:.6g}, "
            f"beta={beta:.6g} (eps'={eps_p:.6g}): M(eps', prior) is empty, increase eps or decrease beta"
        )
    return optimal_mechanism(p, eps_p, privacy="pml", beta=0.0, utility=utility, **kwargs)


__all__ = ["OptimalDesign", "optimal_mechanism", "optimal_mechanism_for_estimate"]
