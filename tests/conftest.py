import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = pathlib.Path(__file__).resolve().parent / "data"


@pytest.fixture
def repo_root() -> pathlib.Path:
    return ROOT


# Byte code of the library, once per run. The suite starts hundreds of Python processes (the
# Snakemake jobs of the workflow tests), each importing the library; where Python may not write
# byte code on import (PYTHONDONTWRITEBYTECODE, set on this project's machines), every one of them
# compiled the modules it imports again. compileall writes the byte code whatever that variable
# says, and every later import reads it (its header holds the source's mtime and size, so an edited
# module is compiled afresh). The miniproject copies keep it (tests/miniproject.py).
def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the controller, before any worker starts
        import compileall

        compileall.compile_dir(str(ROOT / "src"), quiet=1, workers=0)


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


# The suite runs on every core (pyproject's addopts: -n auto, pytest-xdist). The tests that share an
# expensive built copy of the pipeline (tests/miniproject.py's built_project, module-scoped dry runs
# of the real pipeline) run on one worker, so that it is built once: the scheduler below keeps the
# files of SHARED_BUILD together and hands every other test out on its own. (xdist's own
# --dist loadgroup does this by renaming the tests, which pytest 9.2 no longer lets it do:
# pytest-dev/pytest-xdist#1386.) The Snakemake and SLURM runs, the longest tests, are handed out
# first, so that no worker is left with a long test at the end.
MINIPROJECT = "miniproject"
SHARED_BUILD = ("tests/test_regeneration.py", "tests/test_report_workflow.py")
_FIRST = ("slurm", "workflow")
# Tests that reuse one cached computation of their file (a functools.lru_cache helper) are one work
# unit too, so that it is computed once: node-id prefix -> unit (tests/test_scheduler.py checks
# that each prefix still names a test). test_frequency_design's _pml_24(1.8), a PML design at
# N = 24 with every refinement of its bound: about 11 s alone.
SHARED_CACHE = {
    "tests/design/test_frequency_design.py::test_a_looser_tol_beyond_exact_pricing": "pml_24",
    "tests/design/test_frequency_design.py::test_pml_beyond_exact_pricing_starts_below_the_partitions[1.8]": "pml_24",
}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class SharedBuildScheduling(LoadScopeScheduling):
        """One work unit for the tests of SHARED_BUILD (handed out first: it is the largest), one
        for each group of SHARED_CACHE, one per test for the others, in collection order."""

        def _split_scope(self, nodeid: str) -> str:
            if nodeid.split("::", 1)[0] in SHARED_BUILD:
                return MINIPROJECT
            return next((unit for prefix, unit in SHARED_CACHE.items() if nodeid.startswith(prefix)), nodeid)

    return SharedBuildScheduling(config, log)


def pytest_collection_modifyitems(items):
    """Tests that run the real Snakemake CLI first (stable otherwise; every worker collects the
    same order)."""
    items.sort(key=lambda item: not any(item.get_closest_marker(m) for m in _FIRST))


_CONTRACT_SUMMARY: list[str] = []


def _contract_summary() -> list[str]:
    import sys

    return list(getattr(sys.modules.get("test_contract"), "SUMMARY", []))


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand the summary to the controller
        workeroutput["contract_summary"] = _contract_summary()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    _CONTRACT_SUMMARY.extend(getattr(node, "workeroutput", {}).get("contract_summary", []))


def pytest_terminal_summary(terminalreporter):
    """The bad-input contract's coverage (tests/test_contract.py): how many functions and cases,
    from this process or from the xdist worker that ran it."""
    for line in _contract_summary() + _CONTRACT_SUMMARY:
        terminalreporter.write_line(line)
