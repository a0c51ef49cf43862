"""No compiled program of statistical_inference (its modules convex and corollary2) keeps state
between calls that can change a result: the same calls in two different orders (and after
unrelated calls) give the same bytes.
(A module-level cache of compiled programs failed this: cvxpy reuses the solver between solves.)"""

from __future__ import annotations

import numpy as np

from leakage.experiments.statistical_inference.convex import min_average_leakage, min_average_leakage_curve
from leakage.experiments.statistical_inference.corollary2 import min_max_leakage_curve
from leakage.experiments.statistical_inference.counting_query import (
    counting_query_conditional_entropy,
    counting_query_prior,
    squared_error,
)

N, P = 4, 0.3
BUDGETS = [0.15, 0.4, 0.8]


def _average(budgets):
    joint = np.diag(counting_query_prior(N, P))
    d = squared_error(N)
    return dict(zip(budgets, min_average_leakage_curve(joint, d, budgets)))


def _minmax(budgets):
    prior, h = counting_query_prior(N, P), counting_query_conditional_entropy(N)
    return dict(zip(budgets, min_max_leakage_curve(prior, h, squared_error(N), budgets, tol=1e-3)))


def _bytes(solutions):
    return {b: (np.float64(s.leakage).tobytes(), np.float64(s.distortion).tobytes(), s.channel.tobytes())
            for b, s in solutions.items()}


def test_results_do_not_depend_on_call_order():
    forward = _bytes(_average(BUDGETS)), _bytes(_minmax(BUDGETS))
    min_average_leakage(np.diag([0.5, 0.5]), [[0.0, 1.0], [1.0, 0.0]], 0.3)  # unrelated program
    backward = _bytes(_average(BUDGETS[::-1])), _bytes(_minmax(BUDGETS[::-1]))
    again = _bytes(_average(BUDGETS[::-1])), _bytes(_minmax(BUDGETS))
    assert forward == backward == again
    joint, d = np.diag(counting_query_prior(N, P)), squared_error(N)
    one_way = {b: min_average_leakage(joint, d, b) for b in (0.8, 0.15)}
    other_way = {b: min_average_leakage(joint, d, b) for b in (0.15, 0.8)}
    assert _bytes(one_way) == _bytes(other_way)
