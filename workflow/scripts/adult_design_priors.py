"""adult-design stage 1, estimate: P̂ of every attribute over all records -> priors.csv (thin)."""

import contextlib

from leakage.experiments.adult_design.stages import check_settings, estimate_priors
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    settings = check_settings(snakemake.params.settings, ("attributes",))
    save_table(estimate_priors(read_table(snakemake.input.table), settings["attributes"]), snakemake.output.priors)
