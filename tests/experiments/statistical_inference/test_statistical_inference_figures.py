"""statistical-inference: figure tables, claims, plots and the config schema."""

import math

import numpy as np
import pytest
import yaml

from leakage.experiments.statistical_inference import figures as si
from leakage.measures.information import binary_entropy
from leakage.plots.statistical_inference import PLOTS

FIG1 = {
    "n": 5,
    "p": 0.4,
    "distortion": "squared_error",
    "distortion_points": 5,
    "methods": ["average_leakage", "maximum_leakage", "geometric_dp"],
    "tol": 1e-4,
}
FIG2 = {"eps": 1.0, "k": 10, "n_min": 10, "n_max": 1000, "n_points": 5}
CLAIMS = {"random_channels": 20, "inputs": 4, "outputs": 3}


@pytest.fixture(scope="module")
def tables():
    rng = np.random.default_rng(0)
    return {"fig1": si.fig1(FIG1, rng, {}), "fig2": si.fig2(FIG2, rng, {})}


def test_fig1_table(tables):
    t = tables["fig1"]
    assert list(t.columns[:5]) == ["method", "n", "p", "distortion", "leakage"]
    assert len(t) == 3 * FIG1["distortion_points"]
    assert t["distortion"].max() == pytest.approx(5 * 0.4 * 0.6)
    zero = t[t["distortion"] == 0].set_index("method")["leakage"]
    # Delta = 0 forces U = Y: maximum leakage H(S) = n h(p) (outputs 0 and n reveal S)
    assert zero["maximum_leakage"] == pytest.approx(5 * binary_entropy(0.4), abs=1e-3)
    assert zero["geometric_dp"] == pytest.approx(zero["average_leakage"], abs=1e-6)
    assert np.isfinite(t["leakage"]).all()


def test_fig2_table(tables):
    t = tables["fig2"]
    assert list(t.columns) == ["eps", "k", "n", "mi_lower_bound", "mi_exact"]
    assert (t["n"] % 10 == 0).all() and t["n"].is_monotonic_increasing
    assert t["n"].iloc[0] == 10 and t["n"].iloc[-1] == 1000
    assert (t["mi_exact"] <= np.log1p(t["n"] / 10) + 1e-12).all()  # I(Y;U) <= H(Y)


def test_claims_hold_on_small_settings(tables):
    settings = {"fig1": FIG1, "fig2": FIG2, "claims": CLAIMS}
    claims = si.check_claims(tables, settings, np.random.default_rng(7))
    by_text = {c.claim: c for c in claims}
    failing = [c for c in claims if not c.holds]
    # the only expected failure: the per-output (maximum leakage) reading of Theorem 3's remark
    assert [c.claim for c in failing] == [k for k in by_text if "heavy state" in k]
    assert all(c.detail for c in claims)


def test_claims_report_a_violation_with_numbers(tables):
    bad = tables["fig1"].copy()
    mask = bad["method"] == "average_leakage"
    bad.loc[mask, "leakage"] = bad.loc[mask, "leakage"].to_numpy()[::-1]  # now increasing
    claims = si.check_claims({"fig1": bad}, {"fig1": FIG1, "fig2": FIG2, "claims": CLAIMS}, np.random.default_rng(7))
    c = next(c for c in claims if c.claim.startswith("average_leakage leakage is non-increasing"))
    assert not c.holds and "largest increase" in c.detail


def test_plots_draw(tables):
    for fig_id, table in tables.items():
        fig = PLOTS[fig_id](table, {})
        ax = fig.axes[0]
        assert "nats" in ax.get_ylabel() and ax.get_xlabel()
        assert ax.get_legend() is not None
    assert PLOTS["fig2"](tables["fig2"], {}).axes[0].get_xscale() == "log"


def test_config_section_matches_schema(repo_root):
    import jsonschema

    schema = yaml.safe_load((repo_root / "workflow/schemas/statistical-inference.schema.yaml").read_text())
    section = yaml.safe_load((repo_root / "config.yaml").read_text())["statistical-inference"]
    jsonschema.validate(section, schema)
    for fig in ("fig1", "fig2", "claims"):  # config.yaml holds every default; the schema requires every key
        props = schema["properties"][fig]["properties"]
        assert set(props) == set(section[fig]) == set(schema["properties"][fig]["required"])
        assert not any("default" in spec for spec in props.values())
    with pytest.raises(jsonschema.ValidationError, match="typo"):
        jsonschema.validate({**section, "fig1": {**section["fig1"], "typo": 1}}, schema)
    with pytest.raises(jsonschema.ValidationError, match="1.5"):
        jsonschema.validate({**section, "fig1": {**section["fig1"], "p": 1.5}}, schema)
    assert math.isclose(section["fig1"]["p"], 0.3) and section["fig2"]["n_max"] == 10_000
