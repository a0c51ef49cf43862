"""leakage: privacy-mechanism design with pointwise maximal leakage (PML), LDP/pLDP and
mutual-information leakage.

Conventions used throughout the package
---------------------------------------
* Logarithms are natural: every leakage, epsilon and mutual information is in nats.
* A *channel* (mechanism) is a row-stochastic matrix ``channel[x, y] = P(y | x)``.
* A *prior* is a probability vector over the rows of a channel.
* Argument order is always ``(channel, prior)``.
* Invalid input raises ``ValueError`` (or ``TypeError``) naming the parameter and the valid range.

Modules are organised by concept, not by paper:

* ``leakage.measures``: what a channel leaks (``pml``, ``dp``, ``information``, ``min_entropy``,
  ``dp_relations``);
* ``leakage.estimation``: distributions estimated from samples and PML under that uncertainty;
  frequencies estimated from released data (``frequency``);
* ``leakage.mechanisms``: the additive-noise (Laplace, Gaussian) mechanisms, releasing through a
  channel, the LDP frequency oracles (GRR, OUE, OLH, subset selection, Hadamard response);
* ``leakage.design``: mechanisms designed for a privacy level (closed forms, LP design);
* ``leakage.experiments.<paper>`` wires the concepts into one paper's figures,
  ``leakage.plots.<paper>`` draws them; ``leakage.tables`` writes every table.

This module re-exports the public API (``__all__``): ``import leakage`` then
``leakage.pointwise_maximal_leakage(channel, prior)``. It only re-exports, so the pipeline does not
count it as code any job depends on (workflow/lib/code_graph.py). The re-exports are lazy (PEP 562):
a name's defining module is imported when the name is first used, so that ``import
leakage.tables`` (every pipeline job) does not import the design engine, scipy.stats and cvxpy.
"""

import importlib

#: defining module -> the public names it defines (or re-exports from its package)
_SOURCES: dict[str, tuple[str, ...]] = {
    "leakage.design": (
        "Design",
        "DesignLP",
        "design_epsilon",
        "design_mechanism",
        "design_mechanism_for_estimate",
        "design_polytope",
        "in_design_polytope",
        "k_singular_mechanism",
        "optimal_binary_mechanism",
        "optimal_mechanism",
    ),
    "leakage.estimation.concentration": (
        "beta_star",
        "delta_for_beta",
        "empirical_distribution",
        "weissman_kappa",
        "weissman_phi",
        "weissman_radius",
        "weissman_tail_bound",
    ),
    "leakage.estimation.frequency": (
        "FrequencyEstimate",
        "estimate_frequencies",
        "estimate_frequencies_from_counts",
        "fisher_information",
        "frequency_covariance",
        "frequency_mse",
    ),
    "leakage.estimation.uncertainty": (
        "ball_min_output",
        "delta_min",
        "epsilon_prime",
        "is_private_for_set",
        "is_private_on_ball",
        "leakage_capacity_bound",
        "leakage_sensitivity_bound",
        "leakage_sensitivity_on_ball",
        "local_leakage_capacity",
        "local_leakage_capacity_on_ball",
        "output_divergence_sup_on_ball",
        "privacy_region",
        "privacy_region_thresholds",
        "radius_for_leakage",
    ),
    "leakage.measures.dp": (
        "is_ldp",
        "ldp_epsilon",
        "randomized_response",
        "randomized_response_probabilities",
    ),
    "leakage.measures.dp_relations": (
        "delta_dp_level",
        "delta_from_mi_dp",
        "dp_epsilon",
        "dp_sandwich",
        "kl_dp_bound",
        "kl_dp_level",
        "mi_dp_level",
    ),
    "leakage.measures.information": (
        "binary_entropy",
        "channel_capacity",
        "empirical_mutual_information",
        "entropy",
        "kl_divergence",
        "max_divergence",
        "mutual_information",
        "rate_distortion_point",
        "total_variation",
    ),
    "leakage.measures.min_entropy": (
        "maximal_leakage",
        "min_entropy_leakage",
    ),
    "leakage.measures.pml": (
        "epsilon_max",
        "epsilon_min",
        "is_pml",
        "output_distribution",
        "pointwise_maximal_leakage",
    ),
    "leakage.mechanisms.additive": (
        "gaussian_delta1",
        "gaussian_delta_star",
        "gaussian_epsilon_star",
        "gaussian_leakage",
        "laplace_epsilon",
        "laplace_epsilon_estimated",
        "laplace_mechanism",
        "laplace_scale",
        "laplace_scale_for",
        "pldp_gaussian_delta",
        "pldp_gaussian_sigma",
    ),
    "leakage.mechanisms.frequency_oracles": (
        "FrequencyOracle",
        "hadamard_response_channel",
        "olh_hash",
        "olh_hash_range",
        "oracle_approximate_variance",
        "oracle_estimate",
        "oracle_fisher_information",
        "oracle_mse",
        "oracle_perturb",
        "oracle_sample_support_counts",
        "oracle_support_counts",
        "oracle_variance",
        "subset_fisher_informations",
    ),
}

__version__ = "0.1.0"

_MODULE_OF = {name: module for module, names in _SOURCES.items() for name in names}
#: The public API: every name of ``_SOURCES`` (one list, so that a new function is added once).
__all__ = list(_MODULE_OF)


def __getattr__(name: str):
    """A public name, imported from its defining module on first use (and kept here)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'leakage' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
