"""Crash safety: a run killed with SIGKILL mid-way is finished by `snakemake --unlock` and the
README's command (profiles/default sets rerun-incomplete), and the outputs are byte-identical to a
clean run's.

The kill is made deterministic: in the test's copy of the pipeline (tests/miniproject.py), the
table job of statistical-inference/fig1, when LEAKAGE_TEST_STALL is set, writes a partial CSV under
the output's name (as a writer without a temporary file would) and then stalls inside the
library's atomic writer, after the temporary file ``.fig1.csv.tmp<pid>`` is written and before it
is moved into place; the test waits for both files, then kills the whole process group with
SIGKILL (no cleanup runs, as after an out-of-memory kill or a cluster time limit). After the
resumed run, ``results/`` must hold exactly the clean run's files (no temporary file left) with
the same bytes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from miniproject import make_project, run_snakemake, snakemake_env

pytestmark = pytest.mark.workflow

STALLED = "results/statistical-inference/fig1.csv"

_STALL = '''\
import os as _os
import time as _time

if _os.environ.get("LEAKAGE_TEST_STALL") and snakemake.output.table.endswith({stalled!r}):
    with open(snakemake.output.table, "w") as _fh:  # a half-written output under its own name
        _fh.write("x,y\\n0.0,")
    _replace = _os.replace

    def _stall(src, dst, *args, **kwargs):  # the atomic writer's move: hang with the temporary file written
        if str(dst).endswith({stalled!r}):
            _time.sleep(600)
        return _replace(src, dst, *args, **kwargs)

    _os.replace = _stall
'''


def _stalling_project(dest: Path) -> Path:
    project = make_project(dest, papers=["statistical-inference"])
    script = project / "workflow" / "scripts" / "table.py"
    _, doc, body = script.read_text().split('"""', 2)
    script.write_text(f'"""{doc}"""\n' + _STALL.format(stalled=STALLED) + body)
    return project


def _results(project: Path) -> dict[str, bytes]:
    """Every file under results/ (hidden ones too) with its bytes; the data provenance, which
    records the sample's path (the two projects live in different folders), by name only."""
    return {
        str(p.relative_to(project)): b"" if "provenance" in p.name else p.read_bytes()
        for p in sorted((project / "results").rglob("*"))
        if p.is_file()
    }


def test_killed_run_recovers_with_unlock_and_the_readme_command(tmp_path):
    clean = _stalling_project(tmp_path / "clean")
    crashed = _stalling_project(tmp_path / "crashed")

    env = snakemake_env(crashed)
    env["LEAKAGE_TEST_STALL"] = "1"
    proc = subprocess.Popen(
        [sys.executable, "-m", "snakemake", "--cores", "1"],
        cwd=crashed, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    clean_run = subprocess.Popen(  # the reference run overlaps the crashing one
        [sys.executable, "-m", "snakemake", "--cores", "1"],
        cwd=clean, env=snakemake_env(clean), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True,
    )
    partial = crashed / STALLED
    temporary = partial.parent.glob(f".{partial.name}.tmp*")
    try:
        deadline = time.monotonic() + 120
        while not (partial.exists() and any(partial.parent.glob(f".{partial.name}.tmp*"))):
            assert proc.poll() is None, f"the run ended before the stall:\n{proc.communicate()[0]}"
            assert time.monotonic() < deadline, "the stalling job never started"
            time.sleep(0.2)
        time.sleep(0.5)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # Snakemake and its job, no cleanup
        proc.communicate()
    assert partial.read_text() == "x,y\n0.0,"  # the half-written output is left behind
    temporary = list(partial.parent.glob(f".{partial.name}.tmp*"))
    assert len(temporary) == 1 and temporary[0].stat().st_size > 0  # and the writer's temporary file
    assert (crashed / ".snakemake" / "locks").is_dir() and any((crashed / ".snakemake" / "locks").iterdir())

    # Without the profile's rerun-incomplete this is the failure users met.
    stuck = run_snakemake(crashed, "--cores", "1", "--workflow-profile", "none", check=False)
    assert stuck.returncode != 0
    assert "IncompleteFilesException" in stuck.stdout and STALLED in stuck.stdout

    run_snakemake(crashed, "--unlock")
    run_snakemake(crashed, "--cores", "all")  # the README's command (profile: default)

    out, _ = clean_run.communicate(timeout=300)
    assert clean_run.returncode == 0, out
    assert not temporary[0].exists()  # removed by the rerun's writer of the same output
    # results/ holds exactly the clean run's files, byte for byte: no temporary file, nothing else
    assert sorted(_results(crashed)) == sorted(_results(clean))
    assert _results(crashed) == _results(clean)
    assert {"results/statistical-inference/fig1.csv", "results/statistical-inference/claims.csv"} <= set(
        _results(clean)
    )
