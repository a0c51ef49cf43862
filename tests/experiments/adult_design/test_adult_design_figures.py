"""adult-design figure tables and claims (leakage.experiments.adult_design.figures): each claim
checker fails on a table built to break it, with the numbers in its detail."""

from __future__ import annotations

import numpy as np
import pandas as pd

from leakage.experiments.adult_design import figures as study
from leakage.experiments.adult_design import stages
from leakage.measures.dp import randomized_response

from adult_design_helpers import mechanism_rows as _rows


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
    assert not verdict["sup of PML on B_beta(P̂) <= eps (pml, pml_prop2, pml_mse)"].holds  # identity leaks log(1/0.15)
    assert not verdict["LDP ratio <= eps (ldp, ldp_mse, rr)"].holds  # rr at eps 2 labelled eps 1
    assert "a/ldp/eps=1" in verdict["LDP ratio <= eps (ldp, ldp_mse, rr)"].detail
    fig2 = pd.DataFrame({"attribute": "a", "method": ["rr"], "eps": [1.0], "mi": [0.9], "feasible": [True]})
    assert not study.consistency_claim(priors, mechs, fig2, [1.0]).holds


def test_an_engine_failure_fails_a_claim():
    reason = f"{stages.ENGINE_FAILED}: RuntimeError: master LP failed: Unknown"
    table = pd.DataFrame({"attribute": "a", "method": ["pml", "rr"], "eps": 1.0, "mi": [0.0, 0.1],
                          "feasible": [False, True], "reason": [reason, ""]})  # fmt: skip
    claim = study.engine_claim("fig2", table)
    assert not claim.holds and "1 of 2 rows failed" in claim.detail and "master LP failed" in claim.detail
