"""The rules' conda environment matches the pip dependencies, and the workflow lints clean.

envs/leakage.yaml (``--sdm conda``) and pyproject.toml (pip) must list the same packages with the
same version specifiers, so that both ways of running the pipeline use the same software.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
RULE_FILES = [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def conda_env():
    return yaml.safe_load((ROOT / "envs" / "leakage.yaml").read_text())


def conda_spec(entry: str) -> tuple[str, str]:
    """(name, specifier) of a conda match spec such as 'numpy>=1.26' or 'python=3.11'."""
    m = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*(.*?)\s*", entry)
    return m.group(1), m.group(2)


def env_requirements():
    """The environment's packages as {name: (extras, specifier)} plus its python spec."""
    conda, pip, python = {}, {}, None
    for entry in conda_env()["dependencies"]:
        if isinstance(entry, dict):
            for line in entry["pip"]:
                if line.startswith("-e ") or line.startswith("--"):
                    continue  # the project itself, pip options
                req = Requirement(line)
                pip[canonicalize_name(req.name)] = (frozenset(req.extras), req.specifier)
        else:
            name, spec = conda_spec(entry)
            if name == "python":
                python = spec
            elif name != "pip":
                conda[canonicalize_name(name)] = (frozenset(), SpecifierSet(spec))
    return conda, pip, python


def test_conda_spec_parser():
    assert conda_spec("numpy>=1.26") == ("numpy", ">=1.26")
    assert conda_spec("python=3.11") == ("python", "=3.11")
    assert conda_spec("cvxpy") == ("cvxpy", "")


def test_env_lists_the_pyproject_dependencies_with_the_same_specifiers():
    wanted = {}
    for line in pyproject()["dependencies"]:
        req = Requirement(line)
        wanted[canonicalize_name(req.name)] = (frozenset(req.extras), req.specifier)
    conda, pip, _ = env_requirements()
    both = set(conda) & set(pip)
    assert not both, f"listed both as conda and pip packages: {sorted(both)}"
    have = {**conda, **pip}
    assert sorted(have) == sorted(wanted), "envs/leakage.yaml and pyproject.toml list different packages"
    for name, (extras, spec) in wanted.items():
        assert have[name][1] == spec, f"{name}: env has {have[name][1]!s}, pyproject.toml {spec!s}"
        assert have[name][0] == extras, f"{name}: env extras {sorted(have[name][0])}, pyproject {sorted(extras)}"


def test_env_installs_the_project_and_a_python_it_supports():
    pip_lines = next(e["pip"] for e in conda_env()["dependencies"] if isinstance(e, dict))
    assert "-e ../" in pip_lines  # envs/ -> the project root
    assert (ROOT / "envs" / ".." / "pyproject.toml").resolve() == ROOT / "pyproject.toml"
    _, _, python = env_requirements()
    version = python.lstrip("=")
    assert SpecifierSet(pyproject()["requires-python"]).contains(version), (python, pyproject()["requires-python"])


def rule_blocks(text: str):
    """(name, body) of every rule/checkpoint in a Snakefile's text (body up to the next top-level line)."""
    for m in re.finditer(r"^(?:rule|checkpoint) (\w+):\n((?:[ \t]+.*\n|\n)*)", text, flags=re.M):
        yield m.group(1), m.group(2)


def test_rule_block_parser_sees_every_rule():
    text = "rule a:\n    input:\n        'x',\n\n\nrule b:\n    conda:\n        ENV\n    shell:\n        'y'\nx = 1\n"
    assert [(n, "conda:" in b) for n, b in rule_blocks(text)] == [("a", False), ("b", True)]


def test_every_rule_that_runs_code_names_the_conda_env():
    seen = []
    for path in RULE_FILES:
        for name, body in rule_blocks(path.read_text()):
            seen.append(name)
            runs = re.search(r"^\s+(script|shell|run|notebook|wrapper):", body, flags=re.M)
            if runs:
                conda = re.search(r"^\s+conda:\s*\n\s+ENV\b", body, flags=re.M)
                assert conda, f"rule {name} ({path.name}) has no conda: ENV"
    assert {"data", "estimate_features", "experiment", "figure", "claims", "all"} <= set(seen)


@pytest.mark.workflow
def test_snakemake_lint_is_clean(tmp_path):
    """``snakemake --lint`` on the whole workflow (the repository's config.yaml): no lint at all."""
    (tmp_path / "config.yaml").write_text((ROOT / "config.yaml").read_text())
    (tmp_path / "src").symlink_to(ROOT / "src", target_is_directory=True)
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(tmp_path), "--lint"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "Lints for" not in out and "good condition" in out
