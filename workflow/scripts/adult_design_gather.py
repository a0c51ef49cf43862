"""adult-design, gather: per-attribute tables into one (mechanisms.csv, frequency.csv) (thin)."""

import contextlib

import pandas as pd

from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    parts = [read_table(path) for path in snakemake.input.parts]
    save_table(pd.concat(parts, ignore_index=True), snakemake.output[0])
