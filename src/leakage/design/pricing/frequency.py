"""Step 3 of the frequency-estimation design loop: the best column for the quadratic pricing phi,
over every vertex family.

Pricing of the estimation design: max over the cone's columns of phi(r) = r^T G r + w.r.

At a dual point (Z, w) of the master (:mod:`~leakage.design.frequency_master`), G = Z Z^T is
positive semidefinite, so phi is convex and its maximum over the normalised cross-section
{r in K, P.r = 1} is at a vertex. The vertex families of :mod:`leakage.design.vertices` cover them
(which family covers which extreme points: :mod:`leakage.design.pricing.mutual_information`):

* box (known prior): the lift vectors of {0 <= r <= e^eps}: e^eps on a set T, one fractional row f,
  0 elsewhere;
* LDP: the staircases a (1 + (e^eps - 1) 1_S);
* ball (0 < beta < 2): the two-level columns of every set S (staircases on the light sets, the heavy
  two-level columns low / H (1 + (beta/2) low), 1/P(S) on S), the lift vectors of the box
  {0 <= r <= H}, H = e^eps / (1 + e^eps beta/2), the light-top three-level columns
  (:func:`leakage.design.vertices.light_top_column`: T1 among the letters lighter than beta/2 with
  P(T1) < beta/2) and the all-ones column.

Exhaustive pricing (``exhaustive_pricing``, N <= ``EXHAUSTIVE_LIMIT``): every member of every family
is evaluated, vectorised over the 2^N subsets through subset tables built by doubling (letter by
letter): mass P(S), w(S), A(S) = 1_S^T G 1_S and B(S) = G 1_S. A two-level column m 1 + d 1_S is
worth m^2 A(all) + 2 m d 1.B(S) + d^2 A(S) + m w(all) + d w(S); a lift vector cap 1_T + x e_f
cap^2 A(T) + 2 cap x B(T)_f + x^2 G_ff + cap w(T) + x w_f; a light-top column c (1_S + (k - 1) 1_T1)
c^2 (A(S) + 2 (k - 1) 1_T1.B(S) + (k - 1)^2 A(T1)) + c (w(S) + (k - 1) w(T1)). The maximum plus a
floating-point margin is a true upper bound U (the bound of the design is then exact); cost
O(2^N N (N + #T1)) time and O(2^N N) memory per call.

Beyond ``EXHAUSTIVE_LIMIT`` (``local_pricing``): improving columns by local search (steepest ascent
by single-letter flips of the set of a two-level column or of a lift vector, from the singletons, the
prefixes of three letter orders and hundreds of random sets; on the ball also by single-letter
changes of role in the light-top columns, :func:`_light_top_search`). The upper bound U there comes
from the doubly nonnegative relaxations of every family (:mod:`leakage.design.pricing.lifted`),
evaluated at the relaxed design's dual point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from leakage.design.cone import Cone
from leakage.design.vertices import lift_level, light_top_column

#: Largest N priced exhaustively (2^N subsets; memory O(2^N N) floats per table).
EXHAUSTIVE_LIMIT = 18
#: relative floating-point margin added to the exhaustive maximum
_MARGIN = 1e-11


@dataclass(frozen=True)
class QuadraticPricing:
    """``bound`` >= max phi over the cone's columns; ``columns``: N x K columns of largest phi (at
    most ``keep``, best first, phi above ``collect``); ``values``: their phi; ``exact``: the bound is
    the exhaustive maximum (plus margin); ``stats``: per-family maxima and sizes."""

    bound: float
    columns: np.ndarray
    values: np.ndarray
    exact: bool
    stats: dict = field(default_factory=dict)


class SubsetTables:
    """mass, w(S), A(S) = 1_S^T G 1_S and B(S) = G 1_S for every subset S of the N letters; subset s
    has letter j iff bit j of s is set. Built by doubling: O(2^N N)."""

    def __init__(self, prior, G, w):
        n = prior.size
        size = 1 << n
        self.n = n
        self.mass = np.zeros(size)
        self.wsum = np.zeros(size)
        self.A = np.zeros(size)
        self.B = np.zeros((size, n))
        for j in range(n):
            lo, hi = 1 << j, 1 << (j + 1)
            self.mass[lo:hi] = self.mass[:lo] + prior[j]
            self.wsum[lo:hi] = self.wsum[:lo] + w[j]
            self.A[lo:hi] = self.A[:lo] + 2.0 * self.B[:lo, j] + G[j, j]
            self.B[lo:hi] = self.B[:lo] + G[j][None, :]
        self.one_B = self.B.sum(axis=1)  # 1^T G 1_S

    def bits(self, s: int) -> np.ndarray:
        return ((s >> np.arange(self.n)) & 1).astype(bool)


def _top(values, k):
    """Indices of the k largest finite values, best first (stable)."""
    flat = values.ravel()
    k = min(k, flat.size)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    idx = np.argpartition(-flat, k - 1)[:k] if k < flat.size else np.arange(flat.size)
    idx = idx[np.argsort(-flat[idx], kind="stable")]
    return idx[np.isfinite(flat[idx])]


class _Family:
    """Values of one family over its members (an array, -inf where not a member) and how to build
    the column of a member."""

    def __init__(self, name, values, build, scale):
        self.name, self.values, self.build, self.scale = name, values, build, scale


def _two_level_levels(cone: Cone, s):
    """(m, d) of the two-level column m 1 + d 1_S of a set of mass s (arrays): d = min((e^eps - 1) /
    (1 - s + b e^eps), 1/s) with b = s under LDP, min(beta/2, s) on the ball; m = 1 - s d (P.r = 1)."""
    E = cone.E
    b = s if cone.kind == "ldp" else np.minimum(cone.half, s)
    with np.errstate(divide="ignore"):
        d = np.minimum((E - 1.0) / (1.0 - s + b * E), 1.0 / s)
    return 1.0 - s * d, d


def _two_level_phi(m, d, a_all, one_b, a, w_all, wsum):
    """phi of m 1 + d 1_S as (quadratic, linear) parts, from A(all), 1^T G 1_S, A(S), w(all), w(S)."""
    return m * m * a_all + 2.0 * m * d * one_b + d * d * a, m * w_all + d * wsum


def _lift_phi(cap, x, a, b, g_diag, wsum, w):
    """phi of the lift vector cap 1_T + x_f e_f as (quadratic, linear) parts, over the last axis f,
    from A(T), B(T) = G 1_T (last axis f), diag G, w(T) and w."""
    return cap * cap * a[..., None] + 2.0 * cap * x * b + x * x * g_diag, cap * wsum[..., None] + x * w


def _two_level(cone: Cone, t: SubsetTables, G, w):
    m, d = _two_level_levels(cone, t.mass[1:-1])
    quad, lin = _two_level_phi(m, d, t.A[-1], t.one_B[1:-1], t.A[1:-1], t.wsum[-1], t.wsum[1:-1])
    vals = quad + lin

    def build(i):
        mask = t.bits(int(i) + 1)
        return m[i] + d[i] * mask

    return _Family("two_level", vals, build, np.abs(quad) + np.abs(lin))


def _lift(cone: Cone, t: SubsetTables, G, w, cap, name):
    p, n = cone.prior, cone.n
    size = 1 << n
    # x_f = (1 - cap P(T)) / p_f for T without f, valid when 0 <= x_f <= cap
    x = lift_level(p[None, :], cap, t.mass[:, None])
    has = ((np.arange(size)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
    ok = ~has & (x >= -1e-12) & (x <= cap * (1.0 + 1e-12))
    x = np.clip(x, 0.0, cap)
    quad, lin = _lift_phi(cap, x, t.A, t.B, np.diag(G), t.wsum, w)
    vals = np.where(ok, quad + lin, -np.inf)

    def build(i):
        s, f = divmod(int(i), n)
        col = cap * t.bits(s).astype(float)
        col[f] = x[s, f]
        return col

    return _Family(name, vals, build, np.where(ok, np.abs(quad) + np.abs(lin), 0.0))


def light_sets(cone: Cone, t: SubsetTables) -> np.ndarray:
    """The non-empty sets T1 of letters lighter than beta/2 with P(T1) < beta/2 (subset indices)."""
    light = int(np.sum((cone.prior < cone.half) << np.arange(cone.n)))
    idx = np.arange(1, 1 << cone.n)
    return idx[((idx & ~light) == 0) & (t.mass[1:] < cone.half)]


def _light_top_phi(cone: Cone, s, p1, a_s, a_t, cross, w_s, w_t):
    """phi of the light-top column c (1_S + (k - 1) 1_T1), k = e^eps (P(S) - beta/2),
    c = 1 / (k P(T1) + P(S) - P(T1)) (:func:`leakage.design.vertices.light_top_column`), as
    (quadratic, linear, k, c), from P(S), P(T1), A(S), A(T1), 1_T1^T G 1_S, w(S), w(T1) (arrays)."""
    k = cone.E * (s - cone.half)
    km1 = k - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):  # c infinite only off the family (masked by callers)
        c = 1.0 / (k * p1 + s - p1)
        return c * c * (a_s + 2.0 * km1 * cross + km1 * km1 * a_t), c * (w_s + km1 * w_t), k, c


def _light_top(cone: Cone, t: SubsetTables, G, w):
    n = cone.n
    t1s = light_sets(cone, t)
    size = 1 << n
    if t1s.size == 0:
        return None
    sidx = np.arange(size)
    t1bits = ((t1s[:, None] >> np.arange(n)[None, :]) & 1).astype(float)  # #T1 x N
    cross = t.B @ t1bits.T  # 1_T1 . G 1_S
    quad, lin, k, c = _light_top_phi(cone, t.mass[:, None], t.mass[t1s][None, :], t.A[:, None], t.A[t1s][None, :],
                                     cross, t.wsum[:, None], t.wsum[t1s][None, :])
    ok = ((sidx[:, None] & t1s[None, :]) == t1s[None, :]) & (k >= 1.0) & (sidx[:, None] != size - 1)
    vals = np.where(ok, quad + lin, -np.inf)

    def build(i):
        s, j = divmod(int(i), t1s.size)
        col = c[s, j] * t.bits(s).astype(float)
        col[t.bits(int(t1s[j]))] *= k[s, 0]
        return col

    return _Family("light_top", vals, build, np.where(ok, np.abs(quad) + np.abs(lin), 0.0))


def _families(cone: Cone, t: SubsetTables, G, w):
    if cone.kind == "box":
        return [_lift(cone, t, G, w, cone.E, "lift")]
    fams = [_two_level(cone, t, G, w)]
    if cone.kind == "ldp":
        return fams
    ones = np.ones(cone.n)
    one = float(ones @ G @ ones + w.sum())
    fams.append(_Family("ones", np.array([one]), lambda i: np.ones(cone.n), np.array([abs(one)])))
    if cone.top * cone.prior.sum() >= 1.0:  # the box {0 <= v <= H} holds columns with P.v = 1
        fams.append(_lift(cone, t, G, w, cone.top, "box_top"))
    lt = _light_top(cone, t, G, w)
    if lt is not None:
        fams.append(lt)
    return fams


def exhaustive_pricing(cone: Cone, G, w, *, keep: int, collect: float) -> QuadraticPricing:
    """max phi over every member of the cone's families (module docstring), the ``keep`` best
    columns with phi above ``collect``; N <= ``EXHAUSTIVE_LIMIT``."""
    G = np.asarray(G, dtype=float)
    w = np.asarray(w, dtype=float)
    t = SubsetTables(cone.prior, G, w)
    best, scale, cands, stats = -math.inf, 0.0, [], {}
    for fam in _families(cone, t, G, w):
        vals = fam.values
        fmax = float(np.max(vals)) if vals.size else -math.inf
        stats[fam.name] = {"max": fmax, "members": int(np.isfinite(vals).sum())}
        best = max(best, fmax)
        scale = max(scale, float(np.max(fam.scale)) if fam.scale.size else 0.0)
        for i in _top(np.where(vals > collect, vals, -np.inf), keep):
            cands.append((float(vals.ravel()[i]), fam.name, fam.build(i)))
    bound = best + _MARGIN * (1.0 + scale)
    return _result(cone, cands, keep, bound, True, stats)


def _result(cone, cands, keep, bound, exact, stats):
    cands.sort(key=lambda e: -e[0])
    cols, vals, seen = [], [], set()
    for v, _, col in cands:
        key = np.round(col, 12).tobytes()
        if key in seen:
            continue
        seen.add(key)
        cols.append(col)
        vals.append(v)
        if len(cols) >= keep:
            break
    n = cone.n
    columns = np.array(cols).T if cols else np.zeros((n, 0))
    return QuadraticPricing(float(bound), columns, np.array(vals), exact, stats)

def _members(cone: Cone, masks: np.ndarray):
    """Columns (N x K) of the two-level, box-top/lift and all-ones families for the sets ``masks``
    (N x S boolean) and the index of the set of each column; the light-top family is left out
    (local search only)."""
    p, n, E = cone.prior, cone.n, cone.E
    out, owner = [], []
    s = p @ masks
    inner = (s > 0) & (s < 1.0 - 1e-15)
    if cone.kind != "box":
        mk = masks[:, inner]
        m, d = _two_level_levels(cone, s[inner])
        out.append(m[None, :] + d[None, :] * mk)
        owner.append(np.flatnonzero(inner))
        if cone.kind == "ball":
            out.append(np.ones((n, 1)))
            owner.append(np.zeros(1, dtype=int))
    cap = E if cone.kind == "box" else cone.top
    if cap >= 1.0:
        ok = cap * s <= 1.0
        mk, sk = masks[:, ok], s[ok]
        x = lift_level(p[:, None], cap, sk[None, :])  # x[f, t]
        good = (~mk) & (x <= cap * (1.0 + 1e-12))
        t_idx, f_idx = np.nonzero(good.T)
        cols = cap * mk[:, t_idx].astype(float)
        cols[f_idx, np.arange(t_idx.size)] = np.clip(x[f_idx, t_idx], 0.0, cap)
        out.append(cols)
        owner.append(np.flatnonzero(ok)[t_idx])
    if not out:
        return np.zeros((n, 0)), np.zeros(0, dtype=int)
    return np.concatenate(out, axis=1), np.concatenate(owner)


def _phi(G, w, cols):
    return np.einsum("ik,ik->k", G @ cols, cols) + w @ cols


def pool_pricing(G, w, pool, *, keep: int, collect: float) -> np.ndarray:
    """The pricing over a finite pool of columns (N x K', normalised; a warm channel's outputs),
    exactly: the at most ``keep`` columns of largest phi(r) = |Z^T r|^2 + w.r above ``collect``, best
    first (N x k). One product, O(K' N^2)."""
    phi = _phi(G, w, pool)
    top = _top(phi, keep)
    return pool[:, top[phi[top] > collect]]


#: random starts of :func:`local_pricing` (beside the prefixes of its three letter orders)
_STARTS = 500
#: seed of the random starts (the pricing is deterministic)
_SEED = 20261128
#: sets whose flips :func:`local_pricing` evaluates at once (its tables hold sets x N^2 floats)
_CHUNK = 256


def _set_values(cone: Cone, G, w, s, wsum, A, oneB, B, inside):
    """The largest phi over the members of sets (two-level and lift columns, the families of
    :func:`_members` but the all-ones column): from each set's mass ``s``, w(S), A(S) = 1_S^T G 1_S,
    1^T G 1_S and B = G 1_S (shape (..., N)) and its membership ``inside`` (..., N), as the exhaustive
    pricing's families compute them (module docstring); -inf for a set with no member."""
    best = np.full(s.shape, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        if cone.kind != "box":
            ok = (s > 0) & (s < 1.0 - 1e-15)
            m, d = _two_level_levels(cone, s)
            quad, lin = _two_level_phi(m, d, float(G.sum()), oneB, A, float(w.sum()), wsum)
            best = np.where(ok, quad + lin, best)
        cap = cone.E if cone.kind == "box" else cone.top
        if cap >= 1.0:
            x = lift_level(cone.prior, cap, s[..., None])
            ok = ~inside & (x >= 0.0) & (x <= cap * (1.0 + 1e-12))
            quad, lin = _lift_phi(cap, np.clip(x, 0.0, cap), A, B, np.diag(G), wsum, w)
            best = np.maximum(best, np.max(np.where(ok, quad + lin, -np.inf), axis=-1))
    return best


def _light_top_search(cone: Cone, G, w, seeds: np.ndarray, starts: int, rng, limit: int) -> list:
    """Steepest ascent over the light-top columns (:func:`_light_top_phi`): a state gives each letter
    0 (off S), 1 (in S, not T1) or 2 (in T1, letters lighter than beta/2 only); a move changes one
    letter's state, which changes the tables of S and T1 by one row of G (A(S + sigma e_j) =
    A(S) + 2 sigma B(S)_j + |sigma| G_jj, 1_T1^T G 1_S likewise), so a round costs O(K N) after the
    O(K N^2) tables. From the ``seeds`` (N x K sets, T1 empty) and ``starts`` random states, each
    until no move improves (at most 2N rounds). Returns the columns of the ``limit`` best states visited."""
    p, n, half = cone.prior, cone.n, cone.half
    light = p < half
    g_diag = np.diag(G)
    sets = np.concatenate([seeds.T, rng.random((starts, n)) < rng.integers(1, n, starts)[:, None] / n])
    top = sets & light[None, :] & (rng.random(sets.shape) < 0.3)
    states = np.unique(sets.astype(np.int8) + top.astype(np.int8), axis=0)  # K x N

    def value(s, p1, a_s, a_t, cross, w_s, w_t):
        quad, lin, k, _ = _light_top_phi(cone, s, p1, a_s, a_t, cross, w_s, w_t)
        ok = (p1 < half) & (k >= 1.0) & (s < 1.0 - 1e-15)
        return np.where(ok, quad + lin, -np.inf)

    seen = {}
    for _ in range(2 * n):
        S, T = (states >= 1).astype(float), (states == 2).astype(float)
        s, p1, w_s, w_t = S @ p, T @ p, S @ w, T @ w
        bs, bt = S @ G, T @ G  # K x N: G 1_S, G 1_T1
        a_s, a_t, cross = np.einsum("kn,kn->k", bs, S), np.einsum("kn,kn->k", bt, T), np.einsum("kn,kn->k", bs, T)
        vals = value(s, p1, a_s, a_t, cross, w_s, w_t)
        for i in np.flatnonzero(np.isfinite(vals)):
            seen.setdefault(states[i].tobytes(), float(vals[i]))
        best_val, best_move = vals.copy(), np.full((states.shape[0], 2), -1)
        with np.errstate(invalid="ignore"):
            for target in (0, 1, 2):
                sig = (target >= 1) - S  # K x N: S gains (+1) or loses (-1) letter j
                tau = (target == 2) - T
                allowed = (states != target) & (light[None, :] | (target != 2))
                fv = value(s[:, None] + sig * p, p1[:, None] + tau * p, a_s[:, None] + 2.0 * sig * bs + np.abs(sig) * g_diag,
                           a_t[:, None] + 2.0 * tau * bt + np.abs(tau) * g_diag,
                           cross[:, None] + tau * bs + sig * bt + tau * sig * g_diag,
                           w_s[:, None] + sig * w, w_t[:, None] + tau * w)
                fv = np.where(allowed, fv, -np.inf)
                j = np.argmax(fv, axis=1)
                v = fv[np.arange(j.size), j]
                better = v > best_val + 1e-12 * (1.0 + np.abs(np.where(np.isfinite(best_val), best_val, 0.0)))
                best_val = np.where(better, v, best_val)
                best_move[better] = np.stack([j[better], np.full(better.sum(), target)], axis=1)
        up = best_move[:, 0] >= 0
        if not up.any():
            break
        states = states[up]
        states[np.arange(states.shape[0]), best_move[up, 0]] = best_move[up, 1]
        states = np.unique(states, axis=0)
    out = []
    for key, _ in sorted(seen.items(), key=lambda e: -e[1])[:limit]:
        st = np.frombuffer(key, dtype=np.int8)
        col = light_top_column(p, half, cone.E, st == 2, st >= 1)
        if col is not None:  # every state visited with a finite value is a member
            out.append(col)
    return out


def local_pricing(cone: Cone, G, w, *, keep: int, collect: float, starts: int = _STARTS) -> QuadraticPricing:
    """Improving columns without a bound (N > ``EXHAUSTIVE_LIMIT``): steepest ascent over the sets
    that define the two-level and lift columns (a set is worth its best member, :func:`_set_values`),
    by single-letter flips, from the prefixes of three letter orders (phi of the letter's column
    1/p_x e_x, w_x/p_x, G_xx/p_x^2), the singletons and ``starts`` random sets (sizes uniform in
    1..N-1, a fixed seed), each until no flip improves (at most 2N rounds); the best sets visited
    give their members, the ``keep`` best columns above ``collect``. A flip changes the set's tables
    by one row of G (A(S +- j) = A(S) +- 2 B(S)_j + G_jj), so a round costs O(K N^2) for K sets
    (the lift columns' fractional row: O(K N^2) too). Many independent starts find the many columns
    of nearly equal phi that an optimal design of many outputs mixes; one beam of the best few sets
    found one of them per iteration and the design stalled. On the ball the light-top columns are
    searched apart (:func:`_light_top_search`), from the best sets found and as many random states.
    ``bound`` is +inf: the caller bounds the pricing otherwise."""
    p, n = cone.prior, cone.n
    G = np.asarray(G, dtype=float)
    w = np.asarray(w, dtype=float)
    keys = [np.diag(G) / p**2 + w / p, w / p, np.diag(G) / p**2]
    tri = np.tril(np.ones((n, n), dtype=bool))  # prefix k: the first k + 1 letters
    rng = np.random.default_rng(_SEED)
    rand = rng.random((n, starts)) < rng.integers(1, n, starts)[None, :] / n
    masks = np.concatenate([tri[np.argsort(np.argsort(-k))] for k in keys] + [np.eye(n, dtype=bool), rand], axis=1)
    masks = np.unique(masks, axis=1)
    g1 = G.sum(axis=0)
    eye = np.eye(n, dtype=bool)
    seen = {}
    for _ in range(2 * n):
        mf = masks.astype(float)
        s, wsum, B = p @ mf, w @ mf, (G @ mf).T  # B: K x N
        A = np.einsum("kn,nk->k", B, mf)
        vals = _set_values(cone, G, w, s, wsum, A, g1 @ mf, B, masks.T)
        for k in np.flatnonzero(np.isfinite(vals)):
            seen.setdefault(masks[:, k].tobytes(), float(vals[k]))
        sign = 1.0 - 2.0 * mf.T  # K x N: +1 adds letter j, -1 removes it
        fs = s[:, None] + sign * p
        fw = wsum[:, None] + sign * w
        fA = A[:, None] + sign * 2.0 * B + np.diag(G)
        f1 = (g1 @ mf)[:, None] + sign * g1
        fv = np.empty_like(fs)
        for lo in range(0, fs.shape[0], _CHUNK):  # K x N x N tables, in chunks of sets
            c = slice(lo, lo + _CHUNK)
            fB = B[c, None, :] + sign[c, :, None] * G[None, :, :]  # sets x N(j) x N(f)
            fin = masks.T[c, None, :] ^ eye[None, :, :]
            fv[c] = _set_values(cone, G, w, fs[c], fw[c], fA[c], f1[c], fB, fin)
        j = np.argmax(fv, axis=1)
        up = fv[np.arange(j.size), j] > vals + 1e-12 * (1.0 + np.abs(np.where(np.isfinite(vals), vals, 0.0)))
        if not up.any():
            break
        masks = masks[:, up]
        masks[j[up], np.arange(masks.shape[1])] ^= True
        masks = np.unique(masks, axis=1)
    best = sorted(seen.items(), key=lambda e: -e[1])[: 4 * keep]
    best_val = best[0][1] if best else -math.inf
    if not best:
        return QuadraticPricing(math.inf, np.zeros((n, 0)), np.zeros(0), False, {"local_max": best_val})
    top = np.array([np.frombuffer(k, dtype=bool) for k, _ in best]).T
    cols, _ = _members(cone, top)
    if cone.kind == "ball" and np.any(p < cone.half):
        lt = _light_top_search(cone, G, w, top[:, :starts], starts, rng, 4 * keep)
        if lt:
            cols = np.concatenate([cols, np.array(lt).T], axis=1)
    v = _phi(G, w, cols)
    idx = _top(np.where(v > collect, v, -np.inf), 4 * keep)
    cands = [(float(v[i]), "local", cols[:, i]) for i in idx]
    return _result(cone, cands, keep, math.inf, False, {"local_max": best_val})


#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
