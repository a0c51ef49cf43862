"""Copy every figure's table of a pipeline run into tests/plots/tables/, the tables from which
tests/plots/test_figures.py redraws every figure.

Usage, from the repository root after a run (``snakemake --cores 1``):

    python tools/figure_fixtures.py              # from results/
    python tools/figure_fixtures.py RESULTS_DIR

A figure is any key of a ``PLOTS`` dict of a paper or study of config.yaml. Monte Carlo samples
(rows of series ``sample``) are thinned to ``MAX_SAMPLES`` evenly spaced rows: the drawing is the
same kind, the files stay small.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

import yaml

from leakage.tables import read_table, save_table

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "plots" / "tables"
MAX_SAMPLES = 400


def figures() -> list[tuple[str, str]]:
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    out = []
    for paper in list(config["papers"]) + list(config.get("studies", [])):
        module = importlib.import_module(f"leakage.plots.{paper.replace('-', '_')}")
        out.extend((paper, figure) for figure in module.PLOTS)
    return out


def thin(table):
    if "series" not in table or (table["series"] == "sample").sum() <= MAX_SAMPLES:
        return table
    sample = table[table["series"] == "sample"]
    keep = sample.iloc[:: max(1, len(sample) // MAX_SAMPLES)].index
    return table[(table["series"] != "sample") | table.index.isin(keep)].reset_index(drop=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", default=str(ROOT / "results"))
    args = parser.parse_args(argv)
    missing = []
    for paper, figure in figures():
        source = Path(args.results) / paper / f"{figure}.csv"
        if not source.exists():
            missing.append(str(source))
            continue
        save_table(thin(read_table(source)), OUT / paper / f"{figure}.csv")
    if missing:
        print("missing tables:\n  " + "\n  ".join(missing), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
