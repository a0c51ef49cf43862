"""The writer and the reader of every tidy table the pipeline produces (figure tables, claims,
data tables).

Kept apart from the plots (no matplotlib) so that a table job depends on the code that writes
its CSV and on nothing of the drawing: a change here reruns every table, a change to the plot
style none. Deterministic: same numbers, same bytes (header row, no index, full float
precision, ``\\n`` line ends, missing values as empty fields); :func:`read_table` reads such a file
back with an empty field as the only missing value.
"""

from __future__ import annotations

import glob
import os
from contextlib import contextmanager
from pathlib import Path

import pandas as pd


def atomic_path(path: Path) -> Path:
    """A temporary name beside ``path`` (same folder, so that ``os.replace`` is atomic)."""
    return path.with_name(f".{path.name}.tmp{os.getpid()}")


def remove_stale_temporaries(path: str | Path) -> list[Path]:
    """Delete the temporary files a killed writer of ``path`` left beside it (``.<name>.tmp<pid>``,
    see :func:`atomic_path`); returns them. A process killed with SIGKILL runs no cleanup, so its
    temporary file stays until the next writer of the same output removes it: the job that
    rewrites an output (Snakemake reruns an incomplete job) owns its name, one job per output."""
    path = Path(path)
    mine = atomic_path(path)
    stale = [Path(p) for p in glob.glob(str(path.with_name(f".{glob.escape(path.name)}.tmp*")))]
    stale = [p for p in stale if p != mine and p.name[len(path.name) + 5 :].isdigit()]
    for p in stale:
        p.unlink(missing_ok=True)
    return stale


@contextmanager
def atomic_output(path: str | Path):
    """``with atomic_output(path) as tmp:`` write ``tmp``; it is moved onto ``path`` at the end of
    the block (``os.replace``, atomic), removed on an error; temporary files of killed earlier
    writers of ``path`` are removed first (:func:`remove_stale_temporaries`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    tmp = atomic_path(path)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def save_table(table: pd.DataFrame, path: str | Path) -> Path:
    """Write a tidy table as CSV: header row, no index, full float precision, atomically."""
    path = Path(path)
    with atomic_output(path) as tmp:
        table.to_csv(tmp, index=False, lineterminator="\n")
    return path


def read_table(path: str | Path, **options) -> pd.DataFrame:
    """Read a table written by :func:`save_table`: an empty field is missing (NaN), nothing else is
    (a category named ``NA`` or ``null`` stays a string). ``options`` go to ``pandas.read_csv``
    (e.g. ``dtype``) and override these defaults: ``na_values=[]`` keeps empty fields as empty
    strings (the claims' ``detail``)."""
    return pd.read_csv(path, **{"keep_default_na": False, "na_values": [""], **options})
