"""adult-design stage 0, dataset: the study's categorical columns (dataset.columns) and each record's
part (dataset.split) -> results/<study>/dataset.csv (thin). Source adult: results/data/adult.csv,
split by the provenance's parts (adult.data | adult.test); ucimlrepo, csv, url: read here."""

import contextlib
import json

from leakage.data.adult import fetch_ucirepo, fetch_url
from leakage.data.categorical import read_source_table
from leakage.experiments.adult_design.stages import build_dataset, check_settings
from leakage.rng import stream
from leakage.tables import read_table, save_table

with open(snakemake.log[0], "w") as log, contextlib.redirect_stderr(log):
    settings = check_settings(snakemake.params.settings, ("dataset",))
    provenance = None
    if settings["dataset"]["source"] == "adult":
        table = read_table(snakemake.input.table)
        with open(snakemake.input.provenance, encoding="utf-8") as fh:
            provenance = json.load(fh)
    else:
        table = read_source_table(settings["dataset"], fetch_url=fetch_url, fetch_ucirepo=fetch_ucirepo)
    rng = stream(snakemake.params.seed, snakemake.wildcards.study, "split")  # the random split's draws
    save_table(build_dataset(settings, table, provenance=provenance, rng=rng), snakemake.output.dataset)
