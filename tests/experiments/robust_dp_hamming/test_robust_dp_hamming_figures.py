"""robust-dp-hamming: the source-set data file, the figure tables and the claims."""

import numpy as np
import pytest
import yaml

from leakage.experiments.robust_dp_hamming.figures import FIGURES, check_claims, distortion_grid, load_source_sets
from leakage.experiments.robust_dp_hamming.source_sets import source_class
from leakage.tables import read_table, save_table

DATA = "workflow/data/robust-dp-hamming/source_sets.yaml"


@pytest.fixture
def inputs(repo_root):
    return {"source_sets": str(repo_root / DATA)}


def _swap(p, a, b):
    p = p.copy()
    p[[a, b]] = p[[b, a]]
    return p


def test_data_file_is_tables_i_to_iv(inputs):
    data = load_source_sets(inputs["source_sets"])
    # Tables I and II of the paper [robust-dp-hamming], typed in here independently of the file
    assert data["tables"][6]["class_II"] == pytest.approx(np.array([[0.70, 0.15, 0.06, 0.04, 0.03, 0.02]]))
    assert data["tables"][10]["class_II"][1] == pytest.approx([0.35, 0.16, 0.12, 0.10, 0.09, 0.09, 0.05, 0.02, 0.01, 0.01])
    for m, n_ii in ((6, 1), (10, 2)):
        sets = data["tables"][m]
        ii = sets["class_II"]
        assert ii.shape == (n_ii, m)
        built = ii
        for name, b in (("class_III_a", 1), ("class_III_b", 2), ("class_III_c", 3)):
            built = np.vstack([built, [_swap(p, 0, b) for p in ii]])
            assert sets[name] == pytest.approx(built), name
            assert source_class(sets[name]) == "III"
        assert source_class(ii) == "II"
        assert sets["class_I"] == pytest.approx(np.full((1, m), 1 / m))


def test_bad_data_file(tmp_path):
    bad = tmp_path / "s.yaml"
    bad.write_text(yaml.safe_dump({"tables": {3: {"class_II": [[0.5, 0.6, 0.1]]}}, "fig1": {}}))
    with pytest.raises(ValueError, match=r"tables.3.class_II\[0\] must sum to 1"):
        load_source_sets(bad)


def test_grid_has_the_jump_points():
    pts = np.array([[0.70, 0.15, 0.06, 0.04, 0.03, 0.02]])
    d, on_grid = distortion_grid({"n_points": 10, "jump_offset": 1e-4}, pts)
    assert on_grid.sum() == 10 and d[on_grid][-1] == pytest.approx(5 / 6)
    assert np.any(np.isclose(d, 0.30)) and np.any(np.isclose(d, 0.30 - 1e-4))
    assert np.all(np.diff(d) > 0) and d.min() > 0


def test_small_figures_and_their_claims(inputs):
    base = {"n_points": 8, "jump_offset": 1e-4}
    tables = {
        "fig1": FIGURES["fig1"]({"source_sets": ["class_I", "class_II", "class_III"]}, None, inputs),
        "fig4": FIGURES["fig4"]({**base, "M": 6, "source_sets": ["class_I", "class_II", "class_III_a"]}, None, inputs),
        "fig6": FIGURES["fig6"]({**base, "M": 6, "source_sets": ["class_I", "class_II"]}, None, inputs),
    }
    assert list(tables["fig1"].columns[:5]) == ["source_set", "vertex", "p1", "p2", "p3"]
    assert list(tables["fig4"].columns[:6]) == ["M", "source_set", "D", "eps_dp", "eps_dp_lower", "eps_dp_upper"]
    # Theorem 3's bounds: empty except for the Class III set
    has = tables["fig4"].eps_dp_lower.notna()
    assert set(tables["fig4"].source_set[has]) == {"class_III_a"}
    assert tables["fig4"].eps_dp_upper.notna().equals(has)
    assert list(tables["fig6"].columns[:5]) == ["M", "source_set", "D", "eps_dp", "eps_mi"]
    claims = check_claims(tables, {})
    assert len(claims) == 1 + 3 + 1 + 1 + 1 + 4
    assert all(c.holds for c in claims), [c for c in claims if not c.holds]
    # a broken table is reported with its numbers, not forced
    broken = tables["fig4"].copy()
    broken.loc[broken.source_set == "class_II", "eps_dp"] += 0.5
    failed = [c for c in check_claims({"fig4": broken}, {}) if not c.holds]
    assert [c.claim for c in failed] == ["class_II <= class_III_a for every D (nested sets)"]
    assert "max 0.5" in failed[0].detail
    broken = tables["fig4"].copy()
    broken.loc[broken.source_set == "class_III_a", "eps_dp_upper"] -= 0.25
    failed = [c for c in check_claims({"fig4": broken}, {}) if not c.holds]
    assert [c.claim for c in failed] == ["Theorem 3: lower <= eps_dp <= upper for every class III set and D"]
    assert "eps_dp - upper: max 0.25" in failed[0].detail


@pytest.mark.parametrize("fig,sets", [("fig6", ["class_II"]), ("fig4", ["class_II", "class_III_b"])])
def test_tables_survive_the_csv_round_trip(inputs, tmp_path, fig, sets):
    t = FIGURES[fig]({"n_points": 4, "jump_offset": 1e-4, "M": 6, "source_sets": sets}, None, inputs)
    save_table(t, tmp_path / "t.csv")
    back = read_table(tmp_path / "t.csv")
    got, want = check_claims({fig: back}, {}), check_claims({fig: t}, {})
    assert [c.holds for c in got] == [c.holds for c in want] and len(got) >= 2
