"""Draw one figure from its table: results/<paper>/<figure>.pdf and .png."""

import contextlib

import pandas as pd

from leakage.plots import plot_figure
from leakage.plots.style import save_figure

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    table = pd.read_csv(snakemake.input.table, keep_default_na=False, na_values=[""])
    fig = plot_figure(
        snakemake.wildcards.paper, snakemake.wildcards.figure, table, snakemake.params.settings
    )
    save_figure(fig, snakemake.output.pdf)
