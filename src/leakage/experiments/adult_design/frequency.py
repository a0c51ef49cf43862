"""adult-design, frequency estimation: the release read back, the estimation-optimal designs and
the LDP frequency oracles side by side.

The study releases privatised columns (``release/<attribute>.csv``); an analyst holding one of
them and the released mechanism (its rows of ``mechanisms.csv``) estimates the category
frequencies with :func:`leakage.estimation.frequency.estimate_frequencies`. These stages live in
adult-design because they read its release and its mechanisms (the MI designs are compared on
what an analyst can learn from them, not only on what they leak).

* :func:`mse_designs`: ``pml_mse`` (eps-PML on B_beta(P̂), beta = beta*(delta)) and ``ldp_mse``
  (eps-LDP), the channels of least per-record total variance tr J^-1 - 1 of the best linear
  unbiased estimate (``optimal_mechanism(..., utility="frequency_mse")``), at the config's eps;
  their rows join ``mechanisms.csv`` (so the study's guarantee claims check them too). Seeded with
  the study's MI designs of the same eps (their columns lie in the same cone).
* :func:`estimate_release`: ``estimates/<attribute>.csv``, the estimate from the release file and
  the released mechanism only, with the true count beside it.
* :func:`frequency_comparison`: ``frequency.csv``, the MSE over ``frequency.repetitions`` releases
  of the m fixed records (all of them) for every method (``FREQUENCY_METHODS``), against its
  formula, and the coverage of the 95 % intervals.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np
import pandas as pd

from leakage.estimation.concentration import beta_star
from leakage.estimation.frequency import (
    estimate_frequencies,
    estimate_frequencies_from_counts,
    frequency_mse,
    identifiable,
)
from leakage.experiments.adult_design.stages import (
    FREQUENCY_METHODS,
    MECHANISM_COLUMNS,
    Mechanism,
    _attribute,
    channel_from_rows,
    check_settings,
    engine_budget,
    mechanism_rows,
    prior_of,
)
from leakage.mechanisms.frequency_oracles import (
    FrequencyOracle,
    oracle_estimate,
    oracle_mse,
    oracle_sample_support_counts,
)
from leakage.mechanisms.release import channel_output_counts
from leakage.validation import check_frame, check_rng

#: The methods of ``FREQUENCY_METHODS`` that are frequency oracles (the others are channels of mechanisms.csv).
ORACLE_METHODS = ("oue", "olh", "ss", "hr")
#: The estimation-optimal designs and their privacy notion.
MSE_METHODS = {"pml_mse": "pml", "ldp_mse": "ldp"}
#: The MI designs that seed each estimation design (feasible in its cone).
_SEEDS = {"pml_mse": ("pml", "pml_prop2", "ldp", "rr"), "ldp_mse": ("ldp", "rr")}
#: The estimation designs that seed each estimation design (designed first at the same eps).
_DESIGN_SEEDS = {"pml_mse": ("ldp_mse",), "ldp_mse": ()}

ESTIMATE_COLUMNS = ["attribute", "category", "estimate", "stderr", "lower", "upper", "true_frequency", "true_count",
                    "method", "eps", "m", "identifiable"]
FREQUENCY_COLUMNS = ["attribute", "method", "eps", "m", "mse", "mse_theory", "coverage", "repetitions", "mse_stderr",
                     "mse_bound", "certified", "intervals"]
#: The confidence level of the intervals (the estimator's default).
CONFIDENCE = 0.95
#: A standard error at or below this is a category the channel releases exactly (its interval is the
#: estimate up to rounding and always holds the truth): not counted in ``coverage``.
EXACT_STDERR = 1e-12


def _rows(mechanisms: pd.DataFrame, attribute: str, method: str, eps: float) -> pd.DataFrame:
    return mechanisms[(mechanisms["attribute"] == attribute) & (mechanisms["method"] == method)
                      & np.isclose(mechanisms["eps"].astype(float), eps, rtol=0, atol=1e-12)]  # fmt: skip


def _channel(mechanisms: pd.DataFrame, attribute: str, method: str, eps: float, n: int) -> np.ndarray | None:
    rows = _rows(mechanisms, attribute, method, eps)
    return None if rows.empty else channel_from_rows(rows, n)


def _certificate(mechanisms: pd.DataFrame, attribute: str, method: str, eps: float, m: int) -> tuple[float, object]:
    """(lower bound on the formula MSE, certified) of an estimation design: the engine's bound on
    tr J^-1 - 1 over m; (nan, None) for the other methods (no bound is computed for them)."""
    if method not in MSE_METHODS or "bound" not in mechanisms:
        return math.nan, None
    rows = _rows(mechanisms, attribute, method, eps)
    if rows.empty:
        return math.nan, None
    return float(rows["bound"].iloc[0]) / m, bool(rows["certified"].iloc[0])


def mse_designs(priors: pd.DataFrame, mechanisms: pd.DataFrame, attribute: str, settings: Mapping) -> pd.DataFrame:
    """``pml_mse`` and ``ldp_mse`` of one attribute at every config eps, as ``mechanisms.csv`` rows
    (column ``bound``: the engine's certified LOWER bound on tr J^-1 - 1; ``certified``: value -
    bound <= engine.tol (1 + value)). ``mechanisms``: the attribute's MI designs (seeds). Budget:
    ``engine.tol`` and ``engine.max_iterations``; beyond the engine's exhaustive pricing
    (N > ``EXHAUSTIVE_LIMIT``) ``frequency.large_max_iterations`` (ldp_mse) and
    ``frequency.large_max_iterations_pml`` (pml_mse) column-generation iterations; there the
    design reports its bound (the relaxed design's, certified; loosest under PML at large eps) and what limits it.
    ``ldp_mse`` is designed first and seeds ``pml_mse``."""
    from leakage.design import optimal_mechanism
    from leakage.design.pricing.frequency import EXHAUSTIVE_LIMIT

    s = check_settings(settings, ("eps", "delta", "engine", "frequency"))
    check_frame(mechanisms, "mechanisms", columns=("attribute", "method", "eps", "x", "y", "probability"), empty=True)
    categories, p_hat, m = prior_of(priors, attribute)
    n = len(categories)
    beta = beta_star(s["delta"], m, n)
    budget = engine_budget(s["engine"])
    large = {"ldp": s["frequency"]["large_max_iterations"], "pml": s["frequency"]["large_max_iterations_pml"]}
    rows = []
    for eps in s["eps"]:
        designs = {}
        # ldp_mse first: it is eps-LDP, hence on the ball, and seeds pml_mse
        for method in sorted(MSE_METHODS, key=lambda k: MSE_METHODS[k] != "ldp"):
            privacy = MSE_METHODS[method]
            seeds = [c for c in (_channel(mechanisms, attribute, k, eps, n) for k in _SEEDS[method]) if c is not None]
            seeds += [designs[k] for k in _DESIGN_SEEDS[method]]
            b = beta if privacy == "pml" else 0.0
            iterations = budget["max_iterations"] if n <= EXHAUSTIVE_LIMIT else large[privacy]
            designs[method] = optimal_mechanism(p_hat, eps, privacy=privacy, beta=b, utility="frequency_mse",
                                                tol=budget["tol"], max_iterations=iterations, warm_start=seeds)
        for method in MSE_METHODS:
            d = designs[method]
            reason = "" if d.certified else f"not certified optimal ({d.stats.get('limited_by', 'engine budget')})"
            mech = Mechanism(method, eps, d.beta, d.channel, reason, bool(d.certified), d.seconds, float(d.bound))
            rows += mechanism_rows(attribute, mech, s["delta"])
    return pd.DataFrame(rows, columns=MECHANISM_COLUMNS)


def estimate_release(release: pd.DataFrame, mechanisms: pd.DataFrame, priors: pd.DataFrame, attribute: str,
                     settings: Mapping) -> pd.DataFrame:
    """``estimates/<attribute>.csv``: per category the estimate of its frequency, its standard
    error and 95 % interval (:func:`leakage.estimation.frequency.estimate_frequencies`, the
    unbiased weighted least-squares estimate), from the released column and the released
    mechanism (``pml`` at ``release.eps``) only; ``true_frequency`` and ``true_count`` (from
    ``priors.csv``) are beside it for comparison, never used by the estimate. When the released
    mechanism is not identifiable (:func:`leakage.estimation.frequency.identifiable`: an MI design
    that merges categories), no estimator can recover the frequencies: the rows say so (``identifiable`` false) and carry no estimate."""
    s = check_settings(settings, ("release",))
    _attribute(attribute)
    check_frame(mechanisms, "mechanisms", columns=("attribute", "method", "eps", "x", "y", "probability"), empty=True)
    categories, p_hat, m = prior_of(priors, attribute)
    check_frame(release, "release")
    if attribute not in release.columns:
        raise ValueError(f"attribute {attribute!r} is not a column of release (columns {list(release.columns)[:5]})")
    check_frame(release, "release", columns=(attribute,))
    eps = s["release"]["eps"]
    channel = _channel(mechanisms, attribute, "pml", eps, len(categories))
    if channel is None:
        raise ValueError(f"attribute {attribute!r} has no pml mechanism at adult-design.release.eps = {eps}")
    index = {c: i for i, c in enumerate(categories)}
    names = release[attribute].astype(str)
    unknown = sorted(set(names) - set(index))
    if unknown:
        raise ValueError(f"release: categories {unknown[:5]} of {attribute!r} are not in priors.csv")
    reports = names.map(index).to_numpy(dtype=np.int64)
    if reports.max() >= channel.shape[1]:
        raise ValueError(f"release: output {int(reports.max())} is beyond the mechanism's {channel.shape[1]} outputs")
    counts = np.round(p_hat * m).astype(np.int64)
    base = {"attribute": attribute, "category": categories, "true_frequency": p_hat, "true_count": counts,
            "method": "pml", "eps": eps, "m": reports.size}
    if not identifiable(channel):
        # no estimator can tell apart the histograms that the merged outputs confuse: no numbers
        return pd.DataFrame({**base, "identifiable": False}, columns=ESTIMATE_COLUMNS)
    est = estimate_frequencies(reports, channel, confidence=CONFIDENCE)
    return pd.DataFrame({**base, "estimate": est.estimate, "stderr": est.stderr, "lower": est.lower,
                         "upper": est.upper, "identifiable": True}, columns=ESTIMATE_COLUMNS)


def _channel_release(channel, counts, rng):
    """One release of the records ``counts`` through ``channel``: the analyst's estimate (fast
    exact sampler: a multinomial per category, :func:`channel_output_counts`)."""
    return estimate_frequencies_from_counts(channel_output_counts(channel, counts, rng), channel, confidence=CONFIDENCE)


def _oracle_release(oracle, counts, rng):
    """One release through a frequency oracle and its standard estimate (OUE, OLH: two binomials
    per category, exact; SS, HR: every record simulated, :func:`oracle_sample_support_counts`)."""
    support = oracle_sample_support_counts(oracle, counts, rng)
    return oracle_estimate(oracle, support, int(counts.sum()), confidence=CONFIDENCE)


def frequency_comparison(priors: pd.DataFrame, mechanisms: pd.DataFrame, attribute: str, settings: Mapping,
                         rng: np.random.Generator) -> pd.DataFrame:
    """``frequency.csv`` rows of one attribute: for every config eps and every method of
    ``FREQUENCY_METHODS`` with a mechanism (an infeasible pml_prop2 has none: no row), the m records
    released fixed (their counts from ``priors``: the pipeline passes release_histogram.csv), ``frequency.repetitions`` independent
    releases (``rng``): ``mse`` the mean of sum_x (f̂_x - f_x)^2, ``mse_stderr`` its standard error
    (sample standard deviation / sqrt(repetitions)), ``mse_theory`` the formula
    (:func:`leakage.estimation.frequency.frequency_mse` for the channels, the oracles'
    :func:`~leakage.mechanisms.frequency_oracles.oracle_mse`), ``coverage`` the fraction of the
    repetitions' 95 % intervals that cover f_x, over the ``intervals`` (repetition, category) pairs
    whose standard error is above ``EXACT_STDERR`` (a category released exactly is known, not
    estimated: its interval holds it by construction; 1.0 when there is none); for the estimation designs
    ``mse_bound`` the engine's certified lower bound on the formula (its bound on tr J^-1 - 1 for
    the design prior, over m) and ``certified`` whether the design is certified optimal (nan and
    empty for the other methods)."""
    s = check_settings(settings, ("eps", "frequency"))
    check_frame(mechanisms, "mechanisms", columns=("attribute", "method", "eps", "x", "y", "probability"), empty=True)
    rng = check_rng(rng)
    categories, p_hat, m = prior_of(priors, attribute)
    n = len(categories)
    counts = np.round(p_hat * m).astype(np.int64)
    f = counts / m
    reps = s["frequency"]["repetitions"]
    rows = []
    for eps in s["eps"]:
        for method in FREQUENCY_METHODS:
            if method in ORACLE_METHODS:
                oracle = FrequencyOracle(method, n, eps)
                theory, draw = oracle_mse(oracle, f, m), (lambda o=oracle: _oracle_release(o, counts, rng))
            else:
                channel = _channel(mechanisms, attribute, method, eps, n)
                if channel is None or not identifiable(channel):
                    continue  # infeasible (pml_prop2) or not decodable (an MI design merging categories)
                theory, draw = frequency_mse(channel, f, m), (lambda c=channel: _channel_release(c, counts, rng))
            err, cover, intervals = np.empty(reps), 0, 0
            for r in range(reps):
                est = draw()
                err[r] = float(np.sum((est.estimate - f) ** 2))
                random = est.stderr > EXACT_STDERR
                cover += int(np.sum((est.lower <= f) & (f <= est.upper) & random))
                intervals += int(random.sum())
            bound, certified = _certificate(mechanisms, attribute, method, eps, m)
            rows.append({"attribute": attribute, "method": method, "eps": eps, "m": m, "mse": float(err.mean()),
                         "mse_theory": float(theory), "coverage": cover / intervals if intervals else 1.0,
                         "repetitions": reps,
                         "mse_stderr": float(err.std(ddof=1) / math.sqrt(reps)) if reps > 1 else math.inf,
                         "mse_bound": bound, "certified": certified, "intervals": intervals})
    return pd.DataFrame(rows, columns=FREQUENCY_COLUMNS)


def histogram_release(priors: pd.DataFrame, mechanisms: pd.DataFrame, settings: Mapping,
                      rng: np.random.Generator) -> pd.DataFrame:
    """fig6's table: one release of ``frequency.histogram_attribute`` (all released records) through each of
    ``frequency.histogram_methods`` at ``frequency.histogram_eps`` and the estimate the analyst
    gets from it (``ESTIMATE_COLUMNS``), with the truth beside it."""
    s = check_settings(settings, ("frequency",))
    check_frame(mechanisms, "mechanisms", columns=("attribute", "method", "eps", "x", "y", "probability"), empty=True)
    rng = check_rng(rng)
    fr = s["frequency"]
    attribute, eps = fr["histogram_attribute"], fr["histogram_eps"]
    categories, p_hat, m = prior_of(priors, attribute)
    n = len(categories)
    counts = np.round(p_hat * m).astype(np.int64)
    parts = []
    for method in fr["histogram_methods"]:
        if method in ORACLE_METHODS:
            est = _oracle_release(FrequencyOracle(method, n, eps), counts, rng)
        else:
            channel = _channel(mechanisms, attribute, method, eps, n)
            if channel is None:
                raise ValueError(f"adult-design.frequency.histogram_methods: no {method} mechanism of {attribute!r} "
                                 f"at eps = {eps} in mechanisms.csv")
            if not identifiable(channel):
                raise ValueError(f"adult-design.frequency.histogram_methods: the {method} mechanism of {attribute!r} at "
                                 f"eps = {eps} is not identifiable (rank < N): its release cannot be decoded")
            est = _channel_release(channel, counts, rng)
        parts.append(pd.DataFrame({"attribute": attribute, "category": categories, "estimate": est.estimate,
                                   "stderr": est.stderr, "lower": est.lower, "upper": est.upper,
                                   "true_frequency": counts / m, "true_count": counts, "method": method, "eps": eps,
                                   "m": m, "identifiable": True}, columns=ESTIMATE_COLUMNS))  # fmt: skip
    return pd.concat(parts, ignore_index=True)


__all__ = ["FREQUENCY_METHODS", "mse_designs", "estimate_release", "frequency_comparison", "histogram_release"]
