"""empirical-pml fig4, fig5 (Laplace on Adult) and fig6, fig7 (Gaussian vs pLDP); Section VI-C.

Only wiring: the mechanisms are in :mod:`leakage.mechanisms.additive`, the Adult simulation in
:mod:`leakage.experiments.empirical_pml.adult`, the estimation radius in :mod:`leakage.estimation.concentration`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from leakage.experiments.empirical_pml.adult import Setting, sample_sizes, simulate, summarize
from leakage.claims import check
from leakage.data.adult import binary_feature
from leakage.estimation.concentration import beta_star
from leakage.tables import read_table
from leakage.mechanisms.additive import (
    gaussian_delta1,
    gaussian_delta_star,
    gaussian_epsilon_star,
    pldp_gaussian_delta,
)
from leakage.experiments.empirical_pml.adult import PATHS
from leakage.validation import (
    MAX_POINTS,
    check_choice,
    check_claims_call,
    check_count,
    check_figure_call,
    check_input_file,
    check_list,
    check_mapping,
    check_probability,
    check_scalar,
    in_setting,
    setting,
)

#: The binary features of the Adult experiment.
FEATURES = ("income", "sex")

ADULT_COLUMNS = ["feature", "method", "eps", "delta", "m", "b_mean", "mi_mean", "mi_std"]
GAUSS_COLUMNS = ["panel", "sigma", "p_hat", "m", "method", "eps", "eps_star", "delta_star"]


# ----------------------------------------------------------------------------- fig4, fig5


def _adult_table(settings: dict, rng: np.random.Generator, inputs: dict, curves) -> pd.DataFrame:
    features = setting(settings, "features", check_list, lambda f, name: check_choice(f, name, FEATURES))
    if len(set(features)) != len(features):
        raise ValueError(f"features must list a feature once, got {features}")
    m_min = setting(settings, "m_min", check_count)
    m_max = setting(settings, "m_max", check_count)
    n_m = setting(settings, "n_m", check_count, high=MAX_POINTS)
    iterations = setting(settings, "iterations", check_count, high=MAX_POINTS)
    path = setting(settings, "path", check_choice, PATHS)
    m_values = sample_sizes(m_min, m_max, n_m)
    table = read_table(check_input_file(inputs, "adult"), usecols=features, dtype=str)
    if m_values.max() > len(table):
        raise ValueError(f"m_max must be <= the number of records {len(table)}, got {int(m_values.max())}")
    parts = []
    for feature, child in zip(features, rng.spawn(len(features))):
        bits = binary_feature(table, feature)
        b, mi = simulate(bits, m_values, curves, iterations, child, path=path)
        parts.append(summarize(feature, m_values, curves, b, mi))
    return pd.concat(parts, ignore_index=True)[ADULT_COLUMNS]


def fig4(settings, rng, inputs):
    """Empirical MI (67) of Laplace releases of income and sex, PML (delta, b from (50)) vs LDP (b = 2/eps)."""
    settings = check_figure_call(settings, rng, inputs)
    eps = setting(settings, "eps", check_list, _positive_eps)
    delta = setting(settings, "delta", check_probability)
    curves = [Setting(method, e, d) for e in eps for method, d in (("pml", delta), ("ldp", 0.0))]
    return _adult_table(settings, rng, inputs, curves)


def _positive_eps(value, name: str) -> float:
    return check_scalar(value, name, low=0.0, low_inclusive=False, finite=True)


def fig5(settings, rng, inputs):
    """Empirical MI (67) at eps = log 2 for PML with several delta, and LDP (delta = 0)."""
    settings = check_figure_call(settings, rng, inputs)
    eps = setting(settings, "eps", _positive_eps)
    deltas = setting(settings, "deltas", check_list, check_probability)
    curves = [Setting("pml", eps, d) for d in deltas] + [Setting("ldp", eps, 0.0)]
    return _adult_table(settings, rng, inputs, curves)


# ----------------------------------------------------------------------------- fig6, fig7


def _panel(value, name: str) -> dict:
    panel = check_mapping(value, name, required=("panel", "sigma"))
    if not isinstance(panel["panel"], str) or not panel["panel"]:
        raise TypeError(f"{name}.panel must be a panel label (a string), got {panel['panel']!r:.100}")
    panel["sigma"] = check_scalar(panel["sigma"], f"{name}.sigma", low=0.0, low_inclusive=False, finite=True)
    return panel


def _gauss_table(settings: dict) -> pd.DataFrame:
    rows = []
    p_hat = setting(settings, "p_hat", check_scalar, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    delta2 = setting(settings, "delta2", check_probability)
    panels = setting(settings, "panels", check_list, _panel)
    ms = setting(settings, "m", check_list, check_count)
    n_eps = setting(settings, "n_eps", check_count, high=MAX_POINTS)
    eps_star_max = setting(settings, "eps_star_max", _positive_eps)
    n_pldp = setting(settings, "n_pldp", check_count, high=MAX_POINTS)
    for panel in panels:
        sigma = panel["sigma"]
        for m in ms:
            beta = beta_star(delta2, int(m))
            eps_top = float(np.log(2.0 / beta))  # eq. (64) needs beta e^eps < 2
            for eps in np.linspace(0.0, eps_top, n_eps + 2)[1:-1]:
                delta1, _ = gaussian_delta1(eps, sigma, p_hat, beta)
                rows.append(
                    {
                        "panel": panel["panel"],
                        "sigma": sigma,
                        "p_hat": p_hat,
                        "m": int(m),
                        "method": "pml",
                        "eps": float(eps),
                        "eps_star": float(gaussian_epsilon_star(eps, beta)),
                        "delta_star": float(gaussian_delta_star(delta1, delta2)),
                    }
                )
        grid = np.linspace(0.0, eps_star_max, n_pldp + 1)[1:]
        for eps, delta in zip(grid, pldp_gaussian_delta(grid, sigma)):
            rows.append(
                {
                    "panel": panel["panel"],
                    "sigma": sigma,
                    "p_hat": p_hat,
                    "m": None,
                    "method": "pldp",
                    "eps": float(eps),
                    "eps_star": float(eps),
                    "delta_star": float(delta),
                }
            )
    out = pd.DataFrame(rows, columns=GAUSS_COLUMNS)
    out["m"] = out["m"].astype("Int64")
    return out


def fig6(settings, rng, inputs):
    """(eps*, delta*) curves of the binary Gaussian mechanism (64)-(65) vs the pLDP mechanism (70), p̂ = 0.5."""
    return _gauss_table(check_figure_call(settings, rng, inputs, rng_optional=True))


def fig7(settings, rng, inputs):
    """As fig6 with a skewed estimate p̂ = 0.3 (panel a, sigma = 1.5)."""
    return _gauss_table(check_figure_call(settings, rng, inputs, rng_optional=True))


FIGURES = {"fig4": fig4, "fig5": fig5, "fig6": fig6, "fig7": fig7}


# ----------------------------------------------------------------------------- claims


def _claims_fig4(t: pd.DataFrame):
    out = []
    worst, gains_ok, gain_detail = None, True, []
    for (feature, eps), g in t.groupby(["feature", "eps"]):
        pml = g[g.method == "pml"].set_index("m")["mi_mean"]
        ldp = g[g.method == "ldp"].set_index("m")["mi_mean"]
        diff = (pml - ldp).dropna()
        j = diff.idxmin()
        if worst is None or diff[j] < worst[0]:
            worst = (float(diff[j]), feature, eps, int(j), float(pml[j]), float(ldp[j]))
        gain = (pml - ldp) / ldp
        lo, hi = float(gain[gain.index.min()]), float(gain[gain.index.max()])
        gains_ok &= hi > lo
        gain_detail.append(f"{feature} eps={eps:g}: {lo:.3g} -> {hi:.3g}")
    out.append(
        check(
            "fig4",
            "mi_mean(pml) >= mi_mean(ldp) for every feature, eps and m",
            worst[0] >= 0,
            f"min pml - ldp = {worst[0]:.3g} at {worst[1]} eps={worst[2]:g} m={worst[3]} "
            f"(pml {worst[4]:.5g}, ldp {worst[5]:.5g})",
        )
    )
    out.append(
        check(
            "fig4",
            "relative MI gain of pml over ldp is larger at the largest m than at the smallest m",
            gains_ok,
            "; ".join(gain_detail),
        )
    )
    return out


def _claims_fig5(t: pd.DataFrame):
    mono_bad, ldp_bad = [], []
    n = 0
    for (feature, m), g in t.groupby(["feature", "m"]):
        n += 1
        pml = g[g.method == "pml"].sort_values("delta", ascending=False)["mi_mean"].to_numpy()
        ldp = float(g[g.method == "ldp"]["mi_mean"].iloc[0])
        seq = np.append(pml, ldp)  # delta decreasing, ending at delta = 0 (ldp)
        steps = np.diff(seq)
        if np.any(steps > 1e-12):
            mono_bad.append(f"{feature} m={m}: max increase {steps.max():.3g}")
        if ldp > pml.min() + 1e-12:
            ldp_bad.append(f"{feature} m={m}: ldp {ldp:.5g} > min pml {pml.min():.5g}")
    return [
        check(
            "fig5",
            "for every m, mi_mean is non-increasing as delta decreases (ldp = delta 0 last)",
            not mono_bad,
            f"{n - len(mono_bad)}/{n} (feature, m) monotone" + ("; " + "; ".join(mono_bad[:6]) if mono_bad else ""),
        ),
        check(
            "fig5",
            "ldp has the smallest mi_mean at every m",
            not ldp_bad,
            f"{n - len(ldp_bad)}/{n} (feature, m) hold" + ("; " + "; ".join(ldp_bad[:6]) if ldp_bad else ""),
        ),
    ]


def _first_eps_star(g: pd.DataFrame, level: float) -> float:
    hit = g[g.delta_star <= level]
    return float(hit.eps_star.min()) if len(hit) else float("inf")


def _claims_fig6(t: pd.DataFrame, delta2: float):
    pml = t[t.method == "pml"]
    lowest = float(pml.delta_star.min())
    out = [
        check(
            "fig6",
            "delta_star >= delta2 for every pml row",
            lowest >= delta2 * (1 - 1e-12),
            f"min delta_star {lowest:.6g}, delta2 {delta2:g}",
        )
    ]
    bad, n = [], 0
    for (panel, m), g in pml[pml.m >= 1000].groupby(["panel", "m"]):
        sigma = float(g.sigma.iloc[0])
        pldp = np.asarray(pldp_gaussian_delta(g.eps_star.to_numpy(), sigma))
        where = pldp > delta2
        n += int(where.sum())
        excess = g.delta_star.to_numpy()[where] - pldp[where]
        if excess.size and excess.max() > 0:
            k = int(np.argmax(excess))
            bad.append(
                f"panel {panel} m={m}: at eps*={g.eps_star.to_numpy()[where][k]:.4g} pml "
                f"{g.delta_star.to_numpy()[where][k]:.4g} > pldp {pldp[where][k]:.4g}"
            )
    out.append(
        check(
            "fig6",
            "for m >= 1000 the pml curve lies below the pldp curve wherever pldp delta > delta2",
            not bad,
            f"{n} points compared" + ("; " + "; ".join(bad) if bad else ""),
        )
    )
    return out


def _claims_fig7(t7: pd.DataFrame, t6: pd.DataFrame, level: float = 1e-3):
    detail, ok = [], True
    a6 = t6[(t6.method == "pml") & (t6.panel == "a")]
    for m, g7 in t7[(t7.method == "pml") & (t7.panel == "a")].groupby("m"):
        g6 = a6[a6.m == m]
        e7, e6 = _first_eps_star(g7, level), _first_eps_star(g6, level)
        ok &= e7 > e6  # inf > inf is False: a curve that never reaches the level cannot be compared
        note = ""
        if np.isinf(e6):
            note = (f" (neither reaches {level:g} on eps in (0, log(2/beta)); lowest delta_star "
                    f"{g7.delta_star.min():.3g} vs {g6.delta_star.min():.3g})")
        detail.append(f"m={int(m)}: {e7:.4g} vs {e6:.4g}{note}")
    return [
        check(
            "fig7",
            f"for every m the smallest eps_star with delta_star <= {level:g} is larger than in fig6 panel a",
            ok,
            "p_hat 0.3 vs 0.5: " + "; ".join(detail),
        )
    ]


def check_claims(tables, settings, rng=None):
    """The claims of fig4-fig7 (docs/figures.md) on the computed tables (``rng``: unused, may be
    None; tables of the other figures of the paper are ignored)."""
    tables, settings = check_claims_call(tables, settings, rng)
    out = []
    if "fig4" in tables:
        out += _claims_fig4(tables["fig4"])
    if "fig5" in tables:
        out += _claims_fig5(tables["fig5"])
    if "fig6" in tables:
        with in_setting("fig6"):
            delta2 = setting(setting(settings, "fig6", check_mapping), "delta2", check_probability)
        out += _claims_fig6(tables["fig6"], delta2)
    if "fig7" in tables and "fig6" in tables:
        out += _claims_fig7(tables["fig7"], tables["fig6"])
    return out
