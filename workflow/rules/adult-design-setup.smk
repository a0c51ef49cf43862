# Setup of the adult-design study (functions and its cross-key config check), kept apart from
# its rules (workflow/rules/adult-design.smk) as Snakemake's linter asks.

import csv as _csv
from snakemake.exceptions import WorkflowError
import re as _re

_AD = config["adult-design"]
_AD_CATEGORICAL = [
    "workclass", "education", "marital-status", "occupation", "relationship", "race", "sex",
    "native-country", "income",
]  # fmt: skip (leakage.data.adult.CATEGORICAL_ATTRIBUTES; the schema's enum)


def _adult_design_check(section):
    """Checks across keys, before any job: a WorkflowError naming the key."""

    def fail(key, message):
        raise WorkflowError(f"adult-design.{key}: {message}")

    if section["release"]["eps"] not in section["eps"]:
        fail("release.eps", f"{section['release']['eps']} must be one of adult-design.eps {section['eps']}")
    if "pml" not in section["methods"]:
        fail("methods", "must include pml (the released mechanism)")
    h = section["heatmap"]
    if h["attribute"] not in section["attributes"]:
        fail("heatmap.attribute", f"{h['attribute']!r} must be one of adult-design.attributes {section['attributes']}")
    if h["eps"] not in section["eps"]:
        fail("heatmap.eps", f"{h['eps']} must be one of adult-design.eps {section['eps']}")
    if not set(h["methods"]) <= set(section["methods"]):
        fail("heatmap.methods", f"{h['methods']} must be among adult-design.methods {section['methods']}")
    # a column with a single category: checked here when the data table exists (else by the
    # estimate job, the study's first, with the same message)
    table = Path("results/data/adult.csv")
    wanted = sorted(set(section["attributes"]) | set(section["mc_attributes"]))
    if table.is_file():
        with open(table, newline="") as fh:
            seen = {a: set() for a in wanted}
            records = 0
            for row in _csv.DictReader(fh):
                records += 1
                for a in wanted:
                    if len(seen[a]) < 2:
                        seen[a].add(row.get(a) or "?")
        # an empty table (a run that has not written it yet) is checked by the estimate job
        single = [a for a in wanted if len(seen[a]) < 2] if records else []
        if single:
            key = "attributes" if set(single) & set(section["attributes"]) else "mc_attributes"
            fail(key, f"attributes {single} have a single category in results/data/adult.csv: nothing to privatize")


def _ad(*keys):
    """The keys of the adult-design section a rule uses (the library fills the others with their
    defaults): a change elsewhere in the section does not rerun the rule's jobs."""
    return {key: _AD[key] for key in keys}


if "adult-design" in config.get("studies", []):
    _adult_design_check(_AD)
