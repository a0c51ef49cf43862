"""Input validation shared by the whole library: the one layer every public function (and every
function of ``leakage.experiments`` that the workflow calls) uses at its boundary.

Every check raises ``ValueError`` (or ``TypeError``) whose message names the parameter, the
offending value and the allowed range, so that bad input never turns into a silent NaN or a
traceback from deep inside numpy or a solver. The rules (types, shapes, finiteness, ranges,
sizes refused before allocation, infinite parameters, ``rng``) are listed in docs/validation.md;
tests/test_contract.py checks every function against them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: Absolute tolerance used when checking that probabilities sum to one.
SUM_TOL = 1e-9

#: Largest count :func:`check_count` accepts: a count must fit numpy's int64.
MAX_INT = 2**63 - 1


def _short(value: Any) -> str:
    """``repr`` of a value cut to 200 characters (a message must not print a whole matrix)."""
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _float_array(value: Any, name: str) -> np.ndarray:
    """``value`` as a float array, or a ``TypeError`` naming ``name`` (strings, ragged lists,
    objects); a bool array is refused too (a mask is not a number)."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be an array of real numbers, got {_short(value)}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"{name} must be an array of real numbers, got {_short(value)}") from exc
    return arr


def _as_float_array(value: Any, name: str, ndim: int) -> np.ndarray:
    arr = _float_array(value, name)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {_short(arr)}")
    return arr


def check_array(
    value: Any,
    name: str,
    *,
    ndim: int | None = None,
    low: float | None = None,
    high: float | None = None,
    finite: bool = True,
    size: int | None = None,
    empty: bool = False,
) -> np.ndarray:
    """``value`` as a float array after checking its dimension, that it is non-empty (unless
    ``empty``), finite (unless ``finite=False``; NaN is never allowed), in ``[low, high]`` and, with
    ``size``, of that length along its last axis (the alphabet it must agree with)."""
    arr = _float_array(value, name)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if arr.size == 0 and not empty:
        raise ValueError(f"{name} must not be empty")
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} must not contain NaN, got {_short(arr)}")
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {_short(arr)}")
    if low is not None and np.any(arr < low):
        raise ValueError(f"{name} must have entries >= {low:.6g}, got min {arr.min():.6g}")
    if high is not None and np.any(arr > high):
        raise ValueError(f"{name} must have entries <= {high:.6g}, got max {arr.max():.6g}")
    if size is not None and (arr.ndim == 0 or arr.shape[-1] != size):
        raise ValueError(f"{name} must have {size} entries (one per symbol), got shape {arr.shape}")
    return arr


def check_tolerance(tol: Any, name: str = "tol") -> float:
    """A numerical tolerance: a finite real in (0, 1) (NaN would switch a check off, inf or a
    tolerance of 1 or more accept anything: every quantity it bounds is a probability, a
    distribution's weight or a leakage step in nats)."""
    v = check_scalar(tol, name, low=0.0, low_inclusive=False)
    if not v < 1.0:
        raise ValueError(f"{name} must be a finite real in (0, 1) (a tolerance), got {tol!r}")
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


def check_channel_prior(
    channel: Any,
    prior: Any,
    *,
    full_support: bool = False,
    channel_name: str = "channel",
    prior_name: str = "prior",
):
    """Validate a (channel, prior) pair with matching input alphabet; returns both as arrays."""
    c = check_channel(channel, channel_name)
    p = check_distribution(prior, prior_name, full_support=full_support)
    if c.shape[0] != p.size:
        raise ValueError(
            f"{channel_name} has {c.shape[0]} rows (inputs) but {prior_name} has {p.size} entries; they must match"
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
    finite: bool = False,
) -> float:
    """Return ``value`` as a float after checking it lies in the stated interval (and, with
    ``finite``, is not infinite: for a parameter with no exact limit at infinity)."""
    if isinstance(value, (bool, str, bytes)) or value is None:
        raise TypeError(f"{name} must be a real number, got {_short(value)}")
    if isinstance(value, (list, tuple, dict, set)) or (isinstance(value, np.ndarray) and value.ndim):
        raise TypeError(f"{name} must be a real number (a scalar), got {_short(value)}")
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"{name} must be a real number, got {_short(value)}") from exc
    if math.isnan(v):
        raise ValueError(f"{name} must be a real number, got NaN")
    if finite and math.isinf(v):
        raise ValueError(f"{name} must be finite, got {v!r}")
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


def check_count(value: Any, name: str, *, low: int = 1, high: int | None = None) -> int:
    """An integer in ``[low, high]`` such as a sample size m (``high``: the largest that can
    finish, for a count that sets a loop's length or an array's size)."""
    rng = f">= {low}" if high is None else f"in [{low}, {high}]"
    if isinstance(value, (bool, str, bytes)) or value is None:
        raise TypeError(f"{name} must be an integer {rng}, got {_short(value)}")
    if isinstance(value, (list, tuple, dict, set)) or (isinstance(value, np.ndarray) and value.ndim):
        raise TypeError(f"{name} must be an integer {rng} (a scalar), got {_short(value)}")
    try:
        as_float = float(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"{name} must be an integer {rng}, got {_short(value)}") from exc
    if math.isnan(as_float) or math.isinf(as_float):
        raise ValueError(f"{name} must be an integer {rng}, got {value!r}")
    if not as_float.is_integer():
        raise TypeError(f"{name} must be an integer {rng}, got {value!r}")
    v = int(value)
    if v < low or (high is not None and v > high):
        raise ValueError(f"{name} must be an integer {rng}, got {v}")
    if v > MAX_INT:
        raise ValueError(f"{name} must be an integer {rng} and at most 2^63 - 1 (a 64-bit count), got {v:.6g}")
    return v


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """A ``numpy.random.Generator`` (the library never draws from a global or a default stream:
    ``rng=None`` is refused, not replaced by fresh entropy)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator (e.g. leakage.rng.stream(seed, ...) or "
            f"numpy.random.default_rng(seed)), got {_short(rng)}"
        )
    return rng


def check_choice(value: Any, name: str, choices) -> Any:
    """One of ``choices`` (strings such as a method name)."""
    if not isinstance(value, str) or value not in choices:
        raise (TypeError if not isinstance(value, str) else ValueError)(
            f"{name} must be one of {list(choices)}, got {_short(value)}"
        )
    return value


def check_mapping(value: Any, name: str, *, required=()) -> dict:
    """A mapping (settings, inputs) holding every key of ``required``; returns a plain dict."""
    from collections.abc import Mapping

    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping, got {_short(value)}")
    missing = [k for k in required if k not in value]
    if missing:
        raise ValueError(f"{name} must give {missing} (missing keys; got {sorted(map(str, value))})")
    return dict(value)


def check_frame(value: Any, name: str, *, columns=(), empty: bool = False):
    """A ``pandas.DataFrame`` with ``columns`` (and at least one row unless ``empty``)."""
    import pandas as pd

    if not isinstance(value, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {_short(value)}")
    missing = [c for c in columns if c not in value.columns]
    if missing:
        raise ValueError(f"{name} must have the columns {list(columns)}; missing {missing}")
    if not empty and value.empty:
        raise ValueError(f"{name} must not be empty")
    return value


def check_list(values: Any, name: str, item, *, empty: bool = False) -> list:
    """A list (or tuple, or 1-D array) whose every entry passes ``item(value, f"{name}[i]")``."""
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__len__") or (
        isinstance(values, np.ndarray) and values.ndim != 1
    ):
        raise TypeError(f"{name} must be a list, got {_short(values)}")
    out = [item(v, f"{name}[{i}]") for i, v in enumerate(values)]
    if not out and not empty:
        raise ValueError(f"{name} must not be empty")
    return out


def _as_integer_array(values: Any, name: str, what: str) -> np.ndarray:
    """``values`` as a 1-D int64 array: integer dtype, or real numbers that are whole (no bool, no
    text, nothing non-finite), not empty."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D array of {what}, got {_short(values)}")
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a 1-D array of {what}, got {_short(values)}") from exc
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


def check_labels(values: Any, name: str, what: str = "labels") -> np.ndarray:
    """A non-empty 1-D array of labels (sample values, symbols of an alphabet): finite numbers or
    strings, not a mix. An object array comes back as strings or floats."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a 1-D array of {what}, got {_short(values)}")
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a 1-D array of {what}, got {_short(values)}") from exc
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of {what}, got shape {arr.shape}")
    finite_rule = f"{name} must not contain NaN or inf ({what} are finite numbers or strings)"
    if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        raise ValueError(finite_rule)
    if arr.dtype.kind == "O":
        kinds = {isinstance(v, str) for v in arr}
        numeric = [v for v in arr if not isinstance(v, str)]
        if len(kinds) > 1 or any(not isinstance(v, (int, float, np.number)) or isinstance(v, bool) for v in numeric):
            raise TypeError(f"{name} must hold {what} of one kind (all numbers or all strings), got {_short(values)}")
        if numeric and not np.all(np.isfinite(np.asarray(numeric, dtype=float))):
            raise ValueError(finite_rule)
        arr = arr.astype(str) if kinds == {True} else arr.astype(float)
    return arr


def check_array_size(shape, name: str) -> None:
    """Refuse an array of ``shape`` float64 entries larger than :data:`MAX_ARRAY_BYTES`, naming the
    size parameter ``name`` that asked for it (before anything is allocated)."""
    cells = 1
    for n in shape:
        cells *= int(n)
    if cells * 8 > MAX_ARRAY_BYTES:
        raise ValueError(
            f"{name} asks for a {' x '.join(str(int(n)) for n in shape)} array "
            f"({cells * 8 / 1024**3:.3g} GiB), more than the {MAX_ARRAY_BYTES / 1024**3:.3g} GiB limit; "
            f"use a smaller {name}"
        )


# --------------------------------------------------------------------------- figure settings

#: Largest grid or count a figure setting may ask for (points of a curve, samples, iterations,
#: repetitions): 10^6 of the library's cheapest evaluations already take minutes, 10^12 would never
#: finish. A setting above it is refused before anything runs.
MAX_POINTS = 10**6


def setting(settings: Any, key: str, check=None, *args, **kwargs) -> Any:
    """``settings[key]`` (a figure's config section) checked by ``check(value, key, *args, **kwargs)``;
    a ``ValueError`` naming the key when it is absent (config.yaml holds every default: the library
    fills nothing in). The key is the name in every message, as in config.yaml."""
    if key not in settings:
        raise ValueError(f"settings must give {key!r} (see config.yaml), got keys {sorted(map(str, settings))}")
    value = settings[key]
    return value if check is None else check(value, key, *args, **kwargs)


def check_figure_call(settings: Any, rng: Any, inputs: Any, *, rng_optional: bool = False) -> dict:
    """The arguments of a figure function ``fn(settings, rng, inputs)`` (leakage.experiments):
    ``settings`` a mapping, ``rng`` a numpy Generator (``None`` too where ``rng_optional``: a
    function that draws nothing), ``inputs`` a mapping of data files (``None``: no files).
    Returns the settings as a dict."""
    s = check_mapping(settings, "settings")
    if not (rng_optional and rng is None):
        check_rng(rng)
    if inputs is not None:
        check_mapping(inputs, "inputs")
    return s


def check_input_file(inputs: Any, key: str) -> str:
    """The path ``inputs[key]`` of a figure's data file: a string naming an existing file."""
    from pathlib import Path

    inputs = check_mapping(inputs, "inputs", required=(key,))
    path = inputs[key]
    if not isinstance(path, (str, Path)) or not str(path):
        raise TypeError(f"inputs[{key!r}] must be the path of a file, got {_short(path)}")
    if not Path(path).is_file():
        raise ValueError(f"inputs[{key!r}] must be an existing file, got {str(path)!r}")
    return str(path)


def check_claims_call(tables: Any, settings: Any, rng: Any, *, figures=None, rng_optional: bool = True):
    """The arguments of a paper's ``check_claims(tables, settings, rng)``: ``tables`` a non-empty
    mapping ``{figure: DataFrame}`` (figures of ``figures`` only), ``settings`` the paper's config
    section (a mapping), ``rng`` a numpy Generator or, where ``rng_optional``, ``None`` (claims
    that draw nothing). Returns ``(tables, settings)`` as dicts."""
    t = check_mapping(tables, "tables")
    if not t:
        raise ValueError("tables must hold at least one figure table ({figure: DataFrame}), got none")
    for figure, table in t.items():
        if figures is not None and figure not in figures:
            raise ValueError(f"tables: unknown figure {figure!r}; known: {sorted(figures)}")
        check_frame(table, f"tables[{figure!r}]")
    s = check_mapping(settings, "settings")
    if not (rng_optional and rng is None):
        check_rng(rng)
    return t, s


class in_setting:
    """Context manager: a ``ValueError``/``TypeError`` raised inside names the config key first
    (``settings['fig1']: ...``), so that a message from deep in a figure says which section."""

    def __init__(self, key: str):
        self.key = key

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is not None and issubclass(kind, (ValueError, TypeError)) and not str(exc).startswith(self.key):
            raise kind(f"{self.key}: {exc}").with_traceback(tb) from None
        return False
