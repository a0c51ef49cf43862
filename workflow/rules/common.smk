# Shared helpers of the rule files. Each paper's rule file registers its figures in FIGURES
# (and, where a figure needs data, its inputs in FIGURE_INPUTS); figures.smk holds the three
# generic rules (table, plot, claims) that every paper's figures go through.
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
# plus stage rules of their own (workflow/rules/<study>.smk).
STUDIES = ["adult-design"]

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

LIBRARY = Path(workflow.basedir) / "src" / "leakage"

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


def _library_files(sub=""):
    return sorted(str(p.relative_to(workflow.basedir)) for p in (LIBRARY / sub).rglob("*.py"))


def math_code(paper):
    """Library files a paper's numbers depend on: every module but the plots, the report helpers
    and the other papers' experiment modules. Listed as inputs, so that a change to the
    mathematics reruns the computation, while a change to plotting code does not."""
    own = (
        f"src/leakage/experiments/{paper_module(paper)}.py",
        f"src/leakage/experiments/{paper_module(paper)}/",
    )
    return [
        f
        for f in _library_files()
        if "/plots/" not in f
        and f != "src/leakage/report.py"  # presentation only (report items, benchmarks)
        and (
            "/experiments/" not in f
            or f.startswith(own)
            or f == "src/leakage/experiments/__init__.py"
        )
    ]


def plot_code(paper):
    """Library files a paper's drawings depend on: the shared style and the paper's plot module."""
    own = (f"src/leakage/plots/{paper_module(paper)}.py", f"src/leakage/plots/{paper_module(paper)}/")
    return [
        f
        for f in _library_files("plots")
        if f.startswith(own) or f in ("src/leakage/plots/__init__.py", "src/leakage/plots/style.py")
    ]


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
        "code": math_code(paper),
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
    """Inputs of a figure's table rule: the math code and the figure's data files."""
    inputs = {"code": math_code(wildcards.paper)}
    inputs.update(FIGURE_INPUTS.get((wildcards.paper, wildcards.figure), {}))
    return inputs


def figure_resource(name, default):
    """A resource of a figure's table rule, from FIGURE_RESOURCES or the default."""
    return lambda wildcards: FIGURE_RESOURCES.get((wildcards.paper, wildcards.figure), {}).get(
        name, default
    )
