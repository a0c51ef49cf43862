"""PML for sets of distributions: privacy regions, l1-balls, leakage capacity and sensitivity.

Grosse, Saeidian, Oechtering, Skoglund [empirical-pml], Sections II-A2, III and IV.
A set of priors is either a finite list of distributions (its extreme points suffice, Corollary 1)
or the l1-ball B_beta(P) = {Q in int(simplex): ||P - Q||_1 <= beta} of eq. (31). Everything is in
nats; ``channel[x, y] = P(y | x)`` and arguments come in the order ``(channel, prior)``.

The worst case over a ball is computed exactly, column by column: for each output y,
min_{Q in B_beta(P)} Q_Y(y) either in closed form (Appendix B's argument: move beta/2 of mass
from the rows with the largest entries of the column to a row with the smallest) or by a small LP.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from leakage.estimation.concentration import beta_star, delta_for_beta
from leakage.measures.pml import epsilon_max, epsilon_min
from leakage.validation import (
    check_array,
    check_tolerance,
    check_channel,
    check_channel_prior,
    check_distribution,
    check_epsilon,
    check_scalar,
)

# --------------------------------------------------------------------------- privacy regions


def privacy_region_thresholds(prior) -> np.ndarray:
    """eps_k(P) = -log sum_{i <= N-k} P_(i) for k = 0..N, P sorted decreasingly [empirical-pml, Def. 4].

    Returns the N+1 thresholds in nats, eps_0 = 0 <= eps_1 <= ... <= eps_{N-1} = -log max P and
    eps_N = inf. An eps in [eps_{k-1}, eps_k) is in the k-th privacy region, where a mechanism may
    have at most k-1 zeros per column ([saeidian-optimal-pml, Lemma 2]). Valid for any distribution.
    """
    p = check_distribution(prior)
    top = np.sort(p)[::-1]
    kept = np.concatenate([np.cumsum(top)[::-1], [0.0]])  # sum of the N-k largest, k = 0..N
    kept[0] = 1.0
    with np.errstate(divide="ignore"):
        out = -np.log(kept)
    return np.maximum(out, 0.0)


def privacy_region(prior, eps) -> int:
    """The k in {1, ..., N} with eps in [eps_{k-1}(P), eps_k(P)) [empirical-pml, Definition 4].

    Valid for eps >= 0 (nats); region N is [eps_{N-1}, inf).
    """
    eps = check_epsilon(eps)
    thresholds = privacy_region_thresholds(prior)
    # eps = inf lies in [eps_{N-1}, eps_N = inf) only as a limit: region N, never N + 1
    return int(min(np.searchsorted(thresholds, eps, side="right"), thresholds.size - 1))


# --------------------------------------------------------------------------- finite sets


def _as_distributions(distributions, n: int) -> np.ndarray:
    from leakage.validation import _float_array

    arr = _float_array(distributions, "distributions")
    if arr.ndim == 1 and arr.size:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != n or arr.shape[0] == 0:
        raise ValueError(
            f"distributions must be a list of distributions over the channel's {n} inputs, "
            f"got shape {arr.shape}"
        )
    return np.array([check_distribution(q, f"distributions[{i}]", full_support=True) for i, q in enumerate(arr)])


def local_leakage_capacity(channel, distributions) -> float:
    """C(channel, P) = max_{Q in P} eps_min(channel, Q) for a finite set P [empirical-pml, eq. (22)].

    By Corollary 1 the extreme points of a polytope of priors give its capacity. Every
    distribution must have full support (P is a subset of int(simplex)). Nats.
    """
    c = check_channel(channel)
    qs = _as_distributions(distributions, c.shape[0])
    return max(epsilon_min(c, q) for q in qs)


def is_private_for_set(channel, distributions, eps) -> bool:
    """Whether channel is in M(eps, P): eps-PML for every Q in a finite set P [empirical-pml, eq. (10)].

    Up to 1e-9 nats; eps >= 0.
    """
    eps = check_epsilon(eps)
    return local_leakage_capacity(channel, distributions) <= eps + 1e-9


# --------------------------------------------------------------------------- l1-balls


def _check_ball(channel, center, beta, center_name: str = "center"):
    c, p = check_channel_prior(channel, center, full_support=True, prior_name=center_name)
    beta = check_scalar(beta, "beta", low=0.0, high=2.0)
    return c, p, beta


def ball_min_output(channel, center, beta) -> np.ndarray:
    """min_{Q in B_beta(P)} Q_Y(y) for every output y, closed form [empirical-pml, Appendix B, eq. (85)].

    For column c = channel[:, y], move t = min(beta/2, 1 - P(x_min)) of mass to a row x_min with
    the smallest entry, taking it greedily from the rows with the largest entries (each row gives
    at most its P(x)): min Q_Y(y) = P_Y(y) - sum_x removed(x) (c_x - c_min). For beta < 2 min P
    this is P_Y(y) - beta/2 (max_x c_x - min_x c_x). The infimum over the open ball is the minimum
    over its closure. Valid for full-support P and beta in [0, 2]; probabilities.
    """
    c, p, beta = _check_ball(channel, center, beta)
    return np.maximum(ball_min_columns(c, p, beta / 2.0), 0.0)


def ball_min_columns(columns: np.ndarray, center: np.ndarray, half: float) -> np.ndarray:
    """The kernel of :func:`ball_min_output`: min_{Q in B_beta(P)} Q.v for
    every column v of the N x K array ``columns`` (any non-negative vectors, not only channel
    columns), ``half`` = beta/2 [empirical-pml, Appendix B, eq. (85)].

    Checks shapes and ranges in O(N K) (it runs on a few columns at a time). O(N log N) per column.
    """
    center = check_distribution(center, "center")
    columns = check_array(columns, "columns", ndim=2, low=0.0)
    if columns.shape[0] != center.size:
        raise ValueError(f"columns must have one row per entry of center ({center.size}), got shape {columns.shape}")
    half = check_scalar(half, "half", low=0.0, high=1.0)
    order = np.argsort(-columns, axis=0, kind="stable")  # rows by decreasing entry, per column
    cs = np.take_along_axis(columns, order, axis=0)
    ps = center[order]
    cmin = cs[-1]
    t = np.minimum(half, 1.0 - ps[-1])
    before = np.cumsum(ps, axis=0) - ps
    removed = np.clip(t[None, :] - before, 0.0, ps)
    removed[-1] = 0.0  # the receiving row
    return center @ columns - (removed * (cs - cmin[None, :])).sum(axis=0)


def ball_min_output_lp(channel, center, beta) -> np.ndarray:
    """min_{Q in B_beta(P)} Q_Y(y) for every output y, one LP per column (HiGHS).

    Same quantity as :func:`ball_min_output`, found independently: minimise c . Q over (Q, u) with
    sum Q = 1, |Q - P| <= u, sum u <= beta, Q >= 0 [empirical-pml, eq. (31)]. Probabilities.
    """
    c, p, beta = _check_ball(channel, center, beta)
    n = p.size
    eye = np.eye(n)
    a_ub = np.block(
        [
            [eye, -eye],  # Q - u <= P
            [-eye, -eye],  # -Q - u <= -P
            [np.zeros((1, n)), np.ones((1, n))],  # sum u <= beta
        ]
    )
    b_ub = np.concatenate([p, -p, [beta]])
    a_eq = np.concatenate([np.ones(n), np.zeros(n)])[None, :]
    # HiGHS's default feasibility tolerance (1e-7) lets sum Q fall short of 1 by more than a small
    # beta, so a constant column would read as leaking ~beta; 1e-10 keeps the value exact to that.
    tight = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
    out = np.empty(c.shape[1])
    for y in range(c.shape[1]):
        cost = np.concatenate([c[:, y], np.zeros(n)])
        res = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0], bounds=(0, None), method="highs",
                      options=tight)
        if res.status != 0:
            raise RuntimeError(
                f"ball_min_output_lp: LP for output column {y} (beta={beta}) failed: {res.message}"
            )
        out[y] = max(res.fun, 0.0)
    return out


def _ball_min(channel, center, beta, method: str) -> np.ndarray:
    if method == "closed_form":
        return ball_min_output(channel, center, beta)
    if method == "lp":
        return ball_min_output_lp(channel, center, beta)
    raise ValueError(f"method must be 'closed_form' or 'lp', got {method!r}")


def output_divergence_sup_on_ball(channel, prior, beta, *, method: str = "closed_form") -> float:
    """sup_{Q in B_beta(P)} D_inf(P_Y || Q_Y) = max_y log( P_Y(y) / min_Q Q_Y(y) ) [empirical-pml, Sec. IV-C].

    The exact worst-case leakage increase that Theorem 4 bounds (Fig. 2's "true" values are
    D_inf(P_Y || Q_Y) for single Q). ``method``: 'closed_form' or 'lp'. Nats; inf if the ball
    reaches a Q with Q_Y(y) = 0 for a used output y. Valid for full-support P, beta in [0, 2].
    """
    c, p, beta = _check_ball(channel, prior, beta, "prior")
    p_y = p @ c
    low = _ball_min(c, p, beta, method)
    used = p_y > 0
    if np.any(low[used] <= 0):
        return float("inf")
    return float(max(0.0, np.max(np.log(p_y[used] / low[used]))))


def local_leakage_capacity_on_ball(channel, center, beta, *, method: str = "closed_form") -> float:
    """C(channel, B_beta(P)) = max_y log( max_x P(y|x) / min_{Q in B_beta(P)} Q_Y(y) ) [empirical-pml, eq. (23)].

    The largest eps_min over the l1-ball of eq. (31), exactly. Nats (inf when the ball reaches a
    prior under which an output with a non-zero entry has probability 0). Valid for full-support P,
    beta in [0, 2].
    """
    c, p, beta = _check_ball(channel, center, beta)
    top = c.max(axis=0)
    low = _ball_min(c, p, beta, method)
    used = top > 0
    if np.any(low[used] <= 0):
        return float("inf")
    return float(max(0.0, np.max(np.log(top[used] / low[used]))))


def is_private_on_ball(channel, center, beta, eps, *, tol: float = 1e-9) -> bool:
    """Whether channel is in M(eps, B_beta(P)) [empirical-pml, eqs. (10), (31)], up to ``tol`` nats."""
    tol = check_tolerance(tol)
    eps = check_epsilon(eps)
    return local_leakage_capacity_on_ball(channel, center, beta) <= eps + tol


def leakage_sensitivity_on_ball(channel, prior, beta, *, method: str = "closed_form") -> float:
    """S_P(channel, B_beta(P)) = sup_{Q in B_beta(P)} eps_min(channel, Q) - eps_min(channel, P) (eqs. (26)-(27)).

    Never larger than :func:`output_divergence_sup_on_ball` (Remark 2), equal when every column of
    the channel attains eps_min (extremal mechanisms, eq. (12)). Nats; full-support P, beta in [0, 2].
    """
    c, p, beta = _check_ball(channel, prior, beta, "prior")
    cap = local_leakage_capacity_on_ball(c, p, beta, method=method)
    return float(max(0.0, cap - epsilon_min(c, p)))


# --------------------------------------------------------------------------- bounds


def lipschitz_bound(capacity, l1_distance) -> float:
    """|eps_min(P) - eps_min(Q)| <= exp(C(channel, P)) ||P - Q||_1 [empirical-pml, Theorem 3, eq. (25)].

    ``capacity`` = C(channel, P) in nats (>= 0) for a set P holding both priors; ``l1_distance`` in
    [0, 2]. Returns the right-hand side in nats.
    """
    capacity = check_scalar(capacity, "capacity", low=0.0)
    d = check_scalar(l1_distance, "l1_distance", low=0.0, high=2.0)
    if d == 0.0:  # P = Q: no change, whatever the capacity (e^inf * 0 would be NaN)
        return 0.0
    with np.errstate(over="ignore"):
        return float(np.exp(capacity) * d)


def leakage_sensitivity_bound(prior, eps, beta) -> float:
    """Theorem 4 [empirical-pml, eq. (32)]: S_P(channel, B_beta(P)) <= -log(1 - beta/2 (e^eps - 1)/p_min)
    if eps is in the first privacy region, else -log(1 - beta e^eps / 2).

    For any channel that is eps-PML w.r.t. P. Also bounds sup_Q D_inf(P_Y || Q_Y) over the ball.
    Nats. Valid for full-support P, eps in [0, eps_max(P)] and beta in [0, 2 p_min).
    """
    p = check_distribution(prior, full_support=True)
    eps = check_epsilon(eps)
    p_min = float(p.min())
    eps_max = epsilon_max(p)
    if eps > eps_max + 1e-12:
        raise ValueError(
            f"eps must be in [0, eps_max = -log p_min = {eps_max:.6g}] for Theorem 4, got {eps!r}"
        )
    beta = check_scalar(beta, "beta", low=0.0, high=2.0 * p_min, high_inclusive=False)
    if privacy_region(p, eps) == 1:
        return float(-np.log1p(-beta / 2.0 * np.expm1(eps) / p_min))
    return float(-np.log1p(-beta * np.exp(eps) / 2.0))


def leakage_capacity_bound(eps, beta) -> float:
    """C(channel, B_beta(P)) <= eps + log(1 - beta e^eps / 2)^(-1) [empirical-pml, Corollary 2, eq. (33)].

    For any eps-PML channel w.r.t. P; with beta = beta*(delta) it is eps'(delta) of eq. (38).
    Nats. Valid for eps >= 0 and beta in [0, 2 e^-eps).
    """
    eps = check_epsilon(eps)
    beta = check_scalar(beta, "beta", low=0.0, high=2.0)
    if beta == 0.0:
        return eps
    limit = 2.0 * np.exp(-eps)
    if not beta < limit:
        raise ValueError(
            f"beta must be in [0, 2 e^-eps = {limit:.6g}) for eq. (33) (beta e^eps < 2), "
            f"got beta={beta!r} with eps={eps!r}"
        )
    return float(eps - np.log1p(-beta * np.exp(eps) / 2.0))


def radius_for_leakage(eps, eps_prime) -> float:
    """beta = 2 (e^-eps - e^-eps') [empirical-pml, proof of Corollary 3: eq. (38) solved for beta].

    The l1 radius at which the bound (33) equals eps'. Valid for 0 <= eps <= eps' (nats).
    """
    eps = check_epsilon(eps)
    eps_prime = check_epsilon(eps_prime, "eps_prime")
    if eps_prime < eps:
        raise ValueError(f"eps_prime must be in [eps, inf] = [{eps!r}, inf] (a leakage bound above the design's eps), got {eps_prime!r}")
    return float(2.0 * (np.exp(-eps) - np.exp(-eps_prime)))


def epsilon_prime(eps, delta, m, n_symbols) -> float:
    """eps'(delta) = eps + log(1 - beta*(delta) e^eps / 2)^(-1) [empirical-pml, eq. (38)].

    The PML guarantee, holding with probability 1 - delta, of an eps-PML mechanism designed for an
    estimate from m samples over N symbols (beta* of eq. (37)). Nats. Valid for eps >= 0, delta in
    (0, 1], m >= 1, N >= 2 and beta*(delta) e^eps < 2.
    """
    eps = check_epsilon(eps)
    beta = beta_star(delta, m, n_symbols)
    with np.errstate(over="ignore"):  # e^eps beyond the float range: inf >= 2, refused below
        too_wide = beta * np.exp(eps) >= 2.0
    if too_wide:
        raise ValueError(
            f"eps'(delta) needs beta*(delta) e^eps < 2, got beta*={beta:.6g}, eps={eps:.6g} "
            f"(m={m}, delta={delta}, n_symbols={n_symbols}): use more samples m, a larger delta or "
            f"fewer symbols n_symbols"
        )
    return leakage_capacity_bound(eps, beta)


def delta_min(eps, eps_prime, m, n_symbols) -> float:
    """delta_min(eps') = min(1, (2^N - 2) exp(-2 m (e^-eps - e^-eps')^2)) [empirical-pml, Corollary 3, eq. (39)].

    The failure probability of the eps'-PML guarantee of an eps-PML mechanism designed for an
    estimate from m samples over N symbols. Valid for 0 <= eps <= eps' (nats), m >= 1, N >= 2.
    """
    return delta_for_beta(radius_for_leakage(eps, eps_prime), m, n_symbols)


__all__ = [
    "privacy_region_thresholds",
    "privacy_region",
    "local_leakage_capacity",
    "is_private_for_set",
    "ball_min_output",
    "ball_min_output_lp",
    "output_divergence_sup_on_ball",
    "local_leakage_capacity_on_ball",
    "is_private_on_ball",
    "leakage_sensitivity_on_ball",
    "lipschitz_bound",
    "leakage_sensitivity_bound",
    "leakage_capacity_bound",
    "radius_for_leakage",
    "epsilon_prime",
    "delta_min",
]
