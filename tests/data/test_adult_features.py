import pandas as pd
import pytest

from leakage.data.adult import binary_feature


def test_binary_feature_maps_minority_label_to_minus_one():
    t = pd.DataFrame({"income": [">50K", "<=50K", "<=50K"], "sex": ["Male", "Female", "Male"]})
    assert binary_feature(t, "income").tolist() == [-1, 1, 1]
    assert binary_feature(t, "sex").tolist() == [1, -1, 1]


def test_binary_feature_rejects_unknown():
    with pytest.raises(ValueError, match="feature must be one of"):
        binary_feature(pd.DataFrame({"age": [1]}), "age")
    with pytest.raises(ValueError, match="labels"):
        binary_feature(pd.DataFrame({"sex": ["x"]}), "sex")
