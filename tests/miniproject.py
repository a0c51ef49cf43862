"""A small, fast copy of the pipeline for the workflow tests (report, regeneration, SLURM).

``make_project(dest)`` copies the real Snakefile, workflow/, config schema, profiles/ and src/ into
``dest`` and replaces, in the copy only, two papers by tiny fake ones (mi-dp: fig1, fig2;
statistical-inference: fig1; cheap tables, plots and claims, one claim that fails on purpose) and
the Adult data step by a small local sample in the raw UCI format. The real generic rules
(table -> plot -> claims, report items, resources, benchmarks) run unchanged.

Run Snakemake in the copy with ``run_snakemake(project, *args)``: ``PYTHONPATH`` puts the copy's
``src`` first, so that the jobs import the copy's (fake) modules.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

FAKE_FIGURES = {"mi-dp": ["fig1", "fig2"], "statistical-inference": ["fig1"]}

_EXPERIMENT = '''\
"""Fake paper {paper} of the workflow tests: cheap tables, one claim that fails on purpose."""

import numpy as np
import pandas as pd

from leakage.claims import check


def _table(settings, rng, inputs):
    x = np.linspace(0.0, 1.0, settings["points"])
    return pd.DataFrame({{"x": x, "y": x**2 + 0.01 * rng.standard_normal(x.size)}})


FIGURES = {figures}


def check_claims(tables, settings, rng=None):
    out = []
    for fig, t in sorted(tables.items()):
        out.append(check(fig, "y stays below 2", (t["y"] < 2).all(), f"max y = {{t['y'].max():.3f}}"))
    out.append(check("{first}", "a claim that does not hold (test)", False, "on purpose"))
    return out
'''

_PLOT = '''\
"""Fake plots of paper {paper} of the workflow tests."""

from leakage.plots.style import new_figure


def _draw(table, settings):
    fig, axes = new_figure()
    axes[0, 0].plot(table["x"], table["y"], marker="o", label="y")
    axes[0, 0].set_xlabel("x")
    axes[0, 0].set_ylabel("y [nats]")
    axes[0, 0].legend()
    return fig


PLOTS = {figures}
'''

_DATA_RULE = '''\
# Test stand-in of the Adult data step: a small local sample in the raw UCI format.
rule data:
    input:
        data="adult_sample/adult.data",
        test="adult_sample/adult.test",
    output:
        table="results/data/adult.csv",
        provenance="results/data/adult_provenance.json",
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/data/adult.log",
    benchmark:
        "benchmarks/data/adult.tsv"
    conda:
        ENV
    script:
        "../scripts/adult_sample.py"
'''

_DATA_SCRIPT = '''\
"""Test stand-in of the Adult data step: parse the sample, write the table and its provenance."""

import hashlib
import json

import pandas as pd

COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
           "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
           "hours-per-week", "native-country", "income"]
files, frames = {}, []
for name, path in (("adult.data", snakemake.input.data), ("adult.test", snakemake.input.test)):
    raw = open(path, "rb").read()
    files[name] = {"bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}
    frames.append(pd.read_csv(path, header=None, names=COLUMNS, skipinitialspace=True,
                              comment="|", skip_blank_lines=True))
table = pd.concat(frames, ignore_index=True)
table["income"] = table["income"].str.rstrip(".")
table.to_csv(snakemake.output.table, index=False)
with open(snakemake.output.provenance, "w") as fh:
    json.dump({"source": "local sample (test)", "files": files, "records": len(table),
               "income >50K": int((table["income"] == ">50K").sum())}, fh, indent=2)
'''


def write_adult_sample(folder: Path, n_data: int = 60, n_test: int = 30) -> dict[str, str]:
    """Raw UCI-format files adult.data and adult.test (the test file with its header line and
    trailing dots); returns their SHA-256 digests."""
    folder.mkdir(parents=True, exist_ok=True)
    digests = {}
    for name, n, dot in (("adult.data", n_data, ""), ("adult.test", n_test, ".")):
        lines = ["|1x3 Cross validator"] if name == "adult.test" else []
        for i in range(n):
            sex = "Female" if i % 3 == 0 else "Male"
            income = ">50K" if i % 4 == 0 else "<=50K"
            lines.append(
                f"{20 + i % 50}, Private, {100000 + i}, Bachelors, 13, Never-married, Sales, "
                f"Not-in-family, White, {sex}, 0, 0, 40, United-States, {income}{dot}"
            )
        data = ("\n".join(lines) + "\n").encode()
        (folder / name).write_bytes(data)
        digests[name] = hashlib.sha256(data).hexdigest()
    return digests


def _module_dict(figures: list[str], fn: str) -> str:
    return "{" + ", ".join(f'"{f}": {fn}' for f in figures) + "}"


def _replace_module(base: Path, mod: str, text: str) -> None:
    shutil.rmtree(base / mod, ignore_errors=True)
    (base / f"{mod}.py").unlink(missing_ok=True)
    (base / f"{mod}.py").write_text(text)


def make_project(dest: Path, papers: list[str] | None = None, root: Path = ROOT) -> Path:
    """A runnable copy of the pipeline at ``root`` in ``dest`` with the fake papers (see module
    docstring)."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("*.egg-info")  # byte code kept: conftest compiles src once per run
    for item in ("Snakefile", "workflow", "src", "envs", "profiles"):
        src = root / item
        if src.is_dir():
            shutil.copytree(src, dest / item, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dest / item)
    sections = {}
    for paper, figures in FAKE_FIGURES.items():
        mod = paper.replace("-", "_")
        (dest / "workflow" / "rules" / f"{paper}.smk").write_text(
            f"# Fake paper {paper} of the workflow tests.\nFIGURES[{paper!r}] = {figures!r}\n"
        )
        props = "".join(
            f"  {f}:\n    type: object\n    additionalProperties: false\n    default: {{}}\n"
            f"    properties:\n      points: {{type: integer, minimum: 2, default: 5}}\n"
            for f in figures
        )
        (dest / "workflow" / "schemas" / f"{paper}.schema.yaml").write_text(
            f'$schema: "https://json-schema.org/draft/2020-12/schema"\ntype: object\n'
            f"additionalProperties: false\nproperties:\n{props}"
        )
        _replace_module(
            dest / "src" / "leakage" / "experiments",
            mod,
            _EXPERIMENT.format(paper=paper, figures=_module_dict(figures, "_table"), first=figures[0]),
        )
        _replace_module(
            dest / "src" / "leakage" / "plots",
            mod,
            _PLOT.format(paper=paper, figures=_module_dict(figures, "_draw")),
        )
        sections[paper] = {f: {"points": 5} for f in figures}
    # the project's config.yaml (where the defaults live), the fake papers' sections replacing the
    # real ones
    shipped = root / "config.yaml"
    config = yaml.safe_load(shipped.read_text()) if shipped.is_file() else {}
    config.update({"seed": 1, "papers": papers if papers is not None else list(FAKE_FIGURES), **sections})
    top = yaml.safe_load((dest / "workflow" / "schemas" / "config.schema.yaml").read_text())["properties"]
    if "studies" in top:
        config["studies"] = []  # the fake papers only (a study needs the design engine and more time)
    sample = dest / "adult_sample"
    if _has_real_data_rule(dest):
        # the project's own Adult step, on the shipped raw sample (or a generated one), verified
        # against digests and counts computed here
        if (root / "tests" / "data" / "adult_sample" / "adult.data").is_file():
            sample.mkdir()
            for name in ("adult.data", "adult.test"):
                shutil.copy2(root / "tests" / "data" / "adult_sample" / name, sample / name)
        else:
            write_adult_sample(sample)
        config["adult"] = {**config.get("adult", {}), **_adult_settings(dest, sample)}
    else:  # no data rule yet: a stand-in rule with the same outputs
        (dest / "workflow" / "rules" / "data.smk").write_text(_DATA_RULE)
        (dest / "workflow" / "scripts" / "adult_sample.py").write_text(_DATA_SCRIPT)
        write_adult_sample(sample)
    (dest / "config.yaml").write_text(json.dumps(config, indent=2) + "\n")
    return dest


def _has_real_data_rule(project: Path) -> bool:
    smk = (project / "workflow" / "rules" / "data.smk").read_text()
    schema = yaml.safe_load((project / "workflow" / "schemas" / "adult.schema.yaml").read_text())
    return "rule data:" in smk and "path" in (schema.get("properties") or {})


def _adult_settings(project: Path, sample: Path) -> dict:
    """The adult config section for a local sample: only local source, the sample's sizes and
    digests, and its counts (parsed here, independently of the library)."""
    props = yaml.safe_load((project / "workflow" / "schemas" / "adult.schema.yaml").read_text())["properties"]
    settings = {"path": str(sample), "sources": ["local"]}
    if "digests" in props:
        settings["digests"] = {
            name: {
                "bytes": (sample / name).stat().st_size,
                "md5": hashlib.md5((sample / name).read_bytes()).hexdigest(),
                "sha256": hashlib.sha256((sample / name).read_bytes()).hexdigest(),
            }
            for name in ("adult.data", "adult.test")
        }
    if "expected" in props:
        rows = [
            [c.strip() for c in line.split(",")]
            for name in ("adult.data", "adult.test")
            for line in (sample / name).read_text().splitlines()
            if line.strip() and not line.startswith("|")
        ]
        settings["expected"] = {
            "rows": len(rows),
            "income_over_50k": sum(r[14].rstrip(".") == ">50K" for r in rows),
            "female": sum(r[9] == "Female" for r in rows),
        }
    return settings


def snakemake_env(project: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join([str(project / "src"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("MPLBACKEND", "Agg")
    return env


def run_snakemake(project: Path, *args: str, timeout: float = 300, check: bool = True, env=None):
    """Run the real Snakemake CLI (this interpreter's) in ``project``; returns the CompletedProcess
    with stdout and stderr merged in ``.stdout``. ``env``: the environment to start from."""
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=project,
        env=snakemake_env(project, env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-5000:]}")
    return proc


def planned_jobs(project: Path, *args: str) -> list[tuple[str, tuple[str, ...]]]:
    """(rule, outputs) of every job that ``snakemake -n`` would run (rule ``all`` left out), parsed
    from the dry run's job blocks (``rule plot:`` / ``localrule plot:`` then ``output: a, b``)."""
    out = run_snakemake(project, "-n", *args).stdout
    jobs, rule = [], None
    for line in out.splitlines():
        m = re.match(r"^(?:local)?rule (\w+):$", line)
        if m:
            rule = m.group(1)
            continue
        m = re.match(r"^\s+output: (.*)$", line)
        if m and rule is not None and rule != "all":
            jobs.append((rule, tuple(x.strip() for x in m.group(1).split(","))))
            rule = None
    if not jobs and "Nothing to be done" not in out:
        raise AssertionError(f"could not parse the dry run:\n{out[-3000:]}")
    return sorted(jobs)


_BUILT: dict[str, Path] = {}


def built_project(tmp_path_factory) -> Path:
    """The fake-paper project, built once per test session (``snakemake --cores 2``), with the HTML
    report of the built project (``report.html``; ``--report-after-run`` builds a fresh DAG of the
    finished project and writes it as ``snakemake --report`` does, without starting Snakemake
    again; tests/test_report_workflow.py reads it); tests that change it work on a ``clone``."""
    if "project" not in _BUILT:
        project = make_project(tmp_path_factory.mktemp("built") / "project")
        run_snakemake(project, "--cores", "2", "--report", "report.html", "--report-after-run")
        _BUILT["project"] = project
    return _BUILT["project"]


def clone(project: Path, dest: Path) -> Path:
    """A copy of a built project with its files' times and Snakemake's metadata, so that
    Snakemake sees it up to date."""
    shutil.copytree(project, dest, symlinks=True)
    return dest
