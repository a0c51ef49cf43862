"""Helpers of the adult-design tests: the shipped Adult sample, a column read from it with plain
string operations (not the code under test), the study's settings (config.yaml's section with a
small, fast study merged in) and mechanisms.csv rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

from conftest import ROOT
from shipped_config import shipped

SAMPLE = ROOT / "tests" / "data" / "adult_sample"
COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
           "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
           "native-country", "income"]  # fmt: skip


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
SMALL = shipped("adult-design", {
    "attributes": ["sex", "income"], "eps": [1.0], "curve": {"n_eps": 2},
    "mc_attributes": ["sex"], "mc": {"m_min": 100, "n_m": 2, "iterations": 2},
    "heatmap": {"attribute": "sex", "eps": 1.0}, "release": {"eps": 1.0},
    "frequency": {"repetitions": 20, "histogram_attribute": "sex", "histogram_eps": 1.0},
})  # fmt: skip


def mechanism_rows(attribute, method, channel, eps=1.0):
    """mechanisms.csv rows of one channel (its non-zero entries)."""
    xs, ys = np.nonzero(channel)
    return pd.DataFrame([{"attribute": attribute, "method": method, "eps": eps, "delta": 1e-6, "beta": 0.1, "x": x,
                          "y": y, "probability": channel[x, y]} for x, y in zip(xs, ys)])  # fmt: skip
