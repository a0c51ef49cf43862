"""Numbers the papers state, written once for all tests (paper keys as in docs/references.md)."""

import numpy as np

#: empirical-pml, Example 1: mechanism (34), optimal in the first privacy region for
#: P_X = (2/5, 1/5, 1/5, 1/5) at eps = log(9/8).
EXAMPLE1_MECHANISM = np.array(
    [
        [0.325, 0.225, 0.225, 0.225],
        [0.45, 0.1, 0.225, 0.225],
        [0.45, 0.225, 0.1, 0.225],
        [0.45, 0.225, 0.225, 0.1],
    ]
)
EXAMPLE1_PRIOR = np.array([0.4, 0.2, 0.2, 0.2])
EXAMPLE1_EPS = float(np.log(9 / 8))
