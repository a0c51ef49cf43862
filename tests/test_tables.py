"""The one table writer and its reader (leakage.tables): a table survives the round trip, an empty
field is the only missing value, and the bytes are the same on every write."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd

from leakage.tables import read_table, save_table


def test_round_trip_keeps_values_and_only_empty_fields_are_missing(tmp_path):
    table = pd.DataFrame(
        {
            "category": ["NA", "null", "N/A", "?", "nan", "Female"],
            "reason": ["", "route (44) empty", "", "x", "", ""],
            "mi": [0.1, 1 / 3, np.nan, 1e-300, 2.0, 0.0],
            "feasible": [True, False, True, True, False, True],
        }
    )
    path = save_table(table, tmp_path / "sub" / "t.csv")
    # what is on disk, read with the csv module (not pandas): missing values are empty fields
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["category", "reason", "mi", "feasible"]
    assert [r[0] for r in rows[1:]] == ["NA", "null", "N/A", "?", "nan", "Female"]
    assert rows[3][2] == "" and rows[1][1] == ""
    back = read_table(path)
    assert back["category"].tolist() == table["category"].tolist()  # no label is taken for NaN
    assert back["reason"].isna().tolist() == [True, False, True, False, True, True]
    assert back["mi"].isna().tolist() == [False, False, True, False, False, False]
    assert back["mi"][1] == 1 / 3 and back["mi"][3] == 1e-300  # full float precision
    assert back["feasible"].tolist() == table["feasible"].tolist()


def test_the_same_table_gives_the_same_bytes(tmp_path):
    table = pd.DataFrame({"x": [1, 2], "p": [0.25, np.nan], "name": ["a", ""]})
    first = save_table(table, tmp_path / "a.csv").read_bytes()
    again = save_table(read_table(tmp_path / "a.csv"), tmp_path / "b.csv").read_bytes()
    assert first == again and b"\r" not in first
    assert not list(tmp_path.glob(".*tmp*"))  # no temporary file left beside the table


def test_read_options_reach_pandas(tmp_path):
    save_table(pd.DataFrame({"holds": [True, False], "n": [1, 2]}), tmp_path / "c.csv")
    assert read_table(tmp_path / "c.csv", dtype={"holds": str})["holds"].tolist() == ["True", "False"]
