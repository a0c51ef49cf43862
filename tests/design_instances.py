"""Random instances shared by the design-engine tests: priors of several shapes (heavy tails, clipped
tails with equal masses, flat), radii wider than 2 min P, and duals as column generation produces
them (many near-equal ratios w/P, exact zeros, proportional to P plus noise)."""

from __future__ import annotations

import itertools
import math

import numpy as np


def prior(rng, n):
    kind = rng.integers(3)
    if kind == 0:  # Zipf-like
        p = np.arange(1, n + 1, dtype=float) ** -rng.uniform(0.5, 2.0) * rng.uniform(0.5, 1.5, n)
    elif kind == 1:  # Dirichlet, clipped: equal masses in the tail
        p = np.maximum(rng.dirichlet(np.full(n, rng.uniform(0.2, 1.0))), 0.01)
    else:
        p = rng.dirichlet(np.full(n, 3.0))
    return p / p.sum()


def duals(rng, p):
    kind = rng.integers(3)
    if kind == 0:  # many exact zeros
        return np.where(rng.random(p.size) < 0.4, 0.0, rng.normal(size=p.size) * 0.1 * p + rng.normal() * 0.05 * p)
    if kind == 1:  # nearly proportional to P (degenerate masters)
        return p * (rng.uniform(0.2, 2.0) + rng.normal(size=p.size) * 10.0 ** rng.uniform(-6, -2))
    return p * rng.uniform(0.2, 1.5, size=p.size) * rng.uniform(0.1, 1.0)


def codes3(n):
    """Every assignment of n letters to {0, 1, 2} as an (3^n, n) array."""
    return np.array(list(itertools.product(range(3), repeat=n)))


def xlogx(v):
    return np.where(v > 0, v * np.log(np.where(v > 0, v, 1.0)), 0.0)


def values(p, w, cols):
    """f(v) = sum_x P_x v_x log v_x - w.v for the columns (N x K)."""
    return p @ xlogx(cols) - w @ cols


def eps_half(rng, p):
    eps = float(rng.uniform(0.1, 4.0))
    half = float(rng.uniform(1.01 * p.min(), 0.45))
    return eps, half, math.exp(eps)


def grid_prior(rng, n):
    """An empirical prior counts / m (every count >= 1, m from n to 400), shaped like ``prior``."""
    m = int(rng.integers(n, 400))
    counts = 1 + rng.multinomial(m - n, prior(rng, n))
    return counts / m, counts, m


def light_top_grid_instance(rng, n_max):
    """A light-top instance on an empirical prior of 3 to ``n_max`` - 1 letters: (p, counts, m, eps,
    half), eps in [0.1, 4] and beta/2 between the least mass and 0.45."""
    n = int(rng.integers(3, n_max))
    p, counts, m = grid_prior(rng, n)
    eps = float(rng.uniform(0.1, 4.0))
    half = float(rng.uniform(1.01 * p.min(), 0.45))
    return p, counts, m, eps, half


def heavy_columns(p, eps, half):
    """Every heavy two-level column: low / H (1 + half low) on T, P(T) in [half, 1/H)."""
    from leakage.design.vertices import subset_masks

    E = math.exp(eps)
    H = E / (1 + E * half)
    masks = subset_masks(p.size)
    s = p @ masks
    ok = (s >= half) & (s < 1 / H)
    s, masks = s[ok], masks[:, ok]
    d = 1 - (1 - H * half) * s
    lo, hi = (1 - H * s) / d, H * (1 + half - s) / d
    return np.where(masks, hi, lo)


def light_top_columns(p, eps, half):
    """Every light-top three-level column, by 3^N enumeration of (T1, S minus T1, rest)."""
    E = math.exp(eps)
    codes = codes3(p.size)
    t1, s = codes == 1, codes >= 1
    p1, sig = t1 @ p, s @ p
    k = E * (sig - half)
    ok = (p1 < half) & (k >= 1) & ~s.all(axis=1)
    with np.errstate(all="ignore"):
        c = 1.0 / (k * p1 + sig - p1)
        v = np.where(t1, (k * c)[:, None], np.where(s, c[:, None], 0.0))
    return v[ok].T
