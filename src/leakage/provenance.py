"""Provenance of results: the versions of the software that made them.

Kept free of other leakage imports, so that the data step that records it depends on nothing else.
"""

from __future__ import annotations

#: The packages whose versions can change the numbers or the drawings (recorded in provenance).
RESULT_PACKAGES = (
    "numpy", "scipy", "highspy", "cvxpy", "clarabel", "scs", "pandas", "matplotlib", "snakemake",
)


def software_versions(packages=RESULT_PACKAGES) -> dict[str, str]:
    """{"python": "3.11.7", "numpy": "2.4.6", ...}: the versions of the running interpreter and of
    the installed packages that made the results ("not installed" for a missing one); the pinned
    set is requirements/lock.txt."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in packages:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out
