"""tools/test_suite_timing.py: it times the very command CI runs, and reads pytest's closing line."""

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import test_suite_timing as timing  # noqa: E402


def test_it_times_the_command_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text()
    assert timing.readme_test_command() in ci


def test_pytest_closing_line_is_counted():
    out = "....\n==== 3 failed, 1299 passed, 2 skipped, 1 error in 236.00s (0:03:56) ====\n"
    assert timing.pytest_counts(out) == {"passed": 1299, "failed": 3, "skipped": 2, "errors": 1}
    assert timing.pytest_counts("1302 passed in 236.00s") == {"passed": 1302, "failed": 0, "skipped": 0, "errors": 0}
