"""The report's pieces: figure descriptions, claims and provenance HTML, benchmark summary; and the
report built by the real Snakemake CLI on a small copy of the pipeline."""

import os
import re
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from leakage.report import (
    benchmark_jobs,
    benchmark_markdown,
    benchmark_table,
    claims_html,
    elapsed_estimate,
    provenance_html,
    rule_of_benchmark,
)

from conftest import ROOT

DESCRIPTIONS = ROOT / "workflow" / "report" / "figures.yaml"
PAPERS = ["empirical-pml", "worst-case-pml", "robust-dp-hamming", "statistical-inference", "mi-dp"]


FIGURES_DOC = ROOT / "docs" / "figures.md"  # the data contract of every figure


def _figures_md(path):
    """paper -> figures listed in the tables of docs/figures.md."""
    out, paper = {}, None
    for line in path.read_text().splitlines():
        m = re.match(r"## (\S+)", line)
        if m:
            paper = m.group(1)
        cell = re.match(r"\| (\S+/)?(fig\d+[a-z]?) \|", line)
        if cell:
            key = cell.group(1).rstrip("/") if cell.group(1) else paper
            out.setdefault(key, []).append(cell.group(2))
    return out


# ------------------------------------------------------------------ descriptions


def test_descriptions_cover_every_paper_with_both_fields():
    data = yaml.safe_load(DESCRIPTIONS.read_text())
    assert sorted(data) == sorted(PAPERS)
    for paper, entry in data.items():
        assert entry["title"].strip(), paper
        assert entry["figures"], paper
        for fig, desc in entry["figures"].items():
            assert re.fullmatch(r"fig[0-9]+[a-z]?", fig), (paper, fig)
            assert set(desc) == {"reproduces", "look_for"}, (paper, fig)
            assert all(len(v.strip()) > 20 for v in desc.values()), (paper, fig)


def test_descriptions_cover_every_registered_figure():
    data = yaml.safe_load(DESCRIPTIONS.read_text())
    registered = {}
    for smk in (ROOT / "workflow" / "rules").glob("*.smk"):
        for paper, body in re.findall(r'FIGURES\["([^"]+)"\]\s*=\s*\[(.*?)\]', smk.read_text(), re.S):
            registered[paper] = re.findall(r'"(fig[^"]+)"', body)
    assert registered, "no FIGURES registration found in workflow/rules"
    for paper, figs in registered.items():
        missing = sorted(set(figs) - set(data[paper]["figures"]))
        assert not missing, f"{paper}: figures without a caption in figures.yaml: {missing}"


def test_descriptions_cover_every_figure_of_the_spec():
    data = yaml.safe_load(DESCRIPTIONS.read_text())
    listed = _figures_md(FIGURES_DOC)
    assert set(listed) == set(PAPERS)
    for paper, figs in listed.items():
        assert sorted(data[paper]["figures"]) == sorted(figs), paper


# ------------------------------------------------------------------ claims and provenance HTML


def _rows(page):
    return re.findall(r'<tr class="(holds|fails)">(.*?)</tr>', page)


def test_claims_html_flags_exactly_the_failing_rows():
    table = pd.DataFrame(
        {
            "figure": ["fig1", "fig2", "fig3"],
            "claim": ["a <= b", "c holds", "d & e"],
            "holds": ["true", "false", "false"],
            "detail": ["x", "y=2", "z"],
        }
    )
    page = claims_html(table, "demo")
    rows = _rows(page)
    assert [cls for cls, _ in rows] == ["holds", "fails", "fails"]
    assert "2 of 3 claims do NOT hold" in page
    assert "a &lt;= b" in page and "d &amp; e" in page and "a <= b" not in page
    assert 'class="summary fails"' in page


def test_claims_html_all_hold():
    table = pd.DataFrame({"figure": ["f"], "claim": ["c"], "holds": ["true"], "detail": [""]})
    page = claims_html(table, "demo")
    assert "All 1 claims hold." in page
    assert [cls for cls, _ in _rows(page)] == ["holds"]


@pytest.mark.parametrize(
    "table",
    [
        pd.DataFrame({"figure": ["f"], "claim": ["c"], "holds": ["maybe"], "detail": [""]}),
        pd.DataFrame({"figure": ["f"], "claim": ["c"], "detail": [""]}),
    ],
)
def test_claims_html_rejects_malformed_tables(table):
    with pytest.raises(ValueError, match="holds|columns"):
        claims_html(table, "demo")


def test_provenance_html_lists_every_leaf():
    record = {
        "source": "local",
        "files": {"adult.data": {"sha256": "ab" * 32, "bytes": 3974305}},
        "tried": ["local", "uci"],
    }
    page = provenance_html(record)
    cells = dict(re.findall(r"<tr><th>(.*?)</th><td><code>(.*?)</code></td></tr>", page))
    assert cells == {
        "source": "local",
        "files.adult.data.sha256": "ab" * 32,
        "files.adult.data.bytes": "3974305",
        "tried": "local, uci",
    }
    with pytest.raises(ValueError, match="JSON object"):
        provenance_html(["not", "a", "mapping"])


# ------------------------------------------------------------------ benchmarks


def _bench(path, seconds, rss=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = ["s\th:m:s\tmax_rss\tmax_vms\tio_in\tio_out\tmean_load\tcpu_time"]
    for s in seconds:
        rows.append(f"{s}\t0:00:01\t{rss if rss is not None else 'NA'}\t1\t0\t0\t0\t0")
    path.write_text("\n".join(rows) + "\n")


def test_benchmark_table_groups_by_paper_and_rule(tmp_path):
    _bench(tmp_path / "p1" / "fig1_table.tsv", [10.0, 12.0], rss=100)
    _bench(tmp_path / "p1" / "fig2_table.tsv", [4.0], rss=300)
    _bench(tmp_path / "p1" / "fig1_plot.tsv", [1.5])
    _bench(tmp_path / "p1" / "claims.tsv", [0.5])
    _bench(tmp_path / "data" / "adult.tsv", [2.0], rss=50)
    table = benchmark_table(tmp_path).set_index(["paper", "rule"])
    assert table.loc[("p1", "table"), "jobs"] == 2
    assert table.loc[("p1", "table"), "total_s"] == pytest.approx(11.0 + 4.0)  # repeats averaged
    assert table.loc[("p1", "table"), "max_s"] == pytest.approx(11.0)
    assert table.loc[("p1", "table"), "max_rss_mb"] == 300
    assert pd.isna(table.loc[("p1", "plot"), "max_rss_mb"])
    assert table.loc[("data", "adult"), "total_s"] == pytest.approx(2.0)
    assert list(table["total_s"]) == sorted(table["total_s"], reverse=True)
    md = benchmark_markdown(benchmark_table(tmp_path))
    lines = md.strip().splitlines()
    assert len(lines) == 2 + 4 + 1  # header, 4 (paper, rule) groups, total
    assert lines[-1].startswith("| **all** | | 5 | 19.0 |")


def test_benchmark_elapsed_from_file_times(tmp_path):
    _bench(tmp_path / "a_table.tsv", [5.0])
    _bench(tmp_path / "b_table.tsv", [3.0])
    os.utime(tmp_path / "a_table.tsv", (1000.0, 1000.0))  # ran 995..1000
    os.utime(tmp_path / "b_table.tsv", (1010.0, 1010.0))  # ran 1007..1010
    assert elapsed_estimate(benchmark_jobs(tmp_path)) == pytest.approx(15.0)


def test_benchmark_errors_and_names(tmp_path):
    with pytest.raises(ValueError, match="no benchmark files"):
        benchmark_table(tmp_path)
    (tmp_path / "x.tsv").write_text("a\tb\n1\t2\n")
    with pytest.raises(ValueError, match="not a Snakemake benchmark"):
        benchmark_table(tmp_path)
    assert rule_of_benchmark("empirical-pml/fig4_table.tsv") == "table"
    assert rule_of_benchmark("data/adult.tsv") == "adult"


def test_benchmark_summary_script(tmp_path):
    _bench(tmp_path / "p" / "fig1_table.tsv", [2.0])
    out = subprocess.run(
        [sys.executable, str(ROOT / "workflow" / "scripts" / "benchmark_summary.py"), str(tmp_path)],
        capture_output=True, text=True, check=True,
    ).stdout
    assert "| p | table | 1 | 2.0 |" in out and "Elapsed" in out
    empty = subprocess.run(
        [sys.executable, str(ROOT / "workflow" / "scripts" / "benchmark_summary.py"), str(tmp_path / "none")],
        capture_output=True, text=True,
    )
    assert empty.returncode == 1 and "no benchmark files" in empty.stderr
