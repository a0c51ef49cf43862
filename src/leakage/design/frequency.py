"""Channels designed for frequency estimation: min tr J^-1 over the privacy cone, by column generation.

The utility ``"frequency_mse"`` of :func:`leakage.design.optimal_mechanism`. With the channel
written as weights theta_r >= 0 on normalised rays r of the cone K (P.r = 1, sum_r theta_r r = 1),
the Fisher-type matrix of the release is J = sum_r theta_r r r^T and the per-record total variance
of the best linear unbiased estimate of the histogram of m fixed records is (tr J^-1 - 1) / m
(:func:`leakage.estimation.frequency.frequency_mse`): the design minimises tr J^-1, a convex
function of theta (A-optimal design [sagnol2011] with the extra constraint that the rows of the
channel sum to one).

Column generation: the restricted master over the columns found so far
(:mod:`~leakage.design.frequency_master`, an interior-point solve) gives weights and a dual point (Z, w); the
pricing (:mod:`~leakage.design.pricing.frequency`) maximises the convex quadratic
phi(r) = |Z^T r|^2 + w.r over the cone's cross-section, whose maximum is at a vertex; the columns
of positive phi enter the master. Whatever the master's accuracy, every (Z, w) with an upper bound
U on that maximum gives the certified lower bound

    min over all channels of tr J^-1  >=  2 tr Z + sum_x w_x - U

(weak duality, :mod:`~leakage.design.frequency_master`), so the bound of the result is exact when
the pricing is (N <= ``EXHAUSTIVE_LIMIT``). The loop starts from the columns of eps-LDP randomized
response (a staircase per letter: feasible in every cone, linearly independent) and the warm-start
columns; it stops when value - bound <= tol (1 + value), after ``max_iterations`` master solves, or
when the pricing finds no improving column. Complexity per iteration: one warm-started master
(O(K N^4) per Newton step for K columns) and one pricing (O(2^N N (N + #T1)) exhaustive; O(N^3) per local-search step
beyond).
"""

from __future__ import annotations

import math

import numpy as np

import time

from leakage.design.colgen import Budget, Solution
from leakage.design.cone import Cone
from leakage.design.frequency_master import MasterSolution, assemble, channel_of, solve_master
from leakage.design.result import OptimalDesign, identity_private, verify_channel
from leakage.design.pricing.frequency import EXHAUSTIVE_LIMIT, exhaustive_pricing, local_pricing, relaxed_bound
from leakage.design.vertices import channel_columns, enumerate_vertices, staircase_columns
from leakage.estimation.frequency import frequency_mse
from leakage.mechanisms.frequency_oracles import FrequencyOracle, subset_fisher_informations


#: master columns whose weight is below this fraction of the largest leave the master
_DROP = 1e-12
#: columns the pricing returns per iteration, per letter
_KEEP = 6


#: largest eps (nats) at which the oracle blocks enter the master (their Fisher matrices need e^eps finite)
_BLOCK_EPS = 30.0
#: rays drawn per unit of block weight (times N) when the blocks are replaced by rays
_BLOCK_DRAWS = 4


def oracle_blocks(prior, eps: float) -> np.ndarray | None:
    """The Fisher matrices of subset selection with every subset size d = 1..N-1 [ye2018]
    (:func:`leakage.mechanisms.frequency_oracles.subset_fisher_informations`), the whole channels
    that enter the master as blocks: GRR is SS_1, and OUE and OLH are mixtures of the SS_d and of the
    all-ones column (:func:`leakage.mechanisms.frequency_oracles.oracle_fisher_information`), so
    with them the master's value is at most the best linear unbiased variance of every oracle
    from the first iteration. Every SS_d is eps-LDP, so its rays lie in every cone of the engine
    (LDP, and the PML box and balls, which contain the LDP cone). None for N < 3 or eps above
    ``_BLOCK_EPS``."""
    n = prior.size
    if n < 3 or not eps <= _BLOCK_EPS:
        return None
    return subset_fisher_informations(prior, eps)[1:n]


def affine_subset_channel(n: int, eps: float, d: int) -> np.ndarray:
    """Subset selection [ye2018] with the d-subsets of one orbit of the affine group of GF(q),
    q the least prime >= n: the sets {a s + b mod q : s < d} over a in GF(q)^*, b in GF(q) (with
    multiplicity), cut to the n real letters (the q - n others never occur), each reported with
    probability proportional to e^eps if it holds the record's value, 1 if not. The group is
    2-transitive, so every letter lies in (q - 1) d of the q (q - 1) sets and every pair in the
    same number: the channel is eps-LDP with rows of one normaliser and, for q = n, the same
    probabilities p and q of containing the own value and another one as SS of size d on n
    letters (so the same standard variance, [wang2017]) with q (q - 1) outputs at most instead of
    C(n, d). For q > n it is SS on q letters of which q - n are never held. Identical sets merge
    (their weights add). O(q^2 d) (n x K, K <= q (q - 1))."""
    q = n
    while any(q % f == 0 for f in range(2, math.isqrt(q) + 1)):
        q += 1
    a_, b_ = np.arange(1, q), np.arange(q)
    sets = (a_[:, None, None] * np.arange(d)[None, None, :] + b_[None, :, None]) % q
    sets = sets.reshape(-1, d)
    masks = np.zeros((sets.shape[0], q), dtype=bool)
    masks[np.arange(sets.shape[0])[:, None], sets] = True
    masks, count = np.unique(masks[:, :n], axis=0, return_counts=True)
    ch = count[None, :] * (1.0 + math.expm1(eps) * masks.T)
    return ch / ch.sum(axis=1, keepdims=True)


def solve_frequency(cone: Cone, tol: float, budget: Budget, start: np.ndarray) -> Solution:
    """The channel of least tr J^-1 - 1 over K: :func:`_solve_frequency` with BLAS on one thread (its
    matrices are small: threads only contend for the cores, and one thread fixes the summation order)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _solve_frequency(cone, tol, budget, start)


def _solve_frequency(cone: Cone, tol: float, budget: Budget, start: np.ndarray) -> Solution:
    """The channel of least tr J^-1 - 1 over K with a certified lower bound (module docstring).
    ``start``: polished columns (N x K) that seed the master. ``Solution.bound`` is the LOWER bound
    on the optimal tr J^-1 - 1; ``Solution.stats`` says how the pricing bounded (``exact``) and,
    when not certified, what held the bound (``limited_by``)."""
    p, n = cone.prior, cone.n
    exact = n <= EXHAUSTIVE_LIMIT
    cols = np.concatenate([staircase_columns(p, cone.eps, np.eye(n, dtype=bool)), np.ones((n, 1)), start], axis=1)
    cols = cols / (p @ cols)[None, :]
    blocks = oracle_blocks(p, cone.eps)
    best_bound, iters, generated = 0.0, 0, 0
    limited_by = None
    history = []
    ms = None
    while True:
        iters += 1
        try:
            ms = solve_master(cols, ms, blocks=blocks)
        except RuntimeError as exc:
            if iters == 1:
                raise
            limited_by = f"master: {exc}"
            break
        theta, Z, w = ms.theta, ms.Z, ms.w
        if blocks is not None and ms.block_weights.max(initial=0.0) > _DROP * max(theta.max(), ms.block_weights.max()):
            # the oracles still carry weight: the value of the (unbuilt) mixture, for the stopping rule
            J = (cols * theta[None, :]) @ cols.T + np.einsum("b,bij->ij", ms.block_weights, blocks)
            channel, value = None, float(np.trace(np.linalg.inv(J))) - 1.0
        else:
            if blocks is not None:
                blocks, ms = None, MasterSolution(theta, Z, w, ms.value, ms.status)
            channel = channel_of(cols, theta)
            value = frequency_mse(channel, p)
        G = Z @ Z.T
        base = 2.0 * float(np.trace(Z)) + float(w.sum()) - 1.0
        scale = tol * (1.0 + value)
        keep = _KEEP * n
        if exact:
            pr = exhaustive_pricing(cone, G, w, keep=keep, collect=scale / 4)
        else:
            pr = local_pricing(cone, G, w, keep=keep, collect=scale / 4)
        if math.isfinite(pr.bound):
            best_bound = max(best_bound, base - pr.bound)
        history.append((value, best_bound))
        final = iters >= budget.max_iterations or budget.out_of_time()
        new = pr.columns[:, pr.values > scale / 4] if pr.columns.size else pr.columns
        if channel is None and not final and (value - best_bound <= scale or new.shape[1] == 0):
            # converged with the oracle blocks still weighing: the rays take over (a channel must
            # list its outputs); the master restarts from its rays' weights
            blocks, ms = None, MasterSolution(theta, Z, w, ms.value, ms.status)
            cols = np.concatenate([cols, cone.polish(new)], axis=1) if new.shape[1] else cols
            continue
        if value - best_bound <= scale:
            break
        if final or new.shape[1] == 0:
            limited_by = "max_iterations" if final else "pricing"
            break
        new = cone.polish(new)
        # the master keeps its columns of positive weight (the bound prices every vertex anyway) and
        # starts from its last iterate over them
        kept = theta > _DROP * theta.max()
        ms = MasterSolution(theta[kept], Z, w, ms.value, ms.status, ms.block_weights)
        cols = np.concatenate([cols[:, kept], new], axis=1)
        generated += new.shape[1]
    if not exact and value - best_bound > scale:
        # the local search found nothing more: bound the pricing by the relaxation at the last duals
        rb = relaxed_bound(cone, G, w)
        best_bound = max(best_bound, base - rb)
        limited_by = "relaxation (N > exhaustive pricing limit)"
    t, sup = assemble(cols, theta)
    stats = {"exact_pricing": exact, "pricing": pr.stats, "history": history}
    if channel is None:
        # the oracle blocks still weigh: block d is built as the affine-orbit subset selection of
        # size d (a channel must list its outputs; C(N, d) is too many), rows renormalised
        stats["block_value"] = value
        lam = ms.block_weights
        parts = [cols * theta[None, :]] + [lam[i] * affine_subset_channel(n, cone.eps, int(i) + 1)
                                           for i in np.flatnonzero(lam > _DROP * lam.max())]
        channel = np.concatenate(parts, axis=1)
        channel = channel[:, channel.max(axis=0) > 0]
        channel = channel / channel.sum(axis=1, keepdims=True)
        value = frequency_mse(channel, p)
    if value - best_bound > scale:
        stats["limited_by"] = limited_by
    return Solution(channel, float(best_bound), cols[:, sup], iters, generated, stats)

def design_frequency(p, eps, beta, privacy, method, budget: Budget, tol: float, warm, t0: float):
    """The ``utility="frequency_mse"`` design on validated inputs (called by
    :func:`leakage.design.optimal_mechanism`, which validates; eps > 0 there). Identity where it is
    private (value and bound 0); otherwise :func:`solve_frequency` seeded with the feasible warm
    starts' columns (``method="enumerate"``: also every vertex of a closed-form family). The
    returned channel is verified exactly (``leakage.design.result.verify_channel``); ``value`` is
    :func:`leakage.estimation.frequency.frequency_mse` of it, ``bound`` a certified lower bound."""
    n = p.size
    base = dict(prior=p, eps=eps, beta=beta, privacy=privacy, utility="frequency_mse", tol=tol)
    if identity_private(p, eps, beta, privacy):
        ch = np.eye(n)
        if not math.isinf(eps):
            verify_channel(ch, p, eps, beta, privacy)
        return OptimalDesign(channel=ch, value=frequency_mse(ch, p), bound=0.0, certified=True, method="identity",
                             columns_generated=0, iterations=0, seconds=time.perf_counter() - t0,
                             columns=np.diag(1.0 / p), **base)
    method = "enumerate" if method == "enumerate" else "colgen"
    cone = Cone.of(p, eps, beta, privacy)
    start, seeds = [], []
    for entry in warm:
        ch = getattr(entry, "channel", entry)
        try:
            verify_channel(ch, p, eps, beta, privacy)
        except RuntimeError as exc:
            if not isinstance(entry, np.ndarray):
                if entry.columns.size:
                    start.append(cone.polish(entry.columns))  # a design of another cone lends its columns
                continue
            raise ValueError(f"warm_start channel does not satisfy the privacy constraint: {exc}") from None
        start.append(channel_columns(cone, ch))
        try:
            seeds.append((ch, frequency_mse(ch, p)))
        except ValueError:  # rows not identifiable: columns only
            pass
    if method == "enumerate":
        start.append(cone.polish(enumerate_vertices(cone)))
    if n >= 3 and eps <= _BLOCK_EPS:
        # subset selection of the sizes around the oracle's own, built on an affine orbit
        # (eps-LDP, so in every cone): a feasible channel the result is never worse than
        d0 = FrequencyOracle("ss", n, eps).subset_size
        for d in range(max(1, d0 - 1), min(n - 1, d0 + 1) + 1):
            ch = affine_subset_channel(n, eps, d)
            seeds.append((ch, frequency_mse(ch, p)))
    sol = solve_frequency(cone, tol, budget, np.concatenate(start, axis=1) if start else np.zeros((n, 0)))
    ch, stats = sol.channel, dict(sol.stats)
    value = frequency_mse(ch, p)
    best = min(seeds, key=lambda e: e[1], default=None)
    if best is not None and best[1] < value:  # the master holds the seed's columns: numerics only
        ch, value = best[0], best[1]
        stats["seed_returned"] = True
    stats["leakage"] = verify_channel(ch, p, eps, beta, privacy)
    bound = sol.bound
    if value < bound <= value + 1e-9 * (1 + value):
        bound = value  # the master's value and the assembled channel's differ by rounding
    if bound > value:
        raise RuntimeError(f"optimal_mechanism: value {value!r} is below the certified lower bound {bound!r}")
    return OptimalDesign(channel=np.ascontiguousarray(ch), value=float(value), bound=float(bound),
                         certified=bool(value - bound <= tol * (1 + value)), method=method,
                         columns_generated=sol.generated, iterations=sol.iterations,
                         seconds=time.perf_counter() - t0, columns=sol.columns, stats=stats, **base)


#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
