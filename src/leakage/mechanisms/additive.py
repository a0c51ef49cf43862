"""Additive-noise mechanisms for a binary X in {-1, +1} [empirical-pml, Section VI].

Throughout, ``p`` is P_X(x1) with x1 = -1, x2 = +1, and ``p_min = min(p, 1 - p)``. All leakages and
privacy parameters are in nats.

* Binary Laplace mechanism Y = X + L, L ~ Laplace(0, b) (47)-(51): its PML (49) under a known prior,
  the (eps, delta)-PML guarantee (50) under an l1-ball of radius beta*(delta) around an estimate,
  and the exact inverses in b (substitute t = e^{2/b}: a linear equation in t).
* Binary Gaussian mechanism Y = X + G, G ~ N(0, sigma^2) (52)-(65): the leakage (54), the set of
  outcomes that violate eps-PML (58) (two half-lines with closed-form ends), its probability (61)
  (normal tails), the worst case delta1 over the ball (59), and eps* (64), delta* (65).
* The probabilistic-LDP Gaussian mechanism of Zhao et al. [34, Thm. 8] in the local binary setting
  (sensitivity Delta = 2) (69)-(70), and its inverse in delta.
* The release rule (66) (threshold at 0) and its flip probability under Laplace noise.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import erfc, erfcinv, ndtr

from leakage.estimation.concentration import beta_star
from leakage.validation import (
    _float_array,
    check_rng,
    check_tolerance,
    check_count,
    check_epsilon,
    check_positive,
    check_probability,
    check_scalar,
)

#: Most grid points :func:`gaussian_delta1` evaluates (``n_grid``, ``max_peaks``): a grid of 10^7
#: closed-form evaluations takes seconds, one of 10^12 would not finish (nor fit in memory).
MAX_GRID = 10**7

# ----------------------------------------------------------------------------- input checks


def _array_in(value, name: str, low: float, high: float, *, low_open: bool, high_open: bool) -> np.ndarray:
    """``value`` as a non-empty float array after checking every entry lies in the stated interval
    (NaN never does)."""
    a = _float_array(value, name)
    if a.size == 0:
        raise ValueError(f"{name} must not be empty")
    ok = ~np.isnan(a)
    ok &= (a > low) if low_open else (a >= low)
    ok &= (a < high) if high_open else (a <= high)
    if not np.all(ok):
        lb, rb = ("(" if low_open else "["), (")" if high_open else "]")
        bad = a[~ok].ravel()[0]
        raise ValueError(f"{name} must be in {lb}{low:.6g}, {high:.6g}{rb}, got {bad!r}")
    return a


def _scalar_or_array(a: np.ndarray):
    return float(a) if np.ndim(a) == 0 else a


def _broadcast(**arrays) -> list[np.ndarray]:
    """The arrays broadcast together, or a ValueError naming them (different lengths)."""
    try:
        return np.broadcast_arrays(*arrays.values())
    except ValueError:
        shapes = ", ".join(f"{k} {np.shape(v)}" for k, v in arrays.items())
        raise ValueError(f"{' and '.join(arrays)} must have the same length (or be scalars), got shapes {shapes}") from None


def _square(sigma) -> np.float64:
    """sigma^2 in numpy floats: inf, not an OverflowError, beyond the float range."""
    with np.errstate(over="ignore"):
        return np.float64(sigma) ** 2


# ----------------------------------------------------------------------------- l1-ball, binary


def ball_min_probability(p_hat_min, beta):
    """The smallest p_min over B_beta(P̂) within the simplex: max(0, p̂_min - beta/2) [empirical-pml, Sec. VI-A].

    For binary X the l1-ball ||P_X - P̂_X||_1 <= beta moves at most beta/2 of mass, so the least
    likely symbol can drop to p̂_min - beta/2; below 0 the ball holds degenerate distributions and
    the minimum is 0. ``p_hat_min`` in [0, 1/2], ``beta`` >= 0 (vectorised).
    """
    p = _array_in(p_hat_min, "p_hat_min", 0.0, 0.5, low_open=False, high_open=False)
    b = _array_in(beta, "beta", 0.0, np.inf, low_open=False, high_open=False)  # beta = inf: the whole simplex
    p, b = _broadcast(p_hat_min=p, beta=b)
    return _scalar_or_array(np.maximum(0.0, p - b / 2.0))


# ----------------------------------------------------------------------------- Laplace


def laplace_epsilon(b, p_min):
    """PML of the binary Laplace mechanism: eps(b) = 2/b - log(e^{2/b} p_min + 1 - p_min) [empirical-pml, eq. (49)].

    The smallest eps for which Y = X + Laplace(0, b) is eps-PML under a prior with smallest mass
    ``p_min``; nats. ``b`` > 0, ``p_min`` in [0, 1/2] (p_min = 0 gives the LDP value 2/b).
    Vectorised; computed as -log(p_min + (1 - p_min) e^{-2/b}) to avoid overflow for small b.
    """
    b = _array_in(b, "b", 0.0, np.inf, low_open=True, high_open=False)
    q = _array_in(p_min, "p_min", 0.0, 0.5, low_open=False, high_open=False)
    b, q = _broadcast(b=b, p_min=q)
    with np.errstate(divide="ignore"):
        out = -np.log(q + (1.0 - q) * np.exp(-2.0 / b))
        # where e^{-2/b} underflows (b < ~0.003) and q = 0 the form above is -log 0 = inf; the
        # log-sum-exp form gives the finite value (2/b at q = 0)
        stable = -np.logaddexp(np.log(q), np.log1p(-q) - 2.0 / b)
    # b = inf (no signal): eps = -log 1 = 0, written +0.0
    return _scalar_or_array(np.maximum(np.where(np.isfinite(out), out, stable), 0.0))


def laplace_epsilon_estimated(b, p_hat_min, delta, m):
    """(eps, delta)-PML of the binary Laplace mechanism from an estimate [empirical-pml, eq. (50)].

    eps(b, delta) = 2/b - log[(p̂_min - beta*(delta)/2)(e^{2/b} - 1) + 1], beta*(delta) of eq. (45)
    from ``m`` samples, i.e. eq. (49) at the ball's smallest mass :func:`ball_min_probability`
    (clipped at 0, where the ball reaches the degenerate priors and eps = 2/b, the LDP value,
    Remark 4). Nats. ``b`` > 0, ``p_hat_min`` in (0, 1/2], ``delta`` in (0, 1], ``m`` >= 1.
    """
    p_hat_min = check_scalar(p_hat_min, "p_hat_min", low=0.0, high=0.5, low_inclusive=False)
    beta = beta_star(delta, m)
    return laplace_epsilon(b, ball_min_probability(p_hat_min, beta))


def laplace_scale(eps, p_min):
    """The Laplace scale b with eps(b) = ``eps`` in eq. (49), in closed form [empirical-pml, eq. (49) inverted].

    With t = e^{2/b}, (49) reads e^eps = t / (p_min (t - 1) + 1), so
    t = e^eps (1 - p_min) / (1 - p_min e^eps) and b = 2 / log t. For p_min = 0 this is b = 2/eps
    (LDP); eps = 0 gives b = inf. For eps >= -log p_min (= eps_max) every channel is eps-PML and the
    noise can vanish: b = 0. ``eps`` >= 0, ``p_min`` in [0, 1/2]; vectorised.
    """
    eps = _array_in(eps, "eps", 0.0, np.inf, low_open=False, high_open=False)
    q = _array_in(p_min, "p_min", 0.0, 0.5, low_open=False, high_open=False)
    eps, q = _broadcast(eps=eps, p_min=q)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        denom = 1.0 - q * np.exp(eps)
        # log t = eps + log(1 - q) - log(1 - q e^eps), with log1p for accuracy near eps = 0.
        log_t = eps + np.log1p(-q) - np.log(np.where(denom > 0, denom, 1.0))
        # below eps ~ 1e-6 the three terms cancel (log t could even come out <= 0, a negative b):
        # 1 - q e^eps = (1 - q) - q expm1(eps) gives log t = eps - log1p(-q expm1(eps) / (1 - q))
        tiny = eps < 1e-6
        log_t = np.where(tiny, eps - np.log1p(-q * np.expm1(eps) / (1.0 - q)), log_t)
        b = np.where(denom > 0, 2.0 / log_t, 0.0)
    b = np.where((eps == 0) & (denom > 0), np.inf, b)
    return _scalar_or_array(b)


def laplace_scale_for(eps, p_hat_min, delta, m):
    """The Laplace scale b that makes (50) equal ``eps``: eq. (50) solved for b in closed form [empirical-pml].

    b = 2 / log t, t = e^eps (1 - q) / (1 - q e^eps), q = max(0, p̂_min - beta*(delta)/2); falls back
    to the LDP scale b = 2/eps where q = 0 (Remark 4), and is 0 (no noise needed) where
    eps >= -log q. ``eps`` >= 0, ``p_hat_min`` in (0, 1/2], ``delta`` in (0, 1], ``m`` >= 1.
    """
    eps = check_epsilon(eps)
    p_hat_min = check_scalar(p_hat_min, "p_hat_min", low=0.0, high=0.5, low_inclusive=False)
    return laplace_scale(eps, ball_min_probability(p_hat_min, beta_star(delta, m)))


def laplace_ldp_scale(eps):
    """The scale of the eps-LDP Laplace mechanism on {-1, +1}: b = 2/eps [empirical-pml, Remark 4, eq. (51)].

    Sensitivity 2 (the distance between the two inputs). ``eps`` > 0.
    """
    eps = _array_in(eps, "eps", 0.0, np.inf, low_open=True, high_open=True)
    return _scalar_or_array(2.0 / eps)


def laplace_flip_probability(b):
    """P(release (66) != X) for Y = X + Laplace(0, b): 1/2 e^{-1/b} [empirical-pml, eqs. (47), (66)].

    X = -1 is released as +1 iff L >= 1, X = +1 as -1 iff L < -1: both have probability
    1/2 e^{-1/b}. ``b`` >= 0 (b = 0, no noise, never flips); vectorised.
    """
    b = _array_in(b, "b", 0.0, np.inf, low_open=False, high_open=False)
    with np.errstate(divide="ignore"):
        return _scalar_or_array(0.5 * np.exp(-1.0 / b))


def threshold_release(y):
    """The binary release of a noisy value: -1 if y < 0, else +1 [empirical-pml, eq. (66)]. Vectorised, int8;
    ``y`` real (+-inf allowed: released as +-1), never NaN (a NaN has no sign to release)."""
    y = _array_in(y, "y", -np.inf, np.inf, low_open=False, high_open=False)
    return np.where(y < 0, -1, 1).astype(np.int8)


def laplace_mechanism(x, b, rng: np.random.Generator, *, noise=None):
    """Y = X + L with L ~ Laplace(0, b) i.i.d. per entry [empirical-pml, eqs. (47)-(48)].

    ``noise``: optional standard Laplace draws (scale 1) of the shape of ``x``, finite; Y = x + b *
    noise, so one draw serves every scale (common random numbers). ``b`` > 0 and finite (an
    infinite scale releases nothing but infinities). ``rng``: a numpy Generator (also when
    ``noise`` is given; it is then unused).
    """
    b = check_scalar(b, "b", low=0.0, low_inclusive=False, finite=True)
    check_rng(rng)
    x = _array_in(x, "x", -np.inf, np.inf, low_open=True, high_open=True)
    if noise is None:
        noise = rng.laplace(0.0, 1.0, size=x.shape)
    noise = _array_in(noise, "noise", -np.inf, np.inf, low_open=True, high_open=True)
    if noise.shape != x.shape:
        raise ValueError(f"noise must have the shape of x {x.shape} (one draw per entry), got {noise.shape}")
    with np.errstate(over="ignore"):
        out = x + b * noise
    if not np.all(np.isfinite(out)):
        raise ValueError(f"x + b * noise overflows the float range (b = {b!r}): use a smaller b")
    return out


# ----------------------------------------------------------------------------- Gaussian


def _check_gaussian(sigma, p):
    sigma = check_positive(sigma, "sigma")
    p = _array_in(p, "p", 0.0, 1.0, low_open=False, high_open=False)
    return sigma, p


def gaussian_leakage(y, sigma, p):
    """PML l(X -> y) of Y = X + N(0, sigma^2) under P_X(-1) = p [empirical-pml, eqs. (54)-(57)].

    l(y) = log max_x f(y|x) / f_Y(y) = -log(p e^{-2y/sigma^2} + 1 - p) for y >= 0 and
    -log(p + (1 - p) e^{2y/sigma^2}) for y < 0. Nats. ``sigma`` > 0, ``p`` in [0, 1]; vectorised in y.
    """
    sigma = check_positive(sigma, "sigma")
    p = check_scalar(p, "p", low=0.0, high=1.0)
    y = _array_in(y, "y", -np.inf, np.inf, low_open=False, high_open=False)  # no NaN; +-inf: the limits
    with np.errstate(invalid="ignore"):  # |y| = sigma^2 = inf: ratio inf/inf, taken as the limit y -> inf
        t = np.abs(y) / _square(sigma)
    t = np.where(np.isnan(t), np.inf, t)
    r = np.exp(-2.0 * t)  # f(y | far input) / f(y | near input) <= 1
    near_is_x1 = y < 0  # for y < 0 the likelier input is x1 = -1
    w_near = np.where(near_is_x1, p, 1.0 - p)
    return _scalar_or_array(np.maximum(-np.log(w_near + (1.0 - w_near) * r), 0.0))


def gaussian_violation_set(eps, sigma, p):
    """The outcomes that violate eps-PML, E_eps(P_X) = (-inf, y_-) u (y_+, inf) [empirical-pml, eq. (58)].

    From (54): y_+ = -(sigma^2/2) log((e^{-eps} - 1 + p)/p) (empty, +inf, if e^{-eps} <= 1 - p) and
    y_- = (sigma^2/2) log((e^{-eps} - p)/(1 - p)) (empty, -inf, if e^{-eps} <= p). Returns
    ``(y_minus, y_plus)``. ``eps`` >= 0, ``sigma`` > 0, ``p`` = P_X(-1) in [0, 1]; vectorised.
    """
    sigma, p = _check_gaussian(sigma, p)
    eps = _array_in(eps, "eps", 0.0, np.inf, low_open=False, high_open=False)
    eps, p = _broadcast(eps=eps, p=p)
    y_minus, y_plus = _violation_ends(eps, sigma, p)
    return _scalar_or_array(y_minus), _scalar_or_array(y_plus)


def _violation_ends(eps, sigma, p):
    """Unchecked kernel of :func:`gaussian_violation_set` (arrays in, arrays out).

    ``sigma`` may be inf (or sigma^2 beyond the float range): an end whose log factor is 0 (eps = 0)
    stays 0, its value for every finite sigma, the others go to +-inf (the exact limits)."""
    half = _square(sigma) / 2.0
    e = np.exp(-eps)
    a = e - (1.0 - p)
    c = e - p
    with np.errstate(divide="ignore", invalid="ignore"):
        log_a = np.log(np.where(a > 0, a, 1.0)) - np.log(np.where(a > 0, p, 1.0))
        log_c = np.log(np.where(c > 0, c, 1.0)) - np.log1p(-np.where(c > 0, p, 0.0))
        y_plus = np.where(a > 0, np.where(log_a == 0, 0.0, -half * log_a), np.inf)
        y_minus = np.where(c > 0, np.where(log_c == 0, 0.0, half * log_c), -np.inf)
    return y_minus, y_plus


def gaussian_violation_probability(eps, sigma, p):
    """P_{Y ~ P_Y}[E_eps(P_X)], the probability that the eps-PML bound fails [empirical-pml, eqs. (60)-(62)].

    = p [Phi((y_- + 1)/sigma) + Q((y_+ + 1)/sigma)] + (1 - p) [Phi((y_- - 1)/sigma) + Q((y_+ - 1)/sigma)]
    with the ends of :func:`gaussian_violation_set`. ``eps`` >= 0, ``sigma`` > 0, ``p`` in [0, 1];
    vectorised.
    """
    sigma, p = _check_gaussian(sigma, p)
    eps = _array_in(eps, "eps", 0.0, np.inf, low_open=False, high_open=False)
    eps, p = _broadcast(eps=eps, p=p)
    return _scalar_or_array(_violation_probability(eps, sigma, p))


def _violation_probability(eps, sigma, p):
    """Unchecked kernel of :func:`gaussian_violation_probability`."""
    y_minus, y_plus = _violation_ends(eps, sigma, p)
    with np.errstate(invalid="ignore"):  # inf / inf at sigma = inf: the end's own limit, handled below
        terms = [(y_minus + 1.0) / sigma, -(y_plus + 1.0) / sigma, (y_minus - 1.0) / sigma, -(y_plus - 1.0) / sigma]
    # an infinite end over an infinite sigma: the end grows like sigma^2, so the ratio is +-inf
    ends = [y_minus, -y_plus, y_minus, -y_plus]
    terms = [np.where(np.isnan(t), np.sign(e) * np.inf, t) for t, e in zip(terms, ends)]
    prob = p * (ndtr(terms[0]) + ndtr(terms[1])) + (1.0 - p) * (ndtr(terms[2]) + ndtr(terms[3]))
    return np.clip(prob, 0.0, 1.0)


def ball_interval(p_hat, beta):
    """B_beta(P̂) for binary X as the interval of P_X(x1): [p̂ - beta/2, p̂ + beta/2] ∩ [0, 1] [empirical-pml, eq. (31)].

    ``p_hat`` in (0, 1), ``beta`` >= 0 (inf: the whole interval [0, 1]). Returns ``(low, high)``.
    """
    p_hat = check_scalar(p_hat, "p_hat", low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    beta = check_scalar(beta, "beta", low=0.0)
    return max(0.0, p_hat - beta / 2.0), min(1.0, p_hat + beta / 2.0)


def gaussian_delta1(eps, sigma, p_hat, beta, *, n_grid: int = 129, xtol: float = 1e-12, max_peaks: int = 3):
    """delta1(eps) = sup over P_X in B_beta(P̂) of P_Y[E_eps(P_X)] [empirical-pml, eq. (59)].

    A 1-D supremum over p = P_X(x1) in :func:`ball_interval`: the closed-form violation
    probability is evaluated on ``n_grid`` points, and each local maximum of the grid (endpoints
    included; the ``max_peaks`` highest) is refined by bounded Brent search on its bracketing cell. Returns
    ``(delta1, p_worst)``. ``eps`` >= 0, ``sigma`` > 0, ``p_hat`` in (0, 1), ``beta`` >= 0.
    """
    xtol = check_tolerance(xtol, "xtol")
    eps = check_epsilon(eps)
    sigma = check_positive(sigma, "sigma")
    low, high = ball_interval(p_hat, beta)
    n_grid = check_count(n_grid, "n_grid", low=3, high=MAX_GRID)
    max_peaks = check_count(max_peaks, "max_peaks", low=1, high=MAX_GRID)
    grid = np.linspace(low, high, n_grid)
    vals = _violation_probability(eps, sigma, grid)
    best_v, best_p = float(vals.max()), float(grid[int(vals.argmax())])
    if high > low and best_v > 0:
        padded = np.concatenate(([-np.inf], vals, [-np.inf]))
        peaks = np.flatnonzero((padded[1:-1] >= padded[:-2]) & (padded[1:-1] >= padded[2:]) & (vals > 0))
        for k in peaks[np.argsort(vals[peaks])[::-1][:max_peaks]]:
            a, b = grid[max(k - 1, 0)], grid[min(k + 1, n_grid - 1)]
            res = minimize_scalar(
                lambda q: -float(_violation_probability(eps, sigma, q)),
                bounds=(a, b),
                method="bounded",
                options={"xatol": xtol},
            )
            if -res.fun > best_v:
                best_v, best_p = float(-res.fun), float(res.x)
    return best_v, best_p


def gaussian_epsilon_star(eps, beta):
    """eps* = eps - log(1 - beta e^eps / 2), the leakage bound over B_beta(P̂) [empirical-pml, eq. (64)].

    From Theorem 4 (eq. (63)); nats. ``eps`` >= 0, ``beta`` >= 0 with beta e^eps < 2; vectorised.
    """
    eps = _array_in(eps, "eps", 0.0, np.inf, low_open=False, high_open=True)
    beta = _array_in(beta, "beta", 0.0, 2.0, low_open=False, high_open=True)
    eps, beta = _broadcast(eps=eps, beta=beta)
    with np.errstate(over="ignore"):  # e^eps beyond the float range: x = inf, refused below
        x = beta * np.exp(eps) / 2.0
    if np.any(x >= 1.0):
        raise ValueError(f"beta * e^eps must be < 2 for eq. (64), got max {2 * float(np.max(x)):.6g}")
    return _scalar_or_array(eps - np.log1p(-x))


def gaussian_delta_star(delta1, delta2):
    """delta* = delta1 + delta2 - delta1 delta2, the union of both failures [empirical-pml, eq. (65)].

    ``delta1``, ``delta2`` in [0, 1]; vectorised.
    """
    d1 = _array_in(delta1, "delta1", 0.0, 1.0, low_open=False, high_open=False)
    d2 = _array_in(delta2, "delta2", 0.0, 1.0, low_open=False, high_open=False)
    d1, d2 = _broadcast(delta1=d1, delta2=d2)
    return _scalar_or_array(d1 + d2 - d1 * d2)


# ----------------------------------------------------------------------------- pLDP Gaussian


def pldp_gaussian_sigma(eps, delta, sensitivity: float = 2.0):
    """sigma_pLDP = Delta (f + sqrt(f^2 + eps)) / (sqrt(2) eps), f = erfcinv(delta) [empirical-pml, eq. (70)].

    The noise of the (eps, delta)-probabilistic-LDP Gaussian mechanism ([34, Thm. 8]); with
    Delta = 2 this is sqrt(2)(f + sqrt(f^2 + eps))/eps as in (70). ``eps`` > 0 (nats),
    ``delta`` in (0, 1], ``sensitivity`` > 0.
    """
    eps = check_scalar(eps, "eps", low=0.0, low_inclusive=False)
    delta = check_probability(delta, "delta")
    sensitivity = check_scalar(sensitivity, "sensitivity", low=0.0, high=math.inf, low_inclusive=False, high_inclusive=False)
    if math.isinf(eps):  # sigma -> 0 as eps -> inf (was inf/inf = NaN)
        return 0.0
    f = float(erfcinv(delta))
    return float(sensitivity * (f + np.sqrt(f * f + eps)) / (np.sqrt(2.0) * eps))


def pldp_gaussian_delta(eps, sigma, sensitivity: float = 2.0):
    """The delta with sigma_pLDP(eps, delta) = sigma: eq. (70) inverted in delta [empirical-pml].

    With s = sqrt(2) eps sigma / Delta, (70) gives f = (s^2 - eps) / (2 * s) and delta = erfc(f);
    where f < 0 (sigma too small for any delta <= 1 at this eps) the result is capped at 1 (no
    guarantee). ``eps`` > 0, ``sigma`` > 0, ``sensitivity`` > 0; vectorised in eps.
    """
    eps = _array_in(eps, "eps", 0.0, np.inf, low_open=True, high_open=True)
    sigma = check_scalar(sigma, "sigma", low=0.0, high=math.inf, low_inclusive=False, high_inclusive=False)
    sensitivity = check_scalar(sensitivity, "sensitivity", low=0.0, high=math.inf, low_inclusive=False, high_inclusive=False)
    s = np.sqrt(2.0) * eps * sigma / sensitivity
    with np.errstate(over="ignore"):  # s^2 beyond the float range: f = inf, delta = erfc(inf) = 0 (the limit)
        f = (s * s - eps) / (2.0 * s)
    return _scalar_or_array(np.minimum(1.0, erfc(f)))
