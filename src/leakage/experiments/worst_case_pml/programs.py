"""Worst-case utility mechanisms under pointwise maximal leakage [worst-case-pml].

Setting [worst-case-pml, Sec. II; project spec ``docs/papers/worst-case-pml.md``]: X on N letters with a
full-support prior P, Y on the same N letters, utility order matrix O (``leakage.experiments.worst_case_pml.utility``). For a
threshold k in 1..N a mechanism keeps worst-case order >= k iff P(y|x) = 0 wherever O[x, y] < k.
With A_y = {x : O[x, y] >= k} (the inputs allowed to release y):

* utility-safe mechanism (Theorem 1, eq. (6)): P(y|x) = 1/(N-k+1) on O[x, y] >= k, else 0;
* its PML (Corollary 1): eps_US(k) = -log min_y P(A_y);
* Lemma 3: any mechanism with those zeros has l(X -> y) >= -log P(A_y) on a used column y;
* general optimum eps*(k) (Sec. III-B, problem (2)/(10)): the smallest eps for which an eps-PML
  mechanism with those zeros exists, by LP feasibility (HiGHS) and bisection on eps;
* LDP mechanisms made eps-PML through Proposition 1 (randomized response, exponential mechanism).

Argument order: ``(prior, order, k)`` for designs, ``(channel, prior)`` for measures. Natural logs:
every eps is in nats.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linprog

from leakage.measures.dp import randomized_response
from leakage.measures.pml import epsilon_max
from leakage.experiments.worst_case_pml.utility import check_order_matrix, check_threshold, utility_order_matrix
from leakage.validation import _as_float_array, check_choice, check_distribution, check_epsilon, check_tolerance

#: Bisection tolerance on eps*(k), in nats [worst-case-pml, Sec. III-B; project spec].
BISECTION_TOL = 1e-9

#: HiGHS primal feasibility tolerance of the feasibility LPs (the solver's smallest).
LP_FEASIBILITY_TOL = 1e-10


def _prior_order_k(prior, order, k):
    p = check_distribution(prior, full_support=True)
    o = check_order_matrix(order)
    if o.shape[0] != p.size:
        raise ValueError(
            f"order is {o.shape[0]} x {o.shape[1]} but prior has {p.size} entries; they must match (N)"
        )
    return p, o, check_threshold(k, o.shape[1])


def allowed_pairs(order, k) -> np.ndarray:
    """Boolean mask O[x, y] >= k: the pairs a mechanism of worst-case order >= k may use.

    Column y of the mask is the set A_y of [worst-case-pml], Sec. III-A; k in 1..N.
    """
    o = check_order_matrix(order)
    k = check_threshold(k, o.shape[1])
    return o >= k


def allowed_mass(prior, order, k) -> np.ndarray:
    """P(A_y) = sum_{x : O[x, y] >= k} P(x) for every output y [worst-case-pml, Lemma 3, Corollary 1].

    Probabilities in [0, 1]; 0 for an output that no input may release.
    """
    p, o, k = _prior_order_k(prior, order, k)
    return _allowed_mass(p, o >= k)


def _allowed_mass(p: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return p @ mask


def column_leakage_lower_bound(prior, order, k) -> np.ndarray:
    """Lemma 3 of [worst-case-pml]: l(X -> y) >= -log P(A_y) for any mechanism with P(y|x) = 0 where
    O[x, y] < k that uses output y; equality iff P(y|x) is constant over A_y.

    Nats, one entry per output; ``inf`` where A_y is empty (the output cannot be used at all).
    """
    p, o, k = _prior_order_k(prior, order, k)
    return _lemma3_bound(p, o >= k)


def _lemma3_bound(p: np.ndarray, mask: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.maximum(-np.log(_allowed_mass(p, mask)), 0.0)


def utility_safe_mechanism(order, k) -> np.ndarray:
    """The utility-safe mechanism of [worst-case-pml], Theorem 1, eq. (6).

    P(y|x) = 1 / (N - k + 1) if O[x, y] >= k, else 0 (uniform over the N - k + 1 outputs of row x
    whose utility rank is at least k). Row-stochastic; worst-case order exactly k; k in 1..N.
    """
    mask = allowed_pairs(order, k)
    return mask / mask.sum(axis=1, keepdims=True)


def utility_safe_epsilon(prior, order, k) -> float:
    """eps_US(k) = -log min_y P(A_y), the PML of the utility-safe mechanism [worst-case-pml, Corollary 1].

    Nats, in [0, eps_max]. The minimum runs over the outputs the mechanism uses (A_y non-empty); when
    every A_y is non-empty (the paper's constraint (3)) this is Corollary 1 exactly. Needs a
    full-support prior, O with permutation rows and k in 1..N.
    """
    bound = column_leakage_lower_bound(prior, order, k)  # met with equality by the mechanism
    return float(bound[np.isfinite(bound)].max())


def _feasibility_lp(p: np.ndarray, mask: np.ndarray, eps: float, bound: np.ndarray | None = None):
    """The polytope of problem (10) of [worst-case-pml] at level eps: ``(True, a channel in it)`` or
    ``(False, None)`` when it is empty (the bisections below branch on it).

    Unknowns P(y|x) on allowed pairs of usable columns (-log P(A_y) <= eps; other columns are forced
    to zero, Sec. III-B). Constraints: rows sum to one; P(y|x) <= e^eps sum_x' P(x') P(y|x').
    """
    n_in, n_out = mask.shape
    if bound is None:
        bound = _lemma3_bound(p, mask)
    usable = bound <= eps + 1e-12
    var = mask & usable[None, :]
    if not np.all(var.any(axis=1)):
        return False, None  # some input has no output left: infeasible without asking the solver
    xs, ys = np.nonzero(var)
    n_var = xs.size
    a_eq = np.zeros((n_in, n_var))
    a_eq[xs, np.arange(n_var)] = 1.0
    # row (x, y) of A_ub: e_{(x,y)} - e^eps * sum_{x' : (x', y) a variable} P(x') e_{(x', y)}
    same_col = ys[:, None] == ys[None, :]
    a_ub = np.eye(n_var) - math.exp(eps) * same_col * p[xs][None, :]
    res = linprog(
        np.zeros(n_var),
        A_ub=a_ub,
        b_ub=np.zeros(n_var),
        A_eq=a_eq,
        b_eq=np.ones(n_in),
        bounds=(0.0, 1.0),
        method="highs",
        options={"primal_feasibility_tolerance": LP_FEASIBILITY_TOL},
    )
    if res.status == 2:
        return False, None
    if res.status != 0 or res.x is None:
        raise RuntimeError(
            f"LP feasibility of an eps-PML mechanism with worst-case order >= k [worst-case-pml, problem "
            f"(10)] failed at eps = {eps:.12g}: HiGHS status {res.status}: {res.message}"
        )
    channel = np.zeros((n_in, n_out))
    channel[xs, ys] = np.clip(res.x, 0.0, None)
    return True, channel / channel.sum(axis=1, keepdims=True)


def feasible_mechanism(prior, order, k, eps):
    """An eps-PML mechanism with P(y|x) = 0 wherever O[x, y] < k; ValueError if none exists.

    One LP feasibility problem [worst-case-pml, problem (10), HiGHS]. eps >= 0 in nats; k in 1..N. One
    exists iff eps >= eps*(k) (:func:`optimal_epsilon`); the error states that range.
    """
    p, o, k = _prior_order_k(prior, order, k)
    eps = check_epsilon(eps)
    ok, channel = _feasibility_lp(p, o >= k, min(eps, epsilon_max(p)))
    if not ok:
        raise ValueError(
            f"eps must be >= eps*(k) = {optimal_epsilon(p, o, k):.9g} nats (up to the bisection "
            f"tolerance) for an eps-PML mechanism with worst-case order >= k = {k} to exist; "
            f"got eps = {eps:.9g} ([worst-case-pml] problem (10) is infeasible)"
        )
    return channel


def optimal_mechanism(prior, order, k, *, tol: float = BISECTION_TOL):
    """eps*(k) and a mechanism attaining it: the optimum of problem (2) of [worst-case-pml] (Sec. III-B).

    eps*(k) = min { eps : some eps-PML mechanism has P(y|x) = 0 wherever O[x, y] < k }, by bisection
    on eps with one LP feasibility problem per step. The bracket is [max(0, min_y -log P(A_y)),
    eps_US(k)]: Lemma 3 bounds every used column from below and the utility-safe mechanism is
    feasible at eps_US(k). Returns ``(eps, channel)`` with eps the feasible end of the final bracket
    (within ``tol`` nats of eps*(k), up to the LP tolerance) and eps*(k) <= eps_US(k) always.
    """
    p, o, k = _prior_order_k(prior, order, k)
    tol = check_tolerance(tol)
    mask = o >= k
    bound = _lemma3_bound(p, mask)
    hi, best = utility_safe_epsilon(p, o, k), utility_safe_mechanism(o, k)
    lo = float(bound.min())  # some output is used, and it leaks at least its Lemma 3 bound
    if hi - lo <= tol:
        return hi, best
    # the utility-safe level is usually optimal: one LP just below it settles that case
    ok, trial = _feasibility_lp(p, mask, hi - tol, bound)
    if not ok:
        return hi, best
    hi, best = hi - tol, trial
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        ok, trial = _feasibility_lp(p, mask, mid, bound)
        if not ok:
            lo = mid
        else:
            hi, best = mid, trial
    return hi, best


def optimal_epsilon(prior, order, k, *, tol: float = BISECTION_TOL) -> float:
    """eps*(k) of [worst-case-pml], problem (2), in nats (see :func:`optimal_mechanism`)."""
    return optimal_mechanism(prior, order, k, tol=tol)[0]


def largest_worst_case_order(prior, order, eps, *, method: str = "optimal") -> int:
    """The largest k with eps*(k) <= eps: the optimum of problem (1) of [worst-case-pml] in order terms.

    ``method="optimal"`` uses eps*(k) (one LP feasibility problem (10) at eps per k),
    ``"utility_safe"`` uses eps_US(k) (Corollary 1). Both are non-decreasing in k (Lemma 1), so the answer is the number of k with
    eps(k) <= eps; eps >= 0 in nats; result in 1..N (eps(1) = 0).
    """
    check_choice(method, "method", ("optimal", "utility_safe"))
    eps = check_epsilon(eps)
    p, o, _ = _prior_order_k(prior, order, 1)
    best = 1
    for k in range(2, o.shape[1] + 1):
        if method == "utility_safe":
            ok = utility_safe_epsilon(p, o, k) <= eps + 1e-12
        else:  # eps*(k) <= eps iff the polytope of problem (10) at eps is non-empty: one LP
            ok = _feasibility_lp(p, o >= k, min(eps, epsilon_max(p)))[0]
        if not ok:
            break
        best = k
    return best


# ------------------------------------------------------------------ LDP mechanisms made PML


def ldp_epsilon_for_pml(prior, eps) -> float:
    """eps' such that every eps'-LDP mechanism is eps-PML for ``prior`` [worst-case-pml, Proposition 1].

    eps' = log( e^eps (1 - p_min) / (1 - p_min e^eps) ) for 0 <= eps < eps_max = -log p_min;
    ``inf`` for eps >= eps_max (every mechanism is eps-PML). Nats; full-support prior.
    """
    p = check_distribution(prior, full_support=True)
    eps = check_epsilon(eps)
    p_min = float(p.min())
    if eps >= epsilon_max(p) or p_min >= 1.0:
        return math.inf
    return float(eps + math.log1p(-p_min) - math.log1p(-p_min * math.exp(eps)))


def utility_sensitivity(utility) -> float:
    """Du = max_y max_{x, x'} |u(x, y) - u(x', y)| (local model: every two inputs are neighbours).

    The sensitivity of the exponential mechanism [worst-case-pml, Sec. IV-A]; units of the utility, >= 0.
    """
    u = _as_float_array(utility, "utility", 2)
    return float((u.max(axis=0) - u.min(axis=0)).max())


def exponential_mechanism(utility, eps) -> np.ndarray:
    """The exponential mechanism, eps-LDP (McSherry-Talwar; [worst-case-pml], Sec. IV-A).

    P(y|x) proportional to exp( eps u(x, y) / (2 Du) ), Du = :func:`utility_sensitivity`; eps >= 0
    in nats (``inf`` puts all mass on the best output of each row). A constant utility (Du = 0)
    gives the uniform mechanism.
    """
    u = _as_float_array(utility, "utility", 2)
    eps = check_epsilon(eps, "eps")
    du = utility_sensitivity(u)
    if du == 0:
        return np.full(u.shape, 1.0 / u.shape[1])
    if math.isinf(eps):
        best = u == u.max(axis=1, keepdims=True)
        return best / best.sum(axis=1, keepdims=True)
    score = eps * u / (2.0 * du)
    w = np.exp(score - score.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


def pml_randomized_response(prior, eps) -> np.ndarray:
    """Randomized response at the LDP level of Proposition 1: an eps-PML mechanism for ``prior``."""
    p = check_distribution(prior, full_support=True)
    return randomized_response(p.size, ldp_epsilon_for_pml(p, eps))


def pml_exponential_mechanism(prior, utility, eps) -> np.ndarray:
    """Exponential mechanism at the LDP level of Proposition 1: an eps-PML mechanism for ``prior``."""
    p = check_distribution(prior, full_support=True)
    u = _as_float_array(utility, "utility", 2)
    if u.shape[0] != p.size:
        raise ValueError(f"utility has {u.shape[0]} rows but prior has {p.size} entries; they must match")
    return exponential_mechanism(u, ldp_epsilon_for_pml(p, eps))


def utility_safe_mechanism_for(prior, utility, eps) -> np.ndarray:
    """The utility-safe mechanism at privacy level eps: threshold k = the largest with eps_US(k) <= eps
    [worst-case-pml, Sec. IV-A, Fig. 1]. Row-stochastic and eps-PML for ``prior``; eps >= 0 in nats."""
    order = utility_order_matrix(utility)
    k = largest_worst_case_order(prior, order, eps, method="utility_safe")
    return utility_safe_mechanism(order, k)
