"""P̂ of the binary Adult features over all records: results/empirical-pml/adult_estimates.csv (thin)."""

import contextlib

from leakage.data.adult import binary_feature_estimates
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    save_table(binary_feature_estimates(read_table(snakemake.input.table)), snakemake.output.estimates)
