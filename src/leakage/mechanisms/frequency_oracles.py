"""The standard LDP frequency oracles of [wang2017], GRR, OUE and OLH, subset selection [ye2018]
and Hadamard response [acharya2019], each with its client (perturb every record), its server
(support counts, the unbiased estimate) and its variance.

All five are *pure* protocols [wang2017]: a report supports a set of values; it supports the
reporter's own value with probability ``p`` and any other given value with probability ``q < p``.
From the support counts ``S_v`` of m reports the standard estimate of the frequency of v is
``f_hat_v = (S_v / m - q) / (p - q)`` (unbiased; the estimates need not sum to one exactly, and
may be negative). The protocols, with k categories and eps in nats:

* ``grr``, generalised (k-ary) randomized response, a.k.a. direct encoding: the report is the
  value kept with probability ``p = e^eps / (e^eps + k - 1)``, else one of the k - 1 others
  uniformly; its channel is :func:`leakage.measures.dp.randomized_response`. It supports only
  itself: ``q = 1 / (e^eps + k - 1)``; its estimates sum to one.
* ``oue``, optimised unary encoding: the value one-hot encoded as k bits, the 1 kept with
  probability ``p = 1/2``, every 0 flipped to 1 with probability ``q = 1 / (e^eps + 1)``; a
  report supports the values whose bit is 1.
* ``olh``, optimised local hashing: each record draws a hash function ``H`` from a family mapping
  [k] to [g] (its seed is reported), and reports ``H(v)`` through GRR on g values:
  ``p = e^eps / (e^eps + g - 1)``; it supports every value hashing to the reported one,
  ``q = 1 / g`` (another value collides with probability 1/g). ``g = round(e^eps) + 1``, the
  optimum of [wang2017] (``e^eps + 1`` rounded; pure-ldp and multi-freq-ldpy use the same). The
  hash is :func:`olh_hash`.
* ``ss``, subset selection [ye2018]: the report is a set of ``d = max(1, round(k / (e^eps + 1)))``
  categories, drawn with probability proportional to e^eps if it contains the value, 1 if not: it
  contains the value with probability ``p = d e^eps / (d e^eps + k - d)``, another given value with
  ``q = d ((d - 1) e^eps + k - d) / ((k - 1)(d e^eps + k - d))`` (multi-freq-ldpy's d and q). At
  d = 1 it is GRR.
* ``hr``, Hadamard response [acharya2019] (its basic scheme, the one for every eps; pure-ldp's
  ``Hadamard_Rand_high_priv``, which pure-ldp uses at eps <= 1 only): K = the smallest power of
  two above k, H the K x K Sylvester Hadamard matrix (``H[i, j] = (-1)^popcount(i & j)``); value v
  has the K/2 codewords ``C_v = {y : H[v + 1, y] = +1}`` (row 0, all ones, is skipped), and the
  report is an output y in [0, K), uniform on ``C_v`` with probability ``p = e^eps / (e^eps + 1)``
  and uniform on its complement otherwise. It supports every value whose codewords hold it: two
  rows of H agree on half the columns, so ``q = 1/2``. Its channel is
  :func:`hadamard_response_channel`. (Above eps = 1 pure-ldp switches to [acharya2019]'s
  general-privacy scheme, which splits the outputs into blocks, their number growing with e^eps;
  not implemented here.)

Variance with the m records fixed (histogram f) -- the setting of a release of given data: the
supports of different records are independent, so ``Var f_hat_v = (f_v p (1 - p) + (1 - f_v)
q (1 - q)) / (m (p - q)^2)`` exactly, ``= q (1 - q) / (m (p - q)^2) + f_v (1 - p - q) / (m (p - q))``
[wang2017]. [wang2017] drops the second, f-dependent term ("f_v is small"):
:func:`oracle_approximate_variance`. With records drawn iid from f, each support is Bernoulli(f_v p
+ (1 - f_v) q) and the variance gains ``f_v (1 - f_v) / m``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from leakage.estimation.frequency import RECORDS, FrequencyEstimate, fisher_information
from leakage.measures.dp import randomized_response, randomized_response_probabilities
from leakage.mechanisms.release import channel_output_counts
from leakage.validation import (
    check_array_size,
    check_count,
    check_counts,
    check_distribution,
    check_indices,
    check_rng,
    check_scalar,
)

#: The protocols (``FrequencyOracle.name``).
ORACLES = ("grr", "oue", "olh", "ss", "hr")
#: Most categories an oracle takes (indices stay exact in int64 arithmetic and float64).
MAX_CATEGORIES = 2**31
#: Largest output alphabet K of Hadamard response whose support counts are computed by a fast
#: Walsh-Hadamard transform of the output histogram (beyond it, per category over the distinct outputs).
_FWHT_MAX = 2**22
#: Largest OLH hash range g (eps up to about 21.4 nats): the hash values must stay exact integers.
MAX_HASH_RANGE = 2**31

# SplitMix64 constants (the golden-ratio increment and the two multipliers of its finaliser).
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def olh_hash_range(eps) -> int:
    """OLH's hash range g = round(e^eps) + 1, the variance-optimal ``e^eps + 1`` of [wang2017]
    rounded to an integer (as pure-ldp and multi-freq-ldpy round it). eps > 0 in nats; g is at
    most ``MAX_HASH_RANGE`` (eps up to about 21.4)."""
    eps = check_scalar(eps, "eps", low=0.0, low_inclusive=False)
    if eps > math.log(MAX_HASH_RANGE - 1):
        raise ValueError(
            f"eps must be at most {math.log(MAX_HASH_RANGE - 1):.6g} nats for OLH (hash range "
            f"round(e^eps) + 1 <= 2**31), got {eps!r}; at such eps GRR is as accurate"
        )
    return int(round(math.exp(eps))) + 1


def olh_hash(seeds, values, hash_range) -> np.ndarray:
    """The OLH hash family: ``H_s(v)`` = the (v + 1)-th output of the SplitMix64 generator
    [steele2014] seeded with s, modulo ``hash_range``.

    SplitMix64's finaliser is a bijective mixer of 64-bit words whose outputs pass the standard
    randomness batteries; over a uniform seed, ``H_s(v)`` is uniform on [0, g) up to a modulo bias
    below g / 2^64, and two values collide with probability 1/g to within that bias (checked by
    the tests). ``seeds``: uint64 (or non-negative integers below 2^64); ``values``: integers
    >= 0; broadcast together. Vectorised, O(size)."""
    g = check_count(hash_range, "hash_range", low=1)
    if g > MAX_HASH_RANGE:
        raise ValueError(f"hash_range must be at most {MAX_HASH_RANGE}, got {g}")
    s = _as_seeds(seeds)
    v = np.asarray(values)
    if v.dtype == bool or v.dtype.kind not in "iu" or (v.size and int(v.min()) < 0):
        raise TypeError(f"values must be integers >= 0, got dtype {v.dtype}")
    try:
        shape = np.broadcast_shapes(s.shape, v.shape)
    except ValueError as exc:
        raise ValueError(f"seeds {s.shape} and values {v.shape} must broadcast together") from exc
    check_array_size(shape, "values")
    with np.errstate(over="ignore"):  # arithmetic modulo 2^64 is the point
        z = s + (v.astype(np.uint64) + np.uint64(1)) * _GAMMA
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z = z ^ (z >> np.uint64(31))
    return np.asarray(z % np.uint64(g)).astype(np.int64)


def _as_seeds(seeds) -> np.ndarray:
    s = np.asarray(seeds)
    if s.dtype == np.uint64:
        return s
    if s.dtype == bool or s.dtype.kind not in "iu":
        raise TypeError(f"seeds must be unsigned 64-bit integers, got dtype {s.dtype}")
    if s.size and int(s.min()) < 0:
        raise ValueError(f"seeds must be integers in [0, 2**64), got {int(s.min())}")
    return s.astype(np.uint64)


@dataclass(frozen=True)
class FrequencyOracle:
    """One of the pure LDP frequency oracles of [wang2017] (``name`` in ``ORACLES``; ``ss``
    [ye2018], ``hr`` [acharya2019]) on ``n_categories`` = k categories (2 <= k <=
    ``MAX_CATEGORIES``) at ``eps`` > 0 nats (``inf`` allowed for grr, oue, ss and hr).

    ``p``: the probability that a report supports the reporter's own value; ``q``: that it
    supports a given other value; ``hash_range``: OLH's g, ``subset_size``: SS's d,
    ``hadamard_size``: HR's output alphabet K (None for the others). Built and checked from the
    three arguments: ``FrequencyOracle("oue", 5, 1.0)``.
    """

    name: str
    n_categories: int
    eps: float
    p: float = field(init=False)
    q: float = field(init=False)
    hash_range: int | None = field(init=False)
    subset_size: int | None = field(init=False)
    hadamard_size: int | None = field(init=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or self.name not in ORACLES:
            raise ValueError(f"name must be one of {ORACLES}, got {self.name!r}")
        k = check_count(self.n_categories, "n_categories", low=2)
        if k > MAX_CATEGORIES:
            raise ValueError(f"n_categories must be at most {MAX_CATEGORIES}, got {k}")
        eps = check_scalar(self.eps, "eps", low=0.0, low_inclusive=False)
        g = d = size = None
        if self.name == "grr":
            p, q = randomized_response_probabilities(k, eps)
        elif self.name == "oue":
            p, q = 0.5, math.exp(-eps) / (1.0 + math.exp(-eps))  # 1 / (e^eps + 1), 0 at inf
        elif self.name == "olh":
            g = olh_hash_range(eps)
            p = 1.0 / (1.0 + (g - 1) * math.exp(-eps))
            q = 1.0 / g
        elif self.name == "hr":
            size = _hadamard_size(k)
            p, q = 1.0 / (1.0 + math.exp(-eps)), 0.5  # e^eps / (e^eps + 1), 1 at inf
        else:
            d, p, q = _subset_selection(k, eps)
        object.__setattr__(self, "n_categories", k)
        object.__setattr__(self, "eps", eps)
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "q", q)
        object.__setattr__(self, "hash_range", g)
        object.__setattr__(self, "subset_size", d)
        object.__setattr__(self, "hadamard_size", size)


def _hadamard_size(k: int) -> int:
    """HR's output alphabet K = the smallest power of two above k (rows 1..k of the K x K Hadamard
    matrix, row 0 skipped) [acharya2019]."""
    return 1 << k.bit_length()


def _hadamard_parity(rows, outputs) -> np.ndarray:
    """popcount(row & output) mod 2 (broadcast): 0 where the Sylvester Hadamard matrix is +1."""
    a = np.bitwise_and(np.asarray(rows, dtype=np.int64), np.asarray(outputs, dtype=np.int64))
    return (np.bitwise_count(a) & 1).astype(np.int64)


def hadamard_response_channel(n_categories, eps) -> np.ndarray:
    """The channel of Hadamard response [acharya2019] (the ``hr`` oracle), k x K, K = the smallest
    power of two above k: ``P(y | x) = 2 e^eps / (K (e^eps + 1))`` if ``H[x + 1, y] = +1`` (y in
    C_x), ``2 / (K (e^eps + 1))`` otherwise, H the Sylvester Hadamard matrix. Every column holds
    two values whose ratio is e^eps (column 0, in every C_x, is constant): exactly eps-LDP. k >= 2,
    eps > 0 in nats (``inf``: uniform on C_x)."""
    k = check_count(n_categories, "n_categories", low=2)
    eps = check_scalar(eps, "eps", low=0.0, low_inclusive=False)
    size = _hadamard_size(k)
    check_array_size((k, size), "n_categories")
    off = math.exp(-eps)
    p, not_p = 1.0 / (1.0 + off), off / (1.0 + off)  # 1 - p without cancellation at large eps
    parity = _hadamard_parity(np.arange(1, k + 1)[:, None], np.arange(size)[None, :])
    return np.where(parity == 0, 2.0 * p / size, 2.0 * not_p / size)


def _subset_selection(k: int, eps: float) -> tuple[int, float, float]:
    """SS's subset size d = max(1, round(k / (e^eps + 1))) (half to even, as numpy's rint) and its
    p = d e^eps / (d e^eps + k - d), q = d ((d - 1) e^eps + k - d) / ((k - 1)(d e^eps + k - d)),
    divided through by e^eps for large eps [ye2018]."""
    off = math.exp(-eps)
    d = max(1, int(np.rint(k * off / (1.0 + off))))
    p = d / (d + (k - d) * off)
    q = d * ((d - 1) + (k - d) * off) / ((k - 1) * (d + (k - d) * off))
    return d, p, q


def _check_oracle(oracle) -> FrequencyOracle:
    if not isinstance(oracle, FrequencyOracle):
        raise TypeError(f"oracle must be a FrequencyOracle, got {type(oracle).__name__}")
    return oracle


def oracle_perturb(oracle, values, rng) -> np.ndarray:
    """The client: every record's report, each drawn independently with ``rng`` (a
    ``numpy.random.Generator``). ``values``: the m records' categories (integers in [0, k)).

    Reports: ``grr``, int64 (m,), the reported category; ``oue``, bool (m, k), the perturbed bits;
    ``olh``, uint64 (m, 2), column 0 the hash seed, column 1 the reported hash value in [0, g);
    ``ss``, int64 (m, d), the reported subset (distinct categories); ``hr``, int64 (m,), the output
    in [0, K). Vectorised: O(m) for grr, olh and hr, O(m k) for oue and O(m k log k) for ss
    (refused above 2 GiB).
    """
    oracle = _check_oracle(oracle)
    k = oracle.n_categories
    x = check_indices(values, "values", k, n_name="the oracle's categories")
    rng = check_rng(rng)
    m = x.size
    if oracle.name == "grr":
        # kept with probability p, else one of the k - 1 other categories uniformly
        keep = rng.random(m) < oracle.p
        return np.where(keep, x, (x + 1 + rng.integers(0, k - 1, size=m)) % k).astype(np.int64)
    if oracle.name == "oue":
        check_array_size((m, k), "values")
        bits = rng.random((m, k)) < oracle.q
        bits[np.arange(m), x] = rng.random(m) < oracle.p
        return bits
    if oracle.name == "ss":
        check_array_size((m, k), "values")
        d = oracle.subset_size
        keys = rng.random((m, k))
        keys[np.arange(m), x] = 2.0  # never among the d smallest: the others' keys are < 1
        subset = np.argsort(keys, axis=1)[:, :d]  # a uniform d-subset of the other categories
        contains = rng.random(m) < oracle.p
        subset[contains, d - 1] = x[contains]  # the value and a uniform (d-1)-subset of the others
        return subset.astype(np.int64)
    if oracle.name == "hr":
        # a uniform output; flipping the highest set bit of row x + 1 in it flips whether it lies in
        # C_x, so exactly one of the pair {y, y ^ top} is a codeword: that one w.p. p (pure-ldp's coupling)
        row = x + 1
        top = np.left_shift(1, np.frexp(row.astype(float))[1].astype(np.int64) - 1)  # row < 2^53: exact
        y = rng.integers(0, oracle.hadamard_size, size=m, dtype=np.int64)
        want = rng.random(m) < oracle.p
        return np.where((_hadamard_parity(row, y) == 0) == want, y, y ^ top)
    g = oracle.hash_range
    seeds = rng.integers(0, 2**64, size=m, dtype=np.uint64, endpoint=False)
    hashed = olh_hash(seeds, x, g)
    keep = rng.random(m) < oracle.p
    other = (hashed + 1 + rng.integers(0, g - 1, size=m)) % g
    out = np.empty((m, 2), dtype=np.uint64)
    out[:, 0] = seeds
    out[:, 1] = np.where(keep, hashed, other)
    return out


def oracle_support_counts(oracle, reports) -> np.ndarray:
    """The server's aggregation: ``S_v`` = how many reports support category v (int64, k entries).

    ``reports`` as :func:`oracle_perturb` returns them: ``grr`` the reported categories (S is their
    count), ``oue`` the (m, k) bits (S is the column sums), ``olh`` the (m, 2) seeds and hash values
    (S_v counts the reports whose hash of v equals the reported value: O(m k), memory O(m)), ``ss``
    the (m, d) subsets (S_v counts the subsets containing v), ``hr`` the outputs in [0, K) (S_v
    counts the outputs in C_v: ``(m + W_{v+1}) / 2`` for the Walsh-Hadamard transform W of the
    output histogram, O(m + K log K); above K = 2^22 per category over the distinct outputs u,
    O(m log m + k u)).
    """
    oracle = _check_oracle(oracle)
    k = oracle.n_categories
    if oracle.name == "grr":
        y = check_indices(reports, "reports", k, n_name="the oracle's categories")
        return np.bincount(y, minlength=k).astype(np.int64)
    if oracle.name == "hr":
        y = check_indices(reports, "reports", oracle.hadamard_size, n_name="Hadamard response's outputs")
        return _hadamard_supports(y, k, oracle.hadamard_size, _FWHT_MAX)
    if oracle.name == "ss":
        d = oracle.subset_size
        r = np.asarray(reports)
        if r.ndim != 2 or r.shape[1] != d or r.shape[0] == 0:
            raise ValueError(f"reports must be an (m, {d}) array of subsets with m >= 1, got shape {r.shape}")
        flat = check_indices(r.ravel(), "reports", k, n_name="the oracle's categories")
        if d > 1 and np.any(np.diff(np.sort(flat.reshape(r.shape), axis=1), axis=1) == 0):
            raise ValueError("reports must be subsets: a category appears twice in one report")
        return np.bincount(flat, minlength=k).astype(np.int64)
    r = np.asarray(reports)
    if oracle.name == "oue":
        if r.ndim != 2 or r.shape[1] != k or r.shape[0] == 0:
            raise ValueError(f"reports must be an (m, {k}) array of bits with m >= 1, got shape {r.shape}")
        if r.dtype != bool and (r.dtype.kind not in "iuf" or not np.all((r == 0) | (r == 1))):
            raise ValueError("reports must be bits (0/1 or bool) for oue")
        return r.astype(bool).sum(axis=0).astype(np.int64)
    if r.ndim != 2 or r.shape[1] != 2 or r.shape[0] == 0:
        raise ValueError(f"reports must be an (m, 2) array (seed, hash value) with m >= 1, got shape {r.shape}")
    seeds = _as_seeds(r[:, 0])
    reported = _as_seeds(r[:, 1])
    g = oracle.hash_range
    if int(reported.max()) >= g:
        raise ValueError(f"reports' hash values must be in [0, {g}), got {int(reported.max())}")
    reported = reported.astype(np.int64)
    return np.array([np.count_nonzero(olh_hash(seeds, v, g) == reported) for v in range(k)], dtype=np.int64)


def _hadamard_supports(y: np.ndarray, k: int, size: int, fwht_max: int) -> np.ndarray:
    """S_v = #{outputs y in C_v}, v < k, for HR outputs in [0, size): by the fast Walsh-Hadamard
    transform of the histogram (size <= fwht_max), else per category over the distinct outputs."""
    m = y.size
    if size <= fwht_max:
        w = np.bincount(y, minlength=size).astype(np.int64)
        h = 1
        while h < size:  # in-place butterflies: w becomes H w (Sylvester order)
            w = w.reshape(-1, 2, h)
            w = np.stack((w[:, 0] + w[:, 1], w[:, 0] - w[:, 1]), axis=1).reshape(-1)
            h *= 2
        return (m + w[1 : k + 1]) // 2
    outputs, counts = np.unique(y, return_counts=True)
    out = np.empty(k, dtype=np.int64)
    step = max(1, 2**22 // outputs.size)
    for start in range(0, k, step):
        rows = np.arange(start + 1, min(k, start + step) + 1)[:, None]
        out[start : start + rows.shape[0]] = (_hadamard_parity(rows, outputs[None, :]) == 0) @ counts
    return out


def oracle_sample_support_counts(oracle, value_counts, rng) -> np.ndarray:
    """The support counts of m = sum(value_counts) records (``value_counts[v]`` records with value
    v), drawn exactly from the protocol's distribution, fast where the protocol allows.

    ``grr``: the output counts, sum_v Multinomial(n_v, row v of the randomized-response channel)
    (:func:`leakage.mechanisms.release.channel_output_counts`, O(k^2)). ``oue``: the bits are
    independent given the records, so ``S_v ~ Binomial(n_v, p) + Binomial(m - n_v, q)``
    independently (O(k)). ``olh``: with the hash drawn from a family that maps the categories
    independently and uniformly into [g) (the model of [wang2017]'s variance), a report supports its
    own value with probability p and every other value with probability 1/g = q, independently of
    each other whichever hash value was reported, so ``S_v`` is again ``Binomial(n_v, p) +
    Binomial(m - n_v, q)`` (O(k)); the simulated reports of :func:`oracle_perturb` (seeded xxhash)
    agree with it in the tests. ``ss``: the supports of one report are dependent across categories
    (a fixed-size subset), so its reports are simulated per record (:func:`oracle_perturb`,
    vectorised) and counted, O(m k). ``hr``: one output supports about half the categories, so
    again per record, O(m + K log K).
    """
    oracle = _check_oracle(oracle)
    k = oracle.n_categories
    counts = check_counts(value_counts, "value_counts", size=k)
    rng = check_rng(rng)
    if oracle.name == "grr":
        return channel_output_counts(randomized_response(k, oracle.eps), counts, rng)
    if oracle.name in ("oue", "olh"):
        m = int(counts.sum())
        return (rng.binomial(counts, oracle.p) + rng.binomial(m - counts, oracle.q)).astype(np.int64)
    values = np.repeat(np.arange(k), counts)
    return oracle_support_counts(oracle, oracle_perturb(oracle, values, rng))


def _pure_variance(oracle: FrequencyOracle, f: np.ndarray, m: int) -> np.ndarray:
    """Var f_hat_v = (f_v p (1 - p) + (1 - f_v) q (1 - q)) / (m (p - q)^2), the m records fixed
    with histogram f [wang2017]: the supports are independent across records."""
    p, q = oracle.p, oracle.q
    return (f * p * (1.0 - p) + (1.0 - f) * q * (1.0 - q)) / (m * (p - q) ** 2)


def oracle_estimate(oracle, support_counts, m, *, confidence: float = 0.95) -> FrequencyEstimate:
    """The server's estimate ``f_hat_v = (S_v / m - q) / (p - q)`` from the support counts of m
    reports [wang2017], with standard errors and intervals.

    Unbiased for every category (the estimates sum to one for grr; for the others only in
    expectation; they may be negative). For hr, ``f_hat_v = (2 S_v / m - 1) (e^eps + 1) /
    (e^eps - 1)`` [acharya2019], pure-ldp's estimate (without its normalisation). Standard error:
    the fixed-records variance (:func:`oracle_variance`) is linear in f, so plugging in ``f_hat``
    estimates it without bias (negative values count as 0); interval ``f_hat ± z stderr`` at
    ``confidence``, not cut to [0, 1]. Frequencies, not counts (pure-ldp returns ``m f_hat``). ``method`` of the result is the
    oracle's name.
    """
    oracle = _check_oracle(oracle)
    k = oracle.n_categories
    m = check_count(m, "m", low=1)
    s = check_counts(support_counts, "support_counts", size=k, positive_total=False)
    if int(s.max()) > m:
        raise ValueError(f"support_counts must be at most m = {m} (one support per report), got {int(s.max())}")
    if oracle.name == "grr" and int(s.sum()) != m:
        raise ValueError(f"support_counts of grr must sum to m = {m} (one category per report), got {int(s.sum())}")
    confidence = check_scalar(confidence, "confidence", low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    estimate = (s / m - oracle.q) / (oracle.p - oracle.q)
    return FrequencyEstimate.from_variance(
        estimate, _pure_variance(oracle, estimate, m), m=m, confidence=confidence, method=oracle.name
    )


def _check_records(records) -> str:
    if not isinstance(records, str) or records not in RECORDS:
        raise ValueError(f"records must be one of {RECORDS}, got {records!r}")
    return records


def oracle_variance(oracle, prior, m=1, *, records: str = "fixed") -> np.ndarray:
    """Variance of the oracle's estimate of every category from m reports (k entries).

    ``records="fixed"``: the m records are fixed with histogram ``prior``, exactly
    ``(f_v p (1 - p) + (1 - f_v) q (1 - q)) / (m (p - q)^2)`` [wang2017] (the protocol's
    randomness only; the setting of a release of given data). ``records="iid"``: records drawn iid
    from ``prior``, each support Bernoulli(f_v p + (1 - f_v) q): the fixed-records variance plus
    ``f_v (1 - f_v) / m``. Frequencies (multiply by m^2 for counts). For hr (p = e^eps / (e^eps +
    1), q = 1/2 [acharya2019]) the fixed-records variance above is ``(1 + f_v (4 p (1 - p) - 1)) /
    (m (2p - 1)^2)``. That estimate is linear and unbiased for HR's channel but not its best one:
    the k x K channel (rank k) leaves a (K - k)-dimensional family of unbiased linear estimates,
    and the weighted estimate of :func:`leakage.estimation.frequency.estimate_frequencies` at the
    true output distribution has the variance of
    :func:`leakage.estimation.frequency.frequency_covariance`, at most this one per category and
    smaller in total in every case the tests try, k = K - 1 included.
    """
    oracle = _check_oracle(oracle)
    f = check_distribution(prior)
    if f.size != oracle.n_categories:
        raise ValueError(f"prior must have {oracle.n_categories} entries (the oracle's categories), got {f.size}")
    m = check_count(m, "m", low=1)
    records = _check_records(records)
    var = _pure_variance(oracle, f, m)
    return var if records == "fixed" else var + f * (1.0 - f) / m


def oracle_mse(oracle, prior, m=1, *, records: str = "fixed") -> float:
    """Total variance (mean squared error summed over the k categories) of the oracle's estimate
    from m reports: the sum of :func:`oracle_variance`. With the records fixed it is
    ``(p (1 - p) + (k - 1) q (1 - q)) / (m (p - q)^2)``, whatever the histogram."""
    return float(np.sum(oracle_variance(oracle, prior, m, records=records)))


def oracle_approximate_variance(oracle, m=1) -> float:
    """The per-category variance [wang2017] reports and optimises, ``q (1 - q) / (m (p - q)^2)``:
    the exact fixed-records variance (:func:`oracle_variance`) without its term
    ``f_v (1 - p - q) / (m (p - q))``, i.e. the exact variance of a category no record has. For
    oue (1 - p - q > 0) it understates every category's variance; summed over the categories it
    misses ``(1 - p - q) / (m (p - q))``."""
    oracle = _check_oracle(oracle)
    m = check_count(m, "m", low=1)
    p, q = oracle.p, oracle.q
    return q * (1.0 - q) / (m * (p - q) ** 2)


#: Gauss-Legendre nodes per panel of the quadrature of :func:`_laplace_nodes`.
_GL_NODES = 20


def _laplace_nodes(rate_max: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes t_k and weights w_k with sum_k w_k e^{-rho t_k} = 1 / rho to about 1e-14 relative for
    every rate rho in [1, rate_max]: composite Gauss-Legendre on [0, t0] and the geometric panels
    [t0 2^i, t0 2^(i+1)] up to t = 42 (e^-42 < 1e-18), t0 = 1 / (4 rate_max), so that every panel
    holds at most a few e-folds of the fastest exponential where it is not negligible."""
    x, w = np.polynomial.legendre.leggauss(_GL_NODES)
    edges = [0.0]
    t = 1.0 / (4.0 * rate_max)
    while t < 42.0:
        edges.append(t)
        t *= 2.0
    edges.append(max(t, 42.0))
    lo, hi = np.array(edges[:-1]), np.array(edges[1:])
    nodes = (lo[:, None] + hi[:, None]) / 2.0 + (hi - lo)[:, None] / 2.0 * x[None, :]
    weights = (hi - lo)[:, None] / 2.0 * w[None, :]
    return nodes.ravel(), weights.ravel()


def _divide_linear(e: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The coefficients c of the quotient e(u) / (1 + z u) (e has the factor; last axis the
    coefficients, z broadcast against the others): c_j = e_j - z c_{j-1} forward while
    z c_{j-1} <= e_j / 2, and c_{j-1} = (e_j - c_j) / z backward from the top beyond. Each
    recurrence damps its rounding errors where it is used (the coefficients of a product of
    positive linear factors are log-concave, so the forward ratio z c_{j-1} / e_j increases with j
    and crosses 1/2 once): every coefficient to a few ulps relative."""
    e = np.asarray(e, dtype=float)
    zz = np.asarray(z, dtype=float)[..., None]
    shape = np.broadcast_shapes(e.shape, zz.shape)
    e = np.broadcast_to(e, shape)
    deg = shape[-1] - 1
    fwd = np.zeros(shape)
    fwd[..., 0] = e[..., 0]
    for j in range(1, deg):
        fwd[..., j] = e[..., j] - zz[..., 0] * fwd[..., j - 1]
    back = np.zeros(shape)
    safe = np.maximum(zz[..., 0], 1e-300)
    back[..., deg - 1] = e[..., deg] / safe
    with np.errstate(over="ignore", invalid="ignore"):
        for j in range(deg - 1, 0, -1):
            back[..., j - 1] = (e[..., j] - back[..., j]) / safe
    ratio = np.zeros(shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio[..., 1:deg] = zz * np.abs(fwd[..., : deg - 1]) > 0.5 * e[..., 1:deg]
    ratio &= (zz > 1e-250)
    use_back = np.logical_or.accumulate(ratio, axis=-1)
    out = np.where(use_back, back, fwd)  # the backward values overflow only where unused
    out[..., deg] = 0.0
    return np.maximum(out, 0.0)


def subset_fisher_informations(prior, eps) -> np.ndarray:
    """The Fisher-type matrices J_d = C_d diag(q)^-1 C_d^T (records fixed, histogram ``prior``;
    :func:`leakage.estimation.frequency.fisher_information`) of subset selection [ye2018] with
    every subset size d = 0, ..., k (array (k + 1, k, k)), without enumerating the C(k, d) subsets.

    SS_d reports a d-subset S with probability ``(1 + a [x in S]) / Omega_d``, a = e^eps - 1,
    Omega_d = C(k-1, d-1) e^eps + C(k-1, d) (d = 0 and d = k: the uninformative all-ones output).
    Its output S has probability q_S = (1 + a P(S)) / Omega_d, so

        J_d = (1 / Omega_d) sum_{|S| = d} (1 + a 1_S)(1 + a 1_S)^T / (1 + a P(S)).

    With 1 / (1 + a P(S)) = int_0^inf e^{-t} prod_{i in S} z_i(t) dt, z_i(t) = e^{-t a p_i}, the
    sums over the subsets containing x (and y) are elementary symmetric polynomials of the z_i
    with x (and y) left out: z_x e_{d-1}(z without x), z_x z_y e_{d-2}(z without x, y), computed
    for every d by the recurrence of the generating polynomial prod_i (1 + z_i u), divided by
    (1 + z_x u) (coefficients c_j = e_j - z_x c_{j-1}, all terms positive). The integral over t is a
    composite Gauss-Legendre quadrature (:func:`_laplace_nodes`, exact to about 1e-14 relative).
    Every row of J_d times ``prior`` is 1 (J f = 1 for the channel's own prior). eps > 0 finite in
    nats, at most 30; k = prior.size >= 2. O(K k^3) for K quadrature nodes (a few hundred)."""
    p = check_distribution(prior)
    eps = check_scalar(eps, "eps", low=0.0, high=30.0, low_inclusive=False)
    k = p.size
    if k < 2:
        raise ValueError(f"prior must have at least 2 entries (categories), got {k}")
    check_array_size((k + 1, k, k), "prior")
    a = math.expm1(eps)
    nodes, weights = _laplace_nodes(1.0 + a)
    g0 = np.zeros(k + 1)
    g1 = np.zeros((k, k + 1))
    g2 = np.zeros((k, k, k + 1))
    off = ~np.eye(k, dtype=bool)
    for t, wt in zip(nodes, weights):
        z = np.exp(-t * a * p)
        e = np.zeros(k + 1)
        e[0] = 1.0
        for zi in z:  # e_j of all z, by adding the letters one at a time
            e[1:] = e[1:] + zi * e[:-1]
        c1 = _divide_linear(e[None, :], z)  # e_j of z without x
        c2 = _divide_linear(c1[:, None, :], z[None, :])  # e_j of z without x and y (x != y)
        c1 = np.maximum(c1, 0.0)
        c2 = np.maximum(c2, 0.0)
        scale = wt * math.exp(-t)
        g0 += scale * e
        g1[:, 1:] += scale * z[:, None] * c1[:, :-1]
        g2[:, :, 2:] += scale * (z[:, None] * z[None, :])[:, :, None] * c2[:, :, :-2]
    g2[~off] = 0.0
    g2 += np.einsum("xd,xy->xyd", g1, np.eye(k))  # x = y: the subsets containing x
    d = np.arange(k + 1)
    from scipy.special import gammaln

    def binom(n, r):
        r = np.asarray(r)
        with np.errstate(invalid="ignore"):
            out = np.exp(gammaln(n + 1) - gammaln(np.maximum(r, 0) + 1) - gammaln(np.maximum(n - r, 0) + 1))
        return np.where((r >= 0) & (r <= n), out, 0.0)

    omega = binom(k - 1, d - 1) * math.exp(eps) + binom(k - 1, d)
    j = (g0[:, None, None] + a * (g1.T[:, :, None] + g1.T[:, None, :]) + a * a * np.moveaxis(g2, 2, 0))
    return j / omega[:, None, None]


def _size_weights(oracle: FrequencyOracle) -> np.ndarray:
    """pi_d, d = 0..k: the oracle's channel is the mixture sum_d pi_d SS_d of subset selection
    with every size d (disjoint outputs; [ye2018] for SS). A report's support S has the ray
    1 + a 1_S (a = e^eps - 1) in every pure protocol of [wang2017]; given |S| = d the support is
    drawn as SS_d draws it. grr: pi_1 = 1; ss: pi_d = 1 at its d; oue: P(|S| = d | x) =
    C(k-1, d-1) p q^(d-1) (1-q)^(k-d) + C(k-1, d) (1-p) q^d (1-q)^(k-1-d) (p = 1/2, the same
    for every x); olh with a uniformly random hash (the model of its variance): the preimage of
    the reported value holds x w.p. p and each other value w.p. 1/g independently, so the same
    with q = 1/g (columns with the same support are proportional: merging them loses nothing)."""
    from scipy.stats import binom

    k = oracle.n_categories
    pi = np.zeros(k + 1)
    if oracle.name == "grr":
        pi[1] = 1.0
    elif oracle.name == "ss":
        pi[oracle.subset_size] = 1.0
    else:
        p, q = oracle.p, oracle.q
        d = np.arange(k + 1)
        pi = p * binom.pmf(d - 1, k - 1, q) + (1.0 - p) * binom.pmf(d, k - 1, q)
    return pi


def oracle_fisher_information(oracle, prior) -> np.ndarray:
    """The Fisher-type matrix J = C diag(q)^-1 C^T of the oracle's channel C for the records'
    histogram ``prior`` (k x k; :func:`leakage.estimation.frequency.fisher_information`), without
    building C (OUE has 2^k outputs, SS C(k, d)): the mixture sum_d pi_d J_d over the subset
    sizes (:func:`_size_weights`) of :func:`subset_fisher_informations`. The best linear unbiased
    estimate from the oracle's reports then has total variance ``tr J^-1 - 1`` per record (records
    fixed), at most the standard estimate's :func:`oracle_mse` (a linear unbiased estimate too).
    OLH: the uniformly random hash of its variance formula. eps at most 30 nats. O(K k^3).
    HR: its k x K channel (:func:`hadamard_response_channel`) directly, any eps, O(k^2 K)."""
    oracle = _check_oracle(oracle)
    f = check_distribution(prior)
    if f.size != oracle.n_categories:
        raise ValueError(f"prior must have {oracle.n_categories} entries (the oracle's categories), got {f.size}")
    if oracle.name == "hr":
        return fisher_information(hadamard_response_channel(oracle.n_categories, oracle.eps), f)
    if not oracle.eps <= 30.0:
        raise ValueError(f"eps must be at most 30 nats for the oracle's Fisher information, got {oracle.eps!r}")
    pi = _size_weights(oracle)
    return np.einsum("d,dxy->xy", pi, subset_fisher_informations(f, oracle.eps))
