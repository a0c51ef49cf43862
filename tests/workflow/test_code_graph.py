"""The code inputs' cache (workflow/lib/code_graph.py): a graph that reads what earlier processes
parsed gives the same library files as one that parses everything, and sees an edit at once (the
cache is keyed by each file's bytes, not by its time). The files the rules get from the graph are
tested through Snakemake in tests/test_regeneration.py."""

from __future__ import annotations

import json
import os
import shutil
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "workflow" / "lib"))
from code_graph import CACHE_VERSION, CodeGraph  # noqa: E402

SCRIPTS = sorted(p.name for p in (ROOT / "workflow" / "scripts").glob("*.py"))


def _everything(graph: CodeGraph) -> dict:
    """Every question the rules ask of a graph, for every module, figure registry and script."""
    out = {}
    for module in graph.modules():
        out[module] = graph.files({module})
        if graph.is_package(module):
            for registry in ("FIGURES", "PLOTS"):
                for figure in ("fig1", "fig2", "fig2a", "fig4", "fig7", "no-such-figure"):
                    out[module, registry, figure] = graph.figure_entry(module, figure, registry)
    for script in SCRIPTS:
        out[script] = graph.files(scripts=[f"workflow/scripts/{script}"])
    return out


def _copy(dest):
    for item in ("src", "workflow"):
        shutil.copytree(ROOT / item, dest / item, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return dest


def test_a_cached_graph_answers_as_a_parsed_one(tmp_path):
    root = _copy(tmp_path / "p")
    cache = root / ".snakemake" / "code_graph.json"
    parsed = _everything(CodeGraph(root))
    assert parsed["leakage.measures.pml"]  # the graph sees the library
    assert _everything(CodeGraph(root, cache=cache)) == parsed  # cold: parses, writes the cache
    stored = json.loads(cache.read_text())
    assert stored["version"] == CACHE_VERSION
    assert set(stored["files"]) >= {"src/leakage/measures/pml.py", "workflow/scripts/table.py"}
    warm = CodeGraph(root, cache=cache)
    assert _everything(warm) == parsed
    assert not warm._dirty  # nothing parsed again


def test_an_edit_is_seen_whatever_its_time(tmp_path):
    """A module that imports another one instead, in a file of the same size and modification
    time: the cached graph follows the new import."""
    pkg = tmp_path / "src" / "leakage"
    pkg.mkdir(parents=True)
    for name in ("__init__", "b", "c"):
        (pkg / f"{name}.py").write_text("")
    a = pkg / "a.py"
    a.write_text("import leakage.b\n")
    cache = tmp_path / ".snakemake" / "code_graph.json"
    assert CodeGraph(tmp_path, cache=cache).files({"leakage.a"}) == ["src/leakage/a.py", "src/leakage/b.py"]
    stat = a.stat()
    a.write_text("import leakage.c\n")
    os.utime(a, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (a.stat().st_size, a.stat().st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)
    assert CodeGraph(tmp_path, cache=cache).files({"leakage.a"}) == ["src/leakage/a.py", "src/leakage/c.py"]


def test_a_broken_or_foreign_cache_is_ignored(tmp_path):
    root = _copy(tmp_path / "p")
    cache = root / ".snakemake" / "code_graph.json"
    parsed = _everything(CodeGraph(root))
    for text in ("{not json", json.dumps({"version": CACHE_VERSION + 1, "files": {"src/leakage/rng.py": 1}}), "[]"):
        cache.parent.mkdir(exist_ok=True)
        cache.write_text(text)
        assert _everything(CodeGraph(root, cache=cache)) == parsed
        assert json.loads(cache.read_text())["version"] == CACHE_VERSION  # replaced by a good one
