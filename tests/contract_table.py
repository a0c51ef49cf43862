"""The one table of the bad-input contract test (tests/test_contract.py).

* ``EXAMPLES``: a valid value per parameter name (the vocabulary of CONTRIBUTING.md makes a name
  mean one thing), ``ARGS``: valid arguments per function where its parameters need other values
  (qualified names relative to ``leakage``; a callable gets the context of ``build_context``).
  These are the valid calls the bad values are substituted into.
* ``RULES``: where a function legitimately does something other than the default (raise
  ``ValueError``/``TypeError`` from inside leakage naming the parameter), it is declared here,
  with the check of what it does instead: ``Accept`` (a valid extreme: the returned value is
  checked, against an independent computation where one exists), ``Names`` (the message names
  another parameter, e.g. the one whose size it must match), ``Engine`` (the design engine,
  ``leakage.design.optimal``, is rewritten by the lead: its expected failures are recorded here).
  Every rule must be used by some case; the test fails on a rule nothing uses.
"""

from __future__ import annotations

import collections
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from shipped_config import shipped

ROOT = Path(__file__).resolve().parents[1]
SOURCE_SETS = ROOT / "workflow" / "data" / "robust-dp-hamming" / "source_sets.yaml"
ADULT_SAMPLE = ROOT / "tests" / "data" / "adult_sample"

NO_EXAMPLE = object()

C3 = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]]
P3 = [0.5, 0.3, 0.2]


def _rng(ctx=None):
    return np.random.default_rng(0)


#: A valid value per parameter name.
EXAMPLES = {
    "channel": C3,
    "prior": P3,
    "center": P3,
    "p_hat": P3,
    "prior_y": P3,
    "distributions": [[0.5, 0.3, 0.2], [0.4, 0.4, 0.2]],
    "eps": 0.5,
    "beta": 0.05,
    "delta": 0.1,
    "m": 100,
    "n_symbols": 3,
    "n_categories": 3,
    "k": 2,
    "tol": 1e-6,
    "rng": _rng,
    "alphabet_size": 3,
    "erasure_prob": 0.2,
    "eps_mi": 0.3,
    "h": 0.5,
    "counts": [[3.0, 1.0], [2.0, 4.0]],
    "slope": 1.0,
    "samples": [0, 1, 1, 2],
    "alphabet": [0, 1, 2],
    "capacity": 0.5,
    "l1_distance": 0.1,
    "eps_prime": 0.8,
    "p_hat_min": 0.3,
    "p_min": 0.2,
    "b": 1.0,
    "sigma": 1.5,
    "delta1": 0.1,
    "delta2": 0.2,
    "n_outputs": 3,
    "n_records": 3,
    "M": 3,
    "points": [[0.5, 0.3, 0.2], [0.3, 0.5, 0.2]],
    "distortions": [0.2, 0.4],
    "joint": [[0.3, 0.1, 0.1], [0.1, 0.1, 0.3]],
    "distortion_measure": [[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]],
    "cond_entropy": [0.0, math.log(2.0), 0.0],
    "n": 3,
    "uniforms": [0.1, 0.5, 0.9],
    "inputs": {},
    # frequency estimation and the LDP frequency oracles (3 categories)
    "reports": [0, 1, 2, 2, 1, 0, 0],
    "output_counts": [3, 2, 4],
    "input_counts": [5, 3, 2],
    "value_counts": [5, 3, 2],
    "support_counts": [40, 35, 25],
    "values": [0, 1, 2, 2, 1, 0],
    "seeds": [1, 2, 3, 4, 5, 6],
    "hash_range": 3,
    "oracle": lambda ctx: _oracle(),
}


def _oracle():
    from leakage.mechanisms.frequency_oracles import FrequencyOracle

    return FrequencyOracle("grr", 3, 1.0)


def _curves():
    from leakage.experiments.empirical_pml.adult import Setting

    return [Setting("pml", 1.0, 1e-6), Setting("ldp", 1.0, 0.0)]


def _order3():
    return [[3, 2, 1], [1, 3, 2], [2, 1, 3]]


def _utility4():
    from leakage.experiments.worst_case_pml.utility import counting_query_utility

    return counting_query_utility(3)


def _prior4():
    return [0.125, 0.375, 0.375, 0.125]


def _ad(ctx, *keys):
    """The keys of the small adult-design settings a stage reads: the pipeline passes a stage only
    those (workflow/rules/adult-design-setup.smk), so that every key given is one it needs."""
    return {key: ctx["adult"]["settings"][key] for key in keys}


#: Valid arguments per function (qualified name relative to ``leakage``).
ARGS: dict = {
    "estimation.uncertainty.ball_min_columns": {"columns": C3, "center": P3, "half": 0.1},
    # measures
    "measures.information.entropy": {"p": P3},
    "measures.information.binary_entropy": {"q": 0.3},
    "measures.information.kl_divergence": {"p": P3, "q": [0.4, 0.4, 0.2]},
    "measures.information.max_divergence": {"p": P3, "q": [0.4, 0.4, 0.2]},
    "measures.information.total_variation": {"p": P3, "q": [0.4, 0.4, 0.2]},
    "measures.information.rate_distortion_point": {"prior": P3, "distortion": EXAMPLES["distortion_measure"]},
    "measures.information.empirical_mutual_information": {"x": [0, 1, 1, 0, 1], "y": [0, 1, 0, 0, 1]},
    "measures.dp_relations.check_mechanism": {"channel": C3},
    # estimation
    "estimation.concentration.weissman_phi": {"p": 0.3},
    "estimation.concentration.sample_sizes": {"m_min": 10, "m_max": 1000, "n": 5},
    # mechanisms
    "mechanisms.additive.laplace_mechanism": {"x": [-1.0, 1.0, 1.0], "noise": [0.1, -0.2, 0.3]},
    "mechanisms.additive.threshold_release": {"y": [-0.5, 0.2, 1.5]},
    "mechanisms.additive.gaussian_leakage": {"y": [-0.5, 0.2], "p": 0.3},
    "mechanisms.additive.gaussian_violation_set": {"p": 0.3},
    "mechanisms.additive.gaussian_violation_probability": {"p": 0.3},
    "mechanisms.additive.gaussian_delta1": {"p_hat": 0.3},
    "mechanisms.additive.ball_interval": {"p_hat": 0.3},
    "mechanisms.additive.ball_min_probability": {"p_hat_min": 0.3},
    "mechanisms.release.channel_outputs": {"x": [0, 1, 2]},
    # design
    "design.polytope.optimal_binary_mechanism": {"p_hat": [0.6, 0.4], "eps": 0.5, "beta": 0.1},
    "design.polytope.design_mechanism": {"utility": np.eye(3)},
    "design.polytope.design_mechanism_for_estimate": {"utility": np.eye(3)},
    "design.polytope.in_design_polytope": {"channel": np.full((3, 3), 1 / 3)},
    "design.optimal.optimal_mechanism": {"prior": P3, "eps": 0.5},
    "design.optimal.optimal_mechanism_for_estimate": {"prior": P3, "eps": 1.0, "beta": 0.05},
    # experiments: worst-case-pml
    **{f"experiments.worst_case_pml.{m}": {"order": _order3(), "prior": P3, "k": 2} for m in (
        "programs.allowed_mass", "programs.allowed_pairs", "programs.column_leakage_lower_bound",
        "programs.feasible_mechanism", "programs.largest_worst_case_order", "programs.optimal_epsilon",
        "programs.optimal_mechanism", "programs.utility_safe_epsilon", "programs.utility_safe_mechanism",
        "utility.check_order_matrix", "utility.worst_case_order")},
    "experiments.worst_case_pml.programs.feasible_mechanism": {"order": _order3(), "prior": P3, "k": 2, "eps": 1.0},
    **{f"experiments.worst_case_pml.{m}": lambda ctx: {"utility": _utility4(), "prior": _prior4()} for m in (
        "programs.exponential_mechanism", "programs.pml_exponential_mechanism", "programs.utility_safe_mechanism_for",
        "programs.utility_sensitivity", "utility.utility_order_matrix")},
    **{f"experiments.worst_case_pml.utility.{m}": lambda ctx: {
        "utility": _utility4(), "prior": _prior4(), "channel": np.full((4, 4), 0.25), "size": 50, "repetitions": 50,
    } for m in ("worst_case_utility", "sample_pairs", "sampled_worst_case_utility")},
    "experiments.worst_case_pml.utility.check_threshold": {"k": 2, "n_outputs": 3},
    "experiments.worst_case_pml.figures.eps_grid": {"prior": P3, "step": 0.1},
    "experiments.worst_case_pml.figures.pattern_prior": {"pattern": "one_low_three_high", "p_low": 0.1, "n": 4},
    "experiments.worst_case_pml.figures.counting_query": lambda ctx: {"settings": ctx["settings"]["worst-case-pml"]["fig1"]},
    "experiments.worst_case_pml.figures.p_low_grid": lambda ctx: {"settings": ctx["settings"]["worst-case-pml"]["fig2"]},
    **{f"experiments.worst_case_pml.figures.{f}": (lambda f: lambda ctx: {"settings": ctx["settings"]["worst-case-pml"][f]})(f)
       for f in ("fig1", "fig2", "fig3")},
    "experiments.worst_case_pml.figures.check_claims": lambda ctx: {
        "tables": ctx["tables"]["worst-case-pml"], "settings": ctx["settings"]["worst-case-pml"]},
    # experiments: statistical-inference
    **{f"experiments.statistical_inference.{m}": {"distortion": 0.3} for m in (
        "convex.min_average_leakage", "convex.min_average_leakage_joint_access", "convex.rate_distortion_convex",
        "convex.min_max_leakage", "corollary2.min_max_leakage_deterministic")},
    "experiments.statistical_inference.common.check_distortion": {"rows": 3},
    "experiments.statistical_inference.convex.min_max_leakage": {"distortion": 0.3, "tol": 1e-3},
    "experiments.statistical_inference.corollary2.min_max_leakage_deterministic": {"distortion": 0.3, "tol": 1e-3},
    "experiments.statistical_inference.corollary2.min_max_leakage_curve": {"tol": 1e-3},
    "experiments.statistical_inference.counting_query.counting_query_prior": {"p": 0.3},
    "experiments.statistical_inference.counting_query.counting_query_joint": {"p": 0.3},
    "experiments.statistical_inference.theorem4.geometric_epsilon_for_distortion": {
        "prior_y": [0.3, 0.3, 0.2, 0.2], "distortion": 0.3,
        "distortion_measure": [[(y - u) ** 2 for u in range(4)] for y in range(4)]},
    **{f"experiments.statistical_inference.theorem4.{m}": {"n": 4, "k": 2} for m in (
        "comb_prior", "theorem4_lower_bound", "theorem4_exact_leakage")},
    **{f"experiments.statistical_inference.figures.{f}": (lambda f: lambda ctx: {
        "settings": ctx["settings"]["statistical-inference"][f]})(g)
       for f, g in (("fig1", "fig1"), ("fig1_grid", "fig1"), ("fig2", "fig2"), ("fig2_grid", "fig2"))},
    "experiments.statistical_inference.figures.check_claims": lambda ctx: {
        "tables": ctx["tables"]["statistical-inference"], "settings": ctx["settings"]["statistical-inference"]},
    # experiments: robust-dp-hamming
    **{f"experiments.robust_dp_hamming.leakage_distortion.{m}": {"distortion": 0.3, "M": 3} for m in (
        "check_distortion", "class_i_dp_leakage", "class_i_mi_leakage", "dp_leakage_distortion",
        "mi_leakage_distortion", "theorem3_bounds")},
    "experiments.robust_dp_hamming.leakage_distortion.dp_mechanism": {"distortion": 0.3, "eps": 2.0},
    "experiments.robust_dp_hamming.leakage_distortion.min_distortion_dp": {"eps": 2.0},
    "experiments.robust_dp_hamming.source_sets.distortion_threshold": {"k": 1},
    "experiments.robust_dp_hamming.source_sets.polytope_vertices": {
        "a_eq": [[1.0, 1.0, 1.0]], "b_eq": [1.0], "a_ub": -np.eye(3), "b_ub": np.zeros(3)},
    "experiments.robust_dp_hamming.source_sets.chamber_halfspaces": {"order": [0, 1, 2]},
    "experiments.robust_dp_hamming.source_sets.fold": {"order": [1, 0, 2]},
    "experiments.robust_dp_hamming.source_sets.unfold": {"order": [1, 0, 2]},
    "experiments.robust_dp_hamming.figures.load_source_sets": {"path": str(SOURCE_SETS)},
    "experiments.robust_dp_hamming.figures.distortion_grid": {"settings": {"n_points": 3, "jump_offset": 1e-4}, "points": [[0.7, 0.2, 0.1]]},
    **{f"experiments.robust_dp_hamming.figures.{f}": (lambda g: lambda ctx: {
        "settings": ctx["settings"]["robust-dp-hamming"][g], "inputs": ctx["inputs"]["robust-dp-hamming"]})(g)
       for f, g in (("fig1", "fig1"), ("dp_figure", "fig4"), ("mi_figure", "fig6"))},
    "experiments.robust_dp_hamming.figures.check_claims": lambda ctx: {
        "tables": ctx["tables"]["robust-dp-hamming"], "settings": ctx["settings"]["robust-dp-hamming"]},
    # experiments: empirical-pml
    "experiments.empirical_pml.adult.scales": lambda ctx: {"settings": _curves(), "p_hat": [0.3, 0.6], "m": 100},
    "experiments.empirical_pml.adult.first_m_counts": {"bits": [-1, 1, 1, -1, 1, 1], "m_values": [2, 4], "iterations": 2},
    "experiments.empirical_pml.adult.nested_flip_counts": {"n": [5, 7], "flip_prob": [[0.1, 0.2], [0.05, 0.3]]},
    "experiments.empirical_pml.adult.simulate": lambda ctx: {"bits": [-1, 1] * 20, "m_values": [10, 20], "settings": _curves(),
                                          "iterations": 2},
    "experiments.empirical_pml.adult.summarize": lambda ctx: {"feature": "sex", "m_values": [10, 20], "settings": _curves(),
                                           "b": np.ones((2, 2, 2)), "mi": np.full((2, 2, 2), 0.1)},
    "experiments.empirical_pml.bounds.leakage_increase_table": lambda ctx: {
        **{k: ctx["settings"]["empirical-pml"]["fig2a"][k] for k in ("channel", "prior", "eps")},
        "settings": {k: ctx["settings"]["empirical-pml"]["fig2a"][k]
                     for k in ("n_samples", "beta_max", "grid_points", "exact_method")}},
    **{f"experiments.empirical_pml.{m}.{f}": (lambda f: lambda ctx: {
        "settings": ctx["settings"]["empirical-pml"][f], "inputs": ctx["inputs"]["empirical-pml"]})(f)
       for m, figs in (("bounds", ("fig2a", "fig2b", "fig3a", "fig3b")), ("noise", ("fig4", "fig5", "fig6", "fig7")))
       for f in figs},
    **{f"experiments.empirical_pml.{m}check_claims": lambda ctx: {
        "tables": ctx["tables"]["empirical-pml"], "settings": ctx["settings"]["empirical-pml"]}
       for m in ("", "bounds.", "noise.")},
    # experiments: mi-dp and the entry points of the workflow
    "experiments.mi_dp.figures.grid": {"upper": 3.0, "n_points": 5},
    **{f"experiments.mi_dp.figures.{f}": (lambda f: lambda ctx: {"settings": ctx["settings"]["mi-dp"][f]})(f)
       for f in ("fig1", "fig2")},
    "experiments.mi_dp.figures.check_claims": lambda ctx: {
        "tables": ctx["tables"]["mi-dp"], "settings": ctx["settings"]["mi-dp"]},
    "experiments.paper_module": {"paper": "mi-dp"},
    "experiments.compute_table": lambda ctx: {"paper": "mi-dp", "figure": "fig1",
                                               "settings": ctx["settings"]["mi-dp"]["fig1"], "seed": 1},
    "experiments.check_claims": lambda ctx: {"paper": "mi-dp", "tables": ctx["tables"]["mi-dp"],
                                              "settings": ctx["settings"]["mi-dp"], "seed": 1},
    # experiments: adult-design (a study): its stages read the Adult sample and the stage outputs
    **{f"experiments.adult_design.figures.{f}": (lambda f: lambda ctx: {"settings": ctx["adult"]["settings"], "inputs": ctx["adult"]["inputs"]})(f)
       for f in ("fig1", "fig2", "fig3", "fig4", "fig5")},
    "experiments.adult_design.figures.fig6": lambda ctx: {"settings": ctx["adult"]["settings"], "inputs": ctx["adult"]["inputs"],
                                                          "rng": np.random.default_rng(0)},
    "experiments.adult_design.figures.frequency_claims": lambda ctx: {"table": ctx["adult"]["tables"]["fig5"], "engine_tol": 1e-6},
    "estimation.frequency.identifiable": {"channel": np.eye(2)},
    "experiments.adult_design.frequency.mse_designs": lambda ctx: {"priors": ctx["adult"]["priors"], "mechanisms": ctx["adult"]["mechanisms"],
                                                    "attribute": "sex", "settings": _ad(ctx, "eps", "delta", "engine", "frequency")},
    "experiments.adult_design.frequency.estimate_release": lambda ctx: {"release": ctx["adult"]["release"], "mechanisms": ctx["adult"]["mechanisms"],
                                                         "priors": ctx["adult"]["priors"], "attribute": "sex", "settings": _ad(ctx, "release")},
    "experiments.adult_design.frequency.frequency_comparison": lambda ctx: {"priors": ctx["adult"]["priors"], "mechanisms": ctx["adult"]["all_mechanisms"],
                                                             "attribute": "sex", "settings": _ad(ctx, "eps", "frequency"), "rng": np.random.default_rng(0)},
    "experiments.adult_design.frequency.histogram_release": lambda ctx: {"priors": ctx["adult"]["priors"], "mechanisms": ctx["adult"]["all_mechanisms"],
                                                          "settings": _ad(ctx, "frequency"), "rng": np.random.default_rng(0)},
    "experiments.adult_design.figures.check_claims": lambda ctx: {"tables": ctx["adult"]["tables"], "settings": ctx["adult"]["settings"],
                                       "inputs": {k: ctx["adult"]["inputs"][k] for k in ("priors", "mechanisms")}},
    "experiments.adult_design.figures.guarantee_claims": lambda ctx: {"priors": ctx["adult"]["priors"], "mechanisms": ctx["adult"]["mechanisms"]},
    "experiments.adult_design.figures.consistency_claim": lambda ctx: {"priors": ctx["adult"]["priors"], "mechanisms": ctx["adult"]["mechanisms"],
                                            "fig2_table": ctx["adult"]["tables"]["fig2"], "eps_values": [1.0]},
    "experiments.adult_design.figures.gain_claims": lambda ctx: {"fig1_table": ctx["adult"]["tables"]["fig1"]},
    "experiments.adult_design.figures.engine_claim": lambda ctx: {"figure": "fig2", "table": ctx["adult"]["tables"]["fig2"]},
    "experiments.adult_design.stages.engine_budget": {"section": {"tol": 1e-6, "max_iterations": 300, "max_nodes": None}},
    "experiments.adult_design.stages.check_settings": lambda ctx: {"settings": ctx["adult"]["settings"],
                                                                   "required": tuple(ctx["adult"]["settings"])},
    "experiments.adult_design.stages.curve_eps": lambda ctx: {"settings": _ad(ctx, "curve", "eps")},
    "experiments.adult_design.stages.attribute_codes": lambda ctx: {"table": ctx["adult"]["table"], "attribute": "sex"},
    "experiments.adult_design.stages.estimate_priors": lambda ctx: {"table": ctx["adult"]["table"], "attributes": ["sex"]},
    "experiments.adult_design.stages.prior_of": lambda ctx: {"priors": ctx["adult"]["priors"], "attribute": "sex"},
    "experiments.adult_design.stages.design": {"method": "rr", "p_hat": [0.7, 0.3], "eps": 1.0, "beta": 0.1, "budget": None},
    "experiments.adult_design.stages.designs_at": {"methods": ["rr", "ldp"], "p_hat": [0.7, 0.3], "eps": 1.0, "beta": 0.1,
                                                  "budget": {"tol": 1e-6, "max_iterations": 20, "max_nodes": None}},
    "experiments.adult_design.stages.mechanism_rows": lambda ctx: {"attribute": "sex", "mech": ctx["adult"]["mech"], "delta": 1e-6},
    "experiments.adult_design.stages.channel_from_rows": lambda ctx: {"rows": ctx["adult"]["mechanisms"].iloc[:4], "n_symbols": 2},
    "experiments.adult_design.stages.design_attribute": lambda ctx: {"priors": ctx["adult"]["priors"], "attribute": "sex",
                                                  "settings": _ad(ctx, "eps", "delta", "methods", "curve", "engine")},
    "experiments.adult_design.stages.release_rng": {"kind": "seeded", "seed": 1, "attribute": "sex"},
    "experiments.adult_design.stages.release_column": lambda ctx: {"table": ctx["adult"]["table"], "attribute": "sex",
                                                "channel": [[0.8, 0.2], [0.2, 0.8]]},
    "experiments.adult_design.stages.mc_sizes": lambda ctx: {"settings": _ad(ctx, "mc"), "n_records": 500},
    "experiments.adult_design.stages.monte_carlo": lambda ctx: {"table": ctx["adult"]["table"].iloc[:100], "attribute": "sex",
                                             "settings": _ad(ctx, "delta", "methods", "mc")},
    "experiments.adult_design.stages.release_attribute": lambda ctx: {"table": ctx["adult"]["table"], "mechanisms": ctx["adult"]["mechanisms"],
                                                   "attribute": "sex", "settings": _ad(ctx, "release"),
                                                   "priors": ctx["adult"]["priors"], "seed": 1},
    "experiments.adult_design.stages.release_histogram": lambda ctx: {"priors": ctx["adult"]["priors"], "table": ctx["adult"]["table"]},
    "experiments.adult_design.stages.build_dataset": lambda ctx: {"settings": _ad(ctx, "dataset"), "table": ctx["adult"]["table"],
                                               "provenance": {"parts": {"adult.data": 300, "adult.test": 200}},
                                               "rng": np.random.default_rng(0)},
}

#: Small settings of the adult-design study: config.yaml's section (complete: the library has no
#: defaults) with one binary attribute and few points (the design engine is fast there).
ADULT_DESIGN = shipped("adult-design", {
    "attributes": ["sex"], "eps": [1.0], "curve": {"eps_min": 0.5, "eps_max": 2.0, "n_eps": 2},
    "mc_attributes": ["sex"], "mc": {"m_min": 50, "m_max": 100, "n_m": 2, "iterations": 1},
    "heatmap": {"attribute": "sex", "eps": 1.0, "methods": ["pml", "ldp"]}, "release": {"eps": 1.0, "rng": "seeded"},
    "frequency": {"repetitions": 5, "histogram_attribute": "sex", "histogram_eps": 1.0},
})

#: The figure functions (``FIGURES`` values) and claims checkers of the papers and studies.
FIGURE_FUNCTIONS = ("experiments.*.fig1", "experiments.*.fig2", "experiments.*.fig2a", "experiments.*.fig2b",
                    "experiments.*.fig3", "experiments.*.fig3a", "experiments.*.fig3b", "experiments.*.fig4",
                    "experiments.*.fig5", "experiments.*.fig6", "experiments.*.fig7", "experiments.*.dp_figure",
                    "experiments.*.mi_figure")
CLAIMS_FUNCTIONS = "experiments.*check_claims"

#: Small settings of every paper's figures (the pipeline's config.yaml sections, shrunk).
SETTINGS = {
    "empirical-pml": {
        "fig2a": {"channel": [[0.325, 0.225, 0.225, 0.225], [0.45, 0.1, 0.225, 0.225], [0.45, 0.225, 0.1, 0.225],
                              [0.45, 0.225, 0.225, 0.1]],
                  "prior": [0.4, 0.2, 0.2, 0.2], "eps": math.log(9 / 8), "n_samples": 20, "beta_max": 0.4,
                  "grid_points": 5, "exact_method": "closed_form"},
        "fig2b": {"n_symbols": 10, "k": 2, "eps": math.log(5), "n_samples": 20, "beta_max": 0.2, "grid_points": 5,
                  "exact_method": "closed_form"},
        "fig3a": {"n_symbols": 20, "eps": math.log(5), "m": [1000, 10000], "eps_prime_span": 1.5,
                  "increase_min": 1e-3, "grid_points": 5},
        "fig3b": {"n_symbols": 20, "delta": 1e-5, "eps": [math.log(2), math.log(5)], "m_min": 100, "m_max": 10**5,
                  "grid_points": 5},
        "fig4": {"features": ["income", "sex"], "eps": [1.0], "delta": 1e-9, "m_min": 10, "m_max": 40, "n_m": 3,
                 "iterations": 3, "path": "fast"},
        "fig5": {"features": ["sex"], "eps": math.log(2), "deltas": [1e-6, 1e-3], "m_min": 10, "m_max": 40, "n_m": 3,
                 "iterations": 3, "path": "fast"},
        "fig6": {"panels": [{"panel": "a", "sigma": 1.5}], "p_hat": 0.5, "m": [100, 1000], "delta2": 1e-6,
                 "n_eps": 3, "eps_star_max": 8.0, "n_pldp": 3},
        "fig7": {"panels": [{"panel": "a", "sigma": 1.5}], "p_hat": 0.3, "m": [100, 1000], "delta2": 1e-6,
                 "n_eps": 3, "eps_star_max": 8.0, "n_pldp": 3},
    },
    "mi-dp": {"fig1": {"eps_max": 3.0, "n_points": 3}, "fig2": {"eps_mi_max": 0.69, "n_points": 3}},
    "robust-dp-hamming": {
        "fig1": {"source_sets": ["class_I", "class_II", "class_III"]},
        "fig4": {"M": 6, "source_sets": ["class_II", "class_III_a"], "n_points": 3, "jump_offset": 1e-4},
        "fig6": {"M": 6, "source_sets": ["class_I"], "n_points": 2, "jump_offset": 1e-4},
    },
    "statistical-inference": {
        "fig1": {"n": 3, "p": 0.3, "distortion": "squared_error", "distortion_points": 3,
                 "methods": ["average_leakage", "maximum_leakage", "geometric_dp"], "tol": 1e-3},
        "fig2": {"eps": 1.0, "k": 2, "n_min": 2, "n_max": 20, "n_points": 3},
        "claims": {"random_channels": 3, "inputs": 3, "outputs": 3},
    },
    "worst-case-pml": {
        "fig1": {"n_records": 3, "success_probability": 0.5, "under_report_penalty": 1.0, "eps_step": 0.5,
                 "repetitions": 50},
        "fig2": {"pattern": "one_low_three_high", "alphabet_size": 4, "k": [2, 3], "p_low_min": 0.05,
                 "p_low_max": 0.25, "p_low_step": 0.1, "tolerance": 1e-6},
        "fig3": {"pattern": "three_low_one_high", "alphabet_size": 4, "k": [2, 3], "p_low_min": 0.05,
                 "p_low_max": 0.25, "p_low_step": 0.1, "tolerance": 1e-6},
    },
}


# ----------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class Rule:
    function: str | tuple  #: fnmatch pattern(s) of qualified names
    param: str | tuple  #: fnmatch pattern(s) of the parameter (``settings.<key>`` for a settings value)
    cases: tuple | None  #: the bad-value cases it covers (None: all)
    why: str


@dataclass(frozen=True)
class Accept(Rule):
    """A valid extreme: the call returns, and ``check(result, kwargs, fn)`` holds (None/True)."""

    check: object = None


@dataclass(frozen=True)
class Names(Rule):
    """The error names another parameter (the one the bad value must agree with)."""

    names: tuple = field(default_factory=tuple)


@dataclass(frozen=True)
class Engine(Rule):
    """The design engine's expected behaviour, to be met by its rewrite (recorded, not hidden)."""


def _ball_min_lp(v, center, half):
    """min Q.v over Q >= 0, sum Q = 1, |Q - P|_1 <= 2 half, as an LP in (Q, t) with t >= |Q - P|."""
    from scipy.optimize import linprog

    p = np.asarray(center, float)
    n = p.size
    eye = np.eye(n)
    a_ub = np.block([[eye, -eye], [-eye, -eye], [np.zeros((1, n)), np.ones((1, n))]])
    b_ub = np.concatenate([p, -p, [2 * half]])
    res = linprog(np.concatenate([v, np.zeros(n)]), A_ub=a_ub, b_ub=b_ub,
                  A_eq=np.concatenate([np.ones(n), np.zeros(n)])[None, :], b_eq=[1.0], bounds=(0, None), method="highs")
    return res.fun


# ------------------------------------------------------------------ checks of accepted values


def close(a, b, rtol=1e-9, atol=1e-12) -> bool:
    """Equal values: numbers, arrays, tuples, dataclasses (inf matches inf; NaN never matches)."""
    import dataclasses

    if dataclasses.is_dataclass(a) and dataclasses.is_dataclass(b):
        return all(close(getattr(a, f.name), getattr(b, f.name), rtol, atol) for f in dataclasses.fields(a))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(close(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, pd.DataFrame):
        return isinstance(b, pd.DataFrame) and a.shape == b.shape and all(
            close(a[c].to_numpy(), b[c].to_numpy(), rtol, atol) if a[c].dtype.kind in "fiub" else a[c].equals(b[c])
            for c in a.columns
        )
    if a is None or b is None:
        return a is b
    if isinstance(a, (str, bool)) or isinstance(b, (str, bool)):
        return a == b
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(np.isclose(a, b, rtol=rtol, atol=atol) | ((a == b) & np.isinf(a))))


def equals(expected, **tol):
    """The result is ``expected(kwargs)`` (an independent computation) or the value ``expected``."""

    def check(out, kwargs, fn):
        want = expected(kwargs) if callable(expected) else expected
        return close(out, want, **tol) or f"expected {want!r:.120}"

    return check


def same_as(param, transform, **tol):
    """The result equals the call with ``param`` replaced by ``transform(value)`` (an equivalent
    valid input, e.g. the value before a size-1 axis was added)."""

    def check(out, kwargs, fn):
        want = fn(**{**kwargs, param: transform(kwargs[param])})
        if hasattr(want, "__next__"):
            want = list(want)
        return close(out, want, **tol) or f"expected {want!r:.120} (as with {param} transformed)"

    return check


def elementwise(param=None, **tol):
    """A vectorised function: entry i of the result is the call at entry i of ``param`` (default:
    the parameter of the case)."""

    def check(out, kwargs, fn, case_param=None):
        name = param or case_param
        arr = np.asarray(kwargs[name], dtype=float)
        outs = out if isinstance(out, tuple) else (out,)
        for idx in np.ndindex(arr.shape):
            one = fn(**{**kwargs, name: float(arr[idx])})
            ones = one if isinstance(one, tuple) else (one,)
            for o, w in zip(outs, ones):
                if not close(np.asarray(o)[idx], w, **tol):
                    return f"entry {idx}: {np.asarray(o)[idx]!r} != {w!r}"
        return True

    return check


def identity_matrix(out, kwargs, fn):
    m = np.asarray(out, dtype=float)
    return close(m, np.eye(m.shape[0])) or "expected the identity"


def emi(x, y) -> float:
    """Empirical mutual information of paired labels by plain counting (independent of leakage)."""
    n = len(x)
    pairs = collections.Counter(zip(map(str, x), map(str, y)))
    px, py = collections.Counter(map(str, x)), collections.Counter(map(str, y))
    return sum(c / n * math.log(c * n / (px[a] * py[b])) for (a, b), c in pairs.items())


def _inf(out, kwargs, fn):
    return out == math.inf or f"expected inf, got {out!r}"


LN = math.log

def emi_counts(counts) -> float:
    """Empirical MI of a 2-D frequency table in plain Python logs (independent of leakage)."""
    rows = [[float(v) for v in r] for r in counts]
    m = math.fsum(map(math.fsum, rows))
    r = [math.fsum(row) for row in rows]
    s = [math.fsum(row[j] for row in rows) for j in range(len(rows[0]))]
    return math.fsum(
        c / m * (math.log(c) + math.log(m) - math.log(r[i]) - math.log(s[j]))
        for i, row in enumerate(rows) for j, c in enumerate(row) if c > 0
    )


def _beta(delta, m, n=2):
    return math.sqrt(2.0 / m * (math.log(2**n - 2) - math.log(delta)))


def _laplace_eps(b, q):
    """eq. (49) in plain floats: 2/b - log(q (e^{2/b} - 1) + 1)."""
    return 2 / b - math.log(q * math.expm1(2 / b) + 1)


def _laplace_b(eps, q):
    """eq. (49) solved for b: t = e^eps (1 - q)/(1 - q e^eps), b = 2 / log t."""
    return 2 / math.log(math.exp(eps) * (1 - q) / (1 - q * math.exp(eps)))


def _pldp_delta(eps, sigma, sens):
    s = math.sqrt(2) * eps * sigma / sens
    return min(1.0, math.erfc((s * s - eps) / (2 * s)) if s < 1e150 else 0.0)


def _pldp_sigma(eps, delta, sens):
    from scipy.special import erfcinv

    f = float(erfcinv(delta))
    return sens * (f + math.sqrt(f * f + eps)) / (math.sqrt(2) * eps)


def gauss_pml(y, sigma, p):
    """l(X -> y) of the binary Gaussian mechanism from the normal densities (scipy.stats), limits at +-inf."""
    from scipy.special import logsumexp
    from scipy.stats import norm

    if abs(y) > 1e12 * sigma:
        return -math.log(1 - p) if y > 0 else -math.log(p)
    lm, lp = norm.logpdf(y, -1, sigma), norm.logpdf(y, 1, sigma)
    return max(lm, lp) - logsumexp([math.log(p) + lm, math.log1p(-p) + lp]) if 0 < p < 1 else 0.0


def _delta1_sup_ok(out, kw):
    """delta1 over the whole interval vs a grid of priors, each violation probability a numerical
    integral of the output density over {y : l(y) > eps} (scipy.stats, not the closed form)."""
    from scipy.stats import norm

    eps, sigma = kw["eps"], kw["sigma"]
    ys = np.linspace(-1 - 12 * sigma, 1 + 12 * sigma, 40001)
    fm, fp = norm.pdf(ys, -1, sigma), norm.pdf(ys, 1, sigma)
    best = 0.0
    for p in np.linspace(0.0, 1.0, 201):
        fy = p * fm + (1 - p) * fp
        with np.errstate(divide="ignore", invalid="ignore"):
            leak = np.log(np.maximum(fm if p > 0 else fp, fp if p < 1 else fm) / fy)
        best = max(best, float(np.trapezoid(np.where(leak > eps, fy, 0.0), ys)))
    return abs(out[0] - best) < 2e-3 or f"grid sup {best}"


def _same_utility_as_literal(out, kw) -> bool:
    from leakage.design.polytope import design_mechanism

    form = "estimate" if out.form == "estimate" else "literal"
    other = design_mechanism(kw["p_hat"], kw["eps"], kw["beta"], kw["utility"], form=form)
    return abs(out.expected_utility - other.expected_utility) <= 1e-7 * max(1.0, abs(other.expected_utility)) or (
        f"literal form: {other.expected_utility!r}")


def same_as_base(out, kwargs, fn, base):
    """The result of the valid example call (the mutated value is not read)."""
    import copy

    want = fn(**{k: copy.deepcopy(v) if isinstance(v, np.random.Generator) else v for k, v in base.items()})
    return close(out, want) or "differs from the valid call's result"


#: Columns where the figure contracts (docs/figures.md) document an empty value: an infeasible
#: design's engine bound, the DP eps of a method without one, Theorem 3's bounds of a set of another class.
DOCUMENTED_NAN = {"bound", "dp_eps", "eps_dp_lower", "eps_dp_upper"}


def valid_table(out, base_out=None) -> bool:
    """A figure table: a non-empty DataFrame with the valid call's columns, no inf, and NaN only in
    the columns where the valid call's table has them (e.g. dp_eps of the methods without one)."""
    if not isinstance(out, pd.DataFrame) or out.empty:
        return "not a non-empty DataFrame"
    if base_out is not None and list(out.columns) != list(base_out.columns):
        return f"columns {list(out.columns)} != {list(base_out.columns)}"
    floats = out.select_dtypes("float")
    base = pd.DataFrame() if base_out is None else base_out.select_dtypes("float")
    nan_ok = {c for c in base.columns if base[c].isna().any()} | DOCUMENTED_NAN
    inf_ok = {c for c in base.columns if np.isinf(base[c].to_numpy()).any()}
    bad = [c for c in floats.columns if floats[c].isna().any() and c not in nan_ok]
    bad += [c for c in floats.columns if np.isinf(floats[c].to_numpy()).any() and c not in inf_ok]
    return not bad or f"NaN or inf in {bad}, not in the valid call's table"


def table_check(out, kwargs, fn, base_out):
    return valid_table(out, base_out)


def _solutions_ok(out, kw) -> bool:
    """Solutions of the statistical-inference programs: stochastic channels, leakage >= 0, finite."""
    sols = out if isinstance(out, list) else [out]
    for sol in sols:
        ch = np.asarray(sol.channel)
        if not (np.allclose(ch.sum(axis=-1), 1) and sol.leakage >= -1e-9 and np.isfinite(sol.distortion)):
            return f"inconsistent solution {sol!r:.100}"
    return True


def valid_output(out, base_out) -> bool:
    """A result of the valid call's kind: a table (see :func:`valid_table`), claims, a finite array
    or a tuple of those."""
    if isinstance(out, tuple):
        return all(valid_output(o, b) is True for o, b in zip(out, base_out)) or "invalid part"
    if isinstance(out, pd.DataFrame):
        return valid_table(out, base_out)
    if isinstance(out, list):
        return _claims(out) or "not a list of claims"
    if isinstance(out, np.ndarray):
        return bool(np.all(np.isfinite(out))) or "not finite"
    return type(out) is type(base_out) or f"a {type(out).__name__}, not a {type(base_out).__name__}"


def _claims(out) -> bool:
    from leakage.claims import Claim

    return isinstance(out, list) and all(isinstance(c, Claim) for c in out)


def _exponential(kw):
    u = np.asarray(kw["utility"], float)
    eps = kw["eps"]
    if "prior" in kw:  # Proposition 1's LDP level
        pmin = min(kw["prior"])
        eps = math.log(math.exp(eps) * (1 - pmin) / (1 - pmin * math.exp(eps)))
    du = max(max(c) - min(c) for c in u.T.tolist())
    rows = []
    for r in u.tolist():
        w = [math.exp(eps * (v - max(r)) / (2 * du)) for v in r]
        rows.append([x / sum(w) for x in w])
    return rows


def _argmax_rows(out, utility):
    u = np.asarray(utility, float)
    best = u == u.max(axis=1, keepdims=True)
    return close(out, best / best.sum(axis=1, keepdims=True)) or "expected all mass on the best outputs"


def _order_k(out, kw):
    o = np.asarray(kw["order"])
    c = np.asarray(out)
    return bool(np.allclose(c.sum(axis=1), 1) and np.all(c[o < kw["k"]] == 0)) or "not of worst-case order >= k"


def _worst_pair(kw):
    c, p, u = (np.asarray(kw[k], float) for k in ("channel", "prior", "utility"))
    return min(u[x, y] for x in range(c.shape[0]) for y in range(c.shape[1]) if p[x] > 0 and c[x, y] > 0)


def _utility_safe_ok(out, kw):
    from scipy.stats import rankdata

    from leakage.measures.pml import epsilon_min

    u = np.asarray(kw["utility"], float)
    ranks = np.array([rankdata(r) for r in u])
    c = np.asarray(out)
    k = int(ranks[c > 0].min())
    allowed = ranks >= k
    uniform = np.allclose(c[allowed], np.repeat(1 / allowed.sum(axis=1), allowed.sum(axis=1)))
    return (uniform and np.all(c[~allowed] == 0) and epsilon_min(c, kw["prior"]) <= kw["eps"] + 1e-9) or "not utility-safe"


def _in_h_rep(out, points) -> bool:
    a_eq, b_eq, a_ub, b_ub = (np.asarray(x, float) for x in out)
    pts = np.asarray(points, float)
    scale = max(1.0, float(np.abs(pts).max()))
    ok = np.all(np.abs(pts @ a_eq.T - b_eq) <= 1e-9 * scale) and np.all(pts @ a_ub.T <= b_ub + 1e-9 * scale)
    return bool(ok) or "a point outside the returned H-representation"


def _vertices_ok(out, kw) -> bool:
    from scipy.optimize import linprog

    a_eq, b_eq, a_ub, b_ub = (np.asarray(kw[k], float) for k in ("a_eq", "b_eq", "a_ub", "b_ub"))
    v = np.asarray(out, float)
    if v.shape[0] == 0:
        res = linprog(np.zeros(a_ub.shape[1]), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=(None, None))
        return res.status == 2 or "empty, but the LP finds a point"
    ok = np.allclose(v @ a_eq.T, b_eq, atol=1e-7) and np.all(v @ a_ub.T <= b_ub + 1e-7)
    return bool(ok) or "a vertex violates the constraints"


def _scales(kw):
    """Laplace scales per (p_hat, m, curve): 2/eps (ldp), eq. (50) solved for b (pml), in plain floats."""
    p = np.asarray(kw["p_hat"], float)
    m = np.broadcast_to(np.asarray(kw["m"], float), p.shape)
    out = np.empty(p.shape + (2,))
    for idx in np.ndindex(p.shape):
        q = max(0.0, min(p[idx], 1 - p[idx]) - _beta(1e-6, m[idx]) / 2)
        out[idx + (0,)] = _laplace_b(1.0, q) if q * math.e < 1 else 0.0
        out[idx + (1,)] = 2.0
    return out


def _rd_consistent(out, kw) -> bool:
    rate, dist, w = out
    p = np.asarray(kw["prior"], float)
    d = np.asarray(kw["distortion"], float)
    q = p @ w
    with np.errstate(divide="ignore", invalid="ignore"):
        mi = float(np.nansum(p[:, None] * w * np.log(np.where(w > 0, w / q, 1.0))))
    return (np.allclose(w.sum(axis=1), 1) and abs(rate - mi) < 1e-9
            and abs(dist - float(p @ (w * d).sum(axis=1))) <= 1e-9 * max(1.0, abs(dist)))


def _information(kw):
    """J = C diag(1/q) C^T, q = prior C, and its inverse by numpy's dense inverse (the library uses
    an SVD of the scaled channel)."""
    c, p = np.asarray(kw["channel"], float), np.asarray(kw["prior"], float)
    q = p @ c
    return np.linalg.inv(c @ np.diag(1 / q) @ c.T), p


def _grr_pq(kw):
    """GRR's two probabilities in plain floats: e^eps / (e^eps + k - 1), 1 / (e^eps + k - 1)."""
    o = kw["oracle"]
    e = math.exp(o.eps)
    return e / (e + o.n_categories - 1), 1 / (e + o.n_categories - 1)


def _hadamard_codewords(k):
    """Rows 1..k of the Sylvester Hadamard matrix of the power of two above k (np.kron), their +1
    entries as uniform distributions."""
    h = np.ones((1, 1))
    while h.shape[0] <= k:
        h = np.kron(np.array([[1.0, 1.0], [1.0, -1.0]]), h)
    return (h[1 : k + 1] > 0) / (h.shape[0] / 2)


def _grr_variance(kw):
    """Var of GRR's unbiased estimate with the m records fixed: count c_x of n_x = f_x m records
    kept w.p. p and m - n_x others moved to x w.p. q, f_x = (c_x / m - q) / (p - q)."""
    p, q = _grr_pq(kw)
    f = np.asarray(kw["prior"], float)
    return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (kw["m"] * (p - q) ** 2)


# ----------------------------------------------------------------------------- context


def _adult_design(tmp: Path, table: pd.DataFrame) -> dict:
    """The adult-design stage outputs of the small settings, as files (the figures' inputs) and tables."""
    from leakage.experiments import adult_design as study
    from leakage.experiments.adult_design import stages
    from leakage.tables import read_table, save_table

    settings = ADULT_DESIGN
    priors = stages.estimate_priors(table, settings["attributes"])
    mechanisms, curve = stages.design_attribute(priors, "sex", settings)
    mc = stages.monte_carlo(table, "sex", settings, np.random.default_rng(0))
    from leakage.experiments.adult_design import frequency as fq

    all_mechanisms = pd.concat([mechanisms, fq.mse_designs(priors, mechanisms, "sex", settings)], ignore_index=True)
    freq = fq.frequency_comparison(priors, all_mechanisms, "sex", settings, np.random.default_rng(0))
    release = stages.release_attribute(table, mechanisms, "sex", settings, priors=priors, seed=1)
    inputs = {name: str(save_table(frame, tmp / f"{name}.csv"))
              for name, frame in (("priors", priors), ("mechanisms", all_mechanisms), ("curve_sex", curve), ("mc_sex", mc),
                                  ("frequency_sex", freq))}
    # read back as the pipeline does (the claims compare CSV round trips)
    read = {name: read_table(path) for name, path in inputs.items()}
    tables = {fig: fn(settings, np.random.default_rng(0) if fig == "fig6" else None, inputs)
              for fig, fn in study.FIGURES.items()}
    mech = stages.design("rr", [0.7, 0.3], 1.0, 0.0)
    return {"settings": settings, "table": table, "priors": read["priors"], "mechanisms": mechanisms,
            "all_mechanisms": read["mechanisms"], "inputs": inputs, "tables": tables, "mech": mech, "release": release}


def build_context(tmp: Path) -> dict:
    """Files and tables the experiments functions read (built once per test module): the small
    settings, and every figure's table computed from them (for the ``check_claims`` calls)."""
    from leakage.experiments import paper_module

    from leakage.data.adult import parse_raw
    from leakage.tables import save_table

    adult = save_table(parse_raw(ADULT_SAMPLE / "adult.data", ADULT_SAMPLE / "adult.test"), tmp / "adult.csv")
    ctx = {"tmp": tmp, "settings": SETTINGS, "tables": {},
           "inputs": {"robust-dp-hamming": {"source_sets": str(SOURCE_SETS)}, "empirical-pml": {"adult": str(adult)}}}
    ctx["adult"] = _adult_design(tmp, parse_raw(ADULT_SAMPLE / "adult.data", ADULT_SAMPLE / "adult.test"))
    for paper, sections in SETTINGS.items():
        module = paper_module(paper)
        inputs = ctx["inputs"].get(paper, {})
        ctx["tables"][paper] = {
            fig: module.FIGURES[fig](section, np.random.default_rng(0), inputs)
            for fig, section in sections.items() if fig in module.FIGURES
        }
    return ctx


# ----------------------------------------------------------------------------- the table

#: The modules of statistical-inference's programs (all but its figures), for the rules on all of them.
SI_PROGRAMS = tuple(f"experiments.statistical_inference.{m}" for m in (
    "common", "measures", "convex", "corollary2", "counting_query", "information_privacy", "theorem4"))

RULES: list = [
    # ------------------------------------------------------------ labels and vectorised functions
    Accept("*", "name", None, "a label used in messages only: any value is accepted",
           check=same_as("name", lambda v: "label")),
    # ------------------------------------------------------------ measures
    Accept("measures.*", "eps", ("inf", "huge"), "every channel is inf-LDP/PML: True; randomized response "
           "at eps = inf is the identity (e^-1e300 = 0)",
           check=lambda out, kw, fn: (out is True) if isinstance(out, bool) else identity_matrix(out, kw, fn)),
    Accept("measures.information.binary_entropy", "q", ("wrong_shape",), "vectorised", check=elementwise("q")),
    Accept(("measures.dp_relations.*_level", "measures.dp_relations.dp_*"), "channel", ("wrong_shape",),
           "a leading axis of size 1 is a database entry with one value (no neighbours): the measure of "
           "the (1, 3, 3) mechanism is that of the 3 x 3 channel",
           check=same_as("channel", lambda a: np.asarray(a)[0])),
    Accept("measures.dp_relations.check_mechanism", "channel", ("wrong_shape",),
           "a (1, 3, 3) array is a mechanism on two entries", check=equals(lambda kw: np.asarray(kw["channel"]))),
    Accept("measures.dp_relations.neighbour_channels", "channel", ("wrong_shape",),
           "a (1, 3, 3) mechanism: entry 0 has one value (1 x 3 channels), entry 1 gives the 3 x 3 channel",
           check=lambda out, kw, fn: [(i, r) for i, r, _ in out] == [(0, (0,)), (0, (1,)), (0, (2,)), (1, (0,))]
           and close(out[3][2], kw["channel"][0])),
    Accept("measures.dp_relations.delta_from_mi_dp_relaxed", "eps_mi", ("inf", "huge"),
           "sqrt(2 eps_mi), eq. (27): inf at inf", check=equals(lambda kw: math.sqrt(2 * kw["eps_mi"]))),
    Accept("measures.dp_relations.erasure_channel_capacity", "alphabet_size", ("huge",),
           "(1 - e) log |X| needs no array", check=equals(lambda kw: (1 - kw["erasure_prob"]) * LN(kw["alphabet_size"]))),
    Accept("measures.dp_relations.kl_dp_bound", "eps", ("inf", "huge"), "eps tanh(eps/2) -> eps",
           check=equals(lambda kw: kw["eps"])),
    Accept("measures.dp_relations.kl_dp_bound_relaxed", "eps", ("inf", "huge"),
           "eps^2/2: inf beyond the float range (5e599)", check=_inf),
    Accept("measures.information.empirical_mutual_information", ("x", "y"), ("negative", "huge", "wrong_type"),
           "sample values are labels: any finite number or string is one",
           check=equals(lambda kw: emi(kw["x"], kw["y"]))),
    Accept("measures.information.empirical_mutual_information_counts", "counts", ("wrong_shape",),
           "vectorised over leading axes", check=lambda out, kw, fn: close(out, [fn(np.asarray(kw["counts"])[0])])),
    Accept("measures.information.empirical_mutual_information_counts", "counts", ("short",),
           "a 2 x 1 table is valid (MI 0)", check=equals(lambda kw: emi_counts(kw["counts"]))),
    Accept("measures.information.empirical_mutual_information_counts", "counts", ("huge",),
           "counts up to the float range are a valid table", check=equals(lambda kw: emi_counts(kw["counts"]), atol=0)),
    Accept("measures.information.rate_distortion_point", "distortion", ("short", "huge"),
           "a 3 x 2 distortion matrix, and a huge (finite) entry, are valid: the result is a consistent point",
           check=lambda out, kw, fn: _rd_consistent(out, kw)),
    Accept("measures.information.rate_distortion_point", "slope", ("inf", "huge"),
           "slope -> inf: the least distortion sum_x P(x) min_y d(x, y), with the least rate among those",
           check=lambda out, kw, fn: _rd_consistent(out, kw) and close(
               out[1], np.asarray(kw["prior"]) @ np.asarray(kw["distortion"], float).min(axis=1))),
    # ------------------------------------------------------------ estimation
    Accept(("estimation.concentration.beta_star", "estimation.concentration.weissman_radius"), ("m", "n_symbols", "phi"),
           ("huge", "inf"), "eq. (20): a closed form, no array; phi = inf gives radius 0",
           check=equals(lambda kw: 2 * math.sqrt((kw.get("n_symbols", 2) * LN(2) + math.log1p(-2.0 ** (1 - kw.get("n_symbols", 2)))
                                                  - LN(kw["delta"])) / (kw["m"] * kw.get("phi", 2.0))))),
    Accept(("estimation.concentration.weissman_tail_bound", "estimation.concentration.delta_for_beta"),
           ("beta", "m", "phi", "n_symbols"), ("inf", "huge"),
           "eq. (17): (2^N - 2) exp(-m phi beta^2 / 4) -> 0 as beta, m or phi grow, -> inf (capped at 1 by "
           "delta_for_beta) as N grows",
           check=lambda out, kw, fn: out == (0.0 if kw.get("n_symbols", 2) < 10**6 else
                                             (1.0 if fn.__name__ == "delta_for_beta" else math.inf))
           or "expected the limit 0 (inf/1 for huge N)"),
    Accept("estimation.concentration.empirical_distribution", "samples", ("short",), "fewer samples are valid",
           check=equals(lambda kw: [list(kw["samples"]).count(a) / len(kw["samples"]) for a in kw["alphabet"]])),
    Accept("estimation.concentration.sample_sizes", "m_max", ("huge",), "a grid of integers up to 10^12 needs no array of that size",
           check=lambda out, kw, fn: out[0] == kw["m_min"] and out[-1] == kw["m_max"] and len(out) == kw["n"]),
    Accept(("estimation.uncertainty.is_private*", "estimation.uncertainty.ball*", "estimation.uncertainty.local*"),
           "eps", ("inf", "huge"), "every channel is inf-PML on any set", check=lambda out, kw, fn: out is True),
    Accept("estimation.uncertainty.ball_min_columns", "columns", ("short",), "any number of columns (N x K): "
           "an LP over the ball gives the same minima", check=lambda out, kw, fn: close(
               out, [_ball_min_lp(v, kw["center"], kw["half"]) for v in np.asarray(kw["columns"], float).T],
               rtol=1e-7, atol=1e-9)),
    Accept("estimation.uncertainty.ball_min_columns", "columns", ("huge",), "any finite non-negative vectors: "
           "min Q.v lies between min v and P.v", check=lambda out, kw, fn: bool(np.all(np.isfinite(out)) and np.all(
               out >= np.asarray(kw["columns"]).min(axis=0) * (1 - 1e-12)) and np.all(
               out <= np.asarray(kw["center"]) @ np.asarray(kw["columns"]) * (1 + 1e-12)))),
    Accept("estimation.uncertainty.privacy_region", "eps", ("inf", "huge"), "the last region N = [eps_{N-1}, inf)",
           check=equals(lambda kw: len(kw["prior"]))),
    Accept("estimation.uncertainty.radius_for_leakage", "eps_prime", ("inf", "huge"), "2 (e^-eps - e^-inf) = 2 e^-eps",
           check=equals(lambda kw: 2 * math.exp(-kw["eps"]))),
    Accept("estimation.uncertainty.delta_min", "eps_prime", ("inf", "huge"), "eq. (39) at eps' = inf: (2^N - 2) exp(-2 m e^-2eps)",
           check=equals(lambda kw: min(1.0, (2 ** kw["n_symbols"] - 2) * math.exp(-2 * kw["m"] * math.exp(-2 * kw["eps"]))))),
    Accept("estimation.uncertainty.delta_min", ("m", "n_symbols"), ("huge",), "eq. (39): 0 as m grows, capped at 1 as N grows",
           check=equals(lambda kw: 0.0 if kw["m"] > 10**6 else 1.0)),
    Accept("estimation.uncertainty.epsilon_prime", "m", ("huge",), "eq. (38) with beta* -> 0: eps' -> eps",
           check=equals(lambda kw: kw["eps"] - math.log1p(-math.exp(kw["eps"]) / 2 * math.sqrt(
               2 / kw["m"] * (LN(2 ** kw["n_symbols"] - 2) - LN(kw["delta"])))), rtol=1e-9)),
    Accept("estimation.uncertainty.lipschitz_bound", "capacity", ("inf", "huge"), "e^inf ||P - Q||_1 = inf (vacuous, exact)",
           check=_inf),
    # ------------------------------------------------------------ mechanisms
    Accept(("mechanisms.additive.ball_min_probability", "mechanisms.additive.gaussian_delta_star",
            "mechanisms.additive.gaussian_epsilon_star", "mechanisms.additive.gaussian_violation_*",
            "mechanisms.additive.laplace_epsilon", "mechanisms.additive.laplace_epsilon_estimated",
            "mechanisms.additive.laplace_flip_probability", "mechanisms.additive.laplace_ldp_scale",
            "mechanisms.additive.laplace_scale", "mechanisms.additive.pldp_gaussian_delta"),
           "*", ("wrong_shape",), "vectorised (docstring): entry-wise results", check=elementwise()),
    Accept(("mechanisms.additive.gaussian_leakage", "mechanisms.additive.threshold_release"), "y",
           ("wrong_shape", "short"), "vectorised in y", check=elementwise()),
    Accept("mechanisms.additive.ball_interval", "beta", ("inf", "huge"), "the ball is the whole interval",
           check=equals((0.0, 1.0))),
    Accept("mechanisms.additive.ball_min_probability", "beta", ("inf", "huge"), "max(0, p - beta/2) = 0",
           check=equals(0.0)),
    Accept(("mechanisms.additive.gaussian_delta1", "mechanisms.additive.gaussian_violation_probability"),
           ("eps", "sigma"), ("inf", "huge"),
           "eps = inf: nothing violates; sigma -> inf: the leakage vanishes and, at eps > 0, so does the "
           "violation probability (exact limits, eq. (61))",
           check=lambda out, kw, fn: (out[0] if isinstance(out, tuple) else out) == 0.0 or "expected 0"),
    Accept("mechanisms.additive.gaussian_delta1", "beta", ("inf", "huge"),
           "the ball is all of [0, 1]: sup over every prior of (61), checked against a numerical integral",
           check=lambda out, kw, fn: _delta1_sup_ok(out, kw)),
    Accept("mechanisms.additive.gaussian_violation_set", ("eps", "sigma"), ("inf", "huge"),
           "no outcome violates: the set is empty, ends -inf and +inf", check=equals((-math.inf, math.inf))),
    Accept("mechanisms.additive.gaussian_leakage", "y", ("inf", "negative", "huge"),
           "every real y (and the limits y -> +-inf: -log(1 - p), -log p) is an outcome",
           check=lambda out, kw, fn: close(out, [gauss_pml(y, kw["sigma"], kw["p"]) for y in kw["y"]], rtol=1e-7)),
    Accept("mechanisms.additive.gaussian_leakage", "sigma", ("inf", "huge"), "sigma -> inf: no leakage",
           check=equals(lambda kw: np.zeros(len(kw["y"])))),
    Accept(("mechanisms.additive.laplace_epsilon", "mechanisms.additive.laplace_epsilon_estimated"), "b",
           ("inf", "huge"), "b -> inf: eps(b) = 2/b - log(...) -> 0", check=equals(0.0)),
    Accept("mechanisms.additive.laplace_epsilon_estimated", "m", ("huge",), "beta* -> 0: eq. (49) at p_hat_min",
           check=equals(lambda kw: _laplace_eps(kw["b"], kw["p_hat_min"] - _beta(kw["delta"], kw["m"]) / 2))),
    Accept("mechanisms.additive.laplace_flip_probability", "b", ("inf", "huge"), "1/2 e^{-1/b} -> 1/2",
           check=equals(0.5)),
    Accept("mechanisms.additive.laplace_ldp_scale", "eps", ("huge",), "2/eps", check=equals(lambda kw: 2 / kw["eps"])),
    Accept("mechanisms.additive.laplace_mechanism", ("x", "b", "noise"), ("negative", "huge"), "any finite data, scale and noise",
           check=equals(lambda kw: np.asarray(kw["x"], float) + kw["b"] * np.asarray(kw["noise"], float))),
    Accept(("mechanisms.additive.laplace_scale", "mechanisms.additive.laplace_scale_for"), "eps", ("inf", "huge"),
           "eps >= eps_max: no noise needed, b = 0", check=equals(0.0)),
    Accept("mechanisms.additive.laplace_scale_for", "m", ("huge",), "beta* -> 0: eq. (49) inverted at p_hat_min",
           check=equals(lambda kw: _laplace_b(kw["eps"], kw["p_hat_min"] - _beta(kw["delta"], kw["m"]) / 2))),
    Accept("mechanisms.additive.pldp_gaussian_delta", ("eps", "sigma", "sensitivity"), ("huge",),
           "eq. (70) inverted: erfc(f) (capped at 1), f from s = sqrt(2) eps sigma / Delta",
           check=lambda out, kw, fn: close(out, _pldp_delta(kw["eps"], kw["sigma"], kw.get("sensitivity", 2.0)))),
    Accept("mechanisms.additive.pldp_gaussian_sigma", ("eps", "sensitivity"), ("inf", "huge"),
           "eq. (70): sigma -> 0 as eps -> inf, proportional to Delta",
           check=equals(lambda kw: 0.0 if math.isinf(kw["eps"]) else _pldp_sigma(kw["eps"], kw["delta"], kw.get("sensitivity", 2.0)))),
    Accept("mechanisms.additive.threshold_release", "y", ("inf", "negative", "huge"), "+-inf and any real have a sign",
           check=equals(lambda kw: [-1 if v < 0 else 1 for v in np.asarray(kw["y"], float)])),
    # ------------------------------------------------------------ frequency estimation, LDP frequency oracles
    Accept("estimation.frequency.estimate_frequencies", "reports", ("short",), "fewer reports: the estimate of those "
           "(a square invertible channel: the unbiased estimate solves f C = q_hat)",
           check=lambda out, kw, fn: close(out.estimate, np.linalg.solve(
               np.asarray(kw["channel"], float).T,
               np.bincount(np.asarray(kw["reports"], int), minlength=3) / len(kw["reports"])), rtol=1e-8)),
    Accept("estimation.frequency.frequency_covariance", "m", ("huge",), "a closed form, no array of size m: "
           "(J^-1 - diag(prior)) / m", check=lambda out, kw, fn: close(
               out, (_information(kw)[0] - np.diag(_information(kw)[1])) / kw["m"], rtol=1e-8, atol=0)),
    Accept("estimation.frequency.frequency_mse", "m", ("huge",), "a closed form: (tr J^-1 - 1) / m",
           check=equals(lambda kw: (np.trace(_information(kw)[0]) - 1) / kw["m"], rtol=1e-8, atol=0)),
    Accept("measures.dp.randomized_response_probabilities", "n_outputs", ("huge",),
           "O(1) in N (the point of the function): e^eps / (e^eps + N - 1), 1 / (e^eps + N - 1)",
           check=equals(lambda kw: (math.exp(kw["eps"]) / (math.exp(kw["eps"]) + kw["n_outputs"] - 1),
                                    1 / (math.exp(kw["eps"]) + kw["n_outputs"] - 1)))),
    Accept("measures.dp.randomized_response_probabilities", "eps", ("inf", "huge"), "the identity's entries: 1 and 0",
           check=equals((1.0, 0.0))),
    Accept("mechanisms.frequency_oracles.oracle_variance", "m", ("huge",), "GRR's variance with the records "
           "fixed, a closed form divided by m", check=equals(_grr_variance, rtol=1e-8, atol=0)),
    Accept("mechanisms.frequency_oracles.oracle_mse", "m", ("huge",), "the sum of GRR's variances over the categories",
           check=equals(lambda kw: float(_grr_variance(kw).sum()), rtol=1e-8, atol=0)),
    Accept("mechanisms.frequency_oracles.oracle_approximate_variance", "m", ("huge",),
           "[wang2017]'s approximation for GRR: (e^eps + k - 2) / (m (e^eps - 1)^2)",
           check=equals(lambda kw: (math.exp(kw["oracle"].eps) + kw["oracle"].n_categories - 2)
                        / (kw["m"] * math.expm1(kw["oracle"].eps) ** 2), rtol=1e-8, atol=0)),
    Accept("mechanisms.frequency_oracles.hadamard_response_channel", "eps", ("inf", "huge"),
           "Hadamard response without flips: uniform on the value's codewords (the +1 entries of Sylvester rows 1..k)",
           check=equals(lambda kw: _hadamard_codewords(kw["n_categories"]))),
    Accept("mechanisms.frequency_oracles.oracle_perturb", "values", ("short",), "fewer records: one report each",
           check=lambda out, kw, fn: np.shape(out) == (len(kw["values"]),) and bool(np.all((out >= 0) & (out < 3)))),
    Accept("mechanisms.frequency_oracles.oracle_support_counts", "reports", ("short",),
           "fewer reports: GRR's support counts are the reports' histogram",
           check=equals(lambda kw: np.bincount(np.asarray(kw["reports"], int), minlength=3))),
    # ------------------------------------------------------------ design
    Accept("design.polytope.design_epsilon", "eps", ("inf", "huge"), "eq. (43): eps' -> log(2/beta)",
           check=equals(lambda kw: math.log(2 / kw["beta"]))),
    Accept(("design.polytope.design_mechanism*", "design.optimal.optimal_mechanism*"), "eps", ("inf", "huge"),
           "beyond eps_max every channel is allowed: the identity, utility sum_x P(x) max_y u(x, y) (MI: H(P))",
           check=lambda out, kw, fn: identity_matrix(getattr(out, "mechanism", getattr(out, "channel", None)), kw, fn)),
    Accept("design.polytope.design_mechanism*", "utility", ("negative", "short", "huge"),
           "any finite N x M utility (negative, M = 2, up to 1e300): the same optimum as the literal form's LP "
           "(eq. (43), an independent formulation of the polytope)",
           check=lambda out, kw, fn: _same_utility_as_literal(out, kw)),
    Accept("design.polytope.design_polytope", "eps", ("inf", "huge"),
           "beyond eps_all = -log(min P - beta/2) the polytope is every channel: the same constraints",
           check=lambda out, kw, fn: close(out.a_ub.toarray(), fn(kw["p_hat"], 50.0, kw["beta"]).a_ub.toarray())),
    Accept("design.polytope.in_design_polytope", "eps", ("inf", "huge"), "every channel is in M(inf, B)",
           check=lambda out, kw, fn: out is True),
    Accept("design.optimal.optimal_mechanism", "max_iterations", ("huge",), "a budget cap, not a size: the "
           "engine stops when the design is certified", check=lambda out, kw, fn: out.certified),
    Accept("experiments.adult_design.stages.designs_at", "budget", ("empty",), "the engine's default budgets",
           check=lambda out, kw, fn: all(m.feasible for m in out.values())),
    Accept("experiments.adult_design.stages.design", "warm_start", ("empty",), "no warm start (the default)",
           check=lambda out, kw, fn: out.feasible),
    Accept("design.optimal.optimal_mechanism", "warm_start", ("empty",), "no warm start (the default)",
           check=lambda out, kw, fn: out.certified),
    # ------------------------------------------------------------ experiments: every figure function
    Accept(FIGURE_FUNCTIONS, "inputs", ("empty",), "a figure that reads no data file takes inputs = {}",
           check=table_check),
    Accept(CLAIMS_FUNCTIONS, "rng", ("none",), "claims that draw nothing document rng=None", check=lambda out, kw, fn: _claims(out)),
    Accept(FIGURE_FUNCTIONS + ("experiments.compute_table", "experiments.empirical_pml.bounds.leakage_increase_table"), "settings.*",
           ("huge", "short"), "a valid extreme setting (a huge but finite range, a shorter list): a valid table "
           "with the columns of the valid call's, no NaN or inf beyond those it has", check=table_check),
    Accept(CLAIMS_FUNCTIONS, "settings*", None, "sections of the config a claims checker does not read",
           check=same_as_base),
    Accept(("experiments.compute_table", "experiments.check_claims"), ("seed", "inputs"), ("huge", "empty"),
           "any seed >= 0 (mi-dp draws nothing: the same result); no data files", check=same_as_base),
    # ------------------------------------------------------------ adult-design (a study)
    Accept(("experiments.adult_design.figures.fig1", "experiments.adult_design.figures.fig2",
            "experiments.adult_design.figures.fig4"), "settings*", ("missing", "empty"),
           "fig1, fig2 and fig4 gather the stage outputs and read no key (a study's figures get its whole "
           "section; the keys given are checked)", check=same_as_base),
    Accept("experiments.adult_design.figures.fig3", tuple(f"settings.{k}" for k in ADULT_DESIGN if k != "heatmap"),
           ("missing",), "the keys fig3 does not read (those given are checked)", check=same_as_base),
    Accept("experiments.adult_design.stages.check_settings", "required", ("empty",),
           "no key required (the default): the settings given, checked",
           check=lambda out, kw, fn, base_out: out == base_out or "differs from the valid call's settings"),
    Accept("experiments.adult_design.stages.mc_sizes", "n_records", ("huge",), "more records than mc.m_max: the same sizes",
           check=same_as_base),
    Accept("experiments.adult_design.figures.check_claims", "inputs", ("empty",), "no data files: the claims on the tables alone",
           check=lambda out, kw, fn: _claims(out)),
    Accept(("experiments.adult_design.stages.mechanism_rows", "experiments.adult_design.stages.release_rng", "experiments.adult_design.figures.engine_claim"), ("attribute", "figure"),
           ("unknown",), "a label (the attribute or figure name written in the rows)",
           check=lambda out, kw, fn: out is not None),
    Accept("experiments.adult_design.figures.engine_claim", "table", ("empty",), "no rows, no failed design: the claim holds",
           check=lambda out, kw, fn: out.holds),
    Accept(("experiments.adult_design.stages.release_rng", "experiments.adult_design.stages.release_attribute"), "seed", ("huge",),
           "any seed >= 0 (a 64-bit count)",
           check=lambda out, kw, fn: isinstance(out, np.random.Generator) or (
               len(out) == len(kw["table"]) and set(out[kw["attribute"]]) <= set(kw["table"][kw["attribute"]]))),
    # ------------------------------------------------------------ empirical-pml
    Accept("experiments.empirical_pml.adult.first_m_counts", ("bits", "m_values"), ("short",), "fewer records, fewer sample sizes",
           check=lambda out, kw, fn: out.shape == (kw["iterations"], len(kw["m_values"]))
           and np.all(out <= np.asarray(kw["m_values"])) and np.all(out <= sum(np.asarray(kw["bits"]) == -1))),
    Accept("experiments.empirical_pml.adult.nested_flip_counts", "flip_prob", ("short",), "one flip probability per record count",
           check=lambda out, kw, fn: out.shape == (2, 1) and np.all((out >= 0) & (out <= np.asarray(kw["n"])[:, None]))),
    Accept("experiments.empirical_pml.adult.scales", ("p_hat", "m"), ("wrong_shape", "short", "huge"),
           "p_hat and m broadcast; b from eq. (50) (pml) and 2/eps (ldp)", check=equals(lambda kw: _scales(kw))),
    Accept("experiments.empirical_pml.adult.simulate", ("bits", "m_values"), ("short",), "fewer records, fewer sample sizes",
           check=lambda out, kw, fn: out[0].shape == out[1].shape == (kw["iterations"], len(kw["m_values"]), 2)
           and np.all(np.isfinite(out[1]))),
    Accept("experiments.empirical_pml.adult.summarize", ("feature", "b"), ("unknown", "huge"), "a label; any finite scales are averaged",
           check=lambda out, kw, fn: close(out.b_mean.to_numpy(), [np.asarray(kw["b"])[:, j, k].mean() for k in range(2)
                                                                  for j in range(2)])),
    Accept("experiments.mi_dp.figures.grid", "upper", ("huge",), "upper k / n, k = 1..n",
           check=equals(lambda kw: [kw["upper"] * k / kw["n_points"] for k in range(1, kw["n_points"] + 1)])),
    # ------------------------------------------------------------ robust-dp-hamming
    Accept(("experiments.robust_dp_hamming.leakage_distortion.*_curve",), "distortions", ("short",), "one level: the curve's first point",
           check=lambda out, kw, fn, base_out: close(out, tuple(np.asarray(b)[:1] for b in base_out)
                                                    if isinstance(base_out, tuple) else np.asarray(base_out)[:1], atol=1e-6)),
    Accept("experiments.robust_dp_hamming.leakage_distortion.min_distortion_dp", "eps", ("inf", "huge"),
           "D_min = (M'-1)/(e^eps + M'-1) -> 0: the identity", check=lambda out, kw, fn: out[0] == 0.0 and identity_matrix(out[1], kw, fn)),
    Accept("experiments.robust_dp_hamming.leakage_distortion.dp_mechanism", "eps", ("inf", "huge"), "the identity (distortion 0 <= D)",
           check=identity_matrix),
    Accept(("experiments.robust_dp_hamming.leakage_distortion.class_i_dp_leakage", "experiments.robust_dp_hamming.leakage_distortion.class_i_mi_leakage"), "distortion",
           ("wrong_shape",), "vectorised over D", check=elementwise()),
    Accept("experiments.robust_dp_hamming.source_sets.folding", "max_pieces", ("huge",), "a limit, not a size", check=same_as_base),
    Accept(("experiments.robust_dp_hamming.source_sets.hull_vertices",), "points", ("negative", "short"),
           "points of R^M (any finite coordinates, any M): two points are their own hull",
           check=equals(lambda kw: np.asarray(kw["points"], float))),
    Accept(("experiments.robust_dp_hamming.source_sets.hull_halfspaces",), "points", ("negative", "short"),
           "points of R^M: every point satisfies the H-representation", check=lambda out, kw, fn: _in_h_rep(out, kw["points"])),
    Accept("experiments.robust_dp_hamming.figures.check_claims", "settings*", None, "the claims read only the tables", check=same_as_base),
    Accept(FIGURE_FUNCTIONS, "rng", ("none",), "a figure that draws nothing documents rng=None (the others refuse it)",
           check=table_check),
    Accept(("experiments.robust_dp_hamming.leakage_distortion.class_i_dp_leakage",), "M", ("huge",), "Theorem 1: log((M-1)(1-D)/D)",
           check=equals(lambda kw: math.log((kw["M"] - 1) * (1 - kw["distortion"]) / kw["distortion"]))),
    Accept(("experiments.robust_dp_hamming.leakage_distortion.class_i_mi_leakage",), "M", ("huge",), "Lemma 5: log M - h(D) - D log(M-1)",
           check=equals(lambda kw: math.log(kw["M"]) + kw["distortion"] * math.log(kw["distortion"])
                         + (1 - kw["distortion"]) * math.log1p(-kw["distortion"]) - kw["distortion"] * math.log(kw["M"] - 1))),
    Accept("experiments.robust_dp_hamming.source_sets.chamber_halfspaces", "order", ("short",), "the chamber of a shorter permutation (M = 2)",
           check=lambda out, kw, fn: close(out[0], [[-1.0, 1.0]]) and close(out[1], [0.0])),
    Accept(("experiments.robust_dp_hamming.source_sets.fold", "experiments.robust_dp_hamming.source_sets.unfold"), "points", ("negative", "huge"),
           "points of R^M: any finite coordinates are permuted", check=lambda out, kw, fn: close(
               out, np.asarray(kw["points"], float)[:, kw["order"]] if fn.__name__ == "fold"
               else np.asarray(kw["points"], float)[:, np.argsort(kw["order"])])),
    Accept("experiments.robust_dp_hamming.source_sets.polytope_vertices", ("a_eq", "b_eq", "a_ub", "b_ub"), ("negative",),
           "another H-representation: its vertices satisfy it (or it is infeasible, by scipy's LP)",
           check=lambda out, kw, fn: _vertices_ok(out, kw)),
    # ------------------------------------------------------------ statistical-inference
    Accept(("experiments.statistical_inference.figures.fig1", "experiments.statistical_inference.figures.fig2"), "rng", ("none",), "draws nothing: rng=None documented",
           check=table_check),
    Accept("experiments.statistical_inference.figures.fig1_grid", ("settings.distortion", "settings.methods", "settings.tol"), None,
           "fig1's keys the budget grid does not read", check=same_as_base),
    Accept("experiments.statistical_inference.figures.fig2_grid", "settings.eps", None, "fig2's key the n grid does not read", check=same_as_base),
    Accept("experiments.statistical_inference.figures.fig2", "settings.eps", ("huge",),
           "eps -> inf: the identity, I(Y;U) = H(comb prior) = log(1 + n/k), bound log(1 + n/k) - log 2",
           check=lambda out, kw, fn: close(out.mi_exact, np.log1p(out.n / out.k)) and close(
               out.mi_lower_bound, np.log1p(out.n / out.k) - math.log(2))),
    Accept("experiments.statistical_inference.common.check_distortion", "distortion_measure", ("short", "huge"),
           "a 3 x 2 measure, and a huge finite entry, are valid", check=equals(lambda kw: kw["distortion_measure"])),
    Accept("experiments.statistical_inference.measures.expected_distortion", "distortion_measure", ("huge",), "sum p(y) p(u|y) d(y, u)",
           check=equals(lambda kw: float(np.asarray(kw["prior_y"]) @ (np.asarray(kw["channel"]) * np.asarray(kw["distortion_measure"])).sum(axis=1)))),
    Accept(tuple(f"{m}.*" for m in SI_PROGRAMS), ("distortion", "distortions"), ("inf", "huge"),
           "a budget beyond D0 = min_u sum_y p(y) d(y, u): the best constant release, leakage 0",
           check=lambda out, kw, fn, base_out: (out.leakage <= 1e-6 if not isinstance(out, list) else
                                                 out[0].leakage <= 1e-6 and close([x.leakage for x in out[1:]],
                                                                                 [x.leakage for x in base_out[1:]], atol=1e-4))
           or "expected leakage 0 at the infinite budget, the other budgets as in the valid call"),
    Accept(tuple(f"{m}.*_curve" for m in SI_PROGRAMS), "distortions", ("short",), "one budget: the curve's first point",
           check=lambda out, kw, fn, base_out: len(out) == 1 and abs(out[0].leakage - base_out[0].leakage) < 1e-4),
    Accept(tuple(f"{m}.*" for m in SI_PROGRAMS), "distortion_measure", ("short", "huge"),
           "a 3 x 2 distortion measure (|U| = 2), or one with a huge finite entry: a valid program",
           check=lambda out, kw, fn: _solutions_ok(out, kw)),
    Accept("experiments.statistical_inference.theorem4.theorem4_lower_bound", ("n", "eps"), ("huge", "inf"), "(1 - e^(-k eps/2)) log(1 + n/k) - log 2",
           check=equals(lambda kw: -math.expm1(-kw["k"] * kw["eps"] / 2) * math.log1p(kw["n"] / kw["k"]) - math.log(2))),
    Accept("experiments.statistical_inference.theorem4.theorem4_exact_leakage", "eps", ("inf", "huge"), "the identity: I = H(comb prior) = log(1 + n/k)",
           check=equals(lambda kw: math.log1p(kw["n"] / kw["k"]))),
    Accept("experiments.statistical_inference.theorem4.truncated_geometric_channel", "eps", ("inf", "huge"), "the identity", check=identity_matrix),
    Accept("experiments.statistical_inference.corollary2.zeta_distribution", "cond_entropy", ("short",), "e^H / sum e^H",
           check=equals(lambda kw: [math.exp(h) / sum(map(math.exp, kw["cond_entropy"])) for h in kw["cond_entropy"]])),
    # ------------------------------------------------------------ worst-case-pml
    Accept("experiments.worst_case_pml.figures.counting_query", ("settings.eps_step", "settings.repetitions"), None,
           "fig1's keys the counting query does not read", check=same_as_base),
    Accept("experiments.worst_case_pml.figures.p_low_grid", ("settings.pattern", "settings.alphabet_size", "settings.k",
           "settings.tolerance"), None, "the keys of fig2 the p_low grid does not read", check=same_as_base),
    Accept("experiments.worst_case_pml.figures.check_claims", ("settings.fig2", "settings.fig3"), None,
           "the claims of fig2 and fig3 read only their tables", check=same_as_base),
    Accept(("experiments.worst_case_pml.figures.fig2", "experiments.worst_case_pml.figures.fig3"), "settings.k", ("short",),
           "one threshold, k = 2", check=lambda out, kw, fn, base_out: valid_table(out, base_out) is True and set(out.k) == {2}),
    Accept(("experiments.worst_case_pml.figures.fig2", "experiments.worst_case_pml.figures.fig3",
            "experiments.worst_case_pml.figures.p_low_grid"), "settings.p_low_step", ("huge",),
           "a step beyond the range: p_low_min alone",
           check=lambda out, kw, fn: list(getattr(out, "p_low", out)) == [kw["settings"]["p_low_min"]] * len(out)),
    Accept("experiments.worst_case_pml.figures.fig1", "settings.eps_step", ("huge",), "a step beyond eps_max: eps = 0 alone",
           check=lambda out, kw, fn, base_out: valid_table(out, base_out) is True and set(out.eps) == {0.0}),
    Accept("experiments.worst_case_pml.figures.eps_grid", "step", ("huge",), "a step beyond eps_max: eps = 0 alone",
           check=equals([0.0])),
    Accept("experiments.worst_case_pml.utility.counting_query_utility", "penalty", ("huge",), "any finite penalty, eq. (11)",
           check=equals(lambda kw: [[-(x - y) ** 2 - kw["penalty"] * (y < x) for y in range(kw["n_records"] + 1)]
                                    for x in range(kw["n_records"] + 1)])),
    Accept(("experiments.worst_case_pml.programs.exponential_mechanism", "experiments.worst_case_pml.programs.pml_exponential_mechanism"),
           "utility", ("negative", "short", "huge"), "any finite utility: P(y|x) proportional to exp(eps u / (2 Du))",
           check=equals(lambda kw: _exponential(kw))),
    Accept(("experiments.worst_case_pml.programs.exponential_mechanism", "experiments.worst_case_pml.programs.pml_exponential_mechanism",
            "experiments.worst_case_pml.programs.utility_safe_mechanism_for"), "eps", ("inf", "huge"),
           "all mass on each row's best output", check=lambda out, kw, fn: _argmax_rows(out, kw["utility"])),
    Accept("experiments.worst_case_pml.programs.feasible_mechanism", "eps", ("inf", "huge"),
           "beyond eps* every eps admits a mechanism of order >= k", check=lambda out, kw, fn: _order_k(out, kw)),
    Accept("experiments.worst_case_pml.programs.largest_worst_case_order", "eps", ("inf", "huge"), "every k, up to N",
           check=equals(lambda kw: len(kw["prior"]))),
    Accept("experiments.worst_case_pml.programs.ldp_epsilon_for_pml", "eps", ("inf", "huge"),
           "eps >= eps_max: every mechanism is eps-PML, eps' = inf (Proposition 1)", check=_inf),
    Accept("experiments.worst_case_pml.programs.pml_randomized_response", "eps", ("inf", "huge"), "the identity",
           check=identity_matrix),
    Accept("experiments.worst_case_pml.programs.utility_safe_mechanism_for", "utility", ("huge",),
           "a finite utility with a huge entry changes the order only: a utility-safe mechanism of it, eps-PML",
           check=lambda out, kw, fn: _utility_safe_ok(out, kw)),
    Accept("experiments.worst_case_pml.programs.utility_sensitivity", "utility", ("negative", "short", "huge"),
           "max_y max_x,x' |u(x,y) - u(x',y)|",
           check=equals(lambda kw: max(max(c) - min(c) for c in np.asarray(kw["utility"], float).T.tolist()))),
    Accept("experiments.worst_case_pml.utility.check_threshold", "n_outputs", ("huge",), "k <= N holds",
           check=equals(lambda kw: kw["k"])),
    Accept("experiments.worst_case_pml.utility.worst_case_utility", "utility", ("negative", "huge"),
           "any finite utility: min over the possible pairs", check=equals(lambda kw: _worst_pair(kw))),
    Accept("experiments.worst_case_pml.utility.sampled_worst_case_utility", "utility", ("negative", "huge"),
           "any finite utility: a sampled pair's utility, never below the exact worst case",
           check=lambda out, kw, fn: out >= _worst_pair(kw) and out in np.asarray(kw["utility"], float)),
    Accept("experiments.worst_case_pml.utility.utility_order_matrix", "utility", ("huge",), "ranks within rows",
           check=equals(lambda kw: [list(np.argsort(np.argsort(r)) + 1) for r in np.asarray(kw["utility"], float)])),
]
