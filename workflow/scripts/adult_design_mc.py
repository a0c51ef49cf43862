"""adult-design Monte Carlo of fig1/fig4 for one attribute: per m and iteration, estimate from a
random subset, design, release, empirical MI (67) -> mc/<attribute>.csv (thin)."""

import contextlib
import logging

from leakage.data.adult import read_adult, save_csv
from leakage.experiments.adult_design.stages import monte_carlo
from leakage.rng import stream

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    logging.basicConfig(stream=log, level=logging.INFO, format="%(message)s")  # each design's time
    attribute = snakemake.wildcards.attribute
    rng = stream(snakemake.params.seed, "adult-design", "mc", attribute)
    save_csv(monte_carlo(read_adult(snakemake.input.table), attribute, snakemake.params.settings, rng), snakemake.output.mc)
