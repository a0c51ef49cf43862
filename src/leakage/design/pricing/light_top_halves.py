"""Bounds the ball's light-top family by meet in the middle (step 3 of the design loop) before
its branch and bound runs, on a prior that is not a grid.

A bound on the light-top family by meet in the middle over the mass of its set S.

Near s = P(S) = 1/H (k near 1) a light-top column (:mod:`~leakage.design.pricing.light_top`) tends
to the box's uniform column 1_S / P(S), and its value is a subset sum in S alone: with
D(S) = sum_S (P_x log H - w_x) its dual cost is P(S) log H - D(S) plus the top set's share, and a
branch and bound over letters does not close at the duals of a nearly optimal master. This module
bounds the family with S seen whole: the two halves' subsets (``halves``) give the largest D(S) in
a window of s, the top set T1 is relaxed as in the search's cell bound, and windows are split where
the bound still exceeds the goal. It is run once the box search has a bound, before the light-top
branch and bound (``mutual_information._light_top_float``).
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math

import numpy as np

from leakage.design.bnb import SearchResult
from leakage.design.pricing.box_halves import _lagrangian
from leakage.design.pricing.halves import Half, RangeMax, list_halves_above, member, multipliers, window_pairs
from leakage.design.pricing.items import greedy_pieces
from leakage.design.pricing.light_top import _MARGIN, LightTopSearch

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
    mu = _lagrangian(H * it.p, log_h - it.w / it.p)[0]  # the box's chord ratio at cap H, for every pass
    bound, nodes, stuck = goal, 0, False  # the sets left out of the lists are worth at most the goal
    for bits in range(1 << heavy.size):
        fixed = heavy[[(bits >> j) & 1 == 1 for j in range(heavy.size)]]
        pf, df = float(it.p[fixed].sum()), float(dx[fixed].sum())
        if pf >= top_s:
            continue
        given = functools.partial(cells, pf=pf)
        sieve = _Sieve(s, rest, pf, df, mu, goal, given, top_s, slack)
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
    knows that F holds no light letter). For any multiplier nu, with
    D'(X) = sum_X (P (log H - nu) - w), D(S) = df + D'(A | B) + nu (P(S) - pf); on each piece of s
    the cell bound with D(S) at most that (the largest nu s of the piece) is increasing in
    D'(A | B), and a floor on D' (bisection) leaves every set below it at most the goal. The floors
    are set at ``mu``, the box's chord ratio at cap H (``box_halves``), and, when the halves above
    that floor are too many, at quantiles of the letters' ratios too (``halves.multipliers``), and a
    subset must pass every one: one nu bounds sets of every mass alike, several are mass-aware.
    ``top``: the smallest over the multipliers of the largest bound over the pieces at the largest
    D'(A | B), a bound on every such S. The pieces are geometric in s - s0
    (s0 = max(beta/2 + e^-eps, pf); k - 1 = e^eps (s - s_min): the bound changes fastest near
    s_min), each cut in ``FILTER_PARTS``."""

    def __init__(self, s: LightTopSearch, letters, pf: float, df: float, mu: float, goal: float, cells,
                 top_s: float, slack: float):
        it, log_h = s.it, math.log(s.H)
        self.p, self.w, self.log_h = it.p[letters], it.w[letters], log_h
        nu = multipliers(mu, log_h - self.w / self.p)
        self.score = self.p[None, :] * (log_h - nu[:, None]) - self.w[None, :]
        s0 = max(s.s_min, pf)
        geo = s0 + (top_s - s0) * np.exp2(-np.arange(FILTER_LEVELS + 1.0))
        geo = np.append(geo, s0)[::-1]
        edges = np.unique(np.concatenate([np.linspace(a, b, FILTER_PARTS + 1) for a, b in zip(geo[:-1], geo[1:])]))
        lo, hi = edges[:-1], edges[1:]
        shift = df + np.maximum(nu[:, None] * (lo - pf), nu[:, None] * (hi - pf)) + slack
        self.bound = lambda d, k: cells(lo, hi, d + shift[k])
        self.goal, self.slack, self.cap = goal, slack, top_s - pf + 1e-12
        self.top = min(self.bound(float(np.maximum(sc, 0).sum()), k) for k, sc in enumerate(self.score))

    def halves(self):
        """``list_halves_above`` of the letters above the floor at mu, and when those are too many, above
        the floors at every multiplier: at each the largest D'(A | B) at which no piece passes the goal
        (bisection), so that a set with D'(A | B) at most that is worth at most the goal; None when a
        half would be too large."""
        p, w = self.p, self.w
        rows = np.stack([p, p * self.log_h - w])
        floors = [self._floor(0)]
        lists = list_halves_above(p, w, rows, self.score[:1], floors[0] - self.slack, self.cap)
        if lists is not None or self.score.shape[0] == 1:
            return lists
        floors += [self._floor(k) for k in range(1, self.score.shape[0])]
        return list_halves_above(p, w, rows, self.score, np.array(floors) - self.slack, self.cap)

    def _floor(self, k: int) -> float:
        """The floor of D'(A | B) at the k-th multiplier (-inf when the lowest D' passes the goal)."""
        sc = self.score[k]
        d_lo, d_hi = float(np.minimum(sc, 0).sum()), float(np.maximum(sc, 0).sum())
        if self.bound(d_lo, k) > self.goal:
            return -math.inf
        for _ in range(FILTER_STEPS):  # passes at d_hi, not at d_lo
            mid = 0.5 * (d_lo + d_hi)
            d_lo, d_hi = (d_lo, mid) if self.bound(mid, k) > self.goal else (mid, d_hi)
        return d_lo


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
