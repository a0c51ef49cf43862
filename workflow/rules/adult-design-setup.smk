# Setup of the adult-design study, kept apart from its rules (workflow/rules/adult-design.smk) as
# Snakemake's linter asks. Its config checks are in workflow/lib/config_checks.py (run by the
# Snakefile before any job); its attributes are leakage.data.adult.CATEGORICAL_ATTRIBUTES.

import re as _re

from leakage.data.adult import CATEGORICAL_ATTRIBUTES as _AD_CATEGORICAL

_AD = config["adult-design"]


def _ad(*keys):
    """The keys of the adult-design section that a job of the study uses: a change elsewhere in
    the section does not rerun those jobs."""
    return {key: _AD[key] for key in keys}
