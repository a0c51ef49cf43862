"""Privacy against statistical inference (Calmon & Fawaz, [statistical-inference]), in nats.

Setting: a private variable S and data Y with joint distribution ``joint[s, y] = p(S=s, Y=y)``; the
user releases U through a privacy-preserving channel ``channel[y, u] = p(U=u | Y=y)``
(S -> Y -> U), under a distortion measure ``distortion_measure[y, u] = d(y, u) >= 0`` and a budget
E d(Y, U) <= distortion. Argument order follows the project: the channel before the
distribution (joint or prior).

* average information leakage I(S; U) (Definition 3) and its minimum under a distortion budget,
  a convex program (Theorem 1, (14)-(17)); Remark 3's variant where U may depend on S as well;
  Corollary 1 (Y = f(S): the rate-distortion problem min I(Y; U));
* maximum information leakage max_u H(S) - H(S | U=u) (Definition 4): the minimum distortion under
  a leakage level is a convex program (Theorem 2, (29)-(32)); the minmax leakage at a distortion
  budget is found by bisection on that level; Corollary 2 (Y = f(S): max_u D(p_{Y|U=u} || zeta),
  zeta(y) proportional to e^{H(S|Y=y)});
* the counting query (Examples 1, 2): S_i iid Bernoulli(p), Y = sum_i S_i, H(S | Y=y) = log C(n, y);
* information privacy (Definition 6) and Theorem 3's implications;
* Theorem 4: the truncated geometric eps-DP mechanism on the counting query with the comb prior (45).

Convex programs use cvxpy with CLARABEL (SCS as fallback), both installed as wheels; a solver
failure raises ``RuntimeError`` naming the program and the solver status.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln, rel_entr, xlogy

from leakage.measures.information import entropy, mutual_information
from leakage.validation import (
    _as_float_array,
    check_array,
    check_tolerance,
    check_array_size,
    SUM_TOL,
    check_channel,
    check_count,
    check_distribution,
    check_epsilon,
    check_positive,
    check_probability,
    check_scalar,
)

#: Solvers tried in order; both ship as wheels and handle exponential cones.
SOLVERS = ("CLARABEL", "SCS")

#: Relative slack when comparing a solver's distortion with the budget (solver accuracy ~1e-8).
_FEAS_TOL = 1e-7

#: Largest database size of the explicit counting-query joint (2^n private states).
MAX_EXPLICIT_N = 16

#: Largest conditional entropy H(S | Y = y) in nats (Corollary 2): e^H must be a float.
MAX_ENTROPY = 700.0


def _budget_list(distortions) -> list:
    """``distortions`` as a non-empty list of budgets (a scalar is one budget)."""
    if isinstance(distortions, (str, bytes, dict)) or distortions is None:
        raise TypeError(f"distortions must be a list of distortion budgets, got {distortions!r:.200}")
    arr = np.atleast_1d(np.asarray(distortions, dtype=object))
    if arr.ndim != 1:
        raise ValueError(f"distortions must be a 1-D list of budgets, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError("distortions must list at least one budget")
    return list(arr)


@dataclass(frozen=True)
class Solution:
    """The result of a privacy-mapping design program.

    ``leakage`` (nats) is the optimal value, ``distortion`` the expected distortion
    E d(Y, U) of ``channel`` (``channel[y, u] = p(u | y)``; for Remark 3 ``channel[s, y, u] =
    p(u | y, s)``).
    """

    leakage: float
    distortion: float
    channel: np.ndarray


# ----------------------------------------------------------------------------- validation


def check_joint(joint, name: str = "joint") -> np.ndarray:
    """Return a joint distribution matrix ``joint[s, y]`` after checking entries >= 0, sum 1."""
    j = _as_float_array(joint, name, 2)  # a finite, non-empty |S| x |Y| matrix
    if np.any(j < -SUM_TOL):
        raise ValueError(f"{name} must have entries in [0, 1], got min {j.min():.6g}")
    total = float(j.sum())
    if abs(total - 1.0) > max(SUM_TOL, SUM_TOL * j.size):
        raise ValueError(f"{name} must sum to 1 (a joint distribution p(s, y)), got sum {total:.12g}")
    return np.clip(j, 0.0, None)


def check_distortion(distortion_measure, rows: int, name: str = "distortion_measure") -> np.ndarray:
    """Return a distortion matrix ``d[y, u] >= 0`` with ``rows`` rows (one per value of Y), finite."""
    rows = check_count(rows, "rows")
    d = check_array(distortion_measure, name, ndim=2, empty=True)
    if d.shape[0] != rows or d.shape[1] == 0:
        raise ValueError(f"{name} must be a {rows} x |U| matrix d[y, u] ({rows} rows), got shape {d.shape}")
    if np.any(d < 0):
        raise ValueError(f"{name} must be non-negative (d: Y x U -> R+), got min {d.min():.6g}")
    return d


def _check_budget(distortion, prior_y, d, what: str, name: str = "distortion") -> float:
    """A distortion budget (parameter ``name``) >= the least achievable expected distortion
    sum_y p(y) min_u d(y, u) (``inf``: no constraint)."""
    distortion = check_scalar(distortion, name, low=0.0)
    floor = float(prior_y @ d.min(axis=1))
    if distortion < floor - 1e-12:
        raise ValueError(
            f"{name} must be >= {floor:.6g} = sum_y p(y) min_u distortion_measure[y, u], the smallest "
            f"achievable expected distortion of {what}; got {distortion!r} (infeasible distortion budget)"
        )
    return distortion


def _effective_budget(budget: float, prior_y, d) -> float:
    """The budget the programs need: every budget >= D0 = min_u sum_y p(y) d(y, u) (the best
    constant release, which leaks nothing) has the same optimum, leakage 0, so a larger (or
    infinite) budget is solved at 2 D0 + 1 (finite for the solver, with room above D0)."""
    return min(budget, 2.0 * float((prior_y @ d).min()) + 1.0)


def _scale(d: np.ndarray) -> float:
    """A positive factor bringing a distortion measure with entries beyond 1e6 to at most 1 for the
    convex solvers (the programs' optima do not change when d and the budget are scaled together);
    1 otherwise, so that ordinary measures are solved exactly as given."""
    top = float(d.max())
    return top if top > 1e6 else 1.0


def _one_budget(curve, *args):
    """The single-budget program as its curve at ``[distortion]``, its errors naming ``distortion``."""
    try:
        return curve(*args)[0]
    except (ValueError, TypeError) as exc:
        text = str(exc)
        if text.startswith("distortions[0]"):
            raise type(exc)("distortion" + text[len("distortions[0]"):]) from None
        raise


# ----------------------------------------------------------------------------- measures


def expected_distortion(channel, prior_y, distortion_measure) -> float:
    """E d(Y, U) = sum_{y,u} p(y) p(u|y) d(y, u) (Calmon & Fawaz, [statistical-inference], Definition 2, (6)).

    Units of d; ``channel[y, u] = p(u|y)`` row-stochastic, ``prior_y`` a distribution on Y.
    """
    m = check_channel(channel, "channel")
    p = check_distribution(prior_y, "prior_y")
    d = check_distortion(distortion_measure, p.size)
    if m.shape != d.shape:
        raise ValueError(f"channel has shape {m.shape} but distortion_measure has shape {d.shape}")
    return float(p @ (m * d).sum(axis=1))


def _release_joint(channel, joint) -> np.ndarray:
    """p(s, u) = sum_y p(s, y) p(u|y) [statistical-inference, (16)-(17)]."""
    m = check_channel(channel, "channel")
    j = check_joint(joint)
    if m.shape[0] != j.shape[1]:
        raise ValueError(f"channel has {m.shape[0]} rows but joint has {j.shape[1]} values of Y")
    return j @ m


def average_information_leakage(channel, joint) -> float:
    """Average information leakage I(S; U) = E_U D(p_{S|U} || p_S), nats [statistical-inference, Def. 3, (9)].

    ``channel[y, u] = p(u|y)``, ``joint[s, y] = p(s, y)``; S -> Y -> U. Range [0, H(S)].
    """
    su = _release_joint(channel, joint)
    p_s = su.sum(axis=1)
    keep = p_s > 0
    return mutual_information(su[keep] / p_s[keep, None], p_s[keep])


def maximum_information_leakage(channel, joint) -> float:
    """Maximum information leakage max_{u: p(u)>0} H(S) - H(S|U=u), nats [statistical-inference, Def. 4].

    ``channel[y, u] = p(u|y)``, ``joint[s, y] = p(s, y)``. Range [0, H(S)] (>= I(S; U)).
    """
    su = _release_joint(channel, joint)
    p_s, p_u = su.sum(axis=1), su.sum(axis=0)
    used = p_u > 0
    post = su[:, used] / p_u[used]
    h_post = -xlogy(post, post).sum(axis=0)
    return float(max(0.0, entropy(p_s) - h_post.min()))


# ----------------------------------------------------------------------------- convex programs


@functools.lru_cache(maxsize=1)
def _available_solvers() -> tuple[str, ...]:
    """The wheel solvers of :data:`SOLVERS` that cvxpy finds (looked up once: the lookup is slow)."""
    import cvxpy as cp

    installed = set(cp.installed_solvers())
    return tuple(s for s in SOLVERS if s in installed)


def _solve(problem, what: str) -> None:
    """Solve a cvxpy problem with the wheel solvers; raise naming the program on failure."""
    import cvxpy as cp

    statuses = []
    for solver in _available_solvers():
        try:
            problem.solve(solver=solver)
        except cp.error.SolverError as exc:
            statuses.append(f"{solver}: {exc}")
            continue
        if problem.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
            return
        statuses.append(f"{solver}: status {problem.status}")
    raise RuntimeError(f"{what}: the convex solver failed ({'; '.join(statuses) or 'no solver'})")


def _clean_channel(value: np.ndarray) -> np.ndarray:
    """A solver's p(u|y) made exactly row-stochastic (clip tiny negatives, renormalise)."""
    m = np.clip(np.asarray(value, dtype=float), 0.0, None)
    return m / m.sum(axis=-1, keepdims=True)


# No program outlives the call that compiled it: cvxpy reuses a problem's solver between solves
# (CLARABEL's data update), which changes the last bits of a result, so a module-level cache of
# compiled programs made results depend on the calls made before. A budget sweep compiles one
# program per call of a ``*_curve`` function and solves the budgets in increasing order: its
# results depend only on its arguments (tests/experiments/statistical_inference/test_program_cache.py).


class _AverageLeakageProgram:
    """Theorem 1 (14)-(17) as a parametrised cvxpy problem (the distortion budget is a parameter)."""

    def __init__(self, joint, d):
        import cvxpy as cp

        n_s, n_y = joint.shape
        n_u = d.shape[1]
        p_s, p_y = joint.sum(axis=1), joint.sum(axis=0)
        keep = p_s > 0
        self.channel = cp.Variable((n_y, n_u), nonneg=True)  # p(u|y)
        self.budget = cp.Parameter(nonneg=True)
        su = joint[keep] @ self.channel  # p(s, u) = p_S(s) p(u|s), (16)
        p_u = p_y @ self.channel  # (17)
        product = cp.reshape(p_s[keep], (int(keep.sum()), 1), order="F") @ cp.reshape(p_u, (1, n_u), order="F")
        objective = cp.sum(cp.rel_entr(su, product))  # (14)
        constraints = [
            cp.sum(self.channel, axis=1) == 1,
            cp.sum(cp.multiply(p_y[:, None] * d, self.channel)) <= self.budget,  # (15)
        ]
        self.problem = cp.Problem(cp.Minimize(objective), constraints)


def min_average_leakage(joint, distortion_measure, distortion) -> Solution:
    """Minimum average information leakage min_{p(U|Y)} I(S; U) s.t. E d(Y, U) <= distortion, nats.

    Theorem 1 of Calmon & Fawaz [statistical-inference], (14)-(17): minimise
    sum_{u,s} p(u|s) p(s) log(p(u|s)/p(u)) over p(u|y), with p(u|s) = sum_y p(y|s) p(u|y) and
    p(u) = sum_s p(u|s) p(s) (a relative-entropy objective, linear constraints). ``joint[s, y]``,
    ``distortion_measure[y, u] >= 0``; distortion >= sum_y p(y) min_u d(y, u) (else the budget is infeasible).
    Range [0, H(S)].
    """
    check_scalar(distortion, "distortion", low=0.0)
    return _one_budget(min_average_leakage_curve, joint, distortion_measure, [distortion])


def min_average_leakage_curve(joint, distortion_measure, distortions) -> list:
    """:func:`min_average_leakage` at several budgets, one compiled program for all [statistical-inference,
    Theorem 1]. The budgets are solved in increasing order, whatever their order in
    ``distortions``; returns the :class:`Solution` list in the order of ``distortions``."""
    j = check_joint(joint)
    d = check_distortion(distortion_measure, j.shape[1])
    p_y = j.sum(axis=0)
    budgets = [
        _check_budget(x, p_y, d, "the average-leakage program (Theorem 1)", f"distortions[{i}]")
        for i, x in enumerate(_budget_list(distortions))
    ]
    scale = _scale(d)
    prog = _AverageLeakageProgram(j, d / scale)
    out = {}
    for i in np.argsort(budgets, kind="stable"):
        prog.budget.value = _effective_budget(budgets[i], p_y, d) / scale
        _solve(prog.problem, f"minimum average leakage (Theorem 1) at distortion={budgets[i]:.6g}")
        m = _clean_channel(prog.channel.value)
        out[i] = Solution(average_information_leakage(m, j), expected_distortion(m, p_y, d), m)
    return [out[i] for i in range(len(budgets))]


def min_average_leakage_joint_access(joint, distortion_measure, distortion) -> Solution:
    """Minimum I(S; U) when the channel p(u | y, s) may use S as well, nats [statistical-inference, Remark 3].

    Theorem 1 with (16) replaced by (18) p(u|s) = sum_y p(y|s) p(u|y, s) (and (19) defining
    p(u|y)); minimised over p(u|y, s) s.t. E d(Y, U) <= distortion. Never above
    :func:`min_average_leakage`; equal to it when Y = f(S). ``Solution.channel[s, y, u]``.
    """
    import cvxpy as cp

    j = check_joint(joint)
    d = check_distortion(distortion_measure, j.shape[1])
    p_s, p_y = j.sum(axis=1), j.sum(axis=0)
    distortion = _effective_budget(
        _check_budget(distortion, p_y, d, "the average-leakage program with access to S (Remark 3)"), p_y, d
    )
    scale = _scale(d)
    pairs = np.argwhere(j > 0)  # (s, y) with p(s, y) > 0
    n_u = d.shape[1]
    w = cp.Variable((len(pairs), n_u), nonneg=True)  # p(u | y, s)
    weight = j[pairs[:, 0], pairs[:, 1]]
    s_of = np.zeros((p_s.size, len(pairs)))
    s_of[pairs[:, 0], np.arange(len(pairs))] = weight
    su = s_of @ w  # p(s, u), (18)
    keep = p_s > 0
    p_u = cp.sum(su, axis=0)
    product = cp.reshape(p_s[keep], (int(keep.sum()), 1), order="F") @ cp.reshape(p_u, (1, n_u), order="F")
    problem = cp.Problem(
        cp.Minimize(cp.sum(cp.rel_entr(su[np.flatnonzero(keep)], product))),
        [cp.sum(w, axis=1) == 1, cp.sum(cp.multiply(weight[:, None] * d[pairs[:, 1]] / scale, w)) <= distortion / scale],
    )
    _solve(problem, f"minimum average leakage with access to S (Remark 3) at distortion={distortion:.6g}")
    wv = _clean_channel(w.value)
    full = np.full((p_s.size, p_y.size, n_u), 1.0 / n_u)
    full[pairs[:, 0], pairs[:, 1]] = wv
    su_v = s_of @ wv
    leak = mutual_information(su_v[keep] / p_s[keep, None], p_s[keep])
    dist = float((weight[:, None] * d[pairs[:, 1]] * wv).sum())
    return Solution(leak, dist, full)


def rate_distortion_convex(prior_y, distortion_measure, distortion) -> Solution:
    """Rate-distortion R(distortion) = min_{p(U|Y)} I(Y; U) s.t. E d(Y, U) <= distortion, nats, as one convex
    program [statistical-inference, Corollary 1 (20)-(21) and Remark 2].

    Corollary 1: when Y = f(S) and S -> Y -> U, I(S; U) = I(Y; U), so the minimum average leakage
    is Theorem 1's program with S = Y (joint = diag(p_Y)). Range [0, H(Y)].
    """
    p = check_distribution(prior_y, "prior_y")
    check_scalar(distortion, "distortion", low=0.0)
    return min_average_leakage(np.diag(p), distortion_measure, distortion)


def rate_distortion_curve(prior_y, distortion_measure, distortions) -> list:
    """:func:`rate_distortion_convex` at several budgets, one compiled program (see
    :func:`min_average_leakage_curve`); :class:`Solution` list in the order of ``distortions``."""
    p = check_distribution(prior_y, "prior_y")
    return min_average_leakage_curve(np.diag(p), distortion_measure, distortions)


class _MaxLeakageProgram:
    """Theorem 2 (29)-(32) as a parametrised cvxpy problem: min E d s.t. H(S|U=u) >= level.

    With ``cond_entropy`` given (Corollary 2, Y = f(S)), S is represented by Y and
    p(u) H(S|U=u) = -sum_y p(y,u) log(p(y,u)/p(u)) + sum_y p(y,u) H(S|Y=y) ((38)).
    """

    def __init__(self, joint, d, cond_entropy=None):
        import cvxpy as cp

        n_y, n_u = d.shape
        p_y = joint.sum(axis=0)
        self.channel = cp.Variable((n_y, n_u), nonneg=True)
        self.level = cp.Parameter()  # delta = H(S) - eps of (32)
        p_u = p_y @ self.channel  # (31)
        if cond_entropy is None:
            keep = joint.sum(axis=1) > 0
            su = joint[keep] @ self.channel  # p(s, u), (30)
            rows = int(keep.sum())
            # sum_s p(s,u) log(p(s,u)/p(u)) = -p(u) H(S|U=u)
            neg_h = cp.sum(cp.rel_entr(su, np.ones((rows, 1)) @ cp.reshape(p_u, (1, n_u), order="F")), axis=0)
        else:
            yu = cp.multiply(p_y[:, None], self.channel)  # p(y, u)
            neg_h = (
                cp.sum(cp.rel_entr(yu, np.ones((n_y, 1)) @ cp.reshape(p_u, (1, n_u), order="F")), axis=0)
                - cond_entropy @ yu
            )
        constraints = [
            cp.sum(self.channel, axis=1) == 1,
            self.level * p_u + neg_h <= 0,  # (32)
        ]
        self.problem = cp.Problem(
            cp.Minimize(cp.sum(cp.multiply(p_y[:, None] * d, self.channel))),  # (29)
            constraints,
        )

    def solve(self, level: float, what: str) -> np.ndarray:
        self.level.value = level
        _solve(self.problem, what)
        return _clean_channel(self.channel.value)


def _minmax_line_search(program, h_s, p_y, d, budget, tol, what, lo=0.0, hi=None):
    """Bisection on eps in [lo, hi] (default [0, H(S)]) for the smallest eps whose minimum
    distortion is <= budget; the answer must lie in the bracket.

    The minimum distortion of Theorem 2 is non-increasing in eps, so {eps: D_min(eps) <= budget}
    is an interval [eps*, H(S)] [statistical-inference, proof of Theorem 2].
    """

    def dist(m):
        return float(p_y @ (m * d).sum(axis=1))

    def at(eps):  # the minimum-distortion channel at leakage level eps: level H(S) - eps in (32)
        return program.solve(h_s - eps, f"{what}: minimum distortion at maximum leakage {eps:.6g}")

    if lo <= 0.0:
        lo, best = 0.0, at(0.0)
        if dist(best) <= budget + _FEAS_TOL * (1 + budget):
            return Solution(0.0, dist(best), best)
    hi = h_s if hi is None else min(hi, h_s)
    best = at(hi)
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        m = at(mid)
        if dist(m) <= budget + _FEAS_TOL * (1 + budget):
            hi, best = mid, m
        else:
            lo = mid
    return Solution(hi, dist(best), best)


def min_distortion_at_max_leakage(joint, distortion_measure, eps) -> Solution:
    """Minimum distortion min E d(Y, U) s.t. max_u H(S) - H(S|U=u) <= eps [statistical-inference, Theorem 2].

    Program (29)-(32): minimise sum_{y,u} p(u|y) p(y) d(u, y) s.t. (30)-(31) and
    delta p(u) + sum_s p(u, s) log(p(u, s)/p(u)) <= 0 for all u, with delta = H(S) - eps.
    eps in [0, H(S)] nats; ``Solution.leakage`` is the channel's maximum information leakage.
    """
    j = check_joint(joint)
    h_s = entropy(j.sum(axis=1))
    eps = check_scalar(eps, "eps", low=0.0, high=h_s + 1e-12)
    d = check_distortion(distortion_measure, j.shape[1])
    prog = _MaxLeakageProgram(j, d / _scale(d))
    m = prog.solve(h_s - eps, f"minimum distortion under maximum leakage {eps:.6g} (Theorem 2)")
    return Solution(maximum_information_leakage(m, j), float(j.sum(axis=0) @ (m * d).sum(axis=1)), m)


def min_max_leakage(joint, distortion_measure, distortion, *, tol: float = 1e-5) -> Solution:
    """Minmax information leakage min_{p(U|Y)} max_u H(S) - H(S|U=u) s.t. E d(Y, U) <= distortion, nats.

    Seed 004, Definition 4 (27)-(28), solved as in Theorem 2: bisection (to ``tol`` nats) on the
    leakage level eps in [0, H(S)] of the convex program (29)-(32), whose minimum distortion is
    non-increasing in eps. ``Solution.leakage`` is the smallest feasible level found (within tol).
    """
    j = check_joint(joint)
    d = check_distortion(distortion_measure, j.shape[1])
    p_y = j.sum(axis=0)
    distortion = _effective_budget(_check_budget(distortion, p_y, d, "the maximum-leakage program (Theorem 2)"), p_y, d)
    tol = check_tolerance(tol)
    return _minmax_line_search(
        _MaxLeakageProgram(j, d / _scale(d)), entropy(j.sum(axis=1)), p_y, d, distortion, tol,
        "minmax leakage (Theorem 2)",
    )


# ----------------------------------------------------------------------------- Corollary 2


def zeta_distribution(cond_entropy) -> np.ndarray:
    """zeta(y) = e^{H(S|Y=y)} / sum_y' e^{H(S|Y=y')} [statistical-inference, Corollary 2 (35), in nats].

    ``cond_entropy[y] = H(S | Y=y)`` in [0, 700] nats (e^H, the number of equally likely states,
    must be a float). For the counting query zeta(y) = C(n, y) / 2^n.
    """
    h = check_array(cond_entropy, "cond_entropy", ndim=1, low=0.0, high=MAX_ENTROPY)
    z = np.exp(h - h.max())
    return z / z.sum()


def maximum_leakage_deterministic(channel, prior_y, cond_entropy) -> float:
    """Maximum information leakage for Y = f(S) via Corollary 2 [statistical-inference, (40)], nats:

    max_u H(S) - H(S|U=u) with H(S|U=u) = log sum_y e^{H(S|Y=y)} - D(p_{Y|U=u} || zeta) and
    H(S) = H(Y) + sum_y p(y) H(S|Y=y). ``channel[y, u] = p(u|y)``. Range [0, H(S)].
    """
    m = check_channel(channel, "channel")
    p = check_distribution(prior_y, "prior_y")
    zeta = zeta_distribution(cond_entropy)
    h = np.asarray(cond_entropy, dtype=float)
    if m.shape[0] != p.size or h.size != p.size:
        raise ValueError("channel rows, prior_y and cond_entropy must all have |Y| entries")
    yu = p[:, None] * m
    p_u = yu.sum(axis=0)
    used = p_u > 0
    post = yu[:, used] / p_u[used]
    div = rel_entr(post, zeta[:, None]).sum(axis=0)
    log_norm = h.max() + math.log(float(np.exp(h - h.max()).sum()))
    h_s = entropy(p) + float(p @ h)
    return float(max(0.0, h_s - (log_norm - div.max())))


def min_max_leakage_deterministic(prior_y, cond_entropy, distortion_measure, distortion, *, tol: float = 1e-5) -> Solution:
    """Minmax information leakage for Y = f(S), nats [statistical-inference, Corollary 2 (35) with Theorem 2].

    Minimises max_u D(p_{Y|U=u} || zeta) (equivalently max_u H(S) - H(S|U=u)) s.t.
    E d(Y, U) <= distortion, working on Y only: p(u) H(S|U=u) = -sum_y p(y,u) log(p(y,u)/p(u)) +
    sum_y p(y,u) H(S|Y=y) ((38)); bisection to ``tol`` nats on the level as in Theorem 2.
    """
    check_scalar(distortion, "distortion", low=0.0)
    return _one_budget(lambda *a: min_max_leakage_curve(*a, tol=tol), prior_y, cond_entropy, distortion_measure, [distortion])


def min_max_leakage_curve(
    prior_y, cond_entropy, distortion_measure, distortions, *, tol: float = 1e-5, lower=None
) -> list:
    """:func:`min_max_leakage_deterministic` at several budgets, one compiled program for all.

    Sweeps the budgets in increasing order; the minmax leakage is non-increasing in distortion, so each
    result brackets the next line search from above [statistical-inference, Theorem 2 / Corollary 2]. ``lower``
    (optional, one per budget) are known lower bounds, e.g. the minimum average leakage at the same
    budget (max_u H(S) - H(S|U=u) >= I(S; U)), which bracket it from below. Returns the
    :class:`Solution` list in the order of ``distortions``. Nats.
    """
    p = check_distribution(prior_y, "prior_y")
    zeta_distribution(cond_entropy)  # validates
    h = np.asarray(cond_entropy, dtype=float)
    if h.size != p.size:
        raise ValueError(f"cond_entropy must have {p.size} entries (one per y), got {h.size}")
    d = check_distortion(distortion_measure, p.size)
    budgets = [
        _effective_budget(_check_budget(x, p, d, "the maximum-leakage program (Corollary 2)", f"distortions[{i}]"), p, d)
        for i, x in enumerate(_budget_list(distortions))
    ]
    tol = check_tolerance(tol)
    h_s = entropy(p) + float(p @ h)
    program = _MaxLeakageProgram(np.diag(p), d / _scale(d), h)
    if lower is None:
        lower = np.zeros(len(budgets))
    lower = np.asarray(lower, dtype=float)
    if lower.shape != (len(budgets),):
        raise ValueError(f"lower must have one bound per budget ({len(budgets)}), got shape {lower.shape}")
    out, upper = {}, h_s
    for i in np.argsort(budgets, kind="stable"):
        sol = _minmax_line_search(
            program, h_s, p, d, budgets[i], tol, "minmax leakage (Corollary 2)",
            lo=min(max(0.0, lower[i]), upper), hi=upper,
        )
        out[i], upper = sol, sol.leakage
    return [out[i] for i in range(len(budgets))]


# ----------------------------------------------------------------------------- counting query


def counting_query_prior(n, p) -> np.ndarray:
    """p_Y(y) = C(n, y) p^y (1-p)^{n-y}, y = 0..n: Y = sum of n iid Bernoulli(p) [statistical-inference,
    Examples 1, 2]. n >= 1, p in [0, 1]."""
    n = check_count(n, "n")
    check_array_size((n + 1,), "n")
    p = check_probability(p, "p", open_low=False)
    y = np.arange(n + 1)
    log_c = gammaln(n + 1) - gammaln(y + 1) - gammaln(n - y + 1)
    return np.exp(log_c + xlogy(y, p) + xlogy(n - y, 1 - p))


def counting_query_conditional_entropy(n) -> np.ndarray:
    """H(S | Y=y) = log C(n, y) nats, y = 0..n [statistical-inference, Example 2]: given the count, the iid
    database is uniform on the C(n, y) vectors with y ones. n >= 1."""
    n = check_count(n, "n")
    check_array_size((n + 1,), "n")
    y = np.arange(n + 1)
    return gammaln(n + 1) - gammaln(y + 1) - gammaln(n - y + 1)


def counting_query_joint(n, p) -> np.ndarray:
    """The explicit joint p(s, y) of the counting query [statistical-inference, Example 1, (7)]: s ranges over
    {0,1}^n (row index = binary digits), y = sum(s); p(s) = p^{|s|} (1-p)^{n-|s|}.
    1 <= n <= 16 (2^n rows)."""
    n = check_count(n, "n")
    if n > MAX_EXPLICIT_N:
        raise ValueError(f"n must be <= {MAX_EXPLICIT_N} for the explicit joint (2^n rows), got {n}")
    p = check_probability(p, "p", open_low=False)
    ones = np.array([sum(bits) for bits in itertools.product((0, 1), repeat=n)])
    joint = np.zeros((2**n, n + 1))
    joint[np.arange(2**n), ones] = np.exp(xlogy(ones, p) + xlogy(n - ones, 1 - p))
    return joint


def squared_error(n) -> np.ndarray:
    """d(y, u) = (y - u)^2 on {0..n} x {0..n} (units: squared counts)."""
    n = check_count(n, "n")
    check_array_size((n + 1, n + 1), "n")
    v = np.arange(n + 1, dtype=float)
    return (v[:, None] - v[None, :]) ** 2


# ----------------------------------------------------------------------------- information privacy


def information_privacy_epsilon(channel, prior) -> float:
    """Information privacy level [statistical-inference, Definition 6 (42)], nats:

    eps_IP = max_{s: p(s)>0, u: p(u)>0} |log( p(s|u) / p(s) )| = max |log( p(u|s) / p(u) )|.
    ``channel[s, u] = p(u|s)``; inf when some p(u|s) = 0 < p(u). Range [0, inf].
    """
    from leakage.validation import check_channel_prior

    c, p = check_channel_prior(channel, prior)
    c = c[p > 0]
    p_u = p[p > 0] @ c
    used = p_u > 0
    ratio = c[:, used] / p_u[used]
    if np.any(ratio <= 0):
        return float("inf")
    return float(np.abs(np.log(ratio)).max())


def information_privacy_implications(channel, prior) -> dict:
    """Theorem 3 [statistical-inference] on a channel: eps-IP => 2 eps-DP (every pair of inputs in the prior's
    support) and average leakage I(S; U) <= eps nats.

    Returns ``{"eps_ip", "eps_dp", "average_leakage", "max_divergence_posterior"}``, the last being
    max_u D(p_{S|U=u} || p_S) (<= eps_ip, the per-output form of the proof).
    """
    from leakage.measures.dp import ldp_epsilon
    from leakage.validation import check_channel_prior

    c, p = check_channel_prior(channel, prior)
    eps = information_privacy_epsilon(c, p)
    c, p = c[p > 0], p[p > 0]
    p_u = p @ c
    used = p_u > 0
    post = p[:, None] * c[:, used] / p_u[used]
    return {
        "eps_ip": eps,
        "eps_dp": ldp_epsilon(c),  # unused outputs are all-zero columns, ignored
        "average_leakage": mutual_information(c, p),
        "max_divergence_posterior": float(rel_entr(post, p[:, None]).sum(axis=0).max()),
    }


# ----------------------------------------------------------------------------- Theorem 4


def truncated_geometric_channel(n, eps) -> np.ndarray:
    """The truncated geometric (discrete Laplace) eps-DP mechanism on a count y in {0..n}:
    U = min(max(Y + N, 0), n), P(N = z) = (1-a)/(1+a) a^{|z|}, a = e^{-eps} (Ghosh, Roughgarden &
    Sundararajan 2009; the discrete twin of (43)-(44) of [statistical-inference]).

    channel[y, u] = (1-a)/(1+a) a^{|u-y|} for 0 < u < n, a^{y}/(1+a) at u = 0, a^{n-y}/(1+a) at
    u = n. eps-DP for neighbouring counts |y - y'| = 1; eps = inf gives the identity.
    """
    n = check_count(n, "n")
    check_array_size((n + 1, n + 1), "n")
    return _geometric_rows(np.arange(n + 1), n, eps)


def _geometric_rows(ys, n, eps) -> np.ndarray:
    """Rows y in ``ys`` of :func:`truncated_geometric_channel` (the one formula)."""
    eps = check_epsilon(eps)
    n = int(n)
    if math.isinf(eps):
        out = np.zeros((len(ys), n + 1))
        out[np.arange(len(ys)), ys] = 1.0
        return out
    a = math.exp(-eps)
    u = np.arange(n + 1)
    dist = np.abs(u[None, :] - np.asarray(ys)[:, None])
    out = (1 - a) / (1 + a) * a**dist
    out[:, 0] = a ** np.asarray(ys) / (1 + a)
    out[:, n] = a ** (n - np.asarray(ys)) / (1 + a)
    if n == 0:  # pragma: no cover - n >= 1 is checked
        out[:, 0] = 1.0
    return out


def geometric_epsilon_for_distortion(prior_y, distortion_measure, distortion) -> float:
    """The eps at which the truncated geometric mechanism on {0..n} has E d(Y, U) = distortion.

    Solved by Brent's method on log eps (the expected distortion decreases from its eps -> 0 limit
    to its eps -> inf limit sum_y p(y) d(y, y), 0 for a distortion measure zero on the diagonal).
    distortion in (D_inf, E_eps->0 d]; distortion = D_inf gives inf; eps is searched up to 745 nats
    (where e^-eps leaves the float range), a budget needing more is refused. Nats.
    """
    p = check_distribution(prior_y, "prior_y")
    n = p.size - 1
    d = check_distortion(distortion_measure, p.size)
    distortion = check_scalar(distortion, "distortion", low=0.0)
    if distortion == 0.0:
        return float("inf")

    def excess(log_eps):
        return expected_distortion(truncated_geometric_channel(n, math.exp(log_eps)), p, d) - distortion

    if d.shape != (p.size, p.size):
        raise ValueError(f"distortion_measure must be {p.size} x {p.size} (U = Y = {{0..n}}), got shape {d.shape}")
    d_inf = float(p @ np.diag(d))  # eps = inf: the identity
    if distortion <= d_inf:
        if distortion == d_inf:
            return float("inf")
        raise ValueError(
            f"distortion must be >= {d_inf:.6g} = sum_y p(y) distortion_measure[y, y], the distortion of the "
            f"geometric mechanism as eps -> inf; got {distortion!r}"
        )
    lo, hi = math.log(1e-8), math.log(60.0)
    if excess(lo) < 0:
        raise ValueError(
            f"distortion must be <= {distortion + excess(lo):.6g}, the distortion of the geometric mechanism "
            f"as eps -> 0; got {distortion!r}"
        )
    while excess(hi) > 0:  # the root lies beyond: widen the bracket up to 745 nats
        if hi >= math.log(745.0):
            raise ValueError(
                f"distortion = {distortion!r} is reached by the geometric mechanism only beyond eps = 745 nats "
                f"(distortion_measure up to {d.max():.3g}): out of the float range"
            )
        lo, hi = hi, min(hi + math.log(4.0), math.log(745.0))
    return float(math.exp(brentq(excess, lo, hi, xtol=1e-12)))


def comb_prior(n, k) -> np.ndarray:
    """The comb prior (45) of [statistical-inference]: p_Y(y) = 1/(1 + n/k) if y mod k = 0, else 0, y = 0..n.
    n, k >= 1 integers with n mod k = 0."""
    n, k = check_count(n, "n"), check_count(k, "k")
    if n % k:
        raise ValueError(f"n must be a multiple of k (n mod k = 0), got n={n}, k={k}")
    check_array_size((n + 1,), "n")
    p = np.zeros(n + 1)
    p[::k] = 1.0 / (1 + n // k)
    return p


def theorem4_lower_bound(n, k, eps) -> float:
    """Leakage lower bound of Theorem 4 [statistical-inference], nats:

    I(Y; U) >= (1 - e^{-k eps/2}) log(1 + n/k) - log 2 (the paper's "- 1" is one bit, H(E) <= log 2),
    for the eps-DP Laplace mechanism (43) on the counting query with the comb prior (45).
    n, k >= 1 with n mod k = 0, eps > 0.
    """
    n, k = check_count(n, "n"), check_count(k, "k")
    if n % k:
        raise ValueError(f"n must be a multiple of k (n mod k = 0), got n={n}, k={k}")
    eps = check_positive(eps, "eps")
    return float(-math.expm1(-k * eps / 2) * math.log1p(n / k) - math.log(2))


def theorem4_exact_leakage(n, k, eps) -> float:
    """Exact I(Y; U) = I(S; U), nats, of the truncated geometric eps-DP mechanism on {0..n} with the
    comb prior (45) [statistical-inference, Theorem 4's construction with the discrete mechanism].

    I = sum_{y,u} p(y) p(u|y) log(p(u|y)/p(u)) over the prior's 1 + n/k support points. For large
    n only the band |u - y| <= B of each row is formed, B with e^{-eps B} < 1e-30 (the noise is
    clipped to [-B, B], a change of total variation < 1e-30, far below float precision).
    """
    prior = comb_prior(n, k)
    eps = check_positive(eps, "eps")
    support = np.flatnonzero(prior)
    band = math.ceil(69.1 / eps) if math.isfinite(eps) else 0
    if 2 * band + 1 >= n + 1:
        return mutual_information(_geometric_rows(support, n, eps), prior[support])
    from scipy.sparse import coo_matrix

    a = math.exp(-eps)
    z = np.arange(-band, band + 1)
    noise = (1 - a) / (1 + a) * a ** np.abs(z.astype(float))
    noise[0] = noise[-1] = a**band / (1 + a)  # P(N <= -B), P(N >= B): clip(N, -B, B)
    rows = np.repeat(np.arange(support.size), z.size)
    cols = np.clip(support[:, None] + z[None, :], 0, n).ravel()
    channel = coo_matrix((np.tile(noise, support.size), (rows, cols)), shape=(support.size, n + 1)).tocsr()
    channel.sum_duplicates()
    w = prior[support]
    p_u = np.asarray(channel.T @ w).ravel()
    coo = channel.tocoo()
    joint = w[coo.row] * coo.data
    return float(max(0.0, rel_entr(joint, w[coo.row] * p_u[coo.col]).sum()))


def least_leaking_posterior(joint) -> tuple[np.ndarray, float]:
    """The posterior q(y) = p(y | U=u) of an output u that maximises H(S | U=u), nats.

    With S -> Y -> U, p(s | u) = sum_y p(s|y) q(y), so the least informative output (largest
    H(S|U=u), i.e. smallest H(S) - H(S|U=u)) solves max_q H(sum_y p(s|y) q(y)) over the simplex:
    a concave program in the original S-space. For Y = f(S) Corollary 2 gives q = zeta [statistical-inference,
    Example 2: q(y) proportional to C(n, y) for the counting query]. Returns ``(q, H(S|U=u))``.
    """
    import cvxpy as cp

    j = check_joint(joint)
    p_y = j.sum(axis=0)
    if np.any(p_y <= 0):
        raise ValueError("joint must give every y positive probability (p(s|y) is needed)")
    s_given_y = j / p_y  # columns p(.|y)
    keep = j.sum(axis=1) > 0
    q = cp.Variable(p_y.size, nonneg=True)
    problem = cp.Problem(cp.Maximize(cp.sum(cp.entr(s_given_y[keep] @ q))), [cp.sum(q) == 1])
    _solve(problem, "least leaking posterior (max H(S|U=u), Corollary 2)")
    qv = np.clip(q.value, 0.0, None)
    qv /= qv.sum()
    post = s_given_y @ qv
    return qv, float(-xlogy(post, post).sum())
