"""Claims: a paper's statements about a figure, checked on the computed numbers.

Each paper writes ``results/<paper>/claims.csv`` with columns ``figure,claim,holds,detail``
(``holds`` is ``true``/``false``). A claim that fails is reported, never hidden or forced.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import pandas as pd

from leakage.tables import read_table, save_table

COLUMNS = ["figure", "claim", "holds", "detail"]


@dataclass(frozen=True)
class Claim:
    """One checked statement: ``holds`` is the verdict, ``detail`` the numbers behind it."""

    figure: str
    claim: str
    holds: bool
    detail: str = ""


def check(figure: str, claim: str, holds, detail: str = "") -> Claim:
    """Build a :class:`Claim`, coercing numpy booleans to ``bool``."""
    return Claim(figure=figure, claim=claim, holds=bool(holds), detail=str(detail))


def claims_table(claims: Iterable[Claim]) -> pd.DataFrame:
    """The tidy table of claims, ``holds`` written as ``true``/``false``."""
    rows = [
        {"figure": c.figure, "claim": c.claim, "holds": "true" if c.holds else "false", "detail": c.detail}
        for c in claims
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def write_claims(claims: Iterable[Claim], path: str | Path) -> pd.DataFrame:
    """Write claims to ``path`` (CSV) and return the table."""
    table = claims_table(claims)
    save_table(table, path)
    return table


def read_claims(path: str | Path) -> pd.DataFrame:
    """Read a claims CSV back, ``holds`` as strings ``true``/``false`` and an empty ``detail`` as ``""``."""
    return read_table(path, dtype={"holds": str}, na_values=[])
