"""The UCI Adult data set as binary features in {-1, +1} (empirical-pml, seed 000, Sec. VI-C1).

The paper does not say which label of a feature is x1 = -1; results do not depend on it (the
leakage and the mutual information are symmetric in the labels). This project maps the minority
label to -1, so that p_hat = P̂(X = x1) is the smaller probability.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: feature -> (label mapped to -1, label mapped to +1), as in the canonical table's columns.
BINARY_FEATURES = {
    "income": (">50K", "<=50K"),
    "sex": ("Female", "Male"),
}


def binary_feature(table: pd.DataFrame, feature: str) -> np.ndarray:
    """The column ``feature`` of the canonical Adult table mapped to {-1, +1} (int8)."""
    try:
        minus, plus = BINARY_FEATURES[feature]
    except KeyError:
        raise ValueError(f"feature must be one of {sorted(BINARY_FEATURES)}, got {feature!r}") from None
    values = table[feature].astype(str).str.strip()
    unknown = sorted(set(values.unique()) - {minus, plus})
    if unknown:
        raise ValueError(f"feature {feature!r} has labels {unknown} besides {minus!r} and {plus!r}")
    return np.where(values.to_numpy() == minus, -1, 1).astype(np.int8)
