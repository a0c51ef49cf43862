"""Prices the ball's heavy two-level family by meet in the middle (step 3 of the design loop) when
its branch and bound ran out of nodes on a prior that is not a grid.

Exact pricing over the ball's heavy two-level columns by meet in the middle.

A heavy two-level column (:class:`~leakage.design.pricing.staircase.HeavyTwoLevelSearch`) is low off
S and H (1 + (beta/2) low) on S, s = P(S) in [beta/2, 1/H); its value is F(s) - (high - low) w(S).
With a reference ratio r (log H less the multiplier mu of the box's chord bound at cap H) and the
additive score D(S) = sum_S (r P_x - w_x), w(S) = r s - D(S), so on an interval of s the value is at
most the two-level search's relaxed bound with the linear lower bound alpha + r s, alpha = -D(S): a
function B_j(D) of the piece j of s and of D only, increasing in D. At the duals of a nearly optimal
master only sets with s just below 1/H (where the column becomes a box vertex) can beat the
threshold: a subset sum, which this search answers by meet in the middle
(:mod:`~leakage.design.pricing.halves`) over geometric pieces of 1/H - s, with B_j tabulated on a
grid of D (rounded up: B_j is increasing); a wide window is halved while its parts may still beat
the threshold, each bounded over the pieces its masses meet at its best D. Only the letters
lighter than 1/H are listed: a heavier one never fits in S. And only the subsets that may be part
of a set S with D(S) above the first grid point where some B_j passes ``tau``
(``halves.list_halves_above``): with that r most letters' scores are small and negative near an
optimum, so few subsets pass. Exact above ``tau``.
"""

from __future__ import annotations

import math

import numpy as np

from leakage.design.bnb import SearchResult
from leakage.design.pricing.box_halves import _lagrangian
from leakage.design.pricing.halves import PieceMax, RangeMax, list_halves_above, member, pair_search
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
    # the reference ratio of the box's chord bound at cap H: most scores small and negative near an optimum
    r = math.log(hs.H) - _lagrangian(hs.H * p, math.log(hs.H) - w / p)[0]
    score = r * p - w
    small = np.flatnonzero(p < hs.s_max)  # a letter of mass 1/H or more is never in S
    tol = _MARGIN * (1.0 + abs(tau) + float(np.abs(w).sum()))
    # pieces of s, outermost first: [e_j, e_j+1], e_j = s_max - (s_max - s_min) 2^-j, the last up to s_max
    e = hs.s_max - (hs.s_max - hs.s_min) * np.exp2(-np.arange(PIECES + 1, dtype=float))
    s0, s1 = e, np.append(e[1:], hs.s_max)
    # the range of D(S) over the sets S may be: of the letters that fit only (a heavy letter's large
    # positive score once stretched the grid so far that its first cell already passed tau)
    d_lo = float(np.minimum(score[small], 0).sum())
    d_hi = float(np.maximum(score[small], 0).sum())
    grid = np.linspace(d_lo, d_hi, GRID + 1)
    table = _table(hs, r, s0, s1, grid) + tol  # table[j, g] >= every value on piece j with D <= grid[g]
    reach = np.maximum.accumulate(table, axis=0)
    slack = 1e-15 * (1 + abs(d_lo) + abs(d_hi))

    def cell(d):
        """Grid index at or above each D (its table entry bounds every D up to it)."""
        return np.clip(np.searchsorted(grid, d - slack, side="left"), 0, GRID)

    # a set whose D is at most grid[g - 1], g the first grid point where some piece's bound passes
    # tau, is worth at most tau: only subsets that may still pass it are listed
    g0 = int(np.searchsorted(reach[-1], tau - tol, side="right"))
    floor = grid[g0 - 1] - 2 * slack if g0 > 0 else -math.inf
    if g0 > GRID:
        return SearchResult(float(reach[-1][-1]), [], -math.inf, 0, False)
    lists = list_halves_above(p[small], w[small], np.stack([p, score, w])[:, small], score[small], floor,
                              hs.s_max + 1e-12)
    if lists is None:
        return None
    a, b, code = lists
    (sa, da, wa), (sb, db, wb) = a.sums, b.sums
    if not (sa.size and sb.size):
        return SearchResult(tau + tol, [], -math.inf, 0, False)

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
    rm = RangeMax(db)
    ub_a = np.where(alive, reach[-1][cell(da + rm.query(lo, hi))], -np.inf)
    pieces = PieceMax(table)

    def piece(s):
        gap = hs.s_max - s
        with np.errstate(divide="ignore", invalid="ignore"):
            j = np.floor(np.log2((hs.s_max - hs.s_min) / np.where(gap > 0, gap, 1.0)))
        j = np.where(gap > 0, np.clip(j, 0, PIECES), PIECES).astype(np.int64)
        j = np.where((j > 0) & (s < s0[j]), j - 1, j)  # rounding of log2 at the edges
        return np.where((j < PIECES) & (s >= s1[j]), j + 1, j)

    def refine(ia, l, h):  # B in [l, h): the pieces their masses meet, at A's D plus their best D
        first, last = (piece(np.clip(sa[ia] + sb[k], hs.s_min, hs.s_max)) for k in (l, h - 1))
        return pieces.query(first, last, cell(da[ia] + rm.query(l, h)))

    def pair_bound(ia, ib):
        s = sa[ia] + sb[ib]
        ok = (s >= hs.s_min - 1e-12) & (s < hs.s_max + 1e-12)
        return np.where(ok, table[piece(np.clip(s, hs.s_min, hs.s_max)), cell(da[ia] + db[ib])], -np.inf)

    def exact(ia, ib, masks):
        full = np.full(ia.size, small.size == p.size)  # S holds every letter: no column
        for c in code.tolist() if small.size == p.size else ():
            full &= member(masks, c)
        val = hs.values(sa[ia] + sb[ib], wa[ia] + wb[ib], full)
        return val, np.zeros(val.size, np.int64)

    res = pair_search(a, b, lo, hi, ub_a, pair_bound, exact, refine, tau=tau, keep=keep, tol=tol)
    found = []
    for v, mk in zip(res.values.tolist(), res.masks):
        if v > collect and len(found) < keep:
            top = np.zeros(p.size, bool)
            top[small] = [bool(member(mk[None, :], c)[0]) for c in code.tolist()]
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
