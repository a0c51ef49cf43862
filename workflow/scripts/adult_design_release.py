"""adult-design stage 3, release: one attribute's column of the released records (the release part
under the protocol split) privatized by the pml mechanism at release.eps, row-aligned with those
records of dataset.csv (thin)."""

import contextlib

from leakage.data.categorical import study_parts
from leakage.experiments.adult_design.stages import check_settings, release_attribute
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    settings = check_settings(snakemake.params.settings, ("eps", "release", "protocol"))
    _, records = study_parts(read_table(snakemake.input.dataset), settings["protocol"])
    released = release_attribute(
        records,
        read_table(snakemake.input.mechanisms),
        snakemake.wildcards.attribute,
        settings,
        priors=read_table(snakemake.input.priors),
        seed=snakemake.params.seed,
    )
    save_table(released, snakemake.output.release)
