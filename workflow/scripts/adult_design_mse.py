"""adult-design stage 2, estimation-optimal designs: one attribute's pml_mse and ldp_mse at the
config's eps, seeded with its MI designs -> design/<attribute>_mse.csv (thin)."""

import contextlib

from leakage.experiments.adult_design.frequency import mse_designs
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    rows = mse_designs(read_table(snakemake.input.priors), read_table(snakemake.input.mechanisms),
                       snakemake.wildcards.attribute, snakemake.params.settings)
    save_table(rows, snakemake.output.mechanisms)
