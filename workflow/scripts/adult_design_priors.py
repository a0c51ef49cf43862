"""adult-design stage 1, estimate: P̂ of every attribute over the design part -> priors.csv, and the
histogram of the released records -> release_histogram.csv (thin)."""

import contextlib

from leakage.data.categorical import study_parts
from leakage.experiments.adult_design.stages import check_settings, estimate_priors, release_histogram
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    settings = check_settings(snakemake.params.settings, ("attributes", "protocol"))
    design, release = study_parts(read_table(snakemake.input.dataset), settings["protocol"])
    priors = estimate_priors(design, settings["attributes"])
    save_table(priors, snakemake.output.priors)
    save_table(release_histogram(priors, release), snakemake.output.release)
