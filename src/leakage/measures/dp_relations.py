"""Differential privacy measured three ways (eps-DP, KL-DP, MI-DP) and the bounds relating them.

Cuff & Yu, "Differential privacy as a mutual information constraint" [mi-dp].

Mechanisms. A mechanism on a database of ``n`` entries with finite alphabets ``X_1, ..., X_n`` is
an array ``channel[x_1, ..., x_n, y] = P(Y = y | X = (x_1, ..., x_n))`` of shape
``(|X_1|, ..., |X_n|, |Y|)``. A 2-D array ``channel[x, y]`` is a single-entry database (n = 1), for
which every pair of inputs are neighbours (Definition 3) and the measures below reduce to the
channel's local measures (e.g. MI-DP = channel capacity).

Neighbours (Definition 3) differ in exactly one entry ``i``. Fixing the other entries
``x^{-i}`` leaves the *row-restricted channel* ``W_{i, x^{-i}}[x_i, y]`` (``neighbour_channels``):
every measure that is defined over neighbouring pairs is a maximum over these channels.

* eps-DP (Definition 5): ``dp_epsilon`` = max over neighbours of D_inf, i.e. the LDP epsilon of
  each row-restricted channel (``leakage.measures.dp.ldp_epsilon``).
* KL-DP (Definition 7, eq. 14): ``kl_dp_level`` = max over neighbours of D(P_{Y|x} || P_{Y|x'}).
* MI-DP (Definition 2, eq. 2): ``mi_dp_level`` = sup_{P_X} max_i I(X_i; Y | X^{-i}). What is
  implemented, exactly: I(X_i; Y | X^{-i}) = sum_{x^{-i}} P(x^{-i}) I(X_i; Y | X^{-i} = x^{-i}), and
  given X^{-i} = x^{-i} the output is the row-restricted channel applied to X_i, so each term is at
  most the capacity C(W_{i, x^{-i}}); a database distribution with X^{-i} = x^{-i} fixed and X_i
  capacity-achieving attains it. Hence the supremum over *all* database distributions (correlated
  or not) equals max_i max_{x^{-i}} C(W_{i, x^{-i}}), computed by Blahut-Arimoto
  (``leakage.measures.information.channel_capacity``). Cost: n * prod|X_j| / |X_i| capacities, so it is
  meant for small databases (a few entries, small alphabets).
* (0, delta)-DP (Definition 6 with eps = 0): ``delta_dp_level`` = max over neighbours of the total
  variation distance (Property 3 / eq. 8).

Relations: Property 1 (``kl_dp_bound``, ``kl_dp_bound_relaxed``), Lemma 1 (``dp_sandwich``),
Lemma 2 (``delta_from_mi_dp``, ``delta_from_mi_dp_relaxed``). Examples: binary randomized response
(``leakage.measures.dp.randomized_response`` with N = 2), Example 3.3 (``erasure_channel``, ``erasure_channel_capacity``).
All quantities are in nats.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Iterator

import numpy as np
from scipy.special import rel_entr

from leakage.measures.dp import ldp_epsilon
from leakage.measures.information import binary_entropy_inverse, channel_capacity, total_variation
from leakage.validation import (
    check_tolerance,
    check_channel,
    check_count,
    check_epsilon,
    check_probability,
    check_scalar,
    check_array_size,
)

LOG2 = math.log(2.0)


# ----------------------------------------------------------------------------- mechanisms


def check_mechanism(channel, name: str = "channel") -> np.ndarray:
    """Return ``channel`` as a float array of shape ``(|X_1|, ..., |X_n|, |Y|)`` (n >= 1) after
    checking that every database's output distribution sums to one (a stochastic matrix)."""
    from leakage.validation import _float_array

    arr = _float_array(channel, name)
    if arr.ndim < 2:
        raise ValueError(
            f"{name} must have at least 2 dimensions (database entries..., output), got shape {arr.shape}"
        )
    flat = check_channel(arr.reshape(-1, arr.shape[-1]), name=name)
    return flat.reshape(arr.shape)


def neighbour_channels(channel) -> Iterator[tuple[int, tuple[int, ...], np.ndarray]]:
    """Yield ``(i, x_rest, W)``: for each entry ``i`` and each value ``x_rest`` of the other entries,
    the row-restricted channel ``W[x_i, y] = P(y | x_i, x^{-i} = x_rest)``; its rows are pairwise
    neighbours (Definition 3, [mi-dp]). A 2-D channel yields itself once (``i = 0``, ``x_rest = ()``).
    """
    m = check_mechanism(channel)
    sizes = m.shape[:-1]
    for i in range(len(sizes)):
        moved = np.moveaxis(m, i, -2)  # (..., |X_i|, |Y|) with the other entries in front
        for x_rest in itertools.product(*(range(s) for s in moved.shape[:-2])):
            yield i, x_rest, moved[x_rest]


def erasure_channel(alphabet_size, erasure_prob) -> np.ndarray:
    """Example 3.3 [mi-dp, eq. 36]: Y = X with probability 1 - e, Y = erasure with probability e.

    Shape ``(|X|, |X| + 1)``, the last column is the erasure symbol; |X| >= 2, e in [0, 1]."""
    k = check_count(alphabet_size, "alphabet_size", low=2)
    check_array_size((k, k + 1), "alphabet_size")
    e = check_probability(erasure_prob, "erasure_prob", open_low=False)
    w = np.zeros((k, k + 1))
    w[np.arange(k), np.arange(k)] = 1.0 - e
    w[:, k] = e
    return w


def erasure_channel_capacity(alphabet_size, erasure_prob) -> float:
    """Capacity of the erasure channel, C = (1 - e) log |X| nats [mi-dp, Example 3.3, eq. 37];
    |X| >= 2, e in [0, 1]. This is also its MI-DP level as a single-entry mechanism."""
    k = check_count(alphabet_size, "alphabet_size", low=2)
    e = check_probability(erasure_prob, "erasure_prob", open_low=False)
    return (1.0 - e) * math.log(k)


# ----------------------------------------------------------------------------- measures


def dp_epsilon(channel) -> float:
    """Smallest eps with eps-DP [mi-dp, Definitions 1, 4, 5]: max over neighbouring databases
    x ~ x' of D_inf(P_{Y|x} || P_{Y|x'}) = max_{i, x^{-i}} ldp_epsilon(W_{i, x^{-i}}), nats, in
    [0, inf]."""
    return max(ldp_epsilon(w) for _, _, w in neighbour_channels(channel))


def kl_dp_level(channel) -> float:
    """Smallest eps with eps-KL-DP [mi-dp, Definition 7, eq. 14]: max over neighbouring
    databases x ~ x' of D(P_{Y|x} || P_{Y|x'}), nats, in [0, inf]."""
    best = 0.0
    for _, _, w in neighbour_channels(channel):
        d = rel_entr(w[:, None, :], w[None, :, :]).sum(axis=-1)  # d[a, b] = D(W_a || W_b)
        best = max(best, float(d.max()))
    return best


def delta_dp_level(channel) -> float:
    """Smallest delta with (0, delta)-DP [mi-dp, Definition 6 at eps = 0, eq. 8]: max over
    neighbouring databases of TV(P_{Y|x}, P_{Y|x'}), in [0, 1]."""
    best = 0.0
    for _, _, w in neighbour_channels(channel):
        for a, b in itertools.combinations(range(w.shape[0]), 2):
            best = max(best, total_variation(w[a], w[b]))
    return best


def mi_dp_level(channel, *, tol: float = 1e-12) -> float:
    """Smallest eps with eps-MI-DP [mi-dp, Definition 2, eq. 2], nats:
    sup_{P_X} max_i I(X_i; Y | X^{-i}) = max_{i, x^{-i}} C(W_{i, x^{-i}}) (see the module docstring
    for why the supremum is this maximum of capacities). For a single-entry database (2-D channel)
    it is the channel capacity. Values in [0, log min(|X_i|, |Y|)]; Blahut-Arimoto to ``tol``."""
    tol = check_tolerance(tol)
    return max(channel_capacity(w, tol=tol)[0] for _, _, w in neighbour_channels(channel))


# ----------------------------------------------------------------------------- relations


def kl_dp_bound(eps):
    """Property 1 [mi-dp, tight]: eps-closeness implies D(P || Q) <= eps tanh(eps / 2)
    = eps (e^eps - 1) / (e^eps + 1) nats; eps >= 0 (inf gives inf). Tight for the binary
    randomized response pair (Appendix A)."""
    eps = check_epsilon(eps)
    return eps * math.tanh(eps / 2.0)


def kl_dp_bound_relaxed(eps):
    """Property 1's relaxation [mi-dp, eq. 82]: eps tanh(eps / 2) <= eps^2 / 2 nats; eps >= 0."""
    eps = check_epsilon(eps)
    return eps * eps / 2.0


def delta_from_mi_dp(eps_mi) -> float:
    """Lemma 2, tight form [mi-dp, eq. 28]: eps-MI-DP implies (0, delta)-DP with
    delta = 1 - 2 h^{-1}(log 2 - eps_mi), h^{-1} the inverse of the increasing part of the binary
    entropy in nats; eps_mi in (0, log 2] nats (beyond log 2 the implication is vacuous, delta = 1).
    Achieved by the binary symmetric channel with crossover h^{-1}(log 2 - eps_mi) (Appendix C)."""
    eps_mi = check_scalar(eps_mi, "eps_mi", low=0.0, high=LOG2, low_inclusive=False)
    return 1.0 - 2.0 * binary_entropy_inverse(max(0.0, LOG2 - eps_mi))


def delta_from_mi_dp_relaxed(eps_mi) -> float:
    """Lemma 2, relaxed form [mi-dp, eq. 27]: eps-MI-DP implies (0, delta)-DP with
    delta = sqrt(2 eps_mi); eps_mi >= 0 nats. Only informative (delta < 1) for eps_mi < 1/2."""
    eps_mi = check_scalar(eps_mi, "eps_mi", low=0.0)
    return math.sqrt(2.0 * eps_mi)


@dataclass(frozen=True)
class DPSandwich:
    """Lemma 1 on one mechanism: the measured levels and the bound Property 1 puts between them."""

    eps_dp: float  #: smallest eps with eps-DP
    kl_bound: float  #: eps_dp tanh(eps_dp / 2), the KL-DP level eps-DP guarantees (eq. 21)
    kl_dp: float  #: the mechanism's KL-DP level (max KL over neighbours)
    mi_dp: float  #: the mechanism's MI-DP level (Definition 2)

    def holds(self, tol: float = 1e-9) -> bool:
        """Whether mi_dp <= kl_dp <= kl_bound <= eps_dp (up to ``tol`` nats), Lemma 1 (eq. 23)."""
        return (
            self.mi_dp <= self.kl_dp + tol
            and self.kl_dp <= self.kl_bound + tol
            and self.kl_bound <= self.eps_dp + tol
        )


def dp_sandwich(channel) -> DPSandwich:
    """Lemma 1 [mi-dp, eqs. 21-23] measured on a mechanism: eps-DP => (eps tanh(eps/2))-KL-DP
    => (eps tanh(eps/2))-MI-DP, so mi_dp <= kl_dp <= kl_bound(eps_dp) <= eps_dp (nats)."""
    m = check_mechanism(channel)
    eps = dp_epsilon(m)
    return DPSandwich(eps_dp=eps, kl_bound=kl_dp_bound(eps), kl_dp=kl_dp_level(m), mi_dp=mi_dp_level(m))
