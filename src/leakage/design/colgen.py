"""The design loop itself (docs/design-engine.md, steps 1 to 5): master LP, its duals, the pricing
of every vertex family, the new columns, and the certificate sum(w) + max(U, 0).

Column generation over the rays of the privacy cone (MI and linear utilities).

The design problem is the LP  max sum_r lam_r mu(r)  s.t.  sum_r lam_r r = 1, lam >= 0  over the
extreme rays r of K normalised by P.r = 1 [saeidian-optimal-pml, Thm 6; kairouz2016]. It starts
from the all-ones column and the warm-start columns, solves the restricted master
(:mod:`~leakage.design.master`) and prices at its duals w: cheap candidate columns first
(:mod:`~leakage.design.pricing.heuristic`), the exact searches when they find nothing
(:mod:`~leakage.design.pricing.mutual_information`), which stop at their first improving columns;
when no search finds one, their bounds certify ``sum(w) + max(U, 0)``. It stops when
bound - value <= tol (1 + |value|), after ``max_iterations`` iterations (master solve plus
pricing; the last one prices fully for the bound) or when a search runs out of nodes with nothing
found, even on the escalated budgets (``Budget.escalation``; the result names it). Besides the
master's duals, two other dual vectors bound the optimum: duals proportional to the prior (once per
design, ``price_flat``) and, when some letter is heavier than 1 - 1/C (small eps), the duals of the
master with its light rows added up (``aggregated_bound``, at iterations 1, 2, 4, ..., the last and
when the value has closed a quarter of the gap). When one of these two bounds is within ``COVER_GAP``
of the value, the near-exact box columns of :mod:`~leakage.design.pricing.cover` enter the master at
once (the covering of the light letters that the pricing would find one set at a time); they are
feasible columns only, never part of a bound.

Complexity: one warm-started LP and one pricing per iteration; pricing is a branch and bound,
exponential in the worst case, bounded by its node budget.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from leakage.design.cone import Cone, column_utility
from leakage.design.master import Master, assemble, channel_of, solve_master
from leakage.design.pricing.cover import cover_columns
from leakage.design.pricing.heuristic import heuristic_columns
from leakage.design.pricing.linear import LiftedLP, linear_pricing
from leakage.design.pricing.mutual_information import price_bound, price_flat, price_mi
from leakage.design.vertices import enumerate_vertices

#: default node budget of each pricing search per call
DEFAULT_NODES = 20000
#: multiples of ``DEFAULT_NODES`` a pricing's cheap-node searches (all but the light-top branch and
#: bound, whose nodes cost far more) get in turn when it runs out of nodes with nothing found and no
#: certificate: a branch and bound that needs a few times the default budget closes in it, where
#: stopping would end the design uncertified
ESCALATION = (1, 5, 25)
#: node budget of each search for the bound at duals proportional to the prior (once per design)
FLAT_NODES = 3000
#: node budget of each search for the bound at aggregated duals (``aggregated_bound``)
AGGREGATED_NODES = 3000
#: improving columns added per iteration for LDP (2N for the other cones)
LDP_COLUMNS = 16
#: the cover (``pricing.cover``) enters the master once the flat or aggregated bound is within this
#: relative gap of the value: the master is then near its optimum and misses only the covering
COVER_GAP = 1e-3
#: at most this many covers (each with its own seed) enter one master, the next one only while the
#: last raised the value by more than the certifying gap
COVER_STEPS = 4


@dataclass(frozen=True)
class Budget:
    """Stopping rules of one solve: counted work (deterministic) and an optional wall clock.

    ``max_iterations``: column-generation iterations; ``max_nodes``: nodes of each pricing search
    per call (None: ``DEFAULT_NODES``, escalated as ``escalation`` says); ``deadline``:
    time.perf_counter() value after which no new iteration starts (None: never; set only by
    ``max_seconds``, which makes results depend on the machine)."""

    max_iterations: int
    max_nodes: int | None
    deadline: float | None
    escalate: bool = True

    @property
    def nodes(self) -> int:
        return DEFAULT_NODES if self.max_nodes is None else int(self.max_nodes)

    @property
    def escalation(self) -> tuple[int, ...]:
        """The multiples of ``nodes`` a pricing's cheap-node searches get in turn while it runs out of
        nodes with nothing found and its bound does not certify, before the last iteration
        (``price_mi``'s ``grow``; a design that would have stopped there goes on instead):
        ``ESCALATION``, or only 1 under the caller's ``max_nodes`` (a hard cap) or without
        ``escalate`` (the seed designs: warm starts, which need no certificate)."""
        return ESCALATION if self.max_nodes is None and self.escalate else (1,)

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline


@dataclass(frozen=True)
class Solution:
    """A channel with its certified bound, the master's columns and the solver's statistics."""

    channel: np.ndarray
    bound: float
    columns: np.ndarray
    iterations: int
    generated: int
    stats: dict


def solve_mi(cone: Cone, method: str, tol: float, budget: Budget, start: np.ndarray) -> Solution:
    """MI-optimal channel over K: one LP over every vertex (``enumerate``) or column generation;
    ``start``: polished columns (N x K) that seed the master."""
    p, n = cone.prior, cone.n
    if method == "enumerate":
        cols = np.concatenate([cone.polish(enumerate_vertices(cone)), start], axis=1)
        obj = column_utility(p, cols)
        val, lam, w = solve_master(cols, obj)
        bound = w.sum() + max(float(np.max(obj - w @ cols)), 0.0)
        return Solution(channel_of(cols, lam, n), float(bound), cols[:, lam > 1e-14], 1, cols.shape[1], {})
    box_cap = cone.top if cone.kind == "ball" and cone.top >= 1.0 else None
    cols = np.concatenate([np.ones((n, 1)), start], axis=1)
    master = Master(n)
    master.add(cols, column_utility(p, cols))
    best_bound = math.inf
    per_iteration = _columns_per_iteration(cone)
    iters, generated, nodes = 0, cols.shape[1], 0
    last_pricing = None
    flat = None
    heavy = heavy_letters(cone)
    agg_done, stats_agg = 0, None
    cover_cap = _cover_cap(cone)
    covered, cover_steps, cover_val, agg_due, agg_val = 0, 0, -math.inf, False, -math.inf
    while True:
        iters += 1
        val, lam, w = master.solve()
        scale = tol * (1 + abs(val))
        if flat is None:
            # the bound at duals proportional to P: max over columns of sum_x P_x v_x log v_x (any
            # channel's MI is a mixture of its columns' utilities), certifying flat optima at once
            fp = price_flat(cone, tol=scale / 4, target=val + scale / 2, max_nodes=FLAT_NODES)
            flat = fp.bound if math.isfinite(fp.bound) else math.inf
            stats_flat = {k: {"bound": r.bound, "nodes": r.nodes, "exhausted": r.exhausted}
                          for k, r in fp.searches.items()}
            nodes += sum(r.nodes for r in fp.searches.values())
            best_bound = min(best_bound, flat)
        final = iters >= budget.max_iterations or budget.out_of_time()
        moved = val - agg_val > (best_bound - agg_val) / 4  # the value closed a quarter of the gap
        if heavy is not None and best_bound - val > scale and (iters & (iters - 1) == 0 or final or agg_due or moved):
            # at iterations 1, 2, 4, 8, ..., the last, the one after the cover and whenever the value
            # closed a quarter of the gap since the last time: the bound at the aggregated duals
            agg, agg_nodes = aggregated_bound(cone, master, heavy, val=val, scale=scale)
            nodes += agg_nodes
            agg_done, agg_due, agg_val = iters, False, val
            if agg < best_bound:
                best_bound, stats_agg = agg, {"bound": agg, "iteration": iters}
        if best_bound - val <= scale:
            break
        if cover_cap is not None and cover_steps < COVER_STEPS and val - cover_val > scale and not final \
                and best_bound - val <= COVER_GAP * (1 + abs(val)) and best_bound in (flat, (stats_agg or {}).get("bound")):
            # the bound that holds ignores which light letters a column zeroes: the master needs their
            # covering by near-exact zero sets, listed at once (``pricing.cover``) where the pricing
            # would find it one set at a time
            cover = cover_columns(cone, cover_cap, heavy, seed=cover_steps)
            cover_steps, cover_val, agg_due = cover_steps + 1, val, heavy is not None
            if cover.shape[1]:
                master.add(cover, column_utility(p, cover))
                covered += cover.shape[1]
                generated += cover.shape[1]
                continue
        new = extra = None
        if not final and cone.kind != "ldp":
            cand = heuristic_columns(cone, w, box_cap if cone.kind == "ball" else None)
            rc = column_utility(p, cand) - w @ cand
            # the box: two-level columns go in beside the exact pricing's (at small eps its master
            # otherwise stalls at the all-ones column: a lift vector is useless without a partner)
            floor = scale if cone.kind == "box" else max(scale, 1e-7 * (1 + abs(val)))
            chosen = _best(cand, rc, floor, (n if cone.kind == "box" else 2 * n))
            if cone.kind == "box":
                extra = chosen
            else:
                new = chosen
        if new is None:
            # collect above scale/2 and prune at scale/4: a search that finds nothing leaves a bound of at
            # most 3/4 scale, so "nothing improving" and "certified" agree; every search may stop once its
            # bound is at most 3/4 scale (target), which already certifies
            pricing = None
            for grow in (1,) if final else budget.escalation:  # the last iteration's bound stands as it is
                # each escalation goes on from the last (``previous``): the searches pay only for the nodes added
                pricing = price_mi(cone, w, tol=scale / 4, collect=scale / 2, keep=per_iteration, max_nodes=budget.nodes,
                                   find=not final, target=3 * scale / 4, grow=grow, previous=pricing)
                if pricing.columns.shape[1] or pricing.limited_by is None or extra is not None \
                        or w.sum() + max(pricing.bound, 0.0) - val <= scale:
                    break
            nodes += sum(r.nodes for r in pricing.searches.values())  # a resumed search counts all its nodes
            last_pricing = pricing
            if math.isfinite(pricing.bound):
                best_bound = min(best_bound, w.sum() + max(pricing.bound, 0.0))
            if pricing.columns.shape[1]:
                cand = cone.polish(pricing.columns)
                new = _best(cand, column_utility(p, cand) - w @ cand, scale / 2, per_iteration)
            if extra is not None and best_bound - val > scale:
                new = extra if new is None else np.concatenate([new, extra], axis=1)
            if new is None or best_bound - val <= scale or final:
                break
        master.add(new, column_utility(p, new))
        generated += new.shape[1]
    if heavy is not None and best_bound - val > scale and agg_done != iters:
        # stopping uncertified (no improving column found, or out of iterations): the last word is
        # the bound at the aggregated duals of the final master
        agg, agg_nodes = aggregated_bound(cone, master, heavy, val=val, scale=scale)
        nodes += agg_nodes
        if agg < best_bound:
            best_bound, stats_agg = agg, {"bound": agg, "iteration": iters}
    cols = master.columns
    stats = {"nodes": nodes, "master_fallbacks": master.fallbacks, "flat_bound": flat, "flat_pricing": stats_flat}
    if stats_agg is not None:
        stats["aggregated_bound"] = stats_agg
    if cover_steps:
        stats["cover"] = {"steps": cover_steps, "columns": covered}
    if last_pricing is not None:
        stats["pricing"] = {k: {"bound": r.bound, "nodes": r.nodes, "exhausted": r.exhausted}
                            for k, r in last_pricing.searches.items()}
        if best_bound - val > scale:
            stats["limited_by"] = last_pricing.limited_by or ("max_iterations" if final else "pricing")
    return Solution(channel_of(cols, lam, n), float(best_bound), cols[:, lam > 1e-14], iters, generated, stats)


def heavy_letters(cone: Cone) -> np.ndarray | None:
    """The letters heavier than 1 - 1/C, C the cap of the cone's box columns (e^eps for the known
    prior, H for a ball), as a mask; None for LDP, or when there are none (or only heavy letters).

    Such a letter is never 0 in a box column at the cap (the other letters at the cap carry less
    than mass 1), and at the cap in all of them it would be covered C > 1 times: the optimum lowers
    it with other columns, and its value stays below log C, the bound at duals proportional to the
    prior. The other letters are covered by sets of one mass, on which only their mass matters."""
    if cone.kind == "ldp":
        return None
    cap = cone.E if cone.kind == "box" else cone.top
    if not math.isfinite(cap) or cap <= 1.0:
        return None
    heavy = cone.prior > 1.0 - 1.0 / cap
    return heavy if heavy.any() and not heavy.all() else None


def aggregated_bound(cone: Cone, master: Master, heavy: np.ndarray, *, val: float, scale: float) -> tuple[float, int]:
    """A certified bound from duals with one free dual per heavy letter and one ratio c for all the
    others (w_x = c P_x): (bound, pricing nodes spent).

    The duals z of the master with the light rows added up (rows e_h for each heavy letter h and
    P restricted to the light letters, right-hand side A 1; a relaxation of the master, on its
    columns) give w = A^T z, and any dual vector w with an upper bound U on the pricing at w bounds
    the optimum by sum(w) + max(U, 0) (LP duality, see the module docstring). With the light
    letters at one ratio a column's value depends on their mass only, so where the master's own
    duals are degenerate (a covering of the light letters by near-exact subsets: small eps with
    heavy letters) this bound is near the optimum long before theirs, and the searches close in a
    few nodes. ``val``, ``scale``: the master's value and the gap that certifies it (the searches stop
    once the bound certifies). inf when the aggregated LP fails (never a wrong bound)."""
    p, n = cone.prior, cone.n
    a = np.concatenate([np.eye(n)[heavy], np.where(heavy, 0.0, p)[None, :]])
    cols = master.columns
    obj = np.concatenate(master.obj)
    res = linprog(-obj, A_eq=a @ cols, b_eq=a @ np.ones(n), bounds=(0, None), method="highs")
    if res.status != 0:
        return math.inf, 0
    w = a.T @ (-np.asarray(res.eqlin.marginals))
    if not np.all(np.isfinite(w)):
        return math.inf, 0
    pricing = price_bound(cone, w, tol=scale / 4, target=val + scale / 2 - float(w.sum()), max_nodes=AGGREGATED_NODES)
    spent = sum(r.nodes for r in pricing.searches.values())
    if not math.isfinite(pricing.bound):
        return math.inf, spent
    return float(w.sum()) + max(pricing.bound, 0.0), spent


def _cover_cap(cone: Cone) -> float | None:
    """The cap C of the box columns the cover lists (e^eps for the known prior, H on a ball), or
    None when there are none to list (LDP, a ball with H < 1, an infinite cap)."""
    if cone.kind == "ldp":
        return None
    cap = cone.E if cone.kind == "box" else cone.top
    return cap if math.isfinite(cap) and cap > 1.0 else None


def _columns_per_iteration(cone: Cone) -> int:
    """How many improving columns one iteration adds: 2N, except for LDP (``LDP_COLUMNS``), where the
    exact staircase pricing is cheap and the master's growth is what costs (the count programme of a
    grid prior returns its best 2N staircases every time, nearly alike)."""
    return min(LDP_COLUMNS, 2 * cone.n) if cone.kind == "ldp" else 2 * cone.n


def _best(cand, rc, floor, k):
    """The (at most k) columns of ``cand`` with reduced cost above ``floor``, best first; None if none."""
    keep = rc > floor
    if not keep.any():
        return None
    idx = np.argsort(-rc, kind="stable")[:k]
    return cand[:, idx[keep[idx]]]


def solve_linear(cone: Cone, u, method: str, tol: float, budget: Budget) -> Solution:
    """Linear utility sum_x P(x) sum_y P(y|x) u(x, y) over K by column generation over
    (ray, label) pairs (or one LP over every vertex and label), with Wentges dual smoothing
    [wentges1997]."""
    p, n = cone.prior, cone.n
    c = p[:, None] * u
    lifted = None if (cone.kind in ("box", "ldp") or cone.small_ball) else LiftedLP(cone)
    if method == "enumerate":
        base = cone.polish(enumerate_vertices(cone))
        k = base.shape[1]
        cols = np.tile(base, (1, n))
        labels = np.repeat(np.arange(n), k)
        obj = np.einsum("xk,xk->k", c[:, labels], cols)
        val, lam, w = solve_master(cols, obj)
        bound = w.sum() + max(float(np.max(c.T @ base - (w @ base)[None, :])), 0.0)
        return Solution(labelled_channel(cols, labels, lam, n), float(bound), cols[:, lam > 1e-14], 1,
                        cols.shape[1], {})
    cols = np.ones((n, n))
    labels = np.arange(n)
    master = Master(n)
    master.add(cols, c.sum(axis=0))
    best_bound, w_best, iters = math.inf, None, 0
    while True:
        iters += 1
        val, lam, w = master.solve()
        scale = tol * (1 + abs(val))
        # Wentges smoothing: price between the best duals so far and the current ones (any duals
        # give a valid bound); the current duals alone on mispricing
        for alpha in ((0.7, 0.0) if w_best is not None else (0.0,)):
            w_s = w if alpha == 0.0 else alpha * w_best + (1 - alpha) * w
            vals, new = linear_pricing(cone, c - w_s[:, None], lifted)
            b_s = w_s.sum() + max(float(np.max(vals)), 0.0)
            if b_s < best_bound:
                best_bound, w_best = b_s, w_s
            rc = np.einsum("xk,xk->k", c - w[:, None], new)
            good = np.flatnonzero(rc > scale)
            if good.size or alpha == 0.0:
                break
        if best_bound - val <= scale or iters >= budget.max_iterations or budget.out_of_time() or good.size == 0:
            break
        newc = cone.polish(new[:, good])
        master.add(newc, np.einsum("xk,xk->k", c[:, good], newc))
        cols = np.concatenate([cols, newc], axis=1)
        labels = np.concatenate([labels, good])
    return Solution(labelled_channel(cols, labels, lam, n), float(best_bound), cols[:, lam > 1e-14], iters,
                    cols.shape[1] - n, {})


def labelled_channel(cols, labels, lam, n: int) -> np.ndarray:
    """The N x N channel whose output y sums the weighted columns with label y (rows renormalised)."""
    lam_b, sup = assemble(cols, lam, n)
    ch = np.zeros((n, n))
    np.add.at(ch.T, labels[sup], (cols[:, sup] * lam_b[None, :]).T)
    return ch / ch.sum(axis=1, keepdims=True)

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
