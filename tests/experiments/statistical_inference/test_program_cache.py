"""No compiled program of statistical_inference.programs keeps state between calls that can change a
result: the same calls in two different orders (and after unrelated calls) give the same bytes.
(A module-level cache of compiled programs failed this: cvxpy reuses the solver between solves.)"""

from __future__ import annotations

import numpy as np

import leakage.experiments.statistical_inference.programs as inf

N, P = 4, 0.3
BUDGETS = [0.15, 0.4, 0.8]


def _average(budgets):
    joint = np.diag(inf.counting_query_prior(N, P))
    d = inf.squared_error(N)
    return dict(zip(budgets, inf.min_average_leakage_curve(joint, d, budgets)))


def _minmax(budgets):
    prior, h = inf.counting_query_prior(N, P), inf.counting_query_conditional_entropy(N)
    return dict(zip(budgets, inf.min_max_leakage_curve(prior, h, inf.squared_error(N), budgets, tol=1e-3)))


def _bytes(solutions):
    return {b: (np.float64(s.leakage).tobytes(), np.float64(s.distortion).tobytes(), s.channel.tobytes())
            for b, s in solutions.items()}


def test_results_do_not_depend_on_call_order():
    forward = _bytes(_average(BUDGETS)), _bytes(_minmax(BUDGETS))
    inf.min_average_leakage(np.diag([0.5, 0.5]), [[0.0, 1.0], [1.0, 0.0]], 0.3)  # unrelated program
    backward = _bytes(_average(BUDGETS[::-1])), _bytes(_minmax(BUDGETS[::-1]))
    again = _bytes(_average(BUDGETS[::-1])), _bytes(_minmax(BUDGETS))
    assert forward == backward == again
    joint, d = np.diag(inf.counting_query_prior(N, P)), inf.squared_error(N)
    one_way = {b: inf.min_average_leakage(joint, d, b) for b in (0.8, 0.15)}
    other_way = {b: inf.min_average_leakage(joint, d, b) for b in (0.15, 0.8)}
    assert _bytes(one_way) == _bytes(other_way)
