"""Exact MI pricing over the ball's three-level columns with a light top set.

Such a column (:func:`leakage.design.vertices.light_top_column`) is h on T1 with P(T1) < beta/2,
c on T2, 0 off S = T1 ∪ T2; the worst prior removes all of T1 and beta/2 - P(T1) of T2, so
h = k c with k = e^eps (P(S) - beta/2) >= 1. With p1 = P(T1), s = P(S), D = s + (k - 1) p1,
W1 = w(T1), W12 = w(S), the pricing value is

    V = (p1 k log k - (k - 1) W1 - W12) / D - log D.

Branch and bound over the letters (in / out of T1, in / out of S) and over intervals of s. At a
node W1 >= L1(p1) and W12 >= L12(s), the fractional knapsacks over the free letters (convex
piecewise linear, greedy by w / P), so V <= G(p1, s). On each cell (a piece of L1 in p1 times a
piece of L12 within the node's s-interval), k, D and L12 are bounded by their values at the
interval's ends (monotone), which leaves (a + b p1)/(s_lo + kappa p1) - log(s_lo + kappa p1) plus a
constant, unimodal in p1 with its maximiser in closed form (kappa = k(s_lo) - 1 >= 0). The
s-range of the argmax cell is refined in place while that pays. T1 ⊆ S enters as a mass
constraint. Letters of equal mass are branched as blocks (``pricing.items``). Rigorous
(floating-point margin 1e-12 relative); exponential in the worst case.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math

import numpy as np

from leakage.design.bnb import Evaluation, SearchResult, best_first
from leakage.design.cone import xlogx as _xlogx
from leakage.design.pricing.box_halves import _lagrangian
from leakage.design.pricing.halves import (Half, RangeMax, list_halves, list_halves_above, member, penalised_max,
                                           window_pairs)
from leakage.design.pricing.items import Items, greedy_fill, greedy_pieces
from leakage.design.vertices import light_top_column

_MARGIN = 1e-12
#: slopes c of the bounds D(S) <= Phi(c) + c (P(S) - 1/H), Phi(c) = max { D(S) - c (P(S) - 1/H) :
#: P(S) >= 1/H } (the uniform columns' bound, ``LightTopSearch._uniform``)
_SLOPES = (1.0, 0.5, 0.25, 0.125, 0.0625)
#: parts the s-range of the bound's argmax cell is cut into, and rounds of that refinement
_SPLIT, _ROUNDS = 8, 40


class LightTopSearch:
    """State: (in_s, in_t1, s_lo, s_hi) over sorted positions (1 in, -1 out, 0 free).
    Payload: (T1, S) as masks over sorted positions."""

    def __init__(self, prior, duals, eps: float, half: float, box_bound: float = math.inf, tol: float = 0.0):
        self.it = Items(prior, duals)
        self.tol = tol  # the search's pruning tolerance: refining a node below it is wasted
        self.box_bound = max(box_bound, 0.0)
        self._box = math.inf  # the node's bound on the box, set by evaluate before _cells
        self.E = math.exp(eps)
        self.half = half
        self.small = self.it.p < half
        self.s_min = half + 1.0 / self.E
        self.H = self.E / (1.0 + self.E * half)
        # the subsets of two halves with their mass and D(S) = sum_S (P log H - w), for the bounds that
        # see S whole (the uniform columns here, the windows of light_top_windows); None: too many
        self.halves = self.list_halves() if math.isfinite(self.box_bound) else None
        self._uniform = None
        if self.halves is not None:
            self._uniform = np.array(_SLOPES), penalised_max(self.halves, 1.0 / self.H, _SLOPES)

    def list_halves(self):
        """``halves.list_halves`` of the sorted letters with rows (P, P log H - w); None: too many."""
        it = self.it
        return list_halves(it.p, it.w, np.stack([it.p, it.p * math.log(self.H) - it.w]))

    def value(self, t1, s) -> float:
        it, E, half = self.it, self.E, self.half
        p1, sig = float(it.p[t1].sum()), float(it.p[s].sum())
        k = E * (sig - half)
        if not (p1 < half and k >= 1.0 and sig < 1.0 and not s.all()):
            return -math.inf
        d = sig + (k - 1.0) * p1
        return (p1 * k * math.log(k) - (k - 1.0) * float(it.w[t1].sum()) - float(it.w[s].sum())) / d - math.log(d)

    def root(self):
        n = self.it.size
        return np.zeros(n, np.int8), np.where(self.small, 0, -1).astype(np.int8), self.s_min, 1.0

    def _cells(self, a2, b2, al2, r2, a1, b1, al1, r1, cap1):
        """Bounds on every cell (s-piece i on [a2, b2] x p1-piece j on [a1, b1], p1 <= cap1[i]) and
        their maximisers; an empty cell gets -inf. The p1-pieces are shared by the s-pieces (1-D) or
        each s-piece's own (2-D, one row per s-piece)."""
        E, half = self.E, self.half
        if a1.ndim == 1:
            a1, b1, al1, r1 = (x[None, :] for x in (a1, b1, al1, r1))
        klo, khi = E * (a2 - half), E * (b2 - half)
        l12min = np.minimum(al2 + r2 * a2, al2 + r2 * b2)
        kap = (klo - 1.0)[:, None]
        q_lo = np.broadcast_to(a1, (a2.size, a1.shape[1]))
        q_hi = np.minimum(b1, cap1[:, None])
        empty = q_hi < q_lo
        q_hi = np.maximum(q_hi, q_lo)
        neg = np.maximum(0.0, np.maximum(-(al1 + r1 * q_lo), -(al1 + r1 * q_hi)))
        aa = -kap * al1 - l12min[:, None] + (khi - klo)[:, None] * neg
        bb = (khi * np.log(khi))[:, None] - kap * r1
        slo = a2[:, None]
        nn = np.maximum(0.0, np.maximum(-(aa + bb * q_lo), -(aa + bb * q_hi)))
        extra = nn * ((b2 - a2)[:, None] + (khi - klo)[:, None] * q_hi) / (slo + kap * q_lo) ** 2
        safe = np.where(kap > 0, kap, 1.0)
        star = np.where(kap > 0, ((bb * slo - kap * aa) / safe - slo) / safe, np.where(bb >= 0, q_hi, q_lo))
        pstar = np.clip(star, q_lo, q_hi)
        d = slo + kap * pstar
        u = (aa + bb * pstar) / d - np.log(d) + extra
        if np.isfinite(self._box):
            # the mixture bound: v = (sigma/D) 1_S/sigma + ((k-1) p1/D) 1_T1/p1, the first in the box
            # {0 <= v <= H} (bounded by the box search), the second worth log(1/p1) - w(T1)/p1, so
            # V <= max(U_box, 0) + ((k-1)/D) max(0, G1), G1(p1) = -p1 log p1 - L1(p1) (concave);
            # tight where k is near 1 (s near beta/2 + e^-eps), where the first bound is not
            g_at = np.clip(np.exp(-1.0 - r1), q_lo, q_hi)
            g1 = -_xlogx(g_at) - (al1 + r1 * g_at)
            dmin = slo + kap * q_lo
            box = np.full(a2.size, self._box)
            if self._uniform is not None:
                # 1_S/sigma, sigma = 1/H + t in [a2, b2]: worth D(S)/sigma - log(sigma H), D(S) = sum_S
                # (P log H - w) <= Phi(c) + c t for every slope c (``_uniform``): the least over c
                cs, phi = self._uniform
                ta, tb = a2 - 1.0 / self.H, b2 - 1.0 / self.H
                num = np.maximum(phi[None, :], 0.0) + cs[None, :] * tb[:, None]
                f = (num / a2[:, None]).min(axis=1) - np.log1p(self.H * np.maximum(ta, 0.0))
                box = np.minimum(box, f)
            mix = np.maximum(box, 0.0)[:, None] + np.maximum(g1, 0.0) * (khi - 1.0)[:, None] / dmin
            u = np.minimum(u, mix)
        return np.where(empty, -np.inf, u), pstar

    def evaluate(self, state, incumbent):
        in_s, in_t1, lo, hi = state
        it, half = self.it, self.half
        po, wo = it.p, it.w
        fixed_t1, fixed_s = in_t1 == 1, in_s == 1
        f1, wf1 = float(po[fixed_t1].sum()), float(wo[fixed_t1].sum())
        fs, wfs = float(po[fixed_s].sum()), float(wo[fixed_s].sum())
        f3 = float(po[in_s == -1].sum())
        free_s = in_s == 0
        elig = (in_t1 == 0) & self.small
        if f1 >= half or np.any(fixed_t1 & (in_s == -1)):
            return None
        s_lo = max(fs, self.s_min, lo)
        pf = np.sort(po[free_s])
        if f3 == 0 and pf.size == 0:  # S must leave a row out
            return None
        s_top = fs + float(pf.sum() if f3 > 0 else pf[1:].sum())
        s_hi = min(s_top, hi)
        if s_hi < s_lo:
            return None
        a1, b1, al1, r1, it1, c1, d1 = greedy_pieces(po, wo, elig, f1, wf1, f1, half)
        a2, b2, al2, r2, it2, _, _ = greedy_pieces(po, wo, free_s, fs, wfs, s_lo, s_hi)
        if a1.size == 0:  # nothing free for T1: only p1 = f1
            a1, b1 = np.array([f1]), np.array([f1])
            al1, r1, it1, c1, d1 = np.array([wf1]), np.zeros(1), np.array([-1]), a1, b1
        if a2.size == 0:  # S is fixed: only s = fs
            if not (s_lo <= fs <= s_hi):
                return None
            a2, b2, al2, r2, it2 = np.array([fs]), np.array([fs]), np.array([wfs]), np.zeros(1), np.array([-1])
        # T1 lies in S: the mass p1 - f1 of its free letters is at most what S has beyond its fixed
        # letters, s - fs, plus the free letters of T1 already fixed in S
        c0 = f1 - fs + float(po[elig & fixed_s].sum())
        # the box part of the mixture bound: the search's bound over the box, or the box's
        # relaxation with the node's letters out of S at 0 (log H - min w.v, greedy), if smaller
        self._box = max(min(self.box_bound, self._box_relaxation(in_s == -1)), 0.0)
        u, pstar = self._cells(a2, b2, al2, r2, a1, b1, al1, r1, c0 + b2)
        if not np.isfinite(u).any():
            return None
        top = float(u.max())
        for _ in range(_ROUNDS):
            # refine the s-range of the argmax cell until its bound is near the relaxation's value at
            # the cell's ends or middle (it cannot go lower; near: within 5 % of the bound's excess over
            # the incumbent, the letters do the rest), the node is prunable or the cell is a point
            i = int(np.argmax(u.max(axis=1)))
            if b2[i] - a2[i] <= 1e-13 * (1.0 + b2[i]) or top <= max(incumbent, 0.0) + self.tol:
                break
            pts = np.array([a2[i], 0.5 * (a2[i] + b2[i]), b2[i]])
            exact, _ = self._cells(pts, pts, np.repeat(al2[i], 3), np.repeat(r2[i], 3), a1, b1, al1, r1, c0 + pts)
            slack = top - float(exact.max())  # what refining can still remove from the bound
            if slack <= max(1e-11 * (1.0 + abs(top)), 0.05 * (top - max(incumbent, 0.0))):
                break
            sv = np.linspace(a2[i], b2[i], _SPLIT + 1)
            rep = np.full(_SPLIT, i)
            us, ps_ = self._cells(sv[:-1], sv[1:], al2[rep], r2[rep], a1, b1, al1, r1, c0 + sv[1:])
            keep = np.arange(a2.size) != i
            a2, b2 = np.concatenate([a2[keep], sv[:-1]]), np.concatenate([b2[keep], sv[1:]])
            al2, r2, it2 = (np.concatenate([x[keep], x[rep]]) for x in (al2, r2, it2))
            u, pstar = np.concatenate([u[keep], us]), np.concatenate([pstar[keep], ps_])
            top = float(u.max())
        i, j = np.unravel_index(int(np.argmax(u)), u.shape)
        ub = float(u[i, j])
        ub += _MARGIN * (1.0 + abs(ub))
        # integral candidates near the maximiser: the cell's best sampled s and its p1, then T1 and
        # S filled greedily to those masses
        sv = np.linspace(a2[i], b2[i], 5)
        us, ps_s = self._cells(sv, sv, np.repeat(al2[i], 5), np.repeat(r2[i], 5), a1[j:j + 1], b1[j:j + 1],
                               al1[j:j + 1], r1[j:j + 1], c0 + sv)
        m = int(np.argmax(us[:, 0]))
        s_star, p_star = float(sv[m]), float(ps_s[m, 0])
        found = []
        for t1 in greedy_fill(po, fixed_t1, np.flatnonzero(elig), p_star - f1):
            base = fixed_s | t1
            for s in greedy_fill(po, base, np.flatnonzero(free_s & ~t1), s_star - float(po[base].sum())):
                v = self.value(t1, s)
                if v > -math.inf:
                    found.append((v, (t1, s)))
        ps = float(pstar[i, j])
        frac1 = int(it1[j]) if (it1[j] >= 0 and c1[j] + 1e-15 < ps < d1[j] - 1e-15) else -1
        frac2 = int(it2[i]) if it2[i] >= 0 else -1
        # options in the order strong branching prefers on ties: S's letter, then T1's
        options = [self._split(state, x, kind) for x, kind in ((frac2, 2), (frac1, 1)) if x >= 0]
        if not options:  # no letter is fractional: halve the s-range at the argmax cell
            cut = 0.5 * (a2[i] + b2[i])
            if b2[i] - a2[i] > 1e-12 and s_lo < cut < s_hi:
                options.append([(in_s, in_t1, lo, cut), (in_s, in_t1, cut, hi)])
        return Evaluation(ub, found, options)

    def _box_relaxation(self, out) -> float:
        """log H - min {w.v : 0 <= v <= H, v = 0 off the allowed letters, P.v = 1} (a bound over the
        box columns whose support avoids ``out``; +inf when they cannot carry mass 1)."""
        it = self.it
        keep = ~out
        cum = np.cumsum(it.p[keep]) * self.H
        if cum.size == 0 or cum[-1] < 1.0:
            return math.inf
        k = int(np.searchsorted(cum, 1.0))
        w = it.w[keep]
        full = float(w[:k].sum()) * self.H
        rest = (1.0 - (cum[k - 1] if k else 0.0)) * w[k] / it.p[keep][k]
        return math.log(self.H) - (full + rest)

    def _split(self, state, x, kind):
        """Children of letter x: in / out of T1 (kind 1) or of S (kind 2), as blocks of its group."""
        in_s, in_t1, lo, hi = state
        it = self.it
        if kind == 1:
            a = (it.fix_in(in_s, x), it.fix_in(in_t1, x), lo, hi)
            b = (in_s, it.fix_out(in_t1, x), lo, hi)
        else:
            a = (it.fix_in(in_s, x), in_t1, lo, hi)
            b = (it.fix_out(in_s, x), it.fix_out(in_t1, x), lo, hi)
        return [a, b]




def light_top_search(prior, duals, eps, half, *, tol, collect, max_nodes, keep,
                     stop_count=None, target=-math.inf, box_bound=math.inf) -> SearchResult:
    """Run :class:`LightTopSearch`; ``found`` holds the columns. ``box_bound``: a bound on the pricing
    over the box {0 <= v <= H} at the same duals (enables the mixture bound)."""
    s = LightTopSearch(prior, duals, eps, half, box_bound, tol)
    res = best_first(s, tol=tol, collect=collect, max_nodes=max_nodes, keep=keep, stop_count=stop_count, target=target)
    cols = []
    for t1, sm in res.found:
        col = np.empty(prior.size)
        col[s.it.order] = light_top_column(s.it.p, half, s.E, t1, sm)
        cols.append(col)
    return SearchResult(res.bound, cols, res.best, res.nodes, res.exhausted)


class LightTopFlat:
    """The light-top family at duals 0 (the bound at duals proportional to the prior, once per
    design): W1 = W12 = 0, so the value depends on the masses alone and the letters need no
    branching. Best first over intervals of s, each bounded by the search's cell bound with T1's
    mass anywhere in [0, min(beta/2, light mass)] and at most s (the maximum over p1 in closed form,
    ``LightTopSearch._cells``), split in halves; its values at an interval's ends and middle are the
    relaxation's own (payload None: they bound, they are not columns). State: (s_lo, s_hi)."""

    def __init__(self, prior, eps: float, half: float):
        self.search = LightTopSearch(prior, np.zeros(prior.size), eps, half)
        it = self.search.it
        self.p1 = np.zeros(1), np.array([min(half, float(it.p[self.search.small].sum()))]), np.zeros(1), np.zeros(1)
        self.top = 1.0 - float(it.p.min())  # S leaves a letter out

    def root(self):
        return self.search.s_min, self.top

    def _bound(self, lo, hi):
        lo, hi = np.atleast_1d(lo), np.atleast_1d(hi)
        u, _ = self.search._cells(lo, hi, np.zeros(lo.size), np.zeros(lo.size), *self.p1, hi)
        return float(u.max())

    def evaluate(self, state, incumbent):
        lo, hi = state
        if hi < lo:
            return None
        ub = self._bound(lo, hi)
        if ub == -math.inf:
            return None
        mid = 0.5 * (lo + hi)
        pts = np.array([lo, mid, hi])
        options = [[(lo, mid), (mid, hi)]] if lo < mid < hi else []
        return Evaluation(ub + _MARGIN * (1.0 + abs(ub)), [(self._bound(pts, pts), None)], options)


def light_top_flat(prior, eps, half, *, tol, max_nodes, target=-math.inf) -> SearchResult:
    """:class:`LightTopFlat` best first: a bound on the light-top family at duals 0 (``found`` empty),
    within ``tol`` of the relaxation's maximum unless ``target`` stops it first. The cell bound is
    first order in the interval's width: a maximum at an end of the s-range (where the columns meet
    the box's, s = beta/2 + e^-eps) closes in a few dozen intervals, one inside it in about
    tol^-1/2."""
    res = best_first(LightTopFlat(prior, eps, half), tol=tol, collect=math.inf, max_nodes=max_nodes, keep=0,
                     target=target)
    return SearchResult(res.bound, [], -math.inf, res.nodes, res.exhausted)


#: most window maxima (one meet-in-the-middle pass each) and s-range splits of :func:`light_top_windows`,
#: and most sets in a window bounded one by one (:func:`_coupled`)
MAX_WINDOWS, MAX_SPLITS, MAX_COUPLED = 1000, 10_000, 100_000
#: a range's bound in light_top_windows: from a wider range's Dmax, from its own Dmax, set by set
_INHERITED, _QUERIED, _FINAL = 0, 1, 2
_CHUNK = 16384


def light_top_windows(prior, duals, eps, half, *, goal: float, box_bound: float) -> SearchResult | None:
    """A bound on the light-top family with S seen whole, by meet in the middle over its mass.

    With D(S) = sum_S (P_x log H - w_x), W12 = P(S) log H - D(S): on an s-range [a, b] every S has
    W12 >= s log H - Dmax(a, b), Dmax the largest D(S) with P(S) in the range (exact, from the two
    halves' subsets), and T1 is relaxed as in the search (its fractional knapsack over the light
    letters, T1 ⊆ S as P(T1) <= s), which leaves the search's cell bound (``LightTopSearch``) on
    the range. Near s = 1/H (k near 1, the columns near the box's uniform columns) the value is a
    subset sum in S alone, which letter-by-letter branching does not close; T1 only matters through
    (k - 1). Ranges are taken worst first: split in s while that lowers the cell bound, the window
    maximum recomputed where the bound at the range's points still exceeds ``goal`` (up to 1e-10
    relative: the bound is continuous in s; a range remembers the subsets A with a B in its window,
    and the ranges within it look only at those). A window that holds at most ``MAX_COUPLED`` sets is
    bounded set by set instead (:func:`_coupled`: T1 within that S), since with T1 relaxed apart
    from S the bound can stay above the goal however thin the window. When the halves are too large
    to list whole, they list only the subsets that may be in a set above the goal (:class:`_Sieve`),
    in one pass for each subset F of the heavy letters (H P_x > 1) S may hold: their scores D_x are
    large, a floor on D(S) set for every mass at once would keep every subset, and given F the
    floor is set where S's mass starts (P(F)), T1 then at most P(S) - P(F). A pass whose cell bound
    over its whole range does not pass the goal is skipped; once the budget is spent, the passes
    left count with that bound. Returns the bound (``found`` empty; ``exhausted`` when
    ``MAX_WINDOWS`` or ``MAX_SPLITS`` ran out, or a range shrank to a point or its sets' own bound,
    above the goal), or None when a half would list too many subsets."""
    s = LightTopSearch(prior, duals, eps, half, box_bound)
    it, H = s.it, s.H
    log_h = math.log(H)
    slack = 1e-12 * (1.0 + float(np.abs(it.p * log_h - it.w).sum()))
    a1, b1, al1, r1, *_ = greedy_pieces(it.p, it.w, s.small, 0.0, 0.0, 0.0, half)
    if a1.size == 0:
        a1, b1, al1, r1 = np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1)
    s._box = max(min(s.box_bound, s._box_relaxation(np.zeros(it.size, bool))), 0.0)

    def cells(x_lo, x_hi, d, pf=0.0):
        """The largest cell bound over the s-ranges [x_lo, x_hi] with D(S) <= d (one d, or one per
        range) and letters of mass ``pf`` in S that are not light (T1 has at most the rest)."""
        x_lo, x_hi = np.atleast_1d(x_lo), np.atleast_1d(x_hi)
        dd = np.broadcast_to(-np.asarray(d, dtype=float), x_lo.shape)
        u, _ = s._cells(x_lo, x_hi, dd, np.full(x_lo.size, log_h), a1, b1, al1, r1, x_hi - pf)
        u = float(u.max())
        return u + _MARGIN * (1.0 + abs(u)) if u > -math.inf else u

    top_s = 1.0 - float(it.p.min())  # S leaves a letter out
    if top_s < s.s_min:
        return SearchResult(-math.inf, [], -math.inf, 0, False)
    lists = s.halves if math.isfinite(s.box_bound) else s.list_halves()
    budget = _Budget()
    if lists is not None:  # every subset listed: one pass, exact
        every = np.arange(it.size)
        return _windows(s, lists, every, every, True, goal, cells, top_s, slack, budget)
    # too many subsets: only those that may be in a set worth more than the goal, one pass for each
    # subset F of the heavy letters (H P_x > 1) that S may hold -- their scores are large, so one floor
    # over every mass would keep every subset; given F, the floor is set where S's mass starts
    heavy = np.flatnonzero(H * it.p > 1.0)
    if heavy.size > MAX_HEAVY:
        heavy = heavy[:0]
    rest = np.setdiff1d(np.arange(it.size), heavy)
    dx = it.p * log_h - it.w
    bound, nodes, stuck = goal, 0, False  # the sets left out of the lists are worth at most the goal
    for bits in range(1 << heavy.size):
        fixed = heavy[[(bits >> j) & 1 == 1 for j in range(heavy.size)]]
        pf, df = float(it.p[fixed].sum()), float(dx[fixed].sum())
        if pf >= top_s:
            continue
        given = functools.partial(cells, pf=pf)
        sieve = _Sieve(s, rest, pf, df, goal, given, top_s, slack)
        if sieve.top <= goal:
            continue
        if budget.out:  # no window left: the cell bound over the pass's whole range
            bound, stuck = max(bound, sieve.top), True
            continue
        lists = sieve.halves()
        if lists is None:
            return None
        a, b, code = lists
        a = Half(a.sums + np.array([[pf], [df]]), a.masks)  # S = F and a subset of each half
        res = _windows(s, (a, b), rest, code, fixed.size == heavy.size, goal, given, top_s, slack, budget)
        bound, nodes, stuck = max(bound, res.bound), nodes + res.nodes, stuck or res.exhausted
    return SearchResult(bound, [], -math.inf, nodes, stuck)


#: most heavy letters (H P_x > 1) whose subsets :func:`light_top_windows` takes one by one (fewer
#: than H: their masses sum to at most 1)
MAX_HEAVY = 12


class _Budget:
    """The window maxima and range splits left to :func:`light_top_windows` (over all its passes)."""

    def __init__(self):
        self.queries, self.splits = MAX_WINDOWS, MAX_SPLITS

    @property
    def out(self) -> bool:
        return self.queries <= 0 or self.splits <= 0


def _windows(s: LightTopSearch, lists, letters, code, complete: bool, goal: float, cells, top_s: float,
             slack: float, budget: _Budget) -> SearchResult:
    """One pass of :func:`light_top_windows` over the sets S = A | B (and the letters outside
    ``letters``, in every S when ``complete``, whose mass and D are in A's sums), ``code`` the bit of
    each of ``letters`` in the masks. Ranges of s worst first; see the caller."""
    by_mass = np.argsort(lists[0].sums[0], kind="stable")  # A by mass too (B is): sorted keys below
    lists = (Half(lists[0].sums[:, by_mass], lists[0].masks[by_mass]), lists[1])
    (ua, pa), (ub, pb) = lists[0].sums, lists[1].sums
    if not (ua.size and ub.size):
        return SearchResult(-math.inf, [], -math.inf, 0, False)
    rmax = RangeMax(pb)

    def window(lo, hi, cand):
        """Dmax over the sets with mass in [lo, hi], the window's bound set by set when it holds at
        most MAX_COUPLED sets (else None), and the subsets A with a B in the window (among ``cand``,
        those of a range holding this one)."""
        first = np.searchsorted(ub, lo - ua[cand] - 1e-12, side="left")
        last = np.searchsorted(ub, hi - ua[cand] + 1e-12, side="right")
        some = last > first
        cand, first, last = cand[some], first[some], last[some]
        if not cand.size:
            return -math.inf, None, cand
        d = float((pa[cand] + rmax.query(first, last)).max()) + slack
        if int((last - first).sum()) > MAX_COUPLED:
            return d, None, cand
        return d, _coupled(s, lists, letters, code, complete, cand, first, last, slack), cand
    # the bound is continuous in s: where it crosses the goal, ranges approach it from above only
    reach = goal + 1e-10 * (1.0 + abs(goal))
    heap = []  # (-bound, lo, hi, Dmax, state, sequence number, the subsets A with a B in a wider range)
    seq = itertools.count()

    def push(lo, hi, cand):
        """Query the window of [lo, hi] and push the range with its bound (set by set, final, when
        the window is thin)."""
        d, sets, cand = window(lo, hi, cand)
        if sets is not None:
            if sets > -math.inf:
                heapq.heappush(heap, (-sets, lo, hi, d, _FINAL, next(seq), cand))
        elif d > -math.inf:
            heapq.heappush(heap, (-cells(lo, hi, d), lo, hi, d, _QUERIED, next(seq), cand))

    push(s.s_min, top_s, np.arange(ua.size))
    nodes, stuck = 1, -math.inf
    budget.queries -= 1
    while heap and -heap[0][0] > reach:
        u, lo, hi, d, state, _, cand = heapq.heappop(heap)
        u, mid = -u, 0.5 * (lo + hi)
        if state == _FINAL:
            stuck = u
            break
        at_points = cells([lo, mid, hi], [lo, mid, hi], d)
        if state == _INHERITED and at_points > reach and (u - at_points < 0.5 * (u - goal) or not lo < mid < hi):
            if budget.queries <= 0:
                stuck = u
                break
            budget.queries -= 1
            nodes += 1
            push(lo, hi, cand)
            continue
        if budget.splits <= 0 or not lo < mid < hi:
            stuck = u
            break
        budget.splits -= 1
        nodes += 1
        for x, y in ((lo, mid), (mid, hi)):
            heapq.heappush(heap, (-cells(x, y, d), x, y, d, _INHERITED, next(seq), cand))
    bound = max(stuck, -heap[0][0] if heap else -math.inf)
    return SearchResult(bound, [], -math.inf, nodes, stuck > -math.inf)


#: the filter of :class:`_Sieve`: geometric pieces of s - s0, uniform parts of each,
#: bisection steps on the score
FILTER_LEVELS, FILTER_PARTS, FILTER_STEPS = 60, 16, 60


class _Sieve:
    """Which subsets of ``letters`` (sorted positions) may be part of a set S = F | A | B that the
    cell bound leaves above ``goal``, F the other letters in S (mass ``pf``, D(F) = ``df``; ``cells``
    knows that F holds no light letter). With mu the box's chord ratio at cap H (``box_halves``) and
    D'(X) = sum_X (P (log H - mu) - w), D(S) = df + D'(A | B) + mu (P(S) - pf); on each piece of s the
    cell bound with D(S) at most that (the largest mu s of the piece) is increasing in D'(A | B).
    ``top``: the largest over the pieces at the largest D'(A | B), a bound on every such S. The
    pieces are geometric in s - s0 (s0 = max(beta/2 + e^-eps, pf); k - 1 = e^eps (s - s_min): the
    bound changes fastest near s_min), each cut in ``FILTER_PARTS``."""

    def __init__(self, s: LightTopSearch, letters, pf: float, df: float, goal: float, cells, top_s: float,
                 slack: float):
        it, log_h = s.it, math.log(s.H)
        mu = _lagrangian(s.H * it.p, log_h - it.w / it.p)[0]
        self.p, self.w, self.log_h = it.p[letters], it.w[letters], log_h
        self.score = self.p * (log_h - mu) - self.w
        s0 = max(s.s_min, pf)
        geo = s0 + (top_s - s0) * np.exp2(-np.arange(FILTER_LEVELS + 1.0))
        geo = np.append(geo, s0)[::-1]
        edges = np.unique(np.concatenate([np.linspace(a, b, FILTER_PARTS + 1) for a, b in zip(geo[:-1], geo[1:])]))
        lo, hi = edges[:-1], edges[1:]
        shift = df + np.maximum(mu * (lo - pf), mu * (hi - pf)) + slack
        self.bound = lambda d: cells(lo, hi, d + shift)
        self.goal, self.slack, self.cap = goal, slack, top_s - pf + 1e-12
        self.top = self.bound(float(np.maximum(self.score, 0).sum()))

    def halves(self):
        """``list_halves_above`` of the letters above the floor: the largest D'(A | B) at which no
        piece passes the goal (bisection), so that a set with D'(A | B) at most that is worth at
        most the goal; None when a half would be too large."""
        d_lo, d_hi = float(np.minimum(self.score, 0).sum()), float(np.maximum(self.score, 0).sum())
        if self.bound(d_lo) > self.goal:
            floor = -math.inf
        else:
            for _ in range(FILTER_STEPS):  # passes at d_hi, not at d_lo
                mid = 0.5 * (d_lo + d_hi)
                d_lo, d_hi = (d_lo, mid) if self.bound(mid) > self.goal else (mid, d_hi)
            floor = d_lo
        p, w = self.p, self.w
        return list_halves_above(p, w, np.stack([p, p * self.log_h - w]), self.score, floor - self.slack, self.cap)


def _coupled(search: LightTopSearch, lists, letters, code, complete: bool, cand, first, last, slack: float) -> float:
    """The light-top bound over the sets S of a window, each with its own T1 ⊆ S (``code``: the bit
    of each of ``letters``, sorted positions, in the masks; the other letters, in S when
    ``complete``, are in A's sums and never light): the pairs (A, B)
    with A in ``cand`` and B in A's window [first, last) (aligned with ``cand``), S = A ∪ B, and
    the search's cell bound at s = P(S) with W12 = s log H - D(S) (D(S) plus ``slack``) and T1's
    fractional knapsack over the light letters of S (their pieces in ratio order; a letter out of
    S is a piece of length 0). -inf when no set is a light-top S (mass in [beta/2 + e^-eps, 1), a
    letter left out)."""
    it, half = search.it, search.half
    log_h = math.log(search.H)
    a, b = lists
    ia, ib = window_pairs(np.arange(cand.size), first, last)
    ia = cand[ia]
    sig = a.sums[0][ia] + b.sums[0][ib]
    dsum = a.sums[1][ia] + b.sums[1][ib] + slack
    masks = a.masks[ia] | b.masks[ib]
    full = np.full(ia.size, complete)
    for c in code.tolist():
        full &= member(masks, c)
    ok = (sig >= search.s_min) & (sig < 1.0) & ~full
    sig, dsum, masks = sig[ok], dsum[ok], masks[ok]
    if sig.size == 0:
        return -math.inf
    light = np.flatnonzero(search.small[letters])
    lp, lw, lr = (x[letters[light]] for x in (it.p, it.w, it.ratio))
    best = -math.inf
    for c in range(0, sig.size, _CHUNK):
        sc, dc, mc = sig[c:c + _CHUNK], dsum[c:c + _CHUNK], masks[c:c + _CHUNK]
        if light.size:
            bits = np.stack([member(mc, c) for c in code[light].tolist()], axis=1)
            zero = np.zeros((sc.size, 1))
            cm = np.concatenate([zero, np.cumsum(np.where(bits, lp, 0.0), axis=1)], axis=1)
            cw = np.concatenate([zero, np.cumsum(np.where(bits, lw, 0.0), axis=1)], axis=1)
            r1 = np.broadcast_to(lr, bits.shape)
            a1, b1, al1 = cm[:, :-1], np.minimum(cm[:, 1:], half), cw[:, :-1] - r1 * cm[:, :-1]
        else:
            a1 = b1 = al1 = r1 = np.zeros((sc.size, 1))
        u, _ = search._cells(sc, sc, -dc, np.full(sc.size, log_h), a1, b1, al1, r1, sc)
        best = max(best, float(u.max()))
    return best + _MARGIN * (1.0 + abs(best)) if best > -math.inf else best


#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
