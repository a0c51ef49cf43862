"""Figures: one shared style (:mod:`leakage.plots.style`) and one plotting module per paper."""

from __future__ import annotations


import importlib


def plot_figure(paper: str, figure: str, table, settings: dict):
    """Draw one figure from its tidy table: ``leakage.plots.<paper_module>.PLOTS[figure]``."""
    name = paper.replace("-", "_")
    module = importlib.import_module(f"leakage.plots.{name}")
    try:
        draw = module.PLOTS[figure]
    except KeyError:
        raise ValueError(f"no plot for figure {figure!r} of paper {paper!r}") from None
    return draw(table, dict(settings))
