"""`snakemake --report` on a small copy of the pipeline (fake papers, real rules): every figure under
its paper's category with its caption, the claims tables with failing claims flagged, the Adult
provenance; self-contained HTML and zip."""

import json
import re
import zipfile

import pytest
import yaml

from miniproject import FAKE_FIGURES, ROOT, built_project, clone, run_snakemake

pytestmark = pytest.mark.workflow  # one xdist worker runs this file and its pair (tests/conftest.py: SHARED_BUILD)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    # the HTML report is the build's (snakemake --cores 2 --report report.html --report-after-run,
    # tests/miniproject.py: a fresh DAG of the finished project, in the build's process); the zip is
    # made by a separate `snakemake --report` on a copy of the built project: both ways are checked
    project = clone(built_project(tmp_path_factory), tmp_path_factory.mktemp("report") / "p")
    assert (project / "report.html").is_file()
    run_snakemake(project, "--report", "report.zip")
    page = (project / "report.html").read_text()
    results = json.loads(re.search(r'var results = (\{"results/.*?\});\n', page, re.S).group(1))
    categories = json.loads(re.search(r"var categories = (\{.*?\});\n", page, re.S).group(1))
    return project, page, results, categories


def test_every_figure_under_its_paper_category(report):
    _, _, _, categories = report
    assert set(categories) == set(FAKE_FIGURES) | {"data"}
    for paper, figures in FAKE_FIGURES.items():
        assert categories[paper]["figures"] == [f"results/{paper}/{f}.png" for f in figures]
        assert categories[paper]["claims"] == [f"results/{paper}/claims.html"]
    assert categories["data"]["provenance"] == ["results/data/adult_provenance.html"]


def test_figure_captions_say_what_paper_figure_parameters_and_what_to_look_for(report):
    _, _, results, _ = report
    described = yaml.safe_load((ROOT / "workflow" / "report" / "figures.yaml").read_text())
    for paper, figures in FAKE_FIGURES.items():
        for fig in figures:
            item = results[f"results/{paper}/{fig}.png"]
            caption = item["caption"]
            desc = described[paper]["figures"][fig]
            for text in (desc["reproduces"], desc["look_for"], described[paper]["title"]):
                assert _html_text(text) in caption, (paper, fig, text)
            assert "points = 5" in caption  # the figure's settings from the config
            assert re.search(r"seed <tt[^>]*>1</tt>", caption)  # the config's seed
            uri = item["data_uri"]  # embedded: the report is self-contained
            assert uri.startswith("data:image/png;") and ";base64,iVBORw0KGgo" in uri


def test_claims_tables_flag_the_claims_that_do_not_hold(report):
    project, _, results, _ = report
    for paper in FAKE_FIGURES:
        item = results[f"results/{paper}/claims.html"]
        assert "do not hold" in item["caption"]
        page = (project / "results" / paper / "claims.html").read_text()
        failing = re.findall(r'<tr class="fails">.*?</tr>', page)
        assert len(failing) == 1 and "a claim that does not hold (test)" in failing[0]
        assert len(re.findall(r'<tr class="holds">', page)) == len(FAKE_FIGURES[paper])
        assert "1 of" in page and "do NOT hold" in page


def test_provenance_item_shows_the_digests(report):
    project, _, results, _ = report
    prov = json.loads((project / "results" / "data" / "adult_provenance.json").read_text())
    page = (project / "results" / "data" / "adult_provenance.html").read_text()
    for name, entry in prov["files"].items():
        assert entry["sha256"] in page, name
    assert "results/data/adult_provenance.html" in results


def test_report_zip_holds_every_item(report):
    project, _, results, _ = report
    with zipfile.ZipFile(project / "report.zip") as zf:
        names = zf.namelist()
    assert "report/report.html" in names
    for path in results:
        base = path.rsplit("/", 1)[-1]
        assert any(n.endswith("/" + base) for n in names if n.startswith("report/data/raw/")), path
    assert sum(n.startswith("report/data/raw/") for n in names) == len(results)


def _html_text(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
