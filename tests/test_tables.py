"""The one table writer and its reader (leakage.tables): a table survives the round trip, an empty
field is the only missing value, the bytes are the same on every write; writes are atomic, and the
temporary files a killed writer leaves behind are removed."""

from __future__ import annotations

import csv
import os

import numpy as np
import pandas as pd
import pytest

from leakage.tables import atomic_output, atomic_path, read_table, remove_stale_temporaries, save_table


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


def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(tmp_path):
    out = tmp_path / "fig3b.pdf"
    stale = tmp_path / ".fig3b.pdf.tmp4242"  # left by a writer killed with SIGKILL
    stale.write_bytes(b"%PDF half")
    other = tmp_path / ".fig3b.pdf.tmpnotes"  # not a writer's name (no pid): kept
    other.write_text("x")
    neighbour = tmp_path / ".fig3a.pdf.tmp4242"  # another output's: kept
    neighbour.write_text("x")
    with atomic_output(out) as tmp:
        assert tmp == atomic_path(out) and not stale.exists()
        tmp.write_bytes(b"%PDF whole")
    assert out.read_bytes() == b"%PDF whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".fig3a.pdf.tmp4242", ".fig3b.pdf.tmpnotes", "fig3b.pdf"]


def test_a_failed_write_leaves_nothing(tmp_path):
    out = tmp_path / "t.csv"
    with pytest.raises(RuntimeError):
        with atomic_output(out) as tmp:
            tmp.write_text("a,b\n1,")
            raise RuntimeError("the job dies")
    assert list(tmp_path.iterdir()) == []


def test_save_table_writes_the_same_bytes_and_cleans_up(tmp_path):
    out = tmp_path / "sub" / "t.csv"
    out.parent.mkdir()
    (out.parent / f".t.csv.tmp{os.getpid() + 1}").write_text("stale")
    save_table(pd.DataFrame({"a": [1.5, 2.0], "b": ["x", None]}), out)
    assert out.read_bytes() == b"a,b\n1.5,x\n2.0,\n"
    assert remove_stale_temporaries(out) == [] and sorted(p.name for p in out.parent.iterdir()) == ["t.csv"]
