import numpy as np
import pandas as pd
import pytest

from leakage.data.adult import binary_feature, categorical_column, parse_raw

from adult_design_helpers import SAMPLE, raw_column


def test_binary_feature_maps_minority_label_to_minus_one():
    t = pd.DataFrame({"income": [">50K", "<=50K", "<=50K"], "sex": ["Male", "Female", "Male"]})
    assert binary_feature(t, "income").tolist() == [-1, 1, 1]
    assert binary_feature(t, "sex").tolist() == [1, -1, 1]


def test_binary_feature_rejects_unknown():
    with pytest.raises(ValueError, match="feature must be one of"):
        binary_feature(pd.DataFrame({"age": [1]}), "age")
    with pytest.raises(ValueError, match="labels"):
        binary_feature(pd.DataFrame({"sex": ["x"]}), "sex")


# ------------------------------------------------------------------ categorical attributes (adult-design)


@pytest.fixture(scope="module")
def table():
    return parse_raw(SAMPLE / "adult.data", SAMPLE / "adult.test")


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
