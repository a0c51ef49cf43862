"""Exact pricing over the ball's heavy two-level columns by meet in the middle.

A heavy two-level column (:class:`~leakage.design.pricing.staircase.HeavyTwoLevelSearch`) is low
off S and H (1 + (beta/2) low) on S, s = P(S) in [beta/2, 1/H); its value is
F(s) - (high - low) w(S). With a reference ratio r (here log H) and the additive score
D(S) = sum_S (r P_x - w_x), w(S) = r s - D(S), so on an interval of s the value is at most the
two-level search's relaxed bound with the linear lower bound alpha + r s, alpha = -D(S): a
function B_j(D) of the piece j of s and of D only, increasing in D. At the duals of a nearly
optimal master only sets with s just below 1/H (where the column becomes a box vertex) can beat
the threshold: a subset sum, which this search answers by meet in the middle
(:mod:`~leakage.design.pricing.halves`) over geometric pieces of 1/H - s, with B_j tabulated on a
grid of D (rounded up: B_j is increasing). Only the letters lighter than 1/H are listed: a heavier
one never fits in S. Exact above ``tau``.
"""

from __future__ import annotations

import math

import numpy as np

from leakage.design.bnb import SearchResult
from leakage.design.pricing.halves import RangeMax, bits_of, list_halves, pair_search
from leakage.design.pricing.staircase import HeavyTwoLevelSearch

#: geometric pieces of 1/H - s, and points of the grid of D
PIECES = 64
GRID = 512
_MARGIN = 1e-12


def heavy_halves(prior, duals, eps: float, half: float, *, tau: float, keep: int, collect: float) -> SearchResult | None:
    """Heavy two-level pricing at the duals, exact above ``tau`` (see the module docstring); ``found``:
    high sets (bool masks over the letters) worth more than ``collect``, best first. None when a half
    would list more than ``MAX_HALF`` subsets."""
    p = np.asarray(prior, dtype=float)
    w = np.asarray(duals, dtype=float)
    if not math.isfinite(tau):
        return None
    hs = HeavyTwoLevelSearch(p, w, eps, half)
    if hs.s_min >= hs.s_max:
        return SearchResult(-math.inf, [], -math.inf, 0, False)
    r = math.log(hs.H)
    score = r * p - w
    small = np.flatnonzero(p < hs.s_max)  # a letter of mass 1/H or more is never in S
    lists = list_halves(p[small], w[small], np.stack([p, score, w])[:, small])
    if lists is None:
        return None
    a, b = lists
    (sa, da, wa), (sb, db, wb) = a.sums, b.sums
    tol = _MARGIN * (1.0 + abs(tau) + float(np.abs(w).sum()))
    # pieces of s, outermost first: [e_j, e_j+1], e_j = s_max - (s_max - s_min) 2^-j, the last up to s_max
    e = hs.s_max - (hs.s_max - hs.s_min) * np.exp2(-np.arange(PIECES + 1, dtype=float))
    s0, s1 = e, np.append(e[1:], hs.s_max)
    d_lo = float(np.minimum(score, 0).sum())
    d_hi = float(np.maximum(score, 0).sum())
    grid = np.linspace(d_lo, d_hi, GRID + 1)
    table = _table(hs, r, s0, s1, grid) + tol  # table[j, g] >= every value on piece j with D <= grid[g]
    reach = np.maximum.accumulate(table, axis=0)

    def cell(d):
        """Grid index at or above each D (its table entry bounds every D up to it)."""
        return np.clip(np.searchsorted(grid, d - 1e-15 * (1 + abs(d_lo) + abs(d_hi)), side="left"), 0, GRID)

    # windows: the outermost piece A may reach with its D plus the best D of the other half
    g_a = cell(da + float(db.max()))
    j_a = np.full(sa.size, PIECES + 1)
    for g in np.unique(g_a).tolist():
        sel = g_a == g
        j_a[sel] = np.searchsorted(reach[:, g], tau - tol, side="right")
    alive = j_a <= PIECES
    start = np.where(alive, e[np.minimum(j_a, PIECES)], hs.s_max)
    lo = np.searchsorted(sb, start - sa - 1e-12, side="left")
    hi = np.searchsorted(sb, hs.s_max - sa + 1e-12, side="right")
    ub_a = np.where(alive, reach[-1][cell(da + RangeMax(db).query(lo, hi))], -np.inf)

    def piece(s):
        gap = hs.s_max - s
        with np.errstate(divide="ignore", invalid="ignore"):
            j = np.floor(np.log2((hs.s_max - hs.s_min) / np.where(gap > 0, gap, 1.0)))
        j = np.where(gap > 0, np.clip(j, 0, PIECES), PIECES).astype(np.int64)
        j = np.where((j > 0) & (s < s0[j]), j - 1, j)  # rounding of log2 at the edges
        return np.where((j < PIECES) & (s >= s1[j]), j + 1, j)

    def pair_bound(ia, ib):
        s = sa[ia] + sb[ib]
        ok = (s >= hs.s_min - 1e-12) & (s < hs.s_max + 1e-12)
        return np.where(ok, table[piece(np.clip(s, hs.s_min, hs.s_max)), cell(da[ia] + db[ib])], -np.inf)

    every = (np.uint64(1) << np.uint64(small.size)) - np.uint64(1)

    def exact(ia, ib, masks):
        full = (masks == every) & (small.size == p.size)  # S holds every letter: no column
        val = hs.values(sa[ia] + sb[ib], wa[ia] + wb[ib], full)
        return val, np.zeros(val.size, np.int64)

    res = pair_search(a, b, lo, hi, ub_a, pair_bound, exact, tau=tau, keep=keep, tol=tol)
    found = []
    for v, mk in zip(res.values.tolist(), res.masks):
        if v > collect and len(found) < keep:
            top = np.zeros(p.size, bool)
            top[small[bits_of(mk, small.size)]] = True
            found.append(top)
    best = float(res.values[0]) if res.values.size else -math.inf
    return SearchResult(res.bound, found, best, res.pairs, res.exhausted)


def _table(hs: HeavyTwoLevelSearch, r: float, s0, s1, grid):
    """B_j(D) for every piece j (rows) and grid point D (columns): the two-level search's bound on
    the piece with w(S) >= r s - D (in l = low(s), decreasing: the interval [low(s1), low(s0)])."""
    la, lb = hs.low(s1), hs.low(s0)
    rows, cols = np.meshgrid(np.arange(s0.size), np.arange(grid.size), indexing="ij")
    alpha = -grid[cols].ravel()
    c1 = r - hs.W + alpha * hs.kappa
    c0 = -alpha * hs.H - r
    g, _ = hs.piece_max(la[rows].ravel(), lb[rows].ravel(), c1, c0)
    return g.reshape(rows.shape)


#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
