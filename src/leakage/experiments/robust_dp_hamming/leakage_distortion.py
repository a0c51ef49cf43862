"""Privacy-utility tradeoffs under Hamming distortion over a source set (Kalantari, Sankar &
Sarwate, [robust-dp-hamming]): the least DP leakage eps*_DP(P, D) and the least worst-case mutual-information
leakage eps*_I(P, D) of a (P, D)-valid mechanism, exactly (LP and convex programs), and the paper's
closed forms (Theorem 1, Lemma 5) that the exact solvers are checked against.

A mechanism is an M x M row-stochastic matrix ``Q[i, j] = Q(j | i)`` (output alphabet = input
alphabet, Lemma 3). It is (P, D)-valid if its worst-case Hamming distortion
max_{P in conv(points)} sum_i P_i (1 - Q(i|i)) is <= D; this is linear in P, so it is imposed at
the listed points. All leakages are in nats. The paper's distortion level D is the parameter
``distortion`` (``distortions`` for a list), as everywhere in the library.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq, linprog, minimize

from leakage.measures.information import binary_entropy
from leakage.experiments.robust_dp_hamming.source_sets import check_source_set, class_iii_folding
from leakage.validation import check_channel, check_count, check_epsilon, check_positive, check_scalar, check_tolerance

#: Accuracy (nats) of eps*_DP returned by :func:`dp_leakage_distortion`.
EPS_TOL = 1e-8
#: Accuracy (in the mixing weights) of the outer maximisation of :func:`mi_leakage_distortion`.
WEIGHT_TOL = 1e-6
#: Largest finite eps (nats) the D_min LP resolves: its coefficients e^eps reach 6.6e7 there and its
#: answers D_min(eps) >= ~1e-8 (M <= 10) are accurate to ~1e-8 relative; beyond, HiGHS's
#: feasibility tolerance (1e-7) swamps the eps-DP mechanism's smallest entries (~e^-eps), and the
#: LP's answer is wrong (by 50% at eps = 20, all zero from eps = 24). Beyond it the exact closed
#: form of :func:`closed_form_reach` answers (for every set, from the eps that function gives on);
#: eps = inf is exact (identity).
EPS_REACH = 18.0
#: Relative accuracy of "D_min(eps) <= D" in the eps*_DP search (with an absolute cap of 1e-10).
REL_SLACK = 1e-6


def _slack(distortion: float) -> float:
    """LP accuracy allowed when testing D_min(eps) <= D: relative to D (never more than 1e-10), so
    that a tiny budget is not met by a mechanism with many times its distortion."""
    return min(1e-10, REL_SLACK * distortion)


def check_distortion(distortion, name: str = "distortion") -> float:
    """A Hamming distortion level D in (0, 1]."""
    return check_scalar(distortion, name, low=0.0, high=1.0, low_inclusive=False)


def _distortion_list(distortions) -> list[float]:
    """A non-empty list of Hamming distortion levels, each in (0, 1] (a scalar is one level)."""
    from leakage.validation import check_list

    if np.ndim(distortions) == 0 and not isinstance(distortions, (str, bytes, dict)) and distortions is not None:
        distortions = [distortions]
    return check_list(distortions, "distortions", check_distortion)


def _distortions_in(distortion) -> np.ndarray:
    """Hamming distortion levels (vectorised, not empty), each in (0, 1]."""
    from leakage.validation import check_array

    d = check_array(distortion, "distortion", high=1.0)
    if np.any(d <= 0):
        raise ValueError(f"distortion must be in (0, 1], got min {d.min()!r}")
    return d


def worst_case_distortion(channel, points) -> float:
    """max_{P in conv(points)} sum_i P_i (1 - Q(i|i)): worst-case expected Hamming distortion of Q.

    [robust-dp-hamming] Definition 2 ((P, D)-validity: this is <= D). Unitless, in [0, 1]; ``channel`` is
    M x M (``Q[i, j] = Q(j|i)``).
    """
    q = check_channel(channel)
    p = check_source_set(points)
    if q.shape != (p.shape[1], p.shape[1]):
        raise ValueError(f"channel must be M x M = {p.shape[1]} x {p.shape[1]}, got {q.shape}")
    return float((p @ (1.0 - np.diag(q))).max())


# ------------------------------------------------------------------------------------ closed forms
def class_i_dp_leakage(M: int, distortion):
    """Theorem 1 [robust-dp-hamming, eq. (8)]: eps*_DP of a Class I source set, nats.

    eps*_DP = log((M-1)(1-D)/D) for 0 < D < (M-1)/M, and 0 for (M-1)/M <= D <= 1; M >= 2.
    Vectorised over D.
    """
    M = check_count(M, "M", low=2)
    d = _distortions_in(distortion)
    with np.errstate(divide="ignore"):  # np.where evaluates both branches: log 0 at D = 1
        out = np.where(d < (M - 1) / M, np.log((M - 1) * (1 - d) / d), 0.0)
    out = np.maximum(out, 0.0)
    return float(out) if out.ndim == 0 else out


def class_i_mi_leakage(M: int, distortion):
    """Lemma 5 [robust-dp-hamming, eq. (24)]: eps*_I of a Class I source set, nats.

    eps*_I = log M - h(D) - D log(M-1) for 0 < D < (M-1)/M, else 0 (h: binary entropy, nats);
    M >= 2. Vectorised over D.
    """
    M = check_count(M, "M", low=2)
    d = _distortions_in(distortion)
    dc = np.clip(d, 0.0, 1.0)
    val = np.log(M) - binary_entropy(dc) - dc * np.log(M - 1)
    out = np.where(d < (M - 1) / M, np.maximum(val, 0.0), 0.0)
    return float(out) if out.ndim == 0 else out


# ------------------------------------------------------------------ DP leakage: the large-eps end
def closed_form_reach(points) -> tuple[float, int]:
    """``(eps_c, M')``: from eps = eps_c on, D_min(eps) = (M'-1)/(e^eps + M'-1) exactly, reached by
    randomized response on the M' letters that have positive probability in some point.

    Proof. Letters of probability 0 in every point cost nothing: their columns can be all zero
    and their rows copies of another row (post-processing the other way never increases the
    distortion), so D_min is that of the M' present letters. For an eps-DP Q on them,
    Q(j|j) <= e^eps Q(j|i), so every row's distortion e_i = 1 - Q(i|i) satisfies
    e^eps e_i + sum_{j != i} e_j >= M' - 1 (sum of Q(j|i) >= Q(j|j)/e^eps over j != i). The LP
    min_e max_P P.e under these constraints bounds D_min from below; if some P in conv(points)
    has min_i P_i >= 1/(e^eps + M' - 1), the dual point lambda_i = (P_i - 1/(e^eps + M' - 1)) /
    (e^eps - 1) certifies the bound (M'-1)/(e^eps + M'-1), which randomized response meets for
    every P (its distortion does not depend on P) [robust-dp-hamming, Theorem 1 is the Class I
    case, where the uniform point gives eps_c = 0]. So eps_c = log(1/pi* - M' + 1) with
    pi* = max_{P in conv(points)} min_i P_i over the present letters (one small LP). M' = 1:
    D_min = 0 for every eps (eps_c = 0).
    """
    p = check_source_set(points)
    present = p.max(axis=0) > 0
    m = int(present.sum())
    if m == 1:
        return 0.0, 1
    q = p[:, present]
    if q.shape[0] == 1:
        pi_star = float(q.min())
    else:  # max t s.t. sum_k w_k P^k_i >= t for every present i, w in the simplex
        n = q.shape[0]
        res = linprog(
            np.r_[np.zeros(n), -1.0], A_ub=np.hstack([-q.T, np.ones((m, 1))]), b_ub=np.zeros(m),
            A_eq=np.r_[np.ones(n), 0.0][None, :], b_eq=[1.0], bounds=[(0, None)] * n + [(None, None)],
            method="highs",
        )
        if res.status != 0:  # pragma: no cover - a bounded feasible LP
            raise RuntimeError(f"closed_form_reach: the LP max_P min_i P_i failed: {res.message}")
        pi_star = float(-res.fun)
    if pi_star <= 0:  # pragma: no cover - every present letter has mass at some point, so the mixture does
        return math.inf, m
    return float(math.log(max(1.0, 1.0 / pi_star - m + 1))), m


def _randomized_response_on(present: np.ndarray, eps: float) -> np.ndarray:
    """Randomized response at eps on the present letters; absent letters: zero columns, rows copying
    the first present letter's row (eps-DP, distortion (M'-1)/(e^eps + M'-1) at every P)."""
    m = present.size
    idx = np.flatnonzero(present)
    k = idx.size
    off = math.exp(-eps)  # 0 at eps = inf: the identity
    rr = (np.eye(k) + off * (1.0 - np.eye(k))) / (1.0 + (k - 1) * off)
    q = np.zeros((m, m))
    q[np.ix_(idx, idx)] = rr
    q[~present] = q[idx[0]]
    return q


def _closed_form_distortion(eps: float, m: int) -> tuple[float, float]:
    """(D, dD/deps) of randomized response on m letters: (m-1)/(e^eps + m-1), written with e^-eps."""
    a = math.exp(-eps)
    d = (m - 1) * a / (1.0 + (m - 1) * a)
    return d, -d * (1.0 - d * m / (m - 1)) if m > 1 else 0.0


# ------------------------------------------------------------------------------ DP leakage: the LP
class _MinDistortionLP:
    """D_min(eps) = min over eps-DP mechanisms Q of the worst-case distortion over ``points``.

    Variables z = (Q row-major (M^2), lo (M), hi (M), t). The DP condition
    max_i Q(j|i) <= e^eps min_i Q(j|i) of every column j is written leanly as
    lo_j <= Q(j|i) <= hi_j (2 M^2 rows) and hi_j <= e^eps lo_j (M rows), instead of the
    M^2 (M-1) pairwise ratios; an all-zero column (lo_j = hi_j = 0) is allowed. Validity:
    1 - sum_i P_i Q(i|i) <= t for every listed point P. Rows of Q sum to one. Minimise t.
    Only the M coefficients -e^eps change with eps, so the matrix is built once.
    """

    def __init__(self, points: np.ndarray):
        self.points = points
        n, m = points.shape
        self.m = m
        self.present = points.max(axis=0) > 0
        self.eps_closed, self.m_present = closed_form_reach(points)
        nq = m * m
        self.i_lo, self.i_hi, self.i_t = nq, nq + m, nq + 2 * m
        nvar = nq + 2 * m + 1
        rows, cols, vals = [], [], []
        r = 0
        qi = np.arange(nq)
        col_of = qi % m
        # Q(j|i) - hi_j <= 0
        rows += [r + qi, r + qi]
        cols += [qi, self.i_hi + col_of]
        vals += [np.ones(nq), -np.ones(nq)]
        r += nq
        # lo_j - Q(j|i) <= 0
        rows += [r + qi, r + qi]
        cols += [self.i_lo + col_of, qi]
        vals += [np.ones(nq), -np.ones(nq)]
        r += nq
        # hi_j - e^eps lo_j <= 0 ; the e^eps entries are the last m values
        j = np.arange(m)
        rows += [r + j, r + j]
        cols += [self.i_hi + j, self.i_lo + j]
        vals += [np.ones(m), -np.ones(m)]
        r += m
        # - sum_i P_i Q(i|i) - t <= -1
        diag = np.arange(m) * (m + 1)
        rows += [np.repeat(r + np.arange(n), m), r + np.arange(n)]
        cols += [np.tile(diag, n), np.full(n, self.i_t)]
        vals += [-points.ravel(), -np.ones(n)]
        r += n
        self.a_ub = sp.coo_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, nvar)
        ).tocsr()
        self.a_ub.sort_indices()
        # positions of the -e^eps coefficients in the CSR data
        coo_rows = 2 * nq + j
        self._eps_pos = np.array(
            [
                self.a_ub.indptr[row]
                + np.flatnonzero(self.a_ub.indices[self.a_ub.indptr[row] : self.a_ub.indptr[row + 1]] == self.i_lo + jj)[0]
                for row, jj in zip(coo_rows, j)
            ]
        )
        self.b_ub = np.concatenate([np.zeros(2 * nq + m), -np.ones(n)])
        self.a_eq = sp.coo_matrix(
            (np.ones(nq), (qi // m, qi)), shape=(m, nvar)
        ).tocsr()
        self.b_eq = np.ones(m)
        self.cost = np.zeros(nvar)
        self.cost[self.i_t] = 1.0
        self.bounds = (0.0, 1.0)  # Q, lo, hi and t all lie in [0, 1]

    def solve(self, eps: float):
        """(D_min(eps), an optimal Q, dD_min/d eps): by the LP for eps <= EPS_REACH, by the closed
        form of :func:`closed_form_reach` beyond (and at eps = inf: the identity, D_min = 0).

        The slope is returned, not stored: the program keeps no state between calls."""
        if math.isinf(eps):  # no DP constraint: the identity has distortion 0
            return 0.0, np.eye(self.m), 0.0
        if eps > EPS_REACH:
            if eps >= self.eps_closed:
                d, slope = _closed_form_distortion(eps, self.m_present)
                return d, _randomized_response_on(self.present, eps), slope
            raise ValueError(
                f"eps = {eps:.6g} nats is out of reach of the exact D_min (M = {self.m}): beyond "
                f"{EPS_REACH:g} nats the LP cannot resolve the mechanism's entries (~e^-eps), and this "
                f"set's closed form holds only from eps = {self.eps_closed:.6g} on (its points come within "
                f"e^-eps of zero on a letter); eps must be in [0, {EPS_REACH:g}] or >= {self.eps_closed:.6g}, "
                f"where D_min(eps) = (M'-1)/(e^eps + M'-1) with M' = {self.m_present}"
            )
        x = np.exp(eps)
        a = self.a_ub.copy()
        a.data[self._eps_pos] = -x
        res = linprog(
            self.cost, A_ub=a, b_ub=self.b_ub, A_eq=self.a_eq, b_eq=self.b_eq,
            bounds=self.bounds, method="highs", options={"presolve": False},
        )
        if res.status != 0:
            raise RuntimeError(
                f"min_distortion_dp: the LP min worst-case distortion over eps-DP mechanisms "
                f"(eps = {eps:.6g}, M = {self.m}) failed: {res.message}"
            )
        q = res.x[: self.m * self.m].reshape(self.m, self.m)
        q = np.clip(q, 0.0, None)
        # a column with min_i Q(j|i) ~ 0 has max_i Q(j|i) <= e^eps * 0: all-zero up to round-off
        q[:, q.min(axis=0) <= 1e-12] = 0.0
        rows = q.sum(axis=1, keepdims=True)
        if not np.all(rows > 0) or not np.isfinite(res.x[self.i_t]):  # pragma: no cover - guard
            raise RuntimeError(
                f"min_distortion_dp: the LP at eps = {eps:.6g} (M = {self.m}) returned no usable "
                f"mechanism (a row vanished after removing round-off)"
            )
        q /= rows
        # dD_min/d eps by LP sensitivity: the rows hi_j - x lo_j <= 0 have coefficient -x on lo_j,
        # and dV/da_rk = -marginal_r z_k, so dV/dx = sum_j marginal_j lo_j; times dx/deps = x.
        nq = self.m * self.m
        marg = res.ineqlin.marginals[2 * nq : 2 * nq + self.m]
        slope = float(x * marg @ res.x[self.i_lo : self.i_lo + self.m])
        return float(res.x[self.i_t]), q, slope


def min_distortion_dp(points, eps):
    """D_min(eps): least worst-case Hamming distortion of an eps-DP mechanism, and the mechanism.

    D_min(eps) = min_Q max_{P in conv(points)} sum_i P_i (1 - Q(i|i)) over row-stochastic M x M Q
    with Q(j|i) <= e^eps Q(j|i') for all i, i', j [robust-dp-hamming, Definitions 2-3; the LP of
    the paper's problem (13)]. Non-increasing in eps >= 0 (nats); value in [0, 1].
    The LP answers eps <= EPS_REACH (18 nats); beyond, the exact closed form (M'-1)/(e^eps + M'-1)
    of :func:`closed_form_reach` (randomized response on the M' letters present in the set), which
    holds from that function's eps_c on: for every set whose present letters all keep probability
    >= ~e^-18 at some point of its hull, every eps. eps = inf gives D_min = 0, Q = I. A set with a
    letter rarer than that, at an eps between 18 and its eps_c, is refused (ValueError).
    Returns ``(D_min, Q)``.
    """
    p = check_source_set(points)
    eps = check_epsilon(eps)
    d, q, _ = _MinDistortionLP(p).solve(eps)
    return min(max(d, 0.0), 1.0), q  # a distortion: the LP's rounding (e.g. -1.6e-16 at D_min = 0) clipped


def dp_mechanism(points, distortion, eps):
    """A (P, D)-valid eps-DP mechanism (the least-distortion one), or ValueError if none exists.

    Exists iff D >= D_min(eps) (see :func:`min_distortion_dp`); D in (0, 1], eps >= 0 (nats, inf
    allowed; the same reach as :func:`min_distortion_dp`).
    """
    distortion = check_distortion(distortion)
    d_min, q = min_distortion_dp(points, eps)
    if d_min > distortion + min(1e-9, REL_SLACK * distortion):
        raise ValueError(
            f"no (P, D)-valid mechanism with eps_DP <= eps = {float(eps):.6g} nats: distortion must be in "
            f"[D_min(eps), 1] = [{d_min:.6g}, 1], got distortion = {distortion:.6g}"
        )
    return q


@dataclass(frozen=True)
class DPSolution:
    """eps*_DP(P, D) (nats) and an optimal (P, D)-valid mechanism reaching it."""

    eps: float
    mechanism: np.ndarray


def _dp_solve(lp: _MinDistortionLP, distortion: float, tol: float, *, d0=None, start=None):
    """min{eps >= 0 : D_min(eps) <= D}: safeguarded Newton on f(eps) = D_min(eps) - D.

    f is non-increasing; its slope comes from the LP's dual values (:class:`_MinDistortionLP`).
    A bracket [lo, hi] with f(lo) > 0 >= f(hi) is kept; a Newton step that leaves it, or a flat
    piece (the plateau before a jump), falls back to bisection. Stops when the bracket is shorter
    than ``tol`` or a valid eps has |f| <= tol |f'| (Newton's error estimate), so the answer is
    within ``tol`` nats. ``d0`` = (D_min(0), Q) may be reused; ``start`` = (eps, D_min(eps),
    slope) of a known valid eps (default: Theorem 1's value, valid for every source set since its
    symmetric mechanism is (P, D)-valid whatever P). The returned mechanism is (P, D)-valid and
    reaches the returned eps. Returns ``(solution, (eps, D_min(eps), slope))``, the second a valid
    ``start`` for a larger D (nothing is stored on ``lp``). A D below D_min at max(EPS_REACH, eps_c)
    is answered by the closed form of :func:`closed_form_reach`, eps*_DP = log((M'-1)(1-D)/D)
    (exact: D_min is (M'-1)/(e^eps + M'-1) there); ValueError when eps*_DP lies between
    EPS_REACH and eps_c (a set with a letter rarer than ~e^-18, at a D the LP cannot resolve).
    """
    slack = _slack(distortion)  # LP accuracy: D_min(eps) <= D + slack counts as valid
    d_zero, q_zero = d0 if d0 is not None else lp.solve(0.0)[:2]
    if d_zero <= distortion + slack:
        return DPSolution(0.0, q_zero), None
    eps_c = max(EPS_REACH, lp.eps_closed)
    if math.isfinite(eps_c) and lp.m_present > 1 and distortion < _closed_form_distortion(eps_c, lp.m_present)[0]:
        # beyond eps_c: D_min(eps) = (M'-1)/(e^eps + M'-1), strictly decreasing, so its inverse
        eps = math.log(lp.m_present - 1) + math.log1p(-distortion) - math.log(distortion)
        d, slope = _closed_form_distortion(eps, lp.m_present)
        return DPSolution(float(eps), _randomized_response_on(lp.present, eps)), (eps, d, slope)
    if start is None:
        hi = min(float(class_i_dp_leakage(lp.m, distortion)) + 1e-9, EPS_REACH)
        d_hi, q_hi, slope = lp.solve(hi)
        while d_hi > distortion + slack:  # guards LP round-off, and budgets beyond the LP's reach
            if hi >= EPS_REACH:
                raise ValueError(
                    f"distortion = {distortion:.6g} is out of reach of the exact eps*_DP search (M = {lp.m}): it needs "
                    f"eps > {EPS_REACH:g} nats, where the LP cannot resolve D_min(eps) (<= "
                    f"{d_hi:.3g} at eps = {EPS_REACH:g}); distortion must be >= {d_hi:.6g}"
                )
            hi = min(2 * hi + 1.0, EPS_REACH)
            d_hi, q_hi, slope = lp.solve(hi)
        f_hi = d_hi - distortion
    else:
        hi, f_hi, slope = start[0], start[1] - distortion, start[2]
        q_hi = None
    lo = 0.0
    best = (hi, q_hi, f_hi, slope)
    e, f, g = hi, f_hi, slope
    for _ in range(200):
        if hi - lo <= tol or (f <= slack and -f <= tol * abs(g)):
            break
        step_ok = g < 0 and lo < e - f / g < hi
        e = e - f / g if step_ok else 0.5 * (lo + hi)
        d, q, g = lp.solve(e)
        f = d - distortion
        if f <= slack:
            hi = e
            best = (e, q, f, g)
        else:
            lo = e
    else:  # pragma: no cover
        raise RuntimeError(f"dp_leakage_distortion: the search for eps*_DP(D = {distortion:.6g}) did not converge")
    e, q, f, g = best
    if q is None:  # the start point was the answer: recompute its mechanism
        q = lp.solve(e)[1]
    return DPSolution(float(e), q), (e, f + distortion, g)


def dp_leakage_distortion(points, distortion, *, tol: float = EPS_TOL) -> DPSolution:
    """eps*_DP(P, D) = min over (P, D)-valid Q of eps_DP(Q), exactly, with an optimal Q.

    eps*_DP(P, D) = min{eps : D_min(eps) <= D} [robust-dp-hamming, eq. (6); D_min of
    :func:`min_distortion_dp`], found by Brent's method on [0, Theorem 1's value] to ``tol`` nats;
    a jump of eps*_DP at a threshold D^(k) is resolved exactly (no smoothing). D in (0, 1].
    """
    p = check_source_set(points)
    distortion = check_distortion(distortion)
    tol = check_tolerance(tol)
    return _dp_solve(_MinDistortionLP(p), distortion, tol)[0]


def dp_leakage_curve(points, distortions, *, tol: float = EPS_TOL) -> np.ndarray:
    """eps*_DP(P, D) (nats) for every D in ``distortions`` (each in (0, 1]).

    One LP matrix is reused; D is visited in increasing order so that the previous (smaller D)
    answer, feasible for the larger D, brackets the search (eps*_DP is non-increasing in D).
    """
    p = check_source_set(points)
    ds = np.array(_distortion_list(distortions))
    tol = check_tolerance(tol)
    lp = _MinDistortionLP(p)
    d0 = lp.solve(0.0)[:2]
    out = np.empty(ds.size)
    start = None
    for k in np.argsort(ds, kind="stable"):
        sol, last = _dp_solve(lp, float(ds[k]), tol, d0=d0, start=start)
        out[k] = sol.eps
        start = last if 0 < sol.eps <= EPS_REACH else None  # a closed-form answer brackets nothing
    return out


# ----------------------------------------------------------- Class III: Theorem 3's bounds
def theorem3_bounds_curve(points, distortions, *, tol: float = EPS_TOL):
    """Theorem 3's lower and upper bounds on eps*_DP(P, D) (nats) of a Class III set, per D.

    [robust-dp-hamming] Theorem 3 (eqs. (16)-(18)): with the pieces P|_T (eq. (13)), their folded
    equivalents T(P|_T) in S_P (eq. (14)), P^LB = their intersection and P^UB = their union
    (eq. (15)), the sets P_LB = U_T T^{-1}(P^LB) ⊂ P ⊂ P_UB = U_T T^{-1}(P^UB) give
    eps*_DP(P_LB, D) <= eps*_DP(P, D) <= eps*_DP(P_UB, D), since eps*_DP grows with the set.
    The bounds are computed as the exact eps*_DP of P_LB and P_UB by the LP of
    :func:`dp_leakage_curve` (equivalently eq. (18): Theorem 2 on P^LB, P^UB with the extra
    constraint D_i = D_T(i)). If P^LB is empty, the lower bound is that of Remark 4:
    max_T eps*_DP(P|_T, D) (each piece is a subset of P). If P^LB = P^UB the bounds coincide
    with eps*_DP(P, D) (Corollary 1, Remark 6). D in (0, 1]; ValueError if P is not Class III.
    Returns ``(lower, upper)`` arrays.
    """
    tol = check_tolerance(tol)
    p = check_source_set(points)
    ds = np.array(_distortion_list(distortions))
    f = class_iii_folding(p)
    upper = dp_leakage_curve(f.upper_set(), ds, tol=tol)
    if f.lower.shape[0]:
        lower = dp_leakage_curve(f.lower_set(), ds, tol=tol)
    else:  # Remark 4
        lower = np.max([dp_leakage_curve(piece, ds, tol=tol) for piece in f.pieces], axis=0)
    return lower, upper


def theorem3_bounds(points, distortion, *, tol: float = EPS_TOL) -> tuple[float, float]:
    """(lower, upper): Theorem 3's bounds on eps*_DP(P, D) at one D, nats; see
    :func:`theorem3_bounds_curve` [robust-dp-hamming, eqs. (13)-(18), Remarks 4 and 6]."""
    distortion = check_distortion(distortion)
    lower, upper = theorem3_bounds_curve(points, [distortion], tol=tol)
    return float(lower[0]), float(upper[0])


# --------------------------------------------------------------- MI leakage: the minimax program
class _MinInformationProgram:
    """g(P) = min over (points, D)-valid Q of I(P; Q), a convex program compiled once (cvxpy DPP).

    Variables Q (M x M, rows sum to 1, >= 0) and the output marginal y = sum_i P_i Q(.|i);
    I(P; Q) = sum_{i,j} rel_entr(P_i Q(j|i), P_i y_j) (jointly convex), validity
    1 - sum_i P'_i Q(i|i) <= D at every listed point P'. P and D are cvxpy parameters, so each
    solve only refills the data. Solved with CLARABEL (SCS as a fallback).
    """

    def __init__(self, points: np.ndarray):
        import cvxpy as cp

        self.cp = cp
        self.points = points
        m = points.shape[1]
        self.m = m
        self.p_rows = cp.Parameter((m, m), nonneg=True)  # P_i repeated along each row
        self.p_col = cp.Parameter((m, 1), nonneg=True)
        self.d = cp.Parameter(nonneg=True)
        self.q = cp.Variable((m, m), nonneg=True)
        self.y = cp.Variable((1, m), nonneg=True)
        joint = cp.multiply(self.p_rows, self.q)
        objective = cp.sum(cp.rel_entr(joint, self.p_col @ self.y))
        constraints = [
            cp.sum(self.q, axis=1) == 1,
            cp.reshape(cp.sum(joint, axis=0), (1, m), order="C") == self.y,
            1 - points @ cp.diag(self.q) <= self.d,
        ]
        self.problem = cp.Problem(cp.Minimize(objective), constraints)

    def solve(self, prior: np.ndarray, distortion: float):
        cp = self.cp
        self.p_rows.value = np.repeat(prior[:, None], self.m, axis=1)
        self.p_col.value = prior[:, None].copy()
        self.d.value = distortion
        status = None
        for solver in ("CLARABEL", "SCS"):
            try:
                self.problem.solve(solver=solver)
                status = self.problem.status
            except cp.error.SolverError as exc:  # pragma: no cover - depends on the solver
                status = f"solver error: {exc}"
                continue
            if status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
                break
        if status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
            raise RuntimeError(
                f"mi_leakage_distortion: the convex program min I(P; Q) over (P, D)-valid Q "
                f"(M = {self.m}, D = {distortion:.6g}) failed: status {status}"
            )
        q = np.clip(self.q.value, 0.0, None)
        q /= q.sum(axis=1, keepdims=True)
        return max(0.0, float(self.problem.value)), q


def _information_gradient(channel: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """dI(P; Q)/dP_i + 1 = D(Q(.|i) || P Q), nats: Danskin's gradient of min_Q I(P; Q) in P."""
    y = prior @ channel
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(channel > 0, channel * np.log(channel / np.where(y > 0, y, 1.0)), 0.0)
    return terms.sum(axis=1)


@dataclass(frozen=True)
class MISolution:
    """eps*_I(P, D) (nats), an optimal mechanism and the worst distribution in conv(points)."""

    eps: float
    mechanism: np.ndarray
    worst_prior: np.ndarray


def _mi_solve(prog: _MinInformationProgram, distortion: float, tol: float) -> MISolution:
    pts = prog.points
    n = pts.shape[0]
    if n == 1:
        val, q = prog.solve(pts[0], distortion)
        return MISolution(val, q, pts[0].copy())
    if n == 2:
        # g(lam) = min_Q I((1-lam) P0 + lam P1; Q) is concave in lam, with Danskin's derivative
        # g'(lam) = (P1 - P0) . D(Q*_i || y*) (non-increasing). Its maximum over [0, 1] is at an
        # end where g' has the right sign, else at the root of g' (Brent, to ``tol`` in lam).
        cache = {}

        def slope(lam):
            prior = (1 - lam) * pts[0] + lam * pts[1]
            val, q = prog.solve(prior, distortion)
            cache[lam] = (val, q, prior)
            return float((pts[1] - pts[0]) @ _information_gradient(q, prior))

        s0, s1 = slope(0.0), slope(1.0)
        if s0 > 0 > s1:
            brentq(slope, 0.0, 1.0, xtol=tol, maxiter=200)
        val, q, prior = max(cache.values(), key=lambda item: item[0])
        return MISolution(val, q, prior)
    # more points: maximise the concave g(w) = min_Q I(sum_k w_k P_k; Q) over the simplex of
    # weights w, with Danskin's gradient dg/dw_k = sum_i P_k,i D(Q_i || y) - 1 (SLSQP).
    cache = {}

    def neg_g_and_grad(w):
        w = np.clip(w, 0.0, None)
        w = w / w.sum()
        prior = w @ pts
        val, q = prog.solve(prior, distortion)
        cache[tuple(w)] = (val, q, prior)
        return -val, -(pts @ _information_gradient(q, prior) - 1.0)

    w0 = np.full(n, 1.0 / n)
    minimize(neg_g_and_grad, w0, jac=True, method="SLSQP", bounds=[(0.0, 1.0)] * n,
             constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1.0,
                           "jac": lambda w: np.ones_like(w)}],
             options={"ftol": 1e-10, "maxiter": 200})
    for k in range(n):  # vertices too: the maximum may sit at one
        neg_g_and_grad(np.eye(n)[k])
    val, q, prior = max(cache.values(), key=lambda item: item[0])
    return MISolution(val, q, prior)


def mi_leakage_distortion(points, distortion, *, tol: float = WEIGHT_TOL) -> MISolution:
    """eps*_I(P, D): least worst-case mutual-information leakage of a (P, D)-valid mechanism.

    eps*_I(P, D) = min_Q max_{P in conv(points)} I(P; Q) = max_{P in conv(points)} min_Q I(P; Q)
    over (P, D)-valid Q [robust-dp-hamming, eqs. (20)-(22); minimax since I is convex in Q and concave in
    P]. Inner: convex program (cvxpy, CLARABEL); outer: concave maximisation over the mixing
    weights (none for one point; for a segment, Brent's root of the non-increasing Danskin
    derivative to ``tol`` in the weight; SLSQP with Danskin's gradient for more points). Nats, >= 0; D in (0, 1].
    """
    tol = check_tolerance(tol)
    p = check_source_set(points)
    distortion = check_distortion(distortion)
    return _mi_solve(_MinInformationProgram(p), distortion, tol)


def mi_leakage_curve(points, distortions, *, tol: float = WEIGHT_TOL) -> np.ndarray:
    """eps*_I(P, D) (nats) for every D in ``distortions`` (each in (0, 1]); one program compiled."""
    tol = check_tolerance(tol)
    p = check_source_set(points)
    ds = _distortion_list(distortions)
    prog = _MinInformationProgram(p)
    return np.array([_mi_solve(prog, d, tol).eps for d in ds])
