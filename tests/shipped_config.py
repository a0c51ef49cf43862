"""The shipped configuration, for tests that need the defaults.

config.yaml is the one home of every default (the schemas and the library hold none), so a test
that needs a default reads it here, and a test configuration is config.yaml with some keys
overridden, merged the way Snakemake merges a ``--configfile`` over config.yaml.
"""

from __future__ import annotations

import copy

import yaml
from snakemake.utils import update_config

from conftest import ROOT


def shipped_config() -> dict:
    """config.yaml of the repository, parsed (a fresh copy on every call)."""
    return yaml.safe_load((ROOT / "config.yaml").read_text())


def merged(base: dict, overrides: dict) -> dict:
    """``base`` with ``overrides`` merged in recursively (mappings merge, anything else replaces)."""
    out = copy.deepcopy(base)
    update_config(out, copy.deepcopy(overrides))
    return out


def shipped(section: str, overrides: dict | None = None) -> dict:
    """One section of config.yaml, with ``overrides`` merged in."""
    return merged(shipped_config()[section], overrides or {})
