"""Time the README's test command on a fresh clone, as CI runs it, and record the measurement.

Usage, from the repository root (the machine otherwise idle: the time is the point):

    python tools/test_suite_timing.py            # clone HEAD, run the command, record
    python tools/test_suite_timing.py --note "…"  # with a note on the machine's load

It clones the committed HEAD into a temporary folder (nothing uncommitted is measured), runs the
README's second bash block (venv, install from the lock, ``pytest``) there with ``bash -c``, and
writes ``docs/measurements/test-suite.csv`` (one row per phase: ``install``, ``pytest``, ``total``,
seconds of wall time; and the numbers of passed, failed and skipped tests) and
``test-suite.json`` (commit, date, machine, command, note). ``tools/benchmark_pages.py`` renders
them on the benchmarks page. The install phase is the command's time up to pytest's first line.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmark_pages import MEASUREMENTS, ROOT, commit_of, machine_description, write_meta  # noqa: E402


def readme_test_command(readme: Path = ROOT / "README.md") -> str:
    """The README's second bash block: the command that sets up and runs the tests."""
    blocks = re.findall(r"```bash\n(.*?)```", readme.read_text(), flags=re.S)
    return blocks[1].strip()


def pytest_counts(output: str) -> dict[str, int]:
    """passed / failed / skipped / errors of pytest's closing line (0 where absent)."""
    closing = [line for line in output.splitlines() if re.search(r"\d+ passed|\d+ failed", line)]
    counts = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    if closing:
        for number, word in re.findall(r"(\d+) (passed|failed|skipped|errors?)", closing[-1]):
            counts["errors" if word.startswith("error") else word] = int(number)
    return counts


def measure(command: str) -> tuple[pd.DataFrame, str]:
    """Run ``command`` in a fresh clone of HEAD: (the phases' table, the command's output)."""
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        start = time.monotonic()
        proc = subprocess.Popen(["bash", "-c", command], cwd=clone, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        lines, pytest_start = [], None
        for line in proc.stdout:
            lines.append(line)
            if pytest_start is None and line.startswith("=" * 10) and "test session starts" in line:
                pytest_start = time.monotonic()
        proc.wait()
        end = time.monotonic()
    output = "".join(lines)
    if proc.returncode != 0:
        raise SystemExit(f"the README's test command failed (exit {proc.returncode}):\n{output[-4000:]}")
    pytest_start = pytest_start if pytest_start is not None else start
    counts = pytest_counts(output)
    rows = [("install", pytest_start - start), ("pytest", end - pytest_start), ("total", end - start)]
    table = pd.DataFrame([{"phase": phase, "s": round(s, 1), **counts} for phase, s in rows])
    return table, output


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--note", default="", help="what else ran on the machine, if anything")
    args = parser.parse_args(argv)
    command = readme_test_command()
    table, _ = measure(command)
    MEASUREMENTS.mkdir(parents=True, exist_ok=True)
    table.to_csv(MEASUREMENTS / "test-suite.csv", index=False, lineterminator="\n")
    write_meta(MEASUREMENTS / "test-suite.json", {
        "commit": commit_of(ROOT), "date": time.strftime("%Y-%m-%d"), "machine": machine_description(),
        "command": "the README's test command on a fresh clone", "note": args.note})
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
