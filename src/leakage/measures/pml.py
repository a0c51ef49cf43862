"""Pointwise maximal leakage (PML) of a channel under a prior.

PML of an outcome y ([saeidian-pml]; [empirical-pml, eqs. (2)-(4)]):

    l(X -> y) = log( max_{x in supp P_X} P(y|x) / P_Y(y) ),   P_Y = P_X @ channel   [nats]

A channel is eps-PML for P_X if l(X -> y) <= eps for every y in supp(P_Y); the smallest such eps is
``epsilon_min`` (eqs. (7)-(8)). Every channel is eps_max-PML with eps_max = -log min_x P_X(x).
"""

from __future__ import annotations

import numpy as np

from leakage.validation import check_channel_prior, check_distribution, check_epsilon, check_tolerance


def output_distribution(channel, prior) -> np.ndarray:
    """P_Y = P_X @ channel (the output marginal)."""
    c, p = check_channel_prior(channel, prior)
    return p @ c


def pointwise_maximal_leakage(channel, prior) -> np.ndarray:
    """l(X -> y) for every output y, in nats [empirical-pml, eq. (4)].

    Outputs outside supp(P_Y) never occur and leak nothing: their entry is 0.
    """
    c, p = check_channel_prior(channel, prior)
    p_y = p @ c
    top = c[p > 0].max(axis=0)
    used = p_y > 0
    out = np.zeros(c.shape[1])
    out[used] = np.log(top[used] / p_y[used])
    # max >= average: PML is non-negative; clip rounding noise below zero.
    return np.maximum(out, 0.0)


def epsilon_min(channel, prior) -> float:
    """The smallest eps for which ``channel`` is eps-PML under ``prior`` [empirical-pml, eq. (8)]."""
    return float(pointwise_maximal_leakage(channel, prior).max())


def epsilon_max(prior) -> float:
    """eps_max = -log min_{x in supp} P_X(x): every channel is eps_max-PML [empirical-pml, Sec. II]."""
    p = check_distribution(prior)
    return float(-np.log(p[p > 0].min()))


def is_pml(channel, prior, eps, *, tol: float = 1e-9) -> bool:
    """Whether ``channel`` satisfies eps-PML for ``prior`` (up to ``tol`` nats)."""
    tol = check_tolerance(tol)
    eps = check_epsilon(eps)
    return epsilon_min(channel, prior) <= eps + tol
