"""statistical-inference: Calmon & Fawaz, Privacy against statistical inference.

The paper has no numerical figures; ours (docs/figures.md):

* fig1 — counting query (Examples 1, 2): the minimum average information leakage (Theorem 1 /
  Corollary 1), the minmax information leakage (Theorem 2 / Corollary 2, line search) and the
  truncated geometric eps-DP mechanism's I(S; U) at the same expected distortion, vs distortion;
* fig2 — Theorem 4: an eps-DP mechanism with the comb prior (45) leaks without bound as n grows
  (lower bound and exact I(Y; U)).

Only wiring: the mathematics is in the package's other modules, one idea each (listed in
:mod:`leakage.experiments.statistical_inference.common`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from leakage.claims import check
from leakage.experiments.statistical_inference.convex import rate_distortion_curve
from leakage.experiments.statistical_inference.corollary2 import (
    least_leaking_posterior,
    maximum_leakage_deterministic,
    min_max_leakage_curve,
)
from leakage.experiments.statistical_inference.counting_query import (
    counting_query_conditional_entropy,
    counting_query_joint,
    counting_query_prior,
    squared_error,
)
from leakage.experiments.statistical_inference.information_privacy import (
    information_privacy_epsilon,
    information_privacy_implications,
)
from leakage.experiments.statistical_inference.measures import maximum_information_leakage
from leakage.experiments.statistical_inference.theorem4 import (
    geometric_epsilon_for_distortion,
    theorem4_exact_leakage,
    theorem4_lower_bound,
    truncated_geometric_channel,
)
from leakage.measures.information import binary_entropy, entropy, mutual_information
from leakage.validation import (
    MAX_POINTS,
    check_choice,
    check_claims_call,
    check_count,
    check_epsilon,
    check_figure_call,
    check_list,
    check_mapping,
    check_probability,
    check_scalar,
    check_tolerance,
    in_setting,
    setting,
)

FIG1_COLUMNS = ["method", "n", "p", "distortion", "leakage", "dp_eps"]
FIG2_COLUMNS = ["eps", "k", "n", "mi_lower_bound", "mi_exact"]
DISTORTIONS = {"squared_error": squared_error}
METHODS = ("average_leakage", "maximum_leakage", "geometric_dp")

#: Largest counting query of fig1 (the convex programs have (n + 1)^2 unknowns per budget).
MAX_N = 1000


def _n_p(settings: dict) -> tuple[int, float]:
    s = check_mapping(settings, "settings")
    return setting(s, "n", check_count, low=1, high=MAX_N), setting(s, "p", check_probability, open_low=True, open_high=True)


def fig1_grid(settings: dict) -> np.ndarray:
    """Distortion budgets: ``distortion_points`` values from 0 to Var(Y) = n p (1 - p)."""
    n, p = _n_p(settings)
    points = setting(settings, "distortion_points", check_count, low=2, high=MAX_POINTS)
    return np.linspace(0.0, n * p * (1 - p), points)


def fig1(settings: dict, rng=None, inputs=None) -> pd.DataFrame:
    """Leakage (nats) vs distortion budget on the counting query, one row per (method, budget).
    ``rng``, ``inputs``: unused (None allowed)."""
    settings = check_figure_call(settings, rng, inputs, rng_optional=True)
    n, p = _n_p(settings)
    methods = setting(settings, "methods", check_list, lambda m, name: check_choice(m, name, METHODS))
    tol = setting(settings, "tol", check_tolerance)
    prior = counting_query_prior(n, p)
    cond_h = counting_query_conditional_entropy(n)
    d = DISTORTIONS[setting(settings, "distortion", check_choice, tuple(DISTORTIONS))](n)
    grid = fig1_grid(settings)
    # Corollary 1: I(S; U) = I(Y; U), Theorem 1 program; also the lower bracket of the minmax search
    average = [sol.leakage for sol in rate_distortion_curve(prior, d, grid)]
    if "maximum_leakage" in methods:  # Corollary 2 + Theorem 2 line search
        lower = np.maximum(0.0, np.asarray(average) - 1e-6)
        minmax = min_max_leakage_curve(prior, cond_h, d, grid, tol=tol, lower=lower)
    rows = []
    for i, delta in enumerate(grid):
        for method in methods:
            eps = np.nan
            if method == "average_leakage":
                leak = average[i]
            elif method == "maximum_leakage":
                leak = minmax[i].leakage
            else:  # geometric_dp: the eps-DP mechanism at the same expected distortion
                eps = geometric_epsilon_for_distortion(prior, d, delta)
                leak = mutual_information(truncated_geometric_channel(n, eps), prior)
            rows.append((method, n, p, float(delta), float(leak), float(eps)))
    return pd.DataFrame(rows, columns=FIG1_COLUMNS)


#: Largest database size of fig2 (the exact leakage sums over a band of every support point).
MAX_DATABASE = 10**9


def fig2_grid(settings: dict) -> np.ndarray:
    """Database sizes: a log grid from n_min to n_max, rounded to multiples of k (distinct)."""
    s = check_mapping(settings, "settings")
    k = setting(s, "k", check_count, low=1, high=MAX_DATABASE)
    n_min = setting(s, "n_min", check_count, low=1, high=MAX_DATABASE)
    n_max = setting(s, "n_max", check_count, low=1, high=MAX_DATABASE)
    if n_max < n_min:
        raise ValueError(f"n_max must be >= n_min = {n_min}, got {n_max}")
    points = setting(s, "n_points", check_count, low=1, high=MAX_POINTS)
    raw = np.geomspace(n_min, n_max, points)
    return np.unique(np.maximum(k, np.round(raw / k).astype(int) * k))


def fig2(settings: dict, rng=None, inputs=None) -> pd.DataFrame:
    """Theorem 4's lower bound and the exact I(Y; U) (nats) vs n, comb prior and eps-DP mechanism.
    ``rng``, ``inputs``: unused (None allowed)."""
    settings = check_figure_call(settings, rng, inputs, rng_optional=True)
    eps = setting(settings, "eps", check_scalar, low=0.0, low_inclusive=False, finite=True)
    k = setting(settings, "k", check_count)
    rows = [
        (eps, k, int(n), theorem4_lower_bound(n, k, eps), theorem4_exact_leakage(n, k, eps))
        for n in fig2_grid(settings)
    ]
    return pd.DataFrame(rows, columns=FIG2_COLUMNS)


FIGURES = {"fig1": fig1, "fig2": fig2}


# ----------------------------------------------------------------------------- claims


def _series(table, method):
    t = table[table["method"] == method].sort_values("distortion")
    return t["distortion"].to_numpy(), t["leakage"].to_numpy()


def _fig1_claims(table: pd.DataFrame, s: dict) -> list:
    out = []
    tol = 1e-6 + s["tol"]
    n, p = s["n"], s["p"]
    methods = set(table["method"])
    for method in ("average_leakage", "maximum_leakage", "geometric_dp"):
        if method not in methods:
            continue
        _, leak = _series(table, method)
        rise = float(np.max(np.diff(leak), initial=0.0))
        out.append(check("fig1", f"{method} leakage is non-increasing in the distortion budget",
                         rise <= tol, f"largest increase between neighbouring budgets {rise:.3g} nats"))
    if {"average_leakage", "maximum_leakage"} <= methods:
        (_, avg), (_, mx) = _series(table, "average_leakage"), _series(table, "maximum_leakage")
        gap = float(np.min(mx - avg))
        out.append(check("fig1", "minmax information leakage >= minimum average leakage at every budget "
                         "(max_u H(S)-H(S|U=u) >= I(S;U))", gap >= -tol,
                         f"smallest gap max - average {gap:.4g} nats over {avg.size} budgets"))
        h_y = entropy(counting_query_prior(n, p))
        h_s = n * binary_entropy(p)
        out.append(check("fig1", "at zero distortion U = Y: average leakage H(Y), maximum leakage H(S) = n h(p)",
                         abs(avg[0] - h_y) < 1e-4 and abs(mx[0] - h_s) < 1e-3,
                         f"average {avg[0]:.6f} vs H(Y) {h_y:.6f}; maximum {mx[0]:.6f} vs n h(p) {h_s:.6f} nats"))
    if {"average_leakage", "geometric_dp"} <= methods:
        (_, avg), (_, geo) = _series(table, "average_leakage"), _series(table, "geometric_dp")
        gap = float(np.min(geo - avg))
        out.append(check("fig1", "the geometric eps-DP mechanism leaks at least the optimal average leakage "
                         "at the same expected distortion", gap >= -1e-6,
                         f"smallest gap geometric - optimal {gap:.4g} nats; largest {float(np.max(geo - avg)):.4g}"))
    # Example 2: the least informative output has posterior p(y|u) proportional to C(n, y).
    m = min(n, 10)
    q, h_post = least_leaking_posterior(counting_query_joint(m, p))
    zeta = np.exp(counting_query_conditional_entropy(m) - m * np.log(2))
    err = float(np.max(np.abs(q - zeta)))
    out.append(check("fig1", f"Example 2 (n={m}): the posterior p(y|u) with least leakage (max H(S|U=u), "
                     "solved over the 2^n database states) is C(n,y)/2^n", err < 1e-4 and abs(h_post - m * np.log(2)) < 1e-6,
                     f"max |q - C(n,y)/2^n| = {err:.2e}; H(S|U=u) = {h_post:.6f} vs n log 2 = {m * np.log(2):.6f} nats"))
    # Corollary 2 (40) vs the direct maximum leakage over 2^n states, on the geometric mechanism.
    prior = counting_query_prior(m, p)
    ch = truncated_geometric_channel(m, 1.0)
    direct = maximum_information_leakage(ch, counting_query_joint(m, p))
    via = maximum_leakage_deterministic(ch, prior, counting_query_conditional_entropy(m))
    out.append(check("fig1", "Corollary 2 (40): max_u H(S)-H(S|U=u) = H(S) - log sum_y e^{H(S|Y=y)} + "
                     "max_u D(p_{Y|U=u} || zeta), zeta ~ C(n,y) (geometric mechanism, eps=1)",
                     abs(direct - via) < 1e-9, f"direct over 2^{m} states {direct:.9f}, via zeta {via:.9f} nats"))
    return out


def _theorem3_claims(c: dict, rng) -> list:
    """Theorem 3 on random channels p(U|S) with random full-support priors (drawn from ``rng``)."""
    ratio_dp, ratio_avg, ratio_max, worst_max = 0.0, 0.0, 0.0, 0.0
    for _ in range(c["random_channels"]):
        # concentrated Dirichlet rows keep eps_IP moderate; any channel would do
        channel = rng.dirichlet(np.full(c["outputs"], 5.0), size=c["inputs"])
        prior = rng.dirichlet(np.ones(c["inputs"]))
        r = information_privacy_implications(channel, prior)
        ratio_dp = max(ratio_dp, r["eps_dp"] / (2 * r["eps_ip"]))
        ratio_avg = max(ratio_avg, r["average_leakage"] / r["eps_ip"])
        mx = maximum_information_leakage(channel, np.diag(prior))
        ratio_max = max(ratio_max, mx / r["eps_ip"])
        worst_max = max(worst_max, mx - r["eps_ip"])
    count = c["random_channels"]
    shape = f"{count} random {c['inputs']}x{c['outputs']} channels"
    # A structured channel: one heavy state (prior 1/2) and M light states (1/(2M) each); output
    # u1 (u2) is (1+t)/(1-t) times likelier under the heavy (light) states: eps_IP = -log(1-t),
    # while H(S) - H(S|U=u1) = log 2 - h((1+t)/2) + (t/2) log M grows with M.
    t, m = 0.1, 1000
    prior = np.r_[0.5, np.full(m, 0.5 / m)]
    channel = np.vstack([[(1 + t) / 2, (1 - t) / 2]] + [[(1 - t) / 2, (1 + t) / 2]] * m)
    eps_ip = information_privacy_epsilon(channel, prior)
    mx = maximum_information_leakage(channel, np.diag(prior))
    return [
        check("theorem3", "Theorem 3: eps-information privacy implies 2eps-DP (all input pairs)",
              ratio_dp <= 1 + 1e-12, f"{shape}: max eps_DP / (2 eps_IP) = {ratio_dp:.4f}"),
        check("theorem3", "Theorem 3: eps-information privacy implies average leakage I(S;U) <= eps nats",
              ratio_avg <= 1 + 1e-12, f"{shape}: max I(S;U) / eps_IP = {ratio_avg:.4f}"),
        check("theorem3", "Sec. V text before Theorem 3: eps-information privacy implies maximum leakage "
              "max_u H(S)-H(S|U=u) <= eps nats", ratio_max <= 1 + 1e-12,
              f"{shape}: max ratio (max leakage) / eps_IP = {ratio_max:.4f}, largest excess {worst_max:.4g} nats"),
        check("theorem3", "Sec. V text before Theorem 3, on a heavy state + M light states channel: "
              "eps-information privacy implies maximum leakage <= eps nats", mx <= eps_ip + 1e-12,
              f"M={m}, t={t}: eps_IP = {eps_ip:.4f} nats but max_u H(S)-H(S|U=u) = {mx:.4f} nats "
              f"(the proof bounds D(p_S|U=u || p_S), which is <= eps, not H(S)-H(S|U=u))"),
    ]


def _fig2_claims(table: pd.DataFrame, s: dict) -> list:
    t = table.sort_values("n")
    n, lb, ex = t["n"].to_numpy(), t["mi_lower_bound"].to_numpy(), t["mi_exact"].to_numpy()
    eps, k = s["eps"], s["k"]
    gap = float(np.min(ex - lb))
    coef = -np.expm1(-k * eps / 2)
    last = n >= n[-1] / 10
    slope = float(np.polyfit(np.log1p(n[last] / k), ex[last], 1)[0]) if last.sum() >= 2 else float("nan")
    dp = float(np.max(np.abs(np.diff(np.log(truncated_geometric_channel(int(n[0]), eps)), axis=0))))
    return [
        check("fig2", "Theorem 4's construction is eps-DP: neighbouring counts y, y+1 change P(u|y) by at most e^eps",
              dp <= eps + 1e-9, f"max |log P(u|y) - log P(u|y+1)| = {dp:.6f} vs eps = {eps} (n={int(n[0])})"),
        check("fig2", "Theorem 4: lower bound (1-e^{-k eps/2}) log(1+n/k) - log 2 <= exact I(Y;U) at every n",
              gap >= -1e-9, f"smallest exact - bound {gap:.4g} nats over n = {int(n[0])}..{int(n[-1])}"),
        check("fig2", "Theorem 4: both the bound and the exact leakage grow without bound in n "
              "(increasing; exact grows like log(1+n/k) on the last decade)",
              bool(np.all(np.diff(lb) > 0) and np.all(np.diff(ex) > 0) and slope >= coef - 0.05),
              f"exact {ex[0]:.3f} -> {ex[-1]:.3f} nats, bound {lb[0]:.3f} -> {lb[-1]:.3f} nats; "
              f"slope of exact vs log(1+n/k) on the last decade {slope:.3f} (bound's {coef:.4f})"),
    ]


def check_claims(tables: dict, settings: dict, rng) -> list:
    """Claims of [statistical-inference] on fig1 (Examples 1-2, Theorems 1-2, Corollary 2), Theorem 3 on random
    channels (drawn from ``rng``, a numpy Generator), and fig2 (Theorem 4)."""
    tables, settings = check_claims_call(tables, settings, rng, figures=FIGURES, rng_optional=False)
    out = []
    if "fig1" in tables:
        with in_setting("fig1"):
            s1 = setting(settings, "fig1", check_mapping)
            _n_p(s1)
            setting(s1, "tol", check_tolerance)
            out += _fig1_claims(tables["fig1"], s1)
    with in_setting("claims"):
        c = setting(settings, "claims", check_mapping)
        c = {
            "random_channels": setting(c, "random_channels", check_count, low=1, high=MAX_POINTS),
            "inputs": setting(c, "inputs", check_count, low=2, high=1000),
            "outputs": setting(c, "outputs", check_count, low=2, high=1000),
        }
    out += _theorem3_claims(c, rng)
    if "fig2" in tables:
        with in_setting("fig2"):
            s2 = setting(settings, "fig2", check_mapping)
            setting(s2, "eps", check_scalar, low=0.0, low_inclusive=False, finite=True)
            setting(s2, "k", check_count)
            out += _fig2_claims(tables["fig2"], s2)
    return out
