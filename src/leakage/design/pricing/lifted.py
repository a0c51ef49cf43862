"""Relaxations of the frequency pricing beyond the exhaustive limit: each vertex family of the cone,
lifted so that its columns are linear in a non-negative vector v, and v v^T relaxed to a doubly
nonnegative matrix.

The pricing maximises the convex quadratic phi(r) = r^T G r + w.r over the vertices of the cone's
cross-section (:mod:`leakage.design.pricing.frequency`). Each family of those vertices is written
as a :class:`Lifting`: its columns are r = B v for v >= 0 with

* u.v = 1 (a normalisation; with it the linear term w.r is the quadratic (w.B v)(u.v));
* linear equalities A^T v = 0 and inequalities M^T v >= 0;
* quadratic equalities <Q_k, v v^T> = 0 (a variable that is 0 or another, z_x^2 = c z_x; two
  variables never both non-zero; a level fixed by a product) and inequalities <R_l, v v^T> <= 0.

Replacing v v^T by a matrix X that is positive semidefinite and entrywise non-negative, with
u^T X u = 1, X A = 0 and X M >= 0 (the linear constraints times v >= 0, the reformulation-
linearisation of [mccormick1976]) and the quadratic constraints linear in X, gives a semidefinite
program whose value bounds phi over the family.

Its Lagrange dual bounds it too, for every choice of multipliers: U(Z, w) <= y when

    y u u^T - sym(Lambda_A A^T) - sym(Lambda_M M^T) - sum mu_k Q_k + sum rho_l R_l - N
        - sym(B^T w u^T) - B^T Z Z^T B   is positive semidefinite

with Lambda_M, rho, N >= 0 (Lambda_A, mu free), which by a Schur complement is a linear matrix
inequality in (Z, w, y, multipliers). So the best dual point of the relaxed *design*,
max over (Z, w) of 2 tr Z + sum w - 1 - U(Z, w), is one semidefinite program
(:func:`relaxed_dual`): the Lagrange dual of A-optimal design [sagnol2011] over the relaxed
columns of every family at once. A first-order solver's multipliers are only nearly feasible, so
the bound is certified from them (:func:`_certified`: for every member, phi <= y - v^T S v, and the
negative part of the exact slack S is bounded over the family's polytope), and at a given point
(:func:`relaxed_bound`, :func:`family_bound`) an interior-point solve gives multipliers well inside
the cone.

The families (:func:`liftings`; which columns each covers: :mod:`leakage.design.pricing.frequency`):

* ``staircase`` (LDP, a = e^eps - 1): v = (c, z), z = c 1_S, c = 1 / (1 + a P(S)),
  r = c 1 + a z, u = (1, a P);
* ``light_staircase`` (ball, P(S) <= beta/2): the same with e^eps and P.z <= (beta/2) c;
* ``heavy_two_level`` (ball, beta/2 <= P(S) <= beta/2 + e^-eps): v = (c, z), z = c 1_S,
  c = 1 / (1 - P(S) + e^eps beta/2), r = (c (1 + e^eps beta/2) - e^eps P.z) 1 + (e^eps - 1) z;
* ``box`` (known prior: cap e^eps; ball: cap H = e^eps / (1 + e^eps beta/2) when H >= 1): the lift
  vectors of {0 <= r <= cap, P.r = 1}, v = (1, r), with the cut sum_x r_x (cap - r_x) <= cap^2 / 4
  (one row of a lift vector is fractional); it holds the columns 1_S / P(S) (P(S) >= beta/2 +
  e^-eps) and the all-ones column;
* ``light_top`` (ball): c 1_S + delta 1_T1 with c + delta = e^eps (P(S) - beta/2) c: v = (c, delta,
  z, y), z = c 1_S, y = delta 1_T1, r = z + y; the top level is the linear
  e^eps P.z = (1 + e^eps beta/2) c + delta, T1 within S is c y_x <= delta z_x, and P(T1) <= beta/2
  is P.y <= (beta/2) delta.

The all-ones column is priced exactly beside them.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from leakage.design.cone import Cone


@dataclass(frozen=True)
class Lifting:
    """One vertex family as r = B v, v >= 0 (module docstring): ``B`` N x d, ``u`` (d,), ``A`` d x I
    (A^T v = 0), ``M`` d x J (M^T v >= 0), ``eq`` K x d^2 and ``le`` L x d^2 (rows: the
    coefficients of <Q, X> over X's entries, row-major); ``mass``, the light-top family's d x 2
    linear forms (c, P.z) of a member, whose ratio is the mass P(S) of its lower set
    (:func:`_split_by_mass`; None for the other families)."""

    name: str
    B: np.ndarray
    u: np.ndarray
    A: np.ndarray
    M: np.ndarray
    eq: sp.csr_matrix
    le: sp.csr_matrix
    mass: np.ndarray | None = None

    @property
    def dim(self) -> int:
        return self.u.size


def _rows(d: int, rows: list[list[tuple[int, int, float]]]) -> sp.csr_matrix:
    """Sparse rows over the entries of a d x d matrix, each a list of (i, j, coefficient)."""
    r, c, v = [], [], []
    for k, row in enumerate(rows):
        for i, j, a in row:
            r.append(k)
            c.append(i * d + j)
            v.append(a)
    return sp.csr_matrix((v, (r, c)), shape=(len(rows), d * d))


def _two_level_lifting(cone: Cone, name: str) -> Lifting:
    """v = (c, z), z_x in {0, c}: the staircases (LDP; the ball's light sets) or the ball's heavy
    two-level columns (module docstring)."""
    p, n, E = cone.prior, cone.n, cone.E
    d = n + 1
    letters = np.arange(1, d)
    M = [np.eye(d)[:, [0]] - np.eye(d)[:, [i]] for i in letters]  # z_x <= c
    A = []
    if name == "heavy_two_level":
        top = 1.0 + cone.half * E
        B = np.concatenate([np.full((n, 1), top), -E * np.outer(np.ones(n), p) + (E - 1.0) * np.eye(n)], axis=1)
        u = np.concatenate([[top], -p])
        M.append(np.concatenate([[-cone.half], p])[:, None])  # P(S) >= beta/2
        M.append(np.concatenate([[top], -E * p])[:, None])  # the low level >= 0 (P(S) <= beta/2 + 1/E)
    else:
        B = np.concatenate([np.ones((n, 1)), (E - 1.0) * np.eye(n)], axis=1)
        u = np.concatenate([[1.0], (E - 1.0) * p])
        if name == "light_staircase":
            M.append(np.concatenate([[cone.half], -p])[:, None])  # P(S) <= beta/2
            A = [np.eye(d)[:, [1 + x]] for x in np.flatnonzero(p > cone.half)]
    eq = _rows(d, [[(i, i, 1.0), (0, i, -1.0)] for i in letters])
    A = np.concatenate(A, axis=1) if A else np.zeros((d, 0))
    return Lifting(name, B, u, A, np.concatenate(M, axis=1), eq, _rows(d, []))


def _box_lifting(cone: Cone, cap: float) -> Lifting:
    """v = (1, r) over the lift vectors of {0 <= r <= cap, P.r = 1}, with the cut
    sum_x r_x (cap - r_x) <= cap^2 / 4 (module docstring)."""
    p, n = cone.prior, cone.n
    d = n + 1
    I = np.eye(d)
    B = np.concatenate([np.zeros((n, 1)), np.eye(n)], axis=1)
    A = np.concatenate([[-1.0], p])[:, None]  # P.r = 1
    M = np.concatenate([cap * I[:, [0]] - I[:, [i]] for i in range(1, d)], axis=1)  # r_x <= cap
    cut = [[(0, i, cap) for i in range(1, d)] + [(i, i, -1.0) for i in range(1, d)] + [(0, 0, -cap * cap / 4.0)]]
    return Lifting("box", B, I[0], A, M, _rows(d, []), _rows(d, cut))


def _light_top_lifting(cone: Cone, mass: tuple[float, float] | None = None) -> Lifting:
    """v = (c, delta, z, y): the ball's three-level columns with a light top set, r = z + y with
    z = c 1_S and y = delta 1_T1 (module docstring); with ``mass`` = (a, b), only those with
    a <= P(S) <= b (a c <= P.z <= b c: :func:`_split_by_mass`)."""
    p, n, E, half = cone.prior, cone.n, cone.E, cone.half
    d = 2 * n + 2
    C, D = 0, 1
    z = 2 + np.arange(n)
    y = 2 + n + np.arange(n)
    I = np.eye(d)
    B = np.concatenate([np.zeros((n, 2)), np.eye(n), np.eye(n)], axis=1)
    u = np.concatenate([[0.0, 0.0], p, p])
    heavy = np.flatnonzero(p >= half)
    # the top level c + delta = e^eps (P(S) - beta/2) c: e^eps P.z = (1 + e^eps beta/2) c + delta
    level = np.concatenate([[1.0 + E * half, 1.0], -E * p, np.zeros(n)])[:, None]
    A = np.concatenate([I[:, y[heavy]], level], axis=1)
    M = [(half * I[:, D] - np.concatenate([[0.0, 0.0], np.zeros(n), p]))[:, None]]  # P(T1) <= beta/2
    M += [I[:, [C]] - I[:, [i]] for i in z] + [I[:, [D]] - I[:, [i]] for i in y]
    pz = np.concatenate([[0.0, 0.0], p, np.zeros(n)])
    if mass is not None:
        M += [(pz - mass[0] * I[:, C])[:, None], (mass[1] * I[:, C] - pz)[:, None]]
    eq = [[(i, i, 1.0), (C, i, -1.0)] for i in z] + [[(i, i, 1.0), (D, i, -1.0)] for i in y]
    le = [[(C, j, 1.0), (D, i, -1.0)] for i, j in zip(z, y)]  # T1 within S: c y_x <= delta z_x
    return Lifting("light_top", B, u, A, np.concatenate(M, axis=1), _rows(d, eq), _rows(d, le),
                   mass=np.stack([I[:, C], pz], axis=1))


def _without_fixed_zeros(lift: Lifting) -> Lifting:
    """The lifting without the variables its linear equalities fix at 0 (a column of A that is a
    unit vector e_j: v_j = 0 for every member): in the relaxation X A = 0 makes row and column j of
    X zero, so dropping them, the terms of the quadratic constraints on them and the equalities
    that fix them leaves the same relaxation on the other variables (the same members, the same
    bound) in fewer dimensions. The ball's heavy letters in the light-top and light-staircase
    families: each lifted dimension costs the semidefinite programs cubically."""
    unit = np.count_nonzero(lift.A, axis=0) == 1
    zero = np.unique(np.argmax(lift.A[:, unit] != 0, axis=0))
    if zero.size == 0:
        return lift
    d = lift.dim
    keep = np.setdiff1d(np.arange(d), zero)
    new_index = np.full(d, -1)
    new_index[keep] = np.arange(keep.size)
    M = lift.M[keep]

    def rows(mat: sp.csr_matrix) -> sp.csr_matrix:
        coo = mat.tocoo()
        i, j = np.divmod(coo.col, d)
        ok = (new_index[i] >= 0) & (new_index[j] >= 0) & (coo.data != 0)
        out = sp.csr_matrix((coo.data[ok], (coo.row[ok], new_index[i[ok]] * keep.size + new_index[j[ok]])),
                            shape=(mat.shape[0], keep.size * keep.size))
        return out[np.diff(out.indptr) > 0]  # a constraint on fixed zeros only: 0 = 0 or 0 <= 0

    le = rows(lift.le)
    le = le[np.asarray((le > 0).sum(axis=1)).ravel() > 0]  # no positive term: implied by X >= 0
    # a linear inequality left on one variable, c v_j >= 0 with c > 0, is implied by v >= 0
    M = M[:, ~((np.count_nonzero(M, axis=0) <= 1) & np.all(M >= 0, axis=0))]
    return Lifting(lift.name, lift.B[:, keep], lift.u[keep], lift.A[keep][:, ~unit], M, rows(lift.eq), le,
                   None if lift.mass is None else lift.mass[keep])


def _full_liftings(cone: Cone) -> list[Lifting]:
    """The liftings of the module docstring as written, every variable kept."""
    if cone.kind == "ldp":
        return [_two_level_lifting(cone, "staircase")]
    if cone.kind == "box":
        return [_box_lifting(cone, cone.E)]
    out = [_two_level_lifting(cone, "light_staircase"), _two_level_lifting(cone, "heavy_two_level")]
    if cone.top >= 1.0:
        out.append(_box_lifting(cone, cone.top))
    if np.any(cone.prior < cone.half):
        out.append(_light_top_lifting(cone))
    return out


def liftings(cone: Cone) -> list[Lifting]:
    """The liftings whose columns cover every vertex of the cone's cross-section but the all-ones
    column (module docstring), without the variables fixed at 0 (:func:`_without_fixed_zeros`)."""
    return [_without_fixed_zeros(lift) for lift in _full_liftings(cone)]


def _slack(lift: Lifting, y, w, mult: dict, reshape):
    """y u u^T - sym(B^T w u^T) minus the multipliers' terms (module docstring): the dual slack
    without - B^T Z Z^T B, for cvxpy expressions or numpy arrays alike (``reshape`` of either)."""
    d, u = lift.dim, lift.u
    lin = reshape(lift.B.T @ w, (d, 1))
    out = y * np.outer(u, u) - (lin @ u[None, :] + u[:, None] @ lin.T) / 2.0 - mult["nn"]
    for key, mat in (("la", lift.A), ("lm", lift.M)):
        if mat.shape[1]:
            out = out - (mult[key] @ mat.T + mat @ mult[key].T) / 2.0
    for key, rows, sign in (("mu", lift.eq, -1.0), ("rho", lift.le, 1.0)):
        if rows.shape[0]:
            m = reshape(rows.T @ mult[key], (d, d))
            out = out + sign * (m + m.T) / 2.0
    return out


def _multipliers(lift: Lifting) -> dict:
    import cvxpy as cp

    d = lift.dim
    mult = {"nn": cp.Variable((d, d), symmetric=True)}
    if lift.A.shape[1]:
        mult["la"] = cp.Variable((d, lift.A.shape[1]))
    if lift.M.shape[1]:
        mult["lm"] = cp.Variable((d, lift.M.shape[1]))
    if lift.eq.shape[0]:
        mult["mu"] = cp.Variable(lift.eq.shape[0])
    if lift.le.shape[0]:
        mult["rho"] = cp.Variable(lift.le.shape[0])
    return mult


#: sign-constrained multipliers (N >= 0, Lambda_M >= 0, rho >= 0)
_NONNEG = ("nn", "lm", "rho")


def _reach(lift: Lifting, q: np.ndarray) -> float:
    """max |q.v| over the polytope of the lifting's linear constraints (v >= 0, u.v = 1, A^T v = 0,
    M^T v >= 0), which holds every member: two linear programs (HiGHS); inf when either fails."""
    from scipy.optimize import linprog

    a_eq = np.concatenate([lift.u[None, :], lift.A.T])
    b_eq = np.concatenate([[1.0], np.zeros(lift.A.shape[1])])
    a_ub = -lift.M.T if lift.M.shape[1] else None
    b_ub = np.zeros(lift.M.shape[1]) if lift.M.shape[1] else None
    out = 0.0
    for sign in (1.0, -1.0):
        res = linprog(-sign * q, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
        if res.status != 0:
            return math.inf
        out = max(out, abs(float(res.fun)))
    return out * (1.0 + 1e-7) + 1e-9  # HiGHS's feasibility tolerance, covered by a margin


def _certified(lift: Lifting, y: float, Z, w, values: dict) -> float:
    """A true upper bound on max phi over the lifting's members from (approximate) multipliers:
    the sign-constrained ones clipped at 0 and S the exact slack (with - B^T Z Z^T B), so for a
    member v, phi(B v) <= y - v^T S v <= y + sum over the negative eigenvalues lambda_i of S of
    |lambda_i| (q_i.v)^2, each (q_i.v)^2 bounded over the polytope of the linear constraints
    (:func:`_reach`); with an exact dual solution S is PSD and the bound is y."""
    mult = {k: (np.maximum(v, 0.0) if k in _NONNEG else v) for k, v in values.items()}
    zb = Z.T @ lift.B  # B^T G B = zb^T zb with G = Z Z^T
    S = _slack(lift, y, w, mult, np.reshape) - zb.T @ zb
    lam, vec = np.linalg.eigh((S + S.T) / 2.0)
    lam = lam - 1e-12 * float(np.abs(S).sum())  # the eigenvalues' floating-point error
    extra = sum(-lam[i] * _reach(lift, vec[:, i]) ** 2 for i in np.flatnonzero(lam < 0.0))
    return y + float(extra)


@dataclass(frozen=True)
class RelaxedDual:
    """A dual point (Z, w) and a certified upper bound ``pricing`` on max phi there over every
    column of the cone, so ``bound`` = 2 tr Z + sum w - 1 - pricing is a lower bound on the least
    tr J^-1 - 1; ``families``: each lifting's certified bound."""

    Z: np.ndarray
    w: np.ndarray
    pricing: float
    families: dict

    @property
    def bound(self) -> float:
        return 2.0 * float(np.trace(self.Z)) + float(self.w.sum()) - 1.0 - self.pricing


#: accuracy of the first-order solve of :func:`relaxed_dual` and its iteration cap, under LDP (one
#: lifting) and on the ball (four, which converge far more slowly: the certificate and the
#: recertification keep the bound, docs/frequency-estimation.md); the bound is certified apart
_DUAL_ACCURACY = 1e-6
_DUAL_STEPS = {"ldp": 20000, "ball": 1500, "box": 1500}
#: SCS's settings on the ball and the box, each with the runs of ``_DUAL_STEPS`` it may take where
#: every lifting fits ``_CLARABEL_DIM`` and beyond it (a setting starts cold, its runs continue from
#: its last point), run in turn while a lifting's certificate loses more than ``_RETRY`` of 1 + y;
#: a setting runs again only after a run that raised the best certified bound so far (each point's
#: bound is certified apart, the best is kept). A larger scale than SCS's default with
#: over-relaxation, run twice, brought the light-top certificate closer than SCS's default setting;
#: a scale ten times larger again reaches the relaxed optimum's value far sooner at large eps but
#: certifies less at small eps, so it runs only where the first setting left a certificate loose.
#: Its further runs kept raising the bound at native-country, eps 2; beyond ``_CLARABEL_DIM`` (the
#: joint N = 101 attribute) a run takes a minute and a half, so it runs once
#: (docs/frequency-estimation.md)
_DUAL_SETTINGS = (({"scale": 10.0, "alpha": 1.8}, 2, 2), ({"scale": 100.0, "alpha": 1.8}, 3, 1))
_RETRY = 1e-3
#: a lifting larger than N + 1 (the light-top one) whose certificate at the kept point of
#: :func:`relaxed_dual` still loses more than ``_RETRY`` is solved alone at that point: by Clarabel
#: (:func:`family_bound`, the relaxation's own value at the point) up to this dimension (2N + 2 at
#: N = 74: tens of seconds at N = 42, minutes at N = 74), beyond it in at most ``_FAMILY_RUNS`` SCS
#: runs (:func:`family_bound_scs`; at N = 101 Clarabel would take far longer than the design)
_CLARABEL_DIM = 150
_FAMILY_RUNS = 6
#: Clarabel solves such a lifting alone only where its certificate's excess over y (what the
#: solve can gain at most) exceeds this fraction of 1 + the point's bound; elsewhere SCS does: at
#: native-country, eps 1 the interior-point solve took about as long as the rest of the design
#: and raised the bound by 0.05 % (a run by hand)
_WORTH = 1e-3
#: the light-top family still setting the bound after Clarabel solved it alone there is split by the
#: mass P(S) of its lower set, up to this dimension (N <= 49: a Clarabel solve takes tens of seconds
#: at N = 42 and minutes at N = 74): its relaxation mixes columns of different P(S), hence of
#: different levels, and a split cuts the mixture off (:func:`_split_by_mass`); at most
#: ``_SPLIT_STEPS`` splits, each two Clarabel solves, taken only while the family's bound lies more
#: than ``_SPLIT_WORTH`` of 1 + the bound above both the other families' and the best column the
#: local search finds at the point (below which no split takes it: at native-country, eps 2 the
#: family's relaxation was tight there, and two splits cost twice the rest of the design for
#: nothing), and only after a split that lowered it (docs/frequency-estimation.md)
_SPLIT_DIM = 100
_SPLIT_STEPS = 2
_SPLIT_WORTH = 1e-4


def _scs_points(prob, runs: int, **opts):
    """Solve the cvxpy problem ``prob`` by SCS in ``runs`` runs of ``opts["max_iters"]`` steps, each
    continuing from the last one's point (cvxpy's own warm start keeps only an accurate solution).
    After each run ``prob``'s variables hold its point; yields whether the run ended optimal or
    nearly so."""
    import cvxpy as cp
    import scs
    from cvxpy.reductions.solvers.conic_solvers.conic_solver import ConicSolver
    from cvxpy.reductions.solvers.conic_solvers.scs_conif import dims_to_solver_dict

    try:
        data, chain, inverse = prob.get_problem_data(cp.SCS)
        solver = scs.SCS({"A": data[cp.settings.A], "b": data[cp.settings.B], "c": data[cp.settings.C]},
                         dims_to_solver_dict(data[ConicSolver.DIMS]), verbose=False, **opts)
    except (cp.error.SolverError, ValueError):
        return
    res = None
    for _ in range(runs):
        try:
            res = solver.solve() if res is None else solver.solve(warm_start=True, x=res["x"], y=res["y"], s=res["s"])
            _unpack(prob, res, chain, inverse)
        except (cp.error.SolverError, ValueError):
            yield False
            continue
        yield prob.status in ("optimal", "optimal_inaccurate")


def _unpack(prob, raw, chain, inverse) -> None:
    """``prob.unpack_results`` without its warning on an inaccurate status (every bound is certified
    apart, :func:`_certified`): silencing it by ``warnings.catch_warnings`` would change the
    process's warning filters from the thread that computes the points
    (:class:`RelaxedDualsAhead`), under the caller's feet. SolverError where the solver failed."""
    import cvxpy as cp

    solution = chain.invert(raw, inverse)
    if solution.status in cp.settings.ERROR:
        raise cp.error.SolverError(f"{chain.solver.name()} failed")
    prob.unpack(solution)


#: Clarabel on one thread: two solves then run side by side (the two parts of a split,
#: :func:`_split_by_mass`, or a solve beside the column generation) instead of contending for the
#: machine's two cores, and its factorisation's summation order does not depend on a thread count.
#: A second thread of its own saved about a tenth of a solve at N = 42 (by hand); at N = 74, where
#: the light-top family's solve can outlast the loop, the PML designs' times moved by up to about a
#: minute either way (docs/frequency-estimation.md)
_CLARABEL_OPTS = {"max_threads": 1}


def _solve(prob, solver: str) -> bool:
    """Solve a cvxpy problem by ``solver`` (Clarabel with ``_CLARABEL_OPTS``); False when the solver
    fails or ends neither optimal nor nearly so."""
    import cvxpy as cp

    opts = dict(_CLARABEL_OPTS) if solver == cp.CLARABEL else {}
    try:
        data, chain, inverse = prob.get_problem_data(solver, solver_opts={})  # as prob.solve() passes them
        _unpack(prob, chain.solve_via_data(prob, data, solver_opts=opts), chain, inverse)
    except (cp.error.SolverError, ValueError):
        return False
    return prob.status in ("optimal", "optimal_inaccurate")


def _family_problem(lift: Lifting, Z, w):
    """The dual program of one lifting's relaxation at the dual point (Z, w): least y with the slack
    minus B^T Z Z^T B PSD (module docstring). Returns (problem, y, multipliers)."""
    import cvxpy as cp

    zb = Z.T @ lift.B
    y = cp.Variable()
    mult = _multipliers(lift)
    slack = _slack(lift, y, w, mult, lambda e, shape: cp.reshape(e, shape, order="C")) - zb.T @ zb
    cons = [mult[k] >= 0 for k in _NONNEG if k in mult] + [(slack + slack.T) / 2.0 >> 0]
    return cp.Problem(cp.Minimize(y), cons), y, mult


def family_bound(lift: Lifting, Z, w) -> float:
    """A certified upper bound on phi over one lifting's members at the dual point (Z, w): the dual
    program of its relaxation at that point (:func:`_family_problem`) by Clarabel (an interior
    point: its slack lies well inside the cone), certified by :func:`_certified`; inf when the
    solver fails."""
    return _family_solution(lift, Z, w)[0]


def _family_solution(lift: Lifting, Z, w) -> tuple[float, np.ndarray | None]:
    """:func:`family_bound` and the relaxation's own solution X (the dual of the linear matrix
    inequality: the relaxed v v^T, u^T X u = 1), None when the solver fails."""
    import cvxpy as cp

    Z = np.asarray(Z, dtype=float)
    w = np.asarray(w, dtype=float)
    prob, y, mult = _family_problem(lift, Z, w)
    if not _solve(prob, solver=cp.CLARABEL) or y.value is None or prob.constraints[-1].dual_value is None:
        return math.inf, None
    cert = _certified(lift, float(y.value), Z, w, {k: np.asarray(v.value, dtype=float) for k, v in mult.items()})
    return cert, np.asarray(prob.constraints[-1].dual_value, dtype=float)


def family_bound_scs(lift: Lifting, Z, w, runs: int, target: float = -math.inf) -> float:
    """As :func:`family_bound`, by SCS in at most ``runs`` runs of ``_DUAL_STEPS["ball"]`` steps,
    each continuing from the last (:func:`_scs_points`), until a certificate loses at most
    ``_RETRY`` of 1 + y or the least is at or below ``target`` (where it can no longer set a bound):
    the least of the runs' certified bounds (inf when every run fails). For a
    lifting too large for Clarabel in time (the light-top one, 2N + 2 square): alone at a fixed
    point, its program converges far faster than inside the joint one of :func:`relaxed_dual`."""
    Z = np.asarray(Z, dtype=float)
    w = np.asarray(w, dtype=float)
    prob, y, mult = _family_problem(lift, Z, w)
    best = math.inf
    opts = dict(_DUAL_SETTINGS[0][0], eps_abs=_DUAL_ACCURACY, eps_rel=_DUAL_ACCURACY, max_iters=_DUAL_STEPS["ball"])
    for ok in _scs_points(prob, runs, **opts):
        if not ok or y.value is None:
            continue
        yv = float(y.value)
        cert = _certified(lift, yv, Z, w, {k: np.asarray(v.value, dtype=float) for k, v in mult.items()})
        best = min(best, cert)
        if cert - yv <= _RETRY * (1.0 + abs(yv)) or best <= target:
            break
    return best


def relaxed_bound(cone: Cone, Z, w) -> float:
    """A certified upper bound on max phi over every column of the cone at the dual point (Z, w)
    (any N): the largest of :func:`family_bound` over the liftings and phi of the all-ones column."""
    Z = np.asarray(Z, dtype=float)
    w = np.asarray(w, dtype=float)
    return max([_ones_value(Z, w)] + [family_bound(lift, Z, w) for lift in liftings(cone)])


#: a lifting whose certificate from the joint solve exceeds its y by more than this fraction of
#: 1 + |y| is certified again alone at that point, when it is small (dimension <= N + 1) and could
#: set the bound (:func:`_recertify_small`)
_RECERTIFY = 1e-4
#: SCS runs of such a small lifting solved alone at the point before Clarabel, stopping once it
#: can no longer set the bound (:func:`_recertify_small`): at N = 101 a run takes seconds and Clarabel
#: about a minute
_SMALL_RUNS = 6


def relaxed_dual(cone: Cone) -> RelaxedDual | None:
    """The best dual point of the relaxed design, every refinement of :func:`relaxed_duals` taken:
    its last point (the best certified), None when every run fails."""
    best = None
    for best in relaxed_duals(cone):
        pass
    return best


def relaxed_duals(cone: Cone):
    """The best dual point of the relaxed design: max 2 tr Z + sum w - 1 - y over Z, w, y and every
    lifting's multipliers at once, one linear matrix inequality per lifting (module docstring) and
    |Z^T 1|^2 + w.1 <= y for the all-ones column, by SCS [odonoghue2016] (a first-order method:
    far faster than an interior point at these sizes). Each lifting's bound is certified from the
    solver's multipliers (:func:`_certified`), so it does not rest on the solve's accuracy; where
    that loses more than ``_RECERTIFY`` and the lifting is small, it is certified again alone at the
    same point where it could set the bound (SCS, then Clarabel: :func:`_recertify_small`). On the ball
    and the box, while a certificate loses more than ``_RETRY``, SCS runs on (the runs and settings of ``_DUAL_SETTINGS``, :func:`_scs_points`) and
    the point of the best certified bound is kept; a lifting larger than N + 1 (the light-top one)
    still that loose there is then solved alone at that point (by Clarabel up to ``_CLARABEL_DIM``,
    :func:`family_bound`; beyond, :func:`family_bound_scs`), and up to ``_SPLIT_DIM``, where the
    light-top family still sets the bound and can gain, split by the mass of its lower set
    (:func:`_split_by_mass`).

    A generator: it yields the best :class:`RelaxedDual` so far after each run, after the large
    liftings are solved alone and after each split (each bound at or above the last), so a caller
    takes the first point at once and refines only where its bound is still wanted
    (:func:`relaxed_dual` takes every refinement). Nothing when every run fails."""
    import cvxpy as cp

    n = cone.n
    Z = cp.Variable((n, n), symmetric=True)
    w = cp.Variable(n)
    y = cp.Variable()
    cons = [cp.sum_squares(Z @ np.ones(n)) + cp.sum(w) <= y]
    lifts = liftings(cone)
    mults = []
    for lift in lifts:
        mult = _multipliers(lift)
        mults.append(mult)
        cons += [mult[k] >= 0 for k in _NONNEG if k in mult]
        slack = _slack(lift, y, w, mult, lambda e, shape: cp.reshape(e, shape, order="C"))
        zb = Z @ lift.B
        lmi = cp.bmat([[slack, zb.T], [zb, np.eye(n)]])
        cons.append((lmi + lmi.T) / 2.0 >> 0)
    prob = cp.Problem(cp.Maximize(2.0 * cp.trace(Z) + cp.sum(w) - y), cons)
    best, best_y, best_alone = None, 0.0, {}

    def loose(fams, yv):
        return {name for name, cert in fams.items() if cert - yv > _RETRY * (1.0 + abs(yv))}

    exact_alone = max(lift.dim for lift in lifts) <= _CLARABEL_DIM
    for opts, runs, runs_beyond in (({}, 1, 1),) if cone.kind == "ldp" else _DUAL_SETTINGS:
        runs = runs if exact_alone else runs_beyond
        for ok in _scs_points(prob, runs, eps_abs=_DUAL_ACCURACY, eps_rel=_DUAL_ACCURACY,
                              max_iters=_DUAL_STEPS[cone.kind], **opts):
            improved = False
            if not ok or y.value is None or Z.value is None:
                continue
            Zv = (np.asarray(Z.value, dtype=float) + np.asarray(Z.value, dtype=float).T) / 2.0
            wv, yv = np.asarray(w.value, dtype=float), float(y.value)
            fams = {lift.name: _certified(lift, yv, Zv, wv, {k: np.asarray(v.value, dtype=float) for k, v in mult.items()})
                    for lift, mult in zip(lifts, mults)}
            alone = {}  # the families certified again alone at this point, and by which solver
            _recertify_small(cone, lifts, fams, yv, Zv, wv, alone)
            found = _relaxed_dual_at(cone, Zv, wv, fams)
            if best is None or found.bound > best.bound:
                best, best_y, best_alone, improved = found, yv, alone, True
            yield best
            if not loose(fams, yv):
                return  # the certificate lost little: another run would not gain
            if not improved:
                break  # this setting's runs no longer raise the bound: the next setting
    if best is not None and cone.kind != "ldp":
        # a large lifting still loose at the kept point: solved alone there, by Clarabel where it is
        # small enough (family_bound), else by SCS (family_bound_scs)
        fams = dict(best.families)
        solved = {}  # the large liftings Clarabel solved alone at the point: (certificate, X)
        for lift in lifts:
            if lift.name not in loose(fams, best_y) or lift.dim <= n + 1:
                continue
            if lift.dim <= _CLARABEL_DIM and fams[lift.name] - best_y > _WORTH * (1.0 + abs(best.bound)):
                solved[lift.name] = _family_solution(lift, best.Z, best.w)
                fams[lift.name] = min(fams[lift.name], solved[lift.name][0])
            elif _FAMILY_RUNS > 0:
                fams[lift.name] = min(fams[lift.name], family_bound_scs(lift, best.Z, best.w, _FAMILY_RUNS))
        if fams != best.families:
            # the large ones may no longer set the bound; a small one already certified alone at this
            # point would only repeat its solve
            _recertify_small(cone, lifts, fams, best_y, best.Z, best.w, best_alone)
            yield _relaxed_dual_at(cone, best.Z, best.w, fams)
        lt = next((lift for lift in lifts if lift.name == "light_top"), None)
        if lt is not None and lt.dim <= _SPLIT_DIM and solved.get(lt.name, (0, None))[1] is not None:
            # still setting the bound: split by P(S) (each step yielded), where that can gain: no
            # relaxation goes below the best column the local search finds at the point
            leaves = [(cone.half + 1.0 / cone.E, 1.0, *solved[lt.name])]
            found = None
            for _ in range(_SPLIT_STEPS):
                others = [v for k, v in fams.items() if k != lt.name]
                floor = max([_ones_value(best.Z, best.w)] + others)
                if fams[lt.name] <= floor:
                    break  # it no longer sets the bound
                found = _best_column_found(cone, best.Z, best.w) if found is None else found
                if fams[lt.name] - max(floor, found) <= _SPLIT_WORTH * (1.0 + abs(best.bound)):
                    break
                leaves = _split_by_mass(cone, lt, best.Z, best.w, leaves)
                top = max(leaf[2] for leaf in leaves)
                if not top < fams[lt.name]:
                    break  # the split did not lower the family: the next would hardly
                fams[lt.name] = top
                _recertify_small(cone, lifts, fams, best_y, best.Z, best.w, best_alone)
                yield _relaxed_dual_at(cone, best.Z, best.w, fams)


def _best_column_found(cone: Cone, Z: np.ndarray, w: np.ndarray, starts: int | None = None) -> float:
    """The largest phi at the dual point (Z, w) among the columns the local search finds there
    (:func:`leakage.design.pricing.frequency.local_pricing`, a fixed seed; ``starts`` random starts,
    its default when None), the all-ones column's included: a lower bound on the pricing's maximum,
    below which no relaxation's bound goes."""
    from leakage.design.pricing.frequency import local_pricing

    more = {} if starts is None else {"starts": starts}
    pr = local_pricing(cone, Z @ Z.T, w, keep=1, collect=-math.inf, **more)
    return max([_ones_value(Z, w)] + [float(v) for v in pr.values])


def _split_by_mass(cone: Cone, lift: Lifting, Z: np.ndarray, w: np.ndarray, leaves: list) -> list:
    """One split of the light-top columns (``lift``, the family's lifting of :func:`liftings`) by
    the mass P(S) of their lower set. ``leaves`` are (a, b, certificate, X): ranges
    a <= P(S) <= b that cover every member (the whole family's is
    h + 1/e^eps <= P(S) <= 1, since delta >= 0 on the level of the module docstring), each with its
    relaxation's certified bound (:func:`_family_solution`, Clarabel) and solution. The range of
    the largest bound is split in two at the relaxation's mean mass (P.z)^T X c / c^T X c (the
    forms ``lift.mass``; where the mixture of members it solved for sits), or at its middle when
    that mean is within 1e-3 of the range's width of an end (or the solve failed); each part is
    solved alone, and keeps the range's bound where that is less (its members are the range's:
    where the part's relaxation fails, is infeasible, or certifies less). The family's bound is the
    largest over the leaves."""
    k = max(range(len(leaves)), key=lambda i: leaves[i][2])
    a, b, bound, X = leaves[k]
    mid = math.nan
    if X is not None:
        scale, first = lift.mass.T @ X @ lift.mass[:, 0]  # c^T X c and (P.z)^T X c
        mid = float(first / scale) if scale > 0 else math.nan
    if not a + 1e-3 * (b - a) < mid < b - 1e-3 * (b - a):
        mid = (a + b) / 2.0
    ranges = ((a, mid), (mid, b))
    with ThreadPoolExecutor(max_workers=2) as pool:  # two one-thread solves, side by side
        solved = list(pool.map(lambda r: _family_solution(_without_fixed_zeros(_light_top_lifting(cone, r)), Z, w),
                               ranges))
    parts = [(lo, hi, min(cert, bound), part) for (lo, hi), (cert, part) in zip(ranges, solved)]
    return leaves[:k] + parts + leaves[k + 1:]


class RelaxedDualsAhead:
    """:func:`relaxed_duals` computed ahead in a background thread: iterating gives the same
    points in the same order (each waits until it is computed), while the caller works on the
    other core between them. SCS and Clarabel release the GIL in their solves, so the column
    generation runs beside the refinements instead of after them; the refinements do not depend on
    the caller, so the points, and a design that consumes them in order, are the same as
    computed in line. :meth:`close` stops the thread after its current stage (a refinement
    nobody will take; a solve in progress cannot be interrupted, and up to ``_CLARABEL_DIM`` the
    stage may be a Clarabel solve of minutes at N = 74). The thread leaves the process's state
    alone (no warning filters, no BLAS threads of its own: the caller sets those,
    :func:`leakage.design.frequency.solve_frequency` one BLAS thread, which fixes the summation
    order)."""

    def __init__(self, cone: Cone):
        import queue
        import threading

        self._points = queue.Queue()
        self._stop = threading.Event()
        self._done = False
        self._thread = threading.Thread(target=self._run, args=(cone,), name="relaxed-duals", daemon=True)
        self._thread.start()

    def _run(self, cone: Cone) -> None:
        try:
            for point in relaxed_duals(cone):
                if self._stop.is_set():
                    return
                self._points.put(point)
        except BaseException as exc:  # raised again in the caller's thread
            self._points.put(exc)
        finally:
            self._points.put(None)

    def __iter__(self):
        return self

    def __next__(self) -> RelaxedDual:
        if self._done:
            raise StopIteration
        item = self._points.get()
        if item is None:
            self._done = True
            raise StopIteration
        if isinstance(item, BaseException):
            self._done = True
            raise item
        return item

    def close(self) -> None:
        self._stop.set()


def _recertify_small(cone: Cone, lifts, fams: dict, y: float, Z: np.ndarray, w: np.ndarray, alone: dict) -> None:
    """Certify again (in ``fams``, in place) every small lifting (dimension <= N + 1) whose
    certificate loses more than ``_RECERTIFY`` of 1 + |y| and could still set the bound, the
    largest certificate first: one above the all-ones column's value, the large liftings'
    certificates and those already certified again. Alone at the point by SCS first
    (:func:`family_bound_scs`, ``_SMALL_RUNS`` runs), then by :func:`family_bound` (Clarabel) if it
    could still set the bound; the least certificate is kept. A certificate at or below one of
    those does not move the bound, and the interior-point solve is what costs at large N
    (docs/frequency-estimation.md), so it is skipped: the bound is at or above that of certifying
    every loose small lifting again by Clarabel. SCS stops once the certificate is at or below the
    others (``target``); ``alone`` maps the liftings already certified again alone at this point
    to the last solver that did ("scs" or "clarabel", updated in place): a solve is never repeated
    at a point (the same solve gives the same certificate), and a lifting SCS left at or below the
    others gets Clarabel if a later call finds it could set the bound (the others lowered)."""
    n = cone.n
    floor = max([_ones_value(Z, w)] + [fams[l.name] for l in lifts if l.dim > n + 1])
    for lift in sorted((l for l in lifts if l.dim <= n + 1), key=lambda l: -fams[l.name]):
        if fams[lift.name] <= floor:
            break
        if fams[lift.name] - y > _RECERTIFY * (1.0 + abs(y)) and alone.get(lift.name) != "clarabel":
            if lift.name not in alone:
                # alone at the point, SCS first: far cheaper than the interior point at large N
                alone[lift.name] = "scs"
                fams[lift.name] = min(fams[lift.name], family_bound_scs(lift, Z, w, _SMALL_RUNS, target=floor))
            if fams[lift.name] > floor:  # it could still set the bound
                alone[lift.name] = "clarabel"
                fams[lift.name] = min(fams[lift.name], family_bound(lift, Z, w))
        floor = max(floor, fams[lift.name])


def _relaxed_dual_at(cone: Cone, Z: np.ndarray, w: np.ndarray, fams: dict) -> RelaxedDual:
    """The :class:`RelaxedDual` of the point (Z, w) with the liftings' certified bounds ``fams``
    and the all-ones column priced exactly."""
    return RelaxedDual(Z, w, max([_ones_value(Z, w)] + list(fams.values())), fams)


def _ones_value(Z: np.ndarray, w: np.ndarray) -> float:
    """phi of the all-ones column at the dual point (Z, w): |Z^T 1|^2 + w.1 (module docstring)."""
    return float(np.sum((Z.T @ np.ones(Z.shape[0])) ** 2) + w.sum())


#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
