"""Prices the light-top family on a grid prior whose top sets are too many to enumerate (step 3
of the design loop), by branch and bound over count programmes.

Light-top pricing on a grid prior when the top sets are too many to enumerate.

A light-top column (:func:`leakage.design.vertices.light_top_column`) is h on T1 (P(T1) < beta/2),
c on T2 = S minus T1 and 0 off S, with h = k c, k = e^eps (P(S) - beta/2); with p1 = P(T1),
s = P(S) and D = s + (k - 1) p1 its pricing value is

    V = (p1 k log k - (k - 1) w(T1) - w(S)) / D - log D,

decreasing in w(T1) (k >= 1) and in w(S) at fixed counts. On a grid prior (P = n / m) the two
knapsacks "least w(T1) of count c1 among the light letters" and "least w(S) of count cS" are exact
dynamic programmes (:func:`leakage.design.pricing.counts.least_weight_by_count`); dropping the
coupling T1 ⊆ S makes V over every pair (c1, cS) an upper bound on the family, and it is attained
when the two programmes' sets are nested. Otherwise a letter x of T1 outside S is branched on
(x in T1, hence in S, or x out of T1), which the shared skeleton (:mod:`leakage.design.bnb`) runs
best first. A node costs two programmes, O(N m), and the maximum of V over the (c1, cS) grid,
taken block by block of cS: each block is bounded by interval arithmetic (k, D and w(S) at the
block's ends) and evaluated exactly only while its bound beats the best exact value. Exact: no
relaxation survives at a solved node, the bound is attained up to the rounding margin.

The coupling T1 ⊆ S is relaxed in two ways at each node, and each pair (c1, cS) takes the smaller
of the two bounds: (A) w(S) is at least the least sum of S's count, over the letters not left out
of T1; (B) w(S) = w(T1) + w(T2), with T2 drawn from that programme at count cS - c1, which may
reuse a letter of T1. A node whose best pair is a real column under either relaxation is solved;
otherwise the heaviest letter that relaxation (B) uses twice is branched on. (A) alone does not
close when the two programmes' sets disagree on counts (a heavy T1 beside an S of a few hundred
light records, as on an attribute with one dominant value and many rare ones): branching letter by
letter never narrows that gap, while (B) usually solves the root node.
"""

from __future__ import annotations

import math

import numpy as np

from leakage.design.bnb import Evaluation, SearchResult, best_first
from leakage.design.pricing.counts import least_weight_by_count, rebuild

_MARGIN = 1e-12
#: counts of S per block of the grid maximum
_BLOCK = 64


class LightTopCountSearch:
    """State: an int8 vector over the letters, 1 in T1 (hence in S), -1 out of T1, 0 free (light
    letters only). Payload: (T1, S) masks over the letters."""

    def __init__(self, counts, m: int, prior, duals, eps: float, half: float):
        self.n_cnt = np.asarray(counts, dtype=np.int64)
        self.m = int(m)
        self.p = np.asarray(prior, dtype=float)
        self.w = np.asarray(duals, dtype=float)
        self.E = math.exp(eps)
        self.half = half
        self.c1_max = math.ceil(half * m) - 1  # P(T1) < beta/2
        self.s_min = half + 1.0 / self.E  # k >= 1

    def root(self):
        return np.where(self.p < self.half, 0, -1).astype(np.int8)

    def value(self, t1, s) -> float:
        p1, sig = float(self.p[t1].sum()), float(self.p[s].sum())
        k = self.E * (sig - self.half)
        if not (p1 < self.half and k >= 1.0 and sig < 1.0 and not s.all() and np.all(s[t1])):
            return -math.inf
        d = sig + (k - 1.0) * p1
        return (p1 * k * math.log(k) - (k - 1.0) * float(self.w[t1].sum()) - float(self.w[s].sum())) / d - math.log(d)

    def evaluate(self, state, incumbent):
        cnt, w, m, n = self.n_cnt, self.w, self.m, self.n_cnt.size
        fixed = state == 1
        fc, fw = int(cnt[fixed].sum()), float(w[fixed].sum())
        if fc > self.c1_max:
            return None
        free1 = np.flatnonzero(state == 0)
        others = np.flatnonzero(~fixed)
        l1, take1 = least_weight_by_count(cnt, w, free1, self.c1_max - fc)
        l12, take12 = least_weight_by_count(cnt, w, others, m - 1 - fc)  # S is not every letter
        grid = _Grid(self, fc, fw, l1, l12)
        best, j, cs = grid.maximum()
        if best == -math.inf:
            return None
        t1 = fixed | rebuild(take1, cnt, free1, int(j), n)
        s_a = fixed | rebuild(take12, cnt, others, int(cs) - fc, n)  # relaxation A's S
        t2_b = rebuild(take12, cnt, others, int(cs) - int(cnt[t1].sum()), n)  # relaxation B's T2
        ub = best + _MARGIN * (1.0 + abs(best))
        pairs = [(t1, s_a), (t1, t1 | t2_b)]
        if not (t1 & ~s_a).any() or not (t1 & t2_b & ~fixed).any():  # one relaxation is a column
            found = [(v, pair) for pair in pairs if np.all(pair[1][pair[0]]) and (v := self.value(*pair)) > -math.inf]
            return Evaluation(ub, found, ())
        # neither: the repaired pairs are columns; branch on the heaviest letter B uses twice
        found = [(v, pair) for pair in ((t1, s_a | t1), (t1 & s_a, s_a), (t1, t1 | t2_b))
                 if (v := self.value(*pair)) > -math.inf]
        twice = np.flatnonzero(t1 & t2_b & ~fixed)
        x = int(twice[np.argmax(cnt[twice])])
        inside, outside = state.copy(), state.copy()
        inside[x], outside[x] = 1, -1
        return Evaluation(ub, found, [[inside, outside]])


class _Grid:
    """V over every (c1, cS) of one node under two relaxations, the smaller of the two per pair,
    maximised block by block of cS. With W1 = w(T1) >= L1(c1):

    * A drops T1 ⊆ S: w(S) >= L12(cS);
    * B drops T1 ∩ T2 = ∅: w(S) = W1 + w(T2) and w(T2) >= L12'(cS - c1), the same programme over
      the letters not forced into T1 (T2 may use every one of them),

    so V <= (p1 k log k - (k - 1) W1 - w(S)) / D - log D with either bound on w(S)."""

    def __init__(self, search: LightTopCountSearch, fc: int, fw: float, l1, l12):
        m = search.m
        self.s, self.fc, self.fw, self.l12 = search, fc, fw, l12
        self.j = np.flatnonzero(np.isfinite(l1))  # counts of T1 minus the forced letters
        self.c1 = fc + self.j
        self.p1 = self.c1 / m
        self.w1 = fw + l1[self.j]
        lo = max(math.ceil(search.s_min * m) - 1, fc, 0)
        cs = np.arange(lo, m)
        cs = cs[search.E * (cs / m - search.half) >= 1.0]  # k >= 1
        self.cs = cs
        # sliding minima of L12 over _BLOCK consecutive counts, for the block bounds
        pad = np.concatenate([l12, np.full(_BLOCK, np.inf)])
        self.win = np.lib.stride_tricks.sliding_window_view(pad, _BLOCK).min(axis=1)

    def _values(self, cs):
        """V on the counts ``cs`` of S (rows) against every c1 (columns)."""
        s, m = self.s, self.s.m
        sig = (cs / m)[:, None]
        k = s.E * (sig - s.half)
        p1, w1 = self.p1[None, :], self.w1[None, :]
        ib = cs[:, None] - self.c1[None, :]
        ok = ib >= 0
        wa = self.fw + self.l12[cs - self.fc][:, None]
        wb = w1 + self.l12[np.clip(ib, 0, self.l12.size - 1)]
        d = sig + (k - 1.0) * p1
        with np.errstate(invalid="ignore"):
            v = (p1 * k * np.log(k) - (k - 1.0) * w1 - np.maximum(wa, wb)) / d - np.log(d)
        return np.where(ok & np.isfinite(v), v, -np.inf)

    def maximum(self):
        """(max V, its c1 - fc, its cS); -inf when the grid is empty."""
        if self.cs.size == 0 or self.j.size == 0:
            return -math.inf, -1, -1
        s, m = self.s, self.s.m
        starts = self.cs[::_BLOCK]
        ends = np.minimum(starts + _BLOCK - 1, self.cs[-1])
        slo, shi = starts / m, ends / m
        klo, khi = s.E * (slo - s.half), s.E * (shi - s.half)
        p1, w1 = self.p1[None, :], self.w1[None, :]
        # w(S) >= the larger of A's and B's least sums over the block
        wa = self.fw + self.win[starts - self.fc][:, None]
        ib = starts[:, None] - self.c1[None, :]
        wb = np.where(ib >= 0, w1 + self.win[np.clip(ib, 0, None)], -np.inf)
        wmin = np.maximum(wa, wb)
        num = (p1 * (khi * np.log(khi))[:, None]
               - np.where(w1 >= 0, (klo - 1.0)[:, None] * w1, (khi - 1.0)[:, None] * w1) - wmin)
        dlo = slo[:, None] + (klo - 1.0)[:, None] * p1
        dhi = shi[:, None] + (khi - 1.0)[:, None] * p1
        with np.errstate(invalid="ignore"):
            bound = np.where(num >= 0, num / dlo, num / dhi) - np.log(dlo)
        bound = np.where(ib + _BLOCK - 1 >= 0, bound, -np.inf)  # some c1 fits in S
        block_bound = np.nan_to_num(bound, nan=np.inf).max(axis=1)
        order = np.argsort(-block_bound, kind="stable")
        best, arg = -math.inf, (-1, -1)
        for b in order:
            if block_bound[b] <= best:
                break
            cs = np.arange(starts[b], ends[b] + 1)
            v = self._values(cs)
            r, c = np.unravel_index(int(np.argmax(v)), v.shape)
            if v[r, c] > best:
                best, arg = float(v[r, c]), (int(self.j[c]), int(cs[r]))
        return best, arg[0], arg[1]


def light_top_count_search(counts, m, prior, duals, eps, half, *, tol, collect, max_nodes, keep,
                           stop_count=None, target=-math.inf) -> SearchResult:
    """Run :class:`LightTopCountSearch`; ``found`` holds (T1, S) masks."""
    s = LightTopCountSearch(counts, m, prior, duals, eps, half)
    return best_first(s, tol=tol, collect=collect, max_nodes=max_nodes, keep=keep, stop_count=stop_count,
                      target=target)

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
