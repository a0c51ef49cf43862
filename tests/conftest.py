import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = pathlib.Path(__file__).resolve().parent / "data"


@pytest.fixture
def repo_root() -> pathlib.Path:
    return ROOT


# Property-based tests (Hypothesis): one deterministic profile for every run, so that CI is not
# flaky and a failure replays. pyproject's addopts fix the seed (--hypothesis-seed), so every run
# draws the same examples; the example database in tests/hypothesis-db (committed) keeps the shrunk
# failing examples, which are replayed first on the next run. HYPOTHESIS_PROFILE=explore draws
# more examples for local bug hunting (pytest -p no:randomly --hypothesis-seed=<other>); its
# failures land in the same database.
try:
    from hypothesis import HealthCheck, settings
    from hypothesis.database import DirectoryBasedExampleDatabase
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    pass
else:
    import os

    _DB = DirectoryBasedExampleDatabase(str(pathlib.Path(__file__).resolve().parent / "hypothesis-db"))
    settings.register_profile(
        "ci",
        database=_DB,
        max_examples=25,
        deadline=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    settings.register_profile("explore", database=_DB, max_examples=300, deadline=None, print_blob=True)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_terminal_summary(terminalreporter):
    """The bad-input contract's coverage (tests/test_contract.py): how many functions and cases."""
    import sys

    contract = sys.modules.get("test_contract")
    for line in getattr(contract, "SUMMARY", []):
        terminalreporter.write_line(line)
