"""The binary Laplace experiment on Adult features [empirical-pml, Section VI-C1].

Each iteration shuffles the records, takes the first m, estimates P̂ from them (13), picks a
Laplace scale b per setting (method, eps, delta), perturbs the m bits with Laplace noise (47),
thresholds at 0 (66) and computes the empirical mutual information (67) between true and released
bits.

Settings are ``(method, eps, delta)``: ``"pml"`` solves (50) for b (:func:`laplace_scale_for`'s
closed form, falling back to the LDP scale where p̂_min - beta*(delta)/2 <= 0); ``"ldp"`` uses
b = 2/eps (delta = 0).

Common random numbers: at a given (m, iteration) every setting sees the same shuffle and the same
noise. Two equivalent ways to draw the released bits:

* ``"per_record"`` (literal): one standard Laplace draw Z_j per record, L_j = b Z_j for every
  scale b; the release is the sign of x_j + b Z_j.
* ``"fast"``: only the 2x2 table (true bit, released bit) matters, and a bit flips independently
  with probability pi(b) = 1/2 e^{-1/b}, the event {Z_j >= 1/b} (x = -1) or {Z_j < -1/b} (x = +1),
  nested in b. The numbers of flips under the sorted flip probabilities pi_1 <= ... <= pi_K of the
  settings are drawn as sequential binomials, K_1 ~ Bin(n, pi_1),
  K_k - K_{k-1} ~ Bin(n - K_{k-1}, (pi_k - pi_{k-1}) / (1 - pi_{k-1})): exactly the joint law of
  the per-record flip counts, in O(K) draws instead of O(m K).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from leakage.estimation.concentration import beta_star, sample_sizes  # noqa: F401 (sample_sizes: used here and re-exported)
from leakage.measures.information import empirical_mutual_information_counts
from leakage.mechanisms.additive import (
    ball_min_probability,
    laplace_flip_probability,
    laplace_ldp_scale,
    laplace_mechanism,
    laplace_scale,
    threshold_release,
)
from leakage.validation import (
    MAX_POINTS,
    check_array,
    check_array_size,
    check_choice,
    check_count,
    check_epsilon,
    check_list,
    check_probability,
    check_rng,
)

METHODS = ("pml", "ldp")
PATHS = ("fast", "per_record")


@dataclass(frozen=True)
class Setting:
    """One curve: ``method`` pml (delta in (0, 1]) or ldp (delta = 0), privacy ``eps`` > 0 in nats."""

    method: str
    eps: float
    delta: float

    def __post_init__(self):
        check_choice(self.method, "method", METHODS)
        check_epsilon(self.eps)
        if self.eps <= 0 or self.eps == float("inf"):
            raise ValueError(f"eps must be in (0, inf), got {self.eps!r}")
        if self.method == "pml":
            check_probability(self.delta, "delta")
        elif self.delta != 0:
            raise ValueError(f"delta must be 0 in an ldp setting, got {self.delta!r}")


def _settings(settings) -> list:
    """A non-empty list of :class:`Setting` (the curves)."""
    def one(value, name):
        if not isinstance(value, Setting):
            raise TypeError(f"{name} must be a Setting(method, eps, delta), got {value!r:.100}")
        return value

    return check_list(settings, "settings", one)


def _bits(bits) -> np.ndarray:
    """The feature as a non-empty 1-D array of -1/+1."""
    b = check_array(bits, "bits", ndim=1)
    if not np.all(np.isin(b, (-1, 1))):
        raise ValueError("bits must be a 1-D array of -1/+1")
    return b.astype(np.int64)


def _m_values(m_values, n_records: int | None = None) -> np.ndarray:
    """Sample sizes: a non-empty list of integers >= 1 (<= the number of records)."""
    m = np.asarray(check_list(m_values, "m_values", check_count), dtype=np.int64)
    if n_records is not None and m.max() > n_records:
        raise ValueError(f"m_values must be <= the number of records {n_records}, got {int(m.max())}")
    return m


def scales(settings, p_hat, m) -> np.ndarray:
    """The Laplace scale of every setting for estimates ``p_hat`` = P̂(x1) from ``m`` samples.

    ``p_hat`` and ``m`` broadcast together (shape S); returns shape S + (len(settings),).
    ``settings``: a list of :class:`Setting`; ``p_hat`` in [0, 1]; ``m`` integers >= 1.
    """
    settings = _settings(settings)
    p_hat = check_array(p_hat, "p_hat", low=0.0, high=1.0)
    m_arr = check_array(m, "m", low=1.0)
    if not np.all(m_arr == np.round(m_arr)):
        raise ValueError("m must hold integers >= 1 (sample sizes)")
    try:
        m = np.broadcast_to(m_arr.astype(np.int64), p_hat.shape)
    except ValueError:
        raise ValueError(f"p_hat and m must have the same shape (or m a scalar), got {p_hat.shape} and {m_arr.shape}") from None
    p_hat_min = np.minimum(p_hat, 1.0 - p_hat)
    out = np.empty(p_hat.shape + (len(settings),))
    for k, s in enumerate(settings):
        if s.method == "ldp":
            out[..., k] = laplace_ldp_scale(s.eps)
        else:
            m_unique, inverse = np.unique(m, return_inverse=True)
            beta = np.array([beta_star(s.delta, int(v)) for v in m_unique])[inverse].reshape(m.shape)
            out[..., k] = laplace_scale(s.eps, ball_min_probability(p_hat_min, beta))
    return out


def first_m_counts(bits, m_values, iterations: int, rng: np.random.Generator) -> np.ndarray:
    """n1[i, j] = number of x1 = -1 among the first m_j records of shuffle i (one shuffle per iteration)."""
    bits = _bits(bits)
    m_values = _m_values(m_values, bits.size)
    iterations = check_count(iterations, "iterations", high=MAX_POINTS)
    check_rng(rng)
    check_array_size((iterations, m_values.size), "iterations")
    out = np.empty((iterations, m_values.size), dtype=np.int64)
    minus = (bits == -1).astype(np.int32)
    for i in range(iterations):
        c = np.cumsum(minus[rng.permutation(bits.size)])
        out[i] = c[m_values - 1]
    return out


def nested_flip_counts(n, flip_prob, rng: np.random.Generator) -> np.ndarray:
    """Flip counts of n records under each flip probability, with common random numbers.

    ``n`` shape S (integers), ``flip_prob`` shape S + (K,) in [0, 1/2]; returns shape S + (K,): the
    number of records j with U_j < pi_k for one set of uniforms U_j per record, drawn as sequential
    binomials over the sorted pi (module docstring).
    """
    n_arr = check_array(n, "n", low=0.0, empty=True)
    if not np.all(n_arr == np.round(n_arr)) or np.any(n_arr > 2**62):
        raise ValueError("n must hold integer record counts >= 0")
    n = n_arr.astype(np.int64)
    pi = check_array(flip_prob, "flip_prob", low=0.0, high=0.5)
    if pi.ndim == 0 or pi.shape[:-1] != n.shape:
        raise ValueError(f"flip_prob must have shape n.shape + (K,) = {n.shape} + (K,), got {pi.shape}")
    check_rng(rng)
    order = np.argsort(pi, axis=-1, kind="stable")
    sorted_pi = np.take_along_axis(pi, order, axis=-1)
    counts = np.empty(sorted_pi.shape, dtype=np.int64)
    done = np.zeros(n.shape, dtype=np.int64)
    prev = np.zeros(n.shape)
    for k in range(sorted_pi.shape[-1]):
        cur = sorted_pi[..., k]
        cond = np.clip((cur - prev) / (1.0 - prev), 0.0, 1.0)
        done = done + rng.binomial(n - done, cond)
        counts[..., k] = done
        prev = cur
    out = np.empty_like(counts)
    np.put_along_axis(out, order, counts, axis=-1)
    return out


def _tables_fast(n1, m, b, rng):
    """2x2 tables (..., K, 2, 2), rows x = -1/+1, columns released -1/+1, by binomial flips."""
    pi = laplace_flip_probability(b)
    n2 = m - n1
    flips1 = nested_flip_counts(n1, pi, rng)  # x = -1 records released as +1
    flips2 = nested_flip_counts(n2, pi, rng)  # x = +1 records released as -1
    n1k = n1[..., None]
    n2k = n2[..., None]
    return np.stack(
        [np.stack([n1k - flips1, flips1], axis=-1), np.stack([flips2, n2k - flips2], axis=-1)], axis=-2
    )


def _tables_per_record(x, b, rng):
    """2x2 tables (K, 2, 2) of the m records ``x`` released through Y = x + b_k Z (one Z per record)."""
    z = rng.laplace(0.0, 1.0, size=x.size)  # common noise: L = b Z for every scale b
    # b = 0 (eps beyond eps_max of the whole ball): no noise is needed, the bit is released as is
    rel = np.stack([threshold_release(laplace_mechanism(x, bk, rng, noise=z) if bk > 0 else x) for bk in b])
    minus = x == -1
    t = np.empty((b.size, 2, 2), dtype=np.int64)
    t[:, 0, 0] = np.sum(rel[:, minus] == -1, axis=1)
    t[:, 0, 1] = minus.sum() - t[:, 0, 0]
    t[:, 1, 0] = np.sum(rel[:, ~minus] == -1, axis=1)
    t[:, 1, 1] = (~minus).sum() - t[:, 1, 0]
    return t


def simulate(bits, m_values, settings, iterations: int, rng: np.random.Generator, *, path: str = "fast"):
    """Run the experiment; returns ``(b, mi)`` arrays of shape (iterations, len(m_values), len(settings)).

    ``bits``: the feature in {-1, +1} (all records); ``path``: ``"fast"`` or ``"per_record"``.
    """
    check_choice(path, "path", PATHS)
    bits = _bits(bits)
    settings = _settings(settings)
    iterations = check_count(iterations, "iterations", high=MAX_POINTS)
    m_values = _m_values(m_values, bits.size)
    check_rng(rng)
    if path == "fast":
        n1 = first_m_counts(bits, m_values, iterations, rng)
        m = np.broadcast_to(m_values, n1.shape)
        b = scales(settings, n1 / m, m)
        tables = _tables_fast(n1, m, b, rng)
        return b, empirical_mutual_information_counts(tables)
    b = np.empty((iterations, m_values.size, len(settings)))
    mi = np.empty_like(b)
    for i in range(iterations):
        perm = rng.permutation(bits.size)
        for j, m in enumerate(m_values):
            x = bits[perm[:m]].astype(float)
            p_hat = np.count_nonzero(x == -1) / m
            b[i, j] = scales(settings, p_hat, m)
            mi[i, j] = empirical_mutual_information_counts(_tables_per_record(x, b[i, j], rng))
    return b, mi


def summarize(feature: str, m_values, settings, b, mi) -> pd.DataFrame:
    """Tidy rows ``feature,method,eps,delta,m,b_mean,mi_mean,mi_std`` (mean and sample std over iterations).
    ``b``, ``mi``: arrays of shape (iterations, len(m_values), len(settings)), as :func:`simulate` returns."""
    if not isinstance(feature, str) or not feature:
        raise TypeError(f"feature must be a feature name (a string), got {feature!r:.100}")
    m_values = _m_values(m_values)
    settings = _settings(settings)
    b = check_array(b, "b", ndim=3, low=0.0)
    mi = check_array(mi, "mi", ndim=3, low=0.0, high=np.log(2.0) + 1e-9)  # MI of a binary feature
    shape = (mi.shape[0], m_values.size, len(settings))
    for name, arr in (("b", b), ("mi", mi)):
        if arr.shape != shape:
            raise ValueError(f"{name} must have shape (iterations, len(m_values), len(settings)) = {shape}, got {arr.shape}")
    rows = []
    n_it = mi.shape[0]
    for k, s in enumerate(settings):
        for j, m in enumerate(m_values):
            rows.append(
                {
                    "feature": feature,
                    "method": s.method,
                    "eps": s.eps,
                    "delta": s.delta,
                    "m": int(m),
                    "b_mean": float(b[:, j, k].mean()),
                    "mi_mean": float(mi[:, j, k].mean()),
                    "mi_std": float(mi[:, j, k].std(ddof=1)) if n_it > 1 else 0.0,
                }
            )
    return pd.DataFrame(rows)
