"""Shared check of the generated documentation pages (tools/benchmark_pages.py, tools/findings_pages.py)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def assert_pages_current(render, tool: str) -> None:
    """The committed pages are what ``render()`` gives from the committed files, and ``tool --check`` agrees."""
    for path, text in render().items():
        assert path.read_text() == text, f"{path.relative_to(ROOT)} is stale: run python {tool}"
    check = subprocess.run([sys.executable, str(ROOT / tool), "--check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
