"""Step 1 of the frequency-estimation design loop: the master over the columns found so far and
its dual point (Z, w).

The master problem of the estimation design: the best channel over a given set of columns.

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

a convex program with one quadratic constraint per column. It is solved by a primal-dual
interior-point method written for it (Mehrotra's predictor-corrector [nocedal2006, Sec. 14.2 and Ch. 19] on
the slacks s_r = -w.r - |Z r|^2 >= 0 and their multipliers): at the optimum Z = J(theta)^-1 is
symmetric, so Z is kept symmetric (N(N+1)/2 + N unknowns), and the multipliers are the weights theta
(stationarity: sum_r theta_r r = 1 and Z J + J Z = 2 I). The Newton matrix is
G^T diag(theta/s) G + 2 [tr(dZ J dZ)] with G the K x (N(N+1)/2 + N) Jacobian of the slacks, so a
step costs O(K N^4) rather than the O(K N^5) of a generic conic solver that sees each column's
cone couple all N^2 entries of Z. The master of the previous column-generation iteration starts the
next one (its (Z, w) and weights, slacks floored into the interior). This is the dual of the
A-optimal design problem [sagnol2011]. The (Z, w) it returns are also the dual point the pricing
uses: the bound over all columns needs only a true upper bound U on the pricing maximum, so the
solver's accuracy never enters it.

Complexity: O(K N^4 + N^6) per Newton step, a few tens of steps per solve (fewer from a warm start).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import scipy.sparse as sp

#: the master stops when its duality gap theta.s and its dual residual are below this, relative
_TOL = 1e-9
#: Newton steps of one master solve at most
_MAX_STEPS = 200
#: Newton steps without halving the dual residual, once the gap and the primal residual are below
#: the tolerance, after which the master stops ("stalled")
_STALL = 10


@dataclass(frozen=True)
class MasterSolution:
    """``theta``: weights of the columns (>= 0, not exactly summing the rows to 1: see
    :func:`assemble`); ``Z``, ``w``: the dual point (any such pair gives a bound with the pricing);
    ``value``: the solver's objective 2 tr Z + sum w (an estimate, not a bound); ``status``;
    ``steps``: the Newton steps taken."""

    theta: np.ndarray
    Z: np.ndarray
    w: np.ndarray
    value: float
    status: str
    block_weights: np.ndarray = field(default_factory=lambda: np.zeros(0))
    steps: int = 0


def _sym_basis(n: int) -> sp.csr_matrix:
    """T (N^2 x N(N+1)/2): vec(Z) (row-major) = T z for the upper-triangle coordinates z of a
    symmetric Z (entry (i, j), i <= j, stands for Z_ij = Z_ji)."""
    iu, ju = np.triu_indices(n)
    k = np.arange(iu.size)
    rows = np.concatenate([iu * n + ju, (ju * n + iu)[iu != ju]])
    cols = np.concatenate([k, k[iu != ju]])
    return sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n * n, iu.size))


@functools.lru_cache(maxsize=8)
def _trace_pattern(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The sparsity pattern of :func:`_trace_form` for N = ``n``: flat positions k * d + l in the
    d x d form (d = N(N+1)/2) and flat positions in J of its terms, one entry per term (a
    position may repeat: its terms add). With dZ = sum_k z_k (E_{i_k j_k} + [i_k != j_k] E_{j_k i_k}),
    tr(dZ J dZ) = sum_{a,b,c} dZ_ab J_bc dZ_ac pairs k and l when they share a row: i_k = i_l gives
    J_{j_k j_l}; i_k = j_l (l off the diagonal, its mirror) J_{j_k i_l}; j_k = i_l (k's mirror)
    J_{i_k j_l}; j_k = j_l (both mirrors) J_{i_k i_l}. O(N^3) entries of the N^4 / 4."""
    iu, ju = np.triu_indices(n)
    off = iu != ju
    d = iu.size
    pos, src = [], []
    for a, b, ka, kb, need_k, need_l in ((iu, iu, ju, ju, False, False), (iu, ju, ju, iu, False, True),
                                         (ju, iu, iu, ju, True, False), (ju, ju, iu, iu, True, True)):
        k, l = np.nonzero(a[:, None] == b[None, :])
        keep = (off[k] | (not need_k)) & (off[l] | (not need_l))
        k, l = k[keep], l[keep]
        pos.append(k * d + l)
        src.append(ka[k] * n + kb[l])
    return np.concatenate(pos), np.concatenate(src)


def _trace_form(J: np.ndarray) -> np.ndarray:
    """The matrix of the quadratic form tr(dZ J dZ) in the upper-triangle coordinates of a
    symmetric dZ (d x d, d = N(N+1)/2), assembled from its O(N^3) nonzero terms
    (:func:`_trace_pattern`)."""
    n = J.shape[0]
    d = n * (n + 1) // 2
    pos, src = _trace_pattern(n)
    return np.bincount(pos, weights=J.ravel()[src], minlength=d * d).reshape(d, d)


def _factor(H: np.ndarray):
    """A solver for H x = b by Cholesky. Near the optimum theta / s spans many decades and rounding
    can break the definiteness of H: the diagonal then shifts by round-off size (1e-14 of its
    largest entry, growing a hundredfold until the factorisation holds), which still gives a
    descent direction."""
    shift = 0.0
    top = float(np.max(np.abs(np.diag(H))))
    while True:
        try:
            cho = scipy.linalg.cho_factor(H + shift * np.eye(H.shape[0]) if shift else H, check_finite=False)
            return lambda rhs: scipy.linalg.cho_solve(cho, rhs, check_finite=False)
        except (np.linalg.LinAlgError, ValueError):
            if not math.isfinite(top) or top <= 0.0 or shift > top:
                raise RuntimeError("optimal_mechanism(frequency_mse): master Newton matrix is not positive definite") from None
            shift = 1e-14 * top if shift == 0.0 else 100.0 * shift


#: a warm start moves the dual point until every constraint holds with a slack of at least this
#: many times the largest violation (:func:`solve_master`)
_SHIFT = 1.5
#: a previous point whose largest violation exceeds this many times 1 + |its value| is dropped for a
#: cold start (:func:`solve_master`)
_COLD = 4.0


def _unpack(x, n, iu, ju):
    d = iu.size
    Z = np.zeros((n, n))
    Z[iu, ju] = x[:d]
    Z[ju, iu] = x[:d]
    return Z, x[d:]


class _Slacks:
    """The slacks g(x) of the master's constraints at x = (upper triangle of Z, w) and products with
    their Jacobian G (K x (N(N+1)/2 + N), one row per column, then one per block). Only the Newton
    matrix needs G itself (``scaled_rows``); its products with vectors are matrix-free,
    O(K N^2), from u_r = Z r (the row of column r is -(2 sym(u_r r_r^T), r_r) in triangle
    coordinates, off-diagonal entries counted twice): the K x N(N+1)/2 rows are formed once per Newton
    step, scaled, instead of with the slacks and again scaled (tools/master_step_benchmark.py)."""

    def __init__(self, cols: np.ndarray, blocks: np.ndarray):
        self.rt = cols.T
        self.jb = blocks
        self.n = cols.shape[0]
        self.k_cols = cols.shape[1]
        self.iu, self.ju = np.triu_indices(self.n)
        self.half = np.where(self.iu == self.ju, 0.5, 1.0)

    def at(self, x):
        """g(x), and the point's u = rt Z (K x N; row r is (Z r)^T, Z symmetric) and Z J_b per block."""
        Z, w = _unpack(x, self.n, self.iu, self.ju)
        u = self.rt @ Z
        g = -(self.rt @ w) - np.einsum("ij,ij->i", u, u)
        mz = Z[None, :, :] @ self.jb  # Z J_b
        if self.jb.shape[0]:
            g = np.concatenate([g, -float(w.sum()) - np.einsum("bij,ij->b", mz, Z)])
        return g, (u, mz)

    def jt(self, point, v):
        """G^T v: d g_r / d Z_ij (i <= j) is -2 (u_i r_j + u_j r_i), halved on the diagonal, so
        sum_r v_r of it is -2 half (M + M^T)_ij with M = U^T diag(v) R; d g_r / d w = -r."""
        u, mz = point
        k = self.k_cols
        m = u.T @ (self.rt * v[:k, None])
        if self.jb.shape[0]:
            m = m + np.einsum("b,bij->ij", v[k:], mz)
        sym = m + m.T
        return np.concatenate([-2.0 * self.half * sym[self.iu, self.ju], -(self.rt.T @ v[:k]) - v[k:].sum()])

    def jv(self, point, dx):
        """G dx: the change of g_r along dx = (dZ, dw) is -2 u_r^T dZ r - r.dw."""
        u, mz = point
        dZ, dw = _unpack(dx, self.n, self.iu, self.ju)
        out = -2.0 * np.einsum("ij,ij->i", self.rt @ dZ, u) - self.rt @ dw
        if self.jb.shape[0]:
            out = np.concatenate([out, -2.0 * np.einsum("bij,ij->b", mz, dZ) - dw.sum()])
        return out

    def scaled_rows(self, point, scale):
        """diag(scale) G, formed (the rows the Newton matrix sums)."""
        u, mz = point
        k = self.k_cols
        us = u * scale[:k, None]
        gz = np.take(us, self.iu, axis=1)  # in place over gathered copies: the K x N(N+1)/2 arrays dominate
        gz *= np.take(self.rt, self.ju, axis=1)
        other = np.take(us, self.ju, axis=1)
        other *= np.take(self.rt, self.iu, axis=1)
        gz += other
        gz *= -2.0 * self.half
        rows = np.concatenate([gz, -self.rt * scale[:k, None]], axis=1)
        if self.jb.shape[0]:
            sym = mz + np.transpose(mz, (0, 2, 1))
            b = np.concatenate([-2.0 * self.half * sym[:, self.iu, self.ju], -np.ones((self.jb.shape[0], self.n))], axis=1)
            rows = np.concatenate([rows, b * scale[k:, None]], axis=0)
        return rows


def solve_master(cols: np.ndarray, start: MasterSolution | None = None, *, max_iterations: int = _MAX_STEPS,
                 tol: float = _TOL, blocks: np.ndarray | None = None, prior: np.ndarray | None = None) -> MasterSolution:
    """The dual program of the module docstring over the columns ``cols`` (N x K, each P.r = 1,
    spanning R^N with a feasible theta: e.g. the columns of randomized response), by a primal-dual
    interior-point method (module docstring). ``start``: a solution whose columns are the first
    ones of ``cols`` (the previous master of column generation): its (Z, w) and weights start the
    iteration; with ``prior`` (P) that start is first moved to a strictly feasible, centred point
    (without it the previous point starts as it is, and the solve takes more Newton steps).
    Returns the last iterate with ``status`` "Solved" (gap and residuals below ``tol``), "stalled"
    (gap and primal residual below it, the dual residual not falling: ``_STALL``) or
    "max_iterations"; RuntimeError when a Newton system is singular (the caller stops with what
    it has).

    ``blocks`` (B x N x N): whole channels as columns, each given by its Fisher-type matrix J_b
    (its rows sum to one, so its row-sum vector is 1): a mixture with weights lambda of channels
    with disjoint outputs has J = sum lambda_b J_b and stays row-stochastic, so block b enters
    with the constraint tr(Z J_b Z) + sum(w) <= 0 (for a single column r, J_b = r r^T and the
    row-sum vector r give the column constraint). Their weights are ``block_weights``."""
    cols = np.asarray(cols, dtype=float)
    n, k = cols.shape
    iu, ju = np.triu_indices(n)
    d = iu.size
    rt = cols.T
    jb = np.zeros((0, n, n)) if blocks is None else np.asarray(blocks, dtype=float)
    nb = jb.shape[0]
    k_cols = k
    k = k + nb
    c = np.concatenate([np.where(iu == ju, 2.0, 0.0), np.ones(n)])  # objective 2 tr Z + sum w

    slack = _Slacks(cols, jb)

    def cold():
        return np.concatenate([np.zeros(d), -np.ones(n)]), np.full(k, 1.0 / k)

    fresh = np.ones(k, dtype=bool)  # the columns (and blocks) without a weight from ``start``
    if start is None:
        x, theta = cold()
    else:
        x = np.concatenate([start.Z[iu, ju], start.w])
        theta = np.full(k, 0.0)
        theta[: start.theta.size] = start.theta
        fresh[: start.theta.size] = False
        if nb and start.block_weights.size == nb:
            theta[k_cols:] = start.block_weights
            fresh[k_cols:] = False
    g, point = slack.at(x)
    warm = prior is not None and start is not None and fresh.any() and not fresh.all()
    if warm and -g.min() > _COLD * (1.0 + abs(start.value)):
        # the new columns violate the previous point by many times its value: it tells little of
        # the optimum, and the solve starts cold
        x, theta = cold()
        g, point = slack.at(x)
        warm = False
    if warm and g.min() < 0.0:
        # the previous optimum is a poor interior point: its weighty columns have slacks near 0 and
        # the new columns violate their constraints, so a Newton step from there is blocked at once
        # (the old weights must fall as the new columns take over). Every column has P.r = 1 and
        # every block's row sums are 1, so w - u P moves every constraint by +u: the start becomes
        # strictly feasible (the same move as the bound's, module docstring)
        x[d:] -= _SHIFT * float(-g.min()) * prior
        g, point = slack.at(x)
    scale = 1.0 + float(np.max(np.abs(g)))
    floor = 1e-4 * scale
    s = np.maximum(g, floor)
    theta = np.maximum(theta, floor / scale * float(np.max(theta, initial=1.0 / k)))
    if warm:
        # and centred: every weight at least the mean complementarity product over its slack
        theta = np.maximum(theta, float(theta @ s) / k / s)
    status = "max_iterations"
    stall = (math.inf, 0)  # the least dual residual since complementarity and feasibility held, steps since
    steps = 0
    while steps < max_iterations:
        rd = -c - slack.jt(point, theta)  # gradient of the Lagrangian -c.x - theta.(g - s)
        rp = g - s
        mu = float(theta @ s) / k
        obj = float(c @ x)
        lim = tol * (1.0 + abs(obj))
        res = float(np.max(np.abs(rd)))
        if mu * k <= lim and res <= lim and np.max(np.abs(rp)) <= lim:
            status = "Solved"
            break
        if mu * k <= lim and np.max(np.abs(rp)) <= lim:
            # complementarity reached ahead of stationarity: the iterates can lose their centrality
            # and the residual (the weights' row sums, which assemble() corrects) then stalls
            if res < 0.5 * stall[0]:
                stall = (res, 0)
            elif stall[1] >= _STALL:
                status = "stalled"
                break
            else:
                stall = (stall[0], stall[1] + 1)
        J = (cols * theta[None, :k_cols]) @ rt
        if nb:
            J = J + np.einsum("b,bij->ij", theta[k_cols:], jb)
        root = slack.scaled_rows(point, np.sqrt(theta / s))
        H = root.T @ root  # one symmetric rank-K update (BLAS syrk): half the flops of a product
        del root
        H[:d, :d] += 2.0 * _trace_form(J)
        solve = _factor(H)

        def direction(rc):
            dx = solve(-rd + slack.jt(point, (rc - theta * rp) / s))
            ds = slack.jv(point, dx) + rp
            return dx, ds, (rc - theta * ds) / s

        def step(ds, dtheta):
            with np.errstate(divide="ignore"):
                a = np.concatenate([np.where(ds < 0, -s / ds, np.inf), np.where(dtheta < 0, -theta / dtheta, np.inf)])
            return min(1.0, float(a.min()))

        # Mehrotra's predictor-corrector
        dx, ds, dtheta = direction(-theta * s)
        a = step(ds, dtheta)
        mu_aff = float((s + a * ds) @ (theta + a * dtheta)) / k
        sigma = (mu_aff / mu) ** 3
        dx, ds, dtheta = direction(sigma * mu - theta * s - ds * dtheta)
        if not np.all(np.isfinite(dx)):
            raise RuntimeError(f"optimal_mechanism(frequency_mse): master Newton step failed on {k} columns")
        a = 0.99 * step(ds, dtheta)
        x = x + a * dx
        s = s + a * ds
        theta = theta + a * dtheta
        g, point = slack.at(x)
        steps += 1
    Z, w = _unpack(x, n, iu, ju)
    theta = np.maximum(theta, 0.0)
    return MasterSolution(theta[:k_cols], Z, w.copy(), float(c @ x), status, theta[k_cols:], steps)


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
