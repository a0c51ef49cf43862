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

#: One colour per method across all papers (the papers' own names for them).
METHOD_COLORS = {
    "pml": "#1f77b4",
    "ldp": "#d62728",
    "pldp": "#d62728",
    "bound": "#d62728",
    "exact": "#1f77b4",
    "sample": "#7f7f7f",
    "utility_safe": "#d62728",
    "optimal": "#1f77b4",
    "exponential": "#2ca02c",
    "randomized_response": "#9467bd",
    "average_leakage": "#1f77b4",
    "maximum_leakage": "#ff7f0e",
    "geometric_dp": "#2ca02c",
}

#: Readable legend labels for the method keys used in the tables.
METHOD_LABELS = {
    "pml": "PML",
    "ldp": "LDP",
    "pldp": "pLDP",
    "utility_safe": "utility-safe",
    "exponential": "exponential",
    "randomized_response": "randomized response",
}

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


def color(method: str) -> str | None:
    """The shared colour of a method (None lets matplotlib choose)."""
    return METHOD_COLORS.get(method)


def label(method: str) -> str:
    """The legend label of a method."""
    return METHOD_LABELS.get(method, method)


def new_figure(ncols: int = 1, nrows: int = 1, **kwargs):
    """A figure and its axes in the project style."""
    plt.rcParams.update(RC_PARAMS)
    w, h = RC_PARAMS["figure.figsize"]
    kwargs.setdefault("figsize", (w * ncols, h * nrows))
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
