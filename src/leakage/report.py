"""The Snakemake report's pieces: claims and data provenance as HTML tables, and the per-rule
wall-time summary of Snakemake's benchmark files.

Nothing here computes a figure: these functions only present what the pipeline wrote.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from leakage.claims import COLUMNS as CLAIM_COLUMNS
from leakage.claims import read_claims

_STYLE = """<style>
body { font-family: sans-serif; font-size: 14px; margin: 1em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #bbb; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eee; }
tr.fails td { background: #f8d7da; color: #721c24; font-weight: bold; }
tr.holds td { background: #e9f7ef; }
p.summary.fails { color: #721c24; font-weight: bold; }
p.summary.holds { color: #155724; font-weight: bold; }
</style>"""


# ------------------------------------------------------------------ claims


def claims_html(claims: pd.DataFrame, paper: str) -> str:
    """A self-contained HTML page of a paper's claims table, claims that do not hold highlighted
    (red rows, listed first in a summary line)."""
    missing = [c for c in CLAIM_COLUMNS if c not in claims.columns]
    if missing:
        raise ValueError(f"claims table of {paper!r} lacks columns {missing}")
    holds = claims["holds"].astype(str).str.strip().str.lower()
    bad = sorted(set(holds) - {"true", "false"})
    if bad:
        raise ValueError(f"claims table of {paper!r}: 'holds' must be true/false, got {bad}")
    n_fail = int((holds == "false").sum())
    n = len(claims)
    if n_fail:
        failing = ", ".join(
            html.escape(f"{f}: {c}") for f, c in zip(claims.loc[holds == "false", "figure"], claims.loc[holds == "false", "claim"])
        )
        summary = f'<p class="summary fails">{n_fail} of {n} claims do NOT hold: {failing}</p>'
    else:
        summary = f'<p class="summary holds">All {n} claims hold.</p>'
    rows = []
    for (_, row), verdict in zip(claims.iterrows(), holds):
        cls = "holds" if verdict == "true" else "fails"
        cells = "".join(f"<td>{html.escape(str(row[c]))}</td>" for c in CLAIM_COLUMNS)
        rows.append(f'<tr class="{cls}">{cells}</tr>')
    header = "".join(f"<th>{c}</th>" for c in CLAIM_COLUMNS)
    return (
        f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Claims of {html.escape(paper)}</title>"
        f"{_STYLE}</head><body>\n<h2>Claims of {html.escape(paper)}</h2>\n{summary}\n"
        f"<table>\n<tr>{header}</tr>\n" + "\n".join(rows) + "\n</table>\n</body></html>\n"
    )


def write_claims_html(claims_csv: str | Path, out: str | Path, paper: str) -> int:
    """Render ``claims_csv`` to ``out``; returns the number of claims that do not hold."""
    table = read_claims(claims_csv)
    Path(out).write_text(claims_html(table, paper))
    return int((table["holds"].str.strip().str.lower() == "false").sum())


# ------------------------------------------------------------------ data provenance


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, Mapping):
        out = []
        for k, v in value.items():
            out.extend(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out or [(prefix, "{}")]
    if isinstance(value, list) and any(isinstance(v, (Mapping, list)) for v in value):
        out = []
        for i, v in enumerate(value):
            out.extend(_flatten(v, f"{prefix}[{i}]"))
        return out or [(prefix, "[]")]
    if isinstance(value, list):
        return [(prefix, ", ".join(str(v) for v in value))]
    return [(prefix, value)]


def provenance_html(provenance: Mapping, title: str = "UCI Adult: data provenance") -> str:
    """A self-contained HTML page of a provenance record (any JSON object): one row per leaf,
    nested keys joined with dots (``files.adult.data.sha256``)."""
    if not isinstance(provenance, Mapping):
        raise ValueError(f"provenance must be a JSON object, got {type(provenance).__name__}")
    rows = "\n".join(
        f"<tr><th>{html.escape(k)}</th><td><code>{html.escape(str(v))}</code></td></tr>"
        for k, v in _flatten(provenance)
    )
    return (
        f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
        f"{_STYLE}</head><body>\n<h2>{html.escape(title)}</h2>\n<table>\n{rows}\n</table>\n</body></html>\n"
    )


def write_provenance_html(provenance_json: str | Path, out: str | Path) -> None:
    with open(provenance_json) as fh:
        Path(out).write_text(provenance_html(json.load(fh)))


# ------------------------------------------------------------------ benchmarks


def benchmark_table(bench_dir: str | Path) -> pd.DataFrame:
    """Aggregate Snakemake benchmark files ``bench_dir/**/*.tsv`` into one row per paper and rule:
    ``paper, rule, jobs, total_s, mean_s, max_s, max_rss_mb``, slowest first.

    ``<paper>/<figure>_<rule>.tsv`` gives (paper, rule); a file directly under ``bench_dir`` has
    paper ``""``. The wall seconds ``s`` of the repeats of one job are averaged first."""
    jobs = benchmark_jobs(bench_dir)
    return (
        jobs.groupby(["paper", "rule"])
        .agg(
            jobs=("job", "count"),
            total_s=("s", "sum"),
            mean_s=("s", "mean"),
            max_s=("s", "max"),
            max_rss_mb=("max_rss_mb", "max"),
        )
        .reset_index()
        .sort_values(["total_s", "paper", "rule"], ascending=[False, True, True], ignore_index=True)
    )


def benchmark_jobs(bench_dir: str | Path) -> pd.DataFrame:
    """One row per benchmark file: ``paper, rule, job, s, max_rss_mb, end`` (``end``: the file's
    modification time, i.e. when the job finished)."""
    bench_dir = Path(bench_dir)
    files = sorted(bench_dir.rglob("*.tsv"))
    if not files:
        raise ValueError(f"no benchmark files (*.tsv) under {bench_dir}")
    records = []
    for f in files:
        t = pd.read_csv(f, sep="\t")
        if "s" not in t.columns or t.empty:
            raise ValueError(f"{f}: not a Snakemake benchmark file (no rows or no column 's')")
        rss = pd.to_numeric(t["max_rss"], errors="coerce") if "max_rss" in t.columns else pd.Series([float("nan")])
        rel = f.relative_to(bench_dir)
        records.append(
            {
                "paper": rel.parts[0] if len(rel.parts) > 1 else "",
                "rule": rule_of_benchmark(rel),
                "job": str(rel.with_suffix("")),
                "s": float(pd.to_numeric(t["s"]).mean()),
                "max_rss_mb": float(rss.max()) if rss.notna().any() else float("nan"),
                "end": f.stat().st_mtime,
            }
        )
    return pd.DataFrame(records)


def elapsed_estimate(jobs: pd.DataFrame) -> float:
    """Wall time of the run that wrote the benchmark files, estimated from the files' times:
    last end minus first start (end - s). Only meaningful for files of one run."""
    return float(jobs["end"].max() - (jobs["end"] - jobs["s"]).min())


def rule_of_benchmark(relpath: str | Path) -> str:
    """``empirical-pml/fig4_experiment.tsv`` -> ``experiment``; ``data/adult.tsv`` -> ``adult``."""
    stem = Path(relpath).stem
    return stem.rsplit("_", 1)[-1] if "_" in stem else stem


def benchmark_markdown(table: pd.DataFrame) -> str:
    """The benchmark table as markdown, with a total row (wall seconds summed over jobs, i.e. the
    serial time; a run on several cores takes less)."""
    lines = [
        "| paper | rule | jobs | total wall [s] | mean per job [s] | slowest job [s] | max RSS [MB] |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in table.itertuples():
        rss = "" if pd.isna(r.max_rss_mb) else f"{r.max_rss_mb:.0f}"
        lines.append(
            f"| {r.paper} | {r.rule} | {r.jobs} | {r.total_s:.1f} | {r.mean_s:.1f} | {r.max_s:.1f} | {rss} |"
        )
    lines.append(
        f"| **all** | | {int(table['jobs'].sum())} | {table['total_s'].sum():.1f} | | "
        f"{table['max_s'].max():.1f} | |"
    )
    return "\n".join(lines) + "\n"
