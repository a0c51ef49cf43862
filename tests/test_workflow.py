"""The real Snakemake CLI on a tiny config: the data rules end to end, config refusal, up-to-date.

Runs ``python -m snakemake -s <repo>/Snakefile --directory <tmp>`` where <tmp> holds the test
config.yaml (papers: [mi-dp] but only the data targets asked for, Adult from the shipped sample through the local source) and a link to the
library sources that the rules list as inputs. Expected numbers are counted here from the raw
sample with plain string operations, not taken from the code under test.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from shipped_config import merged, shipped_config

pytestmark = pytest.mark.workflow

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "adult_sample"
TARGETS = ["results/data/adult.csv", "results/empirical-pml/adult_estimates.csv"]

# config.yaml (every default) with the test's keys merged in, as Snakemake merges a --configfile
CONFIG = merged(shipped_config(), {
    "seed": 1,
    "papers": ["mi-dp"],
    "adult": {
        "path": str(SAMPLE),
        "sources": ["local"],
        "digests": {
            "adult.data": {"bytes": 36538, "md5": "07e2c51d9754ea4ecda7bfc583762f84",
                           "sha256": "371bf486c180b9d860ec38ea172c25de6c68722a346d9adc0292ca81d3c7f473"},
            "adult.test": {"bytes": 24672, "md5": "7345993cf029d6bc796cb6442c0c8fb0",
                           "sha256": "5c35f5b552a473feea55d5a62ec85633179dcddf1fe46171d49c484c1464a6dc"},
        },
        "expected": {"rows": 500, "income_over_50k": 119, "female": 166},
    },
})  # fmt: skip


def make_workdir(path: Path, config: dict) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (path / "src").symlink_to(ROOT / "src", target_is_directory=True)
    return path


def snakemake(workdir: Path, *args: str, background: bool = False):
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(workdir),
           "--cores", "2", *args]  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    return proc if background else finish(proc)


def finish(proc: subprocess.Popen) -> subprocess.CompletedProcess:
    out, _ = proc.communicate(timeout=300)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, "")


def jobs_run(output: str) -> list[str]:
    """The rules of the jobs a run executed, from Snakemake's 'rule NAME:' job headers."""
    return re.findall(r"^(?:local)?rule (\w+):$", output, flags=re.M)


def sample_records():
    """Records of the raw sample, split with plain string operations."""
    records = []
    for name in ("adult.data", "adult.test"):
        for line in (SAMPLE / name).read_text().splitlines():
            if line.strip() and not line.startswith("|"):
                records.append([f.strip() for f in line.split(",")])
    return records


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("workflow")
    # The refused-config run starts now and is collected later: the two runs overlap.
    bad = snakemake(make_workdir(base / "bad", {**CONFIG, "seed": -1}), "-n", *TARGETS, background=True)
    workdir = make_workdir(base / "run", CONFIG)
    run = snakemake(workdir, *TARGETS)
    return workdir, run, bad


def test_data_rules_write_verified_table_estimates_and_provenance(first_run):
    workdir, run, _ = first_run
    assert run.returncode == 0, run.stdout
    assert sorted(jobs_run(run.stdout)) == ["data", "estimate_features"]

    records = sample_records()
    with open(workdir / "results/data/adult.csv", newline="") as f:
        table = list(csv.reader(f))
    assert table[0][0] == "age" and table[0][-1] == "income" and len(table[0]) == 15
    assert len(table) - 1 == len(records) == 500
    assert [row[-1] for row in table[1:]] == [r[-1].rstrip(".") for r in records]
    assert [row[9] for row in table[1:]] == [r[9] for r in records]

    with open(workdir / "results/empirical-pml/adult_estimates.csv", newline="") as f:
        est = list(csv.DictReader(f))
    assert list(est[0]) == ["feature", "value_minus", "value_plus", "p_hat_minus", "p_hat_plus", "n"]
    by = {row["feature"]: row for row in est}
    assert set(by) == {"income", "sex"}
    over = sum(r[-1].rstrip(".") == ">50K" for r in records)
    female = sum(r[9] == "Female" for r in records)
    assert (over, female) == (119, 166)  # as counted with grep, see tests/data/adult_sample/README.md
    assert (by["income"]["value_minus"], by["income"]["value_plus"]) == (">50K", "<=50K")
    assert float(by["income"]["p_hat_minus"]) == pytest.approx(over / 500)
    assert float(by["income"]["p_hat_plus"]) == pytest.approx(1 - over / 500)
    assert (by["sex"]["value_minus"], by["sex"]["value_plus"]) == ("Female", "Male")
    assert float(by["sex"]["p_hat_minus"]) == pytest.approx(female / 500)
    assert by["sex"]["n"] == by["income"]["n"] == "500"

    prov = json.loads((workdir / "results/data/adult_provenance.json").read_text())
    assert prov["source"] == "local"
    assert prov["tried"] == [{"source": "local", "outcome": "ok", "location": str(SAMPLE)}]
    assert prov["files"] == CONFIG["adult"]["digests"]
    assert "source local: ok" in (workdir / "logs/data/adult.log").read_text()


def test_up_to_date_then_only_the_deleted_output_is_rebuilt(first_run):
    workdir, run, _ = first_run
    assert run.returncode == 0, run.stdout
    table = workdir / "results/data/adult.csv"
    before = (table.stat().st_mtime_ns, table.read_bytes())

    again = snakemake(workdir, *TARGETS)
    assert again.returncode == 0, again.stdout
    assert "Nothing to be done" in again.stdout and jobs_run(again.stdout) == []

    estimates = workdir / "results/empirical-pml/adult_estimates.csv"
    old = estimates.read_bytes()
    estimates.unlink()
    rebuilt = snakemake(workdir, *TARGETS)
    assert rebuilt.returncode == 0, rebuilt.stdout
    assert jobs_run(rebuilt.stdout) == ["estimate_features"]
    assert estimates.read_bytes() == old  # same inputs, same bytes
    assert (table.stat().st_mtime_ns, table.read_bytes()) == before


def test_invalid_config_is_refused_naming_the_key(first_run):
    bad = finish(first_run[2])
    assert bad.returncode != 0
    assert "Error validating config file" in bad.stdout
    assert "-1 is less than the minimum of 0" in bad.stdout and "'seed'" in bad.stdout
    assert jobs_run(bad.stdout) == []


@pytest.mark.parametrize(
    "section, message",
    [
        ({"adult": {"timeout": 30, "bogus": 1}}, "'bogus' was unexpected"),
        ({"adult": {"sources": ["local", "ftp"]}}, "'ftp' is not one of"),
        ({"adult": {"expected": {"rows": "many"}}}, "'many' is not of type 'integer'"),
        ({"papers": ["nonsense"]}, "'nonsense' is not one of"),
        ({"papers": []}, "should be non-empty"),
    ],
)
def test_schema_refuses_bad_values(section, message):
    """The same validation the Snakefile runs, in-process (the CLI path is tested above)."""
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    with pytest.raises(WorkflowError, match=re.escape(message)):
        cfg = merged(shipped_config(), section)  # a --configfile with these keys over config.yaml
        validate(cfg, str(ROOT / "workflow/schemas/config.schema.yaml"))
        for name in [k for k, v in cfg.items() if isinstance(v, dict)]:
            validate(cfg[name], str(ROOT / f"workflow/schemas/{name}.schema.yaml"))

