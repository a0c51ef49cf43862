"""Categorical tables split into a design part and a release part (the adult-design study on any data).

The study (``docs/studies/adult-design.md``) estimates P̂ and designs every mechanism on one part
of the records and releases the other, so that the released channel does not depend on any
released record (protocol ``split``); protocol ``same-records`` designs on and releases every
record. A *study table* holds the categorical columns of a data set and the column ``part``
(``design`` or ``release``): :func:`split_table` makes one from a table and a split (the source's
own, a column's value, or a seeded random split), :func:`study_parts` gives the two parts a
protocol uses, :func:`category_codes` every record's category index.

Missing values (an empty field, NaN when read with :func:`leakage.tables.read_table`) are the
category ``"?"`` (as in Adult's raw files).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from leakage.validation import check_choice, check_count, check_frame, check_list, check_rng, check_scalar

#: The column of a study table that says which part a record belongs to, and its values.
PART_COLUMN = "part"
PARTS = ("design", "release")

#: The protocols of the study: design on the design part and release the release part, or design on
#: and release every record.
PROTOCOLS = ("split", "same-records")

#: The kinds of split: the source's own (the records of a first part, then the rest), a column's
#: value (``design``: the value of the design records), a seeded random split (``fraction``).
SPLIT_KINDS = ("source", "column", "random")

#: The category of a missing value.
MISSING = "?"


def _name(value, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be a non-empty string (a column or category name), got {value!r:.100}")
    return value


def category_codes(table: pd.DataFrame, attribute: str, categories: Sequence[str] | None = None) -> tuple[list[str], np.ndarray]:
    """An attribute's categories and every record's category index.

    A missing value is the category ``"?"``. Without ``categories`` they are ordered by decreasing
    count, ties by name (index 0 the most frequent), and there must be at least two (no mechanism
    design is possible on one symbol). With ``categories`` (e.g. the design part's, in
    ``priors.csv`` order) the records are coded by that list, and a value outside it raises
    ``ValueError`` naming it. ``codes[i]`` is record i's index (int64, row-aligned with ``table``).
    """
    check_frame(table, "table", empty=True)
    if not isinstance(attribute, str) or not attribute:
        raise TypeError(f"attribute must be a column name (a string), got {attribute!r:.100}")
    if attribute not in table.columns:
        raise ValueError(f"attribute {attribute!r} is missing from the table (columns: {list(table.columns)[:20]})")
    column = table[attribute]
    values = column.astype(object).where(column.notna(), MISSING).astype(str).str.strip()
    if categories is None:
        counts = values.value_counts()
        categories = sorted(counts.index.tolist(), key=lambda c: (-int(counts[c]), c))
        if len(categories) < 2:
            raise ValueError(
                f"attribute {attribute!r} has a single category {categories} in the data: nothing to privatize"
            )
    else:
        categories = check_list(categories, "categories", _name)
        unknown = sorted(set(values.unique()) - set(categories))
        if unknown:
            raise ValueError(f"attribute {attribute!r} has categories {unknown[:10]} outside the given categories "
                             f"(those of the design part): the mechanism has no row for them")  # fmt: skip
    index = {c: i for i, c in enumerate(categories)}
    return list(categories), values.map(index).to_numpy(dtype=np.int64)


def split_table(table: pd.DataFrame, columns: Sequence[str], split: Mapping, *, first_part: int | None = None,
                rng: np.random.Generator | None = None) -> pd.DataFrame:
    """The study table: ``columns`` of ``table`` (as text, missing values kept missing) and ``part``.

    ``split["kind"]``: ``source`` -- the source's own split, the first ``first_part`` records the
    design part and the rest the release part (Adult: the records of ``adult.data``, then those of
    ``adult.test``); ``column`` -- the records whose column ``split["column"]`` equals
    ``split["design"]`` (compared as text) are the design part, every other record the release part
    (that column need not be among ``columns``); ``random`` -- ``round(fraction * n)`` records
    drawn without replacement by ``rng`` are the design part (``split["fraction"]`` in (0, 1)). Both parts must be non-empty (``ValueError`` naming
    the split key otherwise).
    """
    check_frame(table, "table")
    columns = check_list(columns, "columns", _name)
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"columns {missing} are not columns of the table (columns: {list(table.columns)[:20]})")
    if not isinstance(split, Mapping):
        raise TypeError(f"split must be a mapping (kind, column, design, fraction), got {split!r:.100}")
    kind = check_choice(split.get("kind"), "split.kind", SPLIT_KINDS)
    n = len(table)
    if kind == "source":
        if first_part is None:
            raise ValueError("split.kind: 'source' needs a source with its own split (first_part, the records of its first part)")
        first_part = check_count(first_part, "first_part", low=0, high=n)
        design = np.arange(n) < first_part
    elif kind == "column":
        column = split.get("column")
        if not isinstance(column, str) or column not in table.columns:
            raise ValueError(f"split.column must name a column of the table, got {column!r}")
        if split.get("design") is None:
            raise ValueError("split.design must give the value of the design records")
        design = (table[column].astype(object).where(table[column].notna(), MISSING).astype(str).str.strip()
                  == str(split["design"]).strip()).to_numpy()  # fmt: skip
    else:
        fraction = check_scalar(split.get("fraction"), "split.fraction", low=0.0, high=1.0,
                                low_inclusive=False, high_inclusive=False)  # fmt: skip
        rng = check_rng(rng)
        design = np.zeros(n, dtype=bool)
        design[rng.choice(n, size=int(round(fraction * n)), replace=False)] = True
    if design.all() or not design.any():
        part = "release" if design.all() else "design"
        raise ValueError(f"split.kind {kind!r}: the {part} part is empty ({int(design.sum())} of {n} records in the design part)")
    out = table[columns].astype(object).where(table[columns].notna(), None)
    out = out.apply(lambda col: col.map(lambda v: v if v is None else str(v).strip()))
    out[PART_COLUMN] = np.where(design, PARTS[0], PARTS[1])
    return out.reset_index(drop=True)


def study_parts(dataset: pd.DataFrame, protocol: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(design records, release records) of a study table under ``protocol``: ``split`` -- the
    records of each part; ``same-records`` -- every record for both (the design then depends on
    the released records: docs/studies/adult-design.md, "Protocols")."""
    check_frame(dataset, "dataset", columns=(PART_COLUMN,))
    protocol = check_choice(protocol, "protocol", PROTOCOLS)
    parts = dataset[PART_COLUMN].astype(str)
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        raise ValueError(f"dataset: column {PART_COLUMN!r} has values {unknown[:5]} besides {list(PARTS)}")
    if protocol == "same-records":
        return dataset, dataset
    design, release = (dataset[parts == p].reset_index(drop=True) for p in PARTS)
    for name, part in (("design", design), ("release", release)):
        if part.empty:
            raise ValueError(f"dataset: the {name} part is empty (protocol split needs both parts)")
    return design, release
