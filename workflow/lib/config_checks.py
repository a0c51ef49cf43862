"""The pipeline's configuration checks beyond the schemas, run by the Snakefile after the
JSON-schema validation and before any job starts: the one home of every check that relates
several keys, or a key to the library or the data.

The schemas (workflow/schemas/*.schema.yaml) check each key on its own (type, range, non-empty
lists) and require every key; config.yaml holds every default. The constraints here relate
several keys (m_min < m_max, beta_max <= 2 p_min, a distribution that sums to one, a channel row
per prior entry, adult-design's release.eps among its eps), or a key to what the library knows
(an Adult attribute is one of ``leakage.data.adult.CATEGORICAL_ATTRIBUTES``) or to the data (an
attribute with a single category in results/data/adult.csv). Each violation is reported naming
the keys by their dotted path in config.yaml (``empirical-pml.fig3b.m_min``) and the valid range;
all violations are collected and raised together as one :class:`ConfigError` (a ``ValueError``).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from leakage.data.adult import CATEGORICAL_ATTRIBUTES

#: Absolute tolerance of "sums to one" in the configuration (the values are typed by hand).
SUM_TOL = 1e-9


class ConfigError(ValueError):
    """A configuration that passes the schemas but violates a constraint between keys."""


def _section(config: dict, *keys: str) -> dict:
    """The settings at ``config[k1][k2]...``, or {} when absent (nothing to check)."""
    node: Any = config
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return {}
        node = node[key]
    return node if isinstance(node, dict) else {}


def _less(problems: list, where: str, low_key: str, high_key: str, s: dict, *, strict: bool = True):
    if low_key in s and high_key in s:
        lo, hi = s[low_key], s[high_key]
        bad = lo >= hi if strict else lo > hi
        if bad:
            op = "<" if strict else "<="
            problems.append(
                f"{where}.{low_key} must be {op} {where}.{high_key}, got {low_key} = {lo!r}, "
                f"{high_key} = {hi!r}"
            )


def _distribution(problems: list, key: str, values) -> bool:
    total = math.fsum(float(v) for v in values)
    if abs(total - 1.0) > SUM_TOL * max(1, len(values)):
        problems.append(f"{key} must sum to 1 (a probability distribution), got sum {total:.12g}")
        return False
    return True


def _empirical_pml(config: dict, problems: list) -> None:
    paper = "empirical-pml"
    s = _section(config, paper, "fig2a")
    if "channel" in s and "prior" in s:
        where = f"{paper}.fig2a"
        channel, prior = s["channel"], s["prior"]
        widths = {len(row) for row in channel}
        if len(widths) > 1:
            problems.append(f"{where}.channel rows must all have the same length, got lengths {sorted(widths)}")
        for i, row in enumerate(channel):
            _distribution(problems, f"{where}.channel[{i}] (a row P(.|x))", row)
        if len(channel) != len(prior):
            problems.append(
                f"{where}.prior must have one entry per row of {where}.channel ({len(channel)}), "
                f"got {len(prior)}"
            )
        if _distribution(problems, f"{where}.prior", prior) and "beta_max" in s:
            p_min = min(prior)
            if not s["beta_max"] <= 2 * p_min:
                problems.append(
                    f"{where}.beta_max must be in (0, 2 min(prior)] = (0, {2 * p_min:.6g}], "
                    f"got {s['beta_max']!r}"
                )
    s = _section(config, paper, "fig2b")
    if s:
        where = f"{paper}.fig2b"
        n = s.get("n_symbols")
        if n is not None and "k" in s and s["k"] > n:
            problems.append(f"{where}.k must be in [1, {where}.n_symbols = {n}], got {s['k']!r}")
        if n is not None and "beta_max" in s and not s["beta_max"] <= 2 / n:
            problems.append(
                f"{where}.beta_max must be in (0, 2 / n_symbols] = (0, {2 / n:.6g}] (uniform prior), "
                f"got {s['beta_max']!r}"
            )
    s = _section(config, paper, "fig3a")
    if s:
        _less(problems, f"{paper}.fig3a", "increase_min", "eps_prime_span", s, strict=False)
    for fig in ("fig3b", "fig4", "fig5"):
        s = _section(config, paper, fig)
        if s:
            _less(problems, f"{paper}.{fig}", "m_min", "m_max", s)


def _worst_case_pml(config: dict, problems: list) -> None:
    paper = "worst-case-pml"
    for fig in ("fig2", "fig3"):
        s = _section(config, paper, fig)
        if not s:
            continue
        where = f"{paper}.{fig}"
        _less(problems, where, "p_low_min", "p_low_max", s, strict=False)
        n = s["alphabet_size"]
        if s["p_low_max"] > 1 / n:
            problems.append(
                f"{where}.p_low_max must be <= 1 / alphabet_size = {1 / n:.6g} (the low entries are "
                f"the smallest of a distribution on {n} symbols), got {s['p_low_max']!r}"
            )
        bad_k = [k for k in s["k"] if k > n]
        if bad_k:
            problems.append(f"{where}.k must be in [1, alphabet_size = {n}], got {bad_k}")


def _statistical_inference(config: dict, problems: list) -> None:
    s = _section(config, "statistical-inference", "fig2")
    if s:
        _less(problems, "statistical-inference.fig2", "n_min", "n_max", s, strict=False)


#: The study whose section completes every other design study's (``<name>-design``).
DESIGN_STUDY = "adult-design"


def complete_studies(config: dict) -> dict:
    """Complete the section of every study ``<name>-design`` of ``studies`` other than adult-design
    from adult-design's section (config.yaml, the one home of the defaults), its own keys merged
    over it the way Snakemake merges a --configfile; the section is created when absent. Run by the
    Snakefile before the schemas. Returns ``config`` (changed in place)."""
    import copy

    from snakemake.utils import update_config

    for study in config.get("studies", []) or []:
        if study == DESIGN_STUDY or not isinstance(study, str) or not isinstance(config.get(DESIGN_STUDY), dict):
            continue
        own = config.get(study) or {}
        section = copy.deepcopy(config[DESIGN_STUDY])
        update_config(section, copy.deepcopy(own) if isinstance(own, dict) else {})
        config[study] = section
    return config


def _adult_design(config: dict, problems: list, data_table: Path, where: str = DESIGN_STUDY) -> None:
    s = _section(config, where)
    if not s:
        return
    d = s["dataset"]
    try:
        from leakage.data.categorical import check_dataset

        check_dataset(d, f"{where}.dataset")
    except (ValueError, TypeError) as exc:
        problems.append(str(exc))
    if d["source"] == "adult":
        bad = [c for c in d["columns"] if c not in CATEGORICAL_ATTRIBUTES]
        if bad:
            problems.append(f"{where}.dataset.columns: {bad} are not categorical attributes of Adult; choose from "
                            f"{list(CATEGORICAL_ATTRIBUTES)}")  # fmt: skip
    for key in ("attributes", "mc_attributes"):
        bad = [a for a in s[key] if a not in d["columns"]]
        if bad:
            problems.append(f"{where}.{key}: {bad} are not among {where}.dataset.columns {d['columns']}")
    h = s["heatmap"]
    if h["attribute"] not in s["attributes"]:
        problems.append(f"{where}.heatmap.attribute: {h['attribute']!r} must be one of {where}.attributes {s['attributes']}")
    for key, value in (("release.eps", s["release"]["eps"]), ("heatmap.eps", h["eps"])):
        if value not in s["eps"]:
            problems.append(f"{where}.{key}: {value} must be one of {where}.eps {s['eps']}")
    if "pml" not in s["methods"]:
        problems.append(f"{where}.methods: must include pml (the released mechanism), got {s['methods']}")
    if not set(h["methods"]) <= set(s["methods"]):
        problems.append(f"{where}.heatmap.methods: {h['methods']} must be among {where}.methods {s['methods']}")
    fr = s["frequency"]
    if fr["histogram_attribute"] not in s["attributes"]:
        problems.append(f"{where}.frequency.histogram_attribute: {fr['histogram_attribute']!r} must be one of "
                        f"{where}.attributes {s['attributes']}")  # fmt: skip
    if fr["histogram_eps"] not in s["eps"]:
        problems.append(f"{where}.frequency.histogram_eps: {fr['histogram_eps']} must be one of {where}.eps {s['eps']}")
    designed = set(s["methods"]) | {"pml_mse", "ldp_mse", "oue", "olh", "ss", "hr"}
    if not set(fr["histogram_methods"]) <= designed:
        problems.append(f"{where}.frequency.histogram_methods: {fr['histogram_methods']} must be among {where}.methods "
                        f"{s['methods']} or pml_mse, ldp_mse, oue, olh, ss, hr")  # fmt: skip
    _less(problems, f"{where}.curve", "eps_min", "eps_max", s["curve"])
    mc = s["mc"]
    if mc["m_max"] is not None:
        _less(problems, f"{where}.mc", "m_min", "m_max", mc, strict=False)
    if s["protocol"] == "same-records" and mc["release_m"] is not None:
        problems.append(f"{where}.mc.release_m: must be null under {where}.protocol same-records (the subset itself "
                        f"is released), got {mc['release_m']}")  # fmt: skip
    if d["source"] == "adult":
        _single_categories(s, problems, data_table, where)


def _single_categories(s: dict, problems: list, data_table: Path, where: str = DESIGN_STUDY) -> None:
    """An attribute with one category in the data table has nothing to privatize. Checked when the
    table exists (else by the estimate job, the study's first, with the same message)."""
    wanted = sorted((set(s["attributes"]) | set(s["mc_attributes"])) & set(CATEGORICAL_ATTRIBUTES))
    if not wanted or not data_table.is_file():
        return
    seen = {a: set() for a in wanted}
    records = 0
    with open(data_table, newline="") as fh:
        for row in csv.DictReader(fh):
            records += 1
            for a in wanted:
                if len(seen[a]) < 2:
                    seen[a].add(row.get(a) or "?")
    single = [a for a in wanted if len(seen[a]) < 2] if records else []  # empty: not written yet
    if single:
        key = "attributes" if set(single) & set(s["attributes"]) else "mc_attributes"
        problems.append(f"{where}.{key}: attributes {single} have a single category in {data_table}: "
                        "nothing to privatize")  # fmt: skip


def check_config(config: dict, data_table: str | Path = "results/data/adult.csv") -> None:
    """Raise :class:`ConfigError` (a ``ValueError``) listing every violation of a schema-validated
    config (keys named by dotted path); return normally when all hold.

    Checked: ``papers`` is not empty; empirical-pml fig2a channel rows and prior sum to one, have
    matching sizes and beta_max <= 2 min(prior) (the l1 radius of
    Theorem 4's validity); fig2b k <= n_symbols and beta_max <= 2/n_symbols;
    fig3a increase_min <= eps_prime_span; m_min < m_max (fig3b, fig4, fig5); worst-case-pml
    p_low_min <= p_low_max <= 1/alphabet_size and k <= alphabet_size; statistical-inference fig2
    n_min <= n_max; and, for every study of ``studies`` (adult-design, ``<name>-design``): its
    dataset section is consistent (``leakage.data.categorical.check_dataset``), its attributes are
    among dataset.columns (which, for the source adult, are categorical attributes of Adult),
    mc.release_m is null under the protocol same-records, heatmap.attribute is among its attributes, release.eps and heatmap.eps
    among its eps, methods include pml and heatmap.methods are among them, curve.eps_min <
    curve.eps_max, mc.m_min <= mc.m_max, and no attribute has a single category in ``data_table``
    (when that file exists).
    """
    if not isinstance(config, dict):
        raise TypeError(f"config must be a mapping (the parsed config.yaml), got {type(config).__name__}")
    problems: list[str] = []
    if "papers" in config and not config["papers"]:
        problems.append("papers must list at least one paper (an empty list builds nothing)")
    _empirical_pml(config, problems)
    _worst_case_pml(config, problems)
    _statistical_inference(config, problems)
    for study in config.get("studies", []):
        _adult_design(config, problems, Path(data_table), study)
    if problems:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(problems))
