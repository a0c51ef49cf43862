"""adult-design, estimate: the histogram an analyst estimates from release/<attribute>.csv and the
released mechanism -> estimates/<attribute>.csv (thin)."""

import contextlib

from leakage.experiments.adult_design.frequency import estimate_release
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    attribute = snakemake.wildcards.attribute
    est = estimate_release(read_table(snakemake.input.release), read_table(snakemake.input.mechanisms),
                           read_table(snakemake.input.priors), attribute, snakemake.params.settings)
    save_table(est, snakemake.output.estimates)
