# Privacy-mechanism design with PML, LDP/pLDP and MI leakage: every figure of five papers.
# The mathematics lives in the installed package `leakage` (src/leakage); rules only wire
# inputs to library calls. Run: snakemake --cores all
import os
import sys
from pathlib import Path

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config.yaml"


sys.path.insert(0, str(Path(workflow.basedir) / "workflow" / "lib"))
from config_checks import DESIGN_STUDY, check_config, complete_studies  # noqa: E402
from environment import blas_environment  # noqa: E402

# A study <name>-design (the adult-design study on another data set) gives only the keys that
# differ: its section is completed from adult-design's (config.yaml) before validation.
complete_studies(config)
# config.yaml holds every default; the schemas check types and ranges and require every key
# (validated section by section too: a section's errors then name its own schema).
validate(config, "workflow/schemas/config.schema.yaml")
for section in [key for key, value in config.items() if isinstance(value, dict)]:
    schema = DESIGN_STUDY if section.endswith("-design") else section
    validate(config[section], f"workflow/schemas/{schema}.schema.yaml")
# Constraints between keys (m_min < m_max, beta_max <= 2 p_min, sums to one, adult-design's
# release.eps among its eps, ...), checked before any job starts; the error names the keys.
check_config(config)
# Every job computes with the same BLAS kernels (config blas_coretype), so a machine whose OpenBLAS
# would pick others still gives the same bytes (workflow/lib/environment.py); jobs inherit this
# process's environment.
os.environ.update(blas_environment(config["blas_coretype"]))


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/empirical-pml.smk"
include: "workflow/rules/worst-case-pml.smk"
include: "workflow/rules/robust-dp-hamming.smk"
include: "workflow/rules/statistical-inference.smk"
include: "workflow/rules/mi-dp.smk"
include: "workflow/rules/adult-design-setup.smk"
include: "workflow/rules/adult-design.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        all_targets(),
    default_target: True
