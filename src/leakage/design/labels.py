"""The design loop for linear utilities (``method="labels"``): the master is the exact compact LP
over a growing set of labels, and every label is priced in closed form.

Label generation: linear utilities by the exact compact LP restricted to a growing set of labels.

Column generation over rays stalls on linear utilities (its master is a set-partitioning LP: every
row must be covered exactly), while optimal mechanisms use few outputs. Where K has an exact
compact LP -- the known prior, LDP and the small ball beta <= 2 min P ([empirical-pml, App. D,
eq. (98)]) -- that LP is solved restricted to a growing set of labels (outputs), warm-started in
HiGHS; at the duals w of its row sums every label is priced in closed form
(:func:`~leakage.design.pricing.linear.linear_pricing`), which gives the certified bound
sum(w) + max(0, max_y price_y); the labels of positive price enter (the best max(1, L/4) per
iteration) until certified. Worst case (every label used): the full compact LP after O(log N)
growth steps.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from leakage.design.colgen import Budget, Solution, labelled_channel
from leakage.design.cone import Cone
from leakage.design.master import quiet_highs
from leakage.design.pricing.linear import linear_pricing


class LabelLP:
    """The design LP restricted to a set of labels (outputs), in HiGHS, grown label by label.

    Each label y gets the compact description of the cone K for its column v = channel[:, y]
    (exact for the known prior, LDP and the small ball beta <= 2 min P):

    * box (beta = 0): variables v_i >= 0 and s = P.v; rows v_i - e^eps s <= 0, s - P.v = 0;
    * small ball (Appendix D, eq. (98), as in ``design_polytope(form="compact")``): v = m + q with
      q_i >= 0, m >= 0, t = P.q; rows (1 + e^eps beta/2) q_i + (1 - e^eps) m - e^eps t <= 0,
      t - P.q = 0;
    * LDP: v = m + q, q_i >= 0, m >= 0; rows q_i - (e^eps - 1) m <= 0.

    The N rows sum_y v_iy = 1 are shared. Adding a label appends its columns and rows; HiGHS keeps
    the basis (the old optimum stays feasible with the new variables at 0), so the solve is warm.
    """

    def __init__(self, cone, c):
        import highspy

        self.cone, self.c, self.n = cone, c, cone.n
        self.h = quiet_highs()
        self.h.setOptionValue("primal_feasibility_tolerance", 1e-10)
        self.h.setOptionValue("dual_feasibility_tolerance", 1e-10)
        self.h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self.inf = highspy.kHighsInf
        n = self.n
        self.h.addRows(n, np.ones(n), np.ones(n), 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
        self.labels = []  # in the order added
        self.first = []  # index of each label's first variable
        self.k = 0  # variables so far

    def add(self, labels):
        cone, n, p, E = self.cone, self.n, self.cone.prior, self.cone.E
        if cone.kind != "ldp" and p.min() > cone.half:
            # K is the whole orthant once e^eps >= 1/(min P - beta/2) (max v <= g(v)/(min P - beta/2)):
            # the same cone with moderate coefficients (as in design_polytope)
            E = min(E, 1.0 / (p.min() - cone.half))
        for y in labels:
            y = int(y)
            cy = self.c[:, y]
            k0 = self.k
            ar = np.arange(n)
            if cone.kind == "box":  # v (n), s
                obj = np.concatenate([cy, [0.0]])
                col_rows = [ar, np.zeros(0, int)]
                rows = sp.csr_matrix(
                    (np.concatenate([np.ones(n), np.full(n, -E), [1.0], -p]),
                     (np.concatenate([ar, ar, [n], np.full(n, n)]),
                      np.concatenate([ar, np.full(n, n), [n], ar]))), shape=(n + 1, n + 1))
                lo = np.concatenate([np.full(n, -self.inf), [0.0]])
                up = np.zeros(n + 1)
                nv = n + 1
            elif cone.kind == "ldp":  # q (n), m
                obj = np.concatenate([cy, [cy.sum()]])
                col_rows = [ar, ar]
                rows = sp.csr_matrix(
                    (np.concatenate([np.ones(n), np.full(n, 1.0 - E)]),
                     (np.concatenate([ar, ar]), np.concatenate([ar, np.full(n, n)]))), shape=(n, n + 1))
                lo, up = np.full(n, -self.inf), np.zeros(n)
                nv = n + 1
            else:  # small ball: q (n), m, t
                obj = np.concatenate([cy, [cy.sum(), 0.0]])
                col_rows = [ar, ar, np.zeros(0, int)]
                rows = sp.csr_matrix(
                    (np.concatenate([np.full(n, 1.0 + cone.half * E), np.full(n, 1.0 - E), np.full(n, -E),
                                     [1.0], -p]),
                     (np.concatenate([ar, ar, ar, [n], np.full(n, n)]),
                      np.concatenate([ar, np.full(n, n), np.full(n, n + 1), [n + 1], ar]))),
                    shape=(n + 1, n + 2))
                lo = np.concatenate([np.full(n, -self.inf), [0.0]])
                up = np.zeros(n + 1)
                nv = n + 2
            # the new variables: q / v entries in the row-sum rows (and m in every row-sum row)
            starts, idx = [], []
            pos = 0
            for j in range(nv):
                r = col_rows[0][j:j + 1] if j < n else (col_rows[1] if j == n else col_rows[2])
                starts.append(pos)
                idx.append(r)
                pos += r.size
            idx = np.concatenate(idx).astype(np.int32)
            self.h.addCols(nv, obj.astype(float), np.zeros(nv), np.full(nv, self.inf), idx.size,
                           np.array(starts, np.int32), idx, np.ones(idx.size))
            rows = rows.tocsr()
            self.h.addRows(rows.shape[0], lo, up, rows.nnz, rows.indptr[:-1].astype(np.int32),
                           (rows.indices + k0).astype(np.int32), rows.data)
            self.labels.append(y)
            self.first.append(k0)
            self.k += nv

    def solve(self):
        """(value, columns N x L of the channel for ``labels``, row duals w); None on failure."""
        import highspy

        self.h.run()
        if self.h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            self.h.clearSolver()
            self.h.run()
            if self.h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                return None
        sol = self.h.getSolution()
        x = np.array(sol.col_value)
        n = self.n
        cols = np.empty((n, len(self.labels)))
        for j, k0 in enumerate(self.first):
            v = x[k0:k0 + n]
            cols[:, j] = v if self.cone.kind == "box" else v + x[k0 + n]
        return self.h.getInfo().objective_function_value, cols, np.array(sol.row_dual[:n])


def solve_labels(cone: Cone, u, tol: float, budget: Budget) -> Solution | None:
    """Linear utility by label generation: the exact compact LP restricted to a growing set of labels.

    Start with the best constant channel (one label, always feasible); at the duals w of the
    restricted LP's row sums, price every label in closed form (``_linear_pricing``), which gives
    the certified bound sum(w) + max(0, max_y price_y); add the labels of positive price (most
    positive first, up to max(1, a quarter of the current count) per iteration) until certified. Optimal
    mechanisms of linear utilities use few outputs (N = 200: 3 for the identity, 4 for -|x-y|), so
    the LPs stay small. Returns None when HiGHS fails (the caller falls back to column generation).
    """
    p, n = cone.prior, cone.n
    c = p[:, None] * u
    lp = LabelLP(cone, c)
    lp.add([int(np.argmax(c.sum(axis=0)))])
    best_bound = np.inf
    iters = 0
    while True:
        iters += 1
        out = lp.solve()
        if out is None:
            return None
        val, cols, w = out
        scale = tol * (1 + abs(val))
        price, _ = linear_pricing(cone, c - w[:, None])
        best_bound = min(best_bound, w.sum() + max(float(np.max(price)), 0.0))
        if best_bound - val <= scale or iters >= budget.max_iterations or budget.out_of_time():
            break
        have = np.zeros(n, bool)
        have[lp.labels] = True
        cand = np.flatnonzero((price > scale) & ~have)
        if cand.size == 0:
            break
        cand = cand[np.argsort(-price[cand], kind="stable")][:max(1, len(lp.labels) // 4)]
        lp.add(cand)
    labels = np.array(lp.labels)
    mass = p @ cols
    keep = mass > 0
    rays = cone.polish(cols[:, keep])
    ch = labelled_channel(rays, labels[keep], mass[keep], n)
    return Solution(ch, float(best_bound), rays, iters, len(lp.labels), {"labels": len(lp.labels)})

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
