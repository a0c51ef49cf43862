"""Prices the staircase family (LDP, and the ball's light sets) and the ball's heavy two-level
family in step 3 of the design loop, by branch and bound over letters.

Exact MI pricing over two-level columns: LDP staircases and the ball's heavy two-level columns.

Pricing maximises f(v) = sum_x P_x v_x log v_x - w.v over normalised columns (P.v = 1); a
two-level column (``low`` off a set S, ``high`` on S, privacy active) has levels fixed by s = P(S),
so f = F(s) - (high - low) w(S) with F(s) = (1 - s) low log low + s high log high - low W,
W = sum w. A node of the branch and bound fixes letters in / out of S; w(S) >= L(s), the
fractional knapsack over the free letters (convex, piecewise linear, greedy by w / P), bounds f
from above on every piece of L.

* Staircases (eps-LDP, [kairouz2016]): low = a, high = a e^eps, a = 1/(1 + c s), c = e^eps - 1:
      f = -log(1 + c s) + (eps e^eps s - W - c w(S)) / (1 + c s);
  on a piece L = alpha + r s the bound -log(1 + c s) + (A + B s)/(1 + c s) (A = -W - c alpha,
  B = eps e^eps - c r) has a derivative whose numerator B - c A - c (1 + c s) decreases in s: it is
  unimodal with its maximiser in closed form, so the node's bound is exact for its relaxation.
* Heavy two-level columns of the ball (S of mass s in [beta/2, 1/H), H = e^eps / (1 + e^eps beta/2)):
  high = H (1 + (beta/2) low), i.e. low = (1 - H s)/D, high = H (1 + beta/2 - s)/D, D = 1 - kappa s,
  kappa = 1 - H beta/2. Written with the chord chi(l, h) of x log x over [l, h] evaluated at 1,
  f <= chi(low, high) - low W - alpha (high - low) - r (1 - low) on a piece; chi decreases in l and
  increases in h; in the variable l = low the piece's bound is a fixed function of l plus a
  linear term, convex then concave, maximised exactly (:class:`HeavyTwoLevelSearch`).

Node work O(N) after an O(N log N) sort per search. Exponential in the worst case (knapsack).
"""

from __future__ import annotations

import math

import numpy as np

from leakage.design.bnb import Evaluation, SearchResult, best_first
from leakage.design.pricing.items import Items, greedy_pieces

_MARGIN = 1e-12  # relative floating-point margin added to every bound


class StaircaseSearch:
    """max over staircase columns of f (see the module docstring). Payload: the high set as a
    mask over sorted positions."""

    def __init__(self, prior, duals, eps: float):
        self.items = Items(prior, duals)
        self.c = math.expm1(eps)
        self.k1 = eps * math.exp(eps)
        self.W = float(np.sum(duals))

    def value(self, mask) -> float:
        it = self.items
        t = float(it.p[mask].sum())
        return -math.log1p(self.c * t) + (self.k1 * t - self.W - self.c * float(it.w[mask].sum())) / (1.0 + self.c * t)

    def root(self):
        return np.zeros(self.items.size, np.int8)

    def evaluate(self, status, incumbent):
        it, c = self.items, self.c
        inn, free = status == 1, status == 0
        t0, w_in = float(it.p[inn].sum()), float(it.w[inn].sum())
        if not free.any():
            if not inn.any() or inn.all():
                return None
            v = self.value(inn)
            return Evaluation(v + _MARGIN * (1 + abs(v)), ((v, inn),))
        a, b, alpha, r, pos, _, _ = greedy_pieces(it.p, it.w, free, t0, w_in)
        aa = -self.W - c * alpha
        bb = self.k1 - c * r
        ts = np.clip(((bb - c * aa) / c - 1.0) / c, a, b)
        g = -np.log1p(c * ts) + (aa + bb * ts) / (1.0 + c * ts)
        k = int(np.argmax(g))
        ub = float(g[k]) + _MARGIN * (1.0 + abs(float(g[k])))
        # integral candidates at the maximiser: the prefix without / with the fractional letter
        base = inn.copy()
        base[np.flatnonzero(free)[:k]] = True
        found = []
        for mask in (base, self._with(base, pos[k])):
            if mask.any() and not mask.all():
                found.append((self.value(mask), mask))
        frac = (ts[k] - a[k]) / it.p[pos[k]]
        if not (1e-12 < frac < 1 - 1e-12):  # the relaxation is integral at its maximiser
            best = max((v for v, _ in found), default=-math.inf)
            return Evaluation(max(best, float(g[k])) + _MARGIN * (1 + abs(float(g[k]))), found)
        i = int(pos[k])
        return Evaluation(ub, found, ([it.fix_in(status, i), it.fix_out(status, i)],))

    @staticmethod
    def _with(mask, i):
        m = mask.copy()
        m[i] = True
        return m


def staircase_search(prior, duals, eps, *, tol, collect, max_nodes, keep, stop_count=None, target=-math.inf,
                     resume=None) -> SearchResult:
    """Run :class:`StaircaseSearch` (or go on from ``resume``, as in ``bnb``); ``found`` holds high
    sets as masks over the letters."""
    s = resume.search if resume is not None else StaircaseSearch(prior, duals, eps)
    res = best_first(s, tol=tol, collect=collect, max_nodes=max_nodes, keep=keep, stop_count=stop_count, target=target,
                     resume=resume)
    return _as_letters(res, s.items, prior.size)


def _as_letters(res: SearchResult, items: Items, n: int) -> SearchResult:
    return SearchResult(res.bound, [items.letters(m, n) for m in res.found], res.best, res.nodes, res.exhausted,
                        res.frontier)


class HeavyTwoLevelSearch:
    """max of f over the ball's two-level columns low / H (1 + (beta/2) low) on S, s = P(S) in
    [beta/2, 1/H) (see the module docstring). State: the status over sorted positions.
    Payload: the high set as a mask over sorted positions.

    In the variable l = low (decreasing in s: l = (1 - H s)/(1 - kappa s)), the relaxed value on a
    piece L = alpha + r s of the fractional knapsack is psi(l) + c1 l + c0 with
    psi(l) = chi(l, H (1 + (beta/2) l)), chi(l, h) the chord of x log x over [l, h] at 1,
    c1 = r - W + alpha kappa, c0 = -alpha H - r. psi is convex on [0, l*] and concave on
    [l*, l(beta/2)] (at most one inflection, checked on a grid of eps and beta), so on a piece the
    maximum of the convex part is at its ends and that of the concave part is bounded by the
    tangent at the end of a bisection on the derivative: the node's bound is the relaxation's
    maximum up to a 1e-12 margin.
    """

    _BISECT = 40

    def __init__(self, prior, duals, eps: float, half: float):
        self.items = Items(prior, duals)
        E = math.exp(eps)
        self.H = E / (1.0 + E * half)
        self.half = half
        self.kappa = 1.0 - self.H * half
        self.W = float(np.sum(duals))
        self.s_min, self.s_max = half, 1.0 / self.H
        self.l_top = self.low(half) if self.s_min < self.s_max else 0.0
        self.l_star = self._inflection()

    def low(self, s):
        return (1.0 - self.H * s) / (1.0 - self.kappa * s)

    def psi(self, l):
        h = self.H * (1.0 + self.half * l)
        return (((h - 1.0) * _xlogx(l) + (1.0 - l) * h * np.log(h)) / (h - l))

    def dpsi(self, l):
        h = self.H * (1.0 + self.half * l)
        d = h - l
        num = (h - 1.0) * _xlogx(l) + (1.0 - l) * h * np.log(h)
        with np.errstate(divide="ignore"):
            dlog_l = np.log(l) + 1.0
        dl = ((h - 1.0) * dlog_l - h * np.log(h)) / d + num / d**2
        dh = (_xlogx(l) + (1.0 - l) * (np.log(h) + 1.0)) / d - num / d**2
        return dl + self.H * self.half * dh

    def _inflection(self) -> float:
        """l* where psi turns from convex to concave on (0, l_top] (l_top when convex throughout),
        by bisection on the sign of a central difference of psi'."""
        def convex(x):
            step = 1e-6 * max(x, 1e-6)
            return float(self.dpsi(x + step) - self.dpsi(x - step)) > 0.0
        hi = self.l_top
        if hi <= 2e-6 or convex(hi * (1 - 1e-9)):
            return hi
        lo = 1e-6
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if convex(mid) else (lo, mid)
        return lo

    def piece_max(self, la, lb, c1, c0):
        """Upper bounds of psi(l) + c1 l + c0 on the intervals [la, lb] (arrays) and the
        maximisers' l (vectorised)."""
        def f(l):
            return self.psi(l) + c1 * l + c0
        fa, fb = f(la), f(lb)
        best = np.maximum(fa, fb)
        arg = np.where(fa >= fb, la, lb)
        # the concave part [max(la, l*), lb]: bisection on the derivative, tangent bound
        ca = np.maximum(la, self.l_star)
        part = ca < lb
        if part.any():
            a, b = ca[part], lb[part]
            cc1, cc0 = c1[part], c0[part]
            lo_, hi_ = a.copy(), b.copy()
            for _ in range(self._BISECT):
                mid = 0.5 * (lo_ + hi_)
                up = self.dpsi(mid) + cc1 > 0
                lo_, hi_ = np.where(up, mid, lo_), np.where(up, hi_, mid)
            x = 0.5 * (lo_ + hi_)
            fx = self.psi(x) + cc1 * x + cc0
            g = self.dpsi(x) + cc1
            tangent = fx + np.maximum(g * (a - x), g * (b - x))
            bound = np.maximum(tangent, np.maximum(self.psi(a) + cc1 * a + cc0, fb[part]))
            better = bound > best[part]
            best[part] = np.where(better, bound, best[part])
            arg[part] = np.where(better, x, arg[part])
        return best, arg

    def value(self, mask) -> float:
        it = self.items
        return float(self.values(np.array([it.p[mask].sum()]), np.array([it.w[mask].sum()]), np.array([mask.all()]))[0])

    def values(self, s, ws, full):
        """Values of the columns with top mass s and dual sum ws (arrays; -inf outside [s_min, s_max)
        or where ``full``: the top set holds every letter)."""
        ok = (s >= self.s_min) & (s < self.s_max) & ~full
        s = np.where(ok, s, self.s_min)
        d = 1.0 - self.kappa * s
        lo, hi = (1.0 - self.H * s) / d, self.H * (1.0 + self.half - s) / d
        val = (1.0 - s) * _xlogx(lo) + s * hi * np.log(hi) - lo * self.W - (hi - lo) * ws
        return np.where(ok, val, -np.inf)

    def root(self):
        return np.zeros(self.items.size, np.int8)

    def evaluate(self, status, incumbent):
        it = self.items
        inn, free = status == 1, status == 0
        t0, w_in = float(it.p[inn].sum()), float(it.w[inn].sum())
        top = t0 + float(it.p[free].sum())
        lo_s, hi_s = max(self.s_min, t0), min(self.s_max, top)
        if lo_s > hi_s or lo_s >= self.s_max:
            return None
        if not free.any():
            v = self.value(inn)
            return None if v == -math.inf else Evaluation(v + _MARGIN * (1 + abs(v)), ((v, inn),))
        a, b, alpha, r, pos, c0_, c1_ = greedy_pieces(it.p, it.w, free, t0, w_in, lo_s, hi_s)
        if a.size == 0:
            return None
        g, _ = self.piece_max(self.low(b), self.low(a), r - self.W + alpha * self.kappa, -alpha * self.H - r)
        k = int(np.argmax(g))
        ub = float(g[k]) + 1e-10 * (1.0 + abs(float(g[k])))
        found = []
        base = inn.copy()
        idx = np.flatnonzero(free)
        base[idx[idx < pos[k]]] = True
        for mask in (base, StaircaseSearch._with(base, pos[k])):
            v = self.value(mask)
            if v > -math.inf:
                found.append((v, mask))
        i = int(pos[k])
        if not (a[k] < b[k] or c0_[k] < a[k] < c1_[k]):  # a point where the relaxation is integral
            return Evaluation(ub, found)
        return Evaluation(ub, found, ([it.fix_in(status, i), it.fix_out(status, i)],))


def _xlogx(x):
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0)), 0.0)


def heavy_two_level_search(prior, duals, eps, half, *, tol, collect, max_nodes, keep,
                           stop_count=None, target=-math.inf, resume=None) -> SearchResult:
    """Run :class:`HeavyTwoLevelSearch` (or go on from ``resume``, as in ``bnb``); ``found`` holds high
    sets as masks over the letters."""
    s = resume.search if resume is not None else HeavyTwoLevelSearch(prior, duals, eps, half)
    if s.s_min >= s.s_max:
        return SearchResult(-math.inf, [], -math.inf, 0, False)
    res = best_first(s, tol=tol, collect=collect, max_nodes=max_nodes, keep=keep, stop_count=stop_count, target=target,
                     resume=resume)
    return _as_letters(res, s.items, prior.size)

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
