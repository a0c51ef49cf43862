"""Information privacy (Definition 6) and Theorem 3's implications [statistical-inference], in nats."""

from __future__ import annotations

import numpy as np
from scipy.special import rel_entr

from leakage.measures.information import mutual_information


def information_privacy_epsilon(channel, prior) -> float:
    """Information privacy level [statistical-inference, Definition 6 (42)], nats:

    eps_IP = max_{s: p(s)>0, u: p(u)>0} |log( p(s|u) / p(s) )| = max |log( p(u|s) / p(u) )|.
    ``channel[s, u] = p(u|s)``; inf when some p(u|s) = 0 < p(u). Range [0, inf].
    """
    from leakage.validation import check_channel_prior

    c, p = check_channel_prior(channel, prior)
    c = c[p > 0]
    p_u = p[p > 0] @ c
    used = p_u > 0
    ratio = c[:, used] / p_u[used]
    if np.any(ratio <= 0):
        return float("inf")
    return float(np.abs(np.log(ratio)).max())


def information_privacy_implications(channel, prior) -> dict:
    """Theorem 3 [statistical-inference] on a channel: eps-IP => 2 eps-DP (every pair of inputs in the prior's
    support) and average leakage I(S; U) <= eps nats.

    Returns ``{"eps_ip", "eps_dp", "average_leakage", "max_divergence_posterior"}``, the last being
    max_u D(p_{S|U=u} || p_S) (<= eps_ip, the per-output form of the proof).
    """
    from leakage.measures.dp import ldp_epsilon
    from leakage.validation import check_channel_prior

    c, p = check_channel_prior(channel, prior)
    eps = information_privacy_epsilon(c, p)
    c, p = c[p > 0], p[p > 0]
    p_u = p @ c
    used = p_u > 0
    post = p[:, None] * c[:, used] / p_u[used]
    return {
        "eps_ip": eps,
        "eps_dp": ldp_epsilon(c),  # unused outputs are all-zero columns, ignored
        "average_leakage": mutual_information(c, p),
        "max_divergence_posterior": float(rel_entr(post, p[:, None]).sum(axis=0).max()),
    }
