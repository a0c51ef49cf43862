"""Beside the design loop: closed-form mechanisms, and design for linear utilities as one LP over
the design polytope.

Mechanism design for PML under l1 uncertainty about the prior [empirical-pml, Sec. V].

The designer knows an estimate P̂ and a radius beta; the mechanism must be eps-PML for every prior
in the l1-ball B_beta(P̂) of eq. (31), i.e. lie in the polytope M(eps, B_beta(P̂)) of
Proposition 2. This module offers

* the closed-form optimal binary mechanism of Theorem 5 (eq. (41)) and the k-singular mechanisms
  of Example 2 (eq. (35));
* the polytope as sparse linear constraints, in two equivalent forms: ``"compact"`` (Appendix D,
  eq. (98): O(N^2) constraints with one auxiliary variable m_j <= min_i p_ij per column, and the
  output marginal s_j = sum_i P̂_i p_ij named so that every row is short) and ``"literal"``
  (eq. (43): N^3 constraints, one per (i, i', j), no auxiliary variables);
* LP design for linear utilities (expected utility sum_x P̂(x) sum_y P(y|x) u(x, y), e.g. minus an
  expected distortion) with HiGHS, reporting the mutual information of the design;
* the "design for eps' w.r.t. P̂" route of eq. (44): optimise over M(eps', P̂) ⊆ M(eps, B_beta(P̂)).

Mechanisms are row-stochastic ``channel[x, y] = P(y | x)``; everything is in nats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from leakage.measures.information import mutual_information
from leakage.validation import (
    check_array,
    check_array_size,
    check_channel,
    check_choice,
    check_count,
    check_distribution,
    check_epsilon,
    check_scalar,
    check_tolerance,
)

FORMS = ("compact", "literal", "estimate")

# --------------------------------------------------------------------------- closed forms


def k_singular_mechanism(n_symbols: int, k: int) -> np.ndarray:
    """The k-singular mechanism P(y|x) = 1/k for y in {x, x+1, ..., x+k-1 mod N}, else 0 [empirical-pml, eq. (35)].

    Doubly stochastic; an optimal extremal mechanism for the uniform prior at eps = log(N/k)
    ([saeidian-optimal-pml, Theorem 4]; [empirical-pml, Example 2]). Valid for N >= 2 and 1 <= k <= N.
    """
    n = check_count(n_symbols, "n_symbols", low=2)
    check_array_size((n, n), "n_symbols")
    k = check_count(k, "k", low=1)
    if k > n:
        raise ValueError(f"k must be in [1, n_symbols = {n}], got {k}")
    channel = np.zeros((n, n))
    rows = np.repeat(np.arange(n), k)
    cols = (rows + np.tile(np.arange(k), n)) % n
    channel[rows, cols] = 1.0 / k
    return channel


def design_epsilon(eps, beta) -> float:
    """eps' = log( e^eps / (1 + beta e^eps / 2) ) [empirical-pml, Proposition 2, eq. (43)].

    The privacy parameter w.r.t. P̂ that guarantees eps-PML on B_beta(P̂) (inverse of the bound (33):
    eps + log(1 - beta e^eps' / 2)^(-1) = eps). Nats, may be negative. Valid for eps >= 0, beta >= 0.
    """
    eps = check_epsilon(eps)
    beta = check_scalar(beta, "beta", low=0.0, high=2.0)
    if eps > 700.0:  # e^eps overflows: eps' = -log(e^-eps + beta/2) -> log(2/beta) (eps if beta = 0)
        return float(-np.log(np.exp(-eps) + beta / 2.0)) if beta > 0 else eps
    return float(eps - np.log1p(beta * np.exp(eps) / 2.0))


def optimal_binary_mechanism(p_hat, eps, beta) -> np.ndarray:
    """Theorem 5 [empirical-pml, eq. (41)]: the optimal binary mechanism on B_beta(P̂),

        P* = 1/(1 + beta e^eps) [[e^eps (1 - p1 + beta/2), 1 - e^eps (1 - p1 - beta/2)],
                                 [1 - e^eps (p1 - beta/2),  e^eps (p1 + beta/2)]],

    with p1 = P̂(x1) >= P̂(x2) = p2 (a ``p_hat`` in the other order gets the mechanism relabelled).
    It maximises every sub-convex utility over M(eps, B_beta(P̂)). Valid for full-support P̂,
    beta in [0, 2 p2) and 0 <= eps <= -log(p1 - beta/2) (first privacy region on the whole ball);
    beta = 2 p2 is admitted as the limit of Remark 3 (p1 = 1/2, beta = 1: randomized response (42)).
    Note: (41) is the form that satisfies Remark 3; Appendix C's (93)-(94) differ by the sign of
    beta/2 in p11 and do not reduce to (42).
    """
    p = check_distribution(p_hat, "p_hat", full_support=True)
    if p.size != 2:
        raise ValueError(f"p_hat must be a binary distribution (2 entries), got {p.size}")
    eps = check_epsilon(eps)
    swap = p[0] < p[1]
    p1, p2 = (p[1], p[0]) if swap else (p[0], p[1])
    beta = check_scalar(beta, "beta", low=0.0, high=2.0 * p2)
    # p1 - beta/2 >= p1 - p2 >= 0; at p1 = p2 = beta/2 (Remark 3) every eps is allowed
    rest = p1 - beta / 2.0
    eps_top = float(-np.log(rest)) if rest > 0 else float("inf")
    if eps > eps_top + 1e-12:
        raise ValueError(
            f"eps must be in [0, -log(p1 - beta/2) = {eps_top:.6g}] for Theorem 5 "
            f"(p1={p1:.6g}, beta={beta:.6g}), got {eps!r}"
        )
    if eps <= 700.0:
        e = np.exp(eps)
        mech = np.array(
            [
                [e * (1 - p1 + beta / 2), 1 - e * (1 - p1 - beta / 2)],
                [1 - e * (p1 - beta / 2), e * (p1 + beta / 2)],
            ]
        ) / (1 + beta * e)
    else:  # e^eps overflows (eps = inf is admitted at Remark 3's corner): (41) divided through by e^eps
        a = np.exp(-eps)
        mech = np.array(
            [
                [1 - p1 + beta / 2, a - (1 - p1 - beta / 2)],
                [a - (p1 - beta / 2), p1 + beta / 2],
            ]
        ) / (a + beta)
    mech = np.clip(mech, 0.0, 1.0)
    if swap:
        mech = mech[::-1, ::-1]
    return np.ascontiguousarray(mech)


# --------------------------------------------------------------------------- polytopes


@dataclass(frozen=True)
class DesignLP:
    """Linear constraints A_ub x <= b_ub, A_eq x = b_eq, bounds, on x = (vec(P), auxiliaries).

    The first N*M variables are the mechanism, row-major (index i*M + j for p_ij), except in the
    compact form where they are q_ij = p_ij - m_j (see :func:`design_polytope`).
    """

    a_ub: sp.csr_matrix
    b_ub: np.ndarray
    a_eq: sp.csr_matrix
    b_eq: np.ndarray
    n_vars: int
    n_inputs: int
    n_outputs: int
    form: str


def _check_design_inputs(p_hat, eps, beta, form):
    p = check_distribution(p_hat, "p_hat", full_support=True)
    eps = check_epsilon(eps)
    p_min = float(p.min())
    beta = check_scalar(beta, "beta", low=0.0, high=2.0 * p_min, high_inclusive=False)
    check_choice(form, "form", FORMS)
    return p, eps, beta


def _row_sum_rows(n: int, m: int, n_vars: int) -> sp.csr_matrix:
    """sum_j p_ij for every row i (N rows of M ones)."""
    rows = np.repeat(np.arange(n), m)
    cols = np.arange(n * m)
    return sp.csr_matrix((np.ones(n * m), (rows, cols)), shape=(n, n_vars))


def _marginal_rows(p: np.ndarray, m: int, n_vars: int, s_offset: int) -> sp.csr_matrix:
    """s_j - sum_i P̂_i p_ij for every column j (M rows)."""
    n = p.size
    j = np.tile(np.arange(m), n)
    i = np.repeat(np.arange(n), m)
    rows = np.concatenate([np.arange(m), j])
    cols = np.concatenate([s_offset + np.arange(m), i * m + j])
    vals = np.concatenate([np.ones(m), -p[i]])
    return sp.csr_matrix((vals, (rows, cols)), shape=(m, n_vars))


def design_polytope(p_hat, eps, beta, n_outputs: int | None = None, *, form: str = "compact") -> DesignLP:
    """The polytope M(eps, B_beta(P̂)) of Proposition 2 [empirical-pml] as sparse linear constraints.

    ``form``:

    * ``"compact"`` (Appendix D, eq. (98)): (1 + beta e^eps / 2) p_ij <= e^eps (sum_k P̂_k p_kj +
      beta/2 m_j), m_j <= p_ij, with the column minimum m_j as auxiliary variable. Written in the
      variables q_ij = p_ij - m_j >= 0, m_j and t_j = sum_i P̂_i q_ij: NM + M + N rows, 5NM + 2M
      non-zeros (the LP is several times faster to solve than with m_j <= p_ij as rows).
    * ``"literal"`` (eq. (43)): p_ij <= e^eps' (sum_k P̂_k p_kj + beta/2 p_i'j) for all i, i', j with
      eps' of eq. (43); N^2 M + N rows, N^2 M (N + 2) non-zeros, no auxiliary variables.
    * ``"estimate"`` (eq. (44), [saeidian-optimal-pml, Lemma 1]): the smaller polytope M(eps', P̂):
      p_ij <= e^eps' s_j, s_j = sum_i P̂_i p_ij.

    Plus sum_j p_ij = 1 and 0 <= x <= 1. Valid for full-support P̂, eps >= 0, beta in [0, 2 min P̂).
    """
    p, eps, beta = _check_design_inputs(p_hat, eps, beta, form)
    n = p.size
    m = n if n_outputs is None else check_count(n_outputs, "n_outputs", low=1)
    # the constraint matrices' entries, refused before anything is built: 5 N M (compact),
    # N^2 M (N + 2) (literal), 3 N M (estimate)
    check_array_size((n, m, n + 2 if form == "literal" else 5), "n_outputs" if n_outputs is not None else "p_hat")
    nm = n * m
    j = np.tile(np.arange(m), n)
    # Every mechanism is eps-PML for a prior P once eps >= log(1/min P) (P(y|x)/P(y) <= 1/P(x)), and
    # min P >= min P̂ - beta/2 on the ball: beyond eps_all the polytope is the set of all channels,
    # the same as at eps_all. Building it at eps_all keeps the LP's coefficients e^eps moderate
    # (e^35 made HiGHS report a non-empty polytope infeasible; eps = inf gave inf - inf).
    eps_all = float(-np.log(p.min() - beta / 2.0))
    eps_given, eps = eps, min(eps, eps_all)
    e = np.exp(eps)

    if form == "compact":
        # variables: q_ij = p_ij - m_j >= 0 (N*M), m_j (M, the column minima), t_j = sum_i P̂_i q_ij
        # (M); then p_ij = m_j + q_ij, sum_i P̂_i p_ij = m_j + t_j and (98) reads
        # (1 + beta e^eps/2) q_ij + (1 - e^eps) m_j - e^eps t_j <= 0: the constraints m_j <= p_ij
        # become the bounds q_ij >= 0, and every row has 3 non-zeros.
        n_vars = nm + 2 * m
        m_off, t_off = nm, nm + m
        r = np.arange(nm)
        a_ub = sp.csr_matrix(
            (
                np.concatenate([np.full(nm, 1.0 + beta * e / 2.0), np.full(nm, 1.0 - e), np.full(nm, -e)]),
                (np.tile(r, 3), np.concatenate([r, m_off + j, t_off + j])),
            ),
            shape=(nm, n_vars),
        )
        rows_i = np.repeat(np.arange(n), m)
        row_sums = sp.csr_matrix(
            (np.ones(2 * nm), (np.tile(rows_i, 2), np.concatenate([r, m_off + j]))), shape=(n, n_vars)
        )
        a_eq = sp.vstack([_marginal_rows(p, m, n_vars, t_off), row_sums], format="csr")
    elif form == "literal":
        n_vars = nm
        ep = np.exp(design_epsilon(eps, beta))
        # one row per (i, i', j): index (i * n + i') * m + j
        ii, ip, jj = (g.ravel() for g in np.meshgrid(np.arange(n), np.arange(n), np.arange(m), indexing="ij"))
        rows = np.arange(ii.size)
        k = np.arange(n)
        sum_rows = np.repeat(rows, n)
        sum_cols = (np.tile(k, rows.size)) * m + np.repeat(jj, n)
        sum_vals = -ep * np.tile(p, rows.size)
        a_ub = sp.csr_matrix(
            (
                np.concatenate([np.ones(rows.size), np.full(rows.size, -ep * beta / 2.0), sum_vals]),
                (np.concatenate([rows, rows, sum_rows]), np.concatenate([ii * m + jj, ip * m + jj, sum_cols])),
            ),
            shape=(rows.size, n_vars),
        )
        a_eq = _row_sum_rows(n, m, n_vars)
    else:  # estimate: M(eps', P̂)
        # M(eps', P̂) is every channel once eps' >= log(1/min P̂): clip there for the same reason
        eps_prime = min(design_epsilon(eps_given, beta), float(-np.log(p.min())))
        if eps_prime < 0:
            raise ValueError(
                f"the design for eps' w.r.t. p_hat (eq. (44)) needs eps' = log(e^eps/(1 + beta e^eps/2)) >= 0, "
                f"i.e. e^eps (1 - beta/2) >= 1; got eps={eps:.6g}, beta={beta:.6g} (eps'={eps_prime:.6g}): "
                f"M(eps', p_hat) is empty, increase eps or decrease beta"
            )
        n_vars = nm + m
        s_off = nm
        r = np.arange(nm)
        a_ub = sp.csr_matrix(
            (np.concatenate([np.ones(nm), np.full(nm, -np.exp(eps_prime))]), (np.tile(r, 2), np.concatenate([r, s_off + j]))),
            shape=(nm, n_vars),
        )
        a_eq = sp.vstack([_marginal_rows(p, m, n_vars, s_off), _row_sum_rows(n, m, n_vars)], format="csr")
    b_ub = np.zeros(a_ub.shape[0])
    b_eq = np.concatenate([np.zeros(a_eq.shape[0] - n), np.ones(n)])
    return DesignLP(a_ub, b_ub, a_eq, b_eq, n_vars, n, m, form)


def _full_vector(channel: np.ndarray, lp: DesignLP, p_hat: np.ndarray) -> np.ndarray:
    """The LP variables of a given mechanism (auxiliaries at their tightest values)."""
    x = channel.ravel()
    if lp.form == "compact":
        low = channel.min(axis=0)
        q = channel - low[None, :]
        return np.concatenate([q.ravel(), low, p_hat @ q])
    if lp.form == "estimate":
        return np.concatenate([x, p_hat @ channel])
    return x


def in_design_polytope(channel, p_hat, eps, beta, *, form: str = "compact", tol: float = 1e-9) -> bool:
    """Whether ``channel`` satisfies the linear constraints of :func:`design_polytope` (up to ``tol``)."""
    tol = check_tolerance(tol)
    c = check_channel(channel)
    lp = design_polytope(p_hat, eps, beta, c.shape[1], form=form)
    if c.shape[0] != lp.n_inputs:
        raise ValueError(f"channel has {c.shape[0]} rows but p_hat has {lp.n_inputs} entries")
    x = _full_vector(c, lp, np.asarray(p_hat, dtype=float))
    return bool(np.all(lp.a_ub @ x <= lp.b_ub + tol))


# --------------------------------------------------------------------------- LP design


@dataclass(frozen=True)
class Design:
    """An optimal mechanism and what it achieves (utility under P̂, I(X;Y) under P̂ in nats)."""

    mechanism: np.ndarray
    expected_utility: float
    mutual_information: float
    eps: float
    beta: float
    form: str


def design_mechanism(p_hat, eps, beta, utility, *, form: str = "compact") -> Design:
    """max_{P in M(eps, B_beta(P̂))} sum_x P̂(x) sum_y P(y|x) u(x, y): eq. (40) for a linear utility [empirical-pml].

    Solved as an LP (HiGHS) over the polytope of Proposition 2 in the given ``form`` (see
    :func:`design_polytope`; ``"estimate"`` is the route (44): optimise over M(eps', P̂)).
    ``utility`` is an N x M matrix u(x, y) (e.g. -distortion or the identity for P(Y = X)); M is the
    output alphabet size. Returns the mechanism, its expected utility and its mutual information
    I(X; Y) under P̂ (nats). Valid for full-support P̂, eps >= 0 and beta in [0, 2 min P̂).
    """
    p, eps, beta = _check_design_inputs(p_hat, eps, beta, form)
    u = check_array(utility, "utility", ndim=2)
    if u.shape[0] != p.size:
        raise ValueError(f"utility must be a {p.size} x M matrix (rows = inputs of p_hat), got shape {u.shape}")
    lp = design_polytope(p, eps, beta, u.shape[1], form=form)
    # the LP maximises a linear function: scaling it by a positive constant changes no optimum,
    # and keeps the solver's coefficients near 1 whatever the utility's units (up to 1e300)
    scale = float(np.max(np.abs(u)))
    weights = p[:, None] * (u / scale if scale > 0 else u)
    cost = np.zeros(lp.n_vars)
    cost[: p.size * u.shape[1]] = -weights.ravel()
    if form == "compact":  # p_ij = m_j + q_ij
        cost[p.size * u.shape[1] : p.size * u.shape[1] + u.shape[1]] = -weights.sum(axis=0)
    res = linprog(
        cost, A_ub=lp.a_ub, b_ub=lp.b_ub, A_eq=lp.a_eq, b_eq=lp.b_eq, bounds=(0.0, 1.0), method="highs"
    )
    if res.status == 2:
        raise ValueError(
            f"design_mechanism: the polytope M(eps={eps:.6g}, B_beta(p_hat)) with beta={beta:.6g} "
            f"({form} form) is infeasible: {res.message}"
        )
    if res.status != 0:
        raise RuntimeError(
            f"design_mechanism: HiGHS failed on the {form} design LP (N={p.size}, eps={eps:.6g}, "
            f"beta={beta:.6g}): {res.message}"
        )
    mech = res.x[: p.size * u.shape[1]].reshape(p.size, u.shape[1])
    if form == "compact":
        mech = mech + res.x[p.size * u.shape[1] : p.size * u.shape[1] + u.shape[1]][None, :]
    mech = np.clip(mech, 0.0, 1.0)
    mech /= mech.sum(axis=1, keepdims=True)
    return Design(
        mechanism=mech,
        expected_utility=float(p @ (mech * u).sum(axis=1)),
        mutual_information=mutual_information(mech, p),
        eps=eps,
        beta=beta,
        form=form,
    )


def design_mechanism_for_estimate(p_hat, eps, beta, utility) -> Design:
    """The route of eq. (44) [empirical-pml]: optimise over M(eps', P̂), eps' from eq. (43).

    Every mechanism of M(eps', P̂) is in M(eps, B_beta(P̂)), so the result is eps-PML on the whole
    ball, but its utility may fall short of :func:`design_mechanism`'s. Same ranges.
    """
    return design_mechanism(p_hat, eps, beta, utility, form="estimate")
