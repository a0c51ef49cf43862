"""The "What we found" sections (tools/findings_pages.py): the committed pages are what the committed
measurement files give, the claims and numbers on them are the files' (read here with the csv
module), and every paper page and the study page end with them."""

from __future__ import annotations

import csv
import json
import re
import sys

import pandas as pd

from conftest import ROOT
from generated_pages import assert_pages_current

sys.path.insert(0, str(ROOT / "tools"))
import findings_pages as fp  # noqa: E402

MEASUREMENTS = ROOT / "docs" / "measurements"


def _csv(name):
    with open(MEASUREMENTS / name, newline="") as fh:
        return list(csv.DictReader(fh))


def _cells(line):
    """The cells of a markdown table row (a cell's own "|" is escaped)."""
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]


def test_the_committed_findings_are_what_the_measurement_files_give():
    assert_pages_current(fp.render, "tools/findings_pages.py")


def test_every_page_ends_with_what_we_found_from_its_files():
    meta = json.loads((MEASUREMENTS / "findings.json").read_text())
    assert re.fullmatch(r"[0-9a-f]{7,40}", meta["commit"]), meta
    for paper in fp.papers():
        page = fp.page_of(paper).read_text()
        sections = re.findall(r"^## (.+)$", page, flags=re.M)
        assert sections[-1] == "What we found", (paper, sections[-1])
        assert page.rstrip().endswith(f'--8<-- "measurements/findings-{paper}.md"'), paper
        generated = (MEASUREMENTS / f"findings-{paper}.md").read_text()
        claims = _csv(f"findings-{paper}-claims.csv")
        held = sum(c["holds"] == "true" for c in claims)
        assert f"**{held} of {len(claims)} claims hold**" in generated
        assert f"commit `{meta['commit']}`" in generated
        for c in claims:
            if c["holds"] != "true":
                assert c["claim"].replace("|", "\\|") in generated, c["claim"]
        rows = [_cells(line) for line in generated.splitlines() if line.startswith("| fig")]
        numbers = _csv(f"findings-{paper}-numbers.csv")
        shown = [r for r in rows if len(r) == 3 and r[0] != "figure"]  # figure | quantity | value
        assert len(shown) == len(numbers), paper
        for cells, number in zip(shown, numbers):
            assert cells[0] == number["figure"] and cells[1] == number["quantity"]
            assert abs(float(cells[2]) - float(number["value"])) <= 5e-4 * abs(float(number["value"])) + 1e-12


def test_key_numbers_on_a_small_table():
    # worst-case-pml fig1: jumps of the utility-safe exact worst case at eps 0.1 and 0.3; of the
    # exponential mechanism's two Monte Carlo minima one lies above its exact worst case
    fig1 = pd.DataFrame({
        "eps": [0.0, 0.1, 0.2, 0.3, 0.0, 0.1],
        "mechanism": ["utility_safe"] * 4 + ["exponential"] * 2,
        "min_utility_mc": [-5.0, -3.0, -3.0, -1.0, -5.0, -4.0],
        "min_utility_exact": [-5.0, -3.0, -3.0, -1.0, -5.0, -5.0],
    })
    opt = pd.DataFrame({"k": [2, 2], "p_low": [0.1, 0.2], "eps_utility_safe": [1.0, 0.5], "eps_optimal": [0.4, 0.5]})
    rows = fp.KEY_NUMBERS["worst-case-pml"]({"fig1": fig1, "fig2": opt, "fig3": opt})
    jumps = [r["value"] for r in rows if "jumps" in r["quantity"]]
    assert jumps == [0.1, 0.3]
    share = next(r["value"] for r in rows if r["quantity"].startswith("share"))
    assert share == 0.5
    gaps = [r["value"] for r in rows if "largest eps_US" in r["quantity"]]
    assert gaps == [0.6, 0.6]
