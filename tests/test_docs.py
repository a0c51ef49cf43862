"""The documentation site builds with ``mkdocs build --strict`` (no broken link, no unresolved
API reference, no docstring warning), and its figure contracts list exactly the pipeline's figures."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT
from test_report import PAPERS, _figures_md

DOCS = ROOT / "docs"


def test_site_builds_strict(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    site = tmp_path / "site"
    for page in ("index.html", "api/index.html", "figures/index.html", "references/index.html"):
        assert (site / page).is_file(), page
    api = (site / "api" / "index.html").read_text()
    assert "pointwise_maximal_leakage" in api  # mkdocstrings rendered the modules
    _formulas_render_offline(site)
    _generated_parts_are_in_the_pages(site)


def _formulas_render_offline(site):
    """No page loads anything from another host (MathJax came from a CDN once: offline, every formula
    showed as raw TeX); the renderer the pages load is in the site, with its fonts and extensions."""
    outside = re.compile(r"""<(?:script|link)\b[^>]*(?:src|href)=["'](?:https?:)?//""")
    for page in site.rglob("*.html"):
        html = page.read_text()
        assert not outside.search(html), f"{page.relative_to(site)} loads a resource from another host"
        assert "unpkg.com" not in html and "cdn.jsdelivr" not in html, page.relative_to(site)
    design = (site / "design-engine" / "index.html").read_text()
    assert '<span class="arithmatex">' in design  # formulas are there, for MathJax to typeset
    script = re.search(r'<script src="([^"]*tex-mml-chtml\.js)"', design)
    assert script, "the design-engine page does not load MathJax"
    mathjax = (site / "design-engine" / script.group(1)).resolve()
    assert mathjax.is_file() and mathjax.stat().st_size > 500_000, mathjax
    fonts = mathjax.parent / "output" / "chtml" / "fonts" / "woff-v2"
    assert len(list(fonts.glob("*.woff"))) >= 10, fonts  # the CHTML fonts it loads from beside itself
    assert (mathjax.parent / "input" / "tex" / "extensions" / "boldsymbol.js").is_file()  # autoloaded TeX packages


def _generated_parts_are_in_the_pages(site):
    """The config sections and the measurement tables are generated into the pages (no marker left)."""
    for page in site.rglob("*.html"):
        html = page.read_text()
        assert "--8&lt;--" not in html and "--8<--" not in html, page.relative_to(site)
        assert "<!-- config.yaml:" not in html, page.relative_to(site)
    config = yaml.safe_load((ROOT / "config.yaml").read_text())

    def text(page):  # the page without its tags (code is highlighted token by token)
        return re.sub(r"<[^>]+>", "", (site / page / "index.html").read_text())

    figures = text("figures")
    assert f"eps_mi_max: {config['mi-dp']['fig2']['eps_mi_max']}" in figures
    assert f"repetitions: {config['worst-case-pml']['fig1']['repetitions']}" in figures
    study = text("studies/adult-design")
    assert f"iterations: {config['adult-design']['mc']['iterations']}" in study
    benchmarks = (site / "benchmarks" / "index.html").read_text()
    assert "Per stage" in benchmarks and "| case | method |" not in benchmarks  # tables rendered
    assert benchmarks.count("<table>") >= 5


def test_build_without_config_yaml_stops_with_a_clear_error(tmp_path):
    """A checkout without config.yaml (which the pages quote) stops the build at once with a message
    that names the file and says how to get it back, not a traceback."""
    import shutil

    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(DOCS, tmp_path / "docs")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    assert f"{tmp_path / 'config.yaml'} is missing" in out and "git checkout -- config.yaml" in out, out
    assert "Traceback" not in out, out


def test_design_engine_opens_with_its_loop_picture():
    """The design-engine page shows the picture of its loop before any section, as a committed SVG that
    is well-formed, names the loop's parts and loads nothing (no script, no link to another file)."""
    import xml.etree.ElementTree as ET

    page = (DOCS / "design-engine.md").read_text()
    picture = re.search(r"!\[[^\]]+\]\((img/[\w-]+\.svg)\)", page)
    assert picture and picture.start() < page.index("\n## "), "the page does not open with its picture"
    svg = (DOCS / picture.group(1)).read_text()
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    text = " ".join("".join(e.itertext()) for e in root.iter())
    for part in ("master", "duals", "pricing", "columns", "certificate", "staircase", "light top"):
        assert part in text, part
    assert "<script" not in svg and "href=\"http" not in svg and "@import" not in svg


def test_every_page_is_in_the_navigation():
    config = (ROOT / "mkdocs.yml").read_text()
    nav = set(re.findall(r":\s*(\S+\.md)\s*$", config, re.M))
    # docs/measurements/*.md are generated tables included into pages, not pages
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md") if p.parent.name != "measurements"}
    assert pages == nav


def test_figure_contracts_list_every_figure_with_a_caption():
    listed = _figures_md(DOCS / "figures.md")
    captions = yaml.safe_load((ROOT / "workflow" / "report" / "figures.yaml").read_text())
    assert set(PAPERS) <= set(listed)
    for paper, figs in listed.items():
        assert paper in captions, paper
        assert sorted(captions[paper]["figures"]) == sorted(figs), paper


#: The team's reading folder beside the repository, which a user's clone does not have.
OUTSIDE_FOLDER = "/".join(["..", "sha" + "red"])


def test_docs_stand_alone():
    for page in DOCS.rglob("*.md"):
        text = page.read_text()
        assert OUTSIDE_FOLDER not in text, page
        assert not re.search(r"\bseed \d{3}\b", text), page


# Placeholders of extending.md.
PENDING = ("leakage.experiments.M", "leakage.plots.M")


def _resolves(dotted: str) -> bool:
    import importlib

    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def test_code_names_in_the_docs_exist():
    """Every `leakage.…` name a page quotes is a module or an object of the library."""
    missing = []
    for page in sorted(DOCS.rglob("*.md")):
        for name in sorted(set(re.findall(r"`(leakage(?:\.[A-Za-z_]\w*)+)", page.read_text()))):
            if not name.startswith(PENDING) and not _resolves(name):
                missing.append(f"{page.relative_to(DOCS)}: {name}")
    assert not missing, missing


def _bash_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, re.S)]


def test_getting_started_quotes_the_readme_commands():
    """The site's getting-started page shows the README's two commands (run, test) step by step: the
    README's one-line command is the page's block with its lines joined by ``&&``."""
    readme = _bash_blocks((ROOT / "README.md").read_text())[:2]
    index = _bash_blocks((DOCS / "index.md").read_text())
    assert len(readme) == 2
    for command in readme:
        assert "&&" in command and "\n" not in command, command
        steps = "\n".join(step.strip() for step in command.split("&&"))
        assert steps in index, f"docs/index.md lacks the README command {command!r}, one step a line"
    for block in index:  # no step is hidden past the edge of a code box
        assert "&&" not in block and max(len(line) for line in block.splitlines()) <= 100, block


def test_front_door_example_designs_verifies_and_estimates(capsys):
    """The docs home's library example runs, and what it prints holds, checked with numpy alone: the
    designed channel is 1-LDP and at least as informative as 3-ary randomized response at the same
    eps (the optimum), its printed MI is the channel's, and the estimate lies within four standard
    errors of the records' own histogram."""
    import numpy as np

    code = re.findall(r"```python\n(.*?)```", (DOCS / "index.md").read_text(), re.S)[0]
    lines = code.strip().splitlines()
    assert len(lines) <= 15 and max(map(len, lines)) <= 100, "the front door's example is short and fits its box"
    ns: dict = {"__name__": "front_door"}
    exec(compile(code, "docs/index.md", "exec"), ns)
    printed = capsys.readouterr().out.splitlines()
    channel, prior, records, est = ns["channel"], ns["prior"], ns["records"], ns["est"]
    assert np.allclose(channel.sum(axis=1), 1.0) and (channel >= 0).all()
    level = float(np.max(np.log(channel.max(axis=0) / channel.min(axis=0))))
    assert level <= 1.0 + 1e-9

    def mi(c):
        joint = prior[:, None] * c
        out = joint.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.nansum(joint * np.log(c / out[None, :])))

    e = np.e
    rr = np.full((3, 3), 1.0 / (e + 2)) + np.eye(3) * (e - 1) / (e + 2)
    assert mi(channel) >= mi(rr) - 1e-9
    level_shown, mi_shown = map(float, re.findall(r"[-+]?\d+\.\d+", printed[0])[:2])
    assert level_shown == pytest.approx(level, abs=1e-4) and mi_shown == pytest.approx(mi(channel), abs=1e-4)
    hist = np.bincount(records, minlength=3) / records.size
    assert np.all(np.abs(est.estimate - hist) <= 4 * est.stderr) and np.all(est.stderr > 0)
    assert " ".join(f"{v:.3f}".rstrip("0") for v in est.estimate) in " ".join(printed[1].split()), printed[1]


def test_python_examples_run(tmp_path):
    """Every ```python block of the site runs as written (fresh interpreter, the repository's src), and
    where a ```text block follows it, that is what it prints: the numbers shown beside an example are
    the example's own."""
    blocks = [
        (page.relative_to(DOCS), m.group(1), m.group(2))
        for page in sorted(DOCS.rglob("*.md"))
        for m in re.finditer(r"```python\n(.*?)```(?:\n\n```text\n(.*?)```)?", page.read_text(), re.S)
    ]
    assert blocks, "no python example found"
    assert sum(shown is not None for _, _, shown in blocks) >= 5  # the design engine's worked examples
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
    for page, code, shown in blocks:
        run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, f"{page}: {run.stderr[-2000:]}"
        if shown is not None:
            assert run.stdout.rstrip("\n") == shown.rstrip("\n"), f"{page}: the example prints\n{run.stdout}"
