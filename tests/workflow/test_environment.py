"""The jobs' BLAS kernels (workflow/lib/environment.py): the Snakefile pins OpenBLAS's kernels to
config blas_coretype, only on a CPU that has the kernel's instructions."""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT
from shipped_config import shipped_config

sys.path.insert(0, str(ROOT / "workflow" / "lib"))
from environment import KERNEL_FLAGS, blas_environment, cpu_flags  # noqa: E402

HASWELL = {"fpu", "sse2", "avx", "avx2", "fma", "bmi2"}


@pytest.mark.parametrize("machine", ["x86_64", "AMD64"])
def test_the_pin_is_set_on_x86_64_with_the_kernels_instructions(machine):
    assert blas_environment("Haswell", machine, HASWELL) == {"OPENBLAS_CORETYPE": "Haswell"}


@pytest.mark.parametrize("machine, flags", [
    ("x86_64", HASWELL - {"fma"}),  # a CPU without FMA would stop on the kernel's first instruction
    ("x86_64", HASWELL - {"avx2"}),
    ("x86_64", set()),              # no /proc/cpuinfo: nothing known, nothing pinned
    ("aarch64", HASWELL),           # another architecture: its own kernels
    ("arm64", set()),
])  # fmt: skip
def test_no_pin_where_the_cpu_lacks_the_kernel(machine, flags):
    assert blas_environment("Haswell", machine, flags) == {}


def test_null_leaves_the_choice_to_openblas():
    assert blas_environment(None, "x86_64", HASWELL) == {}


def test_an_unknown_kernel_is_refused_naming_the_key():
    with pytest.raises(ValueError, match=r"blas_coretype must be one of \['Haswell'\] or null, got 'Skylake'"):
        blas_environment("Skylake", "x86_64", HASWELL | {"avx512f"})


def test_cpu_flags_are_read_from_cpuinfo(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 avx2 fma\nbugs\t\t: none\n"
                    "processor\t: 1\nflags\t\t: fpu sse2 avx2 fma\n")
    assert cpu_flags(info) == {"fpu", "sse2", "avx2", "fma"}
    assert cpu_flags(tmp_path / "missing") == set()


def test_the_shipped_config_pins_a_known_kernel():
    """config.yaml's default is one the function knows (the schema's enum is the same list)."""
    import yaml

    assert shipped_config()["blas_coretype"] in KERNEL_FLAGS
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert set(schema["properties"]["blas_coretype"]["enum"]) == {*KERNEL_FLAGS, None}
