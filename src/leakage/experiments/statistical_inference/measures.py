"""Distortion and leakage of a given channel [statistical-inference], in nats: the expected
distortion E d(Y, U) (Definition 2), the average information leakage I(S; U) (Definition 3) and the
maximum information leakage max_u H(S) - H(S | U=u) (Definition 4). The setting and argument
conventions are those of :mod:`leakage.experiments.statistical_inference.common`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

from leakage.experiments.statistical_inference.common import check_distortion, check_joint
from leakage.measures.information import entropy, mutual_information
from leakage.validation import check_channel, check_distribution


def expected_distortion(channel, prior_y, distortion_measure) -> float:
    """E d(Y, U) = sum_{y,u} p(y) p(u|y) d(y, u) (Calmon & Fawaz, [statistical-inference], Definition 2, (6)).

    Units of d; ``channel[y, u] = p(u|y)`` row-stochastic, ``prior_y`` a distribution on Y.
    """
    m = check_channel(channel, "channel")
    p = check_distribution(prior_y, "prior_y")
    d = check_distortion(distortion_measure, p.size)
    if m.shape != d.shape:
        raise ValueError(f"channel has shape {m.shape} but distortion_measure has shape {d.shape}")
    return float(p @ (m * d).sum(axis=1))


def _release_joint(channel, joint) -> np.ndarray:
    """p(s, u) = sum_y p(s, y) p(u|y) [statistical-inference, (16)-(17)]."""
    m = check_channel(channel, "channel")
    j = check_joint(joint)
    if m.shape[0] != j.shape[1]:
        raise ValueError(f"channel has {m.shape[0]} rows but joint has {j.shape[1]} values of Y")
    return j @ m


def average_information_leakage(channel, joint) -> float:
    """Average information leakage I(S; U) = E_U D(p_{S|U} || p_S), nats [statistical-inference, Def. 3, (9)].

    ``channel[y, u] = p(u|y)``, ``joint[s, y] = p(s, y)``; S -> Y -> U. Range [0, H(S)].
    """
    su = _release_joint(channel, joint)
    p_s = su.sum(axis=1)
    keep = p_s > 0
    return mutual_information(su[keep] / p_s[keep, None], p_s[keep])


def maximum_information_leakage(channel, joint) -> float:
    """Maximum information leakage max_{u: p(u)>0} H(S) - H(S|U=u), nats [statistical-inference, Def. 4].

    ``channel[y, u] = p(u|y)``, ``joint[s, y] = p(s, y)``. Range [0, H(S)] (>= I(S; U)).
    """
    su = _release_joint(channel, joint)
    p_s, p_u = su.sum(axis=1), su.sum(axis=0)
    used = p_u > 0
    post = su[:, used] / p_u[used]
    h_post = -xlogy(post, post).sum(axis=0)
    return float(max(0.0, entropy(p_s) - h_post.min()))
