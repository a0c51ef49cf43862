"""Every figure of every paper and study, redrawn from a table, is readable: in every axes the entries
the legend names apart are drawn apart (colour, line style or marker), each area swatch of a legend
(a band, a bar) shows a colour drawn in its axes (a line swatch may be a neutral key of a style), fonts are at least ``MIN_FONT_PT`` at the printed size, and no legend
covers a data point.

The figures are found through the ``PLOTS`` dicts of every paper and study of config.yaml, so a
figure added later is covered the day it is added: its test fails until its table is in
``tests/plots/tables/<paper>/<figure>.csv`` (``python tools/figure_fixtures.py`` copies it, thinned,
from a pipeline run's ``results/``).
"""

from __future__ import annotations

import importlib

import matplotlib
import numpy as np
import pytest
from matplotlib.collections import Collection, PathCollection
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text

from conftest import ROOT
from leakage.plots.style import MIN_FONT_PT, PRINT_WIDTH_IN
from leakage.tables import read_table
from shipped_config import shipped, shipped_config

TABLES = ROOT / "tests" / "plots" / "tables"


def _papers():
    config = shipped_config()
    return list(config["papers"]) + list(config.get("studies", []))


def _figures():
    out = []
    for paper in _papers():
        module = importlib.import_module(f"leakage.plots.{paper.replace('-', '_')}")
        out.extend((paper, figure) for figure in module.PLOTS)
    return out


FIGURES = _figures()


def _settings(paper, figure):
    section = shipped(paper)
    return section[figure] if figure in section else section


def _draw(paper, figure):
    path = TABLES / paper / f"{figure}.csv"
    assert path.exists(), f"no table for {paper} {figure}: run `python tools/figure_fixtures.py` after a pipeline run"
    module = importlib.import_module(f"leakage.plots.{paper.replace('-', '_')}")
    fig = module.PLOTS[figure](read_table(path), dict(_settings(paper, figure)))
    fig.set_dpi(40)  # checks in points and in display coordinates: a coarse raster is enough, and fast
    fig.canvas.draw()
    return fig


def _rgba(value):
    """A colour as a hashable rounded RGBA tuple (None for no colour)."""
    if value is None or (isinstance(value, str) and value == "none"):
        return None
    arr = np.asarray(matplotlib.colors.to_rgba_array(value))
    if arr.size == 0:
        return None
    return tuple(np.round(arr[0], 3))


def _style(handle):
    """What tells a legend entry apart: colour, line style and marker (or face, edge and hatch)."""
    if isinstance(handle, Line2D):
        marker = handle.get_marker() if handle.get_marker() not in (None, "None", "none", "") else None
        line = handle.get_linestyle() if handle.get_linestyle() not in ("None", "none", "") else None
        return ("line", _rgba(handle.get_color()), line, marker, _rgba(handle.get_markerfacecolor()))
    if isinstance(handle, Patch):
        return ("patch", _rgba(handle.get_facecolor()), _rgba(handle.get_edgecolor()), handle.get_hatch())
    if isinstance(handle, Collection):
        faces = handle.get_facecolor()
        edges = handle.get_edgecolor()
        return ("collection", _rgba(faces) if len(faces) else None, _rgba(edges) if len(edges) else None,
                handle.get_hatch())
    return ("other", id(handle))


def _colours(handle):
    if isinstance(handle, Line2D):
        return {_rgba(handle.get_color()), _rgba(handle.get_markerfacecolor()), _rgba(handle.get_markeredgecolor())}
    if isinstance(handle, Patch):
        return {_rgba(handle.get_facecolor()), _rgba(handle.get_edgecolor())}
    if isinstance(handle, Collection):
        return {_rgba(c) for c in list(handle.get_facecolor()) + list(handle.get_edgecolor())}
    return set()


def _draws_something(artist):
    if isinstance(artist, Line2D):
        return len(artist.get_xdata()) > 0
    if isinstance(artist, Collection):
        if isinstance(artist, PathCollection):  # a scatter: its points are the offsets
            return len(artist.get_paths()) > 0 and len(artist.get_offsets()) > 0
        return any(len(path.vertices) for path in artist.get_paths())
    return True


def _drawn_colours(ax):
    """The colours of the data artists of an axes (lines, collections, patches), without alpha."""
    out = set()
    for artist in list(ax.lines) + list(ax.collections) + list(ax.patches):
        if not _draws_something(artist):  # a legend proxy (an empty artist) shows no data
            continue
        for c in _colours(artist):
            if c is not None:
                out.add(c[:3])
    return out


def _legends(fig):
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            yield ax, legend
    for legend in fig.legends:
        yield None, legend


@pytest.mark.parametrize("paper,figure", FIGURES, ids=[f"{p}-{f}" for p, f in FIGURES])
def test_figure_is_readable(paper, figure):
    fig = _draw(paper, figure)
    try:
        # 1. entries the legend names apart are drawn apart, and each swatch shows a drawn colour
        for ax, legend in _legends(fig):
            entries = [(t.get_text(), h) for t, h in zip(legend.get_texts(), legend.legend_handles) if t.get_text()]
            seen = {}
            for text, handle in entries:
                style = _style(handle)
                other = seen.get(style)
                assert other is None or other == text, (
                    f"{paper} {figure}: legend entries {other!r} and {text!r} are drawn alike {style}"
                )
                seen[style] = text
                if not isinstance(handle, Line2D):  # an area's swatch (a band, a bar) shows its colour
                    drawn = _drawn_colours(ax) if ax is not None else set().union(*map(_drawn_colours, fig.axes))
                    shown = {c[:3] for c in _colours(handle) if c is not None and c[3] > 0}
                    assert not shown or shown & drawn, (
                        f"{paper} {figure}: the swatch of {text!r} shows {shown}, a colour drawn nowhere in its panel"
                    )
        # 2. fonts at least MIN_FONT_PT at the printed size (a figure wider than PRINT_WIDTH_IN is shrunk)
        width = fig.get_size_inches()[0]
        scale = min(1.0, PRINT_WIDTH_IN / width)
        for text in fig.findobj(Text):
            if text.get_visible() and text.get_text().strip() and text.get_window_extent().width > 0:
                printed = text.get_fontsize() * scale
                assert printed >= MIN_FONT_PT - 1e-9, (
                    f"{paper} {figure}: text {text.get_text()[:40]!r} is {printed:.1f} pt printed "
                    f"({text.get_fontsize():g} pt in a {width:.1f}-inch figure)"
                )
        # 3. no legend covers a data point of its axes
        for ax, legend in _legends(fig):
            if ax is None:
                continue
            box = legend.get_window_extent()
            axes_box = ax.get_window_extent()
            for artist in list(ax.lines) + [c for c in ax.collections if isinstance(c, PathCollection)]:
                if not artist.get_visible() or artist.get_label() in ("", None):
                    continue
                if isinstance(artist, Line2D):
                    xy = np.column_stack(artist.get_data()).astype(float)
                    points = artist.get_transform().transform(xy) if len(xy) else xy
                else:
                    points = artist.get_offset_transform().transform(artist.get_offsets())
                points = points[np.isfinite(points).all(axis=1)] if len(points) else points
                inside_axes = (axes_box.x0 <= points[:, 0]) & (points[:, 0] <= axes_box.x1) & \
                    (axes_box.y0 <= points[:, 1]) & (points[:, 1] <= axes_box.y1) if len(points) else []
                covered = (box.x0 < points[:, 0]) & (points[:, 0] < box.x1) & (box.y0 < points[:, 1]) & \
                    (points[:, 1] < box.y1) if len(points) else []
                n = int(np.sum(np.asarray(covered) & np.asarray(inside_axes)))
                assert n == 0, (
                    f"{paper} {figure}: the legend of panel {ax.get_title()!r} covers {n} points of "
                    f"{artist.get_label()!r}"
                )
    finally:
        matplotlib.pyplot.close(fig)


def test_every_method_of_the_palette_has_a_label_or_is_a_reference_series():
    from leakage.plots import style

    assert set(style.METHOD_MARKERS) <= set(style.METHOD_COLORS)
    for name in style.METHOD_LABELS:
        assert style.color(name) is not None, name


def test_distinct_methods_have_distinct_colours_except_declared_ones():
    # the same mechanism under several names, and the papers' own colours (style.py says which)
    from leakage.plots import style

    owners = {}
    for name, value in style.METHOD_COLORS.items():
        owners.setdefault(to_rgba(value), set()).add(name)
    for names in owners.values():
        if len(names) > 1:
            assert any(names <= group for group in style.SAME_COLOUR), f"{sorted(names)} share a colour"
