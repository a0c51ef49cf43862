"""adult-design stage 3, release: one attribute's column privatized by the pml mechanism at
release.eps, row-aligned with results/data/adult.csv (thin)."""

import contextlib

import pandas as pd

from leakage.data.adult import read_adult, save_csv
from leakage.experiments.adult_design.stages import release_attribute

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    released = release_attribute(
        read_adult(snakemake.input.table),
        pd.read_csv(snakemake.input.mechanisms, keep_default_na=False, na_values=[""]),
        snakemake.wildcards.attribute,
        snakemake.params.settings,
        seed=snakemake.params.seed,
    )
    save_csv(released, snakemake.output.release)
