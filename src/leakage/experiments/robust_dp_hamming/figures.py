"""robust-dp-hamming: Kalantari, Sankar & Sarwate, robust privacy-utility tradeoffs
under differential privacy and Hamming distortion.

fig1: the three source-set classes on the M = 3 simplex; fig4/fig5: least DP leakage vs distortion
for Class I, II and III sets (M = 6, 10); fig6/fig7: worst-case MI leakage vs DP leakage (Class I
and II). The source sets are read from the data file ``inputs["source_sets"]``
(workflow/data/robust-dp-hamming/source_sets.yaml).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from leakage.validation import (
    MAX_POINTS,
    check_claims_call,
    check_count,
    check_figure_call,
    check_input_file,
    check_list,
    check_mapping,
    check_scalar,
    setting,
)

from leakage.claims import check
from leakage.experiments.robust_dp_hamming.leakage_distortion import (
    class_i_dp_leakage,
    class_i_mi_leakage,
    dp_leakage_curve,
    mi_leakage_curve,
    theorem3_bounds_curve,
)
from leakage.experiments.robust_dp_hamming.source_sets import (
    check_source_set,
    distortion_thresholds,
    source_class,
    uniform_point,
)

#: Order of the nested sets in fig4/fig5 (each set's hull inside the next one's worst case).
NESTED = ["class_II", "class_III_a", "class_III_b", "class_III_c", "class_I"]
#: Tolerance (nats) of the claims comparing two computed leakages.
TOL = 1e-6
#: Below this (nats) an MI leakage counts as zero (the convex solver's accuracy).
ZERO_TOL = 1e-7


def load_source_sets(path: str) -> dict:
    """The source-set data file: ``{"tables": {M: {name: points}}, "fig1": {name: points}}``.

    ``points`` is an ``n x M`` array (validated: distributions, one alphabet size); the word
    ``uniform`` stands for the uniform distribution on M symbols.
    """
    if not isinstance(path, (str, Path)) or not str(path):
        raise TypeError(f"path must be the path of the source-set file, got {path!r:.100}")
    if not Path(path).is_file():
        raise ValueError(f"path must be an existing file (the source sets), got {str(path)!r}")
    with open(path) as fh:
        try:
            raw = yaml.safe_load(fh)
        except yaml.YAMLError as exc:
            raise ValueError(f"{path}: not a YAML file of source sets: {exc}") from None
    if not isinstance(raw, dict) or "tables" not in raw or "fig1" not in raw:
        raise ValueError(f"{path}: expected the keys 'tables' and 'fig1', got {raw!r:.200}")
    tables = {}
    for m, sets in raw["tables"].items():
        m = int(m)
        tables[m] = {}
        for name, pts in sets.items():
            points = uniform_point(m) if pts == "uniform" else check_source_set(pts, f"{path}: tables.{m}.{name}")
            if points.shape[1] != m:
                raise ValueError(f"{path}: tables.{m}.{name} has alphabet size {points.shape[1]}, expected M = {m}")
            tables[m][name] = points
    fig1 = {name: check_source_set(pts, f"{path}: fig1.{name}") for name, pts in raw["fig1"].items()}
    return {"tables": tables, "fig1": fig1}


def _names(values, name: str) -> list[str]:
    return check_list(values, name, _name)


def _name(value, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be the name of a source set (a string), got {value!r:.100}")
    return value


def _sets_of(settings: dict, inputs: dict) -> dict:
    m = setting(settings, "M", check_count, low=2)
    names = setting(settings, "source_sets", _names)
    data = load_source_sets(check_input_file(inputs, "source_sets"))
    if m not in data["tables"]:
        raise ValueError(f"M must be one of {sorted(data['tables'])} (the tables of source_sets.yaml), got {m}")
    sets = data["tables"][m]
    missing = [s for s in names if s not in sets]
    if missing:
        raise ValueError(f"source_sets {missing} not in source_sets.yaml for M = {m}; known: {sorted(sets)}")
    return {name: sets[name] for name in names}


def distortion_grid(settings: dict, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The D values of one curve and whether each is on the common grid.

    Common grid: D_k = k (M-1) / (M n) for k = 1..n; plus, for this set, every threshold D^(k) in
    the grid's range and the point ``jump_offset`` below it (so a jump is drawn as a step).
    """
    settings = check_mapping(settings, "settings")
    points = check_source_set(points)
    m = points.shape[1]
    n = setting(settings, "n_points", check_count, low=1, high=MAX_POINTS)
    offset = setting(settings, "jump_offset", check_scalar, low=0.0, high=1.0, low_inclusive=False)
    top = (m - 1) / m
    grid = np.arange(1, n + 1) * top / n
    thresholds = distortion_thresholds(points)
    extra = np.concatenate([thresholds, thresholds - offset])
    extra = extra[(extra > 0) & (extra <= top)]
    extra = np.setdiff1d(np.unique(extra), grid)
    d = np.concatenate([grid, extra])
    on_grid = np.concatenate([np.ones(grid.size, bool), np.zeros(extra.size, bool)])
    order = np.argsort(d, kind="stable")
    return d[order], on_grid[order]


def _curves(settings: dict, inputs: dict, *, with_mi: bool, with_bounds: bool = False) -> pd.DataFrame:
    frames = []
    sets = _sets_of(settings, inputs)
    m = int(settings["M"])
    for name, points in sets.items():
        d, on_grid = distortion_grid(settings, points)
        cls = source_class(points)
        frame = {
            "M": m,
            "source_set": name,
            "D": d,
            "eps_dp": dp_leakage_curve(points, d),
        }
        if with_mi:
            frame["eps_mi"] = mi_leakage_curve(points, d)
        if with_bounds:  # Theorem 3 (Class III only; empty otherwise)
            lower, upper = theorem3_bounds_curve(points, d) if cls == "III" else (np.nan, np.nan)
            frame["eps_dp_lower"] = lower
            frame["eps_dp_upper"] = upper
        frame.update(
            {
                "on_grid": on_grid,
                "source_class": cls,
                "threshold_last": distortion_thresholds(points)[-1],  # D^(M-1)
            }
        )
        frames.append(pd.DataFrame(frame))
    return pd.concat(frames, ignore_index=True)


def fig1(settings: dict, rng, inputs: dict) -> pd.DataFrame:
    """The M = 3 example source sets: one row per listed point, with the set's class."""
    settings = check_figure_call(settings, rng, inputs, rng_optional=True)
    names = setting(settings, "source_sets", _names)
    sets = load_source_sets(check_input_file(inputs, "source_sets"))["fig1"]
    unknown = [name for name in names if name not in sets]
    if unknown:
        raise ValueError(f"source_sets {unknown} not in source_sets.yaml (fig1); known: {sorted(sets)}")
    rows = []
    for name in names:
        points = sets[name]
        if points.shape[1] != 3:
            raise ValueError(f"fig1 source set {name} must have M = 3 (a ternary plot), got M = {points.shape[1]}")
        cls = source_class(points)
        for k, p in enumerate(points):
            rows.append({"source_set": name, "vertex": k, "p1": p[0], "p2": p[1], "p3": p[2], "source_class": cls})
    return pd.DataFrame(rows)


def dp_figure(settings: dict, rng, inputs: dict) -> pd.DataFrame:
    """fig4/fig5: eps*_DP(P, D) (nats) of each source set on the D grid, and for a Class III set
    Theorem 3's bounds ``eps_dp_lower`` <= eps_dp <= ``eps_dp_upper`` [robust-dp-hamming, eq. (16)]."""
    return _curves(check_figure_call(settings, rng, inputs, rng_optional=True), inputs, with_mi=False, with_bounds=True)


def mi_figure(settings: dict, rng, inputs: dict) -> pd.DataFrame:
    """fig6/fig7: eps*_DP(P, D) and eps*_I(P, D) (nats) of each source set on the D grid."""
    return _curves(check_figure_call(settings, rng, inputs, rng_optional=True), inputs, with_mi=True)


FIGURES = {"fig1": fig1, "fig4": dp_figure, "fig5": dp_figure, "fig6": mi_figure, "fig7": mi_figure}


# ------------------------------------------------------------------------------------------ claims
def _worst(diff: pd.Series, d: pd.Series) -> str:
    k = int(np.argmax(diff.to_numpy()))
    return f"max {diff.iloc[k]:.3g} nats at D = {d.iloc[k]:.6g}"


def _claims_class_i(fig: str, table: pd.DataFrame) -> list:
    out = []
    rows = table[table.source_set == "class_I"]
    if rows.empty:
        return out
    m = int(rows.M.iloc[0])
    err = (rows.eps_dp - class_i_dp_leakage(m, rows.D.to_numpy())).abs()
    out.append(check(fig, "class_I eps_dp equals Theorem 1's log((M-1)(1-D)/D)", err.max() <= TOL,
                     f"M={m}; |LP - closed form| {_worst(err, rows.D)}"))
    if "eps_mi" in rows:
        err = (rows.eps_mi - class_i_mi_leakage(m, rows.D.to_numpy())).abs()
        out.append(check(fig, "class_I eps_mi equals Lemma 5's log M - h(D) - D log(M-1)", err.max() <= TOL,
                         f"M={m}; |minimax - closed form| {_worst(err, rows.D)}"))
    return out


def _claims_nested(fig: str, table: pd.DataFrame) -> list:
    grid = table[table.on_grid.astype(str).str.lower() == "true"]
    wide = grid.pivot(index="D", columns="source_set", values="eps_dp")
    names = [s for s in NESTED if s in wide.columns]
    out = []
    for a, b in zip(names, names[1:]):
        excess = (wide[a] - wide[b]).reset_index(drop=True)
        d = pd.Series(wide.index)
        out.append(check(fig, f"{a} <= {b} for every D (nested sets)", excess.max() <= TOL,
                         f"M={int(table.M.iloc[0])}; {a} - {b}: {_worst(excess, d)} over {len(d)} D"))
    return out


def _claims_mi(fig: str, table: pd.DataFrame) -> list:
    out = []
    m = int(table.M.iloc[0])
    for name, rows in table.groupby("source_set", sort=False):
        excess = rows.eps_mi - rows.eps_dp
        out.append(check(fig, f"{name}: eps_mi <= eps_dp for every D", excess.max() <= TOL,
                         f"M={m}; eps_mi - eps_dp: {_worst(excess, rows.D)}"))
        if name == "class_II":
            thr, what = float(rows.threshold_last.iloc[0]), "Lemma 6's D^(M-1)"
        elif name == "class_I":
            thr, what = (m - 1) / m, "(M-1)/M"
        else:
            continue
        above = rows[rows.D >= thr - 1e-12]
        # positivity on the common grid: jump_offset below (M-1)/M the Class I value is
        # O(jump_offset^2) (Lemma 5 is flat there), under the solver's resolution ZERO_TOL
        on_grid = rows.on_grid.astype(str).str.lower() == "true"
        below = rows[(rows.D < thr - 1e-12) & on_grid]
        zero_above = bool((above.eps_mi <= ZERO_TOL).all())
        pos_below = bool((below.eps_mi > ZERO_TOL).all())
        first_zero = rows[rows.eps_mi <= ZERO_TOL].D.min()
        out.append(check(
            fig, f"{name}: eps_mi is zero exactly from {what} on", zero_above and pos_below,
            f"M={m}; threshold {thr:.6g}; smallest D with eps_mi <= {ZERO_TOL:g}: {first_zero:.6g}; "
            f"max eps_mi from the threshold on {above.eps_mi.max():.3g}; "
            f"min eps_mi below it on the D grid {below.eps_mi.min():.3g} (at D = {below.D.max():.6g})",
        ))
    return out


def _claims_theorem3(fig: str, table: pd.DataFrame) -> list:
    if "eps_dp_lower" not in table or "eps_dp_upper" not in table:
        return []
    rows = table[table.source_class == "III"] if "source_class" in table else table
    rows = rows.dropna(subset=["eps_dp_lower", "eps_dp_upper"])
    if rows.empty:
        return []
    below = (rows.eps_dp_lower - rows.eps_dp).reset_index(drop=True)
    above = (rows.eps_dp - rows.eps_dp_upper).reset_index(drop=True)
    d = rows.D.reset_index(drop=True)
    names = list(dict.fromkeys(rows.source_set))
    gap = (rows.eps_dp_upper - rows.eps_dp_lower).max()
    return [check(
        fig, "Theorem 3: lower <= eps_dp <= upper for every class III set and D",
        below.max() <= TOL and above.max() <= TOL,
        f"M={int(rows.M.iloc[0])}; sets {', '.join(names)}; lower - eps_dp: {_worst(below, d)}; "
        f"eps_dp - upper: {_worst(above, d)}; widest band upper - lower {gap:.3g} nats",
    )]


def check_claims(tables: dict, settings: dict, rng=None) -> list:
    """The paper's statements (docs/figures.md) checked on the figure tables (``rng``: unused, may be None)."""
    tables, settings = check_claims_call(tables, settings, rng, figures=FIGURES)
    out = []
    if "fig1" in tables:
        t = tables["fig1"].drop_duplicates("source_set")
        got = dict(zip(t.source_set, t.source_class))
        want = {"class_I": "I", "class_II": "II", "class_III": "III"}
        ok = all(got.get(k) == v for k, v in want.items() if k in got)
        out.append(check("fig1", "the example sets are of Class I, II and III (Definition 1)", ok,
                         "; ".join(f"{k}: {v}" for k, v in got.items())))
    for fig in ("fig4", "fig5"):
        if fig in tables:
            out += _claims_class_i(fig, tables[fig]) + _claims_nested(fig, tables[fig])
            out += _claims_theorem3(fig, tables[fig])
    for fig in ("fig6", "fig7"):
        if fig in tables:
            out += _claims_class_i(fig, tables[fig]) + _claims_mi(fig, tables[fig])
    return out
