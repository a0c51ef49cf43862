"""worst-case-pml: worst-case utility privacy mechanism via pointwise maximal leakage.

fig1: counting query (Sec. IV-A) - worst-case utility against eps of the utility-safe mechanism and
of the exponential and randomized-response mechanisms made eps-PML by Proposition 1 (Monte Carlo
minimum and exact worst case). fig2, fig3: optimality study (Sec. IV-B) - eps_US(k) (Corollary 1)
against the general optimum eps*(k) (LP + bisection) over two families of priors.
The mathematics lives in :mod:`leakage.experiments.worst_case_pml.utility` and :mod:`leakage.experiments.worst_case_pml.programs`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from leakage.claims import check
from leakage.measures.pml import epsilon_max
from leakage.experiments.worst_case_pml.utility import (
    circulant_order_matrix,
    counting_query_utility,
    sampled_worst_case_utility,
    utility_order_matrix,
    worst_case_order,
    worst_case_utility,
)
from leakage.validation import (
    MAX_POINTS,
    check_choice,
    check_claims_call,
    check_count,
    check_distribution,
    check_figure_call,
    check_list,
    check_mapping,
    check_scalar,
    check_tolerance,
    in_setting,
    setting,
)
from leakage.experiments.worst_case_pml.utility import check_threshold
from leakage.experiments.worst_case_pml.programs import (
    optimal_epsilon,
    pml_exponential_mechanism,
    pml_randomized_response,
    utility_safe_epsilon,
    utility_safe_mechanism_for,
)

MECHANISMS = ("utility_safe", "exponential", "randomized_response")
PATTERNS = ("one_low_three_high", "three_low_one_high")

#: Two eps values closer than this (nats) count as equal in the claims (bisection tol is 1e-9).
EQUAL_TOL = 1e-6


# ------------------------------------------------------------------ settings -> objects


#: Largest counting query of fig1 (the schema's limit is 30): its LPs have (n + 1)^2 unknowns.
MAX_RECORDS = 1000


def counting_query(settings: dict):
    """Prior Binomial(n, q) on {0..n} and the utility of eq. (11) for the fig1 settings
    (``n_records`` in [1, 1000], ``success_probability`` in (0, 1), ``under_report_penalty`` > 0,
    finite; complete, from config.yaml)."""
    s = check_mapping(settings, "settings")
    n = setting(s, "n_records", check_count, low=1, high=MAX_RECORDS)
    q = setting(s, "success_probability", check_scalar, low=0.0, high=1.0, low_inclusive=False,
                high_inclusive=False)
    penalty = setting(s, "under_report_penalty", check_scalar, low=0.0, low_inclusive=False, finite=True)
    prior = np.array([math.comb(n, x) * q**x * (1 - q) ** (n - x) for x in range(n + 1)])
    utility = counting_query_utility(n, penalty=penalty)
    with in_setting("under_report_penalty"):  # a penalty beyond the squared losses' precision ties them
        utility_order_matrix(utility)
    return prior, utility


def eps_grid(prior, step: float) -> np.ndarray:
    """eps = 0, step, 2 step, ... < eps_max (exclusive), in nats; at most 10^6 values."""
    top = epsilon_max(check_distribution(prior, full_support=True))
    step = check_scalar(step, "step", low=0.0, low_inclusive=False, finite=True)
    if top / step > MAX_POINTS:
        raise ValueError(f"step must be >= eps_max / {MAX_POINTS} = {top / MAX_POINTS:.3g} (at most {MAX_POINTS} eps values), got {step!r}")
    count = max(1, int(math.ceil(top / step - 1e-9)))  # eps = 0 always
    grid = np.round(step * np.arange(count), 12)
    return grid[grid < top - 1e-12]


def pattern_prior(pattern: str, p_low: float, n: int) -> np.ndarray:
    """The priors of Sec. IV-B: ``one_low_three_high`` (p, q, .., q) with q = (1 - p)/(N - 1);
    ``three_low_one_high`` (p, .., p, 1 - (N - 1) p). p_low in (0, 1/N], N >= 2."""
    check_choice(pattern, "pattern", PATTERNS)
    n = check_count(n, "n", low=2, high=MAX_RECORDS)
    p_low = check_scalar(p_low, "p_low")
    if not 0 < p_low <= 1.0 / n + 1e-12:
        raise ValueError(f"p_low must be in (0, 1/N] = (0, {1 / n:.6g}], got {p_low!r}")
    if pattern == "one_low_three_high":
        return np.array([p_low] + [(1 - p_low) / (n - 1)] * (n - 1))
    return np.array([p_low] * (n - 1) + [1 - (n - 1) * p_low])


def p_low_grid(settings: dict) -> np.ndarray:
    """p_low_min, p_low_min + p_low_step, ... <= p_low_max; at most 10^6 values."""
    s = check_mapping(settings, "settings")
    lo = setting(s, "p_low_min", check_scalar, low=0.0, high=0.5, low_inclusive=False)
    hi = setting(s, "p_low_max", check_scalar, low=0.0, high=0.5, low_inclusive=False)
    step = setting(s, "p_low_step", check_scalar, low=0.0, low_inclusive=False, finite=True)
    if lo > hi:
        raise ValueError(f"p_low_max must be >= p_low_min = {lo}, got {hi}")
    if (hi - lo) / step > MAX_POINTS:
        raise ValueError(f"p_low_step must be >= (p_low_max - p_low_min) / {MAX_POINTS} (at most {MAX_POINTS} values), got {step!r}")
    count = int(math.floor((hi - lo) / step + 1e-9)) + 1
    return np.round(lo + step * np.arange(count), 12)


# ------------------------------------------------------------------ figures


def fig1(settings: dict, rng: np.random.Generator, inputs: dict) -> pd.DataFrame:
    """Counting query: worst-case utility against eps for the three eps-PML mechanisms."""
    s = check_figure_call(settings, rng, inputs)
    prior, utility = counting_query(s)
    order = utility_order_matrix(utility)
    reps = setting(s, "repetitions", check_count, low=1, high=MAX_POINTS)
    step = setting(s, "eps_step", check_scalar, low=0.0, low_inclusive=False, finite=True)
    build = {
        "utility_safe": lambda eps: utility_safe_mechanism_for(prior, utility, eps),
        "exponential": lambda eps: pml_exponential_mechanism(prior, utility, eps),
        "randomized_response": lambda eps: pml_randomized_response(prior, eps),
    }
    rows = []
    for eps in eps_grid(prior, step):
        for name in MECHANISMS:
            channel = build[name](eps)
            rows.append(
                {
                    "eps": float(eps),
                    "mechanism": name,
                    "min_utility_mc": sampled_worst_case_utility(channel, prior, utility, reps, rng),
                    "min_utility_exact": worst_case_utility(channel, prior, utility),
                    "worst_case_order": worst_case_order(channel, prior, order),
                }
            )
    return pd.DataFrame(rows)


def _optimality(settings: dict) -> pd.DataFrame:
    s = settings
    pattern = setting(s, "pattern", check_choice, PATTERNS)
    n = setting(s, "alphabet_size", check_count, low=3, high=12)
    order = circulant_order_matrix(n)
    tol = setting(s, "tolerance", check_tolerance)
    ks = setting(s, "k", check_list, lambda v, name: check_threshold(v, n, name))
    grid = p_low_grid(s)
    if grid[-1] > 1.0 / n + 1e-12:
        raise ValueError(f"p_low_max must be <= 1 / alphabet_size = {1 / n:.6g}, got {grid[-1]!r}")
    rows = []
    for k in ks:
        for p in grid:
            prior = pattern_prior(pattern, float(p), n)
            rows.append(
                {
                    "pattern": pattern,
                    "k": int(k),
                    "p_low": float(p),
                    "eps_utility_safe": utility_safe_epsilon(prior, order, k),
                    "eps_optimal": optimal_epsilon(prior, order, k, tol=tol),
                }
            )
    return pd.DataFrame(rows)


def fig2(settings: dict, rng: np.random.Generator, inputs: dict) -> pd.DataFrame:
    """One-low-three-high priors: eps_US(k) and eps*(k) against p_low (Sec. IV-B, Fig. 2)."""
    return _optimality(check_figure_call(settings, rng, inputs, rng_optional=True))


def fig3(settings: dict, rng: np.random.Generator, inputs: dict) -> pd.DataFrame:
    """Three-low-one-high priors: eps_US(k) and eps*(k) against p_low (Sec. IV-B, Fig. 3)."""
    return _optimality(check_figure_call(settings, rng, inputs, rng_optional=True))


FIGURES = {"fig1": fig1, "fig2": fig2, "fig3": fig3}


# ------------------------------------------------------------------ claims


def _fig1_claims(table: pd.DataFrame, settings: dict):
    prior, utility = counting_query(settings)
    order = utility_order_matrix(utility)
    out = []
    us = table[table.mechanism == "utility_safe"].sort_values("eps")
    eps = us.eps.to_numpy()
    exact = us.min_utility_exact.to_numpy()
    drops = np.flatnonzero(np.diff(exact) < 0)
    out.append(
        check(
            "fig1",
            "utility-safe worst case never decreases with eps",
            drops.size == 0,
            "exact worst case non-decreasing over %d eps values (%.6g -> %.6g)" % (eps.size, exact[0], exact[-1])
            if drops.size == 0
            else "decreases at eps = " + ", ".join(f"{eps[i + 1]:.4g} ({exact[i]:.6g} -> {exact[i + 1]:.6g})" for i in drops),
        )
    )
    thresholds = sorted({round(utility_safe_epsilon(prior, order, k), 12) for k in range(2, order.shape[1] + 1)})
    thresholds = [t for t in thresholds if 0 < t <= eps.max()]
    expected = sorted({float(eps[np.argmax(eps >= t - 1e-12)]) for t in thresholds})
    observed = sorted(float(eps[i + 1]) for i in np.flatnonzero(np.diff(exact) != 0))
    out.append(
        check(
            "fig1",
            "utility-safe worst case jumps exactly at the thresholds eps_US(k)",
            np.allclose(expected, observed) if len(expected) == len(observed) else False,
            "eps_US thresholds " + ", ".join(f"{t:.4f}" for t in thresholds)
            + "; first grid eps at/after them " + ", ".join(f"{e:.2f}" for e in expected)
            + "; jumps observed at " + ", ".join(f"{e:.2f}" for e in observed),
        )
    )
    u_min = float(np.min(utility))
    ldp = table[table.mechanism.isin(["exponential", "randomized_response"])]
    above = ldp[ldp.min_utility_exact != u_min]
    out.append(
        check(
            "fig1",
            "exponential and randomized-response exact worst case stays at the global minimum utility for every eps < eps_max",
            above.empty,
            f"global minimum utility {u_min:.6g}; {len(ldp)} (eps, mechanism) rows, eps up to {ldp.eps.max():.4g} < eps_max = {epsilon_max(prior):.4f}"
            if above.empty
            else "above the minimum at " + ", ".join(f"{r.mechanism} eps={r.eps:.4g}: {r.min_utility_exact:.6g}" for r in above.itertuples()),
        )
    )
    below = table[table.min_utility_mc < table.min_utility_exact]
    missed = int((table.min_utility_mc > table.min_utility_exact).sum())
    out.append(
        check(
            "fig1",
            "Monte Carlo minimum never goes below the exact worst case",
            below.empty,
            f"{len(below)} rows below; the sample missed the exact worst pair in {missed} of {len(table)} rows",
        )
    )
    return out


def _gap_table(table: pd.DataFrame, k: int) -> pd.DataFrame:
    t = table[table.k == k].sort_values("p_low")
    return t.assign(gap=t.eps_utility_safe - t.eps_optimal)


def _equal_claim(figure: str, table: pd.DataFrame, ks, what: str):
    t = table[table.k.isin(ks)]
    gap = (t.eps_utility_safe - t.eps_optimal).abs()
    worst = t.loc[gap.idxmax()] if len(t) else None
    return check(
        figure,
        what,
        len(t) > 0 and bool((gap <= EQUAL_TOL).all()),
        f"max |eps_utility_safe - eps_optimal| = {gap.max():.3g} nats over {len(t)} rows"
        + (f" (k={int(worst.k)}, p_low={worst.p_low:.3f})" if worst is not None else "")
        + f"; tolerance {EQUAL_TOL:g}",
    )


def check_claims(tables: dict, settings: dict, rng=None):
    """The claims of docs/figures.md, checked on the figure tables (``rng``: unused, may be None)."""
    tables, settings = check_claims_call(tables, settings, rng, figures=FIGURES)
    out = []
    if "fig1" in tables:
        with in_setting("fig1"):
            out += _fig1_claims(tables["fig1"], setting(settings, "fig1", check_mapping))
    if "fig2" in tables:
        out.append(_equal_claim("fig2", tables["fig2"], [2, 3], "eps_optimal == eps_utility_safe everywhere"))
    if "fig3" in tables:
        t3 = tables["fig3"]
        out.append(_equal_claim("fig3", t3, [3], "eps_optimal == eps_utility_safe for k=3"))
        g = _gap_table(t3, 2)
        low = g[g.p_low < 0.25 - 1e-12]
        not_below = low[low.gap <= EQUAL_TOL]
        out.append(
            check(
                "fig3",
                "for k=2, eps_optimal < eps_utility_safe for p_low < 0.25",
                len(low) > 0 and not_below.empty,
                f"gap > {EQUAL_TOL:g} at all {len(low)} p_low < 0.25"
                if not_below.empty
                else f"equal (gap <= {EQUAL_TOL:g}) at {len(not_below)} of {len(low)} p_low < 0.25, "
                f"p_low in [{not_below.p_low.min():.3f}, {not_below.p_low.max():.3f}]; strictly lower only for "
                f"p_low <= {low[low.gap > EQUAL_TOL].p_low.max():.3f} (gap up to {low.gap.max():.4f} nats; there "
                f"eps_optimal in [{low[low.gap > EQUAL_TOL].eps_optimal.min():.4f}, "
                f"{low[low.gap > EQUAL_TOL].eps_optimal.max():.4f}], eps_utility_safe down to "
                f"{low[low.gap > EQUAL_TOL].eps_utility_safe.min():.4f})"
                if (low.gap > EQUAL_TOL).any()
                else f"never strictly lower over {len(low)} p_low",
            )
        )
        diffs = np.diff(g.gap.to_numpy())  # along increasing p_low: the gap must not grow
        pos = g[g.gap > EQUAL_TOL]
        strictly = bool(np.all(np.diff(pos.gap.to_numpy()) < 0)) if len(pos) > 1 else False
        out.append(
            check(
                "fig3",
                "for k=2 the gap eps_utility_safe - eps_optimal grows as p_low decreases",
                bool(np.all(diffs <= EQUAL_TOL)) and strictly,
                f"gap {g.gap.iloc[0]:.4f} nats at p_low={g.p_low.iloc[0]:.3f}, "
                f"{g.gap.iloc[-1]:.4f} at p_low={g.p_low.iloc[-1]:.3f}; "
                f"largest increase with p_low {diffs.max():.3g}; strictly growing where positive: {strictly}",
            )
        )
    return out
