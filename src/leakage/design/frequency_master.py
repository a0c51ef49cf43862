"""The master problem of the estimation design: the best channel over a given set of columns.

A channel is written as weights theta_r >= 0 on normalised rays r of the privacy cone (P.r = 1,
sum_r theta_r r = 1, so channel[:, r] = theta_r r and the output distribution is q_r = theta_r).
Its Fisher-type matrix J = channel diag(q)^-1 channel^T (docs/frequency-estimation.md,
:func:`leakage.estimation.frequency.fisher_information`) is then J(theta) = sum_r theta_r r r^T,
linear in theta, and the per-record total variance of the best linear unbiased estimate (records
fixed) is tr J^-1 - 1. The master minimises tr J(theta)^-1 over the weights of the columns given
(the restricted master of column generation, :mod:`~leakage.design.frequency`).

Duality. For every N x N matrix Z and J positive definite, tr J^-1 >= 2 tr Z - tr(Z^T J Z) (equality
at Z = J^-1), so for every Z and every vector w

    min_theta tr J(theta)^-1 >= 2 tr Z + sum_x w_x - U,   U >= max_r |Z^T r|^2 + w.r

over the columns r allowed (the LP min sum_r theta_r (-|Z^T r|^2) s.t. sum_r theta_r r = 1 has the
dual feasible point w - U P, as P.r = 1). The master solves the best such (Z, w) over its columns,

    max 2 tr Z + sum w   s.t.  |Z^T r|^2 <= -w.r  for every column r,

a second-order cone program (one rotated cone per column: (1 - w.r, -1 - w.r, 2 Z^T r) in the
Lorentz cone), with Clarabel [goulart2024]; the weights theta are the multipliers of its cones
(theta_r = z_0 + z_1 of cone r, from the stationarity sum_r theta_r r = 1). This is the dual of the
second-order cone form of A-optimal design [sagnol2011]. The (Z, w) it returns are also the dual
point the pricing uses: the bound over all columns needs only a true upper bound U on the pricing
maximum, so the solver's accuracy never enters it.

Complexity: one interior-point solve with N^2 + N variables and K cones of dimension N + 2
(K columns), O(K N^2) nonzeros.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

#: Clarabel's stopping tolerances (relative gap and feasibility) of the master
_TOL = 1e-10


@dataclass(frozen=True)
class MasterSolution:
    """``theta``: weights of the columns (>= 0, not exactly summing the rows to 1: see
    :func:`assemble`); ``Z``, ``w``: the dual point (any such pair gives a bound with the pricing);
    ``value``: the solver's objective 2 tr Z + sum w (an estimate, not a bound); ``status``."""

    theta: np.ndarray
    Z: np.ndarray
    w: np.ndarray
    value: float
    status: str


def solve_master(cols: np.ndarray) -> MasterSolution:
    """The SOCP of the module docstring over the columns ``cols`` (N x K, each P.r = 1, spanning R^N
    with a feasible theta: e.g. the columns of randomized response). RuntimeError when Clarabel
    fails (a numerical failure: the caller stops with what it has)."""
    import clarabel

    n, k = cols.shape
    nz = n * n
    # variables x = (vec Z row-major, w); objective min -(2 tr Z + sum w)
    q = np.zeros(nz + n)
    q[np.arange(n) * (n + 1)] = -2.0
    q[nz:] = -1.0
    # cone r (rows (N + 2) r ...): s0 = 1 - w.r, s1 = -1 - w.r, s_{2+j} = 2 (Z^T r)_j = 2 sum_i Z_ij r_i;
    # s = b - A x, so A has r on w in rows 0 and 1 and -2 r_i at (2 + j, i N + j)
    d = n + 2
    rows_w = np.repeat(np.arange(k) * d, n)
    cols_w = np.tile(nz + np.arange(n), k)
    vals_w = cols.T.ravel()
    ii, jj = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")  # Z_ij
    rows_z = (np.arange(k)[:, None, None] * d + 2 + jj[None, :, :]).ravel()
    cols_z = np.broadcast_to((ii * n + jj)[None, :, :], (k, n, n)).ravel()
    vals_z = (-2.0 * cols.T[:, :, None] * np.ones((1, 1, n))).ravel()
    a = sp.csc_matrix(
        (np.concatenate([vals_w, vals_w, vals_z]),
         (np.concatenate([rows_w, rows_w + 1, rows_z]), np.concatenate([cols_w, cols_w, cols_z]))),
        shape=(k * d, nz + n),
    )
    b = np.zeros(k * d)
    b[0::d] = 1.0
    b[1::d] = -1.0
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_rel = settings.tol_gap_abs = settings.tol_feas = _TOL
    settings.max_threads = 1
    solver = clarabel.DefaultSolver(sp.csc_matrix((nz + n, nz + n)), q, a, b, [clarabel.SecondOrderConeT(d)] * k,
                                    settings)
    sol = solver.solve()
    status = str(sol.status)
    if "Solved" not in status:
        raise RuntimeError(f"optimal_mechanism(frequency_mse): master SOCP failed ({status}) on {k} columns")
    x, z = np.asarray(sol.x), np.asarray(sol.z)
    theta = np.maximum(z[0::d] + z[1::d], 0.0)
    return MasterSolution(theta, x[:nz].reshape(n, n), x[nz:].copy(), float(-sol.obj_val), status)


def assemble(cols: np.ndarray, theta: np.ndarray, rel: float = 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """Weights that sum the rows exactly: the master's weights below ``rel`` of the largest dropped,
    the rest changed by the correction of least weighted norm sum_r delta_r^2 / theta_r that makes
    sum_r theta_r r = 1 (a relative change, so small weights stay positive; a weight it would turn
    negative is dropped and the correction redone). Returns (weights, support)."""
    sup = np.flatnonzero(theta > rel * theta.max())
    for _ in range(sup.size):
        r = cols[:, sup]
        t = theta[sup]
        resid = 1.0 - r @ t
        rd = r * t[None, :]
        lam, *_ = np.linalg.lstsq(rd @ r.T, resid, rcond=None)
        fixed = t + t * (r.T @ lam)
        if np.all(fixed > 0):
            return fixed, sup
        sup = sup[fixed > 0]
    return theta[sup], sup


def channel_of(cols: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """The channel sum_r theta_r r (one output per column of the support), rows renormalised."""
    t, sup = assemble(cols, theta)
    ch = cols[:, sup] * t[None, :]
    return ch / ch.sum(axis=1, keepdims=True)

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
