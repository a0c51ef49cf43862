"""Cross-field checks of the configuration (leakage.config_checks), run by the Snakefile before any
job: the shipped config passes; each violated constraint is refused naming its keys."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from leakage.config_checks import ConfigError, check_config

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def config():
    """config.yaml with the schemas' defaults filled in, as the Snakefile sees it."""
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    validate(cfg, str(ROOT / "workflow/schemas/config.schema.yaml"))
    for section in [k for k, v in cfg.items() if isinstance(v, dict)]:
        validate(cfg[section], str(ROOT / f"workflow/schemas/{section}.schema.yaml"))
    return cfg


def test_the_shipped_config_passes(config):
    assert check_config(config) is None


def _with(config, path: str, value):
    cfg = copy.deepcopy(config)
    *keys, last = path.split(".")
    node = cfg
    for k in keys:
        node = node[k]
    node[last] = value
    return cfg


@pytest.mark.parametrize(
    "path, value, named",
    [
        ("papers", [], "papers must list at least one paper"),
        ("empirical-pml.fig3b.m_min", 10**8, "empirical-pml.fig3b.m_min must be < empirical-pml.fig3b.m_max"),
        ("empirical-pml.fig4.m_max", 100, "empirical-pml.fig4.m_min must be < empirical-pml.fig4.m_max"),
        ("empirical-pml.fig5.m_min", 48842, "empirical-pml.fig5.m_min must be <"),
        ("empirical-pml.fig2a.beta_max", 0.4000001, "empirical-pml.fig2a.beta_max must be in (0, 2 min(prior)]"),
        ("empirical-pml.fig2a.prior", [0.4, 0.2, 0.2, 0.3], "empirical-pml.fig2a.prior must sum to 1"),
        ("empirical-pml.fig2a.prior", [0.5, 0.5], "empirical-pml.fig2a.prior must have one entry per row"),
        ("empirical-pml.fig2a.channel", [[0.5, 0.6], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]],
         "empirical-pml.fig2a.channel[0] (a row P(.|x)) must sum to 1"),
        ("empirical-pml.fig2b.beta_max", 0.21, "empirical-pml.fig2b.beta_max must be in (0, 2 / n_symbols]"),
        ("empirical-pml.fig2b.k", 11, "empirical-pml.fig2b.k must be in [1, empirical-pml.fig2b.n_symbols = 10]"),
        ("empirical-pml.fig3a.increase_min", 2.0, "empirical-pml.fig3a.increase_min must be <="),
        ("worst-case-pml.fig2.p_low_min", 0.3, "worst-case-pml.fig2.p_low_min must be <= worst-case-pml.fig2.p_low_max"),
        ("worst-case-pml.fig3.p_low_max", 0.3, "worst-case-pml.fig3.p_low_max must be <= 1 / alphabet_size"),
        ("worst-case-pml.fig2.k", [2, 5], "worst-case-pml.fig2.k must be in [1, alphabet_size = 4], got [5]"),
        ("statistical-inference.fig2.n_min", 20000, "statistical-inference.fig2.n_min must be <="),
    ],
)
def test_a_violated_constraint_is_refused_naming_its_keys(config, path, value, named):
    with pytest.raises(ConfigError, match=re.escape(named)):
        check_config(_with(config, path, value))
    assert issubclass(ConfigError, ValueError)


def test_all_violations_are_reported_together(config):
    cfg = _with(_with(config, "empirical-pml.fig4.m_max", 1), "statistical-inference.fig2.n_min", 10**6)
    with pytest.raises(ConfigError) as info:
        check_config(cfg)
    assert "fig4.m_min" in str(info.value) and "fig2.n_min" in str(info.value)


def test_not_a_mapping_is_a_type_error():
    with pytest.raises(TypeError, match="config must be a mapping"):
        check_config(["papers"])


def test_the_snakefile_runs_the_checks_after_validation():
    text = (ROOT / "Snakefile").read_text()
    assert text.index("check_config(config)") > text.rindex("validate(")
    assert text.index("check_config(config)") < text.index("include:")
