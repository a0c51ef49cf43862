"""adult-design Monte Carlo of fig1/fig4 for one attribute: per m and iteration, estimate from a
random subset of the design part, design, release (protocol split: an independent draw of the
release part; same-records: the subset), empirical MI (67) -> mc/<attribute>.csv (thin)."""

import contextlib
import logging

from leakage.data.categorical import study_parts
from leakage.experiments.adult_design.stages import check_settings, monte_carlo
from leakage.rng import stream
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    logging.basicConfig(stream=log, level=logging.INFO, format="%(message)s")  # each design's time
    attribute = snakemake.wildcards.attribute
    settings = check_settings(snakemake.params.settings, ("delta", "methods", "mc", "protocol"))
    design, release = study_parts(read_table(snakemake.input.dataset), settings["protocol"])
    rng = stream(snakemake.params.seed, snakemake.wildcards.study, "mc", attribute)
    mc = monte_carlo(design, attribute, settings, rng, release if settings["protocol"] == "split" else None)
    save_table(mc, snakemake.output.mc)
