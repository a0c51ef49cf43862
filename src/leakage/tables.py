"""The writer and the reader of every tidy table the pipeline produces (figure tables, claims,
data tables).

Kept apart from the plots (no matplotlib) so that a table job depends on the code that writes
its CSV and on nothing of the drawing: a change here reruns every table, a change to the plot
style none. Deterministic: same numbers, same bytes (header row, no index, full float
precision, ``\\n`` line ends, missing values as empty fields); :func:`read_table` reads such a file
back with an empty field as the only missing value.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd


def atomic_path(path: Path) -> Path:
    """A temporary name beside ``path`` (same folder, so that ``os.replace`` is atomic)."""
    return path.with_name(f".{path.name}.tmp{os.getpid()}")


def save_table(table: pd.DataFrame, path: str | Path) -> Path:
    """Write a tidy table as CSV: header row, no index, full float precision, atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = atomic_path(path)
    try:
        table.to_csv(tmp, index=False, lineterminator="\n")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def read_table(path: str | Path, **options) -> pd.DataFrame:
    """Read a table written by :func:`save_table`: an empty field is missing (NaN), nothing else is
    (a category named ``NA`` or ``null`` stays a string). ``options`` go to ``pandas.read_csv``
    (e.g. ``dtype``)."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""], **options)
