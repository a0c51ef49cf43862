"""Privacy against statistical inference (Calmon & Fawaz, [statistical-inference]): the setting, the
result record and the checks the package's programs share, in nats.

Setting: a private variable S and data Y with joint distribution ``joint[s, y] = p(S=s, Y=y)``; the
user releases U through a privacy-preserving channel ``channel[y, u] = p(U=u | Y=y)``
(S -> Y -> U), under a distortion measure ``distortion_measure[y, u] = d(y, u) >= 0`` and a budget
E d(Y, U) <= distortion. Argument order follows the project: the channel before the
distribution (joint or prior).

The paper's ideas, one module each: :mod:`~leakage.experiments.statistical_inference.measures`
(distortion and leakage of a channel), :mod:`~leakage.experiments.statistical_inference.convex`
(Theorems 1 and 2), :mod:`~leakage.experiments.statistical_inference.corollary2`,
:mod:`~leakage.experiments.statistical_inference.counting_query`,
:mod:`~leakage.experiments.statistical_inference.information_privacy` (Theorem 3) and
:mod:`~leakage.experiments.statistical_inference.theorem4`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leakage.validation import _as_float_array, check_array, check_count, check_scalar, SUM_TOL


def _budget_list(distortions) -> list:
    """``distortions`` as a non-empty list of budgets (a scalar is one budget)."""
    if isinstance(distortions, (str, bytes, dict)) or distortions is None:
        raise TypeError(f"distortions must be a list of distortion budgets, got {distortions!r:.200}")
    arr = np.atleast_1d(np.asarray(distortions, dtype=object))
    if arr.ndim != 1:
        raise ValueError(f"distortions must be a 1-D list of budgets, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError("distortions must list at least one budget")
    return list(arr)


@dataclass(frozen=True)
class Solution:
    """The result of a privacy-mapping design program.

    ``leakage`` (nats) is the optimal value, ``distortion`` the expected distortion
    E d(Y, U) of ``channel`` (``channel[y, u] = p(u | y)``; for Remark 3 ``channel[s, y, u] =
    p(u | y, s)``).
    """

    leakage: float
    distortion: float
    channel: np.ndarray


# ----------------------------------------------------------------------------- validation


def check_joint(joint, name: str = "joint") -> np.ndarray:
    """Return a joint distribution matrix ``joint[s, y]`` after checking entries >= 0, sum 1."""
    j = _as_float_array(joint, name, 2)  # a finite, non-empty |S| x |Y| matrix
    if np.any(j < -SUM_TOL):
        raise ValueError(f"{name} must have entries in [0, 1], got min {j.min():.6g}")
    total = float(j.sum())
    if abs(total - 1.0) > max(SUM_TOL, SUM_TOL * j.size):
        raise ValueError(f"{name} must sum to 1 (a joint distribution p(s, y)), got sum {total:.12g}")
    return np.clip(j, 0.0, None)


def check_distortion(distortion_measure, rows: int, name: str = "distortion_measure") -> np.ndarray:
    """Return a distortion matrix ``d[y, u] >= 0`` with ``rows`` rows (one per value of Y), finite."""
    rows = check_count(rows, "rows")
    d = check_array(distortion_measure, name, ndim=2, empty=True)
    if d.shape[0] != rows or d.shape[1] == 0:
        raise ValueError(f"{name} must be a {rows} x |U| matrix d[y, u] ({rows} rows), got shape {d.shape}")
    if np.any(d < 0):
        raise ValueError(f"{name} must be non-negative (d: Y x U -> R+), got min {d.min():.6g}")
    return d


def _check_budget(distortion, prior_y, d, what: str, name: str = "distortion") -> float:
    """A distortion budget (parameter ``name``) >= the least achievable expected distortion
    sum_y p(y) min_u d(y, u) (``inf``: no constraint)."""
    distortion = check_scalar(distortion, name, low=0.0)
    floor = float(prior_y @ d.min(axis=1))
    if distortion < floor - 1e-12:
        raise ValueError(
            f"{name} must be >= {floor:.6g} = sum_y p(y) min_u distortion_measure[y, u], the smallest "
            f"achievable expected distortion of {what}; got {distortion!r} (infeasible distortion budget)"
        )
    return distortion


def _effective_budget(budget: float, prior_y, d) -> float:
    """The budget the programs need: every budget >= D0 = min_u sum_y p(y) d(y, u) (the best
    constant release, which leaks nothing) has the same optimum, leakage 0, so a larger (or
    infinite) budget is solved at 2 D0 + 1 (finite for the solver, with room above D0)."""
    return min(budget, 2.0 * float((prior_y @ d).min()) + 1.0)


def _scale(d: np.ndarray) -> float:
    """A positive factor bringing a distortion measure with entries beyond 1e6 to at most 1 for the
    convex solvers (the programs' optima do not change when d and the budget are scaled together);
    1 otherwise, so that ordinary measures are solved exactly as given."""
    top = float(d.max())
    return top if top > 1e6 else 1.0


def _one_budget(curve, *args):
    """The single-budget program as its curve at ``[distortion]``, its errors naming ``distortion``."""
    try:
        return curve(*args)[0]
    except (ValueError, TypeError) as exc:
        text = str(exc)
        if text.startswith("distortions[0]"):
            raise type(exc)("distortion" + text[len("distortions[0]"):]) from None
        raise
