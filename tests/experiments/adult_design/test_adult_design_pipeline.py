"""The study adult-design through the real Snakemake CLI on the shipped Adult sample: every stage
and figure, the report, and a bad config refused before any job."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from leakage.claims import read_claims
from leakage.experiments.adult_design import stages
from leakage.tables import read_table

from adult_design_helpers import COLUMNS, SMALL
from conftest import ROOT
from shipped_config import merged
from test_workflow import CONFIG as WORKFLOW_CONFIG
from test_workflow import finish, jobs_run


def _workdir(path: Path, study_section: dict) -> Path:
    """A working directory with the test config and a link to the library the rules list as inputs."""
    path.mkdir(parents=True)
    config = {**WORKFLOW_CONFIG, "studies": ["adult-design"], "adult-design": study_section}
    (path / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (path / "src").symlink_to(ROOT / "src", target_is_directory=True)
    return path


def _snakemake(workdir: Path, *args: str, background=False):
    import os

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "MPLBACKEND": "Agg"}
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(workdir),
           "--cores", "2", *args]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    return proc if background else finish(proc)


CLI = SMALL
# the stages, every figure table, one drawing (the plot rule is the generic one of the papers)
TARGETS = ["results/adult-design/claims.csv", "results/adult-design/fig2.png", "results/adult-design/estimates/sex.csv",
           "results/adult-design/release/income.csv", "results/adult-design/release/sex.csv"]  # fmt: skip


@pytest.mark.workflow
def test_cli_runs_the_stages_and_refuses_bad_config(tmp_path):
    bad_attribute = _snakemake(_workdir(tmp_path / "bad1", merged(CLI, {"attributes": ["age"]})), "-n", *TARGETS, background=True)
    bad_cross = _snakemake(_workdir(tmp_path / "bad2", merged(CLI, {"release": {"eps": 2.0}})), "-n", *TARGETS, background=True)
    bad_protocol = _snakemake(_workdir(tmp_path / "bad4", merged(CLI, {"protocol": "same-records", "mc": {"release_m": 10}})),
                              "-n", *TARGETS, background=True)
    single = _workdir(tmp_path / "bad3", CLI)  # a data table whose sex column has one category
    (single / "results/data").mkdir(parents=True)
    rows = [",".join(["39", "Private", "77516", "Bachelors", "13", "Never-married", "Sales", "Husband", race, "Male",
                      "0", "0", "40", "Cuba", inc]) for race, inc in (("White", ">50K"), ("Black", "<=50K"))]  # fmt: skip
    (single / "results/data/adult.csv").write_text(",".join(COLUMNS) + "\n" + "\n".join(rows) + "\n")
    bad_single = _snakemake(single, "-n", *TARGETS, background=True)
    workdir = _workdir(tmp_path / "run", CLI)
    # the report after the run (--report-after-run): Snakemake builds a fresh DAG of the finished
    # workdir and writes the report, as `snakemake --report` does, in the same process
    run = _snakemake(workdir, "--report", "report.html", "--report-after-run", *TARGETS)
    assert run.returncode == 0, run.stdout[-4000:]
    ran = jobs_run(run.stdout)
    assert ran.count("design_attribute") == 2 and ran.count("release_attribute") == 2
    assert ran.count("experiment_monte_carlo") == 1 and "estimate_priors" in ran

    res = workdir / "results/adult-design"
    priors = read_table(res / "priors.csv")
    assert list(priors.columns) == ["attribute", "category", "count", "p_hat"]
    # protocol split (the default): P̂ from adult.data's 300 records, the release of adult.test's 200
    assert priors.groupby("attribute")["count"].sum().tolist() == [300, 300]
    assert read_table(res / "release_histogram.csv").groupby("attribute")["count"].sum().tolist() == [200, 200]
    assert read_table(res / "dataset.csv")["part"].value_counts().to_dict() == {"design": 300, "release": 200}
    assert (read_table(res / "estimates/sex.csv")["true_count"].sum(), read_table(res / "fig6.csv")["m"].iloc[0]) == (200, 200)
    mechs = read_table(res / "mechanisms.csv")
    assert list(mechs.columns) == stages.MECHANISM_COLUMNS and set(mechs["attribute"]) == {"income", "sex"}
    release = read_table(res / "release/sex.csv")
    assert list(release.columns) == ["sex"] and len(release) == 200
    assert set(release["sex"]) <= {"Female", "Male"} and release["sex"].nunique() == 2
    expected_cols = {"fig1": ["attribute", "method", "eps", "m", "mi_mean", "mi_std"],
                     "fig2": ["attribute", "method", "eps", "mi"],
                     "fig3": ["attribute", "method", "eps", "x", "y", "probability"],
                     "fig4": ["attribute", "eps", "m", "mi_exact", "mi_prop2"]}  # fmt: skip
    assert (res / "fig2.png").stat().st_size > 10_000
    for fig, cols in expected_cols.items():
        t = read_table(res / f"{fig}.csv")
        assert list(t.columns)[: len(cols)] == cols, fig
        assert not t[cols].isna().any().any(), fig
    claims = read_claims(res / "claims.csv")
    guar = claims[claims["figure"] == "mechanisms"]
    assert len(guar) == 3 and (guar["holds"] == "true").all(), guar
    assert (claims.loc[claims["claim"].str.contains("equals the MI"), "holds"] == "true").all()

    bad = finish(bad_attribute)
    assert bad.returncode != 0 and "adult-design.attributes: ['age'] are not among adult-design.dataset.columns" in bad.stdout and jobs_run(bad.stdout) == []
    # the report, written by the run itself (--report-after-run): the run's returncode covers it
    html = (workdir / "report.html").read_text(errors="replace")
    assert "adult-design" in html and "beyond the papers" in html

    bad = finish(bad_single)
    assert bad.returncode != 0 and "adult-design.attributes" in bad.stdout and "['sex']" in bad.stdout
    assert "single category" in bad.stdout and jobs_run(bad.stdout) == []
    bad = finish(bad_protocol)
    assert bad.returncode != 0 and "adult-design.mc.release_m: must be null" in bad.stdout and jobs_run(bad.stdout) == []
    bad = finish(bad_cross)
    assert bad.returncode != 0 and "adult-design.release.eps" in bad.stdout and jobs_run(bad.stdout) == []


