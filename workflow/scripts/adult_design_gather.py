"""adult-design stage 2, gather: the per-attribute mechanisms into mechanisms.csv (thin)."""

import contextlib

import pandas as pd

from leakage.data.adult import save_csv

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    parts = [pd.read_csv(path, keep_default_na=False, na_values=[""]) for path in snakemake.input.parts]
    save_csv(pd.concat(parts, ignore_index=True), snakemake.output.mechanisms)
