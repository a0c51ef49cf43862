"""The design loop for the utility ``"frequency_mse"``: master, duals, pricing and certificate as
for mutual information, with a convex master and a quadratic pricing.

Channels designed for frequency estimation: min tr J^-1 over the privacy cone, by column generation.

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
the pricing is (N <= ``EXHAUSTIVE_LIMIT``); beyond, in every cone, semidefinite relaxations of the
vertex families bound the pricing, at the best dual point of the relaxed design, with a certificate
(:func:`~leakage.design.pricing.lifted.relaxed_duals`: its first point, refined after the loop only
where the design is not yet certified within tol, every point computed ahead on a second core by
:class:`~leakage.design.pricing.lifted.RelaxedDualsAhead`; under PML looser than under LDP). The loop
starts from the columns of eps-LDP randomized response (a staircase per letter:
feasible in every cone, linearly independent), the all-ones column, the warm-start columns (a warm
channel of many outputs is a pool the pricing draws from instead); with exact pricing, subset
selection of every size as whole channels (:func:`oracle_blocks`: the master is never worse than an
LDP oracle; blocks that still weigh at the end are built as :func:`balanced_subset_channel`);
beyond it under LDP, the columns of nearly the largest phi at the relaxed design's dual point
(beyond exact pricing the blocks stall the loop, so there the seeds of :func:`design_frequency`,
2-design subset selection, keep the result at or below the oracles). Beyond exact pricing the
local search runs at a point between the master's duals and the relaxed design's (Wentges smoothing),
and a column enters when it improves the master. It stops when
value - bound <= tol (1 + value), after ``max_iterations`` master solves, or when the pricing finds
no improving column. Complexity per iteration: one warm-started master
(O(K N^4) per Newton step for K columns) and one pricing (O(2^N N (N + #T1)) exhaustive; O(K N^2) per local-search round over K sets
beyond).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time

import numpy as np

from leakage.design.colgen import Budget, Solution
from leakage.design.cone import Cone
from leakage.design.frequency_master import MasterSolution, assemble, channel_of, solve_master
from leakage.design.result import OptimalDesign, identity_private, verify_channel
from leakage.design.pricing.frequency import (
    EXHAUSTIVE_LIMIT,
    exhaustive_pricing,
    local_pricing,
    pool_pricing,
)
from leakage.design.pricing.lifted import RelaxedDualsAhead
from leakage.design.vertices import channel_columns, enumerate_vertices, random_lift_vectors, staircase_columns
from leakage.estimation.frequency import frequency_mse
from leakage.mechanisms.frequency_oracles import FrequencyOracle, subset_fisher_informations


#: master columns whose weight is below this fraction of the largest leave the master; beyond the
#: exhaustive pricing the looser ``_DROP_LARGE`` (a master step costs O(K N^4) for K columns: the
#: design's tail converges a little more slowly, each iteration much faster)
_DROP = 1e-12
_DROP_LARGE = 1e-6
#: columns the pricing returns per iteration, per letter; beyond the exhaustive pricing on the ball
#: and the box ``_KEEP_LARGE_PML`` (the design starts from the LDP seed, far from its optimum, and an
#: optimal one mixes hundreds of outputs)
_KEEP = 6
_KEEP_LARGE_PML = 24
#: weight of the relaxed design's dual point in the point the pricing searches beyond the
#: exhaustive limit, per cone (the rest: the master's duals; docs/frequency-estimation.md): the PML
#: design starts far from its optimum, and the nearer it searches to the relaxed point the faster it
#: falls; the LDP design starts from the columns of nearly the largest phi there, where 0.95 ended
#: at or below 0.8 on every draw held out and 0.99 was better on some instances, worse on others
_SMOOTH = {"ldp": 0.95, "ball": 0.99, "box": 0.99}
#: columns whose phi at the relaxed design's dual point is within this fraction of 1 + its value of the
#: largest start the LDP master
_NEAR = 0.01
#: random starts of the local search at that dual point
_LEAD_STARTS = 2000

#: beyond the exact pricing a column enters the master when it improves it by more than
#: min(tol, _ENTRY) (1 + value) / 4 (the study's tol): iterates that do not depend on a looser tol
_ENTRY = 1e-6


#: largest eps (nats) at which the oracle blocks enter the master (their Fisher matrices need e^eps finite)
_BLOCK_EPS = 30.0


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


#: a warm-start channel with more outputs than this many times the master's unknowns N(N+3)/2 is a
#: pool the pricing draws from instead of columns of the master
_POOL_FACTOR = 20


#: most subsets (with multiplicity) a subset-selection channel of :func:`balanced_subset_channel` lists
_MAX_SUBSETS = 60000


def _is_prime(q: int) -> bool:
    return q >= 2 and all(q % f for f in range(2, math.isqrt(q) + 1))


def _balanced_family(n: int, d: int):
    """A weighted family of d-subsets of n letters in which every pair of letters lies in the same
    total weight (a 2-design), with few sets: (masks K x n, weights K), or None.

    q = the largest prime <= n, the letters 0..q-1 the field GF(q) and the t = n - q others fixed
    points. For every size s and every s-set T of fixed points, the orbit of T + {0, ..., d-s-1}
    under the affine maps u -> a u + b of GF(q) (a != 0), each set with weight w_s. The affine
    group is 2-transitive on GF(q) and fixes the others, so a pair of letters lies in
    sum_s C(t, s) w_s (d-s)(d-s-1) sets if both are in GF(q), sum_s C(t-1, s-1) w_s (q-1)(d-s) if
    one is fixed, sum_s C(t-2, s-2) w_s q (q-1) if both: the w_s >= 0 that make the three equal
    (non-negative least squares) give the design. None when there are none or too many sets."""
    from scipy.optimize import nnls

    q = n
    while not _is_prime(q):
        q -= 1
    t = n - q
    sizes = [s for s in range(0, min(t, d) + 1) if d - s <= q]
    if not sizes:
        return None
    rows = [[math.comb(t, s) * (d - s) * (d - s - 1) for s in sizes]]
    if t >= 1:
        rows.append([math.comb(t - 1, s - 1) * (q - 1) * (d - s) if s >= 1 else 0 for s in sizes])
    if t >= 2:
        rows.append([math.comb(t - 2, s - 2) * q * (q - 1) if s >= 2 else 0 for s in sizes])
    a = np.array(rows, dtype=float)
    scale = a.max(axis=1, keepdims=True)
    if np.any(scale <= 0):
        return None
    w, res = nnls(a / scale, 1.0 / scale.ravel())
    if res > 1e-12 * np.linalg.norm(1.0 / scale.ravel()):
        return None
    used = [(s, ws) for s, ws in zip(sizes, w) if ws > 0]
    if sum(math.comb(t, s) for s, _ in used) * q * (q - 1) > _MAX_SUBSETS:
        return None
    mult, add = np.arange(1, q), np.arange(q)
    masks, weights = [], []
    for s, ws in used:
        base = (mult[:, None, None] * np.arange(d - s)[None, None, :] + add[None, :, None]) % q
        base = base.reshape(-1, d - s)
        for fixed in itertools.combinations(range(q, n), s):
            m = np.zeros((base.shape[0], n), dtype=bool)
            m[np.arange(base.shape[0])[:, None], base] = True
            m[:, list(fixed)] = True
            masks.append(m)
            weights.append(np.full(base.shape[0], ws))
    return np.concatenate(masks), np.concatenate(weights)


def balanced_subset_channel(n: int, eps: float, d: int) -> np.ndarray:
    """Subset selection [ye2018] of size d over a weighted 2-design of d-subsets: report a set S
    of the family with probability proportional to its weight times e^eps if it holds the
    record's value, 1 if not. In a 2-design every letter lies in weight r and every pair in weight
    lambda with r (d - 1) = lambda (n - 1), so a report holds its own value with probability
    d e^eps / (d e^eps + n - d) and another given value with SS's q: the same pure protocol
    [wang2017] with the same standard variance as SS, with at most ``_MAX_SUBSETS`` outputs
    instead of C(n, d), and eps-LDP. The family: every d-subset when there are few enough, else
    :func:`_balanced_family` (of the complements when d > n/2: the complements of a 2-design form
    one). When neither exists, the affine orbit on the least prime q > n with the q - n extra
    letters never held (SS on q letters: eps-LDP, a little worse). Identical sets merge."""
    e = math.expm1(eps)
    if math.comb(n, d) <= _MAX_SUBSETS:
        masks = np.zeros((math.comb(n, d), n), dtype=bool)
        for i, sub in enumerate(itertools.combinations(range(n), d)):
            masks[i, list(sub)] = True
        weights = np.ones(masks.shape[0])
    else:
        small = min(d, n - d)
        fam = _balanced_family(n, small) if small >= 2 else None
        if fam is not None:
            masks, weights = fam
            if small != d:
                masks = ~masks
        else:
            q = n + 1
            while not _is_prime(q):
                q += 1
            mult, add = np.arange(1, q), np.arange(q)
            sets = ((mult[:, None, None] * np.arange(d)[None, None, :] + add[None, :, None]) % q).reshape(-1, d)
            full = np.zeros((sets.shape[0], q), dtype=bool)
            full[np.arange(sets.shape[0])[:, None], sets] = True
            masks, weights = full[:, :n], np.ones(sets.shape[0])
    masks, inverse = np.unique(masks, axis=0, return_inverse=True)
    weights = np.bincount(inverse.ravel(), weights=weights, minlength=masks.shape[0])
    ch = weights[None, :] * (1.0 + e * masks.T)
    return ch / ch.sum(axis=1, keepdims=True)


#: beyond the exact pricing, the PML master starts with about this many times its unknowns N(N+3)/2
#: of random lift vectors at H (``vertices.random_lift_vectors``), the mixture of as many outputs of
#: :func:`private_partitions` is a seed, and another draw of them, ``_PARTITION_POOL`` times as
#: many, is a pool priced at every iteration
_PARTITION_FACTOR = 1.5
_PARTITION_POOL = 10


def partition_channel(prior, top: float, columns: int, seed) -> np.ndarray:
    """Random partitions of the letters into bins of prior mass 1/``top``, letters split between
    bins where they overflow one, mixed uniformly. A partition is a channel: a record of letter x
    reports bin S with probability w_S(x), the fraction of x in S (each letter's fractions sum to 1);
    the mixture picks a partition at random. A bin's column w (entries in [0, 1], 1 on its whole
    letters) has P.w >= 1/``top`` times its largest entry, so where ``top`` is the cone's
    H = e^eps / (1 + e^eps beta/2) it lies in the PML cone on the ball: its least output probability
    there is P.w - (beta/2) max w (min w = 0), at least max w / e^eps exactly when P.w >= max w / H;
    and on the box (beta = 0). The bins of one partition fill in a random order of the letters
    until each holds mass 1/top (a letter that overflows the bin is split, its remainder starting
    the next), the remainder of the last joining the bin before. Letters share a bin with
    probability about 1/top, so the mixture is local hashing [wang2017] into buckets of equal prior
    mass rather than equal size, the form of the ball's designs beyond the exact pricing (columns 0
    on most letters and near H on a set of mass about 1/H; docs/frequency-estimation.md), and a
    letter heavier than a bin lies in several. Partitions are drawn (seeded by ``seed``) until the
    bins number ``columns``; identical bins merge."""
    p = np.asarray(prior, dtype=float)
    n = p.size
    need = (1.0 + 1e-9) / top  # a bin's mass, with room for rounding
    rng = np.random.default_rng(seed)
    bins, partitions = [], 0
    while len(bins) < columns:
        first = len(bins)
        current, mass = np.zeros(n), 0.0
        for x in rng.permutation(n):
            left = 1.0  # the fraction of x not yet in a bin
            while left > 0.0:
                if left * p[x] < need - mass:  # the rest of x fits
                    current[x] += left
                    mass += left * p[x]
                    left = 0.0
                else:  # x fills the bin: its share, and the bin closes
                    share = (need - mass) / p[x]
                    current[x] += share
                    left -= share
                    bins.append(current)
                    current, mass = np.zeros(n), 0.0
        if mass > 0.0:
            if len(bins) > first:
                bins[-1] = bins[-1] + current  # the remainder joins the last bin: its mass only grows
            else:
                bins.append(current)  # no bin filled (top < 1): the whole alphabet is one
        partitions += 1
    masks, inverse = np.unique(np.array(bins), axis=0, return_inverse=True)
    weights = np.bincount(inverse.ravel(), minlength=masks.shape[0]) / partitions
    return masks.T * weights[None, :]


#: where fewer than two bins of mass 1/H fit (H < 2), the partitions are halvings: bins of mass 1/2
#: (a hair less, so that rounding never leaves the second bin unfilled and the halving one bin)
_HALVES = 2.0 * (1.0 + 1e-8)


def private_partitions(cone: Cone, columns: int, seed) -> np.ndarray:
    """:func:`partition_channel` at the cone's top level H where two bins or more fit (H >= 2).
    Where fewer fit (1 < H < 2: small eps), a bin of mass 1/H leaves a remainder too light to be an
    output of its own, so the partitions are halvings (bins of mass 1/2) mixed with the uniform
    channel by the least weight that makes every output private (:func:`within_cone`): each output
    is then a two-level column, high on its half and low on the other, binary randomized response
    over a random mass-balanced halving."""
    if cone.top >= _HALVES:
        return partition_channel(cone.prior, cone.top, columns, seed)
    return within_cone(cone, partition_channel(cone.prior, _HALVES, columns, seed))


def within_cone(cone: Cone, channel: np.ndarray) -> np.ndarray:
    """The channel mixed with the uniform channel (rows 1/K over its K outputs) just enough that
    every column passes the cone's closed-form test max_x v_x <= e^eps g(v). Rows renormalised
    after the master's weights (:func:`~leakage.design.frequency_master.channel_of`) can leave a
    column 1e-8 past it; g(a v + c 1) = a g(v) + c, so a column mixed with weight lambda has excess
    (1 - lambda) excess(v) - (lambda / K) (e^eps - 1), which lambda / (1 - lambda) >=
    K excess / (e^eps - 1) makes <= 0. The channel unchanged when every column passes."""
    excess = float(np.max(cone.excess(channel), initial=0.0))
    if excess <= 0.0:
        return channel
    k = channel.shape[1]
    ratio = k * excess / (cone.E - 1.0) * (1.0 + 1e-6) + 1e-15
    lam = ratio / (1.0 + ratio)
    return (1.0 - lam) * channel + lam / k


def solve_frequency(cone: Cone, tol: float, budget: Budget, start: np.ndarray, pool=None, t0=None,
                    incumbent: float = math.inf) -> Solution:
    """The channel of least tr J^-1 - 1 over K: :func:`_solve_frequency` with BLAS on one thread (its
    matrices are small: threads only contend for the cores, and one thread fixes the summation order)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        t0 = time.perf_counter() if t0 is None else t0
        # beyond the exhaustive pricing the relaxed dual bounds the design: its points are computed
        # on the other core from the start (lifted.RelaxedDualsAhead)
        refinements = RelaxedDualsAhead(cone) if cone.n > EXHAUSTIVE_LIMIT else None
        try:
            return _solve_frequency(cone, tol, budget, start, pool, t0, incumbent, refinements)
        finally:
            if refinements is not None:
                refinements.close()


def _solve_frequency(cone: Cone, tol: float, budget: Budget, start: np.ndarray, pool, t0: float,
                     incumbent: float, refinements) -> Solution:
    """The channel of least tr J^-1 - 1 over K with a certified lower bound (module docstring).
    ``start``: polished columns (N x K) that seed the master. ``pool``: columns of the cone (N x K',
    K' large: a warm channel of many outputs) priced exactly at every iteration, whose improving ones
    enter the master beside the pricing's (the master's Newton steps cost O(N^4) per column it
    holds). ``Solution.bound`` is the LOWER bound on the optimal tr J^-1 - 1; ``Solution.stats``
    says how the pricing bounded (``exact``), when not certified what held the bound
    (``limited_by``), and each iteration's (value, bound, seconds since ``t0``) in ``history``, then
    one entry per refinement of the relaxed dual taken after the loop that raised the bound.
    ``incumbent``: the value of a feasible channel the caller returns if it is better (its seeds):
    the solve stops once it or the master's value is certified within ``tol``. ``refinements``:
    the relaxed dual's points (beyond the exhaustive pricing; :func:`solve_frequency`)."""
    p, n = cone.prior, cone.n
    exact = n <= EXHAUSTIVE_LIMIT
    cols = np.concatenate([staircase_columns(p, cone.eps, np.eye(n, dtype=bool)), np.ones((n, 1)), start], axis=1)
    cols = cols / (p @ cols)[None, :]
    if pool is not None:
        pool = pool / (p @ pool)[None, :]
    # the oracle blocks are LDP channels averaged over their subsets: beyond the exact pricing (PML
    # and LDP alike) they hold the master at a dual point where the local search's columns do not
    # improve it (docs/frequency-estimation.md); the seeds of design_frequency keep the result at or
    # below the oracles there
    blocks = oracle_blocks(p, cone.eps) if exact else None
    best_bound, iters, generated = 0.0, 0, 0
    rd = None
    # the best dual point of the relaxed design gives the certified bound: its first point, the
    # refinements taken only if the loop ends outside tol (each costs SCS runs on the joint program,
    # on the ball most of the design's time at N = 74, and the first point certifies nearly as
    # much). Under LDP the columns of nearly the largest phi there, which an optimal design mixes
    # when the relaxation is tight, start the master (from the oracles' or the staircases' columns
    # the master crawls); under PML thousands of columns tie there and the best of them do not form
    # a good design (docs/frequency-estimation.md), so the first master is solved while the point
    # is computed, and the point is taken before the first pricing
    pending = not exact and cone.kind != "ldp"
    if not exact and cone.kind == "ldp":
        rd = next(refinements, None)
        if rd is not None:
            best_bound = max(0.0, rd.bound)
            Gr = rd.Z @ rd.Z.T
            base_r = rd.bound + rd.pricing
            lead = local_pricing(cone, Gr, rd.w, keep=n * (n + 3), collect=-math.inf, starts=_LEAD_STARTS)
            # phi is measured against the objective: within _NEAR (1 + value) of the largest
            near = lead.columns[:, lead.values >= lead.stats["local_max"] - _NEAR * (1.0 + abs(base_r))]
            cols = np.concatenate([cols, near / (p @ near)[None, :]], axis=1)
    limited_by = None
    # beyond the exhaustive pricing, the columns are searched between the master's duals and the
    # relaxed design's (Wentges smoothing [wentges1997]): the master's own duals swing from one
    # iteration to the next, and the columns of largest phi there improve it little
    alpha = 0.0 if exact or rd is None else _SMOOTH[cone.kind]  # (PML: set with the first point)
    drop = _DROP if exact else _DROP_LARGE
    history = []
    ms = None
    while True:
        iters += 1
        try:
            ms = solve_master(cols, ms, blocks=blocks, prior=p)
        except RuntimeError as exc:
            if iters == 1:
                raise
            limited_by = f"master: {exc}"
            break
        if pending:  # the relaxed dual's first point, computed beside the first master
            pending, rd = False, next(refinements, None)
            if rd is not None:
                best_bound, alpha = max(0.0, rd.bound), _SMOOTH[cone.kind]
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
        # a column enters when it improves the master by more than a quarter of the stopping gap;
        # beyond the exact pricing by more than that of _ENTRY at most, so that a looser tol follows
        # the same iterates and stops at the first of them it certifies (history's seconds say when)
        enter_above = (tol if exact else min(tol, _ENTRY)) * (1.0 + value) / 4.0
        keep = (_KEEP if exact or cone.kind == "ldp" else _KEEP_LARGE_PML) * n
        if exact:
            pr = exhaustive_pricing(cone, G, w, keep=keep, collect=enter_above)
        elif alpha > 0:
            Zs = alpha * rd.Z + (1.0 - alpha) * Z
            ws = alpha * rd.w + (1.0 - alpha) * w
            pr = local_pricing(cone, Zs @ Zs.T, ws, keep=keep, collect=-math.inf)
            # a column enters when it improves the master: phi at the master's duals
            pr = dataclasses.replace(pr, values=np.sum((Z.T @ pr.columns) ** 2, axis=0) + w @ pr.columns)
            if not np.any(pr.values > enter_above):
                # none does: the search point moves toward the master's duals
                alpha = alpha / 2.0 if alpha > _SMOOTH[cone.kind] / 16 else 0.0
                pr = local_pricing(cone, G, w, keep=keep, collect=enter_above)
            elif cone.kind != "ldp":
                # on the ball and the box the relaxed design's dual point is farther from the
                # optimum's (the relaxation is looser) and the design's tail crawls from it alone:
                # the master's own search adds its columns
                own = local_pricing(cone, G, w, keep=keep, collect=enter_above)
                pr = dataclasses.replace(pr, columns=np.concatenate([pr.columns, own.columns], axis=1),
                                         values=np.concatenate([pr.values, own.values]))
        else:
            pr = local_pricing(cone, G, w, keep=keep, collect=enter_above)
        if math.isfinite(pr.bound):
            best_bound = max(best_bound, base - pr.bound)
        history.append((value, best_bound, time.perf_counter() - t0))
        final = iters >= budget.max_iterations or budget.out_of_time()
        new = pr.columns[:, pr.values > enter_above] if pr.columns.size else pr.columns
        if pool is not None:
            new = np.concatenate([new.reshape(n, -1), pool_pricing(G, w, pool, keep=keep, collect=enter_above)], axis=1)
        if channel is None and not final and (_within(value, best_bound, tol) or new.shape[1] == 0):
            # converged with the oracle blocks still weighing: the rays take over (a channel must
            # list its outputs); the master restarts from its rays' weights
            blocks, ms = None, MasterSolution(theta, Z, w, ms.value, ms.status)
            cols = np.concatenate([cols, cone.polish(new)], axis=1) if new.shape[1] else cols
            continue
        if _within(min(value, incumbent), best_bound, tol):
            break  # the master's value or the caller's seed is certified
        if final or new.shape[1] == 0:
            limited_by = "max_iterations" if final else "pricing"
            break
        new = cone.polish(new)
        # the master keeps its columns of positive weight (the bound prices every vertex anyway) and
        # starts from its last iterate over them
        kept = theta > drop * theta.max()
        ms = MasterSolution(theta[kept], Z, w, ms.value, ms.status, ms.block_weights)
        cols = np.concatenate([cols[:, kept], new], axis=1)
        generated += new.shape[1]
    if rd is not None and not _within(min(value, incumbent), best_bound, tol):
        # the relaxed dual refined (the same point's families certified again, or a better point)
        # until the design is certified within tol; the smoothing point stays the first one, so the
        # iterates do not depend on tol
        while not budget.out_of_time():  # under max_seconds, no refinement is taken after the deadline
            better = next(refinements, None)
            if better is None:
                break
            if better.bound > best_bound:  # the history's entries after the loop: each refined bound and when
                best_bound = better.bound
                history.append((value, best_bound, time.perf_counter() - t0))
            if _within(min(value, incumbent), best_bound, tol):
                break
    if not exact and not _within(min(value, incumbent), best_bound, tol):
        # the bound is the relaxed design's: the master's last duals are optimal over its own
        # columns only, and the relaxation certifies less there, and at their midpoint with the
        # relaxed design's point, on every case measured (docs/frequency-estimation.md)
        limited_by = "relaxation (N > exhaustive pricing limit)"
    t, sup = assemble(cols, theta)
    stats = {"exact_pricing": exact, "pricing": pr.stats, "history": history, "incumbent": incumbent}
    if channel is None:
        # the oracle blocks still weigh: block d is built as subset selection of size d over a
        # 2-design (a channel must list its outputs; C(N, d) is too many), rows renormalised
        stats["block_value"] = value
        lam = ms.block_weights
        parts = [cols * theta[None, :]] + [lam[i] * balanced_subset_channel(n, cone.eps, int(i) + 1)
                                           for i in np.flatnonzero(lam > _DROP * lam.max())]
        channel = np.concatenate(parts, axis=1)
        channel = channel[:, channel.max(axis=0) > 0]
        channel = channel / channel.sum(axis=1, keepdims=True)
        value = frequency_mse(channel, p)
    if not _within(min(value, incumbent), best_bound, tol):
        stats["limited_by"] = limited_by
    return Solution(channel, float(best_bound), cols[:, sup], iters, generated, stats)


def _within(value: float, bound: float, tol: float) -> bool:
    """Whether ``value`` is certified within ``tol`` by the lower ``bound``: (value - bound) / (1 + value) <= tol."""
    return value - bound <= tol * (1.0 + value)


def design_frequency(p, eps, beta, privacy, method, budget: Budget, tol: float, warm, t0: float):
    """The ``utility="frequency_mse"`` design on validated inputs (called by
    :func:`leakage.design.optimal_mechanism`, which validates; eps > 0 there). Identity where it is
    private (value and bound 0); otherwise :func:`solve_frequency` seeded with the feasible warm
    starts' columns (``method="enumerate"``: also every vertex of a closed-form family; under PML
    beyond the exact pricing also random lift vectors at H, with a draw of outputs of
    :func:`private_partitions` as a pool), and the result is never worse than the warm starts,
    :func:`balanced_subset_channel` at the sizes around SS's own (so at most SS's standard
    variance, hence every oracle's) and a :func:`private_partitions` channel; the solve stops once
    the best of them is certified within ``tol``. The returned channel is verified exactly
    (``leakage.design.result.verify_channel``); ``value`` is
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
    start, seeds, pool = [], [], []
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
        if ch.shape[1] > _POOL_FACTOR * n * (n + 3) // 2:
            # a channel of many outputs (an LDP design built from 2-designs has tens of thousands):
            # its outputs are priced, not held (entering whole, as one block, stalls the master as
            # the oracle blocks do); a design's own master columns enter
            pool.append(channel_columns(cone, ch))
            if not isinstance(entry, np.ndarray) and entry.columns.size:
                start.append(cone.polish(entry.columns))
            # and its heaviest outputs, as many as the master has unknowns, enter at once
            heavy = np.argsort(-(p @ ch), kind="stable")[: n * (n + 3) // 2]
            start.append(channel_columns(cone, ch[:, np.sort(heavy)]))
        else:
            start.append(channel_columns(cone, ch))
        try:
            seeds.append((ch, frequency_mse(ch, p)))
        except ValueError:  # rows not identifiable: columns only
            pass
    if method == "enumerate":
        start.append(cone.polish(enumerate_vertices(cone)))
    if n >= 3 and eps <= _BLOCK_EPS:
        # subset selection of the sizes around the oracle's own, over a 2-design
        # (eps-LDP, so in every cone): a feasible channel the result is never worse than
        d0 = FrequencyOracle("ss", n, eps).subset_size
        for d in range(max(1, d0 - 1), min(n - 1, d0 + 1) + 1):
            ch = balanced_subset_channel(n, eps, d)
            seeds.append((ch, frequency_mse(ch, p)))
    if cone.kind != "ldp" and n > EXHAUSTIVE_LIMIT and cone.top > 1.0:
        # beyond the exact pricing the PML master crawled from the LDP seed; random lift vectors at
        # H start it near the ball's optimum (docs/frequency-estimation.md), and random
        # mass-balanced partitions (halvings where fewer than two bins fit) are a feasible seed and
        # a pool
        unknowns = n * (n + 3) / 2
        lifts = random_lift_vectors(p, cone.top, math.ceil(_PARTITION_FACTOR * unknowns), seed=[n, 17])
        start.append(cone.polish(lifts))
        ch = private_partitions(cone, math.ceil(_PARTITION_FACTOR * unknowns), seed=[n, 17])
        more = private_partitions(cone, math.ceil(_PARTITION_POOL * unknowns), seed=[n, 18])
        pool.append(channel_columns(cone, more))
        try:
            seeds.append((ch, frequency_mse(ch, p)))
        except ValueError:  # rows not identifiable: columns only
            pass
    sol = solve_frequency(cone, tol, budget, np.concatenate(start, axis=1) if start else np.zeros((n, 0)),
                          np.concatenate(pool, axis=1) if pool else None, t0,
                          incumbent=min((v for _, v in seeds), default=math.inf))
    ch, stats = sol.channel, dict(sol.stats)
    ch = within_cone(cone, ch)
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
                         certified=_within(value, bound, tol), method=method,
                         columns_generated=sol.generated, iterations=sol.iterations,
                         seconds=time.perf_counter() - t0, columns=sol.columns, stats=stats, **base)


#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
