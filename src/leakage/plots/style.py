"""One plotting style for every paper, and the writer of figures (tables: :mod:`leakage.tables`).

A figure ``F`` of paper ``P`` is ``results/P/F.pdf``, ``results/P/F.png`` (>= 150 dpi) and
``results/P/F.csv``. Writers are deterministic: same numbers, same bytes (no timestamps in the
PDF or PNG metadata, fixed float formatting in the CSV).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from leakage.tables import atomic_output, save_table  # noqa: E402

#: Resolution of the PNG files.
PNG_DPI = 200

#: One colour per method across all papers and the study, keyed by the method names of the tables
#: (column ``method``, ``mechanism``, ``series``, ``measure`` or ``source_set``). A method keeps its
#: colour in every figure. Families share a hue: PML designs are blues, LDP designs reds and oranges,
#: the frequency oracles and randomized response each their own colour, reference series (exact
#: values, bounds, Monte Carlo samples) black and greys. Two keys share a colour only when they name
#: the same mechanism (``rr``, ``grr`` and ``randomized_response`` are randomized response), or where
#: a paper's own figure is followed (below).
#:
#: Papers' own colours, followed in that paper's figures: worst-case-pml (Song, Oechtering), whose
#: Figs. 2-3 draw eps_US(k) in red and eps*(k) in blue, so ``utility_safe`` is red and ``optimal``
#: blue there (red elsewhere means LDP; the utility-safe mechanism appears only in that paper).
METHOD_COLORS = {
    # PML designs (blues)
    "pml": "#1f77b4",
    "pml_prop2": "#17becf",
    "pml_mse": "#393b79",
    # LDP designs (reds, oranges)
    "ldp": "#d62728",
    "ldp_mse": "#ff7f0e",
    "pldp": "#ad494a",
    # classical mechanisms and frequency oracles
    "rr": "#9467bd",
    "grr": "#9467bd",
    "randomized_response": "#9467bd",
    "oue": "#8c564b",
    "olh": "#e377c2",
    "ss": "#637939",
    "hr": "#e7ba52",
    "exponential": "#2ca02c",
    "geometric_dp": "#7b4173",
    # worst-case-pml, the paper's colours (Figs. 2-3)
    "utility_safe": "#d62728",
    "optimal": "#1f77b4",
    # statistical-inference's optimal programs
    "average_leakage": "#6b6ecf",
    "maximum_leakage": "#bd9e39",
}

#: Names of one mechanism, drawn alike; and methods that keep a paper's own colour (see above).
SAME_COLOUR = ({"rr", "grr", "randomized_response"}, {"ldp", "utility_safe"}, {"pml", "optimal"})

#: Colours of what is not a method: reference series (exact values, bounds, Monte Carlo samples),
#: mi-dp fig1's levels (Lemma 1) and robust-dp-hamming's source sets. They reuse the palette
#: (DP-like levels red, MI blue) and never share a panel with the study's methods.
SERIES_COLORS = {
    "exact": "#000000",
    "bound": "#7f7f7f",
    "sample": "#9e9e9e",
    "eps_dp": "#d62728",
    "kl_relaxed": "#7f7f7f",
    "kl_bound": "#ff7f0e",
    "kl_exact": "#ff7f0e",
    "mi_dp_exact": "#1f77b4",
    "class_I": "#d62728",
    "class_II": "#1f77b4",
    "class_III": "#2ca02c",
    "class_III_a": "#2ca02c",
    "class_III_b": "#ff7f0e",
    "class_III_c": "#9467bd",
}

#: One marker per method of the study's many-method panels (fig1, fig2, fig5 of adult-design), so
#: that methods of one family stay apart in grey print too.
METHOD_MARKERS = {
    "pml": "o",
    "pml_prop2": "s",
    "pml_mse": "D",
    "ldp": "^",
    "ldp_mse": "v",
    "pldp": "^",
    "rr": "x",
    "grr": "x",
    "randomized_response": "^",
    "oue": "P",
    "olh": "*",
    "ss": "h",
    "hr": "+",
    "utility_safe": "o",
    "exponential": "s",
    "average_leakage": "o",
    "maximum_leakage": "s",
    "geometric_dp": "^",
}

#: Readable legend labels for the method keys used in the tables.
METHOD_LABELS = {
    "pml": "PML",
    "pml_prop2": "PML via LDP, route (44)",
    "pml_mse": "PML, MSE-optimal",
    "ldp": "LDP",
    "ldp_mse": "LDP, MSE-optimal",
    "pldp": "pLDP",
    "rr": "randomized response",
    "grr": "randomized response",
    "randomized_response": "randomized response",
    "oue": "OUE",
    "olh": "OLH",
    "ss": "subset selection",
    "hr": "Hadamard response",
    "utility_safe": "utility-safe",
    "exponential": "exponential",
    "geometric_dp": "geometric (DP)",
    "class_I": "Class I",
    "class_II": "Class II",
    "class_III": "Class III",
    "class_III_a": "Class III (a)",
    "class_III_b": "Class III (b)",
    "class_III_c": "Class III (c)",
}

#: The smallest font, in points at the figure's printed size (tests/plots/test_figures.py checks it).
MIN_FONT_PT = 8
#: A figure is read at most this wide (inches): the text column of a docs page (about 960 px) or a
#: landscape page. A wider figure is shrunk to it, so :func:`new_figure` scales its fonts up by
#: width / PRINT_WIDTH_IN, and every font stays >= MIN_FONT_PT once printed.
PRINT_WIDTH_IN = 10.0

RC_PARAMS = {
    "figure.figsize": (5.0, 3.6),
    "font.size": 10,
    "axes.labelsize": 10,
    "axes.titlesize": 10,
    "legend.fontsize": 8,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.5,
    "savefig.bbox": "tight",
    "pdf.fonttype": 42,
    "svg.hashsalt": "leakage",
}


_FONT_KEYS = ("font.size", "axes.labelsize", "axes.titlesize", "legend.fontsize", "xtick.labelsize", "ytick.labelsize")


def color(method: str) -> str | None:
    """The shared colour of a method or series (None lets matplotlib choose)."""
    return METHOD_COLORS.get(method) or SERIES_COLORS.get(method)


def label(method: str) -> str:
    """The legend label of a method."""
    return METHOD_LABELS.get(method, method)


def marker(method: str) -> str:
    """The marker of a method ("o" when it has none of its own)."""
    return METHOD_MARKERS.get(method, "o")


def new_figure(ncols: int = 1, nrows: int = 1, **kwargs):
    """A figure and its axes in the project style."""
    plt.rcParams.update(RC_PARAMS)
    w, h = RC_PARAMS["figure.figsize"]
    kwargs.setdefault("figsize", (w * ncols, h * nrows))
    scale = max(1.0, kwargs["figsize"][0] / PRINT_WIDTH_IN)
    plt.rcParams.update({key: RC_PARAMS[key] * scale for key in _FONT_KEYS})
    return plt.subplots(nrows, ncols, squeeze=False, **kwargs)


def save_figure(fig, stem: str | Path) -> tuple[Path, Path]:
    """Write ``stem.pdf`` and ``stem.png`` without timestamps, then close the figure."""
    stem = Path(stem)
    if stem.suffix in {".pdf", ".png", ".csv"}:
        stem = stem.with_suffix("")
    stem.parent.mkdir(parents=True, exist_ok=True)
    pdf, png = stem.with_suffix(".pdf"), stem.with_suffix(".png")
    for out, kwargs in (
        (pdf, {"metadata": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}}),
        (png, {"dpi": PNG_DPI, "metadata": {"Software": None}}),
    ):
        with atomic_output(out) as tmp:
            fig.savefig(tmp, format=out.suffix[1:], **kwargs)
    plt.close(fig)
    return pdf, png


def write_figure(fig, table: pd.DataFrame, stem: str | Path) -> tuple[Path, Path, Path]:
    """Write a figure as PDF + PNG and its plotted numbers as a tidy CSV, in one call."""
    stem = Path(stem).with_suffix("")
    csv = save_table(table, stem.with_suffix(".csv"))
    pdf, png = save_figure(fig, stem)
    return pdf, png, csv
