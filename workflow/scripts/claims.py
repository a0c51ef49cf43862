"""Check a paper's claims on its figures' numbers: results/<paper>/claims.csv."""

import contextlib

from leakage.claims import write_claims
from leakage.experiments import check_claims
from leakage.tables import read_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    tables = {
        figure: read_table(path)
        for figure, path in zip(snakemake.params.figures, snakemake.input.tables)
    }
    claims = check_claims(
        snakemake.wildcards.paper,
        tables,
        snakemake.params.settings,
        seed=snakemake.params.seed,
        inputs={k: v for k, v in snakemake.input.items() if k not in ("tables", "code")},
    )
    write_claims(claims, snakemake.output.claims)
