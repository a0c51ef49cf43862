"""The environment of the pipeline's jobs: which BLAS kernels compute their numbers.

OpenBLAS built for many CPUs (the one in NumPy's and SciPy's wheels) picks its kernels when it
loads, by the CPU it finds, and two kernels can differ in the last bits of a result. The design
engine's column generation can turn such a difference into another design: the same value to
round-off, other columns, so other released records and other Monte Carlo numbers. Two machines
with the same locked environment gave different bytes that way (docs/pipeline.md,
*Same bytes on another machine*). Pinning the kernels in every job removes that difference.
"""

from __future__ import annotations

import platform
from pathlib import Path

#: CPU flags each pinnable kernel needs (a kernel the CPU lacks would stop the job with an illegal
#: instruction, so the pin is set only where the CPU has them)
KERNEL_FLAGS = {"Haswell": {"avx2", "fma"}}


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    """The CPU's feature flags from /proc/cpuinfo (empty where there is none, as off Linux)."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return set()
    return next((set(line.split(":", 1)[1].split()) for line in text.splitlines() if line.startswith("flags")), set())


def blas_environment(coretype: str | None, machine: str | None = None, flags: set[str] | None = None) -> dict[str, str]:
    """The variables that pin OpenBLAS's kernels to ``coretype`` (config key ``blas_coretype``) in
    the jobs: ``{"OPENBLAS_CORETYPE": coretype}`` on an x86-64 CPU with the kernel's flags
    (:data:`KERNEL_FLAGS`), else nothing (``coretype`` None, another architecture, an older CPU:
    OpenBLAS then chooses, and the bytes can differ from a pinned machine's)."""
    if coretype is None:
        return {}
    if coretype not in KERNEL_FLAGS:
        raise ValueError(f"blas_coretype must be one of {sorted(KERNEL_FLAGS)} or null, got {coretype!r}")
    machine = platform.machine() if machine is None else machine
    flags = cpu_flags() if flags is None else flags
    if machine.lower() not in ("x86_64", "amd64") or not KERNEL_FLAGS[coretype] <= flags:
        return {}
    return {"OPENBLAS_CORETYPE": coretype}
