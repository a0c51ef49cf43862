"""Step 1 of the design loop: the master LP over the columns found so far, whose row duals
(step 2) the pricing takes.

The master LP of column generation: max obj.lam s.t. cols lam = 1 (N rows), lam >= 0.

Its row duals w price new columns; by LP duality any upper bound U on the pricing maximum gives the
certified bound sum(w) + max(U, 0) on the optimum over all columns, whatever the solver accuracy.
HiGHS (``highspy``), warm-started as columns are added; on a numerical failure it is solved cold,
then by scipy's dual simplex and interior point on the same columns.

The master keeps HiGHS's default simplex strategy. The primal simplex can solve a large master
faster, but when the master has several optimal dual vectors it returns other ones, and those
price worse: on heavy-tailed priors the design then takes many more iterations (the duals, not
the master's value, steer the pricing).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

_TOL = 1e-10
_HIGHS = {"primal_feasibility_tolerance": _TOL, "dual_feasibility_tolerance": _TOL}


def quiet_highs():
    """A ``highspy.Highs`` with its output off. HiGHS 1.16 prints its banner to the process's C-level
    standard output when the object is built, before any option can be set (ERGO-Code/HiGHS#1932:
    it cannot be switched off on its own), so every design would print two lines: file descriptor 1
    points at the null device while it is built. Where fd 1 cannot be duplicated, built as is."""
    import os
    import sys

    import highspy

    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):
        h = highspy.Highs()
    else:
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, 1)
                h = highspy.Highs()
            finally:
                os.dup2(saved, 1)
                os.close(null)
        finally:
            os.close(saved)
    h.setOptionValue("output_flag", False)
    return h


class Master:
    """The restricted master LP in HiGHS, grown column by column and warm-started."""

    def __init__(self, n: int):
        import highspy

        self.h = quiet_highs()
        self.h.setOptionValue("primal_feasibility_tolerance", _TOL)
        self.h.setOptionValue("dual_feasibility_tolerance", _TOL)
        self.h.setOptionValue("presolve", "off")
        self.h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self.inf = highspy.kHighsInf
        self.h.addRows(n, np.ones(n), np.ones(n), 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
        self.cols: list[np.ndarray] = []
        self.obj: list[np.ndarray] = []
        self.fallbacks = 0

    @property
    def columns(self) -> np.ndarray:
        return np.concatenate(self.cols, axis=1)

    def add(self, cols: np.ndarray, obj: np.ndarray) -> None:
        k = cols.shape[1]
        if k == 0:
            return
        self.cols.append(np.array(cols, dtype=float))
        self.obj.append(np.array(obj, dtype=float))
        csc = sp.csc_matrix(cols)
        self.h.addCols(k, np.asarray(obj, dtype=float), np.zeros(k), np.full(k, self.inf), csc.nnz,
                       csc.indptr[:-1].astype(np.int32), csc.indices.astype(np.int32), csc.data)

    def solve(self):
        """(value, weights, row duals). The master is always feasible (the all-ones column with
        weight 1 is in it from the start): a failure is numerical, typically the warm-started
        simplex on nearly parallel columns."""
        self.h.run()
        status = self.h.modelStatusToString(self.h.getModelStatus())
        if status != "Optimal":
            self.fallbacks += 1
            self.h.clearSolver()
            self.h.run()
            status = self.h.modelStatusToString(self.h.getModelStatus())
        if status == "Optimal":
            sol = self.h.getSolution()
            return self.h.getInfo().objective_function_value, np.array(sol.col_value), np.array(sol.row_dual)
        errors = [f"HiGHS warm and cold: {status}"]
        for method in ("highs-ds", "highs-ipm"):
            try:
                return solve_master(self.columns, np.concatenate(self.obj), method)
            except RuntimeError as exc:
                errors.append(f"{method}: {exc}")
        raise RuntimeError("optimal_mechanism: master LP failed: " + "; ".join(errors))


def solve_master(cols, obj, method: str = "highs-ds"):
    """One cold solve of the master over ``cols`` (N x K): (value, weights, row duals)."""
    res = linprog(-obj, A_eq=cols, b_eq=np.ones(cols.shape[0]), bounds=(0, None), method=method, options=_HIGHS)
    if res.status != 0 and method == "highs-ds":
        res = linprog(-obj, A_eq=cols, b_eq=np.ones(cols.shape[0]), bounds=(0, None), method="highs-ipm",
                      options=_HIGHS)
    if res.status != 0:
        raise RuntimeError(f"optimal_mechanism: master LP failed: {res.message}")
    return -res.fun, res.x, -res.eqlin.marginals


def assemble(cols, lam, n: int):
    """The weights of the master's support, recomputed by a linear solve where they are unique;
    returns (weights, support indices)."""
    sup = np.flatnonzero(lam > 1e-14)
    r = cols[:, sup]
    if sup.size <= n and np.linalg.matrix_rank(r) == sup.size:
        sol, *_ = np.linalg.lstsq(r, np.ones(n), rcond=None)
        if np.all(sol >= 0) and np.max(np.abs(r @ sol - 1.0)) < 1e-12:
            return sol, sup
    return np.clip(lam[sup], 0.0, None), sup


def channel_of(cols, lam, n: int) -> np.ndarray:
    """The channel sum_r lam_r r as N x K (rows renormalised), one output per column of the support."""
    lam_b, sup = assemble(cols, lam, n)
    ch = cols[:, sup] * lam_b[None, :]
    return ch / ch.sum(axis=1, keepdims=True)

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
