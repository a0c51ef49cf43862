"""adult-design frequency stages (leakage.experiments.adult_design.frequency) on small synthetic
tables: the estimation-optimal designs against the MI designs and randomized response, the
estimate read back from a release, and the frequency comparison against closed forms.

Independent references: randomized response's total variance in closed form, the empirical
histogram of a release simulated record by record, and scipy's chi-square for the fast samplers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from leakage.experiments.adult_design import figures as study
from leakage.experiments.adult_design import frequency as fq
from leakage.experiments.adult_design import stages
from leakage.measures.dp import randomized_response, ldp_epsilon
from leakage.mechanisms.release import channel_output_counts, channel_outputs

from shipped_config import shipped

COUNTS = {"a": 500, "b": 300, "c": 150, "d": 50}


def _settings(**frequency):
    s = shipped("adult-design")
    s["eps"] = [1.0]
    s["frequency"].update(repetitions=60, **frequency)
    s["frequency"]["histogram_attribute"] = "race"
    return s


def _priors():
    total = sum(COUNTS.values())
    return pd.DataFrame({"attribute": "race", "category": list(COUNTS), "count": list(COUNTS.values()),
                         "p_hat": [v / total for v in COUNTS.values()]})


def _rr_rows(eps=1.0):
    mech = stages.Mechanism("rr", eps, 0.0, randomized_response(len(COUNTS), eps))
    return pd.DataFrame(stages.mechanism_rows("race", mech, 1e-6), columns=stages.MECHANISM_COLUMNS)


def _rr_total_variance(k, eps, f, m):
    # closed form for k-ary randomized response with the records fixed (GRR of [wang2017])
    e = np.exp(eps)
    p, q = e / (e + k - 1), 1 / (e + k - 1)
    return float(np.sum(f * p * (1 - p) + (1 - f) * q * (1 - q)) / (m * (p - q) ** 2))


@pytest.fixture(scope="module")
def designs():
    rr = _rr_rows()
    return pd.concat([rr, fq.mse_designs(_priors(), rr, "race", _settings())], ignore_index=True)


def test_mse_designs_private_certified_and_better_than_rr(designs):
    m = sum(COUNTS.values())
    f = np.array(list(COUNTS.values())) / m
    mse = {}
    for method, rows in designs.groupby("method"):
        c = stages.channel_from_rows(rows, len(COUNTS))
        assert np.allclose(c.sum(axis=1), 1.0)
        if method != "pml_mse":
            assert ldp_epsilon(c) <= 1.0 + 1e-9
        mse[method] = fq.frequency_mse(c, f, m)
        if method != "rr":
            assert rows["certified"].all()
            assert rows["bound"].iloc[0] <= mse[method] * m + 1e-9
    assert mse["rr"] == pytest.approx(_rr_total_variance(4, 1.0, f, m), rel=1e-10)
    assert mse["pml_mse"] <= mse["ldp_mse"] <= mse["rr"] * (1 + 1e-9)


def test_estimate_release_reads_only_the_release_and_the_mechanism():
    rng = np.random.default_rng(3)
    records = np.repeat(np.arange(4), list(COUNTS.values()))
    channel = randomized_response(4, 1.0)
    y = channel_outputs(channel, records, rng.random(records.size))
    release = pd.DataFrame({"race": np.array(list(COUNTS))[y]})
    mech = _rr_rows().assign(method="pml")
    est = fq.estimate_release(release, mech, _priors(), "race", {"release": {"eps": 1.0, "rng": "seeded"}})
    assert list(est.columns) == fq.ESTIMATE_COLUMNS
    # independent: the least-squares inverse of RR on the empirical output histogram
    q_hat = np.bincount(y, minlength=4) / y.size
    direct = np.linalg.solve(channel.T, q_hat)
    assert est["estimate"].to_numpy() == pytest.approx(direct, abs=1e-9)
    assert (est["true_count"].to_numpy() == list(COUNTS.values())).all()
    assert (est["lower"] < est["estimate"]).all() and (est["estimate"] < est["upper"]).all()


def test_a_merging_mechanism_is_reported_not_identifiable():
    merged = np.array([[1.0, 0.0], [1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    mech = stages.Mechanism("pml", 1.0, 0.0, merged)
    rows = pd.DataFrame(stages.mechanism_rows("race", mech, 1e-6), columns=stages.MECHANISM_COLUMNS)
    release = pd.DataFrame({"race": ["a", "b"] * 10})
    est = fq.estimate_release(release, rows, _priors(), "race", {"release": {"eps": 1.0, "rng": "seeded"}})
    assert not est["identifiable"].any() and est["estimate"].isna().all()


def test_frequency_comparison_agrees_with_closed_forms_and_is_deterministic(designs):
    s = _settings()
    table = fq.frequency_comparison(_priors(), designs, "race", s, np.random.default_rng(7))
    again = fq.frequency_comparison(_priors(), designs, "race", s, np.random.default_rng(7))
    pd.testing.assert_frame_equal(table, again)
    assert list(table.columns) == fq.FREQUENCY_COLUMNS
    assert set(table["method"]) == {"rr", "pml_mse", "ldp_mse", "oue", "olh", "ss", "hr"}
    m = sum(COUNTS.values())
    f = np.array(list(COUNTS.values())) / m
    rr = table[table["method"] == "rr"].iloc[0]
    assert rr["mse_theory"] == pytest.approx(_rr_total_variance(4, 1.0, f, m), rel=1e-10)
    # SS at k = 4, eps = 1 reports d = round(4 / (e + 1)) = 1 category: it is randomized response
    ss = table[table["method"] == "ss"].iloc[0]
    assert ss["mse_theory"] == pytest.approx(_rr_total_variance(4, 1.0, f, m), rel=1e-10)
    # Hadamard response at k = 4: a report supports its value w.p. e/(e+1), another w.p. 1/2
    hr_p = math.e / (math.e + 1)
    hr = table[table["method"] == "hr"].iloc[0]
    assert hr["mse_theory"] == pytest.approx((hr_p * (1 - hr_p) + 3 / 4) / (m * (hr_p - 0.5) ** 2), rel=1e-10)
    designed = table["method"].isin(["pml_mse", "ldp_mse"])
    assert (table.loc[designed, "mse_bound"] <= table.loc[designed, "mse_theory"] * (1 + 1e-9)).all()
    assert table.loc[designed, "certified"].all() and table.loc[~designed, "mse_bound"].isna().all()
    z = (table["mse"] - table["mse_theory"]).abs() / table["mse_stderr"]
    assert (z < 5).all(), table
    assert ((table["coverage"] > 0.85) & (table["coverage"] <= 1)).all()
    claims = study.frequency_claims(table, 1e-6)
    assert {c.claim for c in claims if not c.holds} <= {c.claim for c in claims if "coverage" in c.claim}


def test_fast_sampler_matches_a_per_record_release():
    # the comparison's channel releases draw output counts as multinomials per category; a release
    # simulated record by record must have the same distribution (chi-square on one output's count)
    rng = np.random.default_rng(12)
    channel = randomized_response(3, 0.7)
    counts = np.array([40, 25, 10])
    records = np.repeat(np.arange(3), counts)
    fast = np.array([channel_output_counts(channel, counts, rng)[0] for _ in range(2000)])
    slow = np.array([np.bincount(channel_outputs(channel, records, rng.random(records.size)), minlength=3)[0]
                     for _ in range(2000)])
    bins = np.arange(min(fast.min(), slow.min()), max(fast.max(), slow.max()) + 2)
    table = np.array([np.histogram(fast, bins)[0], np.histogram(slow, bins)[0]])
    table = table[:, table.sum(axis=0) > 0]
    assert stats.chi2_contingency(table)[1] > 1e-3
    assert abs(fast.mean() - slow.mean()) < 4 * np.sqrt(fast.var() / 2000 + slow.var() / 2000)


def test_frequency_settings_refused_naming_the_key():
    s = _settings()
    s["frequency"]["repetitions"] = 1
    with pytest.raises(ValueError, match=r"adult-design\.frequency\.repetitions"):
        stages.check_settings(s)
    s = _settings(histogram_methods=["mle"])
    with pytest.raises(ValueError, match=r"adult-design\.frequency\.histogram_methods"):
        stages.check_settings(s)
