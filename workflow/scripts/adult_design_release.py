"""adult-design stage 3, release: one attribute's column privatized by the pml mechanism at
release.eps, row-aligned with results/data/adult.csv (thin)."""

import contextlib

from leakage.experiments.adult_design.stages import release_attribute
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    released = release_attribute(
        read_table(snakemake.input.table),
        read_table(snakemake.input.mechanisms),
        snakemake.wildcards.attribute,
        snakemake.params.settings,
        seed=snakemake.params.seed,
    )
    save_table(released, snakemake.output.release)
