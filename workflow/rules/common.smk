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

# Studies beyond the papers (config `studies`): same figure contract and generic rules as a paper,
# plus stage rules of their own (workflow/rules/<study>.smk). adult-design, and <name>-design: the
# same study on another data set (its rules are adult-design's, its outputs in results/<name>-design).
STUDIES = list(dict.fromkeys(["adult-design", *config.get("studies", [])]))


def study_kind(paper):
    """The paper or study whose code, captions and rules a key uses: adult-design for <name>-design."""
    return "adult-design" if paper.endswith("-design") else paper

# The conda environment of every rule (`--sdm conda`); pip installs the same from pyproject.toml.
ENV = "../../envs/leakage.yaml"

# paper -> list of figure ids, filled by the paper rule files.
FIGURES = {}
# (paper, figure) -> {name: path} of extra inputs (data files) of a figure's table rule.
FIGURE_INPUTS = {}
# (paper, figure) -> resources of a figure's table rule (threads, mem_mb, runtime in minutes).
FIGURE_RESOURCES = {}
# paper -> {name: path} of data files the claims read besides the figure tables (studies only).
CLAIMS_INPUTS = {}
# paper -> extra targets of rule all besides figures and claims (a study's stage outputs).
EXTRA_TARGETS = {}

# The library files each job runs, from the static import graph of src/leakage (ast, nothing is
# imported): see workflow/lib/code_graph.py for how imports, re-exports and packages are treated.
# (workflow/lib is on sys.path: the Snakefile put it there for workflow/lib/config_checks.py)
from code_graph import CodeGraph  # noqa: E402

# What it reads of each file is cached in Snakemake's folder of the working directory, under the
# file's SHA-256 (a file is parsed again when its bytes change): every later DAG build, each dry
# run and each cluster job, skips the parse.
CODE = CodeGraph(workflow.basedir, cache=Path(".snakemake") / "code_graph.json")

# paper -> {title, figures: {figure: {reproduces, look_for}}}: the captions of the report
# (tests/test_report.py keeps it complete).
with open(Path(workflow.basedir) / "workflow" / "report" / "figures.yaml") as _fh:
    DESCRIPTIONS = yaml.safe_load(_fh)


def figure_description(paper, figure):
    """The caption fields of a figure for workflow/report/figure.rst: title, reproduces, look_for."""
    entry = dict(DESCRIPTIONS.get(study_kind(paper), {}))
    if paper != study_kind(paper) and "title" in entry:
        entry["title"] = f"{entry['title']}; here on the data set of {paper} (section {paper}.dataset)"
    missing = f"(no description of {paper}/{figure} in workflow/report/figures.yaml)"
    desc = entry.get("figures", {}).get(figure, {})
    return {
        "title": entry.get("title", paper),
        "reproduces": desc.get("reproduces", missing),
        "look_for": desc.get("look_for", missing),
    }


def paper_module(paper):
    """The Python module name of a paper key (empirical-pml -> empirical_pml; <name>-design ->
    adult_design, as leakage.experiments.paper_module maps it)."""
    return study_kind(paper).replace("-", "_")


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


def figure_settings(paper, figure):
    """A figure's config: the paper's per-figure section, or a study's whole section (a study's
    figures share one section, e.g. adult-design's attributes and eps)."""
    section = config[paper]
    return section[figure] if figure in section else section


def claims_inputs(wildcards):
    """Inputs of a paper's claims rule: its figure tables, the math code, and CLAIMS_INPUTS."""
    paper = wildcards.paper
    inputs = {
        "tables": expand("results/{paper}/{figure}.csv", paper=paper, figure=FIGURES[paper]),
        "code": claims_code(wildcards),
    }
    inputs.update(CLAIMS_INPUTS.get(paper, {}))
    return inputs


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
    for study in config.get("studies", []):
        targets.extend(paper_targets(study))
        targets.extend(EXTRA_TARGETS.get(study, []))
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
