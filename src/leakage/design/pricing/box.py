"""Prices the box family (the cap on a set, one fractional letter, 0 elsewhere) in step 3 of the
design loop: the known prior (cap e^eps) and the ball's columns with minimum 0 (cap H).

Exact MI pricing over a box: max { sum_x P_x r_x log r_x - w_x r_x : 0 <= r <= cap, P.r = 1 }.

This is the pricing of the known prior (cap = e^eps, [saeidian-optimal-pml, Thm 6]: the vertices
are lift vectors) and, with cap = H = e^eps / (1 + e^eps beta/2), of the ball's columns whose
minimum is 0 and whose top set is heavy (the box {0 <= v <= H} lies in the ball cone).

Spatial branch and bound: a node bounds every coordinate to an interval [lo_x, hi_x] and replaces
each convex term by its chord on that interval (its concave envelope), which turns the node into a
fractional knapsack (greedy by chord slope / P_x, no LP). The relaxation's point is itself a
feasible column, whose exact value is the incumbent candidate; only its one fractional
coordinate has a gap, and the node is split there. Letters of equal mass are taken in the order
of their duals (``pricing.items``): a split of one member bounds the later members from above and
the earlier ones from below, which removes symmetric subtrees. Node work O(N log N).
"""

from __future__ import annotations

import math

import numpy as np

from leakage.design.bnb import Evaluation, SearchResult, best_first
from leakage.design.cone import xlogx

_MARGIN = 1e-12


class BoxSearch:
    """State: (lo, hi, hlo, hhi): coordinate bounds and the terms at them. Payload: the column."""

    def __init__(self, prior, duals, cap: float):
        self.p = np.asarray(prior, dtype=float)
        self.w = np.asarray(duals, dtype=float)
        self.cap = float(cap)
        n = self.p.size
        self.pl, self.wl = self.p.tolist(), self.w.tolist()
        # chains of equal masses in the order of their duals
        self.prev = np.full(n, -1)
        self.next = np.full(n, -1)
        last = {}
        for i in np.lexsort((np.arange(n), self.w, self.p)).tolist():
            key = self.pl[i]
            if key in last:
                self.prev[i] = last[key]
                self.next[last[key]] = i
            last[key] = i

    def term(self, r):
        return self.p * xlogx(r) - self.w * r

    def term1(self, i, x):
        return self.pl[i] * x * math.log(x) - self.wl[i] * x if x > 0 else -self.wl[i] * x

    def root(self):
        n = self.p.size
        lo, hi = np.zeros(n), np.full(n, self.cap)
        return lo, hi, self.term(lo), self.term(hi)

    def evaluate(self, state, incumbent):
        lo, hi, hlo, hhi = state
        p = self.p
        if np.any(lo > hi):  # a group's order contradicts the bounds: no member here
            return None
        rem = 1.0 - float(p @ lo)
        width = hi - lo
        capm = p * width
        if rem < -1e-14 or rem > float(capm.sum()) + 1e-14:
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
        if k < p.size:
            f = int(order[k])
            r[f] = min(hi[f], lo[f] + (rem - (float(cum[k - 1]) if k else 0.0)) / p[f])
            hr[f] = self.term1(f, float(r[f]))
            if lo[f] < r[f] < hi[f]:
                frac = f
        ub = float(hlo.sum() + (slope * (r - lo)).sum())
        val = float(hr.sum())
        ub = max(ub, val) + _MARGIN * (1.0 + abs(ub))
        found = ((val, r),)
        if frac < 0:
            return Evaluation(ub, found)
        a, b, x = lo[frac], hi[frac], r[frac]
        split = x if (a + 0.1 * (b - a) < x < b - 0.1 * (b - a)) else 0.5 * (a + b)
        hsplit = self.term1(frac, float(split))
        return Evaluation(ub, found, ([self._child(state, frac, split, hsplit, upper=True),
                                       self._child(state, frac, split, hsplit, upper=False)],))

    def _child(self, state, i, x, hx, *, upper: bool):
        """Coordinate i bounded above (upper) or below by x; later (earlier) members of its mass
        group bounded the same way (their levels do not exceed / fall below i's)."""
        lo, hi, hlo, hhi = (a.copy() for a in state)
        chain = self.next if upper else self.prev
        j = i
        while j >= 0:
            if upper and hi[j] > x:
                hi[j] = x
                hhi[j] = hx if self.pl[j] == self.pl[i] and self.wl[j] == self.wl[i] else self.term1(j, x)
            elif not upper and lo[j] < x:
                lo[j] = x
                hlo[j] = hx if self.pl[j] == self.pl[i] and self.wl[j] == self.wl[i] else self.term1(j, x)
            j = chain[j]
        return lo, hi, hlo, hhi


def box_search(prior, duals, cap, *, tol, collect, max_nodes, keep, stop_count=None, target=-math.inf,
               resume=None) -> SearchResult:
    """Run :class:`BoxSearch`, or go on from the ``resume`` frontier of an exhausted run at the same
    duals (``bnb``); ``found`` holds columns (P.r = 1, in the box)."""
    s = resume.search if resume is not None else BoxSearch(prior, duals, cap)
    return best_first(s, tol=tol, collect=collect, max_nodes=max_nodes, keep=keep, stop_count=stop_count, target=target,
                      resume=resume)

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
