"""The primal completion of the design loop at small eps (docs/design-engine.md, "Small eps: heavy
letters and the aggregated bound"): box columns whose zero sets fill one mass almost exactly, found
together by meet in the middle instead of one pricing at a time.

Near-exact zero sets of the box columns at the cap, as one family of candidate columns.

A box column at cap C (``e^eps`` for the known prior, H on a ball) is C on a set T, 0 on a zero set
Z and fractional on one letter f; with P.v = 1 its column utility is log C, the most any column
has, exactly when P(Z) = z = 1 - 1/C, and it loses about C |P(Z) - z| log(P_f / |P(Z) - z|)
otherwise. At small eps the optimum covers the letters lighter than z (the *light* letters; the
heavy ones, ``colgen.heavy_letters``, are never 0 at the cap) by such columns with zero sets of mass
z, so that every light letter is 0 in the same total weight. At the duals of the aggregated bound
(one ratio w_x / P_x for all light letters) every near-exact set is worth the same, and the master
only needs enough of them, varied enough, to cover the light letters evenly. The exact pricing finds
them one subset-sum search at a time; this module lists many at once, whatever the duals: each round
takes a random part of the light letters as fixed members of Z and lists the subsets of up to
``POOL`` others by meet in the middle [horowitz-sahni] (``halves.list_halves``), pairing each subset
of one half with the two subsets of the other half whose total mass is nearest to what Z still
needs. The ``keep`` pairs nearest to z of each round become lift vectors (f: the lightest letter of
Z that absorbs the excess, or the heaviest letter of T when Z falls short).

These are feasible columns and nothing more: they change the master's value, never a bound (the
certificate stays sum(w) + max(U, 0) of an exact pricing). Deterministic (seeded); cost per round:
two lists of at most 2^(POOL/2) subsets, one sort and one search each.
"""

from __future__ import annotations

import numpy as np

from leakage.design.cone import Cone
from leakage.design.pricing.halves import list_halves
from leakage.design.vertices import lift_level

#: letters listed by the meet in the middle of one round (two halves of at most 2^(POOL/2) subsets)
POOL = 36
#: rounds of one family, and zero sets kept per round (those nearest to the target mass)
ROUNDS = 32
KEEP = 128


def near_exact_zero_sets(prior, light, target: float, *, rounds: int = ROUNDS, keep: int = KEEP,
                         seed: int = 0) -> np.ndarray:
    """Zero sets Z of light letters (``light``: their indices) with P(Z) near ``target``, as the rows
    of a bool K x N array (distinct rows), from ``rounds`` seeded rounds of meet in the middle."""
    p = np.asarray(prior, dtype=float)
    light = np.asarray(light)
    m = p[light]
    if light.size == 0 or m.sum() <= target:
        return np.zeros((0, p.size), bool)
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(rounds):
        order = rng.permutation(light.size)
        pool, rest = order[:POOL], order[POOL:]
        # the rest joins Z at random, so that the pool is left about half its mass to fill
        share = (target - m[pool].sum() / 2) / m[rest].sum() if rest.size else 0.0
        base = rest[rng.random(rest.size) < min(max(share, 0.0), 1.0)]
        need = target - m[base].sum()
        if not 0.0 <= need <= m[pool].sum():
            continue
        halves = list_halves(m[pool], np.zeros(pool.size), m[pool][None, :])
        if halves is None:
            continue
        a, b = halves
        sa, sb = a.sums[0], b.sums[0]
        j = np.searchsorted(sb, need - sa)
        ia = np.concatenate([np.arange(sa.size)] * 2)
        ib = np.concatenate([j - 1, j])
        ok = (ib >= 0) & (ib < sb.size)
        ia, ib = ia[ok], ib[ok]
        err = np.abs(sa[ia] + sb[ib] - need)
        best = np.argsort(err, kind="stable")[:keep]
        bits = a.masks[ia[best]] | b.masks[ib[best]]
        inside = ((bits[:, None] >> np.arange(pool.size, dtype=np.uint64)[None, :]) & np.uint64(1)).astype(bool)
        z = np.zeros((best.size, p.size), bool)
        z[:, light[base]] = True
        z[:, light[pool]] = inside
        found.append(z)
    if not found:
        return np.zeros((0, p.size), bool)
    return np.unique(np.concatenate(found), axis=0)


def lift_columns(prior, cap: float, zero, target: float) -> np.ndarray:
    """The lift vectors of the box {0 <= v <= cap, P.v = 1} with zero sets ``zero`` (K x N bool,
    P(Z) near ``target`` = 1 - 1/cap): cap off Z, 0 on Z, one fractional letter (N x K). Z heavier
    than the target: its lightest letter that can absorb the excess is raised; lighter: the
    heaviest letter off Z is lowered."""
    p = np.asarray(prior, dtype=float)
    excess = zero.astype(float) @ p - target
    rows = np.arange(zero.shape[0])
    over = excess >= 0
    f_up = np.argmin(np.where(zero & (p[None, :] >= excess[:, None]), p[None, :], np.inf), axis=1)
    f_down = np.argmax(np.where(zero, -np.inf, p[None, :]), axis=1)
    f = np.where(over, f_up, f_down)
    top = ~zero
    top[rows, f] = False
    v = np.where(top, cap, 0.0)
    v[rows, f] = np.clip(lift_level(p[f], cap, top.astype(float) @ p), 0.0, cap)
    return v.T


def cover_columns(cone: Cone, cap: float, heavy, *, rounds: int = ROUNDS, keep: int = KEEP, seed: int = 0) -> np.ndarray:
    """Box columns at ``cap`` whose zero sets (light letters only: ``heavy`` a mask, or None for
    none) have mass near 1 - 1/cap, polished into the cone (N x K; K = 0 when the light letters
    cannot fill that mass)."""
    p = cone.prior
    target = 1.0 - 1.0 / cap
    light = np.flatnonzero(~heavy) if heavy is not None else np.arange(p.size)
    zero = near_exact_zero_sets(p, light, target, rounds=rounds, keep=keep, seed=seed)
    if zero.shape[0] == 0:
        return np.zeros((p.size, 0))
    return cone.polish(lift_columns(p, cap, zero, target))


#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
