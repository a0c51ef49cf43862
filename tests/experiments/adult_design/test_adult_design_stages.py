"""adult-design stages (leakage.experiments.adult_design.stages): estimate, design, release, the
Monte Carlo, and the settings check.

The designs come from the real engine (``leakage.design.optimal_mechanism``); the tests keep to
small alphabets so that it stays fast. Expected counts are taken from the raw sample with plain
string operations, not from the code under test.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from leakage.data.adult import categorical_column, parse_raw
from leakage.experiments.adult_design import figures as study
from leakage.experiments.adult_design import stages
from leakage.measures.dp import randomized_response
from leakage.tables import save_table

from adult_design_helpers import SAMPLE, SMALL, mechanism_rows as _rows, raw_column
from shipped_config import merged, shipped


@pytest.fixture(scope="module")
def table():
    return parse_raw(SAMPLE / "adult.data", SAMPLE / "adult.test")


# ------------------------------------------------------------------ estimate


def test_estimate_names_the_config_key_of_a_single_category(table):
    with pytest.raises(ValueError, match=r"adult-design\.attributes: .*'race' has a single category"):
        stages.estimate_priors(table.assign(race="White"), ["race"])


def test_priors_sum_to_one_and_counts_match_the_data(table):
    priors = stages.estimate_priors(table, ["race", "native-country", "occupation"])
    assert list(priors.columns) == ["attribute", "category", "count", "p_hat"]
    for attribute, g in priors.groupby("attribute"):
        assert g["p_hat"].sum() == pytest.approx(1.0, abs=1e-12)
        raw = raw_column(attribute)
        assert dict(zip(g["category"], g["count"])) == {c: raw.count(c) for c in set(raw)}
        assert np.allclose(g["p_hat"], g["count"] / len(raw))


# ------------------------------------------------------------------ design


def test_design_attribute_mechanisms_row_stochastic_and_fig2_consistent(table):
    priors = stages.estimate_priors(table, SMALL["attributes"])
    mechs, curve = stages.design_attribute(priors, "sex", SMALL)
    assert list(mechs.columns) == stages.MECHANISM_COLUMNS
    assert set(mechs["method"]) == set(stages.METHODS)
    n = (priors["attribute"] == "sex").sum()
    for method, rows in mechs.groupby("method"):
        c = stages.channel_from_rows(rows, n)
        assert c.shape[0] == n and c.shape[1] <= n
        assert np.allclose(c.sum(axis=1), 1.0, atol=1e-9) and (c >= 0).all()
        assert (rows["probability"] > 0).all()  # zero entries left out
    assert len(stages.curve_eps(stages.check_settings(SMALL))) >= 3
    assert curve["mi"].notna().all()
    # the engine's certified bound follows the required columns: never below the design's MI
    assert list(curve.columns[-2:]) == ["certified", "bound"] and list(mechs.columns[-2:]) == ["bound", "certified"]
    feasible = curve[curve["feasible"]]
    assert (feasible["bound"] >= feasible["mi"] - 1e-9).all()
    claim = study.consistency_claim(priors, mechs, curve, [1.0])
    assert claim.holds, claim.detail
    assert all(c.holds for c in study.guarantee_claims(priors, mechs)), study.guarantee_claims(priors, mechs)


def test_route_44_empty_is_recorded_not_nan():
    mech = stages.design("pml_prop2", [0.5, 0.3, 0.2], 0.1, 1.5)  # eps' = 0.1 - log(1 + 0.83) < 0
    assert not mech.feasible and "eps'" in mech.reason and mech.mi([0.5, 0.3, 0.2]) == 0.0


# ------------------------------------------------------------------ release


def test_release_row_aligned_valid_reproducible_and_secure_differs(table):
    categories, codes = categorical_column(table, "workclass")  # with '?'
    mechs = _rows("workclass", "pml", randomized_response(len(categories), 1.0))  # any channel will do
    seeded = {**SMALL, "attributes": ["workclass"], "release": {"eps": 1.0, "rng": "seeded"}}
    priors = stages.estimate_priors(table, ["workclass"])
    a = stages.release_attribute(table, mechs, "workclass", seeded, priors=priors, seed=7)
    b = stages.release_attribute(table, mechs, "workclass", seeded, priors=priors, seed=7)
    assert list(a.columns) == ["workclass"] and len(a) == len(table) == 500
    assert set(a["workclass"]) <= set(categories) and "?" in categories
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(stages.release_attribute(table, mechs, "workclass", seeded, priors=priors, seed=8))
    secure = {**seeded, "release": {"eps": 1.0, "rng": "secure"}}
    s1 = stages.release_attribute(table, mechs, "workclass", secure, priors=priors, seed=7)
    s2 = stages.release_attribute(table, mechs, "workclass", secure, priors=priors, seed=7)
    assert not s1.equals(a) and not s1.equals(s2)
    # row-aligned: through the identity, the release is the column itself
    same = stages.release_attribute(table, _rows("workclass", "pml", np.eye(len(categories))), "workclass", seeded, priors=priors, seed=7)
    assert same["workclass"].tolist() == raw_column("workclass")
    with pytest.raises(ValueError, match="adult-design.release.eps"):
        stages.release_attribute(table, mechs, "workclass", {**seeded, "eps": [2.0], "release": {"eps": 2.0, "rng": "seeded"}}, priors=priors, seed=7)


def test_monte_carlo_common_random_numbers_and_figure_tables(table, tmp_path):
    mc = stages.monte_carlo(table, "sex", SMALL, np.random.default_rng(1))
    assert set(mc["m"]) == {100, 500} and mc["mi_empirical"].notna().all()
    assert len(mc) == 2 * 2 * len(stages.METHODS)
    path = tmp_path / "sex.csv"
    save_table(mc, path)
    f1 = study.fig1({}, None, {"mc_sex": path})
    assert list(f1.columns)[:6] == ["attribute", "method", "eps", "m", "mi_mean", "mi_std"]
    f4 = study.fig4({}, None, {"mc_sex": path})
    assert list(f4.columns)[:5] == ["attribute", "eps", "m", "mi_exact", "mi_prop2"]
    # common random numbers: per (m, iteration) every method saw the same subset (same categories seen)
    assert (mc.groupby(["m", "iteration"])["n_observed"].nunique() == 1).all()


# ------------------------------------------------------------------ settings


@pytest.mark.parametrize(
    "section, key",
    [
        ({"attributes": [""]}, "attributes"),
        ({"protocol": "same"}, "protocol"),
        ({"mc": {"release_m": 1}}, "mc.release_m"),
        ({"dataset": {"source": "csv"}}, "dataset.path"),
        ({"dataset": {"split": {"kind": "random"}}}, "dataset.split.fraction"),
        ({"attributes": []}, "attributes"),
        ({"eps": [0.0]}, "eps"),
        ({"delta": 1.5}, "delta"),
        ({"mc": {"iterations": 0}}, "mc.iterations"),
        ({"engine": {"tol": 0}}, "engine.tol"),
        ({"engine": {"max_iterations": 0}}, "engine.max_iterations"),
        ({"mc": {"max_nodes": 0}}, "mc.max_nodes"),
        ({"engine": {"max_seconds": 10}}, "engine.max_seconds"),
        ({"release": {"rng": "urandom"}}, "release.rng"),
        ({"bogus": 1}, "bogus"),
    ],
)
def test_bad_settings_refused_naming_the_key(section, key):
    with pytest.raises(ValueError, match=re.escape(f"adult-design.{key}")):
        stages.check_settings(merged(SMALL, section))


def test_settings_have_no_defaults_a_missing_key_is_refused():
    """config.yaml holds the defaults: the library fills nothing in and names what is missing."""
    assert stages.check_settings(SMALL)["mc"] == {**SMALL["mc"], "eps": float(SMALL["mc"]["eps"]), "tol": float(SMALL["mc"]["tol"])}
    with pytest.raises(ValueError, match=re.escape("adult-design.curve: missing")):
        stages.check_settings({k: v for k, v in SMALL.items() if k != "curve"}, ("eps", "curve"))
    with pytest.raises(ValueError, match=re.escape("adult-design.mc.n_m: missing")):
        stages.check_settings({"mc": {k: v for k, v in SMALL["mc"].items() if k != "n_m"}})
    with pytest.raises(ValueError, match=re.escape("adult-design.engine: missing")):
        stages.design_attribute(pd.DataFrame(), "sex", {k: v for k, v in SMALL.items() if k != "engine"})
    assert set(stages.SECTION_KEYS) == set(SMALL)  # the library knows exactly config.yaml's keys


def test_an_engine_failure_is_recorded_not_a_value(monkeypatch):
    import leakage.design

    def broken(*args, **kwargs):
        raise RuntimeError("master LP failed: Unknown")

    monkeypatch.setattr(leakage.design, "optimal_mechanism", broken)
    mech = stages.design("pml", [0.5, 0.3, 0.2], 1.0, 0.1)
    assert not mech.feasible and mech.reason.startswith(stages.ENGINE_FAILED) and mech.mi([0.5, 0.3, 0.2]) == 0.0


def test_design_passes_the_configured_budgets_never_a_clock(monkeypatch):
    import leakage.design as engine

    seen = []
    real = engine.optimal_mechanism

    def spy(*args, **kwargs):
        seen.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "optimal_mechanism", spy)
    s = stages.check_settings(merged(SMALL, {"engine": {"tol": 1e-5, "max_iterations": 7, "max_nodes": 300}}))
    budget = stages.engine_budget(s["engine"])
    p = np.array([0.6, 0.3, 0.1])
    for method in ("pml", "ldp"):
        mech = stages.design(method, p, 1.0, 0.05, budget)
        assert mech.feasible and mech.bound >= mech.mi(p) - 1e-9
    assert seen and all(k.get("tol") == 1e-5 and k.get("max_iterations") == 7 and k.get("max_nodes") == 300
                        and k.get("max_seconds") is None for k in seen)
    assert stages.engine_budget(stages.check_settings(SMALL)["mc"]) == {k: SMALL["mc"][k] for k in stages.ENGINE_KEYS}


def test_curve_eps_has_no_near_duplicates_and_keeps_the_config_eps():
    # the shipped grid 0.1..4 (12 log-spaced points) holds 0.535, 1.046 and 2.045 beside 0.5, 1 and 2
    settings = stages.check_settings(shipped("adult-design"))
    grid = stages.curve_eps(settings)
    assert set(settings["eps"]) <= set(grid.tolist())
    step = np.log(settings["curve"]["eps_max"] / settings["curve"]["eps_min"]) / (settings["curve"]["n_eps"] - 1)
    assert np.diff(np.log(grid)).min() >= step / 4


# ------------------------------------------------------------------ protocol split


def _raw_counts(name, attribute):
    i = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation", "relationship",
         "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country", "income"].index(attribute)
    values = [line.split(",")[i].strip().rstrip(".") for line in (SAMPLE / name).read_text().splitlines()
              if line.strip() and not line.startswith("|")]  # fmt: skip
    return {v: values.count(v) for v in set(values)}


@pytest.fixture(scope="module")
def parts(table):
    from leakage.data.categorical import study_parts

    dataset = stages.build_dataset(SMALL, table, provenance={"parts": {"adult.data": 300, "adult.test": 200}},
                                   rng=np.random.default_rng(0))
    return study_parts(dataset, "split")


def test_split_priors_count_the_design_part_and_the_histogram_the_release_part(parts):
    design, release = parts
    priors = stages.estimate_priors(design, ["race", "workclass"])
    hist = stages.release_histogram(priors, release)
    assert list(hist.columns) == list(priors.columns)
    for attribute in ("race", "workclass"):
        p, h = priors[priors["attribute"] == attribute], hist[hist["attribute"] == attribute]
        assert dict(zip(p["category"], p["count"])) == _raw_counts("adult.data", attribute)
        assert h["category"].tolist() == p["category"].tolist()  # the mechanisms' input order
        test_counts = _raw_counts("adult.test", attribute)
        assert dict(zip(h["category"], h["count"])) == {c: test_counts.get(c, 0) for c in p["category"]}
        assert h["p_hat"].sum() == pytest.approx(1.0)
    # beta* counts the design part's records
    _, _, m = stages.prior_of(priors, "race")
    assert m == 300
    with pytest.raises(ValueError, match=r"categories \['Martian'\] outside the given categories"):
        stages.release_histogram(priors, release.assign(race=["Martian"] + release["race"].tolist()[1:]))


def test_split_release_is_the_release_part_row_aligned(parts):
    design, release = parts
    priors = stages.estimate_priors(design, ["sex"])
    categories = priors["category"].tolist()
    seeded = {**SMALL, "release": {"eps": 1.0, "rng": "seeded"}}
    same = stages.release_attribute(release, _rows("sex", "pml", np.eye(2)), "sex", seeded, priors=priors, seed=1)
    assert same["sex"].tolist() == release["sex"].tolist() and len(same) == 200
    assert set(categories) == {"Male", "Female"}


def test_split_monte_carlo_releases_an_independent_draw_of_the_release_part(parts):
    """A release part of one category: every released draw has X constant, so its empirical MI is 0
    whatever the design; the same subsets released themselves (same-records) show MI > 0."""
    design, release = parts
    female = release[release["sex"] == "Female"].reset_index(drop=True)
    split = stages.monte_carlo(design, "sex", SMALL, np.random.default_rng(3), female)
    same = stages.monte_carlo(design, "sex", SMALL, np.random.default_rng(3))
    assert set(split["m"]) == set(same["m"]) == {100, 300}  # m up to the design part's 300 records
    assert (split["mi_empirical"] == 0).all() and (same["mi_empirical"] > 0).any()
    # the designs come from the design subsets alone: the same exact MI under the subset's P̂
    assert np.allclose(split["mi_exact"], same["mi_exact"])
    small = stages.monte_carlo(design, "sex", merged(SMALL, {"mc": {"release_m": 5}}), np.random.default_rng(3), release)
    assert (small["mi_empirical"] <= np.log(2) + 1e-12).all()
