import hashlib

import numpy as np
import pandas as pd

from leakage.claims import Claim, read_claims, write_claims
from leakage.plots.style import new_figure, write_figure


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _draw(tmp, name):
    fig, axes = new_figure()
    x = np.linspace(0, 1, 50)
    axes[0, 0].plot(x, x**2, label="pml")
    axes[0, 0].legend()
    table = pd.DataFrame({"x": x, "y": x**2})
    return write_figure(fig, table, tmp / name / "fig")


def test_figure_writer_is_deterministic(tmp_path):
    first = _draw(tmp_path, "a")
    second = _draw(tmp_path, "b")
    for p, q in zip(first, second):
        assert p.stat().st_size > 0
        assert _digest(p) == _digest(q), p.name
    assert [p.suffix for p in first] == [".pdf", ".png", ".csv"]
    assert pd.read_csv(first[2]).columns.tolist() == ["x", "y"]


def test_claims_roundtrip(tmp_path):
    path = tmp_path / "claims.csv"
    write_claims([Claim("fig1", "a claim", np.bool_(True), "x=1"), Claim("fig2", "b", False)], path)
    table = read_claims(path)
    assert table.columns.tolist() == ["figure", "claim", "holds", "detail"]
    assert table["holds"].tolist() == ["true", "false"]
