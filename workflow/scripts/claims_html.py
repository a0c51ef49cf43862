"""Render a paper's claims (results/<paper>/claims.csv) as an HTML table for the report."""

import contextlib

from leakage.report import write_claims_html

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    failing = write_claims_html(snakemake.input.claims, snakemake.output.html, snakemake.wildcards.paper)
    print(f"{snakemake.wildcards.paper}: {failing} claim(s) do not hold", file=log)
