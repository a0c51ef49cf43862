"""Study adult-design (beyond the papers): PML mechanisms designed from estimated distributions of
Adult's categorical attributes, against optimal LDP and randomized response.

Stages (``stages``): estimate priors -> design per attribute -> release a column; the Monte Carlo
of fig1/fig4 per attribute. The figure tables here only gather those stage outputs:

* fig1: empirical MI (67) [empirical-pml, eq. (67)] between the m true and released values vs m;
* fig2: exact I(X;Y) under the design part's P̂ vs eps, every attribute and method;
* fig3: the designed mechanisms as heatmaps (config ``heatmap``);
* fig4: what route (44) [empirical-pml, Proposition 2] loses against the exact optimum vs m.

``check_claims(tables, settings, rng, inputs)`` additionally reads ``priors.csv`` and
``mechanisms.csv`` (``inputs``) to verify every mechanism's guarantee independently of the design
engine, with ``leakage.estimation.uncertainty.local_leakage_capacity_on_ball`` (closed form and LP) and
``leakage.measures.dp.ldp_epsilon``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from leakage.claims import check
from leakage.experiments.adult_design.frequency import histogram_release
from leakage.measures.dp import ldp_epsilon
from leakage.experiments.adult_design.stages import (
    ENGINE_FAILED,
    METHODS,
    SECTION_KEYS,
    channel_from_rows,
    check_settings,
    prior_of,
)
from leakage.measures.information import mutual_information
from leakage.estimation.uncertainty import local_leakage_capacity_on_ball
from leakage.tables import read_table
from leakage.validation import (
    check_claims_call,
    check_figure_call,
    check_frame,
    check_input_file,
    check_list,
    check_mapping,
    check_scalar,
    check_tolerance,
)

FIG1_COLUMNS = ["attribute", "method", "eps", "m", "mi_mean", "mi_std", "mi_exact_mean", "n_feasible", "n_certified",
                "iterations", "reason"]
FIG2_COLUMNS = ["attribute", "method", "eps", "mi", "feasible", "reason", "certified", "bound"]
FIG3_COLUMNS = ["attribute", "method", "eps", "x", "y", "probability", "x_category", "y_category"]
FIG4_COLUMNS = ["attribute", "eps", "m", "mi_exact", "mi_prop2", "mi_exact_std", "mi_prop2_std", "prop2_feasible", "reason"]

FIG5_COLUMNS = ["attribute", "method", "eps", "m", "mse", "mse_theory", "coverage", "repetitions", "mse_stderr",
                "mse_bound", "certified", "intervals"]

#: How many standard errors of the repetitions' mean the empirical MSE may lie from its formula.
MSE_SIGMAS = 4.0
#: The range the coverage of the 95 % intervals must lie in.
COVERAGE_RANGE = (0.93, 0.97)

#: Numerical slack of the claims (nats): the design engine solves convex programs to ~1e-9.
TOL = 1e-7


def _gather(inputs: dict, prefix: str) -> pd.DataFrame:
    inputs = check_mapping(inputs, "inputs")
    parts = [read_table(check_input_file(inputs, name)) for name in sorted(inputs) if str(name).startswith(prefix)]
    if not parts:
        raise ValueError(f"adult-design: no inputs named {prefix}* (got {sorted(inputs)})")
    return pd.concat(parts, ignore_index=True)


def _bool(series: pd.Series) -> pd.Series:
    return series.astype(str).str.lower().isin(["true", "1"])


def fig1(settings, rng, inputs):
    """Empirical MI (67) vs m per MC attribute and method at ``mc.eps`` (mean, std over iterations)."""
    check_settings(check_figure_call(settings, rng, inputs, rng_optional=True))
    mc = _gather(inputs, "mc_")
    mc["feasible"], mc["certified"] = _bool(mc["feasible"]), _bool(mc["certified"])
    mc["reason"] = mc["reason"].astype(object).where(mc["reason"].notna(), "")
    g = mc.groupby(["attribute", "method", "eps", "m"], sort=False)
    out = g.agg(
        mi_mean=("mi_empirical", "mean"), mi_std=("mi_empirical", lambda v: float(np.std(v, ddof=1)) if len(v) > 1 else 0.0),
        mi_exact_mean=("mi_exact", "mean"), n_feasible=("feasible", "sum"), n_certified=("certified", "sum"),
        iterations=("iteration", "count"), reason=("reason", lambda v: "; ".join(sorted({x for x in v if x}))),
    ).reset_index()  # fmt: skip
    return out[FIG1_COLUMNS]


def fig2(settings, rng, inputs):
    """Exact I(X;Y) under the design part's P̂ vs eps, every attribute and method (the design jobs' curves)."""
    check_settings(check_figure_call(settings, rng, inputs, rng_optional=True))
    curve = _gather(inputs, "curve_")
    curve["feasible"], curve["certified"] = _bool(curve["feasible"]), _bool(curve["certified"])
    curve["reason"] = curve["reason"].astype(object).where(curve["reason"].notna(), "")
    return curve[FIG2_COLUMNS]


def fig3(settings, rng, inputs):
    """The mechanisms of ``heatmap.attribute`` at ``heatmap.eps`` for ``heatmap.methods``, every entry
    (zeros included), with the category names of ``priors.csv``."""
    check_figure_call(settings, rng, inputs, rng_optional=True)
    s = check_settings(settings, ("heatmap",))
    h = s["heatmap"]
    priors, mechs = read_table(check_input_file(inputs, "priors")), read_table(check_input_file(inputs, "mechanisms"))
    try:
        categories, _, _ = prior_of(priors, h["attribute"])
    except ValueError as exc:
        raise ValueError(f"adult-design.heatmap.attribute: {exc}") from None
    rows = []
    for method in h["methods"]:
        sel = mechs[(mechs["attribute"] == h["attribute"]) & (mechs["method"] == method) & np.isclose(mechs["eps"], h["eps"])]
        if sel.empty:
            raise ValueError(
                f"adult-design.heatmap: no {method} mechanism of {h['attribute']!r} at eps = {h['eps']} in mechanisms.csv "
                "(heatmap.attribute must be in attributes, heatmap.eps in eps, heatmap.methods in methods)"
            )
        c = channel_from_rows(sel, len(categories))
        for x in range(c.shape[0]):
            for y in range(c.shape[1]):
                rows.append({"attribute": h["attribute"], "method": method, "eps": h["eps"], "x": x, "y": y,
                             "probability": float(c[x, y]), "x_category": categories[x], "y_category": categories[y]})  # fmt: skip
    return pd.DataFrame(rows, columns=FIG3_COLUMNS)


def fig4(settings, rng, inputs):
    """Exact I(X;Y) under the subset's P̂: the exact optimum (pml) vs route (44) (pml_prop2), vs m."""
    check_settings(check_figure_call(settings, rng, inputs, rng_optional=True))
    mc = _gather(inputs, "mc_")
    mc["feasible"] = _bool(mc["feasible"])
    mc["reason"] = mc["reason"].astype(object).where(mc["reason"].notna(), "")
    rows = []
    for (attribute, eps, m), g in mc.groupby(["attribute", "eps", "m"], sort=False):
        pml, prop2 = g[g["method"] == "pml"], g[g["method"] == "pml_prop2"]
        if pml.empty or prop2.empty:
            continue
        reasons = sorted(set(prop2.loc[~prop2["feasible"], "reason"]))
        rows.append({
            "attribute": attribute, "eps": eps, "m": m,
            "mi_exact": pml["mi_exact"].mean(), "mi_prop2": prop2["mi_exact"].mean(),
            "mi_exact_std": pml["mi_exact"].std(ddof=1) if len(pml) > 1 else 0.0,
            "mi_prop2_std": prop2["mi_exact"].std(ddof=1) if len(prop2) > 1 else 0.0,
            "prop2_feasible": float(prop2["feasible"].mean()), "reason": "; ".join(reasons),
        })  # fmt: skip
    return pd.DataFrame(rows, columns=FIG4_COLUMNS)


def fig5(settings, rng, inputs):
    """MSE of the estimated histogram vs eps per attribute, every method of the frequency comparison
    (``frequency.csv``, gathered from the per-attribute jobs: :mod:`~leakage.experiments.adult_design.frequency`)."""
    check_settings(check_figure_call(settings, rng, inputs, rng_optional=True), tuple(SECTION_KEYS))
    return _gather(inputs, "frequency_")[FIG5_COLUMNS]


def fig6(settings, rng, inputs):
    """What the analyst sees: one release of ``frequency.histogram_attribute`` through each of
    ``frequency.histogram_methods`` at ``frequency.histogram_eps``, its estimate and 95 % intervals
    against the truth (:func:`~leakage.experiments.adult_design.frequency.histogram_release`)."""
    check_settings(check_figure_call(settings, rng, inputs), tuple(SECTION_KEYS))
    priors, mechs = read_table(check_input_file(inputs, "priors")), read_table(check_input_file(inputs, "mechanisms"))
    return histogram_release(priors, mechs, settings, rng)


FIGURES = {"fig1": fig1, "fig2": fig2, "fig3": fig3, "fig4": fig4, "fig5": fig5, "fig6": fig6}


# --------------------------------------------------------------------------- claims


def _worst(diff: pd.Series, keys: pd.DataFrame) -> str:
    if diff.empty:
        return "no rows"
    i = diff.idxmin()
    return f"smallest difference {diff[i]:.3g} at " + ", ".join(f"{k}={keys.loc[i, k]}" for k in keys.columns)


def _ordering(table: pd.DataFrame, value: str, keys: list[str], high: str, low: str) -> tuple[bool, str]:
    """Whether ``value`` of method ``high`` >= that of ``low`` (up to TOL) at every ``keys``."""
    wide = table.pivot_table(index=keys, columns="method", values=value, aggfunc="first")
    if high not in wide or low not in wide:
        return True, f"{high} or {low} not computed"
    diff = (wide[high] - wide[low]).dropna().reset_index(drop=False)
    d = diff[0] if 0 in diff else diff.iloc[:, -1]
    bad = d < -TOL
    detail = f"{int(bad.sum())} of {len(d)} points violate; " + _worst(d, diff[keys])
    return not bad.any(), detail


def _order_claims(figure: str, table: pd.DataFrame, value: str, keys: list[str], what: str) -> list:
    out = []
    for high, low in (("pml", "pml_prop2"), ("pml", "ldp"), ("ldp", "rr")):
        if {high, low} <= set(table["method"]):
            holds, detail = _ordering(table, value, keys, high, low)
            out.append(check(figure, f"{high} >= {low} ({what}) at every {', '.join(keys)}", holds, detail))
    return out


def guarantee_claims(priors: pd.DataFrame, mechanisms: pd.DataFrame, tol: float = TOL) -> list:
    """Every mechanism of ``mechanisms.csv`` meets its guarantee, checked without the engine:
    pml, pml_prop2 and pml_mse: sup of PML on B_beta(P̂) = C(channel, B_beta(P̂)) <= eps [empirical-pml,
    eq. (23)], closed form (Appendix B) and LP; ldp, ldp_mse and rr: the LDP ratio <= eps; every channel
    row-stochastic."""
    check_frame(priors, "priors", columns=("attribute", "category", "count"))
    check_frame(mechanisms, "mechanisms", columns=("attribute", "method", "eps", "beta", "x", "y", "probability"), empty=True)
    tol = check_tolerance(tol)
    worst = {"pml": (-np.inf, ""), "ldp": (-np.inf, "")}
    count = {"pml": 0, "ldp": 0}
    bad_rows, n_bad_rows = [], 0
    for (attribute, method, eps), rows in mechanisms.groupby(["attribute", "method", "eps"], sort=False):
        categories, p_hat, _ = prior_of(priors, attribute)
        c = channel_from_rows(rows, len(categories))
        row_err = float(np.max(np.abs(c.sum(axis=1) - 1.0)))
        if row_err > 1e-9 or np.any(c < 0):
            n_bad_rows += 1
            bad_rows.append(f"{attribute}/{method}/eps={eps}: max |row sum - 1| = {row_err:.2g}")
        label = f"{attribute}/{method}/eps={eps:g}"
        if method in ("pml", "pml_prop2", "pml_mse"):
            beta = float(rows["beta"].iloc[0])
            leak = max(
                local_leakage_capacity_on_ball(c, p_hat, beta, method="closed_form"),
                local_leakage_capacity_on_ball(c, p_hat, beta, method="lp"),
            )
            kind = "pml"
        else:
            leak, kind = ldp_epsilon(c), "ldp"
        count[kind] += 1
        if leak - eps > worst[kind][0]:
            worst[kind] = (leak - eps, label)
    out = [
        check("mechanisms", "every mechanism is row-stochastic", n_bad_rows == 0,
              f"{n_bad_rows} not row-stochastic" + (": " + "; ".join(bad_rows[:5]) if bad_rows else "")),
    ]  # fmt: skip
    for kind, what in (("pml", "sup of PML on B_beta(P̂) <= eps (pml, pml_prop2, pml_mse)"),
                      ("ldp", "LDP ratio <= eps (ldp, ldp_mse, rr)")):
        excess, where = worst[kind]
        out.append(check("mechanisms", what, excess <= tol,
                         f"{count[kind]} mechanisms; largest leakage - eps = {excess:.3g} nats at {where}"
                         if count[kind] else "no such mechanisms"))  # fmt: skip
    return out


def consistency_claim(priors: pd.DataFrame, mechanisms: pd.DataFrame, fig2_table: pd.DataFrame, eps_values) -> object:
    """fig2's rows at the config's eps equal I(X;Y) under P̂ of the mechanisms in mechanisms.csv
    (an infeasible design has no rows there and mi 0 with its reason in fig2)."""
    check_frame(priors, "priors", columns=("attribute", "category", "count"))
    check_frame(mechanisms, "mechanisms", columns=("attribute", "method", "eps", "x", "y", "probability"), empty=True)
    check_frame(fig2_table, "fig2_table", columns=("attribute", "method", "eps", "mi", "feasible"))
    eps_values = check_list(eps_values, "eps_values", lambda v, name: check_scalar(v, name, low=0.0, high=20.0, low_inclusive=False))
    worst, n, problems = 0.0, 0, []
    for _, r in fig2_table[np.isin(fig2_table["eps"], eps_values)].iterrows():
        rows = mechanisms[(mechanisms["attribute"] == r["attribute"]) & (mechanisms["method"] == r["method"])
                          & np.isclose(mechanisms["eps"], r["eps"], rtol=0, atol=1e-12)]  # fmt: skip
        n += 1
        feasible = str(r["feasible"]).lower() in ("true", "1")
        if rows.empty:
            if feasible or r["mi"] != 0:
                problems.append(f"{r['attribute']}/{r['method']}/eps={r['eps']:g}: no mechanism but mi {r['mi']:.4g}")
            continue
        categories, p_hat, _ = prior_of(priors, r["attribute"])
        mi = mutual_information(channel_from_rows(rows, len(categories)), p_hat)
        worst = max(worst, abs(mi - r["mi"]))
    holds = not problems and worst <= 1e-9 and n > 0
    detail = f"{n} rows at eps {list(eps_values)}; largest |mi(fig2) - mi(mechanisms.csv)| = {worst:.3g}"
    return check("fig2", "fig2 at the config's eps equals the MI of mechanisms.csv", holds,
                 detail + ("; " + "; ".join(problems[:5]) if problems else ""))  # fmt: skip


def gain_claims(fig1_table: pd.DataFrame) -> list:
    """pml's gain over ldp (exact I under the subset's P̂, mean over iterations) grows with m."""
    check_frame(fig1_table, "fig1_table", columns=("attribute", "method", "m", "mi_exact_mean"))
    out = []
    for attribute, g in fig1_table.groupby("attribute", sort=False):
        wide = g.pivot_table(index="m", columns="method", values="mi_exact_mean", aggfunc="first").sort_index()
        if not {"pml", "ldp"} <= set(wide):
            continue
        gain = wide["pml"] - wide["ldp"]
        steps = np.diff(gain.to_numpy())
        drops = [(int(m), float(d)) for m, d in zip(gain.index[1:], steps) if d < -TOL]
        detail = (f"gain {gain.iloc[0]:.4f} nats at m={gain.index[0]} -> {gain.iloc[-1]:.4f} at m={gain.index[-1]}; "
                  f"{len(drops)} decreases" + (f", largest {min(d for _, d in drops):.3g} at m={min(drops, key=lambda t: t[1])[0]}" if drops else ""))  # fmt: skip
        out.append(check("fig1", f"{attribute}: pml's gain over ldp grows with m", not drops, detail))
    return out


def frequency_claims(table: pd.DataFrame, engine_tol: float) -> list:
    """fig5's claims: the empirical MSE agrees with its formula within ``MSE_SIGMAS`` standard errors
    of the repetitions' mean (``mse_stderr``); the 95 % intervals cover the truth in a fraction within
    ``COVERAGE_RANGE`` on every row (attribute, method and eps; rows with no interval of positive
    width are skipped: every category is released exactly); in theory (``mse_theory``), one claim per attribute, pml_mse has the least MSE of all
    methods and ldp_mse at most that of rr, oue, olh, ss, hr and ldp at every eps (every eps-LDP channel, the oracles'
    included, lies in the engine's eps-LDP cone, and every such channel is eps-PML on the ball; the
    oracles' standard estimators are unbiased, so their MSE is at least their channels' best one),
    up to the engine's relative gap ``engine_tol`` (an uncertified design may fail it: the detail
    names it)."""
    check_frame(table, "table", columns=FIG5_COLUMNS)
    engine_tol = check_tolerance(engine_tol, "engine_tol")
    out = []
    z = (table["mse"] - table["mse_theory"]).abs() / table["mse_stderr"]
    bad = table[z > MSE_SIGMAS]
    out.append(check("fig5", f"empirical MSE agrees with its formula within {MSE_SIGMAS:g} standard errors of the "
                     "repetitions' mean, every attribute, method and eps", bad.empty,
                     f"{len(bad)} of {len(table)} rows outside; largest {float(z.max()):.2f} standard errors"
                     + "".join(f"; {r.attribute}/{r.method}/eps={r.eps:g}: {r.mse:.3g} vs {r.mse_theory:.3g}"
                               for r in bad.head(5).itertuples())))  # fmt: skip
    low, high = COVERAGE_RANGE
    for method, g in table.groupby("method", sort=False):
        rows = g[g["intervals"] > 0]
        bad = rows[(rows["coverage"] < low) | (rows["coverage"] > high)]
        out.append(check("fig5", f"{method}: coverage of the 95 % intervals within [{low}, {high}] on every attribute "
                         "and eps (each row)", bad.empty,
                         f"{len(bad)} of {len(rows)} rows outside; per row {rows['coverage'].min():.3f} to "
                         f"{rows['coverage'].max():.3f}"
                         + "".join(f"; {r.attribute}/eps={r.eps:g}: {r.coverage:.3f}" for r in bad.head(5).itertuples())))  # fmt: skip
    for attribute, part in table.groupby("attribute", sort=False):
        wide = part.pivot_table(index="eps", columns="method", values="mse_theory", aggfunc="first")
        for best, others in (("pml_mse", [m for m in wide.columns if m != "pml_mse"]),
                             ("ldp_mse", ["rr", "oue", "olh", "ss", "hr", "ldp"])):
            if best not in wide:
                continue
            others = [m for m in others if m in wide]
            excess = wide[best].to_numpy()[:, None] - (1 + engine_tol) * wide[others].to_numpy()
            worst = np.where(np.isnan(excess), -np.inf, excess)
            bad = np.argwhere(worst > 0)
            where = "; ".join(f"eps={wide.index[i]:g}: {wide[best].iloc[i]:.4g} vs {others[j]} "
                              f"{wide[others[j]].iloc[i]:.4g}" for i, j in bad[:5])
            out.append(check("fig5", f"{attribute}: {best} has an MSE (formula) at or below {', '.join(others)} at "
                             "every eps", bad.size == 0,
                             f"{len(bad)} violations of {int(np.isfinite(excess).sum())} comparisons"
                             + (f": {where}" if where else "")))  # fmt: skip
    return out


def engine_claim(figure: str, table: pd.DataFrame) -> object:
    """Every design the engine was asked for succeeded (no row with reason ENGINE_FAILED)."""
    if not isinstance(figure, str) or not figure:
        raise TypeError(f"figure must be a figure id (a string), got {figure!r:.100}")
    check_frame(table, "table", empty=True)
    reason = table["reason"].astype(str) if "reason" in table else pd.Series([], dtype=str)
    failed = table[reason.str.startswith(ENGINE_FAILED)]
    keys = [k for k in ("attribute", "method", "eps", "m") if k in table]
    where = "; ".join(", ".join(f"{k}={r[k]}" for k in keys) + f": {r['reason'][len(ENGINE_FAILED) + 2:][:80]}"
                      for _, r in failed.head(5).iterrows())  # fmt: skip
    return check(figure, "every design the engine was asked for succeeded", failed.empty,
                 f"{len(failed)} of {len(table)} rows failed" + (f"; first: {where}" if where else ""))  # fmt: skip


def check_claims(tables, settings, rng=None, inputs=None):
    """The study's claims: orderings pml >= pml_prop2 and pml >= ldp >= rr (fig1 exact and empirical,
    fig2, fig4), every mechanism's guarantee (independent check), the gain over LDP growing with m,
    and fig2 consistent with mechanisms.csv (``rng``: unused, may be None; ``inputs``: priors and
    mechanisms, optional)."""
    tables, settings = check_claims_call(tables, settings, rng, figures=FIGURES)
    if inputs is not None:
        inputs = check_mapping(inputs, "inputs")
    s = check_settings(settings, ("eps",))
    out = [engine_claim(fig, tables[fig]) for fig in ("fig2", "fig1") if fig in tables and "reason" in tables[fig]]
    if "fig2" in tables:
        out += _order_claims("fig2", tables["fig2"], "mi", ["attribute", "eps"], "exact I(X;Y) under the design part's P̂")
    if "fig1" in tables:
        t = tables["fig1"]
        out += _order_claims("fig1", t, "mi_exact_mean", ["attribute", "m"], "exact I(X;Y) under the subset's P̂, mean")
        out += _order_claims("fig1", t, "mi_mean", ["attribute", "m"],
                             "empirical MI (67) between the m true and released values, mean over iterations; "
                             "a plug-in estimate, biased upwards at small m")
        out += gain_claims(t)
    if "fig4" in tables and len(tables["fig4"]):
        t4 = tables["fig4"]
        d = t4["mi_exact"] - t4["mi_prop2"]
        out.append(check("fig4", "pml >= pml_prop2 (route (44)) at every attribute and m", (d >= -TOL).all(),
                         f"{int((d < -TOL).sum())} of {len(d)} violate; " + _worst(d, t4[["attribute", "m"]])))  # fmt: skip
    if "fig5" in tables and len(tables["fig5"]):
        out += frequency_claims(tables["fig5"], check_settings(settings, ("engine",))["engine"]["tol"])
    if inputs and "priors" in inputs and "mechanisms" in inputs:
        priors, mechs = read_table(check_input_file(inputs, "priors")), read_table(check_input_file(inputs, "mechanisms"))
        out += guarantee_claims(priors, mechs)
        if "fig2" in tables:
            out.append(consistency_claim(priors, mechs, tables["fig2"], s["eps"]))
    return out


__all__ = ["FIGURES", "METHODS", "check_claims", "guarantee_claims", "consistency_claim", "gain_claims",
           "frequency_claims"]
