# Shared helpers of the rule files. Each paper's rule file registers its figures in FIGURES
# (and, where a figure needs data, its inputs in FIGURE_INPUTS); figures.smk holds the three
# generic rules (table, plot, claims) that every paper's figures go through.
import sys
from pathlib import Path

import yaml

PAPERS = [
    "empirical-pml",
    "worst-case-pml",
    "robust-dp-hamming",
    "statistical-inference",
    "mi-dp",
]

# The conda environment of every rule (`--sdm conda`); pip installs the same from pyproject.toml.
ENV = "../../envs/leakage.yaml"

# paper -> list of figure ids, filled by the paper rule files.
FIGURES = {}
# (paper, figure) -> {name: path} of extra inputs (data files) of a figure's table rule.
FIGURE_INPUTS = {}
# (paper, figure) -> resources of a figure's table rule (threads, mem_mb, runtime in minutes).
FIGURE_RESOURCES = {}

# The library files each job runs, from the static import graph of src/leakage (ast, nothing is
# imported): see workflow/lib/code_graph.py for how imports, re-exports and packages are treated.
sys.path.insert(0, str(Path(workflow.basedir) / "workflow" / "lib"))
from code_graph import CodeGraph  # noqa: E402

CODE = CodeGraph(workflow.basedir)

# paper -> {title, figures: {figure: {reproduces, look_for}}}: the captions of the report
# (tests/test_report.py keeps it complete).
with open(Path(workflow.basedir) / "workflow" / "report" / "figures.yaml") as _fh:
    DESCRIPTIONS = yaml.safe_load(_fh)


def figure_description(paper, figure):
    """The caption fields of a figure for workflow/report/figure.rst: title, reproduces, look_for."""
    entry = DESCRIPTIONS.get(paper, {})
    missing = f"(no description of {paper}/{figure} in workflow/report/figures.yaml)"
    desc = entry.get("figures", {}).get(figure, {})
    return {
        "title": entry.get("title", paper),
        "reproduces": desc.get("reproduces", missing),
        "look_for": desc.get("look_for", missing),
    }


def paper_module(paper):
    """The Python module name of a paper key (empirical-pml -> empirical_pml)."""
    return paper.replace("-", "_")


def script_code(script, *modules):
    """Library files a job of ``workflow/scripts/<script>`` runs: the script's imports and the
    given entry modules (what the script imports dynamically), each with its imports."""
    return CODE.files(set(modules), scripts=[f"workflow/scripts/{script}"])


def figure_code(kind, script, paper, figure):
    """Library files of one figure's job: the script's imports and the paper's experiment
    (``kind`` experiments, registry FIGURES) or plot (plots, PLOTS) module narrowed to the
    submodule that makes the figure."""
    modules, bare = CODE.figure_entry(f"leakage.{kind}.{paper_module(paper)}", figure, REGISTRY[kind])
    return CODE.files(modules, scripts=[f"workflow/scripts/{script}"], bare=bare)


REGISTRY = {"experiments": "FIGURES", "plots": "PLOTS"}


def table_code(wildcards):
    return figure_code("experiments", "table.py", wildcards.paper, wildcards.figure)


def plot_code(wildcards):
    return figure_code("plots", "plot.py", wildcards.paper, wildcards.figure)


def claims_code(wildcards):
    return script_code("claims.py", f"leakage.experiments.{paper_module(wildcards.paper)}")


def paper_targets(paper):
    figs = FIGURES.get(paper, [])
    out = [f"results/{paper}/{f}.{ext}" for f in figs for ext in ("csv", "pdf", "png")]
    if figs:
        out += [f"results/{paper}/claims.csv", f"results/{paper}/claims.html"]
    return out


def all_targets():
    targets = ["results/data/adult.csv"]
    if "empirical-pml" in config["papers"]:
        targets.append("results/empirical-pml/adult_estimates.csv")
    for paper in config["papers"]:
        targets.extend(paper_targets(paper))
    targets.append("results/data/adult_provenance.html")  # report item
    return targets


def figure_inputs(wildcards):
    """Inputs of a figure's table rule: the code it runs and the figure's data files."""
    inputs = {"code": table_code(wildcards)}
    inputs.update(FIGURE_INPUTS.get((wildcards.paper, wildcards.figure), {}))
    return inputs


def figure_resource(name, default):
    """A resource of a figure's table rule, from FIGURE_RESOURCES or the default."""
    return lambda wildcards: FIGURE_RESOURCES.get((wildcards.paper, wildcards.figure), {}).get(
        name, default
    )
