"""adult-design stages: estimate -> design -> release, and the Monte Carlo of fig1 and fig4.

This study goes beyond the five papers: it applies the design of [empirical-pml, Sec. V] (an
eps-PML mechanism for every prior in the l1-ball B_beta(P̂) around an estimate, beta = beta*(delta)
of [empirical-pml, eqs. (21), (37)]) to Adult's categorical attributes and compares it with the
best eps-LDP mechanism and k-ary randomized response.

Methods (``METHODS``):

* ``pml``: the MI-optimal mechanism that is eps-PML on B_beta(P̂) (``leakage.design.optimal_mechanism``,
  ``privacy="pml"``); with probability 1 - delta the true prior lies in the ball, so the release is
  (eps, delta)-PML.
* ``pml_prop2``: route (44) of [empirical-pml, Proposition 2]: the optimum over M(eps', P̂) with
  eps' = design_epsilon(eps, beta) (eq. (43)); empty when eps' < 0, recorded as infeasible.
* ``ldp``: the MI-optimal eps-LDP mechanism (``privacy="ldp"``).
* ``rr``: k-ary randomized response at eps (``leakage.measures.dp.randomized_response``).

Only wiring: the mathematics is in ``leakage.design`` (the engine), ``leakage.estimation``,
``leakage.measures`` and ``leakage.mechanisms.release``.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd

from leakage.data.categorical import DATASET_KEYS, PROTOCOLS, category_codes, check_dataset, split_table
from leakage.measures.dp import randomized_response
from leakage.estimation.concentration import beta_star, empirical_distribution, sample_sizes
from leakage.measures.information import empirical_mutual_information, mutual_information
from leakage.mechanisms.release import channel_outputs
from leakage.validation import (
    MAX_POINTS,
    check_array_size,
    check_channel,
    check_choice,
    check_count,
    check_distribution,
    check_frame,
    check_list,
    check_mapping,
    check_probability,
    check_rng,
    check_scalar,
)

_LOG = logging.getLogger(__name__)

#: Reason of a design the engine could not deliver (an exception): recorded with feasible = false,
#: MI 0 and no mechanism, and reported by the claim "every design succeeded" (never a silent value).
ENGINE_FAILED = "design engine failed"

#: The compared methods, in table order.
METHODS = ("pml", "pml_prop2", "ldp", "rr")

PRIOR_COLUMNS = ["attribute", "category", "count", "p_hat"]
#: ``bound`` (the engine's certified upper bound on the optimum's MI, nats; NaN when infeasible)
#: and ``certified`` (bound - value <= 1e-9 (1 + value)) follow the required columns
MECHANISM_COLUMNS = ["attribute", "method", "eps", "delta", "beta", "x", "y", "probability", "bound", "certified"]
CURVE_COLUMNS = ["attribute", "method", "eps", "mi", "feasible", "reason", "certified", "bound"]
MC_COLUMNS = [
    "attribute", "method", "eps", "m", "iteration", "beta", "n_observed", "mi_empirical", "mi_exact",
    "feasible", "reason", "certified", "bound",
]  # fmt: skip

#: The engine's deterministic budgets (``leakage.design.optimal_mechanism``): relative gap ``tol``,
#: column-generation ``max_iterations``, branch-and-bound ``max_nodes`` per pricing (null: the
#: engine's defaults). Never a wall-clock limit: same config, same bytes on any machine.
ENGINE_KEYS = ("tol", "max_iterations", "max_nodes")

#: The keys of the config section ``adult-design`` (config.yaml holds their defaults), with the
#: keys of its sub-sections. The stages take complete settings: each function needs the keys it
#: uses (the rules pass only those, so that a change elsewhere in the section reruns nothing).
SECTION_KEYS = {
    "dataset": DATASET_KEYS,
    "protocol": None,
    "attributes": None, "eps": None, "delta": None, "methods": None,
    "curve": ("eps_min", "eps_max", "n_eps"),
    "engine": ENGINE_KEYS,
    "mc_attributes": None,
    "mc": ("eps", "m_min", "m_max", "n_m", "iterations", "release_m", *ENGINE_KEYS),
    "heatmap": ("attribute", "eps", "methods"),
    "release": ("eps", "rng"),
    "frequency": ("repetitions", "large_max_iterations", "large_max_iterations_pml", "histogram_attribute", "histogram_eps", "histogram_methods"),
}  # fmt: skip

#: The methods of the frequency comparison (``frequency.histogram_methods`` picks from them):
#: the MI designs and rr (decoded by the best linear unbiased estimate), the estimation-optimal
#: designs and the LDP frequency oracles (``leakage.experiments.adult_design.frequency``).
FREQUENCY_METHODS = METHODS + ("pml_mse", "ldp_mse", "oue", "olh", "ss", "hr")


def _fail(key: str, message: str):
    raise ValueError(f"adult-design.{key}: {message}")


def _check_attributes(values, key: str) -> list[str]:
    """A non-empty list of distinct attribute names (columns of ``dataset.columns``: a check between
    keys, in workflow/lib/config_checks.py; a name missing from the table is refused when read)."""
    if isinstance(values, str) or not isinstance(values, (list, tuple)) or not values:
        _fail(key, f"must be a non-empty list of attributes (categorical columns of the data set), got {values!r}")
    bad = [a for a in values if not isinstance(a, str) or not a]
    if bad:
        _fail(key, f"attributes must be column names (non-empty strings), got {bad}")
    if len(set(values)) != len(values):
        _fail(key, f"lists an attribute twice: {list(values)}")
    return list(values)


def _check_eps(value, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 < value <= 20) or math.isnan(value):
        _fail(key, f"must be a number in (0, 20] nats, got {value!r}")
    return float(value)


def _check_engine(section: dict, key: str) -> None:
    tol = section["tol"]
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not (0 < tol < 1) or math.isnan(tol):
        _fail(f"{key}.tol", f"must be a relative gap in (0, 1), got {tol!r}")
    section["tol"] = float(tol)
    it = section["max_iterations"]
    if isinstance(it, bool) or not isinstance(it, int) or it < 1:
        _fail(f"{key}.max_iterations", f"must be an integer >= 1, got {it!r}")
    nodes = section["max_nodes"]
    if nodes is not None and (isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1):
        _fail(f"{key}.max_nodes", f"must be null (the engine's defaults) or an integer >= 1, got {nodes!r}")


def engine_budget(section: Mapping) -> dict:
    """The engine keyword arguments of an ``engine`` or ``mc`` section (``ENGINE_KEYS``)."""
    section = check_mapping(section, "section", required=ENGINE_KEYS)
    return {k: section[k] for k in ENGINE_KEYS}


def check_settings(settings: Mapping, required=()) -> dict:
    """The ``adult-design`` settings given (a part of the config section), every value checked.

    ``required``: the keys the caller uses; each must be given, and a sub-section (``curve``,
    ``engine``, ``mc``, ``heatmap``, ``release``) must be given whole. There are no defaults here:
    config.yaml holds them. Within a sub-section the order of its keys is checked here too
    (curve.eps_min < curve.eps_max, mc.m_min <= mc.m_max); constraints across keys of the section are
    the workflow's config checks (workflow/lib/config_checks.py). This check guards library calls
    made outside Snakemake.
    ``ValueError`` names the key.
    """
    settings = check_mapping(settings, "settings")
    required = check_list(required, "required", lambda v, name: check_choice(v, name, tuple(SECTION_KEYS)), empty=True)
    unknown = sorted(set(settings) - set(SECTION_KEYS))
    if unknown:
        _fail(str(unknown[0]), f"unknown key; allowed keys are {sorted(SECTION_KEYS)}")
    missing = [k for k in required if k not in settings]
    if missing:
        _fail(str(missing[0]), "missing from settings (config.yaml holds every key of the section with its default)")
    s = {}
    for key, value in settings.items():
        sub = SECTION_KEYS[key]
        if sub is None:
            s[key] = value
            continue
        if not isinstance(value, Mapping):
            _fail(key, f"must be a mapping, got {value!r}")
        extra = sorted(set(value) - set(sub))
        if extra:
            _fail(f"{key}.{extra[0]}", f"unknown key; allowed keys are {sorted(sub)}")
        absent = [k for k in sub if k not in value]
        if absent:
            _fail(f"{key}.{absent[0]}", "missing from settings (config.yaml holds every key of the section with its default)")
        s[key] = dict(value)
    if "dataset" in s:
        s["dataset"] = check_dataset(s["dataset"], "adult-design.dataset")
    if "protocol" in s and s["protocol"] not in PROTOCOLS:
        _fail("protocol", f"must be one of {list(PROTOCOLS)}, got {s['protocol']!r}")
    if "attributes" in s:
        s["attributes"] = _check_attributes(s["attributes"], "attributes")
    if "eps" in s:
        if isinstance(s["eps"], (str, bytes)) or not isinstance(s["eps"], (list, tuple)) or not s["eps"]:
            _fail("eps", f"must be a non-empty list of numbers in (0, 20], got {s['eps']!r}")
        s["eps"] = sorted({_check_eps(e, "eps") for e in s["eps"]})
    if "delta" in s:
        d = s["delta"]
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not (0 < d < 1):
            _fail("delta", f"must be a probability in (0, 1), got {d!r}")
        s["delta"] = float(d)
    if "methods" in s:
        methods = s["methods"]
        if isinstance(methods, str) or not isinstance(methods, (list, tuple)) or not methods or any(
            m not in METHODS for m in methods
        ):
            _fail("methods", f"must be a non-empty list from {list(METHODS)}, got {methods!r}")
        s["methods"] = [m for m in METHODS if m in methods]
    if "curve" in s:
        c = s["curve"]
        c["eps_min"], c["eps_max"] = _check_eps(c["eps_min"], "curve.eps_min"), _check_eps(c["eps_max"], "curve.eps_max")
        if c["eps_min"] >= c["eps_max"]:
            _fail("curve.eps_max", f"must exceed curve.eps_min = {c['eps_min']}, got {c['eps_max']}")
        if isinstance(c["n_eps"], bool) or not isinstance(c["n_eps"], int) or not 2 <= c["n_eps"] <= MAX_POINTS:
            _fail("curve.n_eps", f"must be an integer in [2, {MAX_POINTS}], got {c['n_eps']!r}")
    if "engine" in s:
        _check_engine(s["engine"], "engine")
    if "mc_attributes" in s:
        s["mc_attributes"] = _check_attributes(s["mc_attributes"], "mc_attributes")
    if "mc" in s:
        mc = s["mc"]
        _check_engine(mc, "mc")
        mc["eps"] = _check_eps(mc["eps"], "mc.eps")
        for key, low in (("m_min", 2), ("n_m", 1), ("iterations", 1)):
            if isinstance(mc[key], bool) or not isinstance(mc[key], int) or mc[key] < low or mc[key] > MAX_POINTS:
                _fail(f"mc.{key}", f"must be an integer in [{low}, {MAX_POINTS}], got {mc[key]!r}")
        if mc["m_max"] is not None and (
            isinstance(mc["m_max"], bool) or not isinstance(mc["m_max"], int) or mc["m_max"] < mc["m_min"]
        ):
            _fail("mc.m_max", f"must be null (all records) or an integer >= mc.m_min, got {mc['m_max']!r}")
        if mc["release_m"] is not None and (
            isinstance(mc["release_m"], bool) or not isinstance(mc["release_m"], int) or not 2 <= mc["release_m"] <= MAX_POINTS
        ):
            _fail("mc.release_m", f"must be null (m records) or an integer in [2, {MAX_POINTS}], got {mc['release_m']!r}")
    if "heatmap" in s:
        h = s["heatmap"]
        h["attribute"] = _check_attributes([h["attribute"]], "heatmap.attribute")[0]
        h["eps"] = _check_eps(h["eps"], "heatmap.eps")
        if not set(h["methods"]) <= set(METHODS) or not h["methods"]:
            _fail("heatmap.methods", f"must be a non-empty list from {list(METHODS)}, got {h['methods']!r}")
    if "frequency" in s:
        fr = s["frequency"]
        for key, low in (("repetitions", 2), ("large_max_iterations", 1), ("large_max_iterations_pml", 1)):
            v = fr[key]
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= MAX_POINTS:
                _fail(f"frequency.{key}", f"must be an integer in [{low}, {MAX_POINTS}], got {v!r}")
        fr["histogram_attribute"] = _check_attributes([fr["histogram_attribute"]], "frequency.histogram_attribute")[0]
        fr["histogram_eps"] = _check_eps(fr["histogram_eps"], "frequency.histogram_eps")
        hm = fr["histogram_methods"]
        if isinstance(hm, str) or not isinstance(hm, (list, tuple)) or not hm or not set(hm) <= set(FREQUENCY_METHODS):
            _fail("frequency.histogram_methods", f"must be a non-empty list from {list(FREQUENCY_METHODS)}, got {hm!r}")
        fr["histogram_methods"] = list(hm)
    if "release" in s:
        r = s["release"]
        r["eps"] = _check_eps(r["eps"], "release.eps")
        if r["rng"] not in ("seeded", "secure"):
            _fail("release.rng", f"must be 'seeded' or 'secure', got {r['rng']!r}")
    return s


def curve_eps(settings: Mapping) -> np.ndarray:
    """fig2's eps grid: ``curve.n_eps`` log-spaced values in [eps_min, eps_max] and the config's eps.

    A grid value closer than a quarter of a grid step (in log eps) to one of the config's eps is
    dropped, so the curve has no near-duplicate points (0.535 beside 0.5: doubled markers).
    """
    settings = check_settings(settings, ("curve", "eps"))
    c = settings["curve"]
    grid = np.geomspace(c["eps_min"], c["eps_max"], c["n_eps"])
    eps = np.asarray(settings["eps"], dtype=float)
    quarter_step = 0.25 * np.log(c["eps_max"] / c["eps_min"]) / (c["n_eps"] - 1)
    far = np.min(np.abs(np.log(grid[:, None] / eps[None, :])), axis=1) >= quarter_step
    return np.unique(np.concatenate([grid[far], eps]))


# --------------------------------------------------------------------------- 1. estimate


def attribute_codes(table: pd.DataFrame, attribute: str, categories=None) -> tuple[list[str], np.ndarray]:
    """:func:`leakage.data.categorical.category_codes` (with ``categories``: coded by that list, the
    design part's) with its error naming the config key."""
    check_frame(table, "table")
    _attribute(attribute)
    try:
        return category_codes(table, attribute, categories)
    except ValueError as exc:
        raise ValueError(f"adult-design.attributes: {exc}") from None


def _attribute(attribute) -> str:
    if not isinstance(attribute, str) or not attribute:
        raise TypeError(f"attribute must be an attribute name (a string), got {attribute!r:.100}")
    return attribute


def build_dataset(settings: Mapping, table: pd.DataFrame, *, provenance: Mapping | None = None,
                  rng: np.random.Generator) -> pd.DataFrame:
    """``dataset.csv``: the columns ``dataset.columns`` of ``table`` and each record's part, split
    as ``dataset.split`` says (:func:`leakage.data.categorical.split_table`).

    The split ``source`` is Adult's own (``dataset.source`` adult): the design part the records of
    ``adult.data``, the release part those of ``adult.test``, counted in ``provenance["parts"]``
    (the data rule's provenance, docs/data.md), which must add up to the table's records. The split
    ``random`` draws with ``rng`` (required whatever the split: the pipeline passes the study's
    ``split`` stream). ``ValueError`` names the key.
    """
    s = check_settings(settings, ("dataset",))
    d = s["dataset"]
    check_frame(table, "table")
    rng = check_rng(rng)
    first_part = None
    if d["split"]["kind"] == "source":
        provenance = check_mapping(provenance, "provenance", required=("parts",))
        parts = check_mapping(provenance["parts"], "provenance.parts", required=("adult.data", "adult.test"))
        n_data = check_count(parts["adult.data"], "provenance.parts.adult.data")
        n_test = check_count(parts["adult.test"], "provenance.parts.adult.test")
        if n_data + n_test != len(table):
            raise ValueError(f"provenance.parts: {n_data} + {n_test} records, but the table has {len(table)}")
        first_part = n_data
    try:
        return split_table(table, d["columns"], d["split"], first_part=first_part, rng=rng)
    except ValueError as exc:
        raise ValueError(f"adult-design.dataset: {exc}") from None


def estimate_priors(table: pd.DataFrame, attributes) -> pd.DataFrame:
    """``attribute, category, count, p_hat``: P̂ of every attribute over the records of ``table`` (the design part under the protocol split) [empirical-pml, eq. (13)].

    Categories in the order of :func:`leakage.data.categorical.category_codes` (``?`` its own
    category); that order defines the indexes x, y of ``mechanisms.csv``. Under the protocol
    ``split`` ``table`` is the design part.
    """
    check_frame(table, "table")
    if isinstance(attributes, (str, bytes)) or not hasattr(attributes, "__iter__"):
        raise TypeError(f"attributes must be a list of attribute names, got {attributes!r:.100}")
    attributes = list(attributes)
    if not attributes:
        raise ValueError("attributes must list at least one attribute")
    rows = []
    for attribute in attributes:
        categories, codes = attribute_codes(table, attribute)
        p_hat = empirical_distribution(codes, np.arange(len(categories)))
        counts = np.bincount(codes, minlength=len(categories))
        rows += [
            {"attribute": attribute, "category": c, "count": int(n), "p_hat": float(p)}
            for c, n, p in zip(categories, counts, p_hat)
        ]
    return pd.DataFrame(rows, columns=PRIOR_COLUMNS)


def release_histogram(priors: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """``release_histogram.csv``: the histogram of the released records (``table``, the release part)
    of every attribute of ``priors``, with the columns of ``priors.csv`` and its categories in its
    order (a category the release part lacks has count 0). This is the truth the release's
    estimates are compared with. A released record whose category the design part never saw has
    no row in the mechanisms: ``ValueError`` naming it."""
    check_frame(priors, "priors", columns=PRIOR_COLUMNS)
    check_frame(table, "table")
    rows = []
    for attribute in dict.fromkeys(priors["attribute"]):
        categories, _, _ = prior_of(priors, attribute)
        _, codes = attribute_codes(table, attribute, categories)
        counts = np.bincount(codes, minlength=len(categories))
        rows += [
            {"attribute": attribute, "category": c, "count": int(n), "p_hat": float(n / codes.size)}
            for c, n in zip(categories, counts)
        ]
    return pd.DataFrame(rows, columns=PRIOR_COLUMNS)


def prior_of(priors: pd.DataFrame, attribute: str) -> tuple[list[str], np.ndarray, int]:
    """(categories, P̂, m) of one attribute from the ``priors.csv`` table."""
    check_frame(priors, "priors", columns=PRIOR_COLUMNS)
    part = priors[priors["attribute"] == _attribute(attribute)]
    if part.empty:
        raise ValueError(f"adult-design: attribute {attribute!r} is not in priors.csv")
    counts = part["count"].to_numpy(dtype=np.int64)
    return part["category"].astype(str).tolist(), counts / counts.sum(), int(counts.sum())


# --------------------------------------------------------------------------- 2. design


@dataclass(frozen=True)
class Mechanism:
    """One designed mechanism: ``channel`` (None when infeasible) with the reason; ``certified``:
    the engine proved it optimal (its upper bound meets the value; always true for rr, which is
    not an optimisation); ``seconds``: the time its design took."""

    method: str
    eps: float
    beta: float
    channel: np.ndarray | None
    reason: str = ""
    certified: bool = True
    seconds: float = 0.0
    bound: float = math.nan
    design: object = None  # the engine's OptimalDesign, passed back as a warm start (None for rr)

    @property
    def feasible(self) -> bool:
        return self.channel is not None

    def mi(self, prior) -> float:
        """I(X; Y) under ``prior`` in nats; 0 for an infeasible design (nothing is released)."""
        return mutual_information(self.channel, prior) if self.feasible else 0.0


def _earlier_design(value, name):
    """An entry of a warm start: an OptimalDesign of the engine, or None (no design to pass on)."""
    from leakage.design import OptimalDesign

    if value is not None and not isinstance(value, OptimalDesign):
        raise TypeError(f"{name} must be an OptimalDesign of leakage.design (or None), got {type(value).__name__}")
    return value


def design(method: str, p_hat, eps: float, beta: float, budget: Mapping | None = None, warm_start=()) -> Mechanism:
    """The mechanism of ``method`` for the estimate ``p_hat`` at ``eps`` (radius ``beta`` for pml).

    ``pml``, ``pml_prop2`` and ``ldp`` call the design engine ``leakage.design`` [empirical-pml,
    Sec. V, Proposition 2, eq. (44)]; ``pml_prop2`` is infeasible (no channel, reason recorded) when
    eps' = design_epsilon(eps, beta) [eq. (43)] is negative. An exception of the engine is recorded
    the same way, with reason ``ENGINE_FAILED: <error>`` (logged, and failed by the claims).
    ``budget``: the engine's deterministic budgets (``ENGINE_KEYS``; None: the engine's defaults).
    ``warm_start``: earlier designs of the same prior (``Mechanism.design``) whose columns seed the
    engine: the pml design of the same eps takes the ldp and pml_prop2 ones as its route-(44) and
    LDP seeds (they are then not solved twice), a design at a larger eps the one at a smaller eps
    (its columns stay feasible). ``eps`` in (0, 20] nats (the study's range), ``beta`` in [0, 2].
    """
    check_choice(method, "method", METHODS)
    p_hat = check_distribution(p_hat, "p_hat", full_support=True)
    eps = check_scalar(eps, "eps", low=0.0, high=20.0, low_inclusive=False)
    beta = check_scalar(beta, "beta", low=0.0, high=2.0)
    kw = {} if budget is None else check_mapping(budget, "budget")
    warm_start = check_list(warm_start, "warm_start", _earlier_design, empty=True)
    unknown = sorted(set(kw) - set(ENGINE_KEYS))
    if unknown:
        raise ValueError(f"budget: unknown keys {unknown}; allowed {list(ENGINE_KEYS)}")
    if method == "rr":
        rr = randomized_response(p_hat.size, eps)
        return Mechanism(method, eps, beta, rr, bound=mutual_information(rr, p_hat))
    from leakage.design import design_epsilon, optimal_mechanism, optimal_mechanism_for_estimate

    if method not in METHODS:
        raise ValueError(f"adult-design.methods: unknown method {method!r}; choose from {list(METHODS)}")
    if method == "pml_prop2" and (eps_prime := design_epsilon(eps, beta)) < 0:
        return Mechanism(method, eps, beta, None, f"route (44) empty: eps' = {eps_prime:.4g} < 0")
    start = time.perf_counter()
    try:
        warm = [d for d in warm_start if d is not None]
        if method == "pml":
            result = optimal_mechanism(p_hat, eps, privacy="pml", beta=beta, warm_start=warm, **kw)
        elif method == "ldp":
            result = optimal_mechanism(p_hat, eps, privacy="ldp", warm_start=warm, **kw)
        else:
            result = optimal_mechanism_for_estimate(p_hat, eps, beta, warm_start=warm, **kw)
    except Exception as exc:  # noqa: BLE001 - an engine failure is recorded (ENGINE_FAILED), never a value
        _LOG.error("%s eps=%.4g beta=%.4g: design engine failed: %s: %s", method, eps, beta, type(exc).__name__, exc)
        return Mechanism(method, eps, beta, None, f"{ENGINE_FAILED}: {type(exc).__name__}: {exc}"[:300], False,
                         time.perf_counter() - start)  # fmt: skip
    certified = bool(getattr(result, "certified", True))
    return Mechanism(method, eps, beta, result.channel, "" if certified else "not certified optimal (engine budget)",
                     certified, time.perf_counter() - start, float(result.bound), result)  # fmt: skip


def mechanism_rows(attribute: str, mech: Mechanism, delta: float) -> list[dict]:
    """The non-zero entries of a mechanism as ``mechanisms.csv`` rows (none when infeasible)."""
    _attribute(attribute)
    if not isinstance(mech, Mechanism):
        raise TypeError(f"mech must be a Mechanism (from design()), got {mech!r:.100}")
    delta = check_probability(delta, "delta")
    if not mech.feasible:
        return []
    xs, ys = np.nonzero(mech.channel > 0)
    return [
        {"attribute": attribute, "method": mech.method, "eps": mech.eps, "delta": delta, "beta": mech.beta,
         "x": int(x), "y": int(y), "probability": float(mech.channel[x, y]), "bound": mech.bound,
         "certified": mech.certified}
        for x, y in zip(xs, ys)
    ]  # fmt: skip


def channel_from_rows(rows: pd.DataFrame, n_symbols: int) -> np.ndarray:
    """The N x M channel of one mechanism's ``mechanisms.csv`` rows (omitted entries are 0)."""
    check_frame(rows, "rows", columns=("x", "y", "probability"), empty=True)
    n_symbols = check_count(n_symbols, "n_symbols")
    for col, top in (("x", n_symbols - 1), ("y", None)):
        v = rows[col].to_numpy(dtype=float) if len(rows) else np.zeros(0)
        if np.any(~np.isfinite(v)) or np.any(v < 0) or np.any(v != np.round(v)) or (top is not None and np.any(v > top)):
            raise ValueError(f"rows: column {col} must hold integer indexes 0..{top if top is not None else 'M-1'}")
    prob = rows["probability"].to_numpy(dtype=float) if len(rows) else np.zeros(0)
    if np.any(~np.isfinite(prob)) or np.any((prob < 0) | (prob > 1)):
        raise ValueError("rows: column probability must hold probabilities in [0, 1]")
    n_out = int(rows["y"].max()) + 1 if len(rows) else n_symbols
    check_array_size((n_symbols, max(n_out, 1)), "n_symbols")
    c = np.zeros((n_symbols, max(n_out, 1)))
    c[rows["x"].to_numpy(int), rows["y"].to_numpy(int)] = rows["probability"].to_numpy(float)
    return c


#: The order in which the methods of one eps are designed: the seeds of pml first.
_DESIGN_ORDER = ("ldp", "pml_prop2", "pml", "rr")


def designs_at(methods, p_hat, eps: float, beta: float, budget: Mapping) -> dict:
    """The mechanisms of ``methods`` at one eps (:func:`design`); pml is warm-started explicitly
    from the ldp and pml_prop2 designs of the same eps (both feasible on the ball, so the pml
    design is at least as good as each). Designs of a smaller eps are not passed on: their columns
    are feasible at this eps but are not its vertices, and seeding the master with them made the
    curve's LDP designs take several times the iterations of a cold start (docs/design-engine.md).
    Returns ``{method: Mechanism}``."""
    methods = check_list(methods, "methods", lambda m, name: check_choice(m, name, METHODS))
    out: dict = {}
    for method in [m for m in _DESIGN_ORDER if m in methods]:
        warm = [getattr(out.get(m), "design", None) for m in ("ldp", "pml_prop2")] if method == "pml" else []
        out[method] = design(method, p_hat, eps, beta, budget, warm)
    return out


def design_attribute(priors: pd.DataFrame, attribute: str, settings: Mapping) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Stage 2 for one attribute, from the design part's P̂ (m = its records, beta = beta*(delta) for N symbols).

    Returns (mechanisms rows at the config's eps, fig2's curve: I(X;Y) under P̂ for every method
    at every eps of :func:`curve_eps`). The rows at the config's eps are the same designs.
    """
    s = check_settings(settings, ("eps", "delta", "methods", "curve", "engine"))
    categories, p_hat, m = prior_of(priors, attribute)
    if len(categories) < 2 or np.any(p_hat <= 0):
        raise ValueError(f"priors: attribute {attribute!r} needs at least 2 categories of positive count, got {len(categories)}")
    beta = beta_star(s["delta"], m, len(categories))
    mech_rows, curve_rows = [], []
    config_eps = set(s["eps"])
    for eps in curve_eps(s):
        mechs = designs_at(s["methods"], p_hat, float(eps), beta, engine_budget(s["engine"]))
        for method in s["methods"]:
            mech = mechs[method]
            curve_rows.append({"attribute": attribute, "method": method, "eps": float(eps), "mi": mech.mi(p_hat),
                               "feasible": mech.feasible, "reason": mech.reason, "certified": mech.certified,
                               "bound": mech.bound})  # fmt: skip
            _LOG.info("%s %s eps=%.4g beta=%.4g: %.2f s", attribute, method, eps, beta, mech.seconds)
            if float(eps) in config_eps:
                mech_rows += mechanism_rows(attribute, mech, s["delta"])
    return pd.DataFrame(mech_rows, columns=MECHANISM_COLUMNS), pd.DataFrame(curve_rows, columns=CURVE_COLUMNS)


# --------------------------------------------------------------------------- 3. release


def release_rng(kind: str, seed: int, attribute: str) -> np.random.Generator:
    """The release's generator: ``seeded`` (reproducible, from the config seed and the attribute)
    or ``secure`` (fresh OS entropy on every run, for a real release)."""
    from leakage.rng import stream

    check_choice(kind, "kind", ("seeded", "secure"))
    _attribute(attribute)
    seed = check_count(seed, "seed", low=0)
    if kind == "seeded":
        return stream(seed, "adult-design", "release", attribute)
    if kind == "secure":
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence()))  # OS entropy
    raise ValueError(f"adult-design.release.rng: must be 'seeded' or 'secure', got {kind!r}")


def release_column(table: pd.DataFrame, attribute: str, channel, rng: np.random.Generator,
                   categories=None) -> pd.DataFrame:
    """Stage 3: the attribute's column privatized through ``channel``, row-aligned with ``table``.

    One uniform per record, inverse-CDF through the record's row; the released category y is
    written by name (the category with index y in ``priors.csv`` order: ``categories``, or the
    table's own order when None). Only the column.
    """
    categories, codes = attribute_codes(table, attribute, categories)
    c = check_channel(channel)
    check_rng(rng)
    if c.shape[0] != len(categories) or c.shape[1] > len(categories):
        raise ValueError(f"channel of shape {c.shape} does not fit the {len(categories)} categories of {attribute!r}")
    y = channel_outputs(c, codes, rng.random(codes.size))
    return pd.DataFrame({attribute: np.asarray(categories, dtype=object)[y]})


# --------------------------------------------------------------------------- Monte Carlo (fig1, fig4)


def mc_sizes(settings: Mapping, n_records: int) -> np.ndarray:
    """fig1/fig4's m: ``mc.n_m`` log-spaced integers from ``mc.m_min`` to ``mc.m_max`` (null: all records of the design part)."""
    mc = check_settings(settings, ("mc",))["mc"]
    n_records = check_count(n_records, "n_records")
    m_max = n_records if mc["m_max"] is None else mc["m_max"]
    if m_max > n_records:
        raise ValueError(f"adult-design.mc.m_max: {m_max} exceeds the {n_records} records")
    if mc["m_min"] > m_max:
        raise ValueError(f"adult-design.mc.m_min: {mc['m_min']} exceeds the {n_records} records")
    return sample_sizes(mc["m_min"], m_max, mc["n_m"])


def monte_carlo(table: pd.DataFrame, attribute: str, settings: Mapping, rng: np.random.Generator,
                release: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per iteration, for every m: draw m records of ``table`` without replacement, estimate P̂ from
    them, design every method from that P̂ (beta = beta*(delta) for m and N), release records and
    compute the empirical MI (67) between their true and released values [empirical-pml, eq. (67)]
    and the exact I(X;Y) under P̂. Common random numbers: every method gets the same subset, the
    same released records and the same uniforms.

    The released records: protocol ``same-records`` (``release`` None) the subset itself;
    protocol ``split`` (``table`` the design part, ``release`` the release part) an independent
    draw without replacement of ``mc.release_m`` records (null: m) of the release part, among its
    records whose category the subset observed (capped at their number). The released records and
    the uniforms come from a stream spawned from ``rng``, the subsets from ``rng``: the subsets
    (and so the designs) are the same under both protocols.

    Unseen categories: the design is over the categories observed in the subset (P̂ has full
    support on them, as the ball B_beta(P̂) requires); beta uses N = all categories of the
    attribute (the public alphabet: a larger, conservative radius). No released record has an
    unseen category: the mechanism has no row for it.
    """
    s = check_settings(settings, ("delta", "methods", "mc"))
    check_rng(rng)
    categories, codes = attribute_codes(table, attribute)
    draw = rng.spawn(1)[0]  # the released records and uniforms: the subsets are rng's under either protocol
    if release is not None:
        _, release_codes = attribute_codes(release, attribute, categories)
    n_all = int(codes.max()) + 1
    eps = s["mc"]["eps"]
    rows = []
    for m in mc_sizes(s, codes.size):
        beta = beta_star(s["delta"], int(m), n_all)
        for it in range(s["mc"]["iterations"]):
            subset = rng.choice(codes.size, size=int(m), replace=False)
            observed, x = np.unique(codes[subset], return_inverse=True)
            p_hat = empirical_distribution(x, np.arange(observed.size))
            if release is not None:  # an independent draw of the release part, coded as the subset
                eligible = np.flatnonzero(np.isin(release_codes, observed))
                size = min(int(m) if s["mc"]["release_m"] is None else s["mc"]["release_m"], eligible.size)
                x = np.searchsorted(observed, release_codes[draw.choice(eligible, size=size, replace=False)])
            uniforms = draw.random(x.size)
            if observed.size > 1:
                mechs = designs_at(s["methods"], p_hat, eps, beta, engine_budget(s["mc"]))
            for method in s["methods"]:
                if observed.size == 1:  # one category in the subset: nothing to learn, nothing leaks
                    mech = Mechanism(method, eps, beta, np.ones((1, 1)), "one observed category", bound=0.0)
                else:
                    mech = mechs[method]
                if mech.feasible:
                    y = channel_outputs(mech.channel, x, uniforms)
                    mi_emp = empirical_mutual_information(x, y)
                else:
                    mi_emp = 0.0
                rows.append({"attribute": attribute, "method": method, "eps": eps, "m": int(m), "iteration": it,
                             "beta": beta, "n_observed": int(observed.size), "mi_empirical": mi_emp,
                             "mi_exact": mech.mi(p_hat), "feasible": mech.feasible, "reason": mech.reason,
                             "certified": mech.certified, "bound": mech.bound})  # fmt: skip
                _LOG.info("%s m=%d it=%d %s: %.2f s", attribute, m, it, method, mech.seconds)
    return pd.DataFrame(rows, columns=MC_COLUMNS)


def release_attribute(table: pd.DataFrame, mechanisms: pd.DataFrame, attribute: str, settings: Mapping, *,
                      priors: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Stage 3 for one attribute: its column of ``table`` (the released records: the release part
    under the protocol ``split``) through the ``pml`` mechanism at ``release.eps`` (from the
    attribute's ``mechanisms`` rows), with the generator of ``release.rng``. The records are coded
    by the categories of ``priors`` (the design part's, the mechanism's input order)."""
    s = check_settings(settings, ("release",))
    _attribute(attribute)
    check_frame(mechanisms, "mechanisms", columns=("attribute", "method", "eps", "x", "y", "probability"), empty=True)
    seed = check_count(seed, "seed", low=0)
    eps = s["release"]["eps"]
    rows = mechanisms[(mechanisms["attribute"] == attribute) & (mechanisms["method"] == "pml")
                      & np.isclose(mechanisms["eps"], eps, rtol=0, atol=1e-12)]  # fmt: skip
    if rows.empty:
        raise ValueError(f"attribute {attribute!r} has no pml mechanism at adult-design.release.eps = {eps} in mechanisms "
                         f"(release.eps must be in adult-design.eps, the attribute in adult-design.attributes)")
    categories, _, _ = prior_of(priors, attribute)
    channel = channel_from_rows(rows, len(categories))
    return release_column(table, attribute, channel, release_rng(s["release"]["rng"], seed, attribute), categories)
