"""adult-design stage 0, dataset: the categorical columns of results/data/adult.csv and each
record's part (design: adult.data, release: adult.test, from the provenance's parts) -> dataset.csv (thin)."""

import contextlib
import json

from leakage.experiments.adult_design.stages import adult_study_table
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    with open(snakemake.input.provenance, encoding="utf-8") as fh:
        provenance = json.load(fh)
    save_table(adult_study_table(read_table(snakemake.input.table), provenance), snakemake.output.dataset)
