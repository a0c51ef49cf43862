"""The meet in the middle of the design loop's pricing (step 3), shared by the box, heavy
two-level and light-top families on priors that are not a grid.

Meet in the middle over the letters: the skeleton shared by the exact subset-sum pricings.

Some pricing families are, at the duals of a nearly optimal master, subset sums: the value of a
set S depends on its mass and on an additive score, and only sets whose mass lies in a thin window
(a box filled almost exactly, a two-level column's top set just below 1/H) can beat the threshold.
A branch and bound over letters then needs a number of nodes that grows with the precision asked
for. Meet in the middle [horowitz-sahni] lists instead every subset of each half of the letters
with its sums (letters of equal mass as a block: only the block's prefixes in a given order, which
the other subsets of the block never beat), sorts one half by mass, and pairs each subset A of the
other half with the window of B whose total mass may still beat the threshold; a block maximum of
B's scores over the window bounds A, and the pairs left are bounded by the family's own rule and
the survivors evaluated exactly. :func:`list_halves_above` lists instead only the subsets that may
still be part of a set above the threshold (an additive score bounds the value; several scores,
one per multiplier of the mass constraint, bound it together: :func:`multipliers`), and so reaches
past 63 letters (masks of two words) where the subsets that matter are few. With one score, a
count from below (:func:`_more_than`) tells before listing when a half would keep too many.

:func:`pair_search` takes the subsets A by their bound, best first, and raises the threshold to
the ``keep``-th best value met, so it stops where A's bound falls below it: the maximum is exact
when it exceeds ``tau``, and the bound is at most ``tau`` otherwise. A wide window is halved, and
each half bounded by the family's bound over its mass interval and its best B, until what is left
is narrow (``LEAF``): the pairs examined are those of the parts that may still beat the threshold,
not every pair of a window whose bound one part holds up (near an optimum most of a window's
subsets B are far from its best, and its mass interval spans pieces where the family is low).
Counted budgets (deterministic): a half with more than ``MAX_HALF`` subsets is not listed
(:func:`list_halves` returns None); past ``MAX_PAIRS`` pairs, or ``MAX_PARTS`` parts held, the
search stops with the largest bound of the parts and windows not yet taken (``exhausted``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: most subsets listed for one half, and most pairs (A, B) examined by one search
MAX_HALF = 1 << 22
MAX_PAIRS = 10_000_000
_BLOCK = 16
_CHUNK = 1 << 21


@dataclass(frozen=True)
class Half:
    """Every subset of one half: ``sums`` (k x count, the additive quantities, row 0 the mass the
    other half is sorted by) and ``masks`` (uint64 bit masks over the letters)."""

    sums: np.ndarray
    masks: np.ndarray


def list_halves(mass, order_key, rows) -> tuple[Half, Half] | None:
    """The two halves' subsets, the second sorted by its first row; letters of equal ``mass`` as
    blocks of prefixes in increasing ``order_key``; ``rows`` (k x N) the quantities summed.
    None past 63 letters or ``MAX_HALF`` subsets of a half."""
    n = mass.size
    if n > 63:
        return None
    blocks = {}
    for x in np.lexsort((np.arange(n), order_key, mass)).tolist():
        blocks.setdefault(float(mass[x]), []).append(x)
    halves, size = ([], []), [1, 1]
    for blk in sorted(blocks.values(), key=lambda b: (-len(b), b[0])):
        h = 0 if size[0] <= size[1] else 1
        halves[h].append(blk)
        size[h] *= len(blk) + 1
        if size[h] > MAX_HALF:
            return None
    a, b = (_list(h, rows) for h in halves)
    order = np.argsort(b.sums[0], kind="stable")
    return a, Half(b.sums[:, order], b.masks[order])


def list_halves_above(mass, order_key, rows, gain, floor, cap: float):
    """The two halves' subsets that may still be part of a set S with gain(S) > ``floor`` and
    mass(S) <= ``cap`` (``gain`` additive over the letters, ``rows[0]`` the mass): a subset A of one
    half is kept when mass(A) <= cap and gain(A) plus the other half's positive gains exceeds the
    floor. ``gain`` may be several rows (k x N) with one floor each: A is then kept only when every
    row passes (each row a bound of its own, as the Lagrangian bounds of one value at several
    multipliers: one row alone keeps what any other row drops). Letters of equal ``mass`` as blocks
    of prefixes in increasing ``order_key`` (as in :func:`list_halves`), the blocks dealt to the
    halves alternately by mass. The listing prunes as it goes (letters by decreasing gain of the
    first row, a partial subset dropped once the positive gains left cannot lift it over its
    floor), so its cost follows the subsets kept, not 2^(N/2). Masks are two uint64 words, word h
    over half h's letters. Returns (first half, second half sorted by mass, each letter's bit code
    64 h + position), or None past 64 letters or ``MAX_HALF`` subsets a half."""
    gain = np.atleast_2d(np.asarray(gain, dtype=float))
    floor = np.broadcast_to(np.asarray(floor, dtype=float), gain.shape[:1])
    n = mass.size
    blocks = {}
    for x in np.lexsort((np.arange(n), order_key, mass)).tolist():
        blocks.setdefault(float(mass[x]), []).append(x)
    dealt = ([], [])
    for i, blk in enumerate(sorted(blocks.values(), key=lambda b: (-float(mass[b[0]]), b[0]))):
        dealt[i % 2].append(blk)
    if max(sum(len(b) for b in d) for d in dealt) > 64:
        return None
    code = np.zeros(n, np.int64)
    for h, d in enumerate(dealt):
        pos = np.concatenate([np.asarray(b) for b in d]) if d else np.zeros(0, np.int64)
        code[pos] = 64 * h + np.arange(pos.size)
    up = [sum((np.maximum(_best_prefix(gain, b), 0.0) for b in d), np.zeros(gain.shape[0])) for d in dealt]
    if gain.shape[0] == 1 and any(_more_than(d, mass, gain[0], float(floor[0] - up[1 - h][0]), cap, MAX_HALF)
                                  for h, d in enumerate(dealt)):
        return None  # a half would keep too many: known before listing it (a failed listing costs seconds)
    out = []
    for h, d in enumerate(dealt):
        got = _list_above(d, rows, gain, code, floor - up[1 - h], cap)
        if got is None:
            return None
        out.append(got)
    a, b = out
    order = np.argsort(b.sums[0], kind="stable")
    return a, Half(b.sums[:, order], b.masks[order]), code


def multipliers(mu: float, ratios) -> np.ndarray:
    """The multipliers at which a filter of :func:`list_halves_above` bounds the sets: ``mu`` (the
    chord multiplier, first: it orders the listing) and ``RATIOS`` quantiles of the letters'
    ``ratios`` (both ends included). A subset must pass the bound at each, which together are
    mass-aware as a Lagrangian bound of the mass constraint is: a large multiplier makes heavy sets
    pay for their mass, a small one light sets for the mass they still need. Where the duals make
    every letter's term about the same, not proportional to its mass (a nearly flat prior near the
    optimum), the bound at mu alone keeps every set of many light letters."""
    ratios = np.asarray(ratios, dtype=float)
    extra = np.quantile(ratios, np.linspace(0.0, 1.0, RATIOS)) if ratios.size else np.zeros(0)
    return np.concatenate([[mu], extra])


#: the quantiles of the letters' ratios at which :func:`multipliers` bounds the sets, beside mu
RATIOS = 5


def _more_than(blocks, mass, gain, floor: float, cap: float, limit: int) -> bool:
    """Whether more than ``limit`` subsets A of the ``blocks`` (each as one of its prefixes) have
    gain(A) > ``floor`` and mass(A) <= ``cap``, the subsets :func:`_list_above` keeps with one row of
    gains -- decided from below only: True means surely more, False perhaps not. A count by dynamic
    programme over (gain, mass) on grids of ``COUNT_GRID`` x ``COUNT_MASS`` cells, each prefix's gain
    rounded down and its mass up, so that every set counted is one the listing keeps; states that
    fall off the grid are dropped, which only lowers the count."""
    if math.prod(len(b) + 1 for b in blocks) <= limit:  # not even every subset is more
        return False
    pos = sum(max(float(_best_prefix(gain[None, :], b)[0]), 0.0) for b in blocks)
    if not (math.isfinite(floor) and pos > floor and cap > 0):
        return False
    unit = (pos - floor) / COUNT_GRID
    base = min(math.floor(floor / unit) - COUNT_GRID, 0)  # gain cells from base (partial sums may dip below floor)
    top = math.ceil(pos / unit)
    if top - base > 4 * COUNT_GRID:
        return False
    munit = cap / COUNT_MASS
    table = np.zeros((top - base + 1, COUNT_MASS + 1))
    table[-base, 0] = 1.0
    for blk in blocks:
        g = np.cumsum(gain[blk]) / unit
        cg = np.floor(g - 1e-9 * (1.0 + np.abs(g))).astype(np.int64)  # down, past rounding
        cm = np.ceil(np.arange(1, len(blk) + 1) * float(mass[blk[0]]) / munit * (1.0 + 1e-9)).astype(np.int64)
        new = table.copy()
        for dg, dm in zip(cg.tolist(), cm.tolist()):
            if dm > COUNT_MASS:
                break
            g0, g1 = max(0, -dg), min(table.shape[0], table.shape[0] - dg)  # source rows that land on the grid
            if g1 > g0:
                new[g0 + dg:g1 + dg, dm:] += table[g0:g1, :COUNT_MASS + 1 - dm]
        table = new
    first = math.floor(floor / unit) + 1 - base  # gain cells k with k unit > floor
    return float(table[max(first, 0):].sum()) > limit


#: the grids of :func:`_more_than`: gain cells between the floor and the largest gain, mass cells up to the cap
COUNT_GRID, COUNT_MASS = 512, 128


def _list_above(blocks, rows, gain, code, floor, cap: float) -> Half | None:
    """One half of :func:`list_halves_above`: blocks by decreasing best prefix gain (first row)."""
    best = np.array([_best_prefix(gain, b) for b in blocks]).reshape(len(blocks), gain.shape[0])
    order = np.argsort(-best[:, 0], kind="stable")
    blocks = [blocks[i] for i in order]
    pos = np.maximum(best[order], 0.0)
    rest = np.concatenate([np.cumsum(pos[::-1], axis=0)[::-1], np.zeros((1, gain.shape[0]))])
    k = rows.shape[0]
    sums, g, masks = np.zeros((k, 1)), np.zeros((gain.shape[0], 1)), np.zeros((1, 2), np.uint64)
    for i, blk in enumerate(blocks):
        bs = np.concatenate([np.zeros((k, 1)), np.cumsum(rows[:, blk], axis=1)], axis=1)
        bg = np.concatenate([np.zeros((gain.shape[0], 1)), np.cumsum(gain[:, blk], axis=1)], axis=1)
        word = int(code[blk[0]]) // 64
        bits = np.concatenate([[0], np.cumsum([1 << (int(code[x]) % 64) for x in blk])]).astype(np.uint64)
        # each kept subset times each prefix of the block: filter on mass and gains first, then
        # build only the survivors' sums and masks (parent-major: the order of the full product)
        mass = (sums[0][:, None] + bs[0][None, :]).ravel()
        kept = np.flatnonzero((mass <= cap) & ((g[0][:, None] + bg[0][None, :]).ravel() + rest[i + 1, 0] > floor[0]))
        for r in range(1, gain.shape[0]):  # each other row on the survivors of the rows before it
            parent, child = np.divmod(kept, len(blk) + 1)
            kept = kept[g[r][parent] + bg[r][child] + rest[i + 1, r] > floor[r]]
        if kept.size > MAX_HALF:
            return None
        parent, child = np.divmod(kept, len(blk) + 1)
        sums, g, masks = sums[:, parent] + bs[:, child], g[:, parent] + bg[:, child], masks[parent]
        masks[:, word] |= bits[child]
    return Half(sums, masks)


def _best_prefix(gain, block) -> np.ndarray:
    """The largest gain of a nonempty prefix of a block (its letters taken in order), one per row
    of ``gain`` (rows x N)."""
    return np.cumsum(gain[:, block], axis=1).max(axis=1)


def _list(blocks, rows) -> Half:
    sums, masks = np.zeros((rows.shape[0], 1)), np.zeros(1, np.uint64)
    for blk in blocks:
        bs = np.concatenate([np.zeros((rows.shape[0], 1)), np.cumsum(rows[:, blk], axis=1)], axis=1)
        bits = np.concatenate([[0], np.cumsum([1 << x for x in blk])]).astype(np.uint64)
        sums = (sums[:, :, None] + bs[:, None, :]).reshape(rows.shape[0], -1)
        masks = (masks[:, None] | bits[None, :]).ravel()
    return Half(sums, masks)


class PieceMax:
    """Exact maximum over ranges [j1, j2] (inclusive) of the rows of a small table (pieces x
    columns): a sparse table over the rows, one lookup per query."""

    def __init__(self, table):
        t = np.asarray(table, dtype=float)
        t = t[:, None] if t.ndim == 1 else t
        self.levels = [t]
        rows, span = t.shape[0], 1
        while 2 * span <= rows:
            t = np.maximum(t[:-span], t[span:])
            self.levels.append(t)
            span *= 2

    def query(self, j1, j2, col=0):
        """max of rows j1..j2 (arrays, j1 <= j2) in column ``col`` (an array or 0)."""
        k = np.floor(np.log2(j2 - j1 + 1)).astype(np.int64)
        out = np.empty(np.shape(j1))
        col = np.broadcast_to(col, out.shape)
        for lev in np.unique(k).tolist():
            sel = k == lev
            t = self.levels[lev]
            out[sel] = np.maximum(t[j1[sel], col[sel]], t[j2[sel] - (1 << lev) + 1, col[sel]])
        return out


class RangeMax:
    """Exact maximum over index ranges [lo, hi) of an array: a sparse table over blocks' maxima for
    the whole blocks, each block's running maxima from either end for the partial ones, and a
    range inside one block read directly."""

    def __init__(self, a, block: int = _BLOCK):
        self.a = np.asarray(a, dtype=float)
        nb = -(-self.a.size // block)
        pad = np.full(nb * block, -np.inf)
        pad[: self.a.size] = self.a
        grid = pad.reshape(nb, block)
        self.block = block
        self.prefix = np.maximum.accumulate(grid, axis=1).ravel()
        self.suffix = np.maximum.accumulate(grid[:, ::-1], axis=1)[:, ::-1].ravel()
        self.blocks = PieceMax(grid.max(axis=1))

    def query(self, lo, hi):
        lo, hi = np.asarray(lo), np.asarray(hi)
        out = np.full(lo.shape, -np.inf)
        bl, bh = lo // self.block, (hi - 1) // self.block
        one = (hi > lo) & (bl == bh)
        if one.any():  # inside one block: read the elements
            l1, n1 = lo[one], (hi - lo)[one]
            start = np.cumsum(n1) - n1
            idx = np.repeat(l1 - start, n1) + np.arange(int(n1.sum()))
            out[one] = np.maximum.reduceat(self.a[idx], start)
        many = (hi > lo) & (bl < bh)
        if many.any():
            l2, h2, a, b = lo[many], hi[many], bl[many] + 1, bh[many]  # whole blocks [a, b)
            res = np.maximum(self.suffix[l2], self.prefix[h2 - 1])
            inner = b > a
            res[inner] = np.maximum(res[inner], self.blocks.query(a[inner], b[inner] - 1))
            out[many] = res
        return out


def window_pairs(ai, lo, hi):
    """Every pair (A, B) with A in ``ai`` and B in A's window [lo[A], hi[A]) of the sorted half, as
    two index arrays."""
    wd = hi[ai] - lo[ai]
    ia = np.repeat(ai, wd)
    return ia, np.repeat(lo[ai] - np.cumsum(wd) + wd, wd) + np.arange(ia.size)


@dataclass(frozen=True)
class Pairs:
    """The outcome of :func:`pair_search`: the best pairs' ``values``, ``masks`` and ``extra`` (what the
    exact evaluation returned beside the value), best first; ``bound`` >= every pair's value;
    ``pairs`` examined; ``exhausted``: stopped by ``MAX_PAIRS``."""

    values: np.ndarray
    masks: np.ndarray
    extra: np.ndarray
    bound: float
    pairs: int
    exhausted: bool


def pair_search(a: Half, b: Half, lo, hi, ub, pair_bound, exact, refine, *, tau: float, keep: int,
                tol: float) -> Pairs:
    """Pairs (A, B) with B in A's window [lo[A], hi[A]) of the sorted half, A's window bounded by
    ``ub[A]``, each pair bounded by ``pair_bound(ia, ib)`` and, above the current threshold,
    evaluated by ``exact(ia, ib, masks) -> (values, extra)``. ``refine(ia, lo, hi)``: the bound of
    the pairs of A = ia with B in [lo, hi). Parts of windows are taken best first, ``BATCH`` at a
    time (the windows enter the pool of parts in the order of their bounds, as the pool's best
    falls below the next one's): one wider than ``LEAF`` is halved and each half bounded, a narrow
    one has its pairs listed, so that only the parts of a window whose best B may still beat the
    threshold are paired (a range-maximum descent). Deterministic budgets: at most ``MAX_PAIRS``
    pairs listed (past it by one chunk at most) and ``MAX_PARTS`` parts in the pool; past either
    the search stops with the largest bound left (``exhausted``)."""
    win = np.flatnonzero(np.isfinite(ub) & (hi > lo) & (ub > tau - tol))
    win = win[np.argsort(-ub[win], kind="stable")]  # the windows, best first, not yet in the pool
    src, p_lo, p_hi, p_ub = (np.zeros(0, np.int64),) * 3 + (np.zeros(0),)  # the pool of parts
    level, nxt = tau, 0
    pool_v, pool_m, pool_e = np.empty(0), np.empty((0,) + a.masks.shape[1:], np.uint64), np.empty(0, np.int64)
    pairs, rest = 0, -math.inf
    while True:
        # windows enter the pool while it holds fewer than a batch above the next window's bound
        while nxt < win.size and ub[win[nxt]] > level - tol and np.count_nonzero(p_ub >= ub[win[nxt]]) < BATCH:
            new = win[nxt:nxt + BATCH]
            src, p_lo = np.concatenate([src, new]), np.concatenate([p_lo, lo[new]])
            p_hi, p_ub = np.concatenate([p_hi, hi[new]]), np.concatenate([p_ub, ub[new]])
            nxt += new.size
        live = p_ub > level - tol
        src, p_lo, p_hi, p_ub = src[live], p_lo[live], p_hi[live], p_ub[live]
        if not src.size:
            break
        if pairs >= MAX_PAIRS or src.size > MAX_PARTS:
            rest = float(p_ub.max())
            if nxt < win.size:
                rest = max(rest, float(ub[win[nxt]]))
            break
        take = np.argpartition(-p_ub, BATCH)[:BATCH] if src.size > BATCH else np.arange(src.size)
        mark = np.zeros(src.size, bool)
        mark[take] = True
        wide = mark & (p_hi - p_lo > LEAF)
        narrow = np.flatnonzero(mark & ~wide)
        narrow = narrow[np.argsort(-p_ub[narrow], kind="stable")]
        width = (p_hi - p_lo)[narrow]
        start = 0
        while start < narrow.size and p_ub[narrow[start]] > level - tol and pairs < MAX_PAIRS:
            stop = start + max(1, int(np.searchsorted(np.cumsum(width[start:]), _CHUNK, side="right")))
            iu, ib = window_pairs(narrow[start:stop], p_lo, p_hi)
            pairs += iu.size
            ia = src[iu]
            ok = pair_bound(ia, ib) > level - tol
            if ok.any():
                ia, ib = ia[ok], ib[ok]
                masks = a.masks[ia] | b.masks[ib]
                val, extra = exact(ia, ib, masks)
                good = val > level
                pool_v = np.concatenate([pool_v, val[good]])
                pool_m = np.concatenate([pool_m, masks[good]])
                pool_e = np.concatenate([pool_e, extra[good]])
                if pool_v.size > keep:
                    top = np.argsort(-pool_v, kind="stable")[: max(keep, 1)]
                    pool_v, pool_m, pool_e = pool_v[top], pool_m[top], pool_e[top]
                    level = max(level, float(pool_v[-1]))
            start = stop
        # halve the wide parts taken and bound each half; the parts not taken wait
        w = np.flatnonzero(wide)
        mid = (p_lo[w] + p_hi[w]) // 2
        c_src = np.concatenate([src[w], src[w]])
        c_lo, c_hi = np.concatenate([p_lo[w], mid]), np.concatenate([mid, p_hi[w]])
        c_ub = refine(c_src, c_lo, c_hi) if w.size else np.zeros(0)
        wait = ~mark
        wait[narrow[start:]] = True  # below the threshold (dropped next) or left by the pair budget
        src, p_lo = np.concatenate([src[wait], c_src]), np.concatenate([p_lo[wait], c_lo])
        p_hi, p_ub = np.concatenate([p_hi[wait], c_hi]), np.concatenate([p_ub[wait], c_ub])
    order = np.argsort(-pool_v, kind="stable")
    best = float(pool_v.max()) if pool_v.size else -math.inf
    return Pairs(pool_v[order], pool_m[order], pool_e[order], max(best, tau, rest) + tol, pairs, rest > -math.inf)


#: a part of a window at most this wide has its pairs listed; a wider one is halved first
LEAF = 64
#: parts taken at a time, and most parts held in the pool
BATCH = 4096
MAX_PARTS = 1 << 20


def penalised_max(lists: tuple[Half, Half], lo: float, slopes) -> np.ndarray:
    """For each slope c in ``slopes``: max { score(S) - c (mass(S) - lo) : mass(S) >= lo } (-inf when
    no set reaches lo; -1e-12 of rounding slack on the mass), over the halves ``list_halves(mass,
    order_key, [mass, score])`` (an order key that does not lower the score within a block of equal
    masses). One pass per slope: the other half's suffix maxima over its sorted masses."""
    (ma, sa), (mb, sb) = lists[0].sums, lists[1].sums
    first = np.searchsorted(mb, lo - ma - 1e-12, side="left")
    ok = first < mb.size
    out = []
    for c in np.asarray(slopes, dtype=float).tolist():
        tail = np.maximum.accumulate((sb - c * mb)[::-1])[::-1]
        vals = (sa - c * ma)[ok] + tail[first[ok]]
        out.append(float(vals.max()) + c * lo if vals.size else -math.inf)
    return np.array(out)


def member(masks, code: int) -> np.ndarray:
    """Whether the letter with bit code ``code`` (64 word + position) is in each mask: ``masks`` one
    uint64 per mask (codes below 64) or one row of words per mask."""
    word = masks if masks.ndim == 1 else masks[:, code // 64]
    return ((word >> np.uint64(code % 64)) & np.uint64(1)).astype(bool)


#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
