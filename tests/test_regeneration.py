"""Regeneration after code changes, on a built copy of the pipeline (tests/miniproject.py):
a paper's plotting code reruns only that paper's plot jobs, its mathematics only that paper's
table -> plot/claims chain, the shared style every paper's plots; a style change never
recomputes a table. Checked with the real Snakemake CLI (dry runs, then a real run)."""

import pytest

from miniproject import FAKE_FIGURES, built_project, clone, planned_jobs, run_snakemake

pytestmark = pytest.mark.workflow


@pytest.fixture
def project(tmp_path_factory, tmp_path):
    return clone(built_project(tmp_path_factory), tmp_path / "p")


def _edit(path):
    """A real code change (a new line); its modification time is now, after the built outputs'."""
    path.write_text(path.read_text() + "\n# edited by the regeneration test\n")


def _plot_jobs(paper):
    return [("plot", (f"results/{paper}/{f}.pdf", f"results/{paper}/{f}.png")) for f in FAKE_FIGURES[paper]]


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
    assert [j for j in jobs if j[0] == "table"] == [("table", (f"results/mi-dp/{f}.csv",)) for f in figs]
    assert {j[0] for j in jobs} == {"table", "plot", "claims", "claims_html"}
    assert all("statistical-inference" not in out for _, outs in jobs for out in outs)


def test_shared_style_change_reruns_every_plot_and_no_table(project):
    _edit(project / "src" / "leakage" / "plots" / "style.py")
    assert planned_jobs(project) == sorted(_plot_jobs("mi-dp") + _plot_jobs("statistical-inference"))


def test_report_helpers_change_reruns_only_report_items(project):
    _edit(project / "src" / "leakage" / "report.py")
    assert planned_jobs(project) == []  # not an input of any computation


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


def test_rerun_triggers(project):
    """The library is an *input* of the rules: an edit makes the input newer than the outputs, which
    Snakemake always reruns, whatever --rerun-triggers says; it is not a "code" change (that is the
    rule's own code: its workflow/scripts/ file), so --list-changes code does not list it. An edit
    of a workflow script is a code change of every job of its rule, ignored by
    --rerun-triggers mtime."""
    _edit(project / "src" / "leakage" / "plots" / "mi_dp.py")
    assert _listed_code_changes(project) == []
    for triggers in (["mtime"], ["code", "params"], ["input"]):
        assert planned_jobs(project, "--rerun-triggers", *triggers) == sorted(_plot_jobs("mi-dp")), triggers
    run_snakemake(project, "--cores", "2")

    script = project / "workflow" / "scripts" / "plot.py"
    script.write_text(script.read_text() + "\n# edited\n")
    every_plot = sorted(_plot_jobs("mi-dp") + _plot_jobs("statistical-inference"))
    assert _listed_code_changes(project) == sorted(out for _, outs in every_plot for out in outs)
    assert planned_jobs(project) == every_plot
    assert planned_jobs(project, "--rerun-triggers", "code") == every_plot
    assert planned_jobs(project, "--rerun-triggers", "mtime") == []
