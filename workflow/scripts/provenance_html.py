"""Render the Adult data provenance (results/data/adult_provenance.json) as an HTML table."""

import contextlib

from leakage.report import write_provenance_html

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    write_provenance_html(snakemake.input.provenance, snakemake.output.html)
