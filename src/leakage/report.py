"""The Snakemake report's pieces: claims and data provenance as HTML tables.

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
