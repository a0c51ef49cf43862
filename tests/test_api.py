"""The public API: ``import leakage`` exposes the measures, mechanisms, estimation bounds and
design functions, each the very object of the module that defines it."""

import importlib
import inspect

import leakage

REQUIRED = [
    "pointwise_maximal_leakage",
    "epsilon_min",
    "maximal_leakage",
    "min_entropy_leakage",
    "ldp_epsilon",
    "mutual_information",
    "channel_capacity",
    "randomized_response",
    "laplace_mechanism",
    "beta_star",
    "design_mechanism",
    "k_singular_mechanism",
    "estimate_frequencies",
    "frequency_mse",
    "fisher_information",
    "FrequencyOracle",
    "oracle_estimate",
]


def test_all_lists_the_required_names_once():
    assert len(leakage.__all__) == len(set(leakage.__all__))
    missing = [n for n in REQUIRED if n not in leakage.__all__]
    assert not missing, missing


def test_every_exported_name_is_the_defining_modules_object():
    for name in leakage.__all__:
        obj = getattr(leakage, name)
        module = importlib.import_module(obj.__module__)
        assert getattr(module, name) is obj, name
        assert obj.__module__.startswith("leakage."), name
        assert inspect.getdoc(obj), f"{name} has no docstring"


def test_optimal_mechanism_is_exported_where_the_engine_exists():
    has_engine = importlib.util.find_spec("leakage.design.optimal") is not None
    assert ("optimal_mechanism" in leakage.__all__) == has_engine


def test_star_import_gives_exactly_all():
    namespace = {}
    exec("from leakage import *", namespace)
    assert sorted(n for n in namespace if not n.startswith("__")) == sorted(leakage.__all__)


def test_importing_one_module_does_not_import_the_whole_library():
    """The re-exports are lazy: a pipeline job that imports ``leakage.tables`` does not pay for the
    design engine, scipy.stats or cvxpy (each job is a fresh Python process)."""
    import subprocess
    import sys

    code = ("import sys, leakage.tables; "
            "print(sorted(m for m in sys.modules if m.startswith(('leakage.design', 'scipy.stats', 'cvxpy'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
    assert leakage.optimal_mechanism.__module__ == "leakage.design.optimal"  # and the name still resolves


def test_the_lazy_table_names_each_public_name_once_and_where_it_lives():
    # leakage._SOURCES (where each name is imported from on first use; __all__ is its names): no
    # name listed under two modules, and each resolves to its module's object
    listed = [name for names in leakage._SOURCES.values() for name in names]
    assert len(listed) == len(set(listed)) == len(leakage.__all__)
    for name, module in leakage._MODULE_OF.items():
        assert getattr(importlib.import_module(module), name) is getattr(leakage, name), name
