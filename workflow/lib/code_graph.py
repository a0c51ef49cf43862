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
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path


class CodeGraph:
    """Import graph of the package under ``src`` (default name ``leakage``)."""

    def __init__(self, root: str | Path, package: str = "leakage", src: str = "src"):
        self.root = Path(root)
        self.package = package
        self.src = self.root / src
        # what this graph has read, kept for its own lifetime (one DAG build): a file is parsed and
        # its imports listed once, however many closures pass through it
        self._trees: dict[Path, ast.Module] = {}
        self._import_lists: dict[tuple[Path, str | None], list[tuple[str, str | None]]] = {}
        self._paths: dict[str, Path | None] = {}

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
        return self.src.joinpath(*module.split("."), "__init__.py").is_file()

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def modules(self) -> list[str]:
        """Every module of the package, dotted."""
        out = []
        for p in sorted((self.src / self.package).rglob("*.py")):
            parts = p.relative_to(self.src).with_suffix("").parts
            out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        return out

    def _tree(self, path: Path) -> ast.Module:
        if path not in self._trees:
            self._trees[path] = ast.parse(path.read_text(), filename=str(path))
        return self._trees[path]

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
        for node in ast.walk(self._tree(path)):
            if isinstance(node, ast.Import):
                out += [(a.name, None) for a in node.names if self._ours(a.name)]
            elif isinstance(node, ast.ImportFrom):
                module = node.module
                if node.level:  # relative import
                    base = (current or "").split(".")
                    if not (path.name == "__init__.py"):
                        base = base[:-1]
                    base = base[: len(base) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                if self._ours(module):
                    out += [(module, a.name) for a in node.names]
        return out

    def _reexports(self, module: str) -> dict[str, str]:
        """name -> module it comes from, for the ``from X import name`` lines of a package
        ``__init__`` (module level only)."""
        out = {}
        path = self.path(module)
        for node in self._tree(path).body:
            if isinstance(node, ast.ImportFrom) and self._ours(node.module):
                for a in node.names:
                    out[a.asname or a.name] = (node.module, a.name)
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
        for node in self._tree(self.path(module)).body:
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == registry for t in node.targets)
                and isinstance(node.value, ast.Dict)
            ):
                keys |= {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
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
        return sorted(self.relative(p) for p in paths if p is not None)
