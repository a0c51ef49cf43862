"""The letters as every search of the pricing step (step 3) sees them: in the order of their dual
ratio, letters of equal mass grouped into blocks.

Items of the pricing searches: the letters in the order of their dual ratio, with groups.

Every pricing search chooses sets of letters whose value depends on a set S only through its
mass P(S) and its dual sum w(S) (decreasing in w(S)), so the letters are taken in the order of
w_x / P_x (the fractional knapsack's order) and a node's relaxation fills them greedily.

Letters of equal mass are interchangeable up to their dual: among them a set of the same size
with smaller duals is never worse, so an optimal set takes them as a prefix in the order of w.
Such a *group* is branched as a block: putting its j-th letter in puts every earlier one in, and
putting it out puts every later one out. This removes the symmetric subtrees that equal masses
(a clipped tail, equal counts of an empirical distribution) would otherwise create.
"""

from __future__ import annotations

import numpy as np


class Items:
    """Letters sorted by w / P (ties: larger mass first, then index): ``order`` maps a sorted
    position to the letter; ``group_prev`` / ``group_next``: the previous / next position of the same
    mass in that order (-1 if none)."""

    def __init__(self, prior, duals, eligible=None):
        p = np.asarray(prior, dtype=float)
        w = np.asarray(duals, dtype=float)
        ratio = w / p
        idx = np.arange(p.size) if eligible is None else np.flatnonzero(eligible)
        self.order = idx[np.lexsort((idx, -p[idx], ratio[idx]))]
        self.p = p[self.order]
        self.w = w[self.order]
        self.ratio = self.w / self.p
        n = self.order.size
        self.group_prev = np.full(n, -1)
        self.group_next = np.full(n, -1)
        last = {}
        for i, mass in enumerate(self.p.tolist()):
            if mass in last:
                self.group_prev[i] = last[mass]
                self.group_next[last[mass]] = i
            last[mass] = i

    @property
    def size(self) -> int:
        return self.order.size

    def fix_in(self, status: np.ndarray, i: int, value: int = 1) -> np.ndarray:
        """A copy of ``status`` with position i and every earlier member of its group set to ``value``
        (those that are still free)."""
        st = status.copy()
        j = i
        while j >= 0:
            if st[j] == 0:
                st[j] = value
            j = self.group_prev[j]
        return st

    def fix_out(self, status: np.ndarray, i: int, value: int = -1) -> np.ndarray:
        """A copy of ``status`` with position i and every later member of its group set to ``value``."""
        st = status.copy()
        j = i
        while j >= 0:
            if st[j] == 0:
                st[j] = value
            j = self.group_next[j]
        return st

    def letters(self, mask_sorted: np.ndarray, n: int) -> np.ndarray:
        """A mask over sorted positions as a mask over the n letters."""
        out = np.zeros(n, bool)
        out[self.order[mask_sorted]] = True
        return out


def greedy_pieces(p, w, free, base_mass, base_w, lo=-np.inf, hi=np.inf):
    """The fractional knapsack L(t) = min {w.z : P.z = t, z_free in [0, 1], fixed items kept} as
    pieces over the free positions (sorted by ratio): arrays (start, end, alpha, slope, position,
    item start, item end) with L = alpha + slope t on [start, end] ∩ [lo, hi]; the position's item is
    fractional strictly inside its item interval."""
    idx = np.flatnonzero(free)
    cm = base_mass + np.concatenate([[0.0], np.cumsum(p[idx])])
    cw = base_w + np.concatenate([[0.0], np.cumsum(w[idx])])
    a, b = np.maximum(cm[:-1], lo), np.minimum(cm[1:], hi)
    ok = b >= a
    r = w[idx] / p[idx]
    alpha = cw[:-1] - r * cm[:-1]
    return a[ok], b[ok], alpha[ok], r[ok], idx[ok], cm[:-1][ok], cm[1:][ok]


def greedy_fill(p, base, pool, target):
    """Integral sets near mass ``target``: ``base`` plus the prefix of ``pool`` (positions in ratio
    order) that fits, and that prefix with the next item. Returns a list of bool masks."""
    cum = np.cumsum(p[pool])
    k = int(np.searchsorted(cum, target + 1e-15, side="right"))
    lo = base.copy()
    lo[pool[:k]] = True
    if k == pool.size:
        return [lo]
    hi = lo.copy()
    hi[pool[k]] = True
    return [lo, hi]

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
