"""Prices the ball's light-top family in step 3 of the design loop, by branch and bound over
letters and intervals of P(S).

Exact MI pricing over the ball's three-level columns with a light top set.

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

import math

import numpy as np

from leakage.design.bnb import Evaluation, SearchResult, best_first
from leakage.design.cone import xlogx as _xlogx
from leakage.design.pricing.halves import list_halves, penalised_max
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


#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
