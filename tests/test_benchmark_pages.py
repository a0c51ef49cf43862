"""The generated measurement pages (tools/benchmark_pages.py): the committed pages are what the
committed measurement files give, their numbers are the files' numbers (recomputed here with the
csv module), and recording a run maps every benchmark file to its rule, stage and times."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from generated_pages import assert_pages_current

sys.path.insert(0, str(ROOT / "tools"))
import benchmark_pages as bp  # noqa: E402

MEASUREMENTS = ROOT / "docs" / "measurements"

#: the page prints seconds to 0.1: half a unit, plus the float noise of summing in another order
ROUNDING = 0.05 + 1e-9


def _rows(name: str) -> list[dict]:
    with open(MEASUREMENTS / name, newline="") as fh:
        return list(csv.DictReader(fh))


def _table(text: str, header_start: str) -> list[list[str]]:
    """The body rows of the first markdown table whose header starts with ``header_start``."""
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[i + 2:]:
        if not line.startswith("|"):
            break
        cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])  # a cell's own "|" is escaped: \\|
        rows.append([c.strip().replace("\\|", "|") for c in cells])
    return rows


# ------------------------------------------------------------------ the committed pages


def test_the_committed_pages_are_what_the_measurement_files_give():
    assert_pages_current(bp.render, "tools/benchmark_pages.py")


def test_the_pipeline_numbers_on_the_page_are_the_files_numbers():
    jobs = _rows("pipeline.csv")
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    s = [float(j["s"]) for j in jobs]
    wall = max(float(j["end_s"]) for j in jobs) - min(float(j["start_s"]) for j in jobs)
    (whole,) = _table(page, "| jobs | job time")
    assert int(whole[0]) == len(jobs)
    assert float(whole[1]) == pytest.approx(sum(s), abs=ROUNDING)
    assert float(whole[2]) == pytest.approx(sum(float(j["cpu_s"]) for j in jobs), abs=ROUNDING)
    assert float(whole[3]) == pytest.approx(wall, abs=ROUNDING)
    per_rule = {}
    for j in jobs:
        per_rule.setdefault((j["paper"], j["rule"]), []).append(float(j["s"]))
    rows = _table(page, "| paper or study | rule |")
    body, total = rows[:-1], rows[-1]
    assert {(r[0], r[1]) for r in body} == set(per_rule)
    for r in body:
        times = per_rule[(r[0], r[1])]
        assert int(r[2]) == len(times) and float(r[3]) == pytest.approx(sum(times), abs=ROUNDING)
        assert float(r[5]) == pytest.approx(max(times), abs=ROUNDING)
    assert total[0] == "**all**" and float(total[3]) == pytest.approx(sum(s), abs=ROUNDING)
    stages = _table(page, "| stage | rules |")
    assert sum(int(r[2]) for r in stages) == len(jobs)
    assert sum(float(r[3]) for r in stages) == pytest.approx(sum(s), abs=0.05 * len(stages))
    meta = json.loads((MEASUREMENTS / "pipeline.json").read_text())
    assert f"commit `{meta['commit']}`, {meta['date']}, on {meta['machine']}" in page


@pytest.mark.parametrize("name", bp.DESIGN_TABLES)
def test_the_design_tables_are_the_files_rows(name):
    rows = _rows(f"{name}.csv")
    snippet = (MEASUREMENTS / f"{name}.md").read_text()
    table = _table(snippet, "| case | method |")
    assert len(table) == len(rows) > 0
    for got, want in zip(table, rows):
        assert got[0] == want["case"] and got[1] == want["method"] and int(got[2]) == int(want["n"])
        assert float(got[3]) == pytest.approx(float(want["value"]), abs=1e-9)
        assert float(got[4]) == pytest.approx(float(want["bound"]), abs=1e-9)
        assert got[6] == ("yes" if want["certified"] == "True" else "no")
        assert float(got[7]) == pytest.approx(float(want["seconds"]), abs=0.005)
    meta = json.loads((MEASUREMENTS / f"{name}.json").read_text())
    assert f"commit `{meta['commit']}`, {meta['date']}, on {meta['machine']}" in snippet
    # the benchmarks page shows the generated table (one file); the design-engine page links there
    # and types no measurement of its own
    assert f'--8<-- "measurements/{name}.md"' in (ROOT / "docs" / "benchmarks.md").read_text()
    assert "benchmarks.md#design-engine" in (ROOT / "docs" / "design-engine.md").read_text()


def test_the_measured_sentence_names_the_command_once():
    """A note that starts with the run's command (as the pipeline's does) does not repeat it."""
    meta = {"commit": "abc1234", "date": "2026-01-02", "machine": "a test machine", "command": "snakemake --cores 2"}
    repeated = bp._meta_line({**meta, "note": "snakemake --cores 2 on a clean results/, alone"})
    assert repeated == ("Measured on commit `abc1234`, 2026-01-02, on a test machine: "
                        "`snakemake --cores 2` on a clean results/, alone.")  # fmt: skip
    other = bp._meta_line({**meta, "note": "two runs at a time."})
    assert other.endswith(": `snakemake --cores 2`. two runs at a time.")
    assert bp._meta_line({**meta, "note": ""}).endswith(": `snakemake --cores 2`.")
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    for line in page.splitlines():
        if line.startswith("Measured on commit"):
            assert line.count("snakemake --cores") <= 1, line


# ------------------------------------------------------------------ recording a run


def _bench(path, s, end, cpu=1.0, rss=100.0):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
                    f"{s}\t0:00:01\t{rss}\t1\t1\t1\t0\t0\t0\t{cpu}\n")  # fmt: skip
    os.utime(path, (end, end))


def test_record_maps_files_to_rules_stages_and_times(tmp_path):
    bench = tmp_path / "benchmarks"
    t0 = 1_700_000_000.0
    _bench(bench / "data" / "adult.tsv", 5.0, t0 + 5)  # ran 0..5
    _bench(bench / "empirical-pml" / "adult_estimates.tsv", 2.0, t0 + 7)
    _bench(bench / "empirical-pml" / "fig4_experiment.tsv", 10.0, t0 + 17, cpu=9.5)
    _bench(bench / "empirical-pml" / "fig4_figure.tsv", 3.0, t0 + 20)
    _bench(bench / "empirical-pml" / "claims.tsv", 1.0, t0 + 21)
    _bench(bench / "adult-design" / "priors.tsv", 1.0, t0 + 8)
    _bench(bench / "adult-design" / "native-country_design.tsv", 12.0, t0 + 20, rss=300.0)
    _bench(bench / "adult-design" / "mechanisms.tsv", 0.5, t0 + 21)
    _bench(bench / "adult-design" / "race_release.tsv", 1.5, t0 + 23)
    _bench(bench / "adult-design" / "education_mc.tsv", 30.0, t0 + 40)
    out = tmp_path / "measurements"
    jobs = bp.record_pipeline(bench, out, commit="abc1234", machine="a test machine", note="fake")
    by_job = {r.job: r for r in jobs.itertuples()}
    expected = {
        "data/adult": ("data", "data"),
        "empirical-pml/adult_estimates": ("estimate_features", "estimate"),
        "empirical-pml/fig4_experiment": ("experiment", "experiment"),
        "empirical-pml/fig4_figure": ("figure", "figure"),
        "empirical-pml/claims": ("claims", "claims"),
        "adult-design/priors": ("estimate_priors", "estimate"),
        "adult-design/native-country_design": ("design_attribute", "design"),
        "adult-design/mechanisms": ("design_gather", "design"),
        "adult-design/race_release": ("release_attribute", "release"),
        "adult-design/education_mc": ("experiment_monte_carlo", "experiment"),
    }
    assert {job: (r.rule, r.stage) for job, r in by_job.items()} == expected
    assert by_job["data/adult"].start_s == 0.0 and by_job["adult-design/education_mc"].end_s == 40.0
    assert by_job["empirical-pml/fig4_experiment"].start_s == 7.0 and by_job["empirical-pml/fig4_experiment"].cpu_s == 9.5
    assert bp.wall_time(jobs) == 40.0
    meta = json.loads((out / "pipeline.json").read_text())
    assert meta == {"commit": "abc1234", "date": "2023-11-14", "machine": "a test machine",
                    "command": "snakemake --cores 2", "note": "fake"}  # fmt: skip
    with open(out / "pipeline.csv", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 10
    stages = bp.stage_table(jobs).set_index("stage")
    assert list(stages.index) == ["data", "estimate", "design", "release", "experiment", "figure", "claims"]
    assert stages.loc["experiment", "job_s"] == 40.0 and stages.loc["design", "slowest"] == "adult-design/native-country_design"
    md = bp.pipeline_markdown(jobs, meta)
    assert "| 10 | 66.0 |" in md and "| 40.0 | 1.65 |" in md  # jobs, job time; wall, job time / wall


def test_record_refuses_what_it_cannot_place(tmp_path):
    with pytest.raises(ValueError, match="no benchmark files"):
        bp.pipeline_jobs(tmp_path)
    _bench(tmp_path / "p" / "odd_name.tsv", 1.0, 1e9)
    with pytest.raises(ValueError, match=r"p/odd_name.tsv: matches the rules \[\]"):
        bp.pipeline_jobs(tmp_path)
    (tmp_path / "p" / "odd_name.tsv").unlink()
    (tmp_path / "p" / "fig1_figure.tsv").write_text("a\tb\n1\t2\n")
    with pytest.raises(ValueError, match="not a Snakemake benchmark"):
        bp.pipeline_jobs(tmp_path)


def test_every_benchmarked_rule_has_a_stage_and_one_pattern():
    rules = bp.benchmark_rules()
    names = [rule for rule, _ in rules]
    assert len(names) == len(set(names)) >= 10
    for rule in names:
        assert bp.stage_of(rule) in bp.STAGES
    with pytest.raises(ValueError, match="is not one of"):
        bp.stage_of("summarise_everything")


def test_the_design_benchmark_writes_its_rows(tmp_path, monkeypatch):
    """tools/design_benchmark.py's rows go to CSV and JSON as the page reads them."""
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import design_benchmark as db

    monkeypatch.setattr(db, "ROWS", [])
    db.row("MI known prior eps=1", "colgen", 14, 0.5, 0.5 + 2e-12, True, 0.25)
    path = tmp_path / "design-engine.csv"
    db.write_rows(str(path), "python tools/design_benchmark.py --only n14", "a note")
    with open(path, newline="") as fh:
        (row,) = list(csv.DictReader(fh))
    assert list(row) == bp.DESIGN_COLUMNS and row["certified"] == "True" and float(row["gap"]) == pytest.approx(2e-12)
    meta = json.loads(path.with_suffix(".json").read_text())
    assert set(meta) == {"commit", "date", "machine", "command", "note"} and re.fullmatch(r"\d{4}-\d\d-\d\d", meta["date"])


def test_the_design_benchmark_reads_a_joint_attribute(tmp_path, monkeypatch):
    """The stretch case's prior: the frequencies of the cells of two columns that occur (whitespace
    stripped, as in the Adult CSV), largest first, checked against a pandas cross-tabulation."""
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import design_benchmark as db
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"education": rng.choice([" HS-grad", " Bachelors", " Masters"], 500, p=[0.6, 0.3, 0.1]),
                          "marital-status": rng.choice([" Never", " Married"], 500),
                          "age": rng.integers(17, 90, 500)})
    frame.loc[frame["education"] == " Masters", "marital-status"] = " Married"  # one cell never occurs
    path = tmp_path / "adult.csv"
    frame.to_csv(path, index=False)
    monkeypatch.setattr(db, "ADULT", str(path))
    want = frame.groupby(["education", "marital-status"]).size().sort_values(ascending=False).to_numpy() / 500
    got = db.adult_prior("education", "marital-status")
    assert got.size == 5 and np.allclose(got, want)
    assert np.allclose(db.adult_prior("age"), frame["age"].value_counts().sort_values(ascending=False).to_numpy() / 500)
    monkeypatch.setattr(db, "ADULT", str(tmp_path / "absent.csv"))
    assert db.adult_prior("education") is None


@pytest.mark.parametrize("name", ["frequency-smoothing", "frequency-smoothing-ldp", "frequency-smoothing-ldp-heldout"])
def test_the_smoothing_page_is_the_files_rows(name):
    """docs/measurements/frequency-smoothing*.md are what tools/smoothing_sweep.py renders from their
    CSV and JSON, every case of a page is measured at the same weights, and each page is included
    where the weight is explained."""
    import smoothing_sweep

    assert (MEASUREMENTS / f"{name}.md").read_text() == smoothing_sweep.table(MEASUREMENTS / f"{name}.csv")
    rows = _rows(f"{name}.csv")
    weights = {}
    for r in rows:
        weights.setdefault((r["case"], r["n"], r["eps"]), set()).add(float(r["weight"]))
    assert len(set(map(frozenset, weights.values()))) == 1 and len(rows) == sum(map(len, weights.values()))
    assert f'--8<-- "measurements/{name}.md"' in (ROOT / "docs" / "frequency-estimation.md").read_text()


def test_the_relaxation_tightness_page_is_the_files_rows():
    """docs/measurements/relaxation-tightness.md is what tools/relaxation_tightness.py renders from its
    CSV and JSON, and is included where the large-eps bound is discussed. Its rows obey what the tool
    claims: no certified bound at the point passes the limit there (the best column found is a lower
    bound on the pricing's maximum, every certified relaxed value an upper one)."""
    import relaxation_tightness as rt

    assert (MEASUREMENTS / "relaxation-tightness.md").read_text() == rt.table(MEASUREMENTS / "relaxation-tightness.csv")
    assert '--8<-- "measurements/relaxation-tightness.md"' in (ROOT / "docs" / "frequency-estimation.md").read_text()
    rows = _rows("relaxation-tightness.csv")
    assert {r["case"] for r in rows} >= {"native-country"} and len(rows) >= 4
    for r in rows:
        slack = 1e-9 * (1.0 + abs(float(r["value"])))
        assert float(r["bound"]) <= float(r["limit"]) + slack and float(r["exact_families"]) <= float(r["limit"]) + slack


def test_the_master_step_page_is_the_files_rows():
    """docs/measurements/master-step.md is what tools/master_step_benchmark.py renders from its CSV
    and JSON, and is included where the master's Newton step is described. Both ways solve the same
    master: the same Newton steps and values equal to round-off; the ratio is the two times'."""
    import master_step_benchmark as msb

    assert (MEASUREMENTS / "master-step.md").read_text() == msb.table(MEASUREMENTS / "master-step.csv")
    assert '--8<-- "measurements/master-step.md"' in (ROOT / "docs" / "frequency-estimation.md").read_text()
    rows = _rows("master-step.csv")
    assert {int(r["n"]) for r in rows} >= {42, 74}
    for r in rows:
        assert r["steps_formed"] == r["steps_matrix_free"]
        assert float(r["value_difference"]) <= 1e-9
        assert float(r["ratio"]) == pytest.approx(float(r["seconds_matrix_free"]) / float(r["seconds_formed"]), abs=0.01)


@pytest.mark.parametrize("name", ["frequency-design", "frequency-family", "frequency-heldout", "frequency-heldout-46"])
def test_the_frequency_design_pages_are_the_files_rows(name):
    """docs/measurements/frequency-{design,family,heldout,heldout-46}.md are what
    tools/frequency_design_benchmark.py renders from their CSVs and JSONs, and are included in the
    estimation docs. Their rows obey what the design promises: the certified bound at or below the
    value, the gap (value - bound) / (1 + value) and, in the page's column, on the value itself, the
    value at or below its first iteration's and at or below every LDP oracle's variance (the ratio,
    computed by the tool apart from the engine, at most 1), and the seconds to 1 % within the
    design's seconds, given wherever the design ended within 1 % (of 1 + value, as the engine's
    tol)."""
    import frequency_design_benchmark as fdb

    assert (MEASUREMENTS / f"{name}.md").read_text() == fdb.table(MEASUREMENTS / f"{name}.csv")
    assert f'--8<-- "measurements/{name}.md"' in (ROOT / "docs" / "frequency-estimation.md").read_text()
    for r in _rows(f"{name}.csv"):
        value, bound = float(r["value"]), float(r["bound"])
        assert 0.0 <= bound <= value * (1 + 1e-12)
        assert float(r["gap"]) == pytest.approx((value - bound) / (1 + value), rel=1e-9, abs=1e-15)
        # the gap on the value itself: the same gap, larger by (1 + value) / value
        assert fdb.gap_of_value(r) == pytest.approx(float(r["gap"]) * (1 + value) / value, rel=1e-9, abs=1e-15)
        assert value <= float(r["first_value"]) * (1 + 1e-9)
        assert float(r["oracle_ratio"]) <= 1.0 + 1e-9
        # seconds to 1 %: within the design's time, and there wherever the design ended within 1 %
        if r["seconds_to_1pct"]:
            assert 0.0 <= float(r["seconds_to_1pct"]) <= float(r["seconds"])
        assert r["seconds_to_1pct"] or float(r["gap"]) > fdb.TARGET * (1 - 1e-6)
