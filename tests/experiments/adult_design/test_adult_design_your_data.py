"""The adult-design study on another categorical table, through the real Snakemake CLI: a CSV file
generated here, a study ``toy-design`` in the config (no code change), its outputs under
results/toy-design/ with the figures, claims and report entry of adult-design (docs/studies/your-data.md)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from leakage.claims import read_claims
from leakage.tables import read_table

from shipped_config import shipped
from test_adult_design_pipeline import _snakemake, _workdir
from test_workflow import finish, jobs_run

#: The study's keys that differ from adult-design's (the rest comes from config.yaml's section).
TOY = {
    "dataset": {"source": "csv", "path": "toy.csv", "columns": ["smoker", "region"],
                "split": {"kind": "column", "column": "fold", "design": "train"}},
    "attributes": ["smoker"], "eps": [1.0], "curve": {"n_eps": 2},
    "mc_attributes": ["smoker"], "mc": {"m_min": 100, "n_m": 1, "iterations": 2},
    "heatmap": {"attribute": "smoker", "eps": 1.0}, "release": {"eps": 1.0},
    "frequency": {"repetitions": 10, "histogram_attribute": "smoker", "histogram_eps": 1.0},
}  # fmt: skip
TARGETS = ["results/toy-design/claims.csv", "results/toy-design/fig2.png", "results/toy-design/fig6.png",
           "results/toy-design/estimates/smoker.csv", "results/toy-design/claims.html"]  # fmt: skip


def toy_csv(path, rng):
    """400 design records (fold train) and 250 release records (fold test); smoker yes/no, region a/b/c."""
    n = {"train": 400, "test": 250}
    rows = pd.DataFrame({
        "id": np.arange(650),
        "smoker": rng.choice(["yes", "no"], size=650, p=[0.3, 0.7]),
        "region": rng.choice(["a", "b", "c"], size=650),
        "fold": ["train"] * n["train"] + ["test"] * n["test"],
    })  # fmt: skip
    rows.loc[[3, 500], "region"] = ""  # missing values: the category '?'
    rows.to_csv(path, index=False)
    return rows


@pytest.mark.workflow
def test_a_generated_table_runs_through_the_same_study(tmp_path):
    bad = _workdir(tmp_path / "bad", shipped("adult-design"))
    config = yaml.safe_load((bad / "config.yaml").read_text())
    config.update({"studies": ["toy-design"], "toy-design": {**TOY, "attributes": ["age"]}})
    (bad / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    refused = _snakemake(bad, "-n", *TARGETS, background=True)

    workdir = _workdir(tmp_path / "run", shipped("adult-design"))
    config = yaml.safe_load((workdir / "config.yaml").read_text())
    config.update({"studies": ["toy-design"], "toy-design": TOY})
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    rows = toy_csv(workdir / "toy.csv", np.random.default_rng(4))
    # the report after the run (--report-after-run): Snakemake builds a fresh DAG of the finished
    # workdir and writes the report, as `snakemake --report` does, in the same process
    run = _snakemake(workdir, "--report", "report.html", "--report-after-run", *TARGETS)
    assert run.returncode == 0, run.stdout[-4000:]
    ran = jobs_run(run.stdout)
    assert "data" not in ran and "data_study" in ran  # Adult is not touched

    res = workdir / "results/toy-design"
    dataset = read_table(res / "dataset.csv")
    assert list(dataset.columns) == ["smoker", "region", "part"]
    assert dataset["part"].tolist() == ["design"] * 400 + ["release"] * 250
    priors = read_table(res / "priors.csv")
    design_counts = rows.iloc[:400]["smoker"].value_counts().to_dict()
    assert dict(zip(priors["category"], priors["count"])) == design_counts
    hist = read_table(res / "release_histogram.csv")
    assert dict(zip(hist["category"], hist["count"])) == rows.iloc[400:]["smoker"].value_counts().to_dict()
    release = read_table(res / "release/smoker.csv")
    assert len(release) == 250 and set(release["smoker"]) <= {"yes", "no"}
    estimates = read_table(res / "estimates/smoker.csv")
    assert estimates["true_count"].sum() == 250
    for fig in ("fig1", "fig2", "fig3", "fig4", "fig5", "fig6"):
        assert (res / f"{fig}.csv").is_file(), fig
    assert (res / "fig2.png").stat().st_size > 10_000
    claims = read_claims(res / "claims.csv")
    guarantees = claims[claims["figure"] == "mechanisms"]
    assert len(guarantees) >= 3 and (guarantees["holds"] == "true").all(), guarantees
    assert not (workdir / "results/adult-design").exists()

    # the report, written by the run itself (--report-after-run): the run's returncode covers it
    html = (workdir / "report.html").read_text(errors="replace")
    assert "toy-design" in html and "toy-design.dataset" in html

    bad = finish(refused)
    assert bad.returncode != 0 and "toy-design.attributes: ['age'] are not among toy-design.dataset.columns" in bad.stdout
    assert jobs_run(bad.stdout) == []
