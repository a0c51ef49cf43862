"""Draw one figure from its table: results/<paper>/<figure>.pdf and .png."""

import contextlib

from leakage.plots import plot_figure
from leakage.plots.style import save_figure
from leakage.tables import read_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    table = read_table(snakemake.input.table)
    fig = plot_figure(
        snakemake.params.kind, snakemake.wildcards.figure, table, snakemake.params.settings
    )
    save_figure(fig, snakemake.output.pdf)
