"""What the design loop works in: the privacy cone K of the feasible output columns, and the
column utility mu that the master sums.

The privacy cone of the design problem, and the utility of one output column.

Privacy is a condition on each output column v = channel[:, y] alone [empirical-pml, eq. (40)]:

* PML on the ball B_beta(P) ∩ simplex: max_x v_x <= e^eps g(v), g(v) = min_{Q in B_beta(P)} Q.v
  (closed form [empirical-pml, App. B], :func:`leakage.estimation.uncertainty.ball_min_columns`);
  beta = 0 is the known prior (g = P.v: the *box* cone), 0 < beta < 2 the *ball*;
* LDP: max_x v_x <= e^eps min_x v_x [kairouz2016] (the ball with beta = 2).

The feasible columns form a convex cone K. Rays are normalised by P.v = 1 (the cross-section).
Mutual information is a sum over columns of the convex, positively homogeneous
mu(v) = sum_x P_x v_x log(v_x / P.v) (nats).

Everything here trusts its inputs: the public entry (:mod:`leakage.design.optimal`) validates once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from leakage.estimation.uncertainty import ball_min_columns

#: Privacy notions of the engine.
PRIVACY = ("pml", "ldp")


def xlogx(r):
    """r log r elementwise, 0 at 0 (nats)."""
    r = np.asarray(r, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(r > 0, r * np.log(np.where(r > 0, r, 1.0)), 0.0)


def column_utility(prior, v):
    """mu(v) = sum_x P_x v_x log(v_x / P.v) for columns v (a vector or an N x K array), nats.

    The mutual information of a channel is the sum of mu over its columns."""
    s = prior @ v
    return prior @ xlogx(v) - xlogx(s)


@dataclass(frozen=True)
class Cone:
    """The privacy cone K of one design: ``kind`` 'box' (PML, beta = 0), 'ball' (PML, beta > 0)
    or 'ldp'; ``half`` = beta/2 (1 for LDP, which is the ball of radius 2)."""

    prior: np.ndarray
    eps: float
    kind: str
    half: float

    @classmethod
    def of(cls, prior, eps: float, beta: float, privacy: str) -> "Cone":
        if privacy == "ldp":
            return cls(prior, eps, "ldp", 1.0)
        if beta == 0.0:
            return cls(prior, eps, "box", 0.0)
        return cls(prior, eps, "ball", beta / 2.0)

    @property
    def n(self) -> int:
        return self.prior.size

    @property
    def E(self) -> float:
        """e^eps."""
        return math.exp(self.eps)

    @cached_property
    def grid(self):
        """(counts, m) when the prior is counts / m (an empirical distribution), else None: the
        pricing is then exact by dynamic programming over counts (``pricing.counts``)."""
        from leakage.design.pricing.counts import grid_counts

        return grid_counts(self.prior)

    @property
    def small_ball(self) -> bool:
        """beta <= 2 min P: the worst prior only lowers the largest entries (compact LP exists)."""
        return self.kind == "ball" and self.half <= self.prior.min()

    @property
    def top(self) -> float:
        """H = e^eps / (1 + e^eps beta/2) = e^eps' of [empirical-pml, eq. (43)]: the largest level of
        a column whose minimum is 0 (the box {0 <= v <= H} lies in the ball cone)."""
        return self.E / (1.0 + self.E * self.half)

    def low(self, v):
        """g(v) for columns (N x K): the smallest output probability over the uncertainty set."""
        if self.kind == "box":
            return self.prior @ v
        if self.kind == "ldp":
            return v.min(axis=0)
        return ball_min_columns(v, self.prior, self.half)

    def excess(self, v):
        """max_x v_x - e^eps g(v) per column (N x K): the column is in K iff it is <= 0."""
        return v.max(axis=0) - self.E * self.low(v)

    def polish(self, v):
        """Columns (N x K) -> normalised columns exactly in K, mixed with the all-ones column
        (strictly inside K) just enough to pass the closed-form test."""
        v = np.clip(v if v.ndim == 2 else v[:, None], 0.0, None)
        v = v / (self.prior @ v)[None, :]
        excess = self.excess(v)
        theta = np.where(excess > 0, excess / (excess + self.E - 1.0 + 1e-300), 0.0)
        theta = np.where(excess > 0, np.minimum(1.0, theta * (1 + 1e-9) + 1e-15), 0.0)
        v = (1.0 - theta)[None, :] * v + theta[None, :]
        return v / (self.prior @ v)[None, :]

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
