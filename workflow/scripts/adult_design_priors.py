"""adult-design stage 1, estimate: P̂ of every attribute over all records -> priors.csv (thin)."""

import contextlib

from leakage.data.adult import read_adult, save_csv
from leakage.experiments.adult_design.stages import check_settings, estimate_priors

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    settings = check_settings(snakemake.params.settings)
    save_csv(estimate_priors(read_adult(snakemake.input.table), settings["attributes"]), snakemake.output.priors)
