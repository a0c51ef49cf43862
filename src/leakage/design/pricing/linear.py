"""Step 3 of the design loop for linear utilities: every label's best column, in closed form where
the vertices are known.

Pricing for linear utilities: max over normalised columns of K of c[:, y] . v for every label y.

Closed forms where the vertices are known: the box (the greedy lift vector by c_x / P_x,
[saeidian-optimal-pml, Thm 6]); LDP (staircases over the prefixes of the c / P order,
[kairouz2016]); the small ball beta <= 2 min P (two-level columns over prefixes and the lift vector
at eps' of [empirical-pml, eq. (43)]). A wider ball gets one LP per label over the lifted linear
description of the cross-section (:class:`LiftedLP`). O(N^2 L) closed forms; an LP of 3 + 2N
variables per label otherwise.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from leakage.design.cone import Cone

_HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


class LiftedLP:
    """Lifted linear description of the cross-section of K for beta > 0 (or LDP), for the linear
    pricing of a wide ball (one LP per label).

    Variables x = [m, G, lam, q (N), mu (N)]: v = m + q, m <= min v, G <= g(v) via the knapsack dual
    (G + (beta/2) lam + P.mu = 1, lam + mu_x >= q_x), v_x <= e^eps G, m + P.q = 1.
    """

    def __init__(self, cone):
        self.cone = cone
        n, p, E = cone.n, cone.prior, cone.E
        self.n = n
        self.nv = 3 + 2 * n
        iq, imu = 3, 3 + n
        x = np.arange(n)
        a_eq = np.zeros((2, self.nv))
        a_eq[0, 0] = 1.0
        a_eq[0, iq : iq + n] = p
        a_eq[1, 1] = 1.0
        a_eq[1, 2] = 1.0 if cone.kind == "ldp" else cone.half
        a_eq[1, imu : imu + n] = p
        self.a_eq = sp.csr_matrix(a_eq)
        # m + q_x - E G <= 0 ; q_x - lam - mu_x <= 0
        rows = np.concatenate([x, x, x, n + x, n + x, n + x])
        cols = np.concatenate([np.zeros(n, int), iq + x, np.ones(n, int), iq + x, np.full(n, 2), imu + x])
        vals = np.concatenate([np.ones(n), np.ones(n), np.full(n, -E), np.ones(n), -np.ones(n), -np.ones(n)])
        self.a_ub = sp.csr_matrix((vals, (rows, cols)), shape=(2 * n, self.nv))
        self.bounds = [(0.0, 1.0), (1.0 / E, 1.0), (0.0, None)] + [(0.0, E)] * n + [(0.0, None)] * n
        self.iq = iq

    def solve_linear(self, c_v):
        """max c_v . v over the cross-section. Returns (value, v) or None."""
        n = self.n
        cost = np.zeros(self.nv)
        cost[0] = -c_v.sum()
        cost[self.iq : self.iq + n] = -c_v
        res = linprog(cost, A_ub=self.a_ub, b_ub=np.zeros(2 * n), A_eq=self.a_eq, b_eq=[1.0, 1.0],
                      bounds=self.bounds, method="highs", options=_HIGHS)
        if res.status != 0:
            return None
        return -res.fun, res.x[0] + res.x[self.iq : self.iq + n]


def linear_pricing(cone: Cone, c, lifted: "LiftedLP | None" = None):
    """max_{v in K, P.v = 1} c[:, y] . v for every label y (c: N x L). Returns (values, columns)."""
    p, E, n = cone.prior, cone.E, cone.n
    ratio = c / p[:, None]
    order = np.argsort(-ratio, axis=0, kind="stable")
    ps = p[order]
    cum = np.cumsum(ps, axis=0)  # P(prefix_k), k = 1..n
    labels = c.shape[1]
    cand_vals, cand_cols = [], []

    def lift(cap):
        # greedy fractional knapsack: rows in ratio order at cap until the mass 1 is reached
        capm = ps * cap
        cm = np.cumsum(capm, axis=0)
        before = cm - capm
        fill = np.clip(1.0 - before, 0.0, capm)
        vs = fill / ps
        v = np.empty_like(vs)
        np.put_along_axis(v, order, vs, axis=0)
        return v

    if cone.kind == "box":
        v = lift(E)
        return (c * v).sum(axis=0), v
    if cone.kind == "ldp" or cone.small_ball:
        # prefixes T_k (k = 1..n-1) of the ratio order: two-level columns, plus v = 1
        s = cum[:-1]  # L-columns: (n-1) x L
        if cone.kind == "ldp":
            a = 1.0 / (1.0 + (E - 1.0) * s)
            lev_lo, lev_hi = a, a * E
        else:
            k = 1.0 + cone.half * E
            m = (k - s * E) / (k - s)
            ok = m >= 0
            m = np.where(ok, m, np.nan)
            lev_lo, lev_hi = m, m + (E - m) / k
        csum = np.cumsum(np.take_along_axis(c, order, axis=0), axis=0)[:-1]
        total = c.sum(axis=0)
        vals = lev_lo * total[None, :] + (lev_hi - lev_lo) * csum
        vals = np.where(np.isnan(vals), -np.inf, vals)
        kbest = np.argmax(vals, axis=0)
        best = vals[kbest, np.arange(labels)]
        ones_val = total
        cols = np.ones((n, labels))
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(n)[:, None].repeat(labels, 1), axis=0)
        lo_b = lev_lo[kbest, np.arange(labels)]
        hi_b = lev_hi[kbest, np.arange(labels)]
        two = np.where(rank <= kbest[None, :], hi_b[None, :], lo_b[None, :])
        use_two = best > ones_val
        cols = np.where(use_two[None, :], two, cols)
        out = np.maximum(best, ones_val)
        if cone.kind == "ball":
            if cone.top >= 1.0:  # eps' >= 0: the lift vectors at H = e^eps'
                vl = lift(cone.top)
                lv = (c * vl).sum(axis=0)
                better = lv > out
                cols = np.where(better[None, :], vl, cols)
                out = np.maximum(out, lv)
        return out, cols
    # general ball: one LP per label
    out = np.empty(labels)
    cols = np.empty((n, labels))
    for y in range(labels):
        res = lifted.solve_linear(c[:, y])
        if res is None:
            raise RuntimeError(f"linear pricing LP failed for label {y}")
        out[y] = res[0] + 1e-9 * (1 + abs(res[0]))
        cols[:, y] = res[1]
    return out, cols

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
