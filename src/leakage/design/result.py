"""The end of the design loop: the result type and the exact privacy check that every returned
channel passes.

What a design returns, and the exact check every returned channel passes.

The design engine's result type (:class:`OptimalDesign`) and its final guarantee check sit below
both designers, :mod:`~leakage.design.optimal` (mutual information, linear utilities) and
:mod:`~leakage.design.frequency` (frequency estimation), which import them from here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from leakage.estimation.uncertainty import ball_min_columns

#: largest leakage (nats) above eps that the final exact check of a returned channel tolerates
VERIFY_TOL = 1e-9


@dataclass(frozen=True)
class OptimalDesign:
    """An optimal mechanism with a certified upper bound on the optimum.

    ``channel`` is N x M row-stochastic; ``value`` its utility (recomputed from ``channel``);
    ``bound`` >= the optimum over all feasible channels; ``certified`` when
    bound - value <= tol (1 + |value|) for the ``tol`` of the call. For ``utility="frequency_mse"``
    (minimised) ``value`` is tr J^-1 - 1, ``bound`` <= the optimum, ``certified`` when
    value - bound <= tol (1 + value), and ``gap`` is negative. ``columns``: the normalised rays
    (N x K, P.r = 1) of the final master with positive weight, for a later ``warm_start``.
    ``stats``: solver statistics (per-search bounds and nodes of the last pricing, and, when the
    design is not certified, ``limited_by``: what held the bound).
    """

    channel: np.ndarray
    value: float
    bound: float
    certified: bool
    prior: np.ndarray
    eps: float
    beta: float
    privacy: str
    utility: str
    method: str
    columns_generated: int
    iterations: int
    seconds: float
    tol: float = 1e-9
    columns: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)
    stats: dict = field(default_factory=dict)

    @property
    def gap(self) -> float:
        return float(self.bound - self.value)


def identity_private(p, eps, beta, privacy) -> bool:
    """Whether the identity channel is already private: eps infinite, a single letter, or (PML on
    the ball) every prior of B_beta(P) keeps each letter above e^-eps [empirical-pml, eq. (31)]."""
    if math.isinf(eps):
        return True
    if privacy == "ldp" or p.size == 1:
        return p.size == 1
    low = p - beta / 2.0
    return bool(np.all(low > 0) and eps >= -math.log(low.min()))


def verify_channel(channel, p, eps, beta, privacy) -> float:
    """The channel's exact leakage (sup of PML over the ball, or the LDP ratio); RuntimeError above eps."""
    top = channel.max(axis=0)
    used = top > 0
    if privacy == "ldp":
        low = channel.min(axis=0)
    else:
        low = np.maximum(ball_min_columns(channel, p, beta / 2.0), 0.0)
    with np.errstate(divide="ignore"):
        leak = float(max(0.0, np.max(np.log(top[used] / low[used])))) if used.any() else 0.0
    if not leak <= eps + VERIFY_TOL:
        raise RuntimeError(
            f"optimal_mechanism: the designed channel leaks {leak:.12g} nats > eps = {eps:.12g} "
            f"(privacy={privacy!r}, beta={beta:.6g}); refusing to return it"
        )
    return leak


#: An implementation module of the design engine: :class:`OptimalDesign` is public through
#: leakage.design.optimal; the checks trust their (validated) inputs.
__all__: list[str] = []
