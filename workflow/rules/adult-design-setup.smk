# Setup of the adult-design study, kept apart from its rules (workflow/rules/adult-design.smk) as
# Snakemake's linter asks. Its config checks are in workflow/lib/config_checks.py (run by the
# Snakefile before any job). The study runs on every study of DESIGN_STUDIES: adult-design (Adult)
# and each <name>-design of config `studies` (another data set, docs/studies/your-data.md), each
# with its own section and results/<study>/ folder.

import re as _re

DESIGN_STUDIES = [s for s in STUDIES if study_kind(s) == "adult-design"]


def _ad(*keys):
    """The keys of a study's section that a job of the study uses: a change elsewhere in the
    section does not rerun those jobs."""
    return lambda wildcards: {key: config[wildcards.study][key] for key in keys}


def _attributes(study):
    return config[study]["attributes"]


def _dataset_inputs(wildcards):
    """The study table's inputs: Adult's verified table and its provenance (the parts), a local
    CSV file, or nothing (ucimlrepo and url are fetched by the job)."""
    dataset = config[wildcards.study]["dataset"]
    inputs = {"code": script_code("adult_design_dataset.py")}
    if dataset["source"] == "adult":
        inputs.update(table="results/data/adult.csv", provenance="results/data/adult_provenance.json")
    elif dataset["source"] == "csv":
        inputs["source"] = dataset["path"]
    return inputs
