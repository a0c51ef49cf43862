"""Distribution estimation from samples and its l1 uncertainty [empirical-pml, Sec. II-B].

The true distribution P_X lies, with probability at least 1 - delta, in the l1-ball of radius
beta*(delta) around the empirical estimate ([weissman2003]'s bound, distribution-free form).
"""

from __future__ import annotations

import numpy as np

from leakage.validation import check_array_size, check_count, check_labels, check_probability, check_scalar


def empirical_distribution(samples, alphabet) -> np.ndarray:
    """P̂_X(x) = (1/m) sum_i 1{d_i = x} for x in ``alphabet`` [empirical-pml, eq. (13)].

    Every sample must belong to ``alphabet``; the result is ordered as ``alphabet``.
    """
    samples = check_labels(samples, "samples", "symbols")
    alphabet = check_labels(alphabet, "alphabet", "symbols")
    if len(np.unique(alphabet)) != alphabet.size:
        raise ValueError(f"alphabet must list distinct symbols, got {alphabet.tolist()!r:.200}")
    index = {v: i for i, v in enumerate(alphabet.tolist())}
    counts = np.zeros(alphabet.size)
    values, n = np.unique(samples, return_counts=True)
    for v, c in zip(values.tolist(), n):
        if v not in index:
            raise ValueError(f"samples: value {v!r} is not in alphabet {alphabet.tolist()!r:.200}")
        counts[index[v]] = c
    return counts / samples.size


def beta_star(delta, m, n_symbols: int = 2) -> float:
    """beta*(delta) = sqrt( (2/m) (log(2^N - 2) - log delta) ) [empirical-pml, eqs. (21), (37); (45) for N = 2].

    The radius of the l1-ball around P̂_X (from m samples over N symbols) that holds the true P_X
    with probability at least 1 - delta. Valid for delta in (0, 1], m >= 1, N >= 2.
    """
    return weissman_radius(delta, m, n_symbols, phi=2.0)


def delta_for_beta(beta, m, n_symbols: int = 2) -> float:
    """The failure probability delta with beta*(delta) = beta: (2^N - 2) exp(-m beta^2 / 2), capped at 1.

    Inverse of :func:`beta_star` [empirical-pml, eq. (17) with the distribution-free phi >= 2].
    """
    return float(min(1.0, weissman_tail_bound(beta, m, n_symbols, phi=2.0)))


def _log_two_pow_minus_two(n: int) -> float:
    """log(2^N - 2), computed without overflow for large N."""
    return float(n * np.log(2.0) + np.log1p(-2.0 ** (1 - n)))


def weissman_phi(p) -> float:
    """phi(p) = log((1 - p)/p) / (1 - 2p), with phi(1/2) = 2 [empirical-pml, eq. (15)].

    The distribution-dependent exponent factor of the bound of [weissman2003]; decreasing from
    phi(0) = inf to phi(1/2) = 2. Dimensionless. Valid for p in [0, 1/2].
    """
    p = check_scalar(p, "p", low=0.0, high=0.5)
    if p == 0.0:
        return float("inf")
    u = 1.0 - 2.0 * p
    if u < 1e-4:
        # the closed form is 0/0 at p = 1/2: log((1+u)/(1-u)) / u = 2 + 2u^2/3 + 2u^4/5 + O(u^6)
        return float(2.0 + 2.0 * u**2 / 3.0 + 2.0 * u**4 / 5.0)
    return float(np.log((1.0 - p) / p) / (1.0 - 2.0 * p))


def weissman_kappa(prior) -> float:
    """kappa_P = max_{A subset X} min{P(A), 1 - P(A)} [empirical-pml, eq. (16)], in [0, 1/2].

    The subset sum closest to 1/2, found exactly by meet-in-the-middle over the 2^N subsets
    (2 * 2^(N/2) sums). Valid for distributions over N <= 40 symbols.
    """
    from leakage.validation import check_distribution

    p = check_distribution(prior)
    n = p.size
    if n > 40:
        raise ValueError(f"prior must have at most 40 symbols for the exact kappa, got N = {n}")
    left = _subset_sums(p[: n // 2])
    right = np.sort(_subset_sums(p[n // 2 :]))
    # for every left sum s, the right sums nearest to 1/2 - s
    target = 0.5 - left
    pos = np.clip(np.searchsorted(right, target), 1, right.size - 1) if right.size > 1 else None
    if pos is None:
        total = left + right[0]
    else:
        lo, hi = left + right[pos - 1], left + right[pos]
        total = np.where(np.abs(lo - 0.5) <= np.abs(hi - 0.5), lo, hi)
    best = total[np.argmin(np.abs(total - 0.5))]
    return float(min(best, 1.0 - best))


def _subset_sums(p: np.ndarray) -> np.ndarray:
    """All 2^len(p) subset sums of p (the empty set included)."""
    sums = np.zeros(1)
    for v in p:
        sums = np.concatenate([sums, sums + v])
    return sums


def weissman_tail_bound(beta, m, n_symbols: int = 2, *, phi: float = 2.0) -> float:
    """P{||P_X - P̂_X||_1 >= beta} <= (2^N - 2) exp(-m phi beta^2 / 4) [empirical-pml, eq. (17)].

    ``phi`` = phi(kappa_{P_X}) of eqs. (15)-(16) (see :func:`weissman_phi`, :func:`weissman_kappa`);
    the distribution-free value is phi = 2. Returns the right-hand side (a probability bound, may
    exceed 1). Valid for beta >= 0, m >= 1, N >= 2, phi >= 2.
    """
    beta = check_scalar(beta, "beta", low=0.0)
    m = check_count(m, "m")
    n_symbols = check_count(n_symbols, "n_symbols", low=2)
    phi = check_scalar(phi, "phi", low=2.0)
    if beta == 0.0:
        return float(np.exp(_log_two_pow_minus_two(n_symbols)))  # (2^N - 2) e^0, also for phi = inf
    with np.errstate(over="ignore"):  # m phi beta^2 beyond the float range: the bound is e^-inf = 0
        exponent = _log_two_pow_minus_two(n_symbols) - np.float64(m) * np.float64(phi) * np.float64(beta) ** 2 / 4.0
        return float(np.exp(exponent))


def weissman_radius(delta, m, n_symbols: int = 2, *, phi: float = 2.0) -> float:
    """beta = 2 sqrt( (log(2^N - 2) - log delta) / (m phi) ) [empirical-pml, eq. (20); (21) for phi = 2].

    The smallest l1 radius with P{||P_X - P̂_X||_1 >= beta} <= delta by eq. (17). Valid for delta in
    (0, 1], m >= 1, N >= 2, phi >= 2 (phi = phi(kappa_{P_X}), 2 when P_X is unknown).
    """
    delta = check_probability(delta, "delta")
    m = check_count(m, "m")
    n_symbols = check_count(n_symbols, "n_symbols", low=2)
    phi = check_scalar(phi, "phi", low=2.0)
    return float(2.0 * np.sqrt((_log_two_pow_minus_two(n_symbols) - np.log(delta)) / (m * phi)))


def sample_sizes(m_min: int, m_max: int, n: int) -> np.ndarray:
    """The sample sizes of an estimation sweep: ``n`` log-spaced integers from ``m_min`` to ``m_max`` (rounded, duplicates removed)."""
    m_min = check_count(m_min, "m_min")
    m_max = check_count(m_max, "m_max")
    if m_max < m_min:
        raise ValueError(f"m_max must be >= m_min = {m_min}, got m_max = {m_max}")
    n = check_count(n, "n")
    check_array_size((n,), "n")
    return np.unique(np.rint(np.geomspace(m_min, m_max, n)).astype(np.int64))
