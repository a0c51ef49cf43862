"""Input validation shared by the whole library.

Every check raises ``ValueError`` (or ``TypeError``) whose message names the parameter, the
offending value and the allowed range, so that bad input never turns into a silent NaN or a
traceback from deep inside a solver.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: Absolute tolerance used when checking that probabilities sum to one.
SUM_TOL = 1e-9


def _as_float_array(value: Any, name: str, ndim: int) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of real numbers, got {value!r}") from exc
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {arr!r}")
    return arr


def check_tolerance(tol: Any, name: str = "tol") -> float:
    """A numerical tolerance: a finite real > 0 (NaN would switch a check off, inf accept anything)."""
    v = check_scalar(tol, name, low=0.0, low_inclusive=False)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite real > 0 (a tolerance), got {tol!r}")
    return v


def check_distribution(
    prior: Any, name: str = "prior", *, full_support: bool = False, tol: float = SUM_TOL
) -> np.ndarray:
    """Return ``prior`` as a float vector after checking it is a probability distribution.

    Entries must lie in [0, 1] and sum to one within ``tol``; with ``full_support=True`` every
    entry must be > 0 (as PML needs: its leakage is defined relative to a full-support prior).
    """
    tol = check_tolerance(tol)
    p = _as_float_array(prior, name, 1)
    if np.any(p < -tol):
        raise ValueError(f"{name} must have entries in [0, 1], got min {p.min():.6g}")
    total = float(p.sum())
    if abs(total - 1.0) > max(tol, tol * p.size):
        raise ValueError(f"{name} must sum to 1 (a probability distribution), got sum {total:.12g}")
    p = np.clip(p, 0.0, None)
    if full_support and np.any(p <= 0.0):
        raise ValueError(
            f"{name} must have full support (every entry > 0), got min {p.min():.6g}"
        )
    return p


def check_channel(channel: Any, name: str = "channel", *, tol: float = 1e-9) -> np.ndarray:
    """Return ``channel`` as a float matrix after checking it is row-stochastic.

    ``channel[x, y] = P(y | x)``: entries in [0, 1], each row summing to one within ``tol``.
    """
    tol = check_tolerance(tol)
    c = _as_float_array(channel, name, 2)
    if np.any(c < -tol):
        raise ValueError(
            f"{name} must be row-stochastic: entries in [0, 1], got min {c.min():.6g}"
        )
    sums = c.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > tol * max(1, c.shape[1]))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{name} must be row-stochastic: row {i} sums to {sums[i]:.12g}, expected 1"
        )
    return np.clip(c, 0.0, None)


def check_channel_prior(channel: Any, prior: Any, *, full_support: bool = False):
    """Validate a (channel, prior) pair with matching input alphabet; returns both as arrays."""
    c = check_channel(channel)
    p = check_distribution(prior, full_support=full_support)
    if c.shape[0] != p.size:
        raise ValueError(
            f"channel has {c.shape[0]} rows (inputs) but prior has {p.size} entries; they must match"
        )
    return c, p


def check_scalar(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
) -> float:
    """Return ``value`` as a float after checking it lies in the stated interval."""
    if isinstance(value, (bool, str, bytes)):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number, got {value!r}") from exc
    if math.isnan(v):
        raise ValueError(f"{name} must be a real number, got NaN")
    ok = True
    if low is not None:
        ok &= v >= low if low_inclusive else v > low
    if high is not None:
        ok &= v <= high if high_inclusive else v < high
    if not ok:
        lo = "-inf" if low is None else f"{low:.6g}"
        hi = "inf" if high is None else f"{high:.6g}"
        lb = "[" if (low_inclusive and low is not None) else "("
        rb = "]" if (high_inclusive and high is not None) else ")"
        raise ValueError(f"{name} must be in {lb}{lo}, {hi}{rb}, got {v!r}")
    return v


def check_epsilon(eps: Any, name: str = "eps") -> float:
    """A privacy parameter in nats: eps >= 0 (``inf`` allowed)."""
    return check_scalar(eps, name, low=0.0)


def check_probability(value: Any, name: str, *, open_low: bool = True, open_high: bool = False) -> float:
    """A probability such as delta: in (0, 1] by default."""
    return check_scalar(
        value, name, low=0.0, high=1.0, low_inclusive=not open_low, high_inclusive=not open_high
    )


def check_positive(value: Any, name: str) -> float:
    """A strictly positive real such as a noise scale b or sigma."""
    return check_scalar(value, name, low=0.0, low_inclusive=False)


def check_count(value: Any, name: str, *, low: int = 1) -> int:
    """An integer >= ``low`` such as a sample size m."""
    if isinstance(value, (bool, str, bytes)):
        raise TypeError(f"{name} must be an integer >= {low}, got {value!r}")
    try:
        as_float = float(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"{name} must be an integer >= {low}, got {value!r}") from exc
    if not as_float.is_integer():
        raise TypeError(f"{name} must be an integer >= {low}, got {value!r}")
    v = int(value)
    if v < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {v}")
    return v


def _as_integer_array(values: Any, name: str, what: str) -> np.ndarray:
    """``values`` as a 1-D int64 array: integer dtype, or real numbers that are whole (no bool, no
    text, nothing non-finite), not empty."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D array of {what}, got {values!r}")
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a 1-D array of {what}, got {values!r}") from exc
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a 1-D array of {what}, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite {what}, got a non-finite entry")
        if np.any(arr != np.floor(arr)):
            raise TypeError(f"{name} must be {what} (whole numbers), got {arr[arr != np.floor(arr)][0]!r}")
        if np.any(np.abs(arr) >= 2.0**62):
            raise ValueError(f"{name} must be {what} below 2**62, got {np.abs(arr).max():.6g}")
    elif arr.dtype.kind == "u" and arr.size and int(arr.max()) >= 2**63:
        raise ValueError(f"{name} must be {what} below 2**63, got {int(arr.max())}")
    return arr.astype(np.int64)


def check_indices(values: Any, name: str, n: int, *, n_name: str = "n") -> np.ndarray:
    """A non-empty 1-D array of indices into ``n`` items (integers in [0, n)), as int64.

    ``n_name`` says what ``n`` counts (e.g. "the channel's outputs") in the message."""
    arr = _as_integer_array(values, name, f"integers in [0, {n})")
    lo, hi = int(arr.min()), int(arr.max())
    if lo < 0 or hi >= n:
        bad = lo if lo < 0 else hi
        raise ValueError(f"{name} must be integers in [0, {n}) (indices into {n_name}), got {bad}")
    return arr


def check_counts(values: Any, name: str, size: int | None = None, *, positive_total: bool = True) -> np.ndarray:
    """A 1-D array of counts (integers >= 0), as int64; of length ``size`` if given; with
    ``positive_total``, not all zero."""
    arr = _as_integer_array(values, name, "counts (integers >= 0)")
    if size is not None and arr.size != size:
        raise ValueError(f"{name} must have {size} entries, got {arr.size}")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be counts (integers >= 0), got {int(arr.min())}")
    total = float(arr.sum(dtype=float))
    if total >= 2.0**62:
        raise ValueError(f"{name} must total below 2**62, got {total:.6g}")
    if positive_total and total == 0:
        raise ValueError(f"{name} must not be all zero (no records)")
    return arr


#: Largest float array (bytes) a function builds from a size argument (2 GiB): larger requests are
#: refused before anything is allocated, instead of a MemoryError (or swapping) inside numpy.
MAX_ARRAY_BYTES = 2 * 1024**3


def check_array_size(shape, name: str) -> None:
    """Refuse an array of ``shape`` float64 entries larger than :data:`MAX_ARRAY_BYTES`, naming the
    size parameter ``name`` that asked for it."""
    cells = 1
    for n in shape:
        cells *= int(n)
    if cells * 8 > MAX_ARRAY_BYTES:
        raise ValueError(
            f"{name} asks for a {' x '.join(str(int(n)) for n in shape)} array "
            f"({cells * 8 / 1024**3:.3g} GiB), more than the {MAX_ARRAY_BYTES / 1024**3:.3g} GiB limit; "
            f"use a smaller {name}"
        )
