"""The search under the pricing step (step 3) of the design loop: one best-first branch and bound
that every family's search plugs into, resumable on a larger budget.

One best-first branch-and-bound skeleton for every pricing search of the design engine.

A search maximises a value over a finite family (the vertices of a polytope, here) and needs a
certified upper bound on that maximum. It supplies three things (:class:`Search`):

* ``root()``: the state of the root node (the whole family);
* ``evaluate(state, incumbent)``: an :class:`Evaluation` of the node -- an upper bound on every
  member below it, exact members found on the way (value, payload), and how to split it (a list
  of branching options, each a list of child states; an empty list: the node is solved, its bound
  attained up to the floating-point margin); ``None`` when the node holds no member;
* nothing else: the heap, the incumbent, the prune and the stop rule live here, once.

Strong branching: when a node offers several options, every child of every option is evaluated
and the option whose larger child bound is the smallest is kept, the first listed on ties (the
other children are dropped: each option alone partitions the node).

Stopping: the search stops when the largest open bound is at most ``max(best, 0) + tol`` (nothing
better than ``tol`` above the incumbent or zero is left) or at most ``target`` (the caller needs no
better bound), when ``max_nodes`` evaluations are spent
(the result then says ``exhausted``), or as soon as a member worth more than ``stop_above`` is
found or ``stop_count`` members worth more than ``collect`` are (partial pricing: the caller only
wants improving columns, the bound is reported as inf).
The returned bound is the largest bound of any node not branched on (open, pruned or solved) and
of the incumbent, so it holds for the whole family whatever the reason for stopping. Counted work
only: the same inputs give the same result on any machine.

Resuming: a search that ran out of nodes returns its :class:`Frontier` (the open nodes, the
incumbent, the members found, the nodes spent). Passed back as ``resume`` with a larger
``max_nodes`` (a total, counting the nodes already spent) and the same other arguments, the search
goes on where it stopped and ends exactly as one run with the larger budget would have: the nodes
are evaluated in the same order. A pricing that grows a search's budget therefore pays only for the
nodes it adds.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence


@dataclass(frozen=True)
class Evaluation:
    """What a search knows about one node.

    ``bound``: upper bound on the value of every member of the node; ``found``: exact members met
    while bounding, as (value, payload) pairs; ``options``: ways to split the node, each a list of
    child states (empty: the node is solved, ``bound`` is attained up to the rounding margin)."""

    bound: float
    found: Sequence[tuple[float, Any]] = ()
    options: Sequence[Sequence[Any]] = ()


@dataclass(frozen=True)
class SearchResult:
    """Outcome of one search: ``bound`` >= the family's maximum (inf when stopped at an improving
    member, -inf for an empty family); ``found``: payloads of the members worth more than
    ``collect``, best first; ``best``: the best value met; ``nodes``: evaluations spent;
    ``exhausted``: the node budget ran out before the bound closed; ``frontier``: where an exhausted
    search stopped (a :class:`Frontier` for a branch and bound; a search built on one may wrap it
    with what else it needs to resume), None otherwise."""

    bound: float
    found: list
    best: float
    nodes: int
    exhausted: bool
    frontier: Any = field(default=None, compare=False, repr=False)


class Search(Protocol):
    def root(self) -> Any: ...

    def evaluate(self, state: Any, incumbent: float) -> Evaluation | None: ...


@dataclass(order=True)
class _Open:
    key: float  # -bound: heapq pops the largest bound first
    seq: int  # tie-break in creation order (deterministic, never compares states)
    state: Any = field(compare=False)
    evaluation: Evaluation = field(compare=False)


@dataclass(frozen=True)
class Frontier:
    """The state of a best-first search that ran out of nodes (see the module docstring)."""

    search: Any
    heap: tuple
    found: tuple
    best: float
    settled: float
    nodes: int
    seq: int


def best_first(search: Search, *, tol: float, collect: float, max_nodes: int, keep: int,
               stop_above: float = math.inf, stop_count: int | None = None,
               target: float = -math.inf, resume: Frontier | None = None) -> SearchResult:
    """Run ``search`` best-first, or go on from ``resume`` (its search replaces ``search``); see the
    module docstring for the rules."""
    found: dict[Any, tuple[float, Any]] = {}
    best = -math.inf
    settled = -math.inf  # largest bound of a node that will not be branched (pruned or solved)
    nodes = 0
    seq = 0
    heap: list[_Open] = []

    def note(ev: Evaluation) -> None:
        nonlocal best
        for value, payload in ev.found:
            if value > best:
                best = value
            if value > collect:
                k = _key(payload)
                if k not in found or found[k][0] < value:
                    found[k] = (value, payload)

    def push(state, ev: Evaluation | None) -> None:
        nonlocal seq, settled
        if ev is None:
            return
        if ev.bound <= max(max(best, 0.0) + tol, target):
            settled = max(settled, ev.bound)
            return
        seq += 1
        heapq.heappush(heap, _Open(-ev.bound, seq, state, ev))

    if resume is None:
        state = search.root()
        ev = search.evaluate(state, best)
        nodes += 1
        if ev is not None:
            note(ev)
        push(state, ev)
    else:
        search, heap, found = resume.search, list(resume.heap), dict(resume.found)
        best, settled, nodes, seq = resume.best, resume.settled, resume.nodes, resume.seq
    exhausted = False
    enough = math.inf if stop_count is None else stop_count
    while heap and best <= stop_above and len(found) < enough:
        top = heap[0]
        if -top.key <= max(max(best, 0.0) + tol, target):
            break
        if nodes >= max_nodes:
            exhausted = True
            break
        heapq.heappop(heap)
        if not top.evaluation.options:
            settled = max(settled, -top.key)
            continue
        tried = []
        for option in top.evaluation.options:
            kids = []
            for child in option:
                cev = search.evaluate(child, best)
                nodes += 1
                if cev is not None:
                    note(cev)
                kids.append((child, cev))
            worst = max((c[1].bound for c in kids if c[1] is not None), default=-math.inf)
            tried.append((worst, kids))
        # the option whose larger child bound is smallest; an earlier option wins unless a later one is
        # better by more than rounding (searches list their preferred options first)
        lowest = min(t[0] for t in tried)
        slack = 1e-9 * (1.0 + abs(lowest)) if math.isfinite(lowest) else 0.0
        kids = next(k for w_, k in tried if w_ <= lowest + slack)
        for child, cev in kids:
            if cev is not None and cev.bound > -top.key:  # a child is bounded by its parent too
                cev = Evaluation(-top.key, cev.found, cev.options)
            push(child, cev)
    ranked = sorted(found.values(), key=lambda e: -e[0])[:keep]
    if best > stop_above or len(found) >= enough:
        return SearchResult(math.inf, [p for _, p in ranked], best, nodes, False)
    bound = max([settled, best] + [-o.key for o in heap])
    frontier = Frontier(search, tuple(heap), tuple(found.items()), best, settled, nodes, seq) if exhausted else None
    return SearchResult(bound, [p for _, p in ranked], best, nodes, exhausted, frontier)


def _key(payload) -> Any:
    """A hashable identity of a member (payloads are arrays or tuples of arrays)."""
    if isinstance(payload, tuple):
        return tuple(_key(p) for p in payload)
    tobytes = getattr(payload, "tobytes", None)
    return tobytes() if tobytes is not None else payload

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
