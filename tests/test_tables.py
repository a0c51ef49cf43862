"""The one table writer: atomic writes, and the temporary files a killed writer leaves behind."""

import os

import pandas as pd
import pytest

from leakage.tables import atomic_output, atomic_path, remove_stale_temporaries, save_table


def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(tmp_path):
    out = tmp_path / "fig3b.pdf"
    stale = tmp_path / ".fig3b.pdf.tmp4242"  # left by a writer killed with SIGKILL
    stale.write_bytes(b"%PDF half")
    other = tmp_path / ".fig3b.pdf.tmpnotes"  # not a writer's name (no pid): kept
    other.write_text("x")
    neighbour = tmp_path / ".fig3a.pdf.tmp4242"  # another output's: kept
    neighbour.write_text("x")
    with atomic_output(out) as tmp:
        assert tmp == atomic_path(out) and not stale.exists()
        tmp.write_bytes(b"%PDF whole")
    assert out.read_bytes() == b"%PDF whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".fig3a.pdf.tmp4242", ".fig3b.pdf.tmpnotes", "fig3b.pdf"]


def test_a_failed_write_leaves_nothing(tmp_path):
    out = tmp_path / "t.csv"
    with pytest.raises(RuntimeError):
        with atomic_output(out) as tmp:
            tmp.write_text("a,b\n1,")
            raise RuntimeError("the job dies")
    assert list(tmp_path.iterdir()) == []


def test_save_table_writes_the_same_bytes_and_cleans_up(tmp_path):
    out = tmp_path / "sub" / "t.csv"
    out.parent.mkdir()
    (out.parent / f".t.csv.tmp{os.getpid() + 1}").write_text("stale")
    save_table(pd.DataFrame({"a": [1.5, 2.0], "b": ["x", None]}), out)
    assert out.read_bytes() == b"a,b\n1.5,x\n2.0,\n"
    assert remove_stale_temporaries(out) == [] and sorted(p.name for p in out.parent.iterdir()) == ["t.csv"]
