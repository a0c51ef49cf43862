"""empirical-pml fig2a, fig2b, fig3a, fig3b: leakage sensitivity on l1-balls and the
(eps, delta) trade-off of estimation.

* fig2a / fig2b (Fig. 2): Theorem 4's bound (32) vs the true leakage increase D_inf(P_Y || Q_Y) of
  random priors Q near P_X (series ``sample``) and vs its exact supremum over the ball B_beta(P_X)
  (series ``exact``), for Example 1 (mechanism (34)) and Example 2 (a k-singular mechanism).
* fig3a (Fig. 3a): Corollary 3's delta_min(eps') (39), capped at 1, for several sample sizes m.
* fig3b (Fig. 3b): eps'(delta) of eq. (38) as a function of m for several design eps.

Columns and defaults: docs/figures.md (empirical-pml).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from leakage.claims import Claim, check
from leakage.design import k_singular_mechanism
from leakage.estimation.concentration import beta_star
from leakage.measures.information import max_divergence
from leakage.measures.pml import epsilon_min, output_distribution
from leakage.estimation.uncertainty import (
    delta_min,
    epsilon_prime,
    leakage_sensitivity_bound,
    output_divergence_sup_on_ball,
)
from leakage.validation import (
    MAX_POINTS,
    check_channel_prior,
    check_choice,
    check_claims_call,
    check_count,
    check_epsilon,
    check_figure_call,
    check_list,
    check_mapping,
    check_probability,
    check_rng,
    check_scalar,
    in_setting,
    setting,
)

#: Most random priors of fig2's ``sample`` series (each a D_inf of two output distributions).
MAX_SAMPLES = 10**7

#: Tolerance of the claims' comparisons (nats).
TOL = 1e-9

# --------------------------------------------------------------------------- fig2


def _example(figure: str, settings: dict):
    """(channel, prior, eps) of fig2a (explicit mechanism and prior) or fig2b (k-singular, uniform)."""
    settings = check_mapping(settings, "settings")
    if figure == "fig2a":
        channel, prior = check_channel_prior(
            setting(settings, "channel"), setting(settings, "prior"), full_support=True
        )
    else:
        n = setting(settings, "n_symbols", check_count, low=2)
        channel = k_singular_mechanism(n, setting(settings, "k"))
        prior = np.full(n, 1.0 / n)
    eps = setting(settings, "eps", check_epsilon)
    leak = epsilon_min(channel, prior)
    if leak > eps + TOL:
        raise ValueError(
            f"{figure}: the mechanism is {leak:.6g}-PML for the prior, not eps={eps:.6g}-PML; "
            f"Theorem 4 needs a mechanism that satisfies eps-PML"
        )
    return channel, prior, eps


def _beta_grid(settings: dict, prior: np.ndarray) -> np.ndarray:
    """grid_points radii in the open interval (0, beta_max), beta_max <= 2 p_min (Theorem 4)."""
    p_min = float(prior.min())
    beta_max = setting(settings, "beta_max", check_scalar, low=0.0, high=2.0 * p_min, low_inclusive=False)
    points = setting(settings, "grid_points", check_count, low=2, high=MAX_POINTS)
    return np.linspace(0.0, beta_max, points + 1, endpoint=False)[1:]


def _random_priors(prior: np.ndarray, count: int, radius_max: float, rng: np.random.Generator) -> np.ndarray:
    """Q = P + r w: w a random zero-sum direction with ||w||_1 = 1, r ~ U(0, radius_max); Q outside
    the open simplex is rejected and redrawn."""
    out = np.empty((0, prior.size))
    while out.shape[0] < count:
        w = rng.standard_normal((count, prior.size))
        w -= w.mean(axis=1, keepdims=True)
        w /= np.abs(w).sum(axis=1, keepdims=True)
        r = rng.uniform(0.0, radius_max, size=(count, 1))
        q = prior[None, :] + r * w
        q = q[np.all(q > 0.0, axis=1)]
        q /= q.sum(axis=1, keepdims=True)
        out = np.vstack([out, q])
    return out[:count]


def leakage_increase_table(channel, prior, eps, settings: dict, rng: np.random.Generator) -> pd.DataFrame:
    """The tidy table of Fig. 2: series sample / bound / exact, columns series, beta, leakage_increase.
    ``channel`` eps-PML for the full-support ``prior``; ``settings``: beta_max, grid_points,
    n_samples and exact_method (complete, from config.yaml); ``rng`` draws the sampled priors."""
    channel, prior = check_channel_prior(channel, prior, full_support=True)
    eps = check_epsilon(eps)
    settings = check_mapping(settings, "settings")
    check_rng(rng)
    grid = _beta_grid(settings, prior)
    method = setting(settings, "exact_method", check_choice, ("closed_form", "lp"))
    bound = [leakage_sensitivity_bound(prior, eps, b) for b in grid]
    exact = [output_divergence_sup_on_ball(channel, prior, b, method=method) for b in grid]
    n_samples = setting(settings, "n_samples", check_count, low=1, high=MAX_SAMPLES)
    qs = _random_priors(prior, n_samples, grid[-1], rng)
    p_y = output_distribution(channel, prior)
    sample = [max_divergence(p_y, q @ channel) for q in qs]
    sample_beta = np.abs(qs - prior[None, :]).sum(axis=1)
    return pd.DataFrame(
        {
            "series": ["bound"] * grid.size + ["exact"] * grid.size + ["sample"] * n_samples,
            "beta": np.concatenate([grid, grid, sample_beta]),
            "leakage_increase": np.concatenate([bound, exact, sample]),
        }
    )


def fig2a(settings: dict, rng: np.random.Generator, inputs: dict) -> pd.DataFrame:
    """Fig. 2(a): Example 1, mechanism (34), P_X = (0.4, 0.2, 0.2, 0.2), eps = log(9/8)."""
    settings = check_figure_call(settings, rng, inputs)
    channel, prior, eps = _example("fig2a", settings)
    return leakage_increase_table(channel, prior, eps, settings, rng)


def fig2b(settings: dict, rng: np.random.Generator, inputs: dict) -> pd.DataFrame:
    """Fig. 2(b): Example 2, the 2-singular mechanism on N = 10 symbols, uniform P_X, eps = log 5."""
    settings = check_figure_call(settings, rng, inputs)
    channel, prior, eps = _example("fig2b", settings)
    return leakage_increase_table(channel, prior, eps, settings, rng)


# --------------------------------------------------------------------------- fig3


def fig3a(settings: dict, rng: np.random.Generator, inputs: dict) -> pd.DataFrame:
    """Fig. 3(a): delta_min(eps') of Corollary 3 (39), capped at 1, on an eps' grid over (eps, eps + span].

    The leakage increase eps' - eps runs over a geometric grid from ``increase_min`` to ``span``, so
    that the steep curves of large m are resolved as well as the slow ones of small m.
    """
    settings = check_figure_call(settings, rng, inputs, rng_optional=True)
    n = setting(settings, "n_symbols", check_count, low=2)
    eps = setting(settings, "eps", _finite_eps)
    span = setting(settings, "eps_prime_span", check_scalar, low=0.0, low_inclusive=False, finite=True)
    low = setting(settings, "increase_min", check_scalar, low=0.0, high=span, low_inclusive=False)
    points = setting(settings, "grid_points", check_count, low=2, high=MAX_POINTS)
    ms = setting(settings, "m", check_list, check_count)
    grid = eps + np.geomspace(low, span, points)
    rows = [
        {"m": int(m), "eps_prime": float(e), "delta_min": delta_min(eps, e, int(m), n)}
        for m in ms
        for e in grid
    ]
    return pd.DataFrame(rows, columns=["m", "eps_prime", "delta_min"])


def fig3b(settings: dict, rng: np.random.Generator, inputs: dict) -> pd.DataFrame:
    """Fig. 3(b): eps'(delta) of eq. (38) vs the sample size m, rows with beta*(delta) e^eps < 2 only."""
    settings = check_figure_call(settings, rng, inputs, rng_optional=True)
    n = setting(settings, "n_symbols", check_count, low=2)
    delta = setting(settings, "delta", check_probability)
    m_min = setting(settings, "m_min", check_count, low=1)
    m_max = setting(settings, "m_max", check_count, low=1)
    if m_max < m_min:
        raise ValueError(f"m_max must be >= m_min = {m_min}, got {m_max}")
    points = setting(settings, "grid_points", check_count, low=2, high=MAX_POINTS)
    eps_values = setting(settings, "eps", check_list, _finite_eps)
    ms = np.unique(np.round(np.logspace(np.log10(m_min), np.log10(m_max), points)).astype(np.int64))
    rows = []
    for eps in eps_values:
        for m in ms:
            with np.errstate(over="ignore"):  # e^eps beyond the float range: no row
                inside = beta_star(delta, int(m), n) * np.exp(eps) < 2.0
            if inside:
                rows.append({"eps": eps, "m": int(m), "eps_prime": epsilon_prime(eps, delta, int(m), n)})
    if not rows:
        raise ValueError(
            f"no m in [m_min, m_max] = [{m_min}, {m_max}] gives beta*(delta) e^eps < 2 for any eps (eq. (38)) with "
            f"n_symbols = {n}, delta = {delta}: increase m_max or delta, or decrease eps or n_symbols"
        )
    return pd.DataFrame(rows, columns=["eps", "m", "eps_prime"])


def _finite_eps(value, name: str) -> float:
    return check_scalar(value, name, low=0.0, finite=True)


FIGURES = {"fig2a": fig2a, "fig2b": fig2b, "fig3a": fig3a, "fig3b": fig3b}


# --------------------------------------------------------------------------- claims


def _fig2_claims(figure: str, table: pd.DataFrame, settings: dict) -> list[Claim]:
    channel, prior, eps = _example(figure, settings)
    by = {name: part.sort_values("beta") for name, part in table.groupby("series")}
    bound, exact, sample = by["bound"], by["exact"], by["sample"]
    s_beta = sample["beta"].to_numpy()
    s_val = sample["leakage_increase"].to_numpy()
    s_bound = np.array([leakage_sensitivity_bound(prior, eps, b) for b in s_beta])
    s_exact = np.array([output_divergence_sup_on_ball(channel, prior, b) for b in s_beta])
    over_bound = s_val - s_bound
    over_exact = s_val - s_exact
    b_val = bound["leakage_increase"].to_numpy()
    e_val = exact["leakage_increase"].to_numpy()
    same_grid = np.array_equal(bound["beta"].to_numpy(), exact["beta"].to_numpy())
    gap = e_val - b_val if same_grid else np.array([np.inf])
    return [
        check(
            figure,
            "every sample <= bound (32) at its beta (Theorem 4)",
            np.all(over_bound <= TOL),
            f"{int(np.sum(over_bound > TOL))} of {s_val.size} samples above; max sample - bound = {over_bound.max():.3g} nats",
        ),
        check(
            figure,
            "exact sup over the ball <= bound (32) on the grid",
            same_grid and np.all(gap <= TOL),
            f"max exact - bound = {gap.max():.3g} nats over {b_val.size} radii",
        ),
        check(
            figure,
            "every sample <= exact sup over the ball at its beta (up to 1e-9)",
            np.all(over_exact <= TOL),
            f"max sample - exact = {over_exact.max():.3g} nats; largest sample {s_val.max():.6g} nats",
        ),
        check(
            figure,
            "bound (32) == exact sup on the whole grid (Theorem 4's equality conditions)",
            same_grid and np.all(np.abs(gap) <= TOL),
            f"max |exact - bound| = {np.abs(gap).max():.3g} nats over {b_val.size} radii",
        ),
    ]


def _non_increasing(table: pd.DataFrame, *, value: str, along: str, within: str) -> tuple[bool, float]:
    """Whether ``value`` never increases along ``along`` inside every group of ``within``
    (relative tolerance 1e-12), and the largest increase seen."""
    ok, worst = True, 0.0
    for _, part in table.groupby(within):
        values = part.sort_values(along)[value].to_numpy(dtype=float)
        steps = np.diff(values)
        tol = 1e-12 * np.maximum(np.abs(values[:-1]), 1e-300)
        ok &= bool(np.all(steps <= tol))
        worst = max(worst, float(steps.max()) if steps.size else 0.0)
    return ok, worst


def _fig3a_claims(table: pd.DataFrame) -> list[Claim]:
    ok_e, worst_e = _non_increasing(table, value="delta_min", along="eps_prime", within="m")
    ok_m, worst_m = _non_increasing(table, value="delta_min", along="m", within="eps_prime")
    return [
        check("fig3a", "delta_min is non-increasing in eps'", ok_e, f"largest increase {worst_e:.3g}"),
        check("fig3a", "delta_min is non-increasing in m", ok_m, f"largest increase {worst_m:.3g}"),
    ]


def _fig3b_claims(table: pd.DataFrame) -> list[Claim]:
    below = table["eps_prime"] - table["eps"]
    ok_m, worst_m = _non_increasing(table, value="eps_prime", along="m", within="eps")
    return [
        check("fig3b", "eps' >= eps", np.all(below >= -TOL), f"min eps' - eps = {below.min():.3g} nats"),
        check("fig3b", "eps' is non-increasing in m", ok_m, f"largest increase {worst_m:.3g} nats"),
    ]


def check_claims(tables: dict, settings: dict, rng=None) -> list[Claim]:
    """The claims of fig2a, fig2b, fig3a, fig3b (docs/figures.md) on the computed tables (``rng``:
    unused, may be None; tables of the other figures of the paper are ignored)."""
    tables, settings = check_claims_call(tables, settings, rng)
    claims: list[Claim] = []
    for figure in ("fig2a", "fig2b"):
        if figure in tables:
            with in_setting(figure):
                claims += _fig2_claims(figure, tables[figure], setting(settings, figure, check_mapping))
    if "fig3a" in tables:
        claims += _fig3a_claims(tables["fig3a"])
    if "fig3b" in tables:
        claims += _fig3b_claims(tables["fig3b"])
    return claims
