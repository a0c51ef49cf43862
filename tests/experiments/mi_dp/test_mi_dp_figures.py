"""mi-dp [mi-dp, Cuff & Yu]: the figures' tables, the claims on them, the plots and the config.

Paper checks: Lemma 1 (eq. 23) on randomized response, Property 1's tightness (Appendix A),
Lemma 2's tight (28) and relaxed (27) forms (Appendix C), checked against closed forms written here.
"""

import math

import numpy as np
import pandas as pd
import pytest
import yaml

from leakage.experiments import check_claims, compute_table
from leakage.plots import plot_figure

LOG2 = math.log(2)
SETTINGS = {"fig1": {"eps_max": 3.0, "n_points": 60}, "fig2": {"eps_mi_max": LOG2, "n_points": 100}}


@pytest.fixture(scope="module")
def tables():
    return {f: compute_table("mi-dp", f, settings=SETTINGS[f], seed=1) for f in ("fig1", "fig2")}


def h_nats(q):
    return -q * math.log(q) - (1 - q) * math.log(1 - q)


def test_fig1_columns_grid_and_values(tables):
    t = tables["fig1"]
    assert list(t.columns) == ["eps", "measure", "value"]
    assert {"eps_dp", "kl_bound", "mi_dp_exact"} <= set(t["measure"])
    eps = np.sort(t["eps"].unique())
    assert len(eps) == 60 and eps[0] > 0 and eps[-1] == pytest.approx(3.0)
    wide = t.pivot(index="eps", columns="measure", values="value")
    e = wide.index.to_numpy()
    np.testing.assert_allclose(wide["eps_dp"], e, atol=1e-12)
    np.testing.assert_allclose(wide["kl_bound"], e * np.tanh(e / 2), rtol=1e-13)
    bsc = np.array([LOG2 - h_nats(1 / (1 + math.exp(x))) for x in e])
    np.testing.assert_allclose(wide["mi_dp_exact"], bsc, atol=1e-9)
    # Lemma 1's sandwich, strict for eps > 0
    assert np.all(wide["mi_dp_exact"] < wide["kl_bound"]) and np.all(wide["kl_bound"] < wide["eps_dp"])


def test_fig2_columns_and_values(tables):
    t = tables["fig2"]
    assert list(t.columns) == ["eps_mi", "delta_tight", "delta_relaxed"]
    assert t["eps_mi"].min() > 0 and t["eps_mi"].max() == pytest.approx(LOG2)
    np.testing.assert_allclose(t["delta_relaxed"], np.sqrt(2 * t["eps_mi"]), rtol=1e-14)
    # the tight delta inverts the BSC capacity log 2 - h((1 - delta)/2) = eps_mi (Appendix C, eq. 98)
    for eps, d in zip(t["eps_mi"], t["delta_tight"]):
        q = (1 - d) / 2
        cap = LOG2 - (h_nats(q) if q > 0 else 0.0)
        assert cap == pytest.approx(eps, abs=1e-12)
    assert t["delta_tight"].is_monotonic_increasing


def test_tables_are_deterministic():
    a = compute_table("mi-dp", "fig1", settings=SETTINGS["fig1"], seed=1)
    b = compute_table("mi-dp", "fig1", settings=SETTINGS["fig1"], seed=2)
    pd.testing.assert_frame_equal(a, b)


def test_all_claims_hold_on_default_tables(tables):
    claims = check_claims("mi-dp", tables, {**SETTINGS}, seed=1)
    assert len(claims) == 7
    failed = [(c.claim, c.detail) for c in claims if not c.holds]
    assert not failed
    assert all(c.detail for c in claims)


def test_claims_report_a_broken_sandwich_with_numbers(tables):
    bad = tables["fig1"].copy()
    sel = (bad["measure"] == "mi_dp_exact") & np.isclose(bad["eps"], 1.0)
    bad.loc[sel, "value"] = 0.9  # above eps tanh(1/2) = 0.462
    claims = {c.claim: c for c in check_claims("mi-dp", {"fig1": bad}, SETTINGS, seed=1)}
    lemma1 = next(c for k, c in claims.items() if k.startswith("Lemma 1"))
    assert not lemma1.holds and "0.438" in lemma1.detail and "at 1" in lemma1.detail
    bsc = next(c for k, c in claims.items() if "BSC capacity" in k)
    assert not bsc.holds


def test_claims_report_a_wrong_tight_delta(tables):
    bad = tables["fig2"].copy()
    bad.loc[10, "delta_tight"] += 0.01
    claims = check_claims("mi-dp", {"fig2": bad}, SETTINGS, seed=1)
    achieved = next(c for c in claims if "achieved" in c.claim)
    assert not achieved.holds and "|capacity - eps_mi|" in achieved.detail


@pytest.mark.parametrize("figure", ["fig1", "fig2"])
def test_plots_label_axes_in_nats_with_legend(tables, figure):
    import matplotlib.pyplot as plt

    fig = plot_figure("mi-dp", figure, tables[figure], SETTINGS[figure])
    ax = fig.axes[0]
    assert "(nats)" in ax.get_xlabel()
    assert ax.get_ylabel()
    assert ax.get_legend() is not None and len(ax.get_legend().get_texts()) >= 2
    plt.close(fig)


def test_config_section_matches_schema_and_defaults(repo_root):
    import jsonschema

    config = yaml.safe_load((repo_root / "config.yaml").read_text())["mi-dp"]
    schema = yaml.safe_load((repo_root / "workflow/schemas/mi-dp.schema.yaml").read_text())
    jsonschema.validate(config, schema)
    for fig, obj in config.items():  # config.yaml holds every default; the schema requires every key
        props = schema["properties"][fig]["properties"]
        assert set(obj) == set(props) == set(schema["properties"][fig]["required"])
        assert not any("default" in spec for spec in props.values())
    assert schema["properties"]["fig2"]["properties"]["eps_mi_max"]["maximum"] == LOG2
    for fig, wrong in (("fig1", {"eps_max": 0}), ("fig2", {"eps_mi_max": 0.7}), ("fig1", {"n_pts": 5}), ("fig3", {})):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**config, fig: {**config.get(fig, {}), **wrong}}, schema)
    with pytest.raises(jsonschema.ValidationError, match="'n_points' is a required property"):
        jsonschema.validate({**config, "fig1": {"eps_max": 3.0}}, schema)


def test_rules_register_the_figures(repo_root):
    text = (repo_root / "workflow/rules/mi-dp.smk").read_text()
    assert 'FIGURES["mi-dp"]' in text and '"fig1"' in text and '"fig2"' in text


@pytest.mark.parametrize("figure", ["fig1", "fig2"])
def test_bench_paper_scale_table(benchmark, figure):
    """Paper-scale table (config defaults); `pytest --benchmark-enable -k bench` measures it."""
    table = benchmark(compute_table, "mi-dp", figure, settings=SETTINGS[figure], seed=1)
    assert len(table) > 0
