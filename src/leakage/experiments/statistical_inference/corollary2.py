"""Corollary 2 of [statistical-inference], in nats: when Y = f(S), the maximum information leakage
is max_u D(p_{Y|U=u} || zeta), zeta(y) proportional to e^{H(S|Y=y)}, so the minmax leakage under a
distortion budget is found on Y alone (Theorem 2's line search on (38)); and the least leaking
posterior of an output (Example 2: zeta itself for the counting query).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import rel_entr, xlogy

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
from leakage.experiments.statistical_inference.convex import _MaxLeakageProgram, _minmax_line_search, _solve
from leakage.measures.information import entropy
from leakage.validation import check_array, check_channel, check_distribution, check_scalar, check_tolerance


#: Largest conditional entropy H(S | Y = y) in nats (Corollary 2): e^H must be a float.
MAX_ENTROPY = 700.0


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
