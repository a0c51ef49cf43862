"""Compute one figure's numbers: results/<paper>/<figure>.csv (thin: the maths is in leakage)."""

import contextlib

from leakage.experiments import compute_table
from leakage.tables import save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    table = compute_table(
        snakemake.wildcards.paper,
        snakemake.wildcards.figure,
        settings=snakemake.params.settings,
        seed=snakemake.params.seed,
        inputs={k: v for k, v in snakemake.input.items() if k != "code"},
    )
    save_table(table, snakemake.output.table)
