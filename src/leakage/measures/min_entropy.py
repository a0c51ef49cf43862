"""Min-entropy leakage and maximal leakage: one-try guessing measures of a channel, in nats.

Min-entropy leakage of a channel under a prior [smith2009] compares the adversary's best chance
of guessing X in one try after and before seeing Y:

    L(P_X, channel) = log( sum_y max_x P_X(x) P(y|x) / max_x P_X(x) )            [nats]

Maximal leakage [issa2020] is the worst case over guessing targets (any randomised function of X)
and equals the min-entropy leakage maximised over priors (the min-capacity), attained at the
uniform prior on the inputs:

    L(X -> Y) = log sum_y max_x P(y|x)                                           [nats]

It is also the exponential average of pointwise maximal leakage [saeidian-pml]: for every prior,
``log sum_y P_Y(y) exp(l(X -> y))`` is ``log sum_y max_{x in supp P_X} P(y|x)``, which equals
``maximal_leakage(channel)`` when the prior has full support and is at most it otherwise; so
maximal leakage is the supremum of this PML average over priors.
"""

from __future__ import annotations

import numpy as np

from leakage.validation import check_channel, check_channel_prior


def maximal_leakage(channel) -> float:
    """L(X -> Y) = log sum_y max_x P(y|x), in nats [issa2020, Theorem 1].

    Prior-free: the supremum of :func:`min_entropy_leakage` over priors, attained at the uniform
    prior. Zero exactly when every column is constant (Y independent of X); at most
    ``log min(|X|, |Y|)``.
    """
    c = check_channel(channel)
    return float(np.log(c.max(axis=0).sum()))


def min_entropy_leakage(channel, prior) -> float:
    """L(P_X, channel) = log( sum_y max_x P_X(x) P(y|x) / max_x P_X(x) ), in nats [smith2009].

    The log-ratio of the posterior to the prior vulnerability (probability of guessing X in one
    try). Non-negative, at most :func:`maximal_leakage`, equal to it at the uniform prior.
    """
    c, p = check_channel_prior(channel, prior)
    posterior = (p[:, None] * c).max(axis=0).sum()
    return float(max(np.log(posterior / p.max()), 0.0))
