"""The pipeline's configuration checks beyond the schemas (workflow/lib/config_checks.py), run by
the Snakefile before any job: the shipped config passes; each violated constraint is refused naming
its keys. And the one home of the defaults: config.yaml has every key, the schemas none."""

from __future__ import annotations

import copy
import re
import sys

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from conftest import ROOT
from shipped_config import merged, shipped_config

sys.path.insert(0, str(ROOT / "workflow" / "lib"))
from config_checks import ConfigError, check_config  # noqa: E402

from leakage.data.adult import CATEGORICAL_ATTRIBUTES  # noqa: E402

SCHEMAS = ROOT / "workflow" / "schemas"


def _validate(cfg: dict) -> dict:
    """Validate as the Snakefile does: the whole config, then section by section."""
    validate(cfg, str(SCHEMAS / "config.schema.yaml"))
    for section in [k for k, v in cfg.items() if isinstance(v, dict)]:
        validate(cfg[section], str(SCHEMAS / f"{section}.schema.yaml"))
    return cfg


@pytest.fixture(scope="module")
def config():
    """config.yaml, validated as the Snakefile validates it."""
    return _validate(shipped_config())


@pytest.fixture()
def no_table(tmp_path):
    return tmp_path / "absent.csv"


def test_the_shipped_config_passes(config, no_table):
    assert check_config(config, no_table) is None


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
        ("adult-design.attributes", ["race", "age"], "adult-design.attributes: ['age'] are not among adult-design.dataset.columns"),
        ("adult-design.mc_attributes", ["salary"], "adult-design.mc_attributes: ['salary'] are not among"),
        ("adult-design.dataset.columns", ["race", "age"], "adult-design.dataset.columns: ['age'] are not categorical attributes of Adult"),
        ("adult-design.dataset.path", "x.csv", "adult-design.dataset.path must be null for adult-design.dataset.source 'adult'"),
        ("adult-design.dataset.source", "csv", "adult-design.dataset.path must be set"),
        ("adult-design.protocol", "same-records", None),
        ("adult-design.mc.release_m", 50, None),
        ("adult-design.release.eps", 1.5, "adult-design.release.eps: 1.5 must be one of adult-design.eps"),
        ("adult-design.heatmap.eps", 3.0, "adult-design.heatmap.eps: 3.0 must be one of adult-design.eps"),
        ("adult-design.heatmap.attribute", "sex", "adult-design.heatmap.attribute: 'sex' must be one of"),
        ("adult-design.methods", ["pml", "rr"], "adult-design.heatmap.methods: ['pml', 'ldp'] must be among"),
        ("adult-design.methods", ["ldp", "rr"], "adult-design.methods: must include pml"),
        ("adult-design.curve.eps_min", 4.0, "adult-design.curve.eps_min must be < adult-design.curve.eps_max"),
        ("adult-design.mc.m_max", 50, "adult-design.mc.m_min must be <= adult-design.mc.m_max"),
    ],
)
def test_a_violated_constraint_is_refused_naming_its_keys(config, no_table, path, value, named):
    if named is None:  # valid alone (protocol same-records, mc.release_m): refused together below
        assert check_config(_with(config, path, value), no_table) is None
        return
    with pytest.raises(ConfigError, match=re.escape(named)):
        check_config(_with(config, path, value), no_table)
    assert issubclass(ConfigError, ValueError)


def test_all_violations_are_reported_together(config, no_table):
    cfg = _with(_with(config, "empirical-pml.fig4.m_max", 1), "statistical-inference.fig2.n_min", 10**6)
    with pytest.raises(ConfigError) as info:
        check_config(cfg, no_table)
    assert "fig4.m_min" in str(info.value) and "fig2.n_min" in str(info.value)


def test_not_a_mapping_is_a_type_error():
    with pytest.raises(TypeError, match="config must be a mapping"):
        check_config(["papers"])


def test_the_snakefile_runs_the_checks_after_validation():
    text = (ROOT / "Snakefile").read_text()
    assert text.index("check_config(config)") > text.rindex("validate(")
    assert text.index("check_config(config)") < text.index("include:")


def test_the_study_is_checked_only_when_it_runs(config, no_table):
    cfg = _with(_with(config, "adult-design.release.eps", 1.5), "studies", [])
    assert check_config(cfg, no_table) is None


def test_an_attribute_with_a_single_category_in_the_data_is_refused(config, tmp_path):
    table = tmp_path / "adult.csv"
    columns = ["race", "relationship", "marital-status", "workclass", "occupation", "education", "native-country", "sex"]
    rows = [["White", "Husband", "Married", "Private", "Sales", "HS-grad", "Cuba", "Male"],
            ["Black", "Wife", "Divorced", "", "Sales", "Bachelors", "", "Male"]]  # fmt: skip
    table.write_text(",".join(columns) + "\n" + "\n".join(",".join(r) for r in rows) + "\n")
    with pytest.raises(ConfigError, match=re.escape("adult-design.attributes: attributes ['occupation']")) as info:
        check_config(config, table)
    assert "single category" in str(info.value)
    # an empty field is the category '?': workclass and native-country have two categories here
    assert "workclass" not in str(info.value) and "native-country" not in str(info.value)
    table.write_text(",".join(columns) + "\n")  # not written yet: the estimate job checks it
    assert check_config(config, table) is None


# ------------------------------------------------------------------ one home of the defaults


def _objects(node, path="$"):
    """Every (path, schema object) of a schema, recursively."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _objects(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _objects(value, f"{path}[{i}]")


def test_the_schemas_hold_no_defaults_and_require_every_key():
    for schema_file in sorted(SCHEMAS.glob("*.schema.yaml")):
        schema = yaml.safe_load(schema_file.read_text())
        for path, node in _objects(schema):
            assert "default" not in node, f"{schema_file.name}: {path} has a default (config.yaml is their home)"
            if "properties" in node and isinstance(node["properties"], dict) and "type" in node:
                assert sorted(node.get("required", [])) == sorted(node["properties"]), f"{schema_file.name}: {path}"


@pytest.mark.parametrize("path", ["seed", "adult.timeout", "empirical-pml.fig4.iterations", "robust-dp-hamming.fig5.M",
                                  "worst-case-pml.fig3.pattern", "adult-design.mc.max_nodes", "adult-design.release"])
def test_config_without_a_key_is_refused_by_the_schema(config, path):
    cfg = copy.deepcopy(config)
    *keys, last = path.split(".")
    node = cfg
    for k in keys:
        node = node[k]
    del node[last]
    with pytest.raises(WorkflowError, match=re.escape(f"'{last}' is a required property")):
        _validate(cfg)


def test_a_partial_configfile_merged_over_config_yaml_passes(config, no_table):
    """A user's --configfile with a few keys is merged over config.yaml (update_config, as Snakemake does)."""
    cfg = _validate(merged(shipped_config(), {"seed": 7, "adult-design": {"mc": {"iterations": 3}}}))
    assert cfg["adult-design"]["mc"]["iterations"] == 3 and cfg["adult-design"]["mc"]["m_min"] == config["adult-design"]["mc"]["m_min"]
    assert check_config(cfg, no_table) is None


@pytest.mark.parametrize(
    "section, message",
    [
        ({"eps": [25]}, "25 is greater than the maximum of 20"),
        ({"delta": 0}, "0 is less than or equal to the minimum of 0"),
        ({"attributes": []}, "[] should be non-empty"),
        ({"engine": {"max_iterations": 0}}, "0 is less than the minimum of 1"),
        ({"mc": {"tol": 1.5}}, "1.5 is greater than or equal to the maximum of 1"),
        ({"release": {"rng": "urandom"}}, "'urandom' is not one of ['seeded', 'secure']"),
    ],
)
def test_the_study_schema_refuses_bad_values(config, section, message):
    with pytest.raises(WorkflowError, match=re.escape(message)):
        validate(merged(config["adult-design"], section), str(SCHEMAS / "adult-design.schema.yaml"))


def test_the_attribute_list_lives_in_the_library_only():
    """The workflow and the schemas name no attribute list of their own: the check and the rules'
    wildcard use leakage.data.adult.CATEGORICAL_ATTRIBUTES."""
    for path in [*SCHEMAS.glob("*.yaml"), *(ROOT / "workflow" / "rules").glob("*.smk"), ROOT / "Snakefile"]:
        text = path.read_text()
        assert not re.search(r"native-country.*\bincome\b|\bworkclass\b.*\beducation\b.*marital", text), path
    assert "income" in CATEGORICAL_ATTRIBUTES and "age" not in CATEGORICAL_ATTRIBUTES


def test_release_m_is_refused_under_same_records(config, no_table):
    cfg = _with(_with(config, "adult-design.protocol", "same-records"), "adult-design.mc.release_m", 50)
    with pytest.raises(ConfigError, match=re.escape("adult-design.mc.release_m: must be null under adult-design.protocol same-records")):
        check_config(cfg, no_table)


def test_a_study_on_other_data_is_completed_from_adult_design_validated_and_checked(config, no_table):
    """A section <name>-design gives only what differs; the rest is adult-design's (config.yaml)."""
    from config_checks import complete_studies

    own = {"dataset": {"source": "csv", "path": "t.csv", "columns": ["a", "b"],
                       "split": {"kind": "random", "fraction": 0.5}},
           "attributes": ["a", "b"], "mc_attributes": ["a"], "heatmap": {"attribute": "a"},
           "frequency": {"histogram_attribute": "b"}}  # fmt: skip
    cfg = complete_studies({**copy.deepcopy(config), "studies": ["adult-design", "toy-design"], "toy-design": own})
    toy = cfg["toy-design"]
    assert toy["eps"] == config["adult-design"]["eps"] and toy["mc"]["iterations"] == config["adult-design"]["mc"]["iterations"]
    assert toy["dataset"]["split"] == {"kind": "random", "column": None, "design": None, "fraction": 0.5}
    assert cfg["adult-design"] == config["adult-design"]  # untouched
    validate(cfg, str(SCHEMAS / "config.schema.yaml"))
    validate(copy.deepcopy(toy), str(SCHEMAS / "adult-design.schema.yaml"))
    assert check_config(cfg, no_table) is None
    bad = copy.deepcopy(cfg)
    bad["toy-design"]["heatmap"]["attribute"] = "education"
    with pytest.raises(ConfigError, match=re.escape("toy-design.heatmap.attribute: 'education' must be one of toy-design.attributes")):
        check_config(bad, no_table)
    with pytest.raises(WorkflowError):
        validate({**copy.deepcopy(config), "studies": ["toy"]}, str(SCHEMAS / "config.schema.yaml"))
