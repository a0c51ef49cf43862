"""Prices every vertex family exactly when the prior is a grid of counts (step 3 of the design
loop; the count programmes of docs/design-engine.md).

Exact pricing by dynamic programming over integer counts, for empirical priors.

An empirical prior P̂ = n / m (counts n_x of m records, [empirical-pml, eq. (13)]) has every set's
mass an integer multiple of 1/m. Every vertex family of the pricing depends on a set S only
through its mass and its dual sum w(S), decreasing in w(S) at fixed mass, so the knapsack
"least w(S) among the sets of count c", for every c = 0..m, is exact by a dynamic programme over
the counts (O(N m) time, an N x (m + 1) table of choices to rebuild the sets) [the classical
0/1 knapsack by exact weight]. On it:

* two-level columns (staircases, heavy two-level columns): one programme over all letters, the
  value of every count in closed form;
* lift vectors of a box (cap C: the known prior with C = e^eps, the ball's columns with minimum 0
  and a heavy top with C = H): for every letter f that takes the fractional level, the programme
  over the other letters, all N by divide and conquer in O(N log N m);
* light-top three-level columns: every top set T1 among the letters lighter than beta/2 with
  P(T1) < beta/2 is enumerated (at most ``MAX_TOP_SETS``, and no more than ``MAX_TABLE_WORK``
  letter-counts of programmes), and for each one
  programme over the other letters gives the least w(S minus T1) for every count of S.

The maxima are exact (no relaxation, no tolerance), so with ``find`` as without, these searches
return the family's maximum as their bound. With too many top sets the light-top columns are
searched by :mod:`~leakage.design.pricing.light_top_counts` (a branch and bound over these
programmes); for a prior that is not a grid the branch-and-bound searches of the other modules run.
"""

from __future__ import annotations

import math

import numpy as np

from leakage.design.bnb import SearchResult

#: largest denominator m looked for; the most light-top sets T1 enumerated, and the most
#: letter-counts (sets x N x (m + 1)) their programmes may take, about a second
MAX_DENOMINATOR = 1_000_000
MAX_TOP_SETS = 4096
MAX_TABLE_WORK = 200_000_000
_MARGIN = 1e-12


def grid_counts(prior) -> tuple[np.ndarray, int] | None:
    """(counts n, m) with prior = n / m exactly (to 1e-12 relative), the smallest such m up to
    ``MAX_DENOMINATOR``; None when the prior is not such a grid. The smallest mass is k / m for a
    small integer k, so m is searched among k / min(prior), k = 1, 2, ..."""
    p = np.asarray(prior, dtype=float)
    pmin = float(p.min())
    for k in range(1, 10_001):
        m = round(k / pmin)
        if m > MAX_DENOMINATOR:
            return None
        n = np.rint(p * m)
        if np.all(n >= 1) and np.all(np.abs(n / m - p) <= 1e-12 * np.maximum(p, 1e-300)) and n.sum() == m:
            return n.astype(np.int64), int(m)
    return None


def least_weight_by_count(counts, duals, letters, m: int):
    """For every count c = 0..m, the least sum of ``duals`` over subsets of ``letters`` (indices) whose
    counts sum to c (inf where none does), and the table of choices to rebuild them."""
    dp = np.full(m + 1, np.inf)
    dp[0] = 0.0
    take = np.zeros((len(letters), m + 1), bool)
    for i, x in enumerate(letters):
        if int(counts[x]) <= m:
            dp, take[i] = _add_letter(dp, int(counts[x]), float(duals[x]))
    return dp, take


def rebuild(take, counts, letters, c: int, n_letters: int) -> np.ndarray:
    """The subset (a mask over all letters) the programme chose for count c."""
    mask = np.zeros(n_letters, bool)
    for i in range(len(letters) - 1, -1, -1):
        if take[i, c]:
            mask[letters[i]] = True
            c -= int(counts[letters[i]])
    return mask


def _result(values, rebuild_at, keep: int, collect: float) -> SearchResult:
    """The search result of an exact table of values: bound = max, the best ``keep`` above collect."""
    finite = np.isfinite(values)
    if not finite.any():
        return SearchResult(-math.inf, [], -math.inf, 0, False)
    best = float(values[finite].max())
    masked = np.where(finite, values, -np.inf)
    top = np.argpartition(-masked, keep - 1)[:keep] if 0 < keep < masked.size else np.arange(masked.size)[:keep]
    order = top[np.argsort(-masked[top], kind="stable")]
    found = [rebuild_at(int(i)) for i in order if finite[i] and values[i] > collect]
    return SearchResult(best + _MARGIN * (1.0 + abs(best)), found, best, int(finite.sum()), False)


def two_level_table(counts, m, duals, levels, s_range, keep, collect) -> SearchResult:
    """Two-level columns low(s) off S, high(s) on S over every count of S with s = c/m in
    ``s_range`` (half-open [lo, hi)); ``levels(s) -> (low, high)`` vectorised. ``found``: masks."""
    n = counts.size
    letters = np.arange(n)
    dp, take = least_weight_by_count(counts, duals, letters, m)
    c = np.arange(m + 1)
    s = c / m
    ok = np.isfinite(dp) & (c > 0) & (c < m) & (s >= s_range[0]) & (s < s_range[1])
    lo, hi = levels(np.where(ok, s, 0.5))
    W = float(np.sum(duals))
    with np.errstate(divide="ignore", invalid="ignore"):
        xl = np.where(lo > 0, lo * np.log(np.where(lo > 0, lo, 1.0)), 0.0)
        val = (1.0 - s) * xl + s * hi * np.log(hi) - lo * W - (hi - lo) * dp
    val = np.where(ok, val, -np.inf)
    return _result(val, lambda i: rebuild(take, counts, letters, i, n), keep, collect)


def _add_letter(dp, n_x: int, w_x: float):
    """One step of the programme: the table with letter x (count n_x, dual w_x) allowed, and where it
    is taken."""
    cand = np.full(dp.size, np.inf)
    if n_x < dp.size:
        cand[n_x:] = dp[: dp.size - n_x] + w_x
    better = cand < dp
    return np.where(better, cand, dp), better


def least_weight_without_each(counts, duals, m: int):
    """For every letter f, the table of least dual sums by count c = 0..m (m may be below the total:
    the table is then truncated) over the subsets of the other letters,
    with the steps that rebuild them: divide and conquer over the letters (each half is added to the
    table before recursing into the other), O(N log N m) instead of N separate programmes' O(N^2 m).
    Returns a list over f of (table, steps), steps a list of (letter, taken) in the order added."""
    n = counts.size
    out = [None] * n
    start = np.full(m + 1, np.inf)
    start[0] = 0.0

    def solve(lo, hi, dp, steps):
        if hi - lo == 1:
            out[lo] = (dp, steps)
            return
        mid = (lo + hi) // 2
        for a, b, c, d in ((lo, mid, mid, hi), (mid, hi, lo, mid)):
            table, added = dp, list(steps)
            for x in range(c, d):  # the other half's letters go in
                table, taken = _add_letter(table, int(counts[x]), float(duals[x]))
                added.append((x, taken))
            solve(a, b, table, added)

    solve(0, n, start, [])
    return out


def _rebuild_steps(steps, counts, c: int, n_letters: int) -> np.ndarray:
    mask = np.zeros(n_letters, bool)
    for x, taken in reversed(steps):
        if taken[c]:
            mask[x] = True
            c -= int(counts[x])
    return mask


def box_table(counts, m, prior, duals, cap, keep, collect) -> SearchResult:
    """Lift vectors of {0 <= v <= cap, P.v = 1}: T at cap, one letter f fractional, the rest 0
    (``least_weight_without_each``). ``found``: columns."""
    n = counts.size
    logc = math.log(cap)
    top = min(m, math.floor(m / cap * (1 + 1e-12)))  # cap * P(T) <= 1: larger counts never take T
    c = np.arange(top + 1)
    without = least_weight_without_each(counts, duals, top) if n > 1 else [(np.r_[0.0, np.full(top, np.inf)], [])]
    vals, where = [], []  # per letter f: its window of counts, where its level lies in [0, cap]
    for f in range(n):
        lo = max(0, math.ceil((1.0 - cap * prior[f]) * m / cap * (1 - 1e-12)) - 1)
        cw = c[lo:]
        dp = without[f][0][lo:]
        r = (1.0 - cap * cw / m) / prior[f]  # the level of f
        ok = np.isfinite(dp) & (r >= 0.0) & (r <= cap)
        with np.errstate(divide="ignore", invalid="ignore"):
            term = np.where(r > 0, prior[f] * r * np.log(np.where(r > 0, r, 1.0)), 0.0) - duals[f] * r
            val = cap * (cw / m) * logc - cap * dp + term
        vals.append(np.where(ok, val, -np.inf))
        where.append(np.stack([np.full(cw.size, f), cw, ]))
    table = np.concatenate(vals)
    index = np.concatenate(where, axis=1)

    def make(i):
        f, ci = (int(v) for v in index[:, i])
        col = np.where(_rebuild_steps(without[f][1], counts, ci, n), cap, 0.0)
        col[f] = min(max((1.0 - cap * ci / m) / prior[f], 0.0), cap)
        return col

    return _result(table, make, keep, collect)


def light_top_table(counts, m, prior, duals, eps, half, keep, collect) -> SearchResult | None:
    """Light-top three-level columns (``leakage.design.vertices.light_top_column``) exactly, by
    enumerating the top sets T1 (letters lighter than beta/2, P(T1) < beta/2) and, for each, a
    programme over the other letters for S minus T1. None when there are more than
    ``MAX_TOP_SETS`` top sets or their programmes would exceed ``MAX_TABLE_WORK``.
    ``found``: (T1, S) masks over the letters.

    The programmes of all top sets run at once, one row each (:func:`_least_weight_by_rows`, in
    blocks of ``_ROWS_CELLS`` entries), and only the sets the result lists are rebuilt, each by its
    own programme: the same sums in the same order as one programme per set, hence the same values,
    without a Python loop over the sets."""
    n = counts.size
    E = math.exp(eps)
    light = np.flatnonzero(prior < half)
    c1_max = math.ceil(half * m) - 1  # P(T1) < half
    tops = _subsets_below(counts, light, c1_max, min(MAX_TOP_SETS, MAX_TABLE_WORK // (n * (m + 1))))
    if tops is None:
        return None
    masks = np.array(tops)
    c1 = masks.astype(np.int64) @ counts.astype(np.int64)
    w1 = np.array([float(duals[t].sum()) for t in tops])
    j = np.arange(m + 1)  # count of S minus T1
    s_min = half + 1.0 / E
    best = -math.inf
    cand_v, cand_i = np.zeros(0), np.zeros(0, np.int64)  # the best ``keep`` (value, row * (m + 1) + j) so far
    step = max(1, _ROWS_CELLS // (m + 1))
    for lo in range(0, len(tops), step):
        rows = slice(lo, lo + step)
        dp = _least_weight_by_rows(counts, duals, ~masks[rows], m)
        # the counts of S minus T1 where some set of the block may have sig >= s_min and S < all
        first = max(0, math.floor(s_min * m) - int(c1[rows].max()) - 1)
        last = m - int(c1[rows].min())
        if last <= first:
            continue
        jj = j[first:last]
        dp = dp[:, first:last]
        cs = c1[rows, None] + jj[None, :]  # count of S
        sig = cs / m
        p1 = (c1[rows] / m)[:, None]
        k = E * (sig - half)
        ok = np.isfinite(dp) & (sig >= s_min) & (cs < m) & (p1 < half)
        with np.errstate(divide="ignore", invalid="ignore"):
            kk = np.where(ok, k, 1.0)
            d = sig + (kk - 1.0) * p1
            wr = w1[rows, None]
            val = (p1 * kk * np.log(kk) - (kk - 1.0) * wr - (wr + dp)) / d - np.log(d)
        val = np.where(ok, val, -np.inf)
        if np.isfinite(val).any():
            best = max(best, float(val.max()))
        flat = np.flatnonzero(np.isfinite(val) & (val > collect))
        if keep > 0 and flat.size:
            v = val.ravel()[flat]
            if flat.size > keep:  # every entry tied with the keep-th largest stays: ties go by position
                sel = v >= np.partition(v, flat.size - keep)[flat.size - keep]
                flat, v = flat[sel], v[sel]
            row, col = np.divmod(flat, jj.size)
            cand_v = np.concatenate([cand_v, v])
            cand_i = np.concatenate([cand_i, (lo + row) * (m + 1) + first + col])
            order = np.lexsort((cand_i, -cand_v))[:keep]
            cand_v, cand_i = cand_v[order], cand_i[order]
    if best == -math.inf:
        return SearchResult(-math.inf, [], -math.inf, len(tops), False)
    found = []
    for i in cand_i.tolist():
        t1 = masks[i // (m + 1)]
        others = np.flatnonzero(~t1)
        _, take = least_weight_by_count(counts, duals, others, m - int(counts[t1].sum()))
        found.append((t1, t1 | rebuild(take, counts, others, i % (m + 1), n)))
    return SearchResult(best + _MARGIN * (1.0 + abs(best)), found, best, len(tops), False)


#: table entries (top sets x counts) of one block of :func:`light_top_table`'s programmes
_ROWS_CELLS = 1 << 21


def _least_weight_by_rows(counts, duals, allowed, m: int) -> np.ndarray:
    """:func:`least_weight_by_count` for several letter sets at once, without the choices: row i
    holds the least dual sums by count c = 0..m over the subsets of the letters ``allowed[i]``
    (a mask over the letters), each letter added in index order as there (the same sums)."""
    dp = np.full((allowed.shape[0], m + 1), np.inf)
    dp[:, 0] = 0.0
    for x in range(counts.size):
        n_x = int(counts[x])
        if n_x > m or not allowed[:, x].any():
            continue
        # a row without the letter adds inf: it keeps its table (the least of two sums is the one
        # the single programme's strict comparison keeps, whichever it is when they tie)
        cand = dp[:, : m + 1 - n_x] + np.where(allowed[:, x], duals[x], np.inf)[:, None]
        np.minimum(dp[:, n_x:], cand, out=dp[:, n_x:])
    return dp


def _subsets_below(counts, letters, c_max, limit):
    """Every subset of ``letters`` (as masks over all letters) whose counts sum to at most c_max;
    None when there are more than ``limit``."""
    n = counts.size
    out = [np.zeros(n, bool)]
    sums = [0]
    for x in letters:
        new, new_sums = [], []
        for mask, s in zip(out, sums):
            t = s + int(counts[x])
            if t <= c_max:
                mk = mask.copy()
                mk[x] = True
                new.append(mk)
                new_sums.append(t)
        out += new
        sums += new_sums
        if len(out) > limit:
            return None
    return out


#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
