"""mi-dp: Cuff & Yu, Differential privacy as a mutual information constraint.

The paper has no numerical figures; ours (docs/figures.md):

* fig1: Lemma 1's sandwich on binary randomized response at eps-DP, eps in (0, eps_max]:
  measures ``eps_dp`` (the DP level), ``kl_bound`` (Property 1: eps tanh(eps/2)), ``mi_dp_exact``
  (the MI-DP level = capacity, Blahut-Arimoto), and extras ``kl_exact`` (the max KL between the
  two rows, to show Property 1 is tight) and ``kl_relaxed`` (eps^2/2).
* fig2: Lemma 2, the (0, delta)-DP implied by eps_mi-MI-DP, tight (eq. 28) and relaxed (eq. 27).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from leakage.claims import check
from leakage.measures.dp import randomized_response
from leakage.measures.dp_relations import (
    delta_dp_level,
    delta_from_mi_dp,
    delta_from_mi_dp_relaxed,
    dp_epsilon,
    kl_dp_bound,
    kl_dp_bound_relaxed,
    kl_dp_level,
    mi_dp_level,
)
from leakage.measures.information import binary_entropy
from leakage.validation import MAX_POINTS, check_claims_call, check_count, check_figure_call, check_scalar, setting

#: fig1 measures in plotting order (the first three are required by docs/figures.md).
FIG1_MEASURES = ["eps_dp", "kl_bound", "mi_dp_exact", "kl_exact", "kl_relaxed"]


def grid(upper: float, n_points: int) -> np.ndarray:
    """n_points equally spaced values in (0, upper]: upper * k / n_points, k = 1..n_points
    (``upper`` > 0 finite, ``n_points`` in [1, 10^6])."""
    upper = check_scalar(upper, "upper", low=0.0, low_inclusive=False, finite=True)
    n_points = check_count(n_points, "n_points", high=MAX_POINTS)
    return upper * np.arange(1, n_points + 1) / n_points


def fig1(settings, rng, inputs):
    """Lemma 1's sandwich on binary randomized response, eps in (0, eps_max], eps_max <= 700 nats
    (``rng``: unused, may be None)."""
    settings = check_figure_call(settings, rng, inputs, rng_optional=True)
    # beyond ~745 nats randomized response's off-diagonal e^-eps underflows: its float matrix is the identity
    eps_max = setting(settings, "eps_max", check_scalar, low=0.0, high=700.0, low_inclusive=False)
    rows = []
    for eps in grid(eps_max, setting(settings, "n_points", check_count, high=MAX_POINTS)):
        w = randomized_response(2, eps)
        values = {
            "eps_dp": dp_epsilon(w),
            "kl_bound": kl_dp_bound(eps),
            "mi_dp_exact": mi_dp_level(w),
            "kl_exact": kl_dp_level(w),
            "kl_relaxed": kl_dp_bound_relaxed(eps),
        }
        rows.extend({"eps": eps, "measure": m, "value": values[m]} for m in FIG1_MEASURES)
    return pd.DataFrame(rows, columns=["eps", "measure", "value"])


def fig2(settings, rng, inputs):
    """Lemma 2, tight (28) and relaxed (27), eps_mi in (0, eps_mi_max], eps_mi_max <= log 2
    (``rng``: unused, may be None)."""
    settings = check_figure_call(settings, rng, inputs, rng_optional=True)
    top = setting(settings, "eps_mi_max", check_scalar, low=0.0, high=math.log(2.0), low_inclusive=False)
    eps_mi = grid(top, setting(settings, "n_points", check_count, high=MAX_POINTS))
    return pd.DataFrame(
        {
            "eps_mi": eps_mi,
            "delta_tight": [delta_from_mi_dp(e) for e in eps_mi],
            "delta_relaxed": [delta_from_mi_dp_relaxed(e) for e in eps_mi],
        }
    )


FIGURES = {"fig1": fig1, "fig2": fig2}


def _worst(diff: np.ndarray, at: np.ndarray, what: str) -> str:
    k = int(np.argmax(diff))
    return f"max {what} {diff[k]:.3g} at {at[k]:.4g} nats"


def _fig1_claims(table: pd.DataFrame):
    wide = table.pivot(index="eps", columns="measure", values="value").sort_index()
    eps = wide.index.to_numpy(dtype=float)
    mi, klb, dp = (wide[m].to_numpy(dtype=float) for m in ("mi_dp_exact", "kl_bound", "eps_dp"))
    tol = 1e-12
    out = []
    excess = np.maximum(mi - klb, klb - dp)
    out.append(
        check(
            "fig1",
            "Lemma 1 (eq. 23): mi_dp_exact <= kl_bound <= eps_dp at every eps for randomized response",
            np.all(excess <= tol),
            f"{len(eps)} eps values in [{eps.min():.4g}, {eps.max():.4g}]; "
            + _worst(excess, eps, "of (mi_dp_exact - kl_bound, kl_bound - eps_dp), holds if <= 0,"),
        )
    )
    bsc = math.log(2) - binary_entropy(1.0 / (1.0 + np.exp(eps)))
    err = np.abs(mi - bsc)
    out.append(
        check(
            "fig1",
            "MI-DP of randomized response (Blahut-Arimoto) equals the BSC capacity log 2 - h(1/(1+e^eps)) to 1e-9",
            np.all(err <= 1e-9),
            _worst(err, eps, "|capacity - formula|"),
        )
    )
    if "kl_exact" in wide:
        kle = wide["kl_exact"].to_numpy(dtype=float)
        err = np.abs(kle - klb) / np.maximum(1.0, klb)
        out.append(
            check(
                "fig1",
                "Property 1 is tight for randomized response: max KL between its rows equals eps tanh(eps/2)",
                np.all(err <= 1e-12),
                _worst(err, eps, "relative |kl_exact - kl_bound|"),
            )
        )
    if "kl_relaxed" in wide:
        gap = klb - wide["kl_relaxed"].to_numpy(dtype=float)
        out.append(
            check(
                "fig1",
                "Property 1 relaxation: eps tanh(eps/2) <= eps^2/2",
                np.all(gap <= tol),
                _worst(gap, eps, "kl_bound - kl_relaxed, holds if <= 0,"),
            )
        )
    return out


def _fig2_claims(table: pd.DataFrame):
    t = table.sort_values("eps_mi")
    eps = t["eps_mi"].to_numpy(dtype=float)
    tight = t["delta_tight"].to_numpy(dtype=float)
    relaxed = t["delta_relaxed"].to_numpy(dtype=float)
    out = [
        check(
            "fig2",
            "Lemma 2: the tight delta (eq. 28) is at most the relaxed delta sqrt(2 eps_mi) (eq. 27)",
            np.all(tight <= relaxed + 1e-12),
            f"{len(eps)} eps_mi values in [{eps.min():.4g}, {eps.max():.4g}]; "
            + _worst(tight - relaxed, eps, "delta_tight - delta_relaxed, holds if <= 0,"),
        )
    ]
    # Tightness (Appendix C): the binary symmetric channel with crossover (1 - delta_tight) / 2 has
    # MI-DP level (capacity, Blahut-Arimoto) eps_mi and (0, delta)-DP level (TV of its rows)
    # delta_tight, so no smaller delta can follow from eps_mi-MI-DP.
    cap_err, tv_err = [], []
    for e, d in zip(eps, tight):
        q = (1.0 - d) / 2.0
        bsc = np.array([[1.0 - q, q], [q, 1.0 - q]])
        cap_err.append(abs(mi_dp_level(bsc) - e))
        tv_err.append(abs(delta_dp_level(bsc) - d))
    cap_err, tv_err = np.array(cap_err), np.array(tv_err)
    out.append(
        check(
            "fig2",
            "Lemma 2 (28) is achieved: the BSC with crossover (1 - delta_tight)/2 is exactly eps_mi-MI-DP "
            "(capacity, to 1e-9) and exactly (0, delta_tight)-DP (TV of its rows, to 1e-12)",
            np.all(cap_err <= 1e-9) and np.all(tv_err <= 1e-12),
            _worst(cap_err, eps, "|capacity - eps_mi|") + "; " + _worst(tv_err, eps, "|TV - delta_tight|"),
        )
    )
    vacuous = relaxed >= 1.0
    expected = eps >= 0.5
    beyond = eps[vacuous]
    out.append(
        check(
            "fig2",
            "the relaxed delta sqrt(2 eps_mi) is a probability (< 1) exactly for eps_mi < 1/2; beyond it is "
            "vacuous and fig2 draws it clipped at 1",
            np.array_equal(vacuous, expected),
            f"{int(vacuous.sum())} of {len(eps)} points have delta_relaxed >= 1"
            + (f" (eps_mi >= {beyond.min():.4g}, max delta_relaxed {relaxed.max():.4g})" if beyond.size else ""),
        )
    )
    return out


def check_claims(tables, settings, rng=None):
    """Lemma 1 and Lemma 2 on the figure tables (``settings`` and ``rng``: unused, may be None)."""
    tables, settings = check_claims_call(tables, settings, rng, figures=FIGURES)
    out = []
    if "fig1" in tables:
        out += _fig1_claims(tables["fig1"])
    if "fig2" in tables:
        out += _fig2_claims(tables["fig2"])
    return out
