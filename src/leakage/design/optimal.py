"""The design engine's entrance: it checks the inputs, picks the method and runs the design loop
(master, duals, pricing, columns, certificate; docs/design-engine.md) to a verified channel.

Optimal privacy mechanisms: the public entry of the design engine.

Problem [empirical-pml, eq. (40)]: maximise a utility over all channels ``channel[x, y] = P(y|x)``
that are eps-PML for every prior in the closed l1-ball B_beta(P) ∩ simplex [empirical-pml,
eq. (31)] (beta = 0: the known prior; beta = 2: the whole simplex, equal to eps-LDP), or eps-LDP
[kairouz2016]. Privacy is a condition on each output column alone, so the feasible columns form a
convex cone K (:mod:`~leakage.design.cone`) and, the utility being a sum over columns of a
convex positively homogeneous function (mutual information, or a linear utility per label), the
optimum is an LP over the extreme rays of K [saeidian-optimal-pml, Thm 6; kairouz2016].

The package, one idea per module:

* :mod:`~leakage.design.cone`: the cone, its closed-form test and the column utility;
* :mod:`~leakage.design.vertices`: the vertex families and their enumeration (small N);
* :mod:`~leakage.design.bnb`: the branch-and-bound skeleton shared by the searches;
* :mod:`~leakage.design.pricing`: one search per vertex family (box, staircase, light top, ...),
  which cover the cone (:mod:`~leakage.design.pricing.mutual_information`), linear pricing and
  the cheap heuristic;
* :mod:`~leakage.design.master`: the master LP and the channel it assembles;
* :mod:`~leakage.design.result`: the result type and the exact check of a returned channel;
* :mod:`~leakage.design.colgen`: column generation; :mod:`~leakage.design.labels`: label
  generation for linear utilities.

Validation happens here, once; everything below trusts its inputs. Reuse is explicit: a design
returns its master's columns (``OptimalDesign.columns``) and a caller passes designs (or feasible
channels) back as ``warm_start``; nothing is cached between calls.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np

from leakage.design.colgen import Budget, Solution, solve_linear, solve_mi
from leakage.design.cone import PRIVACY, Cone
from leakage.design.frequency import design_frequency
from leakage.design.labels import solve_labels
from leakage.design.polytope import design_epsilon
from leakage.design.result import OptimalDesign, identity_private, verify_channel
from leakage.design.vertices import channel_columns
from leakage.measures.information import entropy, mutual_information
from leakage.validation import check_count, check_distribution, check_scalar, check_tolerance

UTILITIES = ("mutual_information", "frequency_mse")
METHODS = ("auto", "enumerate", "colgen", "labels")
#: "auto" enumerates the vertices up to these N (per cone kind), and generates columns beyond
ENUMERATE_LIMIT = {"box": 14, "ldp": 12, "small_ball": 12, "ball": 10}

#: the default ``tol``: certified when value and bound agree to 1e-6 (1 + |value|), nats for MI. Far
#: below what the prior's own estimate can tell apart, and what the engines reach in time at every
#: eps; each further digit costs minutes on some N = 42 priors at eps ~0.1 (docs/design-engine.md,
#: "Tolerance")
DEFAULT_TOL = 1e-6


def optimal_mechanism(prior, eps, *, privacy="pml", beta=0.0, utility="mutual_information", method="auto",
                      max_iterations=1000, max_nodes=None, max_seconds=None, tol=DEFAULT_TOL,
                      warm_start=()) -> OptimalDesign:
    """max utility over channels eps-private on B_beta(prior) ([empirical-pml, eq. (40)]) or eps-LDP.

    ``privacy="pml"``: max_x P(y|x) <= e^eps min_{Q in B_beta(prior)} Q_Y(y) for every y, any beta in
    [0, 2] (beta = 0: known prior; beta = 2: the whole simplex, equal to eps-LDP).
    ``privacy="ldp"``: eps-LDP ([kairouz2016]), beta must be 0.
    ``utility``: ``"mutual_information"`` (I(X;Y) under ``prior``, nats; at most N outputs, unused
    ones dropped) or an (N, N) array u[x, y] (expected utility sum_x P(x) sum_y P(y|x) u(x, y),
    labels fixed, M = N), or ``"frequency_mse"``: MINIMISE the per-record total variance
    tr J^-1 - 1 of the best linear unbiased estimate of the histogram (records fixed,
    :func:`leakage.estimation.frequency.frequency_mse`), by column generation over an SOCP master
    (:mod:`~leakage.design.frequency`); then ``value`` is that variance, ``bound`` a certified LOWER
    bound on the optimum, ``certified`` when value - bound <= tol (1 + value); eps > 0 (at eps = 0
    no private channel identifies the frequencies); ``method`` "auto"/"colgen" or "enumerate"
    (seeds the master with every vertex of a closed-form family). Beyond 18 letters its bound
    comes from a semidefinite relaxation solved in a background thread beside the column
    generation (two cores busy; the result does not depend on it).

    ``method``: ``"auto"`` (linear utilities with the known prior, LDP or beta <= 2 min P: label
    generation; otherwise enumeration up to ``ENUMERATE_LIMIT`` and column generation beyond),
    ``"enumerate"`` (every vertex of a closed-form family and one LP; exponential),
    ``"colgen"`` or ``"labels"`` (linear utilities and those cones only; falls back to column
    generation if HiGHS fails on it).

    Stopping rules, counted work only (same inputs, same bytes on any machine): column and label
    generation stop when bound - value <= ``tol`` (1 + |value|) (default ``DEFAULT_TOL``, 1e-6) or
    after ``max_iterations`` iterations; each pricing search stops at its gap or after ``max_nodes``
    nodes per call (None: the engine's default, raised in counted steps while a pricing runs out of
    nodes with nothing found and no certificate), still giving a valid, looser bound. The seed designs get the same
    budgets, never raised (warm starts need no certificate), and under ``max_seconds`` each at most
    ``SEED_SHARE`` of the time left. ``max_seconds`` (default None) adds a
    wall-clock limit checked between iterations, for interactive use: results then depend on the
    machine and its load.

    ``warm_start``: designs (:class:`OptimalDesign` of the same prior) and channels (N x M_i,
    row-stochastic). A channel must satisfy this design's constraint (verified; ValueError
    otherwise); a design's columns are polished into this cone and its channel counts only if it
    satisfies the constraint. Their columns seed the master, so the result is at least as good as
    each feasible one (MI only). For beta > 0 the master is always seeded with the route-(44)
    optimum (M(eps', P) ⊆ M(eps, B_beta(P))) and the eps-LDP optimum (LDP columns lie in every ball
    cone), solved here unless such designs are in ``warm_start``, so value >= both.

    Exactness: columns are built in closed form or polished into K; the returned channel is
    verified with the exact closed form of the sup of PML over the ball (or the LDP ratio); a
    violation above ``VERIFY_TOL`` raises RuntimeError. The bound is certified whatever the LP
    solver's accuracy: any dual vector w and any upper bound U on the pricing give the bound
    sum(w) + max(U, 0).

    Complexity: enumeration N 2^(N-1) (box, LDP: 2^N) or 3^N columns and one LP; column generation
    one master LP and one pricing per iteration (branch and bound, O(N log N) per node,
    exponential in the worst case); label generation one warm-started LP with (N + 2) L variables
    for L labels plus an O(N^2 log N) closed-form pricing per iteration.
    Valid for a full-support prior, eps >= 0 (inf allowed), beta in [0, 2].
    """
    t0 = time.perf_counter()
    p, eps, beta, u = _check_inputs(prior, eps, beta, privacy, utility)
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    budget, tol = _check_budget(max_iterations, max_nodes, max_seconds, tol, t0)
    warm = _check_warm_start(warm_start, p)
    if isinstance(utility, str) and utility == "frequency_mse":
        if eps == 0.0:
            raise ValueError("eps must be > 0 for utility='frequency_mse': at eps = 0 every private channel "
                             "has identical rows and the frequencies are not identifiable")
        if method == "labels":
            raise ValueError("method='labels' needs a linear utility (an array); utility='frequency_mse' takes "
                             "'auto', 'colgen' or 'enumerate'")
        return design_frequency(p, eps, beta, privacy, method, budget, tol, warm, t0)
    return _design(p, eps, beta, privacy, u, method, budget, tol, warm, t0)


def optimal_mechanism_for_estimate(prior, eps, beta, utility="mutual_information", **kwargs) -> OptimalDesign:
    """The route of [empirical-pml, eq. (44)]: design for eps' = log(e^eps / (1 + beta e^eps / 2)) w.r.t.
    the estimate ``prior`` (beta = 0), which is eps-PML on the whole ball B_beta(prior) because
    M(eps', P) ⊆ M(eps, B_beta(P)) for every beta in [0, 2] (g(v) >= P.v - (beta/2) max v).

    Its value is at most that of :func:`optimal_mechanism` with the same beta. The result's ``eps`` is
    eps', ``beta`` 0. Raises ValueError when eps' < 0 (then M(eps', P) is empty). Keyword arguments
    are those of :func:`optimal_mechanism`.
    """
    p, eps, beta, _ = _check_inputs(prior, eps, beta, "pml", utility)
    eps_p = design_epsilon(eps, beta) if not math.isinf(eps) else math.inf
    if eps_p < 0:
        raise ValueError(
            f"the route of eq. (44) needs eps' = log(e^eps/(1 + beta e^eps/2)) >= 0; got eps={eps:.6g}, "
            f"beta={beta:.6g} (eps'={eps_p:.6g}): M(eps', prior) is empty, increase eps or decrease beta"
        )
    return optimal_mechanism(p, eps_p, privacy="pml", beta=0.0, utility=utility, **kwargs)


# --------------------------------------------------------------------------- validation (once)


def _check_inputs(prior, eps, beta, privacy, utility):
    if isinstance(prior, (list, tuple, np.ndarray)) and np.ndim(prior) != 1:
        raise ValueError(f"prior must be a 1-dimensional distribution, got shape {np.shape(prior)}")
    p = check_distribution(prior, "prior", full_support=True)
    eps = check_scalar(eps, "eps", low=0.0)
    beta = check_scalar(beta, "beta", low=0.0, high=2.0)
    if not isinstance(privacy, str) or privacy not in PRIVACY:
        raise ValueError(f"privacy must be one of {PRIVACY}, got {privacy!r}")
    if privacy == "ldp" and beta != 0.0:
        raise ValueError(f"beta must be 0 for privacy='ldp' (LDP does not depend on the prior), got {beta!r}")
    if isinstance(utility, str):
        if utility not in UTILITIES:
            raise ValueError(f"utility must be one of {UTILITIES} or an (N, N) array, got {utility!r}")
        return p, eps, beta, None
    try:
        u = np.asarray(utility, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"utility must be a finite ({p.size}, {p.size}) array, got {utility!r}") from exc
    if u.shape != (p.size, p.size) or not np.all(np.isfinite(u)):
        raise ValueError(f"utility must be a finite ({p.size}, {p.size}) array u[x, y], got shape {u.shape}")
    return p, eps, beta, u


def _check_budget(max_iterations, max_nodes, max_seconds, tol, t0):
    max_iterations = check_count(max_iterations, "max_iterations")
    if max_nodes is not None:
        max_nodes = check_count(max_nodes, "max_nodes")
    if max_seconds is not None:
        max_seconds = check_scalar(max_seconds, "max_seconds", low=0.0)
    tol = check_tolerance(tol)
    return Budget(max_iterations, max_nodes, None if max_seconds is None else t0 + max_seconds), tol


def _check_warm_start(warm_start, p):
    if isinstance(warm_start, (OptimalDesign, np.ndarray)):
        warm_start = [warm_start]
    try:
        entries = list(warm_start)
    except TypeError:
        raise ValueError(f"warm_start must be a sequence of OptimalDesign or channels, got {warm_start!r}") from None
    out = []
    for i, entry in enumerate(entries):
        if isinstance(entry, OptimalDesign):
            if entry.prior.shape != p.shape:
                raise ValueError(f"warm_start[{i}] is a design for {entry.prior.size} letters, not {p.size}")
            out.append(entry)
            continue
        try:
            ch = np.asarray(entry, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"warm_start[{i}] must be an OptimalDesign or a row-stochastic ({p.size}, M) channel") from None
        if ch.ndim != 2 or ch.shape[0] != p.size or ch.shape[1] < 1 or not np.all(np.isfinite(ch)) \
                or np.any(ch < 0) or not np.allclose(ch.sum(axis=1), 1.0, atol=1e-9):
            raise ValueError(f"warm_start[{i}] must be a row-stochastic ({p.size}, M) channel")
        out.append(ch / ch.sum(axis=1, keepdims=True))
    return out


# --------------------------------------------------------------------------- the design


def _design(p, eps, beta, privacy, u, method, budget, tol, warm, t0) -> OptimalDesign:
    """The design on validated inputs (also the seeds' solver: no recursion through validation)."""
    n = p.size
    uname = "mutual_information" if u is None else "linear"
    base = dict(prior=p, eps=eps, beta=beta, privacy=privacy, utility=uname, tol=tol)
    if u is None and identity_private(p, eps, beta, privacy):
        ch = np.eye(n)
        if not math.isinf(eps):
            verify_channel(ch, p, eps, beta, privacy)
        h = entropy(p)
        return OptimalDesign(channel=ch, value=h, bound=h, certified=True, method="identity", columns_generated=0,
                             iterations=0, seconds=time.perf_counter() - t0, columns=np.diag(1.0 / p), **base)
    if u is not None and math.isinf(eps):
        ch = np.zeros((n, n))
        ch[np.arange(n), np.argmax(u, axis=1)] = 1.0
        val = float(p @ (ch * u).sum(axis=1))
        return OptimalDesign(channel=ch, value=val, bound=val, certified=True, method="argmax", columns_generated=0,
                             iterations=0, seconds=time.perf_counter() - t0, **base)
    cone = Cone.of(p, eps, beta, privacy)
    compact = cone.kind != "ball" or cone.small_ball  # an exact compact LP of K exists (label generation)
    if method == "labels" and (u is None or not compact):
        raise ValueError("method='labels' needs a linear utility (an array) and the known prior, LDP or a small "
                         f"ball beta <= 2 min P (got utility={uname!r}, beta={beta:.6g}, min P={p.min():.6g})")
    if method == "auto" and u is not None and compact:
        method = "labels"
    elif method == "auto":
        kind = "small_ball" if cone.small_ball else cone.kind
        method = "enumerate" if n <= ENUMERATE_LIMIT[kind] else "colgen"

    if u is not None:
        sol = solve_labels(cone, u, tol, budget) if method == "labels" else None
        if sol is None:  # HiGHS failed on the restricted LP (or not label generation): column generation
            method = "colgen" if method == "labels" else method
            sol = solve_linear(cone, u, method, tol, budget)
        ch, stats = sol.channel, dict(sol.stats)
        value = float(p @ (ch * u).sum(axis=1))
    else:
        seeds, stats = _seeds(cone, beta, warm, budget, tol)
        start = [channel_columns(cone, ch) for ch, _ in seeds]
        start += [cone.polish(d.columns) for d in warm if isinstance(d, OptimalDesign) and d.columns.size]
        sol = solve_mi(cone, method, tol, budget, np.concatenate(start, axis=1) if start else np.zeros((n, 0)))
        ch, stats = sol.channel, {**stats, **sol.stats}
        value = mutual_information(ch, p)
        best = max(seeds, key=lambda e: e[1], default=None)
        if best is not None and best[1] > value:  # the master holds the seed's columns: numerics only
            ch, value = best[0], best[1]
            stats["seed_returned"] = True
    stats["leakage"] = verify_channel(ch, p, eps, beta, privacy)
    bound = sol.bound
    if bound < value and bound >= value - 1e-9 * (1 + abs(value)):
        bound = value  # the master's value and the assembled channel's differ by rounding
    if value > bound:
        raise RuntimeError(f"optimal_mechanism: value {value!r} exceeds the certified bound {bound!r}")
    return OptimalDesign(channel=np.ascontiguousarray(ch), value=float(value), bound=float(bound),
                         certified=bool(bound - value <= tol * (1 + abs(value))), method=method,
                         columns_generated=sol.generated, iterations=sol.iterations,
                         seconds=time.perf_counter() - t0, columns=sol.columns, stats=stats, **base)


def _seeds(cone: Cone, beta: float, warm, budget: Budget, tol: float):
    """Feasible channels with their MI that seed the master: the feasible warm starts and, for a
    ball, the route-(44) and eps-LDP optima (taken from ``warm`` when it holds them)."""
    p, eps = cone.prior, cone.eps
    privacy = "ldp" if cone.kind == "ldp" else "pml"
    seeds, stats = [], {}
    for i, entry in enumerate(warm):
        ch = entry.channel if isinstance(entry, OptimalDesign) else entry
        try:
            verify_channel(ch, p, eps, beta, privacy)
        except RuntimeError as exc:
            if isinstance(entry, OptimalDesign):
                continue  # a design that does not satisfy this constraint only lends its columns
            raise ValueError(f"warm_start[{i}] does not satisfy the privacy constraint: {exc}") from None
        seeds.append((ch, mutual_information(ch, p)))
    if cone.kind != "ball":
        return seeds, stats
    eps_p = design_epsilon(eps, beta)
    wanted = {"ldp": ("ldp", eps, 0.0)}
    if eps_p >= 0:
        wanted["route44"] = ("pml", eps_p, 0.0)
    for name, (priv, e, b) in wanted.items():
        given = [d for d in warm if isinstance(d, OptimalDesign) and d.privacy == priv and d.eps == e
                 and d.beta == b and d.utility == "mutual_information" and np.array_equal(d.prior, p)]
        # a seed is a warm start: it needs no certificate, so its pricing is never escalated
        d = given[0] if given else _design(p, e, b, priv, None, "auto", _seed_budget(budget), tol, [],
                                           time.perf_counter())
        try:  # feasible for the ball in exact arithmetic; checked numerically here
            verify_channel(d.channel, p, eps, beta, "pml")
        except RuntimeError:
            continue
        seeds.append((d.channel, d.value))
        stats[f"{name}_value"] = d.value
        stats[f"{name}_certified"] = d.certified
    return seeds, stats


#: the share of the time left that a seed design may take under ``max_seconds``
SEED_SHARE = 0.5


def _seed_budget(budget: Budget) -> Budget:
    """The budget of a seed design (route (44), LDP): the design's counted budgets, never escalated (a
    warm start needs no certificate), and under a wall-clock deadline at most ``SEED_SHARE`` of the
    time left. At small eps the route-(44) seed (the box at eps', whose master stalls at the all-ones
    column and then tails) had taken the whole deadline, leaving the ball's own column generation,
    which prices the same box columns and more, one iteration."""
    if budget.deadline is None:
        return replace(budget, escalate=False)
    now = time.perf_counter()
    return replace(budget, escalate=False, deadline=now + SEED_SHARE * max(budget.deadline - now, 0.0))


__all__ = ["OptimalDesign", "optimal_mechanism", "optimal_mechanism_for_estimate"]
