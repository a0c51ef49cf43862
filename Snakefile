# Privacy-mechanism design with PML, LDP/pLDP and MI leakage: every figure of five papers.
# The mathematics lives in the installed package `leakage` (src/leakage); rules only wire
# inputs to library calls. Run: snakemake --cores all
import sys
from pathlib import Path

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config.yaml"


# config.yaml holds every default; the schemas check types and ranges and require every key
# (validated section by section too: a section's errors then name its own schema).
validate(config, "workflow/schemas/config.schema.yaml")
for section in [key for key, value in config.items() if isinstance(value, dict)]:
    validate(config[section], f"workflow/schemas/{section}.schema.yaml")
# Constraints between keys (m_min < m_max, beta_max <= 2 p_min, sums to one, adult-design's
# release.eps among its eps, ...), checked before any job starts; the error names the keys.
sys.path.insert(0, str(Path(workflow.basedir) / "workflow" / "lib"))
from config_checks import check_config  # noqa: E402

check_config(config)


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
