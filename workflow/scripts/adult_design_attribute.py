"""adult-design stage 2, design: one attribute's mechanisms and fig2 curve from the full-data P̂ (thin)."""

import contextlib
import logging

import pandas as pd

from leakage.data.adult import save_csv
from leakage.experiments.adult_design.stages import design_attribute

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    logging.basicConfig(stream=log, level=logging.INFO, format="%(message)s")  # each design's time
    priors = pd.read_csv(snakemake.input.priors, keep_default_na=False, na_values=[""])
    mechanisms, curve = design_attribute(priors, snakemake.wildcards.attribute, snakemake.params.settings)
    save_csv(mechanisms, snakemake.output.mechanisms)
    save_csv(curve, snakemake.output.curve)
