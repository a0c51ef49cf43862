"""Regeneration after code changes, on a built copy of the pipeline (tests/miniproject.py):
a paper's plotting code reruns only that paper's plot jobs, its mathematics only that paper's
table -> plot/claims chain, the shared style every paper's plots; a style change never
recomputes a table. Checked with the real Snakemake CLI (dry runs, then a real run)."""

import os
import re
import shutil

import pytest

from conftest import ROOT
from miniproject import FAKE_FIGURES, built_project, clone, planned_jobs, run_snakemake

pytestmark = pytest.mark.workflow  # one xdist worker runs this file and its pair (tests/conftest.py: SHARED_BUILD)


@pytest.fixture
def project(tmp_path_factory, tmp_path):
    return clone(built_project(tmp_path_factory), tmp_path / "p")


def _edit(path):
    """A real code change (a new line); its modification time is now, after the built outputs'."""
    path.write_text(path.read_text() + "\n# edited by the regeneration test\n")


def _plot_jobs(paper):
    return [("figure", (f"results/{paper}/{f}.pdf", f"results/{paper}/{f}.png")) for f in FAKE_FIGURES[paper]]


def test_built_copy_is_up_to_date(project):
    assert planned_jobs(project) == []


def test_plot_module_change_reruns_only_that_papers_plots(project):
    _edit(project / "src" / "leakage" / "plots" / "mi_dp.py")
    assert planned_jobs(project) == sorted(_plot_jobs("mi-dp"))


def test_experiment_module_change_reruns_only_that_papers_chain(project):
    _edit(project / "src" / "leakage" / "experiments" / "mi_dp.py")
    jobs = planned_jobs(project)
    figs = FAKE_FIGURES["mi-dp"]
    # the tables (their code changed), the claims (code changed too), and what depends on them
    # (plots, claims HTML) -- but only of mi-dp
    assert [j for j in jobs if j[0] == "experiment"] == [("experiment", (f"results/mi-dp/{f}.csv",)) for f in figs]
    assert {j[0] for j in jobs} == {"experiment", "figure", "claims", "claims_html"}
    assert all("statistical-inference" not in out for _, outs in jobs for out in outs)


def test_shared_style_change_reruns_every_plot_and_no_table(project):
    _edit(project / "src" / "leakage" / "plots" / "style.py")
    assert planned_jobs(project) == sorted(_plot_jobs("mi-dp") + _plot_jobs("statistical-inference"))


def test_report_helpers_change_reruns_only_report_items(project):
    _edit(project / "src" / "leakage" / "report.py")
    jobs = planned_jobs(project)
    assert {rule for rule, _ in jobs} == {"claims_html", "adult_provenance_html"}  # no computation


def test_style_change_redraws_without_recomputing(project):
    """A real run after a plot-code change: the PDFs are rewritten, the tables, claims and the
    other paper's files are not touched."""
    results = project / "results"
    before = {p: p.stat().st_mtime_ns for p in results.rglob("*") if p.is_file()}
    _edit(project / "src" / "leakage" / "plots" / "mi_dp.py")
    out = run_snakemake(project, "--cores", "2").stdout
    after = {p: p.stat().st_mtime_ns for p in results.rglob("*") if p.is_file()}
    changed = sorted(str(p.relative_to(project)) for p in before if after[p] != before[p])
    assert changed == sorted(
        f"results/mi-dp/{f}.{ext}" for f in FAKE_FIGURES["mi-dp"] for ext in ("pdf", "png")
    ), out[-3000:]
    assert planned_jobs(project) == []


def _listed_code_changes(project):
    out = run_snakemake(project, "--list-changes", "code").stdout
    return sorted(line.strip() for line in out.splitlines() if line.strip().startswith("results/"))


def test_rerun_triggers(project, tmp_path_factory, tmp_path):
    """The library is an *input* of the rules: an edit makes the input newer than the outputs, which
    Snakemake always reruns, whatever --rerun-triggers says; it is not a "code" change (that is the
    rule's own code: its workflow/scripts/ file), so --list-changes code does not list it. An edit
    of a workflow script is a code change of every job of its rule, ignored by
    --rerun-triggers mtime."""
    _edit(project / "src" / "leakage" / "plots" / "mi_dp.py")
    assert _listed_code_changes(project) == []
    for triggers in (["mtime"], ["code", "params"], ["input"]):
        assert planned_jobs(project, "--rerun-triggers", *triggers) == sorted(_plot_jobs("mi-dp")), triggers

    # the script edit on a fresh copy of the up-to-date build (test_built_copy_is_up_to_date), not
    # after a run that redraws the edit above: that run and its up-to-date result are
    # test_style_change_redraws_without_recomputing's
    project = clone(built_project(tmp_path_factory), tmp_path / "script-edit")
    script = project / "workflow" / "scripts" / "plot.py"
    script.write_text(script.read_text() + "\n# edited\n")
    every_plot = sorted(_plot_jobs("mi-dp") + _plot_jobs("statistical-inference"))
    assert _listed_code_changes(project) == sorted(out for _, outs in every_plot for out in outs)
    assert planned_jobs(project) == every_plot
    assert planned_jobs(project, "--rerun-triggers", "code") == every_plot
    assert planned_jobs(project, "--rerun-triggers", "mtime") == []


# ---------------------------------------------------------------------------------------------
# The real pipeline: which jobs an edit of each library module reruns. A copy of the project
# gets empty outputs newer than its sources (nothing is computed), so that Snakemake sees it up to
# date; the dry run of the empty copy lists every job's inputs, from which the outputs an edit of
# a module makes stale follow (inputs newer than outputs, then everything downstream), for every
# module at once.
# A few real edits check that the dry run plans exactly those jobs.

OLD, BUILT = 1_600_000_000, 1_600_100_000  # sources, then outputs (seconds since the epoch)
PAPER_FIGURES = {
    "empirical-pml": ["fig2a", "fig2b", "fig3a", "fig3b", "fig4", "fig5", "fig6", "fig7"],
    "worst-case-pml": ["fig1", "fig2", "fig3"],
    "robust-dp-hamming": ["fig1", "fig4", "fig5", "fig6", "fig7"],
    "statistical-inference": ["fig1", "fig2"],
    "mi-dp": ["fig1", "fig2"],
}
ADULT = {"results/data/adult.csv", "results/data/adult_provenance.json"}
ESTIMATES = {"results/empirical-pml/adult_estimates.csv"}
PROVENANCE_HTML = {"results/data/adult_provenance.html"}


def _tables(paper, figures=None):
    return {f"results/{paper}/{f}.csv" for f in (figures or PAPER_FIGURES[paper])}


def _plots(paper, figures=None):
    return {f"results/{paper}/{f}.{e}" for f in (figures or PAPER_FIGURES[paper]) for e in ("pdf", "png")}


def _claims(paper):
    return {f"results/{paper}/claims.csv", f"results/{paper}/claims.html"}


def _chain(paper, figures=None):
    """A table's edit: the tables, their plots, the paper's claims (and their HTML)."""
    return _tables(paper, figures) | _plots(paper, figures) | _claims(paper)


def _every(part):
    out = set()
    for paper in PAPER_FIGURES:
        out |= part(paper)
    return out


EPML_BOUNDS = ["fig2a", "fig2b", "fig3a", "fig3b"]
EPML_NOISE = ["fig4", "fig5", "fig6", "fig7"]

#: What an edit of a module must rerun (outputs), written from the papers' structure, not from
#: the import graph. Modules not listed are checked by the rules of the tests below.
EXPECTED = {
    # re-exports only: no job runs code of theirs
    "src/leakage/__init__.py": set(),
    "src/leakage/design/__init__.py": set(),
    "src/leakage/measures/__init__.py": set(),
    "src/leakage/estimation/__init__.py": set(),
    "src/leakage/mechanisms/__init__.py": set(),
    "src/leakage/data/__init__.py": set(),
    "src/leakage/measures/min_entropy.py": set(),  # library API, no figure uses it
    # the design engine: no paper figure uses it yet (the adult-design study does)
    **{f"src/leakage/design/{m}.py": set() for m in (
        "optimal", "result", "bnb", "cone", "vertices", "master", "colgen", "labels", "pricing/__init__", "pricing/box",
        "pricing/heuristic", "pricing/items", "pricing/light_top", "pricing/linear",
        "pricing/mutual_information", "pricing/staircase")},
    # frequency estimation: no paper figure uses it (the adult-design study's frequency stages do)
    "src/leakage/estimation/frequency.py": set(),
    "src/leakage/mechanisms/frequency_oracles.py": set(),
    # one paper, split by figure where its figures use different modules
    "src/leakage/experiments/empirical_pml/bounds.py": _chain("empirical-pml", EPML_BOUNDS),
    "src/leakage/experiments/empirical_pml/noise.py": _chain("empirical-pml", EPML_NOISE),
    "src/leakage/experiments/empirical_pml/adult.py": _chain("empirical-pml", EPML_NOISE),
    "src/leakage/experiments/empirical_pml/__init__.py": _chain("empirical-pml"),
    "src/leakage/mechanisms/additive.py": _chain("empirical-pml", EPML_NOISE),
    "src/leakage/estimation/uncertainty.py": _chain("empirical-pml", EPML_BOUNDS),
    "src/leakage/design/polytope.py": _chain("empirical-pml", EPML_BOUNDS),
    "src/leakage/plots/empirical_pml/bounds.py": _plots("empirical-pml", EPML_BOUNDS),
    "src/leakage/plots/empirical_pml/noise.py": _plots("empirical-pml", EPML_NOISE),
    "src/leakage/plots/empirical_pml/__init__.py": _plots("empirical-pml"),
    "src/leakage/measures/dp_relations.py": _chain("mi-dp"),
    "src/leakage/experiments/mi_dp/figures.py": _chain("mi-dp"),
    "src/leakage/plots/mi_dp.py": _plots("mi-dp"),
    "src/leakage/experiments/robust_dp_hamming/source_sets.py": _chain("robust-dp-hamming"),
    "src/leakage/experiments/worst_case_pml/utility.py": _chain("worst-case-pml"),
    **{f"src/leakage/experiments/statistical_inference/{m}.py": _chain("statistical-inference") for m in (
        "common", "measures", "convex", "corollary2", "counting_query", "information_privacy", "theorem4")},
    # several papers
    "src/leakage/measures/pml.py": _chain("empirical-pml", EPML_BOUNDS) | _chain("worst-case-pml"),
    "src/leakage/measures/dp.py": _chain("worst-case-pml") | _chain("statistical-inference") | _chain("mi-dp"),
    # the data step: the Adult table, its estimates, its provenance page, the Adult figures
    "src/leakage/data/adult.py": ADULT | ESTIMATES | PROVENANCE_HTML | _chain("empirical-pml", EPML_NOISE),
    # the software versions the data step records in its provenance
    "src/leakage/provenance.py": ADULT | ESTIMATES | PROVENANCE_HTML | _chain("empirical-pml", EPML_NOISE),
    # presentation: every plot, no table; the report pages only
    "src/leakage/plots/style.py": _every(_plots),
    "src/leakage/plots/__init__.py": _every(_plots),
    "src/leakage/report.py": _every(lambda p: {f"results/{p}/claims.html"}) | PROVENANCE_HTML,
    # the writer of every table and the claims: everything
    "src/leakage/tables.py": _every(_chain) | ADULT | ESTIMATES | PROVENANCE_HTML,
    "src/leakage/validation.py": _every(_chain) | ADULT | ESTIMATES | PROVENANCE_HTML,
    "src/leakage/claims.py": _every(_chain) | PROVENANCE_HTML,  # the report's code reads claims
}


def _dry_run_jobs(project):
    """[(inputs, outputs)] of every job of a dry run, from its job blocks (``input:``, ``output:``)."""
    jobs, inputs = [], set()
    for line in run_snakemake(project, "-n").stdout.splitlines():
        if re.match(r"^(?:local)?rule \w+:$", line):
            inputs = set()
        m = re.match(r"^\s+(input|output): (.*)$", line)
        if m and m.group(1) == "input":
            inputs = {x.strip() for x in m.group(2).split(",")}
        elif m:
            jobs.append((inputs, {x.strip() for x in m.group(2).split(",")}))
    return jobs


def _real_project(dest, study=False):
    """A copy of the real pipeline whose outputs exist (empty), newer than its sources; and
    output file -> the input files of its job (from the dry run of the empty copy)."""
    dest.mkdir(parents=True)
    for item in ("Snakefile", "config.yaml", "workflow", "src", "envs"):
        src = ROOT / item
        if src.is_dir():
            shutil.copytree(src, dest / item, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(src, dest / item)
    if not study:  # the papers only: the study's own expectations are tested below
        config = dest / "config.yaml"
        config.write_text(re.sub(r"^studies:\n(?:  - .*\n)+", "studies: []\n", config.read_text(), flags=re.M))
    for path in dest.rglob("*"):
        os.utime(path, (OLD, OLD))
    job_inputs = {}
    for inputs, outputs in _dry_run_jobs(dest):
        for out in outputs:
            job_inputs[out] = inputs
            (dest / out).parent.mkdir(parents=True, exist_ok=True)
            (dest / out).write_text("")
            os.utime(dest / out, (BUILT, BUILT))
    return dest, job_inputs


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    return _real_project(tmp_path_factory.mktemp("real") / "project")


@pytest.fixture(scope="module")
def study_job_inputs(tmp_path_factory):
    """output file -> the input files of its job, for the real pipeline with the adult-design study."""
    _, inputs = _real_project(tmp_path_factory.mktemp("study") / "project", study=True)
    return {out: ins for out, ins in inputs.items() if out.startswith("results/")}


STUDY = "results/adult-design/"


def test_study_edits_rerun_only_the_study(study_job_inputs):
    """The design engine reruns the study's designs and everything after them, never any paper's
    files; the study's plot module only its drawings; the study's experiment package only the
    study. (The estimate stage's priors.csv reruns too: its script imports the study's stage module,
    which calls the engine; a 1 s job.)"""
    stale = _stale_after_edit(study_job_inputs, "src/leakage/design/optimal.py")
    assert stale and all(o.startswith(STUDY) for o in stale), sorted(stale)
    assert {STUDY + "mechanisms.csv", STUDY + "fig2.csv", STUDY + "claims.csv"} <= stale
    assert any(o.startswith(STUDY + "release/") for o in stale)
    oracles = _stale_after_edit(study_job_inputs, "src/leakage/mechanisms/frequency_oracles.py")
    assert {STUDY + "frequency.csv", STUDY + "fig5.csv", STUDY + "fig6.csv", STUDY + "claims.csv"} <= oracles
    assert all(o.startswith(STUDY) for o in oracles), sorted(oracles)
    assert any(o.startswith(STUDY + "estimates/") for o in _stale_after_edit(study_job_inputs, "src/leakage/estimation/frequency.py"))
    drawn = _stale_after_edit(study_job_inputs, "src/leakage/plots/adult_design.py")
    assert drawn and all(o.startswith(STUDY) and o.endswith((".pdf", ".png")) for o in drawn), sorted(drawn)
    for module in _library_modules():
        if "/adult_design" in module:
            stale = _stale_after_edit(study_job_inputs, module)
            assert all(o.startswith(STUDY) for o in stale), (module, sorted(stale))


@pytest.fixture(scope="module")
def real_project(real):
    return real[0]


@pytest.fixture(scope="module")
def job_inputs(real):
    """output file -> the input files of its job."""
    return {out: ins for out, ins in real[1].items() if out.startswith("results/")}


def _stale_after_edit(job_inputs, module):
    """Outputs made stale by a newer ``module``: its jobs, then everything downstream."""
    stale, grew = set(), True
    while grew:
        new = {o for o, ins in job_inputs.items() if o not in stale and (module in ins or ins & stale)}
        stale |= new
        grew = bool(new)
    return stale


def _library_modules():
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "src" / "leakage").rglob("*.py"))


def test_real_project_copy_is_up_to_date(real_project, job_inputs):
    assert planned_jobs(real_project) == []
    assert set(job_inputs) >= _every(_chain) | ADULT | ESTIMATES | PROVENANCE_HTML


@pytest.mark.parametrize("module", sorted(EXPECTED))
def test_module_edit_reruns_exactly_the_expected_jobs(job_inputs, module):
    assert (ROOT / module).is_file(), f"{module} is gone: update EXPECTED"
    assert _stale_after_edit(job_inputs, module) == EXPECTED[module]


def test_every_library_module_reruns_a_consistent_set(job_inputs, study_job_inputs):
    """Every module, listed or not: an experiment module of a paper reruns only that paper's
    files; a plot module only plots; a module some job runs is an input of that job's table or
    plot, never of the report pages alone unless it is the report's own code."""
    for module in _library_modules():
        stale = _stale_after_edit(job_inputs, module)
        parts = module.split("/")
        if parts[2] in ("experiments", "plots") and len(parts) > 4:
            paper = parts[3].replace("_", "-").removesuffix(".py")
            assert all(f"results/{paper}/" in o for o in stale), (module, sorted(stale))
        if parts[2] == "plots":
            assert all(o.endswith((".pdf", ".png")) for o in stale), (module, sorted(stale))
        if module not in EXPECTED:
            # an unlisted module is code some figure of a paper or of the study runs (else it
            # should be listed as unused)
            in_study = _stale_after_edit(study_job_inputs, module)
            assert any(o.endswith(".csv") for o in stale | in_study) or parts[2] == "plots", module


@pytest.mark.parametrize(
    "module",
    [
        "src/leakage/experiments/empirical_pml/noise.py",  # one paper, some of its figures
        "src/leakage/tables.py",  # the table writer: every table
        "src/leakage/__init__.py",  # the public API's re-exports: nothing
    ],
)
def test_real_edit_plans_the_predicted_jobs(real_project, job_inputs, module, tmp_path):
    """The prediction from the summary is what Snakemake does: edit, dry run, compare."""
    project = clone(real_project, tmp_path / "p")
    _edit(project / module)
    planned = {out for _, outs in planned_jobs(project) for out in outs}
    assert planned == _stale_after_edit(job_inputs, module) == EXPECTED[module]
