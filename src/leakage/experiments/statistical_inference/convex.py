"""The privacy-mapping design programs of [statistical-inference], in nats.

* average information leakage I(S; U) (Definition 3) and its minimum under a distortion budget,
  a convex program (Theorem 1, (14)-(17)); Remark 3's variant where U may depend on S as well;
  Corollary 1 (Y = f(S): the rate-distortion problem min I(Y; U));
* maximum information leakage max_u H(S) - H(S | U=u) (Definition 4): the minimum distortion under
  a leakage level is a convex program (Theorem 2, (29)-(32)); the minmax leakage at a distortion
  budget is found by bisection on that level (the line search, shared with
  :mod:`leakage.experiments.statistical_inference.corollary2`).

Convex programs use cvxpy with CLARABEL (SCS as fallback), both installed as wheels; a solver
failure raises ``RuntimeError`` naming the program and the solver status.
"""

from __future__ import annotations

import functools

import numpy as np

from leakage.experiments.statistical_inference.common import (
    Solution,
    _budget_list,
    _check_budget,
    _effective_budget,
    _one_budget,
    _scale,
    check_distortion,
    check_joint,
)
from leakage.experiments.statistical_inference.measures import (
    average_information_leakage,
    expected_distortion,
    maximum_information_leakage,
)
from leakage.measures.information import entropy, mutual_information
from leakage.validation import check_distribution, check_scalar, check_tolerance


#: Solvers tried in order; both ship as wheels and handle exponential cones.
SOLVERS = ("CLARABEL", "SCS")

#: Relative slack when comparing a solver's distortion with the budget (solver accuracy ~1e-8).
_FEAS_TOL = 1e-7


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

    [statistical-inference] Definition 4 (27)-(28), solved as in Theorem 2: bisection (to ``tol`` nats) on the
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
