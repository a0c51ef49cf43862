"""Step 3 of the design loop for mutual information: every vertex family's search at the master's
duals, giving new columns and the pricing bound U of the certificate.

Exact MI pricing over a whole cone: which searches cover which vertices, in which order.

At the master duals w, pricing maximises f(v) = sum_x P_x v_x log v_x - w.v over the normalised
columns of K (f is convex: the maximum is at a vertex of the cross-section). The searches:

* box (known prior): :mod:`~leakage.design.pricing.box` with cap e^eps (lift vectors);
* LDP: :mod:`~leakage.design.pricing.staircase` (staircases);
* ball (0 < beta < 2): every extreme point of the cross-section (``leakage.design.vertices``) is in
  one of four families, each searched exactly -- staircases on a light set (the LDP search: every
  staircase lies in the ball cone), three-level columns with a light top set
  (:mod:`~leakage.design.pricing.light_top`; on a grid prior the count programmes of
  :mod:`~leakage.design.pricing.counts` and :mod:`~leakage.design.pricing.light_top_counts`), columns whose minimum is 0 with a heavy top set (the
  box search with cap H = e^eps / (1 + e^eps beta/2): the box {0 <= v <= H} lies in the cone and
  its vertices cover the heavy three-level columns and 1/P(T) on T) and the heavy two-level columns
  (:mod:`~leakage.design.pricing.staircase`).

For a prior that is not a grid, a box or heavy two-level search that runs out of nodes with nothing
found is replaced by its meet-in-the-middle counterpart (:mod:`~leakage.design.pricing.box_halves`,
:mod:`~leakage.design.pricing.heavy_halves`), exact above ``collect``: near the optimum these
families are subset sums, which letter-by-letter branching does not close. Each half lists only the
subsets that may be part of a column above ``collect`` (``halves.list_halves_above``); when they
are still too many, the box meet in the middle lists some letters and decides the others by a
Lagrangian bound (exact when the bound says so, a source of true columns otherwise). The
light-top search is not refined below the box search's bound (the pricing bound is the largest of
the searches' bounds anyway, whether or not the box search ran out of nodes or pairs); once the box
search has a bound, the light-top family is first
bounded by meet in the middle over the mass of its set S (``light_top_halves.light_top_windows``; thin
windows set by set; halves filtered likewise when too many to list whole), and the branch and bound
runs only when that bound does not reach the target.

At duals 0 (``price_flat``: the largest column utility, which bounds every channel's MI) the
light-top family's value depends on its masses alone and is bounded over them
(``light_top.light_top_flat``) instead of by branching on letters.

Each search has its own node budget; a caller may grow it for the searches whose nodes are cheap
(``grow``: every one but the light-top branch and bound). With ``find`` the searches stop at their
first improving columns and the pricing returns them (bound inf: the master moves on and needs no bound); a
search that finds none has bounded its family, and the bound over the cone is the largest of the
searches' bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from leakage.design.bnb import SearchResult
from leakage.design.cone import Cone
from leakage.design.pricing import counts as tables
from leakage.design.pricing.box import box_search
from leakage.design.pricing.box_halves import box_halves
from leakage.design.pricing.heavy_halves import heavy_halves
from leakage.design.pricing.light_top import light_top_flat, light_top_search
from leakage.design.pricing.light_top_counts import light_top_count_search
from leakage.design.pricing.light_top_halves import light_top_windows
from leakage.design.pricing.staircase import heavy_two_level_search, staircase_search
from leakage.design.vertices import light_top_column, staircase_columns

#: The searches of each cone, in the order they run.
SEARCHES = {"box": ("box",), "ldp": ("staircase",), "ball": ("staircase", "box_top", "heavy_two_level", "light_top")}


@dataclass(frozen=True)
class Pricing:
    """``bound`` >= max f over the cone's columns (inf when improving columns were returned first);
    ``columns``: N x K improving columns (not polished); ``searches``: each search's result."""

    bound: float
    columns: np.ndarray
    searches: dict = field(default_factory=dict)

    @property
    def limited_by(self) -> str | None:
        """The search whose bound is the pricing bound, when it ran out of nodes. The light-top
        search is not refined below the box search's bound (its floor), so it may end level with
        it without running out: the exhausted search among those level with the pricing bound (up
        to ``_LEVEL`` relative) is named, the one with the largest bound on ties."""
        done = {k: r for k, r in self.searches.items() if math.isfinite(r.bound)}
        if not done:
            return None
        top = max(r.bound for r in done.values())
        out = [k for k, r in done.items() if r.exhausted and r.bound >= top - _LEVEL * (1.0 + abs(top))]
        return max(out, key=lambda k: done[k].bound) if out else None


#: how close two searches' bounds are to count as level (the light-top floor's margins are 1e-10)
_LEVEL = 1e-9


def price_mi(cone: Cone, duals, *, tol: float, collect: float, keep: int, max_nodes: int,
             find: bool, target: float = -math.inf, grow: int = 1, previous: Pricing | None = None) -> Pricing:
    """Run the cone's searches (``SEARCHES``) at the duals; see the module docstring. With ``find``,
    every search first gets a short budget (``SHORT_NODES``) and returns what it collects in it
    (improving columns are usually near the top of some search); only when none has any do the
    searches run with the full budget, each stopping once it holds ``keep`` improving columns.
    ``grow``: the searches whose nodes are cheap (all but the light-top branch and bound) get
    ``grow`` times ``max_nodes`` (and no short pass when grow > 1). ``previous``: this pricing at
    the same duals and arguments on a smaller budget, which found nothing (``grow`` escalates
    it): its searches that are done are kept, its exhausted branch and bounds go on from where they
    stopped, and its meets in the middle are not run again (their budgets do not grow). The short
    pass is the full pass's ``previous`` likewise. Either way the result is the one a single run
    on the larger budget gives."""
    if find and max_nodes > SHORT_NODES and grow == 1 and previous is None:
        short = _price(cone, duals, tol=tol, collect=collect, keep=keep, max_nodes=SHORT_NODES, stop_count=None,
                       find=True, target=target)
        if short.columns.shape[1] or not any(r.exhausted for r in short.searches.values()):
            return short
        previous = short
    return _price(cone, duals, tol=tol, collect=collect, keep=keep, max_nodes=max_nodes,
                  stop_count=keep if find else None, find=find, target=target, grow=grow,
                  previous=previous.searches if previous is not None else None)


#: node budget of each search's first, short pass when improving columns are wanted
SHORT_NODES = 300


def price_flat(cone: Cone, *, tol: float, target: float, max_nodes: int) -> Pricing:
    """Only a bound on max sum_x P_x v_x log v_x over the cone's columns (the pricing at duals 0, which
    bounds every channel's MI), each search stopping once its bound is at most ``target``. The
    light-top family is bounded over its masses alone (``light_top.light_top_flat``, to tol / 16: it is
    cheap): at duals 0 its value does not depend on which letters make them up."""
    return _price(cone, np.zeros(cone.n), tol=tol, collect=math.inf, keep=0, max_nodes=max_nodes, stop_count=None,
                  find=False, target=target, flat=True)


def price_bound(cone: Cone, duals, *, tol: float, target: float, max_nodes: int) -> Pricing:
    """Only a bound on the pricing at ``duals`` (no columns), each search stopping once its bound is at
    most ``target``: the searches of ``price_mi`` without their meets in the middle (which need a
    threshold to list against, and the light-top windows, whose halves cost seconds at N = 74 where the
    branch and bound, near duals whose light letters share one ratio, closes in a few nodes). Its bound
    holds whether or not a search ran out of nodes."""
    return _price(cone, duals, tol=tol, collect=math.inf, keep=0, max_nodes=max_nodes, stop_count=None, find=False,
                  target=target, windows=False)


def _price(cone: Cone, duals, *, tol, collect, keep, max_nodes, stop_count, find, target=-math.inf,
           flat=False, grow=1, previous=None, windows=True) -> Pricing:
    p, w, n = cone.prior, np.asarray(duals, dtype=float), cone.n
    kw = dict(tol=tol, collect=collect, max_nodes=max_nodes * grow, keep=keep, stop_count=stop_count, target=target)
    previous = previous or {}
    results: dict[str, SearchResult] = {}
    names = SEARCHES[cone.kind]
    if cone.grid is not None:  # exact tables first: they are cheap and may hold improving columns
        names = sorted(names, key=lambda k: k == "light_top")
    for name in names:
        prev = previous.get(name)
        if prev is not None and name != "light_top" and not prev.exhausted and prev.frontier is None:
            results[name] = prev  # closed on the smaller budget (and found nothing: else no escalation)
            continue
        res = _table(cone, w, name, keep=keep, collect=collect) if cone.grid is not None else None
        if name in ("box", "box_top"):
            cap = cone.E if name == "box" else cone.top
            res = res or _exact_after(box_search(p, w, cap, **kw, resume=_frontier(prev)),
                                      lambda **k: box_halves(p, w, cap, **k), kw, prev)
            cols = res.found
        elif name == "staircase":
            res = res or staircase_search(p, w, cone.eps, **kw, resume=_frontier(prev))
            cols = list(staircase_columns(p, cone.eps, np.array(res.found).T).T) if res.found else []
        elif name == "light_top":
            box = results.get("box_top")
            # below the box search's bound the pricing bound cannot go (the largest of the searches'
            # bounds, exhausted or not): no need to refine there
            floor = box.bound if box is not None and math.isfinite(box.bound) else -math.inf
            before = previous.get("box_top")
            if prev is not None and grow > 1 and before is not None and before.bound == box.bound:
                res, cols = prev, []  # its budget does not grow: on the same floor it ends as it did
            elif res is None and flat:
                res = light_top_flat(p, cone.eps, cone.half, tol=tol / 16, max_nodes=max_nodes, target=target)
                cols = []
            elif res is None and cone.grid is not None:  # a grid with too many top sets to enumerate
                res = light_top_count_search(*cone.grid, p, w, cone.eps, cone.half, **{**kw, "max_nodes": max_nodes})
                cols = [_light_top(cone, t1, s) for t1, s in res.found]
            elif res is None:
                res = _light_top_float(p, w, cone, {**kw, "target": max(target, floor), "max_nodes": max_nodes},
                                       box.bound if box is not None else math.inf, bounded=windows and floor > -math.inf)
                cols = res.found
            else:
                cols = [_light_top(cone, t1, s) for t1, s in res.found]
        else:
            res = res or _exact_after(heavy_two_level_search(p, w, cone.eps, cone.half, **kw, resume=_frontier(prev)),
                                      lambda **k: heavy_halves(p, w, cone.eps, cone.half, **k), kw, prev)
            cols = [_heavy_column(cone, m) for m in res.found]
        results[name] = res
        if find and cols:
            return Pricing(math.inf, np.array(cols).T, results)
    bound = max((r.bound for r in results.values()), default=-math.inf)
    return Pricing(bound, np.zeros((n, 0)), results)


@dataclass(frozen=True)
class _AfterHalves:
    """How to resume a search that ``_exact_after`` completed with a meet in the middle: the branch
    and bound's frontier and the meet in the middle's result (the same on any node budget)."""

    frontier: object
    halves: SearchResult | None


def _frontier(prev: SearchResult | None):
    """The branch-and-bound frontier to resume from ``prev`` (an exhausted result), or None."""
    if prev is None:
        return None
    return prev.frontier.frontier if isinstance(prev.frontier, _AfterHalves) else prev.frontier


def _exact_after(res: SearchResult, halves, kw, prev: SearchResult | None = None) -> SearchResult:
    """When a branch-and-bound search ran out of nodes with nothing found, its meet-in-the-middle
    counterpart (``halves(tau=, keep=, collect=)``, exact above ``collect``) takes its place if the
    prior is small enough (not for a bound alone, ``collect`` = inf: far from the optimum the
    windows hold most pairs). Both bounds hold, so the smaller is kept: a meet in the middle that
    runs out of pairs (many near-optimal sets) bounds only the subsets it did not reach, loosely.
    ``prev``: the same search on a smaller budget, whose meet in the middle (if it ran) is reused."""
    if not res.exhausted or res.found or not math.isfinite(kw["collect"]):
        return res
    ran = prev is not None and isinstance(prev.frontier, _AfterHalves)
    exact = prev.frontier.halves if ran else halves(tau=kw["collect"], keep=kw["keep"], collect=kw["collect"])
    if exact is None:
        return SearchResult(res.bound, res.found, res.best, res.nodes, res.exhausted, _AfterHalves(res.frontier, None))
    return SearchResult(min(exact.bound, res.bound), exact.found, max(exact.best, res.best), res.nodes + exact.nodes,
                        exact.exhausted, _AfterHalves(res.frontier, exact))


def _light_top_float(p, w, cone: Cone, kw, box_bound: float, bounded: bool) -> SearchResult:
    """The light-top search for a prior that is not a grid. On a full pass (more than ``SHORT_NODES``
    nodes) after a box search that ended with a bound (``bounded``; exhausted or not: its bound holds
    either way and is the target's floor) the meet-in-the-middle bound (``light_top_windows``) comes
    first: when it reaches the target, or shows that no column is worth ``collect``, the branch and
    bound is not needed; otherwise the smaller of the two bounds holds."""
    win = None
    if bounded and kw["max_nodes"] > SHORT_NODES:
        win = light_top_windows(p, w, cone.eps, cone.half, goal=kw["target"], box_bound=box_bound)
        if win is not None and (not win.exhausted or win.bound <= kw["collect"]):
            return win
    res = light_top_search(p, w, cone.eps, cone.half, **kw, box_bound=box_bound)
    if win is None or res.found or res.bound <= win.bound:
        return res
    return SearchResult(win.bound, res.found, res.best, res.nodes + win.nodes, win.exhausted)


def _table(cone: Cone, w, name: str, *, keep: int, collect: float):
    """The exact table search of ``name`` for a prior on a grid (``pricing.counts``), or None."""
    counts, m = cone.grid
    p, eps, half = cone.prior, cone.eps, cone.half
    if name in ("box", "box_top"):
        return tables.box_table(counts, m, p, w, cone.E if name == "box" else cone.top, keep, collect)
    if name == "staircase":
        c = math.expm1(eps)
        return tables.two_level_table(counts, m, w, lambda s: (1.0 / (1.0 + c * s), (1.0 + c) / (1.0 + c * s)),
                                      (0.0, 1.0), keep, collect)
    if name == "heavy_two_level":
        H, kap = cone.top, 1.0 - cone.top * half
        return tables.two_level_table(
            counts, m, w, lambda s: ((1.0 - H * s) / (1.0 - kap * s), H * (1.0 + half - s) / (1.0 - kap * s)),
            (half, 1.0 / H), keep, collect)
    return tables.light_top_table(counts, m, p, w, eps, half, keep, collect)


def _light_top(cone: Cone, t1, s):
    return light_top_column(cone.prior, cone.half, cone.E, t1, s)


def _heavy_column(cone: Cone, mask):
    """The heavy two-level column with top set ``mask``: low / H (1 + (beta/2) low), P.v = 1."""
    s = float(cone.prior[mask].sum())
    H, half = cone.top, cone.half
    d = 1.0 - (1.0 - H * half) * s
    return np.where(mask, H * (1.0 + half - s) / d, (1.0 - H * s) / d)

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
