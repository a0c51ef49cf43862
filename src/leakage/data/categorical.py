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

from leakage.tables import read_table
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


def _text(value) -> str | None:
    """A field as text: None when missing (None, NaN), an integer-valued float without ``.0`` (a
    column of integers with a missing value is read as floats), else ``str``, stripped."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value).strip()


def _as_text(table: pd.DataFrame) -> pd.DataFrame:
    """Every field of ``table`` as :func:`_text` (object columns)."""
    return pd.DataFrame({c: pd.Series([_text(v) for v in table[c].tolist()], index=table.index, dtype=object)
                         for c in table.columns})  # fmt: skip


def _values(column: pd.Series) -> pd.Series:
    """A column's values as stripped text, a missing value the category ``"?"``."""
    return column.astype(object).where(column.notna(), MISSING).astype(str).str.strip()


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
    values = _values(table[attribute])
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
        design = (_values(table[column]) == str(split["design"]).strip()).to_numpy()
    else:
        fraction = check_scalar(split.get("fraction"), "split.fraction", low=0.0, high=1.0,
                                low_inclusive=False, high_inclusive=False)  # fmt: skip
        rng = check_rng(rng)
        design = np.zeros(n, dtype=bool)
        design[rng.choice(n, size=int(round(fraction * n)), replace=False)] = True
    if design.all() or not design.any():
        part = "release" if design.all() else "design"
        raise ValueError(f"split.kind {kind!r}: the {part} part is empty ({int(design.sum())} of {n} records in the design part)")
    out = _as_text(table[columns])
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


# --------------------------------------------------------------------------- the data set of a study

#: The keys of a study's ``dataset`` section (config.yaml holds Adult's), and of its ``split``.
DATASET_KEYS = ("source", "uci_id", "path", "url", "timeout", "columns", "split")
SPLIT_KEYS = ("kind", "column", "design", "fraction")

#: Where a study's table comes from: ``adult`` (results/data/adult.csv, acquired and verified by
#: the data rule, docs/data.md), ``ucimlrepo`` (``fetch_ucirepo(id=uci_id)``), ``csv`` (a local
#: file, ``path``) or ``url`` (a CSV file at ``url``).
DATASET_SOURCES = ("adult", "ucimlrepo", "csv", "url")

#: The key each source needs (the others must be null).
_SOURCE_KEY = {"adult": None, "ucimlrepo": "uci_id", "csv": "path", "url": "url"}


def check_dataset(settings: Mapping, where: str = "dataset") -> dict:
    """A study's ``dataset`` section, complete and checked (``ValueError``/``TypeError`` naming
    ``<where>.<key>``): ``source`` one of :data:`DATASET_SOURCES` with its key set (``uci_id`` an
    integer >= 1, ``path`` a file name, ``url`` an http(s) URL) and the others null; ``timeout``
    seconds > 0; ``columns`` distinct non-empty names; ``split`` with ``kind`` one of
    :data:`SPLIT_KINDS` and its keys: ``source`` only for the source ``adult`` (the other sources
    have no split of their own), ``column`` with ``column`` and ``design``, ``random`` with
    ``fraction`` in (0, 1); the keys a kind does not use null."""
    if not isinstance(settings, Mapping):
        raise TypeError(f"{where} must be a mapping (the config section), got {settings!r:.100}")
    s = dict(settings)
    for keys, name in ((DATASET_KEYS, where), (SPLIT_KEYS, f"{where}.split")):
        section = s if name == where else s.get("split")
        if not isinstance(section, Mapping):
            raise TypeError(f"{name} must be a mapping, got {section!r:.100}")
        unknown, missing = sorted(set(section) - set(keys)), [k for k in keys if k not in section]
        if unknown or missing:
            raise ValueError(f"{name}: unknown keys {unknown}, missing keys {missing}; the keys are {list(keys)} "
                             "(config.yaml holds every key)")  # fmt: skip
    source = check_choice(s["source"], f"{where}.source", DATASET_SOURCES)
    for src, key in _SOURCE_KEY.items():
        if key is None:
            continue
        if src == source and s[key] is None:
            raise ValueError(f"{where}.{key} must be set for {where}.source {source!r}")
        if src != source and s[key] is not None:
            raise ValueError(f"{where}.{key} must be null for {where}.source {source!r} (it is {source}'s key only when source is {src!r})")
    if source == "ucimlrepo":
        s["uci_id"] = check_count(s["uci_id"], f"{where}.uci_id")
    if source == "csv":
        if not isinstance(s["path"], str) or not s["path"]:
            raise TypeError(f"{where}.path must be a file name, got {s['path']!r:.100}")
    if source == "url" and (not isinstance(s["url"], str) or not s["url"].startswith(("http://", "https://"))):
        raise ValueError(f"{where}.url must be an http(s) URL, got {s['url']!r:.100}")
    s["timeout"] = check_scalar(s["timeout"], f"{where}.timeout", low=0.0, high=600.0, low_inclusive=False)
    s["columns"] = check_list(s["columns"], f"{where}.columns", _name)
    if len(set(s["columns"])) != len(s["columns"]):
        raise ValueError(f"{where}.columns lists a column twice: {s['columns']}")
    split = dict(s["split"])
    kind = check_choice(split["kind"], f"{where}.split.kind", SPLIT_KINDS)
    if kind == "source" and source != "adult":
        raise ValueError(f"{where}.split.kind: 'source' needs a source with its own split (adult: adult.data | "
                         f"adult.test); {source!r} has none: use 'column' or 'random'")  # fmt: skip
    used = {"source": (), "column": ("column", "design"), "random": ("fraction",)}[kind]
    for key in ("column", "design", "fraction"):
        if key in used and split[key] is None:
            raise ValueError(f"{where}.split.{key} must be set for {where}.split.kind {kind!r}")
        if key not in used and split[key] is not None:
            raise ValueError(f"{where}.split.{key} must be null for {where}.split.kind {kind!r}")
    if kind == "column":
        split["column"] = _name(split["column"], f"{where}.split.column")
        if isinstance(split["design"], (bool, dict, list)):
            raise TypeError(f"{where}.split.design must be the value (text or number) of the design records, got {split['design']!r:.100}")
    if kind == "random":
        split["fraction"] = check_scalar(split["fraction"], f"{where}.split.fraction", low=0.0, high=1.0,
                                         low_inclusive=False, high_inclusive=False)  # fmt: skip
    s["split"] = split
    return s


def read_source_table(settings: Mapping, *, fetch_url, fetch_ucirepo) -> pd.DataFrame:
    """The table of a study's ``dataset`` source ``ucimlrepo``, ``csv`` or ``url`` (``adult`` is read
    from results/data/adult.csv by the pipeline), every field as text, an empty field missing.

    ``ucimlrepo``: ``fetch_ucirepo(uci_id, timeout).data.original``
    (:func:`leakage.data.adult.fetch_ucirepo`); ``csv``: the file at ``path``; ``url``: the body
    of ``url`` (:func:`leakage.data.adult.fetch_url`, ``timeout`` seconds per connection attempt
    and read), a CSV file with a header line. ``fetch_url(url, timeout) -> bytes`` and
    ``fetch_ucirepo(uci_id, timeout)``: the network calls (the pipeline passes those of
    :mod:`leakage.data.adult`; tests pass fakes). Failures raise
    ``ValueError`` (``RuntimeError`` for the network) naming the source.
    """
    import io

    s = check_dataset(settings)
    source = s["source"]
    if source == "adult":
        raise ValueError("dataset.source 'adult' is read from results/data/adult.csv (the data rule), not here")
    if source == "ucimlrepo":
        try:
            frame = fetch_ucirepo(s["uci_id"], s["timeout"]).data.original
        except Exception as exc:  # noqa: BLE001 -- the client's errors are of many kinds; reported with the source
            raise RuntimeError(f"dataset.source ucimlrepo: fetch_ucirepo(id={s['uci_id']}) failed: "
                               f"{type(exc).__name__}: {exc}"[:500]) from None  # fmt: skip
        return _as_text(frame)
    if source == "csv":
        body, where = s["path"], f"dataset.path {s['path']!r}"
    else:
        try:
            body = io.BytesIO(fetch_url(s["url"], s["timeout"]))
        except Exception as exc:  # noqa: BLE001
            raise RuntimeError(f"dataset.source url: cannot fetch {s['url']}: {type(exc).__name__}: {exc}"[:500]) from None
        where = f"dataset.url {s['url']!r}"
    try:
        table = read_table(body, dtype=str)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise ValueError(f"{where}: not a readable CSV file with a header line: {exc}"[:500]) from None
    return _as_text(table)
