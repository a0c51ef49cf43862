"""The library code a job runs, from the static import graph of ``src/leakage`` (``ast`` only: no
module is imported, so building the DAG stays fast and does not need numpy).

Every rule lists the library files its job executes as inputs, so that an edit of one module
reruns exactly the jobs that use it. The files of a job are found as follows.

* A module's code is its own file plus, transitively, the code of every ``leakage`` module it
  imports (at any depth in the file: imports inside functions count too).
* ``import leakage.a.b`` / ``from leakage.a import b`` where ``b`` is a submodule: the code of
  ``leakage.a.b``.
* ``from leakage.a import name`` where ``name`` is not a submodule: resolved *by name* through
  the package's re-exports. If ``leakage/a/__init__.py`` re-exports ``name`` (``from X import
  name``), the dependency is on ``X`` (followed recursively), not on the package; only a name the
  ``__init__`` defines itself (a function, a constant, ...) makes the ``__init__`` and all of its
  imports a dependency.
* Parent packages: importing ``leakage.a.b`` runs ``leakage/__init__.py`` and
  ``leakage/a/__init__.py``, but they are *not* dependencies: a package ``__init__`` holds
  re-exports and helpers, and cannot change what ``leakage.a.b`` computes. So the public API in
  ``leakage/__init__.py`` (which re-exports everything) is a dependency of no job, and adding a
  function to ``leakage.design`` reruns only the jobs that use it.
* Dynamic imports (``importlib.import_module``) are invisible to ``ast``; the rules add the
  module they name (the paper's experiment or plot module) as an extra entry point.
* A figure of a paper whose experiment (or plot) module is a package is narrowed to the
  submodule whose module-level ``FIGURES`` (``PLOTS``) dict literal has the figure as a key:
  ``empirical_pml/bounds.py`` computes fig2a, ``empirical_pml/noise.py`` fig4. The package's
  ``__init__`` file (which merges the dicts) is a dependency, its imports are not followed.
  Without such a literal the whole package is a dependency.

Parsing the library is most of the graph's cost (about 0.3 s for a DAG of the whole pipeline, in
every Snakemake process: each dry run, each cluster job). With ``cache`` (the Snakefile passes
``.snakemake/code_graph.json``), what the graph reads of each file (its import statements, its
module-level re-exports and registry keys) is kept under the file's path with the SHA-256 of its
bytes, and a file is parsed again only when its bytes differ; an edit is therefore seen at once,
whatever the file's time. The cache holds facts about file contents only: every closure is
computed afresh from them.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from functools import cache
from pathlib import Path

#: The cache file's format: a file written by another version is ignored (and replaced).
CACHE_VERSION = 1


class CodeGraph:
    """Import graph of the package under ``src`` (default name ``leakage``)."""

    def __init__(self, root: str | Path, package: str = "leakage", src: str = "src", cache: str | Path | None = None):
        self.root = Path(root)
        self.package = package
        self.src = self.root / src
        # what this graph has read, kept for its own lifetime (one DAG build): a file is parsed and
        # its imports listed once, however many closures pass through it
        self._facts: dict[Path, dict] = {}
        self._import_lists: dict[tuple[Path, str | None], list[tuple[str, str | None]]] = {}
        self._paths: dict[str, Path | None] = {}
        # facts of earlier processes (see the module docstring): relative path -> {sha256, facts}
        self._cache_path = Path(cache) if cache is not None else None
        self._cached: dict[str, dict] = self._load_cache()
        self._dirty = False

    # ------------------------------------------------------------------ modules and files
    def path(self, module: str) -> Path | None:
        """The file of a dotted module name (``pkg/__init__.py`` for a package), or None."""
        if module not in self._paths:
            base = self.src.joinpath(*module.split("."))
            if (base / "__init__.py").is_file():
                self._paths[module] = base / "__init__.py"
            elif base.with_suffix(".py").is_file():
                self._paths[module] = base.with_suffix(".py")
            else:
                self._paths[module] = None
        return self._paths[module]

    def is_package(self, module: str) -> bool:
        path = self.path(module)  # memoised: a package's path is its __init__.py
        return path is not None and path.name == "__init__.py"

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def modules(self) -> list[str]:
        """Every module of the package, dotted."""
        out = []
        for p in sorted((self.src / self.package).rglob("*.py")):
            parts = p.relative_to(self.src).with_suffix("").parts
            out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        return out

    # ------------------------------------------------------------------ what a file says
    def _read(self, path: Path) -> dict:
        """The facts of a file the graph needs (``_parse``), from the cache if its bytes are the
        cached ones, else parsed."""
        if path not in self._facts:
            data = path.read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            key = self._cache_key(path)
            entry = self._cached.get(key)
            if entry is not None and entry.get("sha256") == digest:
                facts = entry["facts"]
            else:
                facts = _parse(ast.parse(data, filename=str(path)))
                self._cached[key] = {"sha256": digest, "facts": facts}
                self._dirty = True
            self._facts[path] = facts
        return self._facts[path]

    def _cache_key(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def _load_cache(self) -> dict[str, dict]:
        if self._cache_path is None:
            return {}
        try:
            data = json.loads(self._cache_path.read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION or not isinstance(data.get("files"), dict):
            return {}
        return data["files"]

    def save_cache(self) -> None:
        """Write the cache if this graph parsed a file (atomically: a concurrent Snakemake process
        reads the old file or the new one, never half of one; where the file cannot be written, the
        next process parses again)."""
        if self._cache_path is None or not self._dirty:
            return
        tmp = self._cache_path.with_name(f".{self._cache_path.name}.tmp{os.getpid()}")
        try:
            self._cache_path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps({"version": CACHE_VERSION, "files": self._cached}, sort_keys=True))
            os.replace(tmp, self._cache_path)
            self._dirty = False
        except OSError:
            tmp.unlink(missing_ok=True)

    # ------------------------------------------------------------------ imports of a file
    def _ours(self, name: str | None) -> bool:
        return bool(name) and (name == self.package or name.startswith(self.package + "."))

    def _imports(self, path: Path, current: str | None = None) -> list[tuple[str, str | None]]:
        """(module, name) pairs imported by a file; ``name`` None for a whole-module import."""
        key = (path, current)
        if key not in self._import_lists:
            self._import_lists[key] = self._list_imports(path, current)
        return self._import_lists[key]

    def _list_imports(self, path: Path, current: str | None) -> list[tuple[str, str | None]]:
        out = []
        for kind, module, level, names in self._read(path)["imports"]:
            if kind == "import":
                out += [(name, None) for name in names if self._ours(name)]
            else:
                if level:  # relative import
                    base = (current or "").split(".")
                    if not (path.name == "__init__.py"):
                        base = base[:-1]
                    base = base[: len(base) - level + 1]
                    module = ".".join(base + ([module] if module else []))
                if self._ours(module):
                    out += [(module, name) for name in names]
        return out

    def _reexports(self, module: str) -> dict[str, str]:
        """name -> module it comes from, for the ``from X import name`` lines of a package
        ``__init__`` (module level only)."""
        out = {}
        for origin, names in self._read(self.path(module))["reexports"]:
            if self._ours(origin):
                for name, asname in names:
                    out[asname or name] = (origin, name)
        return out

    def _targets(self, module: str, name: str | None) -> set[str]:
        """The modules a single import statement makes a dependency (see module docstring)."""
        if name is None or name == "*":
            return {module} if self.path(module) else set()
        sub = f"{module}.{name}"
        if self.path(sub):
            return {sub}
        if self.is_package(module):
            origin = self._reexports(module).get(name)
            if origin is not None:
                return self._targets(*origin)
        return {module} if self.path(module) else set()

    # ------------------------------------------------------------------ closures
    @cache
    def module_deps(self, module: str) -> frozenset[str]:
        """Modules whose code ``module`` runs: itself and its imports, transitively."""
        seen, todo = set(), [module]
        while todo:
            m = todo.pop()
            if m in seen or self.path(m) is None:
                continue
            seen.add(m)
            for mod, name in self._imports(self.path(m), m):
                todo.extend(self._targets(mod, name) - seen)
        return frozenset(seen)

    def file_deps(self, path: str | Path) -> set[str]:
        """Modules a file outside the package (a workflow script) runs through its imports."""
        out = set()
        for mod, name in self._imports(self.root / path):
            for target in self._targets(mod, name):
                out |= self.module_deps(target)
        return out

    def figure_entry(self, module: str, figure: str, registry: str) -> tuple[set[str], set[str]]:
        """(modules with their imports, package files without) of one figure of a paper's
        experiment (registry ``FIGURES``) or plot (``PLOTS``) module."""
        if not self.is_package(module):
            return {module}, set()
        owners = []
        for sub in sorted(p.stem for p in self.path(module).parent.glob("*.py") if p.stem != "__init__"):
            if figure in self._registry_keys(f"{module}.{sub}", registry):
                owners.append(f"{module}.{sub}")
        if not owners:
            return {module}, set()
        return set(owners), {module}

    def _registry_keys(self, module: str, registry: str) -> set[str]:
        keys = set()
        for names, dict_keys in self._read(self.path(module))["dicts"]:
            if registry in names:
                keys |= set(dict_keys)
        return keys

    def files(self, modules: set[str] = frozenset(), *, scripts=(), bare: set[str] = frozenset()) -> list[str]:
        """Sorted repository-relative files: ``modules`` with their imports, the imports of
        ``scripts`` (workflow scripts), and ``bare`` modules (their file only)."""
        mods = set()
        for m in modules:
            mods |= self.module_deps(m)
        for s in scripts:
            mods |= self.file_deps(s)
        paths = {self.path(m) for m in mods | set(bare)}
        self.save_cache()
        return sorted(self.relative(p) for p in paths if p is not None)


def _parse(tree: ast.Module) -> dict:
    """What the graph reads of a module (JSON-able, for the cache): ``imports``, every import
    statement at any depth in ``ast.walk`` order (``["import", None, 0, names]`` or ``["from",
    module, level, names]``); ``reexports``, the module-level ``from X import ...`` lines (``[X,
    [[name, asname], ...]]``, X as written); ``dicts``, the module-level assignments of a dict
    literal (``[[target names], [string keys]]``: a registry maps figure names)."""
    imports = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports.append(["import", None, 0, [a.name for a in node.names]])
        elif isinstance(node, ast.ImportFrom):
            imports.append(["from", node.module, node.level, [a.name for a in node.names]])
    reexports, dicts = [], []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            reexports.append([node.module, [[a.name, a.asname] for a in node.names]])
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            dicts.append([
                [t.id for t in node.targets if isinstance(t, ast.Name)],
                [k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)],
            ])
    return {"imports": imports, "reexports": reexports, "dicts": dicts}
