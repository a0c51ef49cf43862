"""Prices the box family by meet in the middle (step 3 of the design loop) when its branch and
bound ran out of nodes on a prior that is not a grid.

Exact box pricing by meet in the middle, for priors that are not a grid.

The box pricing max { sum_x P_x r_x log r_x - w_x r_x : 0 <= r <= C, P.r = 1 } is attained at a
lift vector: T at C, one letter f at a level r_f in [0, C], the rest 0 [saeidian-optimal-pml,
Thm 6]. In the units m_x = C P_x (so that m(T) + rho = 1 with rho = P_f r_f the mass of f) and with
delta_x = log C - w_x / P_x, its value is

    V(T, f) = sum_{x in T} m_x delta_x + rho delta_f + rho log(rho / m_f).

When the duals make every ratio w_x / P_x nearly log C (the master's duals near an optimum whose
columns are nearly all at the cap), the first sum is almost the same for every set and the last
term, zero only at rho = 0 or rho = m_f, decides: the search is a subset sum (which sets fill the
capacity 1 almost exactly), on which a branch and bound over letters or levels needs a number of
nodes that grows with the precision asked for.

This search is a meet in the middle (:mod:`~leakage.design.pricing.halves`). Every vertex is seen
through a set S of letters at the cap with a *deviation* t = m(S) - 1: S = T with f outside S and
rho = -t <= m_f / 2 (an underfull S), or S = T + f with f inside S and sigma = t = m_f - rho <= m_f / 2
(an overfull S, f lowered). The value is sum_S m_x delta_x + G(t), where G is
rho delta_f + rho log(rho / m_f) below and -sigma delta_f + (m_f - sigma) log(1 - sigma / m_f) above,
maximised over the admissible f; both are convex, zero at t = 0, and fall like |t| log(1/|t|) and |t|
away from it. A *big* letter (m_x > 1: at the cap alone it would exceed P.r = 1) is never in T, only
ever f: the sets S are listed over the other letters, and a big f is admissible below capacity for
every rho <= 1 (S is never lighter than empty), above capacity never. At high eps most of the
heavy letters are big; left in the halves, their sets (overfull far beyond any view, or borrowing a
big f's value while holding it) kept every window wide open.

G is bounded on geometric pieces of |t| by its values at the pieces' ends. A subset A is bounded
interval by interval of the deviation (the outermost pieces one by one, where G changes most, then
one interval around t = 0) by its sum, the best sum of the subsets B that put the deviation there
(two binary searches and a range maximum) and G's bound there; its window is the hull of the
intervals that may still beat the threshold. A wide window is halved while its parts may still
beat it (``halves.pair_search``), each part bounded by the best sum of its subsets B and G's bound
over the pieces its deviations meet. A pair is bounded by its own piece and evaluated exactly (the
best admissible f, membership checked) above it. Exact above ``tau``; budgets as in
:mod:`~leakage.design.pricing.halves`.

Each half lists only the subsets that may still be part of a vertex worth more than ``tau``
(``_above``): near an optimum most letters' Lagrangian terms e_x = m_x (delta_x - mu) are small and
negative, so a subset that holds many of them cannot be, and the halves stay small where listing
every subset would not (N = 74). Where those terms are about the same whatever the letter's mass
(a nearly flat prior), the bound at mu alone keeps every set of many light letters; the bounds at
several multipliers together are mass-aware (``halves.multipliers``), and are the last resort.
When even the kept subsets are too many, the letters whose terms |e_x| are smallest are listed and
the others decided (``_decide``): at the cap in every set, or never. The
chord bound L(mu) = mu + sum_x max(0, m_x (delta_x - mu)) bounds every vertex; one that breaks a
decision on a letter other than its fractional letter loses that letter's term from it. So the
search stays exact when every decided term exceeds L(mu) - tau; otherwise its columns are true and
its bound is the larger of the two.
"""

from __future__ import annotations

import math

import numpy as np

from leakage.design.bnb import SearchResult
from leakage.design.pricing.halves import (Half, PieceMax, RangeMax, list_halves, list_halves_above, member, multipliers,
                                           pair_search)
from leakage.design.vertices import lift_level

#: geometric pieces of |t| per side (the innermost reaches top 2^-PIECES), and how many of the
#: outermost bound each subset A's window alone (where the envelope changes most)
PIECES = 64
OUTER = 8
_MARGIN = 1e-12


def box_halves(prior, duals, cap: float, *, tau: float, keep: int, collect: float) -> SearchResult | None:
    """The box pricing at the duals, exact above ``tau`` when every letter that fits is listed or the
    letters left out are decided (``_decide``): ``bound`` >= the maximum (the maximum itself when it
    exceeds tau and the search is not ``exhausted``), ``found``: up to ``keep`` columns worth more
    than ``collect``, best first. When they are too many to list all, the restricted halves grow
    through ``LISTED`` while the columns they find are worth less than a quarter of their bound;
    when those find none worth that (near the end of a column generation), the halves over every
    letter are listed once more with the mass-aware filter (``_above`` at several ratios), which keeps
    far fewer subsets but costs more where it fails. None when no halves can be listed."""
    p = np.asarray(prior, dtype=float)
    w = np.asarray(duals, dtype=float)
    if not math.isfinite(tau):
        return None
    m = float(cap) * p
    delta = math.log(float(cap)) - w / p
    idx = np.flatnonzero(m <= 1.0)  # the letters that may be at the cap
    fits = idx.size <= MAX_ALL

    def search(lists):
        return _search(p, m, delta, float(cap), lists, tau=tau, keep=keep, collect=collect)

    lists = _above(m, delta, idx, tau, False) if fits else None
    if lists is not None:
        return search(lists)
    res = None
    for k in (k for k in LISTED if k < idx.size):
        lists = _decide(m, delta, idx, k)
        if lists is None:
            break
        res = search(lists)
        if not res.exhausted or (res.found and res.best >= res.bound / 4):
            return res
    lists = _above(m, delta, idx, tau, True) if fits else None
    return search(lists) if lists is not None else res


#: most letters that fit listed all together (two uint64 words of masks), and the sizes of the
#: restricted halves when they are more (then the others are decided): 2^10 to 2^22 subsets per half
MAX_ALL = 128
LISTED = (20, 32)
_NEVER, _ALWAYS = -1, -2


def _search(p, m, delta, C, lists, *, tau, keep, collect) -> SearchResult:
    """One meet in the middle over the halves ``lists`` of ``_decide``; its bound also covers the
    vertices that break a decision (not exact, ``exhausted``, when that bound exceeds tau)."""
    listed, code, fixed_in, a, b, outside = lists
    (ua, pa), (ub, pb) = a.sums, b.sums
    tol = _tolerance(m, delta, tau)
    bit = np.full(p.size, _NEVER)
    bit[listed] = code
    bit[fixed_in] = _ALWAYS
    env = _Envelope(m, delta, bit)
    rm = RangeMax(pb)
    lo, hi, ub_a = _windows(ua, pa, ub, pb, env, rm, tau - tol)

    def refine(ia, l, h):  # B in [l, h): A's sum, their best sum, G's bound over their deviations
        return pa[ia] + rm.query(l, h) + env.range_bound((ua[ia] - 1.0) + ub[l], (ua[ia] - 1.0) + ub[h - 1])

    def pair_bound(ia, ib):
        return pa[ia] + pb[ib] + env.bound((ua[ia] - 1.0) + ub[ib])

    def exact(ia, ib, masks):
        return _exact(pa[ia] + pb[ib], masks, (ua[ia] - 1.0) + ub[ib], m, delta, bit)

    res = pair_search(a, b, lo, hi, ub_a, pair_bound, exact, refine, tau=tau, keep=keep, tol=tol)
    found = _columns(res, p, C, bit, keep, collect)
    best = float(res.values[0]) if res.values.size else -math.inf
    return SearchResult(max(res.bound, outside), found, best, res.pairs, res.exhausted or outside > tau)


def _above(m, delta, idx, tau, ratios: bool):
    """The halves over every letter that fits, each listing only the subsets that may be part of a
    vertex worth more than ``tau``. For any nu, the value of a set S at the cap with deviation t is
    sum_S m_x delta_x + G(t) = nu + e(S) + (nu t + G(t)) with e_x = m_x (delta_x - nu): with
    h(nu) >= nu t + G(t) over the envelope's pieces, a subset A of one half with
    nu + h(nu) + e(A) + (the positive e of the letters left) <= tau is in no such vertex. At mu
    minimising the chord bound (``_lagrangian``) most letters' e_x are small and negative near an
    optimum, so few subsets pass: the meet in the middle then covers every letter, exactly.

    One nu bounds sets of every mass alike; with ``ratios``, the bounds at quantiles of the letters'
    ratios delta_x too, all of which a subset must pass (``halves.multipliers``: mass-aware).
    Returns the lists as ``_decide`` does (nothing decided), or None when a half is too large."""
    mu, _ = _lagrangian(m, delta)
    nu = multipliers(mu, delta[idx] if ratios else [])
    bit = np.full(m.size, _NEVER)
    bit[idx] = 0
    env = _Envelope(m, delta, bit)
    lo, hi = np.append(env.edges[1:], 0.0), env.edges
    h = [float(np.max(np.maximum(env.under + np.maximum(-v * lo, -v * hi), env.over + np.maximum(v * lo, v * hi))))
         for v in nu.tolist()]
    prof = m * delta
    floor = tau - _tolerance(m, delta, tau) - nu - np.array(h)
    gain = prof[idx][None, :] - nu[:, None] * m[idx][None, :]
    lists = list_halves_above(m[idx], -delta[idx], np.stack([m, prof])[:, idx], gain, floor, 1.0 + env.top)
    if lists is None:
        return None
    a, b, code = lists
    return idx, code, idx[:0], a, b, -math.inf


def _decide(m, delta, idx, k):
    """The halves over the k letters of ``idx`` (those that fit) whose Lagrangian terms
    |m_x (delta_x - mu)| are smallest, the others *decided*: at the cap in every set when
    delta_x > mu, never otherwise. With mu minimising L(mu) = mu + sum_x max(0, m_x (delta_x - mu))
    >= every vertex's value (the chord relaxation of the mass constraint), a vertex that breaks a
    decision on a letter x other than its fractional letter is worth at most
    L(mu) - m_x |delta_x - mu|. Returns (listed letters, their bit codes, decided-in letters, the
    two halves with the decided-in letters' sums added to the first, the bound on the vertices
    that break a decision: -inf when none is decided), or None when the halves are too large to
    list."""
    prof = m * delta
    rows = np.stack([m, prof])
    mu, L = _lagrangian(m, delta)
    term = m * np.abs(delta - mu)
    order = idx[np.argsort(term[idx], kind="stable")]
    listed = np.sort(order[:k])
    lists = list_halves(m[listed], -delta[listed], rows[:, listed])
    if lists is None:
        return None
    decided = order[k:]
    fixed_in = np.sort(decided[delta[decided] > mu])
    a, b = lists
    shift = np.array([[m[fixed_in].sum()], [prof[fixed_in].sum()]])
    outside = L - float(term[decided].min()) if decided.size else -math.inf
    return listed, np.arange(listed.size), fixed_in, Half(a.sums + shift, a.masks), b, outside


def _tolerance(m, delta, tau):
    """The floating-point margin of a search's comparisons."""
    return _MARGIN * (1.0 + abs(tau) + float(np.abs(m * delta).sum()))


def _lagrangian(m, delta):
    """(mu, L(mu)) minimising the convex piecewise-linear L(mu) = mu + sum_x max(0, m_x (d_x - mu)),
    d_x = delta_x - log max(m_x, 1): its slope 1 - m(d > mu) turns nonnegative at the first d (from
    the top) past which the masses above reach 1. L(mu) bounds every vertex for any mu: a letter at
    the cap adds m_x delta_x, and the fractional letter f at mass rho <= min(m_f, 1) adds
    rho delta_f + rho log(rho / m_f) <= rho d_f. A big letter (m_f > 1, only ever fractional) thus
    counts at its ratio less log m_f: counted at delta_f, its linear profit up to mass 1 set mu far
    above every vertex's value, and the bounds built on it (the halves' filter, the decided
    letters') were void."""
    d = delta - np.log(np.maximum(m, 1.0))
    order = np.argsort(-d, kind="stable")
    above = np.cumsum(m[order])
    k = int(np.searchsorted(above, 1.0, side="left"))
    mu = float(d[order[min(k, d.size - 1)]])
    return mu, mu + float(np.maximum(m * (d - mu), 0.0).sum())


class _Envelope:
    """Upper bounds of G on geometric pieces of the deviation: piece j of a side covers
    |t| in [e_{j+1}, e_j], e_j = top 2^-j, and the last piece [0, e_PIECES]. By each letter's
    ``bit``: a listed letter reaches |t| <= m_f / 2 on either side; one never in S (big, or decided
    out) rho <= min(m_f, 1) below capacity only; one always in S (decided in) sigma <= m_f above
    capacity only."""

    def __init__(self, m, delta, bit):
        listed = bit >= 0
        reach_under = np.where(listed, m / 2.0, np.where(bit == _NEVER, np.minimum(m, 1.0), -1.0))
        reach_over = np.where(listed, m / 2.0, np.where(bit == _ALWAYS, m, -1.0))
        self.top = float(max(reach_under.max(), reach_over.max()))
        e = self.top * np.exp2(-np.arange(PIECES + 1, dtype=float))
        self.edges = e
        lo, hi = np.append(e[1:], 0.0), e
        under = np.full(lo.size, -np.inf)
        over = np.full(lo.size, -np.inf)
        for f in range(m.size):
            for side, reach, g in ((under, reach_under[f], _under), (over, reach_over[f], _over)):
                ok = reach >= lo
                a, b = lo[ok], np.minimum(hi[ok], reach)
                side[ok] = np.maximum(side[ok], np.maximum(g(a, m[f], delta[f]), g(b, m[f], delta[f])))
        self.under, self.over = under, over
        self._line = PieceMax(np.concatenate([under, over[::-1]]))  # the pieces in the order of t

    def _piece(self, at):
        """The piece j holding each |t| = ``at`` (0 beyond the top)."""
        e = self.edges
        with np.errstate(divide="ignore"):
            j = np.floor(np.log2(self.top / np.where(at > 0, at, 1.0)))
        j = np.where(at > 0, np.clip(j, 0, PIECES), PIECES).astype(np.int64)
        j = np.where((j > 0) & (at > e[j]), j - 1, j)  # rounding of log2 at the edges (e exact)
        return np.where((j < PIECES) & (at < e[np.minimum(j + 1, PIECES)]), j + 1, j)

    def bound(self, t):
        """Upper bound of G at each deviation t: the bound of the piece holding |t| (-inf beyond
        max m / 2, where no view puts a vertex)."""
        at = np.abs(t)
        j = self._piece(at)
        g = np.where(t < 0, self.under[j], self.over[j])
        g = np.where(t == 0, np.maximum(self.under[-1], self.over[-1]), g)
        return np.where(at > self.top, -np.inf, g)

    def range_bound(self, t1, t2):
        """Upper bound of G over each interval [t1, t2] of deviations (arrays, t1 <= t2): the
        largest bound of the pieces it meets, the pieces in the order of t (under the capacity from
        the top down to 0, then over it from 0 up; t = 0 in both innermost pieces)."""
        last = 2 * PIECES + 1

        def index(t, at_zero):
            j = self._piece(np.abs(t))
            return np.where(t < 0, j, np.where(t > 0, last - j, at_zero))

        return self._line.query(index(t1, PIECES), index(t2, PIECES + 1))


def _windows(ua, pa, ub, pb, env: _Envelope, rm: RangeMax, thr):
    """Each subset A's window [lo, hi) of the sorted half and its bound over it: interval by interval
    of the deviation (each of the ``OUTER`` outermost pieces of a side alone, where the envelope
    changes most, then one interval around t = 0), the subsets B that put m(A) + m(B) - 1 in the
    interval bound A by A's sum, their best sum and the envelope's maximum there; the window is
    the hull of the intervals whose bound exceeds ``thr``, and A's bound the largest over them
    (-inf: none does). A is taken in the order of its mass: sorted keys for the binary searches."""
    e = env.edges
    bands = [(-e[j], -e[j + 1], env.under[j]) for j in range(OUTER)]
    bands += [(e[j + 1], e[j], env.over[j]) for j in range(OUTER)]
    bands.append((-e[OUTER], e[OUTER], max(env.under[OUTER:].max(), env.over[OUTER:].max())))
    top_b = float(pb.max()) if pb.size else -math.inf  # a half may list nothing above the threshold
    order = np.argsort(ua, kind="stable")
    ua_s, pa_s = ua[order], pa[order]
    ub_a = np.full(ua.size, -np.inf)
    lo = np.full(ua.size, ub.size)
    hi = np.zeros(ua.size, np.int64)
    for t_lo, t_hi, g in bands:
        if not math.isfinite(g):
            continue
        cand = np.flatnonzero(pa_s + top_b + g > thr)
        if not cand.size:
            continue
        l = np.searchsorted(ub, 1.0 - ua_s[cand] + t_lo - 1e-12, side="left")
        h = np.searchsorted(ub, 1.0 - ua_s[cand] + t_hi + 1e-12, side="right")
        some = np.flatnonzero(h > l)
        q = pa_s[cand[some]] + rm.query(l[some], h[some]) + g
        live = q > thr
        c = order[cand[some[live]]]
        ub_a[c] = np.maximum(ub_a[c], q[live])
        lo[c] = np.minimum(lo[c], l[some[live]])
        hi[c] = np.maximum(hi[c], h[some[live]])
    return lo, np.maximum(hi, lo), ub_a


def _under(rho, mf, df):
    """Value of an underfull set's letter f at mass rho: rho delta_f + rho log(rho / m_f)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rho > 0, rho * df + rho * np.log(np.where(rho > 0, rho, 1.0) / mf), 0.0)


def _over(sig, mf, df):
    """Value of an overfull set's letter f lowered by sigma: -sigma delta_f + (m_f - sigma) log(1 - sigma/m_f)."""
    rest = mf - sig
    with np.errstate(divide="ignore", invalid="ignore"):
        return -sig * df + np.where(rest > 0, rest * np.log1p(-np.minimum(sig, mf) / mf), 0.0)


def _exact(sums, masks, t, m, delta, bit):
    """Exact values of sets S (sum of m delta over S, bit masks over the listed letters, deviation t):
    the best admissible fractional letter (outside S with m_f >= -t when t <= 0, inside with
    m_f >= t when t >= 0; ``bit``: each listed letter's bit code, ``_NEVER`` / ``_ALWAYS`` for a
    letter never / always in S), the lowest-numbered on ties. Returns the values and that letter
    (-1 where none).

    At t = 0 every letter is admissible at value 0 (letter 0 is taken). Otherwise G is bounded
    letter by letter by s k_f (+ s log s below capacity), s = |t|, with k_f = delta_f - log m_f
    below (where the bound is G itself) and -delta_f above (the lowered letter's log term is at
    most 0): the letters are tried in decreasing k_f, only those heavy enough for some set, and a
    set is settled once its best value exceeds the next letter's bound. Near an optimum the first
    admissible letter settles almost every set, where trying every letter on every set cost N
    passes."""
    best = np.full(sums.size, -np.inf)
    arg = np.full(sums.size, -1)
    zero = np.flatnonzero(t == 0)
    best[zero], arg[zero] = 0.0, 0
    with np.errstate(divide="ignore"):
        key_under = delta - np.log(m)
    for below in (True, False):
        rows = np.flatnonzero(t < 0 if below else t > 0)
        if not rows.size:
            continue
        s = np.abs(t[rows])
        key = key_under if below else -delta
        order = np.lexsort((np.arange(m.size), -key))
        order = order[m[order] >= s.min()]  # a letter lighter than every deviation is admissible nowhere
        extra = s * np.log(s) if below else np.zeros(s.size)
        for f in order.tolist():
            ceil = s * key[f] + extra  # no letter from f on is worth more (up to rounding)
            live = ~(best[rows] > ceil + _MARGIN * (np.abs(ceil) + s))
            rows, s, extra = rows[live], s[live], extra[live]
            if not rows.size:
                break
            code = int(bit[f])
            inside = np.full(rows.size, code == _ALWAYS) if code < 0 else member(masks[rows], code)
            ok = (m[f] >= s) & (inside != below)
            if not ok.any():
                continue
            r = rows[ok]
            g = _under(s[ok], m[f], delta[f]) if below else _over(s[ok], m[f], delta[f])
            better = (g > best[r]) | ((g == best[r]) & (f < arg[r]))
            best[r[better]], arg[r[better]] = g[better], f
    return sums + best, arg


def _columns(res, p, C, bit, keep, collect):
    """The best ``keep`` distinct columns worth more than ``collect``: C on T, f at the level that
    makes P.r = 1 (T = S below capacity, S minus f above; S: the listed letters of the mask, by
    their ``bit`` codes, and the decided-in ones)."""
    out, seen = [], set()
    listed = np.flatnonzero(bit >= 0)
    for v, mask, f in zip(res.values.tolist(), res.masks, res.extra.tolist()):
        if not v > collect or len(out) >= keep:
            break
        row = np.atleast_1d(mask)[None, :]  # one mask, as a row of words
        in_t = bit == _ALWAYS
        in_t[listed] = [bool(member(row, int(c))[0]) for c in bit[listed]]
        in_t[f] = False
        col = np.where(in_t, C, 0.0)
        col[f] = min(max(lift_level(p[f], C, float(p[in_t].sum())), 0.0), C)
        key = col.tobytes()
        if key not in seen:
            seen.add(key)
            out.append(col)
    return out

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
