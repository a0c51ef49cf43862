"""Experiments: each paper's figures as tables of numbers, and the checks of its claims.

A paper key such as ``empirical-pml`` maps to the module ``leakage.experiments.empirical_pml``,
which defines

* ``FIGURES``: ``{figure_id: function(settings, rng, inputs) -> pandas.DataFrame}``, where
  ``settings`` is the figure's section of ``config.yaml``, ``rng`` a ``numpy.random.Generator``
  private to the figure and ``inputs`` a ``{name: path}`` dict of data files;
* ``check_claims(tables, settings, rng) -> list[leakage.claims.Claim]``, with ``tables`` the
  ``{figure_id: DataFrame}`` of all the paper's figures, ``settings`` the paper's config section
  and ``rng`` a generator private to the paper's claims (a study whose claims read data files
  besides its tables takes them as ``inputs={name: path}``, see ``CLAIMS_INPUTS`` in
  workflow/rules/common.smk).

A paper key may also be a study beyond the papers (``adult-design``): same contract. A key
``<name>-design`` is the adult-design study run on another data set (config section ``<name>-design``,
outputs under ``results/<name>-design/``, docs/studies/your-data.md): its module is
``leakage.experiments.adult_design``, its random streams its own key's.

These modules only wire the concept modules (``leakage.measures.pml``, ``leakage.measures.information``, ...)
together: no formula is written twice.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import pandas as pd

from leakage.rng import stream


def _key(value, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be a non-empty string (a key such as 'empirical-pml' or 'fig1'), got {value!r:.100}")
    return value


#: The study whose code every ``<name>-design`` key runs (the study on any categorical table).
DESIGN_STUDY = "adult-design"


def paper_module(paper: str) -> ModuleType:
    """The experiment module of a paper key (``empirical-pml`` -> ``...experiments.empirical_pml``)."""
    name = _key(paper, "paper")
    name = (DESIGN_STUDY if name.endswith("-design") else name).replace("-", "_")
    if not name.isidentifier():
        raise ValueError(f"unknown paper {paper!r}: not a module name")
    try:
        return importlib.import_module(f"leakage.experiments.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"leakage.experiments.{name}":
            raise ValueError(f"unknown paper {paper!r}: no module leakage.experiments.{name}") from exc
        raise


def compute_table(paper: str, figure: str, *, settings: dict, seed: int, inputs: dict | None = None) -> pd.DataFrame:
    """The tidy table of one figure, computed with the figure's own random stream."""
    module = paper_module(paper)
    _key(figure, "figure")
    try:
        make = module.FIGURES[figure]
    except KeyError:
        raise ValueError(
            f"unknown figure {figure!r} of paper {paper!r}; known: {sorted(module.FIGURES)}"
        ) from None
    from leakage.validation import check_mapping

    settings = check_mapping(settings, "settings")
    inputs = {} if inputs is None else check_mapping(inputs, "inputs")
    return make(settings, stream(seed, paper, figure), inputs)


def check_claims(paper: str, tables: dict[str, pd.DataFrame], settings: dict, *, seed: int, inputs: dict | None = None):
    """The paper's claims checked on its figure tables.

    Checks that need random instances (e.g. a theorem on random channels) draw them from the
    paper's own ``claims`` stream of the one config ``seed``. ``inputs``: ``{name: path}`` of data
    files the claims read besides the tables (e.g. adult-design's ``mechanisms.csv``); passed on
    only when given, so the papers' ``check_claims(tables, settings, rng)`` is unchanged.
    """
    module = paper_module(paper)
    rng = stream(seed, paper, "claims")
    if inputs is not None:
        from leakage.validation import check_mapping

        inputs = check_mapping(inputs, "inputs")
    if inputs:
        return module.check_claims(tables, settings, rng, inputs=dict(inputs))
    return module.check_claims(tables, settings, rng)
