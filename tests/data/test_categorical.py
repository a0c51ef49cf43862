"""Study tables split into a design and a release part (leakage.data.categorical), on the shipped
Adult sample (300 records of adult.data, 200 of adult.test) and small hand-made tables. Expected
counts come from the raw files with plain string operations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from leakage.data.adult import CATEGORICAL_ATTRIBUTES, parse_raw
from leakage.data.categorical import category_codes, split_table, study_parts
from leakage.experiments.adult_design.stages import build_dataset

from adult_design_helpers import COLUMNS, SAMPLE
from shipped_config import shipped


def adult_study_table(table, provenance):
    return build_dataset(shipped("adult-design"), table, provenance=provenance, rng=np.random.default_rng(0))

PARTS = {"adult.data": 300, "adult.test": 200}


def raw_records(name):
    return [[f.strip() for f in line.split(",")] for line in (SAMPLE / name).read_text().splitlines()
            if line.strip() and not line.startswith("|")]  # fmt: skip


@pytest.fixture(scope="module")
def dataset():
    return adult_study_table(parse_raw(SAMPLE / "adult.data", SAMPLE / "adult.test"), {"parts": PARTS})


def test_adult_source_split_is_the_two_raw_files(dataset):
    assert list(dataset.columns) == [*CATEGORICAL_ATTRIBUTES, "part"]
    design, release = study_parts(dataset, "split")
    assert (len(design), len(release)) == (300, 200)
    for part, name in ((design, "adult.data"), (release, "adult.test")):
        raw = raw_records(name)
        for attribute in ("race", "workclass"):
            i = COLUMNS.index(attribute)
            assert part[attribute].fillna("?").tolist() == [r[i] for r in raw]
    both = study_parts(dataset, "same-records")
    assert both[0] is dataset and both[1] is dataset


def test_changing_released_records_leaves_the_design_part_unchanged(dataset):
    """The guarantee of the split protocol: nothing the design sees depends on a released record."""
    altered = dataset.copy()
    altered.loc[altered["part"] == "release", "race"] = "Other"
    pd.testing.assert_frame_equal(study_parts(altered, "split")[0], study_parts(dataset, "split")[0])
    assert not study_parts(altered, "same-records")[0].equals(study_parts(dataset, "same-records")[0])


def test_codes_by_given_categories_and_unseen_categories_refused():
    t = pd.DataFrame({"a": ["x", "y", None, "y"]})
    categories, codes = category_codes(t, "a")
    assert categories == ["y", "?", "x"] and codes.tolist() == [2, 0, 1, 0]
    assert category_codes(t, "a", ["x", "y", "?"])[1].tolist() == [0, 1, 2, 1]
    with pytest.raises(ValueError, match=r"categories \['\?'\] outside the given categories"):
        category_codes(t, "a", ["x", "y"])


def test_column_and_random_splits():
    t = pd.DataFrame({"a": list("xyxyxyxyxy"), "fold": ["train"] * 6 + ["test"] * 4, "n": range(10)})
    by_column = split_table(t, ["a"], {"kind": "column", "column": "fold", "design": "train"})
    assert list(by_column.columns) == ["a", "part"] and by_column["part"].tolist() == ["design"] * 6 + ["release"] * 4
    r1 = split_table(t, ["a", "n"], {"kind": "random", "fraction": 0.3}, rng=np.random.default_rng(5))
    r2 = split_table(t, ["a", "n"], {"kind": "random", "fraction": 0.3}, rng=np.random.default_rng(5))
    pd.testing.assert_frame_equal(r1, r2)
    assert (r1["part"] == "design").sum() == 3 and r1["n"].tolist() == [str(i) for i in range(10)]
    with pytest.raises(ValueError, match="release part is empty"):
        split_table(t, ["a"], {"kind": "source"}, first_part=10)
    with pytest.raises(ValueError, match="split.fraction"):
        split_table(t, ["a"], {"kind": "random", "fraction": 1.0}, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="split.column"):
        split_table(t, ["a"], {"kind": "column", "column": "nope", "design": "x"})


def test_parts_that_do_not_add_up_are_refused():
    table = parse_raw(SAMPLE / "adult.data", SAMPLE / "adult.test")
    with pytest.raises(ValueError, match="provenance.parts: 300 \\+ 199 records, but the table has 500"):
        adult_study_table(table, {"parts": {"adult.data": 300, "adult.test": 199}})


# ----------------------------------------------------------------------------- dataset sources


def _dataset(**overrides):
    d = {"source": "csv", "uci_id": None, "path": None, "url": None, "timeout": 5, "columns": ["a"],
         "split": {"kind": "random", "column": None, "design": None, "fraction": 0.5}}  # fmt: skip
    d.update(overrides)
    return d


def no_fetch(*args):
    raise AssertionError(f"network used: {args}")


def test_csv_url_and_ucimlrepo_sources_read_the_same_table(tmp_path):
    from types import SimpleNamespace

    text = "a,b,n\nx,1,7\n,2,8\ny,,9\n"
    (tmp_path / "t.csv").write_text(text)
    expected = pd.DataFrame({"a": ["x", None, "y"], "b": ["1", "2", None], "n": ["7", "8", "9"]}, dtype=object)
    from leakage.data.categorical import read_source_table

    csv = read_source_table(_dataset(path=str(tmp_path / "t.csv")), fetch_url=no_fetch, fetch_ucirepo=no_fetch)
    pd.testing.assert_frame_equal(csv, expected)
    calls = []
    url = read_source_table(_dataset(source="url", url="https://example.org/t.csv"), fetch_ucirepo=no_fetch,
                            fetch_url=lambda u, t: calls.append((u, t)) or text.encode())  # fmt: skip
    pd.testing.assert_frame_equal(url, expected)
    assert calls == [("https://example.org/t.csv", 5.0)]
    frame = pd.read_csv(tmp_path / "t.csv")  # what the client returns: pandas' own types, NaN missing
    client = SimpleNamespace(data=SimpleNamespace(original=frame))
    uci = read_source_table(_dataset(source="ucimlrepo", uci_id=45), fetch_url=no_fetch,
                            fetch_ucirepo=lambda i, t: client if (i, t) == (45, 5.0) else None)  # fmt: skip
    assert uci["a"].tolist() == ["x", None, "y"] and uci["n"].tolist() == ["7", "8", "9"]


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({}, "dataset.path must be set for dataset.source 'csv'"),
        ({"path": "t.csv", "url": "https://x"}, "dataset.url must be null"),
        ({"source": "ucimlrepo", "uci_id": 0}, "dataset.uci_id"),
        ({"source": "url", "url": "ftp://x"}, "dataset.url must be an http"),
        ({"path": "t.csv", "split": {"kind": "source", "column": None, "design": None, "fraction": None}},
         "'source' needs a source with its own split"),
        ({"path": "t.csv", "split": {"kind": "column", "column": "b", "design": None, "fraction": None}},
         "dataset.split.design must be set"),
        ({"path": "t.csv", "split": {"kind": "random", "column": "b", "design": None, "fraction": 0.5}},
         "dataset.split.column must be null"),
        ({"path": "t.csv", "columns": ["a", "a"]}, "lists a column twice"),
        ({"path": "t.csv", "bogus": 1}, "unknown keys ['bogus']"),
    ],
)
def test_dataset_settings_refused_naming_the_key(overrides, message):
    from leakage.data.categorical import check_dataset

    with pytest.raises((ValueError, TypeError), match=message.replace("[", r"\[").replace("]", r"\]")):
        check_dataset(_dataset(**overrides))


def test_unreadable_or_unreachable_sources_name_the_source(tmp_path):
    from leakage.data.categorical import read_source_table

    with pytest.raises(ValueError, match="dataset.path .* not a readable CSV"):
        read_source_table(_dataset(path=str(tmp_path / "absent.csv")), fetch_url=no_fetch, fetch_ucirepo=no_fetch)

    def down(url, timeout):
        raise OSError("Network is unreachable")

    with pytest.raises(RuntimeError, match="dataset.source url: cannot fetch https://x/t.csv: OSError"):
        read_source_table(_dataset(source="url", url="https://x/t.csv"), fetch_url=down, fetch_ucirepo=no_fetch)
