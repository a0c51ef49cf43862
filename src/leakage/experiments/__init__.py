"""Experiments: each paper's figures as tables of numbers, and the checks of its claims.

A paper key such as ``empirical-pml`` maps to the module ``leakage.experiments.empirical_pml``,
which defines

* ``FIGURES``: ``{figure_id: function(settings, rng, inputs) -> pandas.DataFrame}``, where
  ``settings`` is the figure's section of ``config.yaml``, ``rng`` a ``numpy.random.Generator``
  private to the figure and ``inputs`` a ``{name: path}`` dict of data files;
* ``check_claims(tables, settings, rng) -> list[leakage.claims.Claim]``, with ``tables`` the
  ``{figure_id: DataFrame}`` of all the paper's figures, ``settings`` the paper's config section
  and ``rng`` a generator private to the paper's claims.

These modules only wire the concept modules (``leakage.measures.pml``, ``leakage.measures.information``, ...)
together: no formula is written twice.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import pandas as pd

from leakage.rng import stream


def paper_module(paper: str) -> ModuleType:
    """The experiment module of a paper key (``empirical-pml`` -> ``...experiments.empirical_pml``)."""
    name = paper.replace("-", "_")
    try:
        return importlib.import_module(f"leakage.experiments.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"leakage.experiments.{name}":
            raise ValueError(f"unknown paper {paper!r}: no module leakage.experiments.{name}") from exc
        raise


def compute_table(paper: str, figure: str, *, settings: dict, seed: int, inputs: dict | None = None) -> pd.DataFrame:
    """The tidy table of one figure, computed with the figure's own random stream."""
    module = paper_module(paper)
    try:
        make = module.FIGURES[figure]
    except KeyError:
        raise ValueError(
            f"unknown figure {figure!r} of paper {paper!r}; known: {sorted(module.FIGURES)}"
        ) from None
    return make(dict(settings), stream(seed, paper, figure), dict(inputs or {}))


def check_claims(paper: str, tables: dict[str, pd.DataFrame], settings: dict, *, seed: int):
    """The paper's claims checked on its figure tables.

    Checks that need random instances (e.g. a theorem on random channels) draw them from the
    paper's own ``claims`` stream of the one config ``seed``.
    """
    return paper_module(paper).check_claims(tables, settings, stream(seed, paper, "claims"))
