"""adult-design stage 2, design: one attribute's mechanisms and fig2 curve from the design part's P̂ (thin)."""

import contextlib
import logging

from leakage.experiments.adult_design.stages import design_attribute
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    logging.basicConfig(stream=log, level=logging.INFO, format="%(message)s")  # each design's time
    priors = read_table(snakemake.input.priors)
    mechanisms, curve = design_attribute(priors, snakemake.wildcards.attribute, snakemake.params.settings)
    save_table(mechanisms, snakemake.output.mechanisms)
    save_table(curve, snakemake.output.curve)
