"""worst-case-pml: figure tables, claims, plots and config (Sec. IV, Figs. 1-3)."""

import math

import numpy as np
import pandas as pd
import pytest
import yaml

from leakage.experiments.worst_case_pml import figures as exp
from leakage.plots import worst_case_pml as plots
from leakage.plots.style import color

from shipped_config import shipped

FIG1_COLUMNS = ["eps", "mechanism", "min_utility_mc", "min_utility_exact"]
OPT_COLUMNS = ["pattern", "k", "p_low", "eps_utility_safe", "eps_optimal"]


def _settings(repo_root):
    return yaml.safe_load((repo_root / "config.yaml").read_text())["worst-case-pml"]


def test_registered_figures_and_plots(repo_root):
    rules = (repo_root / "workflow/rules/worst-case-pml.smk").read_text()
    namespace = {"FIGURES": {}}
    exec(rules, namespace)  # the rule file only registers names
    assert namespace["FIGURES"]["worst-case-pml"] == ["fig1", "fig2", "fig3"]
    assert set(exp.FIGURES) == set(plots.PLOTS) == {"fig1", "fig2", "fig3"}


def test_config_defaults_of_figures_md_and_schema(repo_root):
    from snakemake.utils import validate

    s = _settings(repo_root)
    assert s["fig1"] == {
        "n_records": 7, "success_probability": 0.5, "under_report_penalty": 1.0,
        "eps_step": 0.05, "repetitions": 1000,
    }
    for fig, pattern in (("fig2", "one_low_three_high"), ("fig3", "three_low_one_high")):
        assert s[fig]["pattern"] == pattern and s[fig]["alphabet_size"] == 4 and s[fig]["k"] == [2, 3]
        assert (s[fig]["p_low_min"], s[fig]["p_low_max"], s[fig]["p_low_step"]) == (0.01, 0.25, 0.005)
    schema = str(repo_root / "workflow/schemas/worst-case-pml.schema.yaml")
    validate(dict(s), schema)
    for bad in ({"fig2": {"k": [2], "typo": 1}}, {"fig1": {"eps_step": 0}}, {"fig3": {"pattern": "x"}}):
        with pytest.raises(Exception):
            validate(bad, schema)


def test_fig1_table_columns_grid_and_exact_values(repo_root):
    settings = dict(_settings(repo_root)["fig1"], repetitions=200)
    table = exp.fig1(settings, np.random.default_rng(0), {})
    assert list(table.columns[:4]) == FIG1_COLUMNS
    eps = np.sort(table.eps.unique())
    assert eps[0] == 0 and eps[-1] < math.log(128) and len(eps) == 98  # 0..4.85 step 0.05
    np.testing.assert_allclose(np.diff(eps), 0.05, atol=1e-9)
    assert set(table.mechanism) == set(exp.MECHANISMS)
    assert (table.min_utility_mc >= table.min_utility_exact).all()
    # exact worst case of the utility-safe mechanism: the k-th lowest utility over rows, by hand
    u = np.array([[-((x - y) ** 2) - (y < x) for y in range(8)] for x in range(8)], dtype=float)
    kth = {k: max(np.sort(u, axis=1)[:, k - 1].min(), -50) for k in range(1, 9)}
    us = table[table.mechanism == "utility_safe"].set_index("eps").min_utility_exact
    assert us.loc[0.0] == kth[1] == -50
    assert us.loc[0.7] == kth[2] and us.loc[1.5] == kth[4] and us.loc[2.8] == kth[6]
    assert us.loc[0.65] == kth[1] and us.loc[1.45] == kth[2] and us.loc[2.75] == kth[4]
    claims = exp.check_claims({"fig1": table}, {"fig1": settings})
    assert all(c.holds for c in claims), claims


def test_bench_fig2_fig3_lp_sweeps(benchmark, repo_root):
    """The whole default grids of fig2 and fig3 (2 x 2 x 49 values of eps*(k) by LP + bisection)."""
    s = _settings(repo_root)

    def sweep():
        return {f: exp.FIGURES[f](s[f], np.random.default_rng(0), {}) for f in ("fig2", "fig3")}

    tables = benchmark(sweep)
    for fig, pattern in (("fig2", "one_low_three_high"), ("fig3", "three_low_one_high")):
        t = tables[fig]
        assert list(t.columns) == OPT_COLUMNS and len(t) == 98 and set(t.pattern) == {pattern}
        assert (t.eps_optimal <= t.eps_utility_safe + 1e-12).all()
    got = {(c.figure, c.claim): c for c in exp.check_claims(tables, s)}
    assert got[("fig2", "eps_optimal == eps_utility_safe everywhere")].holds
    assert got[("fig3", "eps_optimal == eps_utility_safe for k=3")].holds
    # k = 2 of fig3: eps* = min(-log 3p, log 3/2) (tests/experiments/worst_case_pml/test_programs_worst_case.py), equal to eps_US for
    # p >= 2/9; the claim "strictly lower for every p_low < 0.25" is reported false with the range
    strict = got[("fig3", "for k=2, eps_optimal < eps_utility_safe for p_low < 0.25")]
    assert not strict.holds and "[0.225, 0.245]" in strict.detail
    assert got[("fig3", "for k=2 the gap eps_utility_safe - eps_optimal grows as p_low decreases")].holds


def test_failing_claims_are_reported_with_numbers():
    rows = [
        {"eps": e, "mechanism": m, "min_utility_mc": v, "min_utility_exact": v}
        for e, v in ((0.0, -50.0), (0.05, -37.0), (0.1, -50.0))
        for m in exp.MECHANISMS
    ]
    claims = exp.check_claims({"fig1": pd.DataFrame(rows)}, shipped("worst-case-pml"))  # n = 7 records
    by = {c.claim: c for c in claims}
    mono = by["utility-safe worst case never decreases with eps"]
    assert not mono.holds and "0.1 (-37 -> -50)" in mono.detail
    assert not by["utility-safe worst case jumps exactly at the thresholds eps_US(k)"].holds
    ldp = by["exponential and randomized-response exact worst case stays at the global minimum utility for every eps < eps_max"]
    assert not ldp.holds and "exponential eps=0.05: -37" in ldp.detail
    fig2 = pd.DataFrame(
        {"pattern": "one_low_three_high", "k": [2, 3], "p_low": [0.1, 0.1],
         "eps_utility_safe": [0.5, 1.0], "eps_optimal": [0.4, 1.0]}
    )
    c = exp.check_claims({"fig2": fig2}, {})[0]
    assert not c.holds and "0.1 nats" in c.detail and "p_low=0.100" in c.detail


def test_bad_pattern_settings_raise():
    with pytest.raises(ValueError, match=r"p_low must be in \(0, 1/N\]"):
        exp.pattern_prior("three_low_one_high", 0.3, 4)
    with pytest.raises(ValueError, match="pattern must be one of"):
        exp.pattern_prior("two_low", 0.1, 4)


def test_plots_label_axes_in_nats_and_use_the_paper_colours():
    fig1 = pd.DataFrame(
        [{"eps": e, "mechanism": m, "min_utility_mc": -50.0, "min_utility_exact": -50.0}
         for e in (0.0, 0.05) for m in exp.MECHANISMS]
    )
    ax = plots.PLOTS["fig1"](fig1, shipped("worst-case-pml")["fig1"]).axes[0]
    assert "nats" in ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None
    assert ax.get_title() == f"counting query, n = {shipped('worst-case-pml')['fig1']['n_records']}"
    opt = pd.DataFrame(
        {"pattern": "three_low_one_high", "k": [2, 2, 3, 3], "p_low": [0.1, 0.2] * 2,
         "eps_utility_safe": [1.2, 0.5, 1.6, 0.9], "eps_optimal": [0.4, 0.4, 1.6, 0.9]}
    )
    fig = plots.PLOTS["fig3"](opt, {})
    assert len(fig.axes) == 2
    for ax in fig.axes:
        assert "nats" in ax.get_ylabel() and ax.get_xlabel() and ax.get_legend() is not None
        red, blue = ax.get_lines()[:2]
        assert red.get_color() == color("utility_safe") and blue.get_color() == color("optimal")
