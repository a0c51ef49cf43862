"""Frequency estimation from released data: the histogram of the records behind a release.

Every record ``x_i`` of ``m`` records was released as an output ``y_i ~ channel[x_i, :]`` of a
known channel (N inputs, M outputs). From the released outputs alone, estimate the histogram
``f`` (``f_x`` = the fraction of the ``m`` records with value ``x``), with standard errors and
confidence intervals. Two estimators:

* ``unbiased``: the weighted least-squares (generalised least-squares) solution of
  ``channel^T f = q_hat`` on the plane ``sum(f) = 1``, ``q_hat`` the released output frequencies.
  With the weights ``1/q``, ``q = channel^T f`` the output distribution, it is the best linear
  unbiased estimate (BLUE) ``f_hat = J^-1 channel diag(q)^-1 q_hat`` with the Fisher-type matrix
  ``J = channel diag(q)^-1 channel^T`` (:func:`fisher_information`); its covariance with the
  records fixed is ``(J^-1 - diag(f)) / m``, with records drawn iid from ``f``
  ``(J^-1 - f f^T) / m`` (:func:`frequency_covariance`, :func:`frequency_mse`). It sums to one
  and may be negative.
* ``mle``: the maximum-likelihood estimate on the simplex, by EM (the iterative Bayesian update
  of [agrawal2001]).

The derivations, and when to use which, are in ``docs/frequency-estimation.md``. The LDP
frequency oracles (GRR, OUE, OLH) with their own estimators are in
:mod:`leakage.mechanisms.frequency_oracles`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from leakage.validation import (
    check_array_size,
    check_channel,
    check_channel_prior,
    check_choice,
    check_count,
    check_counts,
    check_distribution,
    check_indices,
    check_scalar,
    check_tolerance,
)

#: The estimators of :func:`estimate_frequencies`.
METHODS = ("unbiased", "mle")
#: The two settings of the records: the m records fixed (the histogram of exactly these records is
#: estimated; only the release is random), or drawn iid from ``prior``.
RECORDS = ("fixed", "iid")
#: Largest EM budget ``max_iter`` accepted (a larger one is a typo, not a budget).
MAX_EM_UPDATES = 10**8
#: Pseudo-count per output of the plug-in weights (the add-1/2 estimate of the output distribution).
PSEUDO_COUNT = 0.5
#: The intervals of :func:`estimate_frequencies`: ``score`` (default; the variance taken at each
#: value tested, :func:`_score_interval`), and two Wald intervals, ``fitted`` (variance at the
#: fitted output distribution channel^T f_hat) and ``wald`` (at the observed one q_hat).
INTERVALS = ("score", "fitted", "wald")
#: Bisection steps of the score interval's ends (each halves the multiplier's bracket).
SCORE_STEPS = 40
#: Relative rounding allowance of an interval: an estimate whose variance is 0 (a category the
#: channel releases exactly) is its true value up to the rounding of A q_hat, this times sum_y |A_xy| q_hat_y.
ROUNDING = 1e-12


def _fitted_variance(a: np.ndarray, c_used: np.ndarray, estimate: np.ndarray, m: int) -> np.ndarray:
    """The records-fixed variance of the linear estimate f_hat = A q_hat (A C^T = I) at the fitted
    histogram: a record of value z adds v_xz = sum_y A_xy^2 C_zy - (sum_y A_xy C_zy)^2 >= 0 (the
    variance of A_{x, y} over its output y), so

        Var f_hat_x = (1/m) sum_z f_z v_xz = (sum_y A_xy^2 (C^T f)_y - f_x) / m,

    estimated without bias by f_hat in place of f (linear in f), floored at 0. It depends on the
    reports through the N numbers f_hat only, where the ``wald`` estimate (sum_y A_xy^2 q_hat_y -
    f_hat_x) / m weighs every output's own count (docs/frequency-estimation.md). O(N^2 M)."""
    per = np.maximum((a**2) @ c_used.T - (a @ c_used.T) ** 2, 0.0)
    return np.maximum(per @ estimate, 0.0) / m


def _score_end(a: np.ndarray, counts: np.ndarray, m: int, estimate: np.ndarray, z2: float, sign: int) -> np.ndarray:
    """The upper end of each row's score interval (:func:`_score_interval`) for theta = a_x . q,
    the variance at theta being (sum_y a_xy^2 q_y - sign theta) / m; ``sign`` = -1 with a and the
    estimate negated gives the lower end. Vectorised over the rows (categories)."""
    seen = counts > 0
    c, a_seen = counts[seen].astype(float), a[:, seen]
    top_seen = a_seen.max(axis=1)
    top_unseen = a[:, ~seen].max(axis=1) if (~seen).any() else np.full(a.shape[0], -np.inf)
    # the multiplier t runs from 0 up to where a seen output's q_y = c_y / (m - t a_xy) diverges,
    # or where the unseen output of largest coefficient starts to take mass (t = m / a)
    t_seen = np.where(top_seen > 0, m / np.where(top_seen > 0, top_seen, 1.0), np.inf)
    t_unseen = np.where(top_unseen > 0, m / np.where(top_unseen > 0, top_unseen, 1.0), np.inf)
    t_end = np.minimum(t_seen, t_unseen)

    def profile(t):
        q = c / (m - t[:, None] * a_seen)
        theta = (a_seen * q).sum(axis=1)
        return theta, (a_seen**2 * q).sum(axis=1) - sign * theta

    def rejected(t):  # the statistic (theta - estimate)^2 / variance has reached z^2
        theta, second = profile(t)
        return m * (theta - estimate) ** 2 >= z2 * np.maximum(second, 0.0)

    finite = np.isfinite(t_end)
    high = np.where(finite, t_end * (1.0 - 1e-12), m / np.maximum(np.abs(a_seen).max(axis=1), 1e-300))
    for _ in range(2100):  # rows without a finite end: double t until rejected (2^2100: past every float)
        grow = ~finite & ~rejected(high)
        if not grow.any():
            break
        high = np.where(grow, 2.0 * high, high)
    reached = rejected(high)
    low = np.zeros_like(high)
    for _ in range(SCORE_STEPS):
        mid = 0.5 * (low + high)
        hit = rejected(mid)
        high, low = np.where(hit, mid, high), np.where(hit, low, mid)
    end = profile(high)[0]
    # past t = m / a_u the unseen output u takes mass s at fixed t: theta = theta_1 + a_u s and
    # m variance = W + (a_u^2 - sign a_u) s; the statistic reaches z^2 at the positive root
    tail = ~reached & np.isfinite(t_unseen) & (t_unseen <= t_seen)
    if tail.any():
        theta1, w = profile(np.where(tail, t_unseen * (1.0 - 1e-12), 0.0))
        au = np.where(tail, top_unseen, 1.0)
        d = theta1 - estimate
        b = 2.0 * d * au - z2 * (au**2 - sign * au) / m
        c0 = d**2 - z2 * w / m
        s = np.maximum((-b + np.sqrt(np.maximum(b**2 - 4.0 * au**2 * c0, 0.0))) / (2.0 * au**2), 0.0)
        end = np.where(tail, theta1 + au * s, end)
    return np.where(reached | tail, end, np.inf)


def _score_interval(a: np.ndarray, counts: np.ndarray, estimate: np.ndarray, confidence: float):
    """Score intervals for the linear estimate f_hat = A q_hat from the output counts (records
    fixed): the values theta of f_x that a score test at level 1 - confidence keeps [wilson1927].

    The counts are taken as independent Poisson counts of means m q_y. Under the hypothesis
    f_x = theta, the likelihood's maximum subject to sum_y A_xy q_y = theta is at
    q_y = c_y / (m - t A_xy) (t its multiplier, monotone in theta), an output nobody reported
    taking mass only once t reaches m / A_xy; the statistic (f_hat_x - theta)^2 / V(theta) uses the
    records-fixed variance there, V = (sum_y A_xy^2 q_y - theta) / m. Where an output of large
    coefficient was reported rarely or never, V at the tested value holds the term its count
    misses, which is what a Wald interval leaves out (docs/frequency-estimation.md). Each end is
    the first value where the statistic reaches z^2, by bisection on t (``SCORE_STEPS``);
    inf where it never does. O(N M) per step."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    m = int(counts.sum())
    upper = _score_end(a, counts, m, estimate, z * z, +1)
    lower = -_score_end(-a, counts, m, -estimate, z * z, -1)
    return lower, upper


def identifiable(channel) -> bool:
    """Whether the frequencies can be estimated from the channel's outputs: its rows are linearly
    independent (rank N; else two histograms give the same output distribution and no estimator can
    tell them apart). MI-optimal designs often merge categories and are then not identifiable."""
    c = check_channel(channel)
    return int(np.linalg.matrix_rank(c)) == c.shape[0]


def _check_identifiable(c: np.ndarray, name: str = "channel") -> None:
    """Refuse a channel that is not :func:`identifiable`, saying its rank."""
    if identifiable(c):
        return
    n, rank = c.shape[0], int(np.linalg.matrix_rank(c))
    raise ValueError(
        f"{name} has linearly dependent rows (rank {rank} < {n} inputs): the frequencies are "
        f"not identifiable from its outputs; it needs at least {n} outputs and rows spanning R^{n}"
    )


def _check_records(records) -> str:
    return check_choice(records, "records", RECORDS)


def _inverse_information(c: np.ndarray, q: np.ndarray, used: np.ndarray) -> np.ndarray:
    """J^-1 for J = c[:, used] diag(1/q[used]) c[:, used]^T, by the SVD of the scaled channel
    (J = B B^T with B = c diag(q)^-1/2: no squaring of the condition number)."""
    b = c[:, used] / np.sqrt(q[used])
    u, s, _ = np.linalg.svd(b, full_matrices=False)
    return (u / s**2) @ u.T


def _information_inputs(channel, prior):
    """Validated channel, prior, output distribution and used outputs for J."""
    c, p = check_channel_prior(channel, prior)
    check_array_size((c.shape[0], c.shape[1]), "channel")
    q = p @ c
    used = c.max(axis=0) > 0
    dead = np.flatnonzero(used & (q <= 0))
    if dead.size:
        raise ValueError(
            f"prior gives output {int(dead[0])} probability 0 although some input can produce it: J is "
            f"infinite there; give a prior whose support covers every input that reaches a used output"
        )
    return c, p, q, used


def fisher_information(channel, prior) -> np.ndarray:
    """The Fisher-type matrix J = channel diag(q)^-1 channel^T, q = channel^T prior (N x N).

    ``J[x, x'] = sum_y channel[x, y] channel[x', y] / q_y`` over the outputs y the channel can
    produce: the Fisher information of one release about the histogram, the expected outer product
    of the score ``d log q_y / d f = channel[:, y] / q_y`` (unconstrained parametrisation). ``J prior = 1``.
    The best linear unbiased estimate of the histogram of m records has covariance
    ``(J^-1 - diag(prior)) / m`` with the records fixed (:func:`frequency_covariance`), so the
    per-record total variance that an estimation-optimal design minimises is ``tr J^-1 - 1``
    (:func:`frequency_mse` with m = 1). Derivation: docs/frequency-estimation.md.

    ``prior`` must give every output that some input produces a positive probability (else that
    entry of J is infinite: ValueError). O(N^2 M).
    """
    c, _, q, used = _information_inputs(channel, prior)
    return (c[:, used] / q[used]) @ c[:, used].T


def frequency_covariance(channel, prior, m=1, *, records: str = "fixed") -> np.ndarray:
    """Covariance of the best linear unbiased histogram estimate from m releases (N x N).

    ``records="fixed"``: the m records are fixed with histogram ``prior`` (only the release is
    random): ``(J^-1 - diag(prior)) / m``. ``records="iid"``: the records are drawn iid from
    ``prior`` and the target is ``prior``: ``(J^-1 - prior prior^T) / m``. J is
    :func:`fisher_information`; the estimate is :func:`estimate_frequencies` with ``method=
    "unbiased"`` and its weights at the true output distribution (``prior=`` the histogram).
    The channel's rows must be linearly independent (identifiable), else ValueError.
    Derivation: docs/frequency-estimation.md. O(N^2 M).
    """
    c, p, q, used = _information_inputs(channel, prior)
    m = check_count(m, "m", low=1)
    records = _check_records(records)
    _check_identifiable(c)
    j_inv = _inverse_information(c, q, used)
    cov = j_inv - (np.diag(p) if records == "fixed" else np.outer(p, p))
    return cov / m


def frequency_mse(channel, prior, m=1, *, records: str = "fixed") -> float:
    """Total variance (mean squared error, summed over categories) of the best linear unbiased
    histogram estimate from m releases: ``(tr J^-1 - 1) / m`` with the records fixed (histogram
    ``prior``), ``(tr J^-1 - |prior|^2) / m`` with records drawn iid from ``prior``.

    The trace of :func:`frequency_covariance`; with m = 1 and the records fixed, ``tr J^-1 - 1``,
    the per-record quantity an estimation-optimal design minimises. Frequencies, not counts
    (multiply by m^2 for counts). Never negative (rounding is clipped at 0).
    """
    return max(float(np.trace(frequency_covariance(channel, prior, m, records=records))), 0.0)


def _readonly(a) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class FrequencyEstimate:
    """A histogram estimate with per-category standard errors and confidence intervals.

    Frequencies (fractions of the m records), not counts: ``counts`` gives ``m * estimate``.
    ``lower``/``upper`` bound the two-sided interval at ``confidence`` (a score interval, or
    ``estimate ± z stderr`` with z the normal quantile: the estimator's ``interval`` says which;
    they always contain the estimate). ``iterations`` and ``converged`` report the iterative
    estimators (0 and True for closed forms).
    """

    estimate: np.ndarray
    stderr: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    confidence: float
    method: str
    m: int
    iterations: int = 0
    converged: bool = True

    @property
    def counts(self) -> np.ndarray:
        """The estimated number of records per category, ``m * estimate``."""
        return self.m * np.asarray(self.estimate)

    @classmethod
    def from_variance(
        cls,
        estimate,
        variance,
        *,
        m: int,
        confidence: float,
        method: str,
        clip: bool = False,
        iterations: int = 0,
        converged: bool = True,
        rounding=0.0,
    ) -> "FrequencyEstimate":
        """Wald intervals ``estimate ± (z sqrt(variance) + rounding)`` (z the standard normal
        quantile at (1 + confidence) / 2; ``rounding`` >= 0 the floating-point error of the
        estimate), cut to [0, 1] with ``clip``; a negative variance estimate counts as 0. The
        interval always contains the estimate."""
        est = np.asarray(estimate, dtype=float)
        se = np.sqrt(np.maximum(np.asarray(variance, dtype=float), 0.0))
        z = NormalDist().inv_cdf(0.5 + confidence / 2.0)  # stdlib: no scipy.stats import in every job
        half = z * se + np.maximum(np.asarray(rounding, dtype=float), 0.0)
        lower, upper = est - half, est + half
        if clip:
            lower, upper = np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)
        return cls.from_interval(est, variance, lower, upper, m=m, confidence=confidence, method=method,
                                 iterations=iterations, converged=converged)

    @classmethod
    def from_interval(
        cls, estimate, variance, lower, upper, *, m: int, confidence: float, method: str,
        iterations: int = 0, converged: bool = True,
    ) -> "FrequencyEstimate":
        """Given interval ends (widened to contain the estimate) and the standard error
        sqrt(variance) (a negative variance estimate counting as 0)."""
        est = np.asarray(estimate, dtype=float)
        return cls(
            estimate=_readonly(est),
            stderr=_readonly(np.sqrt(np.maximum(np.asarray(variance, dtype=float), 0.0))),
            lower=_readonly(np.minimum(lower, est)),
            upper=_readonly(np.maximum(upper, est)),
            confidence=float(confidence),
            method=method,
            m=int(m),
            iterations=int(iterations),
            converged=bool(converged),
        )


def _check_confidence(confidence) -> float:
    return check_scalar(confidence, "confidence", low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)


def _linear_estimator(c: np.ndarray, used: np.ndarray, q_weights: np.ndarray) -> np.ndarray:
    """The matrix A (N x used outputs) of the weighted least-squares estimate f = A q_hat on the
    plane sum(f) = 1, weights 1/q_weights: A channel^T = I and 1^T A = 1^T, so f is unbiased
    whatever the (fixed) weights and sums to one.

    A = (I - u 1^T) J^-1 C W + u 1^T with J = C W C^T, W = diag(1/q_weights), u = J^-1 1 / 1^T J^-1 1;
    with q_weights = channel^T g for a distribution g the correction vanishes (J g = 1) and A is
    the BLUE's J^-1 C W. Computed from the pseudo-inverse of W^1/2 C^T (SVD).
    """
    sqrt_w = 1.0 / np.sqrt(q_weights)
    b = c[:, used] * sqrt_w  # N x Mu, J = b b^T
    b_pinv = np.linalg.pinv(b.T)  # (b^T)^+ = J^-1 b
    a0 = b_pinv * sqrt_w  # J^-1 C W
    j_inv = b_pinv @ b_pinv.T
    u = j_inv.sum(axis=1)
    u = u / u.sum()
    return a0 + np.outer(u, 1.0 - a0.sum(axis=0))


def _em(c_obs: np.ndarray, w_obs: np.ndarray, max_iter: int, tol: float):
    """Maximum likelihood on the simplex for sum_y w_y log (C^T f)_y by EM (the iterative Bayesian
    update f_x <- f_x g_x, g = C (w / C^T f) [agrawal2001]) from the uniform histogram, accelerated
    by SQUAREM (scheme S3 of [varadhan2008]: two EM updates, an extrapolation along them kept only
    when it stays positive and does not lower the likelihood, then one EM update), so every
    iterate is an EM image of a positive histogram and the likelihood never decreases.

    Stops when max_x g_x - 1 <= tol: since sum_x f_x g_x = 1 and the log-likelihood is concave,
    that bounds its gap to the maximum (per record, nats). ``max_iter`` counts EM updates (three
    per SQUAREM cycle). Returns (f, EM updates used, converged).
    """
    tiny = np.finfo(float).tiny
    n = c_obs.shape[0]

    def update(f):
        g = c_obs @ (w_obs / np.maximum(f @ c_obs, tiny))
        h = f * g
        return h / h.sum(), g

    def loglik(f):
        return float(w_obs @ np.log(np.maximum(f @ c_obs, tiny)))

    f = np.full(n, 1.0 / n)
    used = 0
    while True:
        f1, g = update(f)
        if float(g.max()) - 1.0 <= tol:
            return f, used, True
        if used + 3 > max_iter:
            # too few updates left for a cycle: plain EM to the end of the budget
            if used < max_iter:
                used += 1
                f = f1
                continue
            return f, used, False
        f2, _ = update(f1)
        r = f1 - f
        v = f2 - f1 - r
        vv = float(v @ v)
        alpha = min(-math.sqrt(float(r @ r) / vv), -1.0) if vv > 0 else -1.0
        target = loglik(f2)
        while alpha < -1.0:
            trial = f - 2.0 * alpha * r + alpha**2 * v
            if np.all(trial > 0) and loglik(trial) >= target:
                break
            alpha = min((alpha - 1.0) / 2.0, -1.0)
        start = f2 if alpha == -1.0 else f - 2.0 * alpha * r + alpha**2 * v
        f, _ = update(start / start.sum())
        used += 3


def estimate_frequencies_from_counts(
    output_counts,
    channel,
    *,
    method: str = "unbiased",
    confidence: float = 0.95,
    prior=None,
    max_iter: int = 10_000,
    tol: float = 1e-10,
    interval: str = "score",
) -> FrequencyEstimate:
    """Estimate the histogram of the released records from the count of each output.

    ``output_counts[y]`` = how many records were released as output y of ``channel``
    (``channel[x, y] = P(y | x)``, N x M; M counts). Same estimators and result as
    :func:`estimate_frequencies`, which counts the reports and calls this.
    """
    check_choice(method, "method", METHODS)
    check_choice(interval, "interval", INTERVALS)
    confidence = _check_confidence(confidence)
    max_iter = check_count(max_iter, "max_iter", low=1, high=MAX_EM_UPDATES)
    tol = check_tolerance(tol)
    c = check_channel(channel)
    n_in, n_out = c.shape
    check_array_size((n_in, n_out), "channel")
    counts = check_counts(output_counts, "output_counts", size=n_out)
    used = c.max(axis=0) > 0
    impossible = np.flatnonzero(~used & (counts > 0))
    if impossible.size:
        raise ValueError(
            f"output_counts has reports of output {int(impossible[0])}, which the channel never produces "
            f"(column {int(impossible[0])} is all zero): the reports do not come from this channel"
        )
    _check_identifiable(c)
    m = int(counts.sum())
    q_hat = counts[used] / m
    if prior is None:
        # two steps: the reports' own output distribution (half a count added per output) gives a
        # first estimate; the weights are then the output distribution that estimate implies, kept
        # positive (C^T of the estimate clipped at 0 plus half a record per category): N numbers
        # instead of one noisy count per output (docs/frequency-estimation.md)
        q0 = (counts[used] + PSEUDO_COUNT) / (m + PSEUDO_COUNT * int(used.sum()))
        f0 = _linear_estimator(c, used, q0) @ q_hat
        g = np.maximum(f0, 0.0) + PSEUDO_COUNT / m
        q_weights = (g / g.sum()) @ c[:, used]
    else:
        p = check_distribution(prior)
        if p.size != n_in:
            raise ValueError(f"prior must have {n_in} entries (the channel's inputs), got {p.size}")
        q_weights = (p @ c)[used]
        if np.any(q_weights <= 0):
            raise ValueError(
                "prior gives a used output probability 0, an infinite weight: give a prior whose "
                "support reaches every output"
            )
    a = _linear_estimator(c, used, q_weights)
    unbiased = a @ q_hat
    # Var(f_x) = (sum_y A_xy^2 q_y - f_x) / m with the records fixed (A channel^T = I); with q_hat
    # and the unbiased f_hat in place of q and f, an unbiased estimate of it.
    if interval == "wald":
        variance = ((a**2) @ q_hat - unbiased) / m
    else:
        variance = _fitted_variance(a, c[:, used], unbiased, m)
    # rounding: a category the channel releases exactly has variance 0 and its estimate is exact
    # up to the rounding of A q_hat, which the interval must hold
    rounding = ROUNDING * (np.abs(a) @ q_hat)
    if method == "unbiased":
        f, iterations, converged = unbiased, 0, True
    else:
        observed = counts > 0
        f, iterations, converged = _em(c[:, observed], counts[observed] / m, max_iter, tol)
    if interval != "score":
        return FrequencyEstimate.from_variance(
            f, variance, m=m, confidence=confidence, method=method, clip=method == "mle",
            iterations=iterations, converged=converged, rounding=rounding,
        )
    lower, upper = _score_interval(a, counts[used], unbiased, confidence)
    # a frequency lies in [0, 1]: the ends are cut there, as far as the estimate allows
    lower = np.maximum(lower - rounding, np.minimum(f, 0.0))
    upper = np.minimum(upper + rounding, np.maximum(f, 1.0))
    if method == "mle":
        lower, upper = np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)
    return FrequencyEstimate.from_interval(
        f, variance, lower, upper, m=m, confidence=confidence, method=method,
        iterations=iterations, converged=converged,
    )


def estimate_frequencies(
    reports,
    channel,
    *,
    method: str = "unbiased",
    confidence: float = 0.95,
    prior=None,
    max_iter: int = 10_000,
    tol: float = 1e-10,
    interval: str = "score",
) -> FrequencyEstimate:
    """Estimate the histogram of the m records behind a release, from the released outputs.

    ``reports``: the released output indices, one per record (integers in [0, M)); ``channel``:
    the mechanism that released them, ``channel[x, y] = P(y | x)`` (N x M, row-stochastic), its
    rows linearly independent (else the frequencies are not identifiable: ValueError). That is all
    an analyst holding the release file and the mechanism needs. Holding only the count of each
    output, use :func:`estimate_frequencies_from_counts` (the same estimate).

    ``method="unbiased"``: the weighted least-squares estimate of ``channel^T f = q_hat`` on the
    plane ``sum(f) = 1``, ``f_hat = A q_hat`` (``A channel^T = I``, so unbiased for any fixed
    weights). The weights are ``1 / q_w`` with ``q_w`` the plug-in estimate of the output
    distribution, ``(count_y + 1/2) / (m + M/2)`` (add-1/2, so that an output nobody reported gets
    a finite weight), or ``channel^T prior`` when a ``prior`` (a guess of the histogram, fixed
    before seeing the reports) is given: then the estimate is exactly linear and unbiased, and
    with ``prior`` = the true histogram it is the best linear unbiased estimate
    ``J^-1 channel diag(q)^-1 q_hat``, covariance ``(J^-1 - diag(f)) / m``
    (:func:`frequency_covariance`). With plug-in weights it is unbiased up to O(1/m) and its
    covariance tends to the same. A square invertible channel needs no weights: the estimate is
    ``channel^-T q_hat`` exactly, whatever the weights. It sums to one and may be negative.
    Standard error: ``Var f_x = (sum_y A_xy^2 q_y - f_x) / m`` (records fixed), estimated without
    bias with ``q`` the fitted ``channel^T f_hat`` (:func:`_fitted_variance`; the observed ``q_hat``
    with ``interval="wald"``), negative values counting as 0. Intervals: ``"score"`` (default) keeps
    the values a score test keeps, the variance taken at each value tested
    (:func:`_score_interval`: an output of large coefficient reported rarely or never is counted),
    cut to [0, 1] as far as the estimate allows; ``"fitted"`` and ``"wald"`` are
    ``f_hat ± z stderr`` with those two variances, not cut. Each adds the rounding allowance
    ``ROUNDING sum_y |A_xy| q_hat_y`` (the truth of a category the channel releases exactly,
    variance 0) and contains the estimate, which may lie outside [0, 1].

    ``method="mle"``: the maximum-likelihood histogram on the simplex, by EM (the iterative Bayesian
    update of [agrawal2001]) from the uniform histogram, accelerated by SQUAREM [varadhan2008]
    (plain EM converges slowly, sublinearly at worst, where the maximum is on the boundary),
    at most ``max_iter`` EM updates (a counted budget; deterministic), stopping once the
    log-likelihood is certified within ``tol`` nats per record of its maximum
    (``max_x g_x - 1 <= tol``, ``g = channel (q_hat / channel^T f)``). ``iterations`` (EM updates
    used) and ``converged`` say how it ended. Its standard error and interval are the unbiased
    estimate's (the two estimates are asymptotically equivalent away from the boundary), cut to
    [0, 1] and widened to contain the MLE. Near the boundary (categories with few records) the MLE
    is biased upwards (it cannot go below 0).

    ``confidence`` in (0, 1) sets the intervals (default 95 %). Use ``unbiased`` to aggregate
    (sums and differences of categories, averages over releases: unbiased, exact variance) and for
    intervals; ``mle`` for a point estimate that is a distribution (no negative frequencies),
    better at small counts. O(N^2 M) for ``unbiased``; ``mle`` adds O(N M) per iteration.
    """
    c = check_channel(channel)
    values = check_indices(reports, "reports", c.shape[1], n_name="the channel's outputs (columns)")
    counts = np.bincount(values, minlength=c.shape[1])
    return estimate_frequencies_from_counts(
        counts, c, method=method, confidence=confidence, prior=prior, max_iter=max_iter, tol=tol,
        interval=interval,
    )
