"""Study adult-design: the stages (estimate, design, release, Monte Carlo), the figure tables, the
claims checkers, config refusal, and the real Snakemake CLI on the shipped Adult sample.

The designs come from the real engine (``leakage.design.optimal_mechanism``); the tests keep to
small alphabets so that it stays fast. Expected counts are taken from the raw sample with plain
string operations, not from the code under test.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from leakage.data.adult import categorical_column, parse_raw
from leakage.measures.dp import randomized_response
from leakage.experiments.adult_design import figures as study
from leakage.experiments.adult_design import stages
from leakage.claims import read_claims
from leakage.tables import read_table

from conftest import ROOT
from test_workflow import CONFIG as WORKFLOW_CONFIG
from test_workflow import finish, jobs_run

SAMPLE = ROOT / "tests" / "data" / "adult_sample"
COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
           "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
           "native-country", "income"]  # fmt: skip
@pytest.fixture(scope="module")
def table():
    return parse_raw(SAMPLE / "adult.data", SAMPLE / "adult.test")


def raw_column(name):
    i = COLUMNS.index(name)
    out = []
    for f in ("adult.data", "adult.test"):
        for line in (SAMPLE / f).read_text().splitlines():
            if line.strip() and not line.startswith("|"):
                out.append(line.split(",")[i].strip())
    return out


# Two-symbol attributes and m >= 100 keep the engine fast: for sex and income beta*(1e-6, m, 2) < 2 min P̂,
# where the engine enumerates; a ball wider than that (race on 500 records) takes it ~4 s per design.
SMALL = {
    "attributes": ["sex", "income"], "eps": [1.0], "curve": {"n_eps": 2},
    "mc_attributes": ["sex"], "mc": {"m_min": 100, "n_m": 2, "iterations": 2},
    "heatmap": {"attribute": "sex", "eps": 1.0},
}  # fmt: skip


# ------------------------------------------------------------------ estimate


def test_categorical_column_keeps_missing_as_category(table):
    categories, codes = categorical_column(table, "workclass")
    raw = raw_column("workclass")
    assert "?" in categories and len(codes) == len(raw) == 500
    assert [categories[c] for c in codes] == raw
    counts = np.bincount(codes)
    assert list(counts) == sorted(counts, reverse=True)  # most frequent first
    assert raw.count("?") == 29 == counts[categories.index("?")]


def test_categorical_column_refuses_unknown_and_single_category(table):
    with pytest.raises(ValueError, match="'age' is not a categorical column"):
        categorical_column(table, "age")
    one = table.assign(race="White")
    with pytest.raises(ValueError, match="'race' has a single category"):
        categorical_column(one, "race")
    with pytest.raises(ValueError, match=r"adult-design\.attributes: .*'race' has a single category"):
        stages.estimate_priors(one, ["race"])


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


def _rows(attribute, method, channel, eps=1.0):
    xs, ys = np.nonzero(channel)
    return pd.DataFrame([{"attribute": attribute, "method": method, "eps": eps, "delta": 1e-6, "beta": 0.1, "x": x,
                          "y": y, "probability": channel[x, y]} for x, y in zip(xs, ys)])  # fmt: skip


def test_release_row_aligned_valid_reproducible_and_secure_differs(table):
    categories, codes = categorical_column(table, "workclass")  # with '?'
    mechs = _rows("workclass", "pml", randomized_response(len(categories), 1.0))  # any channel will do
    seeded = {**SMALL, "attributes": ["workclass"], "release": {"eps": 1.0, "rng": "seeded"}}
    a = stages.release_attribute(table, mechs, "workclass", seeded, seed=7)
    b = stages.release_attribute(table, mechs, "workclass", seeded, seed=7)
    assert list(a.columns) == ["workclass"] and len(a) == len(table) == 500
    assert set(a["workclass"]) <= set(categories) and "?" in categories
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(stages.release_attribute(table, mechs, "workclass", seeded, seed=8))
    secure = {**seeded, "release": {"eps": 1.0, "rng": "secure"}}
    s1 = stages.release_attribute(table, mechs, "workclass", secure, seed=7)
    s2 = stages.release_attribute(table, mechs, "workclass", secure, seed=7)
    assert not s1.equals(a) and not s1.equals(s2)
    # row-aligned: through the identity, the release is the column itself
    same = stages.release_attribute(table, _rows("workclass", "pml", np.eye(len(categories))), "workclass", seeded, seed=7)
    assert same["workclass"].tolist() == raw_column("workclass")
    with pytest.raises(ValueError, match="adult-design.release.eps"):
        stages.release_attribute(table, mechs, "workclass", {**seeded, "eps": [2.0], "release": {"eps": 2.0}}, seed=7)


def test_monte_carlo_common_random_numbers_and_figure_tables(table, tmp_path):
    mc = stages.monte_carlo(table, "sex", SMALL, np.random.default_rng(1))
    assert set(mc["m"]) == {100, 500} and mc["mi_empirical"].notna().all()
    assert len(mc) == 2 * 2 * len(stages.METHODS)
    path = tmp_path / "sex.csv"
    mc.to_csv(path, index=False)
    f1 = study.fig1({}, None, {"mc_sex": path})
    assert list(f1.columns)[:6] == ["attribute", "method", "eps", "m", "mi_mean", "mi_std"]
    f4 = study.fig4({}, None, {"mc_sex": path})
    assert list(f4.columns)[:5] == ["attribute", "eps", "m", "mi_exact", "mi_prop2"]
    # common random numbers: per (m, iteration) every method saw the same subset (same categories seen)
    assert (mc.groupby(["m", "iteration"])["n_observed"].nunique() == 1).all()


# ------------------------------------------------------------------ claims detect violations


def test_claims_detect_a_broken_ordering_and_gain():
    fig2 = pd.DataFrame({"attribute": "race", "method": ["pml", "pml_prop2", "ldp", "rr"], "eps": 1.0,
                         "mi": [0.3, 0.2, 0.35, 0.1], "feasible": True, "reason": ""})  # fmt: skip
    claims = {c.claim: c for c in study._order_claims("fig2", fig2, "mi", ["attribute", "eps"], "x")}
    assert not claims["pml >= ldp (x) at every attribute, eps"].holds
    assert claims["ldp >= rr (x) at every attribute, eps"].holds
    assert "-0.05" in claims["pml >= ldp (x) at every attribute, eps"].detail
    fig1 = pd.DataFrame({"attribute": "race", "method": ["pml", "ldp"] * 3, "m": [10, 10, 100, 100, 1000, 1000],
                         "mi_exact_mean": [0.5, 0.1, 0.4, 0.1, 0.6, 0.1]})  # fmt: skip
    (gain,) = study.gain_claims(fig1)
    assert not gain.holds and "1 decreases" in gain.detail


def test_claims_detect_a_mechanism_that_breaks_its_guarantee():
    priors = pd.DataFrame({"attribute": "a", "category": ["u", "v", "w"], "count": [50, 30, 20], "p_hat": [0.5, 0.3, 0.2]})
    mechs = pd.concat([_rows("a", method, c) for method, c in (
        ("pml", np.eye(3)), ("ldp", randomized_response(3, 2.0)), ("rr", randomized_response(3, 1.0)))], ignore_index=True)
    verdict = {c.claim: c for c in study.guarantee_claims(priors, mechs)}
    assert not verdict["sup of PML on B_beta(P̂) <= eps (pml, pml_prop2)"].holds  # identity leaks log(1/0.15)
    assert not verdict["LDP ratio <= eps (ldp, rr)"].holds  # rr at eps 2 labelled eps 1
    assert "a/ldp/eps=1" in verdict["LDP ratio <= eps (ldp, rr)"].detail
    fig2 = pd.DataFrame({"attribute": "a", "method": ["rr"], "eps": [1.0], "mi": [0.9], "feasible": [True]})
    assert not study.consistency_claim(priors, mechs, fig2, [1.0]).holds


# ------------------------------------------------------------------ config refusal


@pytest.mark.parametrize(
    "section, key",
    [
        ({"attributes": ["age"]}, "attributes"),
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
        stages.check_settings(section)


@pytest.mark.parametrize(
    "section, message",
    [
        ({"attributes": ["age"]}, "'age' is not one of"),
        ({"attributes": []}, "[] should be non-empty"),
        ({"eps": [25]}, "25 is greater than the maximum of 20"),
        ({"delta": 0}, "0 is less than or equal to the minimum of 0"),
        ({"mc_attributes": ["salary"]}, "'salary' is not one of"),
        ({"engine": {"max_iterations": 0}}, "0 is less than the minimum of 1"),
        ({"mc": {"tol": 1.5}}, "1.5 is greater than or equal to the maximum of 1"),
    ],
)
def test_schema_refuses_bad_values(section, message):
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    with pytest.raises(WorkflowError, match=re.escape(message)):
        validate(dict(section), str(ROOT / "workflow/schemas/adult-design.schema.yaml"))


# ------------------------------------------------------------------ the real CLI


def _workdir(path: Path, study_section: dict) -> Path:
    """A working directory with the test config and a link to the library the rules list as inputs."""
    path.mkdir(parents=True)
    config = {**WORKFLOW_CONFIG, "studies": ["adult-design"], "adult-design": study_section}
    (path / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (path / "src").symlink_to(ROOT / "src", target_is_directory=True)
    return path


def _snakemake(workdir: Path, *args: str, background=False):
    import os

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "MPLBACKEND": "Agg"}
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(workdir),
           "--cores", "2", *args]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    return proc if background else finish(proc)


CLI = SMALL
# the stages, every figure table, one drawing (the plot rule is the generic one of the papers)
TARGETS = ["results/adult-design/claims.csv", "results/adult-design/fig2.png",
           "results/adult-design/release/income.csv", "results/adult-design/release/sex.csv"]  # fmt: skip


@pytest.mark.workflow
def test_cli_runs_the_stages_and_refuses_bad_config(tmp_path):
    bad_schema = _snakemake(_workdir(tmp_path / "bad1", {"attributes": ["age"]}), "-n", *TARGETS, background=True)
    bad_cross = _snakemake(_workdir(tmp_path / "bad2", {**CLI, "release": {"eps": 2.0}}), "-n", *TARGETS, background=True)
    single = _workdir(tmp_path / "bad3", CLI)  # a data table whose sex column has one category
    (single / "results/data").mkdir(parents=True)
    rows = [",".join(["39", "Private", "77516", "Bachelors", "13", "Never-married", "Sales", "Husband", race, "Male",
                      "0", "0", "40", "Cuba", inc]) for race, inc in (("White", ">50K"), ("Black", "<=50K"))]  # fmt: skip
    (single / "results/data/adult.csv").write_text(",".join(COLUMNS) + "\n" + "\n".join(rows) + "\n")
    bad_single = _snakemake(single, "-n", *TARGETS, background=True)
    workdir = _workdir(tmp_path / "run", CLI)
    run = _snakemake(workdir, *TARGETS)
    assert run.returncode == 0, run.stdout[-4000:]
    ran = jobs_run(run.stdout)
    assert ran.count("design_attribute") == 2 and ran.count("release_attribute") == 2
    assert ran.count("experiment_monte_carlo") == 1 and "estimate_priors" in ran

    res = workdir / "results/adult-design"
    priors = read_table(res / "priors.csv")
    assert list(priors.columns) == ["attribute", "category", "count", "p_hat"]
    assert priors.groupby("attribute")["count"].sum().tolist() == [500, 500]
    mechs = read_table(res / "mechanisms.csv")
    assert list(mechs.columns) == stages.MECHANISM_COLUMNS and set(mechs["attribute"]) == {"income", "sex"}
    release = read_table(res / "release/sex.csv")
    assert list(release.columns) == ["sex"] and len(release) == 500
    assert set(release["sex"]) <= {"Female", "Male"} and release["sex"].nunique() == 2
    expected_cols = {"fig1": ["attribute", "method", "eps", "m", "mi_mean", "mi_std"],
                     "fig2": ["attribute", "method", "eps", "mi"],
                     "fig3": ["attribute", "method", "eps", "x", "y", "probability"],
                     "fig4": ["attribute", "eps", "m", "mi_exact", "mi_prop2"]}  # fmt: skip
    assert (res / "fig2.png").stat().st_size > 10_000
    for fig, cols in expected_cols.items():
        t = read_table(res / f"{fig}.csv")
        assert list(t.columns)[: len(cols)] == cols, fig
        assert not t[cols].isna().any().any(), fig
    claims = read_claims(res / "claims.csv")
    guar = claims[claims["figure"] == "mechanisms"]
    assert len(guar) == 3 and (guar["holds"] == "true").all(), guar
    assert (claims.loc[claims["claim"].str.contains("equals the MI"), "holds"] == "true").all()

    bad = finish(bad_schema)
    assert bad.returncode != 0 and "'age' is not one of" in bad.stdout and jobs_run(bad.stdout) == []
    report = _snakemake(workdir, "--report", "report.html", *TARGETS)
    assert report.returncode == 0, report.stdout[-3000:]
    html = (workdir / "report.html").read_text(errors="replace")
    assert "adult-design" in html and "beyond the papers" in html

    bad = finish(bad_single)
    assert bad.returncode != 0 and "adult-design.attributes" in bad.stdout and "['sex']" in bad.stdout
    assert "single category" in bad.stdout and jobs_run(bad.stdout) == []
    bad = finish(bad_cross)
    assert bad.returncode != 0 and "adult-design.release.eps" in bad.stdout and jobs_run(bad.stdout) == []


def test_an_engine_failure_is_recorded_and_fails_a_claim(monkeypatch):
    import leakage.design

    def broken(*args, **kwargs):
        raise RuntimeError("master LP failed: Unknown")

    monkeypatch.setattr(leakage.design, "optimal_mechanism", broken)
    mech = stages.design("pml", [0.5, 0.3, 0.2], 1.0, 0.1)
    assert not mech.feasible and mech.reason.startswith(stages.ENGINE_FAILED) and mech.mi([0.5, 0.3, 0.2]) == 0.0
    table = pd.DataFrame({"attribute": "a", "method": ["pml", "rr"], "eps": 1.0, "mi": [0.0, 0.1],
                          "feasible": [False, True], "reason": [mech.reason, ""]})  # fmt: skip
    claim = study.engine_claim("fig2", table)
    assert not claim.holds and "1 of 2 rows failed" in claim.detail and "master LP failed" in claim.detail


def test_design_passes_the_configured_budgets_never_a_clock(monkeypatch):
    import leakage.design as engine

    seen = []
    real = engine.optimal_mechanism

    def spy(*args, **kwargs):
        seen.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "optimal_mechanism", spy)
    s = stages.check_settings({"engine": {"tol": 1e-5, "max_iterations": 7, "max_nodes": 300}})
    budget = stages.engine_budget(s["engine"])
    p = np.array([0.6, 0.3, 0.1])
    for method in ("pml", "ldp"):
        mech = stages.design(method, p, 1.0, 0.05, budget)
        assert mech.feasible and mech.bound >= mech.mi(p) - 1e-9
    assert seen and all(k.get("tol") == 1e-5 and k.get("max_iterations") == 7 and k.get("max_nodes") == 300
                        and k.get("max_seconds") is None for k in seen)
    assert stages.engine_budget(stages.check_settings({})["mc"]) == {"tol": 1e-4, "max_iterations": 30, "max_nodes": 2000}
