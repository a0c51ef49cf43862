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
  channel, the LDP frequency oracles (GRR, OUE, OLH, subset selection);
* ``leakage.design``: mechanisms designed for a privacy level (closed forms, LP design);
* ``leakage.experiments.<paper>`` wires the concepts into one paper's figures,
  ``leakage.plots.<paper>`` draws them; ``leakage.tables`` writes every table.

This module re-exports the public API (``__all__``): ``import leakage`` then
``leakage.pointwise_maximal_leakage(channel, prior)``. It only re-exports, so the pipeline does not
count it as code any job depends on (workflow/lib/code_graph.py).
"""

from importlib.util import find_spec as _find_spec

from leakage.design import (
    Design,
    DesignLP,
    design_epsilon,
    design_mechanism,
    design_mechanism_for_estimate,
    design_polytope,
    in_design_polytope,
    k_singular_mechanism,
    optimal_binary_mechanism,
)
from leakage.estimation.concentration import (
    beta_star,
    delta_for_beta,
    empirical_distribution,
    weissman_kappa,
    weissman_phi,
    weissman_radius,
    weissman_tail_bound,
)
from leakage.estimation.frequency import (
    FrequencyEstimate,
    estimate_frequencies,
    estimate_frequencies_from_counts,
    fisher_information,
    frequency_covariance,
    frequency_mse,
)
from leakage.estimation.uncertainty import (
    ball_min_output,
    delta_min,
    epsilon_prime,
    is_private_for_set,
    is_private_on_ball,
    leakage_capacity_bound,
    leakage_sensitivity_bound,
    leakage_sensitivity_on_ball,
    local_leakage_capacity,
    local_leakage_capacity_on_ball,
    output_divergence_sup_on_ball,
    privacy_region,
    privacy_region_thresholds,
    radius_for_leakage,
)
from leakage.measures.dp import is_ldp, ldp_epsilon, randomized_response, randomized_response_probabilities
from leakage.measures.dp_relations import (
    delta_dp_level,
    delta_from_mi_dp,
    dp_epsilon,
    dp_sandwich,
    kl_dp_bound,
    kl_dp_level,
    mi_dp_level,
)
from leakage.measures.information import (
    binary_entropy,
    channel_capacity,
    empirical_mutual_information,
    entropy,
    kl_divergence,
    max_divergence,
    mutual_information,
    rate_distortion_point,
    total_variation,
)
from leakage.measures.min_entropy import maximal_leakage, min_entropy_leakage
from leakage.measures.pml import epsilon_max, epsilon_min, is_pml, output_distribution, pointwise_maximal_leakage
from leakage.mechanisms.additive import (
    gaussian_delta1,
    gaussian_delta_star,
    gaussian_epsilon_star,
    gaussian_leakage,
    laplace_epsilon,
    laplace_epsilon_estimated,
    laplace_mechanism,
    laplace_scale,
    laplace_scale_for,
    pldp_gaussian_delta,
    pldp_gaussian_sigma,
)
from leakage.mechanisms.frequency_oracles import (
    FrequencyOracle,
    olh_hash,
    olh_hash_range,
    oracle_approximate_variance,
    oracle_estimate,
    oracle_fisher_information,
    oracle_mse,
    oracle_perturb,
    oracle_sample_support_counts,
    oracle_support_counts,
    oracle_variance,
    subset_fisher_informations,
)

__version__ = "0.1.0"

__all__ = [
    # measures: what a channel leaks
    "pointwise_maximal_leakage",
    "epsilon_min",
    "epsilon_max",
    "is_pml",
    "output_distribution",
    "maximal_leakage",
    "min_entropy_leakage",
    "ldp_epsilon",
    "is_ldp",
    "dp_epsilon",
    "kl_dp_level",
    "delta_dp_level",
    "mi_dp_level",
    "kl_dp_bound",
    "delta_from_mi_dp",
    "dp_sandwich",
    "entropy",
    "binary_entropy",
    "kl_divergence",
    "max_divergence",
    "total_variation",
    "mutual_information",
    "channel_capacity",
    "rate_distortion_point",
    "empirical_mutual_information",
    # mechanisms
    "randomized_response",
    "randomized_response_probabilities",
    "k_singular_mechanism",
    "laplace_mechanism",
    "laplace_scale",
    "laplace_scale_for",
    "laplace_epsilon",
    "laplace_epsilon_estimated",
    "gaussian_leakage",
    "gaussian_delta1",
    "gaussian_epsilon_star",
    "gaussian_delta_star",
    "pldp_gaussian_sigma",
    "pldp_gaussian_delta",
    # LDP frequency oracles [wang2017], [ye2018]
    "FrequencyOracle",
    "oracle_perturb",
    "oracle_support_counts",
    "oracle_sample_support_counts",
    "oracle_estimate",
    "oracle_variance",
    "oracle_mse",
    "oracle_approximate_variance",
    "olh_hash",
    "olh_hash_range",
    "oracle_fisher_information",
    "subset_fisher_informations",
    # estimation: distributions from samples, PML under their uncertainty
    "empirical_distribution",
    "beta_star",
    "delta_for_beta",
    "weissman_phi",
    "weissman_kappa",
    "weissman_tail_bound",
    "weissman_radius",
    "privacy_region",
    "privacy_region_thresholds",
    "local_leakage_capacity",
    "local_leakage_capacity_on_ball",
    "is_private_for_set",
    "is_private_on_ball",
    "ball_min_output",
    "output_divergence_sup_on_ball",
    "leakage_sensitivity_on_ball",
    "leakage_sensitivity_bound",
    "leakage_capacity_bound",
    "radius_for_leakage",
    "epsilon_prime",
    "delta_min",
    # estimation: frequencies from released data
    "FrequencyEstimate",
    "estimate_frequencies",
    "estimate_frequencies_from_counts",
    "fisher_information",
    "frequency_covariance",
    "frequency_mse",
    # design
    "Design",
    "DesignLP",
    "design_epsilon",
    "design_mechanism",
    "design_mechanism_for_estimate",
    "design_polytope",
    "in_design_polytope",
    "optimal_binary_mechanism",
]

# The optimal-mechanism engine (leakage.design.optimal) is exported where it exists.
if _find_spec("leakage.design.optimal") is not None:
    from leakage.design import optimal_mechanism  # noqa: E402

    __all__.append("optimal_mechanism")
