"""adult-design, frequency comparison of one attribute: MSE and coverage over repeated releases of
all records, every method -> frequency/<attribute>.csv (thin)."""

import contextlib

import pandas as pd

from leakage.experiments.adult_design.frequency import frequency_comparison
from leakage.rng import stream
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    attribute = snakemake.wildcards.attribute
    mechanisms = pd.concat([read_table(snakemake.input.mechanisms), read_table(snakemake.input.mse)], ignore_index=True)
    rng = stream(snakemake.params.seed, snakemake.wildcards.study, "frequency", attribute)
    table = frequency_comparison(read_table(snakemake.input.priors), mechanisms, attribute, snakemake.params.settings, rng)
    save_table(table, snakemake.output.frequency)
