"""The pinned environment: requirements/lock.txt pins every dependency of pyproject.toml (runtime,
test and docs extras) to an exact version with hashes, each pin satisfies pyproject's range, and the
README's two commands and CI install from the lock."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "lock.txt"
EXTRAS = ("test", "docs")


def lock_pins() -> dict[str, tuple[Version, list[str]]]:
    """{name: (version, hashes)} of every requirement line of the lock."""
    text = LOCK.read_text()
    pins = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        m = re.match(r"([A-Za-z0-9_.\-]+)==([^\s\\;]+)", block)
        if not m:
            continue
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", block)
        pins[canonicalize_name(m.group(1))] = (Version(m.group(2)), hashes)
    return pins


def pyproject_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    for extra in EXTRAS:
        reqs += [Requirement(r) for r in project["optional-dependencies"][extra]]
    return reqs


def test_the_lock_pins_every_package_exactly_with_hashes():
    pins = lock_pins()
    assert len(pins) > 50
    text = LOCK.read_text()
    assert "Python 3.11" in text.splitlines()[1]
    assert not re.search(r"^\s*-{1,2}(extra-)?index-url|^\s*--find-links|^-e ", text, flags=re.M)
    for line in text.splitlines():
        if line and line[0].isalnum():
            assert re.match(r"[A-Za-z0-9_.\-]+==\S+ \\$", line), f"not an exact pin with hashes: {line}"
    assert all(hashes for _, hashes in pins.values()), [n for n, (_, h) in pins.items() if not h]


def test_every_pyproject_dependency_is_pinned_within_its_range():
    pins = lock_pins()
    for req in pyproject_requirements():
        name = canonicalize_name(req.name)
        assert name in pins, f"{req} (pyproject.toml) is not pinned in requirements/lock.txt"
        version = pins[name][0]
        assert req.specifier.contains(version, prereleases=True), (
            f"requirements/lock.txt pins {name}=={version}, outside pyproject.toml's {req}"
        )


def test_the_packages_behind_the_numbers_are_pinned():
    pins = lock_pins()
    for name in ("numpy", "scipy", "highspy", "cvxpy", "clarabel", "pandas", "matplotlib", "snakemake"):
        assert name in pins, name


def test_the_readme_commands_and_ci_install_from_the_lock():
    readme = (ROOT / "README.md").read_text()
    install = "pip install --no-deps -r requirements/lock.txt && pip install --no-deps -e"
    run = re.findall(r"^python3 -m venv .*$", readme, flags=re.M)
    assert len(run) == 2 and all(install in cmd for cmd in run), run
    test_cmd = next(cmd for cmd in run if cmd.endswith("pytest"))
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci == test_cmd


def test_the_installed_lock_is_complete():
    """The README installs the lock with --no-deps (no resolving): that is only right if every
    dependency of every locked package is in the lock, which pip check verifies on the environment
    the tests run in (installed exactly that way)."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "pip", "check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
