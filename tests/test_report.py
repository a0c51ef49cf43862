"""The report's pieces: figure descriptions, claims and provenance HTML; and the
report built by the real Snakemake CLI on a small copy of the pipeline."""

import re

import pandas as pd
import pytest
import yaml

from leakage.report import claims_html, provenance_html

from conftest import ROOT

DESCRIPTIONS = ROOT / "workflow" / "report" / "figures.yaml"
PAPERS = ["empirical-pml", "worst-case-pml", "robust-dp-hamming", "statistical-inference", "mi-dp"]
STUDIES = ["adult-design"]  # beyond the papers: captioned too, not in FIGURES.md


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
    assert sorted(data) == sorted(PAPERS + STUDIES)
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


