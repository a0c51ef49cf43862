"""Acquire and verify UCI Adult: results/data/adult.csv and its provenance (thin: see leakage.data.adult)."""

import logging

from leakage.data.adult import build_adult

logging.basicConfig(filename=snakemake.log[0], filemode="w", level=logging.INFO, format="%(message)s")
build_adult(snakemake.params.settings, snakemake.output.table, snakemake.output.provenance)
