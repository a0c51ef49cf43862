"""adult-design Monte Carlo of fig1/fig4 for one attribute: per m and iteration, estimate from a
random subset, design, release, empirical MI (67) -> mc/<attribute>.csv (thin)."""

import contextlib
import logging

from leakage.experiments.adult_design.stages import monte_carlo
from leakage.rng import stream
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    logging.basicConfig(stream=log, level=logging.INFO, format="%(message)s")  # each design's time
    attribute = snakemake.wildcards.attribute
    rng = stream(snakemake.params.seed, "adult-design", "mc", attribute)
    save_table(monte_carlo(read_table(snakemake.input.table), attribute, snakemake.params.settings, rng), snakemake.output.mc)
